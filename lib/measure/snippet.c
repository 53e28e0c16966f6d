// SPDX-License-Identifier: MIT
/* Snippets: annotations, assembling with the system assembler, .text via libelf. */
#include <capstone/capstone.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/bytes.h"
#include "util/error.h"
#include "util/tempdir.h"
#include "util/output.h"
#include "measure/snippet.h"
#include "measure/cpu.h"
#include "measure/workload.h"

#define MAX_MEMDEF_SIZE (1ul << 30)
#define PAGE 4096ul
/*
 * MEM-MAP and SNIPPET-ADDRESS: below this, room for the mapping under the
 * top of user space; its hex digits are spelled once, for the value and
 * the messages, and the decimal in the messages is checked against it
 */
#define ADDRESS_LIMIT_DIGITS	7ff000000000
#define CAT_(a, b)		a##b
#define CAT(a, b)		CAT_(a, b)
#define STR_(x)			#x
#define STR(x)			STR_(x)
#define ADDRESS_LIMIT		CAT(0x, CAT(ADDRESS_LIMIT_DIGITS, ull))
#define ADDRESS_LIMIT_HEX	STR(ADDRESS_LIMIT_DIGITS)
#define ADDRESS_LIMIT_DEC	"140668768878592"
_Static_assert(ADDRESS_LIMIT == 140668768878592ull, "ADDRESS_LIMIT_DEC is its decimal");

