// SPDX-License-Identifier: MIT
/*
 * swlbr [-p PERIOD] [-n DEPTH] [-s SYMBOL] [-N MAX] [-r REPEAT] -o OUT -- CMD [ARGS...]:
 * a software LBR for
 * the tests of sbx profgen on machines without one. It runs CMD under
 * ptrace, one instruction at a time, notes every taken branch of the user
 * code (an instruction after which the next one is not the one that
 * follows it), and every PERIOD taken branches writes a SAMPLE with the
 * last DEPTH branches, newest first, as perf record -b would on a machine
 * with LBR. OUT is a perf.data (the sbx writer) with the process's COMM,
 * its executable maps as MMAP2 records (at main, and those mapped later at
 * the exit), the samples in rounds, its EXIT and the build-ids: what perf
 * script, llvm-profgen and sbx profgen read.
 *
 * The trace is exact (no skid, no missed branch) and deterministic for a
 * deterministic program. It is slow (in a VM, some 10,000 instructions a
 * second), so it starts at SYMBOL of CMD's executable (default main: not
 * the dynamic loader's start-up) and CMD should be small. Defaults: PERIOD
 * 997, DEPTH 32.
 *
 * For benchmarks: -N stops the trace (and kills CMD) after MAX samples, and
 * -r writes each sample REPEAT times, a large input from a short trace.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/perf-data-write.h"
#include "perf/records.h"
#include "symbol/buildid.h"
#include "symbol/symtab.h"
#include "util/error.h"
#include "util/hashmap.h"

#define MAX_DEPTH	64
#define SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK)

struct len_entry {
	uint64_t addr;
	uint8_t len;
};

static bool len_is(const void *e, const void *k)
{
	return ((const struct len_entry *)e)->addr == *(const uint64_t *)k;
}

static struct hashmap lens = HASHMAP_INIT;
static csh cs;
static pid_t child;

/* The length of the instruction at addr in the child (cached), 0 when it cannot be read. */
static unsigned insn_len(uint64_t addr)
{
	struct len_entry *e = hashmap_get(&lens, hash_u64(addr), len_is, &addr);
	uint8_t buf[16];
	struct iovec local = { buf, sizeof(buf) }, remote = { (void *)(uintptr_t)addr, 16 };
	cs_insn *in;
	size_t n;

	if (e)
		return e->len;
	if (process_vm_readv(child, &local, 1, &remote, 1, 0) <= 0)
		return 0;
	n = cs_disasm(cs, buf, sizeof(buf), addr, 1, &in);
	e = malloc(sizeof(*e));
	if (!e)
		exit(1);
	e->addr = addr;
	e->len = n ? (uint8_t)in[0].size : 0;
	if (n)
		cs_free(in, n);
	hashmap_put(&lens, hash_u64(addr), e);
	return e->len;
}

/* The load address of the child's executable: its map at file offset 0. */
static uint64_t exe_base(const char *exe)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	uint64_t base = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
	f = fopen(path, "r");
	while (f && getline(&line, &cap, f) > 0) {
		unsigned long long start, pgoff;
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%*x %*s %llx %*x:%*x %*u %n", &start, &pgoff, &n) >= 2 &&
		    n && !strcmp(line + n, exe) && pgoff == 0) {
			base = start;
			break;
		}
	}
	free(line);
	if (f)
		fclose(f);
	return base;
}

/* Run the child to symbol of its executable with a breakpoint; false when it is not there. */
static bool run_to(const char *symbol)
{
	char link[64], exe[4096];
	struct symtab *t;
	uint64_t addr = 0, base;
	long word;
	int status;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)child);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = 0;
	t = symtab_from_elf(exe);
	for (size_t i = 0; t && i < t->nr; i++)
		if (!strcmp(t->syms[i].name, symbol))
			addr = t->syms[i].start;
	symtab_free(t);
	base = exe_base(exe);
	if (!addr)
		return false;
	/* a PIE's symbols are offsets from its base; a fixed executable's are addresses */
	if (addr < base)
		addr += base;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, child, (void *)(uintptr_t)addr, NULL);
	if (errno)
		return false;
	ptrace(PTRACE_POKETEXT, child, (void *)(uintptr_t)addr,
	       (void *)((word & ~0xffL) | 0xcc));
	ptrace(PTRACE_CONT, child, NULL, NULL);
	if (waitpid(child, &status, 0) < 0 || !WIFSTOPPED(status))
		return false;
	ptrace(PTRACE_POKETEXT, child, (void *)(uintptr_t)addr, (void *)word);
	{
		struct user_regs_struct regs;

		ptrace(PTRACE_GETREGS, child, NULL, &regs);
		regs.rip = addr;
		ptrace(PTRACE_SETREGS, child, NULL, &regs);
	}
	return true;
}

