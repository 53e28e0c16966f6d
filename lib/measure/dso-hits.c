// SPDX-License-Identifier: MIT
/*
 * Which DSOs got samples during a recording (see dso-hits.h): the machine
 * of symbol/addrspace follows the processes, a set holds the DSOs hit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/dso-hits.h"
#include "perf/records.h"
#include "perf/sample.h"
#include "symbol/addrspace.h"
#include "symbol/buildid.h"
#include "symbol/buildid-cache.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hashmap.h"

struct pending {
	uint32_t pid;
	uint8_t cpumode;
	uint64_t ip;
};

struct dso_hits {
	struct perf_sample_layout layout;
	struct dso_cache *cache;
	struct machine *machine;
	struct hashmap hit;		/* struct dso *, by address */
	struct dso **order;		/* the hit DSOs in the order they were hit */
	size_t nr_order, cap_order;
	struct pending *pending;
	size_t nr_pending, cap_pending;
	int err;		/* out of memory once: the feature is then left out */
};

struct dso_hits *dso_hits_new(const struct record *r)
{
	struct dso_hits *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	record_sample_layout(r, &h->layout);
	h->cache = dso_cache_new();
	h->machine = h->cache ? machine_new(h->cache) : NULL;
	if (!h->machine) {
		dso_cache_free(h->cache);
		free(h);
		errno = ENOMEM;
		return NULL;
	}
	return h;
}

void dso_hits_free(struct dso_hits *h)
{
	if (!h)
		return;
	machine_free(h->machine);
	dso_cache_free(h->cache);
	hashmap_release(&h->hit);
	free(h->order);
	free(h->pending);
	free(h);
}

static bool same_dso(const void *entry, const void *key)
{
	return entry == key;
}

static void mark(struct dso_hits *h, struct dso *d)
{
	uint64_t hash = hash_u64((uintptr_t)d);

	if (hashmap_get(&h->hit, hash, same_dso, d))
		return;
	if (array_reserve(&h->order, &h->cap_order, h->nr_order + 1, sizeof(*h->order)) ||
	    hashmap_put(&h->hit, hash, d)) {
		h->err = -ENOMEM;
		return;
	}
	h->order[h->nr_order++] = d;
}

/* Mark the DSO of (pid, ip): false when no map holds it yet. */
static bool resolve(struct dso_hits *h, uint32_t pid, uint8_t cpumode, uint64_t ip)
{
	bool kernel;
	struct map *map = machine_find_map(h->machine, pid, cpumode, ip, &kernel);

	if (kernel) {
		/* modules and all: one build-id, the kernel's */
		mark(h, machine_kernel_dso(h->machine));
		return true;
	}
	if (!map)
		return false;
	mark(h, map->dso);
	return true;
}

void dso_hits_observe(struct dso_hits *h, const struct perf_event_header *ev)
{
	struct perf_sample s;
	struct perf_rec_mmap m;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		if (perf_sample_parse(&h->layout, ev, &s))
			return;
		if (resolve(h, s.pid, s.cpumode, s.ip))
			return;
		if (h->nr_pending == h->cap_pending) {
			size_t cap = h->cap_pending ? 2 * h->cap_pending : 256;
			void *q = realloc(h->pending, cap * sizeof(*h->pending));

			if (!q) {
				h->err = -ENOMEM;
				return;
			}
			h->pending = q;
			h->cap_pending = cap;
		}
		h->pending[h->nr_pending++] = (struct pending){ s.pid, s.cpumode, s.ip };
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		/* data maps hold no samples */
		if (perf_rec_parse_mmap(ev, &m) || !perf_rec_mmap_is_exec(&m))
			return;
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		break;
	default:
		return;
	}
	if (machine_process_record(h->machine, ev) == -ENOMEM)
		h->err = -ENOMEM;
}

void dso_hits_flush(struct dso_hits *h)
{
	for (size_t i = 0; i < h->nr_pending; i++)
		resolve(h, h->pending[i].pid, h->pending[i].cpumode, h->pending[i].ip);
	h->nr_pending = 0;
}

size_t dso_hits_count(const struct dso_hits *h)
{
	return h->nr_order;
}

int dso_hits_build_id_feature(const struct dso_hits *h, void **out, size_t *out_len,
			      size_t *nr)
{
	struct dso *kernel = machine_kernel_dso(h->machine);
	unsigned char *buf = NULL;
	size_t len = 0;

	*nr = 0;
	for (size_t i = 0; i < h->nr_order; i++) {
		const struct dso *d = h->order[i];
		struct perf_rec_build_id e = { .pid = -1, .filename = d->path };
		size_t idsize = 0, cap;
		void *q;
		int err, n;

		if (d == kernel)
			err = buildid_kernel(e.build_id, sizeof(e.build_id), &idsize);
		else if (d->path[0] != '/')
			continue;	/* //anon, [vdso]: no file to identify */
		else
			err = buildid_read(d->path, e.build_id, sizeof(e.build_id), &idsize);
		if (err || !idsize)
			continue;
		e.size = (uint8_t)idsize;
		e.misc = d == kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		cap = 64 + strlen(d->path) + 8;
		q = realloc(buf, len + cap);
		if (!q) {
			free(buf);
			return sbx_error(-ENOMEM, "out of memory");
		}
		buf = q;
		n = perf_rec_encode_build_id(buf + len, cap, &e);
		if (n < 0)
			continue;	/* a path too long for a record */
		len += (size_t)n;
		(*nr)++;
	}
	sbx_error_clear();
	*out = buf;
	*out_len = len;
	return 0;
}

int dso_hits_cache_files(const struct dso_hits *h, const char *dir, struct dso_hits_cached *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < h->nr_order; i++) {
		const struct dso *d = h->order[i];
		uint8_t id[BUILDID_MAX];
		size_t size = 0;
		int err;

		if (d->kind != DSO_ELF || d->path[0] != '/')
			continue;	/* the kernel, [vdso], //anon: no file to copy */
		err = buildid_read(d->path, id, sizeof(id), &size);
		/* no build-id to find it by; or not ELF (a PE file .NET or Wine maps): none */
		if (err == -ENOENT || err == -EINVAL || (!err && !size)) {
			sbx_error_clear();
			continue;
		}
		if (!err)
			err = buildid_cache_add(dir, d->path, id, size);
		if (err > 0) {
			out->added++;
		} else if (err == 0) {
			out->had++;
		} else {
			if (!out->failed++)
				snprintf(out->first_error, sizeof(out->first_error), "%s",
					 sbx_error_msg());
			sbx_error_clear();
		}
	}
	return 0;
}
