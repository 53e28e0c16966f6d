// SPDX-License-Identifier: MIT
/*
 * perf.data reader (the format: see perf-data.h).
 *
 * File mode: the file is mapped once and records are handed out in place.
 * A byte-swapped file is mapped copy-on-write and each record is swapped in
 * place when it is first handed out, so pointers stay valid until close.
 * Pipe mode from a stream reads one record at a time into a buffer.
 * perf record -z data (COMPRESSED records) goes through one zstd stream
 * per file, as perf writes it; the records decompressed from it are handed
 * out from a buffer that the next COMPRESSED record refills.
 * Every length read from the input is checked with the cursor helpers.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "util/array.h"
#include "util/error.h"
#include "perf/cursor.h"
#include "perf/perf-data.h"
#include "perf/record-type.h"
#include "perf/sample.h"

struct perf_data {
	/* input */
	int fd;			/* -1 for memory input */
	bool stream;		/* read(2) from fd, not mapped */
	bool pipe;		/* pipe-mode format */
	bool swap;
	uint8_t *map;		/* whole input when not a stream */
	size_t map_len;
	bool mapped;		/* map came from mmap() */
	bool map_owned;		/* map is a malloc'ed copy */
	/* position in the data */
	uint64_t pos, data_end;
	uint64_t data_start;	/* file mode: where the data section starts */
	uint64_t released;	/* pages before this offset were given back (madvise) */
	uint64_t data_claimed;	/* a data section cut short: the size the header gives, else 0 */
	uint64_t populated;	/* pages before this offset are mapped in (or 0: do not) */
	uint64_t broken_feat;	/* features whose section runs past the end (bit f) */
	struct perf_file_header fh;	/* file mode: the header as read (native order) */
	uint8_t *rbuf;		/* stream: the current record */
	size_t rbuf_size;
	bool eof;
	/* events */
	struct perf_data_attr *attrs;
	size_t nr_attrs, cap_attrs;
	struct id_entry {
		uint64_t id;
		size_t attr;
	} *id_index;
	size_t nr_ids, cap_ids;
	bool id_index_sorted;
	/* features: in place (file mode) or copies (pipe mode from a stream) */
	struct {
		const uint8_t *buf;
		size_t len;
		uint8_t *copy;
	} feat[HEADER_LAST_FEATURE];
	uint8_t *tracing;	/* pipe mode tracing data (copy) */
	const uint8_t *tracing_ref;
	size_t tracing_len;
	uint64_t nr_unknown;
	uint64_t nr_compressed;
	uint64_t nr_straddled;	/* records whose bytes came from two or more COMPRESSED records */
	bool partial;		/* dbuf ends inside a record that the next COMPRESSED one goes on with */
	/*
	 * perf record -z: one zstd stream runs through every COMPRESSED
	 * record; [dpos, dlen) of dbuf are decompressed bytes not handed out
	 * yet (a record may straddle two COMPRESSED records: its head waits
	 * there for the next one).
	 */
	ZSTD_DStream *zstd;
	size_t zstd_cap;	/* most bytes one COMPRESSED record may give */
	uint8_t *dbuf;
	size_t dbuf_cap, dpos, dlen;
	uint64_t comp_off;	/* offset of the last COMPRESSED record, for messages */
	uint64_t last_off;	/* perf's offset of the record handed out last */
	struct copy {			/* aligned copies of misaligned file records */
		struct copy *next;
		uint64_t data[];
	} *copies;
};

/* ------------------------------------------------------- bounds helpers */

/* In place; p need not be aligned (feature sections and ids are not always). */
static void swap_u32s(void *p, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		uint32_t v;

		memcpy(&v, (char *)p + 4 * i, 4);
		v = bswap_32(v);
		memcpy((char *)p + 4 * i, &v, 4);
	}
}

static void swap_u64s(void *p, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		uint64_t v;

		memcpy(&v, (char *)p + 8 * i, 8);
		v = bswap_64(v);
		memcpy((char *)p + 8 * i, &v, 8);
	}
}

/* A u32 at p, aligned or not, in native order. */
static uint32_t rd32(const void *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? bswap_32(v) : v;
}

/* ------------------------------------------------------------- attrs */

