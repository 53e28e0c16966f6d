// SPDX-License-Identifier: MIT
/*
 * Every input a fuzz target once broke on, and a few real inputs of each
 * kind (tests/data/fuzz/TARGET/), goes through the very fuzz target code
 * again: in the normal build and, with `make check SANITIZE=1`, under ASan
 * and UBSan. Run from the top folder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/error.h"

#define LLVMFuzzerTestOneInput fuzz_perf_data
#include "../fuzz/fuzz-perf-data.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_jitdump
#include "../fuzz/fuzz-jitdump.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_perf_map
#include "../fuzz/fuzz-perf-map.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_perfscript
#include "../fuzz/fuzz-perfscript.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_binary
#include "../fuzz/fuzz-binary.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_snippet
#include "../fuzz/fuzz-snippet.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_exegesis_yaml
#include "../fuzz/fuzz-exegesis-yaml.c"
#undef LLVMFuzzerTestOneInput

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	CHECK(f != NULL);
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0) {
		rewind(f);
		buf = malloc(n ? n : 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	CHECK(buf != NULL);
	return buf;
}

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
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		buf = read_all(path, &len);
		if (!buf)
			continue;
		CHECK_EQ_INT(fn(buf, len), 0);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}

static void test_perf_data_inputs_that_once_broke_the_reader(void)
{
	CHECK(replay_dir("tests/data/fuzz/perf-data", fuzz_perf_data) >= 3);
}

static void test_jitdumps(void)
{
	CHECK(replay_dir("tests/data/fuzz/jitdump", fuzz_jitdump) >= 3);
}

static void test_perf_maps(void)
{
	CHECK(replay_dir("tests/data/fuzz/perf-map", fuzz_perf_map) >= 1);
}

static void test_perf_script_text(void)
{
	CHECK(replay_dir("tests/data/fuzz/perfscript", fuzz_perfscript) >= 2);
}

static void test_binaries(void)
{
	CHECK(replay_dir("tests/data/fuzz/binary", fuzz_binary) >= 2);
}

static void test_snippets(void)
{
	CHECK(replay_dir("tests/data/snippets", fuzz_snippet) >= 5);
}

static void test_exegesis_yaml(void)
{
	CHECK(replay_dir("tests/data/fuzz/exegesis-yaml", fuzz_exegesis_yaml) >= 2);
}

/* A real binary through the fuzz target's profile: a profile, every sample in it. */
static void test_binary_profile(void)
{
	const char *path = "tests/data/fuzz/binary/clang-dwarf5.elf";
	struct binary *b = NULL;
	size_t len = 0;
	uint8_t *buf = read_all(path, &len);

	free(buf);
	CHECK_EQ_INT(binary_open(path, NULL, &b), 0);
	if (b) {
		CHECK(b->nr_code_starts >= 2);
		CHECK_EQ_INT(profile(b, path, len), 0);
		binary_free(b);
	}
}

/* A symbol at 2^58 in a damaged ELF: named as such, not a 2^55-byte bitmap. */
static void test_binary_code_span(void)
{
	const char *path = "tests/data/fuzz/binary/code-span-past-1gib.elf";
	struct binary *b = NULL;
	size_t len = 0;
	uint8_t *buf = read_all(path, &len);

	free(buf);
	CHECK_EQ_INT(binary_open(path, NULL, &b), 0);
	if (b) {
		CHECK_EQ_INT(profile(b, path, len), -EINVAL);
		if (!strstr(sbx_error_msg(), "more than 1 GiB"))
			unit_fail(__FILE__, __LINE__, "message: %s", sbx_error_msg());
		binary_free(b);
	}
}

static const struct unit_test tests[] = {
	TEST(test_perf_data_inputs_that_once_broke_the_reader),
	TEST(test_jitdumps),
	TEST(test_perf_maps),
	TEST(test_perf_script_text),
	TEST(test_binaries),
	TEST(test_snippets),
	TEST(test_exegesis_yaml),
	TEST(test_binary_profile),
	TEST(test_binary_code_span),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
