// SPDX-License-Identifier: MIT
/*
 * util: the hash map (colliding hashes, growth, deletion in the middle of
 * a probe run, iteration), the sorted-range lookup, string lists, the
 * radix sort against qsort, the arena.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "util/arena.h"
#include "util/array.h"
#include "util/error.h"
#include "util/escape.h"
#include "util/input.h"
#include "util/hashmap.h"
#include "util/ranges.h"
#include "util/sort.h"
#include "util/strlist.h"

struct item {
	uint64_t key;
	int value;
};

static bool item_has_key(const void *entry, const void *key)
{
	return ((const struct item *)entry)->key == *(const uint64_t *)key;
}

/* A bad hash on purpose: many keys share a slot, so probe runs are long. */
static uint64_t weak_hash(uint64_t key)
{
	return key % 7;
}

static void test_hashmap_basic(void)
{
	struct hashmap m = HASHMAP_INIT;
	struct item a = { 1, 10 }, b = { 2, 20 };
	uint64_t k = 3;

	CHECK(hashmap_get(&m, hash_u64(1), item_has_key, &a.key) == NULL);
	CHECK(hashmap_remove(&m, hash_u64(1), item_has_key, &a.key) == NULL);
	CHECK_EQ_INT(hashmap_put(&m, hash_u64(a.key), &a), 0);
	CHECK_EQ_INT(hashmap_put(&m, hash_u64(b.key), &b), 0);
	CHECK_EQ_INT(hashmap_nr(&m), 2);
	CHECK(hashmap_get(&m, hash_u64(1), item_has_key, &a.key) == &a);
	CHECK(hashmap_get(&m, hash_u64(2), item_has_key, &b.key) == &b);
	CHECK(hashmap_get(&m, hash_u64(3), item_has_key, &k) == NULL);
	CHECK(hashmap_remove(&m, hash_u64(1), item_has_key, &a.key) == &a);
	CHECK(hashmap_get(&m, hash_u64(1), item_has_key, &a.key) == NULL);
	CHECK(hashmap_get(&m, hash_u64(2), item_has_key, &b.key) == &b);
	CHECK_EQ_INT(hashmap_nr(&m), 1);
	hashmap_release(&m);
	CHECK_EQ_INT(hashmap_nr(&m), 0);
	CHECK(hashmap_get(&m, hash_u64(2), item_has_key, &b.key) == NULL);
}

/* Many entries on few hashes; delete every third; all others stay findable. */
static void test_hashmap_collisions(void)
{
	enum { N = 5000 };
	struct hashmap m = HASHMAP_INIT;
	struct item *items = calloc(N, sizeof(*items));
	size_t pos = 0, seen = 0;
	struct item *it;
	int ok = 1;

	CHECK(items != NULL);
	if (!items)
		return;
	for (int i = 0; i < N; i++) {
		items[i] = (struct item){ (uint64_t)i * 1000003u, i };
		CHECK_EQ_INT(hashmap_put(&m, weak_hash(items[i].key), &items[i]), 0);
	}
	CHECK_EQ_INT(hashmap_nr(&m), N);
	for (int i = 0; i < N; i += 3)
		ok &= hashmap_remove(&m, weak_hash(items[i].key), item_has_key,
				     &items[i].key) == &items[i];
	CHECK(ok);
	for (int i = 0; i < N; i++) {
		struct item *got = hashmap_get(&m, weak_hash(items[i].key), item_has_key,
					       &items[i].key);

		ok &= (i % 3 == 0) ? got == NULL : got == &items[i];
	}
	CHECK(ok);
	while ((it = hashmap_next(&m, &pos))) {
		ok &= it->value % 3 != 0;
		seen++;
	}
	CHECK(ok);
	CHECK_EQ_INT(seen, N - (N + 2) / 3);
	CHECK_EQ_INT(hashmap_nr(&m), seen);
	hashmap_release(&m);
	free(items);
}

/* The same with a real hash, and deletion and re-insertion in turns. */
static void test_hashmap_churn(void)
{
	enum { N = 20000 };
	struct hashmap m = HASHMAP_INIT;
	struct item *items = calloc(N, sizeof(*items));
	int ok = 1;

	CHECK(items != NULL);
	if (!items)
		return;
	for (int i = 0; i < N; i++) {
		items[i] = (struct item){ (uint64_t)i, i };
		ok &= !hashmap_put(&m, hash_u64(i), &items[i]);
		if (i >= 100) {
			uint64_t k = i - 100;

			ok &= hashmap_remove(&m, hash_u64(k), item_has_key, &k) == &items[k];
		}
	}
	CHECK(ok);
	CHECK_EQ_INT(hashmap_nr(&m), 100);
	for (uint64_t k = 0; k < N; k++)
		ok &= (hashmap_get(&m, hash_u64(k), item_has_key, &k) != NULL) == (k >= N - 100);
	CHECK(ok);
	hashmap_release(&m);
	free(items);
}

