// SPDX-License-Identifier: MIT
/* perf script text as llvm-profgen reads it (see perfscript.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf/records.h"
#include "profile/perfscript.h"
#include "util/error.h"

#define MAX_BRANCHES	256
#define MAX_STACK	256

struct reader {
	struct machine *m;
	struct pg_collector *c;
	struct perfscript_stats *st;
	bool has_pids;			/* samples carry a pid column */
	uint64_t repeat;		/* from a count line; 1 otherwise */
	/* a hybrid sample's stack lines, waiting for its branch line */
	uint64_t stack[MAX_STACK];
	size_t nr_stack;
	uint32_t stack_pid;
	struct perf_branch_entry_raw br[MAX_BRANCHES];
};

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A hex number (with or without 0x) at *s: true with *v, *s past it. */
static bool hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	char *end;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	if (!isxdigit((unsigned char)*p))
		return false;
	errno = 0;
	*v = strtoull(p, &end, 16);
	if (errno)
		return false;
	*s = end;
	return true;
}

/*
 * PERF_RECORD_MMAP2 PID/TID: [0xADDR(0xLEN) @ 0xPGOFF|0 …]: PROT PATH
 * PERF_RECORD_MMAP PID/TID: [0xADDR(0xLEN) @ 0xPGOFF]: PROT PATH
 */
static int mmap_line(struct reader *r, const char *line, bool mmap2)
{
	const char *p = strstr(line, mmap2 ? "PERF_RECORD_MMAP2 " : "PERF_RECORD_MMAP ");
	struct perf_rec_mmap mm = { .mmap2 = true };
	uint64_t buf[4200 / 8];
	const char *close, *path;
	char prot[8] = "";
	long pid;
	char *end;
	int n;

	p += mmap2 ? 18 : 17;
	pid = strtol(p, &end, 10);
	if (end == p || *end != '/')
		return -1;
	p = strchr(end, '[');
	if (!p)
		return -1;
	p++;
	if (!hex(&p, &mm.start) || *p++ != '(' || !hex(&p, &mm.len) || *p++ != ')')
		return -1;
	p = skip_space(p);
	if (*p++ != '@')
		return -1;
	p = skip_space(p);
	if (!hex(&p, &mm.pgoff))
		return -1;
	close = strstr(p, "]: ");
	if (!close)
		return -1;
	p = close + 3;
	if (sscanf(p, "%7s %n", prot, &n) != 1)
		return -1;
	path = p + n;
	mm.filename = path;
	mm.misc = pid == -1 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	mm.prot = (prot[0] == 'r' ? PROT_READ : 0) | (prot[1] == 'w' ? PROT_WRITE : 0) |
		  (prot[2] == 'x' ? PROT_EXEC : 0);
	mm.flags = MAP_PRIVATE;
	if (!(mm.prot & PROT_EXEC) && mmap2)
		return 0;	/* data: no samples there */
	r->st->mmaps++;
	/*
	 * Each map goes to its process, for samples with a pid column, and to
	 * address space 0, for samples without one (where a later map of a
	 * range replaces an earlier one, as llvm-profgen's one base address).
	 */
	for (int pass = 0; pass < 2; pass++) {
		uint32_t as = pass ? 0 : (uint32_t)pid;

		if (pass && (pid == 0 || pid == -1))
			break;
		mm.pid = mm.tid = as;
		if (perf_rec_encode_mmap(buf, sizeof(buf), &mm, NULL, NULL) < 0)
			return -1;
		if (pg_collector_record(r->c, (struct perf_event_header *)buf) == -ENOMEM)
			return -2;
	}
	return 0;
}

/* Count one sample: ip (0: none), the stack (leaf first), the branches. */
static int sample(struct reader *r, uint32_t pid, uint64_t ip, const uint64_t *stack,
		  size_t nr_stack, size_t nr_br)
{
	uint64_t chain[MAX_STACK + 2];
	struct perf_sample s = { .pid = pid, .tid = pid, .cpumode = PERF_RECORD_MISC_USER,
				 .ip = ip, .branches = r->br, .branch_nr = nr_br };
	int err = 0;

	if (nr_stack > 1) {
		chain[0] = (uint64_t)PERF_CONTEXT_USER;
		memcpy(chain + 1, stack, nr_stack * sizeof(*stack));
		s.callchain = chain;
		s.callchain_nr = nr_stack + 1;
	}
	/* a count line: one sample that counts as many (a loop would take forever on 2^64) */
	err = pg_collect_weighted(r->c, &s, r->repeat);
	r->st->samples += r->repeat;
	r->repeat = 1;
	return err;
}

