// SPDX-License-Identifier: MIT
/* Per-process address spaces and threads (see addrspace.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx/addrspace.h"
#include "sbx/error.h"

/* ------------------------------------------------------- addrspace */

struct map *addrspace_find_map(struct addrspace *as, uint64_t addr)
{
	size_t lo = 0, hi = as->nr;

	if (as->last < as->nr && addr >= as->maps[as->last].start &&
	    addr < as->maps[as->last].end)
		return &as->maps[as->last];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (as->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= as->maps[lo - 1].end)
		return NULL;
	as->last = lo - 1;
	return &as->maps[lo - 1];
}

static int as_reserve(struct addrspace *as, size_t n)
{
	if (n <= as->cap)
		return 0;
	size_t cap = as->cap ? as->cap : 16;
	struct map *m;

	while (cap < n)
		cap *= 2;
	m = realloc(as->maps, cap * sizeof(*m));
	if (!m)
		return -ENOMEM;
	as->maps = m;
	as->cap = cap;
	return 0;
}

int addrspace_insert(struct addrspace *as, uint64_t start, uint64_t end, uint64_t pgoff,
		     struct dso *dso)
{
	struct map *out;
	size_t nr = 0;

	if (end <= start)
		return 0;
	/* at most one extra piece: a map split in two by the new one */
	out = malloc((as->nr + 2) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < as->nr; i++) {
		struct map m = as->maps[i];

		if (m.end <= start || m.start >= end) {
			out[nr++] = m;
			continue;
		}
		if (m.start < start) {		/* the part before */
			struct map head = m;

			head.end = start;
			out[nr++] = head;
		}
		if (m.end > end) {		/* the part after */
			struct map tail = m;

			tail.pgoff += end - m.start;
			tail.start = end;
			out[nr++] = tail;
		}
	}
	out[nr++] = (struct map){ start, end, pgoff, dso };
	/* the pieces kept are in order; move the new map to its place */
	for (size_t i = nr - 1; i > 0 && out[i - 1].start > out[i].start; i--) {
		struct map t = out[i];

		out[i] = out[i - 1];
		out[i - 1] = t;
	}
	free(as->maps);
	as->maps = out;
	as->nr = nr;
	as->cap = as->nr + 2;
	as->last = 0;
	return 0;
}

static int addrspace_copy(struct addrspace *dst, const struct addrspace *src)
{
	dst->nr = 0;
	dst->last = 0;
	if (as_reserve(dst, src->nr ? src->nr : 1))
		return -ENOMEM;
	if (src->nr)
		memcpy(dst->maps, src->maps, src->nr * sizeof(*src->maps));
	dst->nr = src->nr;
	return 0;
}

/* ------------------------------------------------------- u32 -> ptr table */

struct u32map {
	uint32_t *keys;
	void **vals;
	size_t size, nr;
};

static size_t u32_hash(uint32_t k, size_t size)
{
	return (k * 2654435761u) & (size - 1);
}

static void *u32map_get(const struct u32map *t, uint32_t key)
{
	if (!t->size)
		return NULL;
	for (size_t h = u32_hash(key, t->size); t->vals[h]; h = (h + 1) & (t->size - 1))
		if (t->keys[h] == key)
			return t->vals[h];
	return NULL;
}

static int u32map_put(struct u32map *t, uint32_t key, void *val)
{
	size_t h;

	if ((t->nr + 1) * 2 > t->size) {
		struct u32map n = { 0 };

		n.size = t->size ? 2 * t->size : 64;
		n.keys = calloc(n.size, sizeof(*n.keys));
		n.vals = calloc(n.size, sizeof(*n.vals));
		if (!n.keys || !n.vals) {
			free(n.keys);
			free(n.vals);
			return -ENOMEM;
		}
		for (size_t i = 0; i < t->size; i++)
			if (t->vals[i])
				u32map_put(&n, t->keys[i], t->vals[i]);
		free(t->keys);
		free(t->vals);
		*t = n;
	}
	for (h = u32_hash(key, t->size); t->vals[h]; h = (h + 1) & (t->size - 1))
		if (t->keys[h] == key) {
			t->vals[h] = val;
			return 0;
		}
	t->keys[h] = key;
	t->vals[h] = val;
	t->nr++;
	return 0;
}

/* ------------------------------------------------------------ machine */

struct process {
	uint32_t pid;
	bool dead;
	struct addrspace as;
	/*
	 * The maps from before the last exec: only looked at for addresses
	 * that no current map holds, i.e. the user frames of samples taken in
	 * the exec system call itself (perf keeps them for the same reason).
	 */
	struct addrspace pre_exec;
};

