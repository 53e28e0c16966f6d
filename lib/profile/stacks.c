// SPDX-License-Identifier: MIT
/* Stacks of samples: folded lines and SVG flame graphs (see stacks.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perf/records.h"
#include "profile/stacks.h"
#include "symbol/dso.h"
#include "util/error.h"
#include "util/bytes.h"
#include "util/hashmap.h"

/* One unique stack: "comm;outer;…;leaf". */
struct stack {
	uint64_t n;
	size_t len;
	char key[];
};

/* The DSO of a frame name, for the flame graph's titles (the first one seen). */
struct frame_dso {
	char *dso;
	char name[];
};

struct stacks {
	struct hashmap map;	/* struct stack */
	struct hashmap dsos;	/* struct frame_dso */
	uint64_t samples;
	struct bytes key;	/* the key being built */
	struct { const char *sym, *dso; } *frames;	/* a sample's, leaf first */
	size_t nr_frames, cap_frames;
};

struct stacks *stacks_new(void)
{
	return calloc(1, sizeof(struct stacks));
}

void stacks_free(struct stacks *st)
{
	void *e;

	if (!st)
		return;
	for (size_t i = 0; (e = hashmap_next(&st->map, &i));)
		free(e);
	for (size_t i = 0; (e = hashmap_next(&st->dsos, &i));) {
		free(((struct frame_dso *)e)->dso);
		free(e);
	}
	hashmap_release(&st->map);
	hashmap_release(&st->dsos);
	free(st->key.p);
	free(st->frames);
	free(st);
}

uint64_t stacks_samples(const struct stacks *st)
{
	return st->samples;
}

size_t stacks_nr(const struct stacks *st)
{
	return hashmap_nr(&st->map);
}

/* ------------------------------------------------------------------ keys */

/*
 * Append a frame name as the folded format has it: C++ argument lists cut
 * off (but "(anonymous namespace)" kept), ';' made ':'. For the comm
 * (is_comm), spaces made '_' instead.
 */
static void append_name(struct stacks *st, const char *name, bool is_comm)
{
	static const char anon[] = "(anonymous namespace)";
	struct bytes *b = &st->key;

	if (b->len)
		bytes_put_u8(b, ';');
	for (size_t i = 0; name[i]; i++) {
		char c = name[i];

		if (!is_comm && c == '(' && i > 0) {
			if (!strncmp(name + i, anon, sizeof(anon) - 1)) {
				bytes_put(b, anon, sizeof(anon) - 1);
				i += sizeof(anon) - 2;
				continue;
			}
			break;
		}
		/* quotes are dropped from names (they would end an SVG attribute) */
		if (!is_comm && (c == '"' || c == '\''))
			continue;
		bytes_put_u8(b, c == ';' ? ':' : is_comm && c == ' ' ? '_' : c);
	}
}

/* A frame without a symbol: "[base name of the DSO]", or "[unknown]". */
static void append_unknown(struct stacks *st, const char *dso)
{
	const char *base = dso ? strrchr(dso, '/') : NULL;
	char b[512];

	/* as stackcollapse-perf has it: [kernel.kallsyms] becomes [[kernel.kallsyms]] */
	base = base ? base + 1 : dso;
	snprintf(b, sizeof(b), "[%s]", base && *base ? base : "unknown");
	append_name(st, b, true);
}

static bool stack_is(const void *entry, const void *key)
{
	return !strcmp(((const struct stack *)entry)->key, key);
}

/* A frame name: len bytes at p, not NUL-terminated in the key being built. */
struct name_ref {
	const char *p;
	size_t len;
};

static bool frame_is(const void *entry, const void *key)
{
	const struct frame_dso *f = entry;
	const struct name_ref *r = key;

	return !strncmp(f->name, r->p, r->len) && !f->name[r->len];
}

/* The DSO of a frame name, or NULL. */
static const struct frame_dso *frame_dso(const struct stacks *st, const char *name)
{
	struct name_ref r = { name, strlen(name) };

	return hashmap_get(&st->dsos, hash_bytes(r.p, r.len), frame_is, &r);
}

