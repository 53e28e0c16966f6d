// SPDX-License-Identifier: MIT
/*
 * sbx record: sample a command (or -p PID, or -a) into a perf.data that
 * perf report reads too. The engine is lib/measure/record.c; the file is
 * written by the perf-data writer (lib/perf/); this file only glues them and
 * speaks.
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
#include "perf-input.h"
#include "util/error.h"
#include "measure/contain.h"
#include "measure/events.h"
#include "perf/perf-data.h"
#include "perf/perf-data-write.h"
#include "measure/record.h"
#include "measure/dso-hits.h"
#include "symbol/buildid-cache.h"
#include "measure/synthesize.h"
#include "measure/tracing-data.h"
#include "measure/workload.h"

static const char *const record_usage[] = {
	"sbx record [OPTIONS] [--] COMMAND [ARGS...]",
	"sbx record [OPTIONS] -p PID[,PID...]",
	"sbx record [OPTIONS] -a [[--] COMMAND [ARGS...]]",
	NULL,
};

enum { OPT_MAX_EVENTS = 64, MAX_PIDS = 256 };

enum { OPT_MAX_PIDS = 0x100, OPT_MAX_MEMORY, OPT_NO_INHERIT, OPT_CALL_GRAPH };

static const struct sbx_option record_options[] = {
	{ "event", 'e', "EVENT,...", "events to sample (default: cycles, else cpu-clock)", 0 },
	{ "freq", 'F', "HZ", "samples per second (default 4000)", 0 },
	{ "count", 'c', "PERIOD", "a sample every PERIOD events", 0 },
	{ NULL, 'g', NULL, "record call chains (frame pointers: --call-graph fp)", 0 },
	{ "call-graph", 0, "MODE[,SIZE]", "fp, or dwarf[,SIZE]: the user stack (SIZE bytes, "
	  "default 8192) and registers, unwound at report time", OPT_CALL_GRAPH },
	{ "branch-any", 'b', NULL, "record the taken branches (needs LBR)", 0 },
	{ "clockid", 'k', "CLOCK", "clock of the timestamps (default monotonic)", 0 },
	{ "pid", 'p', "PID[,PID...]", "record existing processes and their threads", 0 },
	{ "all-cpus", 'a', NULL, "record every CPU (system-wide)", 0 },
	{ "cpu", 'C', "CPUS", "record these CPUs only (0,2-3), system-wide on them", 0 },
	{ "no-inherit", 0, NULL, "not the processes and threads the command starts", OPT_NO_INHERIT },
	{ "stat", 's', NULL, "per-thread counts: a READ record of each thread as it ends "
	  "(perf record -s, for sbx report -T)", 0 },
	{ "output", 'o', "FILE", "output file, - for pipe mode on stdout (default perf.data)", 0 },
	{ "compression-level", 'z', "[=LEVEL]", "compress the records with zstd, LEVEL 1 (the "
	  "default, fastest) to 22, as perf record -z", 0 },
	{ "mmap-pages", 'm', "PAGES", "ring buffer pages per CPU, a power of 2 (default 128)", 0 },
	{ "quiet", 'q', NULL, "no summary line", 0 },
	{ "no-buildid-cache", 'N', NULL, "do not copy the sampled files into the build-id cache "
	  "(~/.debug)", 0 },
	{ "max-pids", 0, "N", "the command may have at most N processes and threads at once",
	  OPT_MAX_PIDS },
	{ "max-memory", 0, "SIZE", "the command's memory (K, M, G suffixes): past it, it is killed",
	  OPT_MAX_MEMORY },
	OPT_END,
};

/* what the completions offer for the arguments (--list-values) */
static const struct sbx_option_values record_values[] = {
	{ "event", "@events" },
	{ "clockid", "monotonic monotonic_raw realtime boottime tai" },
	{ "call-graph", "fp dwarf" },
	{ NULL, NULL },
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

/* One recording, as cmd_record() runs it: options, engine, workload, file. */
struct rec {
	struct record_config cfg;
	struct record_target target;
	const char *output;
	char *event_lists[OPT_MAX_EVENTS];
	int nr_lists;
	bool freq_given, quiet;
	bool no_buildid_cache;		/* -N */
	char *kept_old;			/* where the file replaced is now (OUTPUT.old) */
	struct contain_limits limits;	/* --max-pids, --max-memory */
	char **cmd_argv;		/* the command, or NULL for -p / -a */
	struct record *r;
	struct workload *wl;
	struct workload_status wst;
	struct perf_data_writer *w;
	struct dso_hits *hits;
	bool stream;			/* the output is written in pipe mode */
	int zstd_level;			/* -z: compress the records (0: not) */
	struct perf_input_cpus cpus;	/* -C */
	pid_t pids[MAX_PIDS];		/* -p */
	size_t nr_pids;
	bool started, ended;
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

/*
 * --call-graph: fp (frame pointers, -g) or dwarf[,SIZE] (perf's: SIZE
 * bytes of user stack, a multiple of 8 up to 65528, default 8192).
 */
static int parse_call_graph(const char *arg, struct record_config *cfg)
{
	uint64_t size = 8192;
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg);

	if (len == 2 && !strncmp(arg, "fp", 2) && !comma) {
		cfg->callchain = true;
		cfg->stack_user = 0;
		return 0;
	}
	if (len != 5 || strncmp(arg, "dwarf", 5)) {
		error("--call-graph: '%s' is neither fp nor dwarf[,SIZE]", arg);
		return -1;
	}
	if (comma && (opt_parse_size(comma + 1, &size) || !size || size > 65528 || size % 8)) {
		error("--call-graph dwarf: the stack size is a multiple of 8 from 8 to 65528 "
		      "bytes, not '%s'", comma + 1);
		return -1;
	}
	cfg->callchain = false;
	cfg->stack_user = (uint32_t)size;
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

/* Whether the output is this process's stdout ("-", or /dev/stdout and the like). */
static bool output_is_stdout(const char *path)
{
	struct stat a, b;

	if (!strcmp(path, "-"))
		return true;
	return !stat(path, &a) && !fstat(STDOUT_FILENO, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Options into c; returns -1 to go on, or the exit status. */
static int parse_args(struct rec *c, int argc, char **argv)
{
	struct sbx_opts p;
	uint64_t v;
	int opt, err;

	opts_init(&p, "record", record_usage, record_options, argc, argv,
		  OPTS_STOP_AT_NON_OPTION);
	opts_values(&p, record_values);
	while ((opt = opts_next(&p)) != OPTS_END) {
		switch (opt) {
		case 'e':
			if (c->nr_lists == OPT_MAX_EVENTS || !*p.arg) {
				error(*p.arg ? "too many -e options" : "-e needs an event name");
				goto bad_value;
			}
			c->event_lists[c->nr_lists++] = p.arg;
			break;
		case 'F':
			if (parse_u64(p.arg, "frequency", 1, &v))
				goto bad_value;
			c->cfg.freq = v;
			c->freq_given = true;
			break;
		case 'c':
			if (parse_u64(p.arg, "period", 1, &v))
				goto bad_value;
			c->cfg.period = v;
			break;
		case 'g':
			c->cfg.callchain = true;
			break;
		case 'z':
			v = 1;
			if (p.arg && parse_u64(p.arg, "compression level", 1, &v))
				goto bad_value;
			if (v > 22) {
				error("-z: zstd's levels are 1 to 22, not '%s'", p.arg);
				goto bad_value;
			}
			c->zstd_level = (int)v;
			break;
		case OPT_CALL_GRAPH:
			if (parse_call_graph(p.arg, &c->cfg))
				goto bad_value;
			break;
		case 'b':
			c->cfg.branch_stack = true;
			break;
		case 'k':
			err = record_parse_clockid(p.arg);
			if (err < 0) {
				error_lib(err, "-k");
				goto bad_value;
			}
			c->cfg.clockid = err;
			break;
		case 'p': {
			/* -p PID[,PID...], and -p again: several processes */
			/* a copy: argv stays as given, for the cmdline feature */
			char *list = strdup(p.arg), *tok, *save = NULL;
			bool dup;

			if (!list) {
				error("out of memory");
				goto bad_value;
			}
			for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (parse_u64(tok, "pid", 1, &v) || v > INT_MAX) {
					free(list);
					goto bad_value;
				}
				dup = false;
				for (size_t i = 0; i < c->nr_pids; i++)
					dup |= c->pids[i] == (pid_t)v;
				if (dup)
					continue;	/* once, as perf */
				if (c->nr_pids == MAX_PIDS) {
					error("-p: at most %d processes", MAX_PIDS);
					free(list);
					goto bad_value;
				}
				c->pids[c->nr_pids++] = (pid_t)v;
			}
			free(list);
			if (!c->nr_pids) {
				error("invalid pid '%s'", p.arg);
				goto bad_value;
			}
			c->target.pid = c->pids[0];
			c->target.pids = c->pids;
			c->target.nr_pids = c->nr_pids;
			break;
		}
		case 'a':
			c->target.system_wide = true;
			break;
		case 'C':
			if (perf_input_cpu_option(&p, &c->cpus))
				goto bad_value;	/* said */
			c->target.system_wide = true;
			c->target.cpu_bits = c->cpus.bits;
			c->target.cpu_bits_words = sizeof(c->cpus.bits) / sizeof(c->cpus.bits[0]);
			break;
		case OPT_NO_INHERIT:
			c->target.no_inherit = true;
			break;
		case 's':
			c->cfg.inherit_stat = true;
			break;
		case 'o':
			if (!*p.arg) {
				error("-o: an empty file name");
				goto bad_value;
			}
			c->output = p.arg;
			break;
		case 'm':
			if (parse_u64(p.arg, "number of pages", 1, &v) || v > (1u << 20) ||
			    (v & (v - 1))) {
				error("-m: the ring buffer size must be a power of 2 pages, not '%s'",
				      p.arg);
				goto bad_value;
			}
			c->cfg.mmap_pages = (unsigned)v;
			break;
		case OPT_MAX_PIDS:
			if (parse_u64(p.arg, "--max-pids", 1, &v))
				goto bad_value;
			c->limits.max_pids = v;
			break;
		case OPT_MAX_MEMORY:
			if (opt_parse_size(p.arg, &c->limits.max_memory) || !c->limits.max_memory) {
				error("--max-memory: invalid size '%s' (bytes, or with K, M, G)", p.arg);
				goto bad_value;
			}
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'N':
			c->no_buildid_cache = true;
			break;
		default:
			return opts_finish(&p, opt);
		}
	}
	opts_finish(&p, opt);
	if (p.optind < argc && !strcmp(argv[p.optind], "--"))
		p.optind++;
	if (p.optind < argc)
		c->cmd_argv = &argv[p.optind];
	if (c->cfg.freq && c->cfg.period)
		return opts_usage_error(&p, "-F and -c exclude each other");
	if (c->target.pid && c->target.system_wide)
		return opts_usage_error(&p, c->cpus.set ? "-p and -C exclude each other" :
					"-p and -a exclude each other");
	if (c->target.no_inherit && c->target.system_wide)
		return opts_usage_error(&p, c->cpus.set ?
					"--no-inherit and -C exclude each other (-C records "
					"every process on those CPUs)" :
					"--no-inherit and -a exclude each other (-a records "
					"every process)");
	if (c->target.pid && c->cmd_argv)
		return opts_usage_error(&p, "-p records an existing process: give no command");
	if (!c->target.pid && !c->target.system_wide && !c->cmd_argv)
		return opts_usage_error(&p, "nothing to record: give a command, -p PID or -a");
	if (!c->cmd_argv && (c->limits.max_pids || c->limits.max_memory))
		return opts_usage_error(&p, "--max-pids and --max-memory limit a command sbx starts");
	return -1;
bad_value:
	opts_finish(&p, OPTS_END);
	return EXIT_USAGE;
}

/* The events of -e (default cycles, or cpu-clock without a PMU) into c->r. */
static int add_events(struct rec *c)
{
	char *names[OPT_MAX_EVENTS];
	int nr_names = 0, err;

	for (int i = 0; i < c->nr_lists; i++)
		if (split_events(c->event_lists[i], names, &nr_names)) {
			error("too many events (at most %d)", OPT_MAX_EVENTS);
			return EXIT_USAGE;
		}
	if (!nr_names)
		names[nr_names++] = "cycles";
	for (int i = 0; i < nr_names; i++) {
		struct perf_event_attr attr;
		const char *name = names[i];

		if (is_cycles(name) && !events_have_hw_cycles()) {
			if (!c->quiet)
				fprintf(stderr, "sbx record: no hardware PMU here: sampling "
					"cpu-clock instead of %s\n", name);
			name = "cpu-clock";
		}
		err = events_parse(name, &attr);
		if (err < 0) {
			error_lib(err, name);
			return EXIT_USAGE;
		}
		/* a tracepoint fires rarely: every hit is a sample, unless asked otherwise */
		if (attr.type == PERF_TYPE_TRACEPOINT && !c->cfg.period && !c->freq_given)
			attr.sample_period = 1;
		if (record_add_event(c->r, &attr, name) < 0)
			return error_lib(-ENOMEM, "cannot add the event");
	}
	if (c->cfg.branch_stack) {
		err = record_probe_branch_stack(record_event_attr(c->r, 0));
		if (err < 0)
			return error_lib(err, "-b");
	}
	return 0;
}

/*
 * The start of the file: attrs with their ids, the features that describe
 * this machine and recording, the tracing data of tracepoint events.
 */
static int write_head(struct rec *c, int argc, char **argv)
{
	char **cmdline;
	void *buf = NULL;
	size_t len = 0, nr;
	int err;

	for (size_t e = 0; e < record_nr_events(c->r); e++) {
		const uint64_t *ids = record_event_ids(c->r, e, &nr);

		err = perf_data_writer_add_attr(c->w, record_event_attr(c->r, e),
						record_event_name(c->r, e), ids, nr);
		if (err < 0)
			return err;
	}
	cmdline = calloc((size_t)argc + 2, sizeof(*cmdline));
	if (!cmdline)
		return -ENOMEM;
	cmdline[0] = (char *)(sbx_globals.exe ? sbx_globals.exe : "sbx");
	for (int i = 0; i < argc; i++)
		cmdline[i + 1] = argv[i];
	err = synthesize_features(c->w, argc + 1, cmdline, c->cfg.clockid);
	free(cmdline);
	if (err < 0)
		return err;
	err = synthesize_tracing_data(c->r, &buf, &len);
	if (err > 0) {
		err = perf_data_writer_add_feature(c->w, HEADER_TRACING_DATA, buf, len);
		free(buf);
	}
	return err < 0 ? err : 0;
}

/* -p: whether one of the processes is still there. */
static bool any_alive(const struct rec *c)
{
	for (size_t i = 0; i < c->nr_pids; i++)
		if (kill(c->pids[i], 0) == 0 || errno != ESRCH)
			return true;
	return false;
}

/* Drain, poll and handle signals until the workload or the target ends. */
static int run_loop(struct rec *c)
{
	bool forwarded = false;
	int err;

	for (;;) {
		long n = record_drain(c->r, sink, c);

		if (n < 0)
			return (int)n;
		if (n > 0) {
			struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND,
							   .size = sizeof(round) };

			dso_hits_flush(c->hits);
			err = perf_data_writer_write(c->w, &round);
			if (err < 0)
				return err;
		}
		if (c->ended)
			return 0;
		if (c->wl) {
			err = workload_try_wait(c->wl, &c->wst);
			if (err < 0)
				return err;
			if (err == 1) {
				c->ended = true;
				/* one more pass collects what the last CPUs wrote */
				record_disable(c->r);
				continue;
			}
			if (stop_signal && nr_stop_signals > 1) {
				/* a second signal insists */
				kill(workload_pid(c->wl), SIGKILL);
			} else if (stop_signal && !forwarded) {
				/* the command decides how it ends */
				if (!stop_from_tty)
					kill(workload_pid(c->wl), stop_signal);
				forwarded = true;
			}
		} else if (stop_signal || (c->nr_pids && !any_alive(c))) {
			c->ended = true;
			record_disable(c->r);
			continue;
		}
		err = record_poll(c->r, 100);
		if (err < 0)
			return err;
	}
}

/* The end of the file: late lost samples, build-ids, sample times; then close it. */
static int finish_file(struct rec *c, uint64_t *data_size)
{
	const struct record_stats *stats;
	void *buf = NULL;
	size_t len = 0, nr;
	int err;

	/* samples dropped so late that no LOST record told of them */
	err = record_flush_lost(c->r, sink, c);
	if (err < 0)
		return err;
	stats = record_stats(c->r);
	dso_hits_flush(c->hits);
	err = dso_hits_build_id_feature(c->hits, &buf, &len, &nr);
	if (!err && len)
		err = perf_data_writer_add_feature(c->w, HEADER_BUILD_ID, buf, len);
	free(buf);
	if (!err && stats->samples && !c->stream)
		err = synthesize_sample_time(c->w, stats->first_time, stats->last_time);
	if (err < 0)
		return err;
	*data_size = perf_data_writer_data_size(c->w);
	err = perf_data_writer_close(c->w);
	c->w = NULL;
	return err;
}

/*
 * The sampled files, copied into perf's build-id cache as perf record does,
 * so that the recording can be read after a rebuild; a file that cannot be
 * copied leaves the recording as it is, and is said.
 */
static void cache_files(struct rec *c)
{
	struct dso_hits_cached got;
	char *dir = buildid_cache_dir(), *slash;
	struct stat st;

	/* no home folder to hold it (HOME unset, a service's /nonexistent): none, as perf */
	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash && slash > dir) {
		*slash = 0;
		if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
			free(dir);
			return;
		}
		*slash = '/';
	}
	dso_hits_cache_files(c->hits, dir, &got);
	if (got.failed)
		warning("%zu sampled file%s not copied into the build-id cache (the first: %s)",
			got.failed, got.failed == 1 ? "" : "s", got.first_error);
	free(dir);
}

