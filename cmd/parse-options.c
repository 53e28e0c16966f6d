// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "parse-options.h"
#include "measure/events.h"

enum { ID_HELP_SHORT = 0x10000, ID_HELP_LONG, ID_LIST_OPTS, ID_LIST_VALUES };

static int opt_id(const struct sbx_option *o)
{
	return o->id ? o->id : o->short_name;
}

void opts_init(struct sbx_opts *p, const char *cmd, const char *const *usage,
	       const struct sbx_option *opts, int argc, char **argv, unsigned flags)
{
	const struct sbx_option *o;
	size_t n = 0, i = 0;
	char *s;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->usage = usage;
	p->opts = opts;
	p->argc = argc;
	p->argv = argv;
	p->flags = flags;
	for (o = opts; o->long_name || o->short_name; o++)
		n++;

	p->longopts = calloc(n + 4, sizeof(*p->longopts));
	p->shortopts = calloc(3 * n + 6, 1);
	if (!p->longopts || !p->shortopts)
		abort();
	s = p->shortopts;
	if (flags & OPTS_STOP_AT_NON_OPTION)
		*s++ = '+';
	*s++ = ':';
	*s++ = 'h';
	for (o = opts; o->long_name || o->short_name; o++) {
		bool optional = o->arg && o->arg[0] == '[';

		if (o->short_name) {
			*s++ = (char)o->short_name;
			if (o->arg)
				*s++ = ':';
			if (optional)
				*s++ = ':';
		}
		if (o->long_name) {
			p->longopts[i].name = o->long_name;
			p->longopts[i].has_arg = optional ? optional_argument :
					       o->arg ? required_argument : no_argument;
			p->longopts[i].val = opt_id(o);
			i++;
		}
	}
	p->longopts[i++] = (struct option){ "help", no_argument, NULL, ID_HELP_LONG };
	p->longopts[i++] = (struct option){ "list-opts", no_argument, NULL, ID_LIST_OPTS };
	p->longopts[i++] = (struct option){ "list-values", required_argument, NULL, ID_LIST_VALUES };
	optind = 0;
	opterr = 0;
}

void opts_usage(const struct sbx_opts *p, FILE *f)
{
	const struct sbx_option *o;
	const char *const *u;

	for (u = p->usage; *u; u++)
		fprintf(f, "%s %s\n", u == p->usage ? "usage:" : "   or:", *u);
	fputc('\n', f);
	for (o = p->opts; o->long_name || o->short_name; o++) {
		char left[64];
		int len = 0;

		if (o->short_name)
			len += snprintf(left + len, sizeof(left) - len, "-%c%s", o->short_name,
					o->long_name ? ", " : "");
		else
			len += snprintf(left + len, sizeof(left) - len, "    ");
		if (o->long_name)
			len += snprintf(left + len, sizeof(left) - len, "--%s", o->long_name);
		if (o->arg)
			snprintf(left + len, sizeof(left) - len, " %s", o->arg);
		fprintf(f, "    %-28s %s\n", left, o->help);
	}
	fprintf(f, "    %-28s %s\n", "-h, --help", "show this usage (-h) or the man page (--help)");
}

int opts_usage_error(struct sbx_opts *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sbx %s: error: ", p->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	opts_usage(p, stderr);
	p->exit_code = EXIT_USAGE;
	return EXIT_USAGE;
}

static void list_opts(const struct sbx_opts *p)
{
	const struct sbx_option *o;

	for (o = p->opts; o->long_name || o->short_name; o++) {
		if (o->long_name)
			printf("--%s\n", o->long_name);
		if (o->short_name)
			printf("-%c\n", o->short_name);
	}
	printf("--help\n-h\n");
}

/* The values of the option named arg (--name, -c or name), one per line; nothing when none. */
static void list_values(const struct sbx_opts *p, const char *arg)
{
	const char *name = arg + (arg[0] == '-') + (arg[0] == '-' && arg[1] == '-');
	const struct sbx_option *o;

	for (o = p->opts; o->long_name || o->short_name; o++) {
		bool is = (o->long_name && !strcmp(name, o->long_name)) ||
			  (o->short_name && name[0] == o->short_name && !name[1]);
		const char *v = NULL;

		for (const struct sbx_option_values *x = p->values; is && x && x->option; x++)
			if (o->long_name && !strcmp(x->option, o->long_name))
				v = x->values;
		if (!v)
			continue;
		if (!strcmp(v, "@events")) {
			events_list(stdout);
			return;
		}
		while (*v) {
			size_t n = strcspn(v, " ");

			printf("%.*s\n", (int)n, v);
			v += n;
			v += strspn(v, " ");
		}
		return;
	}
}

void opts_values(struct sbx_opts *p, const struct sbx_option_values *values)
{
	p->values = values;
}

