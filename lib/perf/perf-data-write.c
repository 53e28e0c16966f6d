// SPDX-License-Identifier: MIT
/*
 * perf.data writer. File mode layout:
 *
 *	header (104) | ids of every attr | attrs | data | feature table | features
 *
 * The ids and attrs are laid down when the first record (or close) comes,
 * the header and the features at close. Pipe mode writes a 16-byte header,
 * then HEADER_ATTR (+ EVENT_UPDATE name) records, then the records.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "util/error.h"
#include "perf/perf-data.h"
#include "perf/perf-data-write.h"
#include "perf/records.h"
#include "util/output.h"

#define WBUF_SIZE	(256 * 1024)
#define NAME_ALIGN	64

struct wattr {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct wfeature {
	void *buf;
	size_t len;
};

struct perf_data_writer {
	struct output *out;
	int fd;			/* output_fd(out) */
	bool pipe;		/* pipe mode: the output is a stream */
	struct wattr *attrs;
	size_t nr_attrs;
	bool started;		/* attrs laid down */
	uint64_t attrs_offset, data_offset, data_size;
	uint64_t offset;	/* file offset of the next byte written */
	struct wfeature feat[HEADER_LAST_FEATURE];
	char *buf;
	size_t buf_len;
	int err;		/* first write error */
	/* perf_data_writer_set_compression(): records staged, then zstd into COMPRESSED */
	ZSTD_CStream *zc;
	int level;
	char *zin, *zout;
	size_t zin_len;
	uint64_t comp_size;	/* bytes of COMPRESSED records written */
};

/*
 * Records staged before a zstd flush, compressed ZCHUNK at a time: the most
 * a chunk can give, ZSTD_COMPRESSBOUND(32 KiB) and a block header, fits in
 * one COMPRESSED record of at most ZOUT_MAX, so that every record holds
 * whole blocks and gives back data (perf's reader refuses one that gives
 * none). Records may straddle chunks: the stream is one.
 */
#define ZIN_MAX		(256U << 10)
#define ZCHUNK		(32U << 10)
#define ZOUT_MAX	(65535U - 8U - 1U)	/* perf's: the u16 size, less the header, less 1 */
/* HEADER_COMPRESSED's mmap_len: what one COMPRESSED record may give back, perf's 512 KiB */
#define ZMMAP_LEN	(512U << 10)

static int wflush(struct perf_data_writer *w)
{
	size_t done = 0;

	if (w->err)
		return w->err;
	while (done < w->buf_len) {
		ssize_t n = write(w->fd, w->buf + done, w->buf_len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return w->err = sbx_error_errno(-errno, "cannot write '%s'",
							output_path(w->out));
		}
		done += n;
	}
	w->buf_len = 0;
	return 0;
}

static int wbytes(struct perf_data_writer *w, const void *p, size_t len)
{
	const char *c = p;

	if (w->err)
		return w->err;
	while (len) {
		size_t n = WBUF_SIZE - w->buf_len;

		if (n > len)
			n = len;
		memcpy(w->buf + w->buf_len, c, n);
		w->buf_len += n;
		w->offset += n;
		c += n;
		len -= n;
		if (w->buf_len == WBUF_SIZE && wflush(w))
			return w->err;
	}
	return 0;
}

static int wzeros(struct perf_data_writer *w, size_t len)
{
	static const char zeros[64];

	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		if (wbytes(w, zeros, n))
			return w->err;
		len -= n;
	}
	return 0;
}

int perf_data_writer_open(const char *path, struct perf_data_writer **out)
{
	struct perf_data_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w || !(w->buf = malloc(WBUF_SIZE))) {
		free(w);
		return sbx_error(-ENOMEM, "out of memory");
	}
	/* perf refuses files others may write: 0644, like perf record */
	err = output_open(path, 0644, &w->out);
	if (err) {
		free(w->buf);
		free(w);
		return err;
	}
	w->fd = output_fd(w->out);
	/* stdout, a FIFO, a device: no seeking back to the header, so pipe mode */
	w->pipe = output_is_stream(w->out);
	*out = w;
	return 0;
}

