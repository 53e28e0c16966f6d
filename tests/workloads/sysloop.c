// SPDX-License-Identifier: MIT
/*
 * sysloop [N]: N (default 1000000) getppid system calls, so that a
 * syscall tracepoint fires a known, large number of times.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
