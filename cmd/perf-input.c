// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "perf-input.h"
#include "perf/records.h"
#include "symbol/buildid.h"
#include "util/error.h"

int perf_input_open(struct perf_input *in, const char *path)
{
	const void *feat;
	size_t len;
	int err;

	in->path = path;
	err = perf_data_open(path, &in->data);
	/* no file named, and none here: what perf says, in sbx's words */
	if (err == -ENOENT && !strcmp(path, "perf.data"))
		return error("%s (try 'sbx record -- COMMAND' first)", sbx_error_msg());
	if (err)
		return error_lib(err, path);
	in->cache = dso_cache_new();
	in->machine = in->cache ? machine_new(in->cache) : NULL;
	in->session = in->machine ? session_new(in->data) : NULL;
	if (!in->session)
		return error("out of memory");
	if (perf_data_feature(in->data, HEADER_BUILD_ID, &feat, &len) == 1)
		machine_add_build_ids(in->machine, feat, len, perf_data_needs_swap(in->data));
	perf_input_warn_broken(in->data, path);
	return 0;
}

void perf_input_warn_broken(const struct perf_data *d, const char *path)
{
	uint64_t broken = perf_data_broken_features(d);
	char names[512] = "";
	size_t n = 0, len = 0;

	for (unsigned f = 0; f < 64; f++) {
		if (!(broken & (1ULL << f)))
			continue;
		len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0,
					"%s%s", n++ ? ", " : "", perf_feature_name(f));
		if (len >= sizeof(names))
			len = sizeof(names) - 1;
	}
	if (n)
		warning("%s: the %s feature section%s run%s past the end of the file (truncated?): "
			"ignored", path, names, n > 1 ? "s" : "", n > 1 ? "" : "s");
}

static void jit_warning(void *ctx, const char *msg)
{
	warning("%s", msg);
}

static const struct jit_tracker_opts jit_opts = { .temp_images = true, .warn = jit_warning };

/* A record from the JIT tracker: the original one, or an injected MMAP2. */
static int deliver_jit(void *ctx, const struct perf_event_header *rec)
{
	struct perf_input *in = ctx;
	const struct perf_data_attr *attr = in->attr;
	struct perf_sample s;

	if (rec == in->rec)
		return in->fn(in->ctx, rec, attr, in->sample);
	if (!attr || perf_sample_parse(&attr->layout, rec, &s))
		memset(&s, 0xff, sizeof(s));
	return in->fn(in->ctx, rec, attr, &s);
}

static bool cpu_wanted(struct perf_input_cpus *c, uint32_t cpu);
static bool time_wanted(const struct perf_input_time *t, uint64_t time);

int perf_input_dump(struct perf_input *in, bool script, bool unordered,
		    struct perf_input_slice *slice)
{
	in->dump = calloc(1, sizeof(*in->dump));
	if (!in->dump)
		return -ENOMEM;
	in->dump_script = script;
	in->dump_slice = slice;
	perf_dump_init(in->dump, stdout, in->data, perf_data_is_pipe(in->data) ? "pipe" : in->path,
		       script);
	/* said when the file asks for it, not when the user did */
	if (!session_ordered(in->session))
		printf("WARNING: No sample_id_all support, falling back to unordered processing\n");
	if (unordered)
		session_set_unordered(in->session);
	in->dump->unordered = !session_ordered(in->session);
	session_set_dump(in->session, true);
	return 0;
}

/* Room for the counts of event i (pipe mode: events come with the records). */
static int dump_counts(struct perf_input *in, size_t i)
{
	size_t nr = perf_data_nr_attrs(in->data);
	uint64_t *s, *l;

	if (i < in->dump_nr || !nr)
		return 0;
	s = realloc(in->dump_samples, nr * sizeof(*s));
	if (s)
		in->dump_samples = s;
	l = s ? realloc(in->dump_lost, nr * sizeof(*l)) : NULL;
	if (!l)
		return sbx_error(-ENOMEM, "out of memory");
	in->dump_lost = l;
	memset(s + in->dump_nr, 0, (nr - in->dump_nr) * sizeof(*s));
	memset(l + in->dump_nr, 0, (nr - in->dump_nr) * sizeof(*l));
	in->dump_nr = nr;
	return 0;
}

