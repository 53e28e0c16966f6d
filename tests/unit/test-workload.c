// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "util/error.h"
#include "measure/workload.h"

static int fn_exit_7(void *arg)
{
	return 7;
}

static int fn_segv(void *arg)
{
	volatile int *p = (int *)(long)arg;

	return *p;
}

static int fn_spin(void *arg)
{
	for (;;)
		;
	return 0;
}

static int fn_write_after_lock(void *arg)
{
	if (workload_seccomp_lock(NULL, 0, 0) < 0)
		return 99;
	(void)!write(1, "", 0);
	return 0;
}

/* A pipe of its own (what the parent had open is closed), read under the filter. */
static int fn_read_allowed_fd(void *arg)
{
	int fds[2];
	char c;

	if (pipe(fds) || write(fds[1], "A", 1) != 1)
		return 96;
	if (workload_seccomp_lock(&fds[0], 1, 0) < 0)
		return 99;
	/* raw system calls: a sanitizer's wrappers may make others on the way out */
	syscall(SYS_exit_group, syscall(SYS_read, fds[0], &c, 1) == 1 ? c : 98);
	return 97;
}

static int run_fn(int (*fn)(void *), void *arg, unsigned flags, double timeout,
		  struct workload_status *st)
{
	struct workload_opts o = { .fn = fn, .arg = arg, .flags = flags, .cpu = -1,
				   .timeout_s = timeout };
	struct workload *w;
	int err = workload_prepare(&o, &w);

	if (err < 0)
		return err;
	err = workload_start(w);
	if (!err)
		err = workload_wait(w, st);
	workload_free(w);
	return err;
}

static void test_exit_code(void)
{
	struct workload_status st;

	CHECK_EQ_INT(run_fn(fn_exit_7, NULL, 0, 0, &st), 0);
	CHECK(st.exited);
	CHECK_EQ_INT(st.exit_code, 7);
	CHECK(!st.signaled && !st.timed_out);
	CHECK_EQ_INT(st.syscall_nr, -1);
}

static void test_segv_under_ptrace(void)
{
	struct workload_status st;
	char buf[128];

	CHECK_EQ_INT(run_fn(fn_segv, (void *)0x10, WORKLOAD_PTRACE, 0, &st), 0);
	CHECK(st.signaled);
	CHECK_EQ_INT(st.signo, SIGSEGV);
	CHECK_EQ_U64(st.fault_addr, 0x10);
	CHECK(st.fault_ip != 0);
	CHECK_EQ_STR(workload_status_describe(&st, 0, buf, sizeof(buf)),
		     "SIGSEGV at address 0x10");
}

static void test_timeout(void)
{
	struct workload_status st;
	char buf[128];

	CHECK_EQ_INT(run_fn(fn_spin, NULL, WORKLOAD_PTRACE, 0.2, &st), 0);
	CHECK(st.timed_out);
	CHECK_EQ_STR(workload_status_describe(&st, 0.2, buf, sizeof(buf)),
		     "timed out after 0.2 s");
}

static void test_seccomp_names_the_syscall(void)
{
	struct workload_status st;
	char buf[128];

	CHECK_EQ_INT(run_fn(fn_write_after_lock, NULL, WORKLOAD_PTRACE | WORKLOAD_SECCOMP, 5,
			    &st), 0);
	CHECK(st.signaled);
	CHECK_EQ_INT(st.signo, SIGSYS);
	CHECK_EQ_INT(st.syscall_nr, 1);
	CHECK_EQ_STR(workload_status_describe(&st, 0, buf, sizeof(buf)),
		     "forbidden system call write (1)");
}

static void test_seccomp_allows_listed_fd(void)
{
	struct workload_status st;

	CHECK_EQ_INT(run_fn(fn_read_allowed_fd, NULL, WORKLOAD_PTRACE | WORKLOAD_SECCOMP, 5,
			    &st), 0);
	CHECK(st.exited);
	CHECK_EQ_INT(st.exit_code, 'A');
	if (!st.exited) {
		char buf[128];

		fprintf(stderr, "# %s\n", workload_status_describe(&st, 5, buf, sizeof(buf)));
	}
}

/* Exit 0 when none of the parent's descriptors above 2 is open here, else the first one. */
static int fn_count_inherited(void *arg)
{
	const int *fds = arg;

	for (int i = 0; i < 2; i++)
		if (fcntl(fds[i], F_GETFD) >= 0)
			return fds[i];
	return 0;
}

static void test_function_child_has_only_stdio(void)
{
	struct workload_status st;
	int p[2];

	/* without close-on-exec, as a descriptor a library left open would be */
	CHECK(pipe(p) == 0);
	CHECK_EQ_INT(run_fn(fn_count_inherited, p, 0, 5, &st), 0);
	CHECK(st.exited);
	CHECK_EQ_INT(st.exit_code, 0);
	close(p[0]);
	close(p[1]);
}

static void test_exec_and_exec_failure(void)
{
	char *ok[] = { "sh", "-c", "exit 3", NULL };
	char *bad[] = { "/nonexistent/sbx-no-such-program", NULL };
	struct workload_opts o = { .argv = ok, .cpu = -1 };
	struct workload_status st;
	struct workload *w;

	CHECK_EQ_INT(workload_prepare(&o, &w), 0);
	CHECK_EQ_INT(workload_start(w), 0);
	CHECK_EQ_INT(workload_wait(w, &st), 0);
	CHECK(st.exited);
	CHECK_EQ_INT(st.exit_code, 3);
	workload_free(w);

	o.argv = bad;
	CHECK_EQ_INT(workload_prepare(&o, &w), 0);
	CHECK_EQ_INT(workload_start(w), -ENOENT);
	CHECK(strstr(sbx_error_msg(), "cannot run '/nonexistent/sbx-no-such-program'"));
	CHECK_EQ_INT(workload_try_wait(w, &st), 1);
	CHECK_EQ_INT(st.exec_errno, ENOENT);
	workload_free(w);
}

static void test_cancel_leaves_no_child(void)
{
	char *argv[] = { "true", NULL };
	struct workload_opts o = { .argv = argv, .cpu = -1 };
	struct workload *w;
	pid_t pid;

	CHECK_EQ_INT(workload_prepare(&o, &w), 0);
	pid = workload_pid(w);
	workload_free(w);
	CHECK(kill(pid, 0) < 0 && errno == ESRCH);
}

static void test_bad_opts(void)
{
	struct workload_opts o = { .cpu = -1 };
	struct workload *w;

	CHECK_EQ_INT(workload_prepare(&o, &w), -EINVAL);
	CHECK(w == NULL);
}

static const struct unit_test tests[] = {
	TEST(test_exit_code),
	TEST(test_segv_under_ptrace),
	TEST(test_timeout),
	TEST(test_seccomp_names_the_syscall),
	TEST(test_seccomp_allows_listed_fd),
	TEST(test_function_child_has_only_stdio),
	TEST(test_exec_and_exec_failure),
	TEST(test_cancel_leaves_no_child),
	TEST(test_bad_opts),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
