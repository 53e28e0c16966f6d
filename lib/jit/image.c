// SPDX-License-Identifier: MIT
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "jit/image.h"
#include "symbol/buildid.h"
#include "util/array.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/output.h"
#include "util/sha1.h"

#define ALIGN(x, a) (((x) + (a) - 1) / (a) * (a))

/* DWARF constants (DWARF 3, §7) */
enum {
	DW_TAG_compile_unit = 0x11, DW_TAG_subprogram = 0x2e,
	DW_AT_name = 0x03, DW_AT_stmt_list = 0x10, DW_AT_low_pc = 0x11, DW_AT_high_pc = 0x12,
	DW_AT_producer = 0x25,
	DW_FORM_addr = 0x01, DW_FORM_data4 = 0x06, DW_FORM_string = 0x08,
	DW_LNS_copy = 1, DW_LNS_advance_pc = 2, DW_LNS_advance_line = 3, DW_LNS_set_file = 4,
	DW_LNS_set_column = 5,
	DW_LNE_end_sequence = 1, DW_LNE_set_address = 2,
};

static void abbrev(struct bytes *a)
{
	static const uint8_t tab[] = {
		1, DW_TAG_compile_unit, 1,
		DW_AT_name, DW_FORM_string, DW_AT_producer, DW_FORM_string,
		DW_AT_stmt_list, DW_FORM_data4, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_addr, 0, 0,
		2, DW_TAG_subprogram, 0,
		DW_AT_name, DW_FORM_string, DW_AT_low_pc, DW_FORM_addr,
		DW_AT_high_pc, DW_FORM_addr, 0, 0,
		0,
	};

	bytes_put(a, tab, sizeof(tab));
}

static void info(struct bytes *b, const struct jit_image_func *f, size_t nr, uint64_t end)
{
	bytes_put_u32(b, 0);		/* unit_length, patched */
	bytes_put_u16(b, 3);
	bytes_put_u32(b, 0);		/* .debug_abbrev offset */
	bytes_put_u8(b, 8);
	bytes_put_uleb(b, 1);
	bytes_put_str(b, "jitted code");
	bytes_put_str(b, "sbx jit-inject");
	bytes_put_u32(b, 0);		/* .debug_line offset */
	bytes_put_u64(b, JIT_IMAGE_TEXT_OFFSET);
	bytes_put_u64(b, end);
	for (size_t i = 0; i < nr; i++) {
		if (!f[i].size)
			continue;
		bytes_put_uleb(b, 2);
		bytes_put_str(b, f[i].name);
		bytes_put_u64(b, f[i].offset);
		bytes_put_u64(b, f[i].offset + f[i].size);
	}
	bytes_put_u8(b, 0);
	bytes_patch_u32(b, 0, b->len - 4);
}

/* The file table of a line program: names in order, and by name (many dumps name thousands). */
struct file_table {
	const char **names;
	size_t nr, cap;
	struct hashmap by_name;		/* struct file_entry */
};

struct file_entry {
	const char *name;
	uint64_t index;			/* from 1 */
};

static bool file_is(const void *entry, const void *name)
{
	return !strcmp(((const struct file_entry *)entry)->name, name);
}

/* The index (from 1) of file in the table, added when new; 0 when out of memory. */
static uint64_t file_index(struct file_table *t, const char *file)
{
	uint64_t h;
	struct file_entry *e;

	/* the same file as the line before, mostly the same pointer */
	if (t->nr && (t->names[t->nr - 1] == file || !strcmp(t->names[t->nr - 1], file)))
		return t->nr;
	h = hash_str(file);
	e = hashmap_get(&t->by_name, h, file_is, file);
	if (e)
		return e->index;
	if (array_reserve(&t->names, &t->cap, t->nr + 1, sizeof(*t->names)))
		return 0;
	e = malloc(sizeof(*e));
	if (!e)
		return 0;
	*e = (struct file_entry){ file, t->nr + 1 };
	if (hashmap_put(&t->by_name, h, e)) {
		free(e);
		return 0;
	}
	t->names[t->nr++] = file;
	return t->nr;
}

static void file_table_release(struct file_table *t)
{
	void *e;

	for (size_t i = 0; (e = hashmap_next(&t->by_name, &i));)
		free(e);
	hashmap_release(&t->by_name);
	free(t->names);
}

