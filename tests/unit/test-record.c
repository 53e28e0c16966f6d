// SPDX-License-Identifier: MIT
/*
 * The recording side: the ring-buffer engine on this very process, the
 * records synthesized from /proc, the DSO hit tracking behind the BUILD_ID
 * feature, and the byte layout of the tracing data.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util/error.h"
#include "measure/events.h"
#include "perf/perf-data.h"
#include "measure/record.h"
#include "measure/dso-hits.h"
#include "perf/records.h"
#include "measure/synthesize.h"
#include "measure/tracing-data.h"

/* A sink that keeps a copy of every record. */
struct mem_sink {
	unsigned char *buf;
	size_t len, cap;
	size_t nr;
};

static int mem_sink(void *ctx, const struct perf_event_header *ev)
{
	struct mem_sink *m = ctx;

	if (m->len + ev->size > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 65536;

		while (cap < m->len + ev->size)
			cap *= 2;
		m->buf = realloc(m->buf, cap);
		if (!m->buf)
			return -ENOMEM;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, ev, ev->size);
	m->len += ev->size;
	m->nr++;
	return 0;
}

/* The next record of a mem_sink, or NULL at the end. */
static const struct perf_event_header *next_rec(const struct mem_sink *m, size_t *off)
{
	const struct perf_event_header *h;

	if (*off + sizeof(*h) > m->len)
		return NULL;
	h = (const void *)(m->buf + *off);
	if (h->size < sizeof(*h) || *off + h->size > m->len)
		return NULL;
	*off += h->size;
	return h;
}

static struct record *software_record(size_t nr_events)
{
	struct record_config cfg = { .freq = 1000, .clockid = CLOCK_MONOTONIC };
	struct record *r = record_new(&cfg);
	struct perf_event_attr a;
	size_t i;

	for (i = 0; r && i < nr_events; i++) {
		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_SOFTWARE;
		a.config = i ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
		if (record_add_event(r, &a, i ? "task-clock" : "cpu-clock") < 0) {
			record_free(r);
			return NULL;
		}
	}
	return r;
}

static void test_parse_clockid(void)
{
	CHECK_EQ_INT(record_parse_clockid("mono"), CLOCK_MONOTONIC);
	CHECK_EQ_INT(record_parse_clockid("monotonic"), CLOCK_MONOTONIC);
	CHECK_EQ_INT(record_parse_clockid("CLOCK_MONOTONIC"), CLOCK_MONOTONIC);
	CHECK_EQ_INT(record_parse_clockid("realtime"), CLOCK_REALTIME);
	CHECK_EQ_INT(record_parse_clockid("monotonic_raw"), CLOCK_MONOTONIC_RAW);
	CHECK_EQ_INT(record_parse_clockid("boottime"), CLOCK_BOOTTIME);
	CHECK_EQ_INT(record_parse_clockid("tai"), CLOCK_TAI);
	CHECK_EQ_INT(record_parse_clockid("7"), 7);
	CHECK_EQ_INT(record_parse_clockid("lunar"), -EINVAL);
	CHECK(strstr(sbx_error_msg(), "unknown clock 'lunar'") != NULL);
	CHECK_EQ_INT(record_parse_clockid(""), -EINVAL);
	CHECK_EQ_INT(record_parse_clockid("-1"), -EINVAL);
}

