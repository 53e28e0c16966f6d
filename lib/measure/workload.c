// SPDX-License-Identifier: MIT
/*
 * The one place that forks: a child corked on a pipe (perf's cork pipe),
 * optionally seized with ptrace so that a fatal signal is seen with its
 * siginfo and rip, and a timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <asm/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "measure/contain.h"
#include "measure/workload.h"

/* what failed in the child, sent with its errno on the exec-error pipe */
enum { STAGE_PIN, STAGE_EXEC };

struct workload {
	struct workload_opts opts;
	pid_t pid;
	int cork_fd;		/* write end; -1 once started or cancelled */
	int err_fd;		/* read end of the exec-error pipe (exec mode), else -1 */
	int started, ended;
	struct timespec deadline;
	struct workload_status st;
	/* the fatal signal seen at delivery (ptrace) */
	int fatal_signo;
	unsigned long fatal_addr, fatal_ip;
	long fatal_syscall;
	uint64_t oom_before;	/* OOM kills in the memory cgroup when it joined */
	bool pid_ns;		/* the child is the init of a PID namespace of its own */
};

/* why WORKLOAD_PID_NS children get no namespace here ("" while unknown, NULL: they do) */
static const char *pid_ns_missing = "";
static char pid_ns_missing_buf[192];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void status_init(struct workload_status *st)
{
	memset(st, 0, sizeof(*st));
	st->syscall_nr = -1;
}

/*
 * SIGKILL to the child, and with WORKLOAD_OWN_GROUP to every process of its
 * group: what it forked goes with it. (A pid is not reused while it names a
 * process group, so the group's id is the child's own even once reaped.)
 */
static void end_child(struct workload *w)
{
	if (w->opts.flags & WORKLOAD_OWN_GROUP)
		kill(-w->pid, SIGKILL);
	kill(w->pid, SIGKILL);
}

/* Write text to a /proc file; 0 or -errno. */
static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

/* Close every descriptor from fd up. */
static void close_fds_from(int fd)
{
	if (syscall(SYS_close_range, (unsigned)fd, ~0u, 0) == 0)
		return;
	/* before Linux 5.9 */
	for (long i = fd, max = sysconf(_SC_OPEN_MAX); i < (max > 0 ? max : 65536); i++)
		close((int)i);
}

