// SPDX-License-Identifier: MIT
#include "builtin.h"
#include "parse-options.h"

static const char *const record_usage[] = {
	"sbx record [OPTIONS] [-- COMMAND [ARGS...]]",
	NULL,
};

static const struct sbx_option record_options[] = {
	OPT_END,
};

int cmd_record(int argc, char **argv)
{
	struct sbx_opts p;
	int c;

	opts_init(&p, "record", record_usage, record_options, argc, argv, 0);
	while ((c = opts_next(&p)) != OPTS_END)
		return opts_finish(&p, c);
	opts_finish(&p, c);
	error("not implemented yet");
	return EXIT_USAGE;
}
