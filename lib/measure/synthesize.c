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

#include "util/error.h"
#include "perf/perf-data.h"
#include "perf/perf-data-write.h"
#include "perf/records.h"
#include "measure/synthesize.h"
#include "util/sysinfo.h"
#include "util/version.h"

/* The biggest record we synthesize: header, MMAP2 fields, a path, a trailer. */
#define SYNTH_MAX (8 + 64 + 4096 + 64)

/* Encoded records go to the sink with r's sample_id trailer for (pid, tid). */
struct synth {
	const struct record *r;
	record_sink_fn sink;
	void *ctx;
	struct perf_sample_layout layout;
	uint64_t buf[SYNTH_MAX / 8];
};

static void synth_init(struct synth *s, const struct record *r, record_sink_fn sink, void *ctx)
{
	s->r = r;
	s->sink = sink;
	s->ctx = ctx;
	record_sample_layout(r, &s->layout);
}

/* The trailer's values for a record of (pid, tid). */
static struct perf_sample *id_of(struct synth *s, uint32_t pid, uint32_t tid,
				 struct perf_sample *id)
{
	record_id_sample(s->r, pid, tid, id);
	return id;
}

/* Hand an encoded record (or the encoder's error) to the sink. */
static int emit(struct synth *s, int size)
{
	if (size < 0)
		return sbx_error(size, "synthesized record too large");
	return s->sink(s->ctx, (const struct perf_event_header *)s->buf);
}

int synthesize_kernel_mmap(const struct record *r, record_sink_fn sink, void *ctx)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr, text = 0, etext = 0;
	char type, name[256];
	struct synth s;
	struct perf_sample id;
	struct perf_rec_mmap m = { .misc = PERF_RECORD_MISC_KERNEL, .pid = (uint32_t)-1,
				   .filename = "[kernel.kallsyms]_text" };

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
	synth_init(&s, r, sink, ctx);
	m.start = m.pgoff = text;
	m.len = etext - text;
	return emit(&s, perf_rec_encode_mmap(s.buf, sizeof(s.buf), &m, &s.layout,
					     id_of(&s, 0, 0, &id)));
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

static int synth_comm(struct synth *s, uint32_t pid, uint32_t tid, const char *comm)
{
	struct perf_rec_comm c = { .pid = pid, .tid = tid, .comm = comm };
	struct perf_sample id;

	return emit(s, perf_rec_encode_comm(s->buf, sizeof(s->buf), &c, &s->layout,
					    id_of(s, pid, tid, &id)));
}

static int synth_thread_fork(struct synth *s, uint32_t pid, uint32_t tid)
{
	struct perf_rec_task t = { .pid = pid, .ppid = pid, .tid = tid, .ptid = pid };
	struct perf_sample id;

	return emit(s, perf_rec_encode_task(s->buf, sizeof(s->buf), PERF_RECORD_FORK, &t,
					    &s->layout, id_of(s, pid, tid, &id)));
}

/* One line of /proc/PID/maps: executable ones become MMAP2 records. */
static int synth_map_line(struct synth *s, uint32_t pid, const char *line)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int n = 0;
	struct perf_rec_mmap m = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true };
	struct perf_sample id;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, &n) < 7 || !n)
		return 0;
	if (perms[2] != 'x')
		return 0;
	m.filename = line + n;
	if (!*m.filename)
		m.filename = "//anon";
	else if (!strcmp(m.filename, "[vsyscall]"))
		return 0;	/* the fixed page perf leaves out too */
	if (strlen(m.filename) >= 4096)
		return 0;
	m.pid = m.tid = pid;
	m.start = start;
	m.len = end - start;
	m.pgoff = pgoff;
	m.maj = maj;
	m.min = min;
	m.ino = ino;
	m.prot = PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0);
	m.flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	return emit(s, perf_rec_encode_mmap(s->buf, sizeof(s->buf), &m, &s->layout,
					    id_of(s, pid, pid, &id)));
}

int synthesize_process(const struct record *r, pid_t pid, record_sink_fn sink, void *ctx)
{
	struct synth s;
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
	synth_init(&s, r, sink, ctx);
	err = synth_comm(&s, (uint32_t)pid, (uint32_t)pid, comm);
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
			err = synth_thread_fork(&s, (uint32_t)pid, (uint32_t)tid);
			if (!err)
				err = synth_comm(&s, (uint32_t)pid, (uint32_t)tid, tcomm);
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
		err = synth_map_line(&s, (uint32_t)pid, line);
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

static int add_cpu_features(struct perf_data_writer *w)
{
	char *desc = sysinfo_cpuinfo("model name", true);
	char *vendor = sysinfo_cpuinfo("vendor_id", true);
	char *family = sysinfo_cpuinfo("cpu family", true);
	char *model = sysinfo_cpuinfo("model", true);
	char *stepping = sysinfo_cpuinfo("stepping", true);
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
	if (!err) {
		char version[128];

		snprintf(version, sizeof(version), "sbx %s", sbx_version());
		err = perf_data_writer_add_feature_string(w, HEADER_VERSION, version);
	}
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
		err = perf_data_writer_add_feature_strings(w, HEADER_CMDLINE, (size_t)argc, argv);
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
