// SPDX-License-Identifier: MIT
/*
 * sbx profgen: LLVM sample profiles (clang -fprofile-sample-use) from
 * perf.data, every sample attributed through its own process's address
 * space, from IP-only samples or from branch stacks. The work is
 * lib/profile/ (collect, generate, sampleprof); this file picks the binary,
 * counts what was left out, and speaks.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "parse-options.h"
#include "perf-input.h"
#include "profile/collect.h"
#include "profile/afdo.h"
#include "profile/generate.h"
#include "profile/perfscript.h"
#include "profile/sampleprof.h"
#include "symbol/binary.h"
#include "util/array.h"
#include "util/error.h"
#include "util/heap.h"
#include "util/output.h"
#include "util/escape.h"
#include "util/strlist.h"

static const char *const profgen_usage[] = {
	"sbx profgen [-o FILE] [--binary BIN]... [--format text|extbinary|gcov] [OPTIONS] [INPUT...]",
	NULL,
};

enum {
	OPT_BINARY = 0x100,
	OPT_PERFDATA,
	OPT_PERFSCRIPT,
	OPT_UNSYMBOLIZED,
	OPT_FORMAT,
	OPT_PID,
	OPT_DEBUG_BINARY,
	OPT_DEBUG_FILE,
	OPT_IGNORE_BUILD_ID,
	OPT_IGNORE_STACKS,
	OPT_DETAILED,
	OPT_SKIP_SYMBOLIZATION,
	OPT_JSON,
};

static const struct sbx_option profgen_options[] = {
	{ "output", 'o', "FILE", "write the profile to FILE, - for stdout (default)", 0 },
	{ "binary", 0, "BIN", "make the profile of BIN (repeatable; default: the executable "
	  "with the most samples)", OPT_BINARY },
	{ "perfdata", 0, "FILE", "a perf.data to read, as an INPUT", OPT_PERFDATA },
	{ "perfscript", 0, "FILE", "read perf script text (-F ip,brstack --show-mmap-events)",
	  OPT_PERFSCRIPT },
	{ "unsymbolized-profile", 0, "FILE", "read raw range and branch counts "
	  "(what --skip-symbolization writes)", OPT_UNSYMBOLIZED },
	{ "format", 0, "FORMAT", "text (default), extbinary, or gcov: GCC's AutoFDO profile "
	  "(gcc -fauto-profile; gcc is the same)", OPT_FORMAT },
	{ "pid", 0, "PIDS", "only samples of these processes (comma-separated)", OPT_PID },
	{ "debug-binary", 0, "FILE", "read the DWARF from FILE", OPT_DEBUG_BINARY },
	{ "debug-file", 0, "FILE", "the same as --debug-binary", OPT_DEBUG_FILE },
	{ "ignore-build-id", 0, NULL, "match --binary by name even when build-ids differ",
	  OPT_IGNORE_BUILD_ID },
	{ "ignore-stack-samples", 0, NULL, "do not use call chains", OPT_IGNORE_STACKS },
	{ "show-detailed-warning", 0, NULL, "name every binary and DSO left out",
	  OPT_DETAILED },
	{ "skip-symbolization", 0, NULL, "write the raw range and branch counts instead of a "
	  "profile", OPT_SKIP_SYMBOLIZATION },
	{ "json", 0, NULL, "print a per-function summary as JSON instead of the profile",
	  OPT_JSON },
	OPT_END,
};

/* what the completions offer for the arguments (--list-values) */
static const struct sbx_option_values profgen_values[] = {
	{ "format", "text extbinary gcov gcc" },
	{ NULL, NULL },
};

enum format { FMT_TEXT, FMT_EXTBINARY, FMT_GCOV };

/* One input: a perf.data, or perf script text (with a machine of its own). */
struct input {
	const char *path;
	bool progress;			/* stderr is a terminal: show how far it got */
	bool script;
	struct perf_input in;		/* perf.data */
	struct dso_cache *cache;	/* perf script */
	struct machine *machine;
	struct pg_collector *c;
};

/* A binary to profile, and the DSOs of every input that are it. */
struct target {
	struct binary *b;
	const char *given;		/* --binary, or NULL when chosen */
	struct pg_dso **dsos;
	size_t nr, cap;
	bool by_name;			/* matched by name: no build-id to compare */
};

struct profgen {
	struct strlist inputs, scripts, binaries;
	const char *unsymbolized;
	const char *output;
	const char *debug_binary;
	enum format format;
	bool ignore_build_id, detailed, skip_symbolization, json;
	struct pg_options opt;
	uint32_t *pids;
	struct input *in;
	size_t nr_in;
	struct target *targets;
	size_t nr_targets;
	uint64_t dropped[PG_NR_REASONS];
	uint64_t samples, used;
	bool lbr, symbols_only;
	struct opener *opener;
};

