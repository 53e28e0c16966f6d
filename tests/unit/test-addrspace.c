// SPDX-License-Identifier: MIT
/*
 * addrspace, session and symbols on constructed records: FORK copies maps,
 * COMM exec starts afresh, two processes of one binary at different bases,
 * overlapping maps, a sample before its mmap in file order but after it in
 * time, ELF symbols and build-id of this very test binary, perf-map files,
 * this test's own stack unwound from a copy as the kernel gives one.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "symbol/addrspace.h"
#include "symbol/dso.h"
#include "util/error.h"
#include "perf/perf-data.h"
#include "perf/session.h"
#include "symbol/buildid.h"
#include "symbol/symtab.h"
#include "symbol/unwind.h"

static union {
	struct perf_event_header h;
	uint8_t b[80 + 4096];	/* an mmap2 of any path */
} rec;

static const struct perf_event_header *mmap2(uint32_t pid, uint64_t addr, uint64_t len,
					      uint64_t pgoff, const char *file)
{
	size_t n = strlen(file) + 1;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_MMAP2;
	rec.h.misc = PERF_RECORD_MISC_USER;
	rec.h.size = 8 + 64 + ((n + 7) & ~(size_t)7);
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &pid, 4);
	memcpy(rec.b + 16, &addr, 8);
	memcpy(rec.b + 24, &len, 8);
	memcpy(rec.b + 32, &pgoff, 8);
	memcpy(rec.b + 72, file, n);
	return &rec.h;
}

static const struct perf_event_header *task(uint32_t type, uint32_t pid, uint32_t ppid,
					    uint32_t tid, uint32_t ptid)
{
	memset(&rec, 0, sizeof(rec));
	rec.h.type = type;
	rec.h.size = 8 + 24;
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &ppid, 4);
	memcpy(rec.b + 16, &tid, 4);
	memcpy(rec.b + 20, &ptid, 4);
	return &rec.h;
}

static const struct perf_event_header *comm(uint32_t pid, uint32_t tid, const char *name,
					    bool exec)
{
	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_COMM;
	rec.h.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	rec.h.size = 8 + 8 + 16;
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &tid, 4);
	snprintf((char *)rec.b + 16, 16, "%s", name);
	return &rec.h;
}

static const char *dso_at(struct machine *m, uint32_t pid, uint64_t ip, uint64_t *offset)
{
	struct addr_location al;

	machine_resolve(m, pid, pid, PERF_RECORD_MISC_USER, ip, &al);
	if (offset)
		*offset = al.offset;
	return al.dso ? al.dso->path : "(none)";
}

