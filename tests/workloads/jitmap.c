// SPDX-License-Identifier: MIT
/*
 * jitmap NAME: copies a spin loop (x86-64, 400 million iterations) into
 * anonymous executable memory, names it NAME in /tmp/perf-PID.map as a JIT
 * would, runs it, and prints its pid, so that the caller can remove the map
 * file when done with the profile.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	/* mov $400000000, %rax; 1: dec %rax; jnz 1b; ret */
	static const unsigned char code[] = {
		0x48, 0xc7, 0xc0, 0x00, 0x84, 0xd7, 0x17, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3,
	};
	char path[64];
	unsigned char *p;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: jitmap NAME\n");
		return 2;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx %s\n", (unsigned long)p, sizeof(code), argv[1]);
	fclose(f);
	((void (*)(void))p)();
	printf("%d\n", (int)getpid());
	return 0;
}