static const char *const gpr64[16] = {
	"RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
	"R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};
static const char *const gpr32[16] = {
	"EAX", "ECX", "EDX", "EBX", "ESP", "EBP", "ESI", "EDI",
	"R8D", "R9D", "R10D", "R11D", "R12D", "R13D", "R14D", "R15D",
};

int snippet_parse_reg(const char *name, struct snippet_reg *reg)
{
	char up[16];
	size_t n = 0;
	char *end;
	long num;

	if (*name == '%')
		name++;
	for (; name[n] && n < sizeof(up) - 1; n++)
		up[n] = (char)toupper((unsigned char)name[n]);
	if (name[n] || n == 0)
		return -EINVAL;
	up[n] = 0;
	memset(reg, 0, sizeof(*reg));
	for (int i = 0; i < 16; i++) {
		if (!strcmp(up, gpr64[i]) || !strcmp(up, gpr32[i])) {
			reg->cls = SNIPPET_REG_GPR;
			reg->num = i;
			reg->narrow = !strcmp(up, gpr32[i]);
			return 0;
		}
	}
	if (!strcmp(up, "EFLAGS") || !strcmp(up, "RFLAGS")) {
		reg->cls = SNIPPET_REG_FLAGS;
		return 0;
	}
	if ((up[0] == 'F' || up[0] == 'G') && up[1] == 'S' && !up[2]) {
		reg->cls = SNIPPET_REG_SEG;
		reg->num = up[0] == 'G';
		return 0;
	}
	if (up[0] == 'K' && up[1] >= '0' && up[1] <= '7' && !up[2]) {
		reg->cls = SNIPPET_REG_MASK;
		reg->num = up[1] - '0';
		return 0;
	}
	if (n >= 4 && (up[0] == 'X' || up[0] == 'Y' || up[0] == 'Z') && up[1] == 'M' &&
	    up[2] == 'M' && isdigit((unsigned char)up[3])) {
		num = strtol(up + 3, &end, 10);
		if (*end || num < 0 || num > 31)
			return -EINVAL;
		reg->cls = up[0] == 'X' ? SNIPPET_REG_XMM :
			   up[0] == 'Y' ? SNIPPET_REG_YMM : SNIPPET_REG_ZMM;
		reg->num = (int)num;
		return 0;
	}
	return -EINVAL;
}

size_t snippet_reg_width(const struct snippet_reg *r)
{
	switch (r->cls) {
	case SNIPPET_REG_XMM: return 16;
	case SNIPPET_REG_YMM: return 32;
	case SNIPPET_REG_ZMM: return 64;
	case SNIPPET_REG_GPR: return r->narrow ? 4 : 8;
	default: return 8;
	}
}

/*
 * Whether exegesis widens a shorter DEFREG value of this class with its
 * sign: what it loads through the stack (X86 Target.cpp's ConstantInliner
 * sign-extends the value to the register's width) does; what it loads with
 * a MOV of an immediate (general registers, and RSI for the FS/GS
 * arch_prctl) takes the value's zero extension, and a mask register's
 * KMOV zero-extends too.
 */
static bool reg_sign_extends(const struct snippet_reg *r)
{
	return r->cls == SNIPPET_REG_XMM || r->cls == SNIPPET_REG_YMM ||
	       r->cls == SNIPPET_REG_ZMM || r->cls == SNIPPET_REG_FLAGS;
}

/*
 * Hex digits (an optional 0x) to little-endian bytes in out[0..width),
 * sign-extended from the top digit when sext, else zero-extended. Leading
 * zeros past the width are dropped; -1 when malformed or wider than width.
 */
static int parse_hex_bytes(const char *s, uint8_t *out, size_t width, bool sext, size_t *ndigits)
{
	size_t len;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	while (len > 1 && s[0] == '0' && len > width * 2) {	/* leading zeros */
		s++;
		len--;
	}
	if (len == 0 || len > width * 2)
		return -1;
	memset(out, 0, width);
	for (size_t i = 0; i < len; i++) {
		int v = bytes_hex_digit((unsigned char)s[len - 1 - i]);

		if (v < 0)
			return -1;
		out[i / 2] |= (uint8_t)(v << (4 * (i % 2)));
	}
	if (sext && bytes_hex_digit((unsigned char)s[0]) & 8) {
		if (len % 2)
			out[len / 2] |= 0xf0;
		for (size_t i = (len + 1) / 2; i < width; i++)
			out[i] = 0xff;
	}
	if (ndigits)
		*ndigits = len;
	return 0;
}

static int parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

struct parse_ctx {
	struct snippet *s;
	const char *name;
	int line;
	char *fields[8];
	int nf;
	const char *kind;	/* "DEFREG" */
	const char *prefix;	/* "LLVM-EXEGESIS-" or "SBX-" */
};

static int bad(struct parse_ctx *p, const char *expected)
{
	char ann[256] = "";
	size_t l;

	snprintf(ann, sizeof(ann), "%s%s", p->prefix, p->kind);
	for (int i = 0; i < p->nf; i++) {
		l = strlen(ann);
		snprintf(ann + l, sizeof(ann) - l, " %s", p->fields[i]);
	}
	return sbx_error(-EINVAL, "%s:%d: invalid annotation '%s': %s", p->name, p->line, ann,
			 expected);
}

static void *grow(void *arr, int n, size_t elem)
{
	return realloc(arr, (size_t)(n + 1) * elem);
}

/* XMMn, YMMn and ZMMn are one register: the class of the widest */
static enum snippet_reg_class reg_family(enum snippet_reg_class c)
{
	return c == SNIPPET_REG_XMM || c == SNIPPET_REG_YMM ? SNIPPET_REG_ZMM : c;
}

static int ann_defreg(struct parse_ctx *p)
{
	struct snippet_defreg d;
	void *arr;

	if (p->nf != 2)
		return bad(p, "expected two parameters <REG> <HEX_VALUE>");
	memset(&d, 0, sizeof(d));
	if (snippet_parse_reg(p->fields[0], &d.reg) < 0)
		return bad(p, "expected a register name (RAX..R15, EAX.., XMM0..31, YMM, ZMM, K0..7, "
			   "FS, GS, EFLAGS)");
	if (parse_hex_bytes(p->fields[1], d.value, snippet_reg_width(&d.reg),
			    reg_sign_extends(&d.reg), NULL) < 0)
		return bad(p, "expected <HEX_VALUE>: hex digits that fit the register");
	if (d.reg.cls == SNIPPET_REG_FLAGS) {
		uint64_t f;

		/* the status flags and DF: TF, AC and the rest would trap the harness */
		memcpy(&f, d.value, 8);
		f &= SNIPPET_FLAGS_TAKEN;
		memcpy(d.value, &f, 8);
	}
	if (d.reg.cls == SNIPPET_REG_SEG) {
		uint64_t base;

		/* what arch_prctl(ARCH_SET_FS/GS) takes: a user-space address */
		memcpy(&base, d.value, 8);
		if (base >= ADDRESS_LIMIT)
			return bad(p, "FS and GS take a user-space address below 0x" ADDRESS_LIMIT_HEX);
	}
	snprintf(d.name, sizeof(d.name), "%s", p->fields[0][0] == '%' ? p->fields[0] + 1 :
		 p->fields[0]);
	for (char *c = d.name; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	d.line = p->line;
	for (int i = 0; i < p->s->n_defregs; i++) {
		struct snippet_reg *o = &p->s->defregs[i].reg;

		if (o->num == d.reg.num && reg_family(o->cls) == reg_family(d.reg.cls))
			return bad(p, "the register is already defined");
	}
	arr = grow(p->s->defregs, p->s->n_defregs, sizeof(d));
	if (!arr)
		return -ENOMEM;
	p->s->defregs = arr;
	p->s->defregs[p->s->n_defregs++] = d;
	return 0;
}

static int ann_livein(struct parse_ctx *p)
{
	struct snippet_reg r;
	void *arr;

	if (p->nf != 1)
		return bad(p, "expected one parameter <REG>");
	if (snippet_parse_reg(p->fields[0], &r) < 0)
		return bad(p, "expected a register name");
	arr = grow(p->s->liveins, p->s->n_liveins, sizeof(r));
	if (!arr)
		return -ENOMEM;
	p->s->liveins = arr;
	p->s->liveins[p->s->n_liveins++] = r;
	return 0;
}

static int ann_memdef(struct parse_ctx *p)
{
	struct snippet_memdef d;
	uint8_t buf[64];
	size_t digits;
	uint64_t size;
	void *arr;

	if (p->nf != 3)
		return bad(p, "expected three parameters <NAME> <SIZE> <HEX_VALUE>");
	memset(&d, 0, sizeof(d));
	if (strlen(p->fields[0]) >= sizeof(d.name))
		return bad(p, "the name is too long");
	for (int i = 0; i < p->s->n_memdefs; i++)
		if (!strcmp(p->s->memdefs[i].name, p->fields[0]))
			return bad(p, "a memory definition of this name already exists");
	if (parse_u64(p->fields[1], 10, &size) < 0 || size == 0 || size > MAX_MEMDEF_SIZE)
		return bad(p, "expected <SIZE>: a decimal number of bytes, 1 to 1073741824");
	if (parse_hex_bytes(p->fields[2], buf, sizeof(buf), false, &digits) < 0)
		return bad(p, "expected <HEX_VALUE>: up to 128 hex digits");
	snprintf(d.name, sizeof(d.name), "%s", p->fields[0]);
	d.size = size;
	d.value_len = (digits + 1) / 2;
	d.value = malloc(d.value_len);
	if (!d.value)
		return -ENOMEM;
	memcpy(d.value, buf, d.value_len);
	arr = grow(p->s->memdefs, p->s->n_memdefs, sizeof(d));
	if (!arr) {
		free(d.value);
		return -ENOMEM;
	}
	p->s->memdefs = arr;
	p->s->memdefs[p->s->n_memdefs++] = d;
	return 0;
}

/* n bytes in whole pages */
static uint64_t round_up(uint64_t n)
{
	return (n + PAGE - 1) & ~(PAGE - 1);
}

static int ann_memmap(struct parse_ctx *p)
{
	struct snippet_memmap m = { .def = -1 };
	void *arr;

	if (p->nf != 2)
		return bad(p, "expected two parameters <NAME> <ADDRESS>");
	for (int i = 0; i < p->s->n_memdefs; i++)
		if (!strcmp(p->s->memdefs[i].name, p->fields[0]))
			m.def = i;
	if (m.def < 0)
		return bad(p, "expected <NAME> to be the name of an earlier MEM-DEF");
	if (parse_u64(p->fields[1], 10, &m.addr) < 0 || m.addr % PAGE || m.addr == 0 ||
	    m.addr >= ADDRESS_LIMIT)
		return bad(p, "expected <ADDRESS>: a decimal, non-zero multiple of the page size "
			   "below 0x" ADDRESS_LIMIT_HEX " (" ADDRESS_LIMIT_DEC ")");
	m.line = p->line;
	/* two mappings of one page: the second would fail in the child, far from here */
	for (int i = 0; i < p->s->n_memmaps; i++) {
		const struct snippet_memmap *o = &p->s->memmaps[i];
		uint64_t end = m.addr + round_up(p->s->memdefs[m.def].size);
		uint64_t oend = o->addr + round_up(p->s->memdefs[o->def].size);

		if (m.addr < oend && o->addr < end) {
			char why[160];

			snprintf(why, sizeof(why), "its pages overlap those of MEM-MAP %s %llu "
				 "(line %d)", p->s->memdefs[o->def].name,
				 (unsigned long long)o->addr, o->line);
			return bad(p, why);
		}
	}
	arr = grow(p->s->memmaps, p->s->n_memmaps, sizeof(m));
	if (!arr)
		return -ENOMEM;
	p->s->memmaps = arr;
	p->s->memmaps[p->s->n_memmaps++] = m;
	return 0;
}

static int ann_address(struct parse_ctx *p)
{
	uint64_t a;

	if (p->nf != 1)
		return bad(p, "expected one parameter <HEX_ADDRESS>");
	if (p->s->address) {
		char why[80];

		snprintf(why, sizeof(why), "the snippet's address was given already (line %d)",
			 p->s->address_line);
		return bad(p, why);
	}
	if (parse_u64(p->fields[0], 16, &a) < 0 || a % PAGE || a == 0 || a >= ADDRESS_LIMIT)
		return bad(p, "expected <HEX_ADDRESS>: a hex, non-zero multiple of the page size "
			   "below " ADDRESS_LIMIT_HEX " (room for the code under the top of user "
			   "space)");
	p->s->address = a;
	p->s->address_line = p->line;
	return 0;
}

static int ann_loopreg(struct parse_ctx *p)
{
	struct snippet_reg r;

	if (p->nf != 1)
		return bad(p, "expected one parameter <REG>");
	if (snippet_parse_reg(p->fields[0], &r) < 0 || r.cls != SNIPPET_REG_GPR || r.narrow ||
	    r.num == SNIPPET_RSP)
		return bad(p, "expected a 64-bit general register other than RSP");
	p->s->loop_reg = r.num;
	return 0;
}

/* SBX-INSTRUCTIONS: how many instructions code written as .byte holds */
static int ann_instructions(struct parse_ctx *p)
{
	uint64_t n;

	if (p->nf != 1)
		return bad(p, "expected one parameter <COUNT>");
	if (parse_u64(p->fields[0], 10, &n) < 0 || n == 0 || n > SNIPPET_MAX_CODE)
		return bad(p, "expected <COUNT>: a decimal number of instructions, 1 to 1048576");
	p->s->declared_insns = (int)n;
	return 0;
}

static const struct {
	const char *kind;
	int (*fn)(struct parse_ctx *p);
} annotations[] = {
	{ "DEFREG", ann_defreg },
	{ "LIVEIN", ann_livein },
	{ "MEM-DEF", ann_memdef },
	{ "MEM-MAP", ann_memmap },
	{ "SNIPPET-ADDRESS", ann_address },
	{ "LOOP-REGISTER", ann_loopreg },
	{ "INSTRUCTIONS", ann_instructions },
};

/* One line: find an annotation in its comment and apply it. */
static int parse_line(struct parse_ctx *p, char *line)
{
	static const char *const prefixes[] = { "LLVM-EXEGESIS-", "SBX-" };
	char *c = NULL, *save, *tok, *word;
	size_t plen;

	for (char *q = line; *q; q++) {
		if (*q == '#' || (*q == '/' && q[1] == '/')) {
			c = q + (*q == '#' ? 1 : 2);
			break;
		}
	}
	if (!c)
		return 0;
	while (*c == ' ' || *c == '\t' || *c == '#')
		c++;
	p->prefix = NULL;
	for (size_t i = 0; i < 2; i++) {
		plen = strlen(prefixes[i]);
		if (!strncmp(c, prefixes[i], plen)) {
			p->prefix = prefixes[i];
			break;
		}
	}
	if (!p->prefix)
		return 0;
	c += plen;
	word = strtok_r(c, " \t\r", &save);
	if (!word)
		return sbx_error(-EINVAL, "%s:%d: empty %s annotation", p->name, p->line, p->prefix);
	p->nf = 0;
	while ((tok = strtok_r(NULL, " \t\r", &save))) {
		if (p->nf == 8)
			break;
		p->fields[p->nf++] = tok;
	}
	for (size_t i = 0; i < sizeof(annotations) / sizeof(annotations[0]); i++) {
		if (!strcmp(word, annotations[i].kind)) {
			p->kind = annotations[i].kind;
			return annotations[i].fn(p);
		}
	}
	return sbx_error(-EINVAL, "%s:%d: unknown annotation '%s%s' (expected DEFREG, LIVEIN, "
			 "MEM-DEF, MEM-MAP, SNIPPET-ADDRESS, LOOP-REGISTER or INSTRUCTIONS)",
			 p->name, p->line, p->prefix, word);
}

int snippet_parse(const char *name, const char *text, struct snippet **out)
{
	struct parse_ctx p = { .name = name };
	struct snippet *s;
	char *copy, *line, *next;
	int err = 0;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	copy = strdup(text);
	if (!s || !copy) {
		free(s);
		free(copy);
		return sbx_error(-ENOMEM, "out of memory");
	}
	s->name = strdup(name);
	s->text = strdup(text);
	s->loop_reg = SNIPPET_R8;
	p.s = s;
	for (line = copy; line && !err; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		p.line++;
		err = parse_line(&p, line);
	}
	free(copy);
	if (!err && (!s->name || !s->text))
		err = sbx_error(-ENOMEM, "out of memory");
	if (err < 0) {
		snippet_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void snippet_free(struct snippet *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n_memdefs; i++)
		free(s->memdefs[i].value);
	free(s->memdefs);
	free(s->memmaps);
	free(s->defregs);
	free(s->liveins);
	free(s->code);
	free(s->init_code);
	free(s->insns);
	for (int i = 0; i < s->n_llvm_insns; i++)
		free(s->llvm_insns[i]);
	free(s->llvm_insns);
	free(s->name);
	free(s->text);
	free(s);
}

/* assembling --------------------------------------------------------------- */

/*
 * The state every snippet starts from, before its DEFREGs: MXCSR and the
 * x87 control word at Linux's defaults (0x1f80, 0x37f: exceptions masked,
 * round to nearest; the x87 stack empty), MMX, vector and mask registers
 * zero, as wide as the CPU and its kernel have them (vzeroall, last, leaves
 * the upper halves of 0-15 clean). The
 * general registers are zeroed by the generated code (measure.c), and the
 * flags are set last (init_text).
 */
static void start_state_text(FILE *f)
{
	const struct cpu_features *c = cpu_features();

	fprintf(f, "subq $8, %%rsp\nmovl $0x1f80, (%%rsp)\nldmxcsr (%%rsp)\naddq $8, %%rsp\n");
	for (int i = 0; i < 8; i++)
		fprintf(f, "pxor %%mm%d, %%mm%d\n", i, i);
	fprintf(f, "fninit\n");
	if (c->avx512f) {
		/* the 512-bit form: the 128-bit one needs AVX512VL too */
		for (int i = 16; i < 32; i++)
			fprintf(f, "vpxord %%zmm%d, %%zmm%d, %%zmm%d\n", i, i, i);
		for (int i = 0; i < 8; i++)
			fprintf(f, "kxorw %%k%d, %%k%d, %%k%d\n", i, i, i);
	}
	if (c->avx)
		fprintf(f, "vzeroall\n");
	else
		for (int i = 0; i < 16; i++)
			fprintf(f, "pxor %%xmm%d, %%xmm%d\n", i, i);
}

/*
 * The set-up the generated code runs first (.sbx_init), in AT&T syntax:
 * the start state, the DEFREGs of vector and mask registers, and last the
 * flags (DEFREG EFLAGS, else 0x202: every status flag and DF clear; bit 1
 * is always set, and IF stays as the kernel has it).
 */
static int init_text(const struct snippet *s, FILE *f)
{
	const struct snippet_defreg *flags = NULL;

	start_state_text(f);
	for (int i = 0; i < s->n_defregs; i++) {
		const struct snippet_defreg *d = &s->defregs[i];
		size_t w = snippet_reg_width(&d->reg);
		uint64_t q;

		if (d->reg.cls == SNIPPET_REG_GPR || d->reg.cls == SNIPPET_REG_SEG)
			continue;	/* set by the generated code (measure.c) */
		if (d->reg.cls == SNIPPET_REG_FLAGS) {
			flags = d;
			continue;
		}
		if (d->reg.cls == SNIPPET_REG_MASK) {
			/* kmovq needs AVX512BW: kmovw (AVX512F) where the value fits */
			memcpy(&q, d->value, 8);
			fprintf(f, "movabsq $%#llx, %%rax\n%s %%%sax, %%k%d\n",
				(unsigned long long)q, q >> 16 ? "kmovq" : "kmovw",
				q >> 16 ? "r" : "e", d->reg.num);
			continue;
		}
		fprintf(f, "subq $64, %%rsp\n");
		for (size_t o = 0; o < w; o += 8) {
			memcpy(&q, d->value + o, 8);
			fprintf(f, "movabsq $%#llx, %%rax\nmovq %%rax, %zu(%%rsp)\n",
				(unsigned long long)q, o);
		}
		if (d->reg.cls == SNIPPET_REG_XMM && d->reg.num < 16)
			fprintf(f, "movdqu (%%rsp), %%xmm%d\n", d->reg.num);
		else if (d->reg.cls == SNIPPET_REG_YMM && d->reg.num < 16)
			fprintf(f, "vmovdqu (%%rsp), %%ymm%d\n", d->reg.num);
		else
			fprintf(f, "vmovdqu64 (%%rsp), %%%cmm%d\n",
				d->reg.cls == SNIPPET_REG_XMM ? 'x' :
				d->reg.cls == SNIPPET_REG_YMM ? 'y' : 'z', d->reg.num);
		fprintf(f, "addq $64, %%rsp\n");
	}
	if (flags) {
		uint64_t q;

		memcpy(&q, flags->value, 8);
		fprintf(f, "movabsq $%#llx, %%rax\npushq %%rax\npopfq\n", (unsigned long long)q);
	} else {
		fprintf(f, "pushq $0x202\npopfq\n");
	}
	return ferror(f) ? -EIO : 0;
}

static int write_source(const struct snippet *s, const struct snippet_asm_opts *o,
			const char *path)
{
	FILE *f = fopen(path, "w");
	size_t len = strlen(s->text);
	int err;

	if (!f)
		return sbx_error_errno(-errno, "cannot create '%s'", path);
	/* the prefix shares line 1 so that the assembler's line numbers are the file's */
	fprintf(f, ".text;%s", o->syntax == SNIPPET_INTEL ? ".intel_syntax noprefix;" : "");
	fwrite(s->text, 1, len, f);
	fprintf(f, "%s.att_syntax prefix\n.section .sbx_init,\"ax\",@progbits\n",
		len && s->text[len - 1] == '\n' ? "" : "\n");
	err = init_text(s, f);
	if (fclose(f) != 0 || err)
		return sbx_error(-EIO, "cannot write '%s'", path);
	return 0;
}

/* Replace the temporary path by the snippet's name in the assembler's messages. */
static void assembler_message(const char *log, const char *tmp_src, const char *name,
			      char *msg, size_t len)
{
	FILE *f = fopen(log, "r");
	char line[512];
	size_t used = 0, tl = strlen(tmp_src);
	int n = 0;

	msg[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n < 3) {
		char *nl = strchr(line, '\n'), *at = strstr(line, tmp_src);

		if (nl)
			*nl = 0;
		if (strstr(line, "Assembler messages:") || !line[0])
			continue;
		if (at)
			used += (size_t)snprintf(msg + used, len - used, "%s%.*s%s%s", n ? "; " : "",
						 (int)(at - line), line, name, at + tl);
		else
			used += (size_t)snprintf(msg + used, len - used, "%s%s", n ? "; " : "", line);
		if (used >= len)
			break;
		n++;
	}
	fclose(f);
}

static double wo_timeout(const struct snippet_asm_opts *o)
{
	return o && o->timeout_s > 0 ? o->timeout_s : 60;
}

/* Run argv with stdout (and stderr unless err_path) to out_path; the status in *st. */
static int run_tool(char **argv, const char *out_path, const char *err_path,
		    const struct snippet_asm_opts *o, struct workload_status *st)
{
	struct workload_opts wo = { .argv = argv, .cpu = -1,
				    .timeout_s = wo_timeout(o), .flags = WORKLOAD_OWN_GROUP,
				    /* an assembler expanding a huge .rept fails, not the machine */
				    .max_memory = SNIPPET_MAX_ASSEMBLER_MEMORY,
				    .stop = o ? o->stop : NULL };
	struct workload *w;
	int fds[3] = { -1, -1, -1 };
	int err;

	fds[1] = fds[2] = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fds[1] < 0)
		return sbx_error_errno(-errno, "cannot create '%s'", out_path);
	if (err_path) {
		fds[2] = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fds[2] < 0) {
			err = sbx_error_errno(-errno, "cannot create '%s'", err_path);
			close(fds[1]);
			return err;
		}
	}
	wo.stdio_fds = fds;
	err = workload_prepare(&wo, &w);
	if (!err) {
		err = workload_start(w);
		if (!err)
			err = workload_wait(w, st);
		workload_free(w);
	}
	close(fds[1]);
	if (fds[2] != fds[1])
		close(fds[2]);
	return err;
}

static int run_assembler(const struct snippet *s, const struct snippet_asm_opts *o,
			 const char *src, const char *obj, const char *log)
{
	const char *as = o->assembler ? o->assembler : "as";
	const char *base = strrchr(as, '/') ? strrchr(as, '/') + 1 : as;
	char *gas[] = { (char *)as, "--64", "-o", (char *)obj, (char *)src, NULL };
	char *mc[] = { (char *)as, "-filetype=obj", "-triple=x86_64-unknown-linux-gnu", "-o",
		       (char *)obj, (char *)src, NULL };
	struct workload_status st;
	char msg[1024];
	int err;

	err = run_tool(strstr(base, "llvm-mc") ? mc : gas, log, NULL, o, &st);
	if (err == -ENOENT)
		return sbx_error(err, "cannot run the assembler '%s' (install binutils, or choose "
				 "one with --assembler)", as);
	if (err < 0)
		return err;
	if (st.timed_out || st.stopped) {
		char why[64];

		return sbx_error(st.stopped ? -EINTR : -ETIMEDOUT, "%s: the assembler '%s' %s",
				 s->name, as, workload_status_describe(&st, wo_timeout(o), why,
								      sizeof(why)));
	}
	if (!st.exited || st.exit_code != 0) {
		assembler_message(log, src, s->name, msg, sizeof(msg));
		return sbx_error(-EINVAL, "%s: the assembler failed: %s", s->name,
				 msg[0] ? msg : "(no message)");
	}
	return 0;
}

/* A relocation in section index target: an error naming its symbol. */
static int check_relocations(Elf *e, const struct snippet *s, size_t target,
			     const char *secname)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    sh.sh_info != target)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || sh.sh_entsize == 0)
			continue;
		n = d->d_size / sh.sh_entsize;
		if (n == 0)
			continue;
		{
			GElf_Rela rela;
			GElf_Rel rel;
			GElf_Sym sym;
			uint64_t info, off;
			const char *symname = NULL;
			Elf_Scn *symscn = elf_getscn(e, sh.sh_link);
			GElf_Shdr symsh;
			Elf_Data *symd = symscn ? elf_getdata(symscn, NULL) : NULL;

			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(d, 0, &rela))
					break;
				info = rela.r_info;
				off = rela.r_offset;
			} else {
				if (!gelf_getrel(d, 0, &rel))
					break;
				info = rel.r_info;
				off = rel.r_offset;
			}
			if (symd && gelf_getshdr(symscn, &symsh) &&
			    gelf_getsym(symd, (int)GELF_R_SYM(info), &sym)) {
				symname = elf_strptr(e, symsh.sh_link, sym.st_name);
				if ((!symname || !*symname) && GELF_ST_TYPE(sym.st_info) == STT_SECTION) {
					GElf_Shdr ssh;
					Elf_Scn *ss = elf_getscn(e, sym.st_shndx);
					size_t shstr;

					if (ss && gelf_getshdr(ss, &ssh) && !elf_getshdrstrndx(e, &shstr))
						symname = elf_strptr(e, shstr, ssh.sh_name);
				}
			}
			return sbx_error(-EINVAL, "%s: the snippet needs a relocation against '%s' "
					 "(%s+%#llx); sbx run takes self-contained code: use "
					 "absolute addresses with MEM-MAP, or SNIPPET-ADDRESS",
					 s->name, symname && *symname ? symname : "?", secname,
					 (unsigned long long)off);
		}
	}
	return 0;
}

