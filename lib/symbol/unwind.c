// SPDX-License-Identifier: MIT
/* User stacks unwound with DWARF CFI through libdwfl (see unwind.h). */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/input.h"
#include "symbol/dso.h"
#include "symbol/unwind.h"

/* perf's x86-64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum {
	PERF_X86_AX, PERF_X86_BX, PERF_X86_CX, PERF_X86_DX, PERF_X86_SI, PERF_X86_DI,
	PERF_X86_BP, PERF_X86_SP, PERF_X86_IP, PERF_X86_FLAGS, PERF_X86_CS, PERF_X86_SS,
	PERF_X86_DS, PERF_X86_ES, PERF_X86_FS, PERF_X86_GS,
	PERF_X86_R8, PERF_X86_R9, PERF_X86_R10, PERF_X86_R11, PERF_X86_R12, PERF_X86_R13,
	PERF_X86_R14, PERF_X86_R15,
};

/* DWARF's x86-64 registers 0..16 (the psABI's numbering), as perf registers */
static const int dwarf_to_perf[17] = {
	PERF_X86_AX, PERF_X86_DX, PERF_X86_CX, PERF_X86_BX, PERF_X86_SI, PERF_X86_DI,
	PERF_X86_BP, PERF_X86_SP, PERF_X86_R8, PERF_X86_R9, PERF_X86_R10, PERF_X86_R11,
	PERF_X86_R12, PERF_X86_R13, PERF_X86_R14, PERF_X86_R15, PERF_X86_IP,
};

struct unwinder {
	struct machine *m;
	char *fd_path;			/* the file fd reads (memory outside the stack copy) */
	int fd;
};

/* One sample's unwinding: what libdwfl's callbacks read. */
struct unwind_ctx {
	struct unwinder *u;
	const struct perf_sample *s;
	uint64_t regs_mask;
	Dwfl *dwfl;
	uint64_t sp;			/* of the stack copy */
	uint64_t *ips;
	size_t nr, max;
	bool thread_given;
	/* a PLT stub's caller: its pc (a return address) and sp instead of the sample's */
	bool from_caller;
	uint64_t caller_pc, caller_sp;
};

struct unwinder *unwinder_new(struct machine *m)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->m = m;
	u->fd = -1;
	return u;
}

void unwinder_free(struct unwinder *u)
{
	if (!u)
		return;
	if (u->fd >= 0)
		close(u->fd);
	free(u->fd_path);
	free(u);
}

/* Register r (a perf number) of the sample, if it was sampled. */
static bool sample_reg(const struct unwind_ctx *c, int r, uint64_t *v)
{
	uint64_t bit = 1ULL << r;

	if (!(c->regs_mask & bit))
		return false;
	*v = c->s->regs_user[__builtin_popcountll(c->regs_mask & (bit - 1))];
	return true;
}

/* The map of addr in the sample's process, with a file; NULL when none. */
static struct map *user_map(struct unwind_ctx *c, uint64_t addr, const char **file)
{
	struct map *map = machine_find_map(c->u->m, c->s->pid, PERF_RECORD_MISC_USER, addr, NULL);

	if (!map || !map->dso || map->dso->kind != DSO_ELF || !(*file = dso_file(map->dso)))
		return NULL;
	return map;
}

/*
 * Tell libdwfl about the file mapped at addr, at its load address (the
 * map's start less its file offset, as perf computes it), unless it knows it.
 */
static void report_module(struct unwind_ctx *c, uint64_t addr)
{
	Dwfl_Module *mod = dwfl_addrmodule(c->dwfl, addr);
	const char *file;
	struct map *map = user_map(c, addr, &file);
	uint64_t base;
	int fd;

	if (!map)
		return;
	base = map->start - map->pgoff;
	if (mod) {
		Dwarf_Addr start;

		dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
		if (start == base)
			return;
	}
	/* opened here, not by libdwfl: a recording names the file (no FIFO, no device) */
	fd = input_open(file, 0, 0, NULL);
	if (fd < 0)
		return;
	dwfl_report_begin_add(c->dwfl);
	/* the module owns fd from here on; a failure leaves it ours */
	if (!dwfl_report_elf(c->dwfl, map->dso->short_name, file, fd, base, false))
		close(fd);
	dwfl_report_end(c->dwfl, NULL, NULL);
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_ctx *c = arg;

	if (c->thread_given)
		return 0;
	c->thread_given = true;
	*thread_argp = c;
	return (pid_t)c->s->tid;
}

