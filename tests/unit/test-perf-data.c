// SPDX-License-Identifier: MIT
/*
 * perf.data reader and writer on byte-level fixtures built here: the same
 * file in both byte orders, pipe mode, a file cut mid-record, an unknown
 * record type, a writer round trip, and perf record -z data compressed
 * here with libzstd (straddling records, corrupt and truncated streams),
 * and the pages of a large file given back behind the session's rounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "harness.h"
#include "util/error.h"
#include "perf/perf-data.h"
#include "perf/perf-data-write.h"
#include "perf/records.h"
#include "perf/session.h"

/* ------------------------------------------------------ fixture builder */

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool be;		/* write big-endian (the other byte order here) */
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u16(struct buf *b, uint16_t v)
{
	if (b->be)
		v = __builtin_bswap16(v);
	put(b, &v, 2);
}

static void put_u32(struct buf *b, uint32_t v)
{
	if (b->be)
		v = __builtin_bswap32(v);
	put(b, &v, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	if (b->be)
		v = __builtin_bswap64(v);
	put(b, &v, 8);
}

static void put_zeros(struct buf *b, size_t n)
{
	static const uint8_t z[256];

	put(b, z, n);
}

static void set_u64(struct buf *b, size_t off, uint64_t v)
{
	if (b->be)
		v = __builtin_bswap64(v);
	memcpy(b->p + off, &v, 8);
}

static void set_u16(struct buf *b, size_t off, uint16_t v)
{
	if (b->be)
		v = __builtin_bswap16(v);
	memcpy(b->p + off, &v, 2);
}

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD)

/* A perf_event_attr of 128 bytes, flags as the compiler of that byte order lays them. */
static void put_attr(struct buf *b, uint64_t sample_type)
{
	static const int flag_bits[] = { 8 /* mmap */, 9 /* comm */, 18 /* sample_id_all */ };
	uint8_t flags[8] = { 0 };

	put_u32(b, PERF_TYPE_SOFTWARE);
	put_u32(b, 128);
	put_u64(b, PERF_COUNT_SW_CPU_CLOCK);
	put_u64(b, 1000);		/* sample_period */
	put_u64(b, sample_type);
	put_u64(b, 0);			/* read_format */
	for (size_t i = 0; i < sizeof(flag_bits) / sizeof(*flag_bits); i++) {
		int n = flag_bits[i];

		flags[n / 8] |= b->be ? 0x80 >> (n % 8) : 1 << (n % 8);
	}
	put(b, flags, 8);
	put_zeros(b, 128 - 48);
}

static size_t begin_rec(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;

	put_u32(b, type);
	put_u16(b, misc);
	put_u16(b, 0);
	return at;
}

static void end_rec(struct buf *b, size_t at)
{
	set_u16(b, at + 6, b->len - at);
}

/* sample_id_all trailer for SAMPLE_TYPE: pid, tid, time, cpu, res */
static void put_trailer(struct buf *b, uint32_t pid, uint64_t time)
{
	put_u32(b, pid);
	put_u32(b, pid);
	put_u64(b, time);
	put_u32(b, 0);
	put_u32(b, 0);
}

static void put_str8(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	put(b, s, n);
	put_zeros(b, (8 - n % 8) % 8);
}

static void put_comm(struct buf *b, uint32_t pid, const char *comm, uint64_t time)
{
	size_t at = begin_rec(b, PERF_RECORD_COMM, 0);

	put_u32(b, pid);
	put_u32(b, pid);
	put_str8(b, comm);
	put_trailer(b, pid, time);
	end_rec(b, at);
}

static void put_mmap2(struct buf *b, uint32_t pid, uint64_t addr, const char *file, uint64_t time)
{
	size_t at = begin_rec(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);

	put_u32(b, pid);
	put_u32(b, pid);
	put_u64(b, addr);
	put_u64(b, 0x1000);
	put_u64(b, 0);		/* pgoff */
	put_u32(b, 8);		/* maj */
	put_u32(b, 1);		/* min */
	put_u64(b, 1234);	/* ino */
	put_u64(b, 0);
	put_u32(b, 5);		/* PROT_READ|PROT_EXEC */
	put_u32(b, 2);		/* MAP_PRIVATE */
	put_str8(b, file);
	put_trailer(b, pid, time);
	end_rec(b, at);
}

