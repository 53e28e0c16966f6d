// SPDX-License-Identifier: MIT
/* Records in timestamp order, flushed by rounds (see session.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "perf/session.h"

struct queued {
	uint64_t time;
	uint64_t seq;				/* file order among equal times */
	uint64_t off;				/* perf's offset of the record */
	const struct perf_event_header *rec;	/* owned when the reader's are not stable */
};

struct session {
	struct perf_data *data;
	bool copy;			/* records must be copied to be queued */
	struct queued *heap;		/* the queue: [head, nr) pending */
	size_t head, nr, cap;
	bool sorted;			/* [head, nr) is in (time, seq) order */
	struct queued *tmp;		/* room for sorting */
	size_t tmp_cap;
	uint64_t seq;
	uint64_t max_time;		/* newest time queued */
	uint64_t next_flush;		/* flush limit of the next round */
	uint64_t last_time;		/* newest time delivered */
	const struct perf_event_header *prev_round;	/* the last FINISHED_ROUND */
	bool ordered;			/* false: every record delivered as it is read */
	bool dump;			/* rounds and samples of unknown ids delivered too */
	uint64_t off;			/* perf's offset of the record being delivered */
	struct session_stats stats;
};

struct session *session_new(struct perf_data *d)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s) {
		sbx_error(-ENOMEM, "out of memory");
		return NULL;
	}
	s->data = d;
	s->copy = !perf_data_records_stable(d);
	s->sorted = true;
	/*
	 * as perf: a file whose first event has no sample_id_all gives no
	 * time to its other records, so nothing is ordered (pipe mode: its
	 * events come later, and it is ordered)
	 */
	s->ordered = perf_data_is_pipe(d) || !perf_data_nr_attrs(d) ||
		     perf_data_attr(d, 0)->attr.sample_id_all;
	return s;
}

bool session_ordered(const struct session *s)
{
	return s->ordered;
}

void session_set_unordered(struct session *s)
{
	s->ordered = false;
}

void session_set_dump(struct session *s, bool on)
{
	s->dump = on;
}

uint64_t session_offset(const struct session *s)
{
	return s->off;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	if (s->copy)
		for (size_t i = s->head; i < s->nr; i++)
			free((void *)s->heap[i].rec);
	free(s->heap);
	free(s->tmp);
	free(s);
}

const struct session_stats *session_stats(const struct session *s)
{
	return &s->stats;
}

static bool before(const struct queued *a, const struct queued *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/*
 * Natural merge sort: the queue is a few runs already in order (one per
 * CPU buffer), so merging runs pairwise takes one or two passes.
 */
static int sort_queue(struct session *s, struct queued *a, size_t n)
{
	struct queued *src = a, *dst;

	if (s->tmp_cap < n) {
		struct queued *t = realloc(s->tmp, n * sizeof(*t));

		if (!t)
			return sbx_error(-ENOMEM, "out of memory");
		s->tmp = t;
		s->tmp_cap = n;
	}
	dst = s->tmp;
	/* each pass merges pairs of runs from src into dst; then the two swap */
	for (;;) {
		size_t i = 0, o = 0;
		struct queued *t;

		while (i < n) {
			size_t mid = i + 1, end, x, y;

			while (mid < n && !before(&src[mid], &src[mid - 1]))
				mid++;
			if (mid == n) {
				if (i == 0) {
					/* one run: sorted, in src */
					if (src != a)
						memcpy(a, src, n * sizeof(*a));
					return 0;
				}
				memcpy(dst + o, src + i, (n - i) * sizeof(*src));
				o = n;
				break;
			}
			end = mid + 1;
			while (end < n && !before(&src[end], &src[end - 1]))
				end++;
			for (x = i, y = mid; x < mid || y < end;)
				dst[o++] = y >= end || (x < mid && !before(&src[y], &src[x])) ? src[x++]
											      : src[y++];
			i = end;
		}
		t = src;
		src = dst;
		dst = t;
	}
}

/*
 * The queue is an array of pending records, [head, nr); it is sorted only
 * when something came out of order (one CPU's buffer after another's), so
 * records that arrive in time order cost nothing to queue.
 */
static int queue_push(struct session *s, struct queued q)
{
	if (s->nr == s->cap) {
		if (s->head) {
			memmove(s->heap, s->heap + s->head, (s->nr - s->head) * sizeof(*s->heap));
			s->nr -= s->head;
			s->head = 0;
		}
		if (s->nr == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 4096;
			struct queued *h = realloc(s->heap, cap * sizeof(*h));

			if (!h)
				return sbx_error(-ENOMEM, "out of memory");
			s->heap = h;
			s->cap = cap;
		}
	}
	if (s->nr > s->head && before(&q, &s->heap[s->nr - 1]))
		s->sorted = false;
	s->heap[s->nr++] = q;
	return 0;
}

static int deliver(struct session *s, const struct perf_event_header *rec, uint64_t off,
		   session_fn fn, void *ctx)
{
	const struct perf_data_attr *attr = perf_data_attr_of(s->data, rec);
	struct perf_sample sample;

	s->off = off;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (!attr || perf_sample_parse(&attr->layout, rec, &sample)) {
			/* left out, counted, and the first named by its place (no crash, no
			   allocation of what a corrupt count claims) */
			if (!s->stats.bad_samples++) {
				s->stats.first_bad_offset = perf_data_record_offset(s->data, rec);
				snprintf(s->stats.first_bad_why, sizeof(s->stats.first_bad_why), "%s",
					 !attr ? "an id of no event in the file" :
					 sbx_error_msg() ? sbx_error_msg() : "malformed");
			}
			/* a dump shows a sample of an id no event has, and nothing of it */
			if (!attr && s->dump) {
				memset(&sample, 0, sizeof(sample));
				return fn(ctx, rec, NULL, &sample);
			}
			return 0;
		}
		s->stats.samples++;
	} else if (!attr || rec->type >= PERF_RECORD_USER_TYPE_START ||
		   perf_sample_parse(&attr->layout, rec, &sample)) {
		/* no trailer to read: only what the header says */
		memset(&sample, 0, sizeof(sample));
		sample.misc = rec->misc;
		sample.cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		sample.pid = sample.tid = sample.cpu = (uint32_t)-1;
		sample.time = (uint64_t)-1;
	}
	if (rec->type == PERF_RECORD_LOST && rec->size >= 24) {
		uint64_t lost;

		memcpy(&lost, (const char *)rec + 16, 8);
		s->stats.lost += lost;
	} else if (rec->type == PERF_RECORD_LOST_SAMPLES && rec->size >= 16) {
		uint64_t lost;

		memcpy(&lost, (const char *)rec + 8, 8);
		s->stats.lost_samples += lost;
	}
	s->stats.records++;
	return fn(ctx, rec, attr, &sample);
}

