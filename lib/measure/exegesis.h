/* SPDX-License-Identifier: MIT */
#ifndef SBX_EXEGESIS_H
#define SBX_EXEGESIS_H

/*
 * llvm-exegesis's benchmark YAML as input: the documents that
 * `llvm-exegesis --benchmark-phase=prepare-and-assemble-snippet` writes
 * (one per opcode configuration, without measurements), read one at a
 * time from a stream, and each turned into a snippet sbx run measures.
 *
 *   exegesis_reader_new()    a stream (libyaml)
 *   exegesis_reader_next()   the next document
 *   exegesis_doc_snippet()   its snippet text: DEFREGs and the code's bytes
 */

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most min_instructions a document may ask for (sbx run's --min-instructions bound) */
#define EXEGESIS_MAX_MIN_INSTRUCTIONS	100000000ul
/* Bounds on one document (llvm-exegesis writes a few KiB, 3 levels deep, no aliases) */
#define EXEGESIS_MAX_DOC_BYTES	(16 << 20)	/* of the stream */
#define EXEGESIS_MAX_DEPTH	32		/* levels of nesting */
#define EXEGESIS_MAX_EXPANDED	(16 << 20)	/* bytes of its fields, aliases expanded */
#define EXEGESIS_MAX_CODE	(4 << 20)	/* bytes of assembled_snippet */

/* One document, as llvm-exegesis wrote it (lib/BenchmarkResult.cpp's fields). */
struct exegesis_doc {
	int line;			/* where it starts in the stream, from 1 */
	char *mode;			/* "latency", "inverse_throughput", "uops" */
	char **instructions;		/* key.instructions: "ADD64rr R8 R8 R15" */
	size_t n_instructions;
	char *config;			/* key.config */
	char **reg_values;		/* key.register_initial_values: "R8=0x0" */
	size_t n_reg_values;
	char *cpu_name;			/* "znver5": LLVM's name, analysis mode's model */
	char *llvm_triple;
	unsigned long min_instructions;	/* min_instructions or num_repetitions; 0: none */
	char *error;			/* "actual measurements skipped." */
	char *info;
	uint8_t *code;			/* assembled_snippet: set-up, copies, return */
	size_t code_size;
};

struct exegesis_reader;

/*
 * A reader of the YAML stream f (not closed by the reader); name is used
 * in messages. NULL when out of memory.
 */
struct exegesis_reader *exegesis_reader_new(FILE *f, const char *name);
void exegesis_reader_free(struct exegesis_reader *r);

/*
 * While *stop is 0 (a signal handler sets it), read on; once it is set the
 * reading stops at the next block of input (-EINTR from
 * exegesis_reader_next(), "NAME: interrupted"). NULL: never.
 */
void exegesis_reader_set_stop(struct exegesis_reader *r, const volatile sig_atomic_t *stop);

/*
 * The next document in *d (exegesis_doc_release() it). Returns 1, 0 at
 * the end of the stream, or a negative errno with a message naming the
 * line: -EINVAL for a document that is not an llvm-exegesis benchmark (no
 * mode or key, a field whose aliases expand past EXEGESIS_MAX_EXPANDED, an
 * assembled_snippet of more than EXEGESIS_MAX_CODE bytes: the next call
 * goes on); and, after which the stream ends, -EINVAL for a YAML syntax
 * error or an alias of no anchor, -E2BIG for a document nested deeper than
 * EXEGESIS_MAX_DEPTH or longer than EXEGESIS_MAX_DOC_BYTES, -EINTR once
 * the stop flag was set, -EIO, -ENOMEM.
 */
int exegesis_reader_next(struct exegesis_reader *r, struct exegesis_doc *d);
void exegesis_doc_release(struct exegesis_doc *d);

/*
 * The snippet sbx measures for d: a DEFREG annotation per register of
 * register_initial_values that sbx sets (sub-registers as their 64-bit
 * register), then one copy of the snippet's code, found in
 * assembled_snippet (from its bytes: one of the four copies llvm-exegesis
 * writes since LLVM 13, or of the two in a loop-mode body; else the last
 * n_instructions instructions before the epilogue's pops and ret, checked
 * against the copy before them), as .byte lines,
 * with SBX-INSTRUCTIONS n_instructions where the copy is known to hold
 * them. MXCSR and FPCW stay at the start state's defaults, which
 * exegesis loads whatever their value; registers sbx does not set (MMX,
 * x87, tile and system registers) are named in unset (comma-separated, ""
 * when none). Returns 0 and a malloc'd *text, or
 * -EINVAL with a message (no code, code that has no copies to find).
 */
int exegesis_doc_snippet(const struct exegesis_doc *d, char **text, char *unset,
			 size_t unset_len);

/* Whether text (the start of an input) is llvm-exegesis YAML rather than assembly. */
bool exegesis_yaml_looks(const char *text);

#endif
