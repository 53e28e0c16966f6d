/* SPDX-License-Identifier: MIT */
/*
 * perf.data header info as perf 6.1 prints it (report --header, script
 * --header): perf_header__fprintf_info() and the print function of each
 * feature, their formats reproduced from what perf prints.
 *
 * The feature sections are read here without changing them (the reader
 * hands them out in the writer's byte order): each value is copied, then
 * swapped when the file is of the other byte order. A feature that does
 * not decode prints nothing (its lines are made in memory first), except
 * EVENT_DESC, which says so as perf does.
 */
#include <byteswap.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "perf/header-info.h"

/* A reader over one feature section: each failed read sets bad and gives 0. */
struct rd {
	const uint8_t *p, *end;
	bool swap, bad;
};

static const void *rd_take(struct rd *r, size_t n)
{
	const uint8_t *p = r->p;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	return p;
}

static uint32_t rd_u32(struct rd *r)
{
	const void *p = rd_take(r, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return r->swap ? bswap_32(v) : v;
}

static uint64_t rd_u64(struct rd *r)
{
	const void *p = rd_take(r, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return r->swap ? bswap_64(v) : v;
}

/* A string of a section, in place: its text up to the NUL (printed with "%.*s", STR()). */
struct str {
	int n;
	const char *p;
};

#define STR(s)	(s).n, (s).p

/* A perf string (u32 len, then len bytes, NUL-padded): its text, whole, or "". */
static struct str rd_str(struct rd *r)
{
	uint32_t len = rd_u32(r);
	const char *s = rd_take(r, len);
	struct str v = { 0, "" };

	if (s) {
		const char *nul = memchr(s, 0, len);

		v.p = s;
		v.n = (int)((nul ? (size_t)(nul - s) : len) < INT32_MAX ?
			    (nul ? (size_t)(nul - s) : len) : INT32_MAX);
	}
	return v;
}

static bool feature(const struct perf_data *d, unsigned feat, struct rd *r)
{
	const void *buf;
	size_t len;

	if (perf_data_feature(d, (int)feat, &buf, &len) != 1)
		return false;
	*r = (struct rd){ buf, (const uint8_t *)buf + len, perf_data_needs_swap(d), false };
	return true;
}

/* ------------------------------------------------------------ the attrs */

struct bit_name {
	const char *name;
	unsigned bit;
};

/* in perf's table order, which is not the order of the bits */
static const struct bit_name sample_bits[] = {
	{ "IP", 0 }, { "TID", 1 }, { "TIME", 2 }, { "ADDR", 3 }, { "READ", 4 },
	{ "CALLCHAIN", 5 }, { "ID", 6 }, { "CPU", 7 }, { "PERIOD", 8 }, { "STREAM_ID", 9 },
	{ "RAW", 10 }, { "BRANCH_STACK", 11 }, { "REGS_USER", 12 }, { "STACK_USER", 13 },
	{ "IDENTIFIER", 16 }, { "REGS_INTR", 18 }, { "DATA_SRC", 15 }, { "WEIGHT", 14 },
	{ "PHYS_ADDR", 19 }, { "AUX", 20 }, { "CGROUP", 21 }, { "DATA_PAGE_SIZE", 22 },
	{ "CODE_PAGE_SIZE", 23 }, { "WEIGHT_STRUCT", 24 }, { NULL, 0 },
};
static const struct bit_name read_bits[] = {
	{ "TOTAL_TIME_ENABLED", 0 }, { "TOTAL_TIME_RUNNING", 1 }, { "ID", 2 }, { "GROUP", 3 },
	{ "LOST", 4 }, { NULL, 0 },
};
static const struct bit_name branch_bits[] = {
	{ "USER", 0 }, { "KERNEL", 1 }, { "HV", 2 }, { "ANY", 3 }, { "ANY_CALL", 4 },
	{ "ANY_RETURN", 5 }, { "IND_CALL", 6 }, { "ABORT_TX", 7 }, { "IN_TX", 8 }, { "NO_TX", 9 },
	{ "COND", 10 }, { "CALL_STACK", 11 }, { "IND_JUMP", 12 }, { "CALL", 13 },
	{ "NO_FLAGS", 14 }, { "NO_CYCLES", 15 }, { "TYPE_SAVE", 16 }, { "HW_INDEX", 17 },
	{ "PRIV_SAVE", 18 }, { NULL, 0 },
};
/* the flag bits at offset 40, from bit 0; precise_ip is bits 15-16 */
static const char *const flag_names[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", "precise_ip", NULL, "mmap_data", "sample_id_all", "exclude_host",
	"exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
	"bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
	"remove_on_exec", "sigtrap",
};

static void print_bits(FILE *f, const char *name, uint64_t v, const struct bit_name *t)
{
	bool first = true;

	if (!v)
		return;
	fprintf(f, ", %s = ", name);
	for (; t->name; t++)
		if (v >> t->bit & 1) {
			fprintf(f, "%s%s", first ? "" : "|", t->name);
			first = false;
		}
}

static uint64_t at64(const uint8_t *a, size_t off, bool swap)
{
	uint64_t v;

	memcpy(&v, a + off, 8);
	return swap ? bswap_64(v) : v;
}

static uint32_t at32(const uint8_t *a, size_t off, bool swap)
{
	uint32_t v;

	memcpy(&v, a + off, 4);
	return swap ? bswap_32(v) : v;
}

/* The bit-fields of an attr (disabled, inherit, …) as one word, bit 0 first. */
static uint64_t attr_flags(const struct perf_event_attr *a)
{
	uint64_t flags;

	memcpy(&flags, (const uint8_t *)a + offsetof(struct perf_event_attr, read_format) + 8,
	       sizeof(flags));
	return flags;
}

/* perf_event_attr__fprintf(): each field of a (native) that is not zero, ", name = value" */
static void print_attr(FILE *f, const struct perf_event_attr *a)
{
	uint64_t flags = attr_flags(a), v;

#define NUM(name, val) do { if ((v = (val))) fprintf(f, ", %s = %" PRIu64, name, v); } while (0)
#define HEX(name, val) do { if ((v = (val))) fprintf(f, ", %s = %#" PRIx64, name, v); } while (0)
	NUM("type", a->type);
	NUM("size", a->size);
	HEX("config", a->config);
	NUM("{ sample_period, sample_freq }", a->sample_period);
	print_bits(f, "sample_type", a->sample_type, sample_bits);
	print_bits(f, "read_format", a->read_format, read_bits);
	for (unsigned b = 0; b < sizeof(flag_names) / sizeof(*flag_names); b++)
		if (flag_names[b])
			NUM(flag_names[b], b == 15 ? flags >> 15 & 3 : flags >> b & 1);
	NUM("{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	NUM("bp_type", a->bp_type);
	HEX("{ bp_addr, config1 }", a->bp_addr);
	HEX("{ bp_len, config2 }", a->bp_len);
	print_bits(f, "branch_sample_type", a->branch_sample_type, branch_bits);
	HEX("sample_regs_user", a->sample_regs_user);
	NUM("sample_stack_user", a->sample_stack_user);
	if (a->clockid)
		fprintf(f, ", clockid = %d", a->clockid);
	HEX("sample_regs_intr", a->sample_regs_intr);
	NUM("aux_watermark", a->aux_watermark);
	NUM("sample_max_stack", a->sample_max_stack);
	NUM("aux_sample_size", a->aux_sample_size);
	NUM("sig_data", a->sig_data);
#undef NUM
#undef HEX
}

/* perf_attr_check(): an attr of bits this perf does not know is not printed */
static bool attr_known(const struct perf_event_attr *a)
{
	if (attr_flags(a) >> 38 || a->__reserved_2 || a->__reserved_3)
		return false;
	if (a->sample_type >> 25 || a->read_format >> 5)
		return false;
	return !(a->sample_type & PERF_SAMPLE_BRANCH_STACK) || !(a->branch_sample_type >> 19);
}

/* Every event of EVENT_DESC printed, or (it does not decode) only perf's line that says so. */
static bool print_event_desc(FILE *f, const struct perf_data *d)
{
	struct rd r;
	uint32_t nr, sz;
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	bool ok = true;

	if (!feature(d, HEADER_EVENT_DESC, &r))
		return false;
	nr = rd_u32(&r);
	sz = rd_u32(&r);
	if (r.bad || !sz || nr > (size_t)(r.end - r.p) / sz) {
		fprintf(f, "# event desc: not available or unable to read\n");
		return true;
	}
	m = open_memstream(&text, &len);
	if (!m)
		return false;
	for (uint32_t i = 0; i < nr && ok; i++) {
		struct perf_event_attr a;
		const void *p = rd_take(&r, sz);
		size_t n = sz < sizeof(a) ? sz : sizeof(a);
		uint32_t nr_ids;
		struct str name;

		memset(&a, 0, sizeof(a));
		if (p)
			memcpy(&a, p, n);
		/* of the other byte order: made native as perf swaps an attr (its bit-fields too) */
		if (r.swap)
			perf_attr_swap((uint8_t *)&a, n);
		nr_ids = rd_u32(&r);
		name = rd_str(&r);
		if (r.bad || nr_ids > (size_t)(r.end - r.p) / 8 || !attr_known(&a)) {
			ok = false;
			break;
		}
		if (!a.size)	/* perf's list ends at an attr of size 0 */
			break;
		fprintf(m, "# event : name = %.*s, ", STR(name));
		if (nr_ids) {
			fprintf(m, ", id = {");
			for (uint32_t j = 0; j < nr_ids; j++)
				fprintf(m, "%s %" PRIu64, j ? "," : "", rd_u64(&r));
			fprintf(m, " }");
		}
		print_attr(m, &a);
		fputc('\n', m);
	}
	fclose(m);
	if (ok && text)
		fwrite(text, 1, len, f);
	else if (!ok)
		fprintf(f, "# event desc: not available or unable to read\n");
	free(text);
	return true;
}

/* The names of the events of EVENT_DESC, in order (in place); *nr of them, NULL on failure. */
static struct str *event_desc_names(const struct perf_data *d, uint32_t *nr)
{
	struct rd r;
	uint32_t sz;
	struct str *v;

	*nr = 0;
	if (!feature(d, HEADER_EVENT_DESC, &r))
		return NULL;
	*nr = rd_u32(&r);
	sz = rd_u32(&r);
	/* each event is at least its attr, a count and a string's length */
	if (r.bad || *nr > (size_t)(r.end - r.p) / ((size_t)sz + 8) ||
	    !(v = calloc(*nr ? *nr : 1, sizeof(*v)))) {
		*nr = 0;
		return NULL;
	}
	for (uint32_t i = 0; i < *nr && !r.bad; i++) {
		uint32_t nr_ids;

		rd_take(&r, sz);
		nr_ids = rd_u32(&r);
		v[i] = rd_str(&r);
		rd_take(&r, (size_t)nr_ids * 8);
	}
	if (r.bad) {
		free(v);
		*nr = 0;
		return NULL;
	}
	return v;
}

/* ------------------------------------------------------ lists and sizes */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* ints as perf's ranges: "0-3,5" (sorted, each once; none: "-1", perf's dummy map) */
static void print_ranges(FILE *f, int *v, size_t n)
{
	size_t i = 0, k = 0;

	if (n)
		qsort(v, n, sizeof(*v), cmp_int);
	for (size_t j = 0; j < n; j++)	/* each once */
		if (!k || v[k - 1] != v[j])
			v[k++] = v[j];
	if (!k) {
		fputs("-1", f);
		return;
	}
	while (i < k) {
		size_t j = i;

		while (j + 1 < k && v[j + 1] == v[j] + 1)
			j++;
		if (j == i)
			fprintf(f, "%s%d", i ? "," : "", v[i]);
		else
			fprintf(f, "%s%d-%d", i ? "," : "", v[i], v[j]);
		i = j + 1;
	}
}

/* A cpu list ("0-1,4") parsed and printed again, as perf's cpu maps do. */
/* The CPUs a list names, at most this many (perf's maps hold no more CPUs than that) */
#define CPU_LIST_MAX	(1 << 16)

/* A cpu list ("0-1,4") parsed and printed again, as perf's cpu maps do. */
static void print_cpu_list(FILE *f, struct str list)
{
	char *copy = strndup(list.p, (size_t)list.n), *s = copy;
	int *v = NULL;
	size_t n = 0, cap = 0;

	while (s && *s && n < CPU_LIST_MAX) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long c = a; c <= b && n < CPU_LIST_MAX; c++) {
			if (n == cap) {
				int *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!nv)
					break;
				v = nv;
			}
			v[n++] = (int)c;
		}
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			break;
	}
	print_ranges(f, v, n);
	free(v);
	free(copy);
}