static void test_sample_layout(void)
{
	struct record *one = software_record(1), *two = software_record(2);
	struct perf_sample_layout l1, l2;
	struct perf_sample id, back;
	struct perf_rec_comm c = { .pid = 42, .tid = 43, .comm = "x" };
	uint64_t rec[16];

	CHECK(one && two);
	if (!one || !two)
		goto out;
	CHECK_EQ_U64(record_sample_type(one), PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
	CHECK(record_sample_type(two) & PERF_SAMPLE_IDENTIFIER);
	record_sample_layout(one, &l1);
	record_sample_layout(two, &l2);
	CHECK_EQ_INT(l1.id_size, 24);	/* TID, TIME, CPU */
	CHECK_EQ_INT(l2.id_size, 32);	/* + IDENTIFIER */
	/* a synthesized record's trailer reads back as what was written */
	record_id_sample(one, 42, 43, &id);
	CHECK_EQ_INT(perf_rec_encode_comm(rec, sizeof(rec), &c, &l1, &id), 8 + 16 + 24);
	CHECK_EQ_INT(perf_sample_parse(&l1, (void *)rec, &back), 0);
	CHECK_EQ_INT(back.pid, 42);
	CHECK_EQ_INT(back.tid, 43);
	CHECK_EQ_U64(back.time, 0);
out:
	record_free(one);
	record_free(two);
}

static volatile unsigned long spin_sink;

/*
 * Open r's counters on t: true when open; otherwise r is freed and the test
 * is skipped (perf events not allowed here) or failed.
 */
static bool open_or_skip(struct record *r, const struct record_target *t)
{
	int err = record_open(r, t);

	if (err == -EACCES || err == -EPERM)
		unit_skip("perf events are not allowed for this user (perf_event_paranoid)");
	else
		CHECK_EQ_INT(err, 0);
	if (err)
		record_free(r);
	return !err;
}

/* The engine on this process: samples land in the ring buffers and drain whole. */
static void test_engine_samples_self(void)
{
	struct record *r = software_record(2);
	struct record_target t = { .pid = getpid() };
	struct mem_sink m = { 0 };
	const struct record_stats *st;
	const struct perf_event_header *h;
	size_t off = 0, samples = 0, bytes = 0, nr_ids0, nr_ids1;
	struct timespec t0, t1;
	long n;

	CHECK(r != NULL);
	if (!r)
		return;
	if (!open_or_skip(r, &t))
		return;
	record_event_ids(r, 0, &nr_ids0);
	record_event_ids(r, 1, &nr_ids1);
	/* one counter per online CPU per thread, for each event */
	CHECK(nr_ids0 >= 1);
	CHECK_EQ_INT(nr_ids0, nr_ids1);
	CHECK(record_event_attr(r, 0)->mmap2 && !record_event_attr(r, 1)->mmap2);
	CHECK(record_event_attr(r, 0)->use_clockid);
	CHECK_EQ_INT(record_enable(r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			spin_sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 200000000L);
	CHECK_EQ_INT(record_disable(r), 0);
	CHECK_EQ_INT(record_poll(r, 0), 0);
	n = record_drain(r, mem_sink, &m);
	CHECK(n > 0);
	CHECK_EQ_INT((size_t)n, m.nr);
	while ((h = next_rec(&m, &off))) {
		CHECK_EQ_INT(h->size % 8, 0);
		bytes += h->size;
		if (h->type == PERF_RECORD_SAMPLE) {
			const unsigned char *b = (const unsigned char *)(h + 1);
			uint64_t id;
			uint32_t pid;

			memcpy(&id, b, 8);		/* IDENTIFIER first */
			memcpy(&pid, b + 16, 4);	/* after IP */
			CHECK_EQ_INT(pid, getpid());
			CHECK(id != 0);
			samples++;
		}
	}
	CHECK_EQ_INT(off, m.len);
	st = record_stats(r);
	CHECK(samples >= 20);	/* two events for 200 ms at 1 kHz */
	CHECK_EQ_U64(st->samples, samples);
	CHECK_EQ_U64(st->bytes, bytes);
	CHECK_EQ_U64(st->lost, 0);
	CHECK(st->first_time > 0 && st->last_time >= st->first_time);
	/* a second drain finds nothing new */
	CHECK_EQ_INT(record_drain(r, mem_sink, &m), 0);
	free(m.buf);
	record_free(r);
}

static void test_open_errors(void)
{
	struct record *r = software_record(1);
	struct record_target t = { .pid = INT_MAX };

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK(record_open(r, &t) < 0);
	CHECK(strstr(sbx_error_msg(), "no process") != NULL);
	record_free(r);

	r = record_new(&(struct record_config){ .clockid = -1 });
	t.pid = getpid();
	CHECK_EQ_INT(record_open(r, &t), -EINVAL);
	CHECK(strstr(sbx_error_msg(), "no event") != NULL);
	record_free(r);
}

/*
 * A full ring buffer loses samples without a LOST record until it is drained;
 * at the end, record_flush_lost() must account for them from the counters.
 */
static void test_lost_at_the_end(void)
{
	struct record_config cfg = { .clockid = CLOCK_MONOTONIC, .mmap_pages = 1 };
	struct record *r = record_new(&cfg);
	struct record_target t = { .pid = getpid() };
	struct perf_event_attr a;
	struct mem_sink m = { 0 };
	const struct record_stats *st;
	char dir[256];
	int made;
	long i, n = 20000;

	if (events_tracefs_dir(dir, sizeof(dir)) < 0) {
		record_free(r);
		SKIP("tracefs is not mounted");
	}
	CHECK_EQ_INT(events_parse("raw_syscalls:sys_enter", &a), 0);
	a.sample_period = 1;
	CHECK_EQ_INT(record_add_event(r, &a, "raw_syscalls:sys_enter"), 0);
	if (!open_or_skip(r, &t))
		return;
	CHECK_EQ_INT(record_enable(r), 0);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	CHECK_EQ_INT(record_disable(r), 0);
	CHECK(record_drain(r, mem_sink, &m) > 0);
	st = record_stats(r);
	/* a 4 KiB buffer holds a few dozen samples: nearly all were dropped */
	CHECK(st->samples < (uint64_t)n / 10);
	made = record_flush_lost(r, mem_sink, &m);
	CHECK_EQ_INT(made, 1);
	/* every system call is a sample or a lost one (+1: the disabling ioctl) */
	CHECK(st->samples + st->lost >= (uint64_t)n);
	CHECK(st->samples + st->lost <= (uint64_t)n + 4);
	if (made == 1) {
		const struct perf_event_header *h;
		size_t off = 0;

		while ((h = next_rec(&m, &off)) && h->type != PERF_RECORD_LOST_SAMPLES)
			;
		CHECK(h != NULL);
		if (h) {
			struct perf_sample_layout l;

			record_sample_layout(r, &l);
			CHECK_EQ_INT(h->size, 8 + 8 + l.id_size);
		}
	}
	/* nothing more to account the second time */
	CHECK_EQ_INT(record_flush_lost(r, mem_sink, &m), 0);
	free(m.buf);
	record_free(r);
}

static void test_synthesize_process_self(void)
{
	struct record *r = software_record(1);
	struct mem_sink m = { 0 };
	const struct perf_event_header *h;
	char exe[PATH_MAX], comm[32] = "";
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t off = 0, comms = 0, exe_maps = 0;
	struct perf_sample_layout l;

	record_sample_layout(r, &l);
	CHECK(len > 0);
	exe[len > 0 ? len : 0] = 0;
	prctl(PR_GET_NAME, comm);
	CHECK_EQ_INT(synthesize_process(r, getpid(), mem_sink, &m), 0);
	while ((h = next_rec(&m, &off))) {
		struct perf_sample id;
		struct perf_rec_comm c;
		struct perf_rec_mmap mm;

		CHECK_EQ_INT(h->size % 8, 0);
		/* every record ends with a trailer naming the process */
		CHECK_EQ_INT(perf_sample_parse(&l, h, &id), 0);
		CHECK_EQ_INT(id.pid, getpid());
		if (h->type == PERF_RECORD_COMM && !comms++) {
			CHECK_EQ_INT(perf_rec_parse_comm(h, &c), 0);
			CHECK_EQ_STR(c.comm, comm);
		}
		if (h->type == PERF_RECORD_MMAP2) {
			CHECK_EQ_INT(perf_rec_parse_mmap(h, &mm), 0);
			CHECK_EQ_INT(h->misc, PERF_RECORD_MISC_USER);
			CHECK(mm.prot & PROT_EXEC);	/* only executable maps */
			exe_maps += !strcmp(mm.filename, exe);
		}
	}
	CHECK(comms >= 1);
	CHECK(exe_maps >= 1);
	/* a process that does not exist gives nothing and no error */
	m.len = 0;
	CHECK_EQ_INT(synthesize_process(r, INT_MAX, mem_sink, &m), 0);
	CHECK_EQ_INT(m.len, 0);
	free(m.buf);
	record_free(r);
}

static void test_synthesize_kernel_mmap(void)
{
	struct record *r = software_record(1);
	struct mem_sink m = { 0 };
	const struct perf_event_header *h;
	struct perf_rec_mmap mm;
	size_t off = 0;

	CHECK_EQ_INT(synthesize_kernel_mmap(r, mem_sink, &m), 0);
	if (!m.nr) {
		record_free(r);
		SKIP("kernel addresses are hidden (kptr_restrict)");
	}
	h = next_rec(&m, &off);
	CHECK(h != NULL);
	if (h) {
		CHECK_EQ_INT(h->type, PERF_RECORD_MMAP);
		CHECK_EQ_INT(h->misc, PERF_RECORD_MISC_KERNEL);
		CHECK_EQ_INT(h->size % 8, 0);
		CHECK_EQ_INT(perf_rec_parse_mmap(h, &mm), 0);
		CHECK_EQ_INT(mm.pid, (uint32_t)-1);
		CHECK(mm.start >= 0xffff800000000000ULL);
		CHECK(mm.len > 0);
		CHECK_EQ_U64(mm.pgoff, mm.start);
		CHECK_EQ_STR(mm.filename, "[kernel.kallsyms]_text");
	}
	free(m.buf);
	record_free(r);
}

/* Records made for the DSO hit tracker, with the layout of a one-event recording. */
static struct perf_sample_layout hits_layout;

static void put_mmap2(unsigned char *rec, uint32_t pid, uint64_t start, uint64_t len,
		      uint32_t prot, const char *name)
{
	struct perf_rec_mmap m = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true, .pid = pid,
				   .tid = pid, .start = start, .len = len, .prot = prot,
				   .filename = name };
	struct perf_sample id = { .pid = pid, .tid = pid };

	CHECK(perf_rec_encode_mmap(rec, 256, &m, &hits_layout, &id) > 0);
}

static void put_sample(unsigned char *rec, uint32_t pid, uint64_t ip, uint16_t cpumode)
{
	/* IP, TID, TIME, CPU, PERIOD */
	struct perf_event_header h = { PERF_RECORD_SAMPLE, cpumode, 8 + 40 };

	memset(rec, 0, 64);
	memcpy(rec, &h, 8);
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, &pid, 4);
	memcpy(rec + 20, &pid, 4);
}

