// SPDX-License-Identifier: MIT
/*
 * forker [NPROCS [MILLIONS]]: runs this same PIE binary as NPROCS (default
 * 4, at most 8) concurrent processes, each exec'ed anew so that each gets
 * its own load address. Child i spins in function spin_<i> for MILLIONS
 * (default 300) million iterations, after printing "child PID spin_<i>" on
 * stdout, so per-process attribution has a known answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SPIN(i) \
	__attribute__((noinline, noipa)) void spin_##i(unsigned long n) \
	{ \
		for (unsigned long k = 0; k < n; k++) \
			__asm__ volatile("nop; add $" #i ", %%eax" ::: "eax", "memory"); \
	}

SPIN(0) SPIN(1) SPIN(2) SPIN(3) SPIN(4) SPIN(5) SPIN(6) SPIN(7)

static void (*const spins[])(unsigned long) = {
	spin_0, spin_1, spin_2, spin_3, spin_4, spin_5, spin_6, spin_7,
};

int main(int argc, char **argv)
{
	int nprocs = argc > 1 ? atoi(argv[1]) : 4;
	const char *millions = argc > 2 ? argv[2] : "300";
	char self[4096];
	int status = 0;

	if (argc > 3 && !strcmp(argv[1], "--child")) {
		int i = atoi(argv[2]);
		unsigned long n = strtoul(argv[3], NULL, 0) * 1000000UL;

		printf("child %d spin_%d\n", (int)getpid(), i);
		fflush(stdout);
		spins[i](n);
		return 0;
	}
	if (nprocs < 1 || nprocs > 8) {
		fprintf(stderr, "forker: NPROCS must be 1..8\n");
		return 2;
	}
	/*
	 * The children exec this binary by its real path, not /proc/self/exe,
	 * so that their comm is "forker" too (exec names a process after the
	 * file's basename).
	 */
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0) {
		perror("forker: readlink /proc/self/exe");
		return 1;
	}
	self[n] = 0;
	for (int i = 0; i < nprocs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forker: fork");
			return 1;
		}
		if (pid == 0) {
			char idx[16];

			snprintf(idx, sizeof(idx), "%d", i);
			execl(self, argv[0], "--child", idx, millions, (char *)NULL);
			perror("forker: exec");
			_exit(127);
		}
	}
	for (int i = 0; i < nprocs; i++) {
		int st;

		if (wait(&st) > 0 && (!WIFEXITED(st) || WEXITSTATUS(st)))
			status = 1;
	}
	return status;
}
