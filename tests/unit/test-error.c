// SPDX-License-Identifier: MIT
#include <errno.h>

#include "harness.h"
#include "util/error.h"

static void test_error_returns_code_and_message(void)
{
	sbx_error_clear();
	CHECK(sbx_error_msg() == NULL);
	CHECK_EQ_INT(sbx_error(-EINVAL, "bad '%s'", "x"), -EINVAL);
	CHECK_EQ_STR(sbx_error_msg(), "bad 'x'");
	CHECK_EQ_INT(sbx_error_errno(-ENOENT, "cannot open '%s'", "f"), -ENOENT);
	CHECK_EQ_STR(sbx_error_msg(), "cannot open 'f': No such file or directory");
	sbx_error_clear();
	CHECK(sbx_error_msg() == NULL);
}

static const struct unit_test tests[] = {
	TEST(test_error_returns_code_and_message),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