/* In the child: everything up to the exec or the function. Never returns. */
static void child_main(struct workload *w, int cork_rd, int err_wr)
{
	struct rlimit no_core = { 0, 0 };
	int pin_errno = 0;
	sigset_t none;
	char c;
	ssize_t n;

	/* the watchdog waits for sbx alone to close its pipe (see contain.h) */
	if (contain_fd() >= 0)
		close(contain_fd());
	setrlimit(RLIMIT_CORE, &no_core);
	if (w->opts.max_memory) {
		struct rlimit as = { w->opts.max_memory, w->opts.max_memory };

		setrlimit(RLIMIT_AS, &as);
	}
	/*
	 * what the parent ignores, blocks or catches for itself is not the
	 * workload's business: exec resets caught signals, and a function
	 * child (which does not exec) gets every signal's default action too
	 */
	signal(SIGPIPE, SIG_DFL);
	if (w->opts.fn)
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (w->opts.stdio_fds) {
		for (int i = 0; i < 3; i++)
			if (w->opts.stdio_fds[i] >= 0 && w->opts.stdio_fds[i] != i)
				dup2(w->opts.stdio_fds[i], i);
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the parent may be undumpable (kept from its other children's reach): not this one */
	if (w->opts.flags & WORKLOAD_PTRACE)
		prctl(PR_SET_DUMPABLE, 1);
	if (w->opts.flags & WORKLOAD_OWN_GROUP)
		setpgid(0, 0);
	if (w->opts.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->opts.cpu, &set);
		/* reported once uncorked: the parent may still be seizing us */
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			pin_errno = errno;
	}
	do
		n = read(cork_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)	/* cancelled: the parent closed the cork */
		_exit(127);
	if (pin_errno) {
		int e[2] = { STAGE_PIN, pin_errno };

		(void)!write(err_wr, e, sizeof(e));
		_exit(127);
	}
	close(cork_rd);
	if (w->opts.fn) {
		int code;

		close(err_wr);	/* EOF tells workload_start() that we run */
		/*
		 * nothing of the parent's but 0-2 (the output being written, the
		 * watchdog's pipe, a file being read): the function may run code
		 * that writes to any descriptor it has
		 */
		close_fds_from(3);
		code = w->opts.fn(w->opts.arg) & 0xff;
		/* exit_group itself: _exit()'s wrappers (sanitizers) may make other
		   system calls, which a seccomp filter would refuse */
		syscall(SYS_exit_group, code);
		_exit(code);
	}
	execvp(w->opts.argv[0], w->opts.argv);
	{
		int e[2] = { STAGE_EXEC, errno };

		(void)!write(err_wr, e, sizeof(e));
	}
	_exit(127);
}

/*
 * Fork the child: with WORKLOAD_PID_NS, into a PID namespace of its own
 * (and a user namespace for a plain user, whose id maps the parent writes
 * while the child is corked); where the kernel refuses, a plain fork. The
 * child returns 0 here, as from fork(); *in_ns says which it got.
 */
static pid_t fork_child(unsigned flags, bool *in_ns)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t pid;
	char map[64], path[64];

	*in_ns = false;
	if (!(flags & WORKLOAD_PID_NS))
		return fork();
	/* clone(2) as fork(2) does it, with the namespaces: the child runs on */
	pid = (pid_t)syscall(SYS_clone, (unsigned long)(SIGCHLD | CLONE_NEWPID |
						       (uid ? CLONE_NEWUSER : 0)),
			     NULL, NULL, NULL, NULL);
	if (pid < 0) {
		int e = errno;

		snprintf(pid_ns_missing_buf, sizeof(pid_ns_missing_buf), "%s: %s%s",
			 uid ? "no user namespace for a PID namespace" : "no PID namespace",
			 strerror(e), uid ? " (see /proc/sys/user/max_user_namespaces)" : "");
		pid_ns_missing = pid_ns_missing_buf;
		return fork();
	}
	if (pid == 0)
		return 0;
	*in_ns = true;
	pid_ns_missing = NULL;
	if (!uid)
		return pid;
	/* the same ids inside: what the child makes is still the user's */
	snprintf(map, sizeof(map), "%ld %ld 1", (long)uid, (long)uid);
	snprintf(path, sizeof(path), "/proc/%ld/uid_map", (long)pid);
	if (write_proc(path, map) == 0) {
		snprintf(path, sizeof(path), "/proc/%ld/setgroups", (long)pid);
		write_proc(path, "deny");
		snprintf(map, sizeof(map), "%ld %ld 1", (long)gid, (long)gid);
		snprintf(path, sizeof(path), "/proc/%ld/gid_map", (long)pid);
		write_proc(path, map);
	}
	return pid;
}

const char *workload_pid_ns_missing(void)
{
	if (pid_ns_missing && !pid_ns_missing[0]) {
		/* no child made yet: one that only exits says */
		bool in_ns;
		pid_t pid = fork_child(WORKLOAD_PID_NS, &in_ns);

		if (pid == 0)
			syscall(SYS_exit_group, 0);
		if (pid > 0)
			while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
				;
	}
	return pid_ns_missing && pid_ns_missing[0] ? pid_ns_missing : NULL;
}

