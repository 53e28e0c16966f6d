// SPDX-License-Identifier: MIT
#include "builtin.h"
#include "parse-options.h"

static const char *const run_usage[] = {
	"sbx run [OPTIONS] FILE...",
	NULL,
};

static const struct sbx_option run_options[] = {
	OPT_END,
};

int cmd_run(int argc, char **argv)
{
	struct sbx_opts p;
	int c;

	opts_init(&p, "run", run_usage, run_options, argc, argv, 0);
	while ((c = opts_next(&p)) != OPTS_END)
		return opts_finish(&p, c);
	opts_finish(&p, c);
	error("not implemented yet");
	return EXIT_USAGE;
}
