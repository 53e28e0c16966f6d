// SPDX-License-Identifier: MIT
/*
 * Measuring a snippet in a supervised child. The parent computes the sizes,
 * forks (workload), and aggregates; the child builds the code, times it and
 * writes raw readings into a shared page.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/error.h"
#include "util/escape.h"
#include "measure/cpu.h"
#include "measure/events.h"
#include "measure/figure.h"
#include "measure/measure.h"

#define SCRATCH_SIZE (1ul << 20)
#define MAX_CODE_SIZE (256ul << 20)
#define PAGE 4096ul
#define MAX_DRIFT 0.02		/* calibration drift worth measuring again */
#define MIN_CAL_READINGS 30u	/* of each calibration size, however few the repeats */
/*
 * A timed reading spans at least this many instructions, calling the code
 * several times in a row when --min-instructions is smaller: the TSC of a
 * VM may tick in steps of tens of cycles.
 */
#define MIN_TIMED_INSNS 100000ul
#define WARMUP 3

/* what a generated function runs: the snippet or one of the calibration chains */
enum body_kind { BODY_SNIPPET, BODY_CAL_ADD, BODY_CAL_MUL };

enum counter_kind { CK_HW, CK_TSC, CK_TASK };

/*
 * What the child writes for the parent (a MAP_SHARED page between guard
 * pages). The snippet runs in that process and can write it too: the
 * parent reads a copy taken once the child is gone (report_take()) and
 * checks every field before it uses one (report_check()).
 */
struct shared {
	int done;		/* measuring finished */
	unsigned char unavailable[MEASURE_MAX_EVENTS];	/* events the machine cannot count */
	int multiplexed;	/* 1 + the index of a counter not running all the time */
	int setup_failed;	/* msg says why */
	char msg[256];
	uint64_t copies_begin, copies_end;	/* the snippet's copies in the child */
	uint64_t code_begin, code_end;		/* the whole generated function */
	uint64_t raw[];		/* [repeat][slot][1 + n_events] */
};

/* What the child works from (its copy of the parent's memory). */
struct child_arg {
	const struct snippet *s;
	const struct measure_opts *o;
	enum measure_repetition rep;	/* DUPLICATE or LOOP */
	enum counter_kind ck;
	unsigned long k;		/* copies (duplicate) or trips (loop) of the K run */
	unsigned calls;			/* calls of the code per timed reading */
	struct perf_event_attr attrs[MEASURE_MAX_EVENTS];
	int n_events;
	struct shared *sh;
	size_t stride;			/* 1 + n_events */
	bool has_rdtscp, has_avx;
};

/* The context page the generated code uses: saved rsp, trip count. */
struct code_ctx {
	uint64_t saved_rsp;
	uint64_t trips;
};

void measure_opts_init(struct measure_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = MEASURE_LATENCY;
	o->repetition = MEASURE_DUPLICATE;
	o->aggregate = MEASURE_AGG_MIN;
	o->counter = MEASURE_COUNTER_AUTO;
	o->min_instructions = 10000;
	o->repeat_count = 30;
	o->cpu = -1;
	o->timeout_s = 10;
}

static const char *const mode_names[] = { "latency", "inverse_throughput", "uops" };
static const char *const rep_names[] = { "duplicate", "loop", "min" };
static const char *const agg_names[] = { "min", "median", "mean", "min-variance" };
static const char *const counter_names[] = { "auto", "cycles", "tsc", "task-clock" };

static int lookup(const char *s, const char *const *names, int n, const char *what)
{
	char list[256] = "";

	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(list);

		snprintf(list + l, sizeof(list) - l, "%s%s", i ? ", " : "", names[i]);
	}
	return sbx_error(-EINVAL, "invalid %s '%s' (expected one of: %s)", what, s, list);
}

int measure_parse_mode(const char *s, enum measure_mode *out)
{
	int i = lookup(s, mode_names, 3, "mode");

	if (i < 0)
		return i;
	*out = (enum measure_mode)i;
	return 0;
}

int measure_parse_repetition(const char *s, enum measure_repetition *out)
{
	int i;

	/* llvm-exegesis's middle-half modes are the 2N - N difference sbx always takes */
	if (!strcmp(s, "middle-half-duplicate"))
		s = "duplicate";
	else if (!strcmp(s, "middle-half-loop"))
		s = "loop";
	i = lookup(s, rep_names, 3, "repetition mode");

	if (i < 0)
		return i;
	*out = (enum measure_repetition)i;
	return 0;
}

int measure_parse_aggregate(const char *s, enum measure_aggregate *out)
{
	int i = lookup(s, agg_names, 4, "aggregation mode");

	if (i < 0)
		return i;
	*out = (enum measure_aggregate)i;
	return 0;
}

int measure_parse_counter(const char *s, enum measure_counter *out)
{
	int i = lookup(s, counter_names, 4, "cycle counter");

	if (i < 0)
		return i;
	*out = (enum measure_counter)i;
	return 0;
}

const char *measure_mode_name(enum measure_mode m) { return mode_names[m]; }
const char *measure_repetition_name(enum measure_repetition r) { return rep_names[r]; }
const char *measure_aggregate_name(enum measure_aggregate a) { return agg_names[a]; }

/* code generation ---------------------------------------------------------- */

struct emit {
	uint8_t *buf;		/* NULL: only count */
	size_t len;
	uint64_t base;		/* the address buf[0] will run at */
};