static void test_fork_exec_exit(void)
{
	struct dso_cache *c = dso_cache_new();
	struct machine *m = machine_new(c);
	struct addr_location al;
	uint64_t off;

	CHECK_EQ_INT(machine_process_record(m, comm(10, 10, "parent", true)), 0);
	CHECK_EQ_INT(machine_process_record(m, mmap2(10, 0x1000, 0x2000, 0x3000, "/x/a")), 0);
	/* a child process gets a copy of the parent's maps */
	CHECK_EQ_INT(machine_process_record(m, task(PERF_RECORD_FORK, 11, 10, 11, 10)), 0);
	CHECK_EQ_STR(dso_at(m, 11, 0x1800, &off), "/x/a");
	CHECK_EQ_U64(off, 0x3800);
	CHECK_EQ_STR(machine_comm(m, 11), "parent");
	/* a thread shares its process's maps */
	CHECK_EQ_INT(machine_process_record(m, task(PERF_RECORD_FORK, 10, 10, 12, 10)), 0);
	machine_resolve(m, 10, 12, PERF_RECORD_MISC_USER, 0x1800, &al);
	CHECK(al.dso && !strcmp(al.dso->path, "/x/a"));
	CHECK_EQ_STR(al.comm, "parent");
	/* exec: the child starts afresh, the parent keeps its maps */
	CHECK_EQ_INT(machine_process_record(m, comm(11, 11, "child", true)), 0);
	CHECK_EQ_INT(machine_process_record(m, mmap2(11, 0x1000, 0x1000, 0, "/x/b")), 0);
	CHECK_EQ_STR(dso_at(m, 11, 0x1800, NULL), "/x/b");
	/* the old image only where nothing new is mapped (frames inside execve) */
	CHECK_EQ_STR(dso_at(m, 11, 0x2800, NULL), "/x/a");
	/* a second exec forgets the first image */
	CHECK_EQ_INT(machine_process_record(m, comm(11, 11, "child", true)), 0);
	CHECK_EQ_STR(dso_at(m, 11, 0x2800, NULL), "(none)");
	CHECK_EQ_STR(dso_at(m, 11, 0x1800, NULL), "/x/b");
	CHECK_EQ_INT(machine_process_record(m, mmap2(11, 0x1000, 0x1000, 0, "/x/b")), 0);
	CHECK_EQ_STR(dso_at(m, 10, 0x1800, NULL), "/x/a");
	CHECK_EQ_STR(machine_comm(m, 11), "child");
	/* a map added to the child after fork is not the parent's */
	CHECK_EQ_INT(machine_process_record(m, mmap2(11, 0x9000, 0x1000, 0, "/x/c")), 0);
	CHECK_EQ_STR(dso_at(m, 10, 0x9000, NULL), "(none)");
	/* exit, then a new process with the same pid: no stale maps */
	CHECK_EQ_INT(machine_process_record(m, task(PERF_RECORD_EXIT, 11, 10, 11, 10)), 0);
	CHECK_EQ_INT(machine_process_record(m, task(PERF_RECORD_FORK, 11, 1, 11, 1)), 0);
	CHECK_EQ_STR(dso_at(m, 11, 0x9000, NULL), "(none)");
	machine_free(m);
	dso_cache_free(c);
}

/* a thread of no COMM is ":TID" with TID signed, as perf shows it; tid 0 the idle task */
static void test_thread_names(void)
{
	struct dso_cache *c = dso_cache_new();
	struct machine *m = machine_new(c);

	CHECK_EQ_STR(machine_thread_name(m, 0), "swapper");
	CHECK_EQ_STR(machine_thread_name(m, 42), ":42");
	/* pid/tid -1: samples of no task (perf record -a) */
	CHECK_EQ_STR(machine_thread_name(m, 0xffffffffu), ":-1");
	machine_free(m);
	dso_cache_free(c);
}

static void test_same_binary_two_bases(void)
{
	struct dso_cache *c = dso_cache_new();
	struct machine *m = machine_new(c);
	uint64_t off1, off2;

	/* one PIE, two processes, two load addresses: no global base */
	CHECK_EQ_INT(machine_process_record(m, mmap2(20, 0x555500001000, 0x1000, 0x1000,
						     "/x/pie")), 0);
	CHECK_EQ_INT(machine_process_record(m, mmap2(21, 0x5566aa001000, 0x1000, 0x1000,
						     "/x/pie")), 0);
	CHECK_EQ_STR(dso_at(m, 20, 0x555500001234, &off1), "/x/pie");
	CHECK_EQ_STR(dso_at(m, 21, 0x5566aa001234, &off2), "/x/pie");
	CHECK_EQ_U64(off1, 0x1234);
	CHECK_EQ_U64(off2, 0x1234);
	CHECK_EQ_STR(dso_at(m, 20, 0x5566aa001234, NULL), "(none)");
	machine_free(m);
	dso_cache_free(c);
}

