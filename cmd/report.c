// SPDX-License-Identifier: MIT
#include "builtin.h"
#include "parse-options.h"

static const char *const report_usage[] = {
	"sbx report [OPTIONS]",
	NULL,
};

static const struct sbx_option report_options[] = {
	OPT_END,
};

int cmd_report(int argc, char **argv)
{
	struct sbx_opts p;
	int c;

	opts_init(&p, "report", report_usage, report_options, argc, argv, 0);
	while ((c = opts_next(&p)) != OPTS_END)
		return opts_finish(&p, c);
	opts_finish(&p, c);
	error("not implemented yet");
	return EXIT_USAGE;
}
