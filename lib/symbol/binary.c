// SPDX-License-Identifier: MIT
/* A binary opened for profiles: segments, build-id, symbols, DWARF, code (see binary.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/binary.h"
#include "util/error.h"
#include "util/input.h"

/* A separate debug file of this build-id, or NULL. */
static char *find_debug_file(const struct binary *b)
{
	return buildid_debug_file(b->build_id, b->build_id_size);
}

static int cmp_text(const void *a, const void *b)
{
	const struct binary_text *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

struct start {
	uint64_t addr, end;
};

static int cmp_start(const void *a, const void *b)
{
	const struct start *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Symbols of executable sections other than .plt: where decoding starts. */
static int read_code_starts(struct binary *b, Elf *elf)
{
	size_t shstrndx, cap = 0, n = 0;
	struct start *v = NULL;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			GElf_Shdr ts;
			Elf_Scn *tscn;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE)
				continue;
			tscn = elf_getscn(elf, sym.st_shndx);
			if (!tscn || !gelf_getshdr(tscn, &ts) || !(ts.sh_flags & SHF_EXECINSTR) ||
			    ts.sh_type != SHT_PROGBITS || !ts.sh_size)
				continue;
			name = elf_strptr(elf, shstrndx, ts.sh_name);
			if (name && !strcmp(name, ".plt"))
				continue;
			if (sym.st_value < ts.sh_addr || sym.st_value >= ts.sh_addr + ts.sh_size)
				continue;
			if (n == cap) {
				size_t c = cap ? 2 * cap : 1024;
				struct start *nv = realloc(v, c * sizeof(*nv));

				if (!nv) {
					free(v);
					return sbx_error(-ENOMEM, "out of memory");
				}
				v = nv;
				cap = c;
			}
			v[n++] = (struct start){ sym.st_value, ts.sh_addr + ts.sh_size };
		}
	}
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_start);
	b->code_starts = malloc(n * sizeof(*b->code_starts));
	b->code_ends = malloc(n * sizeof(*b->code_ends));
	if (!b->code_starts || !b->code_ends) {
		free(v);
		return sbx_error(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		if (b->nr_code_starts && b->code_starts[b->nr_code_starts - 1] == v[i].addr)
			continue;
		b->code_starts[b->nr_code_starts] = v[i].addr;
		b->code_ends[b->nr_code_starts++] = v[i].end;
	}
	/* each symbol's code runs to the next symbol of its section */
	for (size_t i = 0; i + 1 < b->nr_code_starts; i++)
		if (b->code_starts[i + 1] < b->code_ends[i])
			b->code_ends[i] = b->code_starts[i + 1];
	free(v);
	return 0;
}

static int read_layout(struct binary *b, Elf *elf)
{
	GElf_Ehdr eh;
	size_t phnum, shnum;
	Elf_Scn *scn = NULL;

	if (!gelf_getehdr(elf, &eh))
		return sbx_error(-EINVAL, "'%s': no ELF header", b->path);
	if (eh.e_machine != EM_X86_64)
		return sbx_error(-ENOTSUP, "'%s' is not an x86-64 binary", b->path);
	b->executable = eh.e_type == ET_EXEC;
	b->exec_base = UINT64_MAX;
	if (!elf_getphdrnum(elf, &phnum) && phnum) {
		b->loads = calloc(phnum, sizeof(*b->loads));
		if (!b->loads)
			return sbx_error(-ENOMEM, "out of memory");
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph))
				continue;
			if (ph.p_type == PT_INTERP && eh.e_type == ET_DYN)
				b->executable = true;
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && b->exec_base == UINT64_MAX)
				b->exec_base = ph.p_vaddr & ~0xfffULL;
			if (ph.p_type == PT_LOAD)
				b->loads[b->nr_loads++] = (struct dso_load){ ph.p_offset, ph.p_vaddr,
									     ph.p_filesz };
		}
	}
	if (elf_getshdrnum(elf, &shnum) || !shnum)
		return 0;
	b->texts = calloc(shnum, sizeof(*b->texts));
	if (!b->texts)
		return sbx_error(-ENOMEM, "out of memory");
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		data = elf_rawdata(scn, NULL);
		if (!data || data->d_size < sh.sh_size)
			continue;
		b->texts[b->nr_texts++] = (struct binary_text){ sh.sh_addr, sh.sh_size,
								data->d_buf };
	}
	qsort(b->texts, b->nr_texts, sizeof(*b->texts), cmp_text);
	return read_code_starts(b, elf);
}

