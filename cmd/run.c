// SPDX-License-Identifier: MIT
/*
 * sbx run: assemble snippets and measure each in a supervised child. The
 * work is in lib/snippet.c (annotations, assembler) and lib/measure.c (the
 * child, the counters); this file parses options and prints.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "parse-options.h"
#include "util/error.h"
#include "util/output.h"
#include "util/sysinfo.h"
#include "measure/contain.h"
#include "measure/measure.h"
#include "measure/snippet.h"

static const char *const run_usage[] = {
	"sbx run [OPTIONS] FILE...",
	"sbx run [OPTIONS] --asm CODE",
	NULL,
};

enum {
	OPT_ASM = 0x100, OPT_SYNTAX, OPT_ASSEMBLER, OPT_MODE, OPT_REPETITION, OPT_MIN_INSNS,
	OPT_REPEAT, OPT_AGGREGATE, OPT_NO_DIFF, OPT_COUNTERS, OPT_CYCLE_COUNTER, OPT_CPU,
	OPT_TIMEOUT, OPT_ALLOW_SYSCALLS, OPT_DUMP, OPT_FORMAT, OPT_JSON, OPT_SNIPPETS_FILE,
	OPT_BENCHMARKS_FILE, OPT_EXECUTION_MODE, OPT_MAX_PIDS, OPT_MAX_MEMORY,
};

static const struct sbx_option run_options[] = {
	{ "asm", 0, "CODE", "measure this code ('; ' or newline between instructions)", OPT_ASM },
	{ "snippets-file", 0, "FILE", "a snippet file (llvm-exegesis spelling of FILE)",
	  OPT_SNIPPETS_FILE },
	{ "syntax", 0, "SYNTAX", "att (default) or intel", OPT_SYNTAX },
	{ "assembler", 0, "PROGRAM", "assembler to run: as (default) or llvm-mc", OPT_ASSEMBLER },
	{ "mode", 0, "MODE", "latency (default) or inverse_throughput", OPT_MODE },
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
	OPT_END,
};

/* what the completions offer for the arguments (--list-values) */
static const struct sbx_option_values run_values[] = {
	{ "syntax", "att intel" },
	{ "assembler", "as llvm-mc" },
	{ "mode", "latency inverse_throughput" },
	{ "repetition-mode", "duplicate loop min" },
	{ "result-aggregation-mode", "min median mean min-variance" },
	{ "aggregate", "min median mean min-variance" },
	{ "counters", "@events" },
	{ "cycle-counter", "auto cycles tsc task-clock" },
	{ "format", "text yaml yaml-llvm14 json" },
	{ "execution-mode", "subprocess inprocess" },
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
	const char *name;	/* file name, "-" or "<asm>" */
	const char *code;	/* --asm text, else NULL */
};

struct run_cfg {
	struct measure_opts mo;
	struct snippet_asm_opts ao;
	double tsc_reference;	/* the lowest TSC ratio of this run (measure.h) */
	enum format fmt;
	int text_header_done;
	int name_width;		/* of the SNIPPET column */
};

static char *read_all(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, cap = 4096;
	char *buf;
	size_t n;

	if (!f) {
		sbx_error_errno(-errno, "cannot open '%s'", path);
		return NULL;
	}
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
	if (f != stdin)
		fclose(f);
	if (buf)
		buf[len] = 0;
	if (buf && memchr(buf, 0, len)) {
		sbx_error(-EINVAL, "'%s' is not a text file", path);
		free(buf);
		return NULL;
	}
	return buf;
}

static void yaml_str(const char *key, const char *v)
{
	fprintf(results, "%s'", key);
	for (; *v; v++) {
		if (*v == '\'')
			fputs("''", results);
		else if (*v == '\n')
			fputc(' ', results);
		else
			fputc(*v, results);
	}
	fprintf(results, "%s\n", "'");
}

static void cpu_name(char *buf, size_t len)
{
	char *name = sysinfo_cpuinfo("model name", false);

	snprintf(buf, len, "%s", name ? name : "unknown");
	free(name);
}

