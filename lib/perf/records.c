// SPDX-License-Identifier: MIT
/* Typed records: parsers and encoders (see records.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf/cursor.h"
#include "perf/perf-data.h"
#include "perf/record-type.h"
#include "perf/records.h"
#include "util/error.h"

#define ALIGN8(x)	(((x) + 7) & ~(size_t)7)

/* A cursor over the body of rec (rec stays unchanged: nothing is swapped). */
static struct cursor body(const struct perf_event_header *rec)
{
	uint8_t *p = (uint8_t *)rec;

	if (rec->size < sizeof(*rec))
		return (struct cursor){ p, p };
	return (struct cursor){ p + sizeof(*rec), p + rec->size };
}

static int malformed(const struct perf_event_header *rec)
{
	const char *name = perf_record_type_name(rec->type);

	return sbx_error(-EINVAL, "malformed %s record (%u bytes)", name ? name : "unknown",
			 rec->size);
}

#define U32(c, v)	cur_u32((c), (v), false)
#define U64(c, v)	cur_u64((c), (v), false)

int perf_cpu_map_decode(const void *data, size_t len, int **cpus, size_t *nr)
{
	struct cursor c = { (uint8_t *)data, (uint8_t *)data + len };
	uint16_t type, n, long_size, start, end;
	const uint8_t *p;
	size_t k = 0, bits;
	int *v;

	*cpus = NULL;
	*nr = 0;
	if (cur_u16(&c, &type, false))
		return -EINVAL;
	if (type == 0) {		/* a list: u16 nr, u16 cpu[nr] (0xffff: any) */
		if (cur_u16(&c, &n, false) || (size_t)(c.end - c.p) < 2u * n)
			return -EINVAL;
		if (!(v = malloc((n + 1) * sizeof(*v))))
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			uint16_t cpu = 0;

			cur_u16(&c, &cpu, false);
			v[k++] = cpu == 0xffff ? -1 : cpu;
		}
	} else if (type == 1) {
		/* a mask: u16 nr, u16 long_size, then nr longs (8-byte ones after 4 of pad) */
		if (cur_u16(&c, &n, false) || cur_u16(&c, &long_size, false) ||
		    (long_size != 4 && long_size != 8) || (long_size == 8 && !cur_take(&c, 4)) ||
		    !(p = cur_take(&c, (size_t)n * long_size)))
			return -EINVAL;
		bits = (size_t)n * long_size * 8;
		if (!(v = malloc((bits + 1) * sizeof(*v))))
			return -ENOMEM;
		for (size_t b = 0; b < bits; b++)
			if (p[b / 8] & (1u << (b % 8)))
				v[k++] = (int)b;
	} else if (type == 2) {		/* a range: u8 any_cpu, u8 pad, u16 start, u16 end */
		if (!(p = cur_take(&c, 2)) || cur_u16(&c, &start, false) ||
		    cur_u16(&c, &end, false) || end < start)
			return -EINVAL;
		if (!(v = malloc(((size_t)end - start + 2) * sizeof(*v))))
			return -ENOMEM;
		if (p[0])
			v[k++] = -1;
		for (unsigned cpu = start; cpu <= end; cpu++)
			v[k++] = (int)cpu;
	} else {
		return -EINVAL;
	}
	*cpus = v;
	*nr = k;
	return 0;
}

int perf_rec_parse_mmap(const struct perf_event_header *rec, struct perf_rec_mmap *m)
{
	struct cursor c = body(rec);

	memset(m, 0, sizeof(*m));
	m->misc = rec->misc;
	m->mmap2 = rec->type == PERF_RECORD_MMAP2;
	if (U32(&c, &m->pid) || U32(&c, &m->tid) || U64(&c, &m->start) || U64(&c, &m->len) ||
	    U64(&c, &m->pgoff))
		return malformed(rec);
	if (m->mmap2) {
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t *p = cur_take(&c, 24);

			if (!p)
				return malformed(rec);
			/* u8 size, u8 and u16 reserved, build_id[20] */
			m->build_id_size = p[0] <= PERF_REC_BUILD_ID_MAX ? p[0]
									 : PERF_REC_BUILD_ID_MAX;
			memcpy(m->build_id, p + 4, PERF_REC_BUILD_ID_MAX);
		} else if (U32(&c, &m->maj) || U32(&c, &m->min) || U64(&c, &m->ino) ||
			   U64(&c, &m->ino_generation)) {
			return malformed(rec);
		}
		if (U32(&c, &m->prot) || U32(&c, &m->flags))
			return malformed(rec);
	}
	m->filename = cur_string(&c);
	return m->filename ? 0 : malformed(rec);
}

