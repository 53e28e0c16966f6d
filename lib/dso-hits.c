// SPDX-License-Identifier: MIT
/*
 * Which DSOs got samples during a recording, for the BUILD_ID feature.
 * A small per-process map table: enough to tell which file a sample's ip
 * falls in, not the full address-space model of addrspace (which readers
 * use); it lives here so that recording does not depend on the reader side.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx/error.h"
#include "sbx/perf-data.h"
#include "sbx/symbols.h"
#include "sbx/synthesize.h"

#define NR_BUCKETS 1024
#define KERNEL_DSO 0	/* dsos[0] is [kernel.kallsyms] */

struct hmap {
	uint64_t start, end;
	size_t dso;
};

struct proc {
	uint32_t pid;
	struct hmap *maps;
	size_t nr, cap;
	struct proc *next;
};

struct dso {
	char *name;
	bool hit;
};

struct pending {
	uint32_t pid;
	uint64_t ip;
};

struct dso_hits {
	uint64_t sample_type;
	struct proc *buckets[NR_BUCKETS];
	struct dso *dsos;
	size_t nr_dsos;
	struct pending *pending;
	size_t nr_pending, cap_pending;
	int err;		/* out of memory once: the feature is then left out */
};

struct dso_hits *dso_hits_new(const struct record *r)
{
	struct dso_hits *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	/* every event shares the position of IP and TID */
	h->sample_type = record_sample_type(r);
	h->dsos = calloc(1, sizeof(*h->dsos));
	if (!h->dsos || !(h->dsos[0].name = strdup("[kernel.kallsyms]"))) {
		free(h->dsos);
		free(h);
		return NULL;
	}
	h->nr_dsos = 1;
	return h;
}

void dso_hits_free(struct dso_hits *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < NR_BUCKETS; i++) {
		struct proc *p = h->buckets[i], *next;

		for (; p; p = next) {
			next = p->next;
			free(p->maps);
			free(p);
		}
	}
	for (i = 0; i < h->nr_dsos; i++)
		free(h->dsos[i].name);
	free(h->dsos);
	free(h->pending);
	free(h);
}

static struct proc *find_proc(struct dso_hits *h, uint32_t pid, bool create)
{
	struct proc **b = &h->buckets[pid % NR_BUCKETS], *p;

	for (p = *b; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		h->err = -ENOMEM;
		return NULL;
	}
	p->pid = pid;
	p->next = *b;
	*b = p;
	return p;
}

static size_t find_dso(struct dso_hits *h, const char *name)
{
	size_t i;
	void *q;

	for (i = h->nr_dsos; i-- > 0;)
		if (!strcmp(h->dsos[i].name, name))
			return i;
	q = realloc(h->dsos, (h->nr_dsos + 1) * sizeof(*h->dsos));
	if (!q) {
		h->err = -ENOMEM;
		return (size_t)-1;
	}
	h->dsos = q;
	h->dsos[h->nr_dsos].name = strdup(name);
	h->dsos[h->nr_dsos].hit = false;
	if (!h->dsos[h->nr_dsos].name) {
		h->err = -ENOMEM;
		return (size_t)-1;
	}
	return h->nr_dsos++;
}

static void add_map(struct dso_hits *h, uint32_t pid, uint64_t start, uint64_t len,
		    const char *name)
{
	struct proc *p = find_proc(h, pid, true);
	size_t d, i;

	if (!p)
		return;
	d = find_dso(h, name);
	if (d == (size_t)-1)
		return;
	/* a new map hides what it overlaps */
	for (i = 0; i < p->nr;) {
		if (p->maps[i].start < start + len && start < p->maps[i].end)
			p->maps[i] = p->maps[--p->nr];
		else
			i++;
	}
	if (p->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		void *q = realloc(p->maps, cap * sizeof(*p->maps));

		if (!q) {
			h->err = -ENOMEM;
			return;
		}
		p->maps = q;
		p->cap = cap;
	}
	p->maps[p->nr++] = (struct hmap){ start, start + len, d };
}

static bool resolve(struct dso_hits *h, uint32_t pid, uint64_t ip)
{
	struct proc *p = find_proc(h, pid, false);
	size_t i;

	if (!p)
		return false;
	for (i = 0; i < p->nr; i++)
		if (ip >= p->maps[i].start && ip < p->maps[i].end) {
			h->dsos[p->maps[i].dso].hit = true;
			return true;
		}
	return false;
}

static void fork_proc(struct dso_hits *h, uint32_t pid, uint32_t ppid)
{
	struct proc *parent = find_proc(h, ppid, false), *child;

	if (!parent || pid == ppid)
		return;
	child = find_proc(h, pid, true);
	if (!child || !parent->nr)
		return;
	free(child->maps);
	child->maps = malloc(parent->nr * sizeof(*parent->maps));
	if (!child->maps) {
		child->nr = child->cap = 0;
		h->err = -ENOMEM;
		return;
	}
	memcpy(child->maps, parent->maps, parent->nr * sizeof(*parent->maps));
	child->nr = child->cap = parent->nr;
}

