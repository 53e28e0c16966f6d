// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <time.h>

#include "jit/inject.h"
#include "jit/jitdump.h"
#include "perf/perf-data-write.h"
#include "perf/records.h"
#include "perf/session.h"
#include "symbol/symtab.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/tempdir.h"

#define NSEC_PER_SEC 1000000000ull
/* a dump's first times may precede its marker by this much (the header is written first) */
#define MARKER_SLACK (NSEC_PER_SEC)
/* the dump's times start this close to its marker's time when the clock is right */
#define HEADER_SLACK (60 * NSEC_PER_SEC)
/* and never later than this */
#define DAY (24 * 3600 * NSEC_PER_SEC)
/* the largest span of a perf map image (zeros in the file) */
#define PERF_MAP_SPAN_MAX (256ull << 20)

enum jit_clock { CLOCK_NS, CLOCK_TSC, CLOCK_SHIFT };

struct pending {
	uint64_t time, seq;
	struct perf_event_header *rec;	/* owned */
};

/* A process with a jitdump: its anonymous exec maps are dropped from then on. */
struct jit_pid {
	uint32_t pid;
	struct hashmap dumps;	/* the dump paths handled (char *, owned) */
	bool has_dump;		/* one of them was read */
};

/* A process's /tmp/perf-PID.map, read once (NULL: there is none). */
struct perf_map {
	uint32_t pid;
	struct symtab *syms;
};

struct jit_tracker {
	struct jit_tracker_opts o;
	char *image_dir;	/* o.image_dir made absolute (MMAP2 paths must be), or
				   the temporary folder once made */
	struct tempdir temp;	/* that folder (temp_images) */
	struct pending *pend;
	size_t nr_pend, head, cap_pend;
	uint64_t seq;
	struct hashmap pids;		/* struct jit_pid, by pid (a recording's thousands) */
	struct hashmap maps;		/* struct perf_map, by pid */
	struct jit_image_info *images;
	size_t nr_images, cap_images;
	struct hashmap image_paths;	/* the images' paths (char *, the images') */
	struct jit_stats st;
	struct perf_rec_time_conv tc;
	bool have_tc;
	bool warned_clock, warned_notime;
};

static void twarn(struct jit_tracker *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void twarn(struct jit_tracker *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	t->st.warnings++;
	if (!t->o.warn)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s)
		t->o.warn(t->o.warn_ctx, s);
	free(s);
}

struct jit_tracker *jit_tracker_new(const struct jit_tracker_opts *opts)
{
	struct jit_tracker *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->temp.lock_fd = -1;
	if (opts)
		t->o = *opts;
	if (t->o.image_dir) {
		t->image_dir = realpath(t->o.image_dir, NULL);
		if (!t->image_dir) {
			sbx_error_errno(-errno, "%s", t->o.image_dir);
			free(t);
			return NULL;
		}
		t->o.image_dir = t->image_dir;
	}
	return t;
}

static void jit_pid_free(struct jit_pid *p)
{
	char *path;

	for (size_t i = 0; (path = hashmap_next(&p->dumps, &i));)
		free(path);
	hashmap_release(&p->dumps);
	free(p);
}

void jit_tracker_free(struct jit_tracker *t)
{
	struct jit_pid *p;
	struct perf_map *m;

	if (!t)
		return;
	for (size_t i = t->head; i < t->nr_pend; i++)
		free(t->pend[i].rec);
	free(t->pend);
	for (size_t i = 0; (p = hashmap_next(&t->pids, &i));)
		jit_pid_free(p);
	hashmap_release(&t->pids);
	for (size_t i = 0; (m = hashmap_next(&t->maps, &i));) {
		symtab_free(m->syms);
		free(m);
	}
	hashmap_release(&t->maps);
	jit_tracker_remove_images(t);
	for (size_t i = 0; i < t->nr_images; i++)
		free(t->images[i].path);
	free(t->images);
	hashmap_release(&t->image_paths);
	free(t->image_dir);
	free(t);
}

void jit_tracker_remove_images(struct jit_tracker *t)
{
	if (!t || !t->o.temp_images)
		return;
	for (size_t i = 0; i < t->nr_images; i++)
		unlink(t->images[i].path);
	tempdir_remove(&t->temp);
	/* once: a later call (jit_tracker_free's) finds nothing to remove */
	t->o.temp_images = false;
}

size_t jit_tracker_nr_images(const struct jit_tracker *t)
{
	return t->nr_images;
}

