// SPDX-License-Identifier: MIT
/*
 * lib/profile on constructed data: LLVM's discriminator encoding; the text
 * and extbinary writers on a profile whose bytes llvm-profdata 14 and 19
 * were seen to write; per-process attribution of samples and branch stacks
 * (two processes of one binary at different bases); the perf script reader;
 * call graphs printed in perf report's four modes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"
#include "perf/records.h"
#include "profile/callgraph.h"
#include "profile/collect.h"
#include "profile/generate.h"
#include "profile/perfscript.h"
#include "profile/afdo.h"
#include "profile/sampleprof.h"
#include "profile/stacks.h"
#include "symbol/addrspace.h"
#include "symbol/dso.h"

static void test_discriminators(void)
{
	/* bit 0 set: base 0; else 5 bits of base, then the duplication factor */
	CHECK_EQ_INT(pg_base_discriminator(0), 0);
	CHECK_EQ_INT(pg_duplication_factor(0), 1);
	CHECK_EQ_INT(pg_base_discriminator(2), 1);
	CHECK_EQ_INT(pg_duplication_factor(2), 1);
	CHECK_EQ_INT(pg_base_discriminator(9), 0);
	CHECK_EQ_INT(pg_duplication_factor(9), 2);
	CHECK_EQ_INT(pg_base_discriminator(514), 1);
	CHECK_EQ_INT(pg_duplication_factor(514), 2);
	CHECK_EQ_INT(pg_base_discriminator(1026), 1);
	CHECK_EQ_INT(pg_duplication_factor(1026), 4);
	/* a base above 31: 12 bits, flagged by bit 6 of the shifted value */
	/* 33 = 0b100001: low 5 bits, flag, high bits one further up, shifted past bit 0 */
	CHECK_EQ_INT(pg_base_discriminator(((0x40 | 0x20 | 1) << 1)), 33);
	CHECK_EQ_INT(pg_duplication_factor(((0x40 | 0x20 | 1) << 1) | (2 << 15)), 2);
}

/* The profile of LLVM's own example (SampleProfWriter's shape). */
static struct sample_profile *example(void)
{
	struct sample_profile *p = sample_profile_new();
	struct sp_func *m = sample_profile_func(p, "main"), *f = sample_profile_func(p, "foo"), *b;

	m->total = 1000;
	m->head = 10;
	sp_func_body(p, m, (struct sp_loc){ 1, 0 })->count = 10;
	sp_func_body(p, m, (struct sp_loc){ 2, 0 })->count = 20;
	sp_func_add_target(p, m, (struct sp_loc){ 2, 0 }, "bar", 5);
	sp_func_add_target(p, m, (struct sp_loc){ 2, 0 }, "foo", 15);
	sp_func_body(p, m, (struct sp_loc){ 3, 2 })->count = 30;
	b = sp_func_inlinee(p, m, (struct sp_loc){ 4, 0 }, "bar");
	b->total = 100;
	sp_func_body(p, b, (struct sp_loc){ 1, 0 })->count = 100;
	sp_func_body(p, b, (struct sp_loc){ 2, 1 })->count = 7;
	sp_func_add_target(p, b, (struct sp_loc){ 2, 1 }, "baz", 7);
	f->total = 50;
	f->head = 5;
	sp_func_body(p, f, (struct sp_loc){ 0, 0 })->count = 5;
	sp_func_body(p, f, (struct sp_loc){ 1, 0 })->count = 45;
	return p;
}

static char *write_to_mem(struct sample_profile *p, bool binary, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	CHECK(f != NULL);
	CHECK_EQ_INT(binary ? sample_profile_write_extbinary(p, f)
			    : sample_profile_write_text(p, f), 0);
	fclose(f);
	return buf;
}

static void test_text_writer(void)
{
	struct sample_profile *p = example();
	size_t len;
	char *text = write_to_mem(p, false, &len);

	CHECK_EQ_STR(text, "main:1000:10\n"
			   " 1: 10\n"
			   " 2: 20 foo:15 bar:5\n"
			   " 3.2: 30\n"
			   " 4: bar:100\n"
			   "  1: 100\n"
			   "  2.1: 7 baz:7\n"
			   "foo:50:5\n"
			   " 0: 5\n"
			   " 1: 45\n");
	free(text);
	sample_profile_free(p);
}