static void put(struct emit *e, const void *p, size_t n)
{
	if (e->buf && n)
		memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static void put1(struct emit *e, uint8_t b) { put(e, &b, 1); }

static void put_movabs(struct emit *e, int reg, uint64_t v)
{
	uint8_t op[2] = { (uint8_t)(0x48 | (reg >= 8)), (uint8_t)(0xb8 + (reg & 7)) };

	put(e, op, 2);
	put(e, &v, 8);
}

/* mov (reg), reg */
static void put_load_self(struct emit *e, int reg)
{
	int r = reg & 7;

	put1(e, (uint8_t)(0x48 | (reg >= 8 ? 5 : 0)));
	put1(e, 0x8b);
	if (r == 4) {
		put1(e, (uint8_t)(0x04 | r << 3));
		put1(e, 0x24);
	} else if (r == 5) {
		put1(e, (uint8_t)(0x45 | r << 3));
		put1(e, 0);
	} else {
		put1(e, (uint8_t)(r << 3 | r));
	}
}

static void put_align(struct emit *e, size_t a)
{
	while ((e->base + e->len) % a)
		put1(e, 0x90);
}

struct layout {
	size_t entry[2];			/* of the K run and of the 2K run */
	size_t copies_begin, copies_end;	/* offsets */
};

static bool reg_is_livein(const struct snippet *s, int num)
{
	for (int i = 0; i < s->n_liveins; i++)
		if (s->liveins[i].cls == SNIPPET_REG_GPR && s->liveins[i].num == num)
			return true;
	return false;
}

/* The DEFREG of a register, or NULL. */
static const struct snippet_defreg *defreg_of(const struct snippet *s, enum snippet_reg_class cls,
					      int num)
{
	for (int i = 0; i < s->n_defregs; i++)
		if (s->defregs[i].reg.cls == cls && s->defregs[i].reg.num == num)
			return &s->defregs[i];
	return NULL;
}

/* arch_prctl(code, value): the only system call of the generated code, before and after */
static void put_arch_prctl(struct emit *e, int code, uint64_t value)
{
	put(e, (const uint8_t[]){ 0xb8, 158, 0, 0, 0 }, 5);	/* mov $SYS_arch_prctl,%eax */
	put1(e, 0xbf);						/* mov $code,%edi */
	put(e, &(uint32_t){ (uint32_t)code }, 4);
	put_movabs(e, SNIPPET_RSI, value);
	put(e, (const uint8_t[]){ 0x0f, 0x05 }, 2);		/* syscall */
}

/* The FS (0) or GS (1) base of this thread, what the generated code restores. */
static uint64_t segment_base(int gs)
{
	unsigned long v = 0;

	if (syscall(SYS_arch_prctl, gs ? ARCH_GET_GS : ARCH_GET_FS, &v) < 0)
		return 0;
	return v;
}

/*
 * The set-up of one entry: save callee-saved registers and rsp, then run
 * the snippet's .sbx_init (the start state of MXCSR, x87, vector and mask
 * registers, their DEFREGs, and the flags), set the segment bases (FS, GS:
 * the one system call, which keeps the flags), the general registers
 * (zero unless DEFREG or LIVEIN) and, last, RSP, so that every register
 * holds its start value at the snippet's first instruction.
 */
static void emit_setup(struct emit *e, const struct child_arg *a, bool calibration, uint64_t ctx,
		       uint64_t scratch, int loop_reg)
{
	static const uint8_t pushes[] = { 0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57 };
	const struct snippet *s = a->s;
	const struct snippet_defreg *rsp;
	uint64_t v[16] = { 0 };
	bool set[16];

	/*
	 * lfence: the previous call's copies complete first (the code is called
	 * several times per reading), so that a chain of one call does not
	 * overlap the next one's (dispatch-serializing on Intel, and on AMD
	 * where the kernel sets it so, as Linux does)
	 */
	put(e, (const uint8_t[]){ 0x0f, 0xae, 0xe8 }, 3);
	put(e, pushes, sizeof(pushes));
	put_movabs(e, SNIPPET_RAX, ctx);
	put(e, (const uint8_t[]){ 0x48, 0x89, 0x20 }, 3);	/* mov %rsp,(%rax) */
	if (calibration)
		return;
	put(e, s->init_code, s->init_size);
	for (int i = 0; i < s->n_defregs; i++) {
		const struct snippet_defreg *d = &s->defregs[i];
		uint64_t base;

		if (d->reg.cls != SNIPPET_REG_SEG)
			continue;
		memcpy(&base, d->value, 8);
		put_arch_prctl(e, d->reg.num ? ARCH_SET_GS : ARCH_SET_FS, base);
	}
	for (int r = 0; r < 16; r++)
		set[r] = r != SNIPPET_RSP && !reg_is_livein(s, r);
	v[SNIPPET_RDI] = scratch;
	set[SNIPPET_RDI] = true;
	for (int i = 0; i < s->n_defregs; i++) {
		const struct snippet_defreg *d = &s->defregs[i];

		if (d->reg.cls != SNIPPET_REG_GPR || d->reg.num == SNIPPET_RSP)
			continue;
		memcpy(&v[d->reg.num], d->value, 8);
		set[d->reg.num] = true;
	}
	for (int r = 0; r < 16; r++)
		if (set[r])
			put_movabs(e, r, v[r]);
	if (loop_reg >= 0) {
		put_movabs(e, loop_reg, ctx + offsetof(struct code_ctx, trips));
		put_load_self(e, loop_reg);
	}
	rsp = defreg_of(s, SNIPPET_REG_GPR, SNIPPET_RSP);
	if (rsp) {
		memcpy(&v[SNIPPET_RSP], rsp->value, 8);
		put_movabs(e, SNIPPET_RSP, v[SNIPPET_RSP]);
	}
}

/* jmp rel32 to a place not known yet: the offset of its rel32 */
static size_t put_jmp(struct emit *e)
{
	put1(e, 0xe9);
	put(e, &(uint32_t){ 0 }, 4);
	return e->len - 4;
}

static void patch_jmp(struct emit *e, size_t at, size_t target)
{
	int32_t rel = (int32_t)((long)target - (long)(at + 4));

	if (e->buf)
		memcpy(e->buf + at, &rel, 4);
}

/*
 * The generated function. Duplicate mode (and the calibration): two
 * entries, each a set-up that jumps into 2K copies of the body, at copy K
 * (the K run) or at the first (the 2K run, the first to run: the snippet's
 * first instruction is then next to the set-up, on the page of
 * SNIPPET-ADDRESS). Loop mode: one entry, a loop
 * of ctx->trips iterations. Then rsp, the segment bases and the
 * callee-saved registers are restored and the function returns. Nothing
 * between the set-up and the first copy touches a register or the stack.
 */
static void emit_function(struct emit *e, const struct child_arg *a, enum body_kind kind,
			  uint64_t ctx, uint64_t scratch, struct layout *lay)
{
	static const uint8_t pops[] = { 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5d, 0x5b };
	/* the calibration chains: one instruction, K copies of it */
	static const struct {
		uint8_t insn[4];
		size_t size;
		unsigned long k;
	} chain[] = {
		[BODY_CAL_ADD] = { { 0x48, 0x01, 0xc0 }, 3, CAL_ADDS },		/* add %rax,%rax */
		[BODY_CAL_MUL] = { { 0x48, 0x0f, 0xaf, 0xc0 }, 4, CAL_MULS },	/* imul %rax,%rax */
	};
	const struct snippet *s = a->s;
	bool calibration = kind != BODY_SNIPPET;
	const uint8_t *body = calibration ? chain[kind].insn : s->code;
	size_t body_size = calibration ? chain[kind].size : s->code_size;
	bool loop = !calibration && a->rep == MEASURE_LOOP;
	unsigned long k = calibration ? chain[kind].k : a->k;
	/* without the difference only the K run is made: K copies */
	unsigned long copies = loop ? 1 : !calibration && a->o->no_diff ? k : 2 * k;

	if (!loop) {
		size_t jmp[2];

		for (int big = 0; big < 2; big++) {
			lay->entry[big] = e->len;
			emit_setup(e, a, calibration, ctx, scratch, -1);
			jmp[big] = put_jmp(e);
		}
		put_align(e, 64);
		lay->copies_begin = e->len;
		for (unsigned long i = 0; i < copies; i++)
			put(e, body, body_size);
		lay->copies_end = e->len;
		patch_jmp(e, jmp[0], lay->copies_begin + (copies - k) * body_size);
		patch_jmp(e, jmp[1], lay->copies_begin);
	} else {
		int l = s->loop_reg;
		size_t top;
		int32_t rel;

		lay->entry[0] = lay->entry[1] = e->len;
		emit_setup(e, a, calibration, ctx, scratch, l);
		put_align(e, 64);
		top = e->len;
		lay->copies_begin = top;
		for (unsigned long i = 0; i < copies; i++)
			put(e, body, body_size);
		lay->copies_end = e->len;
		/* add $-1,%l; jne top */
		put(e, (const uint8_t[]){ (uint8_t)(0x48 | (l >= 8)), 0x83,
					  (uint8_t)(0xc0 | (l & 7)), 0xff }, 4);
		put(e, (const uint8_t[]){ 0x0f, 0x85 }, 2);
		rel = (int32_t)((long)top - (long)(e->len + 4));
		put(e, &rel, 4);
	}
	put_movabs(e, SNIPPET_RSP, ctx);
	put(e, (const uint8_t[]){ 0x48, 0x8b, 0x24, 0x24 }, 4);	/* mov (%rsp),%rsp */
	if (!calibration) {
		/* the harness's own FS (its TLS) and GS back */
		for (int gs = 0; gs < 2; gs++)
			if (defreg_of(s, SNIPPET_REG_SEG, gs))
				put_arch_prctl(e, gs ? ARCH_SET_GS : ARCH_SET_FS, segment_base(gs));
	}
	/* the harness's flags: none a snippet set (DF, AC) may reach it */
	put(e, (const uint8_t[]){ 0x68, 0x02, 0x02, 0x00, 0x00, 0x9d }, 6);	/* push $0x202; popfq */
	if (a->has_avx)
		put(e, (const uint8_t[]){ 0xc5, 0xf8, 0x77 }, 3);	/* vzeroupper */
	put(e, pops, sizeof(pops));
	put1(e, 0xc3);
}

static size_t round_page(size_t n)
{
	return (n + PAGE - 1) & ~(PAGE - 1);
}

/* the child ------------------------------------------------------------------ */

static __attribute__((format(printf, 2, 3))) int child_fail(struct shared *sh,
							     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->msg, sizeof(sh->msg), fmt, ap);
	va_end(ap);
	sh->setup_failed = 1;
	return 125;
}