/* perf's unit_number__scnprintf(): B, K, M or G, divided while more than 1 of the next */
static void print_unit(FILE *f, uint64_t n)
{
	static const char units[] = "BKMG";
	int i = 0;

	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	fprintf(f, "%" PRIu64 "%c", n, units[i]);
}

/* ------------------------------------------------------------ features */

static bool print_strings_feature(FILE *f, struct rd *r, unsigned feat)
{
	static const char *const label[HEADER_LAST_FEATURE] = {
		[HEADER_HOSTNAME] = "hostname", [HEADER_OSRELEASE] = "os release",
		[HEADER_VERSION] = "perf version", [HEADER_ARCH] = "arch",
		[HEADER_CPUDESC] = "cpudesc", [HEADER_CPUID] = "cpuid",
	};
	struct str v = rd_str(r);

	if (r->bad)
		return false;
	fprintf(f, "# %s : %.*s\n", label[feat], STR(v));
	return true;
}

static uint32_t nr_cpus_avail(const struct perf_data *d)
{
	struct rd r;

	return feature(d, HEADER_NRCPUS, &r) ? rd_u32(&r) : 0;
}

static bool arch_keeps_ids(const struct perf_data *d)
{
	char *arch = perf_data_feature_string(d, HEADER_ARCH);
	bool keep = arch && (!strncmp(arch, "s390", 4) || !strncmp(arch, "aarch64", 7));

	free(arch);
	return keep;
}

