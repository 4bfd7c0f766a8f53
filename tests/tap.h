/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Minimal TAP producer for the unit tests: prove(1) runs them and prints the
 * summary CI reads.
 */
#ifndef PMS_TAP_H
#define PMS_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_u64(got, want, name) do {						\
	uint64_t g_ = (got), w_ = (want);					\
	if (!ok(g_ == w_, "%s", name))						\
		printf("#   got %" PRIu64 ", want %" PRIu64 "\n", g_, w_);	\
} while (0)
#define is_str(got, want, name) do {						\
	const char *g_ = (got), *w_ = (want);					\
	if (!ok(g_ && w_ && !strcmp(g_, w_), "%s", name))			\
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_);	\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
