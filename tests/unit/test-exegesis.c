// SPDX-License-Identifier: MIT
/* llvm-exegesis's benchmark YAML: the reader and the snippets made from it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/error.h"
#include "measure/exegesis.h"

/* two documents as llvm-exegesis 19 wrote them (-mode=latency, prepare-and-assemble-snippet) */
static const char crc_and_apx[] =
	"---\n"
	"mode:            latency\n"
	"key:\n"
	"  instructions:\n"
	"    - 'CRC32r64r64 R12 R12 RBP'\n"
	"  config:          ''\n"
	"  register_initial_values:\n"
	"    - 'R12=0x0'\n"
	"    - 'RBP=0x0'\n"
	"cpu_name:        znver5\n"
	"llvm_triple:     x86_64-pc-linux-gnu\n"
	"min_instructions: 10000\n"
	"measurements:    []\n"
	"error:           actual measurements skipped.\n"
	"info:            Repeating a single implicitly serial instruction\n"
	"assembled_snippet: 55415449BC000000000000000048BD0000000000000000F24C0F38F1E5F24C0F38F1E5"
	"F24C0F38F1E5F24C0F38F1E5415C5DC3\n"
	"...\n"
	"---\n"
	"mode:            latency\n"
	"key:\n"
	"  instructions:\n"
	"    - 'ADC16ri8_EVEX BX BX i_0x1'\n"
	"  config:          ''\n"
	"  register_initial_values:\n"
	"    - 'BX=0x0'\n"
	"    - 'EFLAGS=0x0'\n"
	"cpu_name:        znver5\n"
	"llvm_triple:     x86_64-pc-linux-gnu\n"
	"num_repetitions: 500\n"
	"measurements:    []\n"
	"error:           actual measurements skipped.\n"
	"info:            Repeating a single implicitly serial instruction\n"
	"assembled_snippet: 5366BB00004883EC08C7042400000000C7442404000000009D62F47D0883D301"
	"62F47D0883D30162F47D0883D30162F47D0883D3015BC3\n"
	"...\n";

static FILE *stream(const char *text)
{
	return fmemopen((void *)text, strlen(text), "r");
}

static void test_reader_fields(void)
{
	FILE *f = stream(crc_and_apx);
	struct exegesis_reader *r = exegesis_reader_new(f, "t.yaml");
	struct exegesis_doc d;

	CHECK_EQ_INT(exegesis_reader_next(r, &d), 1);
	CHECK_EQ_INT(d.line, 2);
	CHECK_EQ_STR(d.mode, "latency");
	CHECK_EQ_INT(d.n_instructions, 1);
	CHECK_EQ_STR(d.instructions[0], "CRC32r64r64 R12 R12 RBP");
	CHECK_EQ_INT(d.n_reg_values, 2);
	CHECK_EQ_STR(d.reg_values[1], "RBP=0x0");
	CHECK_EQ_STR(d.cpu_name, "znver5");
	CHECK_EQ_STR(d.config, "");
	CHECK_EQ_U64(d.min_instructions, 10000);
	CHECK_EQ_STR(d.error, "actual measurements skipped.");
	CHECK_EQ_U64(d.code_size, 51);
	CHECK_EQ_INT(d.code[0], 0x55);
	exegesis_doc_release(&d);
	CHECK_EQ_INT(exegesis_reader_next(r, &d), 1);
	CHECK_EQ_U64(d.min_instructions, 500);	/* llvm-exegesis 14's key */
	exegesis_doc_release(&d);
	CHECK_EQ_INT(exegesis_reader_next(r, &d), 0);
	CHECK_EQ_INT(exegesis_reader_next(r, &d), 0);
	exegesis_reader_free(r);
	fclose(f);
}

/* The snippet of document n (from 0) of text. */
static char *snippet_of(const char *text, int n, char *unset, size_t len)
{
	FILE *f = stream(text);
	struct exegesis_reader *r = exegesis_reader_new(f, "t.yaml");
	struct exegesis_doc d;
	char *s = NULL;

	for (int i = 0; i <= n; i++) {
		if (exegesis_reader_next(r, &d) != 1)
			break;
		if (i == n && exegesis_doc_snippet(&d, &s, unset, len) < 0)
			s = NULL;
		exegesis_doc_release(&d);
	}
	exegesis_reader_free(r);
	fclose(f);
	return s;
}