static void reg_value_text(const struct snippet_defreg *d, char *buf, size_t len)
{
	size_t w = d->reg.cls == SNIPPET_REG_GPR || d->reg.cls == SNIPPET_REG_MASK ||
		   d->reg.cls == SNIPPET_REG_SEG ? 8 :
		   d->reg.cls == SNIPPET_REG_XMM ? 16 : d->reg.cls == SNIPPET_REG_YMM ? 32 : 64;
	size_t used;
	int top = (int)w - 1;

	while (top > 0 && d->value[top] == 0)
		top--;
	used = (size_t)snprintf(buf, len, "%s=0x%x", d->name, d->value[top]);
	for (int i = top - 1; i >= 0 && used < len; i--)
		used += (size_t)snprintf(buf + used, len - used, "%02x", d->value[i]);
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
	if (r->exited && used < len)
		snprintf(buf + used, len - used, "; the snippet exited with code 0 before it was "
			 "measured");
}

static void print_yaml(const char *name, const struct snippet *s, const struct measure_result *r,
		       const char *err, const struct run_cfg *c)
{
	char buf[1024];

	fprintf(results, "%s\n", "---");
	fprintf(results, "mode:            %s\n", measure_mode_name(c->mo.mode));
	fprintf(results, "%s\n", "key:");
	if (s && s->n_llvm_insns) {	/* LLVM's names: exegesis's tools can read them */
		fprintf(results, "%s\n", "  instructions:");
		for (int i = 0; i < s->n_llvm_insns; i++)
			yaml_str("    - ", s->llvm_insns[i]);
	} else if (s && s->n_insns) {
		fprintf(results, "%s\n", "  instructions:");
		for (int i = 0; i < s->n_insns; i++)
			yaml_str("    - ", s->insns[i].text);
	} else {
		fprintf(results, "%s\n", "  instructions:    []");
	}
	fprintf(results, "%s\n", "  config:          ''");
	if (s && s->n_defregs) {
		fprintf(results, "%s\n", "  register_initial_values:");
		for (int i = 0; i < s->n_defregs; i++) {
			reg_value_text(&s->defregs[i], buf, sizeof(buf));
			yaml_str("    - ", buf);
		}
	} else {
		fprintf(results, "%s\n", "  register_initial_values: []");
	}
	cpu_name(buf, sizeof(buf));
	yaml_str("cpu_name:        ", buf);
	fprintf(results, "%s\n", "llvm_triple:     x86_64-unknown-linux-gnu");
	/* llvm-exegesis 14 knows the key by its old name only */
	fprintf(results, "%s: %lu\n", c->fmt == FMT_YAML_LLVM14 ? "num_repetitions" : "min_instructions",
	       c->mo.min_instructions);
	if (!err[0] && r->n_values) {
		fprintf(results, "%s\n", "measurements:");
		for (int i = 0; i < r->n_values; i++)
			fprintf(results, "  - { key: %s, value: %.6g, per_snippet_value: %.6g }\n",
			       r->values[i].key, r->values[i].value, r->values[i].per_snippet_value);
	} else {
		fprintf(results, "%s\n", "measurements:    []");
	}
	yaml_str("error:           ", err);
	info_text(s, r, c, buf, sizeof(buf));
	if (!s)
		snprintf(buf, sizeof(buf), "snippet %s", name);
	yaml_str("info:            ", buf);
	fprintf(results, "assembled_snippet: ");
	if (s)
		for (size_t i = 0; i < s->code_size; i++)
			fprintf(results, "%02X", s->code[i]);
	fprintf(results, "%s\n", "\n...");
}