static const char *option_text(const struct sbx_opts *p)
{
	static char buf[128];
	const char *cur = p->argv[optind - 1];

	/* getopt leaves optopt for short options; long ones are in argv */
	if (optopt && optopt < 0x100 && !(cur && cur[0] == '-' && cur[1] == '-'))
		snprintf(buf, sizeof(buf), "-%c", optopt);
	else
		snprintf(buf, sizeof(buf), "%s", cur ? cur : "?");
	return buf;
}

/* The entry of short option ch, or NULL. */
static const struct sbx_option *short_option(const struct sbx_option *opts, int ch)
{
	for (const struct sbx_option *o = opts; o->long_name || o->short_name; o++)
		if (o->short_name == ch)
			return o;
	return NULL;
}

int opts_next(struct sbx_opts *p)
{
	int c;

	optopt = 0;
	c = getopt_long(p->argc, p->argv, p->shortopts, p->longopts, NULL);
	p->arg = optarg;
	p->optind = optind;
	switch (c) {
	case -1:
		return OPTS_END;
	case 'h':
		opts_usage(p, stdout);
		p->exit_code = finish_stdout(EXIT_OK);
		return OPTS_HELP;
	case ID_HELP_LONG:
		if (show_man_page(p->cmd) < 0)
			opts_usage(p, stdout);
		p->exit_code = finish_stdout(EXIT_OK);
		return OPTS_HELP;
	case ID_LIST_OPTS:
		list_opts(p);
		p->exit_code = finish_stdout(EXIT_OK);
		return OPTS_HELP;
	case ID_LIST_VALUES:
		list_values(p, optarg);
		p->exit_code = finish_stdout(EXIT_OK);
		return OPTS_HELP;
	case ':':
		opts_usage_error(p, "option '%s' needs a value", option_text(p));
		return OPTS_ERROR;
	case '?':
		opts_usage_error(p, "unknown option '%s'", option_text(p));
		return OPTS_ERROR;
	default: {
		/* a short option whose entry has an id: the id, as its long one gives */
		const struct sbx_option *o = c < 0x100 ? short_option(p->opts, c) : NULL;

		if (o && o->id)
			c = o->id;
		break;
	}
	}
	/*
	 * An optional value may also be the next word, as perf reads
	 * `-g caller`: when that word is not an option.
	 */
	for (const struct sbx_option *o = p->opts; !optarg && (o->long_name || o->short_name); o++)
		if (opt_id(o) == c && o->arg && o->arg[0] == '[' && o->arg[1] != '=' &&
		    optind < p->argc &&
		    p->argv[optind] && p->argv[optind][0] != '-' && p->argv[optind][0]) {
			p->arg = p->argv[optind++];
			p->optind = optind;
		}
	return c;
}

int opts_finish(struct sbx_opts *p, int c)
{
	free(p->longopts);
	free(p->shortopts);
	p->longopts = NULL;
	p->shortopts = NULL;
	if (c == OPTS_HELP || c == OPTS_ERROR)
		return p->exit_code;
	return c == OPTS_END ? EXIT_OK : EXIT_USAGE;
}

int opt_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno)
		return -1;
	if (*end && (u = strchr(units, toupper((unsigned char)*end)))) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int opts_unknown_option(const char *cmd, const char *const *usage,
			const struct sbx_option *opts, int argc, char **argv, const char *arg)
{
	struct sbx_opts p;

	opts_init(&p, cmd, usage, opts, argc, argv, 0);
	return opts_finish(&p, opts_usage_error(&p, "unknown option '%.*s'",
					       (int)strcspn(arg, "="), arg));
}

const char *opts_llvm_dashes(const struct sbx_option *opts, int argc, char **argv, char **copies,
			     bool strict)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct sbx_option *o;
		size_t len;

		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1])
			continue;	/* an operand */
		len = strcspn(a + 1 + (a[1] == '-'), "=");
		/* the options every command has (opts_init's): -help is --help */
		if (a[1] != '-' && (!strcmp(a, "-help") || !strcmp(a, "-list-opts") ||
				    !strncmp(a, "-list-values", 12))) {
			if (asprintf(&copies[i], "-%s", a) > 0)
				argv[i] = copies[i];
			continue;
		}
		for (o = opts; o->long_name || o->short_name; o++)
			if (o->long_name && strlen(o->long_name) == len &&
			    !strncmp(o->long_name, a + 1 + (a[1] == '-'), len))
				break;
		if (!o->long_name && a[1] != '-' && !a[2]) {
			/* -o FILE: its value is not an option */
			o = short_option(opts, a[1]);
			if (o && o->arg && o->arg[0] != '[')
				i++;
			continue;
		}
		/* -x86-lbr-sample-period: no '-x'; -ofile: -o and its value */
		if (a[1] != '-' && a[2] && !o->long_name) {
			if (strict || !short_option(opts, a[1]))
				return a;
			continue;
		}
		if (a[1] != '-' && a[2] && asprintf(&copies[i], "-%s", a) > 0)
			argv[i] = copies[i];
		/* the value of an option that takes one, given apart: not an option */
		if (o->long_name && o->arg && o->arg[0] != '[' && !strchr(a, '='))
			i++;
	}
	return NULL;
}
