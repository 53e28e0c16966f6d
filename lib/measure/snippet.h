/* SPDX-License-Identifier: MIT */
#ifndef SBX_SNIPPET_H
#define SBX_SNIPPET_H

/*
 * An assembly snippet for `sbx run`: its annotations (SBX-* or the
 * LLVM-EXEGESIS-* spellings), its machine code assembled with the system
 * assembler and pulled out of .text with libelf, and its disassembly.
 *
 *   snippet_parse()      text -> annotations (no assembler yet)
 *   snippet_assemble()   assembler + libelf + capstone
 *   snippet_free()
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Register classes of DEFREG/LIVEIN. */
enum snippet_reg_class {
	SNIPPET_REG_GPR,	/* rax..r15 (also the 32-bit names eax..r15d) */
	SNIPPET_REG_XMM,	/* 16 bytes */
	SNIPPET_REG_YMM,	/* 32 bytes */
	SNIPPET_REG_ZMM,	/* 64 bytes */
	SNIPPET_REG_MASK,	/* k0..k7, 8 bytes */
	SNIPPET_REG_SEG,	/* the FS (0) and GS (1) segment bases, 8 bytes */
	SNIPPET_REG_FLAGS,	/* RFLAGS (EFLAGS), 8 bytes, loaded with popfq */
};

/* The bits of a DEFREG EFLAGS that are taken: CF PF AF ZF SF DF OF, and bit 1 (always 1) */
#define SNIPPET_FLAGS_TAKEN	0xcd7ull

/* x86-64 general register numbers, in encoding order. */
enum { SNIPPET_RAX, SNIPPET_RCX, SNIPPET_RDX, SNIPPET_RBX, SNIPPET_RSP, SNIPPET_RBP,
       SNIPPET_RSI, SNIPPET_RDI, SNIPPET_R8 };

struct snippet_reg {
	enum snippet_reg_class cls;
	int num;		/* encoding number (0-15 GPR, 0-31 vector, 0-7 mask, 0-1 FS/GS) */
	bool narrow;		/* a 32-bit GPR name: the value is zero-extended from 32 bits */
};

/*
 * DEFREG: a register and its initial value, little endian, widened as
 * llvm-exegesis widens it: vector registers and RFLAGS sign-extended from
 * the top hex digit, general, mask and segment registers zero-extended.
 */
struct snippet_defreg {
	struct snippet_reg reg;
	char name[16];		/* as written, upper case */
	uint8_t value[64];	/* the register's bytes; GPR: 8, XMM 16, YMM 32, ZMM 64, k 8 */
	int line;
};

/* MEM-DEF: a named block filled with a repeated value. */
struct snippet_memdef {
	char name[64];
	size_t size;		/* bytes */
	uint8_t *value;		/* the pattern, repeated to fill size */
	size_t value_len;
};

/* MEM-MAP: a block mapped at a fixed address in the child. */
struct snippet_memmap {
	int def;		/* index into memdefs */
	uint64_t addr;		/* page multiple */
	int line;		/* of the annotation, for messages */
};

/* One decoded instruction of the snippet. */
/* The most code a snippet may assemble to (its .text) */
#define SNIPPET_MAX_CODE	(1u << 20)
/* The address space the assembler may use (RLIMIT_AS) */
#define SNIPPET_MAX_ASSEMBLER_MEMORY	(1ull << 30)

struct snippet_insn {
	uint32_t offset, size;
	char text[112];		/* "movq (%rbx), %rax" */
};

struct snippet {
	char *name;			/* file name, "-" for stdin, "<asm>" for --asm */
	char *text;			/* the source as given */
	struct snippet_defreg *defregs;
	int n_defregs;
	struct snippet_reg *liveins;
	int n_liveins;
	struct snippet_memdef *memdefs;
	int n_memdefs;
	struct snippet_memmap *memmaps;
	int n_memmaps;
	uint64_t address;		/* SNIPPET-ADDRESS; 0 when none */
	int address_line;		/* its line */
	int loop_reg;			/* LOOP-REGISTER, a GPR number; default r8 */
	int declared_insns;		/* SBX-INSTRUCTIONS; 0 when none */

	/* filled by snippet_assemble() */
	uint8_t *code;			/* the snippet's .text */
	size_t code_size;
	uint8_t *init_code;		/* .sbx_init: start state, vector, mask and flag
				   DEFREGs (uses rax and the stack) */
	size_t init_size;
	struct snippet_insn *insns;	/* capstone's decoding; bytes it cannot decode
					   end it as one ".byte" pseudo-instruction */
	int n_insns;
	int insn_count;			/* instructions, what values are divided by:
					   SBX-INSTRUCTIONS, else capstone's count, or
					   llvm-mc's where capstone could not decode
					   everything */
	bool decoded_all;		/* capstone decoded every byte */

	/* filled by snippet_llvm_names() */
	char **llvm_insns;		/* "ADD64rr RAX RAX RBX", as llvm-exegesis writes them */
	int n_llvm_insns;
};

enum snippet_syntax { SNIPPET_ATT, SNIPPET_INTEL };

struct snippet_asm_opts {
	enum snippet_syntax syntax;
	const char *assembler;		/* "as" (GNU-compatible) or an llvm-mc; NULL: "as" */
	const char *dump_object;	/* keep the object file here; NULL: don't */
	double timeout_s;		/* end the assembler after this long; 0: 60 s */
	const volatile sig_atomic_t *stop;	/* set: end the assembler now (workload_opts.stop) */
};

/*
 * Parse the annotations in text (comments starting with SBX- or
 * LLVM-EXEGESIS-, after '#' or ';' or '//'): DEFREG REG HEX, LIVEIN REG,
 * MEM-DEF NAME SIZE HEX, MEM-MAP NAME ADDR, SNIPPET-ADDRESS HEX,
 * LOOP-REGISTER REG. name is used in messages ("name:LINE: ..."); text
 * is copied. Returns 0 and a new snippet in *out (snippet_free()), or
 * -EINVAL with a message naming the file, the line and what was expected.
 */
int snippet_parse(const char *name, const char *text, struct snippet **out);

/*
 * Assemble s->text with the assembler of o, extract .text with libelf
 * (a relocation is an error naming its symbol), assemble the register
 * set-up, and decode the instructions with capstone. Returns 0, or a
 * negative errno with a message (the assembler's own first lines
 * included).
 */
int snippet_assemble(struct snippet *s, const struct snippet_asm_opts *o);

/*
 * Name the snippet's instructions as llvm-exegesis does in its YAML key
 * ("ADD64rr RAX RAX RBX", immediates "i_0x3", no register "%noreg"), from
 * `llvm-mc --show-inst` (llvm_mc; NULL tries llvm-mc-14, then llvm-mc).
 * Register numbers are named by assembling probe instructions in the same
 * run. Fills s->llvm_insns. Returns 0, -ENOENT when no llvm-mc is found,
 * or another negative errno, each with a message.
 */
int snippet_llvm_names(struct snippet *s, enum snippet_syntax syntax, const char *llvm_mc);

/* The instruction at byte offset off of the snippet, or NULL. */
const struct snippet_insn *snippet_insn_at(const struct snippet *s, size_t off);

/* Parse a register name ("RAX", "%xmm1", "k2", "r8d"); 0 or -EINVAL. */
int snippet_parse_reg(const char *name, struct snippet_reg *reg);

/* The bytes of a register's value: 16, 32, 64 for XMM, YMM, ZMM, 4 for a 32-bit GPR name, else 8 */
size_t snippet_reg_width(const struct snippet_reg *r);

void snippet_free(struct snippet *s);

#endif
