// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rules of the ioctl-semantics scenario, kept free of system calls so that
 * the unit tests can feed them synthetic data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>

#include "rules.h"

int pms_ioctl_refresh_hang_risk(const char *release, char *why, size_t len)
{
	unsigned int major, minor;
	char *end;
	bool rc;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2) {
		snprintf(why, len, "kernel release '%s' is not X.Y...", release ? release : "");
		return -EINVAL;
	}
	end = strchr(release, '-');
	rc = end && !strncmp(end, "-rc", 3);
	if (major == 6 && (minor == 16 || minor == 17)) {
		snprintf(why, len, "kernel %s: 6.16.x/6.17.x are treated as affected by the "
			 "cpu-clock/task-clock hang at an IOC_REFRESH limit (after the 6.17-rc5 POLL_HUP "
			 "fix, before \"perf/core: Fix system hang caused by cpu-clock usage\", "
			 "Nov 2025; stable releases with both are not told apart)", release);
		return 1;
	}
	if (major == 6 && minor == 18 && rc) {
		snprintf(why, len, "kernel %s: a 6.18 release candidate may predate \"perf/core: "
			 "Fix system hang caused by cpu-clock usage\" (Nov 2025), treated as "
			 "affected", release);
		return 1;
	}
	snprintf(why, len, "kernel %s: not in the affected range (6.16.x, 6.17.x, 6.18-rc)",
		 release);
	return 0;
}

static void storm_bad(struct pms_storm_result *res, int kind, uint64_t signal, uint64_t value,
		      uint64_t expected, const struct pms_storm_seg *s, uint64_t seg)
{
	res->total_bad++;
	if (res->nr_bad < PMS_STORM_KEEP) {
		struct pms_storm_bad *b = &res->bad[res->nr_bad++];

		b->kind = kind;
		b->signal = signal;
		b->value = value;
		b->expected = expected;
		b->period = s->period;
		b->seg = seg;
	}
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The k-th (0-based) overflow position of segment @s under @model, or 0 past its end. */
static uint64_t storm_pos(const struct pms_storm_seg *s, enum pms_storm_model model, uint64_t k)
{
	uint64_t e;

	if (model == PMS_STORM_RESTART)
		e = s->start + (k + 1) * s->period;
	else if (k == 0)
		e = s->start + 1;
	else
		e = s->start + s->prev + (k - 1) * s->period;
	return e <= s->end ? e : 0;
}

/* Mismatches of one segment's signals @v[0..n) under @model; records them if @res. */
static uint64_t storm_seg(const struct pms_storm_seg *s, size_t j, enum pms_storm_model model,
			  const uint64_t *v, size_t n, size_t base, uint64_t tol,
			  struct pms_storm_result *res)
{
	uint64_t e, k, bad = 0;
	size_t i = 0;

	for (k = 0; (e = storm_pos(s, model, k)); k++) {
		if (res)
			res->expected++;
		for (; i < n && v[i] + tol < e; i++, bad++)
			if (res)
				storm_bad(res, PMS_STORM_EXTRA, base + i, v[i], 0, s, j);
		if (i < n && absdiff(v[i], e) <= tol) {
			if (res) {
				if (absdiff(v[i], e) > res->max_error)
					res->max_error = absdiff(v[i], e);
				res->matched++;
			}
			i++;
			continue;
		}
		bad++;
		if (res) {
			res->lost++;
			storm_bad(res, PMS_STORM_LOST, base + i, i < n ? v[i] : 0, e, s, j);
		}
	}
	for (; i < n; i++, bad++)
		if (res)
			storm_bad(res, PMS_STORM_EXTRA, base + i, v[i], 0, s, j);
	return bad;
}

int pms_ioctl_storm_check(const struct pms_storm_seg *seg, size_t nseg,
			  enum pms_storm_model model, const uint64_t *values, size_t n,
			  uint64_t tol, struct pms_storm_result *res)
{
	size_t j, i = 0, lo;

	memset(res, 0, sizeof(*res));
	for (j = 0; j < nseg; j++)
		if (!seg[j].period || !seg[j].prev || seg[j].end < seg[j].start ||
		    (j && seg[j].start < seg[j - 1].end))
			return -EINVAL;
	for (j = 0; j < nseg; j++) {
		enum pms_storm_model m = model;

		/* Signals up to this segment's end (+ tol for a skid) are its own. */
		for (lo = i; i < n && (values[i] <= seg[j].end + tol || j + 1 == nseg); i++)
			;
		if (model == PMS_STORM_EITHER)
			m = storm_seg(&seg[j], j, PMS_STORM_SWEVENT, values + lo, i - lo, lo, tol,
				      NULL) <
			    storm_seg(&seg[j], j, PMS_STORM_RESTART, values + lo, i - lo, lo, tol,
				      NULL) ? PMS_STORM_SWEVENT : PMS_STORM_RESTART;
		if (storm_seg(&seg[j], j, m, values + lo, i - lo, lo, tol, res)) {
			uint64_t npos = 0;

			res->segments_bad++;
			while (storm_pos(&seg[j], m, npos))
				npos++;
			/* The right number of signals, some out of place: timing. */
			if (npos != i - lo)
				res->segments_count_bad++;
		} else {
			res->segments_fit[m]++;
		}
	}
	res->extra = res->total_bad - res->lost;
	if (i < n) {	/* no segment at all */
		res->extra += n - i;
		res->total_bad += n - i;
	}
	return 0;
}

const char *pms_storm_model_name(enum pms_storm_model m)
{
	return m == PMS_STORM_RESTART ? "restart" : m == PMS_STORM_SWEVENT ? "swevent" :
	       m == PMS_STORM_EITHER ? "either" : "?";
}

int pms_ioctl_refresh_account(uint64_t limit, const int32_t *si_code, size_t n, uint64_t counted,
			      uint64_t period, uint64_t tol, bool judge_count,
			      struct pms_refresh_acct *a)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	if (!limit)
		return -EINVAL;
	a->limit = limit;
	a->signals = n;
	for (i = 0; i < n; i++) {
		if (si_code[i] == POLL_IN)
			a->poll_in++;
		else if (si_code[i] == POLL_HUP)
			a->poll_hup++;
		else
			a->other++;
	}
	a->hup_last = n && si_code[n - 1] == POLL_HUP;
	a->count_ok = !judge_count || absdiff(counted, limit * period) <= tol;
	a->ok = n == limit && a->poll_in == limit - 1 && a->poll_hup == 1 && a->hup_last &&
		a->count_ok;
	return 0;
}

enum pms_reset_model pms_ioctl_reset_classify(uint64_t period, uint64_t since_overflow,
					      uint64_t after, uint64_t next, uint64_t tol)
{
	if (after > tol)
		return PMS_RESET_NOT_ZERO;
	if (since_overflow < period && absdiff(next, period - since_overflow) <= tol)
		return PMS_RESET_CONTINUES;
	if (absdiff(next, period) <= tol)
		return PMS_RESET_RESTARTS;
	return PMS_RESET_NEITHER;
}

const char *pms_reset_model_name(enum pms_reset_model m)
{
	static const char *const names[] = {
		[PMS_RESET_CONTINUES] = "continues",
		[PMS_RESET_RESTARTS] = "restarts",
		[PMS_RESET_NOT_ZERO] = "not_zero",
		[PMS_RESET_NEITHER] = "neither",
	};

	return (unsigned int)m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}
