/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz.h - what the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share: the
 * input as a NUL-terminated string, whether a JSON text holds an escaped
 * NUL, and a check that stops the run with a message when an invariant
 * fails (libFuzzer keeps the input).
 */
#ifndef VCP_FUZZ_H
#define VCP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @data as a malloc'd string (cut at a NUL inside, as a C reader would). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Does the JSON text @s hold an escaped NUL, "\u0000" whose backslash
 * is not itself escaped? A strict reader refuses every such text: json-c
 * would cut the key or value there ("op\u0000" read as a second "op"). */
static inline int fuzz_escaped_nul(const char *s)
{
	size_t run = 0;

	for (; *s; s++) {
		if (*s == '\\') {
			run++;
			continue;
		}
		if (run % 2 && !strncmp(s, "u0000", 5))
			return 1;
		run = 0;
	}
	return 0;
}

#define FUZZ_CHECK(cond)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: invariant failed: %s\n",    \
				__FILE__, __LINE__, #cond);                 \
			abort();                                            \
		}                                                           \
	} while (0)

#endif
