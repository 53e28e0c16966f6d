// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "harness.h"
#include "util/error.h"
#include "measure/events.h"
#include "measure/measure.h"
#include "measure/snippet.h"

static struct snippet *assembled(const char *text)
{
	struct snippet_asm_opts ao = { .syntax = SNIPPET_ATT };
	struct snippet *s;

	if (snippet_parse("t.s", text, &s) < 0)
		return NULL;
	if (snippet_assemble(s, &ao) < 0) {
		snippet_free(s);
		return NULL;
	}
	return s;
}

static void test_option_values(void)
{
	enum measure_mode m;
	enum measure_repetition r;
	enum measure_aggregate a;
	enum measure_counter c;

	CHECK_EQ_INT(measure_parse_mode("inverse_throughput", &m), 0);
	CHECK(m == MEASURE_INVERSE_THROUGHPUT);
	CHECK_EQ_INT(measure_parse_mode("uops", &m), 0);
	CHECK(m == MEASURE_UOPS);
	CHECK_EQ_INT(measure_parse_mode("cycles", &m), -EINVAL);
	CHECK_EQ_STR(sbx_error_msg(), "invalid mode 'cycles' (expected one of: latency, "
		     "inverse_throughput, uops)");
	/* uops: a PMU's retired micro-ops, or a clear error where there is none */
	CHECK_EQ_INT(measure_mode_check(MEASURE_LATENCY), 0);
	if (!events_have_hw_cycles()) {
		CHECK_EQ_INT(measure_mode_check(MEASURE_UOPS), -EOPNOTSUPP);
		CHECK(strstr(sbx_error_msg(), "this machine has no PMU") != NULL);
	}
	CHECK_EQ_INT(measure_parse_repetition("min", &r), 0);
	CHECK(r == MEASURE_MIN);
	CHECK_EQ_INT(measure_parse_aggregate("min-variance", &a), 0);
	CHECK(a == MEASURE_AGG_MIN_VARIANCE);
	CHECK_EQ_INT(measure_parse_counter("tsc", &c), 0);
	CHECK(c == MEASURE_COUNTER_TSC);
	CHECK_EQ_STR(measure_repetition_name(MEASURE_LOOP), "loop");
	CHECK_EQ_STR(measure_aggregate_name(MEASURE_AGG_MEDIAN), "median");
}

static void test_defaults_are_exegesis(void)
{
	struct measure_opts o;

	measure_opts_init(&o);
	CHECK(o.mode == MEASURE_LATENCY && o.repetition == MEASURE_DUPLICATE);
	CHECK(o.aggregate == MEASURE_AGG_MIN && !o.no_diff);
	CHECK_EQ_INT(o.min_instructions, 10000);
	CHECK_EQ_INT(o.repeat_count, 30);
	CHECK_EQ_INT(o.cpu, -1);
}

static void test_measures_a_chain(void)
{
	struct snippet *s = assembled("imulq %rax, %rax\nimulq %rax, %rax\n");
	struct measure_result r;
	struct measure_opts o;
	double ref = 0;

	if (!s)
		SKIP("no assembler");
	measure_opts_init(&o);
	o.tsc_reference = &ref;
	CHECK_EQ_INT(measure_snippet(s, &o, &r), 0);
	CHECK_EQ_STR(r.error, "");
	CHECK_EQ_INT(r.n_values, 1);
	CHECK_EQ_STR(r.values[0].key, "latency");
	CHECK_EQ_INT(r.repetitions, 5000);
	CHECK_EQ_INT(r.instructions, 10000);
	/* a dependent imul takes 3 cycles; wide bounds for a loaded machine */
	CHECK(r.values[0].value > 2 && r.values[0].value < 5);
	CHECK(r.values[0].per_snippet_value > 2 * r.values[0].value * 0.99 &&
	      r.values[0].per_snippet_value < 2 * r.values[0].value * 1.01);
	if (!strcmp(r.counter, "tsc-cycles")) {
		CHECK(r.tsc_per_cycle > 0);
		CHECK(ref == r.tsc_per_cycle);
	}
	snippet_free(s);
}

static void test_crash_is_a_result_not_a_failure(void)
{
	struct snippet *s = assembled("# SBX-DEFREG RBX 10\nmovq (%rbx), %rax\n");
	struct measure_result r;
	struct measure_opts o;

	if (!s)
		SKIP("no assembler");
	measure_opts_init(&o);
	CHECK_EQ_INT(measure_snippet(s, &o, &r), 0);
	CHECK_EQ_STR(r.error, "SIGSEGV at address 0x10, snippet+0x0: movq (%rbx), %rax");
	CHECK(r.status.signaled);
	CHECK_EQ_INT(r.status.signo, SIGSEGV);
	CHECK_EQ_U64(r.status.fault_addr, 0x10);
	CHECK_EQ_INT(r.n_values, 0);
	snippet_free(s);
}

static void test_bad_settings(void)
{
	struct snippet *s = assembled("nop\n");
	struct measure_result r;
	struct measure_opts o;

	if (!s)
		SKIP("no assembler");
	measure_opts_init(&o);
	o.min_instructions = 0;
	CHECK_EQ_INT(measure_snippet(s, &o, &r), -EINVAL);
	measure_opts_init(&o);
	o.events[0] = "no-such-event-xyz";
	o.n_events = 1;
	CHECK_EQ_INT(measure_snippet(s, &o, &r), -ENOENT);
	snippet_free(s);
}

static const struct unit_test tests[] = {
	TEST(test_option_values),
	TEST(test_defaults_are_exegesis),
	TEST(test_measures_a_chain),
	TEST(test_crash_is_a_result_not_a_failure),
	TEST(test_bad_settings),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