static void test_overlapping_maps(void)
{
	struct addrspace as = { 0 };
	struct dso_cache *c = dso_cache_new();
	struct dso *a = dso_cache_get(c, "/a", DSO_ELF), *b = dso_cache_get(c, "/b", DSO_ELF);
	struct map *m;

	CHECK_EQ_INT(addrspace_insert(&as, 0x1000, 0x5000, 0x100, a), 0);
	/* b in the middle splits a in two */
	CHECK_EQ_INT(addrspace_insert(&as, 0x2000, 0x3000, 0, b), 0);
	CHECK_EQ_INT(as.nr, 3);
	m = addrspace_find_map(&as, 0x1fff);
	CHECK(m && m->dso == a && m->end == 0x2000);
	m = addrspace_find_map(&as, 0x2000);
	CHECK(m && m->dso == b);
	m = addrspace_find_map(&as, 0x3000);
	CHECK(m && m->dso == a && m->pgoff == 0x2100);
	CHECK(addrspace_find_map(&as, 0x5000) == NULL);
	CHECK(addrspace_find_map(&as, 0xfff) == NULL);
	/* one covering everything replaces all */
	CHECK_EQ_INT(addrspace_insert(&as, 0, 0x10000, 0, b), 0);
	CHECK_EQ_INT(as.nr, 1);
	addrspace_release(&as);
	dso_cache_free(c);
}

/* ------------------------------------------------ session ordering */

struct order_ctx {
	struct machine *m;
	const char *dso_of_sample[4];
	uint64_t times[16];
	int nr, samples;
};

static int on_record(void *arg, const struct perf_event_header *h,
		     const struct perf_data_attr *attr, const struct perf_sample *s)
{
	struct order_ctx *c = arg;
	struct addr_location al;

	if (c->nr < 16)
		c->times[c->nr++] = s->time;
	if (h->type != PERF_RECORD_SAMPLE)
		return machine_process_record(c->m, h);
	machine_resolve(c->m, s->pid, s->tid, s->cpumode, s->ip, &al);
	if (c->samples < 4)
		c->dso_of_sample[c->samples++] = al.dso ? al.dso->path : "(none)";
	return 0;
}

/* A file: attr with IP|TID|TIME and sample_id_all; records as given. */
static size_t build(uint8_t *out, bool with_rounds)
{
	uint8_t *p = out;
	struct perf_event_attr attr = { 0 };
	uint64_t hdr[13] = { PERF_MAGIC, 104, sizeof(attr) + 16 };
	struct perf_event_header h;
	size_t data;

	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	attr.sample_period = 1;
	p += 104;
	memcpy(p, &attr, sizeof(attr));
	p += sizeof(attr) + 16;
	data = p - out;
#define REC(type, misc, ...) do { \
		uint64_t body[] = { __VA_ARGS__ }; \
		h = (struct perf_event_header){ type, misc, 8 + sizeof(body) }; \
		memcpy(p, &h, 8); \
		memcpy(p + 8, body, sizeof(body)); \
		p += 8 + sizeof(body); \
	} while (0)
#define PIDTID(pid) ((uint64_t)(pid) | (uint64_t)(pid) << 32)
	/* mmap of pid 5 at time 10; sample of pid 6 at time 30 written before
	 * pid 6's mmap at time 25 (another CPU's buffer flushed first) */
	REC(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, PIDTID(5), 0x1000, 0x1000, 0, 0, 0, 0,
	    0, 0x6f632f, /* "/co" */ PIDTID(5), 10);
	REC(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0x1100, PIDTID(6), 30);
	REC(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, PIDTID(6), 0x1000, 0x1000, 0, 0, 0, 0,
	    0, 0x6f642f, /* "/do" */ PIDTID(6), 25);
	if (with_rounds)
		REC(PERF_RECORD_FINISHED_ROUND, 0);
	REC(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0x1100, PIDTID(5), 40);
	if (with_rounds)
		REC(PERF_RECORD_FINISHED_ROUND, 0);
#undef REC
	hdr[3] = 104;
	hdr[4] = sizeof(attr) + 16;
	hdr[5] = data;
	hdr[6] = (p - out) - data;
	memcpy(out, hdr, sizeof(hdr));
	return p - out;
}

/*
 * The chunked address space against the plainest model of it (a page
 * array, each page naming its map's dso and the file offset there): tens
 * of thousands of maps, mostly going down in address as mmap places them,
 * with overlaps that trim, split and swallow maps across chunks.
 */
