// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "util/error.h"
#include "measure/snippet.h"

static void test_register_names(void)
{
	struct snippet_reg r;

	CHECK_EQ_INT(snippet_parse_reg("RAX", &r), 0);
	CHECK(r.cls == SNIPPET_REG_GPR && r.num == 0 && !r.narrow);
	CHECK_EQ_INT(snippet_parse_reg("%r15d", &r), 0);
	CHECK(r.cls == SNIPPET_REG_GPR && r.num == 15 && r.narrow);
	CHECK_EQ_INT(snippet_parse_reg("xmm31", &r), 0);
	CHECK(r.cls == SNIPPET_REG_XMM && r.num == 31);
	CHECK_EQ_INT(snippet_parse_reg("ZMM2", &r), 0);
	CHECK(r.cls == SNIPPET_REG_ZMM && r.num == 2);
	CHECK_EQ_INT(snippet_parse_reg("k7", &r), 0);
	CHECK(r.cls == SNIPPET_REG_MASK && r.num == 7);
	CHECK_EQ_INT(snippet_parse_reg("fs", &r), 0);
	CHECK(r.cls == SNIPPET_REG_SEG && r.num == 0);
	CHECK_EQ_INT(snippet_parse_reg("%GS", &r), 0);
	CHECK(r.cls == SNIPPET_REG_SEG && r.num == 1);
	CHECK_EQ_INT(snippet_parse_reg("RSP", &r), 0);
	CHECK(r.cls == SNIPPET_REG_GPR && r.num == SNIPPET_RSP);
	CHECK_EQ_INT(snippet_parse_reg("XMM32", &r), -EINVAL);
	CHECK_EQ_INT(snippet_parse_reg("K8", &r), -EINVAL);
	CHECK_EQ_INT(snippet_parse_reg("", &r), -EINVAL);
	CHECK_EQ_INT(snippet_parse_reg("RAXX", &r), -EINVAL);
}

static void test_annotations_both_spellings(void)
{
	struct snippet *s;
	const char *text =
		"# LLVM-EXEGESIS-DEFREG RAX 1\n"
		"  #   SBX-DEFREG XMM1 ff\n"		/* a vector register sign-extends: all ones */
		"// SBX-DEFREG RCX 7f\n"
		"# LLVM-EXEGESIS-LIVEIN RSI\n"
		"# LLVM-EXEGESIS-MEM-DEF blk 8192 1234\n"
		"# LLVM-EXEGESIS-MEM-MAP blk 65536\n"
		"# LLVM-EXEGESIS-SNIPPET-ADDRESS 20000\n"
		"# LLVM-EXEGESIS-LOOP-REGISTER R12\n"
		"addq %rax, %rax # a plain comment\n";

	CHECK_EQ_INT(snippet_parse("t.s", text, &s), 0);
	if (!s)
		return;
	CHECK_EQ_INT(s->n_defregs, 3);
	CHECK_EQ_STR(s->defregs[0].name, "RAX");
	CHECK_EQ_INT(s->defregs[0].value[0], 1);
	CHECK_EQ_INT(s->defregs[0].value[1], 0);
	CHECK_EQ_INT(s->defregs[0].line, 1);
	CHECK(s->defregs[1].reg.cls == SNIPPET_REG_XMM);
	CHECK_EQ_INT(s->defregs[1].value[0], 0xff);
	CHECK_EQ_INT(s->defregs[1].value[15], 0xff);
	CHECK_EQ_INT(s->defregs[2].value[0], 0x7f);
	CHECK_EQ_INT(s->defregs[2].value[7], 0);
	CHECK_EQ_INT(s->n_liveins, 1);
	CHECK_EQ_INT(s->liveins[0].num, SNIPPET_RSI);
	CHECK_EQ_INT(s->n_memdefs, 1);
	CHECK_EQ_U64(s->memdefs[0].size, 8192);
	CHECK_EQ_INT(s->memdefs[0].value_len, 2);
	CHECK_EQ_INT(s->memdefs[0].value[0], 0x34);	/* little endian */
	CHECK_EQ_INT(s->memdefs[0].value[1], 0x12);
	CHECK_EQ_INT(s->n_memmaps, 1);
	CHECK_EQ_U64(s->memmaps[0].addr, 65536);
	CHECK_EQ_U64(s->address, 0x20000);
	CHECK_EQ_INT(s->loop_reg, 12);
	snippet_free(s);
}

static void test_narrow_gpr_zero_extends(void)
{
	struct snippet *s;

	CHECK_EQ_INT(snippet_parse("t.s", "# SBX-DEFREG EAX 80000000\n", &s), 0);
	if (!s)
		return;
	CHECK_EQ_INT(s->defregs[0].value[3], 0x80);
	CHECK_EQ_INT(s->defregs[0].value[4], 0);
	snippet_free(s);
}