int workload_prepare(const struct workload_opts *opts, struct workload **out)
{
	struct workload *w;
	int cork[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int err;

	*out = NULL;
	if (!opts->argv == !opts->fn)
		return sbx_error(-EINVAL, "workload: give exactly one of argv and fn");
	if (opts->argv && (opts->flags & WORKLOAD_SECCOMP))
		return sbx_error(-EINVAL, "workload: seccomp is only for fn workloads");
	if (opts->argv && !opts->argv[0])
		return sbx_error(-EINVAL, "workload: empty command line");
	w = calloc(1, sizeof(*w));
	if (!w)
		return sbx_error(-ENOMEM, "out of memory");
	w->opts = *opts;
	w->cork_fd = w->err_fd = -1;
	status_init(&w->st);
	w->fatal_syscall = -1;
	if (pipe2(cork, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		err = sbx_error_errno(-errno, "workload: cannot create a pipe");
		goto fail;
	}
	fflush(NULL);
	w->pid = fork_child(opts->argv ? opts->flags & ~WORKLOAD_PID_NS : opts->flags, &w->pid_ns);
	if (w->pid < 0) {
		err = sbx_error_errno(-errno, "workload: cannot fork");
		goto fail;
	}
	if (w->pid == 0) {
		close(cork[1]);
		close(errp[0]);
		child_main(w, cork[0], errp[1]);
	}
	close(cork[0]);
	close(errp[1]);
	/* in the parent too: the group exists before either goes on */
	if (opts->flags & WORKLOAD_OWN_GROUP)
		setpgid(w->pid, w->pid);
	w->cork_fd = cork[1];
	w->err_fd = errp[0];
	/* into the cgroups while corked: what it forks is born inside */
	err = contain_join(w->pid);
	if (err) {
		workload_cancel(w);
		free(w);
		return err;
	}
	w->oom_before = contain_oom_kills();
	if (opts->flags & WORKLOAD_PTRACE) {
		/*
		 * a parent that made itself undumpable (sbx run --allow-syscalls,
		 * so that no snippet can ptrace it) has an undumpable child until
		 * the child's first step makes it dumpable again: a moment
		 */
		int tries = 0, r;

		while ((r = ptrace(PTRACE_SEIZE, w->pid, 0, (void *)(long)PTRACE_O_EXITKILL)) < 0 &&
		       errno == EPERM && !prctl(PR_GET_DUMPABLE) && tries++ < 2000)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (r < 0) {
			err = sbx_error_errno(-errno, "workload: cannot ptrace the child "
					      "(see /proc/sys/kernel/yama/ptrace_scope)");
			workload_cancel(w);
			free(w);
			return err;
		}
	}
	*out = w;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (cork[i] >= 0)
			close(cork[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	free(w);
	return err;
}

pid_t workload_pid(const struct workload *w)
{
	return w->pid;
}

static void set_deadline(struct workload *w)
{
	double t = now_s() + w->opts.timeout_s;

	w->deadline.tv_sec = (time_t)t;
	w->deadline.tv_nsec = (long)((t - (double)w->deadline.tv_sec) * 1e9);
}

static double deadline_s(const struct workload *w)
{
	return w->deadline.tv_sec + w->deadline.tv_nsec / 1e9;
}

/* Reap the child after a SIGKILL and record the status. */
static void reap(struct workload *w)
{
	int ws;

	while (waitpid(w->pid, &ws, __WALL) < 0 && errno == EINTR)
		;
	w->ended = 1;
}

int workload_start(struct workload *w)
{
	char c = 1;
	ssize_t n;
	int e[2];

	if (w->started || w->ended)
		return sbx_error(-EINVAL, "workload: already started");
	w->started = 1;
	if (w->opts.timeout_s > 0)
		set_deadline(w);
	if (write(w->cork_fd, &c, 1) != 1) {
		int err = -errno;

		workload_cancel(w);
		return sbx_error_errno(err, "workload: cannot start the child");
	}
	close(w->cork_fd);
	w->cork_fd = -1;
	/* the exec-error pipe: EOF when the exec (or fn) happened */
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == sizeof(e)) {
		reap(w);
		w->st.exec_errno = e[1];
		w->st.exited = 1;
		w->st.exit_code = 127;
		if (e[0] == STAGE_PIN)
			return sbx_error_errno(-e[1], "cannot pin the child to CPU %d", w->opts.cpu);
		return sbx_error_errno(-e[1], "cannot run '%s'", w->opts.argv[0]);
	}
	return 0;
}

/* Fill in the status from a waitpid() status of the ended child. */
static void finish(struct workload *w, int ws)
{
	w->ended = 1;
	/* what it left running in its group ends with it */
	if (w->opts.flags & WORKLOAD_OWN_GROUP)
		kill(-w->pid, SIGKILL);
	w->st.seccomp = !!(w->opts.flags & WORKLOAD_SECCOMP);
	if (w->fatal_signo) {
		w->st.signaled = 1;
		w->st.signo = w->fatal_signo;
		w->st.fault_addr = w->fatal_addr;
		w->st.fault_ip = w->fatal_ip;
		w->st.syscall_nr = w->fatal_syscall;
	} else if (WIFEXITED(ws)) {
		w->st.exited = 1;
		w->st.exit_code = WEXITSTATUS(ws);
	} else if (WIFSIGNALED(ws)) {
		w->st.signaled = 1;
		w->st.signo = WTERMSIG(ws);
		w->st.oom_killed = w->st.signo == SIGKILL && contain_oom_kills() > w->oom_before;
	}
}

static bool is_fatal_fault(int sig)
{
	switch (sig) {
	case SIGSEGV: case SIGBUS: case SIGILL: case SIGFPE: case SIGTRAP:
	case SIGSYS: case SIGABRT:
		return true;
	}
	return false;
}

/* Whether sig's default action ends a process (the others are ignored or stop it). */
static bool default_ends(int sig)
{
	switch (sig) {
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	}
	return sig > 0 && sig <= SIGRTMAX;
}

/*
 * Whether sig would end pid, were pid not a namespace's init (which the
 * kernel shields from the signals it has no handler for): its default
 * action ends a process, and pid neither catches nor ignores it
 * (/proc/PID/status SigCgt, SigIgn).
 */
static bool ends_uncaught(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long caught = ~0ull, ignored = ~0ull;
	FILE *f;

	if (!default_ends(sig) || sig > 64)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "SigCgt: %llx", &caught);
		sscanf(line, "SigIgn: %llx", &ignored);
	}
	fclose(f);
	return !((caught | ignored) >> (sig - 1) & 1);
}

/* A ptrace stop of the tracee: note a fatal signal and kill, or let it go on. */
static void handle_stop(struct workload *w, int ws)
{
	int sig = WSTOPSIG(ws);
	int event = (unsigned)ws >> 16;
	siginfo_t si;

	if (event == PTRACE_EVENT_STOP) {	/* group-stop under SEIZE */
		ptrace(PTRACE_LISTEN, w->pid, 0, 0);
		return;
	}
	if (event) {
		ptrace(PTRACE_CONT, w->pid, 0, 0);
		return;
	}
	if ((!is_fatal_fault(sig) && !(w->pid_ns && ends_uncaught(w->pid, sig))) ||
	    ptrace(PTRACE_GETSIGINFO, w->pid, 0, &si) < 0) {
		ptrace(PTRACE_CONT, w->pid, 0, (void *)(long)sig);
		return;
	}
	w->fatal_signo = sig;
	if (sig == SIGSYS) {
		w->fatal_syscall = si.si_syscall;
		w->fatal_addr = (unsigned long)si.si_call_addr;
	} else {
		w->fatal_addr = (unsigned long)si.si_addr;
	}
#if defined(__x86_64__)
	{
		struct user_regs_struct regs;

		if (ptrace(PTRACE_GETREGS, w->pid, 0, &regs) == 0)
			w->fatal_ip = regs.rip;
	}
#endif
	end_child(w);
	ptrace(PTRACE_CONT, w->pid, 0, 0);
}

int workload_try_wait(struct workload *w, struct workload_status *st)
{
	int ws;
	pid_t r;

	if (w->ended) {
		*st = w->st;
		return 1;
	}
	if (!w->started)
		return sbx_error(-EINVAL, "workload: not started");
	for (;;) {
		r = waitpid(w->pid, &ws, WNOHANG | __WALL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return sbx_error_errno(-errno, "workload: cannot wait for the child");
		}
		if (r == 0)
			break;
		if (WIFSTOPPED(ws)) {
			handle_stop(w, ws);
			continue;
		}
		finish(w, ws);
		*st = w->st;
		return 1;
	}
	if (w->opts.stop && *w->opts.stop) {
		end_child(w);
		reap(w);
		w->st.stopped = *w->opts.stop;
		*st = w->st;
		return 1;
	}
	if (w->opts.timeout_s > 0 && now_s() >= deadline_s(w)) {
		end_child(w);
		reap(w);
		w->st.timed_out = 1;
		*st = w->st;
		return 1;
	}
	return 0;
}

int workload_wait(struct workload *w, struct workload_status *st)
{
	long delay_ns = 20000;	/* poll, backing off to 2 ms */
	int r;

	while ((r = workload_try_wait(w, st)) == 0) {
		struct timespec ts = { 0, delay_ns };

		nanosleep(&ts, NULL);
		if (delay_ns < 2000000)
			delay_ns *= 2;
	}
	return r < 0 ? r : 0;
}

void workload_cancel(struct workload *w)
{
	if (!w)
		return;
	if (w->cork_fd >= 0) {
		close(w->cork_fd);
		w->cork_fd = -1;
	}
	if (w->err_fd >= 0) {
		close(w->err_fd);
		w->err_fd = -1;
	}
	if (!w->ended && w->pid > 0) {
		end_child(w);
		reap(w);
		w->st.signaled = 1;
		w->st.signo = SIGKILL;
	}
}

/* The children of this process (of each of its threads), at most max; their number. */
static size_t list_children(pid_t *pids, size_t max)
{
	char path[64];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)syscall(SYS_gettid));
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (n < max) {
		long pid;

		if (fscanf(f, "%ld", &pid) != 1)
			break;
		pids[n++] = (pid_t)pid;
	}
	fclose(f);
	return n;
}

