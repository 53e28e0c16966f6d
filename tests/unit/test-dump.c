// SPDX-License-Identifier: MIT
/*
 * perf's raw trace dump (perf/dump.h) on records built here, for what no
 * machine without LBR records: an LBR call stack (the call chain the kernel
 * gives plus the branch stack), page sizes, a CPU map as a bit mask. The
 * expected texts follow perf 6.1's dump_sample(), callchain__lbr_callstack_
 * printf(), branch_stack__printf() and cpu_map__snprint(); the bytes of
 * records perf recorded here are judged by perf itself in tests/34-dump.bats.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "perf/dump.h"
#include "perf/perf-data.h"
#include "perf/perf-data-write.h"
#include "perf/sample.h"

#define LBR_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | \
		  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_DATA_PAGE_SIZE | \
		  PERF_SAMPLE_CODE_PAGE_SIZE)

/* The dump of each record of d, into one string (caller frees). */
static char *dump_all(struct perf_data *d, bool script)
{
	const struct perf_event_header *rec;
	struct perf_dump pd;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	perf_dump_init(&pd, f, d, "t.data", script);
	while (perf_data_next(d, &rec) > 0) {
		const struct perf_data_attr *attr = perf_data_attr_of(d, rec);
		struct perf_sample s;

		memset(&s, 0, sizeof(s));
		if (rec->type < PERF_RECORD_USER_TYPE_START)
			CHECK_EQ_INT(perf_sample_parse(&attr->layout, rec, &s), 0);
		perf_dump_record(&pd, (int64_t)perf_data_last_offset(d), rec, attr, &s);
	}
	fclose(f);
	return text;
}

static void test_lbr_call_stack(void)
{
	char path[] = "/tmp/sbx-dump-XXXXXX";
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(attr), .sample_period = 1000,
		.sample_type = LBR_TYPE, .sample_id_all = 1,
		.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK,
	};
	uint64_t rec[64], id = 7;
	uint16_t cpus[12];
	struct perf_data_writer *w;
	struct perf_data *d;
	size_t n = 1;
	char *text;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(perf_data_writer_open(path, &w), 0);
	CHECK_EQ_INT(perf_data_writer_add_attr(w, &attr, "cycles:u", &id, 1), 0);
	/* a SAMPLE: kernel frames, then the user part from the LBR */
	rec[n++] = 0x401010;				/* ip */
	rec[n++] = 42ULL << 32 | 41;			/* pid 41, tid 42 */
	rec[n++] = 5000;				/* time */
	rec[n++] = 4;					/* callchain nr */
	rec[n++] = (uint64_t)PERF_CONTEXT_KERNEL;
	rec[n++] = 0xffffffff81000010ULL;
	rec[n++] = (uint64_t)PERF_CONTEXT_USER;
	rec[n++] = 0x401010;
	rec[n++] = 2;					/* branches */
	rec[n++] = 0x401100;	rec[n++] = 0x401000;	rec[n++] = 0;	/* from, to, flags */
	rec[n++] = 0x401200;	rec[n++] = 0x401080;	rec[n++] = 0;
	rec[n++] = 1024;				/* data page size */
	rec[n++] = 2 << 20;				/* code page size */
	rec[0] = PERF_RECORD_SAMPLE | (uint64_t)PERF_RECORD_MISC_USER << 32 |
		 (uint64_t)(n * 8) << 48;
	CHECK_EQ_INT(perf_data_writer_write(w, rec), 0);
	/* perf's CPU_MAP as a mask of 64-bit words: CPUs 0, 1, 3 and 8-10 */
	memset(cpus, 0, sizeof(cpus));
	cpus[0] = 1;		/* type: mask */
	cpus[1] = 1;		/* nr */
	cpus[2] = 8;		/* long_size */
	cpus[5] = 0x070b;	/* the word, after 4 bytes of padding */
	rec[0] = PERF_RECORD_CPU_MAP | (uint64_t)32 << 48;
	memcpy(&rec[1], cpus, 24);
	CHECK_EQ_INT(perf_data_writer_write(w, rec), 0);
	CHECK_EQ_INT(perf_data_writer_close(w), 0);

	CHECK_EQ_INT(perf_data_open(path, &d), 0);
	text = dump_all(d, false);
	CHECK(strstr(text, "\n0x") != NULL);
	CHECK(strstr(text, "5000 0x") != NULL);	/* the time: the only field of the prefix */
	CHECK(strstr(text, ": PERF_RECORD_SAMPLE(IP, 0x2): 41/42: 0x401010 period: 1000 "
			   "addr: 0\n"
			   "... LBR call chain: nr:6\n"
			   ".....  0: ffffffffffffff80\n"
			   ".....  1: ffffffff81000010\n"
			   ".....  2: fffffffffffffe00\n"
			   ".....  3: 0000000000401000\n"
			   ".....  4: 0000000000401100\n"
			   ".....  5: 0000000000401200\n"
			   "... FP chain: nr:4\n"
			   ".....  0: ffffffffffffff80\n"
			   ".....  1: ffffffff81000010\n"
			   ".....  2: fffffffffffffe00\n"
			   ".....  3: 0000000000401010\n"
			   "... branch callstack: nr:3\n"
			   ".....  0: 0000000000401000\n"
			   ".....  1: 0000000000401100\n"
			   ".....  2: 0000000000401200\n"
			   " .. data page size: 1024B\n"
			   " .. code page size: 2M\n") != NULL);
	CHECK(strstr(text, ": PERF_RECORD_CPU_MAP: 0-1,3,8-10\n: unhandled!\n") != NULL);
	free(text);
	perf_data_close(d);

	/* script's text: no ": unhandled!" after a CPU_MAP */
	CHECK_EQ_INT(perf_data_open(path, &d), 0);
	text = dump_all(d, true);
	CHECK(strstr(text, ": PERF_RECORD_CPU_MAP: 0-1,3,8-10\n") != NULL);
	CHECK(strstr(text, "unhandled") == NULL);
	free(text);
	perf_data_close(d);
	unlink(path);
}

static void test_type_names(void)
{
	CHECK_EQ_STR(perf_dump_type_name(0), "TOTAL");
	CHECK_EQ_STR(perf_dump_type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	CHECK_EQ_STR(perf_dump_type_name(21), "AUX_OUTPUT_HW_ID");
	CHECK_EQ_STR(perf_dump_type_name(22), "UNKNOWN");
	CHECK_EQ_STR(perf_dump_type_name(PERF_RECORD_HEADER_ATTR), "ATTR");
	CHECK_EQ_STR(perf_dump_type_name(PERF_RECORD_FINISHED_INIT), "FINISHED_INIT");
	CHECK_EQ_STR(perf_dump_type_name(PERF_RECORD_COMPRESSED2), "INVALID");
}

static const struct unit_test tests[] = {
	TEST(test_lbr_call_stack),
	TEST(test_type_names),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
