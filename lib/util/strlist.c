// SPDX-License-Identifier: MIT
/* Lists of strings (see strlist.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/strlist.h"

static int add_len(struct strlist *l, const char *s, size_t len)
{
	if (array_reserve(&l->items, &l->cap, l->nr + 1, sizeof(*l->items)))
		return -ENOMEM;
	l->items[l->nr] = strndup(s, len);
	if (!l->items[l->nr])
		return -ENOMEM;
	l->nr++;
	return 0;
}

int strlist_add(struct strlist *l, const char *s)
{
	return add_len(l, s, strlen(s));
}

int strlist_split(struct strlist *l, const char *arg, char sep)
{
	while (*arg) {
		const char *end = strchr(arg, sep);
		size_t len = end ? (size_t)(end - arg) : strlen(arg);

		if (len && add_len(l, arg, len))
			return -ENOMEM;
		arg += len;
		if (*arg)
			arg++;
	}
	return 0;
}

bool strlist_has(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->items[i], s))
			return true;
	return false;
}

void strlist_release(struct strlist *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->nr = l->cap = 0;
}
