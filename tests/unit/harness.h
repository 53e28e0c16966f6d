/* SPDX-License-Identifier: MIT */
#ifndef SBX_TEST_HARNESS_H
#define SBX_TEST_HARNESS_H

/*
 * A tiny unit-test harness with TAP output, which tests/run-all.sh counts.
 *
 *	static void test_foo(void) { CHECK(1 + 1 == 2); CHECK_EQ_INT(f(), 3); }
 *	static const struct unit_test tests[] = { TEST(test_foo), { 0 } };
 *	int main(void) { return unit_run(tests); }
 *
 * A failed CHECK reports its file:line and expression, and the test goes on;
 * a test fails when any of its checks failed. SKIP("reason") ends a test as
 * skipped, for capabilities the machine lacks.
 */

#include <stdint.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define TEST(fn) { #fn, fn }

void unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void unit_skip(const char *reason);
int unit_run(const struct unit_test *tests);

#define CHECK(cond) \
	do { if (!(cond)) unit_fail(__FILE__, __LINE__, "%s", #cond); } while (0)

#define CHECK_EQ_INT(a, b) do { \
	long long _a = (long long)(a), _b = (long long)(b); \
	if (_a != _b) unit_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b); \
} while (0)

#define CHECK_EQ_U64(a, b) do { \
	unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
	if (_a != _b) unit_fail(__FILE__, __LINE__, "%s == %s: %#llx != %#llx", #a, #b, _a, _b); \
} while (0)

#define CHECK_EQ_STR(a, b) do { \
	const char *_a = (a), *_b = (b); \
	if (!_a || !_b || strcmp(_a, _b)) \
		unit_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, \
			  _a ? _a : "(null)", _b ? _b : "(null)"); \
} while (0)

#define SKIP(reason) do { unit_skip(reason); return; } while (0)

#endif
