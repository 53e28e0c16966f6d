// SPDX-License-Identifier: MIT
/* Containment of what a command starts: cgroups and a watchdog (see contain.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/contain.h"
#include "util/error.h"
#include "util/strlist.h"

/* One cgroup of ours: in the v2 hierarchy, or in a v1 one (pids, memory). */
struct cg {
	char *dir;
	bool v2;
};

enum { CG_V2, CG_PIDS, CG_MEMORY, NR_CG };

static struct {
	bool started;
	int result;
	pid_t owner;		/* the process that set it up */
	struct cg cg[NR_CG];
	bool limited;		/* a limit is set: joining must not fail */
	bool memory_v2;		/* --max-memory is the v2 cgroup's memory.max */
	int fd;			/* write end of the watchdog's pipe */
	pid_t watchdog;
} S = { .fd = -1 };

/* ------------------------------------------------------------ finding cgroups */

/* Whether the comma list list holds word (a mount's options, a cgroup's controllers). */
static bool in_list(const char *list, const char *word)
{
	struct strlist l = STRLIST_INIT;
	bool in = !strlist_split(&l, list, ',') && strlist_has(&l, word);

	strlist_release(&l);
	return in;
}

/*
 * The mount point of the cgroup hierarchy of fstype ("cgroup2", or "cgroup"
 * with controller among its super options) and the root of the mount; 0 or -1.
 */
static int find_mount(const char *fstype, const char *controller, char *mnt, size_t mlen,
		      char *root, size_t rlen)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -1;

	if (!f)
		return -1;
	while (ret && getline(&line, &cap, f) > 0) {
		char r[PATH_MAX], m[PATH_MAX], type[64], opts[1024];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2 || strcmp(type, fstype))
			continue;
		if (controller && !in_list(opts, controller))
			continue;
		/* mountinfo escapes spaces and the like as \ooo: such paths are not ours */
		if (strchr(m, '\\') || strchr(r, '\\'))
			continue;
		snprintf(mnt, mlen, "%s", m);
		snprintf(root, rlen, "%s", r);
		ret = 0;
	}
	free(line);
	fclose(f);
	return ret;
}

/* This process's cgroup in the v2 hierarchy (controller NULL) or a v1 one; 0 or -1. */
static int own_path(const char *controller, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -1;

	if (!f)
		return -1;
	while (ret && getline(&line, &cap, f) > 0) {
		char *ctl = strchr(line, ':'), *p;

		if (!ctl || !(p = strchr(ctl + 1, ':')))
			continue;
		*p++ = 0;	/* "ID:CONTROLLERS:PATH": three strings */
		*ctl++ = 0;
		p[strcspn(p, "\n")] = 0;
		if (!controller) {
			if (strcmp(line, "0") || *ctl)
				continue;
		} else if (!in_list(ctl, controller)) {
			continue;
		}
		snprintf(path, len, "%s", p);
		ret = 0;
	}
	free(line);
	fclose(f);
	return ret;
}

/* The folder of this process's own cgroup in a hierarchy; NULL when there is none. */
static char *own_folder(const char *fstype, const char *controller)
{
	char mnt[PATH_MAX], root[PATH_MAX], own[PATH_MAX], *dir;
	const char *rel;
	size_t rl;

	if (find_mount(fstype, controller, mnt, sizeof(mnt), root, sizeof(root)) ||
	    own_path(controller, own, sizeof(own)))
		return NULL;
	/* a mount of a subtree (a container's): the part of our path below its root */
	rl = strcmp(root, "/") ? strlen(root) : 0;
	if (rl && (strncmp(own, root, rl) || (own[rl] && own[rl] != '/')))
		return NULL;
	rel = own + rl;
	if (asprintf(&dir, "%s%s", mnt, strcmp(rel, "/") ? rel : "") < 0)
		return NULL;
	return dir;
}

/* ------------------------------------------------------------ cgroup files */

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	if (n < 0)
		err = -errno;
	else if ((size_t)n != strlen(text))
		err = -EIO;
	close(fd);
	return err;
}

static size_t walk_tree(const char *dir, int depth, size_t (*visit)(const char *dir));
static size_t remove_dir(const char *dir);

/*
 * Remove the empty cgroups "sbx-PID" in parent whose sbx is gone (its
 * watchdog was killed with it, or the machine went down): a cgroup with a
 * process in it cannot be removed, so nothing running is touched.
 */
static void sweep_cgroups(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char sub[PATH_MAX], *end;
		long pid;

		if (de->d_type != DT_DIR || strncmp(de->d_name, "sbx-", 4))
			continue;
		pid = strtol(de->d_name + 4, &end, 10);
		if (pid <= 0 || *end || pid == getpid() || !(kill((pid_t)pid, 0) && errno == ESRCH))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", parent, de->d_name);
		walk_tree(sub, 0, remove_dir);
	}
	if (d)
		closedir(d);
}