/* Map n bytes at addr (0: anywhere), never replacing a mapping. */
static void *map_at(uint64_t addr, size_t n, int prot)
{
	void *p = mmap((void *)addr, n, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		       (addr ? MAP_FIXED_NOREPLACE : 0), -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (addr && (uint64_t)p != addr) {
		munmap(p, n);
		errno = EEXIST;
		return NULL;
	}
	return p;
}

/*
 * n bytes (whole pages) of read-write memory between two PROT_NONE pages:
 * a snippet that finds the context page and writes past either end of it
 * faults, whatever else the process has mapped next to it (a sanitizer's
 * shadow, the heap). NULL with errno.
 */
static void *map_guarded(size_t n)
{
	uint8_t *area = mmap(NULL, n + 2 * PAGE, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (area == MAP_FAILED)
		return NULL;
	if (mprotect(area + PAGE, n, PROT_READ | PROT_WRITE) < 0) {
		int e = errno;

		munmap(area, n + 2 * PAGE);
		errno = e;
		return NULL;
	}
	return area + PAGE;
}

/* Build a function into fresh memory at addr (0: anywhere); its entry or NULL. */
static uint8_t *build(const struct child_arg *a, enum body_kind kind, uint64_t addr,
		      uint64_t ctx, uint64_t scratch, struct layout *lay)
{
	struct emit e = { 0 };
	size_t size;
	uint8_t *p;

	/* the layout depends on the address only through alignment: count at it */
	e.base = addr;
	emit_function(&e, a, kind, ctx, scratch, lay);
	size = round_page(e.len + 64);
	p = map_at(addr, size, PROT_READ | PROT_WRITE);
	if (!p)
		return NULL;
	e = (struct emit){ .buf = p, .base = (uint64_t)p };
	emit_function(&e, a, kind, ctx, scratch, lay);
	if (mprotect(p, size, PROT_READ | PROT_EXEC) < 0)
		return NULL;
	return p;
}

static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t tsc_end(bool rdtscp)
{
	uint32_t lo, hi;

	if (rdtscp)
		__asm__ volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
	else
		__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

/* Read the counters (value, time enabled, time running); note one that was multiplexed. */
static void read_counters(struct shared *sh, const int *fds, int n, uint64_t *v)
{
	for (int i = 0; i < n; i++) {
		uint64_t r[3];

		if (fds[i] < 0 || read(fds[i], r, sizeof(r)) != sizeof(r)) {
			v[i] = 0;
			continue;
		}
		v[i] = r[0];
		if (r[1] != r[2] && !sh->multiplexed)
			sh->multiplexed = 1 + i;
	}
}

/* One timed run: out[0] the cycle counter, out[1..] the events. */
static void run_once(const struct child_arg *a, void (*fn)(void), unsigned calls,
		     const int *fds, int nfd, uint64_t *out)
{
	uint64_t before[1 + MEASURE_MAX_EVENTS], after[1 + MEASURE_MAX_EVENTS];
	uint64_t t0 = 0, t1 = 0;

	read_counters(a->sh, fds, nfd, before);
	if (a->ck == CK_TSC)
		t0 = tsc_begin();
	for (unsigned i = 0; i < calls; i++)
		fn();
	if (a->ck == CK_TSC)
		t1 = tsc_end(a->has_rdtscp);
	read_counters(a->sh, fds, nfd, after);
	if (a->ck == CK_TSC) {
		out[0] = t1 - t0;
		for (int i = 0; i < nfd; i++)
			out[1 + i] = after[i] - before[i];
	} else {
		/* fds[0] is the cycle counter (hardware cycles or task-clock) */
		for (int i = 0; i < nfd; i++)
			out[i] = after[i] - before[i];
	}
}

static int child_main(void *arg)
{
	const struct child_arg *a = arg;
	const struct snippet *s = a->s;
	struct shared *sh = a->sh;
	struct layout lay_cal = { 0 }, lay = { 0 };
	struct code_ctx *ctx;
	uint8_t *scratch, *cal = NULL, *code;
	int fds[1 + MEASURE_MAX_EVENTS], nfd = 0;
	/* the entries of the calibrations' K and 2K runs, by slot */
	uint64_t cal_entry[SLOT_MUL_2 + 1] = { 0 }, snip_entry[2] = { 0 }, trips[2];
	unsigned cal_per_repeat;

	ctx = map_guarded(PAGE);
	scratch = map_at(0, SCRATCH_SIZE, PROT_READ | PROT_WRITE);
	if (!ctx || !scratch)
		return child_fail(sh, "cannot map the scratch memory: %s", strerror(errno));
	for (int i = 0; i < s->n_memmaps; i++) {
		const struct snippet_memdef *d = &s->memdefs[s->memmaps[i].def];
		uint8_t *p = map_at(s->memmaps[i].addr, round_page(d->size), PROT_READ | PROT_WRITE);

		if (!p)
			return child_fail(sh, "%s:%d: cannot map MEM-MAP %s at %#llx: %s", s->name,
					  s->memmaps[i].line, d->name,
					  (unsigned long long)s->memmaps[i].addr, strerror(errno));
		for (size_t o = 0; o < d->size; o++)
			p[o] = d->value[o % d->value_len];
	}
	for (int kind = BODY_CAL_ADD; a->ck == CK_TSC && kind <= BODY_CAL_MUL; kind++) {
		int slot = kind == BODY_CAL_ADD ? SLOT_CAL_1 : SLOT_MUL_1;

		cal = build(a, kind, 0, (uint64_t)ctx, (uint64_t)scratch, &lay_cal);
		if (!cal)
			return child_fail(sh, "cannot map the calibration code: %s", strerror(errno));
		cal_entry[slot] = (uint64_t)cal + lay_cal.entry[0];
		cal_entry[slot + 1] = (uint64_t)cal + lay_cal.entry[1];
	}
	code = build(a, BODY_SNIPPET, s->address, (uint64_t)ctx, (uint64_t)scratch, &lay);
	if (!code && s->address)
		return child_fail(sh, "%s:%d: cannot map the code at SNIPPET-ADDRESS %#llx: %s",
				  s->name, s->address_line, (unsigned long long)s->address,
				  strerror(errno));
	if (!code)
		return child_fail(sh, "cannot map the code: %s", strerror(errno));
	sh->code_begin = (uint64_t)code;
	sh->code_end = (uint64_t)code + lay.copies_end + 64;
	sh->copies_begin = (uint64_t)code + lay.copies_begin;
	sh->copies_end = (uint64_t)code + lay.copies_end;
	snip_entry[0] = (uint64_t)code + lay.entry[0];
	snip_entry[1] = (uint64_t)code + lay.entry[1];
	trips[0] = a->k;
	trips[1] = 2 * a->k;

	if (a->ck != CK_TSC) {
		struct perf_event_attr at;

		memset(&at, 0, sizeof(at));
		at.size = sizeof(at);
		at.type = a->ck == CK_HW ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
		at.config = a->ck == CK_HW ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_TASK_CLOCK;
		at.exclude_kernel = a->ck == CK_HW;
		at.exclude_hv = 1;
		at.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[nfd] = events_open(&at, 0, -1, -1, 0);
		if (fds[nfd] < 0)
			return child_fail(sh, "cannot open the %s counter: %s",
					  a->ck == CK_HW ? "cycles" : "task-clock", strerror(errno));
		nfd++;
	}
	for (int i = 0; i < a->n_events; i++) {
		struct perf_event_attr at = a->attrs[i];

		at.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[nfd] = events_open(&at, 0, -1, -1, 0);
		if (fds[nfd] < 0 && (errno == ENOENT || errno == EOPNOTSUPP) &&
		    at.type != PERF_TYPE_SOFTWARE && at.type != PERF_TYPE_TRACEPOINT) {
			/* the others are still measured; this one is said to be unavailable */
			sh->unavailable[i] = 1;
			nfd++;
			continue;
		}
		if (fds[nfd] < 0 && (errno == EACCES || errno == EPERM))
			return child_fail(sh, "cannot open event '%s': %s (see "
					  "/proc/sys/kernel/perf_event_paranoid)", a->o->events[i],
					  strerror(errno));
		if (fds[nfd] < 0)
			return child_fail(sh, "cannot open event '%s': %s", a->o->events[i],
					  strerror(errno));
		nfd++;
	}
	{
		/* the counters that are open */
		int open_fds[1 + MEASURE_MAX_EVENTS], n_open = 0;

		for (int i = 0; i < nfd; i++)
			if (fds[i] >= 0)
				open_fds[n_open++] = fds[i];
		if (!a->o->allow_syscalls &&
		    workload_seccomp_lock(open_fds, n_open, defreg_of(s, SNIPPET_REG_SEG, 0) ||
					  defreg_of(s, SNIPPET_REG_SEG, 1)
					  ? WORKLOAD_ALLOW_SET_SEGMENTS : 0) < 0)
			return child_fail(sh, "cannot install the seccomp filter");
	}

	cal_per_repeat = (MIN_CAL_READINGS + a->o->repeat_count - 1) / a->o->repeat_count;
	for (int r = -WARMUP; r < (int)a->o->repeat_count; r++) {
		uint64_t junk[1 + MEASURE_MAX_EVENTS];

		for (int slot = 0; slot < N_SLOTS; slot++) {
			uint64_t *out = r < 0 ? junk : &sh->raw[((size_t)r * N_SLOTS + slot) * a->stride];
			int big = slot == SLOT_CAL_2 || slot == SLOT_MUL_2 || slot == SLOT_SNIP_2;

			if (slot <= SLOT_MUL_2) {
				uint64_t t[1 + MEASURE_MAX_EVENTS];

				if (!cal)
					continue;
				/* at least MIN_CAL_READINGS readings in all, whatever the
				   repeat count: each repeat keeps its fastest */
				run_once(a, (void (*)(void))cal_entry[slot], CAL_CALLS, fds, nfd, out);
				for (unsigned j = 1; j < cal_per_repeat; j++) {
					run_once(a, (void (*)(void))cal_entry[slot], CAL_CALLS, fds, nfd, t);
					if (t[0] < out[0])
						memcpy(out, t, a->stride * sizeof(*t));
				}
			} else {
				if (a->o->no_diff && big)
					continue;
				ctx->trips = trips[big];
				run_once(a, (void (*)(void))snip_entry[big], a->calls, fds, nfd, out);
			}
		}
	}
	sh->done = 1;
	return 0;
}

/* the parent ------------------------------------------------------------- */

static bool is_int80(const char *text)
{
	return !strcmp(text, "int $0x80") || !strcmp(text, "int 0x80");
}

/* Register names of every width, by GPR number: AT&T without the '%'. */
static const char *const gpr_names[16][4] = {
	{ "rax", "eax", "ax", "al" }, { "rcx", "ecx", "cx", "cl" }, { "rdx", "edx", "dx", "dl" },
	{ "rbx", "ebx", "bx", "bl" }, { "rsp", "esp", "sp", "spl" }, { "rbp", "ebp", "bp", "bpl" },
	{ "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" }, { "r8", "r8d", "r8w", "r8b" },
	{ "r9", "r9d", "r9w", "r9b" }, { "r10", "r10d", "r10w", "r10b" },
	{ "r11", "r11d", "r11w", "r11b" }, { "r12", "r12d", "r12w", "r12b" },
	{ "r13", "r13d", "r13w", "r13b" }, { "r14", "r14d", "r14w", "r14b" },
	{ "r15", "r15d", "r15w", "r15b" },
};

/* Whether capstone's text is of an instruction that only reads its last operand */
static bool reads_last_operand(const char *t)
{
	/* each name with the suffixes it may take (AT&T's size, or ss/sd) */
	static const struct {
		const char *name, *suffixes;
	} names[] = {
		{ "cmp", "bwlq" }, { "test", "bwlq" }, { "bt", "wlq" }, { "push", "wq" },
		{ "jmp", "q" }, { "call", "q" }, { "mul", "bwlq" }, { "div", "bwlq" },
		{ "idiv", "bwlq" }, { "ptest", "" }, { "vptest", "" }, { "ucomis", "sd" },
		{ "comis", "sd" }, { "vucomis", "sd" }, { "vcomis", "sd" }, { "kortest", "bwdq" },
		{ "ktest", "bwdq" }, { "out", "bwl" }, { "prefetch", "" }, { "clflush", "" },
		{ "clwb", "" },
	};
	size_t l = strcspn(t, " ");

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i].name);

		/* the name, or it and one suffix (btl, not btc, bts or btr) */
		if (strncmp(t, names[i].name, n))
			continue;
		if (l == n || (l == n + 1 && strchr(names[i].suffixes, t[n])))
			return true;
	}
	/* imul of one operand reads it (the product goes to rdx:rax) */
	return !strncmp(t, "imul", 4) && !strchr(t, ',');
}

