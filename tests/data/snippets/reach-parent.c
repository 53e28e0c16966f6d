/*
 * A hostile snippet, for sbx run --allow-syscalls (compiled with gcc -S in
 * tests/22-run-hostile.bats): it looks through /proc for another process
 * named as it is (sbx run: the snippet's process is a fork of it) and tries
 * to open its memory for writing, which would let it rewrite sbx. It exits
 * 3 when one opened, else 0. One function, no data section, raw system calls.
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

void reach(void)
{
	volatile u64 proc[1], self[2];
	char buf[8192], path[64], comm[32], mine[32], me[32];
	long dir, n, fd, got, mine_len, me_len;

	proc[0] = 0x636f72702fUL;			/* "/proc" */
	self[0] = 0x65732f636f72702fUL;			/* "/proc/self/comm" */
	self[1] = 0x6d6d6f632f666cUL;
	fd = sys3(2, (long)self, 0, 0);
	mine_len = fd >= 0 ? sys3(0, fd, (long)mine, sizeof(mine)) : -1;
	self[1] = 0x666cUL;				/* "/proc/self": its pid outside */
	me_len = sys3(89, (long)self, (long)me, sizeof(me));	/* readlink */
	dir = sys3(2, (long)proc, 0x10000, 0);
	while (mine_len > 0 && dir >= 0 && (n = sys3(217, dir, (long)buf, sizeof(buf))) > 0) {
		for (long at = 0; at < n; at += ((struct dirent64 *)(buf + at))->reclen) {
			const char *name = ((struct dirent64 *)(buf + at))->name;
			long len = 0, same = 1, k;

			if (name[0] < '0' || name[0] > '9')
				continue;
			for (k = 0; name[k]; k++)
				;
			if (k == me_len) {
				for (long i = 0; i < k; i++)
					same &= name[i] == me[i];
				if (same)
					continue;	/* itself */
			}
			path[len++] = '/', path[len++] = 'p', path[len++] = 'r', path[len++] = 'o';
			path[len++] = 'c', path[len++] = '/';
			for (long i = 0; name[i]; i++)
				path[len++] = name[i];
			path[len++] = '/', path[len++] = 'c', path[len++] = 'o', path[len++] = 'm';
			path[len++] = 'm', path[len] = 0;
			fd = sys3(2, (long)path, 0, 0);
			if (fd < 0)
				continue;
			got = sys3(0, fd, (long)comm, sizeof(comm));
			sys3(3, fd, 0, 0);
			same = got == mine_len;
			for (long i = 0; same && i < got; i++)
				same &= comm[i] == mine[i];
			if (!same)
				continue;
			/* ".../comm" -> ".../mem" */
			path[len - 4] = 'm', path[len - 3] = 'e', path[len - 2] = 'm', path[len - 1] = 0;
			if (sys3(2, (long)path, 2, 0) >= 0)	/* O_RDWR */
				sys3(231, 3, 0, 0);
		}
	}
	sys3(231, 0, 0, 0);
}
