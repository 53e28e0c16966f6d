/* SPDX-License-Identifier: MIT */
#ifndef SBX_WORKLOAD_H
#define SBX_WORKLOAD_H

/*
 * A workload: a forked child that waits on a cork pipe until the parent
 * has set up whatever must see it from its first instruction (counters,
 * ptrace), then runs a function or execs a command line. This is the one
 * place in sbx that forks (perf's cork pipe).
 *
 *   workload_prepare()  fork; the child pins itself and blocks on the cork
 *   ... open counters on workload_pid() ...
 *   workload_start()    uncork; in exec mode an exec failure is returned here
 *   workload_wait()     or workload_try_wait() in a loop
 *   workload_free()
 *
 * A prepared workload that is not started is cancelled by workload_free()
 * (or workload_cancel()): no corked child is ever left behind.
 */

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct workload;

/* How a workload ended. */
struct workload_status {
	int exited, exit_code;		/* normal exit and its code */
	int signaled, signo;		/* killed by a signal (ptrace: the fatal one, with siginfo) */
	unsigned long fault_addr;	/* si_addr for SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGTRAP */
	unsigned long fault_ip;		/* the child's rip at the fault (ptrace only, else 0) */
	int timed_out;			/* ended (SIGKILL) by the timeout; signaled is 0 then */
	long syscall_nr;		/* a forbidden system call (seccomp), else -1 */
	int seccomp;			/* the child ran under the seccomp filter */
	int stopped;			/* ended (SIGKILL) because *opts.stop was set: its value */
	int exec_errno;			/* exec (or pinning to cpu) failed in the child: its
					   errno, else 0 */
	int oom_killed;			/* the SIGKILL came from the OOM killer of the
					   --max-memory cgroup (contain.h) */
};

enum {
	/*
	 * Supervise the child with PTRACE_SEIZE: a fatal signal is caught at
	 * delivery with its siginfo and the child's rip, then the child is
	 * killed (SIGKILL) and the signal reported in signo.
	 */
	WORKLOAD_PTRACE = 1,
	/*
	 * Allow the child a seccomp filter (workload_seccomp_lock()). In
	 * fn mode the function calls workload_seccomp_lock() itself once its
	 * set-up is done; the flag then only tells workload_wait() to decode
	 * SIGSYS into syscall_nr. Not supported with argv (-EINVAL).
	 */
	WORKLOAD_SECCOMP = 2,
	/*
	 * The child leads a process group of its own, and whatever is left of
	 * the group is SIGKILLed when the child ends or is ended: what it forks
	 * does not outlive it. Not for a command that reads the terminal (a
	 * background group cannot).
	 */
	WORKLOAD_OWN_GROUP = 4,
	/*
	 * fn mode: the child is born in a PID namespace of its own (with a
	 * user namespace mapping the user's own uid and gid, for a plain
	 * user), whose init it is. From inside, no process outside has a PID:
	 * it can neither signal sbx, its watchdog nor the user's other
	 * processes (getppid() is 0), and when it ends, or is ended, the
	 * kernel kills whatever it started there, wherever that went (another
	 * cgroup, another session). A signal it sends itself that it has no
	 * handler for ends it as it would any process (under WORKLOAD_PTRACE,
	 * which sees it: an init is otherwise immune to them); a SIGKILL or a
	 * stop signal it sends itself is ignored, as for any init. Where the
	 * kernel refuses (user namespaces off), the child is forked as usual
	 * and workload_pid_ns_missing() says why.
	 */
	WORKLOAD_PID_NS = 8,
};

struct workload_opts {
	char *const *argv;		/* exec this, searching PATH ... */
	int (*fn)(void *arg);		/* ... or run this in the child; its return is the exit
					   code, passed to exit_group(2) directly. It starts
					   with descriptors 0-2 only: the others are closed */
	void *arg;			/* passed to fn (in the child's copy of memory) */
	unsigned flags;			/* WORKLOAD_* */
	int cpu;			/* pin the child to this CPU; -1 none */
	double timeout_s;		/* SIGKILL the child after this many seconds; 0 none */
	const int *stdio_fds;		/* NULL: inherit; else the child's {stdin, stdout,
					   stderr} are dup2()ed from these (-1 keeps one) */
	/*
	 * When *stop becomes non-zero (a signal handler sets it to its
	 * signal), the child is ended at once (SIGKILL) and the wait returns
	 * with stopped set to that value. NULL: no such flag.
	 */
	const volatile sig_atomic_t *stop;
	unsigned long long max_memory;	/* RLIMIT_AS of the child, bytes; 0: unlimited */
};