static void test_extbinary_writer(void)
{
	static const uint8_t head[] = { 0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53,
					0x67, 7, 0, 0, 0, 0, 0, 0, 0 };
	/* what llvm-profdata 14 and 19 write for this profile: 403 bytes */
	static const uint8_t summary[] = { 0xd9, 0x01, 0x64, 0x0a, 0x07, 0x02, 0x10 };
	static const char names[] = "\x04" "bar\0baz\0foo\0main";
	static const uint8_t main_rec[] = { 0x0a, 0x03, 0xe8, 0x07, 0x03, 0x01, 0x00, 0x0a, 0x00,
					    0x02, 0x00, 0x14, 0x02, 0x02, 0x0f, 0x00, 0x05 };
	struct sample_profile *p = example();
	size_t len;
	uint8_t *b = (uint8_t *)write_to_mem(p, true, &len);
	uint64_t off;

	CHECK_EQ_INT(len, 403);
	CHECK(!memcmp(b, head, sizeof(head)));
	/* the summary at 0xf2, the name table at 0x148, main's record at 0x15b */
	memcpy(&off, b + 18 + 16, 8);
	CHECK_EQ_U64(off, 0xf2);
	CHECK(!memcmp(b + 0xf2, summary, sizeof(summary)));
	CHECK(!memcmp(b + 0x148, names, sizeof(names)));
	CHECK(!memcmp(b + 0x15b, main_rec, sizeof(main_rec)));
	/* the offset table: main at 0, foo at 0x26 */
	CHECK(b[0x18e] == 2 && b[0x18f] == 3 && b[0x190] == 0 && b[0x191] == 2 && b[0x192] == 0x26);
	free(b);
	sample_profile_free(p);
}

/* ----------------------------------------------------------- collect */

static uint64_t rec[128];

static const struct perf_event_header *mmap2(uint32_t pid, uint64_t start, uint64_t pgoff,
					     const char *file)
{
	struct perf_rec_mmap m = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true, .pid = pid,
				   .tid = pid, .start = start, .len = 0x1000, .pgoff = pgoff,
				   .prot = PROT_READ | PROT_EXEC, .filename = file };

	CHECK(perf_rec_encode_mmap(rec, sizeof(rec), &m, NULL, NULL) > 0);
	return (const void *)rec;
}

static void test_two_processes(void)
{
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = machine_new(cache);
	struct pg_options opt = { .use_stack = true };
	struct pg_collector *c = pg_collector_new(m, &opt);
	struct perf_branch_entry_raw br[3];
	struct pg_dso *const *dsos;
	const struct pg_count *ips;
	struct pg_stack *st;
	size_t n;

	/* one binary at two bases, a library only in process 2 */
	CHECK_EQ_INT(machine_process_record(m, mmap2(1, 0x555500001000, 0x1000, "/bin/app")), 0);
	CHECK_EQ_INT(machine_process_record(m, mmap2(2, 0x555600001000, 0x1000, "/bin/app")), 0);
	CHECK_EQ_INT(machine_process_record(m, mmap2(2, 0x7f0000000000, 0, "/lib/libx.so")), 0);
	CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, 0x555500001010, NULL, 0), 0);
	CHECK_EQ_INT(pg_collect_parts(c, 2, PERF_RECORD_MISC_USER, 0x555600001010, NULL, 0), 0);
	CHECK_EQ_INT(pg_collect_parts(c, 2, PERF_RECORD_MISC_USER, 0x555600001020, NULL, 0), 0);
	CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, 0x7f0000000010, NULL, 0), 0);
	CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000000ULL,
				      NULL, 0), 0);
	/* a branch stack that goes from the library into the app, in process 2 */
	br[0] = (struct perf_branch_entry_raw){ 0x555600001030, 0x555600001040, 0 };
	br[1] = (struct perf_branch_entry_raw){ 0x7f0000000100, 0x555600001020, 0 };
	br[2] = (struct perf_branch_entry_raw){ 0xffffffff81000000ULL, 0x7f0000000080, 0 };
	CHECK_EQ_INT(pg_collect_parts(c, 2, PERF_RECORD_MISC_USER, 0x555600001040, br, 3), 0);
	CHECK_EQ_INT(pg_collector_flush(c), 0);

	n = pg_collector_dsos(c, &dsos);
	CHECK_EQ_INT(n, 2);
	CHECK_EQ_STR(dsos[0]->dso->path, "/bin/app");
	CHECK_EQ_INT(dsos[0]->samples, 4);
	CHECK_EQ_INT(dsos[0]->lbr_samples, 1);
	/* the same file offset from both processes: one count of 2 */
	CHECK_EQ_INT(pg_dso_ips(dsos[0], &ips), 3);
	CHECK_EQ_U64(ips[0].a, 0x1010);
	CHECK_EQ_INT(ips[0].n, 2);
	CHECK_EQ_U64(ips[1].a, 0x1020);
	CHECK_EQ_U64(ips[2].a, 0x1040);
	CHECK_EQ_INT(pg_collector_dropped(c, PG_KERNEL), 1);
	CHECK_EQ_INT(pg_collector_samples(c), 6);
	/* the stack as the app sees it: the library and the kernel are outside */
	CHECK_EQ_INT(hashmap_nr(&dsos[0]->stacks), 1);
	{
		size_t i = 0;

		st = hashmap_next(&dsos[0]->stacks, &i);
	}
	CHECK(st != NULL);
	if (st) {
		CHECK_EQ_INT(st->nr, 3);
		CHECK_EQ_U64(st->ends[0], 0x1030);
		CHECK_EQ_U64(st->ends[1], 0x1040);
		CHECK_EQ_U64(st->ends[2], PG_EXTERNAL);
		CHECK_EQ_U64(st->ends[3], 0x1020);
		CHECK_EQ_U64(st->ends[4], PG_EXTERNAL);
		CHECK_EQ_U64(st->ends[5], PG_EXTERNAL);
	}
	/* and as the library sees it */
	CHECK(n == 2 && hashmap_nr(&dsos[1]->stacks) == 1);
	pg_collector_free(c);
	machine_free(m);
	dso_cache_free(cache);
}

