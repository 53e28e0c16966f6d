// SPDX-License-Identifier: MIT
/*
 * lib/perf/stat on records made by hand: the rows of a per-CPU mode (what
 * changed since the round before, scaled to the whole time), a count too
 * big to scale, and hostile records (before the maps, an unknown CPU or
 * thread, cut short, a map of too many counts). tests/31-script.bats
 * judges the rows by perf script on perf stat record's own files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "perf/perf-data-write.h"
#include "perf/perf-data.h"
#include "perf/stat.h"

static uint64_t rec[256];

/* rec as a record of type with n u64s of body */
static const struct perf_event_header *record(uint32_t type, size_t n)
{
	rec[0] = type | (uint64_t)((n + 1) * 8) << 48;
	return (const struct perf_event_header *)rec;
}

static const struct perf_event_header *thread_map(uint64_t nr)
{
	memset(rec, 0, sizeof(rec));
	rec[1] = nr;
	for (uint64_t i = 0; i < nr; i++)
		rec[2 + 3 * i] = 100 + i;	/* the pid, then a comm of 16 bytes */
	return record(PERF_RECORD_THREAD_MAP, 1 + 3 * nr);
}

/* a CPU_MAP of CPUs [lo, hi], as a range */
static const struct perf_event_header *cpu_range(uint16_t lo, uint16_t hi)
{
	uint16_t v[4] = { 2, 0, lo, hi };	/* type range, any_cpu 0 */

	memset(rec, 0, sizeof(rec));
	memcpy(&rec[1], v, sizeof(v));
	return record(PERF_RECORD_CPU_MAP, 1);
}

static const struct perf_event_header *stat_config(uint64_t aggr_mode, uint64_t scale)
{
	rec[1] = 2;
	rec[2] = 0;	/* AGGR_MODE */
	rec[3] = aggr_mode;
	rec[4] = 2;	/* SCALE */
	rec[5] = scale;
	return record(PERF_RECORD_STAT_CONFIG, 5);
}

static const struct perf_event_header *stat(uint64_t id, uint32_t cpu, uint32_t thread,
					    uint64_t val, uint64_t ena, uint64_t run)
{
	rec[1] = id;
	rec[2] = cpu | (uint64_t)thread << 32;
	rec[3] = val;
	rec[4] = ena;
	rec[5] = run;
	return record(PERF_RECORD_STAT, 5);
}

static const struct perf_event_header *round_at(uint64_t time)
{
	rec[1] = 0;
	rec[2] = time;
	return record(PERF_RECORD_STAT_ROUND, 2);
}

static struct perf_data *one_event(char *path)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
					.config = PERF_COUNT_SW_TASK_CLOCK };
	struct perf_data_writer *w;
	struct perf_data *d = NULL;
	uint64_t id = 7;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_INT(perf_data_writer_open(path, &w), 0);
	CHECK_EQ_INT(perf_data_writer_add_attr(w, &attr, "task-clock", &id, 1), 0);
	CHECK_EQ_INT(perf_data_writer_close(w), 0);
	CHECK_EQ_INT(perf_data_open(path, &d), 0);
	return d;
}

static void test_rows_of_a_per_cpu_mode(void)
{
	char path[] = "/tmp/sbx-stat-XXXXXX", *text = NULL;
	struct perf_data *d = one_event(path);
	struct perf_stat_table *t = perf_stat_table_new();
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CHECK(d && t && out);
	if (!d || !t || !out)
		return;
	CHECK_EQ_INT(perf_stat_table_record(t, d, thread_map(1), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, cpu_range(0, 1), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat_config(0, 1), out), 0);	/* AGGR_NONE */
	/* counted half the time: scaled to twice */
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 1, 0, 1000, 200, 100), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, round_at(5), out), 0);
	/* then what changed: 500 in 100 of 100 */
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 1, 0, 1500, 300, 200), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, round_at(9), out), 0);
	/* a count that scaled would not fit in 64 bits: the largest (perf stat writes
	   every count at every round) */
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 0, 0, 1ULL << 63, 1ULL << 63, 1), out),
		     0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 1, 0, 1500, 300, 200), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, round_at(12), out), 0);
	fclose(out);
	CHECK_EQ_STR(text,
		     "CPU   THREAD             VAL             ENA             RUN            TIME EVENT\n"
		     "  0      100               0               0               0               5 task-clock\n"
		     "  1      100            2000             200             100               5 task-clock\n"
		     "  0      100               0               0               0               9 task-clock\n"
		     "  1      100             500             100             100               9 task-clock\n"
		     "  0      100 18446744073709551615 9223372036854775808               1              12 task-clock\n"
		     "  1      100               0               0               0              12 task-clock\n");
	free(text);
	perf_stat_table_free(t);
	perf_data_close(d);
	unlink(path);
}

static void test_hostile_records(void)
{
	char path[] = "/tmp/sbx-stat-XXXXXX";
	struct perf_data *d = one_event(path);
	struct perf_stat_table *t = perf_stat_table_new();
	FILE *out = fopen("/dev/null", "w");

	CHECK(d && t && out);
	if (!d || !t || !out)
		return;
	/* counts before the maps; records cut short */
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 0, 0, 1, 1, 1), out), -EINVAL);
	CHECK_EQ_INT(perf_stat_table_record(t, d, record(PERF_RECORD_STAT, 2), out), -EINVAL);
	CHECK_EQ_INT(perf_stat_table_record(t, d, record(PERF_RECORD_THREAD_MAP, 0), out),
		     -EINVAL);
	rec[1] = 1000;		/* 1000 threads in a record of one */
	CHECK_EQ_INT(perf_stat_table_record(t, d, record(PERF_RECORD_THREAD_MAP, 1), out),
		     -EINVAL);
	CHECK_EQ_INT(perf_stat_table_record(t, d, record(PERF_RECORD_STAT_ROUND, 1), out),
		     -EINVAL);
	/* 2 threads on 65,536 CPUs: counts made; 65 threads: too many to keep, none made */
	CHECK_EQ_INT(perf_stat_table_record(t, d, thread_map(2), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, cpu_range(0, 65535), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 65535, 1, 1, 1, 1), out), 0);
	perf_stat_table_free(t);
	t = perf_stat_table_new();
	CHECK_EQ_INT(perf_stat_table_record(t, d, thread_map(65), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, cpu_range(0, 65535), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 0, 0, 1, 1, 1), out), -EINVAL);
	CHECK_EQ_INT(perf_stat_table_record(t, d, round_at(1), out), -EINVAL);
	perf_stat_table_free(t);
	/* an unknown CPU or thread (a file of one event: any id is its, as in perf) */
	t = perf_stat_table_new();
	CHECK_EQ_INT(perf_stat_table_record(t, d, thread_map(2), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, cpu_range(4, 5), out), 0);
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 3, 0, 1, 1, 1), out), -EINVAL);
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 5, 2, 1, 1, 1), out), -EINVAL);
	CHECK_EQ_INT(perf_stat_table_record(t, d, stat(7, 5, 1, 1, 1, 1), out), 0);
	perf_stat_table_free(t);
	fclose(out);
	perf_data_close(d);
	unlink(path);
}

static const struct unit_test tests[] = {
	TEST(test_rows_of_a_per_cpu_mode),
	TEST(test_hostile_records),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
