// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "harness.h"

static int failed;
static const char *skipped;

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed = 1;
}

void unit_skip(const char *reason)
{
	skipped = reason;
}

int unit_run(const struct unit_test *tests)
{
	int n = 0, bad = 0;

	for (const struct unit_test *t = tests; t->name; t++)
		n++;
	printf("1..%d\n", n);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		failed = 0;
		skipped = NULL;
		tests[i].fn();
		if (failed) {
			printf("not ok %d - %s\n", i + 1, tests[i].name);
			bad++;
		} else if (skipped) {
			printf("ok %d - %s # skip %s\n", i + 1, tests[i].name, skipped);
		} else {
			printf("ok %d - %s\n", i + 1, tests[i].name);
		}
		fflush(stdout);
	}
	return bad ? 1 : 0;
}
