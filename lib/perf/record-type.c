// SPDX-License-Identifier: MIT
/* The perf record types (record-type.h). */
#include <linux/perf_event.h>
#include <stddef.h>

#include "perf/record-type.h"

/*
 * Fixed parts as the kernel lays them out before the sample_id trailer:
 * MMAP pid, tid, addr, len, pgoff (then the file name); MMAP2 the same,
 * then maj, min, ino, ino_generation (or, with MMAP_BUILD_ID, a build-id:
 * perf-data.c swaps those 24 bytes by the record's misc), prot, flags;
 * COMM pid, tid (then the name); EXIT and FORK pid, ppid, tid, ptid, time;
 * THROTTLE time, id, stream_id; AUX offset, size, flags; ITRACE_START pid,
 * tid; LOST id, lost; LOST_SAMPLES lost; SWITCH_CPU_WIDE pid, tid.
 */
static const struct perf_record_type kernel[] = {
	[PERF_RECORD_MMAP] = { "MMAP", 32, "iilll" },
	[PERF_RECORD_LOST] = { "LOST", 16, "ll" },
	[PERF_RECORD_COMM] = { "COMM", 8, "ii" },
	[PERF_RECORD_EXIT] = { "EXIT", 24, "iiiil" },
	[PERF_RECORD_THROTTLE] = { "THROTTLE", 24, "lll" },
	[PERF_RECORD_UNTHROTTLE] = { "UNTHROTTLE", 24, "lll" },
	[PERF_RECORD_FORK] = { "FORK", 24, "iiiil" },
	[PERF_RECORD_READ] = { "READ", 0, "" },
	[PERF_RECORD_SAMPLE] = { "SAMPLE", 0, NULL },
	[PERF_RECORD_MMAP2] = { "MMAP2", 64, "iilll" "iill" "ii" },
	[PERF_RECORD_AUX] = { "AUX", 24, "lll" },
	[PERF_RECORD_ITRACE_START] = { "ITRACE_START", 8, "ii" },
	[PERF_RECORD_LOST_SAMPLES] = { "LOST_SAMPLES", 8, "l" },
	[PERF_RECORD_SWITCH] = { "SWITCH", 0, "" },
	[PERF_RECORD_SWITCH_CPU_WIDE] = { "SWITCH_CPU_WIDE", 8, "ii" },
	[PERF_RECORD_NAMESPACES] = { "NAMESPACES", 0, "" },
	[PERF_RECORD_KSYMBOL] = { "KSYMBOL", 0, "" },
	[PERF_RECORD_BPF_EVENT] = { "BPF_EVENT", 0, "" },
	[PERF_RECORD_CGROUP] = { "CGROUP", 0, "" },
	[PERF_RECORD_TEXT_POKE] = { "TEXT_POKE", 0, "" },
	[21] = { "AUX_OUTPUT_HW_ID", 0, "" },
};

static const struct perf_record_type user[] = {
	{ "HEADER_ATTR", 0, NULL }, { "HEADER_EVENT_TYPE", 0, NULL },
	{ "HEADER_TRACING_DATA", 0, NULL }, { "HEADER_BUILD_ID", 0, NULL },
	{ "FINISHED_ROUND", 0, NULL }, { "ID_INDEX", 0, NULL },
	{ "AUXTRACE_INFO", 0, NULL }, { "AUXTRACE", 0, NULL },
	{ "AUXTRACE_ERROR", 0, NULL }, { "THREAD_MAP", 0, NULL },
	{ "CPU_MAP", 0, NULL }, { "STAT_CONFIG", 0, NULL }, { "STAT", 0, NULL },
	{ "STAT_ROUND", 0, NULL }, { "EVENT_UPDATE", 0, NULL },
	{ "TIME_CONV", 0, NULL }, { "HEADER_FEATURE", 0, NULL },
	{ "COMPRESSED", 0, NULL }, { "FINISHED_INIT", 0, NULL },
	{ "COMPRESSED2", 0, NULL }, { "BPF_METADATA", 0, NULL },
};

const struct perf_record_type *perf_record_type(uint32_t type)
{
	const struct perf_record_type *t = NULL;

	if (type < sizeof(kernel) / sizeof(*kernel))
		t = &kernel[type];
	else if (type >= PERF_RECORD_USER_TYPE_START &&
		 type - PERF_RECORD_USER_TYPE_START < sizeof(user) / sizeof(*user))
		t = &user[type - PERF_RECORD_USER_TYPE_START];
	return t && t->name ? t : NULL;
}

const char *perf_record_type_name(uint32_t type)
{
	const struct perf_record_type *t = perf_record_type(type);

	return t ? t->name : NULL;
}