static void put_sample(struct buf *b, uint32_t pid, uint64_t ip, uint64_t time)
{
	size_t at = begin_rec(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	put_u64(b, ip);
	put_u32(b, pid);
	put_u32(b, pid + 1);	/* tid */
	put_u64(b, time);
	put_u32(b, 3);		/* cpu */
	put_u32(b, 0);
	put_u64(b, 777);	/* period */
	end_rec(b, at);
}

static void put_records(struct buf *b)
{
	size_t at;

	put_comm(b, 100, "prog", 5);
	put_mmap2(b, 100, 0x400000, "/bin/prog", 10);
	put_sample(b, 100, 0x400123, 20);
	/* a record type this reader does not know: skipped and counted */
	at = begin_rec(b, 200, 0);
	put_u64(b, 0xdeadbeef);
	end_rec(b, at);
	at = begin_rec(b, PERF_RECORD_FINISHED_ROUND, 0);
	end_rec(b, at);
	/* a sample before its mmap in file order, after it in time */
	put_sample(b, 101, 0x500010, 30);
	put_mmap2(b, 101, 0x500000, "/bin/other", 25);
}

/* The whole file mode fixture. */
/* A file mode file of one attr whose data section records() writes. */
static struct buf make_file_of(bool be, void (*records)(struct buf *))
{
	struct buf b = { .be = be };
	size_t attrs, data;

	put_u64(&b, PERF_MAGIC);
	put_u64(&b, 104);
	put_u64(&b, 128 + 16);		/* attr_size */
	put_zeros(&b, 104 - 24);	/* sections and features, set below */
	attrs = b.len;
	put_attr(&b, SAMPLE_TYPE);
	put_u64(&b, 0);			/* ids section: none */
	put_u64(&b, 0);
	data = b.len;
	records(&b);
	set_u64(&b, 24, attrs);
	set_u64(&b, 32, 128 + 16);
	set_u64(&b, 40, data);
	set_u64(&b, 48, b.len - data);
	return b;
}

static struct buf make_file(bool be)
{
	return make_file_of(be, put_records);
}

static struct buf make_pipe(bool be)
{
	struct buf b = { .be = be };
	size_t at;

	put_u64(&b, PERF_MAGIC);
	put_u64(&b, 16);
	at = begin_rec(&b, PERF_RECORD_HEADER_ATTR, 0);
	put_attr(&b, SAMPLE_TYPE);
	end_rec(&b, at);
	put_records(&b);
	return b;
}

/* ------------------------------------------------------------- checks */

/* Read every record and check what the fixture holds. */
static void check_fixture(struct perf_data *d)
{
	const struct perf_event_header *h;
	uint32_t types[16];
	size_t n = 0, samples = 0;
	int ret;

	while ((ret = perf_data_next(d, &h)) > 0) {
		const struct perf_data_attr *a = perf_data_attr_of(d, h);
		struct perf_sample s;

		if (n < 16)
			types[n] = h->type;
		n++;
		CHECK(a != NULL);
		if (h->type == PERF_RECORD_SAMPLE) {
			CHECK_EQ_INT(perf_sample_parse(&a->layout, h, &s), 0);
			CHECK_EQ_INT(s.cpu, 3);
			CHECK_EQ_INT(s.period, 777);
			CHECK_EQ_INT(s.tid, s.pid + 1);
			CHECK_EQ_INT(s.cpumode, PERF_RECORD_MISC_USER);
			if (samples++ == 0) {
				CHECK_EQ_U64(s.ip, 0x400123);
				CHECK_EQ_INT(s.pid, 100);
				CHECK_EQ_U64(s.time, 20);
			} else {
				CHECK_EQ_U64(s.ip, 0x500010);
				CHECK_EQ_U64(s.time, 30);
			}
		} else if (h->type == PERF_RECORD_MMAP2) {
			CHECK_EQ_INT(perf_sample_parse(&a->layout, h, &s), 0);
			CHECK(s.time == 10 || s.time == 25);
			CHECK_EQ_STR((const char *)h + 72, s.time == 10 ? "/bin/prog" : "/bin/other");
			CHECK_EQ_U64(*(const uint64_t *)((const char *)h + 16), s.time == 10 ?
				     0x400000 : 0x500000);
		} else if (h->type == PERF_RECORD_COMM) {
			CHECK_EQ_INT(perf_sample_parse(&a->layout, h, &s), 0);
			CHECK_EQ_U64(s.time, 5);
			CHECK_EQ_INT(s.pid, 100);
			CHECK_EQ_STR((const char *)h + 16, "prog");
		}
	}
	CHECK_EQ_INT(ret, 0);
	CHECK_EQ_INT(samples, 2);
	if (perf_data_nr_attrs(d) != 1) {
		CHECK_EQ_INT(perf_data_nr_attrs(d), 1);
		return;
	}
	CHECK_EQ_U64(perf_data_attr(d, 0)->attr.sample_type, SAMPLE_TYPE);
	CHECK(perf_data_attr(d, 0)->attr.sample_id_all);
	CHECK(perf_data_attr(d, 0)->attr.mmap);
	CHECK(!perf_data_attr(d, 0)->attr.disabled);
	CHECK_EQ_STR(perf_data_attr(d, 0)->name, "cpu-clock");
	CHECK_EQ_U64(perf_data_nr_unknown(d), 1);
	CHECK(n >= 7);
	if (n >= 7) {
		size_t base = n - 7;	/* pipe mode has HEADER_ATTR first */

		CHECK_EQ_INT(types[base + 0], PERF_RECORD_COMM);
		CHECK_EQ_INT(types[base + 1], PERF_RECORD_MMAP2);
		CHECK_EQ_INT(types[base + 2], PERF_RECORD_SAMPLE);
		CHECK_EQ_INT(types[base + 3], 200);
		CHECK_EQ_INT(types[base + 4], PERF_RECORD_FINISHED_ROUND);
	}
}

/*
 * Every kernel record with a fixed part (record-type.c's words), in both
 * byte orders: each field read back as written. An MMAP2 with a build-id
 * keeps its bytes where the inode's words would be swapped.
 */
static void put_fixed_records(struct buf *b)
{
	static const uint8_t id[20] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
					0xbb, 0xcc, 0xdd, 0xee, 0xf0, 1, 2, 3, 4, 5 };
	size_t at;

	at = begin_rec(b, PERF_RECORD_FORK, 0);
	put_u32(b, 7), put_u32(b, 6), put_u32(b, 8), put_u32(b, 9), put_u64(b, 0x123456789a);
	put_trailer(b, 7, 40);
	end_rec(b, at);
	at = begin_rec(b, PERF_RECORD_LOST, 0);
	put_u64(b, 0x1000000002), put_u64(b, 0x300000004);
	put_trailer(b, 7, 41);
	end_rec(b, at);
	at = begin_rec(b, PERF_RECORD_THROTTLE, 0);
	put_u64(b, 0x5000000006), put_u64(b, 7), put_u64(b, 0x800000009);
	put_trailer(b, 7, 42);
	end_rec(b, at);
	at = begin_rec(b, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
	put_u32(b, 0x10001), put_u32(b, 0x20002);
	put_trailer(b, 7, 43);
	end_rec(b, at);
	at = begin_rec(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put_u32(b, 7), put_u32(b, 7), put_u64(b, 0x7f0000001000), put_u64(b, 0x2000), put_u64(b, 0x3000);
	put(b, (const uint8_t[]){ 20, 0, 0, 0 }, 4);
	put(b, id, 20);
	put_u32(b, 5), put_u32(b, 2);
	put_str8(b, "/lib/x.so");
	put_trailer(b, 7, 44);
	end_rec(b, at);
}

static void test_fixed_parts_both_orders(void)
{
	for (int be = 0; be < 2; be++) {
		struct buf b = make_file_of(be, put_fixed_records);
		size_t n = 0;
		const struct perf_event_header *h;
		struct perf_data *d;
		struct perf_rec_task t;
		struct perf_rec_lost l;
		struct perf_rec_throttle th;
		struct perf_rec_switch sw;
		struct perf_rec_mmap m;

		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		CHECK_EQ_INT(perf_data_needs_swap(d), be);
		while (perf_data_next(d, &h) == 1) {
			n++;
			switch (h->type) {
			case PERF_RECORD_FORK:
				CHECK_EQ_INT(perf_rec_parse_task(h, &t), 0);
				CHECK(t.pid == 7 && t.ppid == 6 && t.tid == 8 && t.ptid == 9);
				CHECK_EQ_U64(t.time, 0x123456789a);
				break;
			case PERF_RECORD_LOST:
				CHECK_EQ_INT(perf_rec_parse_lost(h, &l), 0);
				CHECK_EQ_U64(l.id, 0x1000000002);
				CHECK_EQ_U64(l.lost, 0x300000004);
				break;
			case PERF_RECORD_THROTTLE:
				CHECK_EQ_INT(perf_rec_parse_throttle(h, &th), 0);
				CHECK_EQ_U64(th.time, 0x5000000006);
				CHECK_EQ_U64(th.stream_id, 0x800000009);
				break;
			case PERF_RECORD_SWITCH_CPU_WIDE:
				CHECK_EQ_INT(perf_rec_parse_switch(h, &sw), 0);
				CHECK(sw.out && sw.cpu_wide);
				CHECK(sw.next_prev_pid == 0x10001 && sw.next_prev_tid == 0x20002);
				break;
			case PERF_RECORD_MMAP2:
				CHECK_EQ_INT(perf_rec_parse_mmap(h, &m), 0);
				CHECK_EQ_U64(m.start, 0x7f0000001000);
				CHECK_EQ_U64(m.len, 0x2000);
				CHECK_EQ_U64(m.pgoff, 0x3000);
				CHECK_EQ_INT(m.build_id_size, 20);
				CHECK(m.build_id[0] == 0x11 && m.build_id[14] == 0xf0 && m.build_id[19] == 5);
				CHECK(m.prot == 5 && m.flags == 2);
				CHECK_EQ_STR(m.filename, "/lib/x.so");
				break;
			default:
				CHECK(!"an unexpected record");
			}
		}
		CHECK_EQ_INT(n, 5);
		perf_data_close(d);
		free(b.p);
	}
}

static void test_file_mode(void)
{
	struct buf b = make_file(false);
	struct perf_data *d;

	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
	CHECK(!perf_data_is_pipe(d));
	CHECK(!perf_data_needs_swap(d));
	check_fixture(d);
	perf_data_close(d);
	free(b.p);
}

static void test_byte_swapped_file(void)
{
	struct buf b = make_file(true);
	struct perf_data *d;

	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
	CHECK(perf_data_needs_swap(d));
	check_fixture(d);
	perf_data_close(d);
	free(b.p);
}

static void test_pipe_mode_both_orders(void)
{
	for (int be = 0; be < 2; be++) {
		struct buf b = make_pipe(be);
		struct perf_data *d;

		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		CHECK(perf_data_is_pipe(d));
		CHECK_EQ_INT(perf_data_needs_swap(d), be);
		/* attrs arrive in band: none before the first record */
		CHECK_EQ_INT(perf_data_nr_attrs(d), 0);
		check_fixture(d);
		perf_data_close(d);
		free(b.p);
	}
}

static void test_pipe_stream_from_fd(void)
{
	struct buf b = make_pipe(false);
	char path[] = "/tmp/sbx-test-pipe-XXXXXX";
	int fd = mkstemp(path), pfd[2], saved;
	struct perf_data *d;
	pid_t pid;

	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	/* a real pipe on stdin, fed by a child */
	CHECK_EQ_INT(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (write(pfd[1], b.p, b.len) != (ssize_t)b.len)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	saved = dup(STDIN_FILENO);
	dup2(pfd[0], STDIN_FILENO);
	close(pfd[0]);
	CHECK_EQ_INT(perf_data_open("-", &d), 0);
	CHECK(!perf_data_records_stable(d));
	check_fixture(d);
	perf_data_close(d);
	dup2(saved, STDIN_FILENO);
	close(saved);
	waitpid(pid, NULL, 0);
	free(b.p);
}

static void test_truncated(void)
{
	struct buf b = make_file(false);
	struct perf_data *d;
	const struct perf_event_header *h;
	size_t cut = b.len - 20;	/* in the middle of the last MMAP2 */
	int ret, n = 0;

	/* file mode: the data section runs past the end: its whole records, then an error */
	CHECK_EQ_INT(perf_data_open_mem(b.p, cut, &d), 0);
	while ((ret = perf_data_next(d, &h)) > 0)
		n++;
	CHECK_EQ_INT(ret, -EINVAL);
	CHECK(strstr(sbx_error_msg(), "cut short") != NULL);
	CHECK_EQ_INT(n, 6);	/* the records before the cut MMAP2 */
	CHECK_EQ_INT(perf_data_next(d, &h), 0);	/* and then the end */
	perf_data_close(d);
	n = 0;
	/* the data section starting past the end: nothing to read */
	set_u64(&b, 40, b.len + 8);
	CHECK(perf_data_open_mem(b.p, b.len, &d) < 0);
	CHECK(strstr(sbx_error_msg(), "data section starts past") != NULL);
	/* a header cut short */
	CHECK(perf_data_open_mem(b.p, 40, &d) < 0);
	free(b.p);

	/* pipe mode: the records before the cut are read, then an error */
	b = make_pipe(false);
	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len - 20, &d), 0);
	while ((ret = perf_data_next(d, &h)) > 0)
		n++;
	CHECK_EQ_INT(ret, -EINVAL);
	CHECK(strstr(sbx_error_msg(), "truncated") != NULL);
	CHECK_EQ_INT(n, 7);	/* HEADER_ATTR + 6 whole records */
	perf_data_close(d);
	free(b.p);
}

static void test_bad_headers(void)
{
	struct buf b = make_file(false);
	struct perf_data *d;

	memcpy(b.p, "NOTPERF!", 8);
	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), -EINVAL);
	CHECK(strstr(sbx_error_msg(), "bad magic") != NULL);
	free(b.p);
	/* the zeroed header a killed recording leaves: said so */
	b = make_file(false);
	memset(b.p, 0, 104);
	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), -EINVAL);
	CHECK(strstr(sbx_error_msg(), "its header is zeros: a recording that never finished?") != NULL);
	free(b.p);
	b = make_file(false);
	set_u64(&b, 16, 0);		/* attr_size 0 */
	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), -EINVAL);
	CHECK(strstr(sbx_error_msg(), "attr size") != NULL);
	free(b.p);
	b = make_file(false);
	set_u64(&b, 40, 50);		/* data overlaps the attrs */
	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), -EINVAL);
	free(b.p);
	b = make_file(false);
	/* a record claiming more than its section holds */
	set_u16(&b, 104 + 144 + 6, 4000);
	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
	{
		const struct perf_event_header *h;

		CHECK(perf_data_next(d, &h) < 0);
	}
	perf_data_close(d);
	free(b.p);
}

