/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_HIST_H
#define SBX_PROFILE_HIST_H

/*
 * Histograms of samples: rows keyed by any of pid, comm, dso and symbol,
 * within one event, with their sample counts and periods; perf report's
 * aggregation (its hist.c and sort.c), shared by `sbx report` and the
 * summaries of other commands.
 *
 *	struct hist *h = hist_new(keys, nr_keys);
 *	for each sample: machine_resolve(…, &al);
 *		if (hist_filter_match(&filter, pid, &al)) hist_add(h, event, &al, period);
 *	rows = hist_sorted(h, &nr);	// heaviest first within each event
 *	hist_free(h);
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbol/addrspace.h"
#include "util/strlist.h"

struct cg_node;

enum hist_key { HIST_KEY_PID, HIST_KEY_COMM, HIST_KEY_DSO, HIST_KEY_SYM, HIST_KEY_CPU,
		HIST_KEY_SRCLINE, HIST_KEY_SYMOFF, HIST_NR_KEYS };

/* perf report's numeric fields (-F, -s): a share or a count of each row */
enum hist_num { HIST_NUM_OVERHEAD, HIST_NUM_SYS, HIST_NUM_USR, HIST_NUM_GUEST_SYS,
		HIST_NUM_GUEST_USR, HIST_NUM_CHILDREN, HIST_NUM_SAMPLES, HIST_NUM_PERIOD,
		HIST_NR_NUMS };

/* A field of perf report: a key (num false, id an enum hist_key) or a number (enum hist_num). */
struct hist_field {
	bool num;
	int id;
};

/* One row: one value of the keys within one event. Fields of unused keys are 0/NULL. */
struct hist_row {
	size_t event;			/* the caller's event index */
	uint32_t pid, tid;		/* the pid key: a thread, as in perf */
	uint32_t cpu;			/* the cpu key: the CPU the samples were taken on */
	const char *srcline;		/* the srcline key: interned by the caller */
	const char *comm;		/* interned by the machine */
	struct dso *dso;		/* NULL: no map held the address */
	const struct symbol *sym;	/* NULL: no symbol */
	uint64_t addr;			/* with the sym key and no symbol, or the symoff key:
					   the address */
	bool kernel;			/* with the sym key: resolved in the kernel; outside
					   every map not a key: the first sample's level, as
					   perf labels such a row */
	uint64_t samples, period;
	/* the period by the samples' mode (hist_set_cpumode()): kernel, user, guest's */
	uint64_t period_sys, period_us, period_guest_sys, period_guest_us;
	/* hist_add_chain(): samples and period of the stacks that hold the row (self included) */
	uint64_t children_samples, children;
	uint64_t stack_seen;		/* internal: the last stack that counted it */
	uint32_t first_tid;		/* the thread of the sample that made the row */
	uint32_t depth;			/* the caller's: the longest chain in its graph */
	struct cg_node *graph;		/* the caller's: the row's call graph (NULL: none) */
	uint64_t mark;			/* the caller's: a stamp of its own */
};

/* Which samples count: an empty list lets every value through. */
struct hist_filter {
	struct strlist pids;		/* decimal pids */
	struct strlist tids;		/* decimal thread ids */
	struct strlist comms;
	struct strlist dsos;		/* short names or paths */
	struct strlist syms;		/* symbol names, as shown (demangled unless not) */
	bool demangle;			/* syms are matched to demangled names */
};

struct hist;

/*
 * A new, empty histogram over keys (nr_keys of them, each at most once, in
 * the order they are to be shown). NULL with errno on failure.
 */
struct hist *hist_new(const enum hist_key *keys, size_t nr_keys);
void hist_free(struct hist *h);

/*
 * Parse perf report's list of fields (-F) or sort keys (-s): words split at
 * commas and spaces, each the prefix of a name, ignoring case, taken as the
 * first of perf's names it begins ("s" is symbol, "over" overhead), a field
 * given twice once. out has room for HIST_NR_KEYS + HIST_NR_NUMS. Returns
 * 0, or -EINVAL for an unknown word, a key of perf that sbx does not have,
 * or an empty list (with a message).
 */
int hist_parse_fields(const char *arg, struct hist_field *out, size_t *nr);

/* Append f to v (*nr of them) unless v holds it: true when it was added. */
bool hist_field_add(struct hist_field *v, size_t *nr, struct hist_field f);

/* perf's name of a numeric field: "overhead", "overhead_children", "sample", … */
const char *hist_num_name(enum hist_num n);

/* The value of a numeric field of a row (a period, or the samples). */
uint64_t hist_row_num(const struct hist_row *r, enum hist_num n);

