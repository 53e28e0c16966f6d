// SPDX-License-Identifier: MIT
/*
 * util: the hash map (colliding hashes, growth, deletion in the middle of
 * a probe run, iteration), the sorted-range lookup, string lists.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "util/hashmap.h"
#include "util/ranges.h"
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
	CHECK(hash_str("abc") == hash_bytes("abc", 3));
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

static const struct unit_test tests[] = {
	TEST(test_hashmap_basic),
	TEST(test_hashmap_collisions),
	TEST(test_hashmap_churn),
	TEST(test_hashes),
	TEST(test_ranges),
	TEST(test_strlist),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