static int copy_section(Elf_Scn *scn, uint8_t **buf, size_t *size)
{
	Elf_Data *d = NULL;
	size_t total = 0;
	uint8_t *p = NULL;

	while ((d = elf_getdata(scn, d))) {
		uint8_t *np;

		if (!d->d_buf || !d->d_size)
			continue;
		np = realloc(p, total + d->d_size);
		if (!np) {
			free(p);
			return -ENOMEM;
		}
		p = np;
		memcpy(p + total, d->d_buf, d->d_size);
		total += d->d_size;
	}
	*buf = p;
	*size = total;
	return 0;
}

static int read_object(struct snippet *s, const char *obj)
{
	int fd = open(obj, O_RDONLY | O_CLOEXEC);
	size_t shstr, text_idx = 0, init_idx = 0;
	Elf_Scn *scn = NULL, *text = NULL, *init = NULL;
	GElf_Shdr sh;
	Elf *e;
	int err = 0;

	if (fd < 0)
		return sbx_error_errno(-errno, "cannot open '%s'", obj);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstr) < 0) {
		err = sbx_error(-EINVAL, "%s: the assembler's output is not ELF: %s", s->name,
				elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(e, shstr, sh.sh_name);
		if (!n)
			continue;
		if (!strcmp(n, ".text")) {
			text = scn;
			text_idx = elf_ndxscn(scn);
		} else if (!strcmp(n, ".sbx_init")) {
			init = scn;
			init_idx = elf_ndxscn(scn);
		}
	}
	if (!text) {
		err = sbx_error(-EINVAL, "%s: no .text section in the assembled snippet", s->name);
		goto out;
	}
	{
		GElf_Shdr th;

		/* before reading it: a .fill of megabytes is a mistake, not a snippet */
		if (gelf_getshdr(text, &th) && th.sh_size > SNIPPET_MAX_CODE) {
			err = sbx_error(-E2BIG, "%s: the snippet's code is %llu bytes; sbx run takes "
					"at most %u (1 MiB)", s->name,
					(unsigned long long)th.sh_size, SNIPPET_MAX_CODE);
			goto out;
		}
	}
	err = check_relocations(e, s, text_idx, ".text");
	if (!err && init)
		err = check_relocations(e, s, init_idx, ".sbx_init");
	if (!err)
		err = copy_section(text, &s->code, &s->code_size);
	if (!err && init)
		err = copy_section(init, &s->init_code, &s->init_size);
	if (err == -ENOMEM)
		sbx_error(err, "out of memory");
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

static int disassemble(struct snippet *s, enum snippet_syntax syntax)
{
	const uint8_t *code = s->code;
	size_t left = s->code_size, cap = 0, off = 0;
	uint64_t addr = 0;
	bool oom = false;
	cs_insn *insn;
	csh cs;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return sbx_error(-EINVAL, "cannot open capstone");
	if (syntax == SNIPPET_ATT)
		cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	insn = cs_malloc(cs);
	/* one instruction at a time: memory in proportion to the code, not to capstone's */
	while (insn && cs_disasm_iter(cs, &code, &left, &addr, insn)) {
		struct snippet_insn *si;

		/* room for this one and the pseudo-instruction below */
		if ((size_t)s->n_insns + 2 > cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct snippet_insn *v = realloc(s->insns, ncap * sizeof(*v));

			if (!v) {
				oom = true;
				break;
			}
			s->insns = v;
			cap = ncap;
		}
		si = &s->insns[s->n_insns++];
		si->offset = (uint32_t)insn->address;
		si->size = insn->size;
		snprintf(si->text, sizeof(si->text), "%.31s%s%.78s", insn->mnemonic,
			 insn->op_str[0] ? " " : "", insn->op_str);
		off = insn->address + insn->size;
	}
	if (!insn || oom) {
		if (insn)
			cs_free(insn, 1);
		cs_close(&cs);
		return sbx_error(-ENOMEM, "out of memory");
	}
	if (!s->insns && !(s->insns = calloc(1, sizeof(*s->insns)))) {
		cs_free(insn, 1);
		cs_close(&cs);
		return sbx_error(-ENOMEM, "out of memory");
	}
	s->decoded_all = off >= s->code_size;
	if (off < s->code_size) {	/* bytes capstone cannot decode: one pseudo-instruction */
		struct snippet_insn *si = &s->insns[s->n_insns++];

		si->offset = (uint32_t)off;
		si->size = (uint32_t)(s->code_size - off);
		snprintf(si->text, sizeof(si->text), ".byte ... (%u bytes)", si->size);
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return 0;
}

const struct snippet_insn *snippet_insn_at(const struct snippet *s, size_t off)
{
	for (int i = 0; i < s->n_insns; i++)
		if (off >= s->insns[i].offset && off < (size_t)s->insns[i].offset + s->insns[i].size)
			return &s->insns[i];
	return NULL;
}

/* Copy from to to through util/output: complete or not there. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	struct output *out;
	int in, err;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return sbx_error_errno(-errno, "cannot open '%s'", from);
	err = output_open(to, 0644, &out);
	if (err) {
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t done = 0; done < n && !err;) {
			ssize_t w = write(output_fd(out), buf + done, (size_t)(n - done));

			if (w < 0 && errno != EINTR)
				err = sbx_error_errno(-errno, "cannot write '%s'", to);
			done += w > 0 ? w : 0;
		}
		if (err)
			break;
	}
	if (n < 0 && !err)
		err = sbx_error_errno(-errno, "cannot read '%s'", from);
	close(in);
	if (err) {
		output_abort(out);
		return err;
	}
	return output_commit(out);
}

int snippet_assemble(struct snippet *s, const struct snippet_asm_opts *o)
{
	struct tempdir dir;
	char src[PATH_MAX + 16], obj[PATH_MAX + 16], log[PATH_MAX + 16];
	int err;

	err = tempdir_make(&dir, "sbx-run");
	if (err)
		return err;
	snprintf(src, sizeof(src), "%s/snippet.s", dir.path);
	snprintf(obj, sizeof(obj), "%s/snippet.o", dir.path);
	snprintf(log, sizeof(log), "%s/as.log", dir.path);
	err = write_source(s, o, src);
	if (!err)
		err = run_assembler(s, o, src, obj, log);
	if (!err)
		err = read_object(s, obj);
	if (!err && o->dump_object)
		err = copy_file(obj, o->dump_object);
	tempdir_remove(&dir);
	if (err)
		return err;
	if (s->code_size == 0)
		return sbx_error(-EINVAL, "%s: the snippet has no instructions", s->name);
	err = disassemble(s, o->syntax);
	if (err)
		return err;
	s->insn_count = s->n_insns;
	if (s->declared_insns) {
		/* what the code holds, said where it is bytes (an exegesis document's) */
		if (s->decoded_all && s->n_insns != s->declared_insns)
			return sbx_error(-EINVAL, "%s: SBX-INSTRUCTIONS says %d instructions; the code "
					 "holds %d", s->name, s->declared_insns, s->n_insns);
		s->insn_count = s->declared_insns;
	} else if (!s->decoded_all && snippet_llvm_names(s, o->syntax, NULL) == 0 &&
		   s->n_llvm_insns > 0) {
		/* capstone lacks some instructions (AVX-512 mask moves in capstone 4): llvm-mc's count */
		s->insn_count = s->n_llvm_insns;
	}
	sbx_error_clear();
	return 0;
}