static void print_json(const char *name, const struct snippet *s,
		       const struct measure_result *r, const char *err, const struct run_cfg *c)
{
	json_object *o = json_object_new_object(), *m = json_object_new_array();
	json_object *insns = json_object_new_array();

	json_object_object_add(o, "snippet", json_object_new_string(name));
	json_object_object_add(o, "mode", json_object_new_string(measure_mode_name(c->mo.mode)));
	json_object_object_add(o, "counter", json_object_new_string(r->counter));
	json_object_object_add(o, "unit", json_object_new_string(r->unit));
	if (r->tsc_per_cycle > 0) {
		json_object_object_add(o, "tsc_per_cycle", json_object_new_double(r->tsc_per_cycle));
		json_object_object_add(o, "tsc_drift", json_object_new_double(r->drift));
	}
	for (int i = 0; !err[0] && i < r->n_values; i++) {
		json_object *v = json_object_new_object();

		json_object_object_add(v, "key", json_object_new_string(r->values[i].key));
		json_object_object_add(v, "value", json_object_new_double(r->values[i].value));
		json_object_object_add(v, "per_snippet_value",
				       json_object_new_double(r->values[i].per_snippet_value));
		json_object_array_add(m, v);
	}
	json_object_object_add(o, "measurements", m);
	json_object_object_add(o, "error", json_object_new_string(err));
	json_object_object_add(o, "exited", json_object_new_boolean(r->exited));
	if (s && !s->decoded_all && s->n_llvm_insns)	/* capstone could not decode them */
		for (int i = 0; i < s->n_llvm_insns; i++)
			json_object_array_add(insns, json_object_new_string(s->llvm_insns[i]));
	else
		for (int i = 0; s && i < s->n_insns; i++)
			json_object_array_add(insns, json_object_new_string(s->insns[i].text));
	json_object_object_add(o, "instructions", insns);
	json_object_object_add(o, "repetition_mode",
			       json_object_new_string(measure_repetition_name(c->mo.repetition)));
	json_object_object_add(o, "min_instructions",
			       json_object_new_int64((int64_t)c->mo.min_instructions));
	json_object_object_add(o, "benchmark_repeat_count",
			       json_object_new_int64(c->mo.repeat_count));
	json_object_object_add(o, "result_aggregation_mode",
			       json_object_new_string(measure_aggregate_name(c->mo.aggregate)));
	json_object_object_add(o, "diff", json_object_new_boolean(!c->mo.no_diff));
	json_object_object_add(o, "cpu", json_object_new_int(c->mo.cpu));
	json_object_object_add(o, "timeout", json_object_new_double(c->mo.timeout_s));
	json_object_object_add(o, "num_repetitions", json_object_new_int64((int64_t)r->repetitions));
	json_object_object_add(o, "retries", json_object_new_int(r->retries));
	fprintf(results, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void print_text(const char *name, const struct snippet *s,
		       const struct measure_result *r, struct run_cfg *c)
{
	if (!c->text_header_done) {
		fprintf(results, "%-*s  %-18s %10s %12s  %s\n", c->name_width, "SNIPPET", "KEY", "PER INSN",
		       "PER SNIPPET", "COUNTER");
		c->text_header_done = 1;
	}
	if (r->exited)	/* a checking snippet, as llvm-exegesis's tests write them */
		fprintf(results, "%-*s  %-18s %10s %12s  %s\n", c->name_width, name, "exit(0)", "-",
			"-", "the snippet exited with code 0 before it was measured");
	for (int i = 0; i < r->n_values; i++) {
		char counter[96];

		if (i == 0 && r->tsc_per_cycle > 0)
			snprintf(counter, sizeof(counter), "%s (%.3f TSC ticks/cycle)", r->counter,
				 r->tsc_per_cycle);
		else if (i == 0)
			snprintf(counter, sizeof(counter), "%s (%s)", r->counter, r->unit);
		else
			snprintf(counter, sizeof(counter), "event");
		fprintf(results, "%-*s  %-18s %10.4f %12.4f  %s\n", c->name_width, i == 0 ? name : "",
		       r->values[i].key,
		       r->values[i].value, r->values[i].per_snippet_value, counter);
	}
	fflush(results);
}

/* Assemble and measure one input; 0 when it was measured, 1 when it failed. */
static int run_one(const struct input *in, struct run_cfg *c)
{
	struct measure_result r;
	struct snippet *s = NULL;
	char err[1024] = "";
	char *text = NULL;
	int e = 0;

	memset(&r, 0, sizeof(r));
	sbx_error_clear();
	text = in->code ? strdup(in->code) : read_all(in->name);
	if (!text)
		e = -ENOMEM;
	if (!e)
		e = snippet_parse(in->name, text, &s);
	if (!e)
		e = snippet_assemble(s, &c->ao);
	if (!e && (c->fmt == FMT_YAML || c->fmt == FMT_YAML_LLVM14) && snippet_llvm_names(s, c->ao.syntax, NULL) < 0)
		sbx_error_clear();	/* without llvm-mc: sbx's disassembly */
	if (!e)
		e = measure_snippet(s, &c->mo, &r);
	if (e < 0)
		snprintf(err, sizeof(err), "%s", sbx_error_msg() ? sbx_error_msg() : strerror(-e));
	else if (r.error[0])
		snprintf(err, sizeof(err), "%s: %s", in->name, r.error);

	if (!err[0] && r.tsc_per_cycle > 0 && fabs(r.drift) > 0.02)
		warning("%s: the TSC calibration drifted by %+.1f%% during the run; the figures "
			"may be off (frequency scaling?)", in->name, 100 * r.drift);
	if (err[0])
		error("%s", err);
	switch (c->fmt) {
	case FMT_YAML:
	case FMT_YAML_LLVM14:
		print_yaml(in->name, s, &r, err, c);
		break;
	case FMT_JSON:
		print_json(in->name, s, &r, err, c);
		break;
	default:
		if (!err[0])
			print_text(in->name, s, &r, c);
		break;
	}
	fflush(results);
	snippet_free(s);
	free(text);
	return err[0] ? 1 : 0;
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

/*
 * llvm-exegesis (LLVM's command-line library) takes long options with one
 * dash too: -mode=latency. Spell those as --mode=latency for getopt, so
 * that its users' command lines work. sbx run has no short options but -h.
 */
static void exegesis_dashes(int argc, char **argv, char **copies)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t len;

		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || a[1] == '-' || !a[1] || !a[2])
			continue;
		len = strcspn(a + 1, "=");
		for (const struct sbx_option *o = run_options; o->long_name; o++) {
			if (strlen(o->long_name) == len && !strncmp(o->long_name, a + 1, len) &&
			    asprintf(&copies[i], "-%s", a) > 0) {
				argv[i] = copies[i];
				break;
			}
		}
	}
}