/*
 * The --binary files, opened by a thread of their own while the main one
 * reads the samples, which then reads ahead their DWARF (line tables,
 * inline trees) for as long as the reading lasts: the two take about as
 * long, and the machine has a second core. The binaries are the main
 * thread's again once opener_join() returns.
 */
struct opener {
	pthread_t thread;
	bool started;
	atomic_bool stop;
	const char *const *paths;
	const char *debug;
	size_t nr;
	struct binary **b;
	int *err;
	char **msg;			/* the error message of err[i] */
};

static void *opener_main(void *arg)
{
	struct opener *o = arg;

	for (size_t i = 0; i < o->nr; i++) {
		o->err[i] = binary_open(o->paths[i], o->debug, &o->b[i]);
		if (o->err[i])
			o->msg[i] = strdup(sbx_error_msg() ? sbx_error_msg() : "");
	}
	for (size_t i = 0; i < o->nr; i++)
		if (o->b[i])
			binary_preload(o->b[i], &o->stop);
	return NULL;
}

/* Start opening the given binaries; without a thread, they are opened here. */
static int opener_start(struct profgen *g)
{
	struct opener *o = calloc(1, sizeof(*o));
	size_t n = g->binaries.nr;

	if (!o)
		return error("out of memory");
	g->opener = o;
	o->paths = (const char *const *)g->binaries.items;
	o->nr = n;
	o->debug = g->debug_binary;
	o->b = calloc(n, sizeof(*o->b));
	o->err = calloc(n, sizeof(*o->err));
	o->msg = calloc(n, sizeof(*o->msg));
	if (!o->b || !o->err || !o->msg)
		return error("out of memory");
	atomic_init(&o->stop, false);
	sbx_elf_ready();	/* libelf's one-time set-up, before a second thread */
	o->started = !pthread_create(&o->thread, NULL, opener_main, o);
	if (!o->started) {
		atomic_store(&o->stop, true);	/* no read-ahead: nothing to overlap */
		opener_main(o);
	}
	return 0;
}

/* Stop the read-ahead and wait for the thread. */
static void opener_join(struct opener *o)
{
	if (!o || !o->started)
		return;
	atomic_store(&o->stop, true);
	pthread_join(o->thread, NULL);
	o->started = false;
}

static void opener_free(struct opener *o)
{
	if (!o)
		return;
	opener_join(o);
	for (size_t i = 0; i < o->nr; i++) {
		binary_free(o->b ? o->b[i] : NULL);
		free(o->msg ? o->msg[i] : NULL);
	}
	free(o->b);
	free(o->err);
	free(o->msg);
	free(o);
}

static int on_record(void *ctx, const struct perf_event_header *rec,
		     const struct perf_data_attr *attr, const struct perf_sample *s)
{
	struct input *in = ctx;
	int err;

	(void)attr;
	if (rec->type != PERF_RECORD_SAMPLE)
		return pg_collector_record(in->c, rec);
	err = pg_collect(in->c, s);
	if (!err && in->progress && !(pg_collector_samples(in->c) % 200000))
		fprintf(stderr, "\rsbx profgen: %s: %" PRIu64 " samples", in->path,
			pg_collector_samples(in->c));
	return err;
}