/* llvm-exegesis's spelling of the instructions ------------------------------ */

#define MAX_PROBES 200

struct probe {
	char text[40];		/* an instruction whose first register operand is name */
	char name[8];
	int operand;		/* which operand holds the register */
};

/* Copy a register name of up to 7 characters in lower case. */
static void lower_copy(char out[8], const char *name)
{
	int j = 0;

	for (; j < 7 && name[j]; j++)
		out[j] = (char)tolower((unsigned char)name[j]);
	out[j] = 0;
}

static int make_probes(struct probe *p)
{
	static const char *const gpr16[16] = {
		"AX", "CX", "DX", "BX", "SP", "BP", "SI", "DI",
		"R8W", "R9W", "R10W", "R11W", "R12W", "R13W", "R14W", "R15W" };
	static const char *const gpr8[20] = {
		"AL", "CL", "DL", "BL", "SPL", "BPL", "SIL", "DIL",
		"R8B", "R9B", "R10B", "R11B", "R12B", "R13B", "R14B", "R15B",
		"AH", "CH", "DH", "BH" };
	int n = 0;

#define PROBE(fmt, nm, op, ...) do { \
	snprintf(p[n].text, sizeof(p[n].text), fmt, __VA_ARGS__); \
	snprintf(p[n].name, sizeof(p[n].name), "%s", nm); \
	p[n].operand = op; n++; } while (0)
	for (int i = 0; i < 16; i++) {
		char lower[8];

		lower_copy(lower, gpr64[i]);
		PROBE("pushq %%%s", gpr64[i], 0, lower);
		lower_copy(lower, gpr32[i]);
		PROBE("incl %%%s", gpr32[i], 0, lower);
		lower_copy(lower, gpr16[i]);
		PROBE("incw %%%s", gpr16[i], 0, lower);
	}
	for (int i = 0; i < 20; i++) {
		char lower[8];

		lower_copy(lower, gpr8[i]);
		PROBE("incb %%%s", gpr8[i], 0, lower);
	}
	for (int i = 0; i < 32; i++) {
		char nm[8];

		snprintf(nm, sizeof(nm), "XMM%d", i);
		PROBE("vmovaps %%xmm%d, %%xmm%d", nm, 0, i, i);
		snprintf(nm, sizeof(nm), "YMM%d", i);
		PROBE("vmovaps %%ymm%d, %%ymm%d", nm, 0, i, i);
		snprintf(nm, sizeof(nm), "ZMM%d", i);
		PROBE("vmovaps %%zmm%d, %%zmm%d", nm, 0, i, i);
	}
	for (int i = 0; i < 8; i++) {
		char nm[8];

		snprintf(nm, sizeof(nm), "K%d", i);
		PROBE("kmovq %%k%d, %%k%d", nm, 0, i, i);
	}
	PROBE("leaq 0(%%rip), %%rax%s", "RIP", 1, "");
