// SPDX-License-Identifier: MIT
/*
 * compress [ROUNDS]: an LZ77 compressor and decompressor for
 * scripts/bench/profgen-pgo.sh. Each round generates 512 KiB of text-like
 * data (words of syllables, some repeated from the last few, numbers,
 * punctuation, lines), compresses it (hash chains over a 64 KiB window,
 * greedy matches of 4 to 258 bytes, a flag byte for each 8 literals or
 * matches), decompresses it and checks the round trip. A fixed xorshift
 * sequence drives it, so every run does the same work. Prints a checksum
 * of the compressed streams.
 *
 * The hot functions are not static: clang keeps each of them, and inlines
 * it only where it judges that worth it, a judgement a profile changes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INPUT (512 * 1024)
#define WINDOW (1 << 16)
#define HASH_BITS 15
#define MIN_MATCH 4
#define MAX_MATCH (MIN_MATCH + 254)
#define CHAIN 32	/* the most candidates tried at a position */
#define VOCAB 512

static uint64_t state = 0x452821e638d01377ULL;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static const char *const syllables[] = {
	"the", "an", "or", "in", "ex", "pro", "con", "ma", "li", "ter", "ing", "ed", "s", "ly",
	"re", "de", "a", "o", "u", "st", "ch", "qu", "ion", "ent",
};

static char vocab[VOCAB][24];

static void make_vocab(void)
{
	for (int w = 0; w < VOCAB; w++) {
		int n = 1 + (int)(next() % 4);

		vocab[w][0] = 0;
		for (int i = 0; i < n; i++)
			strcat(vocab[w], syllables[next() % (sizeof(syllables) / sizeof(*syllables))]);
	}
}

/* Appends v in decimal and a space at dst: returns the length. */
size_t put_num(char *dst, unsigned v)
{
	char tmp[12];
	size_t n = 0, len;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	len = n;
	while (n)
		*dst++ = tmp[--n];
	*dst = ' ';
	return len + 1;
}

/* Appends word w and what follows it (a space, a comma or a full stop) at dst: returns the length. */
size_t put_word(char *dst, int w, unsigned r)
{
	size_t len = strlen(vocab[w]);

	memcpy(dst, vocab[w], len);
	if (r % 11 == 0)
		dst[len++] = ',';
	else if (r % 17 == 1)
		dst[len++] = '.';
	dst[len++] = ' ';
	return len;
}

/* n bytes of text: words of vocab, a third of them one of the last eight again. */
void gen_text(unsigned char *out, size_t n)
{
	int recent[8] = { 0 };
	size_t pos = 0;
	int col = 0;

	while (pos < n) {
		uint64_t r = next();
		int w = r % 3 == 0 ? recent[(r >> 8) & 7]
				   : (int)(((r >> 12) & 0xffff) % (1 + (r >> 28) % VOCAB));
		char buf[40];
		size_t len;

		recent[(r >> 4) & 7] = w;
		if ((r >> 40) % 23 == 0)
			len = put_num(buf, (unsigned)(r >> 44) % 10000);
		else
			len = put_word(buf, w, (unsigned)(r >> 50));
		col += (int)len;
		if (col > 72) {
			buf[len - 1] = '\n';
			col = 0;
		}
		if (len > n - pos)
			len = n - pos;
		memcpy(out + pos, buf, len);
		pos += len;
	}
}

struct lz {
	int32_t head[1 << HASH_BITS];	/* the last position of each hash, -1 for none */
	int32_t prev[WINDOW];	/* the position before, of the same hash */
};

static uint32_t hash4(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return (v * 2654435761u) >> (32 - HASH_BITS);
}

void insert(struct lz *lz, const unsigned char *in, int32_t pos)
{
	uint32_t h = hash4(in + pos);

	lz->prev[pos & (WINDOW - 1)] = lz->head[h];
	lz->head[h] = pos;
}

