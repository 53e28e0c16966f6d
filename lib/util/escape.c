// SPDX-License-Identifier: MIT
/* Text from outside made safe to print (see escape.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

static bool is_control(unsigned char c)
{
	return (c && c < 0x20) || c == 0x7f;
}

bool escape_needed(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (is_control((unsigned char)s[i]))
			return true;
	return false;
}

size_t escape_text(char *buf, size_t cap, const char *s, size_t len)
{
	size_t out = 0, written = 0;

	for (size_t i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[5];
		size_t n;

		if (!is_control(c)) {
			e[0] = (char)c;
			n = 1;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			e[0] = '\\';
			e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
			n = 2;
		} else {
			snprintf(e, sizeof(e), "\\x%02x", c);
			n = 4;
		}
		/* whole escapes only, and room for the NUL */
		if (written == out && out + n < cap) {
			memcpy(buf + out, e, n);
			written += n;
		}
		out += n;
	}
	if (cap)
		buf[written] = 0;
	return out;
}

const char *escape_str(const char *s)
{
	static __thread char *buf;
	static __thread size_t cap;
	size_t len, need;

	if (!s)
		return NULL;
	len = strlen(s);
	if (!escape_needed(s, len))
		return s;
	need = escape_text(NULL, 0, s, len) + 1;
	if (need > cap) {
		char *b = realloc(buf, need);

		if (!b)
			return "(a name that could not be escaped: out of memory)";
		buf = b;
		cap = need;
	}
	escape_text(buf, cap, s, len);
	return buf;
}