static struct perf_sample_layout layout;
static struct perf_data_writer *w;
static uint64_t now = 1000000;
static uint64_t nr_samples;

static void put(const void *rec)
{
	if (perf_data_writer_write(w, rec)) {
		fprintf(stderr, "swlbr: %s\n", sbx_error_msg());
		kill(child, SIGKILL);
		exit(1);
	}
}

/* maps written already (start addresses): at main, then the new ones at the exit */
static uint64_t written[256];
static size_t nr_written;

static bool map_written(uint64_t start)
{
	for (size_t i = 0; i < nr_written; i++)
		if (written[i] == start)
			return true;
	if (nr_written < sizeof(written) / sizeof(*written))
		written[nr_written++] = start;
	return false;
}

/*
 * The executable maps of the child not written yet as MMAP2 records at the
 * current time, and the build-ids of their files.
 */
static void write_maps(void **bid, size_t *bid_len)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int n = 0;
		uint64_t rec[600];
		struct perf_sample id = { .pid = (uint32_t)child, .tid = (uint32_t)child,
					  .time = now };
		struct perf_rec_mmap m = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true };
		struct perf_rec_build_id b = { .misc = PERF_RECORD_MISC_USER, .pid = -1 };
		size_t size;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
			   &maj, &min, &ino, &n) < 7 || perms[2] != 'x' || !line[n] ||
		    map_written(start))
			continue;
		m.pid = m.tid = (uint32_t)child;
		m.start = start;
		m.len = end - start;
		m.pgoff = pgoff;
		m.maj = maj;
		m.min = min;
		m.ino = ino;
		m.prot = PROT_READ | PROT_EXEC;
		m.flags = MAP_PRIVATE;
		m.filename = line + n;
		if (perf_rec_encode_mmap(rec, sizeof(rec), &m, &layout, &id) > 0)
			put(rec);
		if (line[n] != '/' || buildid_read(line + n, b.build_id, sizeof(b.build_id), &size))
			continue;
		b.size = (uint8_t)size;
		b.filename = line + n;
		{
			int len = perf_rec_encode_build_id(rec, sizeof(rec), &b);
			void *v = len > 0 ? realloc(*bid, *bid_len + (size_t)len) : NULL;

			if (v) {
				memcpy((char *)v + *bid_len, rec, (size_t)len);
				*bid = v;
				*bid_len += (size_t)len;
			}
		}
	}
	free(line);
	fclose(f);
}

