// SPDX-License-Identifier: MIT
/*
 * perf/records and perf/sample: every encoder's record parses back to what
 * was encoded, with the trailer of a recording's layout and of a file's
 * (IDENTIFIER, STREAM_ID: another order); a record cut anywhere is refused;
 * the MMAP2 build-id form; build-id entries of both byte orders.
 */
#include <byteswap.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"
#include "perf/perf-data.h"
#include "perf/records.h"
#include "perf/sample.h"

static union {
	struct perf_event_header h;
	uint64_t q[512];
} u;
#define buf (u.q)

static void layouts(struct perf_sample_layout *rec, struct perf_sample_layout *file)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_id_all = 1 };

	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD;
	perf_sample_layout_init(rec, &a);
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU;
	perf_sample_layout_init(file, &a);
}

/* The trailer of rec read back with l equals id's fields. */
static void check_trailer(const struct perf_sample_layout *l, const void *rec,
			  const struct perf_sample *id)
{
	struct perf_sample s;

	CHECK_EQ_INT(perf_sample_parse(l, rec, &s), 0);
	CHECK_EQ_INT(s.pid, id->pid);
	CHECK_EQ_INT(s.tid, id->tid);
	CHECK_EQ_U64(s.time, id->time);
	CHECK_EQ_INT(s.cpu, id->cpu);
	if (l->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		CHECK_EQ_U64(s.id, id->id);
	if (l->sample_type & PERF_SAMPLE_STREAM_ID)
		CHECK_EQ_U64(s.stream_id, id->stream_id);
}

/* Every shorter size of rec is refused by parse (which must not read past it). */
static void check_cuts(const void *rec, int (*parse)(const struct perf_event_header *, void *),
		       size_t fixed)
{
	static union {
		struct perf_event_header h;
		uint64_t q[512];
	} copy;
	int ok = 1;

	for (size_t size = 8; size < fixed; size += 8) {
		memcpy(copy.q, rec, size);
		copy.h.size = (uint16_t)size;
		ok &= parse(&copy.h, buf + 256) == -EINVAL;
	}
	CHECK(ok);
}

static int parse_mmap_any(const struct perf_event_header *r, void *out)
{
	return perf_rec_parse_mmap(r, out);
}

static int parse_comm_any(const struct perf_event_header *r, void *out)
{
	return perf_rec_parse_comm(r, out);
}

static int parse_task_any(const struct perf_event_header *r, void *out)
{
	return perf_rec_parse_task(r, out);
}

static void test_mmap_round_trip(void)
{
	struct perf_sample_layout lr, lf;
	const struct perf_sample_layout *ls[] = { &lr, &lf };
	struct perf_sample id = { .pid = 7, .tid = 8, .time = 123456789, .cpu = 1, .id = 42,
				  .stream_id = 43 };
	struct perf_rec_mmap m = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true, .pid = 7,
				   .tid = 8, .start = 0x555500001000, .len = 0x2000,
				   .pgoff = 0x1000, .maj = 8, .min = 1, .ino = 1234,
				   .ino_generation = 5, .prot = PROT_READ | PROT_EXEC,
				   .flags = MAP_PRIVATE, .filename = "/usr/bin/true" };
	struct perf_rec_mmap back;
	int n;

	layouts(&lr, &lf);
	for (int i = 0; i < 2; i++) {
		n = perf_rec_encode_mmap(buf, sizeof(buf), &m, ls[i], &id);
		/* header 8, body 64, "/usr/bin/true\0" padded to 16, trailer */
		CHECK_EQ_INT(n, 8 + 64 + 16 + (int)ls[i]->id_size);
		CHECK_EQ_INT(perf_rec_parse_mmap((void *)buf, &back), 0);
		CHECK(back.mmap2);
		CHECK_EQ_INT(back.pid, 7);
		CHECK_EQ_INT(back.tid, 8);
		CHECK_EQ_U64(back.start, m.start);
		CHECK_EQ_U64(back.len, m.len);
		CHECK_EQ_U64(back.pgoff, m.pgoff);
		CHECK_EQ_INT(back.maj, 8);
		CHECK_EQ_INT(back.min, 1);
		CHECK_EQ_U64(back.ino, 1234);
		CHECK_EQ_U64(back.ino_generation, 5);
		CHECK_EQ_INT(back.prot, PROT_READ | PROT_EXEC);
		CHECK_EQ_INT(back.flags, MAP_PRIVATE);
		CHECK_EQ_INT(back.build_id_size, 0);
		CHECK_EQ_STR(back.filename, "/usr/bin/true");
		CHECK(perf_rec_mmap_is_exec(&back));
		check_trailer(ls[i], buf, &id);
	}
	check_cuts(buf, parse_mmap_any, 8 + 64 + 8);
	/* the build-id form */
	m.build_id_size = 20;
	for (int i = 0; i < 20; i++)
		m.build_id[i] = (uint8_t)(0xa0 + i);
	CHECK(perf_rec_encode_mmap(buf, sizeof(buf), &m, &lr, &id) > 0);
	CHECK(u.h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID);
	CHECK_EQ_INT(perf_rec_parse_mmap((void *)buf, &back), 0);
	CHECK_EQ_INT(back.build_id_size, 20);
	CHECK(!memcmp(back.build_id, m.build_id, 20));
	CHECK_EQ_INT(back.ino, 0);
	CHECK_EQ_INT(back.prot, PROT_READ | PROT_EXEC);
	CHECK_EQ_STR(back.filename, "/usr/bin/true");
	/* MMAP: a kernel map without a trailer; no MMAP2 fields */
	m = (struct perf_rec_mmap){ .misc = PERF_RECORD_MISC_KERNEL, .pid = (uint32_t)-1,
				    .start = 0xffffffff81000000ULL, .len = 0x1000000,
				    .pgoff = 0xffffffff81000000ULL, .filename = "[kernel.kallsyms]_text" };
	n = perf_rec_encode_mmap(buf, sizeof(buf), &m, NULL, NULL);
	CHECK_EQ_INT(n, 8 + 32 + 24);
	CHECK_EQ_INT(perf_rec_parse_mmap((void *)buf, &back), 0);
	CHECK(!back.mmap2);
	CHECK_EQ_INT(back.pid, (uint32_t)-1);
	CHECK_EQ_U64(back.start, 0xffffffff81000000ULL);
	CHECK_EQ_STR(back.filename, "[kernel.kallsyms]_text");
	CHECK(perf_rec_mmap_is_exec(&back));
	check_cuts(buf, parse_mmap_any, 8 + 32 + 8);
	/* a filename without its NUL inside the record */
	memset((char *)buf + 40, 'x', 24);
	CHECK_EQ_INT(perf_rec_parse_mmap((void *)buf, &back), -EINVAL);
	/* too big for the buffer */
	CHECK_EQ_INT(perf_rec_encode_mmap(buf, 48, &m, NULL, NULL), -ENOSPC);
}