/* perf_event_attr of the other byte order: fields swapped, bitfield bits reversed per byte */
void perf_attr_swap(uint8_t *a, size_t size)
{
	size_t n;

	if (size < 8)
		return;
	swap_u32s(a, 2);
	n = size < 40 ? size : 40;
	swap_u64s(a + 8, (n - 8) / 8);
	if (size >= 48)
		for (int i = 40; i < 48; i++) {
			uint8_t b = a[i], r = 0;

			for (int k = 0; k < 8; k++)
				if (b & (1 << k))
					r |= 0x80 >> k;
			a[i] = r;
		}
	if (size >= 56)
		swap_u32s(a + 48, 2);
	if (size >= 80)
		swap_u64s(a + 56, 3);
	if (size >= 88)
		swap_u64s(a + 80, 1);
	if (size >= 96)
		swap_u32s(a + 88, 2);
	if (size >= 104)
		swap_u64s(a + 96, 1);
	if (size >= 112) {
		swap_u32s(a + 104, 1);
		uint16_t v;

		memcpy(&v, a + 108, 2);
		v = bswap_16(v);
		memcpy(a + 108, &v, 2);
	}
	if (size >= 120)
		swap_u32s(a + 112, 2);
	for (size_t off = 120; off + 8 <= size; off += 8)
		swap_u64s(a + off, 1);
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

static char *default_name(const struct perf_event_attr *a)
{
	char *s = NULL;

	if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof(hw_names) / sizeof(*hw_names))
		return strdup(hw_names[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof(sw_names) / sizeof(*sw_names))
		return strdup(sw_names[a->config]);
	if (a->type == PERF_TYPE_RAW)
		return asprintf(&s, "r%llx", (unsigned long long)a->config) < 0 ? NULL : s;
	return asprintf(&s, "%u:%llx", a->type, (unsigned long long)a->config) < 0 ? NULL : s;
}

/* Add an attr from size bytes at p (native order by now) with ids. */
static int add_attr(struct perf_data *d, const uint8_t *p, size_t size,
		    const uint64_t *ids, size_t nr_ids)
{
	struct perf_data_attr *a;

	if (array_reserve(&d->attrs, &d->cap_attrs, d->nr_attrs + 1, sizeof(*d->attrs)))
		return sbx_error(-ENOMEM, "out of memory");
	a = &d->attrs[d->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, p, size < sizeof(a->attr) ? size : sizeof(a->attr));
	a->attr.size = sizeof(a->attr);
	if (nr_ids) {
		struct id_entry *e;

		a->ids = malloc(nr_ids * 8);
		if (!a->ids || array_reserve(&d->id_index, &d->cap_ids, d->nr_ids + nr_ids,
					     sizeof(*d->id_index))) {
			free(a->ids);
			return sbx_error(-ENOMEM, "out of memory");
		}
		memcpy(a->ids, ids, nr_ids * 8);
		a->nr_ids = nr_ids;
		e = d->id_index;
		for (size_t i = 0; i < nr_ids; i++) {
			uint64_t id;

			memcpy(&id, (const char *)ids + 8 * i, 8);
			e[d->nr_ids++] = (struct id_entry){ id, d->nr_attrs };
		}
		d->id_index_sorted = false;
	}
	perf_sample_layout_init(&a->layout, &a->attr);
	a->name = default_name(&a->attr);
	d->nr_attrs++;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void sort_id_index(struct perf_data *d)
{
	if (!d->id_index_sorted) {
		if (d->nr_ids)
			qsort(d->id_index, d->nr_ids, sizeof(*d->id_index), cmp_id);
		d->id_index_sorted = true;
	}
}

static const struct perf_data_attr *attr_by_id(const struct perf_data *cd, uint64_t id)
{
	struct perf_data *d = (struct perf_data *)cd;
	size_t lo = 0, hi;

	if (!d->nr_attrs)
		return NULL;
	if (d->nr_attrs == 1 || id == 0)
		return &d->attrs[0];
	/* pipe mode: events come with the records (file mode sorted it at open) */
	sort_id_index(d);
	hi = d->nr_ids;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->id_index[mid].id == id)
			return &d->attrs[d->id_index[mid].attr];
		if (d->id_index[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The id of a record when it can be found without knowing its attr. */
static bool record_id(const struct perf_data *d, const uint8_t *rec, uint64_t *id)
{
	const struct perf_event_header *h = (const void *)rec;
	const struct perf_data_attr *a0 = &d->attrs[0];

	if (h->type == PERF_RECORD_SAMPLE) {
		if (a0->layout.id_pos < 0 || sizeof(*h) + 8 * (a0->layout.id_pos + 1) > h->size)
			return false;
		memcpy(id, rec + sizeof(*h) + 8 * a0->layout.id_pos, 8);
		return true;
	}
	if (!a0->attr.sample_id_all || a0->layout.is_pos < 0 ||
	    sizeof(*h) + 8 * (size_t)a0->layout.is_pos > h->size)
		return false;
	memcpy(id, rec + h->size - 8 * a0->layout.is_pos, 8);
	return true;
}

const struct perf_data_attr *perf_data_attr_of(const struct perf_data *d,
					       const struct perf_event_header *rec)
{
	uint64_t id;

	if (!d->nr_attrs)
		return NULL;
	if (d->nr_attrs == 1 || !record_id(d, (const uint8_t *)rec, &id))
		return &d->attrs[0];
	return attr_by_id(d, id);
}

const struct perf_data_attr *perf_data_attr_by_id(const struct perf_data *d, uint64_t id)
{
	return attr_by_id(d, id);
}

size_t perf_data_nr_attrs(const struct perf_data *d)
{
	return d->nr_attrs;
}

const struct perf_data_attr *perf_data_attr(const struct perf_data *d, size_t i)
{
	return i < d->nr_attrs ? &d->attrs[i] : NULL;
}

size_t perf_data_attr_index(const struct perf_data *d, const struct perf_data_attr *a)
{
	return (size_t)(a - d->attrs);
}

/* ------------------------------------------------------- record swap */

/* The fixed part of a record's body (record-type.c); 0 for an unknown type */
static size_t body_fixed(uint32_t type)
{
	const struct perf_record_type *t = perf_record_type(type);

	return t ? t->fixed : 0;
}

/*
 * Swap the fixed part at b by its words ('i' u32, 'l' u64); an MMAP2 with
 * a build-id holds it where the inode's words are (bytes 32 to 55).
 */
static void swap_fixed(uint8_t *b, const struct perf_event_header *h)
{
	const struct perf_record_type *t = perf_record_type(h->type);
	size_t off = 0;

	if (!t || !t->words)
		return;
	for (const char *w = t->words; *w; w++) {
		bool keep = h->type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) &&
			    off >= 32 && off < 56;

		if (*w == 'i') {
			if (!keep)
				swap_u32s(b + off, 1);
			off += 4;
		} else {
			if (!keep)
				swap_u64s(b + off, 1);
			off += 8;
		}
	}
}

/* Swap a record of the other byte order in place. Returns 0 or -1 (malformed). */
static int swap_record(struct perf_data *d, uint8_t *rec)
{
	struct perf_event_header *h = (void *)rec;
	uint8_t *b = rec + sizeof(*h);
	size_t len = h->size - sizeof(*h);
	const struct perf_data_attr *a;
	uint64_t id;

	if (h->type >= PERF_RECORD_USER_TYPE_START) {
		switch (h->type) {
		case PERF_RECORD_HEADER_ATTR:
			if (len >= 8) {
				uint32_t size = rd32(b + 4, true);

				if (!size)
					size = PERF_ATTR_SIZE_VER0;
				if (size > len)
					return -1;
				perf_attr_swap(b, size);
				swap_u64s(b + size, (len - size) / 8);
			}
			return 0;
		case PERF_RECORD_HEADER_TRACING_DATA:
			if (len >= 4)
				swap_u32s(b, 1);
			return 0;
		case PERF_RECORD_HEADER_FEATURE:
			if (len >= 8)
				swap_u64s(b, 1);
			return 0;	/* payload stays in the writer's order */
		case PERF_RECORD_EVENT_UPDATE:
			if (len >= 16)
				swap_u64s(b, 2);
			return 0;
		case PERF_RECORD_HEADER_BUILD_ID:
			if (len >= 4)
				swap_u32s(b, 1);
			return 0;
		default:
			return 0;
		}
	}
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!d->nr_attrs)
			return -1;
		a = &d->attrs[0];
		if (d->nr_attrs > 1) {
			if (a->layout.id_pos < 0 || len < 8 * (size_t)(a->layout.id_pos + 1))
				return -1;
			memcpy(&id, b + 8 * a->layout.id_pos, 8);
			a = attr_by_id(d, bswap_64(id));
			if (!a)
				return -1;
		}
		return perf_sample_swap(&a->layout, h, 0);
	}
	/* the fixed part of known kernel records */
	if (len < body_fixed(h->type))
		return -1;
	swap_fixed(b, h);
	if (!d->nr_attrs || !d->attrs[0].attr.sample_id_all)
		return 0;
	a = &d->attrs[0];
	if (d->nr_attrs > 1) {
		if (a->layout.is_pos < 0 || len < 8 * (size_t)a->layout.is_pos)
			return -1;
		memcpy(&id, rec + h->size - 8 * a->layout.is_pos, 8);
		a = attr_by_id(d, bswap_64(id));
		if (!a)
			return -1;
	}
	return perf_sample_swap(&a->layout, h, body_fixed(h->type));
}

/* ----------------------------------------------------------- features */

static int set_feature(struct perf_data *d, uint64_t feat, const uint8_t *buf, size_t len,
		       bool copy)
{
	if (feat == 0 || feat >= HEADER_LAST_FEATURE)
		return 0;
	free(d->feat[feat].copy);
	d->feat[feat].copy = NULL;
	if (copy) {
		d->feat[feat].copy = malloc(len ? len : 1);
		if (!d->feat[feat].copy)
			return sbx_error(-ENOMEM, "out of memory");
		memcpy(d->feat[feat].copy, buf, len);
		buf = d->feat[feat].copy;
	}
	d->feat[feat].buf = buf;
	d->feat[feat].len = len;
	return 0;
}

int perf_data_feature(const struct perf_data *d, int feat, const void **buf, size_t *len)
{
	if (feat <= 0 || feat >= HEADER_LAST_FEATURE || !d->feat[feat].buf)
		return 0;
	*buf = d->feat[feat].buf;
	*len = d->feat[feat].len;
	return 1;
}

/* A perf string at c: u32 len; char[len]. New string, or NULL. */
static char *read_string(struct cursor *c, bool swap)
{
	uint8_t *lp = cur_take(c, 4);
	uint32_t len;
	char *s;

	if (!lp)
		return NULL;
	len = rd32(lp, swap);
	s = cur_take(c, len);
	if (!s)
		return NULL;
	return strndup(s, len);
}

char *perf_data_feature_string(const struct perf_data *d, int feat)
{
	const void *buf;
	size_t len;
	struct cursor c;

	if (perf_data_feature(d, feat, &buf, &len) != 1)
		return NULL;
	c.p = (uint8_t *)buf;
	c.end = c.p + len;
	return read_string(&c, d->swap);
}

const void *perf_data_tracing_data(const struct perf_data *d, size_t *len)
{
	if (d->tracing_ref) {
		*len = d->tracing_len;
		return d->tracing_ref;
	}
	if (d->feat[HEADER_TRACING_DATA].buf) {
		*len = d->feat[HEADER_TRACING_DATA].len;
		return d->feat[HEADER_TRACING_DATA].buf;
	}
	*len = 0;
	return NULL;
}

/* Names from EVENT_DESC, matched to the attrs in order (perf writes them in order). */
static void apply_event_desc(struct perf_data *d)
{
	const void *buf;
	size_t len;
	struct cursor c;
	uint32_t nr, attr_size;
	uint8_t *p;

	if (perf_data_feature(d, HEADER_EVENT_DESC, &buf, &len) != 1)
		return;
	c.p = (uint8_t *)buf;
	c.end = c.p + len;
	if (!(p = cur_take(&c, 8)))
		return;
	nr = rd32(p, d->swap);
	attr_size = rd32(p + 4, d->swap);
	for (uint32_t i = 0; i < nr && i < d->nr_attrs; i++) {
		uint8_t *np;
		uint32_t nr_ids;
		char *name;

		if (!cur_take(&c, attr_size) || !(np = cur_take(&c, 4)))
			return;
		nr_ids = rd32(np, d->swap);
		name = read_string(&c, d->swap);
		if (!name)
			return;
		if (*name) {
			free(d->attrs[i].name);
			d->attrs[i].name = name;
		} else {
			free(name);
		}
		if (nr_ids > (size_t)(c.end - c.p) / 8 || !cur_take(&c, nr_ids * 8))
			return;
	}
}

/* ----------------------------------------------------------- opening */

static int open_file_mode(struct perf_data *d)
{
	struct perf_file_header fh;
	struct perf_file_section *table;
	size_t nr_attrs, nr_feat = 0;
	uint64_t feat_off;

	if (d->map_len < 72)
		return sbx_error(-EINVAL, "truncated perf.data header");
	memset(&fh, 0, sizeof(fh));
	memcpy(&fh, d->map, d->map_len < sizeof(fh) ? d->map_len : sizeof(fh));
	if (d->swap)
		swap_u64s(&fh, sizeof(fh) / 8);
	if (fh.size != sizeof(fh) && fh.size != 72)
		return sbx_error(-EINVAL, "unsupported perf.data header size %llu",
				 (unsigned long long)fh.size);
	if (fh.size == 72)
		memset(fh.features, 0, sizeof(fh.features));
	if (fh.size > d->map_len)
		return sbx_error(-EINVAL, "truncated perf.data header");
	if (fh.attr_size == 0)
		return sbx_error(-EINVAL, "attr size field is 0");
	if (fh.attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section))
		return sbx_error(-EINVAL, "attr size %llu is too small",
				 (unsigned long long)fh.attr_size);
	if (fh.attrs.offset > d->map_len || fh.attrs.size > d->map_len - fh.attrs.offset)
		return sbx_error(-EINVAL, "the attrs section runs past the end of the file");
	if (fh.data.offset > d->map_len)
		return sbx_error(-EINVAL, "the data section starts past the end of the file "
				 "(at %llu in a file of %zu): truncated?",
				 (unsigned long long)fh.data.offset, d->map_len);
	if (fh.data.size > d->map_len - fh.data.offset) {
		/* cut short: the whole records are read, then the reader says so */
		d->data_claimed = fh.data.size;
		fh.data.size = d->map_len - fh.data.offset;
	}
	if (fh.data.offset % 8)
		return sbx_error(-EINVAL, "the data section is not 8-byte aligned");
	if (fh.attrs.offset < fh.size || fh.data.offset < fh.size)
		return sbx_error(-EINVAL, "the header overlaps the attrs or data");
	if (fh.attrs.size && fh.data.size &&
	    fh.attrs.offset < fh.data.offset + fh.data.size &&
	    fh.data.offset < fh.attrs.offset + fh.attrs.size)
		return sbx_error(-EINVAL, "the attrs and data sections overlap");
	nr_attrs = fh.attrs.size / fh.attr_size;
	for (size_t i = 0; i < nr_attrs; i++) {
		uint8_t *a = d->map + fh.attrs.offset + i * fh.attr_size;
		uint32_t size;
		struct perf_file_section ids;
		uint64_t *idp;
		int err;

		size = rd32(a + 4, d->swap);
		if (!size)
			size = PERF_ATTR_SIZE_VER0;
		if (size + sizeof(ids) > fh.attr_size)
			return sbx_error(-EINVAL, "attr %zu: size %u does not fit its entry", i, size);
		if (d->swap)
			perf_attr_swap(a, size);
		memcpy(&ids, a + fh.attr_size - sizeof(ids), sizeof(ids));
		if (d->swap)
			swap_u64s(&ids, 2);
		if (ids.offset > d->map_len || ids.size > d->map_len - ids.offset)
			return sbx_error(-EINVAL, "attr %zu: ids run past the end of the file", i);
		idp = (uint64_t *)(d->map + ids.offset);
		if (d->swap)
			swap_u64s(idp, ids.size / 8);
		err = add_attr(d, a, size, idp, ids.size / 8);
		if (err)
			return err;
	}
	if (!d->nr_attrs)
		return sbx_error(-EINVAL, "the perf.data has no events");
	for (int i = 0; i < 4; i++)
		nr_feat += __builtin_popcountll(fh.features[i]);
	feat_off = fh.data.offset + fh.data.size;
	if (nr_feat && d->data_claimed) {
		/* the data is cut short: the table after it went with the rest */
		for (int f = 0; f < HEADER_LAST_FEATURE && f < 64; f++)
			if (fh.features[0] & (1ULL << f))
				d->broken_feat |= 1ULL << f;
		nr_feat = 0;
	}
	if (nr_feat) {
		size_t k = 0;

		if (feat_off > d->map_len || nr_feat * sizeof(*table) > d->map_len - feat_off)
			return sbx_error(-EINVAL, "the feature table runs past the end of the file");
		table = (struct perf_file_section *)(d->map + feat_off);
		for (int f = 0; f < HEADER_FEAT_BITS; f++) {
			struct perf_file_section s;

			if (!(fh.features[f / 64] & (1ULL << (f % 64))))
				continue;
			memcpy(&s, &table[k++], sizeof(s));
			if (d->swap)
				swap_u64s(&s, 2);
			if (f >= HEADER_LAST_FEATURE)
				continue;
			if (s.offset > d->map_len || s.size > d->map_len - s.offset) {
				/* not fatal (perf skips it too), but said: perf_data_broken_features() */
				d->broken_feat |= 1ULL << f;
				continue;
			}
			set_feature(d, f, d->map + s.offset, s.size, false);
		}
	}
	apply_event_desc(d);
	d->fh = fh;
	if (d->data_claimed)	/* the header as written: a cut file says how long it was */
		d->fh.data.size = d->data_claimed;
	d->pos = fh.data.offset;
	d->data_start = d->pos;
	d->data_end = fh.data.offset + fh.data.size;
	/* the events are all known: the id index is sorted now, not by a first lookup */
	sort_id_index(d);
	return 0;
}