static int line_program(struct bytes *b, const struct jit_image_func *funcs, size_t nr)
{
	static const uint8_t std_lengths[12] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	struct file_table files = { NULL, 0, 0, HASHMAP_INIT };
	size_t hdr_len_at;
	struct bytes prog = { 0 };

	for (size_t i = 0; i < nr; i++) {
		const struct jit_image_func *f = &funcs[i];
		uint64_t addr = f->offset, line = 1, file = 1, column = 0;
		bool started = false;

		for (size_t k = 0; k < f->nr_lines; k++) {
			const struct jitdump_line *l = &f->lines[k];
			uint64_t at, fi;

			if (l->addr < f->code_addr || l->addr - f->code_addr >= f->size || !l->line)
				continue;
			at = f->offset + (l->addr - f->code_addr);
			fi = file_index(&files, l->file ? l->file : "");
			if (!fi) {
				file_table_release(&files);
				free(prog.p);
				return -ENOMEM;
			}
			if (!started) {
				bytes_put_u8(&prog, 0);
				bytes_put_uleb(&prog, 9);
				bytes_put_u8(&prog, DW_LNE_set_address);
				bytes_put_u64(&prog, at);
				addr = at;
				started = true;
			}
			if (fi != file) {
				bytes_put_u8(&prog, DW_LNS_set_file);
				bytes_put_uleb(&prog, fi);
				file = fi;
			}
			if (l->column != column) {
				bytes_put_u8(&prog, DW_LNS_set_column);
				bytes_put_uleb(&prog, l->column);
				column = l->column;
			}
			if (l->line != line) {
				bytes_put_u8(&prog, DW_LNS_advance_line);
				bytes_put_sleb(&prog, (int64_t)l->line - (int64_t)line);
				line = l->line;
			}
			if (at != addr) {
				bytes_put_u8(&prog, DW_LNS_advance_pc);
				bytes_put_uleb(&prog, at - addr);
				addr = at;
			}
			bytes_put_u8(&prog, DW_LNS_copy);
		}
		if (!started)
			continue;
		bytes_put_u8(&prog, DW_LNS_advance_pc);
		bytes_put_uleb(&prog, f->offset + f->size - addr);
		bytes_put_u8(&prog, 0);
		bytes_put_uleb(&prog, 1);
		bytes_put_u8(&prog, DW_LNE_end_sequence);
	}
	bytes_put_u32(b, 0);		/* unit_length, patched */
	bytes_put_u16(b, 3);
	hdr_len_at = b->len;
	bytes_put_u32(b, 0);		/* header_length, patched */
	bytes_put_u8(b, 1);		/* minimum_instruction_length */
	bytes_put_u8(b, 1);		/* default_is_stmt */
	bytes_put_u8(b, (uint8_t)-5);	/* line_base */
	bytes_put_u8(b, 14);		/* line_range */
	bytes_put_u8(b, 13);		/* opcode_base */
	bytes_put(b, std_lengths, sizeof(std_lengths));
	bytes_put_u8(b, 0);		/* no include directories */
	for (size_t i = 0; i < files.nr; i++) {
		bytes_put_str(b, files.names[i]);
		bytes_put_uleb(b, 0);
		bytes_put_uleb(b, 0);
		bytes_put_uleb(b, 0);
	}
	bytes_put_u8(b, 0);
	bytes_patch_u32(b, hdr_len_at, b->len - hdr_len_at - 4);
	bytes_put(b, prog.p, prog.len);
	bytes_patch_u32(b, 0, b->len - 4);
	file_table_release(&files);
	free(prog.p);
	return prog.failed ? -ENOMEM : 0;
}

struct section {
	const char *name;
	uint32_t type;
	uint64_t flags, addr, align, entsize;
	uint32_t link, info;
	const void *data;
	size_t size;
	uint64_t offset;	/* computed */
};

static Elf_Scn *add_section(Elf *elf, struct section *s, size_t name_off)
{
	Elf_Scn *scn = elf_newscn(elf);
	GElf_Shdr sh;
	Elf_Data *d;

	if (!scn || !(d = elf_newdata(scn)))
		return NULL;
	d->d_buf = (void *)s->data;
	d->d_size = s->size;
	d->d_type = ELF_T_BYTE;
	d->d_align = s->align;
	d->d_off = 0;
	if (!gelf_getshdr(scn, &sh))
		return NULL;
	sh.sh_name = name_off;
	sh.sh_type = s->type;
	sh.sh_flags = s->flags;
	sh.sh_addr = s->addr;
	sh.sh_offset = s->offset;
	sh.sh_size = s->size;
	sh.sh_link = s->link;
	sh.sh_info = s->info;
	sh.sh_addralign = s->align;
	sh.sh_entsize = s->entsize;
	return gelf_update_shdr(scn, &sh) ? scn : NULL;
}