/* perf's machine__resolve() lines of a sample: its thread, the DSO that holds its ip */
static void dump_sample_owner(struct perf_input *in, const struct perf_sample *s)
{
	const char *comm = machine_thread_name(in->machine, s->tid);
	const char *dso = "[hypervisor]";

	printf(" ... thread: %s:%d\n", comm ? comm : "", (int)s->tid);
	if (s->cpumode == PERF_RECORD_MISC_USER || s->cpumode == PERF_RECORD_MISC_KERNEL) {
		struct map *map = machine_find_map(in->machine, s->pid, s->cpumode, s->ip, NULL);

		dso = map ? map->dso->shown_path : "<not found>";
	}
	printf(" ...... dso: %s\n", dso);
}

/*
 * What a sample adds to its event's count in report's closing stats: 1, or
 * in perf report's branch mode (the default when the file says it holds
 * branch stacks) one per branch of its stack.
 */
static uint64_t dump_sample_count(struct perf_input *in, const struct perf_data_attr *attr,
				  const struct perf_sample *s)
{
	const void *buf;
	size_t len;

	if (!(attr->attr.sample_type & PERF_SAMPLE_BRANCH_STACK) ||
	    perf_data_feature(in->data, HEADER_BRANCH_STACK, &buf, &len) != 1)
		return 1;
	return s->branch_nr;
}

/* -D: the record printed, then handed on (a SAMPLE once per value of a group read). */
static int deliver_dumped(struct perf_input *in, const struct perf_event_header *rec,
			  const struct perf_data_attr *attr, const struct perf_sample *sample)
{
	const struct perf_data_attr *attrs[64];
	uint64_t periods[64];
	int n, err;

	perf_dump_record(in->dump, session_offset(in->session), rec, attr, sample);
	if (rec->type == PERF_RECORD_FINISHED_ROUND)
		return 0;
	if (rec->type == PERF_RECORD_HEADER_BUILD_ID)
		return machine_add_build_ids(in->machine, rec, rec->size, false);
	if (rec->type == PERF_RECORD_LOST_SAMPLES && attr) {
		struct perf_rec_lost_samples ls;
		size_t e = perf_data_attr_index(in->data, attr);

		if (!perf_rec_parse_lost_samples(rec, &ls) && !dump_counts(in, e))
			in->dump_lost[e] += ls.lost;
	}
	if (rec->type != PERF_RECORD_SAMPLE)
		return in->fn(in->ctx, rec, attr, sample);
	if (!attr)	/* an id no event has: shown, not handed on */
		return 0;
	n = perf_dump_sample_values(&in->dump_values, in->data, attr, sample, attrs, periods, 64);
	if (n < 0)
		return sbx_error(n, "out of memory");
	for (int i = 0; i < n; i++) {
		struct perf_sample s = *sample;
		struct perf_input_slice *sl = in->dump_slice;
		size_t e = perf_data_attr_index(in->data, attrs[i]);
		bool in_time = !sl || time_wanted(&sl->time, s.time);
		bool on_cpu = !sl || cpu_wanted(&sl->cpus, s.cpu);

		s.period = periods[i];
		/* -C and --time as perf applies them: perf script leaves out both before it
		   resolves a sample; perf report the time range before, the CPUs after (their
		   thread and DSO lines printed, their samples not counted) */
		if (in_time && (on_cpu || !in->dump_script))
			dump_sample_owner(in, &s);
		if ((err = dump_counts(in, e)))
			return err;
		if (in_time && on_cpu)
			in->dump_samples[e] += dump_sample_count(in, attrs[i], &s);
		if ((err = in->fn(in->ctx, rec, attrs[i], &s)))
			return err;
	}
	return 0;
}

void perf_input_dump_stats(struct perf_input *in)
{
	const struct session_stats *st = session_stats(in->session);
	uint64_t by_type[SESSION_STATS_TYPES];
	const void *aux;
	size_t len;

	memcpy(by_type, st->by_type, sizeof(by_type));
	by_type[PERF_RECORD_COMPRESSED] += perf_data_nr_compressed(in->data);
	if (dump_counts(in, perf_data_nr_attrs(in->data) ? perf_data_nr_attrs(in->data) - 1 : 0))
		return;
	perf_dump_stats(stdout, by_type, SESSION_STATS_TYPES,
			perf_data_feature(in->data, HEADER_AUXTRACE, &aux, &len) == 1, in->data,
			in->dump_samples, in->dump_lost, perf_data_nr_attrs(in->data));
}

