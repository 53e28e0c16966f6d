// SPDX-License-Identifier: MIT
/*
 * sbx run: assemble snippets and measure each in a supervised child. The
 * work is in lib/measure/: snippet.c (annotations, assembler), exegesis.c
 * (llvm-exegesis's YAML), measure.c (the child, the counters) and figure.c
 * (readings to figures); this file parses options and prints.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "parse-options.h"
#include "util/error.h"
#include "util/escape.h"
#include "util/output.h"
#include "measure/cpu-name.h"
#include "measure/contain.h"
#include "measure/exegesis.h"
#include "measure/measure.h"
#include "measure/snippet.h"
#include "measure/workload.h"

static const char *const run_usage[] = {
	"sbx run [OPTIONS] FILE...",
	"sbx run [OPTIONS] --asm CODE",
	"sbx run [OPTIONS] --opcode-name NAME[,NAME...] | --opcode-index N",
	NULL,
};

enum {
	OPT_ASM = 0x100, OPT_SYNTAX, OPT_ASSEMBLER, OPT_MODE, OPT_REPETITION, OPT_MIN_INSNS,
	OPT_REPEAT, OPT_AGGREGATE, OPT_NO_DIFF, OPT_COUNTERS, OPT_CYCLE_COUNTER, OPT_CPU,
	OPT_TIMEOUT, OPT_ALLOW_SYSCALLS, OPT_DUMP, OPT_FORMAT, OPT_JSON, OPT_SNIPPETS_FILE,
	OPT_BENCHMARKS_FILE, OPT_EXECUTION_MODE, OPT_MAX_PIDS, OPT_MAX_MEMORY, OPT_INPUT_FORMAT,
	OPT_OPCODE_NAME, OPT_OPCODE_INDEX, OPT_EXEGESIS, OPT_PHASE, OPT_DUMMY_COUNTERS, OPT_MTRIPLE,
	OPT_PROGRESS, OPT_GEN_MCPU, OPT_GEN_CONFIGS,
};

static const struct sbx_option run_options[] = {
	{ "asm", 0, "CODE", "measure this code ('; ' or newline between instructions)", OPT_ASM },
	{ "snippets-file", 0, "FILE", "a snippet file (llvm-exegesis spelling of FILE)",
	  OPT_SNIPPETS_FILE },
	{ "input-format", 0, "FORMAT", "asm or exegesis-yaml (default: by the content)",
	  OPT_INPUT_FORMAT },
	{ "opcode-name", 0, "NAME,...", "measure llvm-exegesis's snippets of these opcodes",
	  OPT_OPCODE_NAME },
	{ "opcode-index", 0, "N", "... of the opcode with this LLVM index (-1: every opcode)",
	  OPT_OPCODE_INDEX },
	{ "exegesis", 0, "PROGRAM", "the llvm-exegesis that generates them (default: 19's)",
	  OPT_EXEGESIS },
	{ "syntax", 0, "SYNTAX", "att (default) or intel", OPT_SYNTAX },
	{ "assembler", 0, "PROGRAM", "assembler to run: as (default) or llvm-mc", OPT_ASSEMBLER },
	{ "mode", 0, "MODE", "latency (default), inverse_throughput or uops (a PMU's)", OPT_MODE },
	{ "repetition-mode", 0, "MODE", "duplicate (default), loop or min", OPT_REPETITION },
	{ "min-instructions", 0, "N", "instructions per measured run (default 10000)",
	  OPT_MIN_INSNS },
	{ "benchmark-repeat-count", 0, "N", "measured runs to aggregate (default 30)", OPT_REPEAT },
	{ "repeat", 0, "N", "same as --benchmark-repeat-count", OPT_REPEAT },
	{ "result-aggregation-mode", 0, "MODE", "min (default), median, mean or min-variance",
	  OPT_AGGREGATE },
	{ "aggregate", 0, "MODE", "same as --result-aggregation-mode", OPT_AGGREGATE },
	{ "no-diff", 0, NULL, "report raw(N) instead of raw(2N) - raw(N)", OPT_NO_DIFF },
	{ "counters", 0, "EVENT,...", "also count these events (libpfm4 names)", OPT_COUNTERS },
	{ "cycle-counter", 0, "COUNTER", "auto (default), cycles, tsc or task-clock",
	  OPT_CYCLE_COUNTER },
	{ "benchmark-process-cpu", 0, "CPU", "pin the measuring child to this CPU", OPT_CPU },
	{ "cpu", 0, "CPU", "same as --benchmark-process-cpu", OPT_CPU },
	{ "timeout", 0, "SECONDS", "end a snippet's child after this long (default 10)",
	  OPT_TIMEOUT },
	{ "allow-syscalls", 0, NULL, "let the snippet make system calls (no seccomp)",
	  OPT_ALLOW_SYSCALLS },
	{ "dump-object-to-disk", 0, "PATH", "keep the assembled object file at PATH", OPT_DUMP },
	{ "format", 0, "FORMAT", "text (default), yaml, yaml-llvm14 or json", OPT_FORMAT },
	{ "json", 0, NULL, "same as --format json", OPT_JSON },
	{ "benchmarks-file", 0, "FILE", "write the results to FILE (YAML unless --format)",
	  OPT_BENCHMARKS_FILE },
	{ "execution-mode", 0, "MODE", "subprocess (always; inprocess is accepted too)",
	  OPT_EXECUTION_MODE },
	{ "max-pids", 0, "N", "a snippet's child may have at most N processes and threads",
	  OPT_MAX_PIDS },
	{ "max-memory", 0, "SIZE", "memory of a snippet's child and the assembler (K, M, G)",
	  OPT_MAX_MEMORY },
	{ "benchmark-phase", 0, "PHASE", "measure (default), or stop after assembling",
	  OPT_PHASE },
	{ "measurements-print-progress", 0, NULL, "show a sweep's progress on standard error",
	  OPT_PROGRESS },
	{ "mtriple", 0, "TRIPLE", "x86_64 only (llvm-exegesis's option)", OPT_MTRIPLE },
	{ "mcpu", 0, "CPU", "for llvm-exegesis's generation (--opcode-*); else ignored",
	  OPT_GEN_MCPU },
	{ "max-configs-per-opcode", 0, "N", "for llvm-exegesis's generation; else ignored",
	  OPT_GEN_CONFIGS },
	{ "use-dummy-perf-counters", 0, NULL, "ignored: sbx measures without a PMU",
	  OPT_DUMMY_COUNTERS },
	OPT_END,
};

/* what the completions offer for the arguments (--list-values) */
static const struct sbx_option_values run_values[] = {
	{ "input-format", "asm exegesis-yaml" },
	{ "syntax", "att intel" },
	{ "assembler", "as llvm-mc" },
	{ "mode", "latency inverse_throughput uops" },
	{ "repetition-mode", "duplicate loop min" },
	{ "result-aggregation-mode", "min median mean min-variance" },
	{ "aggregate", "min median mean min-variance" },
	{ "counters", "@events" },
	{ "cycle-counter", "auto cycles tsc task-clock" },
	{ "format", "text yaml yaml-llvm14 json" },
	{ "execution-mode", "subprocess inprocess" },
	{ "benchmark-phase", "measure prepare-snippet prepare-and-assemble-snippet "
			     "assemble-measured-code dry-run-measurement" },
	{ NULL, NULL },
};

