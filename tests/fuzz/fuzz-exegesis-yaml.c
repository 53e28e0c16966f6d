// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: any bytes as an llvm-exegesis benchmark YAML stream
 * (sbx run's input), every document through the reader and made a snippet.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "measure/exegesis.h"

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	FILE *f = fmemopen((void *)buf, len ? len : 1, "r");
	struct exegesis_reader *r;
	struct exegesis_doc d;
	int ret, docs = 0;

	if (!f)
		return 0;
	if (!len)
		fgetc(f);	/* an empty stream */
	r = exegesis_reader_new(f, "fuzz.yaml");
	/* a syntax error ends the stream; other errors go on to the next document */
	while (r && (ret = exegesis_reader_next(r, &d)) != 0 && docs++ < 10000) {
		char unset[256], *text = NULL;

		if (ret < 0)
			continue;
		if (exegesis_doc_snippet(&d, &text, unset, sizeof(unset)) == 0)
			free(text);
		exegesis_doc_release(&d);
	}
	exegesis_reader_free(r);
	fclose(f);
	return 0;
}