static int deliver(void *ctx, const struct perf_event_header *rec,
		   const struct perf_data_attr *attr, const struct perf_sample *sample)
{
	struct perf_input *in = ctx;

	if (in->dump)
		return deliver_dumped(in, rec, attr, sample);
	if (rec->type == PERF_RECORD_HEADER_BUILD_ID)
		return machine_add_build_ids(in->machine, rec, rec->size, false);
	/* the common case, without the tracker's bookkeeping */
	if (rec->type == PERF_RECORD_SAMPLE && jit_tracker_idle(in->jit))
		return in->fn(in->ctx, rec, attr, sample);
	/* through the JIT tracker, which hands it on to deliver_jit() */
	in->attr = attr;
	in->rec = rec;
	in->sample = sample;
	return jit_tracker_record(in->jit, rec, attr, sample, deliver_jit, in);
}

/*
 * Files read for their symbols whose path now holds another build than the
 * one recorded, and no copy of it in the build-id cache: their samples show
 * as addresses. Said once a file, with both build-ids (perf says nothing).
 */
static void rebuilt_warnings(struct perf_input *in)
{
	for (size_t i = 0; i < dso_cache_nr(in->cache); i++) {
		const struct dso *d = dso_cache_at(in->cache, i);
		char a[2 * DSO_BUILD_ID_MAX + 1], b[2 * DSO_BUILD_ID_MAX + 1];

		if (!d->loaded || !d->path_differs)
			continue;
		warning("%s was rebuilt since the recording (the file there has %s%s, the "
			"recording's build-id %s) and the build-id cache has no copy: its samples "
			"show as addresses", d->shown_path,
			d->path_build_id_size ? "build-id " : "no build-id",
			buildid_hex(d->path_build_id, d->path_build_id_size, a),
			buildid_hex(d->build_id, d->build_id_size, b));
	}
}

int perf_input_run(struct perf_input *in, session_fn fn, void *ctx)
{
	const struct session_stats *st;
	int err;

	in->fn = fn;
	in->ctx = ctx;
	/* jitdumps: their images go to a temporary folder made for the first one */
	in->jit = jit_tracker_new(&jit_opts);
	if (!in->jit)
		return error("out of memory");
	err = session_run(in->session, deliver, in);
	in->rec = NULL;
	if (!err)
		err = jit_tracker_finish(in->jit, deliver_jit, in);
	if (err)
		return error_lib(err, in->path);
	st = session_stats(in->session);
	if (st->lost || st->lost_samples)
		warning("%" PRIu64 " samples were lost while recording",
			st->lost + st->lost_samples);
	if (st->bad_samples && st->first_bad_offset >= 0)
		warning("%" PRIu64 " samples could not be parsed or named an unknown event, and "
			"were left out; the first, at offset %" PRId64 ": %s", st->bad_samples,
			st->first_bad_offset, st->first_bad_why);
	else if (st->bad_samples)
		warning("%" PRIu64 " samples could not be parsed or named an unknown event, and "
			"were left out; the first: %s", st->bad_samples, st->first_bad_why);
	if (perf_data_nr_compressed(in->data) && sbx_globals.verbose)
		fprintf(stderr, "sbx %s: %" PRIu64 " COMPRESSED records decompressed; %" PRIu64
			" records straddled two or more of them\n", sbx_globals.cmd,
			perf_data_nr_compressed(in->data), perf_data_nr_straddled(in->data));
	if (perf_data_nr_unknown(in->data) && sbx_globals.verbose)
		warning("%" PRIu64 " records of unknown type were skipped",
			perf_data_nr_unknown(in->data));
	rebuilt_warnings(in);
	return 0;
}

uint64_t perf_input_samples(const struct perf_input *in)
{
	return in->session ? session_stats(in->session)->samples : 0;
}

const struct session_stats *perf_input_stats(const struct perf_input *in)
{
	return in->session ? session_stats(in->session) : NULL;
}

void perf_input_close(struct perf_input *in)
{
	free(in->dump);
	perf_dump_values_free(in->dump_values);
	free(in->dump_samples);
	free(in->dump_lost);
	in->dump = NULL;
	in->dump_values = NULL;
	in->dump_samples = in->dump_lost = NULL;
	in->dump_nr = 0;
	jit_tracker_free(in->jit);
	in->jit = NULL;
	session_free(in->session);
	machine_free(in->machine);
	dso_cache_free(in->cache);
	perf_data_close(in->data);
	in->session = NULL;
	in->machine = NULL;
	in->cache = NULL;
	in->data = NULL;
}