static void test_snippet_from_copies(void)
{
	char unset[64], *s;

	/* decoded: the last copy before "pop %r12; pop %rbp; ret" (pushed rbp, then r12) */
	s = snippet_of(crc_and_apx, 0, unset, sizeof(unset));
	CHECK_EQ_STR(s, "# llvm-exegesis: CRC32r64r64 R12 R12 RBP\n"
			"# LLVM-EXEGESIS-DEFREG RBP 0000000000000000\n"
			"# LLVM-EXEGESIS-DEFREG R12 0000000000000000\n"
			"# SBX-INSTRUCTIONS 1\n"
			".byte 0xf2,0x4c,0x0f,0x38,0xf1,0xe5\n");
	CHECK_EQ_STR(unset, "");
	free(s);
	/* APX, which capstone 4 cannot decode: the shortest repeated tail; BX as RBX */
	s = snippet_of(crc_and_apx, 1, unset, sizeof(unset));
	CHECK_EQ_STR(s, "# llvm-exegesis: ADC16ri8_EVEX BX BX i_0x1\n"
			"# LLVM-EXEGESIS-DEFREG RBX 0000000000000000\n"
			"# LLVM-EXEGESIS-DEFREG EFLAGS 0000000000000000\n"
			"# SBX-INSTRUCTIONS 1\n"
			".byte 0x62,0xf4,0x7d,0x08,0x83,0xd3,0x01\n");
	CHECK_EQ_STR(unset, "");
	free(s);
}

/* capstone 4 cannot decode these: the period of the longest run of copies, not two zeros */
static void test_undecodable_copies(void)
{
	static const char doc[] =
		"---\nmode: latency\nkey:\n  instructions: [ 'X' ]\n"
		"assembled_snippet: 62F47D08000062F47D08000062F47D08000062F47D080000C3\n";
	char unset[64], *s = snippet_of(doc, 0, unset, sizeof(unset));

	CHECK_EQ_STR(s, "# llvm-exegesis: X\n# SBX-INSTRUCTIONS 1\n.byte 0x62,0xf4,0x7d,0x08,0x00,0x00\n");
	free(s);
}

/* llvm-exegesis's loop mode ends in its loop, not in copies: the loop's body, not its jne */
static void test_loop_mode(void)
{
	/* an older document: the body is one copy */
	static const char old_doc[] =
		"---\nmode: latency\nkey:\n  instructions: [ 'ADD64rr RAX RAX RAX' ]\n"
		"assembled_snippet: 4801C04983C0FF75F7C3\n";
	/*
	 * llvm-exegesis 19 -repetition-mode=loop: the counter set, a nop to
	 * align, two copies in the body, add $-1,%r8; jne; the pops
	 */
	static const char new_doc[] =
		"---\nmode: latency\nkey:\n  instructions: [ 'ADD64rr R15 R15 R12' ]\n"
		"min_instructions: 10000\n"
		"assembled_snippet: 4157415449BF000000000000000049BC000000000000000049B80200000000000000"
		"66666666662E0F1F8400000000004D01E74D01E74983C0FF75F4415C415FC3\n";
	/* a body of two copies of which the second differs: not what exegesis writes */
	static const char bad_doc[] =
		"---\nmode: latency\nkey:\n  instructions: [ 'X' ]\nmin_instructions: 100\n"
		"assembled_snippet: 4D01E74D01E64983C0FF75F4C3\n";
	char unset[64], *s;

	s = snippet_of(old_doc, 0, unset, sizeof(unset));
	CHECK_EQ_STR(s, "# llvm-exegesis: ADD64rr RAX RAX RAX\n# SBX-INSTRUCTIONS 1\n"
			".byte 0x48,0x01,0xc0\n");
	free(s);
	s = snippet_of(new_doc, 0, unset, sizeof(unset));
	CHECK_EQ_STR(s, "# llvm-exegesis: ADD64rr R15 R15 R12\n"
			"# SBX-INSTRUCTIONS 1\n"
			".byte 0x4d,0x01,0xe7\n");
	free(s);
	CHECK(!snippet_of(bad_doc, 0, unset, sizeof(unset)));
	CHECK_EQ_STR(sbx_error_msg(), "the loop in assembled_snippet holds no copy of the snippet's 1 "
				      "instructions");
}