static void test_many_maps_against_a_model(void)
{
	enum { PAGES = 1 << 16, PAGE = 0x1000 };
	static int8_t dso_of[PAGES];
	static uint64_t off_of[PAGES];
	struct addrspace as = { 0 };
	struct dso_cache *c = dso_cache_new();
	struct dso *dsos[4];
	uint64_t seed = 12345;

	for (int i = 0; i < 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "/d%d", i);
		dsos[i] = dso_cache_get(c, name, DSO_ELF);
	}
	memset(dso_of, -1, sizeof(dso_of));
	for (int k = 0; k < 40000; k++) {
		uint64_t first, n;
		int d;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		/* downwards, one to a few pages; every 16th a wide one anywhere */
		n = k % 16 ? 1 + (seed >> 60) % 3 : 1 + (seed >> 40) % 2000;
		first = k % 16 ? (PAGES - 1 - (uint64_t)k * 3 / 2 % PAGES) : (seed >> 20) % PAGES;
		if (first + n > PAGES)
			n = PAGES - first;
		d = (int)((seed >> 33) % 4);
		CHECK_EQ_INT(addrspace_insert(&as, first * PAGE, (first + n) * PAGE, first * 7, dsos[d]),
			     0);
		for (uint64_t pg = first; pg < first + n; pg++) {
			dso_of[pg] = (int8_t)d;
			off_of[pg] = first * 7 + (pg - first) * PAGE;
		}
	}
	for (uint64_t pg = 0; pg < PAGES; pg++) {
		struct map *m = addrspace_find_map(&as, pg * PAGE + 5);

		if (dso_of[pg] < 0) {
			CHECK(m == NULL);
			continue;
		}
		CHECK(m && m->dso == dsos[dso_of[pg]]);
		if (m)
			CHECK_EQ_U64(m->pgoff + (pg * PAGE - m->start), off_of[pg]);
	}
	CHECK(as.nr_chunks > 1);
	addrspace_release(&as);
	dso_cache_free(c);
}

static void test_session_orders_by_time(void)
{
	for (int rounds = 0; rounds < 2; rounds++) {
		static uint8_t file[4096];
		size_t len = build(file, rounds);
		struct perf_data *d;
		struct session *s;
		struct dso_cache *c = dso_cache_new();
		struct order_ctx ctx = { .m = machine_new(c) };

		CHECK_EQ_INT(perf_data_open_mem(file, len, &d), 0);
		s = session_new(d);
		CHECK_EQ_INT(session_run(s, on_record, &ctx), 0);
		CHECK_EQ_INT(session_stats(s)->samples, 2);
		CHECK_EQ_INT(ctx.nr, 4);
		CHECK_EQ_U64(ctx.times[0], 10);
		CHECK_EQ_U64(ctx.times[1], 25);
		CHECK_EQ_U64(ctx.times[2], 30);
		CHECK_EQ_U64(ctx.times[3], 40);
		/* the sample of pid 6 found the map that came after it in the file */
		CHECK_EQ_STR(ctx.dso_of_sample[0], "/do");
		CHECK_EQ_STR(ctx.dso_of_sample[1], "/co");
		session_free(s);
		perf_data_close(d);
		machine_free(ctx.m);
		dso_cache_free(c);
	}
}

/* ---------------------------------------------------------- symbols */

__attribute__((noinline, used)) int sbx_test_marker_function(int x)
{
	return x * 3 + 1;
}

/*
 * Aliases at one address, equal by every rule of perf's choose_best_symbol
 * but the last: the first in the file wins (glibc's pthread_sigmask@GLIBC_2.2.5
 * before its pthread_sigmask@@GLIBC_2.32), except that a SyS_ alias loses.
 */
__asm__(".text\n"
	".globl sbx_alias_zz, sbx_alias_aa, SyS_alias_b, sys_alias_b\n"
	".type sbx_alias_zz, @function\n.type sbx_alias_aa, @function\n"
	".type SyS_alias_b, @function\n.type sys_alias_b, @function\n"
	"sbx_alias_zz:\nsbx_alias_aa:\n\tret\n"
	".size sbx_alias_zz, 1\n.size sbx_alias_aa, 1\n"
	"SyS_alias_b:\nsys_alias_b:\n\tret\n"
	".size SyS_alias_b, 1\n.size sys_alias_b, 1\n");

