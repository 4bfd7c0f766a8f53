/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Synthetic overflow-signal streams for the unit tests: counter values in,
 * well-formed signals (POLL_IN, 1 us apart, alternating CPUs) out.
 */
#ifndef PMS_TEST_SIGNAL_STREAM_H
#define PMS_TEST_SIGNAL_STREAM_H

#include <signal.h>
#include <string.h>

#include "pms-oracle.h"

#ifndef MAXSIG
#define MAXSIG	256
#endif

static struct pms_signal sig[MAXSIG];

/* Fill sig[] from @n counter values. */
static inline size_t stream(const uint64_t *v, size_t n)
{
	size_t i;

	memset(sig, 0, sizeof(sig));
	for (i = 0; i < n; i++) {
		sig[i].value = v[i];
		sig[i].time_ns = 1000 * (i + 1);
		sig[i].cpu = (int32_t)(i & 1);
		sig[i].si_code = POLL_IN;
		sig[i].fd = 3;
	}
	return n;
}

#endif
