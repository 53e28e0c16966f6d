// SPDX-License-Identifier: MIT
/*
 * SAMPLE records and sample_id_all trailers (see sample.h). The field order
 * is the kernel's (include/uapi/linux/perf_event.h, PERF_RECORD_SAMPLE);
 * every length is checked against what is left of the record.
 */
#include <errno.h>
#include <string.h>

#include "perf/cursor.h"
#include "perf/record-type.h"
#include "perf/sample.h"
#include "util/error.h"

/* The sample_type bits whose fields are one u64 each */
#define FIXED_FIELDS	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |		\
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |			\
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |		\
			 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |	\
			 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |	\
			 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

void perf_sample_layout_init(struct perf_sample_layout *l, const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;

	memset(l, 0, sizeof(*l));
	l->sample_type = t;
	l->read_format = attr->read_format;
	l->branch_sample_type = attr->branch_sample_type;
	l->sample_regs_user = attr->sample_regs_user;
	l->sample_regs_intr = attr->sample_regs_intr;
	l->sample_id_all = attr->sample_id_all;
	l->default_period = attr->freq || !attr->sample_period ? 1 : attr->sample_period;
	l->id_pos = -1;
	l->is_pos = -1;
	if (t & PERF_SAMPLE_IDENTIFIER) {
		l->id_pos = 0;
		l->is_pos = 1;
	} else if (t & PERF_SAMPLE_ID) {
		l->id_pos = !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
			    !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR);
		l->is_pos = 1 + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_STREAM_ID);
	}
	if (attr->sample_id_all)
		l->id_size = 8 * __builtin_popcountll(t & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
							   PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
							   PERF_SAMPLE_CPU |
							   PERF_SAMPLE_IDENTIFIER));
	if (!(t & ~FIXED_FIELDS))
		l->fixed_size = 8 * __builtin_popcountll(t & ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT) +
				(t & PERF_SAMPLE_WEIGHT_STRUCT && !(t & PERF_SAMPLE_WEIGHT) ? 8 : 0);
}

/*
 * A SAMPLE body of fixed fields only (IP-only samples: what most
 * recordings are), at least l->fixed_size bytes: read without the cursor's
 * checks, in sample_walk()'s order.
 */
static void fixed_walk(const struct perf_sample_layout *l, const uint8_t *p, struct perf_sample *s)
{
	uint64_t t = l->sample_type;
	uint32_t u[2];

#define TAKE(bit, dst) do { if (t & (bit)) { memcpy((dst), p, 8); p += 8; } } while (0)
	TAKE(PERF_SAMPLE_IDENTIFIER, &s->id);
	TAKE(PERF_SAMPLE_IP, &s->ip);
	if (t & PERF_SAMPLE_TID) {
		memcpy(u, p, 8);
		s->pid = u[0];
		s->tid = u[1];
		p += 8;
	}
	TAKE(PERF_SAMPLE_TIME, &s->time);
	TAKE(PERF_SAMPLE_ADDR, &s->addr);
	TAKE(PERF_SAMPLE_ID, &s->id);
	TAKE(PERF_SAMPLE_STREAM_ID, &s->stream_id);
	if (t & PERF_SAMPLE_CPU) {
		memcpy(u, p, 8);
		s->cpu = u[0];
		p += 8;
	}
	TAKE(PERF_SAMPLE_PERIOD, &s->period);
	TAKE(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, &s->weight);
	TAKE(PERF_SAMPLE_DATA_SRC, &s->data_src);
	TAKE(PERF_SAMPLE_TRANSACTION, &s->transaction);
	TAKE(PERF_SAMPLE_PHYS_ADDR, &s->phys_addr);
	TAKE(PERF_SAMPLE_CGROUP, &s->cgroup);
	TAKE(PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size);
	TAKE(PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size);
#undef TAKE
}


static int read_format_size(uint64_t rf, struct cursor *c, bool swap, size_t *size)
{
	uint8_t *start = c->p;
	uint64_t nr = 1, v;
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & (1ULL << 4) /* LOST */);
	const uint64_t *vals;

	/* group: nr, enabled, running, {value, id, lost}[nr]; else value, enabled, running, id, lost */
	if ((rf & PERF_FORMAT_GROUP) && cur_u64(c, &nr, swap))
		return -1;
	if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && cur_u64(c, &v, swap))
		return -1;
	if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && cur_u64(c, &v, swap))
		return -1;
	if (nr > (size_t)(c->end - c->p) / 8 / per || cur_u64s(c, nr * per, &vals, swap))
		return -1;
	*size = c->p - start;
	return 0;
}

/*
 * Walk a SAMPLE body with the layout of a, filling s; with swap, each field
 * is swapped in place before it is read (used once per record).
 */