void perf_input_remove_temps(struct perf_input *in)
{
	jit_tracker_remove_images(in->jit);
}

int perf_input_id_option(struct sbx_opts *p, const char *opt, struct strlist *l)
{
	size_t from = l->nr;

	if (strlist_split(l, p->arg, ','))
		return -ENOMEM;
	for (size_t i = from; i < l->nr; i++) {
		const char *v = l->items[i];

		/* decimal, no sign, no leading zero: the text the columns compare with */
		if (!*v || strspn(v, "0123456789") != strlen(v) || (v[0] == '0' && v[1]) ||
		    strlen(v) > 10)
			return opts_usage_error(p, "--%s takes %s ids (numbers), not '%s'", opt,
						!strcmp(opt, "pid") ? "process" : "thread", v);
	}
	return 0;
}

int perf_input_cpu_option(struct sbx_opts *p, struct perf_input_cpus *c)
{
	const char *s = p->arg;

	do {
		char *end;
		unsigned long lo, hi;

		if (!isdigit((unsigned char)*s))
			goto bad;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi >= PERF_INPUT_MAX_CPUS || (*end && *end != ','))
			goto bad;
		for (unsigned long cpu = lo; cpu <= hi; cpu++)
			c->bits[cpu / 64] |= 1ull << (cpu % 64);
		s = *end ? end + 1 : end;
	} while (*s);
	c->set = true;
	return 0;
bad:
	return opts_usage_error(p, "--cpu takes a list of CPUs such as 0,2-3 (below %d), not '%s'",
				PERF_INPUT_MAX_CPUS, p->arg);
}

static bool cpu_wanted(struct perf_input_cpus *c, uint32_t cpu)
{
	if (!c->set)
		return true;
	if (cpu == (uint32_t)-1)
		return false;	/* no CPU in the sample */
	c->seen = true;
	return cpu < PERF_INPUT_MAX_CPUS && (c->bits[cpu / 64] >> (cpu % 64) & 1);
}

/* "SECS[.FRACTION]" (up to nine decimals) to nanoseconds; false when malformed. */
static bool parse_seconds(const char *s, size_t len, uint64_t *ns)
{
	uint64_t secs = 0, frac = 0;
	size_t i = 0, digits = 0;

	if (!len)
		return false;
	for (; i < len && isdigit((unsigned char)s[i]); i++) {
		if (secs > UINT64_MAX / 10 / 1000000000)
			return false;
		secs = secs * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i)
		return false;
	if (i < len && s[i] == '.') {
		for (i++; i < len && isdigit((unsigned char)s[i]); i++, digits++)
			if (digits < 9)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
		for (size_t d = digits; d < 9; d++)
			frac *= 10;
	}
	if (i != len)
		return false;
	*ns = secs * 1000000000 + frac;
	return true;
}

int perf_input_time_option(struct sbx_opts *p, struct perf_input_time *t)
{
	const char *a = p->arg, *comma = strchr(a, ',');
	size_t l1 = comma ? (size_t)(comma - a) : strlen(a);

	t->start = 0;
	t->stop = UINT64_MAX;
	if (strchr(a, '%'))
		return opts_usage_error(p, "--time: perf's percent forms are not supported, only "
					"START,STOP in seconds ('%s')", a);
	if (!comma || strchr(comma + 1, ',') || (l1 && !parse_seconds(a, l1, &t->start)) ||
	    (comma[1] && !parse_seconds(comma + 1, strlen(comma + 1), &t->stop)) ||
	    t->start > t->stop)
		return opts_usage_error(p, "--time takes START,STOP in seconds, such as "
					"20444.705,20444.708 (either may be left out), not '%s'", a);
	t->set = true;
	return 0;
}

static bool time_wanted(const struct perf_input_time *t, uint64_t time)
{
	if (!t->set)
		return true;
	return time != (uint64_t)-1 && time >= t->start && time <= t->stop;
}

bool perf_input_sample_wanted(struct perf_input_slice *sl, const struct perf_sample *s)
{
	return cpu_wanted(&sl->cpus, s->cpu) && time_wanted(&sl->time, s->time);
}

int perf_input_slice_check(const struct perf_input_slice *sl, const struct perf_input *in)
{
	if (sl->cpus.set && !sl->cpus.seen && perf_input_samples(in))
		return error("%s: -C: its samples have no CPU (PERF_SAMPLE_CPU)", in->path);
	return 0;
}
