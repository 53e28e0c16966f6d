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
#include "util/escape.h"
#include "util/hashmap.h"
#include "util/ranges.h"

/* ------------------------------------------------------- addrspace */

/* A place in an address space: map i of chunk c (c == nr_chunks: the end). */
struct as_pos {
	size_t c, i;
};

/* The last chunk whose first map starts at or before addr, or nr_chunks. */
static size_t chunk_le(const struct addrspace *as, uint64_t addr)
{
	size_t lo = 0, hi = as->nr_chunks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (as->chunks[mid]->maps[0].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : as->nr_chunks;
}

struct map *addrspace_find_map(struct addrspace *as, uint64_t addr)
{
	struct addrspace_chunk *ch;
	size_t c, i;

	if (as->last && addr >= as->last->start && addr < as->last->end)
		return as->last;
	c = chunk_le(as, addr);
	if (c == as->nr_chunks)
		return NULL;
	ch = as->chunks[c];
	i = RANGES_FIND_LAST_LE(ch->maps, ch->nr, start, addr);
	if (i == ch->nr || addr >= ch->maps[i].end)
		return NULL;
	return as->last = &ch->maps[i];
}

static struct as_pos pos_next(const struct addrspace *as, struct as_pos p)
{
	if (++p.i == as->chunks[p.c]->nr) {
		p.c++;
		p.i = 0;
	}
	return p;
}

/* The first map that ends after addr (maps do not overlap: ends are in order too). */
static struct as_pos first_ending_after(const struct addrspace *as, uint64_t addr)
{
	size_t c = chunk_le(as, addr);
	struct as_pos p;

	if (c == as->nr_chunks)
		return (struct as_pos){ 0, 0 };
	p.c = c;
	p.i = RANGES_FIND_LAST_LE(as->chunks[c]->maps, as->chunks[c]->nr, start, addr);
	return as->chunks[c]->maps[p.i].end > addr ? p : pos_next(as, p);
}

/* Take out the map at p; the place of the one after it. */
static struct as_pos delete_at(struct addrspace *as, struct as_pos p)
{
	struct addrspace_chunk *ch = as->chunks[p.c];

	memmove(&ch->maps[p.i], &ch->maps[p.i + 1], (ch->nr - p.i - 1) * sizeof(ch->maps[0]));
	ch->nr--;
	as->nr--;
	if (!ch->nr) {
		free(ch);
		memmove(&as->chunks[p.c], &as->chunks[p.c + 1],
			(as->nr_chunks - p.c - 1) * sizeof(as->chunks[0]));
		as->nr_chunks--;
		return (struct as_pos){ p.c, 0 };
	}
	return p.i < ch->nr ? p : (struct as_pos){ p.c + 1, 0 };
}

/* A new chunk of room for cap maps at place c of the list (its maps are the caller's to fill). */
static struct addrspace_chunk *chunk_add(struct addrspace *as, size_t c, size_t cap)
{
	struct addrspace_chunk *ch;

	if (as->nr_chunks == as->cap_chunks) {
		size_t n = as->cap_chunks ? 2 * as->cap_chunks : 1;
		struct addrspace_chunk **v = realloc(as->chunks, n * sizeof(*v));

		if (!v)
			return NULL;
		as->chunks = v;
		as->cap_chunks = n;
	}
	ch = malloc(sizeof(*ch) + cap * sizeof(ch->maps[0]));
	if (!ch)
		return NULL;
	ch->nr = 0;
	ch->cap = cap;
	memmove(&as->chunks[c + 1], &as->chunks[c], (as->nr_chunks - c) * sizeof(as->chunks[0]));
	as->chunks[c] = ch;
	as->nr_chunks++;
	return ch;
}

/* Put m before the map at *p (or at the end); *p becomes m's place. 0 or -ENOMEM. */
static int insert_at(struct addrspace *as, struct as_pos *p, struct map m)
{
	struct addrspace_chunk *ch;

	if (!as->nr_chunks) {
		if (!chunk_add(as, 0, 1))
			return -ENOMEM;
		*p = (struct as_pos){ 0, 0 };
	} else if (p->c == as->nr_chunks) {
		/* the end: after the last chunk's last map */
		p->c = as->nr_chunks - 1;
		p->i = as->chunks[p->c]->nr;
	}
	ch = as->chunks[p->c];
	if (ch->nr == ch->cap && ch->cap < ADDRSPACE_CHUNK) {
		size_t cap = 2 * ch->cap < ADDRSPACE_CHUNK ? 2 * ch->cap : ADDRSPACE_CHUNK;
		struct addrspace_chunk *big = realloc(ch, sizeof(*ch) + cap * sizeof(ch->maps[0]));

		if (!big)
			return -ENOMEM;
		big->cap = cap;
		as->chunks[p->c] = ch = big;
	}
	if (ch->nr == ADDRSPACE_CHUNK) {
		/* full: its upper half goes into a new chunk after it */
		struct addrspace_chunk *hi = chunk_add(as, p->c + 1, ADDRSPACE_CHUNK);
		size_t half = ADDRSPACE_CHUNK / 2;

		if (!hi)
			return -ENOMEM;
		memcpy(hi->maps, &ch->maps[half], (ADDRSPACE_CHUNK - half) * sizeof(ch->maps[0]));
		hi->nr = ADDRSPACE_CHUNK - half;
		ch->nr = half;
		if (p->i > half) {
			p->c++;
			p->i -= half;
			ch = hi;
		}
	}
	memmove(&ch->maps[p->i + 1], &ch->maps[p->i], (ch->nr - p->i) * sizeof(ch->maps[0]));
	ch->maps[p->i] = m;
	ch->nr++;
	as->nr++;
	return 0;
}

int addrspace_insert(struct addrspace *as, uint64_t start, uint64_t end, uint64_t pgoff,
		     struct dso *dso)
{
	struct as_pos p;
	struct map tail;
	bool split = false;
	int err;

	if (end <= start)
		return 0;
	as->last = NULL;
	/* what the new map overlaps goes, but for the parts outside it */
	p = first_ending_after(as, start);
	while (p.c < as->nr_chunks) {
		struct map *m = &as->chunks[p.c]->maps[p.i];

		if (m->start >= end)
			break;
		if (m->start < start) {
			/* the part before stays; a map around the new one is split in two */
			if (m->end > end) {
				tail = *m;
				tail.pgoff += end - m->start;
				tail.start = end;
				split = true;
			}
			m->end = start;
			p = pos_next(as, p);
			continue;
		}
		if (m->end > end) {
			/* the part after stays */
			m->pgoff += end - m->start;
			m->start = end;
			break;
		}
		p = delete_at(as, p);
	}
	err = insert_at(as, &p, (struct map){ start, end, pgoff, dso });
	if (!err && split) {
		p = pos_next(as, p);
		err = insert_at(as, &p, tail);
	}
	return err;
}

void addrspace_release(struct addrspace *as)
{
	for (size_t c = 0; c < as->nr_chunks; c++)
		free(as->chunks[c]);
	free(as->chunks);
	memset(as, 0, sizeof(*as));
}

/* dst (empty) becomes a copy of src. 0 or -ENOMEM (dst is empty then). */
static int addrspace_copy(struct addrspace *dst, const struct addrspace *src)
{
	addrspace_release(dst);
	for (size_t c = 0; c < src->nr_chunks; c++) {
		const struct addrspace_chunk *sc = src->chunks[c];
		struct addrspace_chunk *ch = chunk_add(dst, c, sc->cap);

		if (!ch) {
			addrspace_release(dst);
			return -ENOMEM;
		}
		memcpy(ch->maps, sc->maps, sc->nr * sizeof(ch->maps[0]));
		ch->nr = sc->nr;
	}
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
	uint64_t hash;
	char *s;

	name = escape_str(name);	/* a comm is the workload's to choose: no control characters */
	hash = hash_str(name);
	s = hashmap_get(&m->names, hash, name_is, name);

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

	/*
	 * the idle task never gets a COMM record; another thread without one
	 * is ":TID", signed as perf prints it (thread__new's ":%d": ":-1")
	 */
	snprintf(buf, sizeof(buf), tid ? ":%d" : "swapper", (int)tid);
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
		addrspace_release(&m->all_procs[i]->as);
		addrspace_release(&m->all_procs[i]->pre_exec);
		free(m->all_procs[i]);
	}
	for (size_t i = 0; i < m->nr_threads; i++)
		free(m->all_threads[i]);
	free(m->all_procs);
	free(m->all_threads);
	hashmap_release(&m->procs);
	hashmap_release(&m->threads);
	addrspace_release(&m->kernel);
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
		p = process_get(m, c.pid);
		if (!p)
			return -ENOMEM;
		addrspace_release(&p->pre_exec);
		p->pre_exec = p->as;
		memset(&p->as, 0, sizeof(p->as));
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