/* Remember the DSO of the frame name at key[from..] (the first one seen). */
static int note_dso(struct stacks *st, size_t from, const char *dso)
{
	struct name_ref r = { (const char *)st->key.p + from + (from > 0), 0 };
	uint64_t h;
	struct frame_dso *f;

	if (!dso || st->key.failed)
		return 0;
	r.len = st->key.len - from - (from > 0);
	h = hash_bytes(r.p, r.len);
	if (hashmap_get(&st->dsos, h, frame_is, &r))
		return 0;
	f = malloc(sizeof(*f) + r.len + 1);
	if (!f || !(f->dso = strdup(dso))) {
		free(f);
		return -ENOMEM;
	}
	memcpy(f->name, r.p, r.len);
	f->name[r.len] = 0;
	if (hashmap_put(&st->dsos, h, f)) {
		free(f->dso);
		free(f);
		return -ENOMEM;
	}
	return 0;
}

/* One frame of the sample being counted, as resolved; name: its function's (NULL: none). */
static int add_frame(struct stacks *st, const struct addr_location *al, const char *name)
{
	if (st->nr_frames == st->cap_frames) {
		size_t cap = st->cap_frames ? 2 * st->cap_frames : 64;
		void *v = realloc(st->frames, cap * sizeof(*st->frames));

		if (!v)
			return -ENOMEM;
		st->frames = v;
		st->cap_frames = cap;
	}
	st->frames[st->nr_frames].sym = name;
	st->frames[st->nr_frames].dso = al->dso ? al->dso->shown_path : NULL;
	st->nr_frames++;
	return 0;
}

int stacks_add_sample(struct stacks *st, struct machine *m, const struct perf_sample *s,
		      const struct chain_frame *frames, size_t nr, bool demangle)
{
	const char *comm;
	struct addr_location al;
	struct stack *e;
	uint64_t h;
	int err = 0;

	/* the frames, leaf first */
	st->nr_frames = 0;
	for (size_t i = 0; i < nr && !err; i++)
		err = add_frame(st, &frames[i].al, chain_frame_function(&frames[i], demangle));
	if (!err && !s->callchain && !nr) {
		machine_resolve(m, s->pid, s->tid, s->cpumode, s->ip, &al);
		err = add_frame(st, &al, !al.sym ? NULL : al.dso ?
				dso_symbol_name(al.dso, al.sym, demangle) : al.sym->name);
	}
	/* the key: the thread's name as samples show it, then the frames from the outermost */
	comm = machine_thread_name(m, s->tid);
	if (err || !comm)
		return sbx_error(-ENOMEM, "out of memory");
	st->key.len = 0;
	append_name(st, comm, true);
	for (size_t i = st->nr_frames; i-- > 0 && !err;) {
		size_t from = st->key.len;

		if (st->frames[i].sym)
			append_name(st, st->frames[i].sym, false);
		else
			append_unknown(st, st->frames[i].dso);
		err = note_dso(st, from, st->frames[i].dso);
	}
	bytes_put_u8(&st->key, 0);
	if (err || st->key.failed)
		return sbx_error(-ENOMEM, "out of memory");
	st->key.len--;
	h = hash_str((const char *)st->key.p);
	e = hashmap_get(&st->map, h, stack_is, st->key.p);
	if (!e) {
		e = malloc(sizeof(*e) + st->key.len + 1);
		if (!e)
			return sbx_error(-ENOMEM, "out of memory");
		e->n = 0;
		e->len = st->key.len;
		memcpy(e->key, st->key.p, st->key.len + 1);
		if (hashmap_put(&st->map, h, e)) {
			free(e);
			return sbx_error(-ENOMEM, "out of memory");
		}
	}
	e->n++;
	st->samples++;
	return 0;
}

/* -------------------------------------------------------------- sorting */

/* Frame by frame: ';' sorts before every character, so a stack's callees stay together. */
static int cmp_key(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned x = *a == ';' ? 1 : *a ? (unsigned char)*a + 1u : 0;
		unsigned y = *b == ';' ? 1 : *b ? (unsigned char)*b + 1u : 0;

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			return 0;
	}
}

static int cmp_stack(const void *a, const void *b)
{
	return cmp_key((*(struct stack *const *)a)->key, (*(struct stack *const *)b)->key);
}

static struct stack **sorted(struct stacks *st)
{
	size_t nr = hashmap_nr(&st->map), k = 0;
	struct stack **v = malloc((nr ? nr : 1) * sizeof(*v));
	struct stack *e;

	if (!v)
		return NULL;
	for (size_t i = 0; (e = hashmap_next(&st->map, &i));)
		v[k++] = e;
	qsort(v, nr, sizeof(*v), cmp_stack);
	return v;
}

int stacks_write_folded(struct stacks *st, FILE *f)
{
	struct stack **v = sorted(st);

	if (!v)
		return sbx_error(-ENOMEM, "out of memory");
	for (size_t i = 0; i < hashmap_nr(&st->map); i++)
		fprintf(f, "%s %" PRIu64 "\n", v[i]->key, v[i]->n);
	free(v);
	return ferror(f) ? sbx_error(-EIO, "cannot write the folded stacks") : 0;
}

