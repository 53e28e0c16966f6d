// SPDX-License-Identifier: MIT
/* Tracing data of a perf.data into libtraceevent (see trace-event.h). */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <json-c/json.h>

#include "util/error.h"
#include "perf/trace-event.h"

struct tcursor {
	const char *p, *end;
	bool swap;	/* the data's byte order is not ours */
};

static const void *take(struct tcursor *c, size_t n)
{
	const char *p = c->p;

	if ((size_t)(c->end - c->p) < n)
		return NULL;
	c->p += n;
	return p;
}

static int get_u32(struct tcursor *c, uint32_t *v)
{
	const void *p = take(c, 4);

	if (!p)
		return -1;
	memcpy(v, p, 4);
	if (c->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

static int get_u64(struct tcursor *c, uint64_t *v)
{
	const void *p = take(c, 8);

	if (!p)
		return -1;
	memcpy(v, p, 8);
	if (c->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

static const char *get_str(struct tcursor *c)
{
	const char *s = c->p, *nul = memchr(c->p, 0, c->end - c->p);

	if (!nul)
		return NULL;
	c->p = nul + 1;
	return s;
}

/* A size-prefixed block, copied with a NUL after it (libtraceevent wants strings). */
static char *get_block(struct tcursor *c, uint64_t size)
{
	const void *p;
	char *copy;

	if (size > (uint64_t)(c->end - c->p) || !(p = take(c, size)))
		return NULL;
	copy = malloc(size + 1);
	if (!copy)
		return NULL;
	memcpy(copy, p, size);
	copy[size] = 0;
	return copy;
}

/*
 * perf writes the printk formats as lines 0x%lx : "%s". libtraceevent
 * (tep_parse_printk_formats, tep_register_print_string) splits each line
 * at its first ':', skips one character, drops a leading quote and then
 * looks at the format's last three characters: a line without a ':' with
 * something before it, or a format shorter than three characters, makes it
 * read outside its buffers. Only the lines it reads safely are kept (in
 * place); the others are lost to decoding, which does without them (their
 * %s strings stay addresses).
 */
static void keep_safe_printk_formats(char *b)
{
	char *out = b;

	while (*b) {
		char *nl = strchr(b, '\n');
		size_t len = nl ? (size_t)(nl - b) : strlen(b);
		const char *colon = memchr(b, ':', len);
		size_t fmt = colon ? len - (size_t)(colon - b) - 1 : 0;	/* after the ':' */
		size_t quote = fmt >= 2 && colon[2] == '"';

		/* one character skipped, maybe a quote, then three at least */
		if (colon && colon != b && fmt >= 1 + quote + 3) {
			memmove(out, b, len);
			out += len;
			*out++ = '\n';
		}
		b += len + (nl != NULL);
	}
	*out = 0;
}

#define BAD(what) do { err = sbx_error(-EINVAL, "malformed tracing data: %s", what); \
		       goto fail; } while (0)

int trace_event_parse(const void *buf, size_t len, struct tep_handle **out)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct tcursor c = { buf, (const char *)buf + len, false };
	struct tep_handle *tep = tep_alloc();
	const char *version, *p, *name;
	uint32_t page_size, count, nsys;
	uint64_t size;
	bool big;
	int long_size, err = 0;
	char *block;

	if (!tep)
		return sbx_error(-ENOMEM, "out of memory");
	p = take(&c, sizeof(magic));
	if (!p || memcmp(p, magic, sizeof(magic)))
		BAD("bad magic");
	version = get_str(&c);
	if (!version)
		BAD("no version");
	if (!(p = take(&c, 2)))
		BAD("truncated");
	big = p[0];
	long_size = p[1];
	c.swap = big != (__BYTE_ORDER == __BIG_ENDIAN);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN
								: TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	if (get_u32(&c, &page_size))
		BAD("truncated");
	tep_set_page_size(tep, page_size);

	/* header_page, header_event */
	name = get_str(&c);
	if (!name || strcmp(name, "header_page") || get_u64(&c, &size) ||
	    !(block = get_block(&c, size)))
		BAD("header_page");
	tep_parse_header_page(tep, block, size, long_size);
	free(block);
	name = get_str(&c);
	if (!name || strcmp(name, "header_event") || get_u64(&c, &size) ||
	    !(block = get_block(&c, size)))
		BAD("header_event");
	free(block);

	/* ftrace formats */
	if (get_u32(&c, &count))
		BAD("truncated ftrace formats");
	for (uint32_t i = 0; i < count; i++) {
		if (get_u64(&c, &size) || !(block = get_block(&c, size)))
			BAD("truncated ftrace format");
		tep_parse_event(tep, block, size, "ftrace");
		free(block);
	}
	/* event formats by system */
	if (get_u32(&c, &nsys))
		BAD("truncated event systems");
	for (uint32_t s = 0; s < nsys; s++) {
		const char *sys = get_str(&c);

		if (!sys || get_u32(&c, &count))
			BAD("truncated event system");
		for (uint32_t i = 0; i < count; i++) {
			if (get_u64(&c, &size) || !(block = get_block(&c, size)))
				BAD("truncated event format");
			tep_parse_event(tep, block, size, sys);
			free(block);
		}
	}
	/* kallsyms, printk formats (optional from here on for decoding fields) */
	if (!get_u32(&c, &count) && (block = get_block(&c, count))) {
		tep_parse_kallsyms(tep, block);
		free(block);
		if (!get_u32(&c, &count) && (block = get_block(&c, count))) {
			keep_safe_printk_formats(block);
			tep_parse_printk_formats(tep, block);
			free(block);
			if (strcmp(version, "0.5") && !get_u64(&c, &size) &&
			    (block = get_block(&c, size))) {
				tep_parse_saved_cmdlines(tep, block);
				free(block);
			}
		}
	}
	*out = tep;
	return 0;
fail:
	tep_free(tep);
	return err;
}

struct tep_event *trace_event_find(struct tep_handle *tep, uint64_t id)
{
	return tep ? tep_find_event(tep, (int)id) : NULL;
}

static json_object *field_value(struct tep_format_field *f, const void *data, size_t size)
{
	unsigned long long v;

	if ((size_t)f->offset + (size_t)f->size > size)
		return NULL;
	if (f->flags & TEP_FIELD_IS_STRING) {
		const char *p = (const char *)data + f->offset;

		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			unsigned int dyn;

			memcpy(&dyn, p, 4);
			if ((dyn & 0xffff) + (dyn >> 16) > size)
				return NULL;
			p = (const char *)data + (dyn & 0xffff);
			return json_object_new_string_len(p, strnlen(p, dyn >> 16));
		}
		return json_object_new_string_len(p, strnlen(p, f->size));
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		json_object *a = json_object_new_array();

		for (unsigned i = 0; f->elementsize && i < f->arraylen &&
				(i + 1) * f->elementsize <= (unsigned)f->size; i++) {
			const char *p = (const char *)data + f->offset + i * f->elementsize;
			uint64_t e = 0;

			memcpy(&e, p, f->elementsize <= 8 ? f->elementsize : 8);
			json_object_array_add(a, json_object_new_uint64(e));
		}
		return a;
	}
	if (tep_read_number_field(f, data, &v))
		return NULL;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		int64_t sv = f->size == 1 ? (int8_t)v : f->size == 2 ? (int16_t)v :
			     f->size == 4 ? (int32_t)v : (int64_t)v;

		return json_object_new_int64(sv);
	}
	return json_object_new_uint64(v);
}

json_object *trace_event_fields_json(struct tep_event *ev, const void *raw, size_t size)
{
	struct tep_format_field **fields = tep_event_fields(ev);
	json_object *o = json_object_new_object();

	for (size_t i = 0; o && fields && fields[i]; i++) {
		json_object *v = field_value(fields[i], raw, size);

		if (v)
			json_object_object_add(o, fields[i]->name, v);
	}
	free(fields);
	return o;
}