#undef PROBE
	return n;
}

struct mc_operand {
	char kind;		/* 'R' register, 'I' immediate, '?' other */
	long long value;
};

struct mc_inst {
	char name[48];
	struct mc_operand ops[8];
	int n_ops;
};

/* Parse `llvm-mc --show-inst` output: the snippet's instructions, then the probes'. */
static int parse_show_inst(FILE *f, struct mc_inst *snip, int max_snip, int *n_snip,
			   struct mc_inst *probes, int max_probes, int *n_probes)
{
	char line[1024];
	struct mc_inst *cur = NULL;
	bool in_probes = false;

	*n_snip = *n_probes = 0;
	while (fgets(line, sizeof(line), f)) {
		char *m;

		if (strstr(line, ".section") && strstr(line, ".sbxprobe")) {
			in_probes = true;
			continue;
		}
		if ((m = strstr(line, "<MCInst #"))) {
			char *name = strchr(m + 9, ' ');
			size_t len;

			cur = NULL;
			if (!in_probes && *n_snip < max_snip)
				cur = &snip[(*n_snip)++];
			else if (in_probes && *n_probes < max_probes)
				cur = &probes[(*n_probes)++];
			if (!cur || !name)
				continue;
			memset(cur, 0, sizeof(*cur));
			name++;
			len = strcspn(name, "> \n");
			snprintf(cur->name, sizeof(cur->name), "%.*s", (int)len, name);
		} else if (cur && (m = strstr(line, "<MCOperand "))) {
			struct mc_operand *op;

			if (cur->n_ops == 8)
				continue;
			op = &cur->ops[cur->n_ops++];
			m += 11;
			if (!strncmp(m, "Reg:", 4)) {
				op->kind = 'R';
				op->value = strtoll(m + 4, NULL, 10);
			} else if (!strncmp(m, "Imm:", 4)) {
				op->kind = 'I';
				op->value = strtoll(m + 4, NULL, 10);
			} else {
				op->kind = '?';
			}
		}
	}
	return 0;
}