static int read_inputs(struct profgen *g)
{
	size_t n = g->inputs.nr + g->scripts.nr;

	g->in = calloc(n ? n : 1, sizeof(*g->in));
	if (!g->in)
		return error("out of memory");
	for (size_t i = 0; i < g->inputs.nr; i++) {
		struct input *in = &g->in[g->nr_in++];
		int ret;

		in->path = g->inputs.items[i];
		in->progress = isatty(STDERR_FILENO);
		ret = perf_input_open(&in->in, in->path);
		if (ret)
			return ret;
		in->c = pg_collector_new(in->in.machine, &g->opt);
		if (!in->c)
			return error("out of memory");
		ret = perf_input_run(&in->in, on_record, in);
		if (in->progress && pg_collector_samples(in->c) >= 200000)
			fputc('\n', stderr);
		if (ret)
			return ret;
		if (pg_collector_flush(in->c))
			return error_lib(-ENOMEM, "profgen");
	}
	for (size_t i = 0; i < g->scripts.nr; i++) {
		struct input *in = &g->in[g->nr_in++];
		struct perfscript_stats st;
		FILE *f;
		int err;

		in->path = g->scripts.items[i];
		in->script = true;
		in->cache = dso_cache_new();
		in->machine = in->cache ? machine_new(in->cache) : NULL;
		in->c = in->machine ? pg_collector_new(in->machine, &g->opt) : NULL;
		if (!in->c)
			return error("out of memory");
		f = strcmp(in->path, "-") ? fopen(in->path, "r") : stdin;
		if (!f)
			return error("cannot open '%s': %s", in->path, strerror(errno));
		err = perfscript_read(f, in->path, in->machine, in->c, &st);
		if (f != stdin)
			fclose(f);
		if (err)
			return error_lib(err, in->path);
		if (st.bad_lines)
			warning("%s: %" PRIu64 " lines are neither samples nor events (the first: "
				"line %" PRIu64 ")", in->path, st.bad_lines, st.first_bad_line);
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Equal build-ids, a shorter one padded with zeros (buildid_equal). */
static bool same_build_id(const struct dso *d, const struct binary *b)
{
	return buildid_equal(d->build_id, d->build_id_size, b->build_id, b->build_id_size);
}

static int add_dso(struct target *t, struct pg_dso *d)
{
	if (array_reserve(&t->dsos, &t->cap, t->nr + 1, sizeof(*t->dsos)))
		return -ENOMEM;
	t->dsos[t->nr++] = d;
	return 0;
}

/* Is DSO d the given binary? By build-id when both have one, else by name. */
static bool dso_is(const struct profgen *g, struct target *t, const struct dso *d,
		   bool *mismatch)
{
	bool named = !strcmp(d->path, t->b->path) ||
		     !strcmp(base_name(d->path), base_name(t->b->path));

	*mismatch = false;
	if (d->kind != DSO_ELF)
		return false;
	if (!g->ignore_build_id && d->build_id_size && t->b->build_id_size) {
		if (same_build_id(d, t->b))
			return true;
		*mismatch = named;
		return false;
	}
	if (named)
		t->by_name = true;
	return named;
}

/* The target before t that has d already, or NULL. */
static const struct target *claimed_by(const struct profgen *g, const struct target *t,
				       const struct pg_dso *d)
{
	for (const struct target *o = g->targets; o < t; o++)
		for (size_t i = 0; i < o->nr; i++)
			if (o->dsos[i] == d)
				return o;
	return NULL;
}

/* The --binary files, each matched to the DSOs of the recordings. */
static int match_given(struct profgen *g)
{
	g->targets = calloc(g->binaries.nr, sizeof(*g->targets));
	if (!g->targets)
		return error("out of memory");
	for (size_t i = 0; i < g->binaries.nr; i++) {
		struct target *t = &g->targets[g->nr_targets++];
		uint64_t mismatched = 0;
		const struct dso *mismatch_dso = NULL;
		int err;

		t->given = g->binaries.items[i];
		err = g->opener->err[i];
		if (err) {
			sbx_error(err, "%s", g->opener->msg[i]);
			return error_lib(err, t->given);
		}
		t->b = g->opener->b[i];
		g->opener->b[i] = NULL;	/* the target's now */
		for (size_t k = 0; k < g->nr_in; k++) {
			struct pg_dso *const *dsos;
			size_t n = pg_collector_dsos(g->in[k].c, &dsos);

			for (size_t j = 0; j < n; j++) {
				bool mismatch;

				if (dso_is(g, t, dsos[j]->dso, &mismatch)) {
					const struct target *o = claimed_by(g, t, dsos[j]);

					/* one DSO's samples go into one profile once */
					if (o)
						return error("%s and %s both match %s: give it once",
							     o->given, t->given, dsos[j]->dso->path);
					if (add_dso(t, dsos[j]))
						return error("out of memory");
				} else if (mismatch) {
					mismatched += dsos[j]->samples;
					mismatch_dso = dsos[j]->dso;
				}
			}
		}
		if (!t->nr && mismatch_dso) {
			char a[2 * BUILDID_MAX + 1], b[2 * BUILDID_MAX + 1];

			return error("%s: build-id %s, but the recording's %s has build-id %s "
				     "(%" PRIu64 " samples): a rebuilt binary does not match; "
				     "--ignore-build-id uses it anyway", t->given,
				     buildid_hex(t->b->build_id, t->b->build_id_size, a),
				     mismatch_dso->path,
				     buildid_hex(mismatch_dso->build_id, mismatch_dso->build_id_size,
						 b), mismatched);
		}
		if (!t->nr)
			return error("%s: no sample of the recording falls in it (no DSO of that "
				     "build-id or name; see --show-detailed-warning)", t->given);
		if (t->by_name)
			fprintf(stderr, "sbx profgen: %s matched by name%s\n", t->given,
				g->ignore_build_id ? " (--ignore-build-id)"
						   : ": the recording has no build-id to compare");
		g->dropped[PG_BUILD_ID] += mismatched;
	}
	return 0;
}

static int cmp_samples(const void *a, const void *b)
{
	const struct pg_dso *x = *(struct pg_dso *const *)a, *y = *(struct pg_dso *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->dso->path, y->dso->path);
}

/* A shared object by its name (libc.so.6, libhot.so, ld-linux-x86-64.so.2). */
static bool is_library(const char *path)
{
	const char *name = base_name(path), *so = strstr(name, ".so");

	for (; so; so = strstr(so + 1, ".so"))
		if (so[3] == 0 || so[3] == '.')
			return true;
	return false;
}

/*
 * The most sampled DSO's file is not here: rebuilt since the recording (the
 * path holds another build), or gone. Said with the build-ids and the path.
 */
static int no_file_error(const struct pg_dso *p)
{
	const struct dso *d = p->dso;
	char a[2 * BUILDID_MAX + 1], b[2 * BUILDID_MAX + 1];

	if (d->path_differs)
		return error("%s (%" PRIu64 " samples) was rebuilt since the recording: the file "
			     "there has %s%s, the recording's build-id %s; give that build with "
			     "--binary (sbx record keeps a copy in the build-id cache)", d->shown_path,
			     p->samples, d->path_build_id_size ? "build-id " : "no build-id",
			     buildid_hex(d->path_build_id, d->path_build_id_size, a),
			     buildid_hex(d->build_id, d->build_id_size, b));
	if (d->build_id_size)
		return error("%s (%" PRIu64 " samples) is not here, nor its build-id %s in the "
			     "build-id cache; give it with --binary", d->shown_path, p->samples,
			     buildid_hex(d->build_id, d->build_id_size, b));
	return error("%s (%" PRIu64 " samples) is not here; give it with --binary",
		     d->shown_path, p->samples);
}

/*
 * Without --binary: the executable with the most user samples; an error
 * when the most sampled file is not here.
 */
static int choose_binary(struct profgen *g)
{
	struct pg_dso **all = NULL;
	size_t nr = 0;
	int err;

	for (size_t k = 0; k < g->nr_in; k++) {
		struct pg_dso *const *dsos;
		size_t n = pg_collector_dsos(g->in[k].c, &dsos);
		struct pg_dso **v = realloc(all, (nr + n + 1) * sizeof(*v));

		if (!v) {
			free(all);
			return error("out of memory");
		}
		all = v;
		for (size_t j = 0; j < n; j++)
			if (dsos[j]->dso->kind == DSO_ELF && dsos[j]->samples &&
			    dsos[j]->dso->path[0] == '/')
				all[nr++] = dsos[j];
	}
	if (nr)
		qsort(all, nr, sizeof(*all), cmp_samples);
	g->targets = calloc(1, sizeof(*g->targets));
	if (!g->targets) {
		free(all);
		return error("out of memory");
	}
	for (size_t i = 0; i < nr && !g->nr_targets; i++) {
		const char *file = dso_file(all[i]->dso);
		bool lib = is_library(all[i]->dso->path);
		struct binary *b;

		/*
		 * The most sampled program whose file is not here stops it:
		 * profiling the next one instead (libc, with a sample or two)
		 * would hand a build a profile of the wrong program. A library
		 * (rebuilt, upgraded, another host's) is passed over.
		 */
		if (!file && lib)
			continue;
		if (!file) {
			int ret = no_file_error(all[i]);

			free(all);
			return ret;
		}
		err = binary_open(file, g->debug_binary, &b);
		if (err && !lib) {
			int ret = error("%s (%" PRIu64 " samples) cannot be read: %s; give the program "
					"with --binary", all[i]->dso->shown_path, all[i]->samples,
					sbx_error_msg());

			free(all);
			return ret;
		}
		sbx_error_clear();
		if (err)
			continue;
		/* libc has a PT_INTERP too: a shared object is not the program */
		if (!b->executable || lib) {
			binary_free(b);
			continue;
		}
		g->targets[0].b = b;
		g->nr_targets = 1;
	}
	if (!g->nr_targets) {
		free(all);
		return error("no executable got user-space samples; give one with --binary");
	}
	/* the same binary in every input (by build-id, else by path) */
	for (size_t i = 0; i < nr; i++) {
		const struct dso *d = all[i]->dso;
		struct binary *b = g->targets[0].b;
		const char *file;

		if ((d->build_id_size && b->build_id_size)
			    ? same_build_id(d, b)
			    : (file = dso_file(all[i]->dso)) && !strcmp(file, b->path))
			if (add_dso(&g->targets[0], all[i])) {
				free(all);
				return error("out of memory");
			}
	}
	fprintf(stderr, "sbx profgen: profiling %s ", g->targets[0].dsos[0]->dso->shown_path);
	if (strcmp(g->targets[0].dsos[0]->dso->path, g->targets[0].b->path))
		fprintf(stderr, "(read from %s) ", g->targets[0].b->path);
	fprintf(stderr, "(%" PRIu64 " samples)", g->targets[0].dsos[0]->samples);
	for (size_t i = 0, shown = 0; i < nr && shown < 5; i++) {
		bool chosen = false;

		for (size_t k = 0; k < g->targets[0].nr; k++)
			chosen |= g->targets[0].dsos[k] == all[i];
		if (chosen)
			continue;
		fprintf(stderr, "%s %s (%" PRIu64 ")", shown ? "," : "; other DSOs:",
			base_name(all[i]->dso->shown_path), all[i]->samples);
		shown++;
	}
	fprintf(stderr, "; --binary chooses another\n");
	free(all);
	return 0;
}

static bool in_target(const struct profgen *g, const struct pg_dso *d)
{
	for (size_t i = 0; i < g->nr_targets; i++)
		for (size_t k = 0; k < g->targets[i].nr; k++)
			if (g->targets[i].dsos[k] == d)
				return true;
	return false;
}

/* Samples of DSOs that are not a target: left out, and said so. */
static void count_left_out(struct profgen *g)
{
	for (size_t k = 0; k < g->nr_in; k++) {
		struct pg_dso *const *dsos;
		size_t n = pg_collector_dsos(g->in[k].c, &dsos);

		g->samples += pg_collector_samples(g->in[k].c);
		for (int r = 0; r < PG_NR_REASONS; r++)
			g->dropped[r] += pg_collector_dropped(g->in[k].c, r);
		for (size_t j = 0; j < n; j++) {
			if (in_target(g, dsos[j]) || !dsos[j]->samples)
				continue;
			g->dropped[PG_NOT_BINARY] += dsos[j]->samples;
			if (g->detailed)
				fprintf(stderr, "sbx profgen: %s: %" PRIu64 " samples left out (%s)\n",
					dsos[j]->dso->shown_path, dsos[j]->samples,
					pg_reason_name(PG_NOT_BINARY));
		}
	}
	/* build-id mismatches were counted as "not the binary" too */
	g->dropped[PG_NOT_BINARY] -= g->dropped[PG_BUILD_ID] < g->dropped[PG_NOT_BINARY] ?
				     g->dropped[PG_BUILD_ID] : g->dropped[PG_NOT_BINARY];
}

/*
 * What makes an IP-only profile likely to mislead clang, said with the fix:
 * line offsets that are not the compiler's, lines that cannot be told
 * apart, samples that left holes. Shares of the binary's samples.
 */
static void ip_warnings(const struct pg_generate_stats *st, const char *path)
{
	uint64_t all = st->samples + st->no_line;

	if (st->no_decl_line && st->no_decl_line * 10 >= st->samples)
		warning("%.0f%% of the samples in %s are in functions without a declaration "
			"line (DW_AT_decl_line), so their line offsets are not the ones clang looks "
			"up: rebuild with -fdebug-info-for-profiling (-gline-tables-only leaves the "
			"line out without it)", 100.0 * (double)st->no_decl_line / (double)st->samples,
			escape_str(path));
	else if (st->samples >= 1000 && !st->with_discriminator)
		warning("no sampled line of %s has a discriminator: was it built without "
			"-fdebug-info-for-profiling? The blocks of one line then share one count",
			escape_str(path));
	if (st->no_line && st->no_line * 20 >= all)
		warning("%.1f%% of the samples in %s fell on instructions of no line table row "
			"and were left out", 100.0 * (double)st->no_line / (double)all,
			escape_str(path));
	if (st->lineless_blocks && st->lineless_blocks * 20 >= all)
		warning("%.1f%% of the samples in %s fell in basic blocks of no line (line 0 "
			"only): they count in their functions' totals but in no line's; the code "
			"around them may read colder than it ran", 100.0 *
			(double)st->lineless_blocks / (double)all, escape_str(path));
}

#define HOT_FUNCTION_SAMPLES	500	/* fewer: most of its lines' counts are noise */

/* The hottest function of an IP-only profile with too few samples to tell its lines apart. */
static void few_samples_warning(struct sample_profile *p)
{
	struct sp_func *const *funcs;
	size_t n = sample_profile_sorted(p, &funcs);

	if (n && funcs[0]->total < HOT_FUNCTION_SAMPLES)
		warning("the hottest function, %s, has %" PRIu64 " samples: too few for counts "
			"of its lines that are more than noise; record longer, at a higher -F "
			"(10000), or give several recordings (at least %d samples in it)",
			escape_str(funcs[0]->name), funcs[0]->total, HOT_FUNCTION_SAMPLES);
}

static void summary_line(const struct profgen *g)
{
	bool first = true;

	fprintf(stderr, "sbx profgen: %" PRIu64 " samples, %" PRIu64 " in the %s (%.1f%%)",
		g->samples, g->used, g->skip_symbolization ? "raw counts" : "profile",
		g->samples ? 100.0 * g->used / g->samples : 0.0);
	for (int r = 0; r < PG_NR_REASONS; r++) {
		if (!g->dropped[r])
			continue;
		fprintf(stderr, "%s %" PRIu64 " %s", first ? "; left out:" : ",", g->dropped[r],
			pg_reason_name(r));
		first = false;
	}
	fprintf(stderr, "%s\n", g->lbr ? " (from branch stacks)" : " (IP samples)");
}

static int print_json(struct profgen *g, struct sample_profile *p, FILE *out)
{
	struct sp_func *const *funcs;
	size_t n = sample_profile_sorted(p, &funcs);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += funcs[i]->total;
	for (size_t i = 0; i < n; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "name", json_object_new_string(funcs[i]->name));
		if (funcs[i]->origin < g->nr_targets)
			json_object_object_add(f, "binary", json_object_new_string(
				g->targets[funcs[i]->origin].b->path));
		json_object_object_add(f, "total", json_object_new_uint64(funcs[i]->total));
		json_object_object_add(f, "head", json_object_new_uint64(funcs[i]->head));
		json_object_object_add(f, "share", json_object_new_double(
			total ? 100.0 * funcs[i]->total / total : 0.0));
		json_object_array_add(arr, f);
	}
	json_object_object_add(o, "binaries", json_object_new_array());
	for (size_t i = 0; i < g->nr_targets; i++)
		json_object_array_add(json_object_object_get(o, "binaries"),
				      json_object_new_string(g->targets[i].b->path));
	json_object_object_add(o, "mode", json_object_new_string(g->lbr ? "lbr" : "ip"));
	json_object_object_add(o, "samples", json_object_new_uint64(g->samples));
	json_object_object_add(o, "used", json_object_new_uint64(g->used));
	{
		json_object *lo = json_object_new_object();

		for (int r = 0; r < PG_NR_REASONS; r++)
			json_object_object_add(lo, pg_reason_name(r),
					       json_object_new_uint64(g->dropped[r]));
		json_object_object_add(o, "left_out", lo);
	}
	json_object_object_add(o, "functions", arr);
	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}

/* The output: the profile, the raw counts, or the summary. */
static int write_output(struct profgen *g, struct sample_profile *p)
{
	struct output *o;
	FILE *f;
	int err = output_open(g->output, 0644, &o);

	if (err)
		return error_lib(err, g->output);
	f = output_stream(o);
	if (!f) {
		output_abort(o);
		return error("cannot write '%s': %s", g->output, strerror(errno));
	}
	if (g->skip_symbolization) {
		for (size_t i = 0; i < g->nr_targets && !err; i++) {
			uint64_t outside;

			err = pg_write_unsymbolized(f, g->targets[i].dsos, g->targets[i].nr,
						    g->targets[i].b, &outside);
			g->used -= outside;
			g->dropped[PG_NO_FUNCTION] += outside;
		}
	} else if (g->json) {
		err = print_json(g, p, f);
	} else if (g->format == FMT_EXTBINARY) {
		err = sample_profile_write_extbinary(p, f);
	} else if (g->format == FMT_GCOV) {
		err = sample_profile_write_afdo(p, f);
	} else {
		err = sample_profile_write_text(p, f);
	}
	if (err) {
		output_abort(o);
		return error_lib(err, g->output);
	}
	err = output_commit(o);
	return err ? error_lib(err, g->output) : 0;
}

static int parse_pids(struct profgen *g, const char *arg)
{
	struct strlist l = STRLIST_INIT;
	uint32_t *v;

	if (strlist_split(&l, arg, ','))
		return -ENOMEM;
	if (!l.nr)
		return -EINVAL;
	v = realloc(g->pids, (g->opt.nr_pids + l.nr) * sizeof(*v));
	if (!v) {
		strlist_release(&l);
		return -ENOMEM;
	}
	g->pids = v;
	for (size_t i = 0; i < l.nr; i++) {
		char *end;
		unsigned long p = strtoul(l.items[i], &end, 10);

		if (*end || end == l.items[i] || p > INT_MAX) {
			strlist_release(&l);
			return -EINVAL;
		}
		g->pids[g->opt.nr_pids++] = (uint32_t)p;
	}
	g->opt.pids = g->pids;
	strlist_release(&l);
	return 0;
}

static int parse_args(struct profgen *g, int argc, char **argv)
{
	struct sbx_opts p;
	int c, err = 0;

	opts_init(&p, "profgen", profgen_usage, profgen_options, argc, argv, 0);
	opts_values(&p, profgen_values);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case 'o':
			g->output = p.arg;
			break;
		case OPT_BINARY:
			err = strlist_add(&g->binaries, p.arg);
			break;
		case OPT_PERFDATA:
			err = strlist_add(&g->inputs, p.arg);
			break;
		case OPT_PERFSCRIPT:
			err = strlist_add(&g->scripts, p.arg);
			break;
		case OPT_UNSYMBOLIZED:
			g->unsymbolized = p.arg;
			break;
		case OPT_FORMAT:
			if (!strcmp(p.arg, "text"))
				g->format = FMT_TEXT;
			else if (!strcmp(p.arg, "extbinary"))
				g->format = FMT_EXTBINARY;
			else if (!strcmp(p.arg, "gcov") || !strcmp(p.arg, "gcc"))
				g->format = FMT_GCOV;
			else
				return opts_finish(&p, opts_usage_error(&p, "--format must be text, "
					"extbinary or gcov, not '%s' (llvm-profdata merge --sample "
					"converts to the others)", p.arg));
			break;
		case OPT_PID:
			err = parse_pids(g, p.arg);
			if (err == -EINVAL)
				return opts_finish(&p, opts_usage_error(&p, "bad --pid '%s'", p.arg));
			break;
		case OPT_DEBUG_BINARY:
		case OPT_DEBUG_FILE:
			g->debug_binary = p.arg;
			break;
		case OPT_IGNORE_BUILD_ID:
			g->ignore_build_id = true;
			break;
		case OPT_IGNORE_STACKS:
			g->opt.use_stack = false;
			break;
		case OPT_DETAILED:
			g->detailed = true;
			break;
		case OPT_SKIP_SYMBOLIZATION:
			g->skip_symbolization = true;
			break;
		case OPT_JSON:
			g->json = true;
			break;
		default:
			return opts_finish(&p, c);
		}
		if (err) {
			opts_finish(&p, OPTS_END);
			return error("out of memory");
		}
	}
	for (int i = p.optind; i < argc; i++)
		if (strlist_add(&g->inputs, argv[i])) {
			opts_finish(&p, OPTS_END);
			return error("out of memory");
		}
	if (g->unsymbolized && (g->inputs.nr || g->scripts.nr))
		return opts_finish(&p, opts_usage_error(&p, "--unsymbolized-profile is the only "
							"input when it is given"));
	if (g->unsymbolized && g->binaries.nr != 1)
		return opts_finish(&p, opts_usage_error(&p, "--unsymbolized-profile needs its "
							"binary: one --binary"));
	if (g->skip_symbolization && g->json)
		return opts_finish(&p, opts_usage_error(&p, "--skip-symbolization and --json "
							"exclude each other"));
	opts_finish(&p, OPTS_END);
	if (!g->inputs.nr && !g->scripts.nr && !g->unsymbolized &&
	    strlist_add(&g->inputs, "perf.data"))
		return error("out of memory");
	return -1;
}