/* Parse rec with the layout of a->attr as it is now (the tests change the attr). */
static int parse_as(const struct perf_data_attr *a, const struct perf_event_header *rec,
		    struct perf_sample *s)
{
	struct perf_sample_layout l;

	perf_sample_layout_init(&l, &a->attr);
	return perf_sample_parse(&l, rec, s);
}

static void test_sample_bounds(void)
{
	struct buf b = make_file(false);
	struct perf_data *d;
	const struct perf_event_header *h;
	struct perf_data_attr a;
	struct perf_sample s;
	uint8_t rec[64];

	CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
	a = *perf_data_attr(d, 0);
	/* callchain claiming 1000 entries in a 40-byte record */
	a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	memset(rec, 0, sizeof(rec));
	h = (void *)rec;
	((struct perf_event_header *)rec)->type = PERF_RECORD_SAMPLE;
	((struct perf_event_header *)rec)->size = 40;
	*(uint64_t *)(rec + 16) = 1000;
	CHECK_EQ_INT(parse_as(&a, h, &s), -EINVAL);
	*(uint64_t *)(rec + 16) = 2;
	CHECK_EQ_INT(parse_as(&a, h, &s), 0);
	CHECK_EQ_U64(s.callchain_nr, 2);
	/* raw data with a size past the end */
	a.attr.sample_type = PERF_SAMPLE_RAW;
	*(uint32_t *)(rec + 8) = 100;
	CHECK_EQ_INT(parse_as(&a, h, &s), -EINVAL);
	*(uint32_t *)(rec + 8) = 12;
	CHECK_EQ_INT(parse_as(&a, h, &s), 0);
	CHECK_EQ_INT(s.raw_size, 12);
	/* branch stack with hw_idx */
	a.attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	a.attr.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	memset(rec, 0, sizeof(rec));
	((struct perf_event_header *)rec)->type = PERF_RECORD_SAMPLE;
	((struct perf_event_header *)rec)->size = 48;
	*(uint64_t *)(rec + 8) = 1;
	*(uint64_t *)(rec + 16) = 7;
	*(uint64_t *)(rec + 24) = 0x1111;
	*(uint64_t *)(rec + 32) = 0x2222;
	CHECK_EQ_INT(parse_as(&a, h, &s), 0);
	CHECK_EQ_U64(s.branch_hw_idx, 7);
	CHECK_EQ_U64(s.branches[0].from, 0x1111);
	CHECK_EQ_U64(s.branches[0].to, 0x2222);
	*(uint64_t *)(rec + 8) = 2;
	CHECK_EQ_INT(parse_as(&a, h, &s), -EINVAL);
	perf_data_close(d);
	free(b.p);
}

