// SPDX-License-Identifier: MIT
/* perf's build-id cache as sbx record writes it: the layout, and what it refuses. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "symbol/buildid.h"
#include "symbol/buildid-cache.h"
#include "util/error.h"

static char top[64], exe[PATH_MAX];
static uint8_t id[BUILDID_MAX];
static size_t id_size;

/* A fresh folder for one test, and this test program's own path and build-id. */
static int set_up(void)
{
	char tmpl[] = "/tmp/sbx-bidc-XXXXXX";
	ssize_t n;

	if (!mkdtemp(tmpl))
		return -1;
	snprintf(top, sizeof(top), "%s", tmpl);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	return buildid_read(exe, id, sizeof(id), &id_size);
}

static void remove_tree(const char *path)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd) != 0)
		unit_fail(__FILE__, __LINE__, "could not remove %s", path);
}

static bool same_file_bytes(const char *a, const char *b)
{
	FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
	bool same = f && g;

	while (same) {
		int x = getc(f), y = getc(g);

		if (x != y)
			same = false;
		if (x == EOF || y == EOF)
			break;
	}
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return same;
}

static void test_layout(void)
{
	char cache[128], hex[2 * BUILDID_MAX + 1], p[3 * PATH_MAX], link[PATH_MAX];
	char want[2 * PATH_MAX];
	struct stat st, src;
	ssize_t n;

	if (set_up() || !id_size)
		SKIP("this test program has no build-id");
	snprintf(cache, sizeof(cache), "%s/.debug", top);
	buildid_hex(id, id_size, hex);
	CHECK_EQ_INT(buildid_cache_add(cache, exe, id, id_size), 1);
	/* CACHE/PATH/HEX/elf, a copy with the file's mode */
	snprintf(p, sizeof(p), "%s%s/%s/elf", cache, exe, hex);
	CHECK(same_file_bytes(p, exe));
	CHECK(!stat(p, &st) && !stat(exe, &src) && (st.st_mode & 07777) == (src.st_mode & 0755));
	/* CACHE/.build-id/HE/X… -> ../../PATH/HEX, and elf through it */
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s", cache, hex, hex + 2);
	n = readlink(p, link, sizeof(link) - 1);
	CHECK(n > 0);
	link[n > 0 ? n : 0] = 0;
	snprintf(want, sizeof(want), "../..%s/%s", exe, hex);
	CHECK_EQ_STR(link, want);
	strcat(p, "/elf");
	CHECK(same_file_bytes(p, exe));
	/* a second time: had it */
	CHECK_EQ_INT(buildid_cache_add(cache, exe, id, id_size), 0);
	/* the link removed: made again, the copy kept */
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s", cache, hex, hex + 2);
	CHECK(!unlink(p));
	CHECK_EQ_INT(buildid_cache_add(cache, exe, id, id_size), 0);
	CHECK(readlink(p, link, sizeof(link)) > 0);
	remove_tree(top);
}

static void test_refused(void)
{
	char cache[128], p[3 * PATH_MAX], other[BUILDID_MAX];
	struct stat st;

	if (set_up() || !id_size)
		SKIP("this test program has no build-id");
	snprintf(cache, sizeof(cache), "%s/.debug", top);
	/* another build at the path: stale, nothing copied */
	memcpy(other, id, id_size);
	other[0] ^= 0xff;
	CHECK_EQ_INT(buildid_cache_add(cache, exe, (uint8_t *)other, id_size), -ESTALE);
	CHECK(strstr(sbx_error_msg(), "rebuilt since?") != NULL);
	/* shapes the cache cannot hold */
	CHECK_EQ_INT(buildid_cache_add(cache, "relative/app", id, id_size), -EINVAL);
	CHECK_EQ_INT(buildid_cache_add(cache, "[vdso]", id, id_size), -EINVAL);
	CHECK_EQ_INT(buildid_cache_add(cache, "/usr/../etc/passwd", id, id_size), -EINVAL);
	CHECK_EQ_INT(buildid_cache_add(cache, "/usr/./lib/x", id, id_size), -EINVAL);
	CHECK_EQ_INT(buildid_cache_add(cache, "/usr//lib/x", id, id_size), -EINVAL);
	CHECK_EQ_INT(buildid_cache_add(cache, exe, id, 0), -EINVAL);
	/* a link at the path: not followed */
	snprintf(p, sizeof(p), "%s/link", top);
	CHECK(!symlink(exe, p));
	CHECK_EQ_INT(buildid_cache_add(cache, p, id, id_size), -ELOOP);
	/* a FIFO: refused at once, not waited on */
	snprintf(p, sizeof(p), "%s/fifo", top);
	CHECK(!mkfifo(p, 0600));
	CHECK_EQ_INT(buildid_cache_add(cache, p, id, id_size), -EINVAL);
	/* nothing of those was copied */
	snprintf(p, sizeof(p), "%s%s/link/elf", cache, top);
	CHECK(stat(p, &st) < 0);
	remove_tree(top);
}

