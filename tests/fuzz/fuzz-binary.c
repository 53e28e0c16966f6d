// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as the ELF file sbx profgen profiles (a damaged
 * or hostile --binary): opened (segments, build-id, .symtab, DWARF: line
 * programs read by sbx, the rest through libdw), then samples at every place
 * code starts and branch stacks between them, as a process that mapped the
 * file would give, turned into a profile and written. Nothing may crash,
 * hang or leak.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf/records.h"
#include "profile/collect.h"
#include "profile/generate.h"
#include "profile/sampleprof.h"
#include "symbol/addrspace.h"
#include "symbol/binary.h"
#include "symbol/dso.h"

#define BASE		0x555500000000ULL
#define MAX_SAMPLES	256

/* The file offset of vaddr through b's PT_LOADs, or UINT64_MAX. */
static uint64_t file_offset(const struct binary *b, uint64_t vaddr)
{
	for (size_t i = 0; i < b->nr_loads; i++) {
		const struct dso_load *l = &b->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz)
			return vaddr - l->vaddr + l->offset;
	}
	return UINT64_MAX;
}

/* pg_generate()'s answer (-ENODATA: no sample fell in the binary) */
static int profile(struct binary *b, const char *path, size_t len)
{
	static uint64_t rec[512];
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = cache ? machine_new(cache) : NULL;
	struct pg_options opt = { .use_stack = true };
	struct pg_collector *c = m ? pg_collector_new(m, &opt) : NULL;
	struct perf_rec_mmap mm = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true, .pid = 1,
				    .tid = 1, .start = BASE, .len = (len + 4095) & ~4095UL,
				    .prot = PROT_READ | PROT_EXEC, .filename = path };
	struct perf_branch_entry_raw br[4];
	struct sample_profile *p = sample_profile_new();
	struct pg_generate_stats st = { 0 };
	struct pg_dso *const *dsos;
	uint64_t prev = BASE, outside;
	FILE *out = fopen("/dev/null", "w");
	int err = -ENODATA;

	if (!c || !p || !out || perf_rec_encode_mmap(rec, sizeof(rec), &mm, NULL, NULL) <= 0 ||
	    machine_process_record(m, (const void *)rec))
		abort();
	for (size_t i = 0; i < b->nr_code_starts && i < MAX_SAMPLES; i++) {
		uint64_t off = file_offset(b, b->code_starts[i]), ip;

		if (off == UINT64_MAX || off >= mm.len)
			continue;
		ip = BASE + off;
		/* an IP sample, and a stack: a jump from the last start here, and into the middle */
		br[0] = (struct perf_branch_entry_raw){ ip + 3, ip + 8, 0 };
		br[1] = (struct perf_branch_entry_raw){ prev + 1, ip, 0 };
		br[2] = (struct perf_branch_entry_raw){ ip + 16, prev, 0 };
		br[3] = (struct perf_branch_entry_raw){ 0xffffffff81000000ULL, ip + 1, 0 };
		if (pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, ip + 1, NULL, 0) ||
		    pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, ip, br, 4))
			abort();
		prev = ip;
	}
	if (pg_collector_flush(c))
		abort();
	if (pg_collector_dsos(c, &dsos) == 1) {
		err = pg_generate(p, dsos, 1, b, &st);
		if (!err) {
			sample_profile_write_text(p, out);
			sample_profile_write_extbinary(p, out);
		}
		/* the two follow the branch stacks alike: refused by both or by neither */
		if ((pg_write_unsymbolized(out, dsos, 1, b, &outside) == -EINVAL) != (err == -EINVAL))
			abort();
	}
	fclose(out);
	sample_profile_free(p);
	pg_collector_free(c);
	machine_free(m);
	dso_cache_free(cache);
	return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	int fd = memfd_create("binary", MFD_CLOEXEC);
	struct binary *b;
	char path[64];

	if (fd < 0)
		abort();
	if (len && write(fd, buf, len) != (ssize_t)len)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!binary_open(path, NULL, &b)) {
		profile(b, path, len);
		binary_free(b);
	}
	close(fd);
	return 0;
}
