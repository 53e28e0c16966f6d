/* SPDX-License-Identifier: MIT */
#ifndef SBX_ADDRSPACE_H
#define SBX_ADDRSPACE_H

/*
 * Per-process address spaces, built from the records of a perf.data in
 * time order (see session.h):
 *
 *  - MMAP / MMAP2 add a map to the process (pid -1 or a kernel cpumode:
 *    to the kernel's maps); data (non-exec) maps are ignored.
 *  - FORK of a new process copies the parent's maps; a new thread (pid ==
 *    ppid) shares its process's maps and inherits the parent thread's comm.
 *  - COMM with PERF_RECORD_MISC_COMM_EXEC starts a fresh address space;
 *    the maps from before it are kept aside, only for addresses that no
 *    new map holds (the user frames of a sample taken inside execve).
 *  - EXIT of the last thread retires the process; a later FORK of the same
 *    pid makes a new one.
 *
 * There is no global base address anywhere: two processes of one PIE
 * binary loaded at different addresses resolve independently.
 *
 * The "machine" is the set of all processes, threads and kernel maps of
 * one recording.
 */

#include <stdbool.h>
#include <stdint.h>

#include "symbol/dso.h"
#include "perf/perf-data.h"

struct map {
	uint64_t start, end;	/* [start, end) */
	uint64_t pgoff;		/* file offset of start */
	struct dso *dso;
};

/* Maps a chunk of an address space holds at most. */
#define ADDRSPACE_CHUNK 128

struct addrspace_chunk {
	size_t nr, cap;		/* cap grows to ADDRSPACE_CHUNK: most processes have few maps */
	struct map maps[];	/* sorted by start, not overlapping */
};

/*
 * The maps of a process, sorted and not overlapping, in chunks of at most
 * ADDRSPACE_CHUNK: a change moves at most one chunk's maps (and, when a
 * chunk splits, the list of chunks), so that a process with tens of
 * thousands of maps, made in any order (mmap's addresses go down), takes
 * no time quadratic in them. { 0 } is an empty one.
 */
struct addrspace {
	struct addrspace_chunk **chunks;	/* in address order, none empty */
	size_t nr_chunks, cap_chunks;
	size_t nr;			/* maps in all */
	struct map *last;		/* the last hit; NULL after a change */
};

/*
 * The map that contains addr, or NULL. The pointer is valid until the
 * address space changes.
 */
struct map *addrspace_find_map(struct addrspace *as, uint64_t addr);

/* Add [start, end) → dso at pgoff, replacing what it overlaps. 0 or -ENOMEM. */
int addrspace_insert(struct addrspace *as, uint64_t start, uint64_t end, uint64_t pgoff,
		     struct dso *dso);

/* Free the maps; as is empty again. */
void addrspace_release(struct addrspace *as);

struct machine;

/* Where an address falls. */
struct addr_location {
	uint32_t pid, tid;
	const char *comm;	/* the thread's comm at the time, ":TID" when unknown;
				   interned: the same name is the same pointer while
				   the machine lives */
	bool kernel;		/* resolved in the kernel's maps */
	struct map *map;	/* NULL when no map contains the address */
	struct dso *dso;	/* map->dso, or the kernel DSO for unmapped kernel addresses
				   (when the file maps the kernel at all) */
	uint64_t offset;	/* file offset (ELF) or the address (kernel, perf map) */
	uint64_t addr;		/* what symbols are looked up by (ELF vaddr, or the address) */
	const struct symbol *sym;	/* NULL when none */
};

/* A new machine whose DSOs come from (and stay owned by) cache. */
struct machine *machine_new(struct dso_cache *cache);
void machine_free(struct machine *m);

/*
 * Apply a record (MMAP, MMAP2, COMM, FORK, EXIT; others are ignored).
 * Returns 0 or -ENOMEM / -EINVAL (malformed record, with a message).
 */
int machine_process_record(struct machine *m, const struct perf_event_header *rec);

/*
 * Resolve ip of thread pid/tid with the cpumode of the sample (ips of
 * PERF_RECORD_MISC_KERNEL, or ≥ the kernel's start when the mode is
 * unknown, go to the kernel maps). Fills *al; never fails: fields that
 * cannot be known are NULL.
 */
void machine_resolve(struct machine *m, uint32_t pid, uint32_t tid, uint8_t cpumode,
		     uint64_t ip, struct addr_location *al);

/*
 * The map that holds ip in process pid: the kernel's maps when cpumode is a
 * kernel mode (or unknown, with an address in the kernel's half), else the
 * process's, then its maps from before its last exec. What machine_resolve()
 * starts from, without a thread, a file offset or a symbol (nothing is
 * loaded). NULL when no map holds ip; *kernel (kernel may be NULL) tells
 * which maps were looked in.
 */
struct map *machine_find_map(struct machine *m, uint32_t pid, uint8_t cpumode, uint64_t ip,
			     bool *kernel);

/* The kernel's DSO, [kernel.kallsyms]: kernel addresses that no map holds. */
struct dso *machine_kernel_dso(const struct machine *m);

/*
 * Apply build-ids: len bytes of build-id entries (perf/records.h; the
 * HEADER_BUILD_ID feature, or one HEADER_BUILD_ID record of pipe mode), in
 * the writer's byte order (swap says it is the other one). User DSOs get
 * their build-id; kernel entries are skipped (kallsyms is used). Returns 0;
 * a malformed entry ends the walk.
 */
int machine_add_build_ids(struct machine *m, const void *buf, size_t len, bool swap);

/* The comm of a thread, or NULL when none was recorded. */
const char *machine_comm(struct machine *m, uint32_t tid);

/*
 * The name of a thread as samples show it (addr_location.comm): its comm,
 * else ":TID", or "swapper" for tid 0; interned. NULL only out of memory.
 */
const char *machine_thread_name(struct machine *m, uint32_t tid);

#endif