struct thread {
	uint32_t tid, pid;
	const char *comm;	/* interned in the machine: equal names, equal pointers */
};

struct machine {
	struct dso_cache *cache;
	struct u32map procs, threads;
	struct process **all_procs;	/* for freeing: every process ever made */
	size_t nr_procs, cap_procs;
	struct thread **all_threads;
	size_t nr_threads, cap_threads;
	struct addrspace kernel;
	struct dso *kernel_dso;
	struct process *last_proc;
	struct thread *last_thread;
	char **names;		/* interned comms, open addressing */
	size_t names_size, nr_names;
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* The machine's copy of name (the same pointer for the same name), or NULL. */
static const char *intern(struct machine *m, const char *name)
{
	size_t h;

	if ((m->nr_names + 1) * 2 > m->names_size) {
		size_t size = m->names_size ? 2 * m->names_size : 64;
		char **t = calloc(size, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < m->names_size; i++) {
			if (!m->names[i])
				continue;
			for (h = hash_name(m->names[i]) & (size - 1); t[h]; h = (h + 1) & (size - 1))
				;
			t[h] = m->names[i];
		}
		free(m->names);
		m->names = t;
		m->names_size = size;
	}
	for (h = hash_name(name) & (m->names_size - 1); m->names[h];
	     h = (h + 1) & (m->names_size - 1))
		if (!strcmp(m->names[h], name))
			return m->names[h];
	m->names[h] = strdup(name);
	if (!m->names[h])
		return NULL;
	m->nr_names++;
	return m->names[h];
}

static const char *intern_tid(struct machine *m, uint32_t tid)
{
	char buf[16];

	/* the idle task never gets a COMM record */
	snprintf(buf, sizeof(buf), tid ? ":%u" : "swapper", tid);
	return intern(m, buf);
}

struct machine *machine_new(struct dso_cache *cache)
{
	struct machine *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cache = cache;
	m->kernel_dso = dso_cache_get(cache, "[kernel.kallsyms]", DSO_KERNEL);
	if (!m->kernel_dso) {
		free(m);
		return NULL;
	}
	return m;
}

void machine_free(struct machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_procs; i++) {
		free(m->all_procs[i]->as.maps);
		free(m->all_procs[i]->pre_exec.maps);
		free(m->all_procs[i]);
	}
	for (size_t i = 0; i < m->nr_threads; i++)
		free(m->all_threads[i]);
	free(m->all_procs);
	free(m->all_threads);
	free(m->procs.keys);
	free(m->procs.vals);
	free(m->threads.keys);
	free(m->threads.vals);
	free(m->kernel.maps);
	for (size_t i = 0; i < m->names_size; i++)
		free(m->names[i]);
	free(m->names);
	free(m);
}

static int keep(void ***v, size_t *nr, size_t *cap, void *p)
{
	if (*nr == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		void **n = realloc(*v, c * sizeof(*n));

		if (!n)
			return -ENOMEM;
		*v = n;
		*cap = c;
	}
	(*v)[(*nr)++] = p;
	return 0;
}

/* A new, empty process for pid (replacing a retired one). */
static struct process *process_new(struct machine *m, uint32_t pid)
{
	struct process *p = calloc(1, sizeof(*p));

	if (!p || keep((void ***)&m->all_procs, &m->nr_procs, &m->cap_procs, p) ||
	    u32map_put(&m->procs, pid, p)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	m->last_proc = NULL;
	return p;
}

static struct process *process_get(struct machine *m, uint32_t pid)
{
	struct process *p;

	if (m->last_proc && m->last_proc->pid == pid)
		return m->last_proc;
	p = u32map_get(&m->procs, pid);
	if (!p)
		p = process_new(m, pid);
	m->last_proc = p;
	return p;
}

static struct thread *thread_new(struct machine *m, uint32_t pid, uint32_t tid)
{
	const char *comm = intern_tid(m, tid);
	struct thread *t = comm ? calloc(1, sizeof(*t)) : NULL;