int snippet_llvm_names(struct snippet *s, enum snippet_syntax syntax, const char *llvm_mc)
{
	static const char *const defaults[] = { "llvm-mc-14", "llvm-mc" };
	struct tempdir dir;
	char src[PATH_MAX + 24], out[PATH_MAX + 24], errp[PATH_MAX + 24];
	struct probe *probes = NULL;
	struct mc_inst *snip = NULL, *pins = NULL;
	struct workload_status st;
	int n_probes, n_snip = 0, n_pins = 0, err = -ENOENT;
	FILE *f;

	err = tempdir_make(&dir, "sbx-run");
	if (err)
		return err;
	err = -ENOENT;
	snprintf(src, sizeof(src), "%s/snippet.s", dir.path);
	snprintf(out, sizeof(out), "%s/show-inst.txt", dir.path);
	snprintf(errp, sizeof(errp), "%s/errors.txt", dir.path);
	probes = calloc(MAX_PROBES, sizeof(*probes));
	snip = calloc(1024, sizeof(*snip));
	pins = calloc(MAX_PROBES, sizeof(*pins));
	if (!probes || !snip || !pins) {
		err = sbx_error(-ENOMEM, "out of memory");
		goto out;
	}
	n_probes = make_probes(probes);
	f = fopen(src, "w");
	if (!f) {
		err = sbx_error_errno(-errno, "cannot create '%s'", src);
		goto out;
	}
	fprintf(f, ".text\n%s%s\n.att_syntax prefix\n.section .sbxprobe,\"ax\",@progbits\n",
		syntax == SNIPPET_INTEL ? ".intel_syntax noprefix\n" : "", s->text);
	for (int i = 0; i < n_probes; i++)
		fprintf(f, "%s\n", probes[i].text);
	if (fclose(f) != 0) {
		err = sbx_error(-EIO, "cannot write '%s'", src);
		goto out;
	}
	for (size_t i = 0; i < 2 && err == -ENOENT; i++) {
		const char *mc = llvm_mc ? llvm_mc : defaults[i];
		char *argv[] = { (char *)mc, "--show-inst", "-triple=x86_64-unknown-linux-gnu",
				 (char *)src, NULL };

		err = run_tool(argv, out, errp, NULL, &st);
		if (llvm_mc)
			break;
	}
	if (err == -ENOENT) {
		err = sbx_error(err, "no llvm-mc to name the instructions as LLVM does");
		goto out;
	}
	if (err < 0)
		goto out;
	if (!st.exited || st.exit_code != 0) {
		err = sbx_error(-EINVAL, "%s: llvm-mc cannot read the snippet", s->name);
		goto out;
	}
	f = fopen(out, "r");
	if (!f) {
		err = sbx_error_errno(-errno, "cannot open '%s'", out);
		goto out;
	}
	parse_show_inst(f, snip, 1024, &n_snip, pins, MAX_PROBES, &n_pins);
	fclose(f);
	if (n_pins != n_probes) {
		err = sbx_error(-EINVAL, "unexpected llvm-mc output (%d of %d probes)", n_pins,
				n_probes);
		goto out;
	}
	for (int i = 0; i < s->n_llvm_insns; i++)
		free(s->llvm_insns[i]);
	free(s->llvm_insns);
	s->n_llvm_insns = 0;
	s->llvm_insns = calloc((size_t)n_snip + 1, sizeof(char *));
	if (!s->llvm_insns) {
		err = sbx_error(-ENOMEM, "out of memory");
		goto out;
	}
	for (int i = 0; i < n_snip; i++) {
		char buf[512];
		size_t used = (size_t)snprintf(buf, sizeof(buf), "%s", snip[i].name);

		for (int o = 0; o < snip[i].n_ops && used < sizeof(buf); o++) {
			const struct mc_operand *op = &snip[i].ops[o];
			const char *name = NULL;

			if (op->kind == 'R' && op->value == 0)
				name = "%noreg";
			for (int p = 0; op->kind == 'R' && !name && p < n_pins; p++) {
				const struct mc_inst *pi = &pins[p];

				if (probes[p].operand < pi->n_ops &&
				    pi->ops[probes[p].operand].value == op->value)
					name = probes[p].name;
			}
			if (op->kind == 'R')
				used += (size_t)snprintf(buf + used, sizeof(buf) - used, " %s",
							 name ? name : "%unknown");
			else if (op->kind == 'I')
				used += (size_t)snprintf(buf + used, sizeof(buf) - used, " i_0x%llx",
							 (unsigned long long)op->value);
			else
				used += (size_t)snprintf(buf + used, sizeof(buf) - used, " ?");
		}
		s->llvm_insns[i] = strdup(buf);
		if (!s->llvm_insns[i]) {
			err = sbx_error(-ENOMEM, "out of memory");
			goto out;
		}
		s->n_llvm_insns++;
	}
	err = 0;
out:
	free(probes);
	free(snip);
	free(pins);
	tempdir_remove(&dir);
	return err;
}
