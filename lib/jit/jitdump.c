// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/jitdump.h"
#include "perf/cursor.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/input.h"

#define PREFIX ((uint32_t)sizeof(struct jitdump_prefix))	/* every record begins with one */
/* the most warnings kept per dump; more are counted in the last one */
#define MAX_WARNINGS 20

/* The skew some producers add to line addresses (the old perf's ELF header size). */
#define LINE_SKEW 0x40

struct pending_lines {
	uint64_t code_addr;
	struct jitdump_line *lines;
	size_t nr;
};

/* the DEBUG_INFOs waiting for their CODE_LOADs, at most (then the oldest goes, warned) */
#define MAX_PENDING_LINES 256

/* The latest CODE_LOAD of a code index or an address: its place in d->codes. */
struct latest {
	uint64_t key;
	size_t at;
};

struct parser {
	struct jitdump *d;
	bool swap;
	struct pending_lines *pend;	/* DEBUG_INFO waiting for its CODE_LOAD */
	size_t nr_pend, cap_pend;
	bool warned_pending;
	/* struct latest: by code index (what a CODE_MOVE names), by address (DEBUG_INFO) */
	struct hashmap by_index, by_addr;
	size_t cap_codes;
	/* the UNWINDING_INFO waiting for the next CODE_LOAD */
	const uint8_t *eh_frame, *eh_frame_hdr;
	size_t eh_frame_size, eh_frame_hdr_size;
	size_t warnings_dropped;
	bool debug_before;	/* DEBUG_INFO came before its CODE_LOAD (perf's order) */
};

static int warn(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int warn(struct parser *ps, const char *fmt, ...)
{
	struct jitdump *d = ps->d;
	char **w;
	va_list ap;
	char *s;

	if (d->nr_warnings >= MAX_WARNINGS) {
		ps->warnings_dropped++;
		return 0;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return -ENOMEM;
	w = realloc(d->warnings, (d->nr_warnings + 1) * sizeof(*w));
	if (!w) {
		free(s);
		return -ENOMEM;
	}
	d->warnings = w;
	w[d->nr_warnings++] = s;
	return 0;
}

int jitdump_name_pid(const char *path, uint32_t *pid)
{
	const char *base = strrchr(path, '/');
	unsigned long v;
	char *end;

	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4) || base[4] < '0' || base[4] > '9')
		return 0;
	errno = 0;
	v = strtoul(base + 4, &end, 10);
	if (errno || v > UINT32_MAX || strcmp(end, ".dump"))
		return 0;
	*pid = v;
	return 1;
}

static struct jitdump_code *new_code(struct parser *ps)
{
	struct jitdump *d = ps->d;

	if (d->nr_codes == ps->cap_codes) {
		size_t cap = ps->cap_codes ? ps->cap_codes * 2 : 64;
		struct jitdump_code *c = realloc(d->codes, cap * sizeof(*c));

		if (!c)
			return NULL;
		d->codes = c;
		ps->cap_codes = cap;
	}
	memset(&d->codes[d->nr_codes], 0, sizeof(d->codes[0]));
	return &d->codes[d->nr_codes++];
}