int cmd_record(int argc, char **argv)
{
	struct rec c = { .cfg = { .clockid = CLOCK_MONOTONIC }, .output = "perf.data" };
	const struct record_stats *stats;
	uint64_t data_size = 0;
	bool pipe;
	int err, status;

	status = parse_args(&c, argc, argv);
	if (status >= 0)
		return status;
	status = EXIT_FAILED;
	c.r = record_new(&c.cfg);
	if (!c.r)
		return error("out of memory");
	err = add_events(&c);
	if (err) {
		status = err;
		goto out;
	}
	pipe = output_is_stdout(c.output);
	if (!strcmp(c.output, "-") && isatty(STDOUT_FILENO)) {
		error("-o -: stdout is a terminal; redirect it to a file or a pipe");
		goto out;
	}
	install_signals();

	/* the workload, corked until the counters are open */
	if (c.cmd_argv) {
		/* the command's stdout must not mix into a stream on our stdout */
		static const int to_stderr[3] = { -1, STDERR_FILENO, -1 };
		struct workload_opts wo = { .argv = c.cmd_argv, .cpu = -1 };

		if (pipe)
			wo.stdio_fds = to_stderr;
		/* the command's orphans come to us, to be ended with it, and a cgroup holds them */
		err = contain_start(&c.limits);
		if (err < 0) {
			error_lib(err, "cannot start the command");
			goto out;
		}
		err = workload_prepare(&wo, &c.wl);
		if (err < 0) {
			error_lib(err, "cannot start the command");
			goto out;
		}
		if (!c.target.system_wide) {
			c.target.pid = workload_pid(c.wl);
			c.target.workload = true;
		}
	}
	err = record_open(c.r, &c.target);
	if (err < 0) {
		error_lib(err, "cannot open the counters");
		goto out;
	}
	if (record_kernel_excluded(c.r))
		fprintf(stderr, "sbx record: kernel.perf_event_paranoid is %d: sampling user "
			"space only\n", record_perf_event_paranoid());

	err = perf_data_writer_open(c.output, &c.w);
	if (err < 0) {
		error_lib(err, "cannot create the output");
		goto out;
	}
	c.stream = perf_data_writer_is_pipe(c.w);
	/* the file replaced stays as FILE.old, as perf record keeps perf.data.old */
	perf_data_writer_keep_old(c.w, &c.kept_old);
	err = write_head(&c, argc, argv);
	if (!err && c.zstd_level)
		err = perf_data_writer_set_compression(c.w, c.zstd_level);
	if (err < 0)
		goto fail_lib;
	c.hits = dso_hits_new(c.r);
	if (!c.hits) {
		err = -ENOMEM;
		goto fail_lib;
	}
	/*
	 * Go: existing processes are described after the counters are on, so
	 * that a process started meanwhile is seen by one or the other.
	 */
	if (!c.target.workload) {
		err = record_enable(c.r);
		if (err < 0)
			goto fail_lib;
	}
	err = synthesize_kernel_mmap(c.r, sink, &c);
	if (!err && c.target.system_wide)
		err = synthesize_all_processes(c.r, sink, &c);
	else if (!err && !c.target.workload)
		for (size_t i = 0; i < c.nr_pids && !err; i++)
			err = synthesize_process(c.r, c.pids[i], sink, &c);
	if (err < 0)
		goto fail_lib;
	if (c.wl) {
		err = workload_start(c.wl);
		if (err < 0) {
			error_lib(err, "cannot run the command");
			workload_try_wait(c.wl, &c.wst);
			status = workload_exit_code(&c.wst);
			if (!c.wst.exec_errno)
				status = EXIT_FAILED;
			goto out;
		}
	}
	c.started = true;
	err = run_loop(&c);
	if (!err)
		err = finish_file(&c, &data_size);
	if (err < 0)
		goto fail_lib;

	/*
	 * what the command left running is ended first: none of it can change
	 * a file while it is read for the cache
	 */
	if (c.wl)
		workload_end_descendants();
	if (!c.no_buildid_cache)
		cache_files(&c);
	stats = record_stats(c.r);
	if (stats->lost)
		warning("%llu samples lost: the ring buffers overflowed (use a bigger -m or "
			"a lower -F)", (unsigned long long)stats->lost);
	if (!stats->samples)
		warning("no samples were recorded");
	if (c.kept_old && !c.quiet) {
		struct stat st;

		/* beside the file: the name given, or, through a link, where the link points */
		if (!lstat(c.output, &st) && S_ISLNK(st.st_mode))
			fprintf(stderr, "sbx record: the previous %s is now %s\n", c.output,
				c.kept_old);
		else
			fprintf(stderr, "sbx record: the previous %s is now %s.old\n", c.output,
				c.output);
	}
	if (!c.quiet)
		fprintf(stderr, "[ sbx record: %llu samples, %llu lost, %.3f MB written to %s ]\n",
			(unsigned long long)stats->samples, (unsigned long long)stats->lost,
			output_mb(c.output, c.stream, data_size), pipe ? "stdout" : c.output);
	if (c.wl && c.wst.oom_killed)
		warning("the command was killed (SIGKILL) when it went past --max-memory");
	status = c.wl ? workload_exit_code(&c.wst) : EXIT_OK;
	goto out;

fail_lib:
	error_lib(err, "recording failed");
	status = EXIT_FAILED;
	if (c.wl && c.started && !c.ended)
		workload_cancel(c.wl);
out:
	free(c.kept_old);
	perf_data_writer_abort(c.w);
	dso_hits_free(c.hits);
	workload_free(c.wl);
	/* what the command left running (orphans come to us: workload_contain()) */
	if (c.wl)
		workload_end_descendants();
	record_free(c.r);
	return status;
}
