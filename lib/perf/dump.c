// SPDX-License-Identifier: MIT
/*
 * perf's raw trace dump (see dump.h; the format, with perf 6.1's output
 * beside it, in Documentation/formats/perf-dump-raw-trace.md).
 *
 * The kernel's records are read through their typed parsers (records.h);
 * the bodies only this dump prints (perf's own ID_INDEX, THREAD_MAP,
 * CPU_MAP, EVENT_UPDATE, STAT*, and NAMESPACES, CGROUP, BPF_EVENT, AUX…)
 * are walked here with the bounds-checked cursor: a record too short for
 * what it claims prints what came before its end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf/cursor.h"
#include "perf/dump.h"
#include "perf/record-type.h"
#include "perf/records.h"
#include "util/error.h"
#include "util/hashmap.h"

#define U16(c, v)	cur_u16((c), (v), false)
#define U32(c, v)	cur_u32((c), (v), false)
#define U64(c, v)	cur_u64((c), (v), false)

static struct cursor body(const struct perf_event_header *rec)
{
	uint8_t *p = (uint8_t *)rec;

	return (struct cursor){ p + sizeof(*rec), p + (rec->size > sizeof(*rec) ? rec->size
										 : sizeof(*rec)) };
}

const char *perf_dump_type_name(uint32_t type)
{
	const char *name = perf_record_type_name(type);

	if (!type)
		return "TOTAL";
	/* perf 6.1's table ends at FINISHED_INIT */
	if (type > PERF_RECORD_FINISHED_INIT)
		return "INVALID";
	if (!name)
		return "UNKNOWN";
	/* perf's own records without the reader's HEADER_ (ATTR, FEATURE, …) */
	return strncmp(name, "HEADER_", 7) ? name : name + 7;
}

void perf_dump_init(struct perf_dump *pd, FILE *out, const struct perf_data *data,
		    const char *label, bool script)
{
	char *arch = perf_data_feature_string(data, HEADER_ARCH);

	memset(pd, 0, sizeof(*pd));
	pd->out = out;
	pd->data = data;
	pd->label = label;
	pd->script = script;
	/* perf names registers by the recording's arch (pipe mode: its own, x86 here) */
	pd->regs_arch = !arch || !strcmp(arch, "x86_64") || !strcmp(arch, "i386") ||
			!strcmp(arch, "i686") ? 1 : 0;
	free(arch);
}

/* ------------------------------------------------------------ the bytes */

static void hex_dump(FILE *f, const uint8_t *p, size_t n)
{
	fprintf(f, ".\n. ... raw event: size %zu bytes\n", n);
	for (size_t row = 0; row < n; row += 16) {
		size_t k = n - row < 16 ? n - row : 16;

		fprintf(f, ".  %04zx: ", row);
		for (size_t i = 0; i < k; i++)
			fprintf(f, " %02x", p[row + i]);
		for (size_t i = k; i < 16; i++)
			fputs("   ", f);
		fputs("  ", f);
		for (size_t i = 0; i < k; i++)
			fputc(p[row + i] >= 0x20 && p[row + i] < 0x7f ? p[row + i] : '.', f);
		for (size_t i = k; i < 16; i++)
			fputc(' ', f);
		fputc('\n', f);
	}
	fputc('\n', f);
}

/*
 * perf's evlist__print_tstamp(): "-1 -1 " for a record other than a SAMPLE
 * when the first event has no sample_id_all, else the CPU and the time
 * where any event samples them. nr: the events known before this record.
 */
static void tstamp(struct perf_dump *pd, const struct perf_event_header *rec,
		   const struct perf_sample *s, size_t nr)
{
	const struct perf_data_attr *first = nr ? perf_data_attr(pd->data, 0) : NULL;
	bool user = rec->type >= PERF_RECORD_USER_TYPE_START;

	if (rec->type != PERF_RECORD_SAMPLE && (!first || !first->attr.sample_id_all)) {
		fputs("-1 -1 ", pd->out);
		return;
	}
	/* computed once, as perf caches it */
	if (!pd->sample_type)
		for (size_t i = 0; i < nr; i++)
			pd->sample_type |= perf_data_attr(pd->data, i)->attr.sample_type;
	if (pd->sample_type & PERF_SAMPLE_CPU)
		fprintf(pd->out, "%u ", user ? 0 : s->cpu);
	if (pd->sample_type & PERF_SAMPLE_TIME)
		fprintf(pd->out, "%" PRIu64 " ", user ? 0 : s->time);
}

/* ---------------------------------------------------------- the sample */

