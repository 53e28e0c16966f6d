// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "util/error.h"

static __thread char msg[1024];
static __thread int have_msg;

int sbx_error_v(int err, const char *fmt, va_list ap)
{
	vsnprintf(msg, sizeof(msg), fmt, ap);
	have_msg = 1;
	return err;
}

int sbx_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbx_error_v(err, fmt, ap);
	va_end(ap);
	return err;
}

int sbx_error_errno(int err, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	sbx_error_v(err, fmt, ap);
	va_end(ap);
	len = strlen(msg);
	snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(err < 0 ? -err : err));
	return err;
}

const char *sbx_error_msg(void)
{
	return have_msg ? msg : NULL;
}

void sbx_error_clear(void)
{
	have_msg = 0;
	msg[0] = '\0';
}