static const struct symbol *symbol_named(const struct symtab *t, const char *name)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->syms[i].name, name))
			return &t->syms[i];
	return NULL;
}

/* Which of names a and b comes first in the file's .symtab (NULL: neither). */
static const char *first_in_symtab(const char *path, const char *a, const char *b)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	const char *first = NULL;
	GElf_Shdr sh;

	while (elf && !first && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !data || !sh.sh_entsize)
			continue;
		for (size_t i = 0; !first && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n = gelf_getsym(data, (int)i, &sym) ?
					elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;

			if (n && (!strcmp(n, a) || !strcmp(n, b)))
				first = !strcmp(n, a) ? a : b;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return first;
}

static void test_elf_symbols_and_build_id(void)
{
	struct symtab *t = symtab_from_elf("/proc/self/exe");
	const char *first;
	const struct symbol *s = NULL;
	uint8_t id[20];
	size_t size = 0;
	char hex[41];

	CHECK(t != NULL);
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->syms[i].name, "sbx_test_marker_function"))
			s = &t->syms[i];
	CHECK(s != NULL);
	if (s) {
		CHECK(symtab_find(t, s->start) == s);
		CHECK(symtab_find(t, s->start + s->size - 1) == s);
	}
	for (size_t i = 1; i < t->nr; i++)
		CHECK(t->syms[i - 1].start < t->syms[i].start);
	/* PLT entries are named after their targets, like perf names them */
	s = NULL;
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->syms[i].name, "unlink@plt"))
			s = &t->syms[i];
	CHECK(s != NULL);
	if (s)
		CHECK_EQ_U64(s->size, 16);
	/* the linker orders them by its hash: the first of the two in the file */
	first = first_in_symtab("/proc/self/exe", "sbx_alias_zz", "sbx_alias_aa");
	CHECK(first != NULL);
	if (first) {
		CHECK(symbol_named(t, first) != NULL);
		CHECK(symbol_named(t, strcmp(first, "sbx_alias_zz") ? "sbx_alias_zz" :
						     "sbx_alias_aa") == NULL);
	}
	CHECK(symbol_named(t, "sys_alias_b") != NULL);
	CHECK(symbol_named(t, "SyS_alias_b") == NULL);
	symtab_free(t);
	CHECK_EQ_INT(buildid_read("/proc/self/exe", id, sizeof(id), &size), 0);
	CHECK_EQ_INT(size, 20);
	CHECK_EQ_INT(strlen(buildid_hex(id, size, hex)), 40);
	CHECK(buildid_read("/no/such/file", id, sizeof(id), &size) < 0);
	CHECK(buildid_read("/proc/self/status", id, sizeof(id), &size) < 0);
}

static void test_perf_map(void)
{
	char path[] = "/tmp/perf-test-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct symtab *t;
	const struct symbol *s;

	fprintf(f, "7f0000001000 40 jitted_one\nbad line\n7f0000001040 20 Lambda <lambda>(int)\n");
	fclose(f);
	t = symtab_from_perf_map(path);
	CHECK(t != NULL);
	s = symtab_find(t, 0x7f0000001010);
	CHECK(s && !strcmp(s->name, "jitted_one"));
	s = symtab_find(t, 0x7f000000105f);
	CHECK(s && !strcmp(s->name, "Lambda <lambda>(int)"));
	CHECK(symtab_find(t, 0x7f0000001060) == NULL);
	symtab_free(t);
	unlink(path);
}

