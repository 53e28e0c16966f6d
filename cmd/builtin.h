/* SPDX-License-Identifier: MIT */
#ifndef SBX_BUILTIN_H
#define SBX_BUILTIN_H

#include <stdio.h>

/* Exit statuses (sbx(1), EXIT STATUS). */
enum {
	EXIT_OK = 0,
	EXIT_FAILED = 1,	/* the job failed: bad input, a crashed snippet, no samples */
	EXIT_USAGE = 2,		/* usage error */
};

/* Options given before the command. */
struct sbx_globals {
	int verbose;
	int json;
	int color;		/* 1 when color may be used */
	const char *cmd;	/* the running command, for messages */
	const char *exe;	/* absolute path of the running sbx */
};

extern struct sbx_globals sbx_globals;

/* `sbx CMD: error: <fmt>` on stderr; returns EXIT_FAILED. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `sbx CMD: warning: <fmt>` on stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Print the library's message for a failure (sbx_error_msg()), or
 * `<what>: strerror(-err)` when the library left none; returns EXIT_FAILED.
 */
int error_lib(int err, const char *what);

/* Open the man page of a command ("run", or NULL for sbx(1)); -1 when none was found. */
int show_man_page(const char *cmd);

/* Flush stdout and report a write error (e.g. a full disk); returns status or EXIT_FAILED. */
int finish_stdout(int status);

int cmd_run(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_profgen(int argc, char **argv);
int cmd_jit_inject(int argc, char **argv);

#endif
