/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_TEMPDIR_H
#define SBX_UTIL_TEMPDIR_H

/*
 * Private temporary folders ($TMPDIR/PREFIX-XXXXXX, else in /tmp) that do
 * not pile up: one is removed by tempdir_remove(), and one whose process
 * ended without that (SIGKILL, a signal's default action) is removed by the
 * first tempdir_make() of that prefix in a later sbx of the same user. A folder
 * is known to be in use by an flock(2) its process holds on it while it
 * lives (also across PID namespaces); the sweep takes only folders that no
 * one holds and that have not changed for TEMPDIR_GRACE seconds (a folder
 * just made and not locked yet stays), and removes only what is directly
 * in them, never through a link. Where the file system takes no flock, a
 * folder works unheld.
 */

#include <limits.h>

#define TEMPDIR_GRACE 60

struct tempdir {
	char path[PATH_MAX];
	int lock_fd;		/* holds the flock; -1: none */
};

/*
 * Make a new folder (mode 0700) for prefix ("sbx-run", "sbx-jit") in *t,
 * after sweeping the stale ones. 0, or a negative errno with a message.
 */
int tempdir_make(struct tempdir *t, const char *prefix);

/* Remove the folder and what is in it, and drop the lock. Safe on a zeroed or removed one. */
void tempdir_remove(struct tempdir *t);

#endif