static void put_task(unsigned char *rec, uint32_t type, uint32_t pid, uint32_t ppid)
{
	struct perf_rec_task t = { .pid = pid, .ppid = ppid, .tid = pid, .ptid = ppid };
	struct perf_sample id = { .pid = pid, .tid = pid };

	CHECK(perf_rec_encode_task(rec, 256, type, &t, &hits_layout, &id) > 0);
}

static void put_comm_exec(unsigned char *rec, uint32_t pid)
{
	struct perf_rec_comm c = { .misc = PERF_RECORD_MISC_COMM_EXEC, .pid = pid, .tid = pid,
				   .comm = "x" };
	struct perf_sample id = { .pid = pid, .tid = pid };

	CHECK(perf_rec_encode_comm(rec, 256, &c, &hits_layout, &id) > 0);
}

static void test_dso_hits(void)
{
	struct record *r = software_record(1);
	struct dso_hits *h = dso_hits_new(r);
	unsigned char rec[256];
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	void *buf = NULL;
	size_t blen = 0, nr = 0;
	struct perf_rec_build_id e;
	size_t n;

	CHECK(h != NULL && len > 0);
	if (!h || len <= 0)
		goto out;
	record_sample_layout(r, &hits_layout);
	exe[len] = 0;
	/* the same binary at two bases in two processes; a library only in the first */
	put_mmap2(rec, 100, 0x1000, 0x1000, 5, exe);
	dso_hits_observe(h, (void *)rec);
	put_mmap2(rec, 100, 0x8000, 0x1000, 5, "/no/such/libfoo.so");
	dso_hits_observe(h, (void *)rec);
	put_mmap2(rec, 100, 0x20000, 0x1000, 3, "/no/such/data");	/* not executable */
	dso_hits_observe(h, (void *)rec);
	put_mmap2(rec, 200, 0x5000, 0x1000, 5, exe);
	dso_hits_observe(h, (void *)rec);
	CHECK_EQ_INT(dso_hits_count(h), 0);
	/* 0x1800 is the binary in 100, nothing in 200 */
	put_sample(rec, 200, 0x1800, PERF_RECORD_MISC_USER);
	dso_hits_observe(h, (void *)rec);
	put_sample(rec, 200, 0x20800, PERF_RECORD_MISC_USER);
	dso_hits_observe(h, (void *)rec);
	dso_hits_flush(h);
	CHECK_EQ_INT(dso_hits_count(h), 0);
	/* a child of 100 inherits its maps: the library gets hit through it */
	put_task(rec, PERF_RECORD_FORK, 300, 100);
	dso_hits_observe(h, (void *)rec);
	put_sample(rec, 300, 0x8010, PERF_RECORD_MISC_USER);
	dso_hits_observe(h, (void *)rec);
	CHECK_EQ_INT(dso_hits_count(h), 1);
	/*
	 * after an exec the old maps hold only addresses that no new map
	 * holds; a sample before its map (in buffer order) waits for the flush
	 */
	put_comm_exec(rec, 100);
	dso_hits_observe(h, (void *)rec);
	put_sample(rec, 100, 0x30800, PERF_RECORD_MISC_USER);
	dso_hits_observe(h, (void *)rec);
	CHECK_EQ_INT(dso_hits_count(h), 1);
	put_mmap2(rec, 100, 0x30000, 0x1000, 5, exe);
	dso_hits_observe(h, (void *)rec);
	dso_hits_flush(h);
	CHECK_EQ_INT(dso_hits_count(h), 2);
	put_sample(rec, 100, 0xffffffff81000000ULL, PERF_RECORD_MISC_KERNEL);
	dso_hits_observe(h, (void *)rec);
	CHECK_EQ_INT(dso_hits_count(h), 3);

	/* the feature: the binary has a build-id, the missing library is left out */
	CHECK_EQ_INT(dso_hits_build_id_feature(h, &buf, &blen, &nr), 0);
	CHECK(nr >= 1);
	for (size_t off = 0; off < blen; off += n) {
		n = perf_rec_parse_build_id((unsigned char *)buf + off, blen - off, false, &e);
		CHECK(n > 0);
		if (!n)
			break;
		CHECK(e.misc & PERF_RECORD_MISC_BUILD_ID_SIZE);
		CHECK_EQ_INT(e.pid, -1);
		CHECK(e.size > 0 && e.size <= 20);
		if (!strcmp(e.filename, exe))
			CHECK_EQ_INT(e.misc & 7, PERF_RECORD_MISC_USER);
		else
			CHECK_EQ_STR(e.filename, "[kernel.kallsyms]");
		CHECK(strcmp(e.filename, "/no/such/libfoo.so") != 0);
	}
	free(buf);
out:
	dso_hits_free(h);
	record_free(r);
}