bool perf_rec_mmap_is_exec(const struct perf_rec_mmap *m)
{
	if (m->mmap2)
		return m->prot & PROT_EXEC;
	return !(m->misc & PERF_RECORD_MISC_MMAP_DATA);
}

int perf_rec_parse_comm(const struct perf_event_header *rec, struct perf_rec_comm *out)
{
	struct cursor c = body(rec);

	memset(out, 0, sizeof(*out));
	out->misc = rec->misc;
	if (U32(&c, &out->pid) || U32(&c, &out->tid) || !(out->comm = cur_string(&c)))
		return malformed(rec);
	return 0;
}

int perf_rec_parse_task(const struct perf_event_header *rec, struct perf_rec_task *t)
{
	struct cursor c = body(rec);

	if (U32(&c, &t->pid) || U32(&c, &t->ppid) || U32(&c, &t->tid) || U32(&c, &t->ptid) ||
	    U64(&c, &t->time))
		return malformed(rec);
	return 0;
}

int perf_rec_parse_lost(const struct perf_event_header *rec, struct perf_rec_lost *out)
{
	struct cursor c = body(rec);

	if (U64(&c, &out->id) || U64(&c, &out->lost))
		return malformed(rec);
	return 0;
}

int perf_rec_parse_lost_samples(const struct perf_event_header *rec,
				struct perf_rec_lost_samples *out)
{
	struct cursor c = body(rec);

	return U64(&c, &out->lost) ? malformed(rec) : 0;
}

int perf_rec_parse_throttle(const struct perf_event_header *rec, struct perf_rec_throttle *out)
{
	struct cursor c = body(rec);

	if (U64(&c, &out->time) || U64(&c, &out->id) || U64(&c, &out->stream_id))
		return malformed(rec);
	return 0;
}

int perf_rec_parse_switch(const struct perf_event_header *rec, struct perf_rec_switch *out)
{
	struct cursor c = body(rec);

	memset(out, 0, sizeof(*out));
	out->out = rec->misc & PERF_RECORD_MISC_SWITCH_OUT;
	out->preempt = rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	out->cpu_wide = rec->type == PERF_RECORD_SWITCH_CPU_WIDE;
	if (out->cpu_wide && (U32(&c, &out->next_prev_pid) || U32(&c, &out->next_prev_tid)))
		return malformed(rec);
	return 0;
}

int perf_rec_parse_read(const struct perf_event_header *rec, struct perf_rec_read *out)
{
	struct cursor c = body(rec);
	uint64_t *v[] = { &out->value, &out->time_enabled, &out->time_running, &out->id,
			  &out->lost };

	memset(out, 0, sizeof(*out));
	if (U32(&c, &out->pid) || U32(&c, &out->tid))
		return malformed(rec);
	while (out->nr < 5 && !U64(&c, v[out->nr]))
		out->nr++;
	return 0;
}

int perf_rec_parse_stat(const struct perf_event_header *rec, struct perf_rec_stat *out)
{
	struct cursor c = body(rec);
	uint32_t cpu;

	if (U64(&c, &out->id) || U32(&c, &cpu) || U32(&c, &out->thread) ||
	    U64(&c, &out->val) || U64(&c, &out->ena) || U64(&c, &out->run))
		return malformed(rec);
	out->cpu = (int32_t)cpu;
	return 0;
}

int perf_rec_parse_stat_round(const struct perf_event_header *rec,
			      struct perf_rec_stat_round *out)
{
	struct cursor c = body(rec);

	return U64(&c, &out->type) || U64(&c, &out->time) ? malformed(rec) : 0;
}

int perf_rec_parse_stat_config(const struct perf_event_header *rec,
			       struct perf_rec_stat_config *out)
{
	struct cursor c = body(rec);
	uint64_t nr, tag, val;