static int sample_walk(const struct perf_sample_layout *l, uint8_t *body, uint8_t *end,
		       struct perf_sample *s, bool swap)
{
	struct cursor c = { body, end };
	uint64_t t = l->sample_type;
	const uint64_t *v;

#define NEED(x) do { if (x) return -1; } while (0)
	if (t & PERF_SAMPLE_IDENTIFIER)
		NEED(cur_u64(&c, &s->id, swap));
	if (t & PERF_SAMPLE_IP)
		NEED(cur_u64(&c, &s->ip, swap));
	if (t & PERF_SAMPLE_TID)
		NEED(cur_u32x2(&c, &s->pid, &s->tid, swap));
	if (t & PERF_SAMPLE_TIME)
		NEED(cur_u64(&c, &s->time, swap));
	if (t & PERF_SAMPLE_ADDR)
		NEED(cur_u64(&c, &s->addr, swap));
	if (t & PERF_SAMPLE_ID)
		NEED(cur_u64(&c, &s->id, swap));
	if (t & PERF_SAMPLE_STREAM_ID)
		NEED(cur_u64(&c, &s->stream_id, swap));
	if (t & PERF_SAMPLE_CPU) {
		uint32_t res;

		NEED(cur_u32x2(&c, &s->cpu, &res, swap));
	}
	if (t & PERF_SAMPLE_PERIOD)
		NEED(cur_u64(&c, &s->period, swap));
	if (t & PERF_SAMPLE_READ) {
		s->read = c.p;
		NEED(read_format_size(l->read_format, &c, swap, &s->read_size));
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		NEED(cur_u64(&c, &s->callchain_nr, swap));
		NEED(cur_u64s(&c, s->callchain_nr, &s->callchain, swap));
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t *p = cur_take(&c, 4);

		NEED(!p);
		if (swap)
			*p = bswap_32(*p);
		s->raw_size = *p;
		s->raw = c.p;
		NEED(!cur_take(&c, s->raw_size));
		/* the kernel pads u32 size + data to 8 bytes */
		if ((c.p - body) % 8)
			c.p += 8 - (c.p - body) % 8;
		NEED(c.p > c.end);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		NEED(cur_u64(&c, &s->branch_nr, swap));
		if (l->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			NEED(cur_u64(&c, &s->branch_hw_idx, swap));
		NEED(s->branch_nr > (uint64_t)(c.end - c.p) / 24);
		NEED(cur_u64s(&c, s->branch_nr * 3, &v, swap));
		s->branches = (const void *)v;
#ifdef PERF_SAMPLE_BRANCH_COUNTERS
		if (l->branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS) {
			NEED(cur_u64s(&c, s->branch_nr, &s->branch_counters, swap));
		}
#endif
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		NEED(cur_u64(&c, &s->regs_user_abi, swap));
		if (s->regs_user_abi)
			NEED(cur_u64s(&c, __builtin_popcountll(l->sample_regs_user), &s->regs_user, swap));
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_user_offset = (uint32_t)(c.p - body) + sizeof(struct perf_event_header);
		NEED(cur_u64(&c, &s->stack_user_size, swap));
		if (s->stack_user_size) {
			s->stack_user = c.p;
			NEED(!cur_take(&c, s->stack_user_size));
			NEED(cur_u64(&c, &s->stack_user_dyn_size, swap));
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		NEED(cur_u64(&c, &s->weight, swap));
	if (t & PERF_SAMPLE_DATA_SRC)
		NEED(cur_u64(&c, &s->data_src, swap));
	if (t & PERF_SAMPLE_TRANSACTION)
		NEED(cur_u64(&c, &s->transaction, swap));
	if (t & PERF_SAMPLE_REGS_INTR) {
		NEED(cur_u64(&c, &s->regs_intr_abi, swap));
		if (s->regs_intr_abi)
			NEED(cur_u64s(&c, __builtin_popcountll(l->sample_regs_intr), &s->regs_intr, swap));
	}
	if (t & PERF_SAMPLE_PHYS_ADDR)
		NEED(cur_u64(&c, &s->phys_addr, swap));
	if (t & PERF_SAMPLE_CGROUP)
		NEED(cur_u64(&c, &s->cgroup, swap));
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		NEED(cur_u64(&c, &s->data_page_size, swap));
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		NEED(cur_u64(&c, &s->code_page_size, swap));
	if (t & PERF_SAMPLE_AUX) {
		NEED(cur_u64(&c, &s->aux_size, swap));
		s->aux = c.p;
		NEED(!cur_take(&c, s->aux_size));
	}
#undef NEED
	return 0;
}

/* The sample_id_all trailer at the end of a non-sample record. */
static int trailer_walk(const struct perf_sample_layout *l, uint8_t *rec_end, size_t avail,
			struct perf_sample *s, bool swap)
{
	uint64_t t = l->sample_type;
	struct cursor c;
	uint32_t res;

	if (!l->sample_id_all || !l->id_size)
		return 0;
	/* the trailer is u64-aligned in any record that is not corrupt */
	if (l->id_size > avail || (avail + sizeof(struct perf_event_header)) % 8)
		return -1;
	c.p = rec_end - l->id_size;
	c.end = rec_end;
	if (t & PERF_SAMPLE_TID)
		cur_u32x2(&c, &s->pid, &s->tid, swap);
	if (t & PERF_SAMPLE_TIME)
		cur_u64(&c, &s->time, swap);
	if (t & PERF_SAMPLE_ID)
		cur_u64(&c, &s->id, swap);
	if (t & PERF_SAMPLE_STREAM_ID)
		cur_u64(&c, &s->stream_id, swap);
	if (t & PERF_SAMPLE_CPU)
		cur_u32x2(&c, &s->cpu, &res, swap);
	if (t & PERF_SAMPLE_IDENTIFIER)
		cur_u64(&c, &s->id, swap);
	return 0;
}

/*
 * libc's memset, called rather than inlined: GCC inlines a memset of this
 * size as rep stosq, whose start-up cost here made a fixed-field parse
 * 28 ns where libc's vector stores make it 12 (a record's parse is most of
 * reading an IP-only file).
 */
static void *(*const volatile clear)(void *, int, size_t) = memset;

static void sample_init(const struct perf_sample_layout *l, const struct perf_event_header *rec,
			struct perf_sample *s)
{
	clear(s, 0, sizeof(*s));
	s->sample_type = l->sample_type;
	s->misc = rec->misc;
	s->cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	s->pid = s->tid = s->cpu = (uint32_t)-1;
	s->time = (uint64_t)-1;
	s->branch_hw_idx = (uint64_t)-1;
	s->period = l->default_period;
}

int perf_sample_parse(const struct perf_sample_layout *l, const struct perf_event_header *rec,
		      struct perf_sample *s)
{
	uint8_t *p = (uint8_t *)rec;

	sample_init(l, rec, s);
	if (rec->size < sizeof(*rec))
		return sbx_error(-EINVAL, "record of %u bytes", rec->size);
	if (rec->type != PERF_RECORD_SAMPLE) {
		if (trailer_walk(l, p + rec->size, rec->size - sizeof(*rec), s, false))
			return sbx_error(-EINVAL, "%s record of %u bytes is too short for its "
					 "sample_id trailer", perf_record_type_name(rec->type),
					 rec->size);
		return 0;
	}
	if (l->fixed_size && rec->size - sizeof(*rec) >= l->fixed_size) {
		fixed_walk(l, p + sizeof(*rec), s);
		return 0;
	}
	if (sample_walk(l, p + sizeof(*rec), p + rec->size, s, false))
		return sbx_error(-EINVAL, "cannot parse sample: a field runs past its %u bytes",
				 rec->size);
	return 0;
}

uint64_t perf_sample_time(const struct perf_sample_layout *l,
			  const struct perf_event_header *rec)
{
	uint64_t t = l->sample_type, v;
	size_t off;

	if (!(t & PERF_SAMPLE_TIME))
		return (uint64_t)-1;
	if (rec->type == PERF_RECORD_SAMPLE) {
		off = sizeof(*rec) + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) + !!(t & PERF_SAMPLE_IP) +
					  !!(t & PERF_SAMPLE_TID));
	} else {
		if (!l->sample_id_all || l->id_size + sizeof(*rec) > rec->size)
			return (uint64_t)-1;
		off = rec->size - l->id_size + 8 * !!(t & PERF_SAMPLE_TID);
	}
	if (off + 8 > rec->size)
		return (uint64_t)-1;
	memcpy(&v, (const char *)rec + off, 8);
	return v;
}


int perf_sample_swap(const struct perf_sample_layout *l, struct perf_event_header *rec,
		     size_t fixed)
{
	uint8_t *p = (uint8_t *)rec;
	struct perf_sample s;

	sample_init(l, rec, &s);
	if (rec->type == PERF_RECORD_SAMPLE)
		return sample_walk(l, p + sizeof(*rec), p + rec->size, &s, true);
	if (fixed > rec->size - sizeof(*rec))
		return -1;
	return trailer_walk(l, p + rec->size, rec->size - sizeof(*rec) - fixed, &s, true);
}

size_t perf_sample_id_encode(const struct perf_sample_layout *l, const struct perf_sample *s,
			     void *buf)
{
	uint64_t t = l->sample_type;
	uint8_t *p = buf;
	uint32_t u[2];

	if (!l->sample_id_all)
		return 0;
	/* the kernel's order: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER */
	if (t & PERF_SAMPLE_TID) {
		u[0] = s->pid;
		u[1] = s->tid;
		memcpy(p, u, 8);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		memcpy(p, &s->time, 8);
		p += 8;
	}
	if (t & PERF_SAMPLE_ID) {
		memcpy(p, &s->id, 8);
		p += 8;
	}
	if (t & PERF_SAMPLE_STREAM_ID) {
		memcpy(p, &s->stream_id, 8);
		p += 8;
	}
	if (t & PERF_SAMPLE_CPU) {
		u[0] = s->cpu;
		u[1] = 0;
		memcpy(p, u, 8);
		p += 8;
	}
	if (t & PERF_SAMPLE_IDENTIFIER) {
		memcpy(p, &s->id, 8);
		p += 8;
	}
	return (size_t)(p - (uint8_t *)buf);
}
