// SPDX-License-Identifier: MIT
/* Per-process address spaces and threads (see addrspace.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/records.h"
#include "symbol/addrspace.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/ranges.h"

/* ------------------------------------------------------- addrspace */

struct map *addrspace_find_map(struct addrspace *as, uint64_t addr)
{
	size_t i;

	if (as->last < as->nr && addr >= as->maps[as->last].start &&
	    addr < as->maps[as->last].end)
		return &as->maps[as->last];
	i = RANGES_FIND_LAST_LE(as->maps, as->nr, start, addr);
	if (i == as->nr || addr >= as->maps[i].end)
		return NULL;
	as->last = i;
	return &as->maps[i];
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
	struct hashmap procs, threads;	/* struct process by pid, struct thread by tid */
	struct process **all_procs;	/* for freeing: every process ever made */
	size_t nr_procs, cap_procs;
	struct thread **all_threads;
	size_t nr_threads, cap_threads;
	struct addrspace kernel;
	struct dso *kernel_dso;
	struct process *near_procs[16];	/* by pid % 16: samples of a few processes alternate */
	struct thread *last_thread;
	struct hashmap names;	/* interned comms (char *) */
};

static bool process_has_pid(const void *entry, const void *pid)
{
	return ((const struct process *)entry)->pid == *(const uint32_t *)pid;
}

static bool thread_has_tid(const void *entry, const void *tid)
{
	return ((const struct thread *)entry)->tid == *(const uint32_t *)tid;
}

static bool name_is(const void *entry, const void *name)
{
	return !strcmp(entry, name);
}