/* A DSO whose recorded path is gone is found by build-id in the caches. */
static void test_dso_by_build_id(void)
{
	char dir[] = "/tmp/sbx-debug-XXXXXX", path[512], exe[400], hex[41];
	uint8_t id[20];
	size_t size;
	struct dso_cache *c;
	struct dso *d;
	const struct symbol *s;
	struct symtab *t = symtab_from_elf("/proc/self/exe");
	uint64_t marker = 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	CHECK(t && n > 0 && mkdtemp(dir));
	if (!t || n <= 0)
		return;
	exe[n] = 0;
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->syms[i].name, "sbx_test_marker_function"))
			marker = t->syms[i].start;
	symtab_free(t);
	CHECK(marker != 0);
	CHECK_EQ_INT(buildid_read(exe, id, sizeof(id), &size), 0);
	buildid_hex(id, size, hex);

	/* ~/.debug/.build-id/xx/rest/elf */
	snprintf(path, sizeof(path), "%s/.build-id", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", dir, hex);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	CHECK_EQ_INT(symlink(exe, path), 0);
	c = dso_cache_new();
	CHECK_EQ_INT(dso_cache_set_paths(c, dir, "/nonexistent", NULL), 0);
	d = dso_cache_get(c, "/gone/since/recording", DSO_ELF);
	CHECK(d == dso_cache_get(c, "/gone/since/recording", DSO_ELF));
	dso_set_build_id(d, id, size);
	s = dso_find_symbol(d, marker + 1);
	CHECK(s && !strcmp(s->name, "sbx_test_marker_function"));
	CHECK_EQ_STR(d->file, path);
	dso_cache_free(c);
	unlink(path);

	/* the debuginfod client cache: DIR/<hex>/executable */
	snprintf(path, sizeof(path), "%s/%s", dir, hex);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/executable", dir, hex);
	CHECK_EQ_INT(symlink(exe, path), 0);
	c = dso_cache_new();
	CHECK_EQ_INT(dso_cache_set_paths(c, "/nonexistent", dir, NULL), 0);
	d = dso_cache_get(c, "/gone/too", DSO_ELF);
	dso_set_build_id(d, id, size);
	s = dso_find_symbol(d, marker);
	CHECK(s && !strcmp(s->name, "sbx_test_marker_function"));
	dso_cache_free(c);
	unlink(path);

	/* a file at the recorded path with another build-id is not used */
	c = dso_cache_new();
	CHECK_EQ_INT(dso_cache_set_paths(c, "/nonexistent", "/nonexistent", NULL), 0);
	d = dso_cache_get(c, exe, DSO_ELF);
	id[0] ^= 0xff;
	dso_set_build_id(d, id, size);
	CHECK(dso_find_symbol(d, marker) == NULL);
	CHECK(d->file == NULL);
	dso_cache_free(c);
	/* and with the right one (or none) it is */
	c = dso_cache_new();
	d = dso_cache_get(c, exe, DSO_ELF);
	s = dso_find_symbol(d, marker);
	CHECK(s && !strcmp(s->name, "sbx_test_marker_function"));
	dso_cache_free(c);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(path), 0);
}

/* Anonymous executable memory of a JIT resolves through /tmp/perf-PID.map. */
static void test_anon_map_uses_perf_map(void)
{
	uint32_t pid = 4000000 + (uint32_t)getpid() % 100000;	/* above pid_max */
	char path[64];
	FILE *f;
	struct dso_cache *c = dso_cache_new();
	struct machine *m = machine_new(c);
	struct addr_location al;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "7f1200000100 80 js_hot_loop\n");
	fclose(f);
	CHECK_EQ_INT(machine_process_record(m, mmap2(pid, 0x7f1200000000ULL, 0x10000, 0,
						     "//anon")), 0);
	machine_resolve(m, pid, pid, PERF_RECORD_MISC_USER, 0x7f1200000140ULL, &al);
	CHECK(al.dso && !strcmp(al.dso->path, path));
	CHECK(al.sym && !strcmp(al.sym->name, "js_hot_loop"));
	machine_resolve(m, pid, pid, PERF_RECORD_MISC_USER, 0x7f1200000200ULL, &al);
	CHECK(al.dso && al.sym == NULL);
	machine_free(m);
	dso_cache_free(c);
	unlink(path);
}

