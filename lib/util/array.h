/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_ARRAY_H
#define SBX_UTIL_ARRAY_H

/*
 * Room in a growing array: the one way sbx appends to an array whose length
 * an input decides (a recording's processes, a dump's files, a DSO's
 * functions). The room doubles, so n appends copy O(n) elements in all,
 * whichever allocator is below (AddressSanitizer's realloc always copies).
 *
 *	struct row *rows = NULL;
 *	size_t nr = 0, cap = 0;
 *	if (array_reserve(&rows, &cap, nr + 1, sizeof(*rows)))
 *		…out of memory, rows unchanged…
 *	rows[nr++] = r;
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make *arrayp (a pointer to the array's pointer, of any element type) hold
 * at least need elements of size bytes; *cap is its room in elements.
 * Returns 0, or -ENOMEM (then the array and *cap are unchanged).
 */
static inline int array_reserve(void *arrayp, size_t *cap, size_t need, size_t size)
{
	size_t room = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (room < need) {
		if (room > SIZE_MAX / 2)
			return -ENOMEM;
		room *= 2;
	}
	if (room > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&p, arrayp, sizeof(p));
	p = realloc(p, room * size);
	if (!p)
		return -ENOMEM;
	memcpy(arrayp, &p, sizeof(p));
	*cap = room;
	return 0;
}

#endif