/*
 * Fork the child and leave it corked: it has pinned itself (opts->cpu) and
 * waits on the cork pipe. Exactly one of opts->argv and opts->fn is set.
 * With WORKLOAD_PTRACE the child is already seized on return. Core dumps
 * are off in the child (RLIMIT_CORE 0), SIGPIPE is back to its default
 * action and no signal is blocked; it gets SIGKILL if the parent dies, and
 * it is in the command's cgroups (contain_join()) before it is uncorked.
 * opts is copied (argv is not: it
 * must stay valid until workload_start()).
 * Returns 0 and the workload in *out (freed with workload_free()), or a
 * negative errno with an sbx_error message.
 */
int workload_prepare(const struct workload_opts *opts, struct workload **out);

/* The child's pid. */
pid_t workload_pid(const struct workload *w);

/*
 * Uncork the child; the timeout starts counting now. In exec mode, waits
 * until the exec has happened: an exec failure returns -errno (message
 * "cannot run 'CMD': ...") and the child is reaped, its status holding
 * exec_errno. A failure to pin the child to opts->cpu is returned the same
 * way in both modes ("cannot pin the child to CPU N: ..."). Returns 0 on
 * success.
 */
int workload_start(struct workload *w);

/*
 * Check without blocking whether the child ended; handles ptrace stops and
 * the timeout on the way. Returns 1 and fills *st when it ended, 0 while
 * it runs, or a negative errno. Once it returned 1, later calls return 1
 * with the same status.
 */
int workload_try_wait(struct workload *w, struct workload_status *st);

/*
 * Block until the child ends (or the timeout ends it) and fill *st.
 * Returns 0, or a negative errno.
 */
int workload_wait(struct workload *w, struct workload_status *st);

/* Close the cork, kill the child (SIGKILL) and reap it. Safe to call twice. */
void workload_cancel(struct workload *w);

/* Cancel the child if it still runs and free w. NULL is fine. */
void workload_free(struct workload *w);

/*
 * SIGKILL what is in the command's cgroups (contain.h), and SIGKILL and reap
 * every process still running below this one (children of the calling
 * thread, then what they leave orphaned: contain_start() made this process
 * their subreaper) but the watchdog, in rounds until none is left; the
 * number reaped. For the end of a command, once its workload ended:
 * nothing it started outlives it.
 */
size_t workload_end_descendants(void);

/*
 * NULL while WORKLOAD_PID_NS children get their namespace; else why they
 * do not ("no user namespace for a PID namespace: ..."), from the first
 * such child that could not, or from a probe (a child that exits at once)
 * when none was made yet.
 */
const char *workload_pid_ns_missing(void);

/* What workload_seccomp_lock() allows besides exit, exit_group and the counters */
enum {
	WORKLOAD_ALLOW_SET_SEGMENTS = 1,	/* arch_prctl(ARCH_SET_FS or ARCH_SET_GS, ...) */
};

/*
 * For a fn-mode child: install a seccomp filter in the calling process
 * that allows only exit and exit_group, read and ioctl on the file
 * descriptors in allowed_fds[0..nfds) (the child's own counters), and what
 * allow (WORKLOAD_ALLOW_*) names. Any other system call raises SIGSYS,
 * which workload_wait() reports as syscall_nr (under WORKLOAD_PTRACE).
 * Returns 0 or a negative errno; call it only in the child.
 */
int workload_seccomp_lock(const int *allowed_fds, int nfds, unsigned allow);

/*
 * Describe how a workload ended in buf: "exited with code 3", "killed by
 * SIGSEGV at address 0x10", "timed out after 2 s", "forbidden system call
 * write (1)", "cannot run: No such file or directory". Returns buf.
 */
char *workload_status_describe(const struct workload_status *st, double timeout_s,
			       char *buf, size_t len);

/* "SIGSEGV" for SIGSEGV, "SIG12" for an unnamed one; a static string or buf. */
const char *workload_signal_name(int signo, char *buf, size_t len);

/* The name of x86-64 system call nr ("write"), or NULL when unknown. */
const char *workload_syscall_name(long nr);

#endif