static const char *reg_name(const struct perf_dump *pd, unsigned r)
{
	static const char *const x86[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
		"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
	};
	static const char *const xmm[] = {
		"XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5", "XMM6", "XMM7", "XMM8", "XMM9",
		"XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15",
	};

	if (pd->regs_arch != 1)
		return "unknown";
	if (r < sizeof(x86) / sizeof(x86[0]))
		return x86[r];
	if (r >= 32 && r < 64)
		return xmm[(r - 32) / 2];
	return "unknown";
}

static void regs_dump(struct perf_dump *pd, const char *what, uint64_t mask, uint64_t abi,
		      const uint64_t *regs)
{
	static const char *const abis[] = { "none", "32-bit", "64-bit" };
	unsigned k = 0;

	if (!abi)
		return;
	fprintf(pd->out, "... %s regs: mask 0x%" PRIx64 " ABI %s\n", what, mask,
		abi < 3 ? abis[abi] : "unknown");
	for (unsigned r = 0; r < 64; r++)
		if (mask & (1ULL << r))
			fprintf(pd->out, ".... %-5s 0x%016" PRIx64 "\n", reg_name(pd, r),
				regs[k++]);
}

static const char *branch_type(uint64_t flags)
{
	static const char *const types[] = {
		"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX",
	};
	static const char *const new_types[] = {
		"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4",
		"ARCH_5",
	};
	unsigned type = (flags >> 20) & 0xf, new_type = (flags >> 26) & 0xf;

	if (!type)
		return "";
	if (type == 15)	/* PERF_BR_EXTEND_ABI */
		return new_type < 8 ? new_types[new_type] : "";
	return type < 15 ? types[type] : "";
}

static void branches_dump(struct perf_dump *pd, const struct perf_data_attr *attr,
			  const struct perf_sample *s)
{
	const struct perf_branch_entry_raw *e = s->branches;

	if (attr->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) {
		fprintf(pd->out, "... branch callstack: nr:%" PRIu64 "\n", s->branch_nr + 1);
		if (!s->branch_nr)
			return;
		fprintf(pd->out, "..... %2d: %016" PRIx64 "\n", 0, e[0].to);
		for (uint64_t i = 0; i < s->branch_nr; i++)
			fprintf(pd->out, "..... %2" PRIu64 ": %016" PRIx64 "\n", i + 1, e[i].from);
		return;
	}
	fprintf(pd->out, "... branch stack: nr:%" PRIu64 "\n", s->branch_nr);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		uint64_t fl = e[i].flags;

		/* mispred, predicted, in_tx, abort, cycles:16, type:4, spec:2, new_type:4,
		   priv:3, reserved:31 */
		fprintf(pd->out, "..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64
			" %hu cycles %s%s%s%s %x %s\n", i, e[i].from, e[i].to,
			(unsigned short)((fl >> 4) & 0xffff), fl & 1 ? "M" : " ",
			fl & 2 ? "P" : " ", fl & 8 ? "A" : " ", fl & 4 ? "T" : " ",
			(unsigned)(fl >> 33), branch_type(fl));
	}
}

/*
 * A walk over a sample's read_format values (PERF_SAMPLE_READ): with GROUP
 * their number and times first, then value, id, lost per member; without,
 * one value followed by its times. The dump and the group-read hand-on
 * both read them through it.
 */
struct read_walk {
	struct cursor c;
	uint64_t rf;
	uint64_t nr, i;			/* members (1 without GROUP), the next one */
	uint64_t enabled, running;	/* the times, where the format has them */
};