size_t workload_end_descendants(void)
{
	size_t total = 0;

	/* what is in the cgroups, wherever it went */
	contain_kill();
	/* each round ends the children; their own children come to us next (subreaper) */
	for (int round = 0; round < 100000; round++) {
		pid_t pids[256];
		size_t n = list_children(pids, sizeof(pids) / sizeof(pids[0]));

		if (!n)
			break;
		size_t ended = 0;

		for (size_t i = 0; i < n; i++) {
			if (contain_is_own(pids[i]))
				continue;	/* it ends with sbx */
			kill(pids[i], SIGKILL);
			while (waitpid(pids[i], NULL, __WALL) < 0 && errno == EINTR)
				;
			ended++;
		}
		if (!ended)
			break;
		total += ended;
	}
	return total;
}

void workload_free(struct workload *w)
{
	if (!w)
		return;
	workload_cancel(w);
	free(w);
}

/* seccomp ---------------------------------------------------------------- */

int workload_seccomp_lock(const int *allowed_fds, int nfds, unsigned allow)
{
	struct sock_filter f[64];
	struct sock_fprog prog;
	int n = 0;

	if (nfds < 0 || nfds > 12)
		return sbx_error(-EINVAL, "workload: too many descriptors for seccomp");
#define STMT(c, k) (f[n++] = (struct sock_filter)BPF_STMT(c, k))
#define JUMP(c, k, t, e) (f[n++] = (struct sock_filter)BPF_JUMP(c, k, t, e))
	STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
	STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit, 0, 1);
	STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 0, 1);
	STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	if (allow & WORKLOAD_ALLOW_SET_SEGMENTS) {
		/* arch_prctl(ARCH_SET_FS or ARCH_SET_GS): the generated code's FS/GS */
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_arch_prctl, 0, 5);
		STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_SET_FS, 1, 0);
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_SET_GS, 0, 1);
		STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
		/* the other calls: nr again */
		STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	}
	if (nfds > 0) {
		/* read(fd) and ioctl(fd) on our own counters */
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_read, 1, 0);
		JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, (unsigned)(nfds + 1));
		STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
		for (int i = 0; i < nfds; i++)
			JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)allowed_fds[i],
			     (unsigned)(nfds - i), 0);
	}
	STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
	if (nfds > 0)
		STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#undef STMT
