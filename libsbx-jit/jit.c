// SPDX-License-Identifier: MIT
/*
 * libsbx-jit: writes a jitdump, the file `perf inject --jit` reads (see
 * include/sbx/jit.h for the interface; the format is perf's
 * tools/perf/Documentation/jitdump-specification.txt, version 1, in native
 * byte order, with CLOCK_MONOTONIC timestamps).
 *
 * Each record is built in memory and written with one writev() where the
 * kernel takes it whole. A record that fails half way is cut off the file
 * again (ftruncate to the end of the last complete record), so the dump is
 * always a sequence of complete records.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* secure_getenv, program_invocation_short_name, IOV_MAX */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "sbx/jit.h"
#include "jit/jitdump-format.h"

#if defined(__x86_64__)
#define JIT_ELF_MACH	62	/* EM_X86_64 */
#elif defined(__i386__)
#define JIT_ELF_MACH	3	/* EM_386 */
#elif defined(__aarch64__)
#define JIT_ELF_MACH	183	/* EM_AARCH64 */
#elif defined(__arm__)
#define JIT_ELF_MACH	40	/* EM_ARM */
#elif defined(__riscv)
#define JIT_ELF_MACH	243	/* EM_RISCV */
#elif defined(__powerpc64__)
#define JIT_ELF_MACH	21	/* EM_PPC64 */
#elif defined(__powerpc__)
#define JIT_ELF_MACH	20	/* EM_PPC */
#elif defined(__s390__)
#define JIT_ELF_MACH	22	/* EM_S390 */
#elif defined(__loongarch__)
#define JIT_ELF_MACH	258	/* EM_LOONGARCH */
#elif defined(__mips__)
#define JIT_ELF_MACH	8	/* EM_MIPS */
#else
#define JIT_ELF_MACH	0
#endif

#define JIT_ALIGN8(x)	(((x) + 7) & ~(uint64_t)7)

struct sbx_jit {
	pthread_mutex_t lock;		/* serializes everything below */
	struct sbx_jit *next;		/* in jit_registry, under jit_registry_lock */
	struct sbx_jit *prev;
	pid_t pid;			/* the process that owns fd and marker */
	int fd;				/* -1 after a child failed to start its dump */
	void *marker;			/* the PROT_EXEC page, NULL when none */
	size_t marker_size;
	uint64_t size;			/* bytes of complete records in the file */
	uint64_t nr_loads;		/* the next code index */
	bool broken;			/* a partial record could not be cut off */
	char dir[PATH_MAX];		/* where the dumps of this handle go */
	char path[PATH_MAX];		/* the current dump, "" when none */
};

/* Open handles, for the fork handlers. Lock order: registry, then handle. */
static pthread_mutex_t jit_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sbx_jit *jit_registry;
static pthread_once_t jit_once = PTHREAD_ONCE_INIT;
static int jit_once_err;

static void jit_atfork_prepare(void)
{
	struct sbx_jit *j;

	pthread_mutex_lock(&jit_registry_lock);
	for (j = jit_registry; j; j = j->next)
		pthread_mutex_lock(&j->lock);
}

/* Parent and child alike; the child starts its dumps lazily. */
static void jit_atfork_release(void)
{
	struct sbx_jit *j;

	for (j = jit_registry; j; j = j->next)
		pthread_mutex_unlock(&j->lock);
	pthread_mutex_unlock(&jit_registry_lock);
}

static void jit_init_once(void)
{
	jit_once_err = pthread_atfork(jit_atfork_prepare, jit_atfork_release,
				      jit_atfork_release);
}