static void expect_error(const char *text, const char *msg)
{
	struct snippet *s = (struct snippet *)1;

	CHECK_EQ_INT(snippet_parse("f.s", text, &s), -EINVAL);
	CHECK(s == NULL);
	CHECK_EQ_STR(sbx_error_msg(), msg);
}

/* The value's top byte and the next one up, for each class's widening */
static void check_widened(const char *text, int width, int digits_bytes, uint8_t top, uint8_t above)
{
	struct snippet *s;

	CHECK_EQ_INT(snippet_parse("t.s", text, &s), 0);
	if (!s)
		return;
	CHECK_EQ_INT(s->defregs[0].value[digits_bytes - 1], top);
	for (int i = digits_bytes; i < width; i++)
		CHECK_EQ_INT(s->defregs[0].value[i], above);
	snippet_free(s);
}

/*
 * llvm-exegesis (X86 Target.cpp setRegTo) loads general registers and the
 * FS/GS base with a MOV of the value's zero extension and mask registers
 * with a zero-extending KMOV; vector registers and EFLAGS through the
 * stack, the value sign-extended to the register's width.
 */
static void test_defreg_widening_per_class(void)
{
	check_widened("# LLVM-EXEGESIS-DEFREG RSI B\n", 8, 1, 0x0b, 0);
	check_widened("# LLVM-EXEGESIS-DEFREG RCX 80\n", 8, 1, 0x80, 0);
	check_widened("# LLVM-EXEGESIS-DEFREG ESI ffffffff\n", 4, 4, 0xff, 0);
	check_widened("# LLVM-EXEGESIS-DEFREG FS 8000\n", 8, 2, 0x80, 0);
	check_widened("# LLVM-EXEGESIS-DEFREG K1 80\n", 8, 1, 0x80, 0);
	check_widened("# LLVM-EXEGESIS-DEFREG XMM1 80\n", 16, 1, 0x80, 0xff);
	check_widened("# LLVM-EXEGESIS-DEFREG YMM2 f80\n", 32, 2, 0xff, 0xff);
	check_widened("# LLVM-EXEGESIS-DEFREG ZMM3 080\n", 64, 2, 0x00, 0);
	/* EFLAGS: sign-extended, then only the status flags and DF taken (0xcd7) */
	check_widened("# LLVM-EXEGESIS-DEFREG EFLAGS 8\n", 8, 2, 0x0c, 0);
	check_widened("# LLVM-EXEGESIS-DEFREG EFLAGS 40302\n", 8, 1, 0x02, 0);
	/* a 32-bit name takes 8 digits at most, as exegesis's MOV32ri */
	expect_error("# LLVM-EXEGESIS-DEFREG ESI 1ffffffff\n",
		     "f.s:1: invalid annotation 'LLVM-EXEGESIS-DEFREG ESI 1ffffffff': expected "
		     "<HEX_VALUE>: hex digits that fit the register");
	/* EFLAGS and XMM0 are two registers, not one defined twice */
	check_widened("# LLVM-EXEGESIS-DEFREG EFLAGS 0\n# LLVM-EXEGESIS-DEFREG XMM0 1\n", 8, 1, 0,
		      0);
}

