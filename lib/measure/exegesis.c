// SPDX-License-Identifier: MIT
/* llvm-exegesis's benchmark YAML as snippets (see exegesis.h). */
#include <capstone/capstone.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/bytes.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/escape.h"
#include "measure/exegesis.h"

/*
 * Bounds on what a document may make sbx do: llvm-exegesis writes
 * documents three levels deep, of a few KiB, without anchors. libyaml's
 * scanner is quadratic in flow nesting and its loader copies nothing for an
 * alias, so the reader builds its own small tree from events, stopping at
 * EXEGESIS_MAX_DEPTH levels, EXEGESIS_MAX_DOC_BYTES of stream per document
 * and EXEGESIS_MAX_EXPANDED bytes of fields with aliases expanded.
 */

/* A node of a document: a scalar, or a sequence (kids) or mapping (key, value, ...). */
struct ynode {
	yaml_node_type_t type;
	char *value;		/* scalar: its text, NUL-terminated */
	size_t len;		/* its length (a YAML "\0" may sit inside) */
	struct ynode **kids;
	size_t n, cap;
	int line;
};

struct anchor {
	char *name;
	struct ynode *node;
};

/* Nodes of one document at most (llvm-exegesis's have a few dozen; a sweep's key lists a few) */
#define MAX_NODES (1u << 20)

struct exegesis_reader {
	yaml_parser_t parser;
	char *name;
	bool done;
	FILE *f;
	const volatile sig_atomic_t *stop;
	bool stopped, too_big;	/* why the read handler failed */
	uint64_t read;		/* bytes handed to libyaml */
	uint64_t doc_start;	/* where the document being read starts */
	/* the document being built */
	struct ynode **nodes;
	size_t nr_nodes, cap_nodes;
	struct hashmap anchors;		/* struct anchor, the latest of each name */
	size_t expanded;	/* bytes the fields took, aliases expanded */
};

/* libyaml's input: the stream, checked for a stop and for the document's size. */
static int read_input(void *data, unsigned char *buf, size_t size, size_t *got)
{
	struct exegesis_reader *r = data;

	for (;;) {
		*got = 0;
		if (r->stop && *r->stop) {
			r->stopped = true;
			return 0;
		}
		if (r->read - r->doc_start > EXEGESIS_MAX_DOC_BYTES) {
			r->too_big = true;
			return 0;
		}
		*got = fread(buf, 1, size, r->f);
		r->read += *got;
		if (*got || !ferror(r->f))
			return 1;
		/* a signal while a pipe was read: look at the flag, then read on */
		if (errno != EINTR)
			return 0;
		clearerr(r->f);
	}
}

struct exegesis_reader *exegesis_reader_new(FILE *f, const char *name)
{
	struct exegesis_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->name = strdup(name);
	if (!r->name || !yaml_parser_initialize(&r->parser)) {
		free(r->name);
		free(r);
		return NULL;
	}
	r->f = f;
	yaml_parser_set_input(&r->parser, read_input, r);
	return r;
}

void exegesis_reader_set_stop(struct exegesis_reader *r, const volatile sig_atomic_t *stop)
{
	r->stop = stop;
}

static void forget_nodes(struct exegesis_reader *r)
{
	for (size_t i = 0; i < r->nr_nodes; i++) {
		free(r->nodes[i]->value);
		free(r->nodes[i]->kids);
		free(r->nodes[i]);
	}
	r->nr_nodes = 0;
	{
		struct anchor *a;

		for (size_t i = 0; (a = hashmap_next(&r->anchors, &i));) {
			free(a->name);
			free(a);
		}
		hashmap_release(&r->anchors);
	}
	r->expanded = 0;
}

void exegesis_reader_free(struct exegesis_reader *r)
{
	if (!r)
		return;
	forget_nodes(r);
	free(r->nodes);
	yaml_parser_delete(&r->parser);
	free(r->name);
	free(r);
}

void exegesis_doc_release(struct exegesis_doc *d)
{
	free(d->mode);
	for (size_t i = 0; i < d->n_instructions; i++)
		free(d->instructions[i]);
	free(d->instructions);
	free(d->config);
	for (size_t i = 0; i < d->n_reg_values; i++)
		free(d->reg_values[i]);
	free(d->reg_values);
	free(d->cpu_name);
	free(d->llvm_triple);
	free(d->error);
	free(d->info);
	free(d->code);
	memset(d, 0, sizeof(*d));
}