static void profgen_release(struct profgen *g)
{
	for (size_t i = 0; i < g->nr_targets; i++) {
		binary_free(g->targets[i].b);
		free(g->targets[i].dsos);
	}
	free(g->targets);
	for (size_t i = 0; i < g->nr_in; i++) {
		pg_collector_free(g->in[i].c);
		if (g->in[i].script) {
			machine_free(g->in[i].machine);
			dso_cache_free(g->in[i].cache);
		} else {
			perf_input_close(&g->in[i].in);
		}
	}
	free(g->in);
	free(g->pids);
	opener_free(g->opener);
	strlist_release(&g->inputs);
	strlist_release(&g->scripts);
	strlist_release(&g->binaries);
}

/* --unsymbolized-profile: raw counts of one binary in, a profile out. */
static int from_unsymbolized(struct profgen *g, struct sample_profile *p)
{
	struct pg_generate_stats st;
	FILE *f = strcmp(g->unsymbolized, "-") ? fopen(g->unsymbolized, "r") : stdin;
	int err;

	if (!f)
		return error("cannot open '%s': %s", g->unsymbolized, strerror(errno));
	g->targets = calloc(1, sizeof(*g->targets));
	if (!g->targets)
		return error("out of memory");
	err = binary_open(g->binaries.items[0], g->debug_binary, &g->targets[0].b);
	if (!err) {
		g->nr_targets = 1;
		err = pg_generate_unsymbolized(p, f, g->unsymbolized, g->targets[0].b, &st);
	}
	if (f != stdin)
		fclose(f);
	if (err)
		return error_lib(err, g->unsymbolized);
	g->lbr = true;
	return 0;
}