/* Every field perf writes by default or with -g / -b / --user-regs, in order. */
static void test_sample_all_fields(void)
{
	struct perf_data_attr a;
	struct perf_sample s;
	uint64_t rec[64];
	size_t n = 1;
	struct perf_event_header *h = (void *)rec;

	memset(&a, 0, sizeof(a));
	a.attr.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			     PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			     PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			     PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
			     PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
	a.attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			     PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	a.attr.sample_regs_user = 0x7;	/* 3 registers */
	memset(rec, 0, sizeof(rec));
	rec[n++] = 99;			/* identifier */
	rec[n++] = 0x401000;		/* ip */
	rec[n++] = 7 | 8ULL << 32;	/* pid, tid */
	rec[n++] = 123456;		/* time */
	rec[n++] = 0xdada;		/* addr */
	rec[n++] = 99;			/* id */
	rec[n++] = 55;			/* stream_id */
	rec[n++] = 2;			/* cpu 2, res */
	rec[n++] = 4000;		/* period */
	rec[n++] = 2;			/* read: nr */
	rec[n++] = 100;			/* time_enabled */
	rec[n++] = 90;			/* time_running */
	rec[n++] = 11; rec[n++] = 99;	/* value, id */
	rec[n++] = 22; rec[n++] = 98;
	rec[n++] = 3;			/* callchain nr */
	rec[n++] = (uint64_t)PERF_CONTEXT_USER;
	rec[n++] = 0x401000;
	rec[n++] = 0x402000;
	rec[n++] = 12;			/* raw: u32 size 12, then 12 bytes: 16 in all */
	memcpy((char *)&rec[n - 1] + 4, "abcdefghijkl", 12);
	n++;
	rec[n++] = 1;			/* branches: nr */
	rec[n++] = 5;			/* hw_idx */
	rec[n++] = 0x1; rec[n++] = 0x2; rec[n++] = 0x3;
	rec[n++] = 2;			/* regs abi: 64-bit */
	rec[n++] = 10; rec[n++] = 11; rec[n++] = 12;
	rec[n++] = 16;			/* stack: size */
	rec[n++] = 0xaaaa; rec[n++] = 0xbbbb;
	rec[n++] = 8;			/* dyn_size */
	rec[n++] = 77;			/* weight */
	rec[n++] = 0x1234;		/* data_src */
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = n * 8;
	CHECK_EQ_INT(parse_as(&a, h, &s), 0);
	CHECK_EQ_U64(s.id, 99);
	CHECK_EQ_U64(s.ip, 0x401000);
	CHECK_EQ_INT(s.pid, 7);
	CHECK_EQ_INT(s.tid, 8);
	CHECK_EQ_U64(s.time, 123456);
	CHECK_EQ_U64(s.addr, 0xdada);
	CHECK_EQ_U64(s.stream_id, 55);
	CHECK_EQ_INT(s.cpu, 2);
	CHECK_EQ_U64(s.period, 4000);
	CHECK_EQ_INT(s.read_size, 7 * 8);
	CHECK_EQ_U64(s.callchain_nr, 3);
	CHECK_EQ_U64(s.callchain[2], 0x402000);
	CHECK_EQ_INT(s.raw_size, 12);
	CHECK(s.raw && !memcmp(s.raw, "abcdefghijkl", 12));
	CHECK_EQ_U64(s.branch_nr, 1);
	CHECK_EQ_U64(s.branch_hw_idx, 5);
	CHECK_EQ_U64(s.branches[0].to, 2);
	CHECK_EQ_U64(s.regs_user_abi, 2);
	CHECK_EQ_U64(s.regs_user[2], 12);
	CHECK_EQ_U64(s.stack_user_size, 16);
	CHECK_EQ_U64(s.stack_user_dyn_size, 8);
	CHECK_EQ_U64(s.weight, 77);
	CHECK_EQ_U64(s.data_src, 0x1234);
	/* one byte short anywhere: an error, never a read past the record */
	for (size_t cut = 1; cut < n; cut++) {
		h->size = cut * 8;
		CHECK(parse_as(&a, h, &s) < 0);
	}
	/* regs with abi 0 (none) have no values; a stack of size 0 no data */
	memset(&a.attr, 0, sizeof(a.attr));
	a.attr.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_IP;
	a.attr.sample_regs_user = 0xff;
	rec[1] = 0x10;
	rec[2] = 0;
	rec[3] = 0;
	h->size = 4 * 8;
	CHECK_EQ_INT(parse_as(&a, h, &s), 0);
	CHECK(s.regs_user == NULL);
	CHECK(s.stack_user == NULL);
	/* without PERIOD: the attr's period */
	a.attr.sample_type = PERF_SAMPLE_IP;
	a.attr.sample_period = 250000;
	h->size = 16;
	CHECK_EQ_INT(parse_as(&a, h, &s), 0);
	CHECK_EQ_U64(s.period, 250000);
}

