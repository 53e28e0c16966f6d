// SPDX-License-Identifier: MIT
/* Build-ids: the GNU build-id note of ELF files and of the running kernel (see buildid.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "symbol/buildid.h"
#include "symbol/buildid-cache.h"
#include "util/error.h"
#include "util/input.h"

bool sbx_elf_ready(void)
{
	static int state;	/* 0 unknown, 1 ok, -1 failed */

	if (!state)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

Elf_Scn *sbx_elf_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

char *buildid_hex(const uint8_t *id, size_t size, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < size; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * size] = 0;
	return out;
}

/* The GNU build-id note in data, if there is one: 0 with id/size set, else -ENOENT. */
static int build_id_note(Elf_Data *data, uint8_t *id, size_t max, size_t *size)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
			*size = nh.n_descsz < max ? nh.n_descsz : max;
			memcpy(id, (char *)data->d_buf + desc_off, *size);
			return 0;
		}
	}
	return -ENOENT;
}

static int elf_build_id(Elf *elf, uint8_t *id, size_t max, size_t *size)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	size_t phnum;

	/* notes in sections when there are section headers, else in PT_NOTE */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && !build_id_note(data, id, max, size))
			return 0;
	}
	if (elf_getphdrnum(elf, &phnum))
		return -ENOENT;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (data && !build_id_note(data, id, max, size))
			return 0;
	}
	return -ENOENT;
}

int buildid_read_mem(const void *buf, size_t len, uint8_t *id, size_t max, size_t *size)
{
	Elf *elf;
	int err;

	if (!sbx_elf_ready())
		return sbx_error(-EINVAL, "libelf: %s", elf_errmsg(-1));
	elf = elf_memory((char *)buf, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return sbx_error(-EINVAL, "not an ELF image");
	}
	err = elf_build_id(elf, id, max, size);
	elf_end(elf);
	return err;
}

int buildid_read(const char *path, uint8_t *id, size_t max, size_t *size)
{
	int fd, err;
	Elf *elf;

	if (!sbx_elf_ready())
		return sbx_error(-EINVAL, "libelf: %s", elf_errmsg(-1));
	fd = input_open(path, 0, 0, NULL);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return sbx_error(-EINVAL, "'%s' is not an ELF file", path);
	}
	err = elf_build_id(elf, id, max, size);
	elf_end(elf);
	close(fd);
	return err;
}


int buildid_kernel(uint8_t *id, size_t max, size_t *size)
{
	unsigned char buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t off = 0;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	/* u32 namesz, descsz, type; name and desc each padded to 4 */
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		size_t name_pad, desc_pad;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		name_pad = ((size_t)namesz + 3) & ~(size_t)3;
		desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
		if (name_pad > (size_t)n - off - 12 || desc_pad > (size_t)n - off - 12 - name_pad)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + off + 12, "GNU", 4)) {
			*size = descsz < max ? descsz : max;
			memcpy(id, buf + off + 12 + name_pad, *size);
			return 0;
		}
		off += 12 + name_pad + desc_pad;
	}
	return -ENOENT;
}

char *buildid_debug_file(const uint8_t *id, size_t size)
{
	char hex[2 * BUILDID_MAX + 1], *p;
	const char *roots[2] = { NULL, "/usr/lib/debug" };
	char *home_root = NULL;
	struct stat st;

	if (!size || size > BUILDID_MAX)
		return NULL;
	buildid_hex(id, size, hex);
	home_root = buildid_cache_dir();	/* ~/.debug; NULL without HOME */
	roots[0] = home_root;
	for (int i = 0; i < 2; i++) {
		if (!roots[i])
			continue;
		if (asprintf(&p, "%s/.build-id/%.2s/%s.debug", roots[i], hex, hex + 2) < 0)
			continue;
		if (!stat(p, &st) && S_ISREG(st.st_mode)) {
			free(home_root);
			return p;
		}
		free(p);
	}
	free(home_root);
	return NULL;
}

bool buildid_equal(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	size_t n = na < nb ? na : nb;
	const uint8_t *longer = na > nb ? a : b;
	size_t len = na > nb ? na : nb;

	if (!n || memcmp(a, b, n))
		return false;
	for (size_t i = n; i < len; i++)
		if (longer[i])
			return false;
	return true;
}