/*
 * llvm-exegesis 19's KMOVDkr K5 R13D; KMOVBrk_EVEX ECX K5 (-mcpu=znver4), which
 * capstone 4 cannot decode: one of the four copies, two instructions
 */
static void test_copies_from_bytes(void)
{
	static const char doc[] =
		"---\nmode: latency\nkey:\n  instructions:\n    - 'KMOVDkr K5 R13D'\n"
		"    - 'KMOVBrk_EVEX ECX K5'\nmin_instructions: 10000\n"
		"assembled_snippet: 415541BD00000000C4C17B92ED62F17D0893CDC4C17B92ED62F17D0893CDC4C17B92ED"
		"62F17D0893CDC4C17B92ED62F17D0893CD415DC3\n";
	/* two alike instructions: the copy is both (eight alike in a row), not one */
	static const char twice[] =
		"---\nmode: latency\nkey:\n  instructions: [ 'NOP', 'NOP' ]\nmin_instructions: 10000\n"
		"assembled_snippet: 9090909090909090C3\n";
	char unset[64], *s;

	s = snippet_of(doc, 0, unset, sizeof(unset));
	CHECK_EQ_STR(s, "# llvm-exegesis: KMOVDkr K5 R13D, ...\n# SBX-INSTRUCTIONS 2\n"
			".byte 0xc4,0xc1,0x7b,0x92,0xed,0x62,0xf1,0x7d,0x08,0x93,0xcd\n");
	free(s);
	s = snippet_of(twice, 0, unset, sizeof(unset));
	CHECK_EQ_STR(s, "# llvm-exegesis: NOP, ...\n# SBX-INSTRUCTIONS 2\n.byte 0x90,0x90\n");
	free(s);
}

/* sbx's own YAML: one copy of the code, no epilogue; four alike adds are four, not one */
static void test_own_yaml(void)
{
	static const char doc[] =
		"---\nmode: latency\nkey:\n  instructions: [ 'ADD64rr RAX RAX RBX', 'ADD64rr RAX RAX RBX',\n"
		"    'ADD64rr RAX RAX RBX', 'ADD64rr RAX RAX RBX' ]\nmin_instructions: 10000\n"
		"assembled_snippet: 4801D84801D84801D84801D8\n";
	char unset[64], *s = snippet_of(doc, 0, unset, sizeof(unset));

	CHECK_EQ_STR(s, "# llvm-exegesis: ADD64rr RAX RAX RBX, ...\n# SBX-INSTRUCTIONS 4\n"
			".byte 0x48,0x01,0xd8,0x48,0x01,0xd8,0x48,0x01,0xd8,0x48,0x01,0xd8\n");
	free(s);
}

static void test_register_values(void)
{
	static const char doc[] =
		"---\nmode: latency\nkey:\n  instructions: [ 'X', 'Y' ]\n"
		"  register_initial_values: [ 'AX=0x1234', 'AH=0x56', 'R9B=0x7f', 'ECX=0x80000000',\n"
		"    'ZMM1=0x2', 'XMM1=0x1', 'K2=0xff', 'MXCSR=0x0', 'MM0=0x1', 'YMM3=0x3',\n"
		"    'XMM3=0x4', 'EFLAGS=0x246', 'FPCW=0x0' ]\n"
		"assembled_snippet: 90909090C3\n";
	char unset[64], *s = snippet_of(doc, 0, unset, sizeof(unset));

	/* zero-padded to the width: DEFREG would sign-extend 0x80000000 */
	CHECK_EQ_STR(s, "# llvm-exegesis: X, ...\n"
			/* one register of XMMn, YMMn, ZMMn: the widest */
			"# LLVM-EXEGESIS-DEFREG ZMM1 0000000000000000000000000000000000000000000000000000000000000000"
			"0000000000000000000000000000000000000000000000000000000000000002\n"
			"# LLVM-EXEGESIS-DEFREG YMM3 0000000000000000000000000000000000000000000000000000000000000003\n"
			"# LLVM-EXEGESIS-DEFREG K2 00000000000000ff\n"
			"# LLVM-EXEGESIS-DEFREG RAX 0000000000005634\n"
			"# LLVM-EXEGESIS-DEFREG RCX 0000000080000000\n"
			"# LLVM-EXEGESIS-DEFREG R9 000000000000007f\n"
			"# LLVM-EXEGESIS-DEFREG EFLAGS 0000000000000246\n"
			"# SBX-INSTRUCTIONS 2\n"
			".byte 0x90,0x90\n");
	/* MXCSR and FPCW: at exegesis's defaults, which sbx's start state has */
	CHECK_EQ_STR(unset, "MM0");
	free(s);
}