/* ------------------------------------------------------------- writer */

static void write_some(struct perf_data_writer *w)
{
	struct perf_event_attr attr = { 0 };
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time, period;
	} s = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) }, 0x1234, 7, 8, 99, 5 };
	uint64_t ids[2] = { 41, 42 };

	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.size = sizeof(attr);
	attr.sample_period = 5;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	attr.sample_id_all = 1;
	CHECK_EQ_INT(perf_data_writer_add_attr(w, &attr, "my-event", ids, 2), 0);
	CHECK_EQ_INT(perf_data_writer_add_feature_string(w, HEADER_HOSTNAME, "testhost"), 0);
	CHECK_EQ_INT(perf_data_writer_write(w, &s), 0);
	s.ip = 0x5678;
	CHECK_EQ_INT(perf_data_writer_write(w, &s), 0);
	/* no attr after the first record, no record of a size not a multiple of 8 */
	CHECK(perf_data_writer_add_attr(w, &attr, NULL, NULL, 0) < 0);
	s.h.size = 12;
	CHECK(perf_data_writer_write(w, &s) < 0);
	CHECK_EQ_INT(perf_data_writer_add_feature_string(w, HEADER_ARCH, "x86_64"), 0);
}

static void check_written(struct perf_data *d)
{
	const struct perf_event_header *h;
	uint64_t ips[2];
	int n = 0, ret;
	char *s;

	while ((ret = perf_data_next(d, &h)) > 0) {
		struct perf_sample smp;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		CHECK_EQ_INT(perf_sample_parse(&perf_data_attr_of(d, h)->layout, h, &smp), 0);
		if (n < 2)
			ips[n] = smp.ip;
		n++;
		CHECK_EQ_INT(smp.pid, 7);
		CHECK_EQ_INT(smp.period, 5);
	}
	CHECK_EQ_INT(ret, 0);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_U64(ips[0], 0x1234);
	CHECK_EQ_U64(ips[1], 0x5678);
	CHECK_EQ_INT(perf_data_nr_attrs(d), 1);
	CHECK_EQ_STR(perf_data_attr(d, 0)->name, "my-event");
	CHECK_EQ_INT(perf_data_attr(d, 0)->nr_ids, 2);
	s = perf_data_feature_string(d, HEADER_HOSTNAME);
	CHECK_EQ_STR(s, "testhost");
	free(s);
	s = perf_data_feature_string(d, HEADER_ARCH);
	CHECK_EQ_STR(s, "x86_64");
	free(s);
}