	if (!t || keep((void ***)&m->all_threads, &m->nr_threads, &m->cap_threads, t)) {
		free(t);
		return NULL;
	}
	/* from here t is owned by all_threads */
	if (u32map_put(&m->threads, tid, t))
		return NULL;
	t->pid = pid;
	t->tid = tid;
	t->comm = comm;
	m->last_thread = NULL;
	return t;
}

static struct thread *thread_get(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t;

	if (m->last_thread && m->last_thread->tid == tid && m->last_thread->pid == pid)
		return m->last_thread;
	t = u32map_get(&m->threads, tid);
	if (!t)
		t = thread_new(m, pid, tid);
	else if (t->pid != pid)
		t->pid = pid;
	m->last_thread = t;
	return t;
}

const char *machine_comm(struct machine *m, uint32_t tid)
{
	struct thread *t = u32map_get(&m->threads, tid);

	return t && t->comm[0] != ':' ? t->comm : NULL;
}

static bool is_anon(const char *name)
{
	return !*name || !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || !strncmp(name, "[anon:", 6);
}

static int add_kernel_map(struct machine *m, uint64_t start, uint64_t len, uint64_t pgoff,
			  const char *name)
{
	struct dso *dso = m->kernel_dso;

	if (strncmp(name, "[kernel.kallsyms]", 17) && strncmp(name, "[guest.kernel", 13)) {
		/* a module: /lib/modules/…/name.ko → [name] */
		const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
		char mod[256];
		size_t n = strcspn(base, ".");

		if (base[0] == '[')
			snprintf(mod, sizeof(mod), "%s", base);
		else
			snprintf(mod, sizeof(mod), "[%.*s]", (int)(n < 200 ? n : 200), base);
		dso = dso_cache_get(m->cache, mod, DSO_KERNEL);
		if (!dso)
			return -ENOMEM;
	}
	if (start + len < start)
		len = UINT64_MAX - start;
	return addrspace_insert(&m->kernel, start, start + len, pgoff, dso);
}

static int add_map(struct machine *m, uint32_t pid, uint16_t misc, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *name, const uint8_t *build_id,
		   size_t build_id_size)
{
	uint8_t cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct process *p;
	struct dso *dso;
	char buf[64];

	if (misc & PERF_RECORD_MISC_MMAP_DATA)
		return 0;
	if (pid == (uint32_t)-1 || cpumode == PERF_RECORD_MISC_KERNEL ||
	    cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
		return add_kernel_map(m, start, len, pgoff, name);
	p = process_get(m, pid);
	if (!p)
		return -ENOMEM;
	if (is_anon(name)) {
		snprintf(buf, sizeof(buf), "/tmp/perf-%u.map", pid);
		dso = dso_cache_get(m->cache, buf, DSO_PERF_MAP);
	} else if (!strcmp(name, "[vdso]")) {
		dso = dso_cache_get(m->cache, name, DSO_ELF);
	} else if (name[0] == '[' || strncmp(name, "/", 1)) {
		dso = dso_cache_get(m->cache, name, DSO_NONE);
	} else {
		dso = dso_cache_get(m->cache, name, DSO_ELF);
	}
	if (!dso)
		return -ENOMEM;
	if (build_id_size && !dso->build_id_size)
		dso_set_build_id(dso, build_id, build_id_size);
	if (start + len < start)
		len = UINT64_MAX - start;
	return addrspace_insert(&p->as, start, start + len, pgoff, dso);
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *record_string(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, 0, end - p))
		return NULL;
	return (const char *)p;
}

int machine_process_record(struct machine *m, const struct perf_event_header *rec)
{
	const uint8_t *b = (const uint8_t *)(rec + 1), *end = (const uint8_t *)rec + rec->size;
	size_t len = rec->size - sizeof(*rec);
	uint32_t u[4];
	uint64_t q[3];
	const char *name;
	struct process *p, *parent;
	struct thread *t, *pt;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
		if (len < 32 || !(name = record_string(b + 32, end)))
			return sbx_error(-EINVAL, "malformed MMAP record");
		memcpy(u, b, 8);
		memcpy(q, b + 8, 24);
		return add_map(m, u[0], rec->misc, q[0], q[1], q[2], name, NULL, 0);
	case PERF_RECORD_MMAP2: {
		const uint8_t *id = NULL;
		size_t id_size = 0;

		if (len < 64 || !(name = record_string(b + 64, end)))
			return sbx_error(-EINVAL, "malformed MMAP2 record");
		memcpy(u, b, 8);
		memcpy(q, b + 8, 24);
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			id_size = b[32] <= 20 ? b[32] : 20;
			id = b + 36;
		}
		return add_map(m, u[0], rec->misc, q[0], q[1], q[2], name, id, id_size);
	}
	case PERF_RECORD_COMM:
		if (len < 8 || !(name = record_string(b + 8, end)))
			return sbx_error(-EINVAL, "malformed COMM record");
		memcpy(u, b, 8);
		if (rec->misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* exec: the process starts over with no maps */
			p = process_get(m, u[0]);
			if (!p)
				return -ENOMEM;
			struct addrspace old = p->pre_exec;

			p->pre_exec = p->as;
			p->as = old;
			p->as.nr = 0;
			p->as.last = 0;
			p->dead = false;
		}
		t = thread_get(m, u[0], u[1]);
		if (!t)
			return -ENOMEM;
		name = intern(m, name);
		if (!name)
			return -ENOMEM;
		t->comm = name;
		return 0;
	case PERF_RECORD_FORK:
		if (len < 24)
			return sbx_error(-EINVAL, "malformed FORK record");
		memcpy(u, b, 16);	/* pid, ppid, tid, ptid */
		pt = thread_get(m, u[1], u[3]);
		if (!pt)
			return -ENOMEM;
		if (u[0] != u[1]) {
			/* a new process: a copy of the parent's address space */
			parent = process_get(m, u[1]);
			p = process_new(m, u[0]);
			if (!p || !parent || addrspace_copy(&p->as, &parent->as))
				return -ENOMEM;
		} else {
			p = process_get(m, u[0]);
			if (!p)
				return -ENOMEM;
		}
		t = u32map_get(&m->threads, u[2]);
		if (!t || t == pt)
			t = thread_new(m, u[0], u[2]);
		if (!t)
			return -ENOMEM;
		t->pid = u[0];
		t->comm = pt->comm[0] == ':' ? intern_tid(m, u[2]) : pt->comm;
		if (!t->comm)
			return -ENOMEM;
		m->last_thread = NULL;
		return 0;
	case PERF_RECORD_EXIT:
		if (len < 24)
			return sbx_error(-EINVAL, "malformed EXIT record");
		memcpy(u, b, 16);
		if (u[0] == u[2]) {
			p = u32map_get(&m->procs, u[0]);
			if (p)
				p->dead = true;
		}
		return 0;
	}
	return 0;
}