static int read_walk_times(struct read_walk *w)
{
	return ((w->rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && U64(&w->c, &w->enabled)) ||
	       ((w->rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && U64(&w->c, &w->running)) ? -1 : 0;
}

/* Start a walk of s's values in format rf: 0, or -1 when a group's head is cut short. */
static int read_walk_init(struct read_walk *w, uint64_t rf, const struct perf_sample *s)
{
	uint8_t *p = (uint8_t *)s->read;

	memset(w, 0, sizeof(*w));
	w->c = p ? (struct cursor){ p, p + s->read_size } : (struct cursor){ NULL, NULL };
	w->rf = rf;
	w->nr = 1;
	if (!(rf & PERF_FORMAT_GROUP))
		return 0;
	return U64(&w->c, &w->nr) || read_walk_times(w) ? -1 : 0;
}

/* The next member's value, id (0 without ID) and lost: 1, or 0 at the end or where they stop short. */
static int read_walk_next(struct read_walk *w, uint64_t *value, uint64_t *id, uint64_t *lost)
{
	*id = *lost = 0;
	if (w->i >= w->nr || U64(&w->c, value) ||
	    (!(w->rf & PERF_FORMAT_GROUP) && read_walk_times(w)) ||
	    ((w->rf & PERF_FORMAT_ID) && U64(&w->c, id)) ||
	    ((w->rf & PERF_FORMAT_LOST) && U64(&w->c, lost)))
		return 0;
	w->i++;
	return 1;
}

static void read_value_dump(struct perf_dump *pd, uint64_t rf, uint64_t value, uint64_t id,
			    uint64_t lost)
{
	fprintf(pd->out, "..... id %016" PRIx64 ", value %016" PRIx64, id, value);
	if (rf & PERF_FORMAT_LOST)
		fprintf(pd->out, ", lost %" PRIu64, lost);
	fputc('\n', pd->out);
}

/* perf's get_page_size_name(): N/A, or the size in the largest unit that keeps it > 1 */
static void page_size(FILE *f, const char *what, uint64_t size)
{
	static const char units[] = "BKMG";
	unsigned u = 0;

	fprintf(f, " .. %s page size: ", what);
	if (!size) {
		fputs("N/A\n", f);
		return;
	}
	while (size / 1024 > 1 && u < 3) {
		size /= 1024;
		u++;
	}
	fprintf(f, "%" PRIu64 "%c\n", size, units[u]);
}

static void read_values_dump(struct perf_dump *pd, const struct perf_data_attr *attr,
			     const struct perf_sample *s)
{
	uint64_t rf = attr->attr.read_format, value, id, lost;
	struct read_walk w;
	bool one;

	fputs("... sample_read:\n", pd->out);
	if (read_walk_init(&w, rf, s))
		return;
	/* without GROUP the times follow the value, and come first in the text */
	one = !(rf & PERF_FORMAT_GROUP);
	if (one && !read_walk_next(&w, &value, &id, &lost))
		return;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		fprintf(pd->out, "...... time enabled %016" PRIx64 "\n", w.enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		fprintf(pd->out, "...... time running %016" PRIx64 "\n", w.running);
	if (one) {
		read_value_dump(pd, rf, value, id, lost);
		return;
	}
	fprintf(pd->out, ".... group nr %" PRIu64 "\n", w.nr);
	while (read_walk_next(&w, &value, &id, &lost))
		read_value_dump(pd, rf, value, id, lost);
}

/* perf's dump_sample(): the sample's fields, in perf's order. */
static void sample_dump(struct perf_dump *pd, const struct perf_event_header *rec,
			const struct perf_data_attr *attr, const struct perf_sample *s)
{
	uint64_t st = attr->attr.sample_type;
	/* without PERIOD, perf shows the attr's sample_period (the frequency with -F) */
	uint64_t period = st & PERF_SAMPLE_PERIOD ? s->period : attr->attr.sample_period;

	fprintf(pd->out, "(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64
		"\n", rec->misc, (int)s->pid, (int)s->tid, s->ip, period, s->addr);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t k = s->callchain_nr;

		/* an LBR call stack: the kernel's part of the chain, then the LBR's */
		if ((st & PERF_SAMPLE_BRANCH_STACK) && s->branch_nr &&
		    (attr->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK)) {
			for (k = 0; k < s->callchain_nr; k++)
				if (s->callchain[k] == (uint64_t)PERF_CONTEXT_USER)
					break;
		}
		if (k < s->callchain_nr) {
			fprintf(pd->out, "... LBR call chain: nr:%" PRIu64 "\n",
				k + 1 + s->branch_nr + 1);
			for (uint64_t i = 0; i <= k; i++)
				fprintf(pd->out, "..... %2d: %016" PRIx64 "\n", (int)i,
					s->callchain[i]);
			fprintf(pd->out, "..... %2d: %016" PRIx64 "\n", (int)(k + 1),
				s->branches[0].to);
			for (uint64_t i = 0; i < s->branch_nr; i++)
				fprintf(pd->out, "..... %2d: %016" PRIx64 "\n", (int)(k + 2 + i),
					s->branches[i].from);
		}
		fprintf(pd->out, "... FP chain: nr:%" PRIu64 "\n", s->callchain_nr);
		for (uint64_t i = 0; i < s->callchain_nr; i++)
			fprintf(pd->out, "..... %2d: %016" PRIx64 "\n", (int)i, s->callchain[i]);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK)
		branches_dump(pd, attr, s);
	if (st & PERF_SAMPLE_REGS_USER)
		regs_dump(pd, "user", attr->attr.sample_regs_user, s->regs_user_abi, s->regs_user);
	if (st & PERF_SAMPLE_REGS_INTR)
		regs_dump(pd, "intr", attr->attr.sample_regs_intr, s->regs_intr_abi, s->regs_intr);
	if (st & PERF_SAMPLE_STACK_USER)
		fprintf(pd->out, "... ustack: size %" PRIu64 ", offset 0x%x\n",
			s->stack_user_size ? s->stack_user_dyn_size : 0, s->stack_user_offset);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		fprintf(pd->out, "... weight: %" PRIu64,
			st & PERF_SAMPLE_WEIGHT ? s->weight : (uint32_t)s->weight);
		if (st & PERF_SAMPLE_WEIGHT_STRUCT)
			fprintf(pd->out, ",0x%x,0x%x", (unsigned)(uint16_t)(s->weight >> 32),
				(unsigned)(uint16_t)(s->weight >> 48));
		fputc('\n', pd->out);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		fprintf(pd->out, " . data_src: 0x%" PRIx64 "\n", s->data_src);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		fprintf(pd->out, " .. phys_addr: 0x%" PRIx64 "\n", s->phys_addr);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		page_size(pd->out, "data", s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		page_size(pd->out, "code", s->code_page_size);
	if (st & PERF_SAMPLE_TRANSACTION)
		fprintf(pd->out, "... transaction: %" PRIx64 "\n", s->transaction);
	if (st & PERF_SAMPLE_READ)
		read_values_dump(pd, attr, s);
}

/* ------------------------------------------------------- other records */

/* perf's cpu_map__snprint(): runs of consecutive CPUs as a-b, joined by commas */
static void cpus_print(FILE *f, const int *cpus, size_t nr)
{
	size_t start = 0;

	for (size_t i = 1; i <= nr; i++) {
		if (i < nr && cpus[i] - cpus[start] == (int)(i - start))
			continue;
		fprintf(f, "%s%d", start ? "," : "", cpus[start]);
		if (i - 1 > start)
			fprintf(f, "-%d", cpus[i - 1]);
		start = i;
	}
}

/* perf_record_cpu_map_data (perf 6.1, packed): CPUS list, MASK (32/64-bit words), RANGE */
static int cpu_map_print(FILE *f, struct cursor *c)
{
	int *cpus;
	size_t n;

	if (perf_cpu_map_decode(c->p, (size_t)(c->end - c->p), &cpus, &n))
		return -1;
	cpus_print(f, cpus, n);
	free(cpus);
	return 0;
}

static void mmap_text(FILE *f, const struct perf_event_header *rec)
{
	struct perf_rec_mmap m;

	if (perf_rec_parse_mmap(rec, &m))
		return;
	fprintf(f, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int)m.pid, (int)m.tid,
		m.start, m.len, m.pgoff);
	if (!m.mmap2) {
		fprintf(f, "]: %c %s\n", m.misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x',
			m.filename);
		return;
	}
	if (m.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		fputs(" <", f);
		for (unsigned i = 0; i < m.build_id_size; i++)
			fprintf(f, "%02x", m.build_id[i]);
		fputc('>', f);
	} else {
		fprintf(f, " %02x:%02x %" PRIu64 " %" PRIu64, m.maj, m.min, m.ino,
			m.ino_generation);
	}
	fprintf(f, "]: %c%c%c%c %s\n", m.prot & PROT_READ ? 'r' : '-',
		m.prot & PROT_WRITE ? 'w' : '-', m.prot & PROT_EXEC ? 'x' : '-',
		m.flags & MAP_SHARED ? 's' : 'p', m.filename);
}

static void read_text(struct perf_dump *pd, const struct perf_event_header *rec,
		      const struct perf_data_attr *attr)
{
	struct perf_rec_read rd;

	if (perf_rec_parse_read(rec, &rd))
		return;
	fprintf(pd->out, ": %d %d %s %" PRIu64 "\n", (int)rd.pid, (int)rd.tid,
		attr && attr->name ? attr->name : "unknown", rd.value);
	if (!attr)
		return;
	if (attr->attr.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		fprintf(pd->out, "... time enabled : %" PRIu64 "\n", rd.time_enabled);
	if (attr->attr.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		fprintf(pd->out, "... time running : %" PRIu64 "\n", rd.time_running);
	if (attr->attr.read_format & PERF_FORMAT_ID)
		fprintf(pd->out, "... id           : %" PRIu64 "\n", rd.id);
	if (attr->attr.read_format & PERF_FORMAT_LOST)
		fprintf(pd->out, "... lost         : %" PRIu64 "\n", rd.lost);
	if (pd->script)
		fputs(": unhandled!\n", pd->out);
}

static void namespaces_text(FILE *f, const struct perf_event_header *rec)
{
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt",
					     "cgroup" };
	struct cursor c = body(rec);
	uint32_t pid, tid;
	uint64_t nr;

	if (U32(&c, &pid) || U32(&c, &tid) || U64(&c, &nr))
		return;
	fprintf(f, " %d/%d - nr_namespaces: %u\n\t\t[", (int)pid, (int)tid, (unsigned)nr);
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t dev, ino;

		if (U64(&c, &dev) || U64(&c, &ino))
			return;
		if (i && i % 4 == 0)
			fputs("\n\t\t ", f);
		fprintf(f, "%u/%s: %" PRIu64 "/%#" PRIx64 "%s", (unsigned)i,
			i < 7 ? names[i] : "UNKNOWN", dev, ino, i + 1 != nr ? ", " : "]\n");
	}
}

static void switch_text(FILE *f, const struct perf_event_header *rec)
{
	struct perf_rec_switch sw;
	const char *in_out;

	if (perf_rec_parse_switch(rec, &sw))
		return;
	in_out = !sw.out ? "IN         " : !sw.preempt ? "OUT        " : "OUT preempt";
	if (!sw.cpu_wide)
		fprintf(f, " %s\n", in_out);
	else
		fprintf(f, " %s  %s pid/tid: %5d/%-5d\n", in_out, sw.out ? "next" : "prev",
			(int)sw.next_prev_pid, (int)sw.next_prev_tid);
}

static void text_poke_text(FILE *f, const struct perf_event_header *rec)
{
	struct cursor c = body(rec);
	uint64_t addr;
	uint16_t old_len, new_len;
	uint8_t *bytes;

	if (U64(&c, &addr) || U16(&c, &old_len) || U16(&c, &new_len) ||
	    !(bytes = cur_take(&c, (size_t)old_len + new_len)))
		return;
	/* perf adds the kernel symbol of addr here: not resolved in the dump */
	fprintf(f, " %" PRIx64 "  old len %u new len %u\n", addr, old_len, new_len);
	for (int which = 0; which < 2; which++) {
		const uint8_t *b = which ? bytes + old_len : bytes;
		unsigned len = which ? new_len : old_len;

		for (unsigned row = 0; row < len; row += 16) {
			fprintf(f, "            %s bytes:", which ? "New" : "Old");
			for (unsigned i = row; i < len && i < row + 16; i++)
				fprintf(f, " %02x", b[i]);
			fputc('\n', f);
		}
	}
}

/* The text after PERF_RECORD_NAME of a record the kernel wrote. */
static void kernel_text(struct perf_dump *pd, const struct perf_event_header *rec,
			const struct perf_data_attr *attr, const struct perf_sample *s)
{
	FILE *f = pd->out;
	struct cursor c = body(rec);
	union {
		struct perf_rec_comm comm;
		struct perf_rec_task task;
		struct perf_rec_lost lost;
		struct perf_rec_lost_samples ls;
		struct perf_rec_ksymbol ksym;
	} r;
	uint64_t a, b, d;
	uint32_t u, v;
	uint16_t h, k;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		mmap_text(f, rec);
		break;
	case PERF_RECORD_COMM:
		if (!perf_rec_parse_comm(rec, &r.comm))
			fprintf(f, "%s: %s:%d/%d\n", r.comm.misc & PERF_RECORD_MISC_COMM_EXEC ?
				" exec" : "", r.comm.comm, (int)r.comm.pid, (int)r.comm.tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (!perf_rec_parse_task(rec, &r.task))
			fprintf(f, "(%d:%d):(%d:%d)\n", (int)r.task.pid, (int)r.task.tid,
				(int)r.task.ppid, (int)r.task.ptid);
		break;
	case PERF_RECORD_LOST:
		if (!perf_rec_parse_lost(rec, &r.lost))
			fprintf(f, ": id:%" PRIu64 ": lost:%" PRIu64 "\n", r.lost.id,
				r.lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (!perf_rec_parse_lost_samples(rec, &r.ls))
			/* perf's sample.id is -1 where the trailer has none */
			fprintf(f, ": id:%" PRIu64 ": lost samples :%" PRIu64 "\n",
				attr && attr->attr.sample_id_all &&
				(attr->attr.sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ?
				s->id : (uint64_t)-1, r.ls.lost);
		break;
	case PERF_RECORD_READ:
		read_text(pd, rec, attr);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		/* report has no handler; script's prints nothing */
		if (!pd->script)
			fputs(": unhandled!\n", f);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		switch_text(f, rec);
		break;
	case PERF_RECORD_NAMESPACES:
		namespaces_text(f, rec);
		break;
	case PERF_RECORD_CGROUP: {
		const char *path;

		if (!U64(&c, &a) && (path = cur_string(&c)))
			fprintf(f, " cgroup: %" PRIu64 " %s\n", a, path);
		break;
	}
	case PERF_RECORD_KSYMBOL:
		if (!perf_rec_parse_ksymbol(rec, &r.ksym))
			fprintf(f, " addr %" PRIx64 " len %u type %u flags 0x%x name %s\n",
				r.ksym.addr, r.ksym.len, r.ksym.ksym_type, r.ksym.flags,
				r.ksym.name);
		break;
	case PERF_RECORD_BPF_EVENT:
		if (!U16(&c, &h) && !U16(&c, &k) && !U32(&c, &u))
			fprintf(f, " type %u, flags %u, id %u\n", h, k, u);
		break;
	case PERF_RECORD_TEXT_POKE:
		text_poke_text(f, rec);
		break;
	case PERF_RECORD_AUX:
		if (!U64(&c, &a) && !U64(&c, &b) && !U64(&c, &d))
			fprintf(f, " offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#" PRIx64
				" [%s%s%s]\n", a, b, d, d & 1 ? "T" : "", d & 2 ? "O" : "",
				d & 4 ? "P" : "");
		break;
	case PERF_RECORD_ITRACE_START:
		if (!U32(&c, &u) && !U32(&c, &v))
			fprintf(f, " pid: %u tid: %u\n", u, v);
		break;
	case 21:	/* PERF_RECORD_AUX_OUTPUT_HW_ID */
		if (!U64(&c, &a))
			fprintf(f, " hw_id: %#" PRIx64 "\n", a);
		break;
	}
}

static void id_index_text(FILE *f, const struct perf_event_header *rec)
{
	struct cursor c = body(rec);
	uint64_t nr;
	const uint64_t *e, *e2 = NULL;

	if (U64(&c, &nr) || nr > (uint64_t)(c.end - c.p) / 32 || cur_u64s(&c, nr * 4, &e, false))
		return;
	/* perf 6.x's second table (machine_pid, vcpu) follows when the record has room */
	if (nr && nr <= (uint64_t)(c.end - c.p) / 16)
		cur_u64s(&c, nr * 2, &e2, false);
	fprintf(f, " nr: %zu\n", (size_t)nr);
	for (uint64_t i = 0; i < nr; i++) {
		fprintf(f, " ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %" PRId64 "  tid: %" PRId64,
			e[4 * i], e[4 * i + 1], (int64_t)e[4 * i + 2], (int64_t)e[4 * i + 3]);
		if (e2)
			fprintf(f, "  machine_pid: %" PRId64 "  vcpu: %" PRIu64 "\n",
				(int64_t)e2[2 * i], e2[2 * i + 1]);
		else
			fputc('\n', f);
	}
}

static void thread_map_text(FILE *f, const struct perf_event_header *rec)
{
	struct perf_rec_thread_map m;

	if (perf_rec_parse_thread_map(rec, &m)) {
		sbx_error_clear();
		return;
	}
	fprintf(f, " nr: %d thread%s: ", (int)m.nr, m.nr > 1 ? "s" : "");
	for (uint64_t i = 0; i < m.nr; i++)
		fprintf(f, "%s%d", i ? ", " : "", (int)perf_rec_thread_map_pid(&m, i));
	fputc('\n', f);
}

static void event_update_text(FILE *f, const struct perf_event_header *rec)
{
	struct cursor c = body(rec);
	uint64_t type, id;
	const char *str;
	double scale;
	uint8_t *p;

	if (U64(&c, &type) || U64(&c, &id))
		return;
	fprintf(f, "\n... id:    %" PRIu64 "\n", id);
	switch (type) {
	case PERF_EVENT_UPDATE_NAME:
	case PERF_EVENT_UPDATE_UNIT:
		if ((str = cur_string(&c)))
			fprintf(f, "... %s  %s\n", type == PERF_EVENT_UPDATE_NAME ? "name:" :
				"unit:", str);
		break;
	case PERF_EVENT_UPDATE_SCALE:
		if ((p = cur_take(&c, 8))) {
			memcpy(&scale, p, 8);
			fprintf(f, "... scale: %f\n", scale);
		}
		break;
	case PERF_EVENT_UPDATE_CPUS:
		fputs("... ", f);
		if (cpu_map_print(f, &c))
			fputs("failed to get cpus", f);
		fputc('\n', f);
		break;
	default:
		fputs("... unknown type\n", f);
	}
}

static void stat_config_text(FILE *f, const struct perf_event_header *rec)
{
	struct perf_rec_stat_config cfg;

	if (perf_rec_parse_stat_config(rec, &cfg)) {
		sbx_error_clear();
		return;
	}
	fprintf(f, "\n... aggr_mode %d\n... scale     %d\n... interval  %u\n",
		(int)cfg.aggr_mode, (int)cfg.scale, (unsigned)cfg.interval);
}

/* The text after PERF_RECORD_NAME of perf's own records (printed when read). */
static void user_text(struct perf_dump *pd, const struct perf_event_header *rec)
{
	FILE *f = pd->out;
	struct cursor c = body(rec);
	const char *unhandled = ": unhandled!\n";
	struct perf_rec_time_conv tc;
	uint32_t u;

	switch (rec->type) {
	case PERF_RECORD_FINISHED_ROUND:
		fputs(pd->unordered ? unhandled : "\n", f);
		break;
	case PERF_RECORD_ID_INDEX:
		id_index_text(f, rec);
		break;
	case PERF_RECORD_THREAD_MAP:
		thread_map_text(f, rec);
		if (!pd->script)
			fputs(unhandled, f);
		break;
	case PERF_RECORD_CPU_MAP:
		fputs(": ", f);
		if (cpu_map_print(f, &c))
			fputs("failed to get cpumap from event", f);
		fputc('\n', f);
		if (!pd->script)
			fputs(unhandled, f);
		break;
	case PERF_RECORD_STAT_CONFIG:
		/* script has handlers of its own for perf stat's records: no text */
		if (pd->script)
			break;
		stat_config_text(f, rec);
		fputs(unhandled, f);
		break;
	case PERF_RECORD_STAT: {
		struct perf_rec_stat st;

		if (pd->script || perf_rec_parse_stat(rec, &st)) {
			sbx_error_clear();
			break;
		}
		fprintf(f, "\n... id %" PRIu64 ", cpu %d, thread %d\n", st.id, (int)st.cpu,
			(int)st.thread);
		fprintf(f, "... value %" PRIu64 ", enabled %" PRIu64 ", running %" PRIu64 "\n",
			st.val, st.ena, st.run);
		fputs(unhandled, f);
		break;
	}
	case PERF_RECORD_STAT_ROUND: {
		struct perf_rec_stat_round round;

		if (pd->script || perf_rec_parse_stat_round(rec, &round)) {
			sbx_error_clear();
			break;
		}
		fprintf(f, "\n... time %" PRIu64 ", type %s\n", round.time,
			round.type == 1 ? "FINAL" : "INTERVAL");
		fputs(unhandled, f);
		break;
	}
	case PERF_RECORD_EVENT_UPDATE:
		event_update_text(f, rec);
		break;
	case PERF_RECORD_TIME_CONV:
		if (perf_rec_parse_time_conv(rec, &tc))
			break;
		fprintf(f, "\n... Time Shift      %" PRIu64 "\n... Time Muliplier  %" PRIu64
			"\n... Time Zero       %" PRIu64 "\n", tc.time_shift, tc.time_mult,
			tc.time_zero);
		if (tc.ext)
			fprintf(f, "... Time Cycles     %" PRIu64 "\n... Time Mask       %#" PRIx64
				"\n... Cap Time Zero   %d\n... Cap Time Short  %d\n",
				tc.time_cycles, tc.time_mask, tc.cap_user_time_zero,
				tc.cap_user_time_short);
		fputs(unhandled, f);
		break;
	case PERF_RECORD_AUXTRACE_INFO:
		if (!U32(&c, &u))
			fprintf(f, " type: %u\n", u);
		break;
	case PERF_RECORD_FINISHED_INIT:
		fputs(unhandled, f);
		break;
	}
}

void perf_dump_record(struct perf_dump *pd, int64_t off, const struct perf_event_header *rec,
		      const struct perf_data_attr *attr, const struct perf_sample *s)
{
	size_t nr = perf_data_nr_attrs(pd->data);

	/* pipe mode: an ATTR record is printed as perf reads it, before its event exists */
	if (rec->type == PERF_RECORD_HEADER_ATTR && nr)
		nr--;
	fprintf(pd->out, "\n%#" PRIx64 "@%s [%#x]: event: %u\n", (uint64_t)off, pd->label,
		rec->size, rec->type);
	/* the record, without what follows a TRACING_DATA or AUXTRACE record */
	hex_dump(pd->out, (const uint8_t *)rec, rec->size);
	tstamp(pd, rec, s, nr);
	fprintf(pd->out, "%#" PRIx64 " [%#x]: PERF_RECORD_%s", (uint64_t)off, rec->size,
		perf_dump_type_name(rec->type));
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (attr)
			sample_dump(pd, rec, attr, s);
	} else if (rec->type >= PERF_RECORD_USER_TYPE_START) {
		user_text(pd, rec);
	} else {
		kernel_text(pd, rec, attr, s);
	}
}

/* ------------------------------------------------------ group read values */

struct perf_dump_values {
	struct hashmap map;	/* of struct last_value, by id */
};

struct last_value {
	uint64_t id, value;
};

static bool last_value_is(const void *entry, const void *key)
{
	return ((const struct last_value *)entry)->id == *(const uint64_t *)key;
}

/* The last value of id (0 the first time), or NULL out of memory. */
static uint64_t *last_value(struct perf_dump_values *vals, uint64_t id)
{
	struct last_value *l = hashmap_get(&vals->map, hash_u64(id), last_value_is, &id);

	if (l)
		return &l->value;
	l = calloc(1, sizeof(*l));
	if (!l || hashmap_put(&vals->map, hash_u64(id), l)) {
		free(l);
		return NULL;
	}
	l->id = id;
	return &l->value;
}

int perf_dump_sample_values(struct perf_dump_values **values, const struct perf_data *data,
			    const struct perf_data_attr *attr, const struct perf_sample *s,
			    const struct perf_data_attr **attrs, uint64_t *periods, int max)
{
	uint64_t rf = attr->attr.read_format, value, id, lost, *last, grown;
	const struct perf_data_attr *a;
	struct read_walk w;
	int n = 0;

	if (!(attr->attr.sample_type & PERF_SAMPLE_READ)) {
		attrs[0] = attr;
		periods[0] = s->period;
		return max > 0;
	}
	if (!*values && !(*values = calloc(1, sizeof(**values))))
		return -ENOMEM;
	if (read_walk_init(&w, rf, s))
		return 0;
	while (read_walk_next(&w, &value, &id, &lost)) {
		/* without an id, or an id no event has, a value is not handed on (perf
		   counts it as unknown); a single event's file knows its ids too */
		if (!(rf & PERF_FORMAT_ID) || !id || !(a = perf_data_attr_by_id(data, id)))
			continue;
		if (!(last = last_value(*values, id)))
			return -ENOMEM;
		grown = value - *last;
		*last = value;
		if (grown && n < max) {
			periods[n] = grown;
			attrs[n++] = a;
		}
	}
	return n;
}

void perf_dump_values_free(struct perf_dump_values *values)
{
	void *l;

	if (!values)
		return;
	for (size_t i = 0; (l = hashmap_next(&values->map, &i));)
		free(l);
	hashmap_release(&values->map);
	free(values);
}

/* ----------------------------------------------------------------- stats */

void perf_dump_stats(FILE *out, const uint64_t *by_type, size_t nr_types, bool aux,
		     const struct perf_data *data, const uint64_t *samples,
		     const uint64_t *lost_samples, size_t nr_attrs)
{
	uint64_t total = 0;

	for (size_t t = 1; t < nr_types && t < PERF_RECORD_COMPRESSED2; t++)
		total += by_type[t];
	fprintf(out, "\nAggregated stats:%s\n", aux ? " (excludes AUX area (e.g. instruction "
		"trace) decoded / synthesized events)" : "");
	for (size_t t = 0; t < PERF_RECORD_COMPRESSED2; t++) {
		uint64_t n = !t ? total : t < nr_types ? by_type[t] : 0;
		const char *name = perf_dump_type_name(t);

		if (!n || !strcmp(name, "UNKNOWN"))
			continue;
		if (!t)
			fprintf(out, "%16s events: %10d\n", name, (int)n);
		else
			fprintf(out, "%16s events: %10d  (%4.1f%%)\n", name, (int)n,
				100.0 * n / total);
	}
	for (size_t i = 0; i < nr_attrs; i++) {
		const struct perf_data_attr *a = perf_data_attr(data, i);

		if (!samples[i] && !lost_samples[i])
			continue;
		fprintf(out, "%s stats:\n", a->name ? a->name : "unknown");
		if (samples[i])
			fprintf(out, "%16s events: %10d\n", "SAMPLE", (int)samples[i]);
		if (lost_samples[i])
			fprintf(out, "%16s events: %10d\n", "LOST_SAMPLES", (int)lost_samples[i]);
	}
}