/* A new cgroup "sbx-PID" in parent (a stale one of a reused pid is removed first). */
static char *make_cgroup(const char *parent)
{
	char *dir;

	sweep_cgroups(parent);

	if (asprintf(&dir, "%s/sbx-%ld", parent, (long)getpid()) < 0)
		return NULL;
	if (mkdir(dir, 0755) && !(errno == EEXIST && !rmdir(dir) && !mkdir(dir, 0755))) {
		free(dir);
		return NULL;
	}
	return dir;
}

/*
 * The cgroups below dir, deepest first, then dir itself: visit(path) for
 * each; the sum of what it returns. An sbx run inside sbx record has its
 * own cgroup below ours.
 */
static size_t walk_tree(const char *dir, int depth, size_t (*visit)(const char *dir))
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d))) {
		char sub[PATH_MAX];

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		n += walk_tree(sub, depth + 1, visit);
	}
	if (d)
		closedir(d);
	return n + visit(dir);
}

/* SIGKILL the processes of one cgroup (one pass); how many. */
static size_t kill_procs(const char *dir)
{
	char path[PATH_MAX];
	size_t n = 0;
	long pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((f = fopen(path, "re"))) {
		while (fscanf(f, "%ld", &pid) == 1)
			n += kill((pid_t)pid, SIGKILL) == 0;
		fclose(f);
	}
	return n;
}

