// SPDX-License-Identifier: MIT
/*
 * sbx: the command table and everything derived from it (dispatch, help,
 * --list-cmds), global options, and external `sbx-<name>` plugins.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "util/error.h"
#include "util/escape.h"
#include "util/version.h"

#ifndef SBX_LIBEXECDIR
#define SBX_LIBEXECDIR "/usr/local/libexec/sbx"
#endif
#ifndef SBX_MANDIR
#define SBX_MANDIR "/usr/local/share/man"
#endif

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

/* The one command table: dispatch, help, --list-cmds and the tests read it. */
static const struct cmd_struct commands[] = {
	{ "run", cmd_run, "measure an assembly snippet in a supervised child" },
	{ "record", cmd_record, "sample a command into a perf.data file" },
	{ "report", cmd_report, "show where the samples of a perf.data file fall" },
	{ "script", cmd_script, "print the events of a perf.data file one per line" },
	{ "profgen", cmd_profgen, "make an LLVM sample profile for clang from a perf.data file" },
	{ "jit-inject", cmd_jit_inject, "make jitted code in a perf.data visible to perf" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

struct sbx_globals sbx_globals = { .color = 1 };

/*
 * One line on standard error, whatever the message holds: names from a
 * recording, a jitdump or a YAML document may carry newlines or escape
 * sequences, which are printed escaped (util/escape).
 */
static void vreport(const char *kind, const char *fmt, va_list ap)
{
	char *msg = NULL;

	fflush(stdout);
	if (sbx_globals.cmd)
		fprintf(stderr, "sbx %s: %s: ", sbx_globals.cmd, kind);
	else
		fprintf(stderr, "sbx: %s: ", kind);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	fputs(msg ? escape_str(msg) : "(out of memory)", stderr);
	free(msg);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
	return EXIT_FAILED;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

int error_lib(int err, const char *what)
{
	const char *msg = sbx_error_msg();

	if (msg)
		return error("%s", msg);
	return error("%s: %s", what, strerror(err < 0 ? -err : err));
}

int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return status;
		error("write to standard output failed: %s", strerror(errno));
		return EXIT_FAILED;
	}
	return status;
}

/* The folder that holds the running binary, for man pages found in the tree. */
static char exe_dir[PATH_MAX];

static void find_exe(void)
{
	static char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return;
	exe[n] = '\0';
	sbx_globals.exe = exe;
	snprintf(exe_dir, sizeof(exe_dir), "%s", exe);
	slash = strrchr(exe_dir, '/');
	if (slash)
		*slash = '\0';
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int show_man_page(const char *cmd)
{
	char page[128], path[PATH_MAX + 160];
	const char *sec = "1";

	if (!cmd)
		snprintf(page, sizeof(page), "sbx");
	else if (!strcmp(cmd, "plugins"))
		snprintf(page, sizeof(page), "sbx-plugins"), sec = "7";
	else
		snprintf(page, sizeof(page), "sbx-%s", cmd);

	/* the tree's own page first (a developer's build), then the installed one */
	snprintf(path, sizeof(path), "%s/Documentation/%s.%s", exe_dir, page, sec);
	if (!is_file(path))
		snprintf(path, sizeof(path), "%s/man%s/%s.%s", SBX_MANDIR, sec, page, sec);
	if (!is_file(path))
		return -1;
	fflush(stdout);
	execlp("man", "man", "-l", path, (char *)NULL);
	return -1;	/* no man(1): the caller prints the usage instead */
}

static const struct cmd_struct *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* ---- plugins: sbx-<name> in $SBX_EXEC_PATH, the libexec folder, $PATH ---- */

typedef int (*dir_fn)(const char *dir, void *data);

static int for_each_exec_dir(dir_fn fn, void *data)
{
	const char *lists[] = { getenv("SBX_EXEC_PATH"), SBX_LIBEXECDIR, getenv("PATH") };

	for (size_t l = 0; l < 3; l++) {
		const char *s = lists[l];

		while (s && *s) {
			const char *end = strchr(s, ':');
			size_t len = end ? (size_t)(end - s) : strlen(s);
			char dir[PATH_MAX];
			int ret;

			if (len > 0 && len < sizeof(dir)) {
				memcpy(dir, s, len);
				dir[len] = '\0';
				ret = fn(dir, data);
				if (ret)
					return ret;
			}
			s = end ? end + 1 : NULL;
		}
	}
	return 0;
}

struct plugin_lookup {
	const char *name;
	char path[PATH_MAX];
};

static int lookup_plugin(const char *dir, void *data)
{
	struct plugin_lookup *pl = data;

	snprintf(pl->path, sizeof(pl->path), "%s/sbx-%s", dir, pl->name);
	return is_file(pl->path) && access(pl->path, X_OK) == 0;
}

struct plugin_list {
	char **names;
	size_t n;
};

static int collect_plugins(const char *dir, void *data)
{
	struct plugin_list *list = data;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *name = de->d_name + 4;
		char path[PATH_MAX];
		size_t i;

		if (strncmp(de->d_name, "sbx-", 4) || !*name || find_command(name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!is_file(path) || access(path, X_OK))
			continue;
		for (i = 0; i < list->n; i++)
			if (!strcmp(list->names[i], name))
				break;
		if (i < list->n)
			continue;
		list->names = realloc(list->names, (list->n + 1) * sizeof(*list->names));
		if (!list->names)
			abort();
		list->names[list->n++] = strdup(name);
	}
	closedir(d);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_plugins(struct plugin_list *list)
{
	memset(list, 0, sizeof(*list));
	for_each_exec_dir(collect_plugins, list);
	if (list->n)
		qsort(list->names, list->n, sizeof(*list->names), cmp_str);
}

static void free_plugins(struct plugin_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->names[i]);
	free(list->names);
}

/* Exec a plugin; returns only when there is none (or it could not be run). */
static int run_plugin(int argc, char **argv)
{
	struct plugin_lookup pl = { .name = argv[0] };
	char path_env[PATH_MAX * 2];
	const char *path = getenv("PATH");

	if (!for_each_exec_dir(lookup_plugin, &pl))
		return -ENOENT;
	(void)argc;
	/* let the plugin call back into this very sbx */
	if (!getenv("SBX_EXEC_PATH"))
		setenv("SBX_EXEC_PATH", SBX_LIBEXECDIR, 1);
	if (sbx_globals.exe)
		setenv("SBX", sbx_globals.exe, 1);
	snprintf(path_env, sizeof(path_env), "%s%s%s", exe_dir, path ? ":" : "", path ? path : "");
	setenv("PATH", path_env, 1);
	argv[0] = pl.path;
	fflush(stdout);
	execv(pl.path, argv);
	return error("cannot run plugin '%s': %s", pl.path, strerror(errno));
}

/* ---- help ---- */

static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[64], prev, tmp;

	if (lb >= 64)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

static int unknown_command(const char *name)
{
	struct plugin_list plugins;
	const char *best = NULL;
	int best_d = 3;	/* suggest only what is close */

	list_plugins(&plugins);
	for (size_t i = 0; i < NR_COMMANDS + plugins.n; i++) {
		const char *cand = i < NR_COMMANDS ? commands[i].name : plugins.names[i - NR_COMMANDS];
		int d = edit_distance(name, cand);

		if (!strncmp(cand, name, strlen(name)))
			d = 1;
		if (d < best_d) {
			best_d = d;
			best = cand;
		}
	}
	if (best)
		fprintf(stderr, "sbx: error: '%s' is not an sbx command; did you mean '%s'?\n", name, best);
	else
		fprintf(stderr, "sbx: error: '%s' is not an sbx command; see 'sbx help'\n", name);
	free_plugins(&plugins);
	return EXIT_USAGE;
}

static const char usage_line[] =
	"usage: sbx [-v | --verbose] [--json] [--no-color] [--version] [--help] COMMAND [ARGS]\n";

static int print_help(void)
{
	struct plugin_list plugins;

	printf("%s\ncommands:\n", usage_line);
	for (size_t i = 0; i < NR_COMMANDS; i++)
		printf("   %-12s %s\n", commands[i].name, commands[i].summary);
	list_plugins(&plugins);
	if (plugins.n) {
		printf("\nplugins (sbx-<name> on SBX_EXEC_PATH or PATH):\n");
		for (size_t i = 0; i < plugins.n; i++)
			printf("   %s\n", plugins.names[i]);
	}
	free_plugins(&plugins);
	printf("\n'sbx help COMMAND' or 'sbx COMMAND --help' shows a command's manual;\n"
	       "'sbx COMMAND -h' its short usage.\n");
	return finish_stdout(EXIT_OK);
}

static int run_command(const struct cmd_struct *cmd, int argc, char **argv)
{
	sbx_globals.cmd = cmd->name;
	return finish_stdout(cmd->fn(argc, argv));
}

static int cmd_help(int argc, char **argv)
{
	const struct cmd_struct *cmd;
	char *h_argv[] = { NULL, "-h", NULL };

	if (argc < 2)
		return print_help();
	if (!strcmp(argv[1], "plugins") || !strcmp(argv[1], "sbx")) {
		show_man_page(!strcmp(argv[1], "sbx") ? NULL : argv[1]);
		return error("no manual page for '%s' is installed", argv[1]);
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	show_man_page(cmd->name);
	h_argv[0] = argv[1];
	return run_command(cmd, 2, h_argv);
}

int main(int argc, char **argv)
{
	const struct cmd_struct *cmd;
	int i;

	find_exe();
	if (getenv("NO_COLOR") || !isatty(STDOUT_FILENO))
		sbx_globals.color = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (a[1] == 'v' && strspn(a + 1, "v") == strlen(a + 1)) {
			sbx_globals.verbose += (int)strlen(a + 1);	/* -v, -vv, -vvv */
		} else if (!strcmp(a, "--verbose")) {
			sbx_globals.verbose++;
		} else if (!strcmp(a, "--json")) {
			sbx_globals.json = 1;
		} else if (!strcmp(a, "--no-color")) {
			sbx_globals.color = 0;
		} else if (!strcmp(a, "--version")) {
			printf("sbx version %s\n", sbx_version());
			return finish_stdout(EXIT_OK);
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			if (!strcmp(a, "--help"))
				show_man_page(NULL);
			return print_help();
		} else if (!strcmp(a, "--list-cmds")) {
			for (size_t c = 0; c < NR_COMMANDS; c++)
				printf("%s\n", commands[c].name);
			return finish_stdout(EXIT_OK);
		} else if (!strcmp(a, "--list-plugins")) {
			struct plugin_list plugins;

			list_plugins(&plugins);
			for (size_t c = 0; c < plugins.n; c++)
				printf("%s\n", plugins.names[c]);
			free_plugins(&plugins);
			return finish_stdout(EXIT_OK);
		} else {
			fprintf(stderr, "sbx: error: unknown option '%s'\n%s", a, usage_line);
			return EXIT_USAGE;
		}
	}
	if (i == argc) {
		fputs(usage_line, stderr);
		fputs("see 'sbx help' for the commands\n", stderr);
		return EXIT_USAGE;
	}
	argc -= i;
	argv += i;

	if (!strcmp(argv[0], "help"))
		return cmd_help(argc, argv);
	cmd = find_command(argv[0]);
	if (cmd)
		return run_command(cmd, argc, argv);
	if (strchr(argv[0], '/') == NULL && run_plugin(argc, argv) != -ENOENT)
		return EXIT_FAILED;
	return unknown_command(argv[0]);
}