/* The one stack of d: its samples, and its first end. */
static uint64_t only_stack(struct pg_collector *c, const char *path, uint64_t *first_end)
{
	struct pg_dso *const *dsos;
	size_t n = pg_collector_dsos(c, &dsos);

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		struct pg_stack *st;

		if (strcmp(dsos[i]->dso->path, path))
			continue;
		CHECK_EQ_INT(hashmap_nr(&dsos[i]->stacks), 1);
		st = hashmap_next(&dsos[i]->stacks, &k);
		*first_end = st ? st->ends[0] : 0;
		return st ? st->n : 0;
	}
	return 0;
}

/*
 * Identical branch stacks are counted once, weighted, but each through the
 * maps it was taken under: a map replaced in between sends the later ones
 * to the new file.
 */
static void test_branch_stacks_held_back(void)
{
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = machine_new(cache);
	struct pg_collector *c = pg_collector_new(m, NULL);
	struct perf_branch_entry_raw br[2] = {
		{ 0x555500001030, 0x555500001040, 0 },
		{ 0x555500001010, 0x555500001020, 0 },
	};
	struct perf_event_header lost = { PERF_RECORD_LOST_SAMPLES, 0, 16 };
	uint64_t end = 0;

	CHECK_EQ_INT(pg_collector_record(c, mmap2(1, 0x555500001000, 0x1000, "/bin/a")), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, 0x555500001040, br, 2),
			     0);
	/* flags differ: the same stack for a profile */
	br[0].flags = 0x1234;
	CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, 0x555500001040, br, 2), 0);
	/* a record that maps nothing keeps them waiting; a new map does not */
	CHECK_EQ_INT(pg_collector_record(c, &lost), 0);
	CHECK_EQ_INT(pg_collector_record(c, mmap2(1, 0x555500001000, 0x2000, "/bin/b")), 0);
	CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, 0x555500001040, br, 2), 0);
	/* another process, the same addresses, no map there: nothing */
	CHECK_EQ_INT(pg_collect_parts(c, 2, PERF_RECORD_MISC_USER, 0x555500001040, br, 2), 0);
	CHECK_EQ_INT(pg_collector_flush(c), 0);
	CHECK_EQ_U64(only_stack(c, "/bin/a", &end), 4);
	CHECK_EQ_U64(end, 0x1030);
	CHECK_EQ_U64(only_stack(c, "/bin/b", &end), 1);
	CHECK_EQ_U64(end, 0x2030);
	CHECK_EQ_INT(pg_collector_samples(c), 6);
	CHECK_EQ_INT(pg_collector_dropped(c, PG_NO_MAP), 1);
	pg_collector_free(c);
	machine_free(m);
	dso_cache_free(cache);
}