/* Remove one emptied cgroup; 1 when it went. */
static size_t remove_dir(const char *dir)
{
	return rmdir(dir) == 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * SIGKILL every process in the cgroup and below it, until none is left or
 * until deadline (CLOCK_MONOTONIC seconds: what is stuck in the kernel, an
 * NFS or FUSE wait, is left to the rmdir's failure); the number signalled.
 */
static size_t kill_cgroup(const struct cg *c, double deadline)
{
	size_t total = 0, n;

	if (c->v2)
		write_file(c->dir, "cgroup.kill", "1");	/* Linux 5.14; the tree below too */
	while ((n = walk_tree(c->dir, 0, kill_procs))) {
		total += n;
		if (now() > deadline)
			break;
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
	return total;
}

static void remove_cgroup(const struct cg *c, double deadline)
{
	/* emptied: its last processes may take a moment to leave */
	for (;;) {
		walk_tree(c->dir, 0, remove_dir);
		/* gone (ENOENT now), or why not: busy is worth another round */
		if (!rmdir(c->dir) || errno != EBUSY || now() > deadline)
			break;
		kill_cgroup(c, deadline);
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
}

/* What the watchdog and contain_end() give the killing and removing, at most. */
#define END_SECONDS	2.0

/* ------------------------------------------------------------------- limits */

/*
 * Set the limit name (v2) / v1name (v1) to value for the controller ctl: in
 * our v2 cgroup where the controller can be enabled for it, else in a
 * cgroup of the v1 hierarchy of ctl (slot). 0 or a negative errno with a
 * message naming the option.
 */
static int set_limit(const char *option, const char *ctl, const char *name, const char *v1name,
		     uint64_t value, int slot)
{
	char text[32], plus[32];
	char *parent;
	int err;

	snprintf(text, sizeof(text), "%" PRIu64, value);
	if (S.cg[CG_V2].dir) {
		if (write_file(S.cg[CG_V2].dir, name, text) == 0)
			return 0;
		/* the controller is not enabled below our own cgroup: enable it (root or empty only) */
		parent = strdup(S.cg[CG_V2].dir);
		if (!parent)
			return -ENOMEM;
		*strrchr(parent, '/') = 0;
		snprintf(plus, sizeof(plus), "+%s", ctl);
		err = write_file(parent, "cgroup.subtree_control", plus);
		free(parent);
		if (!err && write_file(S.cg[CG_V2].dir, name, text) == 0)
			return 0;
	}
	{
		char *own = own_folder("cgroup", ctl);

		S.cg[slot].dir = own ? make_cgroup(own) : NULL;
		free(own);
	}
	if (!S.cg[slot].dir)
		return sbx_error(-ENOTSUP, "%s: no cgroup with the %s controller that sbx may use "
				 "(cgroup v2 without it enabled below this process's cgroup, and no "
				 "writable v1 %s hierarchy)", option, ctl, ctl);
	err = write_file(S.cg[slot].dir, v1name, text);
	if (err)
		return sbx_error_errno(err, "%s: cannot set %s/%s", option, S.cg[slot].dir, v1name);
	return 0;
}

/* ---------------------------------------------------------------- watchdog */

static void watchdog_main(int rd)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP,
				       SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2 };
	long max = sysconf(_SC_OPEN_MAX);
	double deadline;
	char c;
	int null;

	/* the pipe above 0-2, where /dev/null goes (sbx may have started with them closed) */
	if (rd <= 2) {
		int moved = fcntl(rd, F_DUPFD_CLOEXEC, 3);

		if (moved < 0)
			_exit(1);
		rd = moved;
	}
	setsid();
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	prctl(PR_SET_NAME, "sbx-watchdog");
	/* no file of sbx's stays open in here (a pipe's reader would wait for us) */
	for (long fd = 0; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		if (fd != rd)
			close((int)fd);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	/* only sbx holds the write end: EOF when it ends, however it ends */
	while (read(rd, &c, 1) != 0 && errno == EINTR)
		;
	deadline = now() + END_SECONDS;
	for (int i = 0; i < NR_CG; i++)
		if (S.cg[i].dir) {
			kill_cgroup(&S.cg[i], deadline);
			remove_cgroup(&S.cg[i], deadline);
		}
	_exit(0);
}

static int start_watchdog(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return sbx_error_errno(-errno, "cannot create a pipe");
	fflush(NULL);
	S.watchdog = fork();
	if (S.watchdog < 0) {
		close(p[0]);
		close(p[1]);
		S.watchdog = 0;
		return sbx_error_errno(-errno, "cannot fork");
	}
	if (S.watchdog == 0)
		watchdog_main(p[0]);
	close(p[0]);
	S.fd = p[1];
	return 0;
}

/* ------------------------------------------------------------------- API */

static void forget_cgroups(void)
{
	for (int i = 0; i < NR_CG; i++) {
		if (S.cg[i].dir)
			rmdir(S.cg[i].dir);
		free(S.cg[i].dir);
		S.cg[i].dir = NULL;
	}
}

int contain_start(const struct contain_limits *lim)
{
	char *own;
	int err = 0;

	if (S.started)
		return S.result;
	S.started = true;
	S.owner = getpid();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return S.result = sbx_error_errno(-errno, "cannot become a subreaper");
	own = own_folder("cgroup2", NULL);
	S.cg[CG_V2].dir = own ? make_cgroup(own) : NULL;
	S.cg[CG_V2].v2 = true;
	free(own);
	if (lim && lim->max_pids) {
		S.limited = true;
		err = set_limit("--max-pids", "pids", "pids.max", "pids.max", lim->max_pids, CG_PIDS);
	}
	if (!err && lim && lim->max_memory) {
		S.limited = true;
		err = set_limit("--max-memory", "memory", "memory.max", "memory.limit_in_bytes",
				lim->max_memory, CG_MEMORY);
		S.memory_v2 = !err && !S.cg[CG_MEMORY].dir;
		/* no swap to escape to (v1: where swap accounting is on) */
		if (!err && S.cg[CG_MEMORY].dir) {
			char text[32];

			snprintf(text, sizeof(text), "%" PRIu64, lim->max_memory);
			write_file(S.cg[CG_MEMORY].dir, "memory.memsw.limit_in_bytes", text);
		} else if (!err) {
			write_file(S.cg[CG_V2].dir, "memory.swap.max", "0");
		}
	}
	if (!err && (S.cg[CG_V2].dir || S.cg[CG_PIDS].dir || S.cg[CG_MEMORY].dir))
		err = start_watchdog();
	if (err) {
		forget_cgroups();
		return S.result = err;
	}
	atexit(contain_end);
	return S.result = 0;
}

int contain_join(pid_t pid)
{
	char text[32];

	if (!S.started || S.result || getpid() != S.owner)
		return 0;
	snprintf(text, sizeof(text), "%ld", (long)pid);
	for (int i = 0; i < NR_CG; i++) {
		int err;

		if (!S.cg[i].dir)
			continue;
		err = write_file(S.cg[i].dir, "cgroup.procs", text);
		if (err && (i != CG_V2 || S.limited))
			return sbx_error_errno(err, "cannot put process %ld into %s", (long)pid,
					       S.cg[i].dir);
	}
	return 0;
}

uint64_t contain_oom_kills(void)
{
	/* v2: memory.events; v1: memory.oom_control (Linux 4.13), both "oom_kill N" */
	const char *dir = S.memory_v2 ? S.cg[CG_V2].dir : S.cg[CG_MEMORY].dir;
	char path[PATH_MAX], key[64];
	unsigned long long n, found = 0;
	FILE *f;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir,
		 S.memory_v2 ? "memory.events" : "memory.oom_control");
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", key, &n) == 2)
		if (!strcmp(key, "oom_kill"))
			found = n;
	fclose(f);
	return found;
}

bool contain_is_own(pid_t pid)
{
	return pid > 0 && pid == S.watchdog;
}

int contain_fd(void)
{
	return S.fd;
}

const char *contain_cgroup(void)
{
	return S.cg[CG_V2].dir;
}

size_t contain_kill(void)
{
	size_t n = 0;

	if (getpid() != S.owner)
		return 0;
	for (int i = 0; i < NR_CG; i++)
		if (S.cg[i].dir)
			n += kill_cgroup(&S.cg[i], now() + END_SECONDS);
	return n;
}

void contain_end(void)
{
	if (!S.started || getpid() != S.owner)
		return;
	if (S.fd >= 0) {
		/* the watchdog kills what is left and removes the cgroups; wait for it */
		close(S.fd);
		S.fd = -1;
		while (waitpid(S.watchdog, NULL, 0) < 0 && errno == EINTR)
			;
		S.watchdog = 0;
	}
	for (int i = 0; i < NR_CG; i++) {
		free(S.cg[i].dir);
		S.cg[i].dir = NULL;
	}
}
