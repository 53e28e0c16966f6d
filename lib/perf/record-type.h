/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_RECORD_TYPE_H
#define SBX_PERF_RECORD_TYPE_H

/*
 * What sbx knows of each perf record type, in one table: its name, the
 * fixed part of its body (which a record must hold) and that part's words
 * for byte-swapping a file of the other byte order. Kernel types are
 * include/uapi/linux/perf_event.h's enum perf_event_type, user types
 * perf's tools/lib/perf/include/perf/event.h (PERF_RECORD_USER_TYPE_START
 * on). The body parsers are records.c's and sample.c's; the dumps dump.c's.
 */

#include <stdint.h>

/* Record types written by the perf tool, not the kernel (perf/event.h). */
enum perf_user_event_type {
	PERF_RECORD_USER_TYPE_START = 64,
	PERF_RECORD_HEADER_ATTR = 64,		/* attr + u64 ids[], pipe mode */
	PERF_RECORD_HEADER_EVENT_TYPE = 65,	/* deprecated */
	PERF_RECORD_HEADER_TRACING_DATA = 66,	/* u32 size; data follows the record */
	PERF_RECORD_HEADER_BUILD_ID = 67,	/* struct perf_record_build_id */
	PERF_RECORD_FINISHED_ROUND = 68,	/* header only */
	PERF_RECORD_ID_INDEX = 69,
	PERF_RECORD_AUXTRACE_INFO = 70,
	PERF_RECORD_AUXTRACE = 71,
	PERF_RECORD_AUXTRACE_ERROR = 72,
	PERF_RECORD_THREAD_MAP = 73,
	PERF_RECORD_CPU_MAP = 74,
	PERF_RECORD_STAT_CONFIG = 75,
	PERF_RECORD_STAT = 76,
	PERF_RECORD_STAT_ROUND = 77,
	PERF_RECORD_EVENT_UPDATE = 78,		/* u64 type, id; payload */
	PERF_RECORD_TIME_CONV = 79,
	PERF_RECORD_HEADER_FEATURE = 80,	/* u64 feat_id; feature payload */
	PERF_RECORD_COMPRESSED = 81,
	PERF_RECORD_FINISHED_INIT = 82,
	PERF_RECORD_COMPRESSED2 = 83,
	PERF_RECORD_BPF_METADATA = 84,
	PERF_RECORD_HEADER_MAX
};

struct perf_record_type {
	const char *name;	/* perf's: "SAMPLE", "MMAP2", "FINISHED_ROUND" */
	uint16_t fixed;		/* bytes of the body before its variable part */
	/*
	 * the fixed part as words for a byte swap, in order: 'i' a u32, 'l' a
	 * u64 (fixed bytes in all); NULL where the reader swaps the body
	 * itself (SAMPLE by its layout, user records field by field)
	 */
	const char *words;
};

/* The type's entry, or NULL for a type sbx does not know. */
const struct perf_record_type *perf_record_type(uint32_t type);

/* The name of a record type, or NULL. */
const char *perf_record_type_name(uint32_t type);

#endif
