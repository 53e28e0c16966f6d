// SPDX-License-Identifier: MIT
/*
 * util/output: a file is complete or not there; an older file survives an
 * abort; links stay links; devices and FIFOs are written in place; bad
 * names are refused; the named fallback cleans what dead runs left.
 * (A full disk, a read-only folder and SIGKILL are in tests/40-record.bats,
 * where they can be made for real.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util/error.h"
#include "util/output.h"

static char dir[PATH_MAX];

static void make_dir(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/sbx-test-output-XXXXXX", t && *t ? t : "/tmp");
	CHECK(mkdtemp(dir) != NULL);
}

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[PATH_MAX + 300];

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The names in dir, sorted, joined by spaces. */
static const char *listing(void)
{
	static char out[4096];
	char names[64][256];
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *de;

	out[0] = 0;
	while (d && (de = readdir(d)) && n < 64)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(out, " ");
		strncat(out, names[i], sizeof(out) - strlen(out) - 2);
	}
	return out;
}

static const char *contents(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n >= 0 ? buf : NULL;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Write text to path through an output and commit (or abort). */
static int through_output(const char *path, const char *text, int commit)
{
	struct output *o;
	int err = output_open(path, 0644, &o);

	if (err)
		return err;
	fputs(text, output_stream(o));
	if (!commit) {
		output_abort(o);
		return 0;
	}
	return output_commit(o);
}

static void files_both_ways(void)
{
	char path[PATH_MAX + 16], link[PATH_MAX + 16];
	struct stat st;

	make_dir();
	snprintf(path, sizeof(path), "%s/out", dir);
	/* a new file, and nothing else */
	CHECK_EQ_INT(through_output(path, "one", 1), 0);
	CHECK_EQ_STR(contents(path), "one");
	CHECK_EQ_STR(listing(), "out");
	CHECK(!stat(path, &st) && (st.st_mode & 0777) == 0644);
	/* an abort leaves the older file as it was, and nothing beside it */
	CHECK_EQ_INT(through_output(path, "two", 0), 0);
	CHECK_EQ_STR(contents(path), "one");
	CHECK_EQ_STR(listing(), "out");
	/* a commit replaces it */
	CHECK_EQ_INT(through_output(path, "three", 1), 0);
	CHECK_EQ_STR(contents(path), "three");
	CHECK_EQ_STR(listing(), "out");
	/* a link stays a link; the file it names gets the new contents */
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK_EQ_INT(symlink("out", link), 0);
	CHECK_EQ_INT(through_output(link, "four", 1), 0);
	CHECK(!lstat(link, &st) && S_ISLNK(st.st_mode));
	CHECK_EQ_STR(contents(path), "four");
	CHECK_EQ_STR(listing(), "link out");
	remove_dir();
}

/*
 * output_open_name(): the name is replaced, whatever holds it (a link to a
 * file that is not ours, a dangling link, a FIFO, a file), and nothing is
 * followed or opened: the file a link named keeps its contents.
 */
static void names_both_ways(void)
{
	char path[PATH_MAX + 16], victim[PATH_MAX + 16], name[PATH_MAX + 16];
	struct output *o;
	struct stat st;
	const char *holders[] = { "link", "dangling", "fifo", "file" };

	make_dir();
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	put(victim, "precious");
	for (size_t i = 0; i < sizeof(holders) / sizeof(holders[0]); i++) {
		snprintf(name, sizeof(name), "%s/%s", dir, holders[i]);
		switch (i) {
		case 0: CHECK_EQ_INT(symlink("victim", name), 0); break;
		case 1: CHECK_EQ_INT(symlink("nowhere", name), 0); break;
		case 2: CHECK_EQ_INT(mkfifo(name, 0600), 0); break;
		default: put(name, "old"); break;
		}
		CHECK_EQ_INT(output_open_name(name, 0644, &o), 0);
		fputs("new", output_stream(o));
		CHECK_EQ_INT(output_commit(o), 0);
		CHECK(!lstat(name, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644);
		CHECK_EQ_STR(contents(name), "new");
	}
	CHECK_EQ_STR(contents(victim), "precious");
	/* a link put there while it was written is replaced too, its file untouched */
	snprintf(name, sizeof(name), "%s/late", dir);
	CHECK_EQ_INT(output_open_name(name, 0644, &o), 0);
	fputs("mine", output_stream(o));
	CHECK_EQ_INT(symlink("victim", name), 0);
	CHECK_EQ_INT(output_commit(o), 0);
	CHECK_EQ_STR(contents(name), "mine");
	CHECK_EQ_STR(contents(victim), "precious");
	/* a folder cannot be replaced */
	snprintf(path, sizeof(path), "%s/sub", dir);
	CHECK_EQ_INT(mkdir(path, 0700), 0);
	CHECK_EQ_INT(output_open_name(path, 0644, &o), -EISDIR);
	rmdir(path);
	CHECK_EQ_STR(listing(), "dangling fifo file late link victim");
	remove_dir();
}

static void test_unnamed(void)
{
	unsetenv("SBX_OUTPUT_NAMED");
	files_both_ways();
	names_both_ways();
}

static void test_named(void)
{
	setenv("SBX_OUTPUT_NAMED", "1", 1);
	files_both_ways();
	names_both_ways();
	unsetenv("SBX_OUTPUT_NAMED");
}

/* A named temporary file of a dead process is removed; a live one's is not. */
static void test_named_cleanup(void)
{
	char path[PATH_MAX + 64], dead[PATH_MAX + 64], alive[PATH_MAX + 64];
	struct output *o;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);	/* pid is gone now (and not reused this soon) */
	make_dir();
	snprintf(path, sizeof(path), "%s/p.data", dir);
	snprintf(dead, sizeof(dead), "%s/.p.data.sbx-tmp-%d-abcdef", dir, (int)pid);
	snprintf(alive, sizeof(alive), "%s/.p.data.sbx-tmp-%d-ghijkl", dir, (int)getppid());
	put(dead, "half");
	put(alive, "busy");
	for (int named = 0; named < 2; named++) {
		if (named)
			setenv("SBX_OUTPUT_NAMED", "1", 1);
		CHECK_EQ_INT(output_open(path, 0644, &o), 0);
		output_abort(o);
		CHECK(access(dead, F_OK) != 0);
		CHECK(access(alive, F_OK) == 0);
		put(dead, "half");
	}
	unsetenv("SBX_OUTPUT_NAMED");
	remove_dir();
}

static void test_streams(void)
{
	struct output *o;
	struct stat st;
	char fifo[PATH_MAX + 16], got[16] = "";
	int p[2];
	pid_t pid;

	/* a device is written in place, never renamed over */
	CHECK_EQ_INT(output_open("/dev/null", 0644, &o), 0);
	CHECK(output_is_stream(o));
	fputs("gone", output_stream(o));
	CHECK_EQ_INT(output_commit(o), 0);
	CHECK(!stat("/dev/null", &st) && S_ISCHR(st.st_mode));
	/* "-" is stdout */
	CHECK_EQ_INT(output_open("-", 0644, &o), 0);
	CHECK(output_is_stream(o));
	CHECK_EQ_INT(output_fd(o), STDOUT_FILENO);
	output_abort(o);
	CHECK(fcntl(STDOUT_FILENO, F_GETFD) >= 0);	/* still open */
	/* a FIFO, read by a child */
	make_dir();
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK_EQ_INT(mkfifo(fifo, 0600), 0);
	CHECK_EQ_INT(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		int fd = open(fifo, O_RDONLY);
		char b[16] = "";
		ssize_t n = fd >= 0 ? read(fd, b, sizeof(b) - 1) : -1;

		if (n > 0 && write(p[1], b, (size_t)n) != n)
			_exit(2);
		_exit(n > 0 ? 0 : 1);
	}
	close(p[1]);
	CHECK_EQ_INT(output_open(fifo, 0644, &o), 0);
	CHECK(output_is_stream(o));
	fputs("through", output_stream(o));
	CHECK_EQ_INT(output_commit(o), 0);
	CHECK(read(p[0], got, sizeof(got) - 1) > 0);
	close(p[0]);
	waitpid(pid, NULL, 0);
	CHECK_EQ_STR(got, "through");
	CHECK(!stat(fifo, &st) && S_ISFIFO(st.st_mode));
	CHECK_EQ_STR(listing(), "fifo");
	remove_dir();
}

static void test_bad_names(void)
{
	struct output *o = (void *)1;

	CHECK_EQ_INT(output_open("", 0644, &o), -EINVAL);
	CHECK(o == NULL);
	CHECK_EQ_INT(output_open("/tmp", 0644, &o), -EISDIR);
	CHECK_EQ_INT(output_open("/tmp/", 0644, &o), -EISDIR);
	CHECK_EQ_INT(output_open("/no/such/folder/x", 0644, &o), -ENOENT);
	CHECK(strstr(sbx_error_msg(), "cannot create a file beside '/no/such/folder/x'") != NULL);
	CHECK(access("/no/such/folder/x", F_OK) != 0);
}

static const struct unit_test tests[] = {
	TEST(test_unnamed),
	TEST(test_named),
	TEST(test_named_cleanup),
	TEST(test_streams),
	TEST(test_bad_names),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
