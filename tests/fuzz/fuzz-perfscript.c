// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any text as `perf script` output (llvm-profgen's
 * --perfscript input: MMAP events, IPs, branch stacks, call stacks, repeat
 * counts) through the reader, the per-process address spaces and profgen's
 * collector, then into profiles of a real binary with DWARF (this program:
 * the offsets fall where they fall), written as text, extbinary and
 * llvm-profgen's unsymbolized profile. Nothing may crash, hang or leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile/collect.h"
#include "profile/generate.h"
#include "profile/perfscript.h"
#include "profile/sampleprof.h"
#include "symbol/addrspace.h"
#include "symbol/dso.h"

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	static struct dso_cache *cache;
	static struct binary *self;
	struct pg_options opt = { .use_stack = true };
	struct perfscript_stats st;
	struct pg_dso *const *dsos;
	uint64_t outside;
	struct pg_collector *c;
	struct machine *m;
	FILE *f, *out;

	if (!len)
		return 0;
	if (!cache && !(cache = dso_cache_new()))
		abort();
	if (!self && binary_open("/proc/self/exe", NULL, &self))
		abort();
	m = machine_new(cache);
	c = m ? pg_collector_new(m, &opt) : NULL;
	f = fmemopen((void *)buf, len, "r");
	out = fopen("/dev/null", "w");
	if (!c || !f || !out)
		abort();
	if (!perfscript_read(f, "fuzz", m, c, &st)) {
		size_t n = pg_collector_dsos(c, &dsos);

		for (size_t i = 0; i < n; i++) {
			const struct pg_count *ips;

			pg_dso_ips(dsos[i], &ips);
		}
		for (size_t i = 0; i < n; i++) {
			struct sample_profile *p = sample_profile_new();
			struct pg_generate_stats gst = { 0 };

			if (!p)
				abort();
			if (!pg_generate(p, &dsos[i], 1, self, &gst)) {
				sample_profile_write_text(p, out);
				sample_profile_write_extbinary(p, out);
			}
			sample_profile_free(p);
		}
		if (n)
			pg_write_unsymbolized(out, dsos, n, self, &outside);
	}
	fclose(out);
	fclose(f);
	pg_collector_free(c);
	machine_free(m);
	return 0;
}
