// SPDX-License-Identifier: MIT
/*
 * gen-perf-data OUT NSAMPLES [ELF]: writes a perf.data (file mode, with the
 * sbx writer) that perf report and sbx report both read: 8 processes that
 * each map ELF (default: the C library) executable at their own base and
 * take NSAMPLES samples in total, spread over the ELF's functions with a
 * skewed, deterministic distribution, in rounds of 10,000 samples: two
 * CPUs' buffers one after the other, their times interleaved. With -g
 * first, each sample also has a call chain of 4 to 16 frames, a path down a
 * fixed tree of the ELF's functions (four callees each), its leaf the
 * sampled function; with -G, the same, and some chains end in
 * 0xffffffffffffffff, as some kernels end user chains. Used by
 * scripts/bench/report.sh and the tests.
 *
 * Build: cc -Ilib/include -o gen-perf-data scripts/gen-perf-data.c BUILD/libsbx.a -lelf …
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "perf/perf-data.h"
#include "perf/perf-data-write.h"
#include "symbol/buildid.h"
#include "symbol/symtab.h"

#define NPROC 8
#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define MAX_DEPTH 16

struct trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int write_comm(struct perf_data_writer *w, uint32_t pid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		struct trailer t;
	} r = { { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(r) }, pid, pid, "",
		{ pid, pid, time, 0, 0 } };

	snprintf(r.comm, sizeof(r.comm), "worker%u", pid % 4);
	return perf_data_writer_write(w, &r);
}

static int write_mmap2(struct perf_data_writer *w, uint32_t pid, uint64_t base,
		       const char *path, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_generation;
		uint32_t prot, flags;
		char filename[256];
	} r;
	struct trailer t = { pid, pid, time, 0, 0 };
	size_t n = strlen(path) + 1, fixed = offsetof(__typeof__(r), filename);

	n = (n + 7) & ~(size_t)7;
	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_MMAP2;
	r.h.misc = PERF_RECORD_MISC_USER;
	r.h.size = fixed + n + sizeof(t);
	r.pid = r.tid = pid;
	r.addr = base;
	r.len = 1ULL << 30;	/* the whole file, one map: offsets equal vaddrs below */
	r.pgoff = 0;
	r.prot = 5;
	r.flags = 2;
	snprintf(r.filename, sizeof(r.filename), "%s", path);
	memcpy((char *)&r + fixed + n, &t, sizeof(t));
	return perf_data_writer_write(w, &r);
}

int main(int argc, char **argv)
{
	const char *elf = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct perf_data_writer *w;
	struct perf_event_attr attr = { 0 };
	struct symtab *t;
	uint64_t n, base[NPROC], time = 1000000000;
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period;
		uint64_t nr, chain[MAX_DEPTH + 2];	/* with -g; -G: and an end of all ones */
	} s = { .h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 } };
	struct perf_event_header round = { PERF_RECORD_FINISHED_ROUND, 0, 8 };
	/* -g: call chains; -G: and some end in 0xffffffffffffffff */
	int callchains = argc > 1 ? !strcmp(argv[1], "-g") ? 1 : !strcmp(argv[1], "-G") ? 2 : 0 : 0;

	if (callchains) {
		argc--;
		argv++;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: gen-perf-data [-g|-G] OUT NSAMPLES [ELF]\n");
		return 2;
	}
	elf = argc > 3 ? argv[3] : elf;
	s.h.size = callchains ? sizeof(s) : offsetof(__typeof__(s), nr);
	n = strtoull(argv[2], NULL, 0);
	t = symtab_from_elf(elf);
	if (!t || !t->nr) {
		fprintf(stderr, "gen-perf-data: no symbols in %s\n", elf);
		return 1;
	}
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000;
	attr.sample_type = SAMPLE_TYPE | (callchains ? PERF_SAMPLE_CALLCHAIN : 0);
	attr.sample_id_all = 1;
	attr.mmap = attr.comm = attr.task = 1;
	if (perf_data_writer_open(argv[1], &w) ||
	    perf_data_writer_add_attr(w, &attr, "cpu-clock", NULL, 0) ||
	    perf_data_writer_add_feature_string(w, HEADER_ARCH, "x86_64") ||
	    perf_data_writer_add_feature_string(w, HEADER_HOSTNAME, "gen-perf-data")) {
		fprintf(stderr, "gen-perf-data: %s\n", sbx_error_msg());
		return 1;
	}
	for (int p = 0; p < NPROC; p++) {
		base[p] = 0x7f0000000000ULL + (uint64_t)p * 0x10000000ULL;
		write_comm(w, 1000 + p, time++);
		write_mmap2(w, 1000 + p, base[p], elf, time++);
	}
	/*
	 * Like perf record reading per-CPU buffers: in each round, CPU 0's
	 * samples, then CPU 1's, whose times interleave with CPU 0's.
	 */
	for (uint64_t r0 = 0; r0 < n; r0 += 10000) {
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			for (uint64_t i = r0 + cpu; i < n && i < r0 + 10000; i += 2) {
				/*
				 * skewed: half the samples in 1/64 of the functions,
				 * every 64th in address order (not the first ones:
				 * the PLT and _init of an executable)
				 */
				uint64_t r = next_rand();
				size_t k = (r & 1) ? (r >> 8) % (t->nr / 64 + 1) * 64 % t->nr
						   : (r >> 8) % t->nr;
				const struct symbol *sym = &t->syms[k];
				int p = (r >> 40) % NPROC;

				if (callchains) {
					/* a path from the root: each level one of 4 callees */
					uint64_t r2 = next_rand(), depth = 4 + r2 % (MAX_DEPTH - 3);
					size_t f = (t->nr / 3) % t->nr;

					s.nr = depth + 1;
					s.chain[0] = PERF_CONTEXT_USER;
					for (uint64_t l = 0; l < depth; l++) {
						const struct symbol *fs;

						f = (f * 31 + ((r2 >> (8 + 2 * l)) & 3) + 1) % t->nr;
						fs = &t->syms[f];
						s.chain[depth - l] = base[p] + fs->start +
								     (fs->size > 1 ? fs->size / 2 : 0);
					}
					sym = &t->syms[f];
					memset(&s.chain[depth + 1], 0,
					       (MAX_DEPTH + 1 - depth) * sizeof(s.chain[0]));
					/* -G: a fifth of CPU 0's chains end as some kernels end one */
					if (callchains == 2 && !(i % 10))
						s.chain[++s.nr - 1] = ~(uint64_t)0;
					s.h.size = offsetof(__typeof__(s), chain) +
						   s.nr * sizeof(s.chain[0]);
				}
				s.ip = base[p] + sym->start + (sym->size ? (r >> 20) % sym->size : 0);
				if (callchains)
					s.chain[1] = s.ip;
				s.pid = s.tid = 1000 + p;
				s.cpu = cpu;
				s.time = time + i * 1000;
				s.period = 1000000;
				if (perf_data_writer_write(w, &s)) {
					fprintf(stderr, "gen-perf-data: %s\n", sbx_error_msg());
					perf_data_writer_abort(w);
					return 1;
				}
			}
		}
		perf_data_writer_write(w, &round);
	}
	symtab_free(t);
	if (perf_data_writer_close(w)) {
		fprintf(stderr, "gen-perf-data: %s\n", sbx_error_msg());
		return 1;
	}
	return 0;
}