int machine_add_build_ids(struct machine *m, const void *buf, size_t len, bool swap)
{
	const uint8_t *p = buf, *end = p + len;

	while (end - p >= (ptrdiff_t)sizeof(struct perf_record_build_id)) {
		struct perf_record_build_id e;
		const char *name;
		struct dso *dso;

		memcpy(&e, p, sizeof(e));
		if (swap)
			e.header.size = __builtin_bswap16(e.header.size);
		if (swap)
			e.header.misc = __builtin_bswap16(e.header.misc);
		if (e.header.size < sizeof(e) || e.header.size > end - p)
			break;
		name = record_string(p + sizeof(e), p + e.header.size);
		if (name && *name == '/' &&
		    (e.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL) {
			dso = dso_cache_get(m->cache, name, DSO_ELF);
			if (dso && !dso->build_id_size)
				dso_set_build_id(dso, e.build_id,
						 (e.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) &&
						 e.size <= 20 ? e.size : 20);
		}
		p += e.header.size;
	}
	return 0;
}

void machine_resolve(struct machine *m, uint32_t pid, uint32_t tid, uint8_t cpumode,
		     uint64_t ip, struct addr_location *al)
{
	struct thread *t = thread_get(m, pid, tid);
	struct process *p;

	memset(al, 0, sizeof(*al));
	al->pid = pid;
	al->tid = tid;
	al->comm = t ? t->comm : "";
	al->addr = ip;
	al->offset = ip;
	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    (cpumode == PERF_RECORD_MISC_CPUMODE_UNKNOWN && (int64_t)ip < 0)) {
		al->kernel = true;
		al->map = addrspace_find_map(&m->kernel, ip);
		al->dso = al->map ? al->map->dso : m->kernel_dso;
		al->sym = dso_find_symbol(al->dso, ip);
		return;
	}
	p = process_get(m, pid);
	if (!p)
		return;
	al->map = addrspace_find_map(&p->as, ip);
	if (!al->map)
		al->map = addrspace_find_map(&p->pre_exec, ip);
	if (!al->map)
		return;
	al->dso = al->map->dso;
	if (al->dso->kind == DSO_ELF) {
		al->offset = ip - al->map->start + al->map->pgoff;
		al->addr = dso_offset_to_vaddr(al->dso, al->offset);
	} else if (al->dso->kind == DSO_NONE) {
		al->offset = al->addr = ip - al->map->start + al->map->pgoff;
		return;
	}
	al->sym = dso_find_symbol(al->dso, al->addr);
}
