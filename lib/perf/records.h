/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_RECORDS_H
#define SBX_PERF_RECORDS_H

/*
 * The records that sbx reads or writes besides SAMPLE (sample.h), as types:
 * a struct per record body, a bounds-checked parser per type, and encoders
 * that append the sample_id_all trailer of any layout, a live recording's
 * or an existing file's. Nobody outside this module reads a record body
 * by its byte offsets.
 *
 * Layouts are the kernel's (include/uapi/linux/perf_event.h, enum
 * perf_event_type) and, for TIME_CONV, perf's (tools/lib/perf/include/
 * perf/event.h). Parsers take a record in native byte order (what the
 * perf.data reader hands out) and leave strings in place: a filename or
 * comm points into the record.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "perf/sample.h"

/* The most bytes of a build-id in an MMAP2 record or a build-id entry. */
#define PERF_REC_BUILD_ID_MAX	20

/* The most bytes of a record: header.size is a u16, records are 8-aligned. */
#define PERF_REC_MAX_SIZE	65528

/* PERF_RECORD_MMAP and PERF_RECORD_MMAP2 (one type for both). */
struct perf_rec_mmap {
	uint16_t misc;		/* header.misc: cpumode, MMAP_DATA, MMAP_BUILD_ID */
	bool mmap2;		/* an MMAP2 record; else the MMAP2-only fields are 0 */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	/* MMAP2 without PERF_RECORD_MISC_MMAP_BUILD_ID: the file's identity */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID (build_id_size > 0) */
	uint8_t build_id[PERF_REC_BUILD_ID_MAX];
	uint8_t build_id_size;
	uint32_t prot, flags;	/* MMAP2: PROT_*, MAP_* */
	const char *filename;
};