static bool print_cpu_topology(FILE *f, const struct perf_data *d, struct rd *r)
{
	uint32_t nr_cpus = nr_cpus_avail(d), nr, nr_dies = 0;
	const uint8_t *cpus = NULL, *die_ids = NULL;
	char *threads = NULL;
	size_t threads_len = 0;
	FILE *tf;

	nr = rd_u32(r);
	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		struct str v = rd_str(r);

		fprintf(f, "# sibling sockets : %.*s\n", STR(v));
	}
	/* the dies come between sockets and threads in the output, after them in the file */
	tf = open_memstream(&threads, &threads_len);
	if (!tf)
		return false;
	nr = rd_u32(r);
	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		struct str v = rd_str(r);

		fprintf(tf, "# sibling threads : %.*s\n", STR(v));
	}
	if (!r->bad && r->p < r->end) {
		cpus = rd_take(r, (size_t)nr_cpus * 8);
		if (cpus && r->p < r->end) {
			nr_dies = rd_u32(r);
			for (uint32_t i = 0; i < nr_dies && !r->bad; i++) {
				struct str v = rd_str(r);

				fprintf(f, "# sibling dies    : %.*s\n", STR(v));
			}
			die_ids = rd_take(r, (size_t)nr_cpus * 4);
		}
	}
	fclose(tf);
	if (threads)
		fwrite(threads, 1, threads_len, f);
	free(threads);
	if (r->bad)
		return false;
	/* perf drops the ids when a socket id is past the CPUs (but on s390 and arm64) */
	for (uint32_t i = 0; cpus && i < nr_cpus && !arch_keeps_ids(d); i++) {
		int32_t socket = (int32_t)at32(cpus, 8 * i + 4, r->swap);

		if (socket != -1 && socket > (int32_t)nr_cpus)
			cpus = NULL;
	}
	if (nr_dies) {
		if (!cpus || !die_ids)
			fprintf(f, "# Core ID, Die ID and Socket ID information is not available\n");
		else
			for (uint32_t i = 0; i < nr_cpus; i++)
				fprintf(f, "# CPU %u: Core ID %d, Die ID %d, Socket ID %d\n", i,
					(int32_t)at32(cpus, 8 * i, r->swap),
					(int32_t)at32(die_ids, 4 * i, r->swap),
					(int32_t)at32(cpus, 8 * i + 4, r->swap));
	} else if (!cpus) {
		fprintf(f, "# Core ID and Socket ID information is not available\n");
	} else {
		for (uint32_t i = 0; i < nr_cpus; i++)
			fprintf(f, "# CPU %u: Core ID %d, Socket ID %d\n", i,
				(int32_t)at32(cpus, 8 * i, r->swap),
				(int32_t)at32(cpus, 8 * i + 4, r->swap));
	}
	return true;
}

