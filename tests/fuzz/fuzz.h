/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_FUZZ_H
#define PMS_FUZZ_H

/*
 * Shared by the libFuzzer harnesses in tests/fuzz: each defines
 * LLVMFuzzerTestOneInput() for one parser of outside input and keeps to the
 * parser's documented contract, so that whatever the sanitizers report is a
 * bug of the parser, not of the harness.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_TOP
#define FUZZ_TOP "."		/* the repository, for its fixtures */
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @data as a NUL-terminated string (an embedded NUL ends it early). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Take @len bytes off the front of the input, zeros once it runs out. */
static inline void fuzz_take(const uint8_t **data, size_t *size, void *dst, size_t len)
{
	size_t n = len < *size ? len : *size;

	memset(dst, 0, len);
	memcpy(dst, *data, n);
	*data += n;
	*size -= n;
}

#endif