const struct jit_image_info *jit_tracker_image(const struct jit_tracker *t, size_t i)
{
	return i < t->nr_images ? &t->images[i] : NULL;
}

const struct jit_stats *jit_tracker_stats(const struct jit_tracker *t)
{
	return &t->st;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, slash - path);
}

/*
 * The folder for an image beside path (a dump or a map file) in *dir: the
 * chosen one, the temporary one (made now, the first time), or path's own.
 * 0, -ENOMEM, or 1 when the temporary folder cannot be made (warned: the
 * code stays unnamed).
 */
static int image_folder(struct jit_tracker *t, const char *path, char **dir)
{
	if (t->o.temp_images && !t->image_dir) {
		/* swept by a later sbx when this one is killed before it removes it */
		if (tempdir_make(&t->temp, "sbx-jit")) {
			twarn(t, "%s; jitted code stays unnamed", sbx_error_msg());
			return 1;
		}
		t->image_dir = strdup(t->temp.path);
		if (!t->image_dir)
			return -ENOMEM;
	}
	*dir = t->image_dir ? strdup(t->image_dir) : dir_of(path);
	return *dir ? 0 : -ENOMEM;
}

/*
 * The folder of perf-map images in *dir: the chosen or temporary one, else
 * one made now (the first time) under $TMPDIR (else /tmp), named
 * sbx-perf-maps-XXXXXX, which others may read and only we write. Not /tmp
 * itself: perf takes any /tmp/perf-*.so for a perf map (no ELF is read),
 * and a name there is anyone's to take. 0, -ENOMEM, or 1 when it cannot
 * be made (warned).
 */
static int perf_map_folder(struct jit_tracker *t, char **dir)
{
	const char *tmp = getenv("TMPDIR");

	if (t->o.image_dir || t->o.temp_images)
		return image_folder(t, "", dir);
	if (!t->st.perf_map_dir[0]) {
		int n = snprintf(t->st.perf_map_dir, sizeof(t->st.perf_map_dir),
				 "%s/sbx-perf-maps-XXXXXX", tmp && *tmp ? tmp : "/tmp");

		if (n < 0 || (size_t)n >= sizeof(t->st.perf_map_dir) ||
		    !mkdtemp(t->st.perf_map_dir) || chmod(t->st.perf_map_dir, 0755)) {
			twarn(t, "%s: %s; the perf maps' code stays unnamed",
			      t->st.perf_map_dir, strerror(n < 0 ? EINVAL : errno));
			t->st.perf_map_dir[0] = 0;
			return 1;
		}
	}
	*dir = strdup(t->st.perf_map_dir);
	return *dir ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------ pending records */

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int queue(struct jit_tracker *t, uint64_t time, const void *rec, size_t size)
{
	struct perf_event_header *copy = malloc(size);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, size);
	if (t->head && t->head == t->nr_pend)
		t->head = t->nr_pend = 0;
	if (t->nr_pend == t->cap_pend) {
		size_t cap = t->cap_pend ? t->cap_pend * 2 : 64;
		struct pending *p = realloc(t->pend, cap * sizeof(*p));

		if (!p) {
			free(copy);
			return -ENOMEM;
		}
		t->pend = p;
		t->cap_pend = cap;
	}
	t->pend[t->nr_pend++] = (struct pending){ time, t->seq++, copy };
	return 0;
}

/* Sort what was queued since the last flush, with what is still pending. */
static void sort_pending(struct jit_tracker *t)
{
	if (t->nr_pend > t->head)
		qsort(t->pend + t->head, t->nr_pend - t->head, sizeof(*t->pend), cmp_pending);
}

/* Emit the pending records of time ≤ until. */
static int flush(struct jit_tracker *t, uint64_t until, jit_emit_fn emit, void *ctx)
{
	while (t->head < t->nr_pend && t->pend[t->head].time <= until) {
		struct perf_event_header *rec = t->pend[t->head].rec;
		int err;

		t->pend[t->head++].rec = NULL;
		err = emit(ctx, rec);
		free(rec);
		if (err)
			return err;
	}
	return 0;
}

bool jit_tracker_idle(const struct jit_tracker *t)
{
	return t->head == t->nr_pend;
}

int jit_tracker_finish(struct jit_tracker *t, jit_emit_fn emit, void *ctx)
{
	return flush(t, UINT64_MAX, emit, ctx);
}

/* ------------------------------------------------------------------ clocks */