static void test_kernel_samples(void)
{
	char path[] = "/tmp/sbx-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct dso_cache *c = dso_cache_new();
	struct machine *m;
	struct addr_location al;
	static union {
		struct perf_event_header h;
		uint8_t b[128];
	} r;
	uint32_t pid = (uint32_t)-1;
	uint64_t q[3] = { 0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL };

	/* aliases as this kernel lists them: perf shows the last one (see symtab.c) */
	fprintf(f, "ffffffff81000000 T _text\nffffffff81000100 T do_work\n"
		   "ffffffff81000200 t helper\nffffffff81000300 D some_data\n"
		   "ffffffff81000400 T memset\nffffffff81000400 T __memset\n"
		   "ffffffff81000400 T __pi_memset\n"
		   "ffffffff81000500 T __ia32_sys_vfork\nffffffff81000500 T __x64_sys_vfork\n"
		   "ffffffff81000600 T end_marker\n"
		   "ffffffffc0001000 t mod_fn\t[mymod]\n");
	fclose(f);
	CHECK_EQ_INT(dso_cache_set_paths(c, NULL, NULL, path), 0);
	m = machine_new(c);
	/* the kernel map as perf record synthesizes it, then a module */
	r.h.type = PERF_RECORD_MMAP;
	r.h.misc = PERF_RECORD_MISC_KERNEL;
	r.h.size = 8 + 32 + 24;
	memcpy(r.b + 8, &pid, 4);
	memcpy(r.b + 16, q, 24);
	strcpy((char *)r.b + 40, "[kernel.kallsyms]_text");
	CHECK_EQ_INT(machine_process_record(m, &r.h), 0);
	q[0] = 0xffffffffc0000000ULL;
	q[1] = 0x10000;
	q[2] = 0;
	memcpy(r.b + 16, q, 24);
	memset(r.b + 40, 0, 24);
	strcpy((char *)r.b + 40, "/lib/modules/x/mymod.ko");
	CHECK_EQ_INT(machine_process_record(m, &r.h), 0);
	machine_resolve(m, 5, 5, PERF_RECORD_MISC_KERNEL, 0xffffffff81000210ULL, &al);
	CHECK(al.kernel);
	CHECK(al.dso && !strcmp(al.dso->short_name, "[kernel.kallsyms]"));
	CHECK(al.sym && !strcmp(al.sym->name, "helper"));
	machine_resolve(m, 5, 5, PERF_RECORD_MISC_KERNEL, 0xffffffff8100040bULL, &al);
	CHECK(al.sym && !strcmp(al.sym->name, "__pi_memset"));
	machine_resolve(m, 5, 5, PERF_RECORD_MISC_KERNEL, 0xffffffff81000510ULL, &al);
	CHECK(al.sym && !strcmp(al.sym->name, "__x64_sys_vfork"));
	machine_resolve(m, 5, 5, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001008ULL, &al);
	CHECK(al.dso && !strcmp(al.dso->short_name, "[mymod]"));
	CHECK(al.sym && !strcmp(al.sym->name, "mod_fn"));
	/* past the kernel's maps: still the kernel's */
	machine_resolve(m, 5, 5, PERF_RECORD_MISC_KERNEL, 0xffffffffd0000000ULL, &al);
	CHECK(al.kernel);
	CHECK(al.dso && !strcmp(al.dso->path, "[kernel.kallsyms]"));
	/* a file that maps no kernel (kptr_restrict, another machine's): a kernel address,
	   no one's, as perf has it; this machine's kallsyms would name it wrongly */
	machine_free(m);
	m = machine_new(c);
	machine_resolve(m, 5, 5, PERF_RECORD_MISC_KERNEL, 0xffffffff81000105ULL, &al);
	CHECK(al.kernel);
	CHECK(!al.dso && !al.sym);
	machine_free(m);
	dso_cache_free(c);
	unlink(path);
}

/* perf's x86-64 BP, SP and IP: the registers a stack copy is unwound from */
#define UNWIND_REGS ((1ULL << 6) | (1ULL << 7) | (1ULL << 8))

/*
 * What the kernel puts in a sample: BP, SP and IP here, and the stack from SP
 * up, word by word as the kernel copies it (ASan's redzones in it are not
 * reads of ours).
 */