/* More samples than one DSO's IP log holds (4M): folded as it goes, nothing lost. */
static void test_many_samples(void)
{
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = machine_new(cache);
	struct pg_collector *c = pg_collector_new(m, NULL);
	const size_t total = ((size_t)1 << 22) * 2 + 1000;
	struct pg_dso *const *dsos;
	const struct pg_count *ips;
	uint64_t sum = 0;
	size_t n, bad = 0;

	CHECK_EQ_INT(machine_process_record(m, mmap2(1, 0x555500001000, 0x1000, "/bin/app")), 0);
	/* 0x1000 offsets, visited in a stride so the log is never sorted */
	for (size_t i = 0; i < total; i++)
		bad += pg_collect_parts(c, 1, PERF_RECORD_MISC_USER,
					0x555500001000 + (i * 7 % 0x1000), NULL, 0) != 0;
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(pg_collector_dsos(c, &dsos), 1);
	n = pg_dso_ips(dsos[0], &ips);
	CHECK_EQ_INT(n, 0x1000);
	for (size_t i = 0; i < n; i++) {
		sum += ips[i].n;
		bad += i && ips[i].a <= ips[i - 1].a;
	}
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_U64(sum, total);
	CHECK_EQ_U64(ips[0].a, 0x1000);
	/* offset 0 of the map: i * 7 % 0x1000 == 0 every 0x1000 samples */
	CHECK_EQ_U64(ips[0].n, (total + 0xfff) / 0x1000);
	pg_collector_free(c);
	machine_free(m);
	dso_cache_free(cache);
}

/*
 * IP counts folded twice, the second time merged with the first: sparse
 * offsets (sorted) and dense ones (counted by offset) alike.
 */
static void test_ip_counts_fold_and_merge(void)
{
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = machine_new(cache);
	struct pg_collector *c = pg_collector_new(m, NULL);
	struct perf_rec_mmap mm = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true, .pid = 1,
				    .tid = 1, .start = 0x7f0000000000, .len = 0x10000000,
				    .prot = PROT_READ | PROT_EXEC, .filename = "/bin/big" };
	const uint64_t base = 0x7f0000000000;
	struct pg_dso *const *dsos;
	const struct pg_count *ips;
	size_t n;

	CHECK(perf_rec_encode_mmap(rec, sizeof(rec), &mm, NULL, NULL) > 0);
	CHECK_EQ_INT(machine_process_record(m, (const void *)rec), 0);
	/* sparse: 3 offsets 16 MiB apart, out of order, one of them thrice */
	CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, base + 0x2000000, NULL, 0), 0);
	CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, base + 0x10, NULL, 0), 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, base + 0x1000000, NULL,
					      0), 0);
	CHECK_EQ_INT(pg_collector_dsos(c, &dsos), 1);
	n = pg_dso_ips(dsos[0], &ips);
	CHECK_EQ_INT(n, 3);
	if (n == 3) {
		CHECK(ips[0].a == 0x10 && ips[0].n == 1);
		CHECK(ips[1].a == 0x1000000 && ips[1].n == 3);
		CHECK(ips[2].a == 0x2000000 && ips[2].n == 1);
	}
	/* then dense ones around one of them, merged with what was counted */
	for (uint64_t off = 0x1000000 - 2; off <= 0x1000000 + 2; off++)
		CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, base + off, NULL, 0), 0);
	n = pg_dso_ips(dsos[0], &ips);
	CHECK_EQ_INT(n, 7);
	if (n == 7) {
		CHECK(ips[0].a == 0x10 && ips[0].n == 1);
		CHECK(ips[1].a == 0xfffffe && ips[1].n == 1);
		CHECK(ips[3].a == 0x1000000 && ips[3].n == 4);
		CHECK(ips[5].a == 0x1000002 && ips[5].n == 1);
		CHECK(ips[6].a == 0x2000000 && ips[6].n == 1);
	}
	pg_collector_free(c);
	machine_free(m);
	dso_cache_free(cache);
}

/*
 * Branch stacks through every function of this test binary: the code is
 * disassembled in two threads, and the unsymbolized profile (every range
 * and branch, by instruction boundaries) is what one thread makes.
 */