static int check_magic(struct perf_data *d, const uint8_t *p)
{
	uint64_t magic;

	memcpy(&magic, p, 8);
	if (magic == PERF_MAGIC)
		return 0;
	if (magic == PERF_MAGIC_SWAPPED) {
		d->swap = true;
		return 0;
	}
	if (!memcmp(p, "PERFFILE", 8))
		return sbx_error(-EINVAL, "perf.data version 1 (PERFFILE) is not supported");
	if (!magic)	/* what a recording killed before it wrote its header leaves */
		return sbx_error(-EINVAL, "not a perf.data file (its header is zeros: a recording "
				 "that never finished?)");
	return sbx_error(-EINVAL, "not a perf.data file (bad magic)");
}

/* Read the rest of a stream after its first 16 bytes into d->map. */
static int slurp_stream(struct perf_data *d, const uint8_t *first16)
{
	size_t cap = 1 << 20, len = 16;
	uint8_t *buf = malloc(cap);

	if (!buf)
		return sbx_error(-ENOMEM, "out of memory");
	memcpy(buf, first16, 16);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			uint8_t *b = realloc(buf, cap * 2);

			if (!b) {
				free(buf);
				return sbx_error(-ENOMEM, "out of memory reading a file-mode "
						 "perf.data from a pipe");
			}
			buf = b;
			cap *= 2;
		}
		n = read(d->fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return sbx_error_errno(-errno, "cannot read the input");
		}
		if (n == 0)
			break;
		len += n;
	}
	d->map = buf;
	d->map_len = len;
	d->map_owned = true;
	d->stream = false;
	return 0;
}