/* building ----------------------------------------------------------------- */

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *np;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 8;
	np = realloc(*p, ncap * size);
	if (!np)
		return false;
	*p = np;
	*cap = ncap;
	return true;
}

static struct ynode *new_node(struct exegesis_reader *r, yaml_node_type_t type, int line)
{
	struct ynode *n;

	if (r->nr_nodes == MAX_NODES) {
		errno = E2BIG;
		return NULL;
	}
	if (!grow((void **)&r->nodes, &r->cap_nodes, r->nr_nodes, sizeof(*r->nodes)) ||
	    !(n = calloc(1, sizeof(*n))))
		return NULL;
	n->type = type;
	n->line = line;
	r->nodes[r->nr_nodes++] = n;
	return n;
}

static bool add_kid(struct ynode *parent, struct ynode *kid)
{
	if (!grow((void **)&parent->kids, &parent->cap, parent->n, sizeof(*parent->kids)))
		return false;
	parent->kids[parent->n++] = kid;
	return true;
}

static bool anchor_is(const void *entry, const void *name)
{
	return !strcmp(((const struct anchor *)entry)->name, name);
}

/* Name n by anchor name (NULL: none): YAML's alias names the latest anchor of a name. */
static int set_anchor(struct exegesis_reader *r, const yaml_char_t *name, struct ynode *n)
{
	uint64_t h;
	struct anchor *a, *old;

	if (!name)
		return 0;
	h = hash_str((const char *)name);
	old = hashmap_remove(&r->anchors, h, anchor_is, name);
	if (old) {
		free(old->name);
		free(old);
	}
	a = malloc(sizeof(*a));
	if (!a || !(a->name = strdup((const char *)name))) {
		free(a);
		return -ENOMEM;
	}
	a->node = n;
	if (hashmap_put(&r->anchors, h, a)) {
		free(a->name);
		free(a);
		return -ENOMEM;
	}
	return 0;
}

/* The node an alias names, or NULL. */
static struct ynode *find_anchor(struct exegesis_reader *r, const yaml_char_t *name)
{
	struct anchor *a = hashmap_get(&r->anchors, hash_str((const char *)name), anchor_is, name);

	return a ? a->node : NULL;
}

/* Why a node could not be made: -ENOMEM, or the node bound's message. */
static int too_many(const struct exegesis_reader *r, int line)
{
	if (errno != E2BIG)
		return -ENOMEM;
	return sbx_error(-E2BIG, "%s:%d: more than %u nodes in one document (llvm-exegesis "
			 "writes a few dozen)", r->name, line, MAX_NODES);
}

/* The line of the parser's problem, from 1. */
static size_t problem_line(const struct exegesis_reader *r)
{
	return r->parser.problem_mark.line + 1;
}

/* Why the parser failed, as a message; the stream ends there. */
static int parse_failed(struct exegesis_reader *r)
{
	r->done = true;
	if (r->stopped)
		return sbx_error(-EINTR, "%s: interrupted", r->name);
	if (r->too_big)
		return sbx_error(-E2BIG, "%s: a document of more than %d MiB (llvm-exegesis "
				 "writes a few KiB)", r->name, EXEGESIS_MAX_DOC_BYTES >> 20);
	if (r->parser.error == YAML_MEMORY_ERROR)
		return sbx_error(-ENOMEM, "out of memory");
	if (r->parser.error == YAML_READER_ERROR && r->parser.problem &&
	    !strcmp(r->parser.problem, "input error"))
		return sbx_error_errno(-EIO, "%s: cannot read", r->name);
	return sbx_error(-EINVAL, "%s:%zu: not YAML: %s", r->name, problem_line(r),
			 r->parser.problem ? r->parser.problem : "a syntax error");
}

/*
 * The next document of the stream as a tree: 1 with its root in *root
 * (NULL for an empty document), 0 at the end, or a negative errno with a
 * message (the stream ends there).
 */
