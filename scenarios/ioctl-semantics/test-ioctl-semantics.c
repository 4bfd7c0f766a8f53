/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ioctl-semantics rules on synthetic data, no PMU: the period-storm matcher
 * under both IOC_PERIOD models, per-refresh accounting (POLL_HUP expected
 * once per refresh), the IOC_RESET models, and the kernel-version gate that
 * refuses refresh on cpu-clock/task-clock where it may hang the machine.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"
#include "rules.h"

#define P 100
#define Q 150

/* Two segments: period P from 0 to 250 (replacing P), then Q from 250 to 600. */
static const struct pms_storm_seg segs[] = {
	{ .start = 0, .end = 250, .period = P, .prev = P },
	{ .start = 250, .end = 600, .period = Q, .prev = P },
};

static void test_storm(void)
{
	/* restart: 100, 200 | 400, 550 */
	const uint64_t restart[] = { 100, 200, 400, 550 };
	/* swevent: 1, 100, 200 | 251, 350, 500 */
	const uint64_t swevent[] = { 1, 100, 200, 251, 350, 500 };
	/* second segment restart, first swevent: what a reschedule gives */
	const uint64_t mixed[] = { 1, 100, 200, 400, 550 };
	/* a lost overflow and an extra one */
	const uint64_t lost[] = { 100, 400, 550 };
	const uint64_t extra[] = { 100, 200, 300, 400, 550 };
	/* the old period kept after the switch (pre-3.14 behaviour): 300, 450 */
	const uint64_t old[] = { 100, 200, 300, 450, 600 };
	struct pms_storm_result r;
	struct pms_storm_seg bad[2];

	ok(!pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, restart, 4, 0, &r),
	   "restart stream checks");
	is_u64(r.expected, 4, "restart: 4 positions");
	is_u64(r.matched, 4, "restart: all matched");
	is_u64(r.total_bad, 0, "restart: no mismatch");
	is_u64(r.segments_fit[PMS_STORM_RESTART], 2, "restart: both segments fit");

	pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, swevent, 6, 0, &r);
	ok(r.total_bad > 0, "swevent stream is not the restart model (%llu mismatches)",
	   (unsigned long long)r.total_bad);
	pms_ioctl_storm_check(segs, 2, PMS_STORM_SWEVENT, swevent, 6, 0, &r);
	is_u64(r.matched, 6, "swevent model: 1, prev, prev + t*p all matched");
	is_u64(r.total_bad, 0, "swevent model: no mismatch");

	pms_ioctl_storm_check(segs, 2, PMS_STORM_EITHER, mixed, 5, 0, &r);
	is_u64(r.total_bad, 0, "either: a swevent then a restart segment both fit");
	is_u64(r.segments_fit[PMS_STORM_SWEVENT], 1, "either: one swevent segment");
	is_u64(r.segments_fit[PMS_STORM_RESTART], 1, "either: one restart segment");
	pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, mixed, 5, 0, &r);
	is_u64(r.segments_bad, 1, "restart only: the swevent segment fits no model");

	pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, lost, 3, 0, &r);
	is_u64(r.lost, 1, "one lost overflow");
	is_u64(r.extra, 0, "no extra");
	ok(r.nr_bad == 1 && r.bad[0].kind == PMS_STORM_LOST && r.bad[0].expected == 200,
	   "the lost one is at 200");

	is_u64(r.segments_count_bad, 1, "lost: the segment's number of overflows is wrong");

	/* A late signal (skid 40, tol 10): out of place but the count is right. */
	{
		const uint64_t late[] = { 100, 240, 400, 550 };

		pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, late, 4, 10, &r);
		is_u64(r.segments_bad, 1, "late: one segment fits no model");
		is_u64(r.segments_count_bad, 0, "late: but its number of overflows is right");
	}

	pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, extra, 5, 0, &r);
	is_u64(r.extra, 1, "one extra signal (300: not on the Q grid from 250)");
	is_u64(r.lost, 0, "nothing lost");
	is_u64(r.segments_count_bad, 1, "extra: the segment's number of overflows is wrong");

	pms_ioctl_storm_check(segs, 2, PMS_STORM_EITHER, old, 5, 0, &r);
	ok(r.segments_bad == 1, "the old period kept after IOC_PERIOD fits no model");

	/* Tolerance: skid of 5 passes with tol 10, fails with tol 0. */
	{
		const uint64_t skid[] = { 105, 203, 404, 555 };

		pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, skid, 4, 10, &r);
		is_u64(r.total_bad, 0, "skid within tolerance matches");
		is_u64(r.max_error, 5, "largest error reported");
		pms_ioctl_storm_check(segs, 2, PMS_STORM_RESTART, skid, 4, 0, &r);
		ok(r.total_bad > 0, "skid with tolerance 0 does not");
	}

	memcpy(bad, segs, sizeof(bad));
	bad[1].start = 100;
	is_u64((uint64_t)-pms_ioctl_storm_check(bad, 2, PMS_STORM_RESTART, restart, 4, 0, &r),
	       EINVAL, "overlapping segments: -EINVAL");
	bad[1] = segs[1];
	bad[1].period = 0;
	is_u64((uint64_t)-pms_ioctl_storm_check(bad, 2, PMS_STORM_RESTART, restart, 4, 0, &r),
	       EINVAL, "period 0: -EINVAL");
	ok(!pms_ioctl_storm_check(segs, 0, PMS_STORM_RESTART, restart, 4, 0, &r) &&
	   r.extra == 4, "no segment: every signal is extra");
}