/* Decide the mode once the first 16 bytes are known. */
static int open_common(struct perf_data *d, const uint8_t *first16)
{
	uint64_t size;
	int err = check_magic(d, first16);

	if (err)
		return err;
	memcpy(&size, first16 + 8, 8);
	if (d->swap)
		size = bswap_64(size);
	d->pipe = size == 16;
	if (d->stream && !d->pipe) {
		/* file mode needs to seek: take the whole stream into memory */
		err = slurp_stream(d, first16);
		if (err)
			return err;
	}
	if (d->pipe) {
		d->pos = 16;
		d->data_end = d->stream ? UINT64_MAX : d->map_len;
		return 0;
	}
	return open_file_mode(d);
}

static struct perf_data *perf_data_new(void)
{
	struct perf_data *d = calloc(1, sizeof(*d));

	if (d)
		d->fd = -1;
	return d;
}

int perf_data_open(const char *path, struct perf_data **out)
{
	struct perf_data *d = perf_data_new();
	struct stat st;
	uint8_t first16[16];
	int err;

	if (!d)
		return sbx_error(-ENOMEM, "out of memory");
	if (!strcmp(path, "-")) {
		d->fd = STDIN_FILENO;
	} else {
		d->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (d->fd < 0) {
			err = sbx_error_errno(-errno, "cannot open '%s'", path);
			goto fail;
		}
	}
	if (fstat(d->fd, &st)) {
		err = sbx_error_errno(-errno, "cannot stat '%s'", path);
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		if (st.st_size < 16) {
			err = sbx_error(-EINVAL, "'%s' is not a perf.data file (%lld bytes)",
					path, (long long)st.st_size);
			goto fail;
		}
		d->map_len = st.st_size;
		memset(first16, 0, sizeof(first16));
		if (pread(d->fd, first16, 16, 0) != 16) {
			err = sbx_error_errno(-EIO, "cannot read '%s'", path);
			goto fail;
		}
		/* copy-on-write: a byte-swapped file is swapped in place */
		d->map = mmap(NULL, d->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE, d->fd, 0);
		if (d->map == MAP_FAILED) {
			d->map = NULL;
			err = sbx_error_errno(-errno, "cannot map '%s'", path);
			goto fail;
		}
		d->mapped = true;
		madvise(d->map, d->map_len, MADV_SEQUENTIAL);
		d->populated = 1;	/* from the first record on */
	} else {
		size_t got = 0;

		d->stream = true;
		while (got < 16) {
			ssize_t n = read(d->fd, first16 + got, 16 - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				err = n < 0 ? sbx_error_errno(-errno, "cannot read '%s'", path)
					    : sbx_error(-EINVAL, "'%s': empty or truncated input "
							"(not a perf.data)", path);
				goto fail;
			}
			got += n;
		}
	}
	err = open_common(d, first16);
	if (err) {
		const char *msg = sbx_error_msg();
		char *m = msg ? strdup(msg) : NULL;

		err = sbx_error(err, "'%s': %s", path, m ? m : "cannot read");
		free(m);
		goto fail;
	}
	*out = d;
	return 0;
fail:
	perf_data_close(d);
	return err;
}

