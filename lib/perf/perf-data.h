/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_DATA_H
#define SBX_PERF_DATA_H

/*
 * perf.data: the file format of Linux perf (its header, sections, feature
 * ids and user record types) and the reader, for file mode and pipe mode;
 * the writer is perf-data-write.h. The format is Linux's
 * tools/perf/Documentation/perf.data-file-format.txt with the record types
 * of include/uapi/linux/perf_event.h and tools/lib/perf/include/perf/event.h.
 *
 * The reader memory-maps a file and hands out records in place, without a
 * copy per record; a byte-swapped file is mapped privately and each record
 * is swapped in place the first time it is handed out. Pipe mode (a stream
 * on stdin, or a pipe-mode stream saved to a file) is read with read(2).
 * The writer writes file mode into a temporary file that replaces the
 * target on close, or pipe mode to stdout.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "perf/record-type.h"
#include "perf/sample.h"

/* "PERFILE2" read as a little-endian u64 */
#define PERF_MAGIC		0x32454c4946524550ULL
#define PERF_MAGIC_SWAPPED	0x50455246494c4532ULL

/* A section of a file-mode perf.data: where it starts and how long it is. */
struct perf_file_section {
	uint64_t offset, size;
};

/* The header of a file-mode perf.data (104 bytes); features is a bitmap of HEADER_*. */
struct perf_file_header {
	uint64_t magic, size, attr_size;
	struct perf_file_section attrs, data, event_types;
	uint64_t features[4];
};

/* Feature ids: bits of the header's feature bitmap (header.h of perf). */
enum perf_header_feature {
	HEADER_RESERVED = 0,
	HEADER_TRACING_DATA = 1,
	HEADER_BUILD_ID,
	HEADER_HOSTNAME,
	HEADER_OSRELEASE,
	HEADER_VERSION,
	HEADER_ARCH,
	HEADER_NRCPUS,
	HEADER_CPUDESC,
	HEADER_CPUID,
	HEADER_TOTAL_MEM,
	HEADER_CMDLINE,
	HEADER_EVENT_DESC,
	HEADER_CPU_TOPOLOGY,
	HEADER_NUMA_TOPOLOGY,
	HEADER_BRANCH_STACK,
	HEADER_PMU_MAPPINGS,
	HEADER_GROUP_DESC,
	HEADER_AUXTRACE,
	HEADER_STAT,
	HEADER_CACHE,
	HEADER_SAMPLE_TIME,
	HEADER_MEM_TOPOLOGY,
	HEADER_CLOCKID,
	HEADER_DIR_FORMAT,
	HEADER_BPF_PROG_INFO,
	HEADER_BPF_BTF,
	HEADER_COMPRESSED,
	HEADER_CPU_PMU_CAPS,
	HEADER_CLOCK_DATA,
	HEADER_HYBRID_TOPOLOGY,
	HEADER_PMU_CAPS,
	HEADER_LAST_FEATURE,
	HEADER_FEAT_BITS = 256,
};

/* PERF_RECORD_EVENT_UPDATE types */
enum {
	PERF_EVENT_UPDATE_UNIT = 0,
	PERF_EVENT_UPDATE_SCALE = 1,
	PERF_EVENT_UPDATE_NAME = 2,
	PERF_EVENT_UPDATE_CPUS = 3,
};

/* header.misc of a build-id entry: the size byte is valid */
#define PERF_RECORD_MISC_BUILD_ID_SIZE	(1 << 15)

/* ------------------------------------------------------------------ reader */

/* One event of the file: its attr (zero-extended to this build's size), name, ids. */
struct perf_data_attr {
	struct perf_event_attr attr;
	char *name;		/* from EVENT_DESC / EVENT_UPDATE, or made from type/config */
	uint64_t *ids;
	size_t nr_ids;
	struct perf_sample_layout layout;	/* of its SAMPLE records and trailers */
};

struct perf_data;

/*
 * Open a perf.data for reading: path "-" reads stdin. Either mode is
 * detected by the header, wherever it comes from: a regular file is
 * mapped; pipe mode on a pipe is read record by record; a file-mode
 * perf.data on a pipe is read into memory first (it needs seeking). On success *out is the reader,
 * to be freed with perf_data_close(). Returns 0 or a negative errno with a
 * message (sbx_error_msg()): not a perf.data, truncated header, an attr
 * size of 0, overlapping sections.
 */
int perf_data_open(const char *path, struct perf_data **out);

/*
 * Read a perf.data from memory: len bytes at buf are copied once (the
 * reader swaps and aligns in place), so the caller may free buf at once.
 * For the unit tests, and for tools that build a perf.data in memory.
 */
int perf_data_open_mem(const void *buf, size_t len, struct perf_data **out);

/* Unmap, close and free everything; NULL is allowed. */
void perf_data_close(struct perf_data *d);

/*
 * The offset in the file of a record perf_data_next() handed out, when it
 * is known (rec lies in the mapped file); -1 for a record read from a pipe,
 * decompressed, or copied to align it.
 */
int64_t perf_data_record_offset(const struct perf_data *d, const struct perf_event_header *rec);

/*
 * perf's offset of the record perf_data_next() handed out last, as perf
 * report -D prints it: where it stands in the file; for a record
 * decompressed from COMPRESSED records, where the COMPRESSED record that
 * completed it stands; in pipe mode, counted from the end of the 16-byte
 * pipe header.
 */
uint64_t perf_data_last_offset(const struct perf_data *d);

