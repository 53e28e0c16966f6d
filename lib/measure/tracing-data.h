/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_TRACING_DATA_H
#define SBX_MEASURE_TRACING_DATA_H

/*
 * The HEADER_TRACING_DATA feature of a recording with tracepoint events:
 * their format files from tracefs, in perf's layout, so that perf script
 * and sbx script can decode the raw data of their samples.
 */

#include <stddef.h>

#include "measure/record.h"

/*
 * The tracing data for the tracepoint events among r's events (perf's
 * layout, version 0.6: header_page, header_event, the format file of each
 * event grouped by system, printk formats), in a new buffer (*buf, caller
 * frees) of *len bytes. Returns 1 when made, 0 when r has no tracepoint
 * event, or a negative errno (tracefs not mounted, unreadable format).
 */
int synthesize_tracing_data(const struct record *r, void **buf, size_t *len);

#endif