int perf_data_open_mem(const void *buf, size_t len, struct perf_data **out)
{
	struct perf_data *d = perf_data_new();
	int err;

	if (!d)
		return sbx_error(-ENOMEM, "out of memory");
	if (len < 16) {
		perf_data_close(d);
		return sbx_error(-EINVAL, "not a perf.data (%zu bytes)", len);
	}
	/* the reader swaps in place and changes attrs: work on a private copy */
	d->map = malloc(len);
	if (!d->map) {
		perf_data_close(d);
		return sbx_error(-ENOMEM, "out of memory");
	}
	memcpy(d->map, buf, len);
	d->map_len = len;
	d->map_owned = true;
	err = open_common(d, d->map);
	if (err) {
		perf_data_close(d);
		return err;
	}
	*out = d;
	return 0;
}

void perf_data_close(struct perf_data *d)
{
	if (!d)
		return;
	if (d->mapped)
		munmap(d->map, d->map_len);
	if (d->map_owned)
		free(d->map);
	if (d->fd > STDERR_FILENO)
		close(d->fd);
	for (size_t i = 0; i < d->nr_attrs; i++) {
		free(d->attrs[i].name);
		free(d->attrs[i].ids);
	}
	for (int f = 0; f < HEADER_LAST_FEATURE; f++)
		free(d->feat[f].copy);
	while (d->copies) {
		struct copy *c = d->copies;

		d->copies = c->next;
		free(c);
	}
	ZSTD_freeDStream(d->zstd);
	free(d->dbuf);
	free(d->attrs);
	free(d->id_index);
	free(d->rbuf);
	free(d->tracing);
	free(d);
}

bool perf_data_is_pipe(const struct perf_data *d)
{
	return d->pipe;
}

bool perf_data_needs_swap(const struct perf_data *d)
{
	return d->swap;
}

uint64_t perf_data_broken_features(const struct perf_data *d)
{
	return d->broken_feat;
}

const char *perf_feature_name(unsigned f)
{
	static const char *const names[HEADER_LAST_FEATURE] = {
		[HEADER_TRACING_DATA] = "tracing_data", [HEADER_BUILD_ID] = "build_id",
		[HEADER_HOSTNAME] = "hostname", [HEADER_OSRELEASE] = "osrelease",
		[HEADER_VERSION] = "version", [HEADER_ARCH] = "arch", [HEADER_NRCPUS] = "nrcpus",
		[HEADER_CPUDESC] = "cpudesc", [HEADER_CPUID] = "cpuid",
		[HEADER_TOTAL_MEM] = "total_mem", [HEADER_CMDLINE] = "cmdline",
		[HEADER_EVENT_DESC] = "event_desc", [HEADER_CPU_TOPOLOGY] = "cpu_topology",
		[HEADER_NUMA_TOPOLOGY] = "numa_topology", [HEADER_BRANCH_STACK] = "branch_stack",
		[HEADER_PMU_MAPPINGS] = "pmu_mappings", [HEADER_GROUP_DESC] = "group_desc",
		[HEADER_AUXTRACE] = "auxtrace", [HEADER_STAT] = "stat", [HEADER_CACHE] = "cache",
		[HEADER_SAMPLE_TIME] = "sample_time", [HEADER_MEM_TOPOLOGY] = "mem_topology",
		[HEADER_CLOCKID] = "clockid", [HEADER_DIR_FORMAT] = "dir_format",
		[HEADER_BPF_PROG_INFO] = "bpf_prog_info", [HEADER_BPF_BTF] = "bpf_btf",
		[HEADER_COMPRESSED] = "compressed", [HEADER_CPU_PMU_CAPS] = "cpu_pmu_caps",
		[HEADER_CLOCK_DATA] = "clock_data", [HEADER_HYBRID_TOPOLOGY] = "hybrid_topology",
		[HEADER_PMU_CAPS] = "pmu_caps",
	};

	return f < HEADER_LAST_FEATURE && names[f] ? names[f] : "unknown";
}

uint64_t perf_data_last_offset(const struct perf_data *d)
{
	return d->last_off;
}

int64_t perf_data_record_offset(const struct perf_data *d, const struct perf_event_header *rec)
{
	const uint8_t *p = (const uint8_t *)rec;

	if (d->stream || !d->map || p < d->map || p >= d->map + d->map_len)
		return -1;
	return p - d->map;
}

const struct perf_file_header *perf_data_file_header(const struct perf_data *d)
{
	return d->pipe ? NULL : &d->fh;
}

int perf_data_stat(const struct perf_data *d, struct stat *st)
{
	if (d->fd < 0)
		return -EBADF;
	return fstat(d->fd, st) ? -errno : 0;
}

bool perf_data_records_stable(const struct perf_data *d)
{
	/* decompressed records live in a buffer that the next COMPRESSED one refills;
	   a file cut short lost its HEADER_COMPRESSED section, but is read as -z data too */
	return !d->stream && !d->pipe && !d->feat[HEADER_COMPRESSED].buf &&
	       !(d->broken_feat & (1ULL << HEADER_COMPRESSED));
}