static void test_refresh(void)
{
	const int32_t good3[] = { POLL_IN, POLL_IN, POLL_HUP };
	const int32_t good1[] = { POLL_HUP };
	const int32_t nohup[] = { POLL_IN, POLL_IN, POLL_IN };
	const int32_t early[] = { POLL_IN, POLL_HUP, POLL_IN };
	const int32_t sigio[] = { POLL_IN, POLL_IN, 0x80 };
	const int32_t more[] = { POLL_IN, POLL_IN, POLL_HUP, POLL_IN };
	struct pms_refresh_acct a;

	ok(!pms_ioctl_refresh_account(3, good3, 3, 3 * P, P, 0, true, &a) && a.ok,
	   "REFRESH(3): POLL_IN, POLL_IN, POLL_HUP, stopped at 3P: ok");
	ok(a.poll_in == 2 && a.poll_hup == 1 && a.hup_last, "counts 2 POLL_IN, 1 POLL_HUP, last");
	pms_ioctl_refresh_account(1, good1, 1, P, P, 0, true, &a);
	ok(a.ok, "REFRESH(1): one POLL_HUP is the whole round");
	pms_ioctl_refresh_account(3, nohup, 3, 3 * P, P, 0, true, &a);
	ok(!a.ok && !a.poll_hup, "no POLL_HUP (the 6.17-rc breakage): not ok");
	pms_ioctl_refresh_account(3, early, 3, 3 * P, P, 0, true, &a);
	ok(!a.ok && !a.hup_last, "POLL_HUP not last: not ok");
	pms_ioctl_refresh_account(3, sigio, 3, 3 * P, P, 0, true, &a);
	ok(!a.ok && a.other == 1, "SIGIO fallback si_code counted as other: not ok");
	pms_ioctl_refresh_account(3, more, 4, 4 * P, P, 0, true, &a);
	ok(!a.ok, "a signal after the limit: not ok");
	pms_ioctl_refresh_account(3, good3, 2, 2 * P, P, 0, true, &a);
	ok(!a.ok, "n - 1 signals: not ok");
	pms_ioctl_refresh_account(3, good3, 3, 4 * P, P, 0, true, &a);
	ok(!a.ok && !a.count_ok, "counter ran a period past the limit: not ok");
	pms_ioctl_refresh_account(3, good3, 3, 3 * P + 7, P, 0, false, &a);
	ok(a.ok && a.count_ok, "timer: the count is not judged");
	pms_ioctl_refresh_account(2, good3, 0, 0, P, 0, true, &a);
	ok(!a.ok && a.signals == 0, "a dead event (no signal, no count): not ok");
	is_u64((uint64_t)-pms_ioctl_refresh_account(0, good3, 3, 0, P, 0, true, &a), EINVAL,
	       "limit 0: -EINVAL");
}

static void test_reset(void)
{
	is_str(pms_reset_model_name(pms_ioctl_reset_classify(P, 30, 0, 70, 0)), "continues",
	       "r = 30, next at 70: period position continues");
	is_str(pms_reset_model_name(pms_ioctl_reset_classify(P, 30, 0, 100, 0)), "restarts",
	       "r = 30, next at 100: period restarts");
	is_str(pms_reset_model_name(pms_ioctl_reset_classify(P, 30, 3, 70, 0)), "not_zero",
	       "count 3 right after RESET: not zero");
	is_str(pms_reset_model_name(pms_ioctl_reset_classify(P, 30, 0, 130, 0)), "neither",
	       "next at 130: neither model");
	is_str(pms_reset_model_name(pms_ioctl_reset_classify(P, 30, 2, 73, 5)), "continues",
	       "within tolerance 5: continues");
}

static void test_gate(void)
{
	static const struct { const char *rel; int want; } t[] = {
		{ "6.16.0", 1 }, { "6.16.12-arch1-1", 1 }, { "6.17.0-rc5", 1 },
		{ "6.17.9+deb13-amd64", 1 }, { "6.18.0-rc4", 1 }, { "6.18.44-fc-v595", 0 },
		{ "6.18.0", 0 }, { "6.19.1", 0 }, { "6.15.11", 0 }, { "6.1.0-56-arm64", 0 },
		{ "6.12.117+deb12-arm64", 0 }, { "5.10.0", 0 }, { "7.0.0", 0 },
		{ "6.160.1", 0 },
	};
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ok(pms_ioctl_refresh_hang_risk(t[i].rel, why, sizeof(why)) == t[i].want,
		   "%s: %s", t[i].rel, t[i].want ? "affected" : "not affected");
	ok(pms_ioctl_refresh_hang_risk("6.17.3", why, sizeof(why)) == 1 &&
	   strstr(why, "cpu-clock usage"), "the reason names the fix");
	is_u64((uint64_t)-pms_ioctl_refresh_hang_risk("linux", why, sizeof(why)), EINVAL,
	       "unparsable release: -EINVAL");
	is_u64((uint64_t)-pms_ioctl_refresh_hang_risk(NULL, why, sizeof(why)), EINVAL,
	       "NULL release: -EINVAL");
}

int main(void)
{
	test_storm();
	test_refresh();
	test_reset();
	test_gate();
	return tap_done();
}