#undef JUMP
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_error_errno(-errno, "workload: no_new_privs");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return sbx_error_errno(-errno, "workload: cannot install the seccomp filter");
	return 0;
}

/* names ------------------------------------------------------------------ */

static const char *const signal_names[] = {
	[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT",
	[SIGILL] = "SIGILL", [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT",
	[SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE", [SIGKILL] = "SIGKILL",
	[SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
	[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM",
	[SIGSTKFLT] = "SIGSTKFLT", [SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",
	[SIGSTOP] = "SIGSTOP", [SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN",
	[SIGTTOU] = "SIGTTOU", [SIGURG] = "SIGURG", [SIGXCPU] = "SIGXCPU",
	[SIGXFSZ] = "SIGXFSZ", [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
	[SIGWINCH] = "SIGWINCH", [SIGIO] = "SIGIO", [SIGPWR] = "SIGPWR",
	[SIGSYS] = "SIGSYS",
};

const char *workload_signal_name(int signo, char *buf, size_t len)
{
	if (signo > 0 && (size_t)signo < sizeof(signal_names) / sizeof(signal_names[0]) &&
	    signal_names[signo])
		return signal_names[signo];
	snprintf(buf, len, "SIG%d", signo);
	return buf;
}

/* x86-64 system call numbers: the common ones, for messages */
/* Every x86-64 system call by number, as <asm/unistd_64.h> names them. */
static const char *const syscall_names[] = {
#define SYSCALL(nr, name) [nr] = #name,
#include "measure/syscall-names.h"	/* generated: build/gen/ */
#undef SYSCALL
};

const char *workload_syscall_name(long nr)
{
	if (nr >= 0 && (size_t)nr < sizeof(syscall_names) / sizeof(syscall_names[0]))
		return syscall_names[nr];
	return NULL;
}

char *workload_status_describe(const struct workload_status *st, double timeout_s,
			       char *buf, size_t len)
{
	char sb[16];

	if (st->stopped) {
		snprintf(buf, len, "interrupted by %s",
			 workload_signal_name(st->stopped, sb, sizeof(sb)));
	} else if (st->timed_out) {
		snprintf(buf, len, "timed out after %g s", timeout_s);
	} else if (st->exec_errno) {
		snprintf(buf, len, "cannot run: %s", strerror(st->exec_errno));
	} else if (st->signaled && st->signo == SIGSYS && st->syscall_nr >= 0) {
		const char *name = workload_syscall_name(st->syscall_nr);

		if (name)
			snprintf(buf, len, "forbidden system call %s (%ld)", name, st->syscall_nr);
		else
			snprintf(buf, len, "forbidden system call %ld", st->syscall_nr);
	} else if (st->signaled && st->signo == SIGSYS && st->seccomp) {
		/* the filter kills a call of another ABI outright: no number to report */
		snprintf(buf, len, "a 32-bit system call (int $0x80 or sysenter), which the "
			 "seccomp filter refuses: killed by SIGSYS");
	} else if (st->signaled && st->oom_killed) {
		snprintf(buf, len, "killed by the kernel (SIGKILL): it went past the memory "
			 "--max-memory allows");
	} else if (st->signaled) {
		const char *name = workload_signal_name(st->signo, sb, sizeof(sb));

		if (st->signo == SIGSEGV || st->signo == SIGBUS || st->signo == SIGILL ||
		    st->signo == SIGFPE)
			snprintf(buf, len, "%s at address %#lx", name, st->fault_addr);
		else
			snprintf(buf, len, "killed by %s", name);
	} else if (st->exited) {
		snprintf(buf, len, "exited with code %d", st->exit_code);
	} else {
		snprintf(buf, len, "still running");
	}
	return buf;
}