/*
 * The first instruction whose destination (AT&T: its last operand) is GPR
 * reg, or NULL; instructions that only read it (cmp, test, push, ...) do
 * not count.
 */
static const struct snippet_insn *writes_gpr(const struct snippet *s, int reg)
{
	if (reg < 0 || reg >= 16)
		return NULL;
	for (int i = 0; i < s->n_insns; i++) {
		const char *t = s->insns[i].text, *dst = strrchr(t, ',');

		if (reads_last_operand(t))
			continue;

		if (!dst) {
			dst = strchr(t, ' ');	/* one operand: inc, pop, ... */
			if (!dst)
				continue;
		}
		while (*++dst == ' ')
			;
		if (*dst++ != '%')
			continue;
		for (int w = 0; w < 4; w++)
			if (!strcmp(dst, gpr_names[reg][w]))
				return &s->insns[i];
	}
	return NULL;
}

/*
 * What an instruction that raised SIGILL needs, from its encoding: APX
 * (REX2, or EVEX map 4: the _EVEX, _ND and _NF forms), AVX-512 (EVEX),
 * AVX (VEX); NULL when the bytes do not tell, or for UD0/UD1/UD2, which
 * are undefined on purpose.
 */
static const char *missing_feature(const uint8_t *p, size_t n)
{
	const struct cpu_features *c = cpu_features();
	size_t i = 0;

	/* legacy prefixes, then REX */
	while (i < n && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 || p[i] == 0xf3 ||
			 p[i] == 0xf0 || p[i] == 0x2e || p[i] == 0x3e || p[i] == 0x26 ||
			 p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65))
		i++;
	if (i < n && (p[i] & 0xf0) == 0x40)
		i++;
	if (i >= n)
		return NULL;
	if (p[i] == 0xd5)
		return "APX (a REX2 prefix)";
	if (p[i] == 0x62 && i + 1 < n) {
		if ((p[i + 1] & 7) == 4)
			return "APX (an EVEX-promoted form: _EVEX, _ND, _NF)";
		return c->avx512f ? "an AVX-512 or AVX10 extension" : "AVX-512 (an EVEX form)";
	}
	if (p[i] == 0xc4 || p[i] == 0xc5)
		return c->avx ? "a VEX-encoded extension (AVX-VNNI, AVX-IFMA, AMX, ...)" :
				"AVX (a VEX form)";
	if (p[i] == 0x0f && i + 1 < n && (p[i + 1] == 0x0b || p[i + 1] == 0xb9 || p[i + 1] == 0xff))
		return NULL;	/* ud2, ud1, ud0 */
	return "an extension";
}

