// SPDX-License-Identifier: MIT
/*
 * Demangling of symbol names as perf shows them: C++ (Itanium ABI) through
 * libstdc++'s __cxa_demangle, Rust legacy names here.
 *
 * perf (built with libiberty's cplus_demangle) demangles without the
 * parameters by default (DMGL_NO_OPTS: "foo::bar", not "foo::bar(int)
 * const"), and with them under -v. __cxa_demangle always gives the full
 * signature, so the short form is cut out of it here: clone suffixes,
 * function qualifiers, the parameter list and a template function's return
 * type go; nested signatures (the function of a local name, a thunk's
 * target) stay, as in libiberty.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/demangle.h"

/* libstdc++ (extern "C" in namespace abi) */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static bool is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int lower_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* ------------------------------------------------------------ Rust legacy */

/* A "$XX$" escape of a legacy Rust identifier at s (n bytes left): the character and *len. */
static char rust_escape(const char *s, size_t n, size_t *len)
{
	static const struct { const char *esc; char c; } table[] = {
		{ "$C$", ',' }, { "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' },
		{ "$LT$", '<' }, { "$GT$", '>' }, { "$LP$", '(' }, { "$RP$", ')' },
	};
	int hi, lo;

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		size_t l = strlen(table[i].esc);

		if (n >= l && !memcmp(s, table[i].esc, l)) {
			*len = l;
			return table[i].c;
		}
	}
	/* $uXX$: a printable ASCII character */
	if (n >= 5 && s[1] == 'u' && s[4] == '$' && (hi = lower_hex(s[2])) >= 0 &&
	    (lo = lower_hex(s[3])) >= 0 && hi <= 7 && (hi << 4 | lo) >= 0x20) {
		*len = 5;
		return (char)(hi << 4 | lo);
	}
	return 0;
}

/*
 * _ZN{len}{ident}...17h{16 hex}E[.suffix], idents of [A-Za-z0-9_$.]:
 * "a::b" without the hash, escapes decoded, ".." as "::".
 * NULL when name is not one (errno EINVAL) or on ENOMEM.
 */
static char *rust_legacy_demangle(const char *name)
{
	size_t len = strlen(name), end = len, pos = 3, last = 0, nr = 0;
	bool dot_after = true;
	char *out, *o;

	if (strncmp(name, "_ZN", 3))
		goto bad;
	for (size_t i = 0; i < len; i++)
		if (!is_ident_char(name[i]) && !strchr("$.:@", name[i]))
			goto bad;
	/* the E that ends the path: last character, or followed by a ".suffix" */
	while (end > 0 && !(dot_after && name[end - 1] == 'E')) {
		dot_after = name[end - 1] == '.';
		end--;
	}
	if (end < 3 + 20)
		goto bad;
	end--;	/* the E */
	while (pos < end) {
		size_t n = 0;

		if (name[pos] < '0' || name[pos] > '9' || name[pos] == '0')
			goto bad;
		while (pos < end && name[pos] >= '0' && name[pos] <= '9') {
			n = n * 10 + (size_t)(name[pos++] - '0');
			if (n > end)
				goto bad;
		}
		if (n == 0 || n > end - pos)
			goto bad;
		last = pos;
		pos += n;
		nr++;
	}
	/* the last identifier is the hash: h and 16 lowercase hex digits */
	if (nr < 2 || end - last != 17 || name[last] != 'h')
		goto bad;
	for (size_t i = last + 1; i < end; i++)
		if (lower_hex(name[i]) < 0)
			goto bad;

	out = o = malloc(2 * len + 1);
	if (!out)
		return NULL;
	pos = 3;
	for (size_t k = 0; k + 1 < nr; k++) {
		size_t n = strtoul(name + pos, NULL, 10);
		const char *s;

		while (name[pos] >= '0' && name[pos] <= '9')
			pos++;
		s = name + pos;
		pos += n;
		if (k) {
			memcpy(o, "::", 2);
			o += 2;
		}
		if (n >= 2 && s[0] == '_' && s[1] == '$') {
			s++;
			n--;
		}
		while (n) {
			size_t l = 1;

			if (*s == '$') {
				char c = rust_escape(s, n, &l);

				if (!c) {
					/* unknown escape: the rest as it is */
					memcpy(o, s, n);
					o += n;
					break;
				}
				*o++ = c;
			} else if (*s == '.') {
				if (n >= 2 && s[1] == '.') {
					memcpy(o, "::", 2);
					o += 2;
					l = 2;
				} else {
					*o++ = '.';
				}
			} else {
				*o++ = *s;
			}
			s += l;
			n -= l;
		}
	}
	*o = 0;
	return out;
bad:
	errno = EINVAL;
	return NULL;
}

/* ------------------------------------------------------------------ C++ */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/*
 * Mark the characters of symbolic operator names ("operator<", "operator()",
 * "operator new[]") in s[0..len), so that the scans below do not take them
 * for brackets.
 */