static int run_main(int argc, char **argv);

int cmd_run(int argc, char **argv)
{
	char **copies = calloc((size_t)argc + 1, sizeof(char *));
	int ret;

	if (!copies)
		return error("out of memory");
	exegesis_dashes(argc, argv, copies);
	ret = run_main(argc, argv);
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
	if (n_inputs == 0)
		return opts_finish(&p, opts_usage_error(&p, "no snippet given (FILE, - or --asm)"));
	if (c.ao.dump_object && n_inputs > 1)
		return opts_finish(&p, opts_usage_error(&p, "--dump-object-to-disk takes one snippet"));
	results = stdout;
	if (results_path && !format_given)
		c.fmt = FMT_YAML;	/* llvm-exegesis's --benchmarks-file is YAML */
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
	c.name_width = 7;
	for (int i = 0; i < n_inputs; i++)
		if ((int)strlen(inputs[i].name) > c.name_width)
			c.name_width = (int)strlen(inputs[i].name);
	/* what a snippet (--allow-syscalls) or an assembler leaves behind is ended after it */
	err = contain_start(&limits);
	if (err) {
		error_lib(err, "cannot contain the snippets' processes");
		output_abort(out);
		results = stdout;
		opts_finish(&p, OPTS_END);
		return EXIT_FAILED;
	}
	c.mo.stop = c.ao.stop = &stop_signal;
	c.ao.timeout_s = c.mo.timeout_s;
	catch_stop_signals();
	for (int i = 0; i < n_inputs && !stop_signal; i++) {
		failed |= run_one(&inputs[i], &c);
		workload_end_descendants();
	}
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
