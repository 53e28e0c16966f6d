/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_DSO_HITS_H
#define SBX_MEASURE_DSO_HITS_H

/*
 * Which DSOs got samples during a recording, for the HEADER_BUILD_ID
 * feature: the records the recording writes go through an address-space
 * model (symbol/addrspace.h: MMAP2, FORK, COMM exec, EXIT, per process),
 * and each sample's (pid, ip) is resolved to the map that holds it, so that
 * processes of one binary at different addresses are told apart.
 */

#include <stddef.h>
#include <linux/perf_event.h>

#include "measure/record.h"

struct dso_hits;

/* A new tracker for records of r (its sample layout); NULL with errno. */
struct dso_hits *dso_hits_new(const struct record *r);
void dso_hits_free(struct dso_hits *h);

/* Look at one record (anything the recording writes, synthesized too). */
void dso_hits_observe(struct dso_hits *h, const struct perf_event_header *ev);

/*
 * Resolve the samples that came before their maps in the order of the
 * buffers (a drain pass goes CPU by CPU); call after each pass.
 */
void dso_hits_flush(struct dso_hits *h);

/* Number of distinct DSOs (kernel included) that got at least one sample. */
size_t dso_hits_count(const struct dso_hits *h);

/*
 * Encode the HEADER_BUILD_ID feature: one entry per hit DSO that has a
 * build-id (ELF note; the kernel's from /sys/kernel/notes) into a new
 * buffer (*buf, caller frees). *nr gets the number of entries. Returns 0
 * (with *len 0 when there is none) or a negative errno.
 */
int dso_hits_build_id_feature(const struct dso_hits *h, void **buf, size_t *len, size_t *nr);

/* What dso_hits_cache_files() did. */
struct dso_hits_cached {
	size_t added, had, failed;	/* files copied, found there already, not cached */
	char first_error[256];		/* why the first one failed ("" when none did) */
};

/*
 * Copy each hit DSO that is a file with a build-id into perf's build-id
 * cache under dir (symbol/buildid-cache.h), as perf record does at its end;
 * the kernel, [vdso] and //anon are not copied. A file that cannot be cached
 * is counted and left out. Returns 0.
 */
int dso_hits_cache_files(const struct dso_hits *h, const char *dir, struct dso_hits_cached *out);

#endif
