// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as a jitdump through the reader, then, as sbx
 * jit-inject does, its code loads into an ELF image (symbols, lines, DWARF),
 * which our own readers then open: the symbol table and the DWARF of every
 * function. Nothing may crash, hang or leak, and an image we wrote must be
 * one we can read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jit/image.h"
#include "jit/jitdump.h"
#include "symbol/dwarf.h"
#include "symbol/symtab.h"

/* One folder for the images of this process, made at the first input. */
static const char *image_path(void)
{
	static char path[64];
	static char dir[] = "/tmp/sbx-fuzz-jit.XXXXXX";

	if (!path[0]) {
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof(path), "%s/jit.so", dir);
	}
	return path;
}

static void read_image(const char *path, const struct jit_image_func *funcs, size_t nr)
{
	struct symtab *t = symtab_from_elf(path);
	struct dwarf_info *dw = dwarf_info_open(path, NULL);

	if (!t && nr)
		abort();	/* the image we just wrote does not read back */
	for (size_t i = 0; t && i < nr; i++) {
		const struct symbol *s = symtab_find(t, funcs[i].offset);

		if (s)
			symtab_demangled_name(t, s);
	}
	for (size_t i = 0; dw && i < nr; i++) {
		struct dwarf_frame frames[8];

		dwarf_info_function_at(dw, funcs[i].offset);
		dwarf_info_frames(dw, funcs[i].offset, frames, 8);
		for (size_t l = 0; l < funcs[i].nr_lines && l < 8; l++)
			dwarf_info_frames(dw, funcs[i].offset +
					  (funcs[i].lines[l].addr - funcs[i].code_addr), frames, 8);
	}
	dwarf_info_free(dw);
	symtab_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	struct jit_image_func *funcs;
	uint8_t id[JIT_IMAGE_BUILD_ID_SIZE];
	struct jitdump *d;
	size_t nr = 0;

	if (jitdump_parse(buf, len, "fuzz.dump", &d))
		return 0;
	funcs = calloc(d->nr_codes + 1, sizeof(*funcs));
	if (!funcs)
		abort();
	for (size_t i = 0; i < d->nr_codes; i++) {
		const struct jitdump_code *c = &d->codes[i];

		if (c->move)
			continue;
		funcs[nr++] = (struct jit_image_func){
			.name = c->name, .bytes = c->bytes, .size = c->size, .code_addr = c->addr,
			.lines = c->lines, .nr_lines = c->nr_lines,
		};
	}
	if (nr && !jit_image_write(image_path(), funcs, nr, 0, "fuzz", 4, id, NULL)) {
		read_image(image_path(), funcs, nr);
		unlink(image_path());
	}
	free(funcs);
	jitdump_free(d);
	return 0;
}