int cmd_profgen(int argc, char **argv)
{
	struct profgen g = { .output = "-", .opt = { .use_stack = true } };
	struct sample_profile *p = NULL;
	char **copies = calloc((size_t)argc + 1, sizeof(char *));
	const char *unknown;
	int ret;

	if (!copies)
		return error("out of memory");
	if (sbx_globals.json)
		g.json = true;
	/* llvm-profgen's spellings: -binary=app -perfdata=perf.data */
	unknown = opts_llvm_dashes(profgen_options, argc, argv, copies, false);
	if (unknown) {
		ret = opts_unknown_option("profgen", profgen_usage, profgen_options, argc, argv,
					  unknown);
		goto out;
	}
	ret = parse_args(&g, argc, argv);
	if (ret >= 0)
		goto out;
	p = sample_profile_new();
	if (!p) {
		ret = error("out of memory");
		goto out;
	}
	if (g.unsymbolized) {
		ret = from_unsymbolized(&g, p);
		if (ret)
			goto out;
		goto write;
	}
	heap_prepare_bulk(256 << 20);
	if (g.binaries.nr) {
		ret = opener_start(&g);
		if (ret)
			goto out;
	}
	ret = read_inputs(&g);
	opener_join(g.opener);
	if (ret)
		goto out;
	{
		uint64_t n = 0;

		/* weighted counts of many inputs may pass 2^64: saturated, never wrapped to 0 */
		for (size_t i = 0; i < g.nr_in; i++)
			n = sp_add(n, pg_collector_samples(g.in[i].c));
		if (!n) {
			ret = error("no samples in %s", g.nr_in == 1 ? g.in[0].path : "the inputs");
			goto out;
		}
	}
	ret = g.binaries.nr ? match_given(&g) : choose_binary(&g);
	if (ret) {
		if (g.detailed)
			for (size_t k = 0; k < g.nr_in; k++) {
				struct pg_dso *const *dsos;
				size_t n = pg_collector_dsos(g.in[k].c, &dsos);

				for (size_t j = 0; j < n; j++)
					fprintf(stderr, "sbx profgen: %s: %s: %" PRIu64
						" samples\n", g.in[k].path, dsos[j]->dso->shown_path,
						dsos[j]->samples);
			}
		goto out;
	}
	count_left_out(&g);
	/* the raw counts hold every sample of the binary, before any symbol */
	for (size_t i = 0; i < g.nr_targets && g.skip_symbolization; i++)
		for (size_t k = 0; k < g.targets[i].nr; k++) {
			g.used += g.targets[i].dsos[k]->samples;
			g.lbr |= pg_dso_has_branch_stacks(g.targets[i].dsos[k]);
		}
	for (size_t i = 0; i < g.nr_targets && !g.skip_symbolization; i++) {
		struct pg_generate_stats st;
		int err;

		sample_profile_set_origin(p, (unsigned)i);	/* --json names each function's binary */
		err = pg_generate(p, g.targets[i].dsos, g.targets[i].nr, g.targets[i].b, &st);

		if (err) {
			ret = error_lib(err, "profgen");
			goto out;
		}
		g.used += st.samples;
		g.dropped[PG_NO_FUNCTION] += st.no_function;
		g.dropped[PG_NO_LINE] += st.no_line;
		g.lbr |= st.lbr;
		g.symbols_only |= st.symbols_only;
		/* no .symtab (only .dynsym, or nothing): stripped */
		if (st.symbols_only && !g.targets[i].b->nr_code_starts)
			warning("%s is stripped: it has neither DWARF nor a symbol table (give the "
				"unstripped file, or its debug file with --debug-binary)",
				g.targets[i].b->path);
		else if (st.symbols_only && g.targets[i].b->lines_only)
			warning("%s has line tables but no DWARF functions (DW_TAG_subprogram), as "
				"clang -gline-tables-only builds it without -fdebug-info-for-profiling: "
				"the profile names functions from its symbols, with no lines (rebuild "
				"with -fdebug-info-for-profiling)", escape_str(g.targets[i].b->path));
		else if (st.symbols_only)
			warning("%s has no DWARF for its sampled code: the profile names functions from its "
				"symbols, with no lines (build with -g or -gline-tables-only, or give "
				"--debug-binary)",
				g.targets[i].b->path);
		/* a quarter: more than a frame-pointer chain's odd stale frame */
		if (st.bad_returns && (g.detailed || st.bad_returns * 4 > st.returns))
			warning("%" PRIu64 " of %" PRIu64 " call-chain returns into %s follow no call "
				"instruction and were left out%s", st.bad_returns, st.returns,
				g.targets[i].b->path,
				st.bad_returns * 4 > st.returns
					? ": was it built without frame pointers? (-fno-omit-frame-"
					  "pointer, or --ignore-stack-samples)" : "");
		if (!st.lbr && !st.symbols_only)
			ip_warnings(&st, g.targets[i].b->path);
		if (st.lbr && st.bad_ranges && g.detailed)
			fprintf(stderr, "sbx profgen: %" PRIu64 " of %" PRIu64 " range samples "
				"refused (not on instruction boundaries, or across an unconditional "
				"branch)\n", st.bad_ranges, st.ranges + st.bad_ranges);
	}
	if (!g.skip_symbolization && !g.lbr && !g.symbols_only)
		few_samples_warning(p);
	if (!g.skip_symbolization)
		summary_line(&g);
	if (!g.skip_symbolization && !sample_profile_nr(p)) {
		ret = error("no function of %s got samples: nothing to write",
			    g.nr_targets ? g.targets[0].b->path : "the binary");
		goto out;
	}
write:
	ret = write_output(&g, p);
	/* after the raw counts, which know what had no place in them */
	if (!ret && g.skip_symbolization && !g.unsymbolized)
		summary_line(&g);
out:
	/*
	 * the process ends next: the reader thread stops, the heap goes with it,
	 * and what would outlive it (jitted code's temporary images) is removed
	 */
	opener_join(g.opener);
	if (heap_free_at_end()) {
		sample_profile_free(p);
		profgen_release(&g);
	} else {
		for (size_t i = 0; i < g.nr_in; i++)
			if (!g.in[i].script)
				perf_input_remove_temps(&g.in[i].in);
	}
	for (int i = 0; i < argc; i++)
		free(copies[i]);
	free(copies);
	return ret;
}
