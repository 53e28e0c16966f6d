// SPDX-License-Identifier: MIT
/*
 * lib/jit and libsbx-jit: SHA-1 against FIPS 180 vectors; what libsbx-jit
 * writes, read back by the jitdump reader (loads, a move, lines, unwind
 * data, close; a forked child's own dump); the reader on damaged and
 * foreign dumps built here byte by byte; an image read back by libelf.
 */
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <byteswap.h>

#include "harness.h"
#include "jit/image.h"
#include "jit/jitdump.h"
#include "sbx/jit.h"
#include "util/sha1.h"

static char dir[64];

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha1_vectors(void)
{
	static const struct { const char *in, *out; } v[] = {
		{ "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
		{ "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
	};
	uint8_t d[20];
	char h[41];
	struct sha1 s;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sha1_init(&s);
		sha1_update(&s, v[i].in, strlen(v[i].in));
		sha1_final(&s, d);
		hex(d, 20, h);
		CHECK_EQ_STR(h, v[i].out);
	}
	/* a million 'a', fed in odd pieces */
	sha1_init(&s);
	for (int i = 0; i < 1000000;) {
		static const char a[977] = { [0 ... 976] = 'a' };
		int n = 1000000 - i < 977 ? 1000000 - i : 977;

		sha1_update(&s, a, n);
		i += n;
	}
	sha1_final(&s, d);
	hex(d, 20, h);
	CHECK_EQ_STR(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

static const uint8_t code1[] = { 0x48, 0x31, 0xc0, 0x48, 0xff, 0xc0, 0xc3 };
static const uint8_t code2[] = { 0xb8, 0x2a, 0, 0, 0, 0xc3 };

/* Write a dump with libsbx-jit: f1 (lines, unwind) loaded, moved; f2 at f1's old place. */
static char *write_dump(void)
{
	static const uint8_t eh[16] = { 1, 2, 3 }, hdr[8] = { 9 };
	struct sbx_jit_line lines[2] = {
		{ 0x10000 + 3, "a.js", 7, 2 }, { 0x10000 + 0, "a.js", 5, 1 },
	};
	struct sbx_jit_code c = {
		.name = "f1", .addr = (void *)0x10000, .size = sizeof(code1), .bytes = code1,
		.lines = lines, .nr_lines = 2, .eh_frame = eh, .eh_frame_size = sizeof(eh),
		.eh_frame_hdr = hdr, .eh_frame_hdr_size = sizeof(hdr),
	};
	struct sbx_jit *j;
	uint64_t i1 = 99, i2 = 99;
	char *path;

	setenv("SBX_JIT_DIR", dir, 1);
	j = sbx_jit_open();
	CHECK(j != NULL);
	if (!j)
		return NULL;
	path = strdup(sbx_jit_path(j));
	CHECK_EQ_INT(sbx_jit_load(j, &c, &i1), 0);
	CHECK_EQ_INT(i1, 0);
	CHECK_EQ_INT(sbx_jit_move(j, i1, (void *)0x10000, (void *)0x20000, sizeof(code1)), 0);
	CHECK_EQ_INT(sbx_jit_move(j, 7, (void *)0x10000, (void *)0x20000, 1), -ENOENT);
	CHECK_EQ_INT(sbx_jit_load_simple(j, "f2", code2, sizeof(code2), &i2), 0);
	CHECK_EQ_INT(i2, 1);
	CHECK_EQ_INT(sbx_jit_close(j), 0);
	return path;
}

static void test_roundtrip(void)
{
	struct jitdump *d;
	char *path = write_dump();

	if (!path)
		return;
	CHECK_EQ_INT(jitdump_open(path, &d), 0);
	if (!d)
		return;
	CHECK_EQ_INT(d->nr_warnings, 0);
	CHECK_EQ_INT(d->pid, getpid());
	CHECK_EQ_U64(d->flags, 0);
	CHECK(d->closed);
	CHECK_EQ_INT(d->nr_codes, 3);
	CHECK_EQ_INT(d->nr_loads, 2);
	CHECK_EQ_INT(d->nr_moves, 1);
	CHECK_EQ_STR(d->codes[0].name, "f1");
	CHECK_EQ_U64(d->codes[0].addr, 0x10000);
	CHECK(!memcmp(d->codes[0].bytes, code1, sizeof(code1)));
	CHECK_EQ_INT(d->codes[0].nr_lines, 2);
	/* sorted by address */
	CHECK_EQ_U64(d->codes[0].lines[0].addr, 0x10000);
	CHECK_EQ_INT(d->codes[0].lines[0].line, 5);
	CHECK_EQ_INT(d->codes[0].lines[1].column, 2);
	CHECK_EQ_STR(d->codes[0].lines[1].file, "a.js");
	CHECK_EQ_INT(d->codes[0].eh_frame_size, 16);
	CHECK_EQ_INT(d->codes[0].eh_frame_hdr_size, 8);
	CHECK_EQ_INT(d->codes[0].eh_frame_hdr[0], 9);
	CHECK(d->codes[1].move);
	CHECK_EQ_U64(d->codes[1].addr, 0x20000);
	CHECK_EQ_INT(d->codes[1].load, 0);
	CHECK_EQ_STR(d->codes[2].name, "f2");
	CHECK_EQ_INT(d->codes[2].nr_lines, 0);
	CHECK(d->codes[0].time <= d->codes[1].time && d->codes[1].time <= d->codes[2].time);
	CHECK(!d->line_skew);
	jitdump_free(d);
	uint32_t pid;
	CHECK_EQ_INT(jitdump_name_pid(path, &pid), 1);
	CHECK_EQ_INT(pid, getpid());
	CHECK_EQ_INT(jitdump_name_pid("/x/jit-12.dumpx", &pid), 0);
	CHECK_EQ_INT(jitdump_name_pid("/x/jit-.dump", &pid), 0);
	unlink(path);
	free(path);
}

static void test_fork_starts_a_new_dump(void)
{
	struct sbx_jit *j;
	char parent[256], child[256];
	pid_t pid;
	int status;
	struct jitdump *d;

	setenv("SBX_JIT_DIR", dir, 1);
	j = sbx_jit_open();
	CHECK(j != NULL);
	if (!j)
		return;
	snprintf(parent, sizeof(parent), "%s", sbx_jit_path(j));
	CHECK_EQ_INT(sbx_jit_load_simple(j, "before", code1, sizeof(code1), NULL), 0);
	pid = fork();
	if (pid == 0) {
		int ok = sbx_jit_load_simple(j, "in_child", code2, sizeof(code2), NULL) == 0 &&
			 sbx_jit_close(j) == 0;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ_INT(sbx_jit_load_simple(j, "after", code2, sizeof(code2), NULL), 0);
	CHECK_EQ_INT(sbx_jit_close(j), 0);
	snprintf(child, sizeof(child), "%s/jit-%d.dump", dir, (int)pid);
	CHECK_EQ_INT(jitdump_open(parent, &d), 0);
	if (d) {
		CHECK_EQ_INT(d->nr_loads, 2);
		CHECK_EQ_STR(d->codes[1].name, "after");
		jitdump_free(d);
	}
	CHECK_EQ_INT(jitdump_open(child, &d), 0);
	if (d) {
		CHECK_EQ_INT(d->pid, pid);
		CHECK_EQ_INT(d->nr_loads, 1);
		CHECK_EQ_STR(d->codes[0].name, "in_child");
		CHECK_EQ_U64(d->codes[0].index, 0);
		jitdump_free(d);
	}
	unlink(parent);
	unlink(child);
}

/* A dump built by hand: the header, then records appended. */
struct dump {
	uint8_t b[4096];
	size_t len;
};

static void put(struct dump *d, const void *p, size_t n)
{
	memcpy(d->b + d->len, p, n);
	d->len += n;
}

static void put32(struct dump *d, uint32_t v)
{
	put(d, &v, 4);
}

static void put64(struct dump *d, uint64_t v)
{
	put(d, &v, 8);
}

static void header(struct dump *d, uint32_t total, uint64_t flags)
{
	d->len = 0;
	put32(d, JITDUMP_MAGIC);
	put32(d, 1);
	put32(d, total);
	put32(d, 62);
	put32(d, 0xdeadbeef);
	put32(d, 42);
	put64(d, 1000);
	put64(d, flags);
	while (d->len < total)
		put(d, "", 1);
}

static void load(struct dump *d, uint64_t time, const char *name, uint64_t addr,
		 const uint8_t *code, size_t n, uint64_t index)
{
	put32(d, JIT_CODE_LOAD);
	put32(d, 16 + 40 + strlen(name) + 1 + n);
	put64(d, time);
	put32(d, 42);
	put32(d, 43);
	put64(d, addr);
	put64(d, addr);
	put64(d, n);
	put64(d, index);
	put(d, name, strlen(name) + 1);
	put(d, code, n);
}

static void debug(struct dump *d, uint64_t addr, const uint64_t *at, size_t n)
{
	size_t start = d->len;

	put32(d, JIT_CODE_DEBUG_INFO);
	put32(d, 0);
	put64(d, 5);
	put64(d, addr);
	put64(d, n);
	for (size_t i = 0; i < n; i++) {
		put64(d, at[i]);
		put32(d, 10 + i);
		put32(d, 0);
		put(d, i ? "\xff" : "f.c", i ? 2 : 4);
	}
	while ((d->len - start) % 8)
		put(d, "", 1);
	uint32_t size = d->len - start;
	memcpy(d->b + start + 4, &size, 4);
}

static void test_reader_tolerance(void)
{
	struct dump d;
	struct jitdump *j;
	uint64_t at[2];

	/* a longer header, garbage flags, an unknown record, LLVM's DEBUG_INFO after its load */
	header(&d, 48, 0x6265642e2f640301ull);
	put32(&d, 77);
	put32(&d, 24);
	put64(&d, 3);
	put64(&d, 0);
	load(&d, 10, "g", 0x5000, code1, sizeof(code1), 0);
	at[0] = 0x5000 + 0x40;	/* +0x40 skew, as V8 and LLVM write it */
	at[1] = 0x5000 + 0x40 + 6;
	debug(&d, 0x5000, at, 2);
	CHECK_EQ_INT(jitdump_parse(d.b, d.len, "t", &j), 0);
	if (j) {
		CHECK_EQ_U64(j->flags_unknown, 0x6265642e2f640300ull);
		CHECK(j->flags & JITDUMP_FLAGS_ARCH_TIMESTAMP);
		CHECK_EQ_INT(j->nr_unknown, 1);
		CHECK_EQ_INT(j->nr_loads, 1);
		CHECK_EQ_INT(j->codes[0].nr_lines, 2);
		/* the skew was seen (an entry past the code without it) and taken off */
		CHECK(j->line_skew);
		CHECK_EQ_U64(j->codes[0].lines[0].addr, 0x5000);
		CHECK_EQ_STR(j->codes[0].lines[1].file, "f.c");
		CHECK(j->nr_warnings >= 2);
		jitdump_free(j);
	}
	/* truncated inside the second load: the first is kept, the offset named */
	header(&d, 40, 0);
	load(&d, 10, "a", 0x1000, code1, sizeof(code1), 0);
	size_t cut = d.len;
	load(&d, 11, "b", 0x2000, code2, sizeof(code2), 1);
	CHECK_EQ_INT(jitdump_parse(d.b, d.len - 3, "t", &j), 0);
	if (j) {
		char want[64];

		CHECK_EQ_INT(j->nr_loads, 1);
		CHECK_EQ_INT(j->nr_warnings, 1);
		snprintf(want, sizeof(want), "record at offset %zu", cut);
		CHECK(j->nr_warnings && strstr(j->warnings[0], want));
		jitdump_free(j);
	}
	/* a name without its NUL, a move of an unknown index: warnings, no crash */
	header(&d, 40, 0);
	put32(&d, JIT_CODE_MOVE);
	put32(&d, 64);
	put64(&d, 1);
	for (int i = 0; i < 6; i++)
		put64(&d, 7);
	CHECK_EQ_INT(jitdump_parse(d.b, d.len, "t", &j), 0);
	if (j) {
		CHECK_EQ_INT(j->nr_moves, 0);
		CHECK_EQ_INT(j->nr_warnings, 1);
		jitdump_free(j);
	}
	/* the other byte order: swapped and read alike */
	header(&d, 40, 0);
	load(&d, 10, "a", 0x1000, code1, sizeof(code1), 0);
	{
		struct dump s = d;
		uint32_t *w = (uint32_t *)s.b;

		for (int i = 0; i < 6; i++)
			w[i] = bswap_32(w[i]);
		for (int i = 0; i < 2; i++) {
			uint64_t v;

			memcpy(&v, s.b + 24 + 8 * i, 8);
			v = bswap_64(v);
			memcpy(s.b + 24 + 8 * i, &v, 8);
		}
		/* the record: id, size, time, pid, tid, then five u64 */
		for (int i = 0; i < 2; i++)
			w[10 + i] = bswap_32(w[10 + i]);
		for (size_t off = 48; off < 56; off += 8) {
			uint64_t v;

			memcpy(&v, s.b + off, 8);
			v = bswap_64(v);
			memcpy(s.b + off, &v, 8);
		}
		w[14] = bswap_32(w[14]);
		w[15] = bswap_32(w[15]);
		for (size_t off = 64; off < 96; off += 8) {
			uint64_t v;

			memcpy(&v, s.b + off, 8);
			v = bswap_64(v);
			memcpy(s.b + off, &v, 8);
		}
		CHECK_EQ_INT(jitdump_parse(s.b, s.len, "t", &j), 0);
		if (j) {
			CHECK(j->swapped);
			CHECK_EQ_INT(j->pid, 42);
			CHECK_EQ_INT(j->nr_loads, 1);
			CHECK_EQ_U64(j->codes[0].addr, 0x1000);
			CHECK_EQ_STR(j->codes[0].name, "a");
			jitdump_free(j);
		}
	}
	/* not a jitdump at all; shorter than a header */
	CHECK_EQ_INT(jitdump_parse("PERFILE2........................................", 48, "t",
				   &j), -EINVAL);
	CHECK_EQ_INT(jitdump_parse(d.b, 39, "t", &j), -EINVAL);
}

static void test_image(void)
{
	struct jitdump_line lines[] = { { 0x7000, "x.c", 3, 0 }, { 0x7003, "x.c", 4, 0 } };
	struct jit_image_func f[2] = {
		{ .name = "one", .bytes = code1, .size = sizeof(code1), .code_addr = 0x7000,
		  .lines = lines, .nr_lines = 2 },
		{ .name = "two", .bytes = code2, .size = sizeof(code2), .code_addr = 0x9000 },
	};
	uint8_t id[20], id2[20];
	char path[128];
	struct stat st, st2;
	int fd, found = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;

	snprintf(path, sizeof(path), "%s/img.so", dir);
	CHECK_EQ_INT(jit_image_write(path, f, 2, 0, "s", 1, id, &st), 0);
	CHECK_EQ_U64(f[0].offset, JIT_IMAGE_TEXT_OFFSET);
	CHECK(f[1].offset >= f[0].offset + sizeof(code1) && f[1].offset % 16 == 0);
	CHECK(!stat(path, &st2) && st2.st_ino == st.st_ino && st2.st_dev == st.st_dev);
	/* another salt, another build-id; the file replaced */
	CHECK_EQ_INT(jit_image_write(path, f, 2, 0, "t", 1, id2, NULL), 0);
	CHECK(memcmp(id, id2, 20));
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	CHECK(elf != NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			gelf_getsym(data, i, &s);
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, "two") && s.st_value == f[1].offset &&
			    s.st_size == sizeof(code2))
				found++;
		}
	}
	CHECK_EQ_INT(found, 1);
	/* the bytes of "two" at its offset in the file */
	{
		uint8_t buf[sizeof(code2)];

		CHECK_EQ_INT(pread(fd, buf, sizeof(buf), f[1].offset), sizeof(buf));
		CHECK(!memcmp(buf, code2, sizeof(code2)));
	}
	elf_end(elf);
	close(fd);
	unlink(path);
}

static const struct unit_test tests[] = {
	TEST(test_sha1_vectors),
	TEST(test_roundtrip),
	TEST(test_fork_starts_a_new_dump),
	TEST(test_reader_tolerance),
	TEST(test_image),
	{ 0 },
};

int main(void)
{
	int r;

	snprintf(dir, sizeof(dir), "/tmp/sbx-test-jit-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	r = unit_run(tests);
	rmdir(dir);
	return r;
}