static int cmp_line(const void *a, const void *b)
{
	const struct jitdump_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void attach_lines(struct jitdump_code *c, struct jitdump_line *lines, size_t nr)
{
	free(c->lines);
	c->lines = lines;
	c->nr_lines = nr;
}

static bool latest_is(const void *entry, const void *key)
{
	return ((const struct latest *)entry)->key == *(const uint64_t *)key;
}

/* The place in d->codes of the latest load under key in m, or (size_t)-1. */
static size_t latest_get(const struct hashmap *m, uint64_t key)
{
	const struct latest *l = hashmap_get(m, hash_u64(key), latest_is, &key);

	return l ? l->at : (size_t)-1;
}

/* The load at place at is now the latest under key in m; 0 or -ENOMEM. */
static int latest_set(struct hashmap *m, uint64_t key, size_t at)
{
	struct latest *l = hashmap_get(m, hash_u64(key), latest_is, &key);

	if (l) {
		l->at = at;
		return 0;
	}
	l = malloc(sizeof(*l));
	if (!l)
		return -ENOMEM;
	*l = (struct latest){ key, at };
	if (hashmap_put(m, hash_u64(key), l)) {
		free(l);
		return -ENOMEM;
	}
	return 0;
}

static void latest_release(struct hashmap *m)
{
	void *l;

	for (size_t i = 0; (l = hashmap_next(m, &i));)
		free(l);
	hashmap_release(m);
}

/* The latest load at code_addr when it has no lines yet, or NULL. */
static struct jitdump_code *load_at(struct parser *ps, uint64_t code_addr)
{
	size_t at = latest_get(&ps->by_addr, code_addr);

	if (at == (size_t)-1 || ps->d->codes[at].lines)
		return NULL;
	return &ps->d->codes[at];
}

static int parse_load(struct parser *ps, struct cursor *c, uint64_t time, size_t off)
{
	struct jitdump *d = ps->d;
	uint64_t vma, code_addr, code_size, index;
	uint32_t pid, tid;
	struct jitdump_code *code;
	const char *name;
	const uint8_t *nul;

	if (cur_u32x2(c, &pid, &tid, ps->swap) || cur_u64(c, &vma, ps->swap) ||
	    cur_u64(c, &code_addr, ps->swap) || cur_u64(c, &code_size, ps->swap) ||
	    cur_u64(c, &index, ps->swap))
		return warn(ps, "%s: CODE_LOAD at offset %zu is truncated", d->path, off) ?: 1;
	name = (const char *)c->p;
	nul = c->p < c->end ? memchr(c->p, 0, c->end - c->p) : NULL;
	/* the code is the record's last code_size bytes, as perf reads it */
	if (!nul || code_size > (uint64_t)(c->end - nul - 1))
		return warn(ps, "%s: CODE_LOAD at offset %zu: its name or code runs past the "
			    "record", d->path, off) ?: 1;
	if (code_addr + code_size < code_addr)
		return warn(ps, "%s: CODE_LOAD at offset %zu: code at %#" PRIx64 " of %" PRIu64
			    " bytes wraps around", d->path, off, code_addr, code_size) ?: 1;
	code = new_code(ps);
	if (!code)
		return -ENOMEM;
	code->time = time;
	code->pid = pid;
	code->tid = tid;
	code->addr = code_addr;
	code->size = code_size;
	code->index = index;
	code->name = name;
	code->bytes = c->end - code_size;
	d->nr_loads++;
	if (latest_set(&ps->by_index, index, d->nr_codes - 1) ||
	    latest_set(&ps->by_addr, code_addr, d->nr_codes - 1))
		return -ENOMEM;
	/* the DEBUG_INFO written before it for its address (perf: the last one) */
	if (ps->nr_pend) {
		size_t i = ps->nr_pend;

		while (i-- > 0 && ps->pend[i].code_addr != code_addr)
			;
		/* none names this address: perf's pairing, the last one */
		if (i == (size_t)-1)
			i = ps->nr_pend - 1;
		attach_lines(code, ps->pend[i].lines, ps->pend[i].nr);
		memmove(&ps->pend[i], &ps->pend[i + 1], (ps->nr_pend - i - 1) * sizeof(ps->pend[0]));
		ps->nr_pend--;
		ps->debug_before = true;
	}
	if (ps->eh_frame_size || ps->eh_frame_hdr_size) {
		code->eh_frame = ps->eh_frame;
		code->eh_frame_size = ps->eh_frame_size;
		code->eh_frame_hdr = ps->eh_frame_hdr;
		code->eh_frame_hdr_size = ps->eh_frame_hdr_size;
		ps->eh_frame_size = ps->eh_frame_hdr_size = 0;
	}
	return 0;
}

static int parse_move(struct parser *ps, struct cursor *c, uint64_t time, size_t off)
{
	struct jitdump *d = ps->d;
	uint64_t vma, old_addr, new_addr, size, index;
	uint32_t pid, tid;
	struct jitdump_code *code;
	size_t load;

	if (cur_u32x2(c, &pid, &tid, ps->swap) || cur_u64(c, &vma, ps->swap) ||
	    cur_u64(c, &old_addr, ps->swap) || cur_u64(c, &new_addr, ps->swap) ||
	    cur_u64(c, &size, ps->swap) || cur_u64(c, &index, ps->swap))
		return warn(ps, "%s: CODE_MOVE at offset %zu is truncated", d->path, off) ?: 1;
	load = latest_get(&ps->by_index, index);
	if (load == (size_t)-1)
		return warn(ps, "%s: CODE_MOVE at offset %zu moves code index %" PRIu64
			    ", which no CODE_LOAD before it has; skipped", d->path, off, index);
	if (new_addr + size < new_addr)
		return warn(ps, "%s: CODE_MOVE at offset %zu wraps around; skipped", d->path, off);
	code = new_code(ps);
	if (!code)
		return -ENOMEM;
	code->move = true;
	code->time = time;
	code->pid = pid;
	code->tid = tid;
	code->addr = new_addr;
	/* the name and size cannot change (spec §VI): the load's bytes */
	code->size = d->codes[load].size;
	code->index = index;
	code->load = load;
	code->name = d->codes[load].name;
	d->nr_moves++;
	return 0;
}

static int parse_debug(struct parser *ps, struct cursor *c, size_t off)
{
	struct jitdump *d = ps->d;
	uint64_t code_addr, nr;
	struct jitdump_line *lines;
	const char *prev = NULL;
	struct jitdump_code *load;
	size_t n = 0;

	if (cur_u64(c, &code_addr, ps->swap) || cur_u64(c, &nr, ps->swap))
		return warn(ps, "%s: DEBUG_INFO at offset %zu is truncated", d->path, off) ?: 1;
	/* each entry takes at least its fixed part and a NUL */
	if (nr > (uint64_t)(c->end - c->p) / (sizeof(struct jitdump_debug_entry) + 1))
		return warn(ps, "%s: DEBUG_INFO at offset %zu: %" PRIu64 " entries do not fit "
			    "in the record", d->path, off, nr) ?: 1;
	lines = calloc(nr ? nr : 1, sizeof(*lines));
	if (!lines)
		return -ENOMEM;
	for (; n < nr; n++) {
		uint32_t line = 0, discrim = 0;
		const char *file;
		const uint8_t *nul;

		if (cur_u64(c, &lines[n].addr, ps->swap) || cur_u32x2(c, &line, &discrim, ps->swap))
			break;
		file = (const char *)c->p;
		nul = c->p < c->end ? memchr(c->p, 0, c->end - c->p) : NULL;
		if (!nul)
			break;
		c->p = (uint8_t *)nul + 1;
		/* "\xff": the same file as the entry before */
		if ((uint8_t)file[0] == 0xff && !file[1])
			file = prev ? prev : "";
		lines[n].file = prev = file;
		lines[n].line = line;
		lines[n].column = discrim;
	}
	if (n < nr) {
		free(lines);
		return warn(ps, "%s: DEBUG_INFO at offset %zu: entry %zu runs past the record",
			    d->path, off, n) ?: 1;
	}
	d->nr_debug++;
	qsort(lines, n, sizeof(*lines), cmp_line);
	/* after its load (LLVM's JITLink writes it so), or before the next one */
	load = ps->debug_before ? NULL : load_at(ps, code_addr);
	if (load) {
		attach_lines(load, lines, n);
		return 0;
	}
	if (ps->nr_pend == MAX_PENDING_LINES) {
		/* no producer writes many ahead of their loads: the oldest's lines go */
		if (!ps->warned_pending) {
			ps->warned_pending = true;
			if (warn(ps, "%s: more than %d DEBUG_INFO records before their CODE_LOADs; "
				 "the oldest ones' lines are dropped", d->path, MAX_PENDING_LINES)) {
				free(lines);
				return -ENOMEM;
			}
		}
		free(ps->pend[0].lines);
		memmove(&ps->pend[0], &ps->pend[1], (ps->nr_pend - 1) * sizeof(ps->pend[0]));
		ps->nr_pend--;
	}
	if (ps->nr_pend == ps->cap_pend) {
		size_t cap = ps->cap_pend ? ps->cap_pend * 2 : 8;
		struct pending_lines *p = realloc(ps->pend, cap * sizeof(*p));

		if (!p) {
			free(lines);
			return -ENOMEM;
		}
		ps->pend = p;
		ps->cap_pend = cap;
	}
	ps->pend[ps->nr_pend++] = (struct pending_lines){ code_addr, lines, n };
	return 0;
}

static int parse_unwind(struct parser *ps, struct cursor *c, size_t off)
{
	struct jitdump *d = ps->d;
	uint64_t size, hdr_size, mapped;

	if (cur_u64(c, &size, ps->swap) || cur_u64(c, &hdr_size, ps->swap) ||
	    cur_u64(c, &mapped, ps->swap))
		return warn(ps, "%s: UNWINDING_INFO at offset %zu is truncated", d->path, off) ?: 1;
	if (size > (uint64_t)(c->end - c->p) || hdr_size > size)
		return warn(ps, "%s: UNWINDING_INFO at offset %zu: %" PRIu64 " bytes of unwind "
			    "data do not fit in the record", d->path, off, size) ?: 1;
	d->nr_unwind++;
	/* .eh_frame first, then .eh_frame_hdr, as perf and the producers lay them out */
	ps->eh_frame = c->p;
	ps->eh_frame_size = size - hdr_size;
	ps->eh_frame_hdr = c->p + size - hdr_size;
	ps->eh_frame_hdr_size = hdr_size;
	return 0;
}

/*
 * Line addresses skewed by +0x40: V8 and LLVM add the size of an ELF header
 * for perf before 2020. Decided for the whole dump: every entry fits in its
 * code once 0x40 is taken off, and some entry does not fit without that.
 */
static void fix_skew(struct jitdump *d)
{
	bool outside = false;

	for (size_t i = 0; i < d->nr_codes; i++) {
		struct jitdump_code *c = &d->codes[i];

		for (size_t k = 0; k < c->nr_lines; k++) {
			uint64_t a = c->lines[k].addr;

			if (a < c->addr + LINE_SKEW || a - LINE_SKEW > c->addr + c->size)
				return;
			if (a >= c->addr + c->size)
				outside = true;
		}
	}
	if (!outside)
		return;
	d->line_skew = true;
	for (size_t i = 0; i < d->nr_codes; i++)
		for (size_t k = 0; k < d->codes[i].nr_lines; k++)
			d->codes[i].lines[k].addr -= LINE_SKEW;
}

static int parse_header(struct parser *ps, struct cursor *c)
{
	struct jitdump *d = ps->d;
	uint32_t magic, total = 0, pad;

	memcpy(&magic, c->p, 4);
	if (magic == JITDUMP_MAGIC_SWAPPED)
		ps->swap = d->swapped = true;
	else if (magic != JITDUMP_MAGIC)
		return sbx_error(-EINVAL, "%s: not a jitdump (bad magic)", d->path);
	c->p += 4;
	cur_u32x2(c, &d->version, &total, ps->swap);
	cur_u32x2(c, &d->elf_mach, &pad, ps->swap);
	cur_u32(c, &d->pid, ps->swap);
	cur_u64(c, &d->timestamp, ps->swap);
	cur_u64(c, &d->flags, ps->swap);
	if (total < JITDUMP_HEADER_SIZE)
		return sbx_error(-EINVAL, "%s: jitdump header size %u is below %u", d->path, total,
				 JITDUMP_HEADER_SIZE);
	if (total > (size_t)(c->end - c->p) + JITDUMP_HEADER_SIZE)
		return sbx_error(-EINVAL, "%s: jitdump header size %u runs past the file", d->path,
				 total);
	c->p += total - JITDUMP_HEADER_SIZE;
	if (d->version > 1 &&
	    warn(ps, "%s: jitdump version %u (this reader knows 1); read as version 1", d->path,
		 d->version))
		return -ENOMEM;
	d->flags_unknown = d->flags & ~JITDUMP_FLAGS_ARCH_TIMESTAMP;
	if (d->flags_unknown &&
	    warn(ps, "%s: unknown header flags %#" PRIx64 " ignored (an uninitialized field, as "
		 "LLVM 19 writes it?)", d->path, d->flags_unknown))
		return -ENOMEM;
	return 0;
}

/* Parse the len bytes of buf (malloc'ed; taken over, freed on failure). */
static int parse_owned(uint8_t *buf, size_t len, const char *name, struct jitdump **out)
{
	struct parser ps = { 0 };
	struct jitdump *d;
	struct cursor c;
	int err = -ENOMEM;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(name))) {
		free(buf);
		jitdump_free(d);
		return sbx_error(-ENOMEM, "out of memory");
	}
	d->buf = buf;
	d->len = len;
	ps.d = d;
	if (len < JITDUMP_HEADER_SIZE) {
		err = sbx_error(-EINVAL, "%s: %zu bytes, shorter than a jitdump header", name, len);
		goto fail;
	}
	c = (struct cursor){ d->buf, d->buf + len };
	err = parse_header(&ps, &c);
	if (err)
		goto fail;
	while (c.p < c.end && !d->closed) {
		size_t off = c.p - d->buf;
		uint32_t id, size;
		uint64_t time;
		struct cursor body;
		int r = 0;

		if (cur_u32x2(&c, &id, &size, ps.swap) || cur_u64(&c, &time, ps.swap)) {
			r = warn(&ps, "%s: the dump ends inside the record prefix at offset %zu "
				 "(still being written?)", name, off) ?: 1;
			break;
		}
		if (size < PREFIX || size - PREFIX > (size_t)(c.end - c.p)) {
			r = warn(&ps, "%s: record at offset %zu has size %u, %s", name, off, size,
				 size < PREFIX ? "below its prefix" :
				 "past the end of the dump (truncated?)") ?: 1;
			break;
		}
		body = (struct cursor){ c.p, c.p + size - PREFIX };
		c.p += size - PREFIX;
		switch (id) {
		case JIT_CODE_LOAD:
			r = parse_load(&ps, &body, time, off);
			break;
		case JIT_CODE_MOVE:
			r = parse_move(&ps, &body, time, off);
			break;
		case JIT_CODE_DEBUG_INFO:
			r = parse_debug(&ps, &body, off);
			break;
		case JIT_CODE_UNWINDING_INFO:
			r = parse_unwind(&ps, &body, off);
			break;
		case JIT_CODE_CLOSE:
			d->closed = true;
			break;
		default:
			d->nr_unknown++;
			break;
		}
		if (r < 0) {
			err = sbx_error(r, "out of memory");
			goto fail;
		}
		if (r > 0)	/* a corrupt record ends the dump */
			break;
	}
	if (d->nr_unknown &&
	    warn(&ps, "%s: %zu records of unknown type skipped", name, d->nr_unknown))
		goto nomem;
	for (size_t i = 0; i < ps.nr_pend; i++) {
		struct jitdump_code *load = load_at(&ps, ps.pend[i].code_addr);

		if (load) {
			attach_lines(load, ps.pend[i].lines, ps.pend[i].nr);
			ps.pend[i].lines = NULL;
		}
	}
	for (size_t i = 0; i < ps.nr_pend; i++)
		free(ps.pend[i].lines);
	free(ps.pend);
	ps.pend = NULL;
	ps.nr_pend = 0;
	latest_release(&ps.by_index);
	latest_release(&ps.by_addr);
	fix_skew(d);
	if (ps.warnings_dropped && warn(&ps, "%s: %zu more warnings", name, ps.warnings_dropped))
		goto nomem;
	*out = d;
	return 0;