static void test_lbr_disassembly_in_two_threads(void)
{
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = machine_new(cache);
	struct pg_collector *c = pg_collector_new(m, NULL);
	struct binary *b = NULL;
	struct perf_branch_entry_raw br[3];
	struct pg_dso *const *dsos;
	char *out[2] = { NULL, NULL };
	uint64_t outside;
	size_t len[2] = { 0, 0 };
	uint64_t bytes = 0, prev = 0;
	size_t nr = 0;

	CHECK_EQ_INT(binary_open("/proc/self/exe", NULL, &b), 0);
	if (!b || !b->nr_loads)
		goto out;
	/* the executable segment, mapped as the loader maps it, at its own addresses */
	for (size_t i = 0; i < b->nr_loads; i++) {
		const struct dso_load *l = &b->loads[i];
		struct perf_rec_mmap mm = { .misc = PERF_RECORD_MISC_USER, .mmap2 = true,
					    .pid = 1, .tid = 1, .start = 0x555500000000 + l->vaddr,
					    .len = l->filesz, .pgoff = l->offset,
					    .prot = PROT_READ | PROT_EXEC, .filename = "/proc/self/exe" };

		CHECK(perf_rec_encode_mmap(rec, sizeof(rec), &mm, NULL, NULL) > 0);
		CHECK_EQ_INT(pg_collector_record(c, (const void *)rec), 0);
	}
	/* from the middle of each function to the next one's start, and within it */
	for (size_t i = 0; i < b->nr_code_starts; i++) {
		uint64_t s = 0x555500000000 + b->code_starts[i], e = 0x555500000000 + b->code_ends[i];

		if (e - s < 16)
			continue;
		br[0] = (struct perf_branch_entry_raw){ s + 8, s, 0 };
		br[1] = (struct perf_branch_entry_raw){ prev ? prev : s, s + 1, 0 };
		br[2] = (struct perf_branch_entry_raw){ e - 1, s + 8, 0 };
		CHECK_EQ_INT(pg_collect_parts(c, 1, PERF_RECORD_MISC_USER, s, br, 3), 0);
		bytes += e - s;
		prev = s + 4;
		nr++;
	}
	CHECK_EQ_INT(pg_collector_flush(c), 0);
	/* enough code for two threads (generate.c: DIS_PARALLEL_BYTES, 64 KiB) */
	CHECK(bytes > 64 * 1024);
	CHECK_EQ_INT(pg_collector_dsos(c, &dsos), 1);
	for (int k = 0; k < 2; k++) {
		FILE *f = open_memstream(&out[k], &len[k]);

		pg_set_threads(k ? 1 : 2);
		CHECK(f != NULL);
		if (f) {
			CHECK_EQ_INT(pg_write_unsymbolized(f, dsos, 1, b, &outside), 0);
			CHECK(outside == 0);	/* branch stacks: nothing is left out here */
			fclose(f);
		}
	}
	pg_set_threads(2);
	CHECK(out[0] && out[1] && len[0] == len[1] && !memcmp(out[0], out[1], len[0]));
	/* ranges and branches: many of each */
	CHECK(len[0] > nr * 10);
out:
	free(out[0]);
	free(out[1]);
	binary_free(b);
	pg_collector_free(c);
	machine_free(m);
	dso_cache_free(cache);
}