static void test_malformed(void)
{
	expect_error("nop\n# LLVM-EXEGESIS-DEFREG RAX\n",
		     "f.s:2: invalid annotation 'LLVM-EXEGESIS-DEFREG RAX': expected two "
		     "parameters <REG> <HEX_VALUE>");
	expect_error("# SBX-DEFREG RAX 12345678901234567\n",
		     "f.s:1: invalid annotation 'SBX-DEFREG RAX 12345678901234567': expected "
		     "<HEX_VALUE>: hex digits that fit the register");
	expect_error("# SBX-DEFREG RAX xyz\n",
		     "f.s:1: invalid annotation 'SBX-DEFREG RAX xyz': expected <HEX_VALUE>: hex "
		     "digits that fit the register");
	expect_error("# SBX-DEFREG FS 1\n# SBX-DEFREG fs 2\n",
		     "f.s:2: invalid annotation 'SBX-DEFREG fs 2': the register is already defined");
	expect_error("# SBX-DEFREG GS 8000000000000000\n",
		     "f.s:1: invalid annotation 'SBX-DEFREG GS 8000000000000000': FS and GS take a "
		     "user-space address below 0x7ff000000000");
	expect_error("# SBX-DEFREG ES 1\n",
		     "f.s:1: invalid annotation 'SBX-DEFREG ES 1': expected a register name (RAX..R15, "
		     "EAX.., XMM0..31, YMM, ZMM, K0..7, FS, GS, EFLAGS)");
	expect_error("# SBX-DEFREG RAX 1\n# SBX-DEFREG RAX 2\n",
		     "f.s:2: invalid annotation 'SBX-DEFREG RAX 2': the register is already defined");
	expect_error("# SBX-MEM-DEF a 0 1\n",
		     "f.s:1: invalid annotation 'SBX-MEM-DEF a 0 1': expected <SIZE>: a decimal "
		     "number of bytes, 1 to 1073741824");
	expect_error("# SBX-SNIPPET-ADDRESS 1001\n",
		     "f.s:1: invalid annotation 'SBX-SNIPPET-ADDRESS 1001': expected <HEX_ADDRESS>: "
		     "a hex, non-zero multiple of the page size below 7ff000000000 (room for the "
		     "code under the top of user space)");
	/* the top page of user space is a multiple of the page size, but not a place for code */
	expect_error("# SBX-SNIPPET-ADDRESS 7ffffffff000\n",
		     "f.s:1: invalid annotation 'SBX-SNIPPET-ADDRESS 7ffffffff000': expected "
		     "<HEX_ADDRESS>: a hex, non-zero multiple of the page size below 7ff000000000 "
		     "(room for the code under the top of user space)");
	/* one address, as DEFREG and MEM-DEF take one definition */
	expect_error("# SBX-SNIPPET-ADDRESS 10000\nnop\n# SBX-SNIPPET-ADDRESS 20000\n",
		     "f.s:3: invalid annotation 'SBX-SNIPPET-ADDRESS 20000': the snippet's address "
		     "was given already (line 1)");
	/* two MEM-MAPs sharing a page: refused where they are written */
	expect_error("# SBX-MEM-DEF a 8192 1\n# SBX-MEM-DEF b 16 2\n# SBX-MEM-MAP a 65536\n"
		     "# SBX-MEM-MAP b 69632\n",
		     "f.s:4: invalid annotation 'SBX-MEM-MAP b 69632': its pages overlap those of "
		     "MEM-MAP a 65536 (line 3)");
	expect_error("# SBX-LOOP-REGISTER XMM0\n",
		     "f.s:1: invalid annotation 'SBX-LOOP-REGISTER XMM0': expected a 64-bit "
		     "general register other than RSP");
	expect_error("# SBX-\n", "f.s:1: empty SBX- annotation");
}

static void test_insn_at(void)
{
	struct snippet s = { 0 };
	struct snippet_insn in[2] = { { 0, 3, "a" }, { 3, 4, "b" } };

	s.insns = in;
	s.n_insns = 2;
	CHECK_EQ_STR(snippet_insn_at(&s, 0)->text, "a");
	CHECK_EQ_STR(snippet_insn_at(&s, 2)->text, "a");
	CHECK_EQ_STR(snippet_insn_at(&s, 3)->text, "b");
	CHECK(snippet_insn_at(&s, 7) == NULL);
}

static void test_assemble(void)
{
	struct snippet_asm_opts o = { .syntax = SNIPPET_ATT };
	struct snippet *s;

	CHECK_EQ_INT(snippet_parse("t.s", "# SBX-DEFREG XMM1 1\naddq %rbx, %rax\nimulq %rax, %rax\n",
				   &s), 0);
	if (!s)
		return;
	if (snippet_assemble(s, &o) < 0) {
		snippet_free(s);
		SKIP("no assembler");
	}
	CHECK_EQ_INT(s->code_size, 7);
	CHECK_EQ_INT(s->n_insns, 2);
	CHECK_EQ_INT(s->insn_count, 2);
	CHECK(s->decoded_all);
	CHECK_EQ_STR(s->insns[1].text, "imulq %rax, %rax");
	CHECK_EQ_INT(s->insns[1].offset, 3);
	/* the set-up: the start state, then the XMM1 DEFREG's load after it */
	{
		struct snippet *plain;
		size_t with = s->init_size;

		CHECK_EQ_INT(snippet_parse("p.s", "addq %rbx, %rax\n", &plain), 0);
		if (plain && snippet_assemble(plain, &o) == 0) {
			CHECK(plain->init_size > 0);
			CHECK(with > plain->init_size);
			/* both start alike: the start state comes first */
			CHECK(!memcmp(s->init_code, plain->init_code, plain->init_size - 6));
		}
		snippet_free(plain);
	}
	snippet_free(s);
}

static const struct unit_test tests[] = {
	TEST(test_register_names),
	TEST(test_annotations_both_spellings),
	TEST(test_narrow_gpr_zero_extends),
	TEST(test_defreg_widening_per_class),
	TEST(test_malformed),
	TEST(test_insn_at),
	TEST(test_assemble),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