/* A word of the process: from the stack copy, else from the file mapped there. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_ctx *c = arg;
	struct unwinder *u = c->u;
	const char *file;
	struct map *map;
	uint64_t off;

	uint64_t copied = c->s->stack_user_dyn_size < c->s->stack_user_size ?
			  c->s->stack_user_dyn_size : c->s->stack_user_size;

	/* offsets, not ends: addr may be anywhere, sp and the sizes what a file says */
	if (addr >= c->sp && copied >= 8 && addr - c->sp <= copied - 8) {
		memcpy(result, (const char *)c->s->stack_user + (addr - c->sp), 8);
		return true;
	}
	map = user_map(c, addr, &file);
	if (!map || addr > map->end - 8 || map->end - map->start < 8)
		return false;
	if (!u->fd_path || strcmp(u->fd_path, file)) {
		if (u->fd >= 0)
			close(u->fd);
		free(u->fd_path);
		u->fd_path = strdup(file);
		u->fd = u->fd_path ? input_open(file, 0, 0, NULL) : -1;
	}
	off = addr - map->start + map->pgoff;
	return u->fd >= 0 && pread(u->fd, result, 8, (off_t)off) == 8;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_ctx *c = arg;
	Dwarf_Word regs[17];

	for (int i = 0; i < 17; i++) {
		uint64_t v = 0;

		sample_reg(c, dwarf_to_perf[i], &v);	/* registers not sampled: 0 */
		regs[i] = v;
	}
	if (c->from_caller) {
		regs[7] = c->caller_sp;
		regs[16] = c->caller_pc;
	}
	if (!dwfl_thread_state_registers(thread, 0, 16, regs))
		return false;
	dwfl_thread_state_register_pc(thread, regs[16]);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct unwind_ctx *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* the module first: whether pc is an activation depends on its CFI */
	report_module(c, pc);
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* callers at their call; the caller of a PLT stub too, though it starts the walk */
	if (!activation || (c->from_caller && c->nr == 1))
		pc--;
	c->ips[c->nr++] = pc;
	return c->nr < c->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Walk the stack from the registers (or the PLT stub's caller) on, into c->ips. */
static void walk(struct unwind_ctx *c, uint64_t pc)
{
	static const Dwfl_Callbacks offline = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};

	c->dwfl = dwfl_begin(&offline);
	if (!c->dwfl)
		return;
	c->thread_given = false;
	report_module(c, pc);
	/* no ELF for the pc (JIT code, no map): no frame at all, as perf's libunwind */
	if (dwfl_addrmodule(c->dwfl, pc) &&
	    dwfl_attach_state(c->dwfl, NULL, (pid_t)c->s->tid, &callbacks, c))
		dwfl_getthread_frames(c->dwfl, (pid_t)c->s->tid, frame_callback, c);
	dwfl_end(c->dwfl);
	c->dwfl = NULL;
}

/* Whether ip is in a PLT stub (a symbol "NAME@plt"): no CFI, the return address at sp. */
static bool in_plt(struct unwind_ctx *c, uint64_t ip)
{
	struct addr_location al;
	size_t n;

	machine_resolve(c->u->m, c->s->pid, c->s->tid, PERF_RECORD_MISC_USER, ip, &al);
	n = al.sym ? strlen(al.sym->name) : 0;
	return n >= 4 && !strcmp(al.sym->name + n - 4, "@plt");
}

size_t unwind_user_stack(struct unwinder *u, const struct perf_sample *s, uint64_t regs_mask,
			 uint64_t *ips, size_t max)
{
	struct unwind_ctx c = { .u = u, .s = s, .regs_mask = regs_mask, .ips = ips, .max = max };
	Dwarf_Word ret;
	uint64_t ip;

	/*
	 * No frame at all, not even the IP, when the kernel copied no stack
	 * (dyn_size 0: a fault on the stack's growth, say), as perf: it bails
	 * out when "nothing was captured".
	 */
	if (!max || !s->regs_user || !s->regs_user_abi || !s->stack_user ||
	    !s->stack_user_dyn_size ||
	    !sample_reg(&c, PERF_X86_IP, &ip) || !sample_reg(&c, PERF_X86_SP, &c.sp))
		return 0;
	walk(&c, ip);
	/*
	 * A PLT stub has no CFI, but it has not touched the stack: its caller
	 * is at [sp] (what perf's libunwind does for PLT entries).
	 */
	if (c.nr <= 1 && max > 1 && in_plt(&c, ip) && memory_read(NULL, c.sp, &ret, &c)) {
		c.nr = 0;
		ips[c.nr++] = ip;
		c.from_caller = true;
		c.caller_pc = ret;
		c.caller_sp = c.sp + 8;
		walk(&c, ret);
	}
	return c.nr;
}