int jit_image_write(const char *path, struct jit_image_func *funcs, size_t nr, unsigned flags,
		    const void *salt, size_t salt_len, uint8_t build_id[JIT_IMAGE_BUILD_ID_SIZE],
		    struct stat *st)
{
	struct bytes text = { 0 }, strtab = { 0 }, symtab = { 0 }, shstr = { 0 };
	struct bytes dline = { 0 }, dinfo = { 0 }, dabbrev = { 0 };
	uint8_t note[16 + JIT_IMAGE_BUILD_ID_SIZE] = { 0 };
	struct section sec[9];
	size_t nsec = 0, name_off[9];
	bool lines = false;
	uint64_t off = JIT_IMAGE_TEXT_OFFSET, end;
	struct output *o = NULL;
	struct sha1 h;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf *elf = NULL;
	int err;

	if (!sbx_elf_ready())
		return sbx_error(-EINVAL, "libelf: %s", elf_errmsg(-1));
	sha1_init(&h);
	if (flags & JIT_IMAGE_SYMBOLS_ONLY) {
		/* .text: zeros to the end of the last symbol */
		for (size_t i = 0; i < nr; i++) {
			if (funcs[i].offset < JIT_IMAGE_TEXT_OFFSET ||
			    funcs[i].offset + funcs[i].size < funcs[i].offset)
				return sbx_error(-EINVAL, "%s: symbol %s at %#" PRIx64 " outside the "
						 "image", path, funcs[i].name, funcs[i].offset);
			if (funcs[i].offset + funcs[i].size > off)
				off = funcs[i].offset + funcs[i].size;
			sha1_update(&h, &funcs[i].offset, sizeof(funcs[i].offset));
			sha1_update(&h, funcs[i].name, strlen(funcs[i].name) + 1);
		}
		bytes_put_zeros(&text, off - JIT_IMAGE_TEXT_OFFSET);
	}
	/* .text: each function at its own 16-aligned place */
	for (size_t i = 0; !(flags & JIT_IMAGE_SYMBOLS_ONLY) && i < nr; i++) {
		uint64_t at = ALIGN(off, 16);

		bytes_put_zeros(&text, at - off);
		funcs[i].offset = at;
		bytes_put(&text, funcs[i].bytes, funcs[i].size);
		off = at + funcs[i].size;
		sha1_update(&h, funcs[i].bytes, funcs[i].size);
		sha1_update(&h, funcs[i].name, strlen(funcs[i].name) + 1);
	}
	for (size_t i = 0; i < nr; i++)
		lines |= funcs[i].nr_lines > 0;
	end = off;
	sha1_update(&h, salt, salt_len);
	sha1_final(&h, build_id);
	/* the note: namesz 4, descsz 20, NT_GNU_BUILD_ID, "GNU\0", the id */
	note[0] = 4;
	note[4] = JIT_IMAGE_BUILD_ID_SIZE;
	note[8] = 3;
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, build_id, JIT_IMAGE_BUILD_ID_SIZE);
	/* .symtab: the null symbol, then one function each */
	bytes_put_u8(&strtab, 0);
	{
		Elf64_Sym null = { 0 };

		bytes_put(&symtab, &null, sizeof(null));
	}
	for (size_t i = 0; i < nr; i++) {
		Elf64_Sym s = {
			.st_name = strtab.len,
			.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			.st_shndx = 1,
			.st_value = funcs[i].offset,
			.st_size = funcs[i].size,
		};

		bytes_put_str(&strtab, funcs[i].name);
		bytes_put(&symtab, &s, sizeof(s));
	}
	if (lines) {
		abbrev(&dabbrev);
		info(&dinfo, funcs, nr, end);
		if (line_program(&dline, funcs, nr)) {
			err = sbx_error(-ENOMEM, "out of memory");
			goto out;
		}
	}
	sec[nsec++] = (struct section){ ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
		JIT_IMAGE_TEXT_OFFSET, 16, 0, 0, 0, text.p, text.len, 0 };
	sec[nsec++] = (struct section){ ".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, 0, 4, 0, 0, 0,
		note, sizeof(note), 0 };
	/* sh_link: .strtab, section 4 */
	sec[nsec++] = (struct section){ ".symtab", SHT_SYMTAB, 0, 0, 8, sizeof(Elf64_Sym), 4, 1,
		symtab.p, symtab.len, 0 };
	sec[nsec++] = (struct section){ ".strtab", SHT_STRTAB, 0, 0, 1, 0, 0, 0, strtab.p,
		strtab.len, 0 };
	if (lines) {
		sec[nsec++] = (struct section){ ".debug_abbrev", SHT_PROGBITS, 0, 0, 1, 0, 0, 0,
			dabbrev.p, dabbrev.len, 0 };
		sec[nsec++] = (struct section){ ".debug_info", SHT_PROGBITS, 0, 0, 1, 0, 0, 0,
			dinfo.p, dinfo.len, 0 };
		sec[nsec++] = (struct section){ ".debug_line", SHT_PROGBITS, 0, 0, 1, 0, 0, 0,
			dline.p, dline.len, 0 };
	}
	bytes_put_u8(&shstr, 0);
	for (size_t i = 0; i < nsec; i++) {
		name_off[i] = shstr.len;
		bytes_put_str(&shstr, sec[i].name);
	}
	name_off[nsec] = shstr.len;
	bytes_put_str(&shstr, ".shstrtab");
	sec[nsec] = (struct section){ ".shstrtab", SHT_STRTAB, 0, 0, 1, 0, 0, 0, shstr.p,
		shstr.len, 0 };
	nsec++;
	if (text.failed || strtab.failed || symtab.failed || shstr.failed || dline.failed ||
	    dinfo.failed || dabbrev.failed) {
		err = sbx_error(-ENOMEM, "out of memory");
		goto out;
	}
	/* the note's address: where it is in the file, after .text */
	off = JIT_IMAGE_TEXT_OFFSET;
	for (size_t i = 0; i < nsec; i++) {
		off = ALIGN(off, sec[i].align);
		sec[i].offset = off;
		if (sec[i].flags & SHF_ALLOC)
			sec[i].addr = off;
		off += sec[i].size;
	}
	/* in a folder of the JIT's user: the name is replaced, never written through */
	err = output_open_name(path, 0644, &o);
	if (err)
		goto out;
	if (st && fstat(output_fd(o), st)) {
		err = sbx_error_errno(-errno, "%s", path);
		goto out;
	}
	elf = elf_begin(output_fd(o), ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, ELFCLASS64) || !gelf_getehdr(elf, &eh))
		goto elf_fail;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_DYN;