/* The length of the longest match for in[pos..] in the window, its distance in *dist. */
int longest_match(const struct lz *lz, const unsigned char *in, int32_t pos, int32_t end,
		  int *dist)
{
	int32_t cand = lz->head[hash4(in + pos)];
	int max = end - pos < MAX_MATCH ? end - pos : MAX_MATCH;
	int best = 0;

	for (int tries = 0; cand >= 0 && pos - cand < WINDOW && tries < CHAIN; tries++) {
		if (in[cand + best] == in[pos + best]) {
			int len = 0;

			while (len < max && in[cand + len] == in[pos + len])
				len++;
			if (len > best) {
				best = len;
				*dist = pos - cand;
				if (len == max)
					break;
			}
		}
		cand = lz->prev[cand & (WINDOW - 1)];
	}
	return best;
}

struct writer {
	unsigned char *out;
	size_t pos, flag_at;	/* where the next byte goes; the flag byte of this group */
	int items;	/* in this group of 8 */
};

static void begin_item(struct writer *w, int is_match)
{
	if (w->items == 8) {
		w->flag_at = w->pos++;
		w->out[w->flag_at] = 0;
		w->items = 0;
	}
	if (is_match)
		w->out[w->flag_at] |= (unsigned char)(1 << w->items);
	w->items++;
}

void put_literal(struct writer *w, unsigned char c)
{
	begin_item(w, 0);
	w->out[w->pos++] = c;
}

void put_match(struct writer *w, int dist, int len)
{
	begin_item(w, 1);
	w->out[w->pos++] = (unsigned char)(dist & 0xff);
	w->out[w->pos++] = (unsigned char)(dist >> 8);
	w->out[w->pos++] = (unsigned char)(len - MIN_MATCH);
}

/* Compresses n bytes of in into out (room for n + n / 8 + 1 bytes): returns the length. */
size_t compress(struct lz *lz, const unsigned char *in, int32_t n, unsigned char *out)
{
	struct writer w = { out, 0, 0, 8 };
	int32_t pos = 0;

	memset(lz->head, -1, sizeof(lz->head));
	while (pos < n) {
		int dist = 0, len = 0;

		if (n - pos >= MIN_MATCH) {
			len = longest_match(lz, in, pos, n, &dist);
			insert(lz, in, pos);
		}
		if (len >= MIN_MATCH) {
			put_match(&w, dist, len);
			for (int32_t end = pos + len; ++pos < end;)
				if (n - pos >= MIN_MATCH)
					insert(lz, in, pos);
		} else {
			put_literal(&w, in[pos++]);
		}
	}
	return w.pos;
}

/* Decompresses in (m bytes) into out (room for cap bytes): returns the length, or -1. */
long decompress(const unsigned char *in, size_t m, unsigned char *out, size_t cap)
{
	size_t ip = 0, op = 0;

	while (ip < m) {
		unsigned flags = in[ip++];

		for (int i = 0; i < 8 && ip < m; i++) {
			if (flags & (1u << i)) {
				size_t dist, len;

				if (m - ip < 3)
					return -1;
				dist = in[ip] | (size_t)in[ip + 1] << 8;
				len = (size_t)in[ip + 2] + MIN_MATCH;
				ip += 3;
				if (dist == 0 || dist > op || len > cap - op)
					return -1;
				for (size_t k = 0; k < len; k++, op++)
					out[op] = out[op - dist];
			} else {
				if (op == cap)
					return -1;
				out[op++] = in[ip++];
			}
		}
	}
	return (long)op;
}

uint64_t fnv1a64(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 44;
	unsigned char *in = malloc(INPUT), *packed = malloc(INPUT + INPUT / 8 + 1);
	unsigned char *back = malloc(INPUT);
	struct lz *lz = malloc(sizeof(*lz));
	uint64_t h = 0;
	size_t total = 0;

	if (!in || !packed || !back || !lz)
		return 1;
	make_vocab();
	for (int r = 0; r < rounds; r++) {
		size_t m;

		gen_text(in, INPUT);
		m = compress(lz, in, INPUT, packed);
		if (decompress(packed, m, back, INPUT) != INPUT || memcmp(in, back, INPUT) != 0) {
			fprintf(stderr, "compress: round %d does not round-trip\n", r);
			return 1;
		}
		total += m;
		h = (h ^ fnv1a64(packed, m)) * 0x100000001b3ULL;
	}
	printf("%zu %016llx\n", total, (unsigned long long)h);
	free(in);
	free(packed);
	free(back);
	free(lz);
	return 0;
}
