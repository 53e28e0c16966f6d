// SPDX-License-Identifier: MIT
/*
 * Records and header features that `sbx record` makes itself: the kernel
 * text map, processes that existed before the counters (from /proc), and
 * the description of the machine (perf's header.c encodings).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "sbx/error.h"
#include "sbx/perf-data.h"
#include "sbx/synthesize.h"

#ifndef SBX_VERSION
#define SBX_VERSION "0.0.0"
#endif

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
#define NAME_ALIGN 64

/* The biggest record we synthesize: header, MMAP2 fields, a path, a trailer. */
#define SYNTH_MAX (8 + 64 + 4096 + 64)

struct synth {
	unsigned char buf[SYNTH_MAX];
	size_t len;
};

static void put(struct synth *s, const void *p, size_t n)
{
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_name(struct synth *s, const char *name)
{
	size_t n = strlen(name) + 1, padded = ALIGN8(n);

	memcpy(s->buf + s->len, name, n);
	memset(s->buf + s->len + n, 0, padded - n);
	s->len += padded;
}

/* Start a record: room for the header, filled in by finish(). */
static void begin(struct synth *s)
{
	s->len = sizeof(struct perf_event_header);
}

static int finish(struct synth *s, const struct record *r, uint32_t type, uint16_t misc,
		  uint32_t pid, uint32_t tid, record_sink_fn sink, void *ctx)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	s->len += record_write_id_hdr(r, s->buf + s->len, pid, tid);
	h.size = (uint16_t)s->len;
	memcpy(s->buf, &h, sizeof(h));
	return sink(ctx, (const struct perf_event_header *)s->buf);
}

int synthesize_kernel_mmap(const struct record *r, record_sink_fn sink, void *ctx)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr, text = 0, etext = 0;
	char type, name[256];
	struct synth s;
	uint32_t pid = (uint32_t)-1, tid = 0;
	uint64_t v;

	if (!f)
		return 0;
	while (fscanf(f, "%llx %c %255s%*[^\n]", &addr, &type, name) == 3) {
		if (!strcmp(name, "_text"))
			text = addr;
		else if (!strcmp(name, "_etext"))
			etext = addr;
		if (text && etext)
			break;
	}
	fclose(f);
	if (!text || etext <= text)
		return 0;	/* hidden by kptr_restrict */
	begin(&s);
	put(&s, &pid, 4);
	put(&s, &tid, 4);
	v = text;
	put(&s, &v, 8);
	v = etext - text;
	put(&s, &v, 8);
	v = text;
	put(&s, &v, 8);
	put_name(&s, "[kernel.kallsyms]_text");
	return finish(&s, r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, 0, 0, sink, ctx);
}

static int read_small_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n && buf[n - 1] == '\n')
		buf[--n] = 0;
	return 0;
}

static int synth_comm(const struct record *r, uint32_t pid, uint32_t tid, const char *comm,
		      record_sink_fn sink, void *ctx)
{
	struct synth s;

	begin(&s);
	put(&s, &pid, 4);
	put(&s, &tid, 4);
	put_name(&s, comm);
	return finish(&s, r, PERF_RECORD_COMM, 0, pid, tid, sink, ctx);
}

static int synth_thread_fork(const struct record *r, uint32_t pid, uint32_t tid,
			     record_sink_fn sink, void *ctx)
{
	struct synth s;
	uint64_t time = 0;

	begin(&s);
	put(&s, &pid, 4);	/* pid */
	put(&s, &pid, 4);	/* ppid */
	put(&s, &tid, 4);	/* tid */
	put(&s, &pid, 4);	/* ptid */
	put(&s, &time, 8);
	return finish(&s, r, PERF_RECORD_FORK, 0, pid, tid, sink, ctx);
}

