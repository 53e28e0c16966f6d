// SPDX-License-Identifier: MIT
/*
 * Every input the perf.data fuzzer once broke on (tests/data/fuzz/perf-data/)
 * goes through the very fuzz target again, in the normal build and, with
 * `make check SANITIZE=1`, under ASan and UBSan. Run from the top folder.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#define LLVMFuzzerTestOneInput fuzz_perf_data
#include "../fuzz/fuzz-perf-data.c"
#undef LLVMFuzzerTestOneInput

static int replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d) {
		unit_fail(__FILE__, __LINE__, "cannot open %s", dir);
		return 0;
	}
	while ((de = readdir(d))) {
		char path[4096];
		uint8_t *buf;
		long len;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		CHECK(f != NULL);
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc(len ? len : 1);
		CHECK(fread(buf, 1, len, f) == (size_t)len);
		fclose(f);
		CHECK_EQ_INT(fn(buf, len), 0);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void test_perf_data_inputs_that_once_broke_the_reader(void)
{
	CHECK(replay_dir("tests/data/fuzz/perf-data", fuzz_perf_data) >= 1);
}

static const struct unit_test tests[] = {
	TEST(test_perf_data_inputs_that_once_broke_the_reader),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