static void mark_operators(const char *s, size_t len, bool *op)
{
	static const char *const ops[] = {
		"->*", "<<=", ">>=", "<=>", "()", "[]", "->", "<<", ">>", "<=", ">=", "==",
		"!=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
		"+", "-", "*", "/", "%", "^", "&", "|", "~", "!", "=", "<", ">", ",",
	};

	for (size_t i = 0; i + 8 <= len; i++) {
		size_t p = i + 8;

		if (memcmp(s + i, "operator", 8) || (i && is_ident_char(s[i - 1])) ||
		    (p < len && is_ident_char(s[p])))
			continue;
		if (p < len && s[p] == ' ') {
			/* operator new[], operator delete[] */
			p++;
			while (p < len && is_ident_char(s[p]))
				p++;
			if (p + 1 < len && s[p] == '[' && s[p + 1] == ']')
				op[p] = op[p + 1] = true;
			continue;
		}
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			size_t n = strlen(ops[k]);

			if (p + n <= len && !memcmp(s + p, ops[k], n)) {
				memset(op + p, true, n);
				break;
			}
		}
	}
}

static int bracket(char c)
{
	switch (c) {
	case '(': case '<': case '[': case '{':
		return 1;
	case ')': case '>': case ']': case '}':
		return -1;
	default:
		return 0;
	}
}

/*
 * Cut the full signature s (from __cxa_demangle) down to what libiberty
 * prints without DMGL_PARAMS, in place: "void ns::f<int>(int) const
 * [clone .cold]" -> "ns::f<int>". Names that are not function signatures
 * are left alone.
 */
static void strip_signature(char *s)
{
	static const char *const quals[] = {
		" const", " volatile", " restrict", " &&", " &", " transaction_safe", " noexcept",
	};
	size_t len = strlen(s), i;
	bool again = true, *op;
	int depth = 0;

	/* " [clone .cold]" suffixes: libiberty reads them only with the parameters */
	while (ends_with(s, len, "]")) {
		char *c = NULL;

		for (char *p = strstr(s, " [clone "); p; p = strstr(p + 1, " [clone "))
			c = p;
		if (!c)
			break;
		len = (size_t)(c - s);
		s[len] = 0;
	}
	/* "() const &": qualifiers after the parameter list */
	for (i = len; again;) {
		again = false;
		for (size_t k = 0; k < sizeof(quals) / sizeof(quals[0]); k++) {
			if (ends_with(s, i, quals[k])) {
				i -= strlen(quals[k]);
				again = true;
			}
		}
	}
	if (!ends_with(s, i, ")"))
		return;
	len = i;
	op = calloc(len + 1, sizeof(*op));
	if (!op)
		return;
	mark_operators(s, len, op);
	/* the parameter list: from the last ')' back to its '(' */
	for (i = len; i-- > 0;) {
		if (op[i] || (s[i] != '(' && s[i] != ')'))
			continue;
		depth += s[i] == ')' ? 1 : -1;
		if (!depth)
			break;
	}
	if (i == (size_t)-1 || !i) {
		free(op);
		return;
	}
	len = i;
	s[len] = 0;
	/*
	 * A template function's return type comes first: "void ns::f<int>".
	 * The name starts after the last space outside brackets that is not
	 * part of an operator's name ("operator new", "operator< <int>").
	 */
	if (ends_with(s, len, ">") && !op[len - 1]) {
		depth = 0;
		for (i = len; i-- > 0;) {
			if (op[i])
				continue;
			depth -= bracket(s[i]);
			if (depth || s[i] != ' ' || !i)
				continue;
			if (op[i - 1] || (i >= 8 && !memcmp(s + i - 8, "operator", 8)))
				continue;
			memmove(s, s + i + 1, len - i);
			break;
		}
	}
	free(op);
}

static char *cxx_demangle(const char *name, size_t len, unsigned flags)
{
	char *copy = strndup(name, len), *out;
	int status = 0;

	if (!copy)
		return NULL;
	out = __cxa_demangle(copy, NULL, NULL, &status);
	free(copy);
	if (!out) {
		errno = status == -1 ? ENOMEM : EINVAL;
		return NULL;
	}
	/* special names (thunks, guard variables) show their target in full */
	if (!(flags & DEMANGLE_PARAMS) && name[2] != 'T' && name[2] != 'G')
		strip_signature(out);
	return out;
}

char *demangle_symbol(const char *name, unsigned flags)
{
	size_t len = strlen(name);
	const char *at = strchr(name, '@');
	bool plt = ends_with(name, len, "@plt");
	char *out;

	if (strncmp(name, "_Z", 2)) {
		errno = EINVAL;
		return NULL;
	}
	out = rust_legacy_demangle(name);
	if (out || errno == ENOMEM)
		return out;
	/*
	 * "target@plt" is the demangled target with "@plt"; other "@VERSION"
	 * tails are dropped as perf's demangler drops what follows a name,
	 * but only in the short form.
	 */
	if (at && !plt && (flags & DEMANGLE_PARAMS)) {
		errno = EINVAL;
		return NULL;
	}
	out = cxx_demangle(name, at ? (size_t)(at - name) : len, flags);
	if (out && plt) {
		char *p = realloc(out, strlen(out) + 5);

		if (!p) {
			free(out);
			errno = ENOMEM;
			return NULL;
		}
		out = strcat(p, "@plt");
	}
	return out;
}