static void test_comm_task_round_trip(void)
{
	struct perf_sample_layout lr, lf;
	struct perf_sample id = { .pid = 7, .tid = 9, .cpu = 3, .id = 1, .stream_id = 2 };
	struct perf_rec_comm c = { .misc = PERF_RECORD_MISC_COMM_EXEC, .pid = 7, .tid = 9,
				   .comm = "a-comm-of-15ch" }, cb;
	struct perf_rec_task t = { .pid = 10, .ppid = 7, .tid = 11, .ptid = 9, .time = 99 }, tb;
	struct perf_rec_lost_samples ls = { 12345 }, lsb;

	layouts(&lr, &lf);
	CHECK_EQ_INT(perf_rec_encode_comm(buf, sizeof(buf), &c, &lf, &id), 8 + 8 + 16 + 48);
	CHECK_EQ_INT(perf_rec_parse_comm((void *)buf, &cb), 0);
	CHECK_EQ_INT(cb.pid, 7);
	CHECK_EQ_INT(cb.tid, 9);
	CHECK(cb.misc & PERF_RECORD_MISC_COMM_EXEC);
	CHECK_EQ_STR(cb.comm, "a-comm-of-15ch");
	check_trailer(&lf, buf, &id);
	check_cuts(buf, parse_comm_any, 8 + 8 + 8);

	for (int type = PERF_RECORD_EXIT; type <= PERF_RECORD_FORK; type += 3) {
		CHECK_EQ_INT(perf_rec_encode_task(buf, sizeof(buf), type, &t, &lr, &id),
			     8 + 24 + 24);
		CHECK_EQ_INT(u.h.type, type);
		CHECK_EQ_INT(perf_rec_parse_task((void *)buf, &tb), 0);
		CHECK_EQ_INT(tb.pid, 10);
		CHECK_EQ_INT(tb.ppid, 7);
		CHECK_EQ_INT(tb.tid, 11);
		CHECK_EQ_INT(tb.ptid, 9);
		CHECK_EQ_U64(tb.time, 99);
		check_trailer(&lr, buf, &id);
	}
	check_cuts(buf, parse_task_any, 8 + 24);

	CHECK_EQ_INT(perf_rec_encode_lost_samples(buf, sizeof(buf), &ls, &lr, &id), 8 + 8 + 24);
	CHECK_EQ_INT(perf_rec_parse_lost_samples((void *)buf, &lsb), 0);
	CHECK_EQ_U64(lsb.lost, 12345);
	check_trailer(&lr, buf, &id);
}