/* Stacks of threads without a COMM record, and of a comm that is not UTF-8. */
static void test_stacks(void)
{
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = machine_new(cache);
	struct stacks *st = stacks_new();
	struct perf_rec_comm c = { .pid = 7, .tid = 7, .comm = "bad\xff(x" };
	struct perf_sample s = { .pid = 42, .tid = 42, .cpumode = PERF_RECORD_MISC_USER,
				 .ip = 0x1234 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(perf_rec_encode_comm(rec, sizeof(rec), &c, NULL, NULL) > 0);
	CHECK_EQ_INT(machine_process_record(m, (const void *)rec), 0);
	CHECK_EQ_INT(stacks_add_sample(st, m, &s, NULL, 0, true), 0);
	CHECK_EQ_INT(stacks_add_sample(st, m, &s, NULL, 0, true), 0);
	s.pid = s.tid = 7;
	CHECK_EQ_INT(stacks_add_sample(st, m, &s, NULL, 0, true), 0);
	CHECK_EQ_INT(stacks_samples(st), 3);
	CHECK_EQ_INT(stacks_nr(st), 2);
	f = open_memstream(&text, &len);
	CHECK_EQ_INT(stacks_write_folded(st, f), 0);
	fclose(f);
	/* ":TID" as perf script names such a thread; the comm as it is (bytes) */
	CHECK_EQ_STR(text, ":42;[unknown] 2\nbad\xff(x;[unknown] 1\n");
	free(text);
	f = open_memstream(&text, &len);
	CHECK_EQ_INT(stacks_write_svg(st, f, "t"), 0);
	fclose(f);
	/* no byte that is not UTF-8 reaches the XML */
	CHECK(strstr(text, "bad?(x") != NULL);
	CHECK(strchr(text, '\xff') == NULL);
	free(text);
	stacks_free(st);
	machine_free(m);
	dso_cache_free(cache);
}

static void test_perfscript(void)
{
	static const char text[] =
		"PERF_RECORD_MMAP2 77/77: [0x555500001000(0x1000) @ 0x1000 08:01 123 0]: r-xp /bin/app\n"
		"     555500001010\n"
		"3\n"
		"     555500001020 0x555500001030/0x555500001040/P/-/-/0  0x555500001008/0x555500001020/P/-/-/0\n"
		"not a sample\n";
	struct dso_cache *cache = dso_cache_new();
	struct machine *m = machine_new(cache);
	struct pg_collector *c = pg_collector_new(m, NULL);
	struct perfscript_stats st;
	struct pg_dso *const *dsos;
	const struct pg_count *ips;
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");

	CHECK_EQ_INT(perfscript_read(f, "t", m, c, &st), 0);
	fclose(f);
	CHECK_EQ_INT(st.mmaps, 1);
	CHECK_EQ_INT(st.samples, 4);	/* one IP-only, and one branch sample three times */
	CHECK_EQ_INT(st.bad_lines, 1);
	CHECK_EQ_INT(st.first_bad_line, 5);
	CHECK_EQ_INT(pg_collector_dsos(c, &dsos), 1);
	CHECK_EQ_INT(dsos[0]->samples, 4);
	CHECK_EQ_INT(dsos[0]->lbr_samples, 3);
	CHECK_EQ_INT(pg_dso_ips(dsos[0], &ips), 2);
	CHECK_EQ_INT(ips[1].n, 3);
	/* text with no sample at all */
	f = fmemopen((void *)"hello\n", 6, "r");
	CHECK_EQ_INT(perfscript_read(f, "t", m, c, &st), -EINVAL);
	fclose(f);
	pg_collector_free(c);
	machine_free(m);
	dso_cache_free(cache);
}

static const char *cg_name(const struct cg_frame *f, void *ctx)
{
	return f->sym->name;
}

/* Print root's graph with opts into a string (freed by the caller). */
static char *cg_text(const struct cg_node *root, uint64_t row, const struct cg_print_opts *o)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	CHECK_EQ_INT(callgraph_print(f, root, row, o, cg_name, NULL), 0);
	fclose(f);
	return buf;
}

/*
 * A row with chains main;f;g (3 samples), main;f;h and main;k, of period
 * 1 each, in an event of period 10: the layouts of perf report --stdio's
 * graph, fractal (with its "[...]" remainders), folded and flat modes.
 */