static int flush(struct session *s, uint64_t limit, session_fn fn, void *ctx)
{
	if (!s->sorted) {
		int err = sort_queue(s, s->heap + s->head, s->nr - s->head);

		if (err)
			return err;
		s->sorted = true;
	}
	while (s->head < s->nr && s->heap[s->head].time <= limit) {
		struct queued q = s->heap[s->head++];
		int err = deliver(s, q.rec, q.off, fn, ctx);

		s->last_time = q.time;
		if (s->copy)
			free((void *)q.rec);
		if (err)
			return err;
	}
	return 0;
}

/* The timestamp of a record, or 0 when it has none. */
static uint64_t record_time(struct session *s, const struct perf_event_header *rec)
{
	const struct perf_data_attr *attr;
	uint64_t t;

	if (rec->type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	attr = perf_data_attr_of(s->data, rec);
	if (!attr)
		return 0;
	t = perf_sample_time(&attr->layout, rec);
	return t == (uint64_t)-1 ? 0 : t;
}

int session_run(struct session *s, session_fn fn, void *ctx)
{
	const struct perf_event_header *rec;
	int ret, err;

	while ((ret = perf_data_next(s->data, &rec)) > 0) {
		uint64_t t, off = perf_data_last_offset(s->data);

		if (rec->type < SESSION_STATS_TYPES)
			s->stats.by_type[rec->type]++;
		if (rec->type == PERF_RECORD_FINISHED_ROUND && s->dump) {
			/* shown as it is read, before what it releases */
			s->off = off;
			err = fn(ctx, rec, NULL, NULL);
			if (err)
				return err;
		}
		if (rec->type == PERF_RECORD_FINISHED_ROUND && s->ordered) {
			err = flush(s, s->next_flush, fn, ctx);
			if (err)
				return err;
			s->next_flush = s->max_time;
			/*
			 * what is still queued came after the round before
			 * (older records were delivered): the file before it
			 * is read
			 */
			if (s->prev_round && !s->copy)
				perf_data_release_before(s->data, s->prev_round);
			s->prev_round = rec;
			continue;
		}
		if (rec->type == PERF_RECORD_FINISHED_ROUND) {
			/* unordered: everything before it was delivered */
			if (!s->copy)
				perf_data_release_before(s->data, rec);
			continue;
		}
		t = s->ordered ? record_time(s, rec) : 0;
		if (!t) {
			err = deliver(s, rec, off, fn, ctx);
			if (err)
				return err;
			continue;
		}
		if (t < s->last_time)
			s->stats.unordered++;
		if (t > s->max_time)
			s->max_time = t;
		if (s->copy) {
			void *c = malloc(rec->size);

			if (!c)
				return sbx_error(-ENOMEM, "out of memory");
			memcpy(c, rec, rec->size);
			rec = c;
		}
		err = queue_push(s, (struct queued){ t, s->seq++, off, rec });
		if (err) {
			if (s->copy)
				free((void *)rec);
			return err;
		}
	}
	/* deliver what came before an error too, then report it */
	if (ret < 0) {
		const char *m = sbx_error_msg();
		char *msg = m ? strdup(m) : NULL;

		flush(s, UINT64_MAX, fn, ctx);
		if (msg)
			sbx_error(ret, "%s", msg);
		free(msg);
		return ret;
	}
	return flush(s, UINT64_MAX, fn, ctx);
}