nomem:
	err = sbx_error(-ENOMEM, "out of memory");
fail:
	for (size_t i = 0; i < ps.nr_pend; i++)
		free(ps.pend[i].lines);
	free(ps.pend);
	latest_release(&ps.by_index);
	latest_release(&ps.by_addr);
	jitdump_free(d);
	return err;
}

int jitdump_parse(const void *buf, size_t len, const char *name, struct jitdump **out)
{
	uint8_t *copy = malloc(len ? len : 1);

	*out = NULL;
	if (!copy)
		return sbx_error(-ENOMEM, "out of memory");
	memcpy(copy, buf, len);
	return parse_owned(copy, len, name, out);
}

int jitdump_open(const char *path, struct jitdump **out)
{
	uint8_t *buf;
	size_t len;
	int err;

	*out = NULL;
	/* written by the JIT's user, in a folder of theirs (or /tmp): no link, no FIFO */
	err = input_read(path, INPUT_NOFOLLOW, JITDUMP_MAX_SIZE, &buf, &len);
	if (err)
		return err;
	return parse_owned(buf, len, path, out);
}

void jitdump_free(struct jitdump *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr_codes; i++)
		free(d->codes[i].lines);
	for (size_t i = 0; i < d->nr_warnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	free(d->codes);
	free(d->buf);
	free(d->path);
	free(d);
}
