// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any text as a /tmp/perf-PID.map (what node --perf-basic-prof,
 * the JVM's perf-map-agent and LuaJIT write) through the symbol table loader,
 * the lookups of every symbol's start and end, and the demangler. Nothing may
 * crash, hang or leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbol/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	int fd = memfd_create("perf-map", MFD_CLOEXEC);
	struct symtab *t;
	char path[64];

	if (fd < 0)
		abort();
	if (len && write(fd, buf, len) != (ssize_t)len)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t = symtab_from_perf_map(path);
	for (size_t i = 0; t && i < t->nr; i++) {
		const struct symbol *s = &t->syms[i];

		symtab_find(t, s->start);
		symtab_find(t, s->start + s->size);
		symtab_find(t, s->start - 1);
		symtab_demangled_name(t, s);
	}
	symtab_free(t);
	close(fd);
	return 0;
}