/* TSC to perf time, as perf's tsc_to_perf_time() */
static uint64_t tsc_to_time(const struct perf_rec_time_conv *tc, uint64_t cyc)
{
	uint64_t quot, rem;

	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	if (tc->time_shift >= 64)
		return tc->time_zero;
	quot = cyc >> tc->time_shift;
	rem = cyc & ((1ull << tc->time_shift) - 1);
	return tc->time_zero + quot * tc->time_mult + ((rem * tc->time_mult) >> tc->time_shift);
}

struct clock_choice {
	enum jit_clock clock;
	int64_t shift;		/* CLOCK_SHIFT: added to the dump's times */
};

static uint64_t convert(const struct jit_tracker *t, const struct clock_choice *c, uint64_t v)
{
	switch (c->clock) {
	case CLOCK_TSC:
		return tsc_to_time(&t->tc, v);
	case CLOCK_SHIFT:
		return v + (uint64_t)c->shift;
	default:
		return v;
	}
}

/*
 * How far after the marker the dump's times start when read with clock, or
 * -1 when they cannot be its times: before the marker (less some slack:
 * the header is written before the marker is mapped), or a TSC reading
 * without TIME_CONV. The first record decides; the header's timestamp only
 * when there is none (V8 writes wall-clock microseconds there).
 */
static int64_t distance(const struct jit_tracker *t, const struct jitdump *d,
			enum jit_clock clock, uint64_t marker)
{
	struct clock_choice c = { clock, 0 };
	uint64_t first;

	if (clock == CLOCK_TSC && !t->have_tc)
		return -1;
	if (d->nr_codes)
		first = convert(t, &c, d->codes[0].time);
	else if (d->timestamp)
		first = convert(t, &c, d->timestamp);
	else
		return 0;
	if (first + MARKER_SLACK < marker)
		return -1;
	if (first <= marker)
		return 0;
	return first - marker > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(first - marker);
}

static const char *clock_name(enum jit_clock c)
{
	return c == CLOCK_TSC ? "TSC (through TIME_CONV)" : "CLOCK_MONOTONIC";
}

static struct clock_choice choose_clock(struct jit_tracker *t, const struct jitdump *d,
					uint64_t marker, bool mono)
{
	bool arch = d->flags & JITDUMP_FLAGS_ARCH_TIMESTAMP;
	enum jit_clock said = arch ? CLOCK_TSC : CLOCK_NS, other = arch ? CLOCK_NS : CLOCK_TSC;
	int64_t ds = distance(t, d, said, marker), dother = distance(t, d, other, marker);
	struct clock_choice c = { said, 0 };

	/* what the header says, when its times start near the marker */
	if (ds >= 0 && (ds <= (int64_t)HEADER_SLACK || dother < 0 || ds <= dother) &&
	    ds <= (int64_t)DAY) {
		if (said == CLOCK_NS && !mono && !t->warned_clock) {
			t->warned_clock = true;
			twarn(t, "the recording's clock is not CLOCK_MONOTONIC (record with "
			      "-k mono): the jitdump times are taken as they are");
		}
		return c;
	}
	if (dother >= 0 && dother <= (int64_t)DAY) {
		twarn(t, "%s: its header says %s timestamps but they read as %s; read as %s",
		      d->path, clock_name(said), clock_name(other), clock_name(other));
		c.clock = other;
		return c;
	}
	c.clock = CLOCK_SHIFT;
	c.shift = d->nr_codes ? (int64_t)(marker - d->codes[0].time) : 0;
	twarn(t, "%s: its times match neither CLOCK_MONOTONIC nor the TSC of the recording%s; "
	      "they were shifted to start at the time the dump was mapped", d->path,
	      arch && !t->have_tc ? " (it has no TIME_CONV)" : "");
	return c;
}

/* --------------------------------------------------------------- jitdumps */

static bool pid_is(const void *entry, const void *key)
{
	/* struct jit_pid and struct perf_map both begin with their pid */
	return *(const uint32_t *)entry == *(const uint32_t *)key;
}