static void test_callgraph(void)
{
	struct dso d = { .path = (char *)"/bin/x", .short_name = "x" };
	static const struct symbol syms[] = {
		{ 0x100, 16, "main", NULL }, { 0x200, 16, "f", NULL }, { 0x300, 16, "g", NULL },
		{ 0x400, 16, "h", NULL }, { 0x500, 16, "k", NULL },
	};
	struct cg_frame fr[5];
	struct cg_frame fg[3], fh[3], fk[2];
	struct callgraph *cg = callgraph_new();
	struct cg_node *root = callgraph_root_new(cg);
	struct cg_print_opts o = { .mode = CG_GRAPH, .total = 10 };
	char *t;

	for (int i = 0; i < 5; i++)
		fr[i] = (struct cg_frame){ &d, &syms[i], syms[i].start + 1, false, false, NULL };
	fg[0] = fr[0], fg[1] = fr[1], fg[2] = fr[2];
	fh[0] = fr[0], fh[1] = fr[1], fh[2] = fr[3];
	fk[0] = fr[0], fk[1] = fr[4];
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(callgraph_add(cg, root, fg, 3, 1), 0);
	CHECK_EQ_INT(callgraph_add(cg, root, fh, 3, 1), 0);
	CHECK_EQ_INT(callgraph_add(cg, root, fk, 2, 1), 0);
	CHECK_EQ_U64(root->cumul, 5);
	CHECK_EQ_INT(root->depth, 3);

	t = cg_text(root, 5, &o);
	CHECK_EQ_STR(t, "            |\n"
			"            ---main\n"
			"               |          \n"
			"               |--40.00%--f\n"
			"               |          |          \n"
			"               |          |--30.00%--g\n"
			"               |          |          \n"
			"               |           --10.00%--h\n"
			"               |          \n"
			"                --10.00%--k\n"
			"\n");
	free(t);
	/* a row of 6 whose graph holds 5: the root's share is shown */
	o.value = CG_VALUE_COUNT;
	t = cg_text(root, 6, &o);
	CHECK(!strncmp(t, "            |          \n"
			  "             --5--main\n", 47));
	free(t);

	o = (struct cg_print_opts){ .mode = CG_FRACTAL, .min_percent = 30, .total = 10 };
	t = cg_text(root, 5, &o);
	CHECK_EQ_STR(t, "            |\n"
			"            ---main\n"
			"               |          \n"
			"               |--80.00%--f\n"
			"               |          |          \n"
			"               |          |--75.00%--g\n"
			"               |           --25.00%--[...]\n"
			"                --20.00%--[...]\n"
			"\n");
	free(t);

	/* folded and flat: by hit, ties in perf's order (greater symbol first) */
	o = (struct cg_print_opts){ .mode = CG_FOLDED, .value = CG_VALUE_COUNT, .total = 10 };
	t = cg_text(root, 5, &o);
	CHECK_EQ_STR(t, "3 main;f;g\n1 main;k\n1 main;f;h\n");
	free(t);
	o = (struct cg_print_opts){ .mode = CG_FLAT, .total = 10, .print_limit = 2 };
	t = cg_text(root, 5, &o);
	CHECK_EQ_STR(t, "           30.00%\n"
			"                main\n                f\n                g\n\n"
			"           10.00%\n"
			"                main\n                k\n\n");
	free(t);
	callgraph_free(cg);
}

/* A reader of GCC 12's AutoFDO layout (afdo.h), for the writer's test: the instances as text. */
struct afdo_in {
	const uint8_t *p, *end;
	char names[16][32];
	uint32_t nr_names;
	bool bad;
};

static uint32_t afdo_u32(struct afdo_in *r)
{
	uint32_t v = 0;

	if (r->end - r->p < 4) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->p, 4);
	r->p += 4;
	return v;
}

static uint64_t afdo_u64(struct afdo_in *r)
{
	uint64_t lo = afdo_u32(r);

	return lo | (uint64_t)afdo_u32(r) << 32;
}

static const char *afdo_name(struct afdo_in *r, uint64_t i)
{
	return i < r->nr_names ? r->names[i] : "?";
}

/* One instance as "name{+L:C[>t:n],... @L{...}}" */
static void afdo_inst(struct afdo_in *r, FILE *out, int depth)
{
	uint32_t name = afdo_u32(r), npos = afdo_u32(r), ncalls = afdo_u32(r);

	if (depth > 8 || r->bad)
		return;
	fprintf(out, "%s{", afdo_name(r, name));
	for (uint32_t i = 0; i < npos && !r->bad; i++) {
		uint32_t off = afdo_u32(r), nt = afdo_u32(r);
		uint64_t c = afdo_u64(r);

		fprintf(out, "%s+%u.%u:%llu", i ? "," : "", off >> 16, off & 0xffff,
			(unsigned long long)c);
		for (uint32_t k = 0; k < nt && !r->bad; k++) {
			uint32_t type = afdo_u32(r);
			uint64_t t = afdo_u64(r), n = afdo_u64(r);

			fprintf(out, ">%s:%llu/%u", afdo_name(r, t), (unsigned long long)n, type);
		}
	}
	for (uint32_t i = 0; i < ncalls && !r->bad; i++) {
		uint32_t off = afdo_u32(r);

		fprintf(out, " @%u.%u", off >> 16, off & 0xffff);
		afdo_inst(r, out, depth + 1);
	}
	fputc('}', out);
}