static void expect_reader_error(const char *text, const char *msg)
{
	FILE *f = stream(text);
	struct exegesis_reader *r = exegesis_reader_new(f, "t.yaml");
	struct exegesis_doc d;

	sbx_error_clear();
	CHECK_EQ_INT(exegesis_reader_next(r, &d), -EINVAL);
	CHECK_EQ_STR(sbx_error_msg(), msg);
	exegesis_reader_free(r);
	fclose(f);
}

static void test_bad_input(void)
{
	char unset[64];

	expect_reader_error("---\ninfo: x\n", "t.yaml:2: not an llvm-exegesis benchmark: no mode");
	expect_reader_error("---\nmode: latency\n", "t.yaml:2: not an llvm-exegesis benchmark: "
			    "no key.instructions");
	expect_reader_error("---\nmode: latency\nkey: { instructions: [] }\nassembled_snippet: 9G\n",
			    "t.yaml:2: not an llvm-exegesis benchmark: a malformed assembled_snippet");
	expect_reader_error("---\n- a\n", "t.yaml:2: not an llvm-exegesis benchmark: not a "
			    "mapping");
	expect_reader_error("---\nmode: [latency\n", "t.yaml:3: not YAML: did not find expected ',' or ']'");
	expect_reader_error("---\nmode: latency\nkey: { instructions: [ X ] }\n"
			    "min_instructions: 18446744073709551615\n",
			    "t.yaml:2: not an llvm-exegesis benchmark: a malformed min_instructions");
	/* a register value that does not fit, an unknown form, no code */
	CHECK(!snippet_of("---\nmode: latency\nkey:\n  instructions: [ X ]\n"
			  "  register_initial_values: [ 'AL=0x100' ]\nassembled_snippet: 9090C3\n",
			  0, unset, sizeof(unset)));
	CHECK_EQ_STR(sbx_error_msg(), "the register value 'AL=0x100' does not fit AL");
	CHECK(!snippet_of("---\nmode: latency\nkey:\n  instructions: [ X ]\n"
			  "  register_initial_values: [ 'RAX' ]\nassembled_snippet: 9090C3\n",
			  0, unset, sizeof(unset)));
	CHECK_EQ_STR(sbx_error_msg(), "a register value 'RAX' (expected REG=0xHEX)");
	CHECK(!snippet_of("---\nmode: latency\nkey:\n  instructions: [ X ]\n", 0, unset,
			  sizeof(unset)));
	CHECK_EQ_STR(sbx_error_msg(), "no assembled_snippet");
}

static void test_looks(void)
{
	CHECK(exegesis_yaml_looks("---\nmode:            latency\n"));
	CHECK(exegesis_yaml_looks("# a comment\n\n---\nkey:\n"));
	CHECK(!exegesis_yaml_looks("addq %rax, %rax\n"));
	CHECK(!exegesis_yaml_looks("# LLVM-EXEGESIS-DEFREG RAX 1\n---\n"));
	CHECK(!exegesis_yaml_looks("---\nfoo: 1\n"));
}

static const struct unit_test tests[] = {
	TEST(test_reader_fields),
	TEST(test_snippet_from_copies),
	TEST(test_undecodable_copies),
	TEST(test_loop_mode),
	TEST(test_copies_from_bytes),
	TEST(test_own_yaml),
	TEST(test_register_values),
	TEST(test_bad_input),
	TEST(test_looks),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