void dso_hits_observe(struct dso_hits *h, const struct perf_event_header *ev)
{
	const unsigned char *body = (const unsigned char *)(ev + 1);
	size_t len = ev->size - sizeof(*ev);
	uint32_t pid, ppid;
	uint64_t start, mlen, ip;

	switch (ev->type) {
	case PERF_RECORD_SAMPLE: {
		size_t off = (h->sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;

		if (len < off + 16)
			return;
		memcpy(&ip, body + off, 8);
		memcpy(&pid, body + off + 8, 4);
		if ((ev->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
			h->dsos[KERNEL_DSO].hit = true;
			return;
		}
		if (resolve(h, pid, ip))
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
		h->pending[h->nr_pending++] = (struct pending){ pid, ip };
		return;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t name_off = ev->type == PERF_RECORD_MMAP ? 32 : 72 - 8;
		const char *name = (const char *)body + name_off;

		if (len <= name_off || !memchr(name, 0, len - name_off))
			return;
		if (ev->type == PERF_RECORD_MMAP2) {
			uint32_t prot;

			memcpy(&prot, body + 56, 4);
			if (!(prot & 4 /* PROT_EXEC */))
				return;
		} else if (ev->misc & PERF_RECORD_MISC_MMAP_DATA) {
			return;
		}
		memcpy(&pid, body, 4);
		if (pid == (uint32_t)-1)
			return;	/* the kernel's own map */
		memcpy(&start, body + 8, 8);
		memcpy(&mlen, body + 16, 8);
		add_map(h, pid, start, mlen, name);
		return;
	}
	case PERF_RECORD_FORK:
		if (len < 8)
			return;
		memcpy(&pid, body, 4);
		memcpy(&ppid, body + 4, 4);
		fork_proc(h, pid, ppid);
		return;
	case PERF_RECORD_COMM:
		if ((ev->misc & PERF_RECORD_MISC_COMM_EXEC) && len >= 8) {
			struct proc *p;

			memcpy(&pid, body, 4);
			p = find_proc(h, pid, false);
			if (p)
				p->nr = 0;	/* a fresh address space */
		}
		return;
	}
}

void dso_hits_flush(struct dso_hits *h)
{
	size_t i;

	for (i = 0; i < h->nr_pending; i++)
		resolve(h, h->pending[i].pid, h->pending[i].ip);
	h->nr_pending = 0;
}

size_t dso_hits_count(const struct dso_hits *h)
{
	size_t i, n = 0;

	for (i = 0; i < h->nr_dsos; i++)
		n += h->dsos[i].hit;
	return n;
}

/* The kernel's build-id from the notes it exports. */
static int kernel_build_id(uint8_t *id, size_t *size)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t off = 0;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		size_t name_pad, desc_pad;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		name_pad = ((size_t)namesz + 3) & ~(size_t)3;
		desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
		if (name_pad > (size_t)n - off - 12 || desc_pad > (size_t)n - off - 12 - name_pad)
			break;
		if (type == 3 && namesz == 4 && !memcmp(buf + off + 12, "GNU", 4) &&
		    descsz <= PERF_BUILD_ID_MAX) {
			memcpy(id, buf + off + 12 + name_pad, descsz);
			*size = descsz;
			return 0;
		}
		off += 12 + name_pad + desc_pad;
	}
	return -ENOENT;
}

int dso_hits_build_id_feature(const struct dso_hits *h, void **out, size_t *out_len,
			      size_t *nr)
{
	unsigned char *buf = NULL;
	size_t len = 0, i;

	*nr = 0;
	for (i = 0; i < h->nr_dsos; i++) {
		const struct dso *d = &h->dsos[i];
		uint8_t id[PERF_BUILD_ID_MAX];
		size_t idsize = 0, namelen, size;
		struct perf_record_build_id e;
		void *q;
		int err;

		if (!d->hit)
			continue;
		if (i == KERNEL_DSO)
			err = kernel_build_id(id, &idsize);
		else if (d->name[0] != '/')
			continue;	/* //anon, [vdso]: no file to identify */
		else
			err = symbols_read_build_id(d->name, id, sizeof(id), &idsize);
		if (err || !idsize)
			continue;
		namelen = strlen(d->name) + 1;
		size = sizeof(e) + ((namelen + 7) & ~(size_t)7);
		q = realloc(buf, len + size);
		if (!q) {
			free(buf);
			return sbx_error(-ENOMEM, "out of memory");
		}
		buf = q;
		memset(&e, 0, sizeof(e));
		e.header.type = 0;
		e.header.misc = (i == KERNEL_DSO ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
				PERF_RECORD_MISC_BUILD_ID_SIZE;
		e.header.size = (uint16_t)size;
		e.pid = -1;
		memcpy(e.build_id, id, idsize);
		e.size = (uint8_t)idsize;
		memcpy(buf + len, &e, sizeof(e));
		memset(buf + len + sizeof(e), 0, size - sizeof(e));
		memcpy(buf + len + sizeof(e), d->name, namelen);
		len += size;
		(*nr)++;
	}
	sbx_error_clear();
	*out = buf;
	*out_len = len;
	return 0;
}