/*
 * The order of hist_sorted(): rows compared by sorts[0..nr) in turn,
 * numbers the largest first, keys ascending (perf report's output sort;
 * the children column only after hist_sort_by_children()), then by the
 * keys. nr 0 is the default: [children,] overhead, then the keys.
 */
int hist_set_sort(struct hist *h, const struct hist_field *sorts, size_t nr);

/* The name of a key: "pid", "comm", "dso", "sym". */
const char *hist_key_name(enum hist_key key);

/* The keys of h, in order. */
size_t hist_keys(const struct hist *h, const enum hist_key **keys);

/* Whether h groups by key. */
bool hist_has_key(const struct hist *h, enum hist_key key);

/* Whether a sample of process pid resolved to al passes the filter. */
bool hist_filter_match(const struct hist_filter *f, uint32_t pid, const struct addr_location *al);

/* Free the filter's lists. */
void hist_filter_release(struct hist_filter *f);

/*
 * Count one sample of event (an index the caller chooses, small) resolved
 * to al, of the given period. Returns 0 or -ENOMEM (with a message).
 */
int hist_add(struct hist *h, size_t event, const struct addr_location *al, uint64_t period);

/*
 * The row of al in event, made with zero counts when missing, or NULL when
 * out of memory: for a caller that keeps something of its own in rows
 * (hist_row.graph).
 */
struct hist_row *hist_row_get(struct hist *h, size_t event, const struct addr_location *al);

/*
 * Count a sample of event that the filters (hist_filter_match()) left out:
 * in the totals of hist_event_all_*() only. Returns 0 or -ENOMEM.
 */
int hist_add_filtered_out(struct hist *h, size_t event, uint64_t period);

/*
 * perf report --children: count one sample's stack, frames[0..nr) (leaf
 * first, as resolved), in the children columns of the rows its frames fall
 * in, each row once however often it appears (recursion). Rows that only
 * stacks hold get self 0. With the srcline key, srclines[i] is the srcline
 * of frames[i]. When rows is not NULL, rows[i] gets the row of frames[i]
 * (nr of them). Returns 0 or -ENOMEM (with a message).
 */
int hist_add_chain(struct hist *h, size_t event, const struct addr_location *frames, size_t nr,
		   uint64_t period, const char *const *srclines, struct hist_row **rows);

/* Sort by the children columns first (perf report --children). */
void hist_sort_by_children(struct hist *h, bool on);

/*
 * With call graphs (hist_row.depth set by the caller), rows of equal
 * Children made by one thread go in perf's order: the deeper graph first
 * when dir > 0 (callers first, so a caller above its callee), the shallower
 * first when dir < 0; 0 (the default) leaves that out.
 */
void hist_set_depth_order(struct hist *h, int dir);

/* The mode (PERF_RECORD_MISC_KERNEL, …) of the samples hist_add() adds next: sys/usr shares. */
void hist_set_cpumode(struct hist *h, uint8_t cpumode);

/* The CPU of the samples added next, for the cpu key (hist_add(), hist_add_chain()). */
void hist_set_cpu(struct hist *h, uint32_t cpu);

/* The srcline of the sample added next (hist_add(), hist_row_get()), for the srcline key. */
void hist_set_srcline(struct hist *h, const char *srcline);

/* Order rows of equal counts by demangled symbol names (as shown unless --no-demangle). */
void hist_set_demangle(struct hist *h, bool on);

/*
 * Every row, sorted by event, then heaviest period (children first after
 * hist_sort_by_children()), then most samples,
 * then by the keys (pid, comm, dso path, symbol name, address) so that the
 * order is the same on every run. *nr gets the number of rows. The array
 * and the rows are owned by h and valid until the next hist_add() or
 * hist_free(); NULL with *nr 0 when there is no row or memory ran out.
 */
struct hist_row *const *hist_sorted(struct hist *h, size_t *nr);

/* Events seen: one more than the highest event index given to hist_add(). */
size_t hist_nr_events(const struct hist *h);

/* The samples and the sum of periods counted for event. */
uint64_t hist_event_samples(const struct hist *h, size_t event);
uint64_t hist_event_period(const struct hist *h, size_t event);
/*
 * The totals of an event with the samples the filters left out
 * (hist_add_filtered_out()): perf report's --percentage absolute.
 */
uint64_t hist_event_all_samples(const struct hist *h, size_t event);
uint64_t hist_event_all_period(const struct hist *h, size_t event);

/* Samples counted, all events. */
uint64_t hist_total_samples(const struct hist *h);

#endif
