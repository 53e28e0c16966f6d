/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_STRLIST_H
#define SBX_UTIL_STRLIST_H

/* A list of strings, such as the values of `--pid 1,2,3`. */

#include <stdbool.h>
#include <stddef.h>

struct strlist {
	char **items;		/* owned */
	size_t nr, cap;
};

#define STRLIST_INIT	{ NULL, 0, 0 }

/*
 * Append the pieces of arg between the separators sep (empty pieces are
 * left out). Returns 0 or -ENOMEM (then the list holds what came before).
 */
int strlist_split(struct strlist *l, const char *arg, char sep);

/* Append a copy of s. Returns 0 or -ENOMEM. */
int strlist_add(struct strlist *l, const char *s);

/* Whether s is an item of l. */
bool strlist_has(const struct strlist *l, const char *s);

/* Free every item and the list; l is empty again. */
void strlist_release(struct strlist *l);

#endif
