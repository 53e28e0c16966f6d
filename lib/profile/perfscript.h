/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_PERFSCRIPT_H
#define SBX_PROFILE_PERFSCRIPT_H

/*
 * llvm-profgen's text input: what `perf script -F ip,brstack
 * --show-mmap-events` prints (also with a pid column, -F pid,ip,brstack,
 * and IP-only lines, -F ip), for users who kept only that text.
 *
 *  - PERF_RECORD_MMAP2 / PERF_RECORD_MMAP lines become map records of the
 *    machine;
 *  - a sample line is an IP optionally followed by branch entries
 *    0xFROM/0xTO/FLAGS…, newest first; lines of one address before a
 *    branch line are that sample's call stack, leaf first (llvm-profgen's
 *    hybrid format); a line holding only a decimal number is the repeat
 *    count of the sample that follows.
 *
 * The text has no pid unless the pid column was asked for: then every map
 * and sample goes to one address space, where a later map of a range
 * replaces an earlier one (llvm-profgen's single base address); with the
 * column, each process has its own.
 */

#include <stdint.h>
#include <stdio.h>

#include "profile/collect.h"
#include "symbol/addrspace.h"

struct perfscript_stats {
	uint64_t lines, samples, mmaps;
	uint64_t bad_lines;		/* neither a sample nor an event: skipped */
	uint64_t first_bad_line;	/* its line number, for the message */
};

/*
 * Read f (named name in messages) to its end. Returns 0, or a negative
 * errno with a message (a read error; input that holds no sample at all is
 * "not perf script output").
 */
int perfscript_read(FILE *f, const char *name, struct machine *m, struct pg_collector *c,
		    struct perfscript_stats *st);

#endif