static bool print_numa_topology(FILE *f, struct rd *r)
{
	uint32_t nr = rd_u32(r);

	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		uint32_t node = rd_u32(r);
		uint64_t total = rd_u64(r), free_kb = rd_u64(r);
		struct str v = rd_str(r);

		if (r->bad)
			break;
		fprintf(f, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
			node, total, free_kb);
		fprintf(f, "# node%u cpu list : ", node);
		print_cpu_list(f, v);
		fputc('\n', f);
	}
	return !r->bad;
}

static bool print_pmu_mappings(FILE *f, struct rd *r)
{
	uint32_t nr = rd_u32(r);

	if (r->bad)
		return false;
	if (!nr) {
		fprintf(f, "# pmu mappings: not available\n");
		return true;
	}
	fprintf(f, "# pmu mappings: ");
	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		uint32_t type = rd_u32(r);
		struct str v = rd_str(r);

		fprintf(f, "%s%.*s = %u", i ? ", " : "", STR(v), type);
	}
	fputc('\n', f);
	return !r->bad;
}

static bool print_group_desc(FILE *f, const struct perf_data *d, struct rd *r)
{
	uint32_t nr = rd_u32(r), nr_events;
	struct str *names = event_desc_names(d, &nr_events);

	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		struct str name = rd_str(r);
		uint32_t leader = rd_u32(r), members = rd_u32(r);
		bool anon = name.n == 12 && !memcmp(name.p, "{anon_group}", 12);

		/* perf makes its groups of its events: one past them is none */
		if (r->bad || members <= 1 || leader >= nr_events || members > nr_events - leader)
			continue;
		fprintf(f, "# group: %.*s{", anon ? 0 : name.n, name.p);
		for (uint32_t k = 0; k < members; k++)
			fprintf(f, "%s%.*s", k ? "," : "", STR(names[leader + k]));
		fprintf(f, "}\n");
	}
	free(names);
	return !r->bad;
}