/* PERF_RECORD_COMM: exec when misc has PERF_RECORD_MISC_COMM_EXEC. */
struct perf_rec_comm {
	uint16_t misc;
	uint32_t pid, tid;
	const char *comm;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct perf_rec_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* PERF_RECORD_LOST: the kernel dropped lost records of event id. */
struct perf_rec_lost {
	uint64_t id, lost;
};

/* PERF_RECORD_LOST_SAMPLES: lost samples (of the trailer's event). */
struct perf_rec_lost_samples {
	uint64_t lost;
};

/*
 * PERF_RECORD_READ as perf reads it: the fields of its struct
 * perf_record_read in their places whatever the event's read_format (so a
 * field the format lacks holds what follows), those past the record's end 0.
 */
struct perf_rec_read {
	uint32_t pid, tid;
	uint64_t value, time_enabled, time_running, id, lost;
	unsigned nr;		/* how many of the five the record holds */
};

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE. */
struct perf_rec_throttle {
	uint64_t time, id, stream_id;
};

/* PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE. */
struct perf_rec_switch {
	bool out;		/* PERF_RECORD_MISC_SWITCH_OUT: switched away */
	bool preempt;		/* ... while runnable */
	bool cpu_wide;		/* SWITCH_CPU_WIDE: the other task is known */
	uint32_t next_prev_pid, next_prev_tid;
};

/* PERF_RECORD_KSYMBOL: kernel code that appeared (BPF, ftrace trampolines). */
struct perf_rec_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type;
	uint16_t flags;		/* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
	const char *name;
};

/* PERF_RECORD_TIME_CONV (perf's): TSC to perf time, from the mmap page. */
struct perf_rec_time_conv {
	uint64_t time_shift, time_mult, time_zero;
	bool ext;		/* the fields below are in the record (perf 5.10+) */
	uint64_t time_cycles, time_mask;
	bool cap_user_time_zero, cap_user_time_short;
};

/* PERF_RECORD_STAT (perf stat record's): one event's count on one CPU and thread. */
struct perf_rec_stat {
	uint64_t id;		/* the event's */
	int32_t cpu;		/* a CPU number (-1: any) */
	uint32_t thread;	/* an index into the THREAD_MAP */
	uint64_t val, ena, run;
};

/* PERF_RECORD_STAT_ROUND: the counts so far make a round, at time. */
struct perf_rec_stat_round {
	uint64_t type;		/* 0: an interval, 1: the final one */
	uint64_t time;
};

/* PERF_RECORD_STAT_CONFIG: perf stat's settings, by tag (those a reader needs). */
struct perf_rec_stat_config {
	uint64_t aggr_mode;	/* perf's enum aggr_mode (0, AGGR_NONE, when absent) */
	uint64_t scale;		/* scale counts of events that ran part of the time */
	uint64_t interval;	/* ms, 0: none */
};

/* PERF_RECORD_THREAD_MAP: the pids of the threads the counts are of. */
struct perf_rec_thread_map {
	uint64_t nr;
	const uint8_t *entries;	/* nr of { u64 pid; char comm[16]; } in the record */
};

/*
 * One entry of the HEADER_BUILD_ID feature, which is also the body of a
 * PERF_RECORD_HEADER_BUILD_ID record of pipe mode (perf's struct
 * perf_record_header_build_id: header, pid, build_id[24] whose byte 20 is
 * the size, filename padded to 8).
 */
struct perf_rec_build_id {
	uint16_t misc;		/* cpumode | PERF_RECORD_MISC_BUILD_ID_SIZE */
	int32_t pid;		/* -1: the host */
	uint8_t build_id[PERF_REC_BUILD_ID_MAX];
	uint8_t size;		/* bytes of build_id in use */
	const char *filename;
};

/*
 * Parse the build-id entry at p, which has avail bytes, in the byte order
 * of the writer (swap: the other one; p is not changed). Returns the
 * entry's size, or 0 when it is malformed (too short, a size past avail,
 * a filename without its NUL): the end of a walk.
 */
size_t perf_rec_parse_build_id(const void *p, size_t avail, bool swap,
			       struct perf_rec_build_id *out);

/* Encode a build-id entry (header type 0, as in the feature). Its size, or -ENOSPC. */
int perf_rec_encode_build_id(void *buf, size_t cap, const struct perf_rec_build_id *b);

/*
 * Parsers: fill *out from rec (of the matching type) and return 0, or
 * -EINVAL with a message naming the record when its body is too short or
 * a string does not end inside it.
 */
int perf_rec_parse_mmap(const struct perf_event_header *rec, struct perf_rec_mmap *out);
int perf_rec_parse_comm(const struct perf_event_header *rec, struct perf_rec_comm *out);
int perf_rec_parse_task(const struct perf_event_header *rec, struct perf_rec_task *out);
int perf_rec_parse_lost(const struct perf_event_header *rec, struct perf_rec_lost *out);
int perf_rec_parse_lost_samples(const struct perf_event_header *rec,
				struct perf_rec_lost_samples *out);
int perf_rec_parse_read(const struct perf_event_header *rec, struct perf_rec_read *out);
int perf_rec_parse_throttle(const struct perf_event_header *rec, struct perf_rec_throttle *out);
int perf_rec_parse_switch(const struct perf_event_header *rec, struct perf_rec_switch *out);
int perf_rec_parse_ksymbol(const struct perf_event_header *rec, struct perf_rec_ksymbol *out);
int perf_rec_parse_stat(const struct perf_event_header *rec, struct perf_rec_stat *out);
int perf_rec_parse_stat_round(const struct perf_event_header *rec,
			      struct perf_rec_stat_round *out);
int perf_rec_parse_stat_config(const struct perf_event_header *rec,
			       struct perf_rec_stat_config *out);
int perf_rec_parse_thread_map(const struct perf_event_header *rec,
			      struct perf_rec_thread_map *out);
/* The pid of entry i (< nr) of a parsed THREAD_MAP. */
int32_t perf_rec_thread_map_pid(const struct perf_rec_thread_map *m, uint64_t i);
int perf_rec_parse_time_conv(const struct perf_event_header *rec,
			     struct perf_rec_time_conv *out);

/* Whether an MMAP or MMAP2 record maps code: MMAP2 with PROT_EXEC, MMAP without MMAP_DATA. */
bool perf_rec_mmap_is_exec(const struct perf_rec_mmap *m);

/*
 * Encoders: write the whole record (header, body, the string padded with
 * NULs to 8 bytes, then the sample_id_all trailer of layout l with the
 * values of id: pid, tid, time, id, stream_id, cpu) into buf, which has cap
 * bytes. l may be NULL for no trailer. Return the record's size, or
 * -ENOSPC when it does not fit cap or PERF_REC_MAX_SIZE.
 *
 * perf_rec_encode_mmap writes MMAP2 when m->mmap2, else MMAP; MMAP2 takes
 * the build-id form (and sets PERF_RECORD_MISC_MMAP_BUILD_ID in misc) when
 * m->build_id_size is not 0.
 */
int perf_rec_encode_mmap(void *buf, size_t cap, const struct perf_rec_mmap *m,
			 const struct perf_sample_layout *l, const struct perf_sample *id);
int perf_rec_encode_comm(void *buf, size_t cap, const struct perf_rec_comm *c,
			 const struct perf_sample_layout *l, const struct perf_sample *id);
/* type: PERF_RECORD_FORK or PERF_RECORD_EXIT */
int perf_rec_encode_task(void *buf, size_t cap, uint32_t type, const struct perf_rec_task *t,
			 const struct perf_sample_layout *l, const struct perf_sample *id);
int perf_rec_encode_lost_samples(void *buf, size_t cap, const struct perf_rec_lost_samples *ls,
				 const struct perf_sample_layout *l, const struct perf_sample *id);

/*
 * perf's cpu map data (CPU_MAP records, EVENT_UPDATE's CPUS) at p[0..len):
 * a list, a bit mask (of 4- or 8-byte longs) or a range, decoded into
 * *cpus (malloc'ed, *nr of them; -1 is "any CPU"). Returns 0, -EINVAL
 * (damaged or cut short) or -ENOMEM.
 */
int perf_cpu_map_decode(const void *p, size_t len, int **cpus, size_t *nr);

#endif