static void test_hashes(void)
{
	uint64_t words[40];
	unsigned char bytes[8 * 40 + 1];

	CHECK(hash_str("abc") == hash_bytes("abc", 3));
	/* every byte counts, in the four lanes and the tail, at any alignment */
	for (int i = 0; i < 40; i++)
		words[i] = 0x0101010101010101ULL * (uint64_t)i;
	memcpy(bytes + 1, words, sizeof(words));
	CHECK(hash_bytes(words, sizeof(words)) == hash_bytes(bytes + 1, sizeof(words)));
	for (size_t len = 1; len <= sizeof(words); len += 7) {
		uint64_t h = hash_bytes(words, len);

		((unsigned char *)words)[len - 1] ^= 0x40;
		CHECK(hash_bytes(words, len) != h);
		((unsigned char *)words)[len - 1] ^= 0x40;
	}
	CHECK(hash_bytes(words, 32) != hash_bytes(words, 33));
	CHECK(hash_str("abc") != hash_str("abd"));
	CHECK(hash_u64(1) != hash_u64(2));
	/* the low bits, which pick the slot, depend on the high bits of the input */
	CHECK((hash_u64(1ULL << 40) & 0xff) != (hash_u64(2ULL << 40) & 0xff) ||
	      (hash_u64(3ULL << 40) & 0xff) != (hash_u64(4ULL << 40) & 0xff));
}

struct range {
	uint32_t pad;
	uint64_t start;
};

static void test_ranges(void)
{
	struct range r[] = { { 0, 10 }, { 0, 20 }, { 0, 20 }, { 0, 35 } };

	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 4, start, 5), 4);	/* before all: nr */
	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 4, start, 10), 0);
	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 4, start, 19), 0);
	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 4, start, 20), 2);	/* the last of equal starts */
	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 4, start, 34), 2);
	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 4, start, UINT64_MAX), 3);
	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 0, start, 100), 0);
	CHECK_EQ_INT(RANGES_FIND_LAST_LE(r, 1, start, 100), 0);
}

static void test_strlist(void)
{
	struct strlist l = STRLIST_INIT;

	CHECK_EQ_INT(strlist_split(&l, "a,,bc,", ','), 0);
	CHECK_EQ_INT(l.nr, 2);
	CHECK_EQ_STR(l.items[0], "a");
	CHECK_EQ_STR(l.items[1], "bc");
	CHECK(strlist_has(&l, "bc"));
	CHECK(!strlist_has(&l, "b"));
	CHECK_EQ_INT(strlist_add(&l, "d"), 0);
	CHECK_EQ_INT(l.nr, 3);
	strlist_release(&l);
	CHECK_EQ_INT(l.nr, 0);
	CHECK_EQ_INT(strlist_split(&l, "", ','), 0);
	CHECK_EQ_INT(l.nr, 0);
}

/* Room doubles (few reallocations for many appends), keeps what was there, refuses overflow. */
static void test_array_reserve(void)
{
	uint32_t *v = NULL, *before;
	size_t cap = 0, moves = 0;

	for (uint32_t i = 0; i < 100000; i++) {
		size_t old = cap;

		CHECK_EQ_INT(array_reserve(&v, &cap, i + 1, sizeof(*v)), 0);
		CHECK(cap >= i + 1);
		moves += cap != old;
		v[i] = i;
	}
	CHECK(moves <= 15);		/* 8, 16, ... 131072 */
	for (uint32_t i = 0; i < 100000; i++)
		if (v[i] != i)
			CHECK(v[i] == i);
	before = v;
	CHECK_EQ_INT(array_reserve(&v, &cap, 50, sizeof(*v)), 0);
	CHECK(v == before);
	CHECK_EQ_INT(array_reserve(&v, &cap, SIZE_MAX / 2, sizeof(*v)), -ENOMEM);
	CHECK_EQ_INT(array_reserve(&v, &cap, SIZE_MAX, 1), -ENOMEM);
	CHECK(v == before && cap == 131072);
	free(v);
}