static bool print_cache(FILE *f, struct rd *r)
{
	uint32_t nr;

	if (rd_u32(r) != 1)
		return false;
	nr = rd_u32(r);
	if (r->bad)
		return false;
	fprintf(f, "# CPU cache info:\n");
	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		uint32_t level = rd_u32(r);

		struct str type, size, map;

		rd_take(r, 12);	/* line size, sets, ways */
		type = rd_str(r);
		size = rd_str(r);
		map = rd_str(r);
		if (!r->bad)
			fprintf(f, "#  L%d %-15.*s %8.*s [%.*s]\n", (int)level, STR(type), STR(size),
				STR(map));
	}
	return !r->bad;
}

static void print_usec(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%06" PRIu64, ns / 1000000000, ns % 1000000000 / 1000);
}

static bool print_sample_time(FILE *f, struct rd *r)
{
	uint64_t first = rd_u64(r), last = rd_u64(r);

	if (r->bad)
		return false;
	fprintf(f, "# time of first sample : ");
	print_usec(f, first);
	fprintf(f, "\n# time of last sample : ");
	print_usec(f, last);
	fprintf(f, "\n# sample duration : %10.3f ms\n", (double)(last - first) / 1e6);
	return true;
}

static bool print_mem_topology(FILE *f, struct rd *r)
{
	uint64_t block, nr;

	if (rd_u64(r) != 1)
		return false;
	block = rd_u64(r);
	nr = rd_u64(r);
	if (r->bad)
		return false;
	fprintf(f, "# memory nodes (nr %d, block size 0x%" PRIx64 "):\n", (int)nr, block);
	for (uint64_t i = 0; i < nr && !r->bad; i++) {
		uint64_t node = rd_u64(r), nbits, set = 0;
		const uint8_t *words;
		char list[100];
		size_t len = 0;

		rd_u64(r);	/* size: the bitmap says it */
		nbits = rd_u64(r);
		if (r->bad || nbits > (uint64_t)(r->end - r->p) * 8)
			return false;
		words = rd_take(r, (size_t)(nbits + 63) / 64 * 8);
		if (!words)
			return false;
		list[0] = 0;
		for (uint64_t b = 0; b < nbits; b++) {
			uint64_t e = b;

			if (!(at64(words, b / 64 * 8, r->swap) >> (b % 64) & 1))
				continue;
			while (e + 1 < nbits && at64(words, (e + 1) / 64 * 8, r->swap) >> ((e + 1) % 64) & 1)
				e++;
			set += e - b + 1;
			/* perf writes into 100 bytes: the list is cut there */
			if (len < sizeof(list) - 1) {
				int n = e == b ? snprintf(list + len, sizeof(list) - len, "%s%" PRIu64,
							  len ? "," : "", b)
					       : snprintf(list + len, sizeof(list) - len,
							  "%s%" PRIu64 "-%" PRIu64, len ? "," : "", b, e);

				if (n > 0)
					len += (size_t)n;
				if (len > sizeof(list) - 1)
					len = sizeof(list) - 1;
			}
			b = e;
		}
		fprintf(f, "#  %3" PRIu64 " [", node);
		print_unit(f, block * set);
		fprintf(f, "]: %s\n", list);
	}
	return !r->bad;
}

static const char *clock_name(uint32_t id)
{
	switch (id) {
	case 1: return "monotonic";
	case 4: return "monotonic_raw";
	case 0: return "realtime";
	case 7: return "boottime";
	case 11: return "tai";
	default: return "(not found)";
	}
}

static bool print_clock_data(FILE *f, struct rd *r)
{
	uint32_t id;
	uint64_t tod, clk;
	time_t sec;
	struct tm tm;
	char date[64];

	if (rd_u32(r) != 1) {
		fprintf(f, "# reference time disabled\n");
		return true;
	}
	id = rd_u32(r);
	tod = rd_u64(r);
	clk = rd_u64(r);
	if (r->bad)
		return false;
	sec = (time_t)(tod / 1000000000);
	if (!localtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%F %T", &tm))
		snprintf(date, sizeof(date), "<error>");
	fprintf(f, "# clockid: %s (%u)\n", clock_name(id), id);
	fprintf(f, "# reference time: %s.%06d = %ld.%06d (TOD) = %ld.%09ld (%s)\n", date,
		(int)(tod % 1000000000 / 1000), (long)sec, (int)(tod % 1000000000 / 1000),
		(long)(clk / 1000000000), (long)(clk % 1000000000), clock_name(id));
	return true;
}

/* "name=value, name=value" of nr caps */
static void print_caps(FILE *f, struct rd *r, uint32_t nr)
{
	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		struct str name = rd_str(r), value = rd_str(r);

		fprintf(f, "%s%.*s=%.*s", i ? ", " : "", STR(name), STR(value));
	}
}

