// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as a perf.data (file or pipe mode, either byte
 * order) through the reader, the ordered session, the per-process address
 * spaces, every feature decoder, the samples' call chains resolved (their
 * user stacks unwound, their inline frames), and their stacks folded and
 * drawn as a flame graph (report's and script's --folded, --flamegraph),
 * and every record dumped as report -D prints it (group-read values too).
 * Nothing may crash, hang or leak.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "symbol/addrspace.h"
#include "symbol/dso.h"
#include "perf/dump.h"
#include "perf/header-info.h"
#include "perf/perf-data.h"
#include "perf/session.h"
#include "profile/stacks.h"
#include "symbol/chain.h"

struct fuzz_ctx {
	struct machine *m;
	struct stacks *stacks;
	struct chain_resolver *chains;
	struct session *session;
	struct perf_dump dump;
	struct perf_dump_values *values;
};

static int deliver(void *ctx, const struct perf_event_header *rec,
		   const struct perf_data_attr *attr, const struct perf_sample *sample)
{
	struct fuzz_ctx *fc = ctx;
	struct machine *m = fc->m;
	struct addr_location al;
	const struct perf_data_attr *attrs[64];
	uint64_t periods[64];

	perf_dump_record(&fc->dump, session_offset(fc->session), rec, attr, sample);
	if (rec->type == PERF_RECORD_FINISHED_ROUND ||
	    (rec->type == PERF_RECORD_SAMPLE && !attr))
		return 0;
	if (rec->type == PERF_RECORD_SAMPLE &&
	    perf_dump_sample_values(&fc->values, fc->dump.data, attr, sample, attrs, periods,
				    64) < 0)
		return -ENOMEM;
	if (rec->type != PERF_RECORD_SAMPLE)
		return machine_process_record(m, rec) == -ENOMEM ? -ENOMEM : 0;
	machine_resolve(m, sample->pid, sample->tid, sample->cpumode, sample->ip, &al);
	for (uint64_t i = 0; i < sample->callchain_nr && i < 16; i++)
		machine_resolve(m, sample->pid, sample->tid, sample->cpumode,
				sample->callchain[i], &al);
	machine_comm(m, sample->tid);
	if (fc->chains) {
		const struct chain_frame *cf;
		long nr = chain_resolve(fc->chains, sample, attr->attr.sample_regs_user, &cf);

		if (nr < 0)
			return (int)nr;
		return fc->stacks ? stacks_add_sample(fc->stacks, m, sample, cf, (size_t)nr, true) :
				    0;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	static const int string_feats[] = {
		HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_VERSION, HEADER_ARCH,
		HEADER_CPUDESC, HEADER_CPUID,
	};
	/* kept across inputs: symbol tables (kallsyms, libc) load once */
	static struct dso_cache *cache;
	struct perf_data *d;
	struct machine *m;
	struct session *s;
	const void *fb;
	size_t flen;

	if (perf_data_open_mem(buf, len, &d))
		return 0;
	if (!cache)
		cache = dso_cache_new();
	m = cache ? machine_new(cache) : NULL;
	s = m ? session_new(d) : NULL;
	if (s) {
		struct fuzz_ctx fc = { .m = m, .stacks = stacks_new(),
				       .chains = chain_resolver_new(m), .session = s };
		FILE *null = fopen("/dev/null", "w");
		uint64_t counts[4] = { 1, 2, 3, 4 };

		perf_dump_init(&fc.dump, null ? null : stderr, d, "fuzz", false);
		session_set_dump(s, true);
		session_run(s, deliver, &fc);
		perf_dump_values_free(fc.values);
		if (null)
			perf_dump_stats(null, counts, 4, true, d, counts, counts,
					perf_data_nr_attrs(d) < 4 ? perf_data_nr_attrs(d) : 4);
		if (fc.stacks && null && stacks_samples(fc.stacks)) {
			stacks_write_folded(fc.stacks, null);
			stacks_write_svg(fc.stacks, null, "fuzz");
		}
		if (null)
			fclose(null);
		stacks_free(fc.stacks);
		chain_resolver_free(fc.chains);
	}
	for (size_t i = 0; i < sizeof(string_feats) / sizeof(string_feats[0]); i++)
		free(perf_data_feature_string(d, string_feats[i]));
	/* every feature's decoder, as --header -I runs them (pipe mode: after the records) */
	{
		FILE *null = fopen("/dev/null", "w");

		for (unsigned f = 1; null && f < HEADER_LAST_FEATURE; f++) {
			perf_header_fprintf_feature(null, d, f, true);
			perf_header_fprintf_feature(null, d, f, false);
		}
		if (null)
			fclose(null);
	}
	if (m && perf_data_feature(d, HEADER_BUILD_ID, &fb, &flen) == 1)
		machine_add_build_ids(m, fb, flen, perf_data_needs_swap(d));
	perf_data_tracing_data(d, &flen);
	session_free(s);
	machine_free(m);
	perf_data_close(d);
	return 0;
}