static void test_writer_file_round_trip(void)
{
	char dir[] = "/tmp/sbx-test-XXXXXX", path[64];
	struct perf_data_writer *w;
	struct perf_data *d;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/out.data", dir);
	CHECK_EQ_INT(perf_data_writer_open(path, &w), 0);
	write_some(w);
	/* nothing at the target until close */
	CHECK(access(path, F_OK) != 0);
	CHECK_EQ_INT(perf_data_writer_close(w), 0);
	CHECK_EQ_INT(perf_data_open(path, &d), 0);
	check_written(d);
	perf_data_close(d);
	unlink(path);

	/* abort leaves nothing behind */
	CHECK_EQ_INT(perf_data_writer_open(path, &w), 0);
	write_some(w);
	perf_data_writer_abort(w);
	CHECK(access(path, F_OK) != 0);
	CHECK_EQ_INT(rmdir(dir), 0);	/* fails if a temp file was left */
}

static void test_writer_pipe_round_trip(void)
{
	char path[] = "/tmp/sbx-test-pipe-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
	struct perf_data_writer *w;
	struct perf_data *d;

	CHECK(fd >= 0);
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	CHECK_EQ_INT(perf_data_writer_open("-", &w), 0);
	write_some(w);
	CHECK_EQ_INT(perf_data_writer_close(w), 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	CHECK_EQ_INT(perf_data_open(path, &d), 0);
	CHECK(perf_data_is_pipe(d));
	check_written(d);
	perf_data_close(d);
	unlink(path);
}

/* --------------------------------------------- perf record -z (zstd) */

/*
 * A perf record -z input built here: the fixture's records (reps times) in
 * one zstd stream, flushed every chunk bytes into its own COMPRESSED
 * record (COMPRESSED2 every other one), so that records straddle
 * COMPRESSED records and COMPRESSED records sit at odd offsets, as perf
 * writes them; HEADER_COMPRESSED (zstd, mmap_len) as a feature section or,
 * in pipe mode, a HEADER_FEATURE record.
 */
struct zopts {
	bool be, pipe;
	int reps;
	size_t chunk;
	uint32_t mmap_len;
	bool no_feature;
	bool garbage;		/* the first COMPRESSED record holds no zstd frame */
	size_t drop;		/* leave out the last drop COMPRESSED records */
};

static void put_compressed_feature(struct buf *b, uint32_t mmap_len)
{
	put_u32(b, 0);		/* version */
	put_u32(b, 1);		/* type: zstd */
	put_u32(b, 1);		/* level */
	put_u32(b, 8);		/* ratio */
	put_u32(b, mmap_len);
}

static size_t put_zstd_records(struct buf *b, const struct zopts *o)
{
	struct buf inner = { .be = o->be };
	ZSTD_CStream *z = ZSTD_createCStream();
	size_t nr = 0, total, max = ZSTD_compressBound(o->chunk) + 64;
	uint8_t *out = malloc(max);

	for (int i = 0; i < o->reps; i++)
		put_records(&inner);
	ZSTD_initCStream(z, 1);
	total = (inner.len + o->chunk - 1) / o->chunk;
	for (size_t off = 0; off < inner.len; off += o->chunk, nr++) {
		size_t n = inner.len - off < o->chunk ? inner.len - off : o->chunk;
		ZSTD_inBuffer in = { inner.p + off, n, 0 };
		ZSTD_outBuffer ob = { out, max, 0 };
		size_t at;

		/* flushed, never ended: the stream goes on, as perf's does */
		while (ZSTD_compressStream2(z, &ob, &in, ZSTD_e_flush) != 0)
			;
		if (nr == 0 && o->garbage)
			memset(out, 0xa5, ob.pos);
		if (nr >= total - o->drop)
			continue;
		if (nr % 2 == 0) {
			at = begin_rec(b, PERF_RECORD_COMPRESSED, 0);
			put(b, out, ob.pos);
		} else {
			at = begin_rec(b, PERF_RECORD_COMPRESSED2, 0);
			put_u64(b, ob.pos);
			put(b, out, ob.pos);
			put_zeros(b, (8 - ob.pos % 8) % 8);
		}
		end_rec(b, at);
	}
	ZSTD_freeCStream(z);
	free(out);
	free(inner.p);
	return nr - o->drop;
}

static struct buf make_zstd(const struct zopts *o, size_t *nr_compressed)
{
	struct buf b = { .be = o->be };
	size_t at, attrs, data, table;

	put_u64(&b, PERF_MAGIC);
	if (o->pipe) {
		put_u64(&b, 16);
		at = begin_rec(&b, PERF_RECORD_HEADER_ATTR, 0);
		put_attr(&b, SAMPLE_TYPE);
		end_rec(&b, at);
		if (!o->no_feature) {
			at = begin_rec(&b, PERF_RECORD_HEADER_FEATURE, 0);
			put_u64(&b, HEADER_COMPRESSED);
			put_compressed_feature(&b, o->mmap_len);
			end_rec(&b, at);	/* 36 bytes, as perf writes it */
		}
		*nr_compressed = put_zstd_records(&b, o);
		return b;
	}
	put_u64(&b, 104);
	put_u64(&b, 128 + 16);
	put_zeros(&b, 104 - 24);
	attrs = b.len;
	put_attr(&b, SAMPLE_TYPE);
	put_u64(&b, 0);
	put_u64(&b, 0);
	data = b.len;
	*nr_compressed = put_zstd_records(&b, o);
	set_u64(&b, 24, attrs);
	set_u64(&b, 32, 128 + 16);
	set_u64(&b, 40, data);
	set_u64(&b, 48, b.len - data);
	if (!o->no_feature) {
		set_u64(&b, 72, 1ULL << HEADER_COMPRESSED);
		table = b.len;
		put_u64(&b, table + 16);
		put_u64(&b, 20);
		put_compressed_feature(&b, o->mmap_len);
	}
	return b;
}

static void test_zstd_both_modes_both_orders(void)
{
	for (int pipe = 0; pipe < 2; pipe++)
		for (int be = 0; be < 2; be++) {
			struct zopts o = { .be = be, .pipe = pipe, .reps = 1, .chunk = 50,
					   .mmap_len = 4096 };
			size_t nr;
			struct buf b = make_zstd(&o, &nr);
			struct perf_data *d;

			CHECK(nr > 5);	/* records straddle COMPRESSED records */
			CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
			CHECK_EQ_INT(perf_data_is_pipe(d), pipe);
			CHECK_EQ_INT(perf_data_needs_swap(d), be);
			/* decompressed records live in a buffer that is refilled */
			CHECK(!perf_data_records_stable(d));
			check_fixture(d);
			CHECK_EQ_U64(perf_data_nr_compressed(d), nr);
			perf_data_close(d);
			free(b.p);
		}
}

static void test_zstd_chunk_sizes(void)
{
	/* one COMPRESSED record for everything, and records cut at every size */
	static const size_t chunks[] = { 1, 7, 8, 64, 100000 };

	for (size_t i = 0; i < sizeof(chunks) / sizeof(*chunks); i++) {
		struct zopts o = { .reps = 1, .chunk = chunks[i], .mmap_len = 4096 };
		size_t nr;
		struct buf b = make_zstd(&o, &nr);
		struct perf_data *d;

		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		check_fixture(d);
		perf_data_close(d);
		free(b.p);
	}
}

/* Read to the end; the number of records before the error or the end. */
static int read_all(struct perf_data *d, int *ret)
{
	const struct perf_event_header *h;
	int n = 0;

	while ((*ret = perf_data_next(d, &h)) > 0)
		n++;
	return n;
}

static void test_zstd_bad(void)
{
	struct perf_data *d;
	struct buf b;
	size_t nr;
	int ret, n;

	/* the first COMPRESSED record holds no zstd frame */
	for (int pipe = 0; pipe < 2; pipe++) {
		struct zopts o = { .pipe = pipe, .reps = 1, .chunk = 50, .mmap_len = 4096,
				   .garbage = true };

		b = make_zstd(&o, &nr);
		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		n = read_all(d, &ret);
		CHECK_EQ_INT(ret, -EINVAL);
		CHECK(strstr(sbx_error_msg(), "corrupt zstd data") != NULL);
		CHECK_EQ_INT(n, pipe ? 2 : 0);	/* pipe: HEADER_ATTR, HEADER_FEATURE */
		perf_data_close(d);
		free(b.p);
	}

	/* the stream stops inside the last record: what came before, then an error */
	for (int be = 0; be < 2; be++) {
		struct zopts o = { .be = be, .reps = 1, .chunk = 50, .mmap_len = 4096, .drop = 1 };

		b = make_zstd(&o, &nr);
		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		n = read_all(d, &ret);
		CHECK_EQ_INT(ret, -EINVAL);
		CHECK(strstr(sbx_error_msg(), "ends inside a record") != NULL);
		CHECK_EQ_INT(n, 6);	/* all but the last MMAP2 */
		CHECK_EQ_INT(perf_data_next(d, &(const struct perf_event_header *){ 0 }), 0);
		perf_data_close(d);
		free(b.p);
	}

	/* COMPRESSED records without HEADER_COMPRESSED */
	for (int pipe = 0; pipe < 2; pipe++) {
		struct zopts o = { .pipe = pipe, .reps = 1, .chunk = 50, .no_feature = true };

		b = make_zstd(&o, &nr);
		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		CHECK_EQ_INT(perf_data_records_stable(d), !pipe);
		read_all(d, &ret);
		CHECK_EQ_INT(ret, -EINVAL);
		CHECK(strstr(sbx_error_msg(), "no HEADER_COMPRESSED") != NULL);
		perf_data_close(d);
		free(b.p);
	}

	/* a record that gives far more than mmap_len: refused, not allocated */
	{
		struct zopts o = { .reps = 600, .chunk = 1 << 20, .mmap_len = 16 };

		b = make_zstd(&o, &nr);
		CHECK_EQ_INT(nr, 1);
		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		read_all(d, &ret);
		CHECK_EQ_INT(ret, -EINVAL);
		CHECK(strstr(sbx_error_msg(), "more than 131104 bytes") != NULL);
		perf_data_close(d);
		free(b.p);
		/* the same with room for it reads every record */
		o.mmap_len = 1 << 20;
		b = make_zstd(&o, &nr);
		CHECK_EQ_INT(perf_data_open_mem(b.p, b.len, &d), 0);
		CHECK_EQ_INT(read_all(d, &ret), 600 * 7);
		CHECK_EQ_INT(ret, 0);
		perf_data_close(d);
		free(b.p);
	}

	/* every byte of the data flipped in turn: an error or records, never a crash */
	{
		struct zopts o = { .reps = 1, .chunk = 50, .mmap_len = 4096 };
		size_t data, end, errors = 0;

		b = make_zstd(&o, &nr);
		memcpy(&data, b.p + 40, 8);
		memcpy(&end, b.p + 48, 8);
		end += data;
		for (size_t i = data; i < end; i++) {
			b.p[i] ^= 0xff;
			if (perf_data_open_mem(b.p, b.len, &d) == 0) {
				read_all(d, &ret);
				if (ret < 0) {
					errors++;
					CHECK(strlen(sbx_error_msg()) > 10);
					CHECK(strchr(sbx_error_msg(), '\n') == NULL);
				}
				perf_data_close(d);
			}
			b.p[i] ^= 0xff;
		}
		CHECK(errors > 0);
		free(b.p);
	}
}

/* ------------------------------------------------ pages given back */

struct release_ctx {
	const struct perf_event_header *first;
	uint64_t first_ip, samples, bad;
};

static int release_cb(void *ctx, const struct perf_event_header *rec,
		      const struct perf_data_attr *attr, const struct perf_sample *sample)
{
	struct release_ctx *c = ctx;

	(void)attr;
	if (rec->type != PERF_RECORD_SAMPLE)
		return 0;
	if (!c->first) {
		c->first = rec;
		c->first_ip = sample->ip;
	}
	c->bad += sample->ip != 0x1000 + c->samples;
	c->samples++;
	return 0;
}

/* Rss (KiB) of the mapping holding p, from /proc/self/smaps; -1 if not found. */
static long rss_of_mapping(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	long rss = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
			break;
	}
	fclose(f);
	return rss;
}