static void write_sample(uint64_t ip, const struct perf_branch_entry_raw *ring, size_t head,
			 size_t nr, size_t depth, uint64_t period)
{
	uint64_t rec[8 + 2 + 3 * MAX_DEPTH];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	size_t k = 1;
	uint32_t pt[2] = { (uint32_t)child, (uint32_t)child };

	rec[k++] = ip;
	memcpy(&rec[k++], pt, 8);
	rec[k++] = now;
	rec[k++] = period;
	rec[k++] = nr;
	for (size_t i = 0; i < nr; i++) {
		const struct perf_branch_entry_raw *b = &ring[(head + depth - i) % depth];

		rec[k++] = b->from;
		rec[k++] = b->to;
		rec[k++] = 0;
	}
	h.size = (uint16_t)(k * 8);
	memcpy(rec, &h, 8);
	put(rec);
	/* rounds, as perf record writes them: a reader need not hold the whole file */
	if (++nr_samples % 1024 == 0) {
		struct perf_event_header round = { PERF_RECORD_FINISHED_ROUND, 0, 8 };

		put(&round);
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL, *start = "main";
	unsigned long period = 997, depth = 32, max = 0, repeat = 1;
	bool stopped = false;
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
					.config = PERF_COUNT_HW_CPU_CYCLES };
	struct perf_branch_entry_raw ring[MAX_DEPTH];
	size_t head = 0, filled = 0;
	uint64_t taken = 0, prev = 0, rec[600];
	void *bid = NULL;
	size_t bid_len = 0;
	int opt, status;

	while ((opt = getopt(argc, argv, "+p:n:o:s:N:r:")) != -1) {
		if (opt == 'N')
			max = strtoul(optarg, NULL, 0);
		else if (opt == 'r')
			repeat = strtoul(optarg, NULL, 0);
		else if (opt == 's')
			start = optarg;
		else if (opt == 'p')
			period = strtoul(optarg, NULL, 0);
		else if (opt == 'n')
			depth = strtoul(optarg, NULL, 0);
		else if (opt == 'o')
			out = optarg;
		else
			return 2;
	}
	if (!out || optind >= argc || !period || !depth || depth > MAX_DEPTH || !repeat) {
		fprintf(stderr, "usage: swlbr [-p PERIOD] [-n DEPTH<=64] [-s SYMBOL] [-N MAX] "
			"[-r REPEAT] -o OUT -- CMD [ARGS...]\n");
		return 2;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 1;
	attr.sample_type = SAMPLE_TYPE;
	attr.sample_period = period;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	attr.exclude_kernel = attr.exclude_hv = 1;
	attr.sample_id_all = 1;
	attr.mmap = attr.mmap2 = attr.comm = attr.task = 1;
	perf_sample_layout_init(&layout, &attr);
	if (perf_data_writer_open(out, &w) ||
	    perf_data_writer_add_attr(w, &attr, "cycles:u", NULL, 0)) {
		fprintf(stderr, "swlbr: %s\n", sbx_error_msg());
		return 1;
	}
	child = fork();
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[optind], &argv[optind]);
		_exit(127);
	}
	/* stopped at the exec */
	if (waitpid(child, &status, 0) < 0 || !WIFSTOPPED(status))
		return 1;
	ptrace(PTRACE_SETOPTIONS, child, NULL,
	       (void *)(uintptr_t)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
	if (!run_to(start)) {
		fprintf(stderr, "swlbr: cannot stop %s at '%s'\n", argv[optind], start);
		kill(child, SIGKILL);
		return 1;
	}
	{
		struct perf_rec_comm c = { .misc = PERF_RECORD_MISC_COMM_EXEC,
					   .pid = (uint32_t)child, .tid = (uint32_t)child };
		struct perf_sample id = { .pid = (uint32_t)child, .tid = (uint32_t)child,
					  .time = now };
		const char *base = strrchr(argv[optind], '/');

		c.comm = base ? base + 1 : argv[optind];
		if (perf_rec_encode_comm(rec, sizeof(rec), &c, &layout, &id) > 0)
			put(rec);
	}
	/* at main the loader has mapped the libraries; dlopen()ed ones come at the exit */
	write_maps(&bid, &bid_len);
	for (;;) {
		struct user_regs_struct regs;
		unsigned len;

		if (ptrace(PTRACE_SINGLESTEP, child, NULL, NULL) < 0 ||
		    waitpid(child, &status, 0) < 0)
			break;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
			break;
		if (ptrace(PTRACE_GETREGS, child, NULL, &regs) < 0)
			break;
		now += 1;
		if (prev && (len = insn_len(prev)) && regs.rip != prev + len) {
			ring[head] = (struct perf_branch_entry_raw){ prev, regs.rip, 0 };
			if (filled < depth)
				filled++;
			if (++taken % period == 0)
				for (unsigned long r = 0; r < repeat; r++, now++)
					write_sample(regs.rip, ring, head, filled, depth, period);
			head = (head + 1) % depth;
			if (max && taken / period >= max) {
				stopped = true;
				break;
			}
		}
		prev = regs.rip;
	}
	write_maps(&bid, &bid_len);
	if (stopped)
		kill(child, SIGKILL);
	else
		ptrace(PTRACE_CONT, child, NULL, NULL);
	waitpid(child, &status, 0);
	{
		struct perf_rec_task t = { .pid = (uint32_t)child, .ppid = (uint32_t)getpid(),
					   .tid = (uint32_t)child, .ptid = (uint32_t)getpid(),
					   .time = now };
		struct perf_sample id = { .pid = (uint32_t)child, .tid = (uint32_t)child,
					  .time = now };

		if (perf_rec_encode_task(rec, sizeof(rec), PERF_RECORD_EXIT, &t, &layout, &id) > 0)
			put(rec);
	}
	if ((bid_len && perf_data_writer_add_feature(w, HEADER_BUILD_ID, bid, bid_len)) ||
	    perf_data_writer_add_feature(w, HEADER_BRANCH_STACK, "", 0) ||
	    perf_data_writer_close(w)) {
		fprintf(stderr, "swlbr: %s\n", sbx_error_msg());
		return 1;
	}
	fprintf(stderr, "swlbr: %llu taken branches, %llu samples%s\n", (unsigned long long)taken,
		(unsigned long long)(taken / period * repeat), stopped ? " (stopped at -N)" : "");
	cs_close(&cs);
	if (stopped)
		return 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