/*
 * A perf_event_attr of size bytes (at most the struct's) written on a
 * machine of the other byte order, made native in place: each field
 * swapped, and the flag bits (bit-fields) reversed in each byte, as perf
 * swaps them.
 */
void perf_attr_swap(uint8_t *a, size_t size);

/* True for pipe mode input. */
bool perf_data_is_pipe(const struct perf_data *d);

/*
 * The features (bit f for feature f) whose section the feature table puts
 * past the end of the file: a truncated file. They read as absent.
 */
uint64_t perf_data_broken_features(const struct perf_data *d);

/*
 * The file header as read, in native byte order (its data section, its
 * feature bits), or NULL in pipe mode.
 */
const struct perf_file_header *perf_data_file_header(const struct perf_data *d);

/* fstat() of the input (the file, or the pipe): 0 or -errno (-EBADF from memory). */
struct stat;
int perf_data_stat(const struct perf_data *d, struct stat *st);

/* perf's name of feature f ("hostname", "build_id", …; "unknown"). */
const char *perf_feature_name(unsigned f);

/* True when the file was written on a machine of the other byte order. */
bool perf_data_needs_swap(const struct perf_data *d);

/*
 * The next record of the data section (or of the stream), in file order,
 * in native byte order: 1 with *rec set, 0 at the end, or a negative errno
 * (a record size that is < 8 or runs past the data: "truncated record").
 * In pipe mode, HEADER_ATTR, HEADER_FEATURE, EVENT_UPDATE and
 * HEADER_TRACING_DATA records update the attrs / features as they pass and
 * are handed out too. Records of unknown types (≥ PERF_RECORD_HEADER_MAX,
 * or kernel types this reader does not know) are handed out and counted in
 * perf_data_nr_unknown().
 *
 * perf record -z data: COMPRESSED and COMPRESSED2 records are not handed
 * out; the records in them are, decompressed (libzstd, one stream through
 * the whole input as perf writes it, so a record may straddle two
 * COMPRESSED records), in order, where the COMPRESSED record stood, as if
 * they had been in the data section. That needs the HEADER_COMPRESSED
 * feature (zstd, mmap_len); a record that decompresses to more than about
 * 2 * mmap_len bytes, corrupt zstd data, or a stream that ends inside a
 * record is an error.
 *
 * *rec is always 8-aligned. It stays valid until perf_data_close() when
 * perf_data_records_stable() is true: a file-mode file without the
 * HEADER_COMPRESSED feature, whose records are handed out in place in the
 * mapped file (or, at a misaligned offset, as an aligned copy that lives
 * until close). Otherwise (pipe mode; a file recorded with -z) it is valid
 * only until the next call: copy what you keep.
 */
int perf_data_next(struct perf_data *d, const struct perf_event_header **rec);

/*
 * True when records from perf_data_next() stay valid until close (see
 * there); the same for the life of d, known once it is open.
 */
bool perf_data_records_stable(const struct perf_data *d);

/*
 * Let the kernel drop the resident pages of a mapped file's data before
 * rec (a record perf_data_next() handed out): the reader is past them. A
 * page touched again is read again from the file, the same bytes, so every
 * record stays valid; only the resident size of a large file stays bounded.
 * Nothing happens for a stream, a pipe-mode or a byte-swapped file (whose
 * pages were written), or a rec outside the mapping.
 */
void perf_data_release_before(struct perf_data *d, const struct perf_event_header *rec);

/* Records of unknown type seen so far. */
uint64_t perf_data_nr_unknown(const struct perf_data *d);

/*
 * COMPRESSED / COMPRESSED2 records (perf record -z) seen so far; their
 * records were decompressed and handed out in their place.
 */
uint64_t perf_data_nr_compressed(const struct perf_data *d);

/*
 * Records handed out so far whose bytes came from two or more COMPRESSED
 * records (a record that straddles their boundary).
 */
uint64_t perf_data_nr_straddled(const struct perf_data *d);

/* The events: nr, and the i-th (owned by the reader). */
size_t perf_data_nr_attrs(const struct perf_data *d);

/* The attr of event id: the first when there is only one or id is 0; NULL for none. */
const struct perf_data_attr *perf_data_attr_by_id(const struct perf_data *d, uint64_t id);
const struct perf_data_attr *perf_data_attr(const struct perf_data *d, size_t i);
/* The index of a, one of d's events (perf_data_attr(d, index) is a). */
size_t perf_data_attr_index(const struct perf_data *d, const struct perf_data_attr *a);

/*
 * The attr that produced rec (a SAMPLE by its id, any other record by its
 * sample_id_all trailer), the first attr when there is only one or the id
 * is 0 / absent, NULL when the id is unknown or there are no attrs.
 */
const struct perf_data_attr *perf_data_attr_of(const struct perf_data *d,
					       const struct perf_event_header *rec);

/*
 * A feature section: 1 with *buf and *len set to its bytes (in place, in the
 * writer's byte order), 0 when the file has none. In pipe mode, features
 * are known once their HEADER_FEATURE record has passed perf_data_next().
 */
int perf_data_feature(const struct perf_data *d, int feat, const void **buf, size_t *len);

/*
 * A string feature (HOSTNAME, OSRELEASE, ARCH, CPUDESC, VERSION, CPUID)
 * decoded into a new string (caller frees), or NULL when absent or malformed.
 */
char *perf_data_feature_string(const struct perf_data *d, int feat);

/* The tracing data (HEADER_TRACING_DATA feature or record), or NULL with *len 0. */
const void *perf_data_tracing_data(const struct perf_data *d, size_t *len);

#endif