/* A link planted inside the cache is not entered: the copy goes nowhere else. */
static void test_planted_link(void)
{
	char cache[128], elsewhere[128], first[PATH_MAX], p[3 * PATH_MAX];
	const char *slash;
	DIR *d;
	int entries = 0;

	if (set_up() || !id_size)
		SKIP("this test program has no build-id");
	snprintf(cache, sizeof(cache), "%s/.debug", top);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", top);
	CHECK(!mkdir(cache, 0755) && !mkdir(elsewhere, 0755));
	/* CACHE/<the first folder of the path> -> elsewhere */
	slash = strchr(exe + 1, '/');
	snprintf(first, sizeof(first), "%.*s", slash ? (int)(slash - exe - 1) : 0, exe + 1);
	snprintf(p, sizeof(p), "%s/%s", cache, first);
	CHECK(!symlink(elsewhere, p));
	CHECK(buildid_cache_add(cache, exe, id, id_size) < 0);
	d = opendir(elsewhere);
	CHECK(d != NULL);
	for (struct dirent *e; d && (e = readdir(d));)
		entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	CHECK_EQ_INT(entries, 0);
	/* the cache root itself a link, the user's (to a bigger disk): followed */
	remove_tree(cache);
	remove_tree(elsewhere);
	CHECK(!mkdir(elsewhere, 0755));
	CHECK(!symlink(elsewhere, cache));
	CHECK_EQ_INT(buildid_cache_add(cache, exe, id, id_size), 1);
	snprintf(p, sizeof(p), "%s%s", elsewhere, exe);
	CHECK(access(p, F_OK) == 0);
	remove_tree(top);
}

/* A link at a folder of the recorded path: not followed either. */
static void test_link_in_path(void)
{
	char cache[128], p[3 * PATH_MAX], dir[128], hex[2 * BUILDID_MAX + 1], other[BUILDID_MAX];
	struct stat st;

	if (set_up() || !id_size)
		SKIP("this test program has no build-id");
	snprintf(cache, sizeof(cache), "%s/.debug", top);
	snprintf(dir, sizeof(dir), "%s/real", top);
	CHECK(!mkdir(dir, 0755));
	snprintf(p, sizeof(p), "cp '%s' '%s/app'", exe, dir);
	CHECK(system(p) == 0);
	snprintf(p, sizeof(p), "%s/lnk", top);
	CHECK(!symlink(dir, p));
	snprintf(p, sizeof(p), "%s/lnk/app", top);
	CHECK_EQ_INT(buildid_cache_add(cache, p, id, id_size), -ELOOP);
	/* the real path is cached */
	snprintf(p, sizeof(p), "%s/real/app", top);
	CHECK_EQ_INT(buildid_cache_add(cache, p, id, id_size), 1);
	/* a file refused (another build-id) leaves no folder of its build */
	memcpy(other, id, id_size);
	other[id_size - 1] ^= 0x5a;
	CHECK_EQ_INT(buildid_cache_add(cache, p, (uint8_t *)other, id_size), -ESTALE);
	buildid_hex((uint8_t *)other, id_size, hex);
	snprintf(p, sizeof(p), "%s%s/real/app/%s", cache, top, hex);
	CHECK(stat(p, &st) < 0 && errno == ENOENT);
	/* nor any temporary file beside the copy that was made */
	buildid_hex(id, id_size, hex);
	snprintf(p, sizeof(p), "ls -A '%s%s/real/app/%s' | grep -qv '^elf$'", cache, top, hex);
	CHECK(system(p) != 0);
	remove_tree(top);
}

static const struct unit_test tests[] = {
	TEST(test_layout),
	TEST(test_refused),
	TEST(test_planted_link),
	TEST(test_link_in_path),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