/* Whether capstone's text is of an instruction only the kernel (CPL 0) may run. */
static bool is_privileged(const char *text)
{
	static const char *const names[] = {
		"hlt", "cli", "sti", "in", "inb", "inw", "inl", "insb", "insw", "insl", "insd",
		"out", "outb", "outw", "outl", "outsb", "outsw", "outsl", "outsd", "rdmsr",
		"wrmsr", "lgdt", "lidt", "lldt", "ltr", "lmsw", "clts", "invd", "wbinvd",
		"invlpg", "invpcid", "swapgs", "sysretq", "sysretl", "sysret", "sysexit",
		"monitor", "mwait", "xsetbv", "wrmsrns", "rdmsrlist", "wrmsrlist", "invlpga",
		"vmcall", "vmmcall", "hreset", "uiret", "senduipi", "pvalidate", "rmpadjust",
		"rmpupdate", "psmash", "vmrun", "vmload", "vmsave", "stgi", "clgi", "skinit",
		"invlpgb", "tlbsync",
		/* without CR4.PCE, which Linux sets only for a task with a perf event mapped */
		"rdpmc",
	};
	size_t l = strcspn(text, " ");

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == l && !strncmp(text, names[i], l))
			return true;
	/* mov to or from a control or debug register */
	return !strncmp(text, "mov", 3) && (strstr(text, "%cr") || strstr(text, "%db") ||
					    strstr(text, "%dr"));
}

/*
 * Describe a failed child, with the faulting instruction when it is ours;
 * the failure's class.
 */
static enum measure_failure describe_failure(const struct snippet *s, const struct shared *sh,
					     const struct workload_status *st, double timeout,
					     enum measure_repetition rep, char *buf, size_t len)
{
	enum measure_failure why = MEASURE_FAIL_CRASHED;
	unsigned long ip = st->fault_ip;
	size_t used;

	workload_status_describe(st, timeout, buf, len);
	if (st->timed_out)
		why = MEASURE_FAIL_TIMEOUT;
	if (st->timed_out && rep == MEASURE_LOOP) {
		/* the loop counts down a register: a snippet that writes it loops for ever */
		const struct snippet_insn *in = writes_gpr(s, s->loop_reg);
		const char *r = s->loop_reg >= 0 && s->loop_reg < 16 ? gpr_names[s->loop_reg][0] : "?";

		used = strlen(buf);
		if (in)
			snprintf(buf + used, len - used, ": in loop mode %%%s counts the trips, and "
				 "snippet+0x%x (%s) writes it; name another with LOOP-REGISTER",
				 r, in->offset, in->text);
		else
			snprintf(buf + used, len - used, " (in loop mode %%%s counts the trips: "
				 "does the snippet change it? LOOP-REGISTER names another)", r);
		return why;
	}
	if (!st->signaled || st->signo == SIGKILL)
		return why;
	used = strlen(buf);
	/* a system call stops with rip after the 2-byte syscall instruction */
	if (st->signo == SIGSYS && ip >= 2)
		ip -= 2;
	/* and a breakpoint with rip after the 1-byte int3 */
	if (st->signo == SIGTRAP && ip >= 1)
		ip -= 1;
	if (ip >= sh->copies_begin && st->fault_ip < sh->copies_end && s->code_size) {
		size_t off = (size_t)(ip - sh->copies_begin) % s->code_size;
		const struct snippet_insn *in = snippet_insn_at(s, off);

		/* a kernel without IA-32 emulation (CONFIG_IA32_EMULATION off, or
		   ia32_emulation=0 on 6.7 and later) answers int $0x80 with a #GP:
		   SIGSEGV at 0, before any seccomp filter sees a call */
		if (in && st->signo == SIGSEGV && is_int80(in->text)) {
			snprintf(buf, len, "a 32-bit system call (int $0x80), which this kernel "
				 "does not run (no IA-32 emulation): SIGSEGV");
		} else if (in && (((st->signo == SIGSEGV || st->signo == SIGBUS) &&
				   st->fault_addr == 0) || st->signo == SIGILL) &&
			   is_privileged(in->text)) {
			/* a #GP, or the #UD of monitor, mwait, uiret... in user mode */
			snprintf(buf, len, "a privileged instruction, which only the kernel may run: %s",
				 workload_signal_name(st->signo, (char[32]){ 0 }, 32));
			why = MEASURE_FAIL_PRIVILEGED;
		} else if (st->signo == SIGILL) {
			/* the bytes at the fault: a .byte pseudo-instruction holds several */
			const char *f = missing_feature(s->code + off, s->code_size - off);
			char tail[256];

			if (f) {
				snprintf(tail, sizeof(tail), "%s", buf);
				snprintf(buf, len, "this CPU lacks the instruction, which needs %s: %s", f, tail);
			}
			why = f ? MEASURE_FAIL_UNSUPPORTED : MEASURE_FAIL_CRASHED;
		}
		used = strlen(buf);
		snprintf(buf + used, len - used, ", snippet+0x%zx%s%s", off, in ? ": " : "",
			 in ? in->text : "");
	} else if (ip >= sh->code_begin && ip < sh->copies_begin) {
		snprintf(buf + used, len - used, ", in the register set-up");
		/* the set-up's only instructions a CPU may lack load DEFREGs' registers */
		if (st->signo == SIGILL) {
			char tail[256];

			snprintf(tail, sizeof(tail), "%s", buf);
			snprintf(buf, len, "this CPU lacks a register the snippet defines (a DEFREG of "
				 "YMM, ZMM or K registers needs AVX or AVX-512): %s", tail);
			why = MEASURE_FAIL_UNSUPPORTED;
		}
	} else if (ip) {
		snprintf(buf + used, len - used, ", rip %#lx outside the snippet", ip);
	}
	return why;
}

