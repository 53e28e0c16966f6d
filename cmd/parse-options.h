/* SPDX-License-Identifier: MIT */
#ifndef SBX_PARSE_OPTIONS_H
#define SBX_PARSE_OPTIONS_H

/*
 * One option table per command, over getopt_long. The same table yields
 * the parser, `-h` (usage on stdout), `--help` (the man page),
 * `--list-opts` (what the completions offer) and `--list-values OPT` (the
 * values of one option's argument, for the same).
 */

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

struct sbx_option {
	const char *long_name;	/* without the dashes; NULL for short only */
	int short_name;		/* 0 for long only */
	const char *arg;	/* placeholder such as "FILE"; NULL for a flag; "[MODE]":
				   optional, attached (-gMODE, --opt=MODE) or the next
				   word when that is not an option (-g MODE, as perf);
				   "[=N]": optional, attached only (-z5, --opt=5) */
	const char *help;	/* one line */
	int id;			/* what opts_next() returns; 0 means short_name */
};

/*
 * The values an option's argument takes, for the completions
 * (`--list-values OPT`): the option's long name, and its values
 * space-separated, or "@events" for every event name (events_list()).
 */
struct sbx_option_values {
	const char *option;
	const char *values;
};

#define OPT_END { NULL, 0, NULL, NULL, 0 }

enum {
	OPTS_STOP_AT_NON_OPTION = 1 << 0,	/* the rest is a command line */
};

/* What opts_next() returns besides option ids. */
enum {
	OPTS_END = -1,		/* no more options */
	OPTS_HELP = -2,		/* -h, --help or --list-opts was handled */
	OPTS_ERROR = -3,	/* an unknown option or a missing argument */
};

struct sbx_opts {
	const char *cmd;		/* "run" for `sbx run` */
	const char *const *usage;	/* synopsis lines, NULL-terminated */
	const struct sbx_option *opts;
	int argc;
	char **argv;
	unsigned flags;
	int exit_code;			/* meaningful after OPTS_HELP/ERROR */
	struct option *longopts;
	char *shortopts;
	char *arg;			/* the argument of the last option */
	const struct sbx_option_values *values;	/* opts_values(); NULL-terminated */
	int optind;			/* first operand once opts_next() ended */
};

/* Set up parsing of argv (argv[0] is the command name). */
void opts_init(struct sbx_opts *p, const char *cmd, const char *const *usage,
	       const struct sbx_option *opts, int argc, char **argv, unsigned flags);

/* The values of options' arguments that `--list-values OPT` gives ({ NULL } ends them). */
void opts_values(struct sbx_opts *p, const struct sbx_option_values *values);

/*
 * The next option's id, with its argument in p->arg, or OPTS_END.
 * -h, --help and --list-opts are answered here and give OPTS_HELP; an
 * unknown option prints an error and the usage on stderr and gives
 * OPTS_ERROR. In both cases p->exit_code is what the command returns:
 * `default: return opts_finish(&p, c);` in the caller's switch.
 */
int opts_next(struct sbx_opts *p);

/* Free what opts_init() allocated and return the exit code for c. */
int opts_finish(struct sbx_opts *p, int c);

/* Print the usage and the option list to f. */
void opts_usage(const struct sbx_opts *p, FILE *f);

/* Report a usage error for the command: message, then usage on stderr; returns 2. */
int opts_usage_error(struct sbx_opts *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * LLVM's tools take long options with one dash too (-binary=app). Spell
 * each argument that is one dash and one of opts' long names (up to an
 * '=') with two, so that their users' command lines work; copies[i] (argc
 * entries, NULL to begin with) holds what was made, for the caller to
 * free. A single-dash argument that names no long option is left as it is
 * when it starts with a short option (-ofile: -o and its value; never with
 * strict, for a command whose only short option is -h), else returned, for
 * the caller to name it as it was written rather than as getopt's '-x'.
 * NULL when there is none.
 */
const char *opts_llvm_dashes(const struct sbx_option *opts, int argc, char **argv, char **copies,
			     bool strict);

/*
 * The usage error for arg, an option that opts_llvm_dashes() returned,
 * named as it was written (up to an '='); returns the exit code, 2.
 */
int opts_unknown_option(const char *cmd, const char *const *usage,
			const struct sbx_option *opts, int argc, char **argv, const char *arg);

/*
 * A size such as "512M": a number of bytes with an optional binary suffix
 * K, M, G or T (KiB, MiB, GiB and TiB; "KiB" and "kB" spellings too, all
 * powers of 1024, as ulimit and systemd read them). 0, or -1 when s is not one
 * or the bytes overflow 64 bits.
 */
int opt_parse_size(const char *s, uint64_t *out);

#endif
