/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_SYSINFO_H
#define SBX_UTIL_SYSINFO_H

/* What the machine says of itself in /proc. */

#include <stdbool.h>

/*
 * The value of the first "KEY : value" line of /proc/cpuinfo ("model name",
 * "vendor_id", "cpu family", …), without leading blanks and the newline;
 * with squeeze, every run of blanks inside it becomes one space and trailing
 * blanks go (perf's CPUDESC). A new string (caller frees), or NULL when the
 * key is absent or memory ran out.
 */
char *sysinfo_cpuinfo(const char *key, bool squeeze);

#endif
