// SPDX-License-Identifier: MIT
/* libFuzzer target: any text as a snippet file through the annotation parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/snippet.h"

int LLVMFuzzerTestOneInput(const uint8_t *buf, size_t len)
{
	char *text = malloc(len + 1);
	struct snippet *s = NULL;

	if (!text)
		return 0;
	memcpy(text, buf, len);
	text[len] = '\0';
	if (snippet_parse("fuzz.s", text, &s) == 0)
		snippet_free(s);
	free(text);
	return 0;
}