static __attribute__((noinline, no_sanitize_address)) void
sbx_test_capture(uint64_t regs[3], uint64_t *stack, uint64_t stack_end, uint64_t *len)
{
	uint64_t bp, sp, ip;

	__asm__ volatile("mov %%rbp, %0\n\tmov %%rsp, %1\n\tlea 0(%%rip), %2"
			 : "=r"(bp), "=r"(sp), "=r"(ip));
	regs[0] = bp;
	regs[1] = sp;
	regs[2] = ip;
	*len = stack_end - sp < *len ? stack_end - sp : *len;
	for (uint64_t i = 0; i < *len / 8; i++)
		stack[i] = ((const volatile uint64_t *)(uintptr_t)sp)[i];
}

/* The end of this process's stack, and its own executable mapped in m as pid 1. */
static uint64_t map_self(struct machine *m)
{
	char exe[4096], line[4608], path[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	uint64_t end = 0;

	if (n <= 0 || !f) {
		if (f)
			fclose(f);
		return 0;
	}
	exe[n] = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		int at = 0;

		/* the path is the rest of the line, spaces and all */
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &at) < 3 || !at)
			continue;
		snprintf(path, sizeof(path), "%s", line + at);
		path[strcspn(path, "\n")] = 0;
		if (!strcmp(path, "[stack]"))
			end = hi;
		else if (!strcmp(path, exe))
			machine_process_record(m, mmap2(1, lo, hi - lo, off, exe));
	}
	fclose(f);
	return end;
}

static __attribute__((noinline)) void sbx_test_unwinds_itself(void)
{
	struct dso_cache *c = dso_cache_new();
	struct machine *m = machine_new(c);
	struct unwinder *u = unwinder_new(m);
	static uint64_t stack[1024];
	uint64_t regs[3], len = sizeof(stack), ips[16], stack_end = map_self(m);
	struct perf_sample s = {
		.pid = 1, .tid = 1, .regs_user_abi = 2 /* PERF_SAMPLE_REGS_ABI_64 */,
		.regs_user = regs, .stack_user = stack, .stack_user_size = sizeof(stack),
	};
	struct addr_location al;
	size_t n;

	CHECK(stack_end != 0);
	CHECK(u != NULL);
	if (!stack_end || !u)
		goto out;
	sbx_test_capture(regs, stack, stack_end, &len);
	s.stack_user_dyn_size = len;
	n = unwind_user_stack(u, &s, UNWIND_REGS, ips, 16);
	/* the capturing function, then this one: its caller, found in the copy through CFI */
	CHECK(n >= 2);
	if (n >= 2) {
		CHECK_EQ_U64(ips[0], regs[2]);
		machine_resolve(m, 1, 1, PERF_RECORD_MISC_USER, ips[1], &al);
		CHECK(al.sym && !strcmp(al.sym->name, "sbx_test_unwinds_itself"));
	}
	/* the kernel copied nothing (a fault as the stack grows): no frame, not even
	   the IP, as perf */
	s.stack_user_dyn_size = 0;
	CHECK_EQ_U64(unwind_user_stack(u, &s, UNWIND_REGS, ips, 16), 0);
	/* no SP among the registers: nothing either */
	s.stack_user_dyn_size = len;
	CHECK_EQ_U64(unwind_user_stack(u, &s, (1ULL << 6) | (1ULL << 8), ips, 16), 0);
out:
	unwinder_free(u);
	machine_free(m);
	dso_cache_free(c);
}

static const struct unit_test tests[] = {
	TEST(test_fork_exec_exit),
	TEST(test_thread_names),
	TEST(test_same_binary_two_bases),
	TEST(test_overlapping_maps),
	TEST(test_many_maps_against_a_model),
	TEST(test_session_orders_by_time),
	TEST(test_elf_symbols_and_build_id),
	TEST(test_perf_map),
	TEST(test_dso_by_build_id),
	TEST(test_kernel_samples),
	TEST(test_anon_map_uses_perf_map),
	TEST(sbx_test_unwinds_itself),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