	memset(out, 0, sizeof(*out));
	if (U64(&c, &nr) || nr > (size_t)(c.end - c.p) / 16)
		return malformed(rec);
	for (uint64_t i = 0; i < nr && !U64(&c, &tag) && !U64(&c, &val); i++) {
		/* perf's PERF_STAT_CONFIG_TERM__AGGR_MODE, __INTERVAL, __SCALE */
		if (tag == 0)
			out->aggr_mode = val;
		else if (tag == 1)
			out->interval = val;
		else if (tag == 2)
			out->scale = val;
	}
	return 0;
}

int perf_rec_parse_thread_map(const struct perf_event_header *rec,
			      struct perf_rec_thread_map *out)
{
	struct cursor c = body(rec);

	if (U64(&c, &out->nr) || out->nr > (size_t)(c.end - c.p) / 24)
		return malformed(rec);
	out->entries = c.p;
	return 0;
}

int32_t perf_rec_thread_map_pid(const struct perf_rec_thread_map *m, uint64_t i)
{
	uint64_t pid;

	memcpy(&pid, m->entries + 24 * i, 8);
	return (int32_t)pid;
}

int perf_rec_parse_ksymbol(const struct perf_event_header *rec, struct perf_rec_ksymbol *out)
{
	struct cursor c = body(rec);
	uint32_t type_flags;

	if (U64(&c, &out->addr) || U32(&c, &out->len) || U32(&c, &type_flags))
		return malformed(rec);
	/* u16 ksym_type, u16 flags, in memory order */
	memcpy(&out->ksym_type, c.p - 4, 2);
	memcpy(&out->flags, c.p - 2, 2);
	out->name = cur_string(&c);
	return out->name ? 0 : malformed(rec);
}

int perf_rec_parse_time_conv(const struct perf_event_header *rec,
			     struct perf_rec_time_conv *out)
{
	struct cursor c = body(rec);
	uint8_t *caps;

	memset(out, 0, sizeof(*out));
	if (U64(&c, &out->time_shift) || U64(&c, &out->time_mult) || U64(&c, &out->time_zero))
		return malformed(rec);
	if ((size_t)(c.end - c.p) < 24)
		return 0;	/* perf before 5.10: three fields */
	U64(&c, &out->time_cycles);
	U64(&c, &out->time_mask);
	caps = cur_take(&c, 8);
	out->cap_user_time_zero = caps[0];
	out->cap_user_time_short = caps[1];
	out->ext = true;
	return 0;
}

size_t perf_rec_parse_build_id(const void *p, size_t avail, bool swap,
			       struct perf_rec_build_id *out)
{
	const uint8_t *b = p;
	struct perf_event_header h;
	const char *name;
	uint32_t pid;

	/* header (8), pid (4), build_id[20] + size (1) + 3 of padding */
	if (avail < 36)
		return 0;
	memcpy(&h, b, sizeof(h));
	memcpy(&pid, b + 8, 4);
	if (swap) {
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
		pid = bswap_32(pid);
	}
	if (h.size < 36 || h.size > avail)
		return 0;
	name = (const char *)b + 36;
	if (!memchr(name, 0, h.size - 36))
		return 0;
	memset(out, 0, sizeof(*out));
	out->misc = h.misc;
	out->pid = (int32_t)pid;
	memcpy(out->build_id, b + 12, PERF_REC_BUILD_ID_MAX);
	/* without MISC_BUILD_ID_SIZE (perf before 5.12) the id is a 20-byte sha1 */
	out->size = (h.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) && b[32] <= PERF_REC_BUILD_ID_MAX ?
		    b[32] : PERF_REC_BUILD_ID_MAX;
	out->filename = name;
	return h.size;
}

/* ------------------------------------------------------------ encoders */

struct enc {
	uint8_t *buf;
	size_t cap, len;
	bool full;
};

static void put(struct enc *e, const void *p, size_t n)
{
	if (e->full || n > e->cap - e->len) {
		e->full = true;
		return;
	}
	memcpy(e->buf + e->len, p, n);
	e->len += n;
}

static void put_u32(struct enc *e, uint32_t v)
{
	put(e, &v, 4);
}

static void put_u64(struct enc *e, uint64_t v)
{
	put(e, &v, 8);
}

static void put_string(struct enc *e, const char *s)
{
	static const uint8_t zeros[8];
	size_t n = strlen(s) + 1;

	put(e, s, n);
	put(e, zeros, ALIGN8(n) - n);
}