#if defined(__x86_64__)
	eh.e_machine = EM_X86_64;
#elif defined(__aarch64__)
	eh.e_machine = EM_AARCH64;
#else
	eh.e_machine = EM_NONE;
#endif
	eh.e_version = EV_CURRENT;
	eh.e_entry = JIT_IMAGE_TEXT_OFFSET;
	eh.e_phoff = sizeof(Elf64_Ehdr);
	eh.e_shoff = ALIGN(off, 8);
	eh.e_shstrndx = nsec;
	if (!gelf_update_ehdr(elf, &eh) || !gelf_newphdr(elf, 1))
		goto elf_fail;
	ph = (GElf_Phdr){
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X,
		.p_offset = JIT_IMAGE_TEXT_OFFSET, .p_vaddr = JIT_IMAGE_TEXT_OFFSET,
		.p_paddr = JIT_IMAGE_TEXT_OFFSET,
		.p_filesz = end - JIT_IMAGE_TEXT_OFFSET, .p_memsz = end - JIT_IMAGE_TEXT_OFFSET,
		.p_align = 16,
	};
	if (!gelf_update_phdr(elf, 0, &ph))
		goto elf_fail;
	for (size_t i = 0; i < nsec; i++)
		if (!add_section(elf, &sec[i], name_off[i]))
			goto elf_fail;
	elf_flagelf(elf, ELF_C_SET, ELF_F_LAYOUT);
	errno = 0;
	if (elf_update(elf, ELF_C_WRITE) < 0) {
		/* libelf's message drops the write's errno: a full disk must say so */
		if (errno == ENOSPC || errno == EDQUOT || errno == EIO || errno == EFBIG) {
			err = sbx_error_errno(-errno, "%s: libelf: %s", path, elf_errmsg(-1));
			goto out;
		}
		goto elf_fail;
	}
	elf_end(elf);
	elf = NULL;
	err = output_commit(o);
	o = NULL;
	goto out;
elf_fail:
	err = sbx_error(-EIO, "%s: libelf: %s", path, elf_errmsg(-1));
out:
	if (elf)
		elf_end(elf);
	output_abort(o);
	free(text.p);
	free(strtab.p);
	free(symtab.p);
	free(shstr.p);
	free(dline.p);
	free(dinfo.p);
	free(dabbrev.p);
	return err;
}