bool perf_data_writer_is_pipe(const struct perf_data_writer *w)
{
	return w->pipe;
}

int perf_data_writer_add_attr(struct perf_data_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct wattr *a;

	if (w->started)
		return sbx_error(-EINVAL, "perf-data writer: attr added after the first record");
	a = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*a));
	if (!a)
		return sbx_error(-ENOMEM, "out of memory");
	w->attrs = a;
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, attr->size && attr->size < sizeof(*attr) ? attr->size
									 : sizeof(*attr));
	a->attr.size = sizeof(a->attr);
	if (name && !(a->name = strdup(name)))
		return sbx_error(-ENOMEM, "out of memory");
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids) {
			free(a->name);
			return sbx_error(-ENOMEM, "out of memory");
		}
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
		a->nr_ids = nr_ids;
	}
	w->nr_attrs++;
	return 0;
}

static int write_pipe_attrs(struct perf_data_writer *w)
{
	for (size_t i = 0; i < w->nr_attrs; i++) {
		struct wattr *a = &w->attrs[i];
		struct perf_event_header h = {
			.type = PERF_RECORD_HEADER_ATTR,
			.size = sizeof(h) + sizeof(a->attr) + a->nr_ids * 8,
		};

		wbytes(w, &h, sizeof(h));
		wbytes(w, &a->attr, sizeof(a->attr));
		wbytes(w, a->ids, a->nr_ids * 8);
		if (a->name) {
			size_t len = strlen(a->name) + 1, pad = (8 - len % 8) % 8;
			struct {
				struct perf_event_header h;
				uint64_t type, id;
			} u = {
				.h = { .type = PERF_RECORD_EVENT_UPDATE, .size = sizeof(u) + len + pad },
				.type = PERF_EVENT_UPDATE_NAME,
				.id = a->nr_ids ? a->ids[0] : 0,
			};

			wbytes(w, &u, sizeof(u));
			wbytes(w, a->name, len);
			wzeros(w, pad);
		}
	}
	return w->err;
}

