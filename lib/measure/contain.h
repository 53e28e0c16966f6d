/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_CONTAIN_H
#define SBX_MEASURE_CONTAIN_H

/*
 * Containment of what a command starts (sbx run's snippets and assemblers,
 * sbx record's command): nothing outlives sbx, however sbx ends.
 *
 * contain_start(), once per command before its first workload:
 *  - makes this process the subreaper of what it starts
 *    (PR_SET_CHILD_SUBREAPER), so that workload_end_descendants() finds the
 *    orphans while sbx lives;
 *  - makes a cgroup "sbx-PID" below this process's own in the cgroup v2
 *    hierarchy, which every workload joins before it is uncorked
 *    (workload_prepare() calls contain_join());
 *  - forks a watchdog: a process of its own session that waits for this one
 *    to end (a pipe only this process holds) and then kills everything in
 *    the cgroup (cgroup.kill) and removes it. So a SIGKILL of sbx ends the
 *    command's grandchildren too, which neither the process group nor
 *    PR_SET_PDEATHSIG reach. At a normal exit contain_end() (atexit) does
 *    the same and waits for the watchdog: it does not outlive sbx either.
 *
 * A workload that must not reach sbx's processes at all (sbx run's
 * snippets) is also born in a PID namespace of its own (WORKLOAD_PID_NS).
 *
 * Limits (--max-pids, --max-memory) go into the cgroup: pids.max and
 * memory.max of cgroup v2 where those controllers are enabled for it, else
 * a cgroup of the v1 pids or memory hierarchy (hybrid systems). A limit
 * that no hierarchy offers is an error naming why; containment without a
 * limit falls back silently to the subreaper where there is no cgroup v2
 * this process may write (a container without it, an unprivileged user
 * without a delegated cgroup): then a SIGKILL of sbx ends only the direct
 * child (PR_SET_PDEATHSIG).
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct contain_limits {
	uint64_t max_pids;	/* processes (and threads) at once; 0: no limit */
	uint64_t max_memory;	/* bytes; 0: no limit */
};

/*
 * Set up the containment (above) with limits lim (may be NULL). Returns 0,
 * or a negative errno with a message when a limit cannot be set (nothing
 * is contained then: the command must not run). Once per process; later
 * calls return the first one's result.
 */
int contain_start(const struct contain_limits *lim);

/*
 * Put pid (a corked child) into the cgroups. 0, or a negative errno with
 * a message when limits were asked for and pid cannot be put under them.
 * Nothing to do (0) before contain_start() or without a cgroup.
 */
int contain_join(pid_t pid);

/* Whether pid is containment's own process (the watchdog): a child of sbx not to end. */
bool contain_is_own(pid_t pid);

/* The write end of the watchdog's pipe, which a forked child must close; -1: none. */
int contain_fd(void);

/* The cgroup v2 folder the workloads join, or NULL (for messages and tests). */
const char *contain_cgroup(void);

/*
 * Kill what is in the cgroups (the command's processes, wherever they
 * were reparented); the number of processes signalled.
 */
size_t contain_kill(void);

/* How many processes the OOM killer ended in the --max-memory cgroup so far (0: none). */
uint64_t contain_oom_kills(void);

/* Kill the cgroups' processes, remove the cgroups, end the watchdog. Idempotent. */
void contain_end(void);

#endif