void perf_data_release_before(struct perf_data *d, const struct perf_event_header *rec)
{
	const uint8_t *p = (const uint8_t *)rec;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start, end;

	if (!d->mapped || d->swap || d->pipe || page <= 0 || p < d->map || p >= d->map + d->map_len)
		return;
	/* whole pages only, from the first one the reader is done with */
	start = (d->released + (uint64_t)page - 1) & ~((uint64_t)page - 1);
	end = (uint64_t)(p - d->map) & ~((uint64_t)page - 1);
	if (end <= start)
		return;
	madvise(d->map + start, end - start, MADV_DONTNEED);
	d->released = end;
}

uint64_t perf_data_nr_unknown(const struct perf_data *d)
{
	return d->nr_unknown;
}

uint64_t perf_data_nr_compressed(const struct perf_data *d)
{
	return d->nr_compressed;
}

uint64_t perf_data_nr_straddled(const struct perf_data *d)
{
	return d->nr_straddled;
}

/* ----------------------------------------------------------- records */

static int read_full(struct perf_data *d, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(d->fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sbx_error_errno(-errno, "cannot read the input");
		if (n == 0)
			return got ? 1 : 0;	/* 1: truncated */
		got += n;
	}
	return 2;
}

static int rbuf_reserve(struct perf_data *d, size_t size)
{
	if (d->rbuf_size >= size)
		return 0;
	free(d->rbuf);
	d->rbuf = malloc(size);
	d->rbuf_size = d->rbuf ? size : 0;
	return d->rbuf ? 0 : sbx_error(-ENOMEM, "out of memory");
}

/* Pipe-mode records that carry the header in band. */
static int process_inband(struct perf_data *d, uint8_t *rec)
{
	struct perf_event_header *h = (void *)rec;
	uint8_t *b = rec + sizeof(*h);
	size_t len = h->size - sizeof(*h);

	switch (h->type) {
	case PERF_RECORD_HEADER_ATTR: {
		uint32_t size;

		if (len < PERF_ATTR_SIZE_VER0)
			return sbx_error(-EINVAL, "truncated HEADER_ATTR record");
		memcpy(&size, b + 4, 4);
		if (!size)
			size = PERF_ATTR_SIZE_VER0;
		if (size > len)
			return sbx_error(-EINVAL, "HEADER_ATTR: attr size %u runs past the record",
					 size);
		return add_attr(d, b, size, (const uint64_t *)(b + size), (len - size) / 8);
	}
	case PERF_RECORD_HEADER_FEATURE: {
		uint64_t feat;

		if (len < 8)
			return sbx_error(-EINVAL, "truncated HEADER_FEATURE record");
		memcpy(&feat, b, 8);
		set_feature(d, feat, b + 8, len - 8, !perf_data_records_stable(d));
		if (feat == HEADER_EVENT_DESC)
			apply_event_desc(d);
		return 0;
	}
	case PERF_RECORD_EVENT_UPDATE: {
		uint64_t type, id;
		const struct perf_data_attr *a;

		if (len < 16)
			return 0;
		memcpy(&type, b, 8);
		memcpy(&id, b + 8, 8);
		a = attr_by_id(d, id);
		if (type == PERF_EVENT_UPDATE_NAME && a && len > 16) {
			char *name = strndup((char *)b + 16, len - 16);

			if (name) {
				free(a->name);
				((struct perf_data_attr *)a)->name = name;
			}
		}
		return 0;
	}
	}
	return 0;
}

static bool known_type(uint32_t type)
{
	return perf_record_type_name(type) != NULL;
}

static bool is_compressed(uint32_t type)
{
	return type == PERF_RECORD_COMPRESSED || type == PERF_RECORD_COMPRESSED2;
}

/* mmap_len is the size of one ring buffer of perf record (-m): more is corrupt */
#define ZSTD_MMAP_LEN_MAX	(256U << 20)

/*
 * Start the zstd stream at the first COMPRESSED record, from the
 * HEADER_COMPRESSED feature: u32 version, type (1: zstd), level, ratio,
 * mmap_len (perf's header.c).
 */
static int zstd_start(struct perf_data *d)
{
	const void *buf;
	uint32_t type, mmap_len;
	size_t len;

	if ((d->broken_feat & (1ULL << HEADER_COMPRESSED)) && d->data_claimed) {
		/* the data was cut short and the feature with it: zstd, perf's biggest mmap */
		mmap_len = ZSTD_MMAP_LEN_MAX;
		goto start;
	}
	if (d->broken_feat & (1ULL << HEADER_COMPRESSED))
		return sbx_error(-EINVAL, "COMPRESSED record at offset %llu, but the "
				 "HEADER_COMPRESSED feature runs past the end of the file "
				 "(truncated?)", (unsigned long long)d->comp_off);
	if (perf_data_feature(d, HEADER_COMPRESSED, &buf, &len) != 1)
		return sbx_error(-EINVAL, "COMPRESSED record at offset %llu, but no "
				 "HEADER_COMPRESSED feature", (unsigned long long)d->comp_off);
	if (len < 20)
		return sbx_error(-EINVAL, "HEADER_COMPRESSED feature of %zu bytes", len);
	type = rd32((const uint8_t *)buf + 4, d->swap);
	mmap_len = rd32((const uint8_t *)buf + 16, d->swap);
	if (type != 1)
		return sbx_error(-ENOTSUP, "compression type %u of perf record -z is not "
				 "supported (only 1, zstd)", type);
	if (!mmap_len || mmap_len > ZSTD_MMAP_LEN_MAX)
		return sbx_error(-EINVAL, "HEADER_COMPRESSED: mmap_len %u is out of range", mmap_len);
start:
	/*
	 * perf compresses one ring buffer flush (at most mmap_len bytes) into
	 * COMPRESSED records with one zstd stream that it flushes, never ends;
	 * what a flush left in the compressor comes out with the next one, at
	 * most a zstd block (128 KiB): a record that gives more is corrupt.
	 */
	d->zstd_cap = 2 * (size_t)mmap_len + ZSTD_BLOCKSIZE_MAX;
	d->zstd = ZSTD_createDStream();
	if (!d->zstd)
		return sbx_error(-ENOMEM, "out of memory");
	if (ZSTD_isError(ZSTD_initDStream(d->zstd)))
		return sbx_error(-ENOMEM, "cannot start a zstd stream");
	return 0;
}

/*
 * Decompress a COMPRESSED record (header h already in native order; the
 * bytes at rec may be misaligned and are not written) after what is left
 * of the previous one in dbuf.
 */