static bool print_cpu_pmu_caps(FILE *f, struct rd *r)
{
	uint32_t nr = rd_u32(r);

	if (r->bad)
		return false;
	if (!nr) {
		fprintf(f, "# cpu pmu capabilities: not available\n");
		return true;
	}
	fprintf(f, "# cpu pmu capabilities: ");
	print_caps(f, r, nr);
	fputc('\n', f);
	return !r->bad;
}

static bool print_pmu_caps(FILE *f, struct rd *r)
{
	uint32_t nr = rd_u32(r);

	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		uint32_t nr_caps = rd_u32(r);
		char *caps = NULL;
		size_t len = 0;
		FILE *cf = open_memstream(&caps, &len);
		struct str pmu;

		if (!cf)
			return false;
		print_caps(cf, r, nr_caps);
		fclose(cf);
		pmu = rd_str(r);	/* the name comes after its caps */
		if (!r->bad) {
			if (nr_caps)
				fprintf(f, "# %.*s pmu capabilities: %s\n", STR(pmu), caps ? caps : "");
			else
				fprintf(f, "# %.*s pmu capabilities: not available\n", STR(pmu));
		}
		free(caps);
	}
	return !r->bad;
}

struct bpf_prog {
	uint32_t id;
	const uint8_t *info;	/* 232 bytes, zero-extended */
	const uint8_t *data;
	uint32_t data_len;
	uint8_t *copy;
};

