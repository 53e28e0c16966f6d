/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_SAMPLE_H
#define SBX_PERF_SAMPLE_H

/*
 * PERF_RECORD_SAMPLE bodies and the sample_id_all trailers of other
 * records: their layout (which the attr's sample_type, read_format,
 * branch_sample_type and register masks decide), a bounds-checked parser,
 * and the encoder of trailers for records that tools write themselves.
 * The layout is all a parser needs, whether the attr came from a live
 * recording or from a file.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* What decides the layout of a sample and of a trailer. */
struct perf_sample_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint64_t sample_regs_intr;
	bool sample_id_all;
	uint64_t default_period;	/* a sample's period without PERIOD: 1 with freq */
	int id_pos;		/* u64 index of the id in a SAMPLE body, -1 when none */
	int is_pos;		/* u64 index of the id counted from a trailer's end, -1 */
	size_t id_size;		/* bytes of the sample_id_all trailer, 0 when off */
	size_t fixed_size;	/* bytes of every SAMPLE body when no field varies, else 0 */
};

/* The layout of the records of an event described by attr. */
void perf_sample_layout_init(struct perf_sample_layout *l, const struct perf_event_attr *attr);

/* One branch of a branch stack, as the kernel writes it. */
struct perf_branch_entry_raw {
	uint64_t from, to, flags;
};

/*
 * Whether a call chain entry is one of perf's context markers
 * (PERF_CONTEXT_KERNEL, _USER, _HV, ...) rather than an address; a marker
 * of a known context sets *cpumode to the PERF_RECORD_MISC_* of the frames
 * after it.
 */
static inline bool perf_callchain_context(uint64_t ip, uint8_t *cpumode)
{
	if (ip < (uint64_t)PERF_CONTEXT_MAX)
		return false;
	if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
		*cpumode = PERF_RECORD_MISC_KERNEL;
	else if (ip == (uint64_t)PERF_CONTEXT_USER)
		*cpumode = PERF_RECORD_MISC_USER;
	else if (ip == (uint64_t)PERF_CONTEXT_HV)
		*cpumode = PERF_RECORD_MISC_HYPERVISOR;
	return true;
}

/* The parts of a PERF_RECORD_SAMPLE (or of a sample_id_all trailer). */
struct perf_sample {
	uint64_t sample_type;	/* of the layout that parsed it */
	uint16_t misc;		/* header.misc */
	uint8_t cpumode;	/* misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t ip;
	uint32_t pid, tid;	/* (u32)-1 when absent */
	uint64_t time;		/* (u64)-1 when absent */
	uint64_t addr;
	uint64_t id;		/* from IDENTIFIER or ID; 0 when absent */
	uint64_t stream_id;
	uint32_t cpu;		/* (u32)-1 when absent */
	uint64_t period;	/* attr.sample_period when PERIOD is absent (1 if freq) */
	const void *read;	/* the read_format values, in place */
	size_t read_size;
	uint64_t callchain_nr;
	const uint64_t *callchain;	/* in place; includes PERF_CONTEXT_* markers */
	uint32_t raw_size;
	const void *raw;		/* in place */
	uint64_t branch_nr;
	uint64_t branch_hw_idx;		/* (u64)-1 when absent */
	const struct perf_branch_entry_raw *branches;	/* in place */
	const uint64_t *branch_counters;	/* NULL when absent */
	uint64_t regs_user_abi;
	const uint64_t *regs_user;	/* popcount(attr.sample_regs_user) values */
	uint64_t stack_user_size;
	const void *stack_user;
	uint64_t stack_user_dyn_size;
	uint32_t stack_user_offset;	/* of its size word in the record (perf -D prints it) */
	uint64_t weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	const uint64_t *regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const void *aux;
};

/*
 * Parse a SAMPLE record with layout l into *s, or the sample_id_all
 * trailer of any other record (pid/tid/time/cpu/id; fields the trailer
 * lacks are -1). Pointers in *s point into rec (which must be 8-aligned).
 * Returns 0 or -EINVAL when a field runs past header.size (with a message).
 */
int perf_sample_parse(const struct perf_sample_layout *l, const struct perf_event_header *rec,
		      struct perf_sample *s);

/*
 * Byte-swap rec, a SAMPLE record of the other byte order (or the trailer
 * of another record whose fixed part, fixed bytes after the header, is
 * already swapped), in place. For the reader. Returns 0 or -1 (malformed).
 */
int perf_sample_swap(const struct perf_sample_layout *l, struct perf_event_header *rec,
		     size_t fixed);

/*
 * The timestamp of rec (a SAMPLE's TIME, or the time in another record's
 * trailer) without parsing the rest, or (u64)-1 when it has none.
 */
uint64_t perf_sample_time(const struct perf_sample_layout *l,
			  const struct perf_event_header *rec);

/*
 * Write the sample_id_all trailer of layout l with the values of s (pid,
 * tid, time, id, stream_id, cpu) at buf, which has room for l->id_size
 * bytes. Returns the bytes written (l->id_size; 0 without sample_id_all).
 */
size_t perf_sample_id_encode(const struct perf_sample_layout *l, const struct perf_sample *s,
			     void *buf);

#endif