/* Lay down the header space, ids and attrs (file mode) or the pipe header and attrs. */
static int writer_start(struct perf_data_writer *w)
{
	if (w->started)
		return w->err;
	w->started = true;
	if (!w->nr_attrs)
		return w->err = sbx_error(-EINVAL, "perf-data writer: no event (attr) added");
	if (w->pipe) {
		uint64_t hdr[2] = { PERF_MAGIC, 16 };

		wbytes(w, hdr, sizeof(hdr));
		return write_pipe_attrs(w);
	}
	wzeros(w, sizeof(struct perf_file_header));
	for (size_t i = 0; i < w->nr_attrs; i++)
		wbytes(w, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	w->attrs_offset = w->offset;
	for (size_t i = 0, id_off = sizeof(struct perf_file_header); i < w->nr_attrs; i++) {
		struct perf_file_section ids = { id_off, w->attrs[i].nr_ids * 8 };

		wbytes(w, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		wbytes(w, &ids, sizeof(ids));
		id_off += ids.size;
	}
	w->data_offset = w->offset;
	return w->err;
}

/*
 * Compress the staged records into COMPRESSED records, as perf record -z
 * does a ring buffer's worth: one zstd stream through the file, flushed
 * (ended at close), its output cut into records of at most ZOUT_MAX
 * bytes, not padded (perf's PERF_RECORD_COMPRESSED).
 */
static int zflush(struct perf_data_writer *w)
{
	for (size_t off = 0; off < w->zin_len; off += ZCHUNK) {
		size_t n = w->zin_len - off < ZCHUNK ? w->zin_len - off : ZCHUNK;
		ZSTD_inBuffer in = { w->zin + off, n, 0 };
		size_t left;

		/* perf flushes its stream and never ends it: neither do we */
		do {
			ZSTD_outBuffer out = { w->zout + 8, ZOUT_MAX, 0 };
			struct perf_event_header h = { PERF_RECORD_COMPRESSED, 0, 0 };

			left = ZSTD_compressStream2(w->zc, &out, &in, ZSTD_e_flush);
			if (ZSTD_isError(left))
				return w->err = sbx_error(-EIO, "zstd: %s",
							  ZSTD_getErrorName(left));
			if (out.pos) {
				h.size = (uint16_t)(8 + out.pos);
				memcpy(w->zout, &h, sizeof(h));
				w->comp_size += h.size;
				if (wbytes(w, w->zout, h.size))
					return w->err;
			}
		} while (left || in.pos < in.size);
	}
	w->zin_len = 0;
	return 0;
}

/* HEADER_COMPRESSED: u32 version, type (1: zstd), level, ratio, mmap_len (perf's header.c) */
static int add_compressed_feature(struct perf_data_writer *w)
{
	uint32_t f[5] = { 1, 1, (uint32_t)w->level, 0, ZMMAP_LEN };

	int err;

	if (w->comp_size)
		f[3] = (uint32_t)((w->data_size + w->comp_size / 2) / w->comp_size);
	err = perf_data_writer_add_feature(w, HEADER_COMPRESSED, f, sizeof(f));
	if (err && !w->err)
		w->err = err;
	return err;
}

int perf_data_writer_set_compression(struct perf_data_writer *w, int level)
{
	if (level < 1 || level > 22)
		return sbx_error(-EINVAL, "compression level %d: zstd's are 1 to 22", level);
	if (w->zc || (w->started && w->data_size))
		return sbx_error(-EINVAL, "perf-data writer: compression set after records");
	w->zc = ZSTD_createCStream();
	w->zin = malloc(ZIN_MAX);
	w->zout = malloc(8 + ZOUT_MAX);
	if (!w->zc || !w->zin || !w->zout)
		return sbx_error(-ENOMEM, "out of memory");
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, level)))
		return sbx_error(-EINVAL, "zstd: cannot set compression level %d", level);
	w->level = level;
	/* a stream says so before its first COMPRESSED record; a file at the end, with the ratio */
	return w->pipe ? add_compressed_feature(w) : 0;
}

int perf_data_writer_write(struct perf_data_writer *w, const void *rec)
{
	const struct perf_event_header *h = rec;

	if (writer_start(w))
		return w->err;
	if (h->size < sizeof(*h) || h->size % 8)
		return sbx_error(-EINVAL, "perf-data writer: record of type %u has size %u",
				 h->type, h->size);
	w->data_size += h->size;
	if (!w->zc)
		return wbytes(w, rec, h->size);
	if (w->zin_len + h->size > ZIN_MAX && zflush(w))
		return w->err;
	memcpy(w->zin + w->zin_len, rec, h->size);
	w->zin_len += h->size;
	return 0;
}

uint64_t perf_data_writer_data_size(const struct perf_data_writer *w)
{
	return w->data_size;
}

uint64_t perf_data_writer_compressed_size(const struct perf_data_writer *w)
{
	return w->comp_size;
}

