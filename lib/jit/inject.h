/* SPDX-License-Identifier: MIT */
#ifndef SBX_JIT_INJECT_H
#define SBX_JIT_INJECT_H

/*
 * Jitted code made visible to profiles: the records of a recording, in time
 * order, go through a jit_tracker, which hands them on with MMAP2 records
 * added for the code of every jitdump the recorded processes mapped, as
 * perf inject --jit does, but
 *
 *  - with one ELF image per dump (jit/image.h), not one per function:
 *    each CODE_LOAD and CODE_MOVE becomes an MMAP2 of the range the code
 *    occupies from the record's time on, at the file offset of that
 *    function's bytes, so moved code and addresses reused later resolve to
 *    the right function, at the right time;
 *  - tolerant: bad header flags, a truncated dump, a missing dump, a pid
 *    that does not match are warnings, and the rest of the work goes on;
 *  - with the dump's clock checked: its times are read as CLOCK_MONOTONIC
 *    ns or as TSC (converted with the recording's TIME_CONV), whichever
 *    agrees with the time the process mapped the dump (its marker), and
 *    shifted to the marker when neither does, with a warning;
 *  - optionally (perf_map) with images made from /tmp/perf-PID.map for
 *    anonymous executable maps, so the names survive the map file.
 *
 * As in perf inject, the marker MMAP is consumed, and anonymous executable
 * maps of a process after its marker are dropped (a JIT that remaps its
 * code heap would hide the injected maps).
 *
 * Used by sbx jit-inject (jit_inject() below) and, with images in a
 * temporary folder, by every reader of a perf.data (sbx report, script,
 * profgen), so that no inject step is needed for sbx itself.
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "jit/image.h"
#include "perf/perf-data.h"

struct jit_tracker;

struct jit_tracker_opts {
	const char *image_dir;	/* where images go; NULL: beside each dump (perf map
				   images: in a folder made for them under $TMPDIR,
				   else /tmp, named in jit_stats.perf_map_dir) */
	bool temp_images;	/* instead: in a folder made under $TMPDIR (else /tmp)
				   for the first image, removed with the images by
				   jit_tracker_free() (the readers of a recording) */
	const char *dump_dir;	/* where to look for a dump missing at its recorded path */
	bool perf_map;		/* images from /tmp/perf-PID.map for anonymous code */
	void (*warn)(void *ctx, const char *msg);	/* one line each; may be NULL */
	void *warn_ctx;
};

/* An image the tracker wrote, for HEADER_BUILD_ID. */
struct jit_image_info {
	char *path;
	uint32_t pid;
	uint8_t build_id[JIT_IMAGE_BUILD_ID_SIZE];
};

struct jit_stats {
	uint64_t dumps;		/* jitdumps read */
	uint64_t loads, moves;	/* their CODE_LOADs and CODE_MOVEs */
	uint64_t images;	/* ELF images written */
	uint64_t mmaps;		/* MMAP2 records injected */
	uint64_t dropped;	/* anonymous exec maps dropped */
	uint64_t perf_maps;	/* images made from perf maps */
	uint64_t warnings;
	char perf_map_dir[PATH_MAX];	/* the folder made for them (no image_dir), or "" */
};

/* Hand on one record: 0, or a negative errno that stops the run. */
typedef int (*jit_emit_fn)(void *ctx, const struct perf_event_header *rec);

/*
 * A new tracker (opts are copied; the strings must outlive it); NULL with
 * errno (and a message when image_dir cannot be resolved).
 */
struct jit_tracker *jit_tracker_new(const struct jit_tracker_opts *opts);
void jit_tracker_free(struct jit_tracker *t);

/*
 * With temp_images, remove the images and their folder now, as
 * jit_tracker_free() would (for a caller that ends the process without
 * freeing); t stays usable for its names, and its images are gone.
 */
void jit_tracker_remove_images(struct jit_tracker *t);

/*
 * One record of the recording, in time order, with its attr and parsed
 * sample (or trailer) as the session gives them: emit() gets the injected
 * records due before it, then the record itself unless it is consumed (a
 * marker) or dropped. Returns 0 or a negative errno (from emit, or
 * -ENOMEM); a dump that cannot be used is a warning, not an error.
 */
int jit_tracker_record(struct jit_tracker *t, const struct perf_event_header *rec,
		       const struct perf_data_attr *attr, const struct perf_sample *sample,
		       jit_emit_fn emit, void *ctx);

/* The end of the recording: emit what is still pending. 0 or a negative errno. */
int jit_tracker_finish(struct jit_tracker *t, jit_emit_fn emit, void *ctx);

/*
 * True when t holds nothing back: a SAMPLE may then go straight to its
 * reader (jit_tracker_record() would hand it on as it is).
 */
bool jit_tracker_idle(const struct jit_tracker *t);

size_t jit_tracker_nr_images(const struct jit_tracker *t);
const struct jit_image_info *jit_tracker_image(const struct jit_tracker *t, size_t i);
const struct jit_stats *jit_tracker_stats(const struct jit_tracker *t);

/*
 * sbx jit-inject: read the perf.data in ("-": stdin), write out ("-":
 * stdout, pipe mode; a regular file: file mode, complete or not there)
 * with the attrs, features and records of in, the injected MMAP2s, and the
 * images' build-ids added to HEADER_BUILD_ID. Returns 0 or a negative
 * errno with a message; *stats (may be NULL) says what was done.
 */
int jit_inject(const char *in, const char *out, const struct jit_tracker_opts *opts,
	       struct jit_stats *stats);

#endif