/* ------------------------------------------------------------------ SVG */

#define SVG_WIDTH	1200
#define SVG_PAD		10
#define FRAME_H		16
#define TOP		48	/* title, search, details */
#define BOTTOM		24
#define CHAR_W		7.0	/* of the 12 px sans-serif font, about */

/* The length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] < 0x80)
		return 1;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void xml_text(FILE *f, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		size_t u = utf8_len((const unsigned char *)s + i);

		if (u > 1) {
			/* a whole character; anything else is not XML text */
			fwrite(s + i, 1, u, f);
			i += u - 1;
			continue;
		}
		if (!u) {
			fputc('?', f);
			continue;
		}
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* control characters are not XML */
			fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], f);
		}
	}
}

/* A warm colour from the name: the same frame, the same colour, in every graph. */
static void color(const char *name, unsigned *r, unsigned *g, unsigned *b)
{
	uint64_t h = hash_str(name);

	*r = 205 + (unsigned)(h % 51);
	*g = (unsigned)((h >> 8) % 231);
	*b = (unsigned)((h >> 16) % 56);
}

struct svg {
	FILE *f;
	struct stacks *st;
	uint64_t total;
	double scale;		/* px per sample */
	int height;
};

/* One frame: [x, x + w) samples at depth d (0: "all"); name is NUL-terminated. */
static void frame(struct svg *o, const char *name, size_t depth, uint64_t x, uint64_t w)
{
	const struct frame_dso *fd = depth > 1 ? frame_dso(o->st, name) : NULL;
	double px = SVG_PAD + x * o->scale, pw = w * o->scale;
	int y = o->height - BOTTOM - (int)(depth + 1) * FRAME_H;
	unsigned r, g, b;
	size_t fit = pw > 2 * CHAR_W ? (size_t)(pw / CHAR_W) : 0;

	color(name, &r, &g, &b);
	fprintf(o->f, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" "
		"data-d=\"%zu\"><title>", x, w, depth);
	xml_text(o->f, name, SIZE_MAX);
	if (fd) {
		fputs(" (", o->f);
		xml_text(o->f, fd->dso, SIZE_MAX);
		fputs(")", o->f);
	}
	fprintf(o->f, ": %" PRIu64 " samples, %.2f%%</title>"
		"<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
		"fill=\"rgb(%u,%u,%u)\" rx=\"2\"/><text x=\"%.2f\" y=\"%d\">", w,
		o->total ? 100.0 * w / o->total : 0.0, px, y, pw, FRAME_H - 1, r, g, b,
		px + 3, y + FRAME_H - 4);
	if (fit) {
		size_t n = strlen(name);

		if (n <= fit) {
			xml_text(o->f, name, n);
		} else if (fit > 2) {
			xml_text(o->f, name, fit - 2);
			fputs("..", o->f);
		}
	}
	fputs("</text></g>\n", o->f);
}

static const char svg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var W = %d, P = %d, F = [].slice.call(document.querySelectorAll('g.f'));\n"
	"function n(e, a) { return +e.getAttribute('data-' + a); }\n"
	"function place(e, x, w) {\n"
	"  var r = e.querySelector('rect'), t = e.querySelector('text'), px = W - 2 * P;\n"
	"  r.setAttribute('x', P + x * px); r.setAttribute('width', w * px);\n"
	"  t.setAttribute('x', P + x * px + 3);\n"
	"  var name = e.querySelector('title').textContent.replace(/( \\(.*\\))?: [0-9]+ samples.*$/, '');\n"
	"  var fit = Math.floor(w * px / 7);\n"
	"  t.textContent = fit < 3 ? '' : name.length <= fit ? name : name.slice(0, fit - 2) + '..';\n"
	"}\n"
	"function zoom(g) {\n"
	"  var x = n(g, 'x'), w = n(g, 'w'), d = n(g, 'd'), total = n(F[F.length - 1], 'w');\n"
	"  F.forEach(function (e) {\n"
	"    var ex = n(e, 'x'), ew = n(e, 'w'), ed = n(e, 'd');\n"
	"    var inside = ex >= x && ex + ew <= x + w, above = ed < d && ex <= x && ex + ew >= x + w;\n"
	"    e.style.display = inside || above ? '' : 'none';\n"
	"    if (above) place(e, 0, 1); else if (inside) place(e, (ex - x) / w, ew / w);\n"
	"  });\n"
	"}\n"
	"function search() {\n"
	"  var q = prompt('Search for (a regular expression):'), re, hit = 0, total;\n"
	"  if (q === null) return;\n"
	"  try { re = new RegExp(q); } catch (err) { return; }\n"
	"  F.forEach(function (e) {\n"
	"    var name = e.querySelector('title').textContent, r = e.querySelector('rect');\n"
	"    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
	"    var m = q !== '' && re.test(name);\n"
	"    r.setAttribute('fill', m ? 'rgb(190,80,230)' : r.getAttribute('data-fill'));\n"
	"  });\n"
	"  document.getElementById('matched').textContent = q === '' ? '' : 'Matched: ' + q;\n"
	"}\n"
	"F.forEach(function (e) { e.addEventListener('click', function () { zoom(e); }); });\n"
	"]]></script>\n";