/* Walk the tracing data as perf's trace-event-read.c does; 0 when it all fits. */
static int walk_tracing_data(const unsigned char *p, size_t len, char *systems, size_t syslen,
			     size_t *formats)
{
	size_t off = 0;
	uint64_t u64;
	uint32_t u32, nsys, i, j;

#define NEED(n) do { if ((n) > len - off) return -1; } while (0)
	NEED(10);
	if (memcmp(p, "\x17\x08\x44tracing", 10))
		return -2;
	off = 10;
	NEED(4);
	if (memcmp(p + off, "0.6", 4))
		return -3;
	off += 4;
	NEED(6);
	if (p[off] != 0 || p[off + 1] != sizeof(long))
		return -4;
	memcpy(&u32, p + off + 2, 4);
	if (u32 != (uint32_t)sysconf(_SC_PAGESIZE))
		return -5;
	off += 6;
	NEED(12 + 8);
	if (memcmp(p + off, "header_page", 12))
		return -6;
	off += 12;
	memcpy(&u64, p + off, 8);
	off += 8;
	NEED(u64);
	off += u64;
	NEED(13 + 8);
	if (memcmp(p + off, "header_event", 13))
		return -7;
	off += 13;
	memcpy(&u64, p + off, 8);
	off += 8;
	NEED(u64);
	off += u64;
	NEED(4);
	memcpy(&u32, p + off, 4);	/* ftrace formats */
	off += 4;
	if (u32)
		return -8;
	NEED(4);
	memcpy(&nsys, p + off, 4);
	off += 4;
	systems[0] = 0;
	*formats = 0;
	for (i = 0; i < nsys; i++) {
		const unsigned char *nul = memchr(p + off, 0, len - off);

		if (!nul)
			return -9;
		snprintf(systems + strlen(systems), syslen - strlen(systems), "%s;",
			 (const char *)p + off);
		off = (size_t)(nul - p) + 1;
		NEED(4);
		memcpy(&u32, p + off, 4);
		off += 4;
		for (j = 0; j < u32; j++) {
			NEED(8);
			memcpy(&u64, p + off, 8);
			off += 8;
			NEED(u64);
			if (u64 < 6 || memcmp(p + off, "name: ", 6))
				return -10;
			off += u64;
			(*formats)++;
		}
	}
	NEED(4);
	memcpy(&u32, p + off, 4);	/* kallsyms */
	off += 4;
	NEED(u32);
	off += u32;
	NEED(4);
	memcpy(&u32, p + off, 4);	/* printk formats */
	off += 4;
	NEED(u32);
	off += u32;
	NEED(8);
	memcpy(&u64, p + off, 8);	/* saved cmdlines */
	off += 8;
	NEED(u64);
	off += u64;
#undef NEED
	return off == len ? 0 : -11;
}

