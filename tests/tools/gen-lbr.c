// SPDX-License-Identifier: MIT
/*
 * gen-lbr [-g] -o OUT -b BINARY [-B BASE]: a perf.data with branch stacks
 * made by hand, for tests whose profile is known in advance. BINARY is
 * mapped (its executable segment, as ld.so maps a PIE) at BASE (default
 * 0x555555554000) in one process; every line of standard input is one
 * sample:
 *
 *	COUNT FROM>TO FROM>TO ...	(newest branch first)
 *
 * or with -g, samples with a user call chain and no branch stack:
 *
 *	COUNT IP RET RET ...		(the innermost return address first)
 *
 * where an address is SYMBOL, SYMBOL+0xOFF (in BINARY) or 0xADDR (taken as
 * it is: outside the binary). COUNT copies of the sample are written.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf/perf-data-write.h"
#include "perf/records.h"
#include "symbol/binary.h"
#include "util/error.h"

#define PID		4242
#define MAX_BRANCHES	64

static struct binary *bin;
static uint64_t base = 0x555555554000ULL;

static int die(const char *what)
{
	fprintf(stderr, "gen-lbr: %s: %s\n", what, sbx_error_msg() ? sbx_error_msg() : "failed");
	exit(1);
}

/* SYMBOL[+0xOFF] in the binary (at base), or 0xADDR. */
static uint64_t address(const char *s)
{
	char name[256];
	const char *plus = strchr(s, '+');
	uint64_t off = 0;
	size_t n;

	if (!strncmp(s, "0x", 2))
		return strtoull(s, NULL, 16);
	n = plus ? (size_t)(plus - s) : strlen(s);
	if (n >= sizeof(name))
		return 0;
	memcpy(name, s, n);
	name[n] = 0;
	if (plus)
		off = strtoull(plus + 1, NULL, 16);
	for (size_t i = 0; bin->symtab && i < bin->symtab->nr; i++)
		if (!strcmp(bin->symtab->syms[i].name, name))
			return base + bin->symtab->syms[i].start + off;
	fprintf(stderr, "gen-lbr: no symbol '%s' in the binary\n", name);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *out = NULL, *path = NULL;
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_HARDWARE,
					.config = PERF_COUNT_HW_CPU_CYCLES };
	struct perf_sample_layout layout;
	struct perf_sample id = { .pid = PID, .tid = PID, .time = 1000 };
	struct perf_data_writer *w;
	uint64_t rec[8 + 3 * MAX_BRANCHES], t = 2000;
	char line[8192];
	bool chains = false;
	int opt;

	while ((opt = getopt(argc, argv, "go:b:B:")) != -1) {
		if (opt == 'g')
			chains = true;
		else if (opt == 'o')
			out = optarg;
		else if (opt == 'b')
			path = optarg;
		else if (opt == 'B')
			base = strtoull(optarg, NULL, 0);
		else
			return 2;
	}
	if (!out || !path) {
		fprintf(stderr, "usage: gen-lbr [-g] -o OUT -b BINARY [-B BASE] < SAMPLES\n");
		return 2;
	}
	if (binary_open(path, NULL, &bin))
		die(path);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_PERIOD |
			   (chains ? PERF_SAMPLE_CALLCHAIN : PERF_SAMPLE_BRANCH_STACK);
	attr.sample_period = 100003;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	attr.exclude_kernel = attr.exclude_hv = 1;
	attr.sample_id_all = attr.mmap = attr.mmap2 = attr.comm = attr.task = 1;
	perf_sample_layout_init(&layout, &attr);
	if (perf_data_writer_open(out, &w) || perf_data_writer_add_attr(w, &attr, "cycles:u",
									 NULL, 0))
		die(out);
	{
		const char *comm = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		struct perf_rec_comm c = { .misc = PERF_RECORD_MISC_COMM_EXEC, .pid = PID,
					   .tid = PID, .comm = comm };
		char real[4096];

		if (perf_rec_encode_comm(rec, sizeof(rec), &c, &layout, &id) < 0 ||
		    perf_data_writer_write(w, rec))
			die("COMM");
		if (!realpath(path, real))
			die("realpath");
		/* the executable segment, at base, as ld.so maps a PIE (and perf sees it) */
		for (size_t i = 0; i < bin->nr_loads; i++) {
			uint64_t buf[600];
			const struct dso_load *l = &bin->loads[i];
			struct perf_rec_mmap m = {
				.misc = PERF_RECORD_MISC_USER, .mmap2 = true, .pid = PID, .tid = PID,
				.start = (base + l->vaddr) & ~0xfffULL,
				.len = ((l->vaddr & 0xfff) + l->filesz + 0xfff) & ~0xfffULL,
				.pgoff = l->offset & ~0xfffULL, .prot = PROT_READ | PROT_EXEC,
				.flags = MAP_PRIVATE, .filename = real,
			};

			if ((l->vaddr & ~0xfffULL) != bin->exec_base)
				continue;
			if (perf_rec_encode_mmap(buf, sizeof(buf), &m, &layout, &id) < 0 ||
			    perf_data_writer_write(w, buf))
				die("MMAP2");
		}
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *save = NULL, *tok = strtok_r(line, " \t\n", &save);
		struct perf_branch_entry_raw br[MAX_BRANCHES];
		unsigned long count;
		size_t nr = 0, k;

		if (!tok || *tok == '#')
			continue;
		count = strtoul(tok, NULL, 10);
		while ((tok = strtok_r(NULL, " \t\n", &save)) && nr < MAX_BRANCHES) {
			char *gt = strchr(tok, '>');

			if (chains) {
				/* the IP, then return addresses: kept in from */
				br[nr++].from = address(tok);
				continue;
			}
			if (!gt) {
				fprintf(stderr, "gen-lbr: '%s' is not FROM>TO\n", tok);
				return 1;
			}
			*gt = 0;
			br[nr].from = address(tok);
			br[nr].to = address(gt + 1);
			br[nr].flags = 0;
			nr++;
		}
		for (unsigned long c = 0; c < count; c++) {
			struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
			uint32_t pt[2] = { PID, PID };

			k = 1;
			if (chains) {
				rec[k++] = nr ? br[0].from : base;
				memcpy(&rec[k++], pt, 8);
				rec[k++] = t++;
				rec[k++] = attr.sample_period;
				rec[k++] = nr + 1;
				rec[k++] = PERF_CONTEXT_USER;
				for (size_t i = 0; i < nr; i++)
					rec[k++] = br[i].from;
				h.size = (uint16_t)(k * 8);
				memcpy(rec, &h, 8);
				if (perf_data_writer_write(w, rec))
					die("SAMPLE");
				continue;
			}
			rec[k++] = nr ? br[0].to : base;	/* the IP: where the newest branch went */
			memcpy(&rec[k++], pt, 8);
			rec[k++] = t++;
			rec[k++] = attr.sample_period;
			rec[k++] = nr;
			for (size_t i = 0; i < nr; i++) {
				rec[k++] = br[i].from;
				rec[k++] = br[i].to;
				rec[k++] = 0;
			}
			h.size = (uint16_t)(k * 8);
			memcpy(rec, &h, 8);
			if (perf_data_writer_write(w, rec))
				die("SAMPLE");
		}
	}
	if (bin->build_id_size) {
		uint64_t buf[600];
		char real[4096];
		struct perf_rec_build_id b = { .misc = PERF_RECORD_MISC_USER, .pid = -1,
					       .size = (uint8_t)bin->build_id_size };
		int n;

		memcpy(b.build_id, bin->build_id, bin->build_id_size);
		b.filename = realpath(path, real) ? real : path;
		n = perf_rec_encode_build_id(buf, sizeof(buf), &b);
		if (n < 0 || perf_data_writer_add_feature(w, HEADER_BUILD_ID, buf, (size_t)n))
			die("BUILD_ID");
	}
	if ((!chains && perf_data_writer_add_feature(w, HEADER_BRANCH_STACK, "", 0)) ||
	    perf_data_writer_close(w))
		die(out);
	binary_free(bin);
	return 0;
}