static int load_doc(struct exegesis_reader *r, struct ynode **root)
{
	struct ynode *stack[EXEGESIS_MAX_DEPTH + 1];
	int depth = 0, err = 0;
	bool in_doc = false;

	*root = NULL;
	forget_nodes(r);
	for (;;) {
		yaml_event_t ev;
		struct ynode *n = NULL;
		int line;

		if (!yaml_parser_parse(&r->parser, &ev))
			return parse_failed(r);
		line = (int)ev.start_mark.line + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			yaml_event_delete(&ev);
			r->done = true;
			return 0;
		case YAML_DOCUMENT_START_EVENT:
			in_doc = true;
			r->doc_start = ev.start_mark.index;
			break;
		case YAML_DOCUMENT_END_EVENT:
			yaml_event_delete(&ev);
			if (in_doc)
				return 1;
			continue;
		case YAML_SCALAR_EVENT:
			n = new_node(r, YAML_SCALAR_NODE, line);
			if (!n || !(n->value = malloc(ev.data.scalar.length + 1))) {
				err = too_many(r, line);
				break;
			}
			memcpy(n->value, ev.data.scalar.value, ev.data.scalar.length);
			n->value[ev.data.scalar.length] = 0;
			n->len = ev.data.scalar.length;
			err = set_anchor(r, ev.data.scalar.anchor, n);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth == EXEGESIS_MAX_DEPTH) {
				err = sbx_error(-E2BIG, "%s:%d: nested more than %d levels deep "
						"(llvm-exegesis writes 3)", r->name, line,
						EXEGESIS_MAX_DEPTH);
				break;
			}
			n = new_node(r, ev.type == YAML_SEQUENCE_START_EVENT ? YAML_SEQUENCE_NODE
									 : YAML_MAPPING_NODE, line);
			if (!n) {
				err = too_many(r, line);
				break;
			}
			err = set_anchor(r, ev.type == YAML_SEQUENCE_START_EVENT
					    ? ev.data.sequence_start.anchor
					    : ev.data.mapping_start.anchor, n);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0)
				depth--;
			break;
		case YAML_ALIAS_EVENT:
			/* the same node again, not a copy: what it expands to is counted when read */
			n = find_anchor(r, ev.data.alias.anchor);
			if (!n)
				err = sbx_error(-EINVAL, "%s:%d: not YAML: an alias of no anchor",
						r->name, line);
			break;
		default:
			break;
		}
		if (!err && n) {
			if (depth > 0 && !add_kid(stack[depth - 1], n))
				err = -ENOMEM;
			else if (depth == 0 && !*root)
				*root = n;
			if (!err && ev.type != YAML_ALIAS_EVENT &&
			    (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT))
				stack[depth++] = n;
		}
		yaml_event_delete(&ev);
		if (err) {
			r->done = true;
			return err == -ENOMEM ? sbx_error(-ENOMEM, "out of memory") : err;
		}
	}
}

/* reading ------------------------------------------------------------------ */

/* A scalar node's text, or NULL when the node is not a scalar. */
static const char *scalar(const struct ynode *n)
{
	return n && n->type == YAML_SCALAR_NODE ? n->value : NULL;
}

static bool key_is(const struct ynode *k, const char *name)
{
	const char *s = scalar(k);

	return s && !strcmp(s, name);
}

/*
 * A copy of a scalar's text, counted against the document's budget (an
 * alias may name one node many times); NULL with *err set: -EINVAL for no
 * scalar or one with a NUL in it, -E2BIG past the budget, -ENOMEM.
 */
static char *copy_scalar(struct exegesis_reader *r, const struct ynode *n, int *err)
{
	char *c;

	if (!scalar(n) || strlen(n->value) != n->len) {
		*err = -EINVAL;
		return NULL;
	}
	r->expanded += n->len + 1;
	if (r->expanded > EXEGESIS_MAX_EXPANDED) {
		*err = -E2BIG;
		return NULL;
	}
	c = strdup(n->value);
	if (!c)
		*err = -ENOMEM;
	return c;
}

/* Copy a scalar into *out; -ENOMEM, -E2BIG, or -EINVAL when n is no scalar. */
static int take_str(struct exegesis_reader *r, const struct ynode *n, char **out)
{
	int err = 0;
	char *c = copy_scalar(r, n, &err);

	if (!c)
		return err;
	free(*out);
	*out = c;
	return 0;
}

/* A sequence of scalars (a flow [] too) into a new array. */
static int take_list(struct exegesis_reader *r, const struct ynode *n, char ***out, size_t *nr)
{
	int err = 0;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return -EINVAL;
	*out = calloc(n->n ? n->n : 1, sizeof(char *));
	if (!*out)
		return -ENOMEM;
	*nr = 0;
	for (size_t i = 0; i < n->n; i++) {
		(*out)[*nr] = copy_scalar(r, n->kids[i], &err);
		if (!(*out)[*nr])
			return err;
		(*nr)++;
	}
	return 0;
}