static void test_tracing_data_layout(void)
{
	static const char *const names[] = {
		"sched:sched_switch", "sched:sched_wakeup", "raw_syscalls:sys_enter",
		"sched:sched_switch",
	};
	struct record *r = software_record(1);
	struct perf_event_attr a;
	void *buf = NULL;
	size_t len = 0, formats = 0;
	char systems[256];
	char dir[256];

	CHECK_EQ_INT(synthesize_tracing_data(r, &buf, &len), 0);	/* no tracepoint */
	if (events_tracefs_dir(dir, sizeof(dir)) < 0) {
		record_free(r);
		SKIP("tracefs is not mounted");
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		CHECK_EQ_INT(events_parse(names[i], &a), 0);
		CHECK_EQ_INT(record_add_event(r, &a, names[i]), 0);
	}
	CHECK_EQ_INT(synthesize_tracing_data(r, &buf, &len), 1);
	CHECK(buf != NULL && len > 100);
	if (buf) {
		CHECK_EQ_INT(walk_tracing_data(buf, len, systems, sizeof(systems), &formats), 0);
		/* one entry per system, each format once */
		CHECK_EQ_STR(systems, "sched;raw_syscalls;");
		CHECK_EQ_INT(formats, 3);
		CHECK(memmem(buf, len, "name: sched_wakeup\n", 19) != NULL);
		/* a truncated copy does not walk */
		CHECK(walk_tracing_data(buf, len - 1, systems, sizeof(systems), &formats) != 0);
	}
	free(buf);
	record_free(r);
}

static const struct unit_test tests[] = {
	TEST(test_parse_clockid),
	TEST(test_sample_layout),
	TEST(test_engine_samples_self),
	TEST(test_open_errors),
	TEST(test_lost_at_the_end),
	TEST(test_synthesize_process_self),
	TEST(test_synthesize_kernel_mmap),
	TEST(test_dso_hits),
	TEST(test_tracing_data_layout),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