int stacks_write_svg(struct stacks *st, FILE *f, const char *title)
{
	struct stack **v = sorted(st);
	size_t nr = hashmap_nr(&st->map), depth = 0;
	/* the open frames: where each starts (in samples) and where its name ends in key */
	struct open { uint64_t x; size_t end; } *open = NULL;
	size_t nr_open = 0;
	const char *prev = "";
	struct svg o = { f, st, 0, 0, 0 };
	uint64_t x = 0;

	if (!v)
		return sbx_error(-ENOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++) {
		size_t d = 1;

		o.total += v[i]->n;
		for (const char *c = v[i]->key; *c; c++)
			d += *c == ';';
		depth = d > depth ? d : depth;
	}
	open = calloc(depth + 1, sizeof(*open));
	if (!open) {
		free(v);
		return sbx_error(-ENOMEM, "out of memory");
	}
	o.scale = o.total ? (double)(SVG_WIDTH - 2 * SVG_PAD) / o.total : 0;
	o.height = TOP + (int)(depth + 1) * FRAME_H + BOTTOM;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; } "
		"g.f { cursor: pointer; } g.f:hover rect { stroke: #333; stroke-width: 0.5; }"
		"</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size: 17px\">",
		SVG_WIDTH, o.height, SVG_WIDTH, o.height, SVG_WIDTH, o.height, SVG_WIDTH / 2);
	xml_text(f, title ? title : "Flame Graph", SIZE_MAX);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"24\" onclick=\"search()\" "
		"style=\"cursor: pointer\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n"
		"<text x=\"%d\" y=\"%d\">%" PRIu64 " samples; click a frame to zoom, "
		"the bottom one to zoom out</text>\n", SVG_WIDTH - SVG_PAD - 50,
		SVG_WIDTH - SVG_PAD - 200, o.height - 6, SVG_PAD, o.height - 6, o.total);
	fprintf(f, svg_script, SVG_WIDTH, SVG_PAD);
	/* stacks in frame order: a frame's callees follow one another, and it closes
	   when a stack that does not share it comes */
	for (size_t i = 0; i <= nr; i++) {
		const char *key = i < nr ? v[i]->key : NULL;
		size_t common = 0, a = 0;

		/* the frames this stack shares with the previous one */
		if (key) {
			while (common < nr_open) {
				size_t end = open[common].end, start = common ? open[common - 1].end + 1 : 0;

				if (strncmp(key + start, prev + start, end - start) ||
				    (key[end] != ';' && key[end]))
					break;
				common++;
			}
		}
		/* close the others, innermost first */
		while (nr_open > common) {
			size_t start, end = open[nr_open - 1].end;
			char name[4096];

			nr_open--;
			start = nr_open ? open[nr_open - 1].end + 1 : 0;
			snprintf(name, sizeof(name), "%.*s", (int)(end - start), prev + start);
			frame(&o, name, nr_open + 1, open[nr_open].x, x - open[nr_open].x);
		}
		if (!key)
			break;
		/* open this stack's own frames */
		a = common ? open[common - 1].end + 1 : 0;
		while (key[a] || a == 0) {
			const char *semi = strchr(key + a, ';');
			size_t end = semi ? (size_t)(semi - key) : strlen(key);

			open[nr_open].x = x;
			open[nr_open++].end = end;
			if (!semi)
				break;
			a = end + 1;
		}
		x += v[i]->n;
		prev = key;
	}
	/* the root last: the script finds the total in it */
	frame(&o, "all", 0, 0, o.total);
	fputs("</svg>\n", f);
	free(open);
	free(v);
	return ferror(f) ? sbx_error(-EIO, "cannot write the flame graph") : 0;
}