/* What an event counts in: task-clock and cpu-clock count nanoseconds. */
static const char *event_unit(const struct perf_event_attr *at)
{
	if (at->type == PERF_TYPE_SOFTWARE &&
	    (at->config == PERF_COUNT_SW_TASK_CLOCK || at->config == PERF_COUNT_SW_CPU_CLOCK))
		return "ns";
	if (at->type == PERF_TYPE_HARDWARE && (at->config == PERF_COUNT_HW_CPU_CYCLES ||
					       at->config == PERF_COUNT_HW_REF_CPU_CYCLES))
		return "cycles";
	return "count";
}

/*
 * The shared pages for the child's report, sh_size bytes between two
 * PROT_NONE guard pages, so that no mapping of the child's is next to
 * them: a snippet's store that runs off its own memory faults instead.
 */
static struct shared *report_map(size_t sh_size)
{
	uint8_t *area = mmap(NULL, sh_size + 2 * PAGE, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	void *sh;

	if (area == MAP_FAILED)
		return NULL;
	sh = mmap(area + PAGE, sh_size, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (sh == MAP_FAILED) {
		int e = errno;

		munmap(area, sh_size + 2 * PAGE);
		errno = e;
		return NULL;
	}
	return sh;
}

static void report_unmap(struct shared *live, size_t sh_size)
{
	munmap((uint8_t *)live - PAGE, sh_size + 2 * PAGE);
}

/*
 * The child's report, copied out of the shared pages (which are unmapped)
 * once the child has ended: nothing it left behind can change the copy
 * while the parent reads it. NULL with ENOMEM.
 */
static struct shared *report_take(struct shared *live, size_t sh_size)
{
	struct shared *sh = malloc(sh_size);

	if (sh)
		memcpy(sh, live, sh_size);
	report_unmap(live, sh_size);
	if (sh)
		sh->msg[sizeof(sh->msg) - 1] = 0;
	return sh;
}

/*
 * Whether the copy holds what the harness writes: flags 0 or 1, the index
 * of a multiplexed counter among the n_counters it opened, the code's
 * ranges in order. Else false with why (the snippet wrote over it).
 */
static bool report_check(const struct shared *sh, int n_counters, char *why, size_t len)
{
	const char *field = NULL;
	long long value = 0;

	if (sh->done != 0 && sh->done != 1)
		field = "done", value = sh->done;
	else if (sh->setup_failed != 0 && sh->setup_failed != 1)
		field = "setup_failed", value = sh->setup_failed;
	else if (sh->multiplexed < 0 || sh->multiplexed > n_counters)
		field = "multiplexed", value = sh->multiplexed;
	for (int i = 0; !field && i < MEASURE_MAX_EVENTS; i++)
		if (sh->unavailable[i] > 1)
			field = "unavailable", value = sh->unavailable[i];
	if (field) {
		snprintf(why, len, "the snippet wrote over sbx's report in its process "
			 "(%s = %lld); its figures cannot be trusted", field, value);
		return false;
	}
	if (sh->done && !(sh->code_begin <= sh->copies_begin &&
			  sh->copies_begin <= sh->copies_end && sh->copies_end <= sh->code_end)) {
		snprintf(why, len, "the snippet wrote over sbx's report in its process "
			 "(the code's bounds); its figures cannot be trusted");
		return false;
	}
	return true;
}

/* One child for one repetition mode; fills r->values (aggregated). */
static int measure_one(const struct snippet *s, const struct measure_opts *o,
		       enum measure_repetition rep, enum counter_kind ck,
		       struct child_arg *a, struct measure_result *r)
{
	size_t stride = 1 + (size_t)o->n_events;
	size_t raw_bytes = (size_t)o->repeat_count * N_SLOTS * stride * sizeof(uint64_t);
	size_t sh_size = round_page(sizeof(struct shared) + raw_bytes);
	struct workload_opts wo = { .fn = child_main, .arg = a, .cpu = o->cpu,
				    .timeout_s = o->timeout_s, .stop = o->stop,
				    .flags = WORKLOAD_PTRACE | WORKLOAD_SECCOMP |
					     WORKLOAD_OWN_GROUP | WORKLOAD_PID_NS };
	struct workload_status st;
	struct workload *w;
	struct shared *live, *sh;
	double *ev = NULL;
	struct readings rd;
	unsigned n = o->repeat_count;
	unsigned long ninsn;
	/* the counters the child opens: the cycle counter unless TSC, and the events */
	int n_counters = (ck == CK_TSC ? 0 : 1) + o->n_events;
	int stdio[3] = { -1, -1, -1 }, null_fd, err;

	a->rep = rep;
	a->ck = ck;
	r->cross = NAN;
	a->stride = stride;
	a->k = (o->min_instructions + (unsigned long)s->insn_count - 1) / (unsigned long)s->insn_count;
	a->calls = 1;
	if (a->k * (unsigned long)s->insn_count < MIN_TIMED_INSNS)
		a->calls = (unsigned)((MIN_TIMED_INSNS + a->k * (unsigned long)s->insn_count - 1) /
				      (a->k * (unsigned long)s->insn_count));
	if (rep == MEASURE_DUPLICATE && 2 * a->k * s->code_size > MAX_CODE_SIZE)
		return sbx_error(-E2BIG, "%s: %lu copies of %zu bytes is too much code; lower "
				 "--min-instructions or use --repetition-mode loop", s->name,
				 2 * a->k, s->code_size);
	live = report_map(sh_size);
	if (!live)
		return sbx_error_errno(-errno, "cannot map shared memory");
	a->sh = live;
	/* no input, and nothing the snippet writes to 1 reaches sbx's output */
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd < 0) {
		err = sbx_error_errno(-errno, "cannot open /dev/null");
		report_unmap(live, sh_size);
		return err;
	}
	stdio[0] = stdio[1] = null_fd;
	wo.stdio_fds = stdio;
	err = workload_prepare(&wo, &w);
	close(null_fd);
	if (!err) {
		err = workload_start(w);
		if (!err)
			err = workload_wait(w, &st);
		workload_free(w);
	}
	if (err < 0) {
		report_unmap(live, sh_size);
		return err;
	}
	sh = report_take(live, sh_size);
	if (!sh)
		return sbx_error(-ENOMEM, "out of memory");
	r->status = st;
	if (!report_check(sh, n_counters, r->error, sizeof(r->error)))
		goto out;
	if (sh->setup_failed) {
		/* the harness's own words, unless the snippet wrote them */
		escape_text(r->error, sizeof(r->error), sh->msg, sizeof(sh->msg));
		goto out;
	}
	if (st.exited && st.exit_code == 0 && !sh->done) {
		r->exited = true;
		goto out;
	}
	if (!(st.exited && st.exit_code == 0 && sh->done)) {
		r->failure = describe_failure(s, sh, &st, o->timeout_s, rep, r->error,
					      sizeof(r->error));
		goto out;
	}
	if (sh->multiplexed) {
		int i = sh->multiplexed - 1 - (ck == CK_TSC ? 0 : 1);

		snprintf(r->error, sizeof(r->error), "the counter %s was not scheduled on the CPU "
			 "the entire time (too many --counters, or the NMI watchdog holds one)",
			 i < 0 ? r->counter : o->events[i]);
		goto out;
	}

	/* aggregate */
	ninsn = a->k * (unsigned long)s->insn_count * a->calls;
	r->repetitions = a->k;
	r->instructions = a->k * (unsigned long)s->insn_count;
	ev = calloc(n, sizeof(double));
	if (!ev) {
		free(sh);
		return sbx_error(-ENOMEM, "out of memory");
	}
	rd = (struct readings){ .raw = sh->raw, .n = n, .stride = stride, .tsc = ck == CK_TSC,
				.no_diff = o->no_diff, .how = o->aggregate, .ninsn = ninsn,
				.adds = CAL_ADDS * CAL_CALLS, .muls = CAL_MULS * CAL_CALLS };
	if (figure_calibrate(&rd, r) < 0) {
		snprintf(r->error, sizeof(r->error), "the TSC calibration failed "
			 "(the TSC did not advance)");
		goto out;
	}
	for (int e = 0; e <= o->n_events; e++) {
		struct measure_value *mv = &r->values[e];
		double agg = figure_difference(&rd, e, r->tsc_per_cycle, ev);

		snprintf(mv->key, sizeof(mv->key), "%s",
			 e == 0 ? measure_mode_name(o->mode) : o->events[e - 1]);
		mv->value = agg / (double)ninsn;
		mv->per_snippet_value = agg / ((double)a->k * a->calls);
		mv->unit = e > 0 ? event_unit(&a->attrs[e - 1]) : ck == CK_TASK ? "ns" : "cycles";
		if (e > 0 && sh->unavailable[e - 1]) {
			mv->unavailable = true;
			mv->value = mv->per_snippet_value = NAN;
		}
	}
	r->n_values = 1 + o->n_events;
	r->values[0].uncertainty = figure_uncertainty(&rd, r, r->values[0].value, ev);
	r->unsteady = r->values[0].uncertainty > MEASURE_STEADY;	/* NaN: not known, not flagged */
out:
	free(ev);
	free(sh);
	return 0;
}

/*
 * How good an attempt is: 4 for an uncertainty within MEASURE_STEADY, 2 for
 * a TSC ratio that did not drift, plus 1 for a difference above 0 when the
 * K runs are taken from the 2K runs (2K copies cannot take less time than
 * K of them: a difference at or below 0 is the noise of a loaded machine).
 * An attempt of rank 7 is steady.
 */
static int attempt_rank(const struct measure_result *t, const struct measure_opts *o)
{
	return 4 * !t->unsteady + 2 * (fabs(t->drift) <= MAX_DRIFT) +
	       (o->no_diff || !(t->values[0].value <= 0));
}

/*
 * measure_one() with the TSC checked against the lowest ratio seen so far
 * (*o->tsc_reference): a child whose calibration chain ran slow (another
 * thread on the same core, as on a loaded SMT host), drifted by more than
 * 2% or measured a difference at or below 0 is measured again, up to
 * twice (the first of a run: always once, to set the reference), and the
 * attempt of the highest rank with the lowest ratio is kept, its
 * uncertainty widened by figure_against_reference().
 * With any counter, a figure whose uncertainty is above MEASURE_STEADY is
 * measured again too, up to twice; one that stays so is flagged unsteady.
 */
static int measure_checked(const struct snippet *s, const struct measure_opts *o,
			   enum measure_repetition rep, enum counter_kind ck,
			   struct child_arg *a, struct measure_result *r)
{
	enum { ATTEMPTS = 3 };
	double *ref = o->tsc_reference;
	bool check = ck == CK_TSC && ref;
	bool first = check && *ref <= 0;
	struct measure_result att[ATTEMPTS], judged[ATTEMPTS], best;
	int err = 0, done = 0, n = 0;
	double lo = check && *ref > 0 ? *ref : 0;
	const struct snippet_insn *in;