/* The machine's copy of name (the same pointer for the same name), or NULL. */
static const char *intern(struct machine *m, const char *name)
{
	uint64_t hash = hash_str(name);
	char *s = hashmap_get(&m->names, hash, name_is, name);

	if (s)
		return s;
	s = strdup(name);
	if (!s || hashmap_put(&m->names, hash, s)) {
		free(s);
		return NULL;
	}
	return s;
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
	char *name;

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
	hashmap_release(&m->procs);
	hashmap_release(&m->threads);
	free(m->kernel.maps);
	for (size_t i = 0; (name = hashmap_next(&m->names, &i));)
		free(name);
	hashmap_release(&m->names);
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

static struct process *process_lookup(struct machine *m, uint32_t pid)
{
	return hashmap_get(&m->procs, hash_u64(pid), process_has_pid, &pid);
}

static struct thread *thread_lookup(struct machine *m, uint32_t tid)
{
	return hashmap_get(&m->threads, hash_u64(tid), thread_has_tid, &tid);
}

/* A new, empty process for pid (replacing a retired one). */
static struct process *process_new(struct machine *m, uint32_t pid)
{
	struct process *p = calloc(1, sizeof(*p));
	struct process *old = hashmap_remove(&m->procs, hash_u64(pid), process_has_pid, &pid);

	if (!p || hashmap_put(&m->procs, hash_u64(pid), p)) {
		/* the old one stays in all_procs, and in the table again */
		if (old)
			hashmap_put(&m->procs, hash_u64(pid), old);
		free(p);
		return NULL;
	}
	if (keep((void ***)&m->all_procs, &m->nr_procs, &m->cap_procs, p)) {
		hashmap_remove(&m->procs, hash_u64(pid), process_has_pid, &pid);
		if (old)
			hashmap_put(&m->procs, hash_u64(pid), old);
		free(p);
		return NULL;
	}
	p->pid = pid;
	m->near_procs[pid % 16] = NULL;
	return p;
}

static struct process *process_get(struct machine *m, uint32_t pid)
{
	struct process *p;

	p = m->near_procs[pid % 16];
	if (p && p->pid == pid)
		return p;
	p = process_lookup(m, pid);
	if (!p)
		p = process_new(m, pid);
	m->near_procs[pid % 16] = p;
	return p;
}

/* A new thread for tid (replacing an older thread of that tid). */
static struct thread *thread_new(struct machine *m, uint32_t pid, uint32_t tid)
{
	const char *comm = intern_tid(m, tid);
	struct thread *t = comm ? calloc(1, sizeof(*t)) : NULL;
	struct thread *old;

	if (!t || keep((void ***)&m->all_threads, &m->nr_threads, &m->cap_threads, t)) {
		free(t);
		return NULL;
	}
	/* from here t is owned by all_threads */
	old = hashmap_remove(&m->threads, hash_u64(tid), thread_has_tid, &tid);
	if (hashmap_put(&m->threads, hash_u64(tid), t)) {
		if (old)
			hashmap_put(&m->threads, hash_u64(tid), old);
		return NULL;
	}
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
	t = thread_lookup(m, tid);
	if (!t)
		t = thread_new(m, pid, tid);
	else if (t->pid != pid)
		t->pid = pid;
	m->last_thread = t;
	return t;
}

const char *machine_comm(struct machine *m, uint32_t tid)
{
	struct thread *t = thread_lookup(m, tid);

	return t && t->comm[0] != ':' ? t->comm : NULL;
}

const char *machine_thread_name(struct machine *m, uint32_t tid)
{
	struct thread *t = thread_lookup(m, tid);

	return t ? t->comm : intern_tid(m, tid);
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

static int add_map(struct machine *m, const struct perf_rec_mmap *mm)
{
	uint8_t cpumode = mm->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint32_t pid = mm->pid;
	uint64_t start = mm->start, len = mm->len, pgoff = mm->pgoff;
	const char *name = mm->filename;
	struct process *p;
	struct dso *dso;
	char buf[64];

	if (mm->misc & PERF_RECORD_MISC_MMAP_DATA)
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
	if (mm->build_id_size && !dso->build_id_size)
		dso_set_build_id(dso, mm->build_id, mm->build_id_size);
	if (start + len < start)
		len = UINT64_MAX - start;
	return addrspace_insert(&p->as, start, start + len, pgoff, dso);
}

static int process_comm(struct machine *m, const struct perf_event_header *rec)
{
	struct perf_rec_comm c;
	struct process *p;
	struct thread *t;
	const char *name;

	if (perf_rec_parse_comm(rec, &c))
		return -EINVAL;
	if (c.misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* exec: the process starts over with no maps */
		struct addrspace old;

		p = process_get(m, c.pid);
		if (!p)
			return -ENOMEM;
		old = p->pre_exec;
		p->pre_exec = p->as;
		p->as = old;
		p->as.nr = 0;
		p->as.last = 0;
		p->dead = false;
	}
	t = thread_get(m, c.pid, c.tid);
	if (!t)
		return -ENOMEM;
	name = intern(m, c.comm);
	if (!name)
		return -ENOMEM;
	t->comm = name;
	return 0;
}

static int process_fork(struct machine *m, const struct perf_rec_task *f)
{
	struct process *p, *parent;
	struct thread *t, *pt = thread_get(m, f->ppid, f->ptid);

	if (!pt)
		return -ENOMEM;
	if (f->pid != f->ppid) {
		/* a new process: a copy of the parent's address space */
		parent = process_get(m, f->ppid);
		p = process_new(m, f->pid);
		if (!p || !parent || addrspace_copy(&p->as, &parent->as))
			return -ENOMEM;
	} else {
		p = process_get(m, f->pid);
		if (!p)
			return -ENOMEM;
	}
	t = thread_lookup(m, f->tid);
	if (!t || t == pt)
		t = thread_new(m, f->pid, f->tid);
	if (!t)
		return -ENOMEM;
	t->pid = f->pid;
	t->comm = pt->comm[0] == ':' ? intern_tid(m, f->tid) : pt->comm;
	if (!t->comm)
		return -ENOMEM;
	m->last_thread = NULL;
	return 0;
}

int machine_process_record(struct machine *m, const struct perf_event_header *rec)
{
	struct perf_rec_mmap mm;
	struct perf_rec_task task;
	struct process *p;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (perf_rec_parse_mmap(rec, &mm))
			return -EINVAL;
		return add_map(m, &mm);
	case PERF_RECORD_COMM:
		return process_comm(m, rec);
	case PERF_RECORD_FORK:
		if (perf_rec_parse_task(rec, &task))
			return -EINVAL;
		return process_fork(m, &task);
	case PERF_RECORD_EXIT:
		if (perf_rec_parse_task(rec, &task))
			return -EINVAL;
		if (task.pid == task.tid) {
			p = process_lookup(m, task.pid);
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
	struct perf_rec_build_id e;
	size_t n;

	while ((n = perf_rec_parse_build_id(p, end - p, swap, &e))) {
		struct dso *dso;

		if (e.filename[0] == '/' &&
		    (e.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL) {
			dso = dso_cache_get(m->cache, e.filename, DSO_ELF);
			if (dso && !dso->build_id_size)
				dso_set_build_id(dso, e.build_id, e.size);
		}
		p += n;
	}
	return 0;
}

static bool is_kernel_ip(uint8_t cpumode, uint64_t ip)
{
	return cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	       (cpumode == PERF_RECORD_MISC_CPUMODE_UNKNOWN && (int64_t)ip < 0);
}

struct map *machine_find_map(struct machine *m, uint32_t pid, uint8_t cpumode, uint64_t ip,
			     bool *kernel)
{
	struct process *p;
	struct map *map;

	if (kernel)
		*kernel = is_kernel_ip(cpumode, ip);
	if (is_kernel_ip(cpumode, ip))
		return addrspace_find_map(&m->kernel, ip);
	p = process_get(m, pid);
	if (!p)
		return NULL;
	map = addrspace_find_map(&p->as, ip);
	return map ? map : addrspace_find_map(&p->pre_exec, ip);
}

struct dso *machine_kernel_dso(const struct machine *m)
{
	return m->kernel_dso;
}

void machine_resolve(struct machine *m, uint32_t pid, uint32_t tid, uint8_t cpumode,
		     uint64_t ip, struct addr_location *al)
{
	struct thread *t = thread_get(m, pid, tid);

	memset(al, 0, sizeof(*al));
	al->pid = pid;
	al->tid = tid;
	al->comm = t ? t->comm : "";
	al->addr = ip;
	al->offset = ip;
	al->map = machine_find_map(m, pid, cpumode, ip, &al->kernel);
	if (al->kernel) {
		/*
		 * an address past the kernel's maps is the kernel's; without any
		 * (a file with no kernel MMAP, maybe from another machine) it is
		 * no one's, as in perf: this machine's kallsyms would name it wrongly
		 */
		al->dso = al->map ? al->map->dso : m->kernel.nr ? m->kernel_dso : NULL;
		al->sym = al->dso ? dso_find_symbol(al->dso, ip) : NULL;
		return;
	}
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