static uint64_t jit_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t jit_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* Write all of iov (which it changes), retrying on EINTR and short writes. */
static int jit_writev_all(int fd, struct iovec *iov, int cnt)
{
	while (cnt > 0) {
		ssize_t n;

		if (!iov->iov_len) {
			iov++;
			cnt--;
			continue;
		}
		n = writev(fd, iov, cnt > IOV_MAX ? IOV_MAX : cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int jit_write_all(int fd, const void *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return jit_writev_all(fd, &iov, 1);
}

/*
 * Append complete records to the dump of j (lock held). On failure, cut the
 * partial record off again; if even that fails the dump is marked broken
 * and refuses further records with -EIO.
 */
static int jit_emit(struct sbx_jit *j, struct iovec *iov, int cnt)
{
	uint64_t total = 0;
	int i, err;

	if (j->broken)
		return -EIO;
	for (i = 0; i < cnt; i++)
		total += iov[i].iov_len;
	err = jit_writev_all(j->fd, iov, cnt);
	if (err) {
		if (ftruncate(j->fd, (off_t)j->size) ||
		    lseek(j->fd, (off_t)j->size, SEEK_SET) == (off_t)-1)
			j->broken = true;
		return err;
	}
	j->size += total;
	return 0;
}

/* Close the file and marker that j has, if any (lock held or j private). */
static int jit_release_file(struct sbx_jit *j)
{
	int err = 0;

	if (j->marker) {
		munmap(j->marker, j->marker_size);
		j->marker = NULL;
	}
	if (j->fd >= 0) {
		if (close(j->fd) && errno != EINTR)
			err = -errno;
		j->fd = -1;
	}
	return err;
}

/*
 * Create j->dir/jit-<pid>.dump, write its header and map its marker. On
 * success j belongs to pid with an empty dump; on failure nothing is left
 * behind, j->fd is -1 and j->path is empty.
 */
static int jit_start(struct sbx_jit *j, pid_t pid)
{
	struct jitdump_header h;
	long page;
	void *m;
	int fd, n, err;

	n = snprintf(j->path, sizeof(j->path), "%s/jit-%d.dump", j->dir, (int)pid);
	if (n < 0 || (size_t)n >= sizeof(j->path)) {
		j->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	fd = open(j->path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		j->path[0] = '\0';
		return err;
	}

	memset(&h, 0, sizeof(h));
	h.magic = JITDUMP_MAGIC;
	h.version = JITDUMP_VERSION;
	h.total_size = sizeof(h);
	h.elf_mach = JIT_ELF_MACH;
	h.pid = (uint32_t)pid;
	h.timestamp = jit_now();
	h.flags = 0;
	err = jit_write_all(fd, &h, sizeof(h));
	if (err)
		goto fail;

	page = sysconf(_SC_PAGESIZE);
	if (page <= 0)
		page = 4096;
	m = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		err = -errno;
		goto fail;
	}

	j->fd = fd;
	j->marker = m;
	j->marker_size = (size_t)page;
	j->pid = pid;
	j->size = sizeof(h);
	j->nr_loads = 0;
	j->broken = false;
	return 0;

fail:
	close(fd);
	unlink(j->path);
	j->path[0] = '\0';
	return err;
}

/*
 * Called with j->lock held by every call but close: in a child after fork,
 * drop the inherited file and start the child's own dump (again on the next
 * call if that fails). Returns 0 when j has a dump of this process.
 */
static int jit_check_fork(struct sbx_jit *j)
{
	pid_t pid = getpid();

	if (pid == j->pid)
		return 0;
	jit_release_file(j);
	return jit_start(j, pid);
}

/* Program name for the directory, reduced to [A-Za-z0-9._-]. */
static void jit_prog_name(char *buf, size_t size)
{
	const char *s = program_invocation_short_name;
	size_t i = 0;

	for (; s && *s && i + 1 < size; s++) {
		char ch = *s;

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-'))
			ch = '_';
		buf[i++] = ch;
	}
	if (!i) {
		snprintf(buf, size, "jit");
		return;
	}
	buf[i] = '\0';
}

/* mkdir -p path, mode 0755. */
static int jit_mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		int r;

		if (*p != '/')
			continue;
		*p = '\0';
		r = mkdir(path, 0755);
		*p = '/';
		if (r && errno != EEXIST)
			return -errno;
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* $HOME, else the home directory of the user, into buf. */
static int jit_home(char *buf, size_t size)
{
	const char *home = secure_getenv("HOME");
	struct passwd pw, *res = NULL;
	char *pwbuf;
	long pwsize;
	int err;

	if (home && *home) {
		if (strlen(home) >= size)
			return -ENAMETOOLONG;
		strcpy(buf, home);
		return 0;
	}
	pwsize = sysconf(_SC_GETPW_R_SIZE_MAX);
	if (pwsize <= 0)
		pwsize = 16384;
	pwbuf = malloc((size_t)pwsize);
	if (!pwbuf)
		return -ENOMEM;
	err = getpwuid_r(getuid(), &pw, pwbuf, (size_t)pwsize, &res);
	if (!err && (!res || !pw.pw_dir || !*pw.pw_dir))
		err = ENOENT;
	if (!err && strlen(pw.pw_dir) >= size)
		err = ENAMETOOLONG;
	if (!err)
		strcpy(buf, pw.pw_dir);
	free(pwbuf);
	return -err;
}

/*
 * The directory of the dumps: $SBX_JIT_DIR, $JITDUMPDIR (created if
 * missing), else a new $HOME/.debug/jit/<name>-<YYYYMMDD>-XXXXXX (*made
 * then says it was created).
 */
static int jit_pick_dir(char *dir, size_t size, bool *made)
{
	const char *env = secure_getenv("SBX_JIT_DIR");
	char name[64], date[16];
	struct tm tm;
	time_t now;
	size_t len;
	int n, err;

	*made = false;
	if (!env || !*env)
		env = secure_getenv("JITDUMPDIR");
	if (env && *env) {
		len = strlen(env);
		while (len > 1 && env[len - 1] == '/')
			len--;
		if (len >= size)
			return -ENAMETOOLONG;
		memcpy(dir, env, len);
		dir[len] = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		return 0;
	}

	err = jit_home(dir, size);
	if (err)
		return err;
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	n = snprintf(dir + len, size - len, "/.debug/jit");
	if (n < 0 || (size_t)n >= size - len)
		return -ENAMETOOLONG;
	err = jit_mkdir_p(dir);
	if (err)
		return err;

	jit_prog_name(name, sizeof(name));
	now = time(NULL);
	if (!localtime_r(&now, &tm) || !strftime(date, sizeof(date), "%Y%m%d", &tm))
		snprintf(date, sizeof(date), "00000000");
	len = strlen(dir);
	n = snprintf(dir + len, size - len, "/%s-%s-XXXXXX", name, date);
	if (n < 0 || (size_t)n >= size - len)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	*made = true;
	return 0;
}

struct sbx_jit *sbx_jit_open(void)
{
	struct sbx_jit *j;
	bool made = false;
	int err;

	pthread_once(&jit_once, jit_init_once);
	if (jit_once_err) {
		errno = jit_once_err;
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		errno = ENOMEM;
		return NULL;
	}
	j->fd = -1;
	err = pthread_mutex_init(&j->lock, NULL);
	if (err) {
		free(j);
		errno = err;
		return NULL;
	}
	err = jit_pick_dir(j->dir, sizeof(j->dir), &made);
	if (!err)
		err = jit_start(j, getpid());
	if (err) {
		if (made)
			rmdir(j->dir);
		pthread_mutex_destroy(&j->lock);
		free(j);
		errno = -err;
		return NULL;
	}

	pthread_mutex_lock(&jit_registry_lock);
	j->prev = NULL;
	j->next = jit_registry;
	if (jit_registry)
		jit_registry->prev = j;
	jit_registry = j;
	pthread_mutex_unlock(&jit_registry_lock);
	return j;
}

const char *sbx_jit_path(const struct sbx_jit *cj)
{
	/* Handles are always allocated by sbx_jit_open(), never const. */
	struct sbx_jit *j = (struct sbx_jit *)cj;

	if (!j)
		return NULL;
	pthread_mutex_lock(&j->lock);
	jit_check_fork(j);
	pthread_mutex_unlock(&j->lock);
	return j->path;
}

/*
 * The DEBUG_INFO record of c in a new buffer (*out, caller frees), its
 * timestamp still to be filled in; *len gets its size.
 */
static int jit_debug_record(const struct sbx_jit_code *c, char **out, size_t *len)
{
	struct jitdump_debug_info di;
	uint64_t total = sizeof(di);
	size_t i, off;
	char *buf;

	for (i = 0; i < c->nr_lines; i++) {
		if (!c->lines[i].file)
			return -EINVAL;
		total += sizeof(struct jitdump_debug_entry) + strlen(c->lines[i].file) + 1;
		if (total > UINT32_MAX)
			return -E2BIG;
	}
	total = JIT_ALIGN8(total);
	if (total > UINT32_MAX)
		return -E2BIG;
	buf = calloc(1, (size_t)total);
	if (!buf)
		return -ENOMEM;

	memset(&di, 0, sizeof(di));
	di.p.id = JIT_CODE_DEBUG_INFO;
	di.p.total_size = (uint32_t)total;
	di.code_addr = (uint64_t)(uintptr_t)c->addr;
	di.nr_entry = c->nr_lines;
	memcpy(buf, &di, sizeof(di));
	off = sizeof(di);
	for (i = 0; i < c->nr_lines; i++) {
		const struct sbx_jit_line *l = &c->lines[i];
		struct jitdump_debug_entry e = {
			.addr = l->addr,
			.lineno = (int32_t)l->line,
			.discrim = (int32_t)l->column,
		};
		size_t flen = strlen(l->file) + 1;

		memcpy(buf + off, &e, sizeof(e));
		off += sizeof(e);
		memcpy(buf + off, l->file, flen);
		off += flen;
	}
	*out = buf;
	*len = (size_t)total;
	return 0;
}

int sbx_jit_load(struct sbx_jit *j, const struct sbx_jit_code *c, uint64_t *code_index)
{
	static const char zeros[8];
	struct jitdump_unwinding_info ui;
	struct jitdump_code_load cl;
	struct iovec iov[8];
	char *dbg = NULL;
	size_t dbg_len = 0, name_len, pad = 0;
	uint64_t load_size, ui_size = 0, ts, idx = 0;
	int cnt = 0, err;

	if (!j || !c || !c->name)
		return -EINVAL;
	if ((c->size && !c->addr) || (c->nr_lines && !c->lines) ||
	    (c->eh_frame_size && !c->eh_frame) ||
	    (c->eh_frame_hdr_size && (!c->eh_frame_hdr || !c->eh_frame_size)))
		return -EINVAL;

	name_len = strlen(c->name) + 1;
	if (c->size > UINT32_MAX || name_len > UINT32_MAX)
		return -E2BIG;
	load_size = sizeof(cl) + (uint64_t)name_len + c->size;
	if (load_size > UINT32_MAX)
		return -E2BIG;
	if (c->eh_frame_size) {
		if (c->eh_frame_size > UINT32_MAX || c->eh_frame_hdr_size > UINT32_MAX)
			return -E2BIG;
		ui_size = JIT_ALIGN8(sizeof(ui) + (uint64_t)c->eh_frame_size +
				     c->eh_frame_hdr_size);
		if (ui_size > UINT32_MAX)
			return -E2BIG;
		pad = (size_t)(ui_size - sizeof(ui) - c->eh_frame_size - c->eh_frame_hdr_size);
	}
	if (c->nr_lines) {
		err = jit_debug_record(c, &dbg, &dbg_len);
		if (err)
			return err;
	}

	pthread_mutex_lock(&j->lock);
	err = jit_check_fork(j);
	if (err)
		goto out;
	ts = jit_now();

	if (dbg) {
		struct jitdump_prefix *p = (struct jitdump_prefix *)(void *)dbg;

		p->timestamp = ts;
		iov[cnt++] = (struct iovec){ .iov_base = dbg, .iov_len = dbg_len };
	}
	if (ui_size) {
		memset(&ui, 0, sizeof(ui));
		ui.p.id = JIT_CODE_UNWINDING_INFO;
		ui.p.total_size = (uint32_t)ui_size;
		ui.p.timestamp = ts;
		ui.unwinding_size = (uint64_t)c->eh_frame_size + c->eh_frame_hdr_size;
		ui.eh_frame_hdr_size = c->eh_frame_hdr_size;
		ui.mapped_size = c->unwind_mapped_size;
		iov[cnt++] = (struct iovec){ .iov_base = &ui, .iov_len = sizeof(ui) };
		iov[cnt++] = (struct iovec){ .iov_base = (void *)c->eh_frame,
					     .iov_len = c->eh_frame_size };
		iov[cnt++] = (struct iovec){ .iov_base = (void *)c->eh_frame_hdr,
					     .iov_len = c->eh_frame_hdr_size };
		iov[cnt++] = (struct iovec){ .iov_base = (void *)zeros, .iov_len = pad };
	}

	memset(&cl, 0, sizeof(cl));
	cl.p.id = JIT_CODE_LOAD;
	cl.p.total_size = (uint32_t)load_size;
	cl.p.timestamp = ts;
	cl.pid = (uint32_t)j->pid;
	cl.tid = jit_gettid();
	cl.vma = (uint64_t)(uintptr_t)c->addr;
	cl.code_addr = (uint64_t)(uintptr_t)c->addr;
	cl.code_size = c->size;
	cl.code_index = j->nr_loads;
	iov[cnt++] = (struct iovec){ .iov_base = &cl, .iov_len = sizeof(cl) };
	iov[cnt++] = (struct iovec){ .iov_base = (void *)c->name, .iov_len = name_len };
	iov[cnt++] = (struct iovec){ .iov_base = (void *)(c->bytes ? c->bytes : c->addr),
				     .iov_len = c->size };

	err = jit_emit(j, iov, cnt);
	if (!err)
		idx = j->nr_loads++;
out:
	pthread_mutex_unlock(&j->lock);
	free(dbg);
	if (!err && code_index)
		*code_index = idx;
	return err;
}

int sbx_jit_load_simple(struct sbx_jit *j, const char *name, const void *addr, size_t size,
			uint64_t *code_index)
{
	struct sbx_jit_code c = {
		.name = name,
		.addr = addr,
		.size = size,
	};

	return sbx_jit_load(j, &c, code_index);
}

int sbx_jit_move(struct sbx_jit *j, uint64_t code_index, const void *old_addr,
		 const void *new_addr, size_t size)
{
	struct jitdump_code_move m;
	struct iovec iov;
	int err;

	if (!j)
		return -EINVAL;
	pthread_mutex_lock(&j->lock);
	err = jit_check_fork(j);
	if (err)
		goto out;
	if (code_index >= j->nr_loads) {
		err = -ENOENT;
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.p.id = JIT_CODE_MOVE;
	m.p.total_size = sizeof(m);
	m.p.timestamp = jit_now();
	m.pid = (uint32_t)j->pid;
	m.tid = jit_gettid();
	m.vma = (uint64_t)(uintptr_t)new_addr;
	m.old_code_addr = (uint64_t)(uintptr_t)old_addr;
	m.new_code_addr = (uint64_t)(uintptr_t)new_addr;
	m.code_size = size;
	m.code_index = code_index;
	iov = (struct iovec){ .iov_base = &m, .iov_len = sizeof(m) };
	err = jit_emit(j, &iov, 1);
out:
	pthread_mutex_unlock(&j->lock);
	return err;
}

int sbx_jit_close(struct sbx_jit *j)
{
	struct jitdump_prefix p;
	struct iovec iov;
	int err = 0, err2;

	if (!j)
		return 0;

	pthread_mutex_lock(&jit_registry_lock);
	if (j->prev)
		j->prev->next = j->next;
	else if (jit_registry == j)
		jit_registry = j->next;
	if (j->next)
		j->next->prev = j->prev;
	j->next = j->prev = NULL;
	pthread_mutex_unlock(&jit_registry_lock);

	pthread_mutex_lock(&j->lock);
	/* In a child that never started its dump, fd is the parent's: no CLOSE. */
	if (j->fd >= 0 && j->pid == getpid()) {
		memset(&p, 0, sizeof(p));
		p.id = JIT_CODE_CLOSE;
		p.total_size = sizeof(p);
		p.timestamp = jit_now();
		iov = (struct iovec){ .iov_base = &p, .iov_len = sizeof(p) };
		err = jit_emit(j, &iov, 1);
	}
	err2 = jit_release_file(j);
	if (!err)
		err = err2;
	pthread_mutex_unlock(&j->lock);

	pthread_mutex_destroy(&j->lock);
	free(j);
	return err;
}

int sbx_jit_perf_map(const void *addr, size_t size, const char *name)
{
	char path[64], *line, *s;
	size_t name_len, cap;
	int n, fd, err;

	if (!name)
		return -EINVAL;
	name_len = strlen(name);
	cap = name_len + 2 * sizeof(unsigned long) + 2 * sizeof(size_t) + 4;
	line = malloc(cap);
	if (!line)
		return -ENOMEM;
	n = snprintf(line, cap, "%lx %zx ", (unsigned long)(uintptr_t)addr, size);
	if (n < 0 || (size_t)n + name_len + 2 > cap) {
		free(line);
		return -EOVERFLOW;
	}
	memcpy(line + n, name, name_len);
	for (s = line + n; s < line + n + name_len; s++)
		if (*s == '\n')
			*s = ' ';
	line[n + name_len] = '\n';

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		free(line);
		return err;
	}
	err = jit_write_all(fd, line, (size_t)n + name_len + 1);
	if (close(fd) && errno != EINTR && !err)
		err = -errno;
	free(line);
	return err;
}
