// SPDX-License-Identifier: MIT
/* llvm-exegesis's benchmark YAML as snippets (see exegesis.h). */
#include <capstone/capstone.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/bytes.h"
#include "util/error.h"
#include "measure/exegesis.h"

struct exegesis_reader {
	yaml_parser_t parser;
	char *name;
	bool done;
};

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
	yaml_parser_set_input_file(&r->parser, f);
	return r;
}

void exegesis_reader_free(struct exegesis_reader *r)
{
	if (!r)
		return;
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

/* reading ------------------------------------------------------------------ */

/* A scalar node's text, or NULL when the node is not a scalar. */
static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool key_is(yaml_node_t *k, const char *name)
{
	const char *s = scalar(k);

	return s && !strcmp(s, name);
}

/* Copy a scalar into *out; -ENOMEM, or -EINVAL when n is no scalar. */
static int take_str(yaml_node_t *n, char **out)
{
	const char *s = scalar(n);

	if (!s)
		return -EINVAL;
	free(*out);
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

/* A sequence of scalars (a flow [] too) into a new array. */
static int take_list(yaml_document_t *doc, yaml_node_t *n, char ***out, size_t *nr)
{
	size_t cap;

	if (!n || n->type != YAML_SEQUENCE_NODE)
		return -EINVAL;
	cap = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	*out = calloc(cap ? cap : 1, sizeof(char *));
	if (!*out)
		return -ENOMEM;
	*nr = 0;
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		const char *s = scalar(yaml_document_get_node(doc, *i));

		if (!s)
			return -EINVAL;
		(*out)[*nr] = strdup(s);
		if (!(*out)[*nr])
			return -ENOMEM;
		(*nr)++;
	}
	return 0;
}

/* assembled_snippet: upper-case hex, two digits a byte */
static int take_hex(yaml_node_t *n, uint8_t **out, size_t *len)
{
	const char *s = scalar(n);
	size_t l;

	if (!s)
		return -EINVAL;
	l = strlen(s);
	if (l % 2)
		return -EINVAL;
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

static int take_key(yaml_document_t *doc, yaml_node_t *n, struct exegesis_doc *d)
{
	int err = 0;

	if (n->type != YAML_MAPPING_NODE)
		return -EINVAL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     !err && p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);

		if (key_is(k, "instructions") && !d->instructions)
			err = take_list(doc, v, &d->instructions, &d->n_instructions);
		else if (key_is(k, "register_initial_values") && !d->reg_values)
			err = take_list(doc, v, &d->reg_values, &d->n_reg_values);
		else if (key_is(k, "config"))
			err = take_str(v, &d->config);
	}
	return err;
}

