// SPDX-License-Identifier: MIT
/*
 * sbx record: sample a command (or -p PID, or -a) into a perf.data that
 * perf report reads too. The engine is lib/record.c; the file is written by
 * the perf-data writer; this file only glues them and speaks.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "parse-options.h"
#include "sbx/error.h"
#include "sbx/events.h"
#include "sbx/perf-data.h"
#include "sbx/record.h"
#include "sbx/synthesize.h"
#include "sbx/workload.h"

static const char *const record_usage[] = {
	"sbx record [OPTIONS] [--] COMMAND [ARGS...]",
	"sbx record [OPTIONS] -p PID",
	"sbx record [OPTIONS] -a [[--] COMMAND [ARGS...]]",
	NULL,
};

enum { OPT_MAX_EVENTS = 64 };

static const struct sbx_option record_options[] = {
	{ "event", 'e', "EVENT,...", "events to sample (default: cycles, else cpu-clock)", 0 },
	{ "freq", 'F', "HZ", "samples per second (default 4000)", 0 },
	{ "count", 'c', "PERIOD", "a sample every PERIOD events", 0 },
	{ NULL, 'g', NULL, "record call chains", 0 },
	{ "branch-any", 'b', NULL, "record the taken branches (needs LBR)", 0 },
	{ "clockid", 'k', "CLOCK", "clock of the timestamps (default monotonic)", 0 },
	{ "pid", 'p', "PID", "record an existing process and its threads", 0 },
	{ "all-cpus", 'a', NULL, "record every CPU (system-wide)", 0 },
	{ "output", 'o', "FILE", "output file, - for pipe mode on stdout (default perf.data)", 0 },
	{ "mmap-pages", 'm', "PAGES", "ring buffer pages per CPU, a power of 2 (default 128)", 0 },
	{ "quiet", 'q', NULL, "no summary line", 0 },
	OPT_END,
};

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t nr_stop_signals;
static volatile sig_atomic_t stop_from_tty;

static void on_stop(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	stop_signal = sig;
	/* ^C at the terminal reaches the command too (same process group) */
	stop_from_tty = si && si->si_code == SI_KERNEL;
	nr_stop_signals++;
}

static void on_child(int sig)
{
	(void)sig;	/* only there to interrupt poll() */
}

struct rec {
	struct perf_data_writer *w;
	struct dso_hits *hits;
};

static int sink(void *ctx, const struct perf_event_header *ev)
{
	struct rec *c = ctx;

	if (c->hits)
		dso_hits_observe(c->hits, ev);
	return perf_data_writer_write(c->w, ev);
}

