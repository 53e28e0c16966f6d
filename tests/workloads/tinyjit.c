// SPDX-License-Identifier: MIT
/*
 * tinyjit [-n NAMEPREFIX] [-i ITERS_MILLIONS] [-m]: a deterministic test JIT
 * (x86-64 only) that describes its code with libsbx-jit.
 *
 * It maps two separate RWX pages A and B and runs three phases of equal
 * work, ITERS million iterations each (default 150) of a loop whose body
 * is a dependent imul+add chain:
 *   1. <prefix>alpha is emitted at A, loaded (lines tinyjit.jit:10-12) and
 *      called at A;
 *   2. alpha is copied to B, moved (CODE_MOVE A -> B) and called at B;
 *   3. <prefix>beta (same chain, add before imul, so other bytes) is
 *      emitted over A, loaded (lines tinyjit.jit:20-22) and called at A:
 *      the address A holds another function later in time.
 * Then it closes the dump and prints its pid. With -m it also appends
 * alpha at A, alpha at B and beta at A to /tmp/perf-<pid>.map.
 * The dump goes where sbx_jit_open() puts it ($SBX_JIT_DIR, ...).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sbx/jit.h"

#define TJ_PAGE		4096
#define TJ_IMM_OFF	2	/* the imm64 of movabs $ITERS, %rcx */
#define TJ_LOOP_OFF	0x11	/* the first instruction of the loop body */

/*
 * alpha:
 *  0: 48 b9 <imm64>	movabs $ITERS, %rcx
 *  a: 48 c7 c0 01 00 00 00	mov $1, %rax
 * 11: 48 0f af c0	1: imul %rax, %rax	(line 10)
 * 15: 48 83 c0 01	   add $1, %rax		(line 11)
 * 19: 48 ff c9		   dec %rcx		(line 12)
 * 1c: 75 f3		   jnz 1b
 * 1e: c3		   ret
 */
static const unsigned char tj_alpha[] = {
	0x48, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0,
	0x48, 0xc7, 0xc0, 0x01, 0x00, 0x00, 0x00,
	0x48, 0x0f, 0xaf, 0xc0,
	0x48, 0x83, 0xc0, 0x01,
	0x48, 0xff, 0xc9,
	0x75, 0xf3,
	0xc3,
};

/*
 * beta: the same, with the loop body
 * 11: 48 83 c0 03	1: add $3, %rax		(line 20)
 * 15: 48 0f af c0	   imul %rax, %rax	(line 21)
 * 19: 48 ff c9		   dec %rcx		(line 22)
 */
static const unsigned char tj_beta[] = {
	0x48, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0,
	0x48, 0xc7, 0xc0, 0x01, 0x00, 0x00, 0x00,
	0x48, 0x83, 0xc0, 0x03,
	0x48, 0x0f, 0xaf, 0xc0,
	0x48, 0xff, 0xc9,
	0x75, 0xf3,
	0xc3,
};

_Static_assert(sizeof(tj_alpha) == sizeof(tj_beta), "alpha and beta have one layout");

typedef uint64_t (*tj_fn)(void);

static volatile uint64_t tj_sink;

static void tj_die(const char *what, int err)
{
	fprintf(stderr, "tinyjit: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void *tj_map(void)
{
	void *p = mmap(NULL, TJ_PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		tj_die("mmap", errno);
	return p;
}

/* Copy code to at with ITERS patched in. */
static void tj_emit(unsigned char *at, const unsigned char *code, size_t size, uint64_t iters)
{
	memcpy(at, code, size);
	memcpy(at + TJ_IMM_OFF, &iters, sizeof(iters));
	__builtin___clear_cache((char *)at, (char *)at + size);
}

static void tj_call(const void *at)
{
	tj_fn volatile fn = (tj_fn)at;

	tj_sink = fn();
	__asm__ __volatile__("" ::: "memory");
}

static void tj_perf_map(const void *addr, size_t size, const char *name)
{
	int err = sbx_jit_perf_map(addr, size, name);

	if (err)
		tj_die("sbx_jit_perf_map", err);
}

static void tj_load(struct sbx_jit *j, const char *name, const unsigned char *at,
		    size_t size, uint32_t first_line, uint64_t *idx)
{
	struct sbx_jit_line lines[3];
	struct sbx_jit_code c;
	int i, err;

	for (i = 0; i < 3; i++) {
		lines[i].addr = (uint64_t)(uintptr_t)at + TJ_LOOP_OFF + 4 * (unsigned int)i;
		lines[i].file = "tinyjit.jit";
		lines[i].line = first_line + (uint32_t)i;
		lines[i].column = 1;
	}
	memset(&c, 0, sizeof(c));
	c.name = name;
	c.addr = at;
	c.size = size;
	c.lines = lines;
	c.nr_lines = 3;
	err = sbx_jit_load(j, &c, idx);
	if (err)
		tj_die("sbx_jit_load", err);
}

static void tj_usage(void)
{
	fprintf(stderr, "usage: tinyjit [-n NAMEPREFIX] [-i ITERS_MILLIONS] [-m]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *prefix = "jit_";
	unsigned long long millions = 150;
	char alpha[256], beta[256], *end;
	unsigned char *a, *b;
	struct sbx_jit *j;
	uint64_t iters, idx_alpha, idx_beta;
	int opt, map = 0, err;

	while ((opt = getopt(argc, argv, "n:i:m")) != -1) {
		switch (opt) {
		case 'n':
			prefix = optarg;
			break;
		case 'i':
			errno = 0;
			millions = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    millions > UINT64_MAX / 1000000)
				tj_usage();
			break;
		case 'm':
			map = 1;
			break;
		default:
			tj_usage();
		}
	}
	if (optind != argc)
		tj_usage();
	if (snprintf(alpha, sizeof(alpha), "%salpha", prefix) >= (int)sizeof(alpha) ||
	    snprintf(beta, sizeof(beta), "%sbeta", prefix) >= (int)sizeof(beta)) {
		fprintf(stderr, "tinyjit: name prefix too long\n");
		return 2;
	}
	iters = millions * 1000000;
	if (!iters)
		iters = 1;	/* the loop runs at least once */

	a = tj_map();
	b = tj_map();
	j = sbx_jit_open();
	if (!j)
		tj_die("sbx_jit_open", errno);

	/* 1: alpha at A */
	tj_emit(a, tj_alpha, sizeof(tj_alpha), iters);
	tj_load(j, alpha, a, sizeof(tj_alpha), 10, &idx_alpha);
	if (map)
		tj_perf_map(a, sizeof(tj_alpha), alpha);
	tj_call(a);

	/* 2: alpha moves to B */
	memcpy(b, a, sizeof(tj_alpha));
	__builtin___clear_cache((char *)b, (char *)b + sizeof(tj_alpha));
	err = sbx_jit_move(j, idx_alpha, a, b, sizeof(tj_alpha));
	if (err)
		tj_die("sbx_jit_move", err);
	if (map)
		tj_perf_map(b, sizeof(tj_alpha), alpha);
	tj_call(b);

	/* 3: beta replaces alpha at A */
	tj_emit(a, tj_beta, sizeof(tj_beta), iters);
	tj_load(j, beta, a, sizeof(tj_beta), 20, &idx_beta);
	if (map)
		tj_perf_map(a, sizeof(tj_beta), beta);
	tj_call(a);

	err = sbx_jit_close(j);
	if (err)
		tj_die("sbx_jit_close", err);
	printf("%d\n", (int)getpid());
	return 0;
}