enum format { FMT_TEXT, FMT_YAML, FMT_YAML_LLVM14, FMT_JSON };

/* where results go: stdout, or the output of --benchmarks-file */
static FILE *results;

/* SIGINT or SIGTERM, once one came: the snippet's child is ended, the run stops */
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* Without SA_RESTART: a wait or a read comes back at once */
static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

#define MAX_INPUTS 256
#define MAX_SNIPPET_BYTES (16u << 20)

struct input {
	const char *name;	/* file name, "-" or "<asm>" (several: "<asm: TEXT>") */
	const char *code;	/* --asm text, else NULL */
	char label[64];		/* the name of one of several --asm */
};

/*
 * The label of one of several --asm snippets: its instructions without
 * comments, "; " between them, blanks collapsed, cut at 40 characters.
 */
static void asm_label(const char *code, char *buf, size_t len)
{
	char text[41];
	size_t n = 0;
	bool cut = false, blank = false, next = false;

	for (const char *p = code; *p && !cut; p++) {
		if (*p == '#') {	/* a comment, to the end of its line */
			p += strcspn(p, "\n");
			if (!*p)
				break;
		}
		if (*p == '\n' || *p == ';') {
			next = n > 0;	/* "; " before the next instruction */
			blank = false;
			continue;
		}
		if (*p == ' ' || *p == '\t') {
			blank = n > 0 && !next;
			continue;
		}
		if (next || blank) {
			const char *sep = next ? "; " : " ";

			for (; *sep && n < 40; sep++)
				text[n++] = *sep;
			next = blank = false;
		}
		if (n == 40)
			cut = true;
		else
			text[n++] = *p;
	}
	text[n] = 0;
	snprintf(buf, len, "<asm: %s%s>", text, cut ? "..." : "");
}