/* Blocks zeroed, aligned, apart from each other, over several chunks and big ones. */
static void test_arena(void)
{
	struct arena a = ARENA_INIT;
	unsigned char *blocks[200];
	size_t sizes[200];
	char *s, *big, *after;

	for (size_t i = 0; i < 20000; i++) {
		size_t n = 1 + i % 97, zero = 0;
		unsigned char *p = arena_zalloc(&a, n);

		CHECK(p != NULL);
		CHECK_EQ_INT((uintptr_t)p % 16, 0);
		for (size_t k = 0; k < n; k++)
			zero += !p[k];
		CHECK_EQ_INT(zero, n);
		/* a byte of its own: a block that overlapped another would change it */
		memset(p, (int)(i % 251) + 1, n);
		blocks[i % 200] = p;
		sizes[i % 200] = n;
		if (i % 200 == 199)
			for (size_t b = 0; b < 200; b++)
				for (size_t k = 0; k < sizes[b]; k++)
					CHECK_EQ_INT(blocks[b][k], (int)((i - 199 + b) % 251) + 1);
	}
	/* a block bigger than a chunk; the blocks after it still come */
	big = arena_zalloc(&a, 1 << 20);
	CHECK(big != NULL);
	CHECK_EQ_INT(big[0] | big[(1 << 20) - 1], 0);
	memset(big, 1, 1 << 20);
	after = arena_zalloc(&a, 8);
	CHECK(after != NULL && (after < big || after >= big + (1 << 20)));
	CHECK_EQ_INT(after[0], 0);
	s = arena_strdup(&a, "a name");
	CHECK_EQ_STR(s, "a name");
	/* a size that would wrap: refused */
	errno = 0;
	CHECK(arena_zalloc(&a, SIZE_MAX - 3) == NULL);
	CHECK_EQ_INT(errno, ENOMEM);
	arena_release(&a);
	CHECK(a.chunks == NULL);
	/* empty again, and usable; a first block that is big */
	CHECK(arena_zalloc(&a, 200 << 10) != NULL);
	CHECK(arena_zalloc(&a, 0) != NULL);
	arena_release(&a);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* sort_u64 as qsort sorts: keys of every width, with constant bits above and below */
static void test_sort_u64(void)
{
	static const struct {
		size_t n;
		uint64_t mask, base;
	} cases[] = {
		{ 100, ~0ULL, 0 },			/* the insertion sort */
		{ 100000, ~0ULL, 0 },			/* 64 bits: six passes */
		{ 100000, 0x1fffff, 0x400000 },		/* a program's offsets: two */
		{ 100000, 0xfff0, 0x7f0000000000ULL },	/* low bits alike: skipped */
		{ 100000, 0x7ff, 0 },			/* one pass */
		{ 100000, 0, 42 },			/* all equal: none */
		{ 3000, 0x8000000000000001ULL, 0 },	/* far apart */
	};
	uint64_t seed = 88172645463325252ULL;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = cases[c].n;
		uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));

		CHECK(a && b);
		if (!a || !b) {
			free(a);
			free(b);
			return;
		}
		for (size_t i = 0; i < n; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			a[i] = b[i] = cases[c].base | (seed & cases[c].mask);
		}
		CHECK_EQ_INT(sort_u64(a, n), 0);
		qsort(b, n, sizeof(*b), cmp_u64);
		CHECK(!memcmp(a, b, n * sizeof(*a)));
		free(a);
		free(b);
	}
}

/* Files others made: only regular ones, within the bound, and no link where asked. */
static void test_input(void)
{
	char dir[] = "/tmp/sbx-test-input-XXXXXX", file[64], fifo[64], link[64];
	uint8_t *buf;
	size_t len;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/file", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, "hello", 5) == 5);
	close(fd);
	CHECK(!mkfifo(fifo, 0600));
	CHECK(!symlink("file", link));
	CHECK_EQ_INT(input_read(file, INPUT_NOFOLLOW, 5, &buf, &len), 0);
	CHECK(len == 5 && !memcmp(buf, "hello", 5));
	free(buf);
	/* a link is followed only when allowed */
	CHECK_EQ_INT(input_read(link, 0, 0, &buf, &len), 0);
	free(buf);
	CHECK_EQ_INT(input_open(link, INPUT_NOFOLLOW, 0, NULL), -ELOOP);
	CHECK(strstr(sbx_error_msg(), "a symbolic link, not followed") != NULL);
	/* a FIFO with no writer: refused at once, not waited on */
	CHECK_EQ_INT(input_open(fifo, 0, 0, NULL), -EINVAL);
	CHECK(strstr(sbx_error_msg(), "not a regular file (a FIFO)") != NULL);
	CHECK_EQ_INT(input_open("/dev/zero", 0, 0, NULL), -EINVAL);
	CHECK_EQ_INT(input_open(file, 0, 4, NULL), -EFBIG);
	CHECK_EQ_INT(input_read(file, 0, 4, &buf, &len), -EFBIG);
	unlink(file);
	unlink(fifo);
	unlink(link);
	rmdir(dir);
}

/* Names from outside print on one line: control characters escaped, the rest kept. */
static void test_escape(void)
{
	char buf[16];

	CHECK_EQ_STR(escape_str("plain \\ name ü"), "plain \\ name ü");
	CHECK_EQ_STR(escape_str("evil\n 99.99% sshd\t\r\x1b[2J\x7f"),
		     "evil\\n 99.99% sshd\\t\\r\\x1b[2J\\x7f");
	/* cut at a whole escape, always terminated; the return is the whole length */
	CHECK_EQ_U64(escape_text(buf, 8, "ab\x01" "cd", 5), 8);
	CHECK_EQ_STR(buf, "ab\\x01c");
	CHECK_EQ_U64(escape_text(buf, 6, "ab\x01" "cd", 5), 8);
	CHECK_EQ_STR(buf, "ab");
	CHECK(!escape_needed("abc", 3) && escape_needed("a\nb", 3));
}

static const struct unit_test tests[] = {
	TEST(test_hashmap_basic),
	TEST(test_hashmap_collisions),
	TEST(test_hashmap_churn),
	TEST(test_hashes),
	TEST(test_sort_u64),
	TEST(test_ranges),
	TEST(test_strlist),
	TEST(test_array_reserve),
	TEST(test_arena),
	TEST(test_input),
	TEST(test_escape),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