/* The fields of one mapping; the name of the first malformed one in *bad. */
static int take_doc(yaml_document_t *doc, yaml_node_t *root, struct exegesis_doc *d,
		    const char **bad)
{
	bool have_key = false;

	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		const char *name = scalar(k);
		int err = 0;

		if (!name)
			continue;
		if (!strcmp(name, "mode")) {
			err = take_str(v, &d->mode);
		} else if (!strcmp(name, "key") || !strcmp(name, "debug_string")) {
			err = take_key(doc, v, d);
			have_key = true;
		} else if (!strcmp(name, "cpu_name")) {
			err = take_str(v, &d->cpu_name);
		} else if (!strcmp(name, "llvm_triple")) {
			err = take_str(v, &d->llvm_triple);
		} else if (!strcmp(name, "min_instructions") || !strcmp(name, "num_repetitions")) {
			const char *s = scalar(v);
			char *end;

			errno = 0;
			d->min_instructions = s && isdigit((unsigned char)*s) ? strtoul(s, &end, 10) : 0;
			/* sbx run's --min-instructions bound: more cannot be laid out */
			if (!s || !isdigit((unsigned char)*s) || errno || *end ||
			    d->min_instructions > EXEGESIS_MAX_MIN_INSTRUCTIONS)
				err = -EINVAL;
		} else if (!strcmp(name, "error")) {
			err = take_str(v, &d->error);
		} else if (!strcmp(name, "info")) {
			err = take_str(v, &d->info);
		} else if (!strcmp(name, "assembled_snippet")) {
			err = take_hex(v, &d->code, &d->code_size);
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
	yaml_document_t doc;
	yaml_node_t *root;
	const char *bad = NULL;
	char what[64] = "";
	int err;

	memset(d, 0, sizeof(*d));
	if (r->done)
		return 0;
	if (!yaml_parser_load(&r->parser, &doc)) {
		r->done = true;
		if (r->parser.error == YAML_MEMORY_ERROR)
			return sbx_error(-ENOMEM, "out of memory");
		return sbx_error(-EINVAL, "%s:%zu: not YAML: %s", r->name,
				 r->parser.problem_mark.line + 1,
				 r->parser.problem ? r->parser.problem : "a syntax error");
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {	/* the end of the stream */
		yaml_document_delete(&doc);
		r->done = true;
		return 0;
	}
	d->line = (int)root->start_mark.line + 1;
	if (root->type != YAML_MAPPING_NODE) {
		err = -EINVAL;
	} else {
		err = take_doc(&doc, root, d, &bad);
	}
	if (bad)	/* a key of the document, which goes now */
		snprintf(what, sizeof(what), "%s", bad);
	yaml_document_delete(&doc);
	if (err == -ENOMEM) {
		exegesis_doc_release(d);
		return sbx_error(err, "out of memory");
	}
	if (err) {
		int line = d->line;

		exegesis_doc_release(d);
		if (!what[0])
			return sbx_error(-EINVAL, "%s:%d: not an llvm-exegesis benchmark: not a "
					 "mapping", r->name, line);
		if (err == -ENOENT)
			return sbx_error(-EINVAL, "%s:%d: not an llvm-exegesis benchmark: no %s",
					 r->name, line, what);
		return sbx_error(-EINVAL, "%s:%d: not an llvm-exegesis benchmark: a malformed %s",
				 r->name, line, what);
	}
	return 1;
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
		/* MXCSR and FPCW: exegesis loads their defaults whatever the value; sbx has them */
		note(unset, len, name);
	}
	for (int v = 0; v < 40; v++) {
		if (!vec[v].width)
			continue;
		/* zero-padded to the width: DEFREG sign-extends a shorter value */
		fprintf(out, "# LLVM-EXEGESIS-DEFREG %.*s ", (int)vec[v].name_len, vec[v].name);
		for (size_t z = vec[v].digits; z < 2 * vec[v].width; z++)
			fputc('0', out);
		fprintf(out, "%.*s\n", (int)vec[v].digits, vec[v].hex);
	}
	for (int r = 0; r < 16; r++)
		if (gset[r])
			fprintf(out, "# LLVM-EXEGESIS-DEFREG %s %016llx\n", gpr_names[0][r],
				(unsigned long long)gv[r]);
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
 * The last copy of the snippet: [*begin, *end) of code. By instructions
 * when capstone decodes all of it; else the shortest period of the bytes
 * before the epilogue.
 */
static int find_copy(const struct exegesis_doc *d, size_t *begin, size_t *end)
{
	csh cs;
	cs_insn *insn = NULL;
	size_t count, covered = 0, stop;
	int pushes[16], nr_pushes = 0;
	size_t n = d->n_instructions;

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
	}
	stop = copies_end(d->code, d->code_size, pushes, nr_pushes);
	if (covered == d->code_size) {
		size_t last = count;

		/* the instruction that ends at stop */
		while (last > 0 && insn[last - 1].address + insn[last - 1].size > stop)
			last--;
		/* and, where there are two copies, the one before it the same bytes */
		if (last >= n && insn[last - 1].address + insn[last - 1].size == stop &&
		    insn[last - n].address >= (nr_pushes ? insn[nr_pushes - 1].address + 1 : 0) &&
		    (last < 2 * n ||
		     (stop - insn[last - n].address == insn[last - n].address - insn[last - 2 * n].address &&
		      !memcmp(d->code + insn[last - 2 * n].address, d->code + insn[last - n].address,
			      stop - insn[last - n].address)))) {
			*begin = insn[last - n].address;
			*end = stop;
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
	FILE *f;
	int err;

	*text = NULL;
	if (unset_len)
		unset[0] = 0;
	if (!d->code_size)
		return sbx_error(-EINVAL, "no assembled_snippet");
	if (!d->n_instructions)
		return sbx_error(-EINVAL, "no instructions");
	err = find_copy(d, &begin, &end);
	if (err)
		return err;
	f = open_memstream(text, &len);
	if (!f)
		return sbx_error(-ENOMEM, "out of memory");
	fprintf(f, "# llvm-exegesis: %s%s\n", d->instructions[0], d->n_instructions > 1 ? ", ..." : "");
	err = defregs(d, f, unset, unset_len);
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
