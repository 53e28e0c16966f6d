// SPDX-License-Identifier: MIT
/* Event names to perf_event_attr: our tables, tracefs, then libpfm4. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "util/error.h"
#include "measure/events.h"

/*
 * libpfm4's pfm_perf_encode_arg_t, declared here because its header
 * brings a copy of perf_event.h that clashes with the kernel's.
 */
struct pfm_encode_arg {
	struct perf_event_attr *attr;
	char **fstr;
	size_t size;
	int idx, cpu, flags, pad0;
};

struct named_event {
	const char *name;
	unsigned type;
	unsigned long long config;
};

static const struct named_event named_events[] = {
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define N_NAMED (sizeof(named_events) / sizeof(named_events[0]))

int events_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
		unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static bool is_tracefs(const char *dir)
{
	struct statfs sf;
	char path[4096];
	struct stat st;

	if (statfs(dir, &sf) == 0 && sf.f_type == 0x74726163 /* TRACEFS_MAGIC */)
		return true;
	/* debugfs auto-mounts tracefs under tracing/; accept a folder with events/ */
	snprintf(path, sizeof(path), "%s/events", dir);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int events_tracefs_dir(char *buf, size_t len)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char line[4096], dev[256], dir[4096], type[256];
	FILE *f;

	for (size_t i = 0; i < 2; i++) {
		if (is_tracefs(dirs[i])) {
			snprintf(buf, len, "%s", dirs[i]);
			return 0;
		}
	}
	f = fopen("/proc/mounts", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%255s %4095s %255s", dev, dir, type) == 3 &&
			    !strcmp(type, "tracefs")) {
				fclose(f);
				snprintf(buf, len, "%s", dir);
				return 0;
			}
		}
		fclose(f);
	}
	return sbx_error(-ENOENT, "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
}

static int parse_tracepoint(const char *name, struct perf_event_attr *attr)
{
	const char *colon = strchr(name, ':');
	char dir[4096], path[8192];
	unsigned long long id;
	FILE *f;
	int err;

	/* libpfm's "pmu::event" names have two colons: not a tracepoint */
	if (!colon || colon == name || !colon[1] || strchr(colon + 1, ':') || strchr(name, '/'))
		return -ENOENT;
	err = events_tracefs_dir(dir, sizeof(dir));
	if (err < 0)
		return err;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", dir, (int)(colon - name), name,
		 colon + 1);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	err = fscanf(f, "%llu", &id) == 1 ? 0 : -EINVAL;
	fclose(f);
	if (err < 0)
		return sbx_error(err, "cannot read the id of tracepoint '%s' (%s)", name, path);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	return 0;
}

static int pfm_ready(void)
{
	static int state;	/* 0 unknown, 1 ok, -1 failed */

	if (!state)
		state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return state > 0;
}

static int parse_pfm(const char *name, struct perf_event_attr *attr)
{
	struct pfm_encode_arg arg;
	struct perf_event_attr a;
	int ret;

	if (!pfm_ready())
		return -ENOENT;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (ret != PFM_SUCCESS)
		return -ENOENT;
	attr->type = a.type;
	attr->config = a.config;
	attr->config1 = a.config1;
	attr->config2 = a.config2;
	return 0;
}

/* Levenshtein distance, case-insensitive, capped at 64 characters. */
static int distance(const char *a, const char *b)
{
	int la = (int)strlen(a), lb = (int)strlen(b);
	int prev[65], cur[65];

	if (la > 64 || lb > 64)
		return 99;
	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++) {
		cur[0] = i;
		for (int j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int v = prev[j - 1] + cost;

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			cur[j] = v;
		}
		memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
	}
	return prev[lb];
}

struct candidates {
	char names[3][128];
	int dist[3];
	int n;
};

static void consider(struct candidates *c, const char *want, const char *name)
{
	int d = distance(want, name);
	int limit = (int)strlen(want) / 3 + 1;

	if (d > limit)
		return;
	for (int i = 0; i < c->n; i++)
		if (!strcasecmp(c->names[i], name))
			return;
	if (c->n < 3) {
		c->n++;
	} else if (d >= c->dist[2]) {
		return;
	}
	int i = c->n - 1;

	while (i > 0 && c->dist[i - 1] > d) {
		c->dist[i] = c->dist[i - 1];
		memcpy(c->names[i], c->names[i - 1], sizeof(c->names[i]));
		i--;
	}
	c->dist[i] = d;
	snprintf(c->names[i], sizeof(c->names[i]), "%s", name);
}

