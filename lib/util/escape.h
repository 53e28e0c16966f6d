/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_ESCAPE_H
#define SBX_UTIL_ESCAPE_H

/*
 * Text that came from outside (a symbol name from a jitdump or a perf map,
 * a comm, a file name, a message a measured child wrote), made safe to
 * print on a line of its own: control characters (0x01-0x1f, 0x7f) become
 * C escapes (\n, \t, \r, else \xHH), so that no name can end a line, forge
 * the next one or move a terminal's cursor. Other bytes, UTF-8 included,
 * are kept, and so is a backslash (perf prints names as they are; only
 * what could forge output is changed).
 */

#include <stdbool.h>
#include <stddef.h>

/* Whether s[0..len) holds a byte that escape_text() would change. */
bool escape_needed(const char *s, size_t len);

/*
 * Write s[0..len) escaped into buf (cap bytes, always NUL-terminated when
 * cap > 0; cut short at a whole escape). Returns the length the whole
 * escaped text has, as snprintf does: cap or more means it was cut.
 */
size_t escape_text(char *buf, size_t cap, const char *s, size_t len);

/*
 * s escaped, in a buffer of this thread's that the next call reuses: s
 * itself when nothing needs escaping. NULL only for NULL.
 */
const char *escape_str(const char *s);

#endif