static int cmp_prog(const void *a, const void *b)
{
	const struct bpf_prog *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

#define BPF_INFO_LEN	232	/* struct bpf_prog_info of perf 6.1 */

/*
 * The BPF programs, by id. perf names a program from the BTF of its
 * functions where the file has it; here the name is the tag and the
 * program's own name (or _F for a sub-program), perf's name without BTF.
 */
static bool print_bpf_prog_info(FILE *f, struct rd *r)
{
	uint32_t nr = rd_u32(r);
	struct bpf_prog *progs;
	size_t n = 0;
	bool ok = true;

	if (r->bad || nr > (size_t)(r->end - r->p) / 16)
		return false;
	progs = calloc(nr ? nr : 1, sizeof(*progs));
	if (!progs)
		return false;
	for (uint32_t i = 0; i < nr && ok; i++) {
		uint32_t info_len = rd_u32(r), data_len = rd_u32(r);
		const uint8_t *info, *data;

		rd_u64(r);	/* the arrays present: the offsets below say it */
		info = rd_take(r, info_len);
		data = rd_take(r, data_len);
		if (!info || !data || info_len > BPF_INFO_LEN ||
		    !(progs[n].copy = calloc(1, BPF_INFO_LEN))) {
			ok = false;
			break;
		}
		memcpy(progs[n].copy, info, info_len);
		progs[n].info = progs[n].copy;
		progs[n].id = at32(progs[n].info, 4, r->swap);
		progs[n].data = data;
		progs[n].data_len = data_len;
		/* one program per id, the first */
		for (size_t k = 0; k < n; k++)
			if (progs[k].id == progs[n].id) {
				free(progs[n].copy);
				progs[n].copy = NULL;
				n--;
				break;
			}
		n++;
	}
	qsort(progs, n, sizeof(*progs), cmp_prog);
	for (size_t i = 0; ok && i < n; i++) {
		const uint8_t *in = progs[i].info;
		uint32_t nks = at32(in, 104, r->swap), nlens = at32(in, 108, r->swap);
		uint64_t ks = at64(in, 112, r->swap), lens = at64(in, 120, r->swap);
		uint32_t ntags = at32(in, 180, r->swap);
		uint64_t tags = at64(in, 184, r->swap), dl = progs[i].data_len;
		char name[17];

		if (nks != ntags || nks != nlens || ks > dl || (dl - ks) / 8 < nks ||
		    lens > dl || (dl - lens) / 4 < nks || tags > dl || (dl - tags) / 8 < nks)
			continue;
		memcpy(name, in + 64, 16);
		name[16] = 0;
		if (nks == 1)
			fprintf(f, "# bpf_prog_info %u: ", progs[i].id);
		else
			fprintf(f, "# bpf_prog_info %u:\n", progs[i].id);
		for (uint32_t k = 0; k < nks; k++) {
			const uint8_t *tag = progs[i].data + tags + 8 * k;

			if (nks != 1)
				fprintf(f, "# \tsub_prog %u: ", k);
			fprintf(f, "bpf_prog_");
			for (int b = 0; b < 8; b++)
				fprintf(f, "%02x", tag[b]);
			if (nks != 1)
				fprintf(f, "_F");
			else if (name[0])
				fprintf(f, "_%s", name);
			fprintf(f, " addr 0x%" PRIx64 " size %u\n",
				at64(progs[i].data, ks + 8 * k, r->swap),
				at32(progs[i].data, lens + 4 * k, r->swap));
		}
	}
	for (size_t i = 0; i < n; i++)
		free(progs[i].copy);
	free(progs);
	return ok;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static bool print_bpf_btf(FILE *f, struct rd *r)
{
	uint32_t nr = rd_u32(r), *ids;
	size_t n = 0;

	if (r->bad || nr > (size_t)(r->end - r->p) / 8)
		return false;
	ids = malloc((nr ? nr : 1) * sizeof(*ids));
	if (!ids)
		return false;
	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		uint32_t id = rd_u32(r), size = rd_u32(r);

		rd_take(r, size);
		ids[n++] = id;
	}
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (size_t i = 0; i < n && !r->bad; i++)
		if (!i || ids[i] != ids[i - 1])
			fprintf(f, "# btf info of id %u\n", ids[i]);
	free(ids);
	return !r->bad;
}

static bool print_hybrid_topology(FILE *f, struct rd *r)
{
	uint32_t nr = rd_u32(r);

	if (r->bad)
		return false;
	fprintf(f, "# hybrid cpu system:\n");
	for (uint32_t i = 0; i < nr && !r->bad; i++) {
		struct str pmu = rd_str(r), cpus = rd_str(r);

		if (!r->bad)
			fprintf(f, "# %.*s cpu list : %.*s\n", STR(pmu), STR(cpus));
	}
	return !r->bad;
}

static bool full_only(unsigned feat)
{
	return feat == HEADER_CPU_TOPOLOGY || feat == HEADER_NUMA_TOPOLOGY ||
	       feat == HEADER_CACHE || feat == HEADER_MEM_TOPOLOGY ||
	       feat == HEADER_HYBRID_TOPOLOGY;
}

/* perf's upper-case name of a feature ("CPU_TOPOLOGY") */
static void print_feature_name(FILE *f, unsigned feat)
{
	for (const char *s = perf_feature_name(feat); *s; s++)
		fputc(toupper((unsigned char)*s), f);
}

static bool print_feature(FILE *f, const struct perf_data *d, unsigned feat, bool full)
{
	struct rd r;

	if (feat == HEADER_EVENT_DESC)
		return print_event_desc(f, d);
	if (!feature(d, feat, &r))
		return false;
	if (full_only(feat) && !full) {
		fputs("# ", f);
		print_feature_name(f, feat);
		fputs(" info available, use -I to display\n", f);
		return true;
	}
	switch (feat) {
	case HEADER_HOSTNAME: case HEADER_OSRELEASE: case HEADER_VERSION: case HEADER_ARCH:
	case HEADER_CPUDESC: case HEADER_CPUID:
		return print_strings_feature(f, &r, feat);
	case HEADER_NRCPUS: {
		uint32_t avail = rd_u32(&r), online = rd_u32(&r);

		if (!r.bad)
			fprintf(f, "# nrcpus online : %u\n# nrcpus avail : %u\n", online, avail);
		return !r.bad;
	}
	case HEADER_TOTAL_MEM: {
		uint64_t kb = rd_u64(&r);

		if (!r.bad)
			fprintf(f, "# total memory : %" PRIu64 " kB\n", kb);
		return !r.bad;
	}
	case HEADER_CMDLINE: {
		uint32_t nr = rd_u32(&r);

		fprintf(f, "# cmdline : ");
		for (uint32_t i = 0; i < nr && !r.bad; i++) {
			struct str v = rd_str(&r);

			/* perf escapes each single quote, and ends every word with a space */
			for (int c = 0; c < v.n; c++)
				if (v.p[c] == '\'')
					fputs("\\'", f);
				else
					fputc(v.p[c], f);
			fputc(' ', f);
		}
		fputc('\n', f);
		return !r.bad;
	}
	case HEADER_CPU_TOPOLOGY:
		return print_cpu_topology(f, d, &r);
	case HEADER_NUMA_TOPOLOGY:
		return print_numa_topology(f, &r);
	case HEADER_BRANCH_STACK:
		fprintf(f, "# contains samples with branch stack\n");
		return true;
	case HEADER_PMU_MAPPINGS:
		return print_pmu_mappings(f, &r);
	case HEADER_GROUP_DESC:
		return print_group_desc(f, d, &r);
	case HEADER_AUXTRACE:
		fprintf(f, "# contains AUX area data (e.g. instruction trace)\n");
		return true;
	case HEADER_STAT:
		fprintf(f, "# contains stat data\n");
		return true;
	case HEADER_CACHE:
		return print_cache(f, &r);
	case HEADER_SAMPLE_TIME:
		return print_sample_time(f, &r);
	case HEADER_MEM_TOPOLOGY:
		return print_mem_topology(f, &r);
	case HEADER_CLOCKID: {
		uint64_t res = rd_u64(&r);

		if (!r.bad)	/* perf's figure: the resolution in ns, times 1000 */
			fprintf(f, "# clockid frequency: %" PRIu64 " MHz\n", res * 1000);
		return !r.bad;
	}
	case HEADER_DIR_FORMAT: {
		uint64_t v = rd_u64(&r);

		if (!r.bad)
			fprintf(f, "# directory data version : %" PRIu64 "\n", v);
		return !r.bad;
	}
	case HEADER_BPF_PROG_INFO:	/* perf 6.1 reads neither from the other byte order */
		return r.swap || print_bpf_prog_info(f, &r);
	case HEADER_BPF_BTF:
		return r.swap || print_bpf_btf(f, &r);
	case HEADER_COMPRESSED: {
		uint32_t v[5];

		for (int i = 0; i < 5; i++)
			v[i] = rd_u32(&r);
		if (!r.bad)
			fprintf(f, "# compressed : %s, level = %d, ratio = %d\n",
				v[1] == 1 ? "Zstd" : "Unknown", (int)v[2], (int)v[3]);
		return !r.bad;
	}
	case HEADER_CPU_PMU_CAPS:
		return print_cpu_pmu_caps(f, &r);
	case HEADER_CLOCK_DATA:
		return print_clock_data(f, &r);
	case HEADER_HYBRID_TOPOLOGY:
		return print_hybrid_topology(f, &r);
	case HEADER_PMU_CAPS:
		return print_pmu_caps(f, &r);
	default:	/* TRACING_DATA and BUILD_ID: perf prints nothing of them */
		return true;
	}
}

void perf_header_fprintf_feature(FILE *f, const struct perf_data *d, unsigned feat, bool full)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (feat == HEADER_RESERVED || feat >= HEADER_LAST_FEATURE)
		return;
	/* made in memory: a feature that does not decode leaves no half line */
	m = open_memstream(&buf, &len);
	if (!m)
		return;
	if (print_feature(m, d, feat, full) && !fflush(m) && len)
		fwrite(buf, 1, len, f);
	fclose(m);
	free(buf);
}