static int decompress(struct perf_data *d, const uint8_t *rec, const struct perf_event_header *h)
{
	const uint8_t *src = rec + sizeof(*h);
	size_t len = h->size - sizeof(*h), start;
	ZSTD_inBuffer in;
	int err;

	if (h->type == PERF_RECORD_COMPRESSED2) {
		uint64_t size;

		/* u64 data_size; data[]: header.size is padded to 8 */
		if (len < 8)
			return sbx_error(-EINVAL, "truncated COMPRESSED2 record at offset %llu",
					 (unsigned long long)d->comp_off);
		memcpy(&size, src, 8);
		if (d->swap)
			size = bswap_64(size);
		if (size > len - 8)
			return sbx_error(-EINVAL, "COMPRESSED2 record at offset %llu: %llu bytes of "
					 "data in a record of %u", (unsigned long long)d->comp_off,
					 (unsigned long long)size, h->size);
		src += 8;
		len = size;
	}
	if (!d->zstd && (err = zstd_start(d)))
		return err;
	/* keep the head of a record that goes on in this one */
	if (d->dpos) {
		memmove(d->dbuf, d->dbuf + d->dpos, d->dlen - d->dpos);
		d->dlen -= d->dpos;
		d->dpos = 0;
	}
	start = d->dlen;
	in = (ZSTD_inBuffer){ src, len, 0 };
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret, in_was, out_was;

		if (d->dlen == d->dbuf_cap) {
			size_t cap = d->dbuf_cap ? 2 * d->dbuf_cap : 1 << 16;
			uint8_t *b;

			if (d->dlen - start >= d->zstd_cap)
				return sbx_error(-EINVAL, "COMPRESSED record at offset %llu: more than "
						 "%zu bytes of data (HEADER_COMPRESSED mmap_len): "
						 "corrupt", (unsigned long long)d->comp_off,
						 d->zstd_cap);
			if (cap > start + d->zstd_cap)
				cap = start + d->zstd_cap;
			b = realloc(d->dbuf, cap);
			if (!b)
				return sbx_error(-ENOMEM, "out of memory");
			d->dbuf = b;
			d->dbuf_cap = cap;
		}
		out = (ZSTD_outBuffer){ d->dbuf, d->dbuf_cap, d->dlen };
		in_was = in.pos;
		out_was = out.pos;
		ret = ZSTD_decompressStream(d->zstd, &out, &in);
		if (ZSTD_isError(ret))
			return sbx_error(-EINVAL, "COMPRESSED record at offset %llu: corrupt zstd "
					 "data (%s)", (unsigned long long)d->comp_off,
					 ZSTD_getErrorName(ret));
		d->dlen = out.pos;
		/* all input taken and room left: zstd has flushed what it can */
		if (in.pos == in.size && out.pos < out.size)
			return 0;
		if (in.pos == in_was && out.pos == out_was && out.pos < out.size)
			return sbx_error(-EINVAL, "COMPRESSED record at offset %llu: the zstd "
					 "stream makes no progress", (unsigned long long)d->comp_off);
	}
}

/*
 * The next record decompressed from COMPRESSED records: 1 with *out set,
 * 0 when none is complete yet, or a negative errno.
 */
static int next_decompressed(struct perf_data *d, const struct perf_event_header **out)
{
	struct perf_event_header h;
	size_t left = d->dlen - d->dpos;
	uint8_t *rec;
	int err;

	if (left < sizeof(h)) {
		d->partial = left > 0;
		return 0;
	}
	rec = d->dbuf + d->dpos;
	memcpy(&h, rec, sizeof(h));
	if (d->swap) {
		h.type = bswap_32(h.type);
		h.misc = bswap_16(h.misc);
		h.size = bswap_16(h.size);
	}
	if (h.size < sizeof(h))
		return sbx_error(-EINVAL, "record of %u bytes in the data of the COMPRESSED record "
				 "at offset %llu", h.size, (unsigned long long)d->comp_off);
	if (h.size > left) {
		d->partial = true;
		return 0;	/* it goes on in the next COMPRESSED record */
	}
	if (d->partial) {
		d->nr_straddled++;
		d->partial = false;
	}
	/* these need more than their bytes: the ring buffer never holds them */
	if (is_compressed(h.type) || h.type == PERF_RECORD_HEADER_TRACING_DATA)
		return sbx_error(-EINVAL, "%s record inside the data of the COMPRESSED record at "
				 "offset %llu", perf_record_type_name(h.type),
				 (unsigned long long)d->comp_off);
	if (d->dpos % 8 || h.size % 8) {
		/* dbuf is malloc'ed (aligned): only a corrupt size misaligns */
		if ((err = rbuf_reserve(d, h.size)))
			return err;
		memcpy(d->rbuf, rec, h.size);
		rec = d->rbuf;
	}
	memcpy(rec, &h, sizeof(h));
	d->dpos += h.size;
	if (d->swap && swap_record(d, rec))
		return sbx_error(-EINVAL, "malformed %s record in the data of the COMPRESSED record "
				 "at offset %llu", perf_record_type_name(h.type) ?: "unknown",
				 (unsigned long long)d->comp_off);
	if (d->pipe && (err = process_inband(d, rec)))
		return err;
	if (!known_type(h.type))
		d->nr_unknown++;
	/* the COMPRESSED record that completed it */
	d->last_off = d->pipe ? d->comp_off - 16 : d->comp_off;
	*out = (const struct perf_event_header *)rec;
	return 1;
}

/*
 * Map in the next pages of the file before the reader reaches them: one
 * system call per window instead of a page fault per 16 pages (a fault is
 * microseconds in a VM). MADV_POPULATE_READ is Linux 5.14; where it is
 * refused, the reader goes on with faults.
 */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#endif
#define POPULATE_WINDOW		(4U << 20)

static void populate_ahead(struct perf_data *d)
{
	uint64_t start = d->populated, end;

	if (d->pos > start)
		start = d->pos & ~(uint64_t)4095;
	end = start + POPULATE_WINDOW < d->map_len ? start + POPULATE_WINDOW : d->map_len;
	if (end <= start || madvise(d->map + start, end - start, MADV_POPULATE_READ))
		d->populated = 0;
	else
		d->populated = end;
}

/* The end of a data section cut short: its whole records were read. */
static int cut_short(struct perf_data *d)
{
	d->eof = true;
	return sbx_error(-EINVAL, "the file is cut short: its data section ends at %llu of the "
			 "%llu bytes its header gives (truncated?); the records before were read",
			 (unsigned long long)(d->pos - d->data_start),
			 (unsigned long long)d->data_claimed);
}

/*
 * The next record of the input itself: 1 with *out set, 0 at the end, 2
 * after a COMPRESSED record (its data is in dbuf now), or a negative errno.
 */