static bool path_is(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

static struct jit_pid *jit_pid_find(struct jit_tracker *t, uint32_t pid)
{
	return hashmap_get(&t->pids, hash_u64(pid), pid_is, &pid);
}

static struct jit_pid *jit_pid_get(struct jit_tracker *t, uint32_t pid)
{
	struct jit_pid *p = jit_pid_find(t, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (hashmap_put(&t->pids, hash_u64(pid), p)) {
		free(p);
		return NULL;
	}
	return p;
}

/*
 * The anonymous code maps that perf inject drops for a process with a
 * jitdump (perf's jit_process(): //anon, [anon:…], /memfd:…), here also
 * where --perf-map looks for symbols.
 */
static bool is_anon(const char *name)
{
	return !name[0] || !strncmp(name, "//anon", 6) || !strncmp(name, "[anon:", 6) ||
	       !strncmp(name, "/memfd:", 7);
}

/* the names tried for one image: PREFIX.so, PREFIX-1.so, ... */
#define MAX_IMAGE_NAMES 1000

/*
 * Write an image of funcs[0..nr) into dir as PREFIX.so, else PREFIX-N.so:
 * the first name this tracker has not used that no folder holds. What else
 * holds it (an image of an earlier run, or a link or a FIFO that someone put
 * there) is replaced as a name, never followed or opened
 * (output_open_name()). 0 with *path (owned) and *st; or a negative errno
 * with a message.
 */
static int write_image(struct jit_tracker *t, const char *dir, const char *prefix,
		       struct jit_image_func *funcs, size_t nr, unsigned flags, const char *salt,
		       size_t salt_len, uint8_t *id, char **path, struct stat *st)
{
	for (unsigned n = 0; n < MAX_IMAGE_NAMES; n++) {
		char *p;
		bool used = false;
		int err;

		if ((n ? asprintf(&p, "%s/%s-%u.so", dir, prefix, n)
		       : asprintf(&p, "%s/%s.so", dir, prefix)) < 0)
			return sbx_error(-ENOMEM, "out of memory");
		used = hashmap_get(&t->image_paths, hash_str(p), path_is, p) != NULL;
		err = used ? -EEXIST : jit_image_write(p, funcs, nr, flags, salt, salt_len, id, st);
		if (!err) {
			*path = p;
			return 0;
		}
		free(p);
		if (err != -EEXIST && err != -EISDIR)
			return err;
	}
	return sbx_error(-EEXIST, "%s/%s.so: that name and %u others are folders", dir, prefix,
			 MAX_IMAGE_NAMES - 1);
}

/*
 * A failed image: for jit-inject (whose output names the images) an error;
 * for a reader with temporary images, a warning (the code stays unnamed).
 */
static int image_failed(struct jit_tracker *t, int err, uint32_t pid)
{
	if (err == -ENOMEM || !t->o.temp_images)
		return err;
	twarn(t, "%s; the jitted code of pid %u stays unnamed", sbx_error_msg(), pid);
	return 0;
}

static int add_image(struct jit_tracker *t, char *path, uint32_t pid, const uint8_t *id)
{
	struct jit_image_info *im;

	if (array_reserve(&t->images, &t->cap_images, t->nr_images + 1, sizeof(*t->images)) ||
	    hashmap_put(&t->image_paths, hash_str(path), path))
		return -ENOMEM;
	im = &t->images[t->nr_images++];
	im->path = path;
	im->pid = pid;
	memcpy(im->build_id, id, JIT_IMAGE_BUILD_ID_SIZE);
	t->st.images++;
	return 0;
}

/* An MMAP2 of [start, start + len) at pgoff of image, with the marker's trailer at time. */
static int queue_mmap2(struct jit_tracker *t, const struct perf_data_attr *attr,
		       const struct perf_sample *tmpl, uint32_t pid, uint32_t tid,
		       uint64_t time, uint64_t start, uint64_t len, uint64_t pgoff,
		       const char *image, const struct stat *st)
{
	uint8_t buf[PERF_REC_MAX_SIZE];
	struct perf_sample id = *tmpl;
	struct perf_rec_mmap m = {
		.misc = PERF_RECORD_MISC_USER, .mmap2 = true,
		.pid = pid, .tid = tid, .start = start, .len = len, .pgoff = pgoff,
		.maj = major(st->st_dev), .min = minor(st->st_dev), .ino = st->st_ino,
		.ino_generation = 1,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
		.filename = image,
	};
	int size;

	id.pid = pid;
	id.tid = tid;
	id.time = time;
	size = perf_rec_encode_mmap(buf, sizeof(buf), &m, &attr->layout, &id);
	if (size < 0)
		return sbx_error(size, "%s: path too long for an MMAP2 record", image);
	t->st.mmaps++;
	return queue(t, time, buf, size);
}


/* Read the dump a marker names: at its path, or in dump_dir. */
static int open_dump(struct jit_tracker *t, const char *path, struct jitdump **d)
{
	const char *base = strrchr(path, '/');
	char *alt;
	int err = jitdump_open(path, d);

	if (err != -ENOENT || !t->o.dump_dir)
		return err;
	if (asprintf(&alt, "%s/%s", t->o.dump_dir, base ? base + 1 : path) < 0)
		return -ENOMEM;
	err = jitdump_open(alt, d);
	free(alt);
	return err;
}


static int marker(struct jit_tracker *t, const struct perf_rec_mmap *mm,
		  const struct perf_data_attr *attr, const struct perf_sample *sample)
{
	bool have_time = attr && (attr->layout.sample_type & PERF_SAMPLE_TIME) &&
			 attr->layout.sample_id_all && sample->time != (uint64_t)-1;
	bool mono = attr && attr->attr.use_clockid && attr->attr.clockid == CLOCK_MONOTONIC;
	struct jit_image_func *funcs = NULL;
	size_t *func_of = NULL, nr_funcs = 0;
	struct clock_choice clock = { CLOCK_NS, 0 };
	struct jitdump *d = NULL;
	struct jit_pid *p;
	char *dir = NULL, *image = NULL, prefix[32];
	uint8_t id[JIT_IMAGE_BUILD_ID_SIZE];
	uint32_t name_pid;
	struct stat st;
	char *seen;
	int err;

	p = jit_pid_get(t, mm->pid);
	if (!p)
		return -ENOMEM;
	if (hashmap_get(&p->dumps, hash_str(mm->filename), path_is, mm->filename))
		return 0;
	seen = strdup(mm->filename);
	if (!seen || hashmap_put(&p->dumps, hash_str(seen), seen)) {
		free(seen);
		return -ENOMEM;
	}
	if (jitdump_name_pid(mm->filename, &name_pid) && name_pid != mm->pid)
		twarn(t, "%s: named for pid %u but mapped by pid %u (a pid namespace?); its "
		      "code is pid %u's", mm->filename, name_pid, mm->pid, mm->pid);
	err = open_dump(t, mm->filename, &d);
	if (err == -ENOMEM)
		return err;
	if (err) {
		twarn(t, "%s; the jitted code of pid %u stays unnamed", sbx_error_msg(), mm->pid);
		return 0;
	}
	t->st.dumps++;
	p->has_dump = true;
	t->st.loads += d->nr_loads;
	t->st.moves += d->nr_moves;
	for (size_t i = 0; i < d->nr_warnings; i++)
		twarn(t, "%s", d->warnings[i]);
	if (d->pid != mm->pid)
		twarn(t, "%s: its header says pid %u, but pid %u mapped it", d->path, d->pid,
		      mm->pid);
	if (!d->nr_codes)
		goto out;
	funcs = calloc(d->nr_codes, sizeof(*funcs));
	func_of = calloc(d->nr_codes, sizeof(*func_of));
	if (!funcs || !func_of) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < d->nr_codes; i++) {
		const struct jitdump_code *c = &d->codes[i];

		if (c->move)
			continue;
		func_of[i] = nr_funcs;
		funcs[nr_funcs++] = (struct jit_image_func){
			.name = c->name, .bytes = c->bytes, .size = c->size, .code_addr = c->addr,
			.lines = c->lines, .nr_lines = c->nr_lines,
		};
	}
	err = image_folder(t, d->path, &dir);
	if (err) {
		err = err < 0 ? err : 0;
		goto out;
	}
	snprintf(prefix, sizeof(prefix), "jit-%u", mm->pid);
	{
		/* the salt: which dump, written when, so that no two runs share a build-id */
		char salt[4096];
		int n = snprintf(salt, sizeof(salt), "%s %u %" PRIu64, d->path, d->pid,
				 d->timestamp);

		err = write_image(t, dir, prefix, funcs, nr_funcs, 0, salt,
				  n > 0 ? (size_t)n < sizeof(salt) ? (size_t)n : sizeof(salt) - 1 : 0,
				  id, &image, &st);
	}
	if (err) {
		err = image_failed(t, err, mm->pid);
		goto out;
	}
	err = add_image(t, image, mm->pid, id);
	if (err)
		goto out;
	image = NULL;
	if (have_time)
		clock = choose_clock(t, d, sample->time, mono);
	else if (!t->warned_notime) {
		t->warned_notime = true;
		twarn(t, "the recording has no timestamps: jitted code is mapped as it is at the "
		      "end of each dump (moved or reused code resolves to its last function)");
	}
	for (size_t i = 0; i < d->nr_codes; i++) {
		const struct jitdump_code *c = &d->codes[i];
		const struct jit_image_func *f = &funcs[func_of[c->move ? c->load : i]];
		uint64_t time = have_time ? convert(t, &clock, c->time) : 0;

		if (!c->size)
			continue;
		/* never before the marker: the map must not go back in time */
		if (have_time && time < sample->time)
			time = sample->time;
		err = queue_mmap2(t, attr, sample, mm->pid, c->tid ? c->tid : mm->pid, time,
				  c->addr, c->size, f->offset,
				  t->images[t->nr_images - 1].path, &st);
		if (err)
			goto out;
	}
	sort_pending(t);
out:
	free(image);
	free(dir);
	free(funcs);
	free(func_of);
	jitdump_free(d);
	return err;
}

/* -------------------------------------------------------------- perf maps */

/* The perf map of pid, read through symtab the first time it is asked for. */
static int perf_map_get(struct jit_tracker *t, uint32_t pid, const struct symtab **out)
{
	struct perf_map *m;
	char path[64];

	m = hashmap_get(&t->maps, hash_u64(pid), pid_is, &pid);
	if (m) {
		*out = m->syms;
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->pid = pid;
	if (hashmap_put(&t->maps, hash_u64(pid), m)) {
		free(m);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	m->syms = symtab_from_perf_map(path);
	if (!m->syms && errno == ENOMEM)
		return -ENOMEM;
	*out = m->syms;
	return 0;
}

/* Where a perf map symbol ends: its size may run past the top of the address space. */
static uint64_t sym_end(const struct symbol *s)
{
	return s->size > UINT64_MAX - s->start ? UINT64_MAX : s->start + s->size;
}

/* After an anonymous exec map: an image of the perf map's symbols in it, mapped over it. */
static int perf_map_image(struct jit_tracker *t, const struct perf_rec_mmap *mm,
			  const struct perf_data_attr *attr, const struct perf_sample *sample)
{
	uint64_t lo = UINT64_MAX, hi = 0, end = mm->start + mm->len;
	struct jit_image_func *funcs = NULL;
	const struct symtab *pm;
	size_t nr = 0;
	uint8_t id[JIT_IMAGE_BUILD_ID_SIZE];
	char prefix[64], *image = NULL, *dir, salt[128];
	struct stat st;
	int err;

	err = perf_map_get(t, mm->pid, &pm);
	if (err)
		return err;
	if (!pm || !attr)
		return 0;
	for (size_t i = 0; i < pm->nr; i++) {
		const struct symbol *s = &pm->syms[i];

		if (s->start < mm->start || s->start >= end)
			continue;
		lo = s->start < lo ? s->start : lo;
		hi = sym_end(s) > hi ? sym_end(s) : hi;
	}
	if (lo == UINT64_MAX)
		return 0;
	if (hi > end)
		hi = end;
	if (hi - lo > PERF_MAP_SPAN_MAX) {
		twarn(t, "/tmp/perf-%u.map: its symbols in %#" PRIx64 "-%#" PRIx64 " span more "
		      "than %llu MiB; no image made for them", mm->pid, mm->start, end,
		      PERF_MAP_SPAN_MAX >> 20);
		return 0;
	}
	funcs = calloc(pm->nr, sizeof(*funcs));
	if (!funcs)
		return -ENOMEM;
	for (size_t i = 0; i < pm->nr; i++) {
		const struct symbol *s = &pm->syms[i];

		if (s->start < lo || s->start >= hi)
			continue;
		funcs[nr++] = (struct jit_image_func){
			.name = s->name, .size = (sym_end(s) > hi ? hi : sym_end(s)) - s->start,
			.offset = JIT_IMAGE_TEXT_OFFSET + (s->start - lo),
		};
	}
	snprintf(prefix, sizeof(prefix), "perf-%u-%" PRIx64, mm->pid, lo);
	err = perf_map_folder(t, &dir);
	if (err) {
		free(funcs);
		return err < 0 ? err : 0;
	}
	snprintf(salt, sizeof(salt), "perf map %u %" PRIx64 " %" PRIu64, mm->pid, lo,
		 sample->time);
	err = write_image(t, dir, prefix, funcs, nr, JIT_IMAGE_SYMBOLS_ONLY, salt, strlen(salt),
			  id, &image, &st);
	free(dir);
	free(funcs);
	if (err)
		return image_failed(t, err, mm->pid);
	err = add_image(t, image, mm->pid, id);
	if (err) {
		free(image);
		return err;
	}
	t->st.perf_maps++;
	err = queue_mmap2(t, attr, sample, mm->pid, mm->tid, sample->time == (uint64_t)-1 ? 0 :
			  sample->time, lo, hi - lo, JIT_IMAGE_TEXT_OFFSET, image, &st);
	sort_pending(t);
	return err;
}

/* ------------------------------------------------------------------ records */

int jit_tracker_record(struct jit_tracker *t, const struct perf_event_header *rec,
		       const struct perf_data_attr *attr, const struct perf_sample *sample,
		       jit_emit_fn emit, void *ctx)
{
	uint64_t time = sample && sample->time != (uint64_t)-1 ? sample->time : 0;
	struct perf_rec_mmap mm;
	struct perf_rec_comm c;
	struct jit_pid *p;
	uint32_t pid;
	int err;

	/* records without a time (synthesized, header records) are not held back */
	if (time) {
		err = flush(t, time, emit, ctx);
		if (err)
			return err;
	}
	switch (rec->type) {
	case PERF_RECORD_TIME_CONV:
		if (!perf_rec_parse_time_conv(rec, &t->tc))
			t->have_tc = t->tc.time_mult != 0;
		break;
	case PERF_RECORD_COMM:
		/* exec: a new program, whose maps are its own again */
		if (!perf_rec_parse_comm(rec, &c) && (c.misc & PERF_RECORD_MISC_COMM_EXEC) &&
		    (p = hashmap_remove(&t->pids, hash_u64(c.pid), pid_is, &c.pid)))
			jit_pid_free(p);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (perf_rec_parse_mmap(rec, &mm) || !perf_rec_mmap_is_exec(&mm))
			break;
		if (jitdump_name_pid(mm.filename, &pid)) {
			static const struct perf_sample none = { .time = (uint64_t)-1 };

			err = marker(t, &mm, attr, sample ? sample : &none);
			if (err)
				return err;
			/* the injected maps due now go before what follows */
			return flush(t, time, emit, ctx);
		}
		p = jit_pid_find(t, mm.pid);
		if (is_anon(mm.filename) && p && p->has_dump) {
			t->st.dropped++;
			return 0;
		}
		if (t->o.perf_map && is_anon(mm.filename) && sample) {
			err = emit(ctx, rec);
			if (err)
				return err;
			err = perf_map_image(t, &mm, attr, sample);
			if (err)
				return err;
			return flush(t, time, emit, ctx);
		}
		break;
	}
	return emit(ctx, rec);
}

/* --------------------------------------------------------------- jit-inject */

struct inject {
	struct perf_data *in;
	struct perf_data_writer *w;
	struct jit_tracker *t;
	bool started;
	uint8_t *build_ids;	/* the input's build-id entries, native order */
	size_t build_ids_len;
};

static bool pipe_header_record(uint32_t type)
{
	return type == PERF_RECORD_HEADER_ATTR || type == PERF_RECORD_EVENT_UPDATE ||
	       type == PERF_RECORD_HEADER_FEATURE || type == PERF_RECORD_HEADER_TRACING_DATA ||
	       type == PERF_RECORD_HEADER_EVENT_TYPE;
}

static int add_build_ids(struct inject *j, const void *p, size_t len)
{
	uint8_t *n = realloc(j->build_ids, j->build_ids_len + len + 1);

	if (!n)
		return -ENOMEM;
	j->build_ids = n;
	memcpy(n + j->build_ids_len, p, len);
	j->build_ids_len += len;
	return 0;
}

/* The writer gets the input's events and features before its first record. */
static int start(struct inject *j)
{
	bool swapped = perf_data_needs_swap(j->in);
	int err;

	j->started = true;
	for (size_t i = 0; i < perf_data_nr_attrs(j->in); i++) {
		const struct perf_data_attr *a = perf_data_attr(j->in, i);

		err = perf_data_writer_add_attr(j->w, &a->attr, a->name, a->ids, a->nr_ids);
		if (err)
			return err;
	}
	for (int f = 1; f < HEADER_LAST_FEATURE; f++) {
		const void *buf;
		size_t len;

		/* records go out decompressed; build-ids are merged at the end */
		if (f == HEADER_COMPRESSED || f == HEADER_DIR_FORMAT ||
		    perf_data_feature(j->in, f, &buf, &len) != 1)
			continue;
		if (f == HEADER_BUILD_ID) {
			if (!swapped && (err = add_build_ids(j, buf, len)))
				return sbx_error(err, "out of memory");
			continue;
		}
		/* features of the other byte order are not swapped by the reader */
		if (swapped)
			continue;
		err = perf_data_writer_add_feature(j->w, f, buf, len);
		if (err)
			return err;
	}
	return 0;
}

static int write_rec(void *ctx, const struct perf_event_header *rec)
{
	struct inject *j = ctx;
	int err;

	if (!j->started && (err = start(j)))
		return err;
	return perf_data_writer_write(j->w, rec);
}

static int inject_one(void *ctx, const struct perf_event_header *rec,
		      const struct perf_data_attr *attr, const struct perf_sample *sample)
{
	struct inject *j = ctx;

	if (pipe_header_record(rec->type) || rec->type == PERF_RECORD_FINISHED_INIT)
		return 0;
	if (rec->type == PERF_RECORD_HEADER_BUILD_ID) {
		if (add_build_ids(j, rec, rec->size))
			return sbx_error(-ENOMEM, "out of memory");
		return 0;
	}
	return jit_tracker_record(j->t, rec, attr, sample, write_rec, j);
}

/* The input's build-ids and the images', as one HEADER_BUILD_ID. */
static int write_build_ids(struct inject *j)
{
	for (size_t i = 0; i < jit_tracker_nr_images(j->t); i++) {
		const struct jit_image_info *im = jit_tracker_image(j->t, i);
		uint8_t buf[PERF_REC_MAX_SIZE];
		struct perf_rec_build_id b = {
			.misc = PERF_RECORD_MISC_USER, .pid = -1, .size = JIT_IMAGE_BUILD_ID_SIZE,
			.filename = im->path,
		};
		int n;

		memcpy(b.build_id, im->build_id, JIT_IMAGE_BUILD_ID_SIZE);
		n = perf_rec_encode_build_id(buf, sizeof(buf), &b);
		if (n < 0)
			return sbx_error(n, "%s: path too long for a build-id entry", im->path);
		if (add_build_ids(j, buf, n))
			return sbx_error(-ENOMEM, "out of memory");
	}
	if (!j->build_ids_len)
		return 0;
	if (!perf_data_writer_is_pipe(j->w))
		return perf_data_writer_add_feature(j->w, HEADER_BUILD_ID, j->build_ids,
						    j->build_ids_len);
	/* pipe mode: HEADER_BUILD_ID records, at the end (perf applies them when seen) */
	for (size_t off = 0; off + sizeof(struct perf_event_header) <= j->build_ids_len;) {
		struct perf_event_header h;
		int err;

		memcpy(&h, j->build_ids + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || off + h.size > j->build_ids_len)
			break;
		h.type = PERF_RECORD_HEADER_BUILD_ID;
		memcpy(j->build_ids + off, &h, sizeof(h));
		err = perf_data_writer_write(j->w, j->build_ids + off);
		if (err)
			return err;
		off += h.size;
	}
	return 0;
}

int jit_inject(const char *in, const char *out, const struct jit_tracker_opts *opts,
	       struct jit_stats *stats)
{
	struct inject j = { 0 };
	struct session *s = NULL;
	int err;

	err = perf_data_open(in, &j.in);
	if (err)
		return err;
	j.t = jit_tracker_new(opts);
	if (!j.t) {
		err = errno == ENOMEM ? sbx_error(-ENOMEM, "out of memory") : -errno;
		goto out;
	}
	s = session_new(j.in);
	if (!s) {
		err = sbx_error(-ENOMEM, "out of memory");
		goto out;
	}
	err = perf_data_writer_open(out, &j.w);
	if (err)
		goto out;
	err = session_run(s, inject_one, &j);
	if (!err)
		err = jit_tracker_finish(j.t, write_rec, &j);
	if (!err && !j.started)
		err = start(&j);
	if (!err)
		err = write_build_ids(&j);
	if (!err) {
		err = perf_data_writer_close(j.w);
		j.w = NULL;
	}
out:
	if (stats && j.t)
		*stats = *jit_tracker_stats(j.t);
	perf_data_writer_abort(j.w);
	session_free(s);
	jit_tracker_free(j.t);
	free(j.build_ids);
	perf_data_close(j.in);
	return err;
}