static void begin(struct enc *e, void *buf, size_t cap)
{
	e->buf = buf;
	e->cap = cap < PERF_REC_MAX_SIZE ? cap : PERF_REC_MAX_SIZE;
	e->len = 0;
	e->full = false;
	put(e, &(struct perf_event_header){ 0 }, sizeof(struct perf_event_header));
}

/* Append the trailer and fill in the header: the record's size, or -ENOSPC. */
static int finish(struct enc *e, uint32_t type, uint16_t misc,
		  const struct perf_sample_layout *l, const struct perf_sample *id)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	if (l && l->sample_id_all && !e->full) {
		if (l->id_size > e->cap - e->len)
			e->full = true;
		else
			e->len += perf_sample_id_encode(l, id, e->buf + e->len);
	}
	if (e->full)
		return -ENOSPC;
	h.size = (uint16_t)e->len;
	memcpy(e->buf, &h, sizeof(h));
	return (int)e->len;
}

int perf_rec_encode_mmap(void *buf, size_t cap, const struct perf_rec_mmap *m,
			 const struct perf_sample_layout *l, const struct perf_sample *id)
{
	uint16_t misc = m->misc & ~PERF_RECORD_MISC_MMAP_BUILD_ID;
	struct enc e;

	begin(&e, buf, cap);
	put_u32(&e, m->pid);
	put_u32(&e, m->tid);
	put_u64(&e, m->start);
	put_u64(&e, m->len);
	put_u64(&e, m->pgoff);
	if (m->mmap2) {
		if (m->build_id_size) {
			uint8_t id_part[24] = { 0 };

			id_part[0] = m->build_id_size <= PERF_REC_BUILD_ID_MAX ? m->build_id_size
									     : PERF_REC_BUILD_ID_MAX;
			memcpy(id_part + 4, m->build_id, id_part[0]);
			put(&e, id_part, sizeof(id_part));
			misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		} else {
			put_u32(&e, m->maj);
			put_u32(&e, m->min);
			put_u64(&e, m->ino);
			put_u64(&e, m->ino_generation);
		}
		put_u32(&e, m->prot);
		put_u32(&e, m->flags);
	}
	put_string(&e, m->filename);
	return finish(&e, m->mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP, misc, l, id);
}

int perf_rec_encode_comm(void *buf, size_t cap, const struct perf_rec_comm *c,
			 const struct perf_sample_layout *l, const struct perf_sample *id)
{
	struct enc e;

	begin(&e, buf, cap);
	put_u32(&e, c->pid);
	put_u32(&e, c->tid);
	put_string(&e, c->comm);
	return finish(&e, PERF_RECORD_COMM, c->misc, l, id);
}

int perf_rec_encode_task(void *buf, size_t cap, uint32_t type, const struct perf_rec_task *t,
			 const struct perf_sample_layout *l, const struct perf_sample *id)
{
	struct enc e;

	begin(&e, buf, cap);
	put_u32(&e, t->pid);
	put_u32(&e, t->ppid);
	put_u32(&e, t->tid);
	put_u32(&e, t->ptid);
	put_u64(&e, t->time);
	return finish(&e, type, 0, l, id);
}

int perf_rec_encode_lost_samples(void *buf, size_t cap, const struct perf_rec_lost_samples *ls,
				 const struct perf_sample_layout *l, const struct perf_sample *id)
{
	struct enc e;

	begin(&e, buf, cap);
	put_u64(&e, ls->lost);
	return finish(&e, PERF_RECORD_LOST_SAMPLES, 0, l, id);
}

int perf_rec_encode_build_id(void *buf, size_t cap, const struct perf_rec_build_id *b)
{
	uint8_t id[24] = { 0 };
	struct enc e;

	begin(&e, buf, cap);
	put_u32(&e, (uint32_t)b->pid);
	memcpy(id, b->build_id, b->size <= PERF_REC_BUILD_ID_MAX ? b->size : PERF_REC_BUILD_ID_MAX);
	id[20] = b->size <= PERF_REC_BUILD_ID_MAX ? b->size : PERF_REC_BUILD_ID_MAX;
	put(&e, id, sizeof(id));
	put_string(&e, b->filename);
	return finish(&e, 0, b->misc | PERF_RECORD_MISC_BUILD_ID_SIZE, NULL, NULL);
}