struct run_cfg {
	struct measure_opts mo;
	struct snippet_asm_opts ao;
	double tsc_reference;	/* the lowest TSC ratio of this run (measure.h) */
	enum format fmt;
	bool fmt_given;		/* else llvm-exegesis's YAML in gives YAML out */
	bool min_instructions_given;	/* else a document's min_instructions applies */
	bool input_yaml, input_asm;	/* --input-format; neither: by the content */
	bool progress;		/* standard error is a terminal */
	bool generator_runs;	/* llvm-exegesis writes the input: not one to end */
	bool unavailable_said;	/* the warning about a counter this machine lacks */
	const char *skip_phase;	/* --benchmark-phase before measuring: assemble only */
	char *generator_args[8];	/* --mcpu=... and the like, for llvm-exegesis */
	int n_generator_args;
	int progress_len;	/* of the progress line shown, 0: none */
	struct tally {		/* a sweep's documents so far */
		unsigned long done, total;	/* total: 0 when not known (a pipe) */
		unsigned long measured;
		unsigned long failed[MEASURE_FAIL_OTHER + 1];	/* by measure_failure */
		double start;	/* CLOCK_MONOTONIC seconds */
	} tally;
	int text_header_done;
	int name_width;		/* of the SNIPPET column */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the failures of a tally were, "; 3 not on this CPU, 1 crashed", into buf */
static void tally_text(const struct tally *t, char *buf, size_t len)
{
	static const char *const names[] = {
		[MEASURE_FAIL_UNSUPPORTED] = "not on this CPU",
		[MEASURE_FAIL_PRIVILEGED] = "privileged",
		[MEASURE_FAIL_CRASHED] = "crashed",
		[MEASURE_FAIL_TIMEOUT] = "timed out",
		[MEASURE_FAIL_REFUSED] = "not run (they write the loop counter)",
		[MEASURE_FAIL_OTHER] = "failed otherwise",
	};
	size_t used = (size_t)snprintf(buf, len, "%lu measured", t->measured);

	for (int i = MEASURE_FAIL_UNSUPPORTED; i <= MEASURE_FAIL_OTHER && used < len; i++)
		if (t->failed[i])
			used += (size_t)snprintf(buf + used, len - used, ", %lu %s", t->failed[i],
						 names[i]);
}

/* A sweep's progress on a terminal: one line, redrawn. */
static void progress(struct run_cfg *c, const char *label)
{
	const struct tally *t = &c->tally;
	char what[256], eta[32] = "";

	if (!c->progress)
		return;
	tally_text(t, what, sizeof(what));
	if (t->total > t->done && t->done) {
		double left = (now_s() - t->start) / (double)t->done * (double)(t->total - t->done);
		long sec = lround(left);

		snprintf(eta, sizeof(eta), ", %ldm%02lds left", sec / 60, sec % 60);
	}
	if (t->total)
		c->progress_len = fprintf(stderr, "\r\033[Ksbx run: %lu/%lu: %s%s: %.40s", t->done,
					  t->total, what, eta, label);
	else
		c->progress_len = fprintf(stderr, "\r\033[Ksbx run: %lu done: %s: %.40s", t->done,
					  what, label);
	fflush(stderr);
}

static void progress_clear(struct run_cfg *c)
{
	if (!c->progress_len)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	c->progress_len = 0;
}

/* All of f (path: for messages), as a string; NULL with a message. */
static char *read_all(FILE *f, const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf;
	size_t n;

	buf = malloc(cap);
	errno = 0;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *nb = cap < MAX_SNIPPET_BYTES ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				free(buf);
				buf = NULL;
				sbx_error(-EFBIG, "'%s' is larger than 16 MiB", path);
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (buf && ferror(f)) {
		/* a directory: EISDIR */
		sbx_error_errno(errno ? -errno : -EIO, "cannot read '%s'", path);
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[len] = 0;
	if (buf && memchr(buf, 0, len)) {
		sbx_error(-EINVAL, "'%s' is not a text file", path);
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * A YAML scalar: single-quoted, or double-quoted with escapes (\n, \t,
 * \xHH, which LLVM's YAML parser reads) when it holds control characters.
 */
static void yaml_str(const char *key, const char *v)
{
	bool escape = escape_needed(v, strlen(v));

	fprintf(results, "%s%c", key, escape ? '"' : '\'');
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (!escape && c == '\'')
			fputs("''", results);
		else if (escape && (c == '"' || c == '\\'))
			fprintf(results, "\\%c", c);
		else if (escape && (c < 0x20 || c == 0x7f))
			fprintf(results, "%s", escape_str((char[]){ (char)c, 0 }));
		else
			fputc(c, results);
	}
	fprintf(results, "%c\n", escape ? '"' : '\'');
}

/* LLVM's name of this CPU ("znver3"), the scheduling model exegesis's analysis mode loads */
static void cpu_name(char *buf, size_t len)
{
	snprintf(buf, len, "%s", cpu_llvm_name());
}

static void reg_value_text(const struct snippet_defreg *d, char *buf, size_t len)
{
	size_t w = snippet_reg_width(&d->reg);
	size_t used;
	int top = (int)w - 1;

	while (top > 0 && d->value[top] == 0)
		top--;
	used = (size_t)snprintf(buf, len, "%s=0x%x", d->name, d->value[top]);
	for (int i = top - 1; i >= 0 && used < len; i--)
		used += (size_t)snprintf(buf + used, len - used, "%02x", d->value[i]);
}

/* How sure the first figure is: "+-0.2%", "+-1.8%: unsteady", ... */
static const char *uncertainty_text(const struct measure_result *r, char *buf, size_t len)
{
	double u = r->values[0].uncertainty;

	if (isnan(u))
		snprintf(buf, len, "not known (fewer than 4 repeats, or a count)");
	else if (!isfinite(u))
		snprintf(buf, len, "unsteady: no figure to trust");
	else
		snprintf(buf, len, "+-%.*f%%%s", u < 0.1 ? 1 : 0, 100 * u,
			 r->unsteady ? ": unsteady" : "");
	return buf;
}

static void info_text(const struct snippet *s, const struct measure_result *r,
		      const struct run_cfg *c, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "snippet %s; counter %s", s ? s->name : "?",
				       r->counter[0] ? r->counter : "none");

	if (r->tsc_per_cycle > 0)
		used += (size_t)snprintf(buf + used, len - used, " (%.4f TSC ticks per cycle)",
					 r->tsc_per_cycle);
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "; repetition %s, %s of %u, %s",
					 measure_repetition_name(c->mo.repetition),
					 measure_aggregate_name(c->mo.aggregate), c->mo.repeat_count,
					 c->mo.no_diff ? "no diff" : "diff of 2N and N");
	if (r->n_values && !r->error[0] && used < len)
		used += (size_t)snprintf(buf + used, len - used, "; uncertainty %s",
					 uncertainty_text(r, (char[64]){ 0 }, 64));
	if (r->exited && used < len)
		snprintf(buf + used, len - used, "; the snippet exited with code 0 before it was "
			 "measured");
}

/* One document in llvm-exegesis's shape (lib/BenchmarkResult.cpp's fields, in its order). */
struct yaml_doc {
	const char *mode;
	char *const *insns;		/* key.instructions */
	size_t n_insns;
	const char *config;
	char *const *regs;		/* key.register_initial_values: "RAX=0x1" */
	size_t n_regs;
	const char *cpu_name, *triple;
	unsigned long min_instructions;
	const char *info;
	const uint8_t *code;		/* assembled_snippet */
	size_t code_size;
};

static void yaml_list(const char *key, char *const *v, size_t n)
{
	if (!n) {
		fprintf(results, "  %-16s []\n", key);
		return;
	}
	fprintf(results, "  %s\n", key);
	for (size_t i = 0; i < n; i++)
		yaml_str("    - ", v[i]);
}

static void write_yaml_doc(const struct yaml_doc *y, const struct measure_result *r,
			   const char *err, enum format fmt)
{
	fprintf(results, "%s\n", "---");
	fprintf(results, "mode:            %s\n", y->mode);
	fprintf(results, "%s\n", "key:");
	yaml_list("instructions:", y->insns, y->n_insns);
	yaml_str("  config:          ", y->config);
	yaml_list("register_initial_values:", y->regs, y->n_regs);
	yaml_str("cpu_name:        ", y->cpu_name);
	fprintf(results, "llvm_triple:     %s\n", y->triple);
	/* llvm-exegesis 14 knows the key by its old name only */
	fprintf(results, "%s: %lu\n", fmt == FMT_YAML_LLVM14 ? "num_repetitions" : "min_instructions",
		y->min_instructions);
	if (!err[0] && r->n_values) {
		fprintf(results, "%s\n", "measurements:");
		for (int i = 0; i < r->n_values; i++)	/* what cannot be counted is left out */
			if (!r->values[i].unavailable)
				fprintf(results, "  - { key: %s, value: %.6g, per_snippet_value: %.6g }\n",
					r->values[i].key, r->values[i].value,
					r->values[i].per_snippet_value);
	} else {
		fprintf(results, "%s\n", "measurements:    []");
	}
	/*
	 * a snippet that exited 0 has no measurement: llvm-exegesis's readers
	 * (analysis mode) take a document without one for an error, so say why
	 */
	yaml_str("error:           ", err[0] || !r->exited ? err :
		 "the snippet exited with code 0 before it was measured");
	yaml_str("info:            ", y->info);
	fprintf(results, "assembled_snippet: ");
	for (size_t i = 0; i < y->code_size; i++)
		fprintf(results, "%02X", y->code[i]);
	fprintf(results, "%s\n", "\n...");
}

static void print_yaml(const char *name, const struct snippet *s, const struct measure_result *r,
		       const char *err, const struct run_cfg *c)
{
	struct yaml_doc y = { .mode = measure_mode_name(c->mo.mode), .config = "",
			      .triple = "x86_64-unknown-linux-gnu",
			      .min_instructions = c->mo.min_instructions };
	char *insns[256], *regs[64], cpu[256], info[1024];
	size_t ni = 0, nr = 0;

	if (s && s->n_llvm_insns) {	/* LLVM's names: exegesis's tools can read them */
		for (int i = 0; i < s->n_llvm_insns && ni < 256; i++)
			insns[ni++] = s->llvm_insns[i];
	} else if (s) {
		for (int i = 0; i < s->n_insns && ni < 256; i++)
			insns[ni++] = s->insns[i].text;
	}
	for (int i = 0; s && i < s->n_defregs && nr < 64; i++) {
		char buf[256];

		reg_value_text(&s->defregs[i], buf, sizeof(buf));
		if ((regs[nr] = strdup(buf)))
			nr++;
	}
	cpu_name(cpu, sizeof(cpu));
	info_text(s, r, c, info, sizeof(info));
	if (!s)
		snprintf(info, sizeof(info), "snippet %s", name);
	y.insns = insns;
	y.n_insns = ni;
	y.regs = regs;
	y.n_regs = nr;
	y.cpu_name = cpu;
	y.info = info;
	y.code = s ? s->code : NULL;
	y.code_size = s ? s->code_size : 0;
	write_yaml_doc(&y, r, err, c->fmt);
	for (size_t i = 0; i < nr; i++)
		free(regs[i]);
}

/*
 * The result of an llvm-exegesis document: its own fields back (its CPU
 * name is the scheduling model analysis mode uses) with the measurements
 * and the error filled, sbx's counter and the registers it left at their
 * defaults added to info.
 */
static void print_yaml_doc(const struct exegesis_doc *d, const struct measure_result *r,
			   const char *err, const char *unset, const struct measure_opts *mo,
			   enum format fmt)
{
	struct yaml_doc y = { .mode = d->mode, .insns = d->instructions,
			      .n_insns = d->n_instructions, .config = d->config ? d->config : "",
			      .regs = d->reg_values, .n_regs = d->n_reg_values,
			      .cpu_name = d->cpu_name, .triple = d->llvm_triple,
			      .min_instructions = mo->min_instructions,
			      .code = d->code, .code_size = d->code_size };
	char cpu[256], info[1024];
	size_t used;

	if (!y.cpu_name) {
		cpu_name(cpu, sizeof(cpu));
		y.cpu_name = cpu;
	}
	if (!y.triple)
		y.triple = "x86_64-unknown-linux-gnu";
	used = (size_t)snprintf(info, sizeof(info), "%s%ssbx: counter %s", d->info ? d->info : "",
				d->info && d->info[0] ? "; " : "",
				r->counter[0] ? r->counter : "none");
	if (r->tsc_per_cycle > 0 && used < sizeof(info))
		used += (size_t)snprintf(info + used, sizeof(info) - used,
					 " (%.4f TSC ticks per cycle)", r->tsc_per_cycle);
	if (r->n_values && !err[0] && used < sizeof(info))
		used += (size_t)snprintf(info + used, sizeof(info) - used, "; uncertainty %s",
					 uncertainty_text(r, (char[64]){ 0 }, 64));
	if (unset[0] && used < sizeof(info))
		used += (size_t)snprintf(info + used, sizeof(info) - used,
					 "; not set, at the start state: %s", unset);
	y.info = info;
	write_yaml_doc(&y, r, err, fmt);
}

/* mo: the settings the snippet was measured with (a document's mode, min_instructions) */
static void print_json(const char *name, const struct snippet *s,
		       const struct measure_result *r, const char *err, const struct run_cfg *c,
		       const struct measure_opts *mo)
{
	json_object *o = json_object_new_object(), *m = json_object_new_array();
	json_object *insns = json_object_new_array();

	json_object_object_add(o, "snippet", json_object_new_string(name));
	json_object_object_add(o, "mode", json_object_new_string(measure_mode_name(mo->mode)));
	json_object_object_add(o, "counter", json_object_new_string(r->counter));
	json_object_object_add(o, "unit", json_object_new_string(r->unit));
	if (r->tsc_per_cycle > 0) {
		json_object_object_add(o, "tsc_per_cycle", json_object_new_double(r->tsc_per_cycle));
		json_object_object_add(o, "tsc_drift", json_object_new_double(r->drift));
		json_object_object_add(o, "tsc_cross_check", isnan(r->cross) ? NULL :
				       json_object_new_double(r->cross));
	}
	for (int i = 0; !err[0] && i < r->n_values; i++) {
		const struct measure_value *mv = &r->values[i];
		json_object *v = json_object_new_object();

		json_object_object_add(v, "key", json_object_new_string(mv->key));
		json_object_object_add(v, "value", mv->unavailable ? NULL :
				       json_object_new_double(mv->value));
		json_object_object_add(v, "per_snippet_value", mv->unavailable ? NULL :
				       json_object_new_double(mv->per_snippet_value));
		json_object_object_add(v, "unit", json_object_new_string(mv->unit ? mv->unit : "count"));
		/* the first figure's relative half-width (null: no figure to trust) */
		if (i == 0)	/* null: no figure to trust, or not known */
			json_object_object_add(v, "uncertainty", isfinite(mv->uncertainty) ?
					       json_object_new_double(mv->uncertainty) : NULL);
		if (mv->unavailable)
			json_object_object_add(v, "unavailable", json_object_new_boolean(true));
		json_object_array_add(m, v);
	}
	json_object_object_add(o, "measurements", m);
	json_object_object_add(o, "error", json_object_new_string(err));
	json_object_object_add(o, "exited", json_object_new_boolean(r->exited));
	if (!err[0] && r->n_values)
		json_object_object_add(o, "unsteady", json_object_new_boolean(r->unsteady));
	if (c->skip_phase)
		json_object_object_add(o, "skipped", json_object_new_boolean(true));
	if (s && !s->decoded_all && s->n_llvm_insns)	/* capstone could not decode them */
		for (int i = 0; i < s->n_llvm_insns; i++)
			json_object_array_add(insns, json_object_new_string(s->llvm_insns[i]));
	else
		for (int i = 0; s && i < s->n_insns; i++)
			json_object_array_add(insns, json_object_new_string(s->insns[i].text));
	json_object_object_add(o, "instructions", insns);
	/* what the figures are divided by */
	json_object_object_add(o, "instruction_count", json_object_new_int(s ? s->insn_count : 0));
	json_object_object_add(o, "repetition_mode",
			       json_object_new_string(measure_repetition_name(mo->repetition)));
	json_object_object_add(o, "min_instructions",
			       json_object_new_int64((int64_t)mo->min_instructions));
	json_object_object_add(o, "benchmark_repeat_count",
			       json_object_new_int64(mo->repeat_count));
	json_object_object_add(o, "result_aggregation_mode",
			       json_object_new_string(measure_aggregate_name(mo->aggregate)));
	json_object_object_add(o, "diff", json_object_new_boolean(!mo->no_diff));
	json_object_object_add(o, "cpu", json_object_new_int(mo->cpu));
	json_object_object_add(o, "timeout", json_object_new_double(mo->timeout_s));
	json_object_object_add(o, "num_repetitions", json_object_new_int64((int64_t)r->repetitions));
	json_object_object_add(o, "retries", json_object_new_int(r->retries));
	fprintf(results, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* Whether v is the cycle counter's value (the mode's key; "cycles" and such in uops mode). */
static bool is_cycles(const struct measure_result *r, const struct measure_value *v)
{
	return !strcmp(v->key, r->counter) || !strcmp(v->key, "latency") ||
	       !strcmp(v->key, "inverse_throughput");
}

static void print_text(const char *name, const struct snippet *s,
		       const struct measure_result *r, struct run_cfg *c)
{
	if (!c->text_header_done) {
		fprintf(results, "%-*s  %-18s %10s %12s  %s\n", c->name_width, "SNIPPET", "KEY", "PER INSN",
		       "PER SNIPPET", "COUNTER");
		c->text_header_done = 1;
	}
	if (c->skip_phase)
		fprintf(results, "%-*s  %-18s %10s %12s  --benchmark-phase %s: assembled, not measured\n",
			c->name_width, name, "skipped", "-", "-", c->skip_phase);
	if (r->exited)	/* a checking snippet, as llvm-exegesis's tests write them */
		fprintf(results, "%-*s  %-18s %10s %12s  %s\n", c->name_width, name, "exit(0)", "-",
			"-", "the snippet exited with code 0 before it was measured");
	for (int i = 0; i < r->n_values; i++) {
		const struct measure_value *v = &r->values[i];
		char counter[96];

		if (is_cycles(r, v) && r->tsc_per_cycle > 0)
			snprintf(counter, sizeof(counter), "%s (%.3f TSC ticks/cycle)", r->counter,
				 r->tsc_per_cycle);
		else if (is_cycles(r, v))
			snprintf(counter, sizeof(counter), "%s (%s)", r->counter, r->unit);
		else if (v->unavailable)
			snprintf(counter, sizeof(counter), "unavailable: this machine cannot count it");
		else
			snprintf(counter, sizeof(counter), "event (%s)", v->unit ? v->unit : "count");
		if (v->unavailable)
			fprintf(results, "%-*s  %-18s %10s %12s  %s\n", c->name_width, i == 0 ? name : "",
				v->key, "-", "-", counter);
		else
			fprintf(results, "%-*s  %-18s %10.4f %12.4f  %s%s%s\n", c->name_width,
				i == 0 ? name : "", v->key, v->value, v->per_snippet_value, counter,
				i == 0 ? ", " : "", i == 0 ? uncertainty_text(r, (char[64]){ 0 }, 64) : "");
	}
	fflush(results);
}

/*
 * Assemble and measure one snippet, text, and print its result; name
 * labels it. text NULL: reading or finding it failed, and the message
 * says why. doc: the llvm-exegesis document it came from (its mode and
 * min_instructions apply, and the YAML output keeps its fields, with the
 * error alone in its error field), at where (FILE:LINE: NAME, for
 * messages), else NULL. 0 when it was measured, 1 when it failed.
 */
static int measure_text(const char *name, const char *text, const struct exegesis_doc *doc,
			const char *where, const char *unset, struct run_cfg *c)
{
	struct measure_opts mo = c->mo;
	struct measure_result r;
	struct snippet *s = NULL;
	enum format fmt = doc && !c->fmt_given ? FMT_YAML : c->fmt;
	char err[1024] = "";
	int e = 0;

	memset(&r, 0, sizeof(r));
	if (!text) {	/* what failed to read or find it said why */
		snprintf(err, sizeof(err), "%s", sbx_error_msg() ? sbx_error_msg()
								 : strerror(ENOMEM));
		e = -EIO;
	}
	sbx_error_clear();
	if (doc) {
		if (doc->min_instructions && !c->min_instructions_given)
			mo.min_instructions = doc->min_instructions;
		if (measure_parse_mode(doc->mode, &mo.mode) < 0 && !e)
			e = sbx_error(-EINVAL, "mode %s: sbx run measures latency, "
				      "inverse_throughput and uops", doc->mode);
	}
	if (!e)
		e = snippet_parse(name, text, &s);
	if (!e)
		e = snippet_assemble(s, &c->ao);
	if (!e && !doc && (fmt == FMT_YAML || fmt == FMT_YAML_LLVM14) &&
	    snippet_llvm_names(s, c->ao.syntax, NULL) < 0)
		sbx_error_clear();	/* without llvm-mc: sbx's disassembly */
	if (!e && !c->skip_phase)
		e = measure_snippet(s, &mo, &r);
	if (e < 0 && !err[0])
		snprintf(err, sizeof(err), "%s", sbx_error_msg() ? sbx_error_msg() : strerror(-e));
	else if (r.error[0])	/* a document's alone, as llvm-exegesis writes it */
		snprintf(err, sizeof(err), doc ? "%s" : "%s: %s", doc ? r.error : name, r.error);

	progress_clear(c);	/* what follows on the terminal: no progress line in it */
	for (int i = 0; !err[0] && i < r.n_values; i++) {
		if (r.values[i].unavailable && !c->unavailable_said) {
			warning("%s: this machine cannot count it (no hardware PMU?); the other "
				"figures are measured", r.values[i].key);
			c->unavailable_said = true;
		}
	}
	if (!err[0] && r.tsc_per_cycle > 0 && fabs(r.drift) > 0.02)
		warning("%s: the TSC calibration drifted by %+.1f%% during the run; the figures "
			"may be off (frequency scaling?)", name, 100 * r.drift);
	if (doc) {	/* a sweep's tally */
		c->tally.done++;
		if (!err[0])
			c->tally.measured++;
		else
			c->tally.failed[e == 0 && r.error[0] ? r.failure : MEASURE_FAIL_OTHER]++;
	}
	if (err[0] && doc)	/* on standard error, named by its place */
		error("%s: %s", where, err);
	else if (err[0])
		error("%s", err);
	switch (fmt) {
	case FMT_YAML:
	case FMT_YAML_LLVM14: {
		/* llvm-exegesis's words for a phase before measuring */
		const char *shown = !err[0] && c->skip_phase ? "actual measurements skipped." : err;

		if (doc)
			print_yaml_doc(doc, &r, shown, unset, &mo, fmt);
		else
			print_yaml(name, s, &r, shown, c);
		break;
	}
	case FMT_JSON:
		print_json(name, s, &r, err, c, &mo);
		break;
	default:
		if (!err[0])
			print_text(name, s, &r, c);
		break;
	}
	fflush(results);
	snippet_free(s);
	return err[0] ? 1 : 0;
}

/*
 * The label of a document: its instructions, "; " between them, with
 * control characters escaped (a name must not end the line it is on).
 */
static char *doc_label(const struct exegesis_doc *d)
{
	size_t len = 0, at = 0;
	char *l;

	for (size_t i = 0; i < d->n_instructions; i++) {
		const char *in = d->instructions[i];

		len += escape_text(NULL, 0, in, strlen(in)) + 2;
	}
	l = malloc(len + 1);
	if (!l)
		return NULL;
	l[0] = 0;
	for (size_t i = 0; i < d->n_instructions; i++) {
		const char *in = d->instructions[i];

		if (i) {
			memcpy(l + at, "; ", 2);
			at += 2;
		}
		at += escape_text(l + at, len + 1 - at, in, strlen(in));
	}
	l[at] = 0;
	return l;
}

/*
 * Measure every document of an llvm-exegesis YAML stream, writing each
 * result as it is measured; *n_docs: how many there were. 0 when all were
 * measured, 1 when any failed.
 */
static int run_yaml(FILE *f, const char *name, struct run_cfg *c, unsigned long *n_docs)
{
	struct exegesis_reader *rd = exegesis_reader_new(f, name);
	struct exegesis_doc d;
	unsigned long done = 0, bad = 0;
	int ret, failed = 0;
	char sum[512];

	*n_docs = 0;
	c->tally.done = c->tally.measured = 0;
	memset(c->tally.failed, 0, sizeof(c->tally.failed));
	c->tally.start = now_s();
	if (!rd)
		return error("out of memory");
	/* a signal ends even the parse of a hostile stream at once */
	exegesis_reader_set_stop(rd, &stop_signal);
	if (c->name_width < 24)
		c->name_width = 24;
	while (!stop_signal && (ret = exegesis_reader_next(rd, &d)) != 0) {
		char unset[256], *text = NULL, *label, *where;

		if (ret < 0) {
			if (ret == -ENOMEM) {
				failed = error("out of memory");
				break;
			}
			progress_clear(c);
			if (ret != -EINTR) {	/* a signal: said by the exit status */
				failed = error("%s", sbx_error_msg());
				c->tally.done++;
				c->tally.failed[MEASURE_FAIL_OTHER]++;
			}
			continue;	/* a syntax error ends the stream: the next call says 0 */
		}
		label = doc_label(&d);
		where = NULL;
		if (!label || asprintf(&where, "%s:%d: %s", name, d.line, label) < 0)
			where = NULL;
		if (!where) {
			free(label);
			exegesis_doc_release(&d);
			failed = error("out of memory");
			break;
		}
		progress(c, label);
		/* no snippet found in it: that document's error */
		if (exegesis_doc_snippet(&d, &text, unset, sizeof(unset)) < 0)
			unset[0] = 0;
		bad += measure_text(label, text, &d, where, unset, c);
		done++;
		/* what the snippet left (--allow-syscalls); not llvm-exegesis, still writing */
		if (!c->generator_runs)
			workload_end_descendants();
		free(text);
		free(label);
		free(where);
		exegesis_doc_release(&d);
	}
	progress_clear(c);
	exegesis_reader_free(rd);
	*n_docs = done;
	/* a sweep's closing line, where some failed or progress was shown: what became of it */
	if (c->tally.done > 1 && (c->tally.measured < c->tally.done || c->progress)) {
		tally_text(&c->tally, sum, sizeof(sum));
		fprintf(stderr, "sbx run: %s: %lu documents: %s\n", name, c->tally.done, sum);
	}
	return failed || bad ? 1 : 0;
}

/* A stream that gives the bytes read to look at the input first, then the rest. */
struct peek {
	FILE *f;
	char head[4096];
	size_t len, pos;
};

static ssize_t peek_read(void *cookie, char *buf, size_t size)
{
	struct peek *p = cookie;
	size_t n;

	if (p->pos < p->len) {
		n = p->len - p->pos < size ? p->len - p->pos : size;
		memcpy(buf, p->head + p->pos, n);
		p->pos += n;
		return (ssize_t)n;
	}
	n = fread(buf, 1, size, p->f);
	return !n && ferror(p->f) ? -1 : (ssize_t)n;
}

static int peek_close(void *cookie)
{
	struct peek *p = cookie;

	if (p->f != stdin)
		fclose(p->f);
	free(p);
	return 0;
}

/*
 * The documents of a YAML file (its "---" lines), for a sweep's progress;
 * 0 for what is not a regular file (a FIFO is read once, by the sweep).
 */
static unsigned long count_documents(const char *path)
{
	unsigned long n = 0;
	char line[64];
	bool at_start = true;
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		if (at_start && !strncmp(line, "---", 3) && (line[3] == '\n' || line[3] == ' ' ||
							    line[3] == '\r' || !line[3]))
			n++;
		at_start = l && line[l - 1] == '\n';
	}
	fclose(f);
	return n;
}

/* Assemble and measure one input (a YAML stream: each of its documents); 0 when all was measured, 1 when not. */
static int run_one(const struct input *in, struct run_cfg *c)
{
	cookie_io_functions_t io = { .read = peek_read, .close = peek_close };
	struct peek *p;
	FILE *f;
	char *text;
	int ret;

	if (in->code) {
		sbx_error_clear();	/* strdup() failing: out of memory */
		text = strdup(in->code);
		ret = measure_text(in->name, text, NULL, NULL, "", c);
		free(text);
		return ret;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return error("out of memory");
	sbx_error_clear();
	p->f = strcmp(in->name, "-") ? fopen(in->name, "r") : stdin;
	if (!p->f) {
		sbx_error_errno(-errno, "cannot open '%s'", in->name);
		free(p);
		return measure_text(in->name, NULL, NULL, NULL, "", c);
	}
	/* the start, to tell llvm-exegesis's YAML from assembly */
	p->len = fread(p->head, 1, sizeof(p->head) - 1, p->f);
	f = fopencookie(p, "r", io);
	if (!f) {
		peek_close(p);
		return error("out of memory");
	}
	p->head[p->len] = 0;
	if (c->input_yaml || (!c->input_asm && exegesis_yaml_looks(p->head))) {
		unsigned long n;

		/* the total, for the progress line only: a second read of the file */
		c->tally.total = c->progress && strcmp(in->name, "-") ? count_documents(in->name) : 0;
		ret = run_yaml(f, in->name, c, &n);
		fclose(f);
		if (!n && !ret && !stop_signal)
			ret = error("%s: no llvm-exegesis benchmark in it", in->name);
		return ret;
	}
	text = read_all(f, in->name);
	fclose(f);
	ret = measure_text(in->name, text, NULL, NULL, "", c);
	free(text);
	return ret;
}

/*
 * Say what llvm-exegesis said on errf: why it failed, or the opcodes it
 * made no snippet for. The number of its lines.
 */
static unsigned long exegesis_messages(FILE *errf, bool failed)
{
	char line[1024];
	unsigned long n = 0;

	rewind(errf);
	while (fgets(line, sizeof(line), errf)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		if (failed)
			error("llvm-exegesis: %s", line);
		else if (n < 3)
			warning("llvm-exegesis: %s", line);
		n++;
	}
	if (!failed && n > 3)
		warning("llvm-exegesis: ... %lu lines in all (opcodes it made no snippet for)", n);
	return n;
}

/*
 * --opcode-name/--opcode-index: llvm-exegesis generates the snippets
 * (--benchmark-phase=prepare-and-assemble-snippet needs no counter), sbx
 * measures them as they come through a pipe. 0 when all were measured.
 */
static int run_opcodes(struct run_cfg *c, const char *exegesis, const char *selector)
{
	static const char *const defaults[] = {
		"llvm-exegesis-19", "/usr/lib/llvm-19/bin/llvm-exegesis", "llvm-exegesis",
	};
	char mode[64], rep[64];
	int ret = 1;

	snprintf(mode, sizeof(mode), "-mode=%s", measure_mode_name(c->mo.mode));
	/* copies of the snippet, found in assembled_snippet; sbx repeats them its own way */
	snprintf(rep, sizeof(rep), "-repetition-mode=duplicate");
	for (size_t i = 0; i < 3; i++) {
		const char *exe = exegesis ? exegesis : defaults[i];
		char *argv[16] = { (char *)exe, mode, (char *)selector,
				   "--benchmark-phase=prepare-and-assemble-snippet",
				   "--benchmarks-file=-", rep };
		struct workload_opts wo = { .argv = argv, .cpu = -1, .stop = &stop_signal };
		struct workload_status st;
		struct workload *w = NULL;
		unsigned long n = 0, said;
		int pfd[2], fds[3], err;
		FILE *errf = tmpfile(), *in;

		for (int k = 0; k < c->n_generator_args; k++)	/* --mcpu and the like */
			argv[6 + k] = c->generator_args[k];

		if (!errf || pipe2(pfd, O_CLOEXEC) < 0) {
			if (errf)
				fclose(errf);
			return error("cannot run llvm-exegesis: %s", strerror(errno));
		}
		fds[0] = -1;
		fds[1] = pfd[1];
		fds[2] = fileno(errf);
		wo.stdio_fds = fds;
		err = workload_prepare(&wo, &w);
		if (!err)
			err = workload_start(w);
		close(pfd[1]);
		in = err ? NULL : fdopen(pfd[0], "r");
		if (!in)
			close(pfd[0]);
		if (!in && !err)
			err = sbx_error_errno(-errno, "cannot read llvm-exegesis's output");
		if (in) {
			c->generator_runs = true;
			c->tally.total = 0;	/* as many as it generates */
			ret = run_yaml(in, "llvm-exegesis", c, &n);
			c->generator_runs = false;
			fclose(in);	/* stopped early: llvm-exegesis gets EPIPE */
			err = workload_wait(w, &st);
		}
		workload_free(w);
		if (err < 0) {
			fclose(errf);
			return error_lib(err, "cannot run llvm-exegesis");
		}
		if (st.exec_errno == ENOENT && !exegesis && i + 1 < 3) {
			fclose(errf);
			continue;
		}
		if (st.exec_errno) {
			fclose(errf);
			return error("cannot run %s: %s%s", exe, strerror(st.exec_errno),
				     exegesis ? "" : " (install llvm-19, or name one with --exegesis)");
		}
		if (st.stopped) {
			fclose(errf);
			return ret;
		}
		said = exegesis_messages(errf, !st.exited || st.exit_code != 0);
		fclose(errf);
		if (!st.exited || st.exit_code != 0)
			return said ? 1 : error("%s %s failed (%s)", exe, selector,
						st.exited ? "exit status non-zero"
							  : "killed by a signal");
		if (!n)
			return error("llvm-exegesis made no snippet for %s", selector + 1);
		return ret;
	}
	return ret;
}

static int parse_ulong(struct sbx_opts *p, const char *opt, const char *s, unsigned long max,
		       unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !*s || *s == '-' || v == 0 || v > max)
		return opts_usage_error(p, "%s must be a whole number from 1 to %lu, not '%s'",
					opt, max, s);
	*out = v;
	return 0;
}

static int run_main(int argc, char **argv);

int cmd_run(int argc, char **argv)
{
	char **copies = calloc((size_t)argc + 1, sizeof(char *));
	const char *unknown;
	int ret;

	if (!copies)
		return error("out of memory");
	/* llvm-exegesis's spellings: -mode=latency */
	unknown = opts_llvm_dashes(run_options, argc, argv, copies, true);
	ret = unknown ? opts_unknown_option("run", run_usage, run_options, argc, argv, unknown)
		      : run_main(argc, argv);
	for (int i = 0; i < argc; i++)
		free(copies[i]);
	free(copies);
	return ret;
}

static int run_main(int argc, char **argv)
{
	static struct input inputs[MAX_INPUTS];
	const char *results_path = NULL;
	struct output *out = NULL;
	bool format_given = sbx_globals.json;
	struct contain_limits limits = { 0 };
	const char *exegesis = NULL;
	char *selector = NULL;	/* -opcode-name=... or -opcode-index=N */
	bool force_progress = false;
	struct run_cfg c;
	struct sbx_opts p;
	int n_inputs = 0, failed = 0, c_opt, err;
	unsigned long v;
	char *end;

	memset(&c, 0, sizeof(c));
	measure_opts_init(&c.mo);
	c.mo.tsc_reference = &c.tsc_reference;
	c.fmt = sbx_globals.json ? FMT_JSON : FMT_TEXT;
	opts_init(&p, "run", run_usage, run_options, argc, argv, 0);
	opts_values(&p, run_values);
	while ((c_opt = opts_next(&p)) != OPTS_END) {
		err = 0;
		switch (c_opt) {
		case OPT_ASM:
		case OPT_SNIPPETS_FILE:
			if (n_inputs == MAX_INPUTS)
				return opts_finish(&p, opts_usage_error(&p, "too many snippets"));
			inputs[n_inputs].name = c_opt == OPT_ASM ? "<asm>" : p.arg;
			inputs[n_inputs++].code = c_opt == OPT_ASM ? p.arg : NULL;
			break;
		case OPT_OPCODE_NAME:
		case OPT_OPCODE_INDEX:
			if (selector)
				err = opts_usage_error(&p, "one --opcode-name or --opcode-index");
			else if (c_opt == OPT_OPCODE_INDEX &&
				 (strtol(p.arg, &end, 10) < -1 || *end || !*p.arg))
				err = opts_usage_error(&p, "--opcode-index must be an opcode number or -1 "
						       "(every opcode), not '%s'", p.arg);
			else if (c_opt == OPT_OPCODE_NAME && !*p.arg)
				err = opts_usage_error(&p, "--opcode-name needs a name");
			else if (asprintf(&selector, "-opcode-%s=%s",
					  c_opt == OPT_OPCODE_NAME ? "name" : "index", p.arg) < 0)
				err = error("out of memory");
			break;
		case OPT_EXEGESIS:
			exegesis = p.arg;
			break;
		case OPT_PHASE:
			if (!strcmp(p.arg, "measure"))
				c.skip_phase = NULL;
			else if (!strcmp(p.arg, "prepare-snippet") ||
				 !strcmp(p.arg, "prepare-and-assemble-snippet") ||
				 !strcmp(p.arg, "assemble-measured-code") ||
				 !strcmp(p.arg, "dry-run-measurement"))
				c.skip_phase = p.arg;
			else
				err = opts_usage_error(&p, "--benchmark-phase must be measure, "
						       "prepare-snippet, prepare-and-assemble-snippet, "
						       "assemble-measured-code or dry-run-measurement, "
						       "not '%s'", p.arg);
			break;
		case OPT_PROGRESS:
			force_progress = true;
			break;
		case OPT_MTRIPLE:
			if (strncmp(p.arg, "x86_64", 6))
				err = opts_usage_error(&p, "--mtriple: sbx run measures x86_64 code on "
						       "this machine, not '%s'", p.arg);
			break;
		case OPT_DUMMY_COUNTERS:
			warning("--use-dummy-perf-counters is ignored: sbx measures, with the TSC "
				"where there is no PMU");
			break;
		case OPT_GEN_MCPU:
		case OPT_GEN_CONFIGS:
			if (c.n_generator_args == 8)
				err = opts_usage_error(&p, "too many options for llvm-exegesis");
			else if (asprintf(&c.generator_args[c.n_generator_args], "-%s=%s",
					  c_opt == OPT_GEN_MCPU ? "mcpu" : "max-configs-per-opcode",
					  p.arg) < 0)
				err = error("out of memory");
			else
				c.n_generator_args++;
			break;
		case OPT_INPUT_FORMAT:
			c.input_yaml = !strcmp(p.arg, "exegesis-yaml");
			c.input_asm = !strcmp(p.arg, "asm");
			if (!c.input_yaml && !c.input_asm)
				err = opts_usage_error(&p, "--input-format must be asm or exegesis-yaml, "
						       "not '%s'", p.arg);
			break;
		case OPT_SYNTAX:
			if (!strcmp(p.arg, "att"))
				c.ao.syntax = SNIPPET_ATT;
			else if (!strcmp(p.arg, "intel"))
				c.ao.syntax = SNIPPET_INTEL;
			else
				err = opts_usage_error(&p, "--syntax must be att or intel, not '%s'",
						       p.arg);
			break;
		case OPT_ASSEMBLER:
			c.ao.assembler = p.arg;
			break;
		case OPT_MODE:
			if (measure_parse_mode(p.arg, &c.mo.mode) < 0)
				err = opts_usage_error(&p, "%s", sbx_error_msg());
			break;
		case OPT_REPETITION:
			if (measure_parse_repetition(p.arg, &c.mo.repetition) < 0)
				err = opts_usage_error(&p, "%s", sbx_error_msg());
			break;
		case OPT_AGGREGATE:
			if (measure_parse_aggregate(p.arg, &c.mo.aggregate) < 0)
				err = opts_usage_error(&p, "%s", sbx_error_msg());
			break;
		case OPT_CYCLE_COUNTER:
			if (measure_parse_counter(p.arg, &c.mo.counter) < 0)
				err = opts_usage_error(&p, "%s", sbx_error_msg());
			break;
		case OPT_MIN_INSNS:
			err = parse_ulong(&p, "--min-instructions", p.arg, 100000000, &c.mo.min_instructions);
			c.min_instructions_given = true;
			break;
		case OPT_REPEAT:
			err = parse_ulong(&p, "--benchmark-repeat-count", p.arg, 100000, &v);
			c.mo.repeat_count = (unsigned)v;
			break;
		case OPT_NO_DIFF:
			c.mo.no_diff = true;
			break;
		case OPT_COUNTERS: {
			char *save, *tok;

			for (tok = strtok_r(p.arg, ",", &save); tok && !err;
			     tok = strtok_r(NULL, ",", &save)) {
				if (c.mo.n_events == MEASURE_MAX_EVENTS)
					err = opts_usage_error(&p, "at most %d --counters",
							       MEASURE_MAX_EVENTS);
				else
					c.mo.events[c.mo.n_events++] = tok;
			}
			break;
		}
		case OPT_CPU:
			errno = 0;
			v = strtoul(p.arg, &end, 10);
			if (errno || *end || !*p.arg || *p.arg == '-' || v >= CPU_SETSIZE)
				err = opts_usage_error(&p, "--benchmark-process-cpu must be a CPU number, "
						       "not '%s'", p.arg);
			c.mo.cpu = (int)v;
			break;
		case OPT_TIMEOUT:
			errno = 0;
			c.mo.timeout_s = strtod(p.arg, &end);
			if (errno || *end || !*p.arg || !(c.mo.timeout_s > 0))
				err = opts_usage_error(&p, "--timeout must be a number of seconds "
						       "above 0, not '%s'", p.arg);
			else if (c.mo.timeout_s > 86400)
				err = opts_usage_error(&p, "--timeout is at most 86400 seconds (a day), "
						       "not '%s'", p.arg);
			break;
		case OPT_ALLOW_SYSCALLS:
			c.mo.allow_syscalls = true;
			break;
		case OPT_MAX_PIDS:
			errno = 0;
			v = strtoul(p.arg, &end, 10);
			if (errno || *end || !*p.arg || *p.arg == '-' || !v)
				err = opts_usage_error(&p, "--max-pids must be a number above 0, not '%s'",
						       p.arg);
			limits.max_pids = v;
			break;
		case OPT_MAX_MEMORY:
			if (opt_parse_size(p.arg, &limits.max_memory) || !limits.max_memory)
				err = opts_usage_error(&p, "--max-memory: invalid size '%s' (bytes, or "
						       "with K, M, G)", p.arg);
			break;
		case OPT_DUMP:
			c.ao.dump_object = p.arg;
			break;
		case OPT_EXECUTION_MODE:
			/* exegesis command lines say subprocess; sbx always forks */
			if (strcmp(p.arg, "subprocess") && strcmp(p.arg, "inprocess"))
				err = opts_usage_error(&p, "--execution-mode must be subprocess or "
						       "inprocess, not '%s'", p.arg);
			break;
		case OPT_BENCHMARKS_FILE:
			results_path = p.arg;
			break;
		case OPT_FORMAT:
			format_given = true;
			if (!strcmp(p.arg, "text"))
				c.fmt = FMT_TEXT;
			else if (!strcmp(p.arg, "yaml"))
				c.fmt = FMT_YAML;
			else if (!strcmp(p.arg, "yaml-llvm14"))
				c.fmt = FMT_YAML_LLVM14;
			else if (!strcmp(p.arg, "json"))
				c.fmt = FMT_JSON;
			else
				err = opts_usage_error(&p, "--format must be text, yaml, yaml-llvm14 or json, "
						       "not '%s'",
						       p.arg);
			break;
		case OPT_JSON:
			format_given = true;
			c.fmt = FMT_JSON;
			break;
		default:
			return opts_finish(&p, c_opt);
		}
		if (err)
			return opts_finish(&p, err);
	}
	for (int i = p.optind; i < argc; i++) {
		if (n_inputs == MAX_INPUTS)
			return opts_finish(&p, opts_usage_error(&p, "too many snippets"));
		inputs[n_inputs].name = argv[i];
		inputs[n_inputs++].code = NULL;
	}
	if (n_inputs == 0 && !selector)
		return opts_finish(&p, opts_usage_error(&p, "no snippet given (FILE, -, --asm or "
							 "--opcode-name)"));
	if (c.ao.dump_object && n_inputs > 1)
		return opts_finish(&p, opts_usage_error(&p, "--dump-object-to-disk takes one snippet"));
	if (measure_mode_check(c.mo.mode) < 0) {	/* uops without a PMU: before anything runs */
		opts_finish(&p, OPTS_END);
		free(selector);
		return error("%s", sbx_error_msg());
	}
	results = stdout;
	if (results_path && !format_given)
		c.fmt = FMT_YAML;	/* llvm-exegesis's --benchmarks-file is YAML */
	c.fmt_given = format_given || results_path;
	c.progress = force_progress || isatty(STDERR_FILENO);
	if (c.n_generator_args && !selector)
		warning("-%.*s is ignored: it is for llvm-exegesis's generation (--opcode-name, "
			"--opcode-index)", (int)strcspn(c.generator_args[0], "="),
			c.generator_args[0]);
	if (results_path && strcmp(results_path, "-")) {
		int oerr = output_open(results_path, 0644, &out);

		if (!oerr && !(results = output_stream(out)))
			oerr = sbx_error_errno(-errno, "cannot write '%s'", results_path);
		if (oerr) {
			results = stdout;
			error_lib(oerr, "--benchmarks-file");
			output_abort(out);
			opts_finish(&p, OPTS_END);
			return EXIT_FAILED;
		}
	}
	/* 10 significant digits: no 0.59555999999999998 */
	json_c_set_serialization_double_format("%.10g", JSON_C_OPTION_THREAD);
	/* several --asm: each labelled with its text, not all "<asm>" */
	{
		int n_asm = 0;

		for (int i = 0; i < n_inputs; i++)
			n_asm += inputs[i].code != NULL;
		for (int i = 0; i < n_inputs && n_asm > 1; i++) {
			if (!inputs[i].code)
				continue;
			asm_label(inputs[i].code, inputs[i].label, sizeof(inputs[i].label));
			inputs[i].name = inputs[i].label;
		}
	}
	c.name_width = 7;
	for (int i = 0; i < n_inputs; i++)
		if ((int)strlen(inputs[i].name) > c.name_width)
			c.name_width = (int)strlen(inputs[i].name);
	/* what a snippet (--allow-syscalls) or an assembler leaves behind is ended after it */
	/*
	 * a snippet with system calls sees sbx's processes in /proc, and, as the
	 * same user, could ptrace them or write their memory: undumpable, they
	 * need a capability for that (the watchdog, forked now, inherits it)
	 */
	if (c.mo.allow_syscalls)
		prctl(PR_SET_DUMPABLE, 0);
	err = contain_start(&limits);
	if (err) {
		error_lib(err, "cannot contain the snippets' processes");
		output_abort(out);
		results = stdout;
		opts_finish(&p, OPTS_END);
		return EXIT_FAILED;
	}
	/*
	 * each snippet's child is born in a PID namespace of its own (measure.c):
	 * under seccomp it signals nobody anyway, with system calls the namespace
	 * is what stops it
	 */
	if (c.mo.allow_syscalls && workload_pid_ns_missing())
		warning("--allow-syscalls: %s; the snippets can see and signal sbx's processes "
			"(a SIGSTOP to sbx holds its --timeout)", workload_pid_ns_missing());
	c.mo.stop = c.ao.stop = &stop_signal;
	c.ao.timeout_s = c.mo.timeout_s;
	catch_stop_signals();
	for (int i = 0; i < n_inputs && !stop_signal; i++) {
		failed |= run_one(&inputs[i], &c);
		workload_end_descendants();
	}
	if (selector && !stop_signal)
		failed |= run_opcodes(&c, exegesis, selector);
	free(selector);
	for (int i = 0; i < c.n_generator_args; i++)
		free(c.generator_args[i]);
	opts_finish(&p, OPTS_END);
	if (out) {
		/* complete, or not there at all */
		int oerr = output_commit(out);

		if (oerr)
			failed = error_lib(oerr, "--benchmarks-file");
		results = stdout;
	}
	/* the results so far are out; the status says what ended the run, as a shell's would */
	if (stop_signal)
		return 128 + stop_signal;
	return failed ? EXIT_FAILED : EXIT_OK;
}
