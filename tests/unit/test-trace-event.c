// SPDX-License-Identifier: MIT
/* The tracing data reader on built data: the printk formats block that made libtraceevent read past it. */
#include <errno.h>
#include <event-parse.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "perf/trace-event.h"

struct buf {
	uint8_t b[8192];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put_str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

/* Tracing data in perf's 0.6 layout: no events, the given kallsyms and printk blocks. */
static size_t tracing_data(struct buf *b, const char *printk)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	static const char header_page[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
	const char *kallsyms = "ffffffff81000000 T _stext\n";

	b->n = 0;
	put(b, magic, sizeof(magic));
	put_str(b, "0.6");
	put(b, "\0\x08", 2);		/* little endian, 8-byte longs */
	put_u32(b, 4096);
	put_str(b, "header_page");
	put_u64(b, strlen(header_page));
	put(b, header_page, strlen(header_page));
	put_str(b, "header_event");
	put_u64(b, 0);
	put_u32(b, 0);			/* ftrace formats */
	put_u32(b, 0);			/* event systems */
	put_u32(b, (uint32_t)strlen(kallsyms));
	put(b, kallsyms, strlen(kallsyms));
	put_u32(b, (uint32_t)strlen(printk));
	put(b, printk, strlen(printk));
	put_u64(b, 0);			/* saved cmdlines */
	return b->n;
}

static void test_printk_formats(void)
{
	static const char *const damaged[] = {
		"0xffffffff81234567 : \"ok\"\nno colon on the last line",
		"0xffffffff81234567 : \"ok\"\n0xffffffff8123",
		"0xffffffff81234567:",
		":\"starts with the colon\"",
	};
	struct tep_handle *tep = NULL;
	struct buf b;
	size_t n;

	/* as perf writes it */
	n = tracing_data(&b, "0xffffffff81234567 : \"hello %s\"\n0xffffffff81234568 : \"x\"\n");
	CHECK_EQ_INT(trace_event_parse(b.b, n, &tep), 0);
	CHECK(tep != NULL);
	tep_free(tep);
	/* damaged: accepted (the block is optional), and never read past (the sanitizer pass) */
	for (size_t i = 0; i < sizeof(damaged) / sizeof(*damaged); i++) {
		tep = NULL;
		n = tracing_data(&b, damaged[i]);
		CHECK_EQ_INT(trace_event_parse(b.b, n, &tep), 0);
		CHECK(tep != NULL);
		tep_free(tep);
	}
	/* cut before the kallsyms: the events are all there, so still accepted */
	n = tracing_data(&b, "");
	CHECK_EQ_INT(trace_event_parse(b.b, n - 40, &tep), 0);
	tep_free(tep);
	/* cut in the header: an error */
	tep = NULL;
	CHECK_EQ_INT(trace_event_parse(b.b, 20, &tep), -EINVAL);
	CHECK(tep == NULL);
}

static const struct unit_test tests[] = {
	TEST(test_printk_formats),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
