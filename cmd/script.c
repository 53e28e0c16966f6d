// SPDX-License-Identifier: MIT
#include "builtin.h"
#include "parse-options.h"

static const char *const script_usage[] = {
	"sbx script [OPTIONS]",
	NULL,
};

static const struct sbx_option script_options[] = {
	OPT_END,
};

int cmd_script(int argc, char **argv)
{
	struct sbx_opts p;
	int c;

	opts_init(&p, "script", script_usage, script_options, argc, argv, 0);
	while ((c = opts_next(&p)) != OPTS_END)
		return opts_finish(&p, c);
	opts_finish(&p, c);
	error("not implemented yet");
	return EXIT_USAGE;
}