static void test_release_behind_rounds(void)
{
	char dir[] = "/tmp/sbx-test-XXXXXX", path[64];
	struct perf_event_attr attr = { 0 };
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time, period;
	} s = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) }, 0, 7, 7, 0, 1 };
	struct perf_event_header round = { PERF_RECORD_FINISHED_ROUND, 0, 8 };
	const uint64_t n = 200000;	/* 8 MB of samples, rounds of 1000 */
	struct release_ctx c = { 0 };
	struct perf_data_writer *w;
	struct perf_data *d;
	struct session *ss;
	long rss;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/big.data", dir);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.size = sizeof(attr);
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	attr.sample_id_all = 1;
	CHECK_EQ_INT(perf_data_writer_open(path, &w), 0);
	CHECK_EQ_INT(perf_data_writer_add_attr(w, &attr, "e", NULL, 0), 0);
	for (uint64_t i = 0; i < n; i++) {
		s.ip = 0x1000 + i;
		s.time = 1000 + i;
		CHECK_EQ_INT(perf_data_writer_write(w, &s), 0);
		if (i % 1000 == 999)
			CHECK_EQ_INT(perf_data_writer_write(w, &round), 0);
	}
	CHECK_EQ_INT(perf_data_writer_close(w), 0);
	CHECK_EQ_INT(perf_data_open(path, &d), 0);
	ss = session_new(d);
	CHECK(ss != NULL);
	CHECK_EQ_INT(session_run(ss, release_cb, &c), 0);
	CHECK_EQ_U64(c.samples, n);
	CHECK_EQ_U64(c.bad, 0);
	/* most of the 8 MB were given back; what was handed out reads the same */
	rss = rss_of_mapping(c.first);
	CHECK(rss >= 0 && rss < 1024);
	CHECK(c.first->type == PERF_RECORD_SAMPLE && c.first->size == sizeof(s));
	CHECK_EQ_U64(((const uint64_t *)c.first)[1], c.first_ip);
	session_free(ss);
	perf_data_close(d);
	unlink(path);
	rmdir(dir);
}

static const struct unit_test tests[] = {
	TEST(test_file_mode),
	TEST(test_byte_swapped_file),
	TEST(test_fixed_parts_both_orders),
	TEST(test_pipe_mode_both_orders),
	TEST(test_pipe_stream_from_fd),
	TEST(test_truncated),
	TEST(test_bad_headers),
	TEST(test_sample_bounds),
	TEST(test_sample_all_fields),
	TEST(test_writer_file_round_trip),
	TEST(test_writer_pipe_round_trip),
	TEST(test_zstd_both_modes_both_orders),
	TEST(test_zstd_chunk_sizes),
	TEST(test_zstd_bad),
	TEST(test_release_behind_rounds),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