/* One line of /proc/PID/maps: executable ones become MMAP2 records. */
static int synth_map_line(const struct record *r, uint32_t pid, const char *line,
			  record_sink_fn sink, void *ctx)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int n = 0;
	const char *path;
	struct synth s;
	uint32_t prot = 0, flags;
	uint64_t v;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, &n) < 7 || !n)
		return 0;
	if (perms[2] != 'x')
		return 0;
	path = line + n;
	if (!*path)
		path = "//anon";
	else if (!strcmp(path, "[vsyscall]"))
		return 0;	/* the fixed page perf leaves out too */
	if (strlen(path) >= 4096)
		return 0;
	prot |= perms[0] == 'r' ? PROT_READ : 0;
	prot |= perms[1] == 'w' ? PROT_WRITE : 0;
	prot |= PROT_EXEC;
	flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;

	begin(&s);
	put(&s, &pid, 4);
	put(&s, &pid, 4);
	v = start;
	put(&s, &v, 8);
	v = end - start;
	put(&s, &v, 8);
	v = pgoff;
	put(&s, &v, 8);
	put(&s, &maj, 4);
	put(&s, &min, 4);
	v = ino;
	put(&s, &v, 8);
	v = 0;
	put(&s, &v, 8);		/* ino_generation */
	put(&s, &prot, 4);
	put(&s, &flags, 4);
	put_name(&s, path);
	return finish(&s, r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, pid, pid, sink, ctx);
}

int synthesize_process(const struct record *r, pid_t pid, record_sink_fn sink, void *ctx)
{
	char path[128], comm[64];
	DIR *d;
	struct dirent *de;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (read_small_file(path, comm, sizeof(comm)) < 0)
		return 0;	/* gone */
	err = synth_comm(r, (uint32_t)pid, (uint32_t)pid, comm, sink, ctx);
	if (err < 0)
		return err;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (d) {
		while (!err && (de = readdir(d))) {
			char tcomm[64], tpath[160];
			int tid;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			tid = atoi(de->d_name);
			if (tid == pid)
				continue;
			snprintf(tpath, sizeof(tpath), "/proc/%d/task/%d/comm", (int)pid, tid);
			if (read_small_file(tpath, tcomm, sizeof(tcomm)) < 0)
				continue;
			err = synth_thread_fork(r, (uint32_t)pid, (uint32_t)tid, sink, ctx);
			if (!err)
				err = synth_comm(r, (uint32_t)pid, (uint32_t)tid, tcomm, sink, ctx);
		}
		closedir(d);
		if (err < 0)
			return err;
	}

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		size_t n = strlen(line);

		if (n && line[n - 1] == '\n')
			line[n - 1] = 0;
		err = synth_map_line(r, (uint32_t)pid, line, sink, ctx);
		if (err < 0)
			break;
	}
	free(line);
	fclose(f);
	return err;
}

int synthesize_all_processes(const struct record *r, record_sink_fn sink, void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return sbx_error_errno(-errno, "cannot list /proc");
	while (!err && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		err = synthesize_process(r, (pid_t)atoi(de->d_name), sink, ctx);
	}
	closedir(d);
	return err;
}

/* ------------------------------------------------------------ features */

/* A value from /proc/cpuinfo ("model name"), whitespace squeezed, or NULL. */
static char *cpuinfo_value(const char *key)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *val = NULL;
	size_t cap = 0, klen = strlen(key);

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *p, *q, *o;

		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != '\t' &&
						 line[klen] != ':'))
			continue;
		p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		while (isspace((unsigned char)*p))
			p++;
		/* squeeze runs of blanks, drop the trailing newline */
		for (q = o = p; *q; q++) {
			if (isspace((unsigned char)*q)) {
				if (o > p && o[-1] != ' ')
					*o++ = ' ';
			} else {
				*o++ = *q;
			}
		}
		while (o > p && o[-1] == ' ')
			o--;
		*o = 0;
		val = strdup(p);
		break;
	}
	free(line);
	fclose(f);
	return val;
}