/* assembled_snippet: upper-case hex, two digits a byte */
static int take_hex(struct exegesis_reader *r, const struct ynode *n, uint8_t **out, size_t *len)
{
	const char *s = scalar(n);
	size_t l;

	if (!s)
		return -EINVAL;
	l = n->len;
	if (l % 2)
		return -EINVAL;
	if (l / 2 > EXEGESIS_MAX_CODE)
		return -EFBIG;
	r->expanded += l / 2;
	if (r->expanded > EXEGESIS_MAX_EXPANDED)
		return -E2BIG;
	free(*out);
	*out = malloc(l / 2 + 1);
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < l; i += 2) {
		int hi = bytes_hex_digit((unsigned char)s[i]);
		int lo = bytes_hex_digit((unsigned char)s[i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		(*out)[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = l / 2;
	return 0;
}

static int take_key(struct exegesis_reader *r, const struct ynode *n, struct exegesis_doc *d)
{
	int err = 0;

	if (n->type != YAML_MAPPING_NODE)
		return -EINVAL;
	for (size_t i = 0; !err && i + 1 < n->n; i += 2) {
		const struct ynode *k = n->kids[i], *v = n->kids[i + 1];

		if (key_is(k, "instructions") && !d->instructions)
			err = take_list(r, v, &d->instructions, &d->n_instructions);
		else if (key_is(k, "register_initial_values") && !d->reg_values)
			err = take_list(r, v, &d->reg_values, &d->n_reg_values);
		else if (key_is(k, "config"))
			err = take_str(r, v, &d->config);
	}
	return err;
}

/* The fields of one mapping; the name of the first malformed one in *bad. */
static int take_doc(struct exegesis_reader *r, const struct ynode *root, struct exegesis_doc *d,
		    const char **bad)
{
	bool have_key = false;

	for (size_t i = 0; i + 1 < root->n; i += 2) {
		const struct ynode *k = root->kids[i], *v = root->kids[i + 1];
		const char *name = scalar(k);
		int err = 0;

		if (!name)
			continue;
		if (!strcmp(name, "mode")) {
			err = take_str(r, v, &d->mode);
		} else if (!strcmp(name, "key") || !strcmp(name, "debug_string")) {
			/* the first: an alias repeated under many keys is not read again */
			if (!have_key)
				err = take_key(r, v, d);
			have_key = true;
		} else if (!strcmp(name, "cpu_name")) {
			err = take_str(r, v, &d->cpu_name);
		} else if (!strcmp(name, "llvm_triple")) {
			err = take_str(r, v, &d->llvm_triple);
		} else if (!strcmp(name, "min_instructions") || !strcmp(name, "num_repetitions")) {
			const char *s = scalar(v);
			char *end;


			/* read, so counted as a copy would be (an alias may name a long one often) */
			r->expanded += s ? v->len : 0;
			if (r->expanded > EXEGESIS_MAX_EXPANDED) {
				err = -E2BIG;
				*bad = name;
				return err;
			}
			errno = 0;
			d->min_instructions = s && isdigit((unsigned char)*s) ? strtoul(s, &end, 10) : 0;
			/* sbx run's --min-instructions bound: more cannot be laid out */
			if (!s || !isdigit((unsigned char)*s) || errno || *end ||
			    d->min_instructions > EXEGESIS_MAX_MIN_INSTRUCTIONS)
				err = -EINVAL;
		} else if (!strcmp(name, "error")) {
			err = take_str(r, v, &d->error);
		} else if (!strcmp(name, "info")) {
			err = take_str(r, v, &d->info);
		} else if (!strcmp(name, "assembled_snippet")) {
			err = take_hex(r, v, &d->code, &d->code_size);
		}
		if (err) {
			*bad = name;
			return err;
		}
	}
	if (!d->mode) {
		*bad = "mode";
		return -ENOENT;
	}
	if (!have_key || !d->instructions) {
		*bad = "key.instructions";
		return -ENOENT;
	}
	return 0;
}

int exegesis_reader_next(struct exegesis_reader *r, struct exegesis_doc *d)
{
	struct ynode *root;
	const char *bad = NULL;
	char what[64] = "";
	int err, line;

	memset(d, 0, sizeof(*d));
	if (r->done)
		return 0;
	do {
		err = load_doc(r, &root);
		if (err <= 0)
			return err;
	} while (!root);	/* an empty document: "---" alone */
	d->line = line = root->line;
	if (root->type != YAML_MAPPING_NODE)
		err = -EINVAL;
	else
		err = take_doc(r, root, d, &bad);
	if (bad)	/* a key of the document, which goes now */
		snprintf(what, sizeof(what), "%s", bad);
	forget_nodes(r);
	if (err == -ENOMEM) {
		exegesis_doc_release(d);
		return sbx_error(err, "out of memory");
	}
	if (!err)
		return 1;
	exegesis_doc_release(d);
	if (!what[0])
		return sbx_error(-EINVAL, "%s:%d: not an llvm-exegesis benchmark: not a "
				 "mapping", r->name, line);
	if (err == -ENOENT)
		return sbx_error(-EINVAL, "%s:%d: not an llvm-exegesis benchmark: no %s",
				 r->name, line, what);
	if (err == -E2BIG)
		return sbx_error(-EINVAL, "%s:%d: %s: its aliases expand the document past "
				 "%d MiB", r->name, line, what, EXEGESIS_MAX_EXPANDED >> 20);
	if (err == -EFBIG)
		return sbx_error(-EINVAL, "%s:%d: %s: more than %d MiB of code", r->name, line,
				 what, EXEGESIS_MAX_CODE >> 20);
	return sbx_error(-EINVAL, "%s:%d: not an llvm-exegesis benchmark: a malformed %s",
			 r->name, line, what);
}

bool exegesis_yaml_looks(const char *text)
{
	/* a document start, then a mapping key of exegesis's: no assembly reads so */
	while (*text == '#' || isspace((unsigned char)*text)) {
		if (*text == '#')
			text += strcspn(text, "\n");
		else
			text++;
	}
	if (strncmp(text, "---", 3))
		return false;
	text += 3;
	text += strspn(text, " \t\r\n");
	return !strncmp(text, "mode:", 5) || !strncmp(text, "key:", 4);
}

/* registers ---------------------------------------------------------------- */

static const char *const gpr_names[4][16] = {
	{ "RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
	  "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15" },
	{ "EAX", "ECX", "EDX", "EBX", "ESP", "EBP", "ESI", "EDI",
	  "R8D", "R9D", "R10D", "R11D", "R12D", "R13D", "R14D", "R15D" },
	{ "AX", "CX", "DX", "BX", "SP", "BP", "SI", "DI",
	  "R8W", "R9W", "R10W", "R11W", "R12W", "R13W", "R14W", "R15W" },
	{ "AL", "CL", "DL", "BL", "SPL", "BPL", "SIL", "DIL",
	  "R8B", "R9B", "R10B", "R11B", "R12B", "R13B", "R14B", "R15B" },
};
static const char *const high8[4] = { "AH", "CH", "DH", "BH" };

/* The hex digits of "0x..." without leading zeros ("0" for zero); NULL when malformed. */
static const char *hex_digits(const char *v, size_t *len)
{
	if (v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
		return NULL;
	v += 2;
	*len = strlen(v);
	if (!*len)
		return NULL;
	for (size_t i = 0; i < *len; i++)
		if (bytes_hex_digit((unsigned char)v[i]) < 0)
			return NULL;
	while (*len > 1 && *v == '0') {
		v++;
		(*len)--;
	}
	return v;
}

/* The width in bytes of a vector or mask register that DEFREG takes; 0: none. */
static size_t vector_width(const char *name)
{
	char *end;
	long n;

	if (name[0] == 'K' && name[1] >= '0' && name[1] <= '7' && !name[2])
		return 8;
	if ((name[0] == 'X' || name[0] == 'Y' || name[0] == 'Z') && !strncmp(name + 1, "MM", 2) &&
	    isdigit((unsigned char)name[3])) {
		n = strtol(name + 3, &end, 10);
		if (*end || n > 31)
			return 0;
		return name[0] == 'X' ? 16 : name[0] == 'Y' ? 32 : 64;
	}
	return 0;
}

static void note(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);

	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

/* The DEFREG lines of d's register_initial_values; unset names the others. */
static int defregs(const struct exegesis_doc *d, FILE *out, char *unset, size_t len)
{
	uint64_t gv[16] = { 0 };
	bool gset[16] = { false };
	struct {
		size_t width, name_len, digits;	/* width 0: not given */
		const char *name, *hex;
	} vec[40] = { { 0, 0, 0, NULL, NULL } };	/* XMM/YMM/ZMM 0..31, then K0..7 */
	const char *flags = NULL;
	size_t flags_digits = 0;

	for (size_t i = 0; i < d->n_reg_values; i++) {
		const char *rv = d->reg_values[i], *eq = strchr(rv, '='), *hex;
		char name[32];
		size_t nlen, dlen, w;
		int num = -1, width = -1, shift = 0;
		uint64_t v = 0;

		if (!eq || (size_t)(eq - rv) >= sizeof(name) || eq == rv)
			return sbx_error(-EINVAL, "a register value '%s' (expected REG=0xHEX)", rv);
		nlen = (size_t)(eq - rv);
		memcpy(name, rv, nlen);
		name[nlen] = 0;
		hex = hex_digits(eq + 1, &dlen);
		if (!hex)
			return sbx_error(-EINVAL, "a register value '%s' (expected REG=0xHEX)", rv);
		for (int k = 0; k < 4 && num < 0; k++)
			for (int r = 0; r < 16; r++)
				if (!strcmp(name, gpr_names[k][r])) {
					num = r;
					width = k;
					break;
				}
		for (int r = 0; r < 4 && num < 0; r++)
			if (!strcmp(name, high8[r])) {
				num = r;
				width = 3;
				shift = 8;
			}
		if (num >= 0) {
			static const size_t digits[4] = { 16, 8, 4, 2 };

			if (dlen > digits[width])
				return sbx_error(-EINVAL, "the register value '%s' does not fit %s", rv,
						 name);
			v = strtoull(hex, NULL, 16);
			/* a 32-bit write zero-extends; narrower ones replace their bits */
			if (width <= 1) {
				gv[num] = v;
			} else {
				uint64_t mask = width == 2 ? 0xffff : 0xff;

				gv[num] = (gv[num] & ~(mask << shift)) | v << shift;
			}
			gset[num] = true;
			continue;
		}
		w = vector_width(name);
		if (w) {
			/* K0..7 after the vector registers 0..31 */
			int slot = name[0] == 'K' ? 32 + name[1] - '0' : atoi(name + 3);

			if (dlen > 2 * w)
				return sbx_error(-EINVAL, "the register value '%s' does not fit %s", rv,
						 name);
			/* XMMn, YMMn and ZMMn are one register: the widest given is set */
			if (w >= vec[slot].width) {
				vec[slot].width = w;
				vec[slot].name = d->reg_values[i];
				vec[slot].name_len = nlen;
				vec[slot].hex = hex;
				vec[slot].digits = dlen;
			}
			continue;
		}
		if (!strcmp(name, "EFLAGS")) {
			if (dlen > 16)
				return sbx_error(-EINVAL, "the register value '%s' does not fit %s",
						 rv, name);
			flags = hex;
			flags_digits = dlen;
			continue;
		}
		/*
		 * MXCSR and FPCW: exegesis loads their defaults (0x1f80, 0x37f)
		 * whatever the value, and so does sbx's start state
		 */
		if (!strcmp(name, "MXCSR") || !strcmp(name, "FPCW"))
			continue;
		note(unset, len, name);
	}
	for (int v = 0; v < 40; v++) {
		if (!vec[v].width)
			continue;
		/*
		 * zero-padded to the width: the generator's value is as wide as the
		 * register, and a DEFREG of fewer digits would be sign-extended
		 */
		fprintf(out, "# LLVM-EXEGESIS-DEFREG %.*s ", (int)vec[v].name_len, vec[v].name);
		for (size_t z = vec[v].digits; z < 2 * vec[v].width; z++)
			fputc('0', out);
		fprintf(out, "%.*s\n", (int)vec[v].digits, vec[v].hex);
	}
	for (int r = 0; r < 16; r++)
		if (gset[r])
			fprintf(out, "# LLVM-EXEGESIS-DEFREG %s %016llx\n", gpr_names[0][r],
				(unsigned long long)gv[r]);
	if (flags) {	/* zero-padded as the vector registers are */
		fprintf(out, "# LLVM-EXEGESIS-DEFREG EFLAGS ");
		for (size_t z = flags_digits; z < 16; z++)
			fputc('0', out);
		fprintf(out, "%.*s\n", (int)flags_digits, flags);
	}
	return 0;
}

/* the snippet's code -------------------------------------------------------- */

/* push r64 (50+r, or 41 50+r): the register, or -1 */
static int push_reg(const uint8_t *p, size_t len)
{
	if (len == 1 && p[0] >= 0x50 && p[0] <= 0x57)
		return p[0] - 0x50;
	if (len == 2 && p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57)
		return 8 + p[1] - 0x50;
	return -1;
}

/*
 * Where the copies end in code: before the ret and the pops of the
 * registers the prologue pushed (pushes[0..nr_pushes)), in reverse order.
 */
static size_t copies_end(const uint8_t *code, size_t size, const int *pushes, int nr_pushes)
{
	size_t end = size;

	if (end && code[end - 1] == 0xc3)
		end--;
	/* the first register pushed is the last popped */
	for (int i = 0; i < nr_pushes; i++) {
		int r = pushes[i];
		size_t l = r >= 8 ? 2 : 1;

		if (end < l || code[end - 1] != 0x58 + (r & 7) || (l == 2 && code[end - 2] != 0x41))
			break;
		end -= l;
	}
	return end;
}

/*
 * llvm-exegesis's loop mode ends in "add $-1, %r8; jne BODY" (its loop
 * counter is always R8): the body, [*body, *body_end), is in [lo, stop).
 */
static bool find_loop(const uint8_t *code, size_t lo, size_t stop, size_t *body, size_t *body_end)
{
	static const uint8_t dec_r8[] = { 0x49, 0x83, 0xc0, 0xff };
	size_t add;
	long target;

	if (stop >= lo + 6 && code[stop - 2] == 0x75) {		/* jne rel8 */
		add = stop - 6;
		target = (long)stop + (int8_t)code[stop - 1];
	} else if (stop >= lo + 10 && code[stop - 6] == 0x0f && code[stop - 5] == 0x85) {
		int32_t rel;					/* jne rel32 */

		memcpy(&rel, code + stop - 4, 4);
		add = stop - 10;
		target = (long)stop + rel;
	} else {
		return false;
	}
	if (memcmp(code + add, dec_r8, sizeof(dec_r8)) || target < (long)lo || (size_t)target >= add)
		return false;
	*body = (size_t)target;
	*body_end = add;
	return true;
}

/* Whether [b, b + count * len) is count copies of its first len bytes. */
static bool copies_of(const uint8_t *code, size_t b, size_t len, size_t count)
{
	for (size_t i = 1; i < count; i++)
		if (memcmp(code + b, code + b + i * len, len))
			return false;
	return true;
}

/* The longest copy of an exegesis snippet sbx looks for, in bytes */
#define MAX_COPY_BYTES	4096

/*
 * Whether capstone's decoding of [b, e) disagrees with n instructions:
 * false where it decodes them all and counts n, or cannot decode them all
 * (the bytes alone then decide).
 */
static bool decoded_otherwise(csh cs, const uint8_t *code, size_t b, size_t e, size_t n)
{
	cs_insn *insn = NULL;
	size_t count = cs_disasm(cs, code + b, e - b, b, 0, &insn), covered = 0;

	for (size_t i = 0; i < count; i++)
		covered += insn[i].size;
	cs_free(insn, count);
	return covered == e - b && count != n;
}

/*
 * One copy of the snippet, [*begin, *end) of code, and whether it holds
 * exactly the document's instructions (*whole). What llvm-exegesis writes
 * since LLVM 13 (BenchmarkRunner.cpp: 4 x the instructions, or in loop
 * mode a body of 2 x them, SnippetRepetitor.cpp) is found from the bytes
 * alone, where the function ends in its ret: one of the four copies before
 * the epilogue, or one of the two in the loop's body (one, where its
 * halves differ: an older loop); capstone's count, where it decodes the
 * copy, must agree. Else (sbx's own YAML, one copy without a ret; older
 * layouts of 16 instructions, the last copy cut short) the last copy is
 * found by capstone's decoding, else as the shortest period of the bytes
 * before the epilogue (*whole false: how many instructions that period
 * holds is not known).
 */
static int find_copy(const struct exegesis_doc *d, size_t *begin, size_t *end, bool *whole)
{
	csh cs;
	cs_insn *insn = NULL;
	size_t count, covered = 0, stop, lo = 0, body, body_end;
	int pushes[16], nr_pushes = 0;
	size_t n = d->n_instructions;
	bool ret = d->code_size && d->code[d->code_size - 1] == 0xc3;

	*whole = false;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return sbx_error(-ENOMEM, "capstone cannot start");
	count = cs_disasm(cs, d->code, d->code_size, 0, 0, &insn);
	for (size_t i = 0; i < count; i++)
		covered += insn[i].size;
	for (size_t i = 0; i < count && nr_pushes < 16; i++) {
		int r = push_reg(d->code + insn[i].address, insn[i].size);

		if (r < 0)
			break;
		pushes[nr_pushes++] = r;
		lo = insn[i].address + insn[i].size;
	}
	stop = copies_end(d->code, d->code_size, pushes, nr_pushes);
	if (stop < lo)	/* pops where the pushes were: no room for copies */
		lo = stop;
	if (ret && find_loop(d->code, lo, stop, &body, &body_end)) {
		size_t len = body_end - body;

		for (size_t copies = 2; copies >= 1; copies--) {
			if (len % copies || !copies_of(d->code, body, len / copies, copies) ||
			    decoded_otherwise(cs, d->code, body, body + len / copies, n))
				continue;
			*begin = body;
			*end = body + len / copies;
			*whole = true;
			cs_free(insn, count);
			cs_close(&cs);
			return 0;
		}
		cs_free(insn, count);
		cs_close(&cs);
		return sbx_error(-EINVAL, "the loop in assembled_snippet holds no copy of the "
				 "snippet's %zu instructions", n);
	}
	/* the longest copy of which four end at the epilogue */
	for (size_t len = (stop - lo) / 4 < MAX_COPY_BYTES ? (stop - lo) / 4 : MAX_COPY_BYTES;
	     ret && len > 0; len--) {
		if (copies_of(d->code, stop - 4 * len, len, 4)) {
			if (decoded_otherwise(cs, d->code, stop - len, stop, n))
				break;	/* not the snippet: the decoding path below */
			cs_free(insn, count);
			cs_close(&cs);
			*begin = stop - len;
			*end = stop;
			*whole = true;
			return 0;
		}
	}
	if (covered == d->code_size) {
		size_t last = count;

		/* the instruction that ends at stop */
		while (last > 0 && insn[last - 1].address + insn[last - 1].size > stop)
			last--;
		/* and, where there are two copies, the one before it the same bytes */
		if (last >= n && insn[last - 1].address + insn[last - 1].size == stop &&
		    insn[last - n].address >= lo &&
		    (last < 2 * n ||
		     (stop - insn[last - n].address == insn[last - n].address - insn[last - 2 * n].address &&
		      !memcmp(d->code + insn[last - 2 * n].address, d->code + insn[last - n].address,
			      stop - insn[last - n].address)))) {
			*begin = insn[last - n].address;
			*end = stop;
			*whole = true;
			cs_free(insn, count);
			cs_close(&cs);
			return 0;
		}
	}
	cs_free(insn, count);
	cs_close(&cs);
	/*
	 * capstone cannot decode it all: the period whose copies cover the
	 * longest stretch before the epilogue (b8 00 01 00 00 repeated is a
	 * 5-byte period, not the 1 of its two zeros)
	 */
	{
		size_t best = 0, best_stretch = 0;

		for (size_t l = 1; 2 * l <= stop && l <= 256; l++) {
			size_t reps = 1;

			while ((reps + 1) * l <= stop &&
			       !memcmp(d->code + stop - (reps + 1) * l, d->code + stop - l, l))
				reps++;
			if (reps >= 2 && reps * l > best_stretch) {
				best = l;
				best_stretch = reps * l;
			}
		}
		if (best) {
			*begin = stop - best;
			*end = stop;
			return 0;
		}
	}
	return sbx_error(-EINVAL, "no copy of the snippet found in assembled_snippet");
}

int exegesis_doc_snippet(const struct exegesis_doc *d, char **text, char *unset,
			 size_t unset_len)
{
	size_t begin = 0, end = 0, len;
	bool whole;
	FILE *f;
	int err;

	*text = NULL;
	if (unset_len)
		unset[0] = 0;
	if (!d->code_size)
		return sbx_error(-EINVAL, "no assembled_snippet");
	if (!d->n_instructions)
		return sbx_error(-EINVAL, "no instructions");
	err = find_copy(d, &begin, &end, &whole);
	if (err)
		return err;
	f = open_memstream(text, &len);
	if (!f)
		return sbx_error(-ENOMEM, "out of memory");
	/* a comment line of the source: a name from the document must not end it */
	fprintf(f, "# llvm-exegesis: %s%s\n", escape_str(d->instructions[0]),
		d->n_instructions > 1 ? ", ..." : "");
	err = defregs(d, f, unset, unset_len);
	/* the copy holds the document's instructions: values are divided by their number */
	if (whole)
		fprintf(f, "# SBX-INSTRUCTIONS %zu\n", d->n_instructions);
	for (size_t i = begin; !err && i < end; i += 16) {
		fprintf(f, ".byte ");
		for (size_t j = i; j < end && j < i + 16; j++)
			fprintf(f, "%s0x%02x", j > i ? "," : "", d->code[j]);
		fputc('\n', f);
	}
	if (fclose(f) != 0 && !err)
		err = sbx_error(-ENOMEM, "out of memory");
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err;
}
