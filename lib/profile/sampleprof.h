/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_SAMPLEPROF_H
#define SBX_PROFILE_SAMPLEPROF_H

/*
 * LLVM sample profiles (what clang -fprofile-sample-use reads): the model
 * of llvm/ProfileData/SampleProf.h, and writers of its text and extensible
 * binary formats.
 *
 * A profile holds top-level functions by name. A function has a total
 * (samples in it and in what was inlined into it), a head count (calls
 * into it; top level only), body samples keyed by a location (line offset
 * from the function's DW_AT_decl_line, and base discriminator), each with
 * the calls made there to functions that were not inlined (call targets),
 * and callsites: at a location, the profiles of the functions inlined
 * there, by name, nested in the same way.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/hashmap.h"

/* LineLocation: line offset (16 bits as LLVM keeps it) and discriminator. */
struct sp_loc {
	uint32_t line;
	uint32_t disc;
};

struct sp_target {
	const char *name;
	uint64_t count;
};

struct sp_body {
	struct sp_loc loc;
	uint64_t count;
	struct hashmap targets;		/* struct sp_target, by name */
};

struct sp_func;

struct sp_callsite {
	struct sp_loc loc;
	struct hashmap callees;		/* struct sp_func, by name */
};

/*
 * A count added to a profile's, or UINT64_MAX where the sum would wrap:
 * LLVM's SaturatingAdd, which its FunctionSamples use for totals, heads,
 * lines and call targets (a wrapped total reads as a function never run).
 */
static inline uint64_t sp_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a * b, saturated the same way (SaturatingMultiply: a line's count times its duplication) */
static inline uint64_t sp_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

struct sp_func {
	const char *name;		/* interned in the profile */
	uint64_t total, head;
	unsigned origin;		/* top level: the profile's origin when it was made */
	struct hashmap body;		/* struct sp_body, by location */
	struct hashmap callsites;	/* struct sp_callsite, by location */
};

struct sample_profile;

/* A new, empty profile; NULL with errno. */
struct sample_profile *sample_profile_new(void);
void sample_profile_free(struct sample_profile *p);

/*
 * The top-level function of that name, made (empty) on first use; NULL when
 * memory ran out.
 */
struct sp_func *sample_profile_func(struct sample_profile *p, const char *name);

/*
 * Tag the top-level functions made from now on with origin (0 before the
 * first call): which input made them, for a caller that merges several.
 */
void sample_profile_set_origin(struct sample_profile *p, unsigned origin);

/* The top-level function of that name, or NULL. */
struct sp_func *sample_profile_find(const struct sample_profile *p, const char *name);

/* The profile of callee inlined into f at loc, made on first use; NULL on ENOMEM. */
struct sp_func *sp_func_inlinee(struct sample_profile *p, struct sp_func *f, struct sp_loc loc,
				const char *callee);

/* The body record of f (a function of p) at loc, made (count 0) on first use; NULL on ENOMEM. */
struct sp_body *sp_func_body(struct sample_profile *p, struct sp_func *f, struct sp_loc loc);

/* Add count calls to target at loc (the body record is made if needed). 0 or -ENOMEM. */
int sp_func_add_target(struct sample_profile *p, struct sp_func *f, struct sp_loc loc,
		       const char *target, uint64_t count);

/*
 * For every body record of f (not of its inlinees): at least as many
 * samples as calls made there (LLVM's FunctionSamples::updateCallsiteSamples()
 * as llvm-profgen calls it, on top-level profiles).
 */
void sp_func_body_covers_calls(struct sp_func *f);

/* Remove (and free) the top-level functions whose name pred accepts. */
void sample_profile_remove_if(struct sample_profile *p, bool (*pred)(const char *name));

/* Whether entry (a struct sp_func) has the name key: for hashmap lookups. */
bool sp_func_named(const void *entry, const void *key);

/*
 * Release the tables of a function profile taken out of its table, and of
 * its inlinees. Their memory stays the profile's (one arena for every
 * function, line and name) until sample_profile_free().
 */
void sp_func_release(struct sp_func *f);

/* Top-level functions, sorted as LLVM's writers sort them: total descending, then name. */
size_t sample_profile_sorted(struct sample_profile *p, struct sp_func *const **funcs);

/* Number of top-level functions. */
size_t sample_profile_nr(const struct sample_profile *p);

/* Write the text format to f. 0, or a negative errno with a message. */
int sample_profile_write_text(struct sample_profile *p, FILE *f);

/*
 * Write the extensible binary format (llvm-profdata's and llvm-profgen's
 * default, version 103) to f. 0, or a negative errno with a message.
 */
int sample_profile_write_extbinary(struct sample_profile *p, FILE *f);

#endif
