/* SPDX-License-Identifier: MIT */
#ifndef SBX_TRACE_EVENT_H
#define SBX_TRACE_EVENT_H

/*
 * Decoding of tracepoint samples: the tracing data of a perf.data (the
 * HEADER_TRACING_DATA feature, or the record of that name in pipe mode:
 * event formats, header page, kallsyms, printk formats, saved cmdlines,
 * as perf's trace-event-read.c lays them out) loaded into libtraceevent.
 */

#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;
struct json_object;

/*
 * Parse len bytes of tracing data into a new libtraceevent handle (free
 * with tep_free()). Returns 0 with *out set, or a negative errno with a
 * message when the data is malformed or truncated.
 */
int trace_event_parse(const void *buf, size_t len, struct tep_handle **out);

/* The format of tracepoint id (attr.config of a PERF_TYPE_TRACEPOINT event), or NULL. */
struct tep_event *trace_event_find(struct tep_handle *tep, uint64_t id);

/*
 * The fields of a tracepoint sample (size bytes of raw data in the format
 * of ev) as a JSON object: numbers as numbers (negative ones for signed
 * fields), strings (fixed and __data_loc), arrays as arrays of numbers;
 * fields that run past size are left out. A new object (release it with
 * json_object_put()), or NULL when memory ran out.
 */
struct json_object *trace_event_fields_json(struct tep_event *ev, const void *raw, size_t size);

#endif