static size_t perf_string_size(const char *s)
{
	return 4 + (strlen(s) + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
}

static unsigned char *put_perf_string(unsigned char *p, const char *s)
{
	uint32_t len = (uint32_t)(perf_string_size(s) - 4);

	memcpy(p, &len, 4);
	memset(p + 4, 0, len);
	memcpy(p + 4, s, strlen(s));
	return p + 4 + len;
}

static int add_cmdline(struct perf_data_writer *w, int argc, char *const *argv)
{
	size_t size = 4;
	unsigned char *buf, *p;
	uint32_t nr = (uint32_t)argc;
	int i, err;

	for (i = 0; i < argc; i++)
		size += perf_string_size(argv[i]);
	p = buf = malloc(size);
	if (!buf)
		return sbx_error(-ENOMEM, "out of memory");
	memcpy(p, &nr, 4);
	p += 4;
	for (i = 0; i < argc; i++)
		p = put_perf_string(p, argv[i]);
	err = perf_data_writer_add_feature(w, HEADER_CMDLINE, buf, size);
	free(buf);
	return err;
}

static int add_cpu_features(struct perf_data_writer *w)
{
	char *desc = cpuinfo_value("model name");
	char *vendor = cpuinfo_value("vendor_id");
	char *family = cpuinfo_value("cpu family");
	char *model = cpuinfo_value("model");
	char *stepping = cpuinfo_value("stepping");
	int err = 0;

	if (desc)
		err = perf_data_writer_add_feature_string(w, HEADER_CPUDESC, desc);
	if (!err && vendor && family && model && stepping) {
		char cpuid[256];

		snprintf(cpuid, sizeof(cpuid), "%s,%s,%s,%s", vendor, family, model, stepping);
		err = perf_data_writer_add_feature_string(w, HEADER_CPUID, cpuid);
	}
	free(desc);
	free(vendor);
	free(family);
	free(model);
	free(stepping);
	return err;
}

static uint64_t total_mem_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kb = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int synthesize_features(struct perf_data_writer *w, int argc, char *const *argv, int clockid)
{
	struct utsname u;
	uint32_t nrcpus[2];
	uint64_t mem;
	int err;

	if (uname(&u) < 0)
		return sbx_error_errno(-errno, "uname");
	err = perf_data_writer_add_feature_string(w, HEADER_HOSTNAME, u.nodename);
	if (!err)
		err = perf_data_writer_add_feature_string(w, HEADER_OSRELEASE, u.release);
	if (!err)
		err = perf_data_writer_add_feature_string(w, HEADER_VERSION, "sbx " SBX_VERSION);
	if (!err)
		err = perf_data_writer_add_feature_string(w, HEADER_ARCH, u.machine);
	if (err)
		return err;
	nrcpus[0] = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	nrcpus[1] = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	err = perf_data_writer_add_feature(w, HEADER_NRCPUS, nrcpus, sizeof(nrcpus));
	if (!err)
		err = add_cpu_features(w);
	mem = total_mem_kb();
	if (!err && mem)
		err = perf_data_writer_add_feature(w, HEADER_TOTAL_MEM, &mem, sizeof(mem));
	if (!err && argc > 0)
		err = add_cmdline(w, argc, argv);
	if (!err && clockid >= 0) {
		struct timespec res, ts;
		struct timeval tv;
		uint64_t ns;
		struct {
			uint32_t version, clockid;
			uint64_t wall_clock_ns, clockid_time_ns;
		} cd = { .version = 1, .clockid = (uint32_t)clockid };

		if (clock_getres(clockid, &res) == 0) {
			ns = (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec;
			err = perf_data_writer_add_feature(w, HEADER_CLOCKID, &ns, sizeof(ns));
		}
		if (!err && gettimeofday(&tv, NULL) == 0 && clock_gettime(clockid, &ts) == 0) {
			cd.wall_clock_ns = (uint64_t)tv.tv_sec * 1000000000ULL +
					   (uint64_t)tv.tv_usec * 1000ULL;
			cd.clockid_time_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
					     (uint64_t)ts.tv_nsec;
			err = perf_data_writer_add_feature(w, HEADER_CLOCK_DATA, &cd, sizeof(cd));
		}
	}
	return err;
}

int synthesize_sample_time(struct perf_data_writer *w, uint64_t first, uint64_t last)
{
	uint64_t t[2] = { first, last };

	return perf_data_writer_add_feature(w, HEADER_SAMPLE_TIME, t, sizeof(t));
}