/* Records the kernel writes that sbx only reads: built by hand here. */
static void test_kernel_only_records(void)
{
	struct perf_event_header *h = &u.h;
	struct perf_rec_lost lost;
	struct perf_rec_throttle th;
	struct perf_rec_read rd;
	struct perf_rec_switch sw;
	struct perf_rec_ksymbol ks;
	struct perf_rec_time_conv tc;

	memset(buf, 0, sizeof(buf));
	*h = (struct perf_event_header){ PERF_RECORD_LOST, 0, 8 + 16 };
	buf[1] = 5;
	buf[2] = 1000;
	CHECK_EQ_INT(perf_rec_parse_lost(h, &lost), 0);
	CHECK_EQ_U64(lost.id, 5);
	CHECK_EQ_U64(lost.lost, 1000);
	h->size = 16;
	CHECK_EQ_INT(perf_rec_parse_lost(h, &lost), -EINVAL);

	/* READ: perf's fixed struct, what the record holds of it */
	memset(buf, 0, sizeof(buf));
	*h = (struct perf_event_header){ PERF_RECORD_READ, 0, 8 + 8 + 16 };
	buf[1] = 42ULL << 32 | 41;	/* pid 41, tid 42 */
	buf[2] = 123;
	buf[3] = 456;
	CHECK_EQ_INT(perf_rec_parse_read(h, &rd), 0);
	CHECK_EQ_INT(rd.pid, 41);
	CHECK_EQ_INT(rd.tid, 42);
	CHECK_EQ_U64(rd.value, 123);
	CHECK_EQ_U64(rd.time_enabled, 456);
	CHECK_EQ_U64(rd.time_running, 0);
	CHECK_EQ_INT(rd.nr, 2);
	h->size = 8 + 8;
	CHECK_EQ_INT(perf_rec_parse_read(h, &rd), 0);
	CHECK_EQ_INT(rd.nr, 0);
	h->size = 8 + 4;
	CHECK_EQ_INT(perf_rec_parse_read(h, &rd), -EINVAL);

	memset(buf, 0, sizeof(buf));
	*h = (struct perf_event_header){ PERF_RECORD_THROTTLE, 0, 8 + 24 };
	buf[1] = 77;
	buf[2] = 5;
	buf[3] = 6;
	CHECK_EQ_INT(perf_rec_parse_throttle(h, &th), 0);
	CHECK_EQ_U64(th.time, 77);
	CHECK_EQ_U64(th.stream_id, 6);

	*h = (struct perf_event_header){ PERF_RECORD_SWITCH_CPU_WIDE,
					 PERF_RECORD_MISC_SWITCH_OUT |
					 PERF_RECORD_MISC_SWITCH_OUT_PREEMPT, 8 + 8 };
	buf[1] = 300 | 301ULL << 32;
	CHECK_EQ_INT(perf_rec_parse_switch(h, &sw), 0);
	CHECK(sw.out && sw.preempt && sw.cpu_wide);
	CHECK_EQ_INT(sw.next_prev_pid, 300);
	CHECK_EQ_INT(sw.next_prev_tid, 301);
	h->size = 8;
	CHECK_EQ_INT(perf_rec_parse_switch(h, &sw), -EINVAL);
	h->type = PERF_RECORD_SWITCH;
	h->misc = 0;
	CHECK_EQ_INT(perf_rec_parse_switch(h, &sw), 0);
	CHECK(!sw.out && !sw.cpu_wide);

	memset(buf, 0, 64);
	*h = (struct perf_event_header){ PERF_RECORD_KSYMBOL, 0, 8 + 16 + 16 };
	buf[1] = 0xffffffffc0001000ULL;
	buf[2] = 0x80 | (uint64_t)PERF_RECORD_KSYMBOL_TYPE_BPF << 32 |
		 (uint64_t)PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER << 48;
	memcpy(&buf[3], "bpf_prog_1", 11);
	CHECK_EQ_INT(perf_rec_parse_ksymbol(h, &ks), 0);
	CHECK_EQ_U64(ks.addr, 0xffffffffc0001000ULL);
	CHECK_EQ_INT(ks.len, 0x80);
	CHECK_EQ_INT(ks.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
	CHECK_EQ_INT(ks.flags, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
	CHECK_EQ_STR(ks.name, "bpf_prog_1");

	memset(buf, 0, 64);
	*h = (struct perf_event_header){ PERF_RECORD_TIME_CONV, 0, 8 + 24 };
	buf[1] = 10;
	buf[2] = 0x12345;
	buf[3] = 999;
	CHECK_EQ_INT(perf_rec_parse_time_conv(h, &tc), 0);
	CHECK(!tc.ext);
	CHECK_EQ_U64(tc.time_mult, 0x12345);
	h->size = 8 + 48;
	buf[4] = 1;
	buf[5] = ~0ULL;
	buf[6] = 1;	/* cap_user_time_zero */
	CHECK_EQ_INT(perf_rec_parse_time_conv(h, &tc), 0);
	CHECK(tc.ext && tc.cap_user_time_zero && !tc.cap_user_time_short);
	CHECK_EQ_U64(tc.time_mask, ~0ULL);
	h->size = 16;
	CHECK_EQ_INT(perf_rec_parse_time_conv(h, &tc), -EINVAL);
}

static void test_build_id_entries(void)
{
	struct perf_rec_build_id e = { .misc = PERF_RECORD_MISC_USER, .pid = -1, .size = 20,
				       .filename = "/usr/lib/libc.so.6" }, back;
	uint8_t swapped[128];
	int n;

	for (int i = 0; i < 20; i++)
		e.build_id[i] = (uint8_t)i;
	n = perf_rec_encode_build_id(buf, sizeof(buf), &e);
	CHECK_EQ_INT(n, 36 + 24);
	CHECK_EQ_INT(perf_rec_parse_build_id(buf, (size_t)n, false, &back), n);
	CHECK_EQ_INT(back.pid, -1);
	CHECK_EQ_INT(back.size, 20);
	CHECK(back.misc & PERF_RECORD_MISC_BUILD_ID_SIZE);
	CHECK(!memcmp(back.build_id, e.build_id, 20));
	CHECK_EQ_STR(back.filename, "/usr/lib/libc.so.6");
	/* cut, or longer than what is there: the end of a walk */
	CHECK_EQ_INT(perf_rec_parse_build_id(buf, (size_t)n - 8, false, &back), 0);
	CHECK_EQ_INT(perf_rec_parse_build_id(buf, 30, false, &back), 0);
	/* the other byte order: header fields and pid swapped, the rest as it is */
	memcpy(swapped, buf, (size_t)n);
	{
		struct perf_event_header h;
		uint32_t pid;

		memcpy(&h, swapped, 8);
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
		memcpy(swapped, &h, 8);
		memcpy(&pid, swapped + 8, 4);
		pid = bswap_32(pid);
		memcpy(swapped + 8, &pid, 4);
	}
	CHECK_EQ_INT(perf_rec_parse_build_id(swapped, (size_t)n, true, &back), n);
	CHECK_EQ_INT(back.pid, -1);
	CHECK_EQ_INT(back.size, 20);
	CHECK_EQ_STR(back.filename, "/usr/lib/libc.so.6");
	/* an old entry without MISC_BUILD_ID_SIZE: a 20-byte id */
	u.h.misc = PERF_RECORD_MISC_USER;
	((uint8_t *)buf)[32] = 4;
	CHECK_EQ_INT(perf_rec_parse_build_id(buf, (size_t)n, false, &back), n);
	CHECK_EQ_INT(back.size, 20);
}

static const struct unit_test tests[] = {
	TEST(test_mmap_round_trip),
	TEST(test_comm_task_round_trip),
	TEST(test_kernel_only_records),
	TEST(test_build_id_entries),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
