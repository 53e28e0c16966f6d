// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "util/error.h"
#include "measure/events.h"

static void test_software_and_raw(void)
{
	struct perf_event_attr a;

	CHECK_EQ_INT(events_parse("task-clock", &a), 0);
	CHECK_EQ_INT(a.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(a.config, PERF_COUNT_SW_TASK_CLOCK);
	CHECK_EQ_INT(a.size, sizeof(a));
	CHECK_EQ_INT(events_parse("cs", &a), 0);
	CHECK_EQ_U64(a.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	CHECK_EQ_INT(events_parse("r01c2", &a), 0);
	CHECK_EQ_INT(a.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(a.config, 0x1c2);
	CHECK_EQ_INT(events_parse("cycles", &a), 0);
	CHECK_EQ_INT(a.type, PERF_TYPE_HARDWARE);
}

static void test_libpfm_name(void)
{
	struct perf_event_attr a;

	/* libpfm's generic perf PMU is present on every machine */
	CHECK_EQ_INT(events_parse("perf::PERF_COUNT_SW_PAGE_FAULTS", &a), 0);
	CHECK_EQ_INT(a.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ_U64(a.config, PERF_COUNT_SW_PAGE_FAULTS);
}

static void test_unknown_names_candidates(void)
{
	struct perf_event_attr a;

	CHECK_EQ_INT(events_parse("task-clcok", &a), -ENOENT);
	CHECK(strstr(sbx_error_msg(), "unknown event 'task-clcok'"));
	CHECK(strstr(sbx_error_msg(), "'task-clock'"));
	CHECK_EQ_INT(events_parse("", &a), -EINVAL);
}

static void test_tracepoint(void)
{
	struct perf_event_attr a;
	char dir[4096];

	if (events_tracefs_dir(dir, sizeof(dir)) < 0 || access(dir, R_OK) < 0)
		SKIP("tracefs is not mounted");
	if (events_parse("sched:sched_switch", &a) < 0)
		SKIP("no sched:sched_switch tracepoint readable here");
	CHECK_EQ_INT(a.type, PERF_TYPE_TRACEPOINT);
	CHECK(a.config > 0);
	CHECK_EQ_INT(events_parse("sched:no_such_tracepoint_x", &a), -ENOENT);
}

static void test_open_software_counter(void)
{
	struct perf_event_attr a;
	int fd;

	CHECK_EQ_INT(events_parse("task-clock", &a), 0);
	a.exclude_kernel = 1;
	fd = events_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		SKIP("perf_event_open is not allowed here");
	close(fd);
	/* the answer is cached and stable */
	CHECK(events_have_hw_cycles() == events_have_hw_cycles());
}

static const struct unit_test tests[] = {
	TEST(test_software_and_raw),
	TEST(test_libpfm_name),
	TEST(test_unknown_names_candidates),
	TEST(test_tracepoint),
	TEST(test_open_software_counter),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