/* The feature a HEADER_FEATURE record holds: true with *feat set, false for another record. */
static bool record_feature(const struct perf_event_header *rec, uint64_t *feat)
{
	if (rec->type != PERF_RECORD_HEADER_FEATURE || rec->size < sizeof(*rec) + sizeof(*feat))
		return false;
	memcpy(feat, rec + 1, sizeof(*feat));
	return true;
}

void perf_header_fprintf_feature_record(FILE *f, const struct perf_data *d,
					const struct perf_event_header *rec, bool full)
{
	uint64_t feat;

	if (record_feature(rec, &feat) && feat < HEADER_LAST_FEATURE)
		perf_header_fprintf_feature(f, d, (unsigned)feat, full);
}

int perf_header_fprintf_pipe_features(FILE *f, struct perf_data *d, bool full)
{
	const struct perf_event_header *rec;

	while (perf_data_is_pipe(d) && perf_data_next(d, &rec) > 0) {
		uint64_t feat;

		if (rec->type < PERF_RECORD_USER_TYPE_START)	/* the data: no feature after it */
			break;
		if (rec->type != PERF_RECORD_HEADER_FEATURE)	/* ATTR, EVENT_UPDATE, … */
			continue;
		if (!record_feature(rec, &feat) || feat >= HEADER_LAST_FEATURE)
			break;	/* perf's end of the features */
		perf_header_fprintf_feature(f, d, (unsigned)feat, full);
	}
	return ferror(f) ? -EIO : 0;
}

int perf_header_fprintf(FILE *f, const struct perf_data *d, bool full)
{
	const struct perf_file_header *fh = perf_data_file_header(d);
	struct stat st;

	fprintf(f, "# ========\n");
	if (!perf_data_stat(d, &st)) {
		char when[64];
		struct tm tm;

		if (!localtime_r(&st.st_mtime, &tm) ||
		    !strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm))
			snprintf(when, sizeof(when), "?");
		fprintf(f, "# captured on    : %s\n", when);
		fprintf(f, "# header version : 1\n");
		fprintf(f, "# data offset    : %" PRIu64 "\n", fh ? fh->data.offset : 0);
		fprintf(f, "# data size      : %" PRIu64 "\n", fh ? fh->data.size : 0);
		fprintf(f, "# feat offset    : %" PRIu64 "\n",
			fh ? fh->data.offset + fh->data.size : 0);
		if (fh) {
			for (unsigned feat = 1; feat < HEADER_LAST_FEATURE; feat++)
				if (fh->features[0] >> feat & 1)
					perf_header_fprintf_feature(f, d, feat, full);
			fprintf(f, "# missing features: ");
			for (unsigned feat = 1; feat < HEADER_LAST_FEATURE; feat++)
				if (!(fh->features[0] >> feat & 1)) {
					print_feature_name(f, feat);
					fputc(' ', f);
				}
			fputc('\n', f);
		}
	}
	fprintf(f, "# ========\n#\n");
	return ferror(f) ? -EIO : 0;
}
