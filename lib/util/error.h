/* SPDX-License-Identifier: MIT */
#ifndef SBX_ERROR_H
#define SBX_ERROR_H

/*
 * The error context of libsbx.
 *
 * Library functions never print and never exit. They return 0 (or a count)
 * on success and a negative errno on failure, or NULL with errno set, and
 * describe the failure in a per-thread message that the caller reads with
 * sbx_error_msg(). The CLI turns it into `sbx CMD: error: <message>`.
 */

#include <stdarg.h>

/*
 * Record a message describing a failure and return err unchanged, so that
 * a failing function can end with `return sbx_error(-EINVAL, "...")`.
 * The message replaces any earlier one.
 */
int sbx_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Like sbx_error(), with ": <strerror(-err)>" appended to the message.
 * err is a negative errno.
 */
int sbx_error_errno(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Same as sbx_error(), taking a va_list. */
int sbx_error_v(int err, const char *fmt, va_list ap);

/*
 * The message of the last failure recorded on this thread, or NULL when
 * there is none. The string stays valid until the next sbx_error*() or
 * sbx_error_clear() call on this thread.
 */
const char *sbx_error_msg(void);

/* Forget the last message. */
void sbx_error_clear(void);

#endif
