// SPDX-License-Identifier: MIT
/*
 * The tracing data that lets perf script (and sbx script) decode the RAW
 * payload of tracepoint samples: tracefs format files in the layout of
 * perf's trace-event-info.c, version 0.6:
 *
 *	"\x17\x08\x44tracing" "0.6\0" u8 big_endian u8 sizeof(long) u32 page_size
 *	"header_page\0" u64 size, bytes; "header_event\0" u64 size, bytes
 *	u32 nr ftrace formats { u64 size, bytes }
 *	u32 nr systems { "system\0" u32 nr { u64 size, format bytes } }
 *	u32 kallsyms size (0) ; u32 printk_formats size, bytes
 *	u64 saved_cmdlines size (0)
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "measure/events.h"
#include "measure/tracing-data.h"

struct tbuf {
	unsigned char *p;
	size_t len, cap;
	int err;
};

static void tput(struct tbuf *b, const void *p, size_t n)
{
	if (b->err)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		void *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q) {
			b->err = -ENOMEM;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* Append a whole file, preceded by its size in hdr_size (4 or 8) bytes. */
static int tput_file(struct tbuf *b, const char *path, size_t hdr_size)
{
	FILE *f = fopen(path, "r");
	size_t at, n;
	uint64_t size = 0;
	char chunk[8192];

	if (!f)
		return sbx_error_errno(-errno, "cannot read '%s'", path);
	at = b->len;
	tput(b, &size, hdr_size);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		tput(b, chunk, n);
		size += n;
	}
	fclose(f);
	if (b->err)
		return b->err;
	if (hdr_size == 4) {
		uint32_t s32 = (uint32_t)size;

		memcpy(b->p + at, &s32, 4);
	} else {
		memcpy(b->p + at, &size, 8);
	}
	return 0;
}

struct tp {
	char sys[256], name[256];
};

/* Whether tps[j] is an event already listed in tps[from..j). */
static bool repeats(const struct tp *tps, size_t from, size_t j)
{
	for (size_t k = from; k < j; k++)
		if (!strcmp(tps[k].sys, tps[j].sys) && !strcmp(tps[k].name, tps[j].name))
			return true;
	return false;
}

static bool id_matches(const char *dir, const char *sys, const char *name, uint64_t id)
{
	char path[768];
	FILE *f;
	unsigned long long v;
	bool ok = false;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%llu", &v) == 1 && v == id;
	fclose(f);
	return ok;
}

/* The system and name of tracepoint id: from the event name when it fits, else a scan. */
static int tracepoint_of(const char *dir, const char *evname, uint64_t id, struct tp *tp)
{
	char path[512];
	DIR *d, *sd;
	struct dirent *de, *se;
	const char *colon = evname ? strchr(evname, ':') : NULL;

	if (colon && (size_t)(colon - evname) < sizeof(tp->sys) - 1) {
		snprintf(tp->sys, sizeof(tp->sys), "%.*s", (int)(colon - evname), evname);
		snprintf(tp->name, sizeof(tp->name), "%s", colon + 1);
		tp->name[strcspn(tp->name, ":/")] = 0;
		if (id_matches(dir, tp->sys, tp->name, id))
			return 0;
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	if (!d)
		return sbx_error_errno(-errno, "cannot list '%s'", path);
	while ((de = readdir(d))) {
		char spath[768];

		if (de->d_name[0] == '.')
			continue;
		snprintf(spath, sizeof(spath), "%s/%s", path, de->d_name);
		sd = opendir(spath);
		if (!sd)
			continue;
		while ((se = readdir(sd))) {
			if (se->d_name[0] == '.')
				continue;
			if (id_matches(dir, de->d_name, se->d_name, id)) {
				snprintf(tp->sys, sizeof(tp->sys), "%s", de->d_name);
				snprintf(tp->name, sizeof(tp->name), "%s", se->d_name);
				closedir(sd);
				closedir(d);
				return 0;
			}
		}
		closedir(sd);
	}
	closedir(d);
	return sbx_error(-ENOENT, "no tracepoint with id %llu in '%s'", (unsigned long long)id, dir);
}

int synthesize_tracing_data(const struct record *r, void **out, size_t *out_len)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	char dir[256], path[1024];
	struct tp *tps = NULL;
	size_t nr = 0, i, j, n = record_nr_events(r);
	struct tbuf b = { 0 };
	unsigned char c;
	uint32_t u32;
	uint64_t u64 = 0;
	bool *done = NULL;
	int err;

	for (i = 0; i < n; i++)
		nr += record_event_attr(r, i)->type == PERF_TYPE_TRACEPOINT;
	if (!nr)
		return 0;
	err = events_tracefs_dir(dir, sizeof(dir));
	if (err)
		return err;
	tps = calloc(nr, sizeof(*tps));
	done = calloc(nr, sizeof(*done));
	if (!tps || !done) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0, j = 0; i < n; i++) {
		const struct perf_event_attr *a = record_event_attr(r, i);

		if (a->type != PERF_TYPE_TRACEPOINT)
			continue;
		err = tracepoint_of(dir, record_event_name(r, i), a->config, &tps[j++]);
		if (err)
			goto out;
	}

	tput(&b, magic, sizeof(magic));
	tput(&b, "0.6", 4);
	c = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	tput(&b, &c, 1);
	c = (unsigned char)sizeof(long);
	tput(&b, &c, 1);
	u32 = (uint32_t)sysconf(_SC_PAGESIZE);
	tput(&b, &u32, 4);
	tput(&b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	if ((err = tput_file(&b, path, 8)))
		goto out;
	tput(&b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	if ((err = tput_file(&b, path, 8)))
		goto out;
	u32 = 0;	/* no ftrace-internal event formats */
	tput(&b, &u32, 4);

	/* systems, each with its events; duplicates written once */
	{
		uint32_t nsys = 0;

		for (i = 0; i < nr; i++) {
			bool seen = false;

			for (j = 0; j < i; j++)
				seen |= !strcmp(tps[j].sys, tps[i].sys);
			nsys += !seen;
		}
		tput(&b, &nsys, 4);
	}
	for (i = 0; i < nr; i++) {
		uint32_t count = 0;

		if (done[i])
			continue;
		for (j = i; j < nr; j++)
			count += !strcmp(tps[j].sys, tps[i].sys) && !repeats(tps, i, j);
		tput(&b, tps[i].sys, strlen(tps[i].sys) + 1);
		tput(&b, &count, 4);
		for (j = i; j < nr; j++) {
			if (strcmp(tps[j].sys, tps[i].sys))
				continue;
			done[j] = true;
			if (repeats(tps, i, j))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, tps[j].sys,
				 tps[j].name);
			if ((err = tput_file(&b, path, 8)))
				goto out;
		}
	}
	u32 = 0;	/* kallsyms: perf writes none either */
	tput(&b, &u32, 4);
	snprintf(path, sizeof(path), "%s/printk_formats", dir);
	if (access(path, R_OK) == 0) {
		if ((err = tput_file(&b, path, 4)))
			goto out;
	} else {
		tput(&b, &u32, 4);
	}
	tput(&b, &u64, 8);	/* saved_cmdlines */
	err = b.err;
out:
	free(tps);
	free(done);
	if (err) {
		free(b.p);
		return err;
	}
	*out = b.p;
	*out_len = b.len;
	return 1;
}