	/* a snippet that writes the loop counter would loop until the timeout */
	if (rep == MEASURE_LOOP && (in = writes_gpr(s, s->loop_reg))) {
		snprintf(r->error, sizeof(r->error), "not run: in loop mode %%%s counts the trips, "
			 "and snippet+0x%x (%s) writes it; name another with LOOP-REGISTER",
			 gpr_names[s->loop_reg][0], in->offset, in->text);
		r->failure = MEASURE_FAIL_REFUSED;
		return 0;
	}
	for (int i = 0; i < ATTEMPTS; i++, done++) {
		struct measure_result *t = &att[n];

		memset(t, 0, sizeof(*t));
		snprintf(t->counter, sizeof(t->counter), "%s", r->counter);
		snprintf(t->unit, sizeof(t->unit), "%s", r->unit);
		err = measure_one(s, o, rep, ck, a, t);
		if (err < 0 || t->error[0] || t->exited) {
			/* a retry that failed: the attempts before it stand */
			if (i == 0 || err < 0 || t->exited)
				n = 0, att[n++] = *t;
			else
				err = 0;
			break;
		}
		if (check && t->tsc_per_cycle > 0 && (lo <= 0 || t->tsc_per_cycle < lo))
			lo = t->tsc_per_cycle;
		n++;
		/*
		 * each attempt against the lowest ratio so far; the higher rank,
		 * then the lower ratio, or the smaller uncertainty; the kept one
		 * against the others (measured again when that flags it)
		 */
		for (int j = 0; j < n; j++) {
			judged[j] = check ? figure_against_reference(att[j], lo) : att[j];
			if (j == 0 || attempt_rank(&judged[j], o) > attempt_rank(&best, o) ||
			    (attempt_rank(&judged[j], o) == attempt_rank(&best, o) &&
			     (check ? judged[j].tsc_per_cycle < best.tsc_per_cycle :
				      judged[j].values[0].uncertainty < best.values[0].uncertainty)))
				best = judged[j];
		}
		best = figure_against_attempts(best, judged, n);
		if (!check && !best.unsteady) {
			done++;
			break;
		}
		if (check && !first && attempt_rank(&best, o) == 7 &&
		    best.tsc_per_cycle <= *ref * 1.03) {
			done++;
			break;
		}
		/* the first of a run: two to set the reference, a third where both were unsteady */
		if (check && first && i == 1 && !best.unsteady) {
			done++;
			break;
		}
	}
	if (n == 1 && (err < 0 || att[0].error[0] || att[0].exited))
		best = att[0];
	*r = best;
	r->retries = done > 1 ? done - 1 : 0;
	if (check && !err && !r->error[0] && (*ref <= 0 || r->tsc_per_cycle < *ref))
		*ref = r->tsc_per_cycle;
	return err;
}

/*
 * The PMU's retired micro-ops, by libpfm4's names: AMD's RETIRED_OPS
 * (family 17h and later), Intel's UOPS_RETIRED (its ALL umask since
 * Skylake, RETIRE_SLOTS before). NULL when none is known here.
 */
static const char *uops_event(void)
{
	static const char *const names[] = {
		"RETIRED_OPS", "UOPS_RETIRED:ALL", "UOPS_RETIRED:RETIRE_SLOTS", "UOPS_RETIRED",
	};
	struct perf_event_attr at;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (events_parse(names[i], &at) == 0)
			return names[i];
	sbx_error_clear();
	return NULL;
}

static int measure_modes(const struct snippet *s, const struct measure_opts *o,
			 struct measure_result *r);

int measure_mode_check(enum measure_mode m)
{
	if (m != MEASURE_UOPS)
		return 0;
	if (!events_have_hw_cycles())
		return sbx_error(-EOPNOTSUPP, "--mode uops counts the PMU's retired micro-ops "
				 "(RETIRED_OPS, UOPS_RETIRED), and this machine has no PMU (a VM?); "
				 "latency and inverse_throughput are measured without one");
	if (!uops_event())
		return sbx_error(-EOPNOTSUPP, "--mode uops: libpfm4 knows no retired micro-ops "
				 "event of this CPU (RETIRED_OPS, UOPS_RETIRED)");
	return 0;
}

/*
 * --mode uops: the retired micro-ops event counted next to the cycles,
 * then made the first value ("NumMicroOps", as llvm-exegesis names it).
 */
static int measure_uops(const struct snippet *s, const struct measure_opts *o,
			struct measure_result *r)
{
	struct measure_opts uo = *o;
	struct measure_value uops;
	const char *ev;
	int err = measure_mode_check(MEASURE_UOPS);