size_t perf_string_size(const char *s)
{
	size_t len = strlen(s) + 1;

	return 4 + (len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
}

size_t perf_string_put(void *p, const char *s)
{
	size_t size = perf_string_size(s);
	uint32_t len = size - 4;
	char *c = p;

	memcpy(c, &len, 4);
	memset(c + 4, 0, len);
	memcpy(c + 4, s, strlen(s));
	return size;
}

static int pipe_feature(struct perf_data_writer *w, int feat, const void *buf, size_t len)
{
	if (feat == HEADER_TRACING_DATA) {
		struct {
			struct perf_event_header h;
			uint32_t size, pad;
		} t = { .h = { .type = PERF_RECORD_HEADER_TRACING_DATA, .size = sizeof(t) } };
		size_t padded = (len + 7) & ~(size_t)7;

		if (padded > UINT32_MAX)
			return sbx_error(-E2BIG, "tracing data too large");
		t.size = padded;
		wbytes(w, &t, sizeof(t));
		wbytes(w, buf, len);
		return wzeros(w, padded - len);
	}
	if (feat == HEADER_BUILD_ID) {
		const char *p = buf, *end = p + len;

		while (p < end) {
			struct perf_event_header h;
			struct perf_rec_build_id e;

			if (!perf_rec_parse_build_id(p, end - p, false, &e))
				return sbx_error(-EINVAL, "malformed build-id feature");
			memcpy(&h, p, sizeof(h));
			h.type = PERF_RECORD_HEADER_BUILD_ID;
			wbytes(w, &h, sizeof(h));
			wbytes(w, p + sizeof(h), h.size - sizeof(h));
			p += h.size;
		}
		return w->err;
	}
	{
		size_t padded = (len + 7) & ~(size_t)7;
		struct {
			struct perf_event_header h;
			uint64_t feat;
		} f = { .h = { .type = PERF_RECORD_HEADER_FEATURE }, .feat = feat };

		if (sizeof(f) + padded > UINT16_MAX)
			return sbx_error(-E2BIG, "feature %d too large for pipe mode", feat);
		f.h.size = sizeof(f) + padded;
		wbytes(w, &f, sizeof(f));
		wbytes(w, buf, len);
		return wzeros(w, padded - len);
	}
}

int perf_data_writer_add_feature(struct perf_data_writer *w, int feat, const void *buf,
				 size_t len)
{
	if (feat <= 0 || feat >= HEADER_LAST_FEATURE)
		return sbx_error(-EINVAL, "perf-data writer: unknown feature %d", feat);
	if (w->pipe) {
		if (writer_start(w))
			return w->err;
		/* in the stream's order: the records staged for zstd first */
		if (w->zc && w->zin_len && zflush(w))
			return w->err;
		return pipe_feature(w, feat, buf, len);
	}
	if (w->feat[feat].buf)
		return sbx_error(-EEXIST, "perf-data writer: feature %d added twice", feat);
	w->feat[feat].buf = malloc(len ? len : 1);
	if (!w->feat[feat].buf)
		return sbx_error(-ENOMEM, "out of memory");
	memcpy(w->feat[feat].buf, buf, len);
	w->feat[feat].len = len;
	return 0;
}

int perf_data_writer_add_feature_string(struct perf_data_writer *w, int feat, const char *s)
{
	size_t size = perf_string_size(s);
	char *p = malloc(size);
	int err;

	if (!p)
		return sbx_error(-ENOMEM, "out of memory");
	perf_string_put(p, s);
	err = perf_data_writer_add_feature(w, feat, p, size);
	free(p);
	return err;
}

/* CMDLINE: u32 nr; string arg[nr] */
int perf_data_writer_add_feature_strings(struct perf_data_writer *w, int feat, size_t nr,
					 char *const *strings)
{
	size_t size = 4;
	uint32_t n = (uint32_t)nr;
	char *buf, *p;
	int err;

	for (size_t i = 0; i < nr; i++)
		size += perf_string_size(strings[i]);
	p = buf = malloc(size);
	if (!buf)
		return sbx_error(-ENOMEM, "out of memory");
	memcpy(p, &n, 4);
	p += 4;
	for (size_t i = 0; i < nr; i++)
		p += perf_string_put(p, strings[i]);
	err = perf_data_writer_add_feature(w, feat, buf, size);
	free(buf);
	return err;
}

/* EVENT_DESC: u32 nr; u32 attr_size; { attr; u32 nr_ids; string name; u64 ids[] }[nr] */
static int make_event_desc(struct perf_data_writer *w)
{
	size_t size = 8;
	char *buf, *p;
	int err;

	for (size_t i = 0; i < w->nr_attrs; i++)
		size += sizeof(struct perf_event_attr) + 4 +
			perf_string_size(w->attrs[i].name ? w->attrs[i].name : "") +
			w->attrs[i].nr_ids * 8;
	p = buf = calloc(1, size);
	if (!buf)
		return sbx_error(-ENOMEM, "out of memory");
	*(uint32_t *)p = w->nr_attrs;
	*(uint32_t *)(p + 4) = sizeof(struct perf_event_attr);
	p += 8;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		uint32_t nr = w->attrs[i].nr_ids;

		memcpy(p, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		p += sizeof(w->attrs[i].attr);
		memcpy(p, &nr, 4);
		p += 4;
		p += perf_string_put(p, w->attrs[i].name ? w->attrs[i].name : "");
		if (nr)	/* an attr without ids has none to copy (ids is NULL) */
			memcpy(p, w->attrs[i].ids, nr * 8);
		p += nr * 8;
	}
	err = perf_data_writer_add_feature(w, HEADER_EVENT_DESC, buf, size);
	free(buf);
	return err;
}

static int write_file_tail(struct perf_data_writer *w)
{
	struct perf_file_header fh = {
		.magic = PERF_MAGIC,
		.size = sizeof(fh),
		.attr_size = sizeof(struct perf_event_attr) + sizeof(struct perf_file_section),
		.attrs = { w->attrs_offset, w->data_offset - w->attrs_offset },
		.data = { w->data_offset, w->zc ? w->comp_size : w->data_size },
	};
	uint64_t off;
	size_t nr = 0;

	if (!w->feat[HEADER_EVENT_DESC].buf && make_event_desc(w))
		return w->err = -ENOMEM;
	for (int f = 1; f < HEADER_LAST_FEATURE; f++)
		if (w->feat[f].buf) {
			fh.features[f / 64] |= 1ULL << (f % 64);
			nr++;
		}
	/* table, then payloads, each 8-aligned */
	off = w->offset + nr * sizeof(struct perf_file_section);
	for (int f = 1; f < HEADER_LAST_FEATURE; f++) {
		struct perf_file_section s;

		if (!w->feat[f].buf)
			continue;
		s.offset = off;
		s.size = w->feat[f].len;
		off += (s.size + 7) & ~7ULL;
		wbytes(w, &s, sizeof(s));
	}
	for (int f = 1; f < HEADER_LAST_FEATURE; f++) {
		if (!w->feat[f].buf)
			continue;
		wbytes(w, w->feat[f].buf, w->feat[f].len);
		wzeros(w, ((w->feat[f].len + 7) & ~(size_t)7) - w->feat[f].len);
	}
	if (wflush(w))
		return w->err;
	if (pwrite(w->fd, &fh, sizeof(fh), 0) != (ssize_t)sizeof(fh))
		return w->err = sbx_error_errno(errno ? -errno : -EIO, "cannot write '%s'", output_path(w->out));
	return 0;
}

static void writer_free(struct perf_data_writer *w)
{
	for (size_t i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	for (int f = 0; f < HEADER_LAST_FEATURE; f++)
		free(w->feat[f].buf);
	free(w->attrs);
	free(w->buf);
	ZSTD_freeCStream(w->zc);
	free(w->zin);
	free(w->zout);
	free(w);
}

void perf_data_writer_keep_old(struct perf_data_writer *w, char **kept)
{
	*kept = NULL;
	if (!w->pipe)
		output_keep_old(w->out, kept);
}

int perf_data_writer_close(struct perf_data_writer *w)
{
	int err;

	writer_start(w);
	/* the last records; a file's HEADER_COMPRESSED */
	if (w->zc && !w->err && !zflush(w) && !w->pipe)
		add_compressed_feature(w);	/* sets w->err on failure */
	err = w->pipe ? wflush(w) : write_file_tail(w);
	if (err)
		output_abort(w->out);
	else
		err = output_commit(w->out);
	writer_free(w);
	return err;
}

void perf_data_writer_abort(struct perf_data_writer *w)
{
	if (!w)
		return;
	/* a stream keeps what it was sent: flush it, there is no taking it back */
	if (w->pipe) {
		if (w->zc && w->zin_len)
			zflush(w);
		wflush(w);
	}
	output_abort(w->out);
	writer_free(w);
}