void binary_preload(struct binary *b, const atomic_bool *stop)
{
	if (b->dwarf)
		dwarf_info_preload(b->dwarf, stop);
}

int binary_open(const char *path, const char *debug_path, struct binary **out)
{
	struct binary *b = calloc(1, sizeof(*b));
	Elf *elf;
	int err;

	*out = NULL;
	if (!b || !(b->path = strdup(path))) {
		free(b);
		return sbx_error(-ENOMEM, "out of memory");
	}
	b->fd = -1;
	if (!sbx_elf_ready()) {
		binary_free(b);
		return sbx_error(-EINVAL, "libelf: %s", elf_errmsg(-1));
	}
	/* no FIFO or device: a recording names the file */
	b->fd = input_open(path, 0, 0, NULL);
	if (b->fd < 0) {
		err = b->fd;
		b->fd = -1;
		binary_free(b);
		return err;
	}
	elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	b->elf = elf;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		binary_free(b);
		return sbx_error(-EINVAL, "'%s' is not an ELF file", path);
	}
	err = read_layout(b, elf);
	if (err) {
		binary_free(b);
		return err;
	}
	/*
	 * What the file lacks (a build-id, DWARF) is no error; what could not
	 * be read (too many open files, no memory) is, or the profile would be
	 * made without it and be wrong without a word
	 */
	err = buildid_read(path, b->build_id, sizeof(b->build_id), &b->build_id_size);
	if (err == -ENOENT)
		b->build_id_size = 0;
	if (err && err != -ENOENT)
		goto fail;
	b->symtab = symtab_from_elf(path);
	if (!b->symtab) {
		err = -errno;
		goto fail;
	}
	if (debug_path) {
		b->dwarf = dwarf_info_open(path, debug_path);
		if (!b->dwarf) {
			err = -errno;
			goto fail;
		}
		b->debug_file = strdup(debug_path);
	} else {
		/* no DWARF (ENOENT), a debug file that is not ELF (EINVAL): none */
		b->dwarf = dwarf_info_open(path, NULL);
		if (!b->dwarf && errno != ENOENT && errno != EINVAL) {
			err = -errno;
			goto fail;
		}
		if (!b->dwarf && (b->debug_file = find_debug_file(b))) {
			b->dwarf = dwarf_info_open(path, b->debug_file);
			if (!b->dwarf && errno != ENOENT && errno != EINVAL) {
				err = -errno;
				goto fail;
			}
		}
		if (!b->dwarf) {
			free(b->debug_file);
			b->debug_file = NULL;
		}
	}
	/* DWARF without a single function (no subprograms: line tables only, or none) is no help */
	if (b->dwarf) {
		const struct dwarf_func *f;

		if (!dwarf_info_functions(b->dwarf, &f)) {
			b->lines_only = true;
			dwarf_info_free(b->dwarf);
			b->dwarf = NULL;
			free(b->debug_file);
			b->debug_file = NULL;
		}
	}
	sbx_error_clear();
	*out = b;
	return 0;
fail:
	binary_free(b);
	return err;
}

void binary_free(struct binary *b)
{
	if (!b)
		return;
	dwarf_info_free(b->dwarf);
	symtab_free(b->symtab);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b->loads);
	free(b->texts);
	free(b->code_starts);
	free(b->code_ends);
	free(b->debug_file);
	free(b->path);
	free(b);
}

uint64_t binary_offset_to_vaddr(const struct binary *b, uint64_t offset)
{
	for (size_t i = 0; i < b->nr_loads; i++) {
		const struct dso_load *l = &b->loads[i];

		if (offset >= l->offset && offset < l->offset + l->filesz)
			return offset - l->offset + l->vaddr;
	}
	return UINT64_MAX;
}

const uint8_t *binary_code(const struct binary *b, uint64_t vaddr, size_t *avail)
{
	for (size_t i = 0; i < b->nr_texts; i++) {
		const struct binary_text *t = &b->texts[i];

		if (vaddr >= t->vaddr && vaddr < t->vaddr + t->size) {
			*avail = (size_t)(t->vaddr + t->size - vaddr);
			return t->data + (vaddr - t->vaddr);
		}
	}
	*avail = 0;
	return NULL;
}