static int next_raw(struct perf_data *d, const struct perf_event_header **out)
{
	struct perf_event_header h;
	uint8_t *rec;
	int err;

	if (d->stream) {
		err = read_full(d, &h, sizeof(h));
		if (err <= 0) {
			d->eof = true;
			return err;
		}
		if (err == 1)
			return sbx_error(-EINVAL, "truncated record at the end of the input");
		if (d->swap) {
			h.type = bswap_32(h.type);
			h.misc = bswap_16(h.misc);
			h.size = bswap_16(h.size);
		}
		if (h.size < sizeof(h))
			return sbx_error(-EINVAL, "record of %u bytes at offset %llu", h.size,
					 (unsigned long long)d->pos);
		if ((err = rbuf_reserve(d, h.size)))
			return err;
		memcpy(d->rbuf, &h, sizeof(h));
		err = read_full(d, d->rbuf + sizeof(h), h.size - sizeof(h));
		if (err < 0)
			return err;
		if (err < 2 && h.size > sizeof(h))
			return sbx_error(-EINVAL, "truncated %s record at the end of the input",
					 perf_record_type_name(h.type) ?: "unknown");
		rec = d->rbuf;
	} else {
		if (d->pos >= d->data_end && !d->data_claimed) {
			d->eof = true;
			return 0;
		}
		if (d->data_end - d->pos < sizeof(h) && d->data_claimed)
			return cut_short(d);
		if (d->data_end - d->pos < sizeof(h))
			return sbx_error(-EINVAL, "truncated record at offset %llu",
					 (unsigned long long)d->pos);
		if (d->pos >= d->populated && d->populated)
			populate_ahead(d);
		rec = d->map + d->pos;
		memcpy(&h, rec, sizeof(h));
		if (d->swap) {
			h.type = bswap_32(h.type);
			h.misc = bswap_16(h.misc);
			h.size = bswap_16(h.size);
		}
		if (h.size >= sizeof(h) && h.size > d->data_end - d->pos && d->data_claimed)
			return cut_short(d);
		if (h.size < sizeof(h) || h.size > d->data_end - d->pos)
			return sbx_error(-EINVAL, "truncated or corrupt record (type %u, %u bytes) "
					 "at offset %llu", h.type, h.size,
					 (unsigned long long)d->pos);
		if (is_compressed(h.type)) {
			/* decompressed from where it is: no copy, no write */
		} else if (d->pipe || ((h.size % 8 || d->pos % 8) && !perf_data_records_stable(d))) {
			/*
			 * perf writes pipe-mode records of sizes that are not
			 * multiples of 8 (HEADER_FEATURE), and perf record -z
			 * COMPRESSED records of any size: hand out an aligned
			 * copy
			 */
			if ((err = rbuf_reserve(d, h.size)))
				return err;
			memcpy(d->rbuf, rec, h.size);
			rec = d->rbuf;
		} else if (h.size % 8 || d->pos % 8) {
			/*
			 * the same where records are stable: the copy lives as
			 * long as the mapping
			 */
			struct copy *c = malloc(sizeof(*c) + h.size);

			if (!c)
				return sbx_error(-ENOMEM, "out of memory");
			c->next = d->copies;
			d->copies = c;
			memcpy(c->data, rec, h.size);
			rec = (uint8_t *)c->data;
		}
		/* a write to the private mapping copies the page: only when needed */
		if ((d->swap || d->pipe) && !is_compressed(h.type))
			memcpy(rec, &h, sizeof(h));
	}
	if (is_compressed(h.type)) {
		d->comp_off = d->pos;
		d->pos += h.size;
		d->nr_compressed++;
		err = decompress(d, rec, &h);
		return err ? err : 2;
	}
	/* pipe mode counts from the end of its 16-byte header, as perf does */
	d->last_off = d->pipe ? d->pos - 16 : d->pos;
	d->pos += h.size;
	if (d->swap && swap_record(d, rec))
		return sbx_error(-EINVAL, "malformed %s record at offset %llu",
				 perf_record_type_name(h.type) ?: "unknown",
				 (unsigned long long)(d->pos - h.size));
	if (h.type == PERF_RECORD_HEADER_TRACING_DATA) {
		uint32_t size = 0;

		if (h.size >= sizeof(h) + 4)
			memcpy(&size, rec + sizeof(h), 4);
		/* the tracing data follows the record, outside header.size */
		if (d->stream) {
			size_t got = 0, cap = 0;

			/* read as it comes, 1 MiB at a time: a size that lies costs no more
			   memory than the bytes that are there */
			free(d->tracing);
			d->tracing = NULL;
			d->tracing_ref = NULL;
			do {
				size_t n = size - got < (1u << 20) ? size - got : (1u << 20);

				if (got + n > cap || !d->tracing) {
					uint8_t *t;

					cap = got + n > 2 * cap ? got + n : 2 * cap;
					t = realloc(d->tracing, cap ? cap : 1);
					if (!t)
						return sbx_error(-ENOMEM, "out of memory");
					d->tracing = t;
				}
				if (n && read_full(d, d->tracing + got, n) != 2)
					return sbx_error(-EINVAL, "truncated tracing data (%u bytes "
							 "claimed, fewer there)", size);
				got += n;
			} while (got < size);
			d->tracing_ref = d->tracing;
		} else {
			if (size > d->data_end - d->pos && d->data_claimed) {
				d->pos -= h.size;	/* back to the record: where the data ends */
				return cut_short(d);
			}
			if (size > d->data_end - d->pos)
				return sbx_error(-EINVAL, "truncated tracing data");
			d->tracing_ref = d->map + d->pos;
		}
		d->tracing_len = size;
		d->pos += size;
	} else if (d->pipe && (err = process_inband(d, rec))) {
		return err;
	}
	if (!known_type(h.type))
		d->nr_unknown++;
	*out = (const struct perf_event_header *)rec;
	return 1;
}

int perf_data_next(struct perf_data *d, const struct perf_event_header **out)
{
	int ret;

	for (;;) {
		/* what was decompressed goes first: it came before what follows */
		ret = next_decompressed(d, out);
		if (ret)
			return ret;
		if (d->eof)
			return 0;
		ret = next_raw(d, out);
		if (ret == 0 && d->dlen > d->dpos)
			return sbx_error(-EINVAL, "the data of the COMPRESSED records ends inside a "
					 "record (%zu bytes left)", d->dlen - d->dpos);
		if (ret != 2)
			return ret;
	}
}
