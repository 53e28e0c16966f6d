// SPDX-License-Identifier: MIT
/* /proc/cpuinfo values (see sysinfo.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sysinfo.h"

char *sysinfo_cpuinfo(const char *key, bool squeeze)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *line = NULL, *val = NULL;
	size_t cap = 0, klen = strlen(key);

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) > 0) {
		char *p, *q, *o;

		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != '\t' &&
						 line[klen] != ':'))
			continue;
		p = strchr(line, ':');
		if (!p)
			continue;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		p[strcspn(p, "\n")] = 0;
		if (squeeze) {
			for (q = o = p; *q; q++) {
				if (isspace((unsigned char)*q)) {
					if (o > p && o[-1] != ' ')
						*o++ = ' ';
				} else {
					*o++ = *q;
				}
			}
			while (o > p && o[-1] == ' ')
				o--;
			*o = 0;
		}
		val = strdup(p);
		break;
	}
	free(line);
	fclose(f);
	return val;
}
