/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_AFDO_H
#define SBX_PROFILE_AFDO_H

/*
 * GCC's AutoFDO profile (gcc -fauto-profile=FILE), the gcov-based format of
 * AutoFDO's create_gcov, as GCC 12 reads it (gcc/auto-profile.cc):
 * little-endian 32-bit words; the header (magic "gcda" 0x67636461, version
 * 2, an unused word); the name table (tag 0xaa000000, a length, a count,
 * each name as its length with the NUL and its bytes, "" first, as
 * create_gcov writes it); the functions (tag 0xac000000, a length, a count,
 * each a 64-bit head count, low word first, and an instance: name index,
 * numbers of positions and of callsites; each position its offset
 * (line offset << 16), number of call targets, count and targets (type 7,
 * name index and count as 64-bit counters); each callsite its offset and
 * the inlined callee's instance); the module grouping (tag 0xae000000,
 * length 0, no module). Section lengths are in words; GCC 12 does not read
 * them.
 *
 * GCC 12 keys a line by its offset alone: it masks a position's
 * discriminator away (the last record of a line wins) and a callsite with
 * one never matches. So the lines of a function are written once each, with
 * the most any of its discriminators got and their call targets summed, and
 * callsites without discriminators (of two on one line with one callee, the
 * one of the larger total). GCC cuts a name at its first '.', so names are
 * written cut; of two top-level functions that meet so, the one of the
 * larger total is written, and a name that is all suffix (".omp_outlined.",
 * cut to "", which GCC 12 takes for index 0 and stops at) is left out.
 */

#include <stdio.h>

#include "profile/sampleprof.h"

#define AFDO_MAGIC	0x67636461u	/* "gcda" */
#define AFDO_VERSION	2u		/* GCC 12's AUTO_PROFILE_VERSION */

/* Write p to f. 0, or a negative errno with a message. */
int sample_profile_write_afdo(struct sample_profile *p, FILE *f);

#endif
