// SPDX-License-Identifier: MIT
/*
 * sbx jit-inject: a perf.data with jitted code made visible to perf — the
 * jitdumps the recorded processes mapped, turned into ELF images and MMAP2
 * records (lib/jit/inject.h). sbx report, script and profgen read jitdumps
 * themselves; this is for perf and its ecosystem.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "jit/inject.h"
#include "parse-options.h"
#include "util/error.h"

static const char *const jit_inject_usage[] = {
	"sbx jit-inject [-i IN|-] [-o OUT|-] [--jit-dir DIR] [--perf-map] [-q] [--json]",
	NULL,
};

enum {
	OPT_JIT_DIR = 0x100,
	OPT_PERF_MAP,
	OPT_JSON,
};

static const struct sbx_option jit_inject_options[] = {
	{ "input", 'i', "FILE", "the recording to read (default: perf.data; -: stdin)", 0 },
	{ "output", 'o', "FILE", "the perf.data to write (default: -, stdout, pipe mode)", 0 },
	{ "jit", 'j', NULL, "accepted for perf inject's command lines (always on)", 0 },
	{ "jit-dir", 0, "DIR", "write the ELF images into DIR (default: beside each dump); "
	  "also look there for dumps missing at their recorded path", OPT_JIT_DIR },
	{ "perf-map", 0, NULL, "also make images from /tmp/perf-PID.map for anonymous "
	  "executable maps", OPT_PERF_MAP },
	{ "quiet", 'q', NULL, "no summary line and no warnings", 0 },
	{ "json", 0, NULL, "print the summary as JSON on stdout (needs -o FILE)", OPT_JSON },
	OPT_END,
};

struct jit_inject_args {
	const char *input, *output;
	struct jit_tracker_opts opts;
	bool quiet, json;
};

static void print_warning(void *ctx, const char *msg)
{
	const struct jit_inject_args *a = ctx;

	if (!a->quiet)
		warning("%s", msg);
}

static int parse_args(struct jit_inject_args *a, int argc, char **argv)
{
	struct sbx_opts p;
	struct stat st;
	int c;

	opts_init(&p, "jit-inject", jit_inject_usage, jit_inject_options, argc, argv, 0);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case 'i':
			a->input = p.arg;
			break;
		case 'o':
			a->output = p.arg;
			break;
		case 'j':
			break;
		case 'q':
			a->quiet = true;
			break;
		case OPT_JIT_DIR:
			a->opts.image_dir = a->opts.dump_dir = p.arg;
			break;
		case OPT_PERF_MAP:
			a->opts.perf_map = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		default:
			return opts_finish(&p, c);
		}
	}
	if (p.optind < argc)
		return opts_finish(&p, opts_usage_error(&p, "unexpected operand '%s' (the input "
							"is -i FILE)", argv[p.optind]));
	if (!*a->input || !*a->output)
		return opts_finish(&p, opts_usage_error(&p, "an empty file name"));
	if (a->opts.image_dir && (stat(a->opts.image_dir, &st) || !S_ISDIR(st.st_mode)))
		return opts_finish(&p, opts_usage_error(&p, "--jit-dir %s: not a folder",
							a->opts.image_dir));
	if (!strcmp(a->output, "-") && isatty(STDOUT_FILENO))
		return opts_finish(&p, opts_usage_error(&p, "will not write a perf.data to a "
							"terminal; give -o FILE or a pipe"));
	if (a->json && !strcmp(a->output, "-"))
		return opts_finish(&p, opts_usage_error(&p, "--json prints on stdout: give -o FILE"));
	opts_finish(&p, OPTS_END);
	return -1;
}

static void print_json(const struct jit_stats *st)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "dumps", json_object_new_uint64(st->dumps));
	json_object_object_add(o, "loads", json_object_new_uint64(st->loads));
	json_object_object_add(o, "moves", json_object_new_uint64(st->moves));
	json_object_object_add(o, "images", json_object_new_uint64(st->images));
	json_object_object_add(o, "perf_map_images", json_object_new_uint64(st->perf_maps));
	if (st->perf_map_dir[0])
		json_object_object_add(o, "perf_map_dir", json_object_new_string(st->perf_map_dir));
	json_object_object_add(o, "mmaps", json_object_new_uint64(st->mmaps));
	json_object_object_add(o, "anon_maps_dropped", json_object_new_uint64(st->dropped));
	json_object_object_add(o, "warnings", json_object_new_uint64(st->warnings));
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int cmd_jit_inject(int argc, char **argv)
{
	struct jit_inject_args a = { .input = "perf.data", .output = "-" };
	struct jit_stats st = { 0 };
	int err;

	err = parse_args(&a, argc, argv);
	if (err >= 0)
		return err;
	a.json |= sbx_globals.json && strcmp(a.output, "-");
	a.opts.warn = print_warning;
	a.opts.warn_ctx = &a;
	err = jit_inject(a.input, a.output, &a.opts, &st);
	if (err)
		return error_lib(err, a.input);
	if (!st.dumps && !st.perf_maps && !a.quiet)
		warning("%s: no jitdump was mapped by the recorded processes%s", a.input,
			a.opts.perf_map ? " and no perf map named their anonymous code" : "");
	if (a.json)
		print_json(&st);
	else if (!a.quiet) {
		char maps[PATH_MAX + 32] = "";

		if (st.perf_maps)
			snprintf(maps, sizeof(maps), " (with perf-map images%s%s)",
				 st.perf_map_dir[0] ? " in " : "", st.perf_map_dir);
		fprintf(stderr, "sbx jit-inject: %" PRIu64 " jitdumps (%" PRIu64 " loads, %" PRIu64
			" moves) -> %" PRIu64 " images, %" PRIu64 " MMAP2 records injected%s\n",
			st.dumps, st.loads, st.moves, st.images, st.mmaps, maps);
	}
	return finish_stdout(EXIT_OK);
}