/* Parse the branch entries of a line. Returns how many, or -1 when it is not a branch list. */
static int branches(struct reader *r, const char *p)
{
	int n = 0;

	for (p = skip_space(p); *p && *p != '\n'; p = skip_space(p)) {
		uint64_t from, to;

		if (!hex(&p, &from) || *p++ != '/' || !hex(&p, &to))
			return -1;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if (n < MAX_BRANCHES)
			r->br[n++] = (struct perf_branch_entry_raw){ from, to, 0 };
	}
	return n;
}

static int flush_stack(struct reader *r)
{
	int err = 0;

	/* stack lines that no branch line followed: IP-only samples */
	for (size_t i = 0; i < r->nr_stack && !err; i++)
		err = sample(r, r->stack_pid, r->stack[i], NULL, 0, 0);
	r->nr_stack = 0;
	return err;
}

static int sample_line(struct reader *r, const char *line)
{
	const char *p = skip_space(line), *q;
	uint64_t ip = 0, pid = 0;
	int nb;

	/* a branch line of a hybrid sample: starts with 0xFROM/ */
	if (p[0] == '0' && p[1] == 'x' && strchr(p, '/') && strchr(p, '/') < strchr(p, ' ')) {
		nb = branches(r, p);
		if (nb < 0)
			return -1;
		if (sample(r, r->stack_pid, r->nr_stack ? r->stack[0] : 0, r->stack, r->nr_stack,
			   (size_t)nb))
			return -2;
		r->nr_stack = 0;
		return 0;
	}
	q = p;
	if (!hex(&q, &ip))
		return -1;
	if (*q == ' ' || *q == '\t') {
		const char *t = skip_space(q);
		uint64_t second;
		const char *u = t;

		/* "PID IP …": the first token is decimal and another address follows */
		if (hex(&u, &second) && (*u == ' ' || *u == '\t' || *u == '\n' || !*u) &&
		    strspn(p, "0123456789") == (size_t)(q - p)) {
			r->has_pids = true;
			pid = strtoull(p, NULL, 10);
			ip = second;
			q = u;
		}
	}
	q = skip_space(q);
	if (*q == '\n' || !*q) {
		/* one address: a stack line, or an IP-only sample */
		if (r->nr_stack && (uint32_t)pid != r->stack_pid && flush_stack(r))
			return -2;
		if (r->nr_stack == MAX_STACK && flush_stack(r))
			return -2;
		r->stack_pid = (uint32_t)pid;
		r->stack[r->nr_stack++] = ip;
		return 0;
	}
	nb = branches(r, q);
	if (nb < 0)
		return -1;
	if (flush_stack(r) || sample(r, (uint32_t)pid, ip, NULL, 0, (size_t)nb))
		return -2;
	return 0;
}

int perfscript_read(FILE *f, const char *name, struct machine *m, struct pg_collector *c,
		    struct perfscript_stats *st)
{
	struct reader *r = calloc(1, sizeof(*r));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	if (!r)
		return sbx_error(-ENOMEM, "out of memory");
	memset(st, 0, sizeof(*st));
	r->m = m;
	r->c = c;
	r->st = st;
	r->repeat = 1;
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		const char *p = skip_space(line);
		int rc = 0;

		st->lines++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		/* a file that went through Windows (or was written with CRLF): the same text */
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		if (!*p || *p == '#')
			continue;
		if (strstr(p, "PERF_RECORD_MMAP2 "))
			rc = mmap_line(r, p, true);
		else if (strstr(p, "PERF_RECORD_MMAP "))
			rc = mmap_line(r, p, false);
		else if (strstr(p, "PERF_RECORD_"))
			continue;	/* other events: nothing to count */
		else if (p == line && strspn(p, "0123456789") == strlen(p)) {
			/*
			 * A count for the next sample: digits at the start of
			 * a line. perf indents its stack addresses, so an
			 * indented line of digits is an address.
			 */
			if (flush_stack(r))
				rc = -2;
			r->repeat = strtoull(p, NULL, 10);
			/* past 2^40 samples a count is damage: a bad line, counted once */
			if (r->repeat > (1ULL << 40) || strlen(p) > 13) {
				r->repeat = 1;
				rc = -1;
			}
			if (!r->repeat)
				r->repeat = 1;
		} else {
			rc = sample_line(r, line);
		}
		if (rc == -2)
			err = sbx_error(-ENOMEM, "out of memory");
		else if (rc < 0 && !st->bad_lines++)
			st->first_bad_line = st->lines;
	}
	if (!err && ferror(f))
		err = sbx_error(-EIO, "cannot read '%s'", name);
	if (!err && flush_stack(r))
		err = sbx_error(-ENOMEM, "out of memory");
	if (!err)
		err = pg_collector_flush(c);
	if (!err && !st->samples)
		err = sbx_error(-EINVAL, "'%s' is not perf script output: no sample in it%s", name,
				st->bad_lines ? " (perf script -F ip,brstack --show-mmap-events "
				"makes it)" : "");
	free(line);
	free(r);
	return err;
}