static void test_afdo_writer(void)
{
	struct sample_profile *p = example();
	struct sp_func *m = sample_profile_find(p, "main"), *b, *c, *d;
	struct afdo_in r;
	char *buf = NULL, *text = NULL;
	size_t len = 0, tlen = 0;
	FILE *f, *t;
	uint32_t n;

	/* one line under two discriminators: the larger count, their targets summed */
	sp_func_body(p, m, (struct sp_loc){ 3, 0 })->count = 12;
	sp_func_add_target(p, m, (struct sp_loc){ 3, 0 }, "bar.part.0", 2);
	sp_func_add_target(p, m, (struct sp_loc){ 3, 2 }, "bar", 3);
	/* bar inlined at 4 and at 4.1: one callsite, the larger total */
	c = sp_func_inlinee(p, m, (struct sp_loc){ 4, 1 }, "bar");
	c->total = 40;
	sp_func_body(p, c, (struct sp_loc){ 1, 0 })->count = 40;
	/* a clone suffix: cut as GCC cuts it, and then the same function as foo (smaller: left out) */
	d = sample_profile_func(p, "foo.constprop.0");
	d->total = 9;
	d->head = 1;
	sp_func_body(p, d, (struct sp_loc){ 1, 0 })->count = 9;
	b = sample_profile_func(p, "baz.cold");
	b->total = 3;
	sp_func_body(p, b, (struct sp_loc){ 2, 0 })->count = 3;
	/* names that are all suffix: GCC 12 would take them for index 0 ("") and stop */
	sp_func_add_target(p, m, (struct sp_loc){ 1, 0 }, ".L_target", 4);
	sp_func_inlinee(p, m, (struct sp_loc){ 5, 0 }, ".omp_outlined.")->total = 8;
	sample_profile_func(p, ".hidden")->total = 2000;

	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	CHECK_EQ_INT(sample_profile_write_afdo(p, f), 0);
	fclose(f);
	r = (struct afdo_in){ .p = (const uint8_t *)buf, .end = (const uint8_t *)buf + len };
	CHECK_EQ_U64(afdo_u32(&r), 0x67636461);
	CHECK_EQ_INT(afdo_u32(&r), 2);
	CHECK_EQ_INT(afdo_u32(&r), 0);
	CHECK_EQ_U64(afdo_u32(&r), 0xaa000000);
	afdo_u32(&r);
	n = afdo_u32(&r);
	CHECK_EQ_INT(n, 5);
	for (uint32_t i = 0; i < n && i < 16 && !r.bad; i++) {
		uint32_t l = afdo_u32(&r);

		CHECK(l >= 1 && l <= 32 && r.end - r.p >= l && r.p[l - 1] == 0);
		if (l < 1 || l > 32 || r.end - r.p < l)
			break;
		memcpy(r.names[i], r.p, l);
		r.p += l;
		r.nr_names++;
	}
	/* "" first, then the names in byte order, every one cut at its '.' */
	CHECK_EQ_STR(r.names[0], "");
	CHECK_EQ_STR(r.names[1], "bar");
	CHECK_EQ_STR(r.names[2], "baz");
	CHECK_EQ_STR(r.names[3], "foo");
	CHECK_EQ_STR(r.names[4], "main");
	CHECK_EQ_U64(afdo_u32(&r), 0xac000000);
	afdo_u32(&r);
	n = afdo_u32(&r);
	CHECK_EQ_INT(n, 3);	/* main, foo, baz; not foo.constprop.0 */
	t = open_memstream(&text, &tlen);
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		fprintf(t, "%s%llu:", i ? "\n" : "", (unsigned long long)afdo_u64(&r));
		afdo_inst(&r, t, 0);
	}
	fclose(t);
	CHECK_EQ_STR(text,
		     "10:main{+1.0:10,+2.0:20>bar:5/7>foo:15/7,+3.0:30>bar:5/7 @4.0bar{+1.0:100,+2.0:7>baz:7/7}}\n"
		     "5:foo{+0.0:5,+1.0:45}\n"
		     "0:baz{+2.0:3}");
	/* the module grouping: no module */
	CHECK_EQ_U64(afdo_u32(&r), 0xae000000);
	CHECK_EQ_INT(afdo_u32(&r), 0);
	CHECK_EQ_INT(afdo_u32(&r), 0);
	CHECK(!r.bad && r.p == r.end);
	free(text);
	free(buf);
	sample_profile_free(p);
}

static const struct unit_test tests[] = {
	TEST(test_discriminators),
	TEST(test_text_writer),
	TEST(test_extbinary_writer),
	TEST(test_two_processes),
	TEST(test_branch_stacks_held_back),
	TEST(test_many_samples),
	TEST(test_ip_counts_fold_and_merge),
	TEST(test_lbr_disassembly_in_two_threads),
	TEST(test_stacks),
	TEST(test_perfscript),
	TEST(test_callgraph),
	TEST(test_afdo_writer),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