	if (err)
		return err;
	ev = uops_event();
	if (uo.n_events == MEASURE_MAX_EVENTS)
		return sbx_error(-EINVAL, "--mode uops counts an event: at most %d --counters",
				 MEASURE_MAX_EVENTS - 1);
	uo.events[uo.n_events++] = ev;
	uo.mode = MEASURE_LATENCY;
	err = measure_modes(s, &uo, r);
	if (err < 0 || r->error[0] || r->exited || r->n_values < 2)
		return err;
	/* NumMicroOps first, then the cycles, then the other --counters */
	uops = r->values[r->n_values - 1];
	if (uops.unavailable)
		snprintf(r->error, sizeof(r->error), "the PMU did not count %s", ev);
	memmove(&r->values[1], &r->values[0], (size_t)(r->n_values - 1) * sizeof(uops));
	snprintf(uops.key, sizeof(uops.key), "%s", "NumMicroOps");
	/* a count of the PMU's, not a timed figure: its uncertainty is not estimated */
	uops.uncertainty = NAN;
	r->values[0] = uops;
	r->unsteady = false;
	snprintf(r->values[1].key, sizeof(r->values[1].key), "%s", r->counter);
	return 0;
}

int measure_snippet(const struct snippet *s, const struct measure_opts *o,
		    struct measure_result *r)
{
	int err;

	if (o->mode == MEASURE_UOPS) {
		memset(r, 0, sizeof(*r));
		err = measure_uops(s, o, r);
	} else {
		err = measure_modes(s, o, r);
	}
	if (r->error[0] && r->failure == MEASURE_FAIL_NONE)
		r->failure = MEASURE_FAIL_OTHER;
	return err;
}

static int measure_modes(const struct snippet *s, const struct measure_opts *o,
			 struct measure_result *r)
{
	struct child_arg a;
	enum counter_kind ck;
	int err;

	memset(r, 0, sizeof(*r));
	if (!s->code || s->insn_count <= 0)
		return sbx_error(-EINVAL, "%s: not assembled", s->name);
	if (o->min_instructions == 0)
		return sbx_error(-EINVAL, "--min-instructions must be greater than zero");
	if (o->repeat_count == 0 || o->repeat_count > 100000)
		return sbx_error(-EINVAL, "--benchmark-repeat-count must be 1 to 100000");
	if (o->n_events > MEASURE_MAX_EVENTS)
		return sbx_error(-EINVAL, "at most %d --counters", MEASURE_MAX_EVENTS);
	memset(&a, 0, sizeof(a));
	a.s = s;
	a.o = o;
	a.has_avx = cpu_features()->avx;
	a.has_rdtscp = cpu_features()->rdtscp;
	a.n_events = o->n_events;
	for (int i = 0; i < o->n_events; i++) {
		err = events_parse(o->events[i], &a.attrs[i]);
		if (err < 0)
			return err;
		if (a.attrs[i].type == PERF_TYPE_HARDWARE || a.attrs[i].type == PERF_TYPE_RAW ||
		    a.attrs[i].type >= PERF_TYPE_MAX)
			a.attrs[i].exclude_kernel = 1;
		a.attrs[i].exclude_hv = 1;
	}
	switch (o->counter) {
	case MEASURE_COUNTER_HW:
		if (!events_have_hw_cycles())
			return sbx_error(-EOPNOTSUPP, "this machine cannot count hardware cycles "
					 "(no PMU, or perf_event_paranoid); try --cycle-counter tsc");
		ck = CK_HW;
		break;
	case MEASURE_COUNTER_TSC:
		if (!cpu_features()->tsc)
			return sbx_error(-EOPNOTSUPP, "this CPU has no TSC");
		ck = CK_TSC;
		break;
	case MEASURE_COUNTER_TASK_CLOCK:
		ck = CK_TASK;
		break;
	default:
		ck = events_have_hw_cycles() ? CK_HW : cpu_features()->tsc ? CK_TSC : CK_TASK;
		break;
	}
	snprintf(r->counter, sizeof(r->counter), "%s",
		 ck == CK_HW ? "cycles" : ck == CK_TSC ? "tsc-cycles" : "task-clock");
	snprintf(r->unit, sizeof(r->unit), "%s", ck == CK_TASK ? "ns" : "cycles");

	if (o->repetition != MEASURE_MIN)
		return measure_checked(s, o, o->repetition, ck, &a, r);

	/* min: duplicate and loop, each value the smaller of the two */
	{
		struct measure_result loop;

		err = measure_checked(s, o, MEASURE_DUPLICATE, ck, &a, r);
		if (err < 0 || r->error[0] || r->exited)
			return err;
		memset(&loop, 0, sizeof(loop));
		snprintf(loop.counter, sizeof(loop.counter), "%s", r->counter);
		snprintf(loop.unit, sizeof(loop.unit), "%s", r->unit);
		err = measure_checked(s, o, MEASURE_LOOP, ck, &a, &loop);
		if (err < 0)
			return err;
		/* a snippet that cannot loop (it writes the counter): its duplicate figures */
		if (loop.failure == MEASURE_FAIL_REFUSED)
			return 0;
		if (loop.error[0]) {
			snprintf(r->error, sizeof(r->error), "%s", loop.error);
			r->failure = loop.failure;
			r->status = loop.status;
			r->n_values = 0;
			return 0;
		}
		for (int i = 0; i < r->n_values; i++) {
			if (loop.values[i].value < r->values[i].value) {
				r->values[i].value = loop.values[i].value;
				r->values[i].per_snippet_value = loop.values[i].per_snippet_value;
				r->values[i].uncertainty = loop.values[i].uncertainty;
			}
		}
		/* the flag follows the figure kept */
		r->unsteady = r->values[0].uncertainty > MEASURE_STEADY;
	}
	return 0;
}
