// SPDX-License-Identifier: MIT
/* Temporary folders that do not pile up (see tempdir.h). */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/tempdir.h"

static const char *tmp_root(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* Remove what is directly in the folder open at fd (no link is followed), then the folder. */
static void remove_contents(int fd)
{
	DIR *d = fdopendir(dup(fd));
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	if (d)
		closedir(d);
}

/* Remove the folders of prefix in root that no live process holds. */
static void sweep(const char *root, const char *prefix)
{
	size_t plen = strlen(prefix);
	DIR *d = opendir(root);
	struct dirent *de;
	time_t now = time(NULL);

	while (d && (de = readdir(d))) {
		struct stat st;
		int fd;

		/* PREFIX-XXXXXX, a folder of ours, unchanged for a while */
		if (strncmp(de->d_name, prefix, plen) || de->d_name[plen] != '-' ||
		    strlen(de->d_name + plen + 1) != 6)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || st.st_uid != geteuid() || now - st.st_mtime < TEMPDIR_GRACE ||
		    flock(fd, LOCK_EX | LOCK_NB)) {
			close(fd);
			continue;
		}
		remove_contents(fd);
		unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		close(fd);
	}
	if (d)
		closedir(d);
}

int tempdir_make(struct tempdir *t, const char *prefix)
{
	const char *root = tmp_root();
	int n;

	/* once a process and prefix: a sweep of 10,000 snippets reads $TMPDIR once */
	static __thread char swept[4][16];
	bool done = false;

	t->lock_fd = -1;
	t->path[0] = 0;
	for (int i = 0; i < 4 && swept[i][0] && !done; i++)
		done = !strcmp(swept[i], prefix);
	if (!done) {
		sweep(root, prefix);
		for (int i = 0; i < 4; i++)
			if (!swept[i][0]) {
				snprintf(swept[i], sizeof(swept[i]), "%s", prefix);
				break;
			}
	}
	n = snprintf(t->path, sizeof(t->path), "%s/%s-XXXXXX", root, prefix);
	if (n < 0 || (size_t)n >= sizeof(t->path)) {
		t->path[0] = 0;
		return sbx_error(-ENAMETOOLONG, "TMPDIR is too long a name");
	}
	if (!mkdtemp(t->path)) {
		int err = sbx_error_errno(-errno, "cannot create a temporary folder '%s'", t->path);

		t->path[0] = 0;
		return err;
	}
	/* a file system without flock: the folder works, unheld (a sweep may take it after a minute) */
	t->lock_fd = open(t->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->lock_fd >= 0)
		flock(t->lock_fd, LOCK_EX | LOCK_NB);
	return 0;
}

void tempdir_remove(struct tempdir *t)
{
	int fd;

	if (!t->path[0])
		return;
	fd = t->lock_fd >= 0 ? t->lock_fd
			     : open(t->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		remove_contents(fd);
		close(fd);
	}
	t->lock_fd = -1;
	rmdir(t->path);
	t->path[0] = 0;
}