static int parse_u64(const char *s, const char *what, uint64_t min, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v < min || *s == '-') {
		error("invalid %s '%s'", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* Split "-e a,b" on commas outside of pmu/.../ terms. */
static int split_events(char *list, char **names, int *nr)
{
	char *s = list, *start = list;
	int depth = 0;

	for (;; s++) {
		if (*s == '/')
			depth = !depth;
		if ((*s == ',' && !depth) || !*s) {
			int end = !*s;

			*s = 0;
			if (*start) {
				if (*nr == OPT_MAX_EVENTS)
					return -1;
				names[(*nr)++] = start;
			}
			if (end)
				return 0;
			start = s + 1;
		}
	}
}

static bool is_cycles(const char *name)
{
	return !strcmp(name, "cycles") || !strcmp(name, "cpu-cycles");
}

/* The closing status of the workload, as a shell would give it. */
static int workload_exit_code(const struct workload_status *st)
{
	if (st->exec_errno)
		return st->exec_errno == ENOENT ? 127 : 126;
	if (st->signaled)
		return 128 + st->signo;
	if (st->timed_out)
		return 128 + SIGKILL;
	return st->exit_code;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The summary size: the file as written, or the stream's bytes. */
static double output_mb(const char *path, bool pipe, uint64_t data_size)
{
	struct stat st;

	if (!pipe && stat(path, &st) == 0)
		return (double)st.st_size / (1024.0 * 1024.0);
	return (double)data_size / (1024.0 * 1024.0);
}

int cmd_record(int argc, char **argv)
{
	struct sbx_opts p;
	struct record_config cfg = { .clockid = CLOCK_MONOTONIC };
	struct record_target target = { 0 };
	const char *output = "perf.data";
	char *event_lists[OPT_MAX_EVENTS];
	int nr_lists = 0;
	char *names[OPT_MAX_EVENTS];
	int nr_names = 0;
	bool freq_given = false, quiet = false;
	uint64_t v;
	struct record *r = NULL;
	struct workload *wl = NULL;
	struct workload_status wst = { 0 };
	struct rec ctx = { 0 };
	char **cmd_argv = NULL, **cmdline = NULL;
	bool pipe, ended = false, forwarded = false, started = false;
	int c, i, err, status = EXIT_FAILED;
	void *buf = NULL;
	size_t len = 0, nr;
	uint64_t data_size = 0;
	const struct record_stats *stats;

	opts_init(&p, "record", record_usage, record_options, argc, argv,
		  OPTS_STOP_AT_NON_OPTION);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case 'e':
			if (nr_lists == OPT_MAX_EVENTS || !*p.arg) {
				error(*p.arg ? "too many -e options" : "-e needs an event name");
				goto bad_value;
			}
			event_lists[nr_lists++] = p.arg;
			break;
		case 'F':
			if (parse_u64(p.arg, "frequency", 1, &v))
				goto bad_value;
			cfg.freq = v;
			freq_given = true;
			break;
		case 'c':
			if (parse_u64(p.arg, "period", 1, &v))
				goto bad_value;
			cfg.period = v;
			break;
		case 'g':
			cfg.callchain = true;
			break;
		case 'b':
			cfg.branch_stack = true;
			break;
		case 'k':
			err = record_parse_clockid(p.arg);
			if (err < 0) {
				error_lib(err, "-k");
				goto bad_value;
			}
			cfg.clockid = err;
			break;
		case 'p':
			if (parse_u64(p.arg, "pid", 1, &v) || v > INT_MAX)
				goto bad_value;
			target.pid = (pid_t)v;
			break;
		case 'a':
			target.system_wide = true;
			break;
		case 'o':
			output = p.arg;
			break;
		case 'm':
			if (parse_u64(p.arg, "number of pages", 1, &v) || v > (1u << 20) ||
			    (v & (v - 1))) {
				error("-m: the ring buffer size must be a power of 2 pages, not '%s'",
				      p.arg);
				goto bad_value;
			}
			cfg.mmap_pages = (unsigned)v;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			return opts_finish(&p, c);
		}
	}
	opts_finish(&p, c);
	if (p.optind < argc && !strcmp(argv[p.optind], "--"))
		p.optind++;
	if (p.optind < argc)
		cmd_argv = &argv[p.optind];

	if (cfg.freq && cfg.period)
		return opts_usage_error(&p, "-F and -c exclude each other");
	if (target.pid && target.system_wide)
		return opts_usage_error(&p, "-p and -a exclude each other");
	if (target.pid && cmd_argv)
		return opts_usage_error(&p, "-p records an existing process: give no command");
	if (!target.pid && !target.system_wide && !cmd_argv)
		return opts_usage_error(&p, "nothing to record: give a command, -p PID or -a");

	/* the events */
	for (i = 0; i < nr_lists; i++)
		if (split_events(event_lists[i], names, &nr_names)) {
			error("too many events (at most %d)", OPT_MAX_EVENTS);
			return EXIT_USAGE;
		}
	if (!nr_names)
		names[nr_names++] = "cycles";
	r = record_new(&cfg);
	if (!r)
		return error("out of memory");
	for (i = 0; i < nr_names; i++) {
		struct perf_event_attr attr;
		const char *name = names[i];

		if (is_cycles(name) && !events_have_hw_cycles()) {
			fprintf(stderr, "sbx record: no hardware PMU here: sampling cpu-clock "
				"instead of %s\n", name);
			name = "cpu-clock";
		}
		err = events_parse(name, &attr);
		if (err < 0) {
			error_lib(err, name);
			record_free(r);
			return EXIT_USAGE;
		}
		/* a tracepoint fires rarely: every hit is a sample, unless asked otherwise */
		if (attr.type == PERF_TYPE_TRACEPOINT && !cfg.period && !freq_given)
			attr.sample_period = 1;
		if (record_add_event(r, &attr, name) < 0) {
			error_lib(-ENOMEM, "cannot add the event");
			goto out;
		}
	}
	if (cfg.branch_stack) {
		err = record_probe_branch_stack(record_event_attr(r, 0));
		if (err < 0) {
			error_lib(err, "-b");
			goto out;
		}
	}

	pipe = !strcmp(output, "-");
	if (pipe && isatty(STDOUT_FILENO)) {
		error("-o -: stdout is a terminal; redirect it to a file or a pipe");
		goto out;
	}
	install_signals();

	/* the workload, corked until the counters are open */
	if (cmd_argv) {
		/* pipe mode: the command's stdout must not mix into the stream */
		static const int to_stderr[3] = { -1, STDERR_FILENO, -1 };
		struct workload_opts wo = { .argv = cmd_argv, .cpu = -1 };

		if (pipe)
			wo.stdio_fds = to_stderr;
		err = workload_prepare(&wo, &wl);
		if (err < 0) {
			error_lib(err, "cannot start the command");
			goto out;
		}
		if (!target.system_wide) {
			target.pid = workload_pid(wl);
			target.workload = true;
		}
	}
	err = record_open(r, &target);
	if (err < 0) {
		error_lib(err, "cannot open the counters");
		goto out;
	}
	if (record_kernel_excluded(r))
		fprintf(stderr, "sbx record: kernel.perf_event_paranoid is %d: sampling user "
			"space only\n", record_perf_event_paranoid());

	err = perf_data_writer_open(output, &ctx.w);
	if (err < 0) {
		error_lib(err, "cannot create the output");
		goto out;
	}
	for (size_t e = 0; e < record_nr_events(r); e++) {
		const uint64_t *ids = record_event_ids(r, e, &nr);

		err = perf_data_writer_add_attr(ctx.w, record_event_attr(r, e),
						record_event_name(r, e), ids, nr);
		if (err < 0)
			goto fail_lib;
	}
	cmdline = calloc((size_t)argc + 2, sizeof(*cmdline));
	if (!cmdline) {
		err = -ENOMEM;
		goto fail_lib;
	}
	cmdline[0] = (char *)(sbx_globals.exe ? sbx_globals.exe : "sbx");
	for (i = 0; i < argc; i++)
		cmdline[i + 1] = argv[i];
	err = synthesize_features(ctx.w, argc + 1, cmdline, cfg.clockid);
	if (err < 0)
		goto fail_lib;
	err = synthesize_tracing_data(r, &buf, &len);
	if (err < 0)
		goto fail_lib;
	if (err > 0) {
		err = perf_data_writer_add_feature(ctx.w, HEADER_TRACING_DATA, buf, len);
		free(buf);
		buf = NULL;
		if (err < 0)
			goto fail_lib;
	}
	ctx.hits = dso_hits_new(r);
	if (!ctx.hits) {
		err = -ENOMEM;
		goto fail_lib;
	}
	/*
	 * Go: existing processes are described after the counters are on, so
	 * that a process started meanwhile is seen by one or the other.
	 */
	if (!target.workload) {
		err = record_enable(r);
		if (err < 0)
			goto fail_lib;
	}
	err = synthesize_kernel_mmap(r, sink, &ctx);
	if (!err && target.system_wide)
		err = synthesize_all_processes(r, sink, &ctx);
	else if (!err && !target.workload)
		err = synthesize_process(r, target.pid, sink, &ctx);
	if (err < 0)
		goto fail_lib;
	if (wl) {
		err = workload_start(wl);
		if (err < 0) {
			error_lib(err, "cannot run the command");
			workload_try_wait(wl, &wst);
			status = workload_exit_code(&wst);
			if (!wst.exec_errno)
				status = EXIT_FAILED;
			perf_data_writer_abort(ctx.w);
			ctx.w = NULL;
			goto out;
		}
	}
	started = true;

	for (;;) {
		long n = record_drain(r, sink, &ctx);

		if (n < 0) {
			err = (int)n;
			goto fail_lib;
		}
		if (n > 0) {
			struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND,
							   .size = sizeof(round) };

			dso_hits_flush(ctx.hits);
			err = perf_data_writer_write(ctx.w, &round);
			if (err < 0)
				goto fail_lib;
		}
		if (ended)
			break;
		if (wl) {
			err = workload_try_wait(wl, &wst);
			if (err < 0)
				goto fail_lib;
			if (err == 1) {
				ended = true;
				/* one more pass collects what the last CPUs wrote */
				record_disable(r);
				continue;
			}
			if (stop_signal && nr_stop_signals > 1) {
				/* a second signal insists */
				kill(workload_pid(wl), SIGKILL);
			} else if (stop_signal && !forwarded) {
				/* the command decides how it ends */
				if (!stop_from_tty)
					kill(workload_pid(wl), stop_signal);
				forwarded = true;
			}
		} else if (stop_signal || (target.pid && kill(target.pid, 0) < 0 &&
					   errno == ESRCH)) {
			ended = true;
			record_disable(r);
			continue;
		}
		err = record_poll(r, 100);
		if (err < 0)
			goto fail_lib;
	}

	/* samples dropped so late that no LOST record told of them */
	err = record_flush_lost(r, sink, &ctx);
	if (err < 0)
		goto fail_lib;
	stats = record_stats(r);
	dso_hits_flush(ctx.hits);
	err = dso_hits_build_id_feature(ctx.hits, &buf, &len, &nr);
	if (!err && len)
		err = perf_data_writer_add_feature(ctx.w, HEADER_BUILD_ID, buf, len);
	free(buf);
	buf = NULL;
	if (!err && stats->samples && !pipe)
		err = synthesize_sample_time(ctx.w, stats->first_time, stats->last_time);
	if (err < 0)
		goto fail_lib;
	data_size = perf_data_writer_data_size(ctx.w);
	err = perf_data_writer_close(ctx.w);
	ctx.w = NULL;
	if (err < 0)
		goto fail_lib;

	if (stats->lost)
		warning("%llu samples lost: the ring buffers overflowed (use a bigger -m or "
			"a lower -F)", (unsigned long long)stats->lost);
	if (!stats->samples)
		warning("no samples were recorded");
	if (!quiet)
		fprintf(stderr, "[ sbx record: %llu samples, %llu lost, %.3f MB written to %s ]\n",
			(unsigned long long)stats->samples, (unsigned long long)stats->lost,
			output_mb(output, pipe, data_size), pipe ? "stdout" : output);
	status = wl ? workload_exit_code(&wst) : EXIT_OK;
	goto out;

bad_value:
	opts_finish(&p, OPTS_END);
	return EXIT_USAGE;

fail_lib:
	error_lib(err, "recording failed");
	status = EXIT_FAILED;
	if (wl && started && !ended)
		workload_cancel(wl);
out:
	perf_data_writer_abort(ctx.w);
	dso_hits_free(ctx.hits);
	workload_free(wl);
	record_free(r);
	free(cmdline);
	free(buf);
	return status;
}
