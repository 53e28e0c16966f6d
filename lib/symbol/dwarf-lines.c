// SPDX-License-Identifier: MIT
/*
 * A DWARF line-number program run into rows (DWARF 5 §6.2; versions 2 to 4
 * differ only in their header). The header's directory and file tables are
 * stepped over whole (header_length says where the program starts): rows
 * need no file name.
 */
#include "symbol/dwarf-lines.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

enum {
	LNS_copy = 1, LNS_advance_pc, LNS_advance_line, LNS_set_file, LNS_set_column,
	LNS_negate_stmt, LNS_set_basic_block, LNS_const_add_pc, LNS_fixed_advance_pc,
	LNS_set_prologue_end, LNS_set_epilogue_begin, LNS_set_isa,
	LNE_end_sequence = 1, LNE_set_address, LNE_define_file, LNE_set_discriminator,
};

/* The operands of the standard opcodes, as the header must declare them (libdw checks) */
static const uint8_t std_operands[] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };

struct reader {
	const uint8_t *p, *end;
	bool bad;		/* read past the end (a number too long is cut to 64 bits) */
};

static uint64_t rd_n(struct reader *r, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct reader *r)
{
	uint64_t v = 0;

	for (unsigned shift = 0; r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb(struct reader *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	r->bad = true;
	return 0;
}

struct rows {
	uint64_t *addr;
	struct dwarf_row *row;
	size_t nr, cap;
};

static int emit(struct rows *o, uint64_t addr, int32_t line, uint64_t disc, bool end)
{
	if (disc > UINT32_MAX)
		return -EINVAL;
	if (o->nr == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 1024;
		uint64_t *a = realloc(o->addr, cap * sizeof(*a));
		struct dwarf_row *r;

		if (!a)
			return -ENOMEM;
		o->addr = a;
		r = realloc(o->row, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		o->row = r;
		o->cap = cap;
	}
	o->addr[o->nr] = addr;
	o->row[o->nr] = (struct dwarf_row){ line > 0 ? (uint32_t)line & 0x7fffffff : 0, end,
					    (uint32_t)disc };
	o->nr++;
	return 0;
}

struct sort_key {
	uint64_t addr;
	uint64_t rank;		/* not an end of sequence, then the row's place in the program */
};

static int cmp_key(const void *x, const void *y)
{
	const struct sort_key *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/*
 * libdw's order, dwarf_getsrclines()'s: by address, an end of sequence
 * before the other rows at its address, else in program order. A program
 * is mostly in that order already (one sequence, or sequences in address
 * order): only one that is not is sorted.
 */
static int libdw_order(struct rows *o)
{
	bool sorted = true;
	struct sort_key *k;
	struct dwarf_row *row;

	for (size_t i = 1; i < o->nr && sorted; i++)
		sorted = o->addr[i - 1] < o->addr[i] ||
			 (o->addr[i - 1] == o->addr[i] && (o->row[i - 1].end || !o->row[i].end));
	if (sorted)
		return 0;
	k = malloc(o->nr * sizeof(*k));
	row = malloc(o->nr * sizeof(*row));
	if (!k || !row) {
		free(k);
		free(row);
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->nr; i++)
		k[i] = (struct sort_key){ o->addr[i], (uint64_t)!o->row[i].end << 63 | i };
	qsort(k, o->nr, sizeof(*k), cmp_key);
	for (size_t i = 0; i < o->nr; i++) {
		size_t from = (size_t)(k[i].rank & ~(1ULL << 63));

		o->addr[i] = k[i].addr;
		row[i] = o->row[from];
	}
	free(o->row);
	o->row = row;
	free(k);
	return 0;
}

int dwarf_lines_read(const uint8_t *sec, size_t size, uint64_t off, uint64_t **addr,
		     struct dwarf_row **rows, size_t *nr)
{
	struct reader r = { sec, sec + size, false }, hdr;
	struct rows o = { 0 };
	uint64_t len, header_len;
	unsigned version, offset_size = 4, min_len, line_range, opcode_base;
	int line_base, err = -EINVAL;
	const uint8_t *lengths, *prog;
	/* the state machine's registers that rows need */
	uint64_t a = 0, disc = 0;
	int32_t line = 1;

	*addr = NULL;
	*rows = NULL;
	*nr = 0;
	if (off >= size)
		return -EINVAL;
	r.p = sec + off;
	len = rd_n(&r, 4);
	if (len == 0xffffffff) {
		len = rd_n(&r, 8);
		offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return -EINVAL;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return -EINVAL;
	r.end = r.p + len;
	version = (unsigned)rd_n(&r, 2);
	if (version < 2 || version > 5)
		return -EINVAL;
	if (version >= 5) {
		unsigned asize = (unsigned)rd_n(&r, 1);

		if ((asize != 4 && asize != 8) || rd_n(&r, 1) != 0)
			return -EINVAL;
	}
	header_len = rd_n(&r, offset_size);
	if (r.bad || header_len > (uint64_t)(r.end - r.p))
		return -EINVAL;
	prog = r.p + header_len;
	hdr = (struct reader){ r.p, prog, false };
	min_len = (unsigned)rd_n(&hdr, 1);
	/* several operations per instruction (VLIW): not a program these rows hold */
	if (version >= 4 && rd_n(&hdr, 1) != 1)
		return -EINVAL;
	rd_n(&hdr, 1);		/* default_is_stmt: every row is kept, as libdw keeps them */
	line_base = (int8_t)rd_n(&hdr, 1);
	line_range = (unsigned)rd_n(&hdr, 1);
	opcode_base = (unsigned)rd_n(&hdr, 1);
	if (hdr.bad || !line_range || !opcode_base || (size_t)(hdr.end - hdr.p) < opcode_base - 1)
		return -EINVAL;
	lengths = hdr.p - 1;	/* lengths[op] for 1 <= op < opcode_base */
	for (unsigned op = 1; op < opcode_base && op < sizeof(std_operands); op++)
		if (lengths[op] != std_operands[op])
			return -EINVAL;

	r.p = prog;
	while (r.p < r.end) {
		unsigned op = *r.p++;

		if (op >= opcode_base) {
			/* a special opcode: advance, then a row */
			unsigned adj = op - opcode_base;

			a += (uint64_t)min_len * (adj / line_range);
			line = (int32_t)((uint32_t)line + (uint32_t)(line_base + (int)(adj % line_range)));
			if ((err = emit(&o, a, line, disc, false)))
				goto fail;
			disc = 0;
			continue;
		}
		switch (op) {
		case 0: {	/* extended: a length, then the sub-opcode and its operands */
			uint64_t n = rd_uleb(&r);
			const uint8_t *next;

			if (r.bad || !n || n > (uint64_t)(r.end - r.p))
				goto bad;
			next = r.p + n;
			op = *r.p++;
			if (op == LNE_end_sequence) {
				if ((err = emit(&o, a, line, disc, true)))
					goto fail;
				a = disc = 0;
				line = 1;
			} else if (op == LNE_set_address) {
				if (n - 1 > 8)
					goto bad;
				a = rd_n(&r, n - 1);
			} else if (op == LNE_set_discriminator) {
				disc = rd_uleb(&r);
			}
			/* DW_LNE_define_file and vendors' sub-opcodes: stepped over */
			if (r.bad || r.p > next)
				goto bad;
			r.p = next;
			break;
		}
		case LNS_copy:
			if ((err = emit(&o, a, line, disc, false)))
				goto fail;
			disc = 0;
			break;
		case LNS_advance_pc:
			a += (uint64_t)min_len * rd_uleb(&r);
			break;
		case LNS_advance_line:
			line = (int32_t)((uint32_t)line + (uint32_t)rd_sleb(&r));
			break;
		case LNS_const_add_pc:
			a += (uint64_t)min_len * ((255 - opcode_base) / line_range);
			break;
		case LNS_fixed_advance_pc:
			a += rd_n(&r, 2);
			break;
		default:
			/* file, column, isa, flags and opcodes after DWARF 5's: operands stepped over */
			for (unsigned k = 0; k < lengths[op]; k++)
				rd_uleb(&r);
			break;
		}
		if (r.bad)
			goto bad;
	}
	if ((err = libdw_order(&o)))
		goto fail;
	/*
	 * libdw marks the last row an end of sequence, as DWARF requires and
	 * some compilers forget (GCC's last row at the end's own address, which
	 * sorts after the end).
	 */
	if (o.nr)
		o.row[o.nr - 1].end = 1;
	/* kept as long as the file is open: no room to spare */
	if (o.nr && o.nr < o.cap) {
		uint64_t *a2 = realloc(o.addr, o.nr * sizeof(*a2));
		struct dwarf_row *r2 = realloc(o.row, o.nr * sizeof(*r2));

		o.addr = a2 ? a2 : o.addr;
		o.row = r2 ? r2 : o.row;
	}
	*addr = o.addr;
	*rows = o.row;
	*nr = o.nr;
	return 0;
bad:
	err = -EINVAL;
fail:
	free(o.addr);
	free(o.row);
	return err;
}