/* fn(pmu, event, ctx) for every libpfm4 event of the PMUs this machine has. */
static void for_each_pfm_event(void (*fn)(const char *pmu, const char *event, void *ctx),
			       void *ctx)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	int pmu;

	if (!pfm_ready())
		return;
	pfm_for_all_pmus(pmu) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int e = pinfo.first_event; e != -1; e = pfm_get_event_next(e)) {
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(e, PFM_OS_PERF_EVENT, &einfo) == PFM_SUCCESS)
				fn(pinfo.name, einfo.name, ctx);
		}
	}
}

struct consider_ctx {
	struct candidates *c;
	const char *name;
};

static void consider_pfm(const char *pmu, const char *event, void *ctx)
{
	struct consider_ctx *x = ctx;

	(void)pmu;
	consider(x->c, x->name, event);
}

static void print_pfm(const char *pmu, const char *event, void *ctx)
{
	fprintf(ctx, "%s::%s\n", pmu, event);
}

static int unknown_event(const char *name)
{
	struct candidates c = { .n = 0 };
	char list[512] = "";

	for (size_t i = 0; i < N_NAMED; i++)
		consider(&c, name, named_events[i].name);
	for_each_pfm_event(consider_pfm, &(struct consider_ctx){ &c, name });
	for (int i = 0; i < c.n; i++) {
		size_t l = strlen(list);

		snprintf(list + l, sizeof(list) - l, "%s'%s'", i ? ", " : "", c.names[i]);
	}
	if (c.n)
		return sbx_error(-ENOENT, "unknown event '%s' (did you mean %s?)", name, list);
	return sbx_error(-ENOENT, "unknown event '%s' (software events such as task-clock, "
			 "page-faults; tracepoints sys:name; raw rNNNN; libpfm4 names)", name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tracepoints under tracefs: "sys:name", sorted. */
static void list_tracepoints(FILE *f)
{
	char dir[4096], sub[4608];
	struct dirent *sys, *ev;
	char **names = NULL;
	size_t nr = 0, cap = 0;
	DIR *d, *e;

	if (events_tracefs_dir(dir, sizeof(dir) - 8))
		return;
	strcat(dir, "/events");
	if (!(d = opendir(dir)))
		return;
	while ((sys = readdir(d))) {
		if (sys->d_name[0] == '.' || sys->d_type != DT_DIR)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, sys->d_name);
		if (!(e = opendir(sub)))
			continue;
		while ((ev = readdir(e))) {
			char *n;

			if (ev->d_name[0] == '.' || ev->d_type != DT_DIR)
				continue;
			if (nr == cap) {
				size_t more = cap ? 2 * cap : 1024;
				char **v = realloc(names, more * sizeof(*v));

				if (!v)
					break;
				names = v;
				cap = more;
			}
			if (asprintf(&n, "%s:%s", sys->d_name, ev->d_name) >= 0)
				names[nr++] = n;
		}
		closedir(e);
		if (nr == cap && ev)
			break;	/* out of memory: what was listed so far */
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		fprintf(f, "%s\n", names[i]);
		free(names[i]);
	}
	free(names);
}

void events_list(FILE *f)
{
	for (size_t i = 0; i < N_NAMED; i++)
		fprintf(f, "%s\n", named_events[i].name);
	list_tracepoints(f);
	for_each_pfm_event(print_pfm, f);
}

int events_parse(const char *name, struct perf_event_attr *attr)
{
	int err;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (!name || !*name)
		return sbx_error(-EINVAL, "empty event name");
	for (size_t i = 0; i < N_NAMED; i++) {
		if (!strcmp(name, named_events[i].name)) {
			attr->type = named_events[i].type;
			attr->config = named_events[i].config;
			return 0;
		}
	}
	if (name[0] == 'r' && name[1] && strspn(name + 1, "0123456789abcdefABCDEF") ==
	    strlen(name + 1) && strlen(name + 1) <= 16) {
		attr->type = PERF_TYPE_RAW;
		attr->config = strtoull(name + 1, NULL, 16);
		return 0;
	}
	err = parse_tracepoint(name, attr);
	if (err != -ENOENT)
		return err;
	err = parse_pfm(name, attr);
	if (err == 0)
		return 0;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	return unknown_event(name);
}

bool events_have_hw_cycles(void)
{
	static int state;	/* 0 unknown, 1 yes, -1 no */
	struct perf_event_attr a;
	int fd;

	if (state)
		return state > 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = events_open(&a, 0, -1, -1, 0);
	if (fd >= 0)
		close(fd);
	state = fd >= 0 ? 1 : -1;
	return state > 0;
}
