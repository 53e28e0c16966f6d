// SPDX-License-Identifier: MIT
/*
 * hashstr [ROUNDS]: hashing and string work for scripts/bench/profgen-pgo.sh.
 * Each round builds keys ("word-number", the words made of syllables, most
 * keys drawn from the few most common ones) and counts them in a hash table
 * with chaining (FNV-1a, strcmp along the chains), looks up as many keys
 * again, some absent, reverses, upper-cases and searches the keys it finds,
 * and merge-sorts a sample of them by strcmp. A fixed xorshift sequence
 * drives it all, so every run does the same work. Prints a checksum.
 *
 * The hot functions are not static: clang keeps each of them, and inlines
 * it only where it judges that worth it, a judgement a profile changes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS (1 << 13)
#define NODES (1 << 16)
#define KEYLEN 48
#define WORDS 40000	/* distinct words */
#define INSERTS 150000	/* keys counted each round */
#define LOOKUPS 150000	/* keys looked up each round */
#define SORTED 4096	/* keys merge-sorted each round */

static uint64_t state = 0x243f6a8885a308d3ULL;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

struct node {
	int next;	/* the next node of the chain, -1 at its end */
	int count;
	char key[KEYLEN];
};

struct table {
	int head[BUCKETS];
	int used;
	struct node nodes[NODES];
};

static const char *const syllables[] = {
	"ka", "to", "ri", "ne", "sho", "mu", "la", "zen", "pi", "qua", "do", "er", "i", "ba",
	"tor", "sa",
};

/* Appends the word numbered id (1 to 5 syllables, the same for the same id) at dst. */
char *put_word(char *dst, uint64_t id)
{
	uint64_t r = mix(id + 1);
	int n = 1 + (int)(r % 5);

	for (int i = 0; i < n; i++) {
		const char *s = syllables[(r >> (4 + 4 * i)) & 15];

		while (*s)
			*dst++ = *s++;
	}
	*dst = 0;
	return dst;
}

/* Appends v in decimal at dst. */
char *put_num(char *dst, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*dst++ = tmp[--n];
	*dst = 0;
	return dst;
}

/* The key of word id: "word-number", with a suffix that no inserted key has when absent. */
void make_key(char *dst, uint64_t id, int absent)
{
	dst = put_word(dst, id);
	*dst++ = '-';
	dst = put_num(dst, id % 997);
	if (absent) {
		*dst++ = '.';
		*dst++ = 'x';
		*dst = 0;
	}
}

/* A word number skewed to the small ones: a few words are most of the keys. */
uint64_t pick(void)
{
	uint64_t r = next();

	return (r & 0xffff) % (1 + (r >> 16) % WORDS);
}

uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static void table_clear(struct table *t)
{
	memset(t->head, -1, sizeof(t->head));
	t->used = 0;
}

struct node *table_find(struct table *t, const char *key)
{
	for (int i = t->head[fnv1a(key) & (BUCKETS - 1)]; i >= 0; i = t->nodes[i].next)
		if (strcmp(t->nodes[i].key, key) == 0)
			return &t->nodes[i];
	return NULL;
}

/* Counts key: a new node for a key not seen before. */
void table_add(struct table *t, const char *key)
{
	int *head = &t->head[fnv1a(key) & (BUCKETS - 1)];
	struct node *n;

	for (int i = *head; i >= 0; i = t->nodes[i].next)
		if (strcmp(t->nodes[i].key, key) == 0) {
			t->nodes[i].count++;
			return;
		}
	if (t->used == NODES) {
		fprintf(stderr, "hashstr: the table is full\n");
		exit(1);
	}
	n = &t->nodes[t->used];
	n->next = *head;
	n->count = 1;
	strcpy(n->key, key);
	*head = t->used++;
}

void reverse(char *dst, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = s[n - 1 - i];
	dst[n] = 0;
}

void upper(char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
}

/* How many times needle occurs in s, overlaps counted. */
int occurrences(const char *s, const char *needle)
{
	int n = 0;

	for (; *s; s++) {
		const char *a = s, *b = needle;

		while (*b && *a == *b)
			a++, b++;
		if (!*b)
			n++;
	}
	return n;
}

uint64_t string_work(const char *key)
{
	char buf[KEYLEN];
	size_t n = strlen(key);
	uint64_t h;

	reverse(buf, key, n);
	h = fnv1a(buf);
	upper(buf);
	h = h * 31 + fnv1a(buf);
	h = h * 31 + (uint64_t)occurrences(key, "ka") + 8 * (uint64_t)occurrences(buf, "OT");
	return h;
}

void merge_sort(const char **a, const char **tmp, int n)
{
	int m = n / 2, i = 0, j = m, k = 0;

	if (n < 2)
		return;
	merge_sort(a, tmp, m);
	merge_sort(a + m, tmp, n - m);
	while (i < m && j < n)
		tmp[k++] = strcmp(a[i], a[j]) <= 0 ? a[i++] : a[j++];
	while (i < m)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

uint64_t round_of(struct table *t)
{
	static const char *keys[SORTED], *tmp[SORTED];
	char key[KEYLEN];
	uint64_t h = 0;
	int found = 0;

	table_clear(t);
	for (int i = 0; i < INSERTS; i++) {
		make_key(key, pick(), 0);
		table_add(t, key);
	}
	for (int i = 0; i < LOOKUPS; i++) {
		struct node *n;

		make_key(key, pick(), (i & 3) == 0);
		n = table_find(t, key);
		if (n) {
			found++;
			h += (uint64_t)n->count;
			if ((i & 3) == 1)
				h ^= string_work(n->key);
		}
	}
	h = h * 31 + (uint64_t)found + ((uint64_t)t->used << 32);
	for (int i = 0; i < SORTED; i++)
		keys[i] = t->nodes[next() % (uint64_t)t->used].key;
	merge_sort(keys, tmp, SORTED);
	for (int i = 0; i < SORTED; i += 64)
		h = mix(h + fnv1a(keys[i]));
	return h;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	struct table *t = malloc(sizeof(*t));
	uint64_t h = 0;

	if (!t)
		return 1;
	for (int r = 0; r < rounds; r++)
		h = mix(h ^ round_of(t));
	printf("%016llx\n", (unsigned long long)h);
	free(t);
	return 0;
}
