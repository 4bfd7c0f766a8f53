/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Oracle unit tests: synthetic signal streams, no PMU.  The streams mirror
 * what the kernel bugs produce (rr issue 3607's
 * ~2x period deltas, late-then-early pairs under migration, signals that stop
 * after DISABLE/ENABLE) so that each finding stays apart from the others.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "pms-oracle.h"

#define P	10000ULL
#define TOL	1000ULL
#define MAXSIG	256

#include "signal-stream.h"

static struct pms_oracle_cfg cfg_exact(void)
{
	struct pms_oracle_cfg c = {
		.period = P,
		.tolerance = TOL,
		.sem = PMS_SEM_EXACT,
		.max_anomalies = 64,
	};
	return c;
}

static int contains(const char *s, const char *needle)
{
	return s && strstr(s, needle) != NULL;
}

static int near(double got, double want, double eps)
{
	return fabs(got - want) < eps;
}

static void test_all_on_time(void)
{
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	uint64_t v[100];
	char why[256];
	size_t i, n;

	for (i = 0; i < 100; i++)
		v[i] = (i + 1) * P;
	n = stream(v, 100);
	c.final_valid = true;
	c.final_value = 100 * P + 10;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "exact stream: classify returns 0");
	is_u64(r.signals, 100, "exact stream: 100 signals");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 100, "exact stream: all on time");
	is_u64(r.lost, 0, "exact stream: nothing lost");
	is_u64(r.overflows_implied, 100, "exact stream: 100 overflows implied");
	is_u64(r.unsettled_tail, 0, "exact stream: last overflow signalled, no unsettled tail");
	is_u64(r.anomalies_total, 0, "exact stream: no anomalies");
	is_u64(r.hist[PMS_HIST_ON_TIME], 100, "exact stream: every delta in the on-time bin");
	ok(r.delta_min == (int64_t)P && r.delta_max == (int64_t)P,
	   "exact stream: delta min = max = P");
	ok(!r.judged[PMS_CLASS_ON_TIME] && r.judged[PMS_CLASS_LATE] && r.lost_judged,
	   "exact stream: everything but on_time judged");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)), "exact stream: passes");
	ok(contains(why, "all 100 signals on time for 100 overflows"),
	   "exact stream: pass reason names the counts (%s)", why);
	pms_oracle_result_free(&r);
}

static void test_skid_jitter(void)
{
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	uint32_t seed = 12345;
	uint64_t v[200];
	size_t i, n;

	/* Skid up to 900 counts after each overflow, as on Neoverse (rr: 1000). */
	for (i = 0; i < 200; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = (i + 1) * P + (seed >> 16) % 901;
	}
	n = stream(v, 200);
	c.final_valid = true;
	c.final_value = 200 * P + 950;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "jitter: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 200, "jitter: skid within tol is on time");
	is_u64(r.lost, 0, "jitter: nothing lost");
	ok(r.delta_min >= (int64_t)(P - 900) && r.delta_max <= (int64_t)(P + 900) &&
	   r.delta_min < r.delta_max, "jitter: deltas spread within P +/- 900");
	ok(!pms_oracle_failed(&c, &r, NULL, 0), "jitter: passes (NULL reason allowed)");
	pms_oracle_result_free(&r);
}

/*
 * rr issue 3607: period 10000, deltas 19999, 19998, 20058 under migration.
 * Each value is read after its overflow (a few counts of skid, never
 * negative), as an exact counter's always is.
 */
static void test_rr_3607(void)
{
	static const uint64_t v[] = {
		10002, 20003, 40002, 50004, 70002, 80004, 100062,
	};
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 7);

	c.final_valid = true;
	c.final_value = 100600;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "rr 3607: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_GAP], 3, "rr 3607: three signals after a gap");
	is_u64(r.by_class[PMS_CLASS_LATE], 0, "rr 3607: a loss is not also reported as late");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 4, "rr 3607: four on time");
	is_u64(r.lost, 3, "rr 3607: each skipped index never repaid: 3 lost");
	is_u64(r.overflows_implied, 10, "rr 3607: 10 overflows implied");
	is_u64(r.hist[PMS_HIST_2P], 3, "rr 3607: three deltas in [1.5P,2.5P)");
	is_u64(r.nr_anomalies, 3, "rr 3607: three anomalies kept");
	ok(r.nr_anomalies == 3 && r.anomalies[0].signal == 3 && r.anomalies[0].delta == 19999 &&
	   r.anomalies[0].index == 4 && r.anomalies[0].missing == 1 &&
	   r.anomalies[0].cls == PMS_CLASS_GAP,
	   "rr 3607: first anomaly is signal 3, delta 19999, index 4, missing 1, gap");
	ok(r.nr_anomalies == 3 && r.anomalies[1].delta == 19998 && r.anomalies[2].delta == 20058 &&
	   r.anomalies[2].missing == 1, "rr 3607: deltas 19998 and 20058 recorded");
	ok(r.delta_max == 20058, "rr 3607: delta max 20058");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)), "rr 3607: fails");
	ok(contains(why, "3 overflows lost") && !contains(why, "late"),
	   "rr 3607: reason names lost, not late (%s)", why);
	pms_oracle_result_free(&r);
}

static void test_late_then_coalesced(void)
{
	static const uint64_t v[] = { 10000, 30000, 30005 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 3);

	c.final_valid = true;
	c.final_value = 30500;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "late+coalesced: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_LATE], 1, "late+coalesced: one late");
	is_u64(r.by_class[PMS_CLASS_COALESCED], 1, "late+coalesced: one coalesced");
	is_u64(r.by_class[PMS_CLASS_SPURIOUS], 0, "late+coalesced: the repayment is not spurious");
	is_u64(r.lost, 0, "late+coalesced: the skipped index was repaid, nothing lost");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "coalesced") &&
	   !contains(why, "lost"), "late+coalesced: fails on coalesced, not lost (%s)", why);
	pms_oracle_result_free(&r);
}

/* The migration pattern seen on 6.1: a late signal followed by an early one. */
static void test_late_then_early(void)
{
	static const uint64_t v[] = { 10000, 20000, 33000, 40000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	size_t n = stream(v, 4);

	c.final_valid = true;
	c.final_value = 40100;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "late+early: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_LATE], 1, "late+early: 1.3P is late");
	is_u64(r.by_class[PMS_CLASS_EARLY], 1, "late+early: 0.7P is early");
	is_u64(r.lost, 0, "late+early: nothing lost");
	ok(r.nr_anomalies == 2 && r.anomalies[0].missing == 0 &&
	   r.anomalies[1].cls == PMS_CLASS_EARLY, "late+early: late skips nothing, then early");
	is_u64(r.hist[PMS_HIST_LATE] + r.hist[PMS_HIST_EARLY], 2,
	       "late+early: one delta each in (P+tol,1.5P) and [0.5P,P-tol)");
	pms_oracle_result_free(&r);
}

/*
 * The same late-then-early pair within a CPU's skid bound is reported but
 * not failed; a signal a whole period late is never skid.
 */
static void test_skid_bound(void)
{
	static const uint64_t v[] = { 10000, 20000, 33000, 40000 };
	static const uint64_t w[] = { 10000, 20000, 40000, 40500 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 4);

	c.final_valid = true;
	c.final_value = 40100;
	c.skid = 2000;		/* 0.3P late = tol + 2000: just inside */
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "skid: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_LATE], 1, "skid: the 1.3P delta is still counted late");
	is_u64(r.late_in_skid, 1, "skid: ... within the bound");
	is_u64(r.early_in_skid, 1, "skid: the 0.7P delta after it likewise");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "within the skid bound"),
	   "skid: not a failure, and the pass says why: %s", why);
	pms_oracle_result_free(&r);

	c.skid = 1999;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "skid 1999: classify");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "beyond the skid bound"),
	   "skid one short: the late signal fails the run: %s", why);
	pms_oracle_result_free(&r);

	n = stream(w, 4);
	c.skid = 100000;
	c.final_value = 40600;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "skid: whole-period jump");
	is_u64(r.late_in_skid, 0, "skid: a signal that skipped an index is never skid");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)), "skid: the 2P delta fails: %s", why);
	pms_oracle_result_free(&r);
}

/*
 * An emulated PMU (QEMU TCG) raises the overflow at its next timer event:
 * a late signal, the coalesced one that repays it, and an early one are
 * reported but not judged; an index never repaid still fails the run.
 */
static void test_timing_unjudged(void)
{
	static const uint64_t v[] = { 10000, 30000, 30005, 43000, 50000 };
	static const uint64_t w[] = { 10000, 30000, 40000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[512];
	size_t n = stream(v, 5);

	c.final_valid = true;
	c.final_value = 50500;
	c.skid = 1000;
	c.timing_unjudged = true;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "emulated: classify returns 0");
	ok(r.by_class[PMS_CLASS_LATE] == 2 && r.by_class[PMS_CLASS_COALESCED] == 1 &&
	   r.by_class[PMS_CLASS_EARLY] == 1 && r.lost == 0,
	   "emulated: still counted: 2 late, 1 coalesced, 1 early, none lost");
	ok(!r.judged[PMS_CLASS_LATE] && !r.judged[PMS_CLASS_EARLY] &&
	   !r.judged[PMS_CLASS_COALESCED] && r.judged[PMS_CLASS_SPURIOUS] &&
	   r.judged[PMS_CLASS_GAP] && r.lost_judged, "emulated: timing classes not judged, the rest are");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "no overflow lost") &&
	   contains(why, "2 late, 1 early, 1 coalesced signals reported, not judged") &&
	   !contains(why, "all 5 signals on time"),
	   "emulated: passes and says what it did not judge: %s", why);
	pms_oracle_result_free(&r);

	c.timing_unjudged = false;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && pms_oracle_failed(&c, &r, why, sizeof(why)),
	   "the same signals judged against a real CPU's bound fail: %s", why);
	pms_oracle_result_free(&r);

	n = stream(w, 3);
	c.timing_unjudged = true;
	c.final_value = 40500;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "emulated gap: classify");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "1 overflow lost") &&
	   !contains(why, "not judged"),
	   "emulated: an index never repaid still fails (%s)", why);
	pms_oracle_result_free(&r);
}

static void test_spurious(void)
{
	static const uint64_t v[] = { 10000, 10003, 20000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 3);

	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "spurious: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_SPURIOUS], 1, "spurious: extra signal with nothing owed");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 2, "spurious: the stream goes on on time");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "1 spurious signal "),
	   "spurious: fails naming it (%s)", why);
	ok(contains(why, "no final count") == 0, "spurious: fail reason is about the finding");
	pms_oracle_result_free(&r);
}

static void test_bad_code(void)
{
	static const uint64_t v[] = { 10000, 20000, 40000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 3);

	sig[1].si_code = POLL_HUP;
	sig[2].si_code = POLL_HUP;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "bad si_code: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_BAD_CODE], 2, "bad si_code: counted twice");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 2, "bad si_code: timing class still given");
	is_u64(r.anomalies_total, 3, "bad si_code: late + 2 bad codes = 3 anomalies");
	ok(r.nr_anomalies == 3 && r.anomalies[0].cls == PMS_CLASS_BAD_CODE &&
	   r.anomalies[0].si_code == POLL_HUP && r.anomalies[0].signal == 2,
	   "bad si_code: anomaly records signal 2 and its si_code");
	ok(r.nr_anomalies == 3 && r.anomalies[1].cls == PMS_CLASS_GAP &&
	   r.anomalies[2].cls == PMS_CLASS_BAD_CODE && r.anomalies[2].signal == 3,
	   "bad si_code: a gap signal with a bad code gives two anomalies");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "POLL_IN"),
	   "bad si_code: fails naming si_code (%s)", why);
	pms_oracle_result_free(&r);
}

/* DISABLE/ENABLE storm on 6.1: signals stop, the counter keeps going. */
static void test_signals_stop(void)
{
	static const uint64_t v[] = { 10000, 20000, 30000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 3);

	c.final_valid = true;
	c.final_value = 20 * P + 5000;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "stop: classify returns 0");
	is_u64(r.lost, 17, "stop: 3 signals for 20 overflows: 17 lost");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 3, "stop: the 3 that came were on time");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "17 overflows lost"),
	   "stop: fails naming 17 lost (%s)", why);
	pms_oracle_result_free(&r);

	ok(pms_oracle_classify(&c, NULL, 0, &r) == 0, "no signals: n = 0 is valid");
	is_u64(r.lost, 20, "no signals at 20P + P/2: 20 lost");
	is_u64(r.unsettled_tail, 0, "no signals at 20P + P/2: nothing unsettled");
	pms_oracle_result_free(&r);

	c.final_value = 20 * P + 500;
	ok(pms_oracle_classify(&c, NULL, 0, &r) == 0, "no signals near 20P: classify returns 0");
	is_u64(r.lost, 19, "no signals at 20P + 500: 19 lost");
	is_u64(r.unsettled_tail, 1, "no signals at 20P + 500: the last is unsettled");
	pms_oracle_result_free(&r);

	/* Without a final count the tail cannot be judged. */
	c.final_valid = false;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "no final: classify returns 0");
	is_u64(r.lost + r.overflows_implied, 0, "no final: no implied overflows, nothing lost");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "no final count"),
	   "no final: pass reason says the tail was not checked (%s)", why);
	pms_oracle_result_free(&r);
}

static void test_unsettled_tail(void)
{
	static const uint64_t v[] = { 10000, 20000, 30000, 40000, 50000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 5);

	c.final_valid = true;
	c.final_value = 6 * P + TOL;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "unsettled: classify returns 0");
	is_u64(r.unsettled_tail, 1, "unsettled: stop within tol of overflow 6");
	is_u64(r.lost, 0, "unsettled: not counted as lost");
	is_u64(r.overflows_implied, 6, "unsettled: still implied");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)) && contains(why, "unsettled"),
	   "unsettled: passes and says so (%s)", why);
	pms_oracle_result_free(&r);

	c.final_value = 6 * P + TOL + 1;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "settled: classify returns 0");
	ok(r.unsettled_tail == 0 && r.lost == 1, "settled: one count past tol, overflow 6 lost");
	pms_oracle_result_free(&r);
}

static void test_wraparound(void)
{
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	uint64_t base = UINT64_MAX - 25000, v[10];
	size_t i, n;

	for (i = 0; i < 10; i++)
		v[i] = base + (i + 1) * P + 7;	/* wraps past 0 at the third */
	v[6] += P;				/* 7th one period late: index 8 */
	v[7] = base + 8 * P + 20;		/* repays index 7 */
	n = stream(v, 10);
	c.base = base;
	c.final_valid = true;
	c.final_value = base + 10 * P + 3000;
	ok(v[2] < v[1], "wrap: the stream really wraps past 2^64");
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "wrap: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 8, "wrap: on time across the wrap");
	is_u64(r.by_class[PMS_CLASS_LATE], 1, "wrap: the 2P delta is late");
	is_u64(r.by_class[PMS_CLASS_COALESCED], 1, "wrap: then coalesced");
	is_u64(r.lost, 0, "wrap: nothing lost");
	is_u64(r.overflows_implied, 10, "wrap: 10 overflows implied");
	ok(r.delta_min == 13 && r.delta_max == (int64_t)(2 * P),
	   "wrap: deltas stay small and positive across the wrap");
	pms_oracle_result_free(&r);
}

/* page-faults: the period restarts from zero at every ENABLE. */
static void test_restart_on_enable(void)
{
	static const uint64_t v[] = { 10000, 20000, 35000, 45000, 55000, 71000, 81000 };
	static const uint64_t restarts[] = { 25000, 61000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	size_t n = stream(v, 7);

	c.sem = PMS_SEM_RESTART_ON_ENABLE;
	c.restarts = restarts;
	c.nr_restarts = 2;
	c.final_valid = true;
	c.final_value = 85000;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "restart: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 7, "restart: each segment on its own grid");
	is_u64(r.overflows_implied, 7, "restart: 2 + 3 + 2 overflows, partial periods dropped");
	is_u64(r.lost, 0, "restart: partial period at a segment end is not owed");
	pms_oracle_result_free(&r);

	/* The same stream judged as exact: restarts ignored, so it is off grid. */
	c.sem = PMS_SEM_EXACT;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "restart as exact: classify returns 0");
	ok(r.by_class[PMS_CLASS_ON_TIME] < 7,
	   "restart as exact: restarts apply only to their semantics");
	pms_oracle_result_free(&r);

	/* Index 4 of segment 2 skipped: owed across the restart, then lost. */
	{
		static const uint64_t w[] = { 10000, 20000, 35000, 55000, 71000, 81000 };

		n = stream(w, 6);
		c.sem = PMS_SEM_RESTART_ON_ENABLE;
		ok(pms_oracle_classify(&c, sig, n, &r) == 0, "restart skip: classify returns 0");
		is_u64(r.by_class[PMS_CLASS_GAP], 1, "restart skip: 2P inside a segment is a gap");
		is_u64(r.lost, 1, "restart skip: skipped index inside a segment is lost");
		pms_oracle_result_free(&r);
	}

	/* Segment 1 ends with overflow 2 unsignalled; its late signal arrives
	 * just after the restart and repays it. */
	{
		static const uint64_t w[] = { 10000, 25003, 35003 };

		n = stream(w, 3);
		c.nr_restarts = 1;
		c.final_value = 40000;
		ok(pms_oracle_classify(&c, sig, n, &r) == 0, "restart tail: classify returns 0");
		is_u64(r.by_class[PMS_CLASS_COALESCED], 1,
		       "restart tail: first signal after ENABLE repays segment 1's tail");
		is_u64(r.lost, 0, "restart tail: nothing lost");
		pms_oracle_result_free(&r);
	}

	{
		static const uint64_t bad[] = { 61000, 25000 };

		c.restarts = bad;
		c.nr_restarts = 2;
		ok(pms_oracle_classify(&c, sig, n, &r) == -EINVAL,
		   "restart: descending restarts are -EINVAL");
		pms_oracle_result_free(&r);
	}

	/* Without a final count nothing is implied, not even the closed segments. */
	c.restarts = restarts;
	c.nr_restarts = 2;
	c.final_valid = false;
	n = stream(v, 7);
	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && r.overflows_implied == 0 &&
	   r.by_class[PMS_CLASS_ON_TIME] == 7 && r.lost == 0,
	   "restart without final: segments still apply, overflows_implied 0");
	pms_oracle_result_free(&r);
}

static void test_bp_extra_count(void)
{
	static const uint64_t v[] = { 10000, 20000, 30000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	size_t n = stream(v, 3);

	c.sem = PMS_SEM_BP_EXTRA_COUNT;
	c.final_valid = true;
	c.final_value = 30003;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && r.by_class[PMS_CLASS_ON_TIME] == 3 &&
	   r.judged[PMS_CLASS_LATE] && r.lost_judged,
	   "bp extra count: counter values still P apart, judged like exact");
	pms_oracle_result_free(&r);
}

static void test_timer(void)
{
	/* ns values: one tick 2P late, then ticks stop 3 periods early. */
	static const uint64_t v[] = { 10000, 30000, 40000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	char why[256];
	size_t n = stream(v, 3);

	c.sem = PMS_SEM_TIMER;
	c.final_valid = true;
	c.final_value = 7 * P + 5000;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "timer: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_GAP], 1, "timer: gap still counted");
	ok(!r.judged[PMS_CLASS_GAP], "timer: gap not judged");
	ok(r.lost == 4, "timer: missing periods still counted (1 skipped + 3 at the end)");
	ok(!r.judged[PMS_CLASS_LATE] && !r.judged[PMS_CLASS_EARLY] &&
	   !r.judged[PMS_CLASS_COALESCED] && !r.lost_judged,
	   "timer: late, early, coalesced and lost not judged");
	ok(r.judged[PMS_CLASS_SPURIOUS] && r.judged[PMS_CLASS_BAD_CODE],
	   "timer: spurious and bad si_code still judged");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)), "timer: late and lost do not fail");
	ok(contains(why, "3 signals for 7 periods; timer-based event"),
	   "timer: reason says not judged (%s)", why);
	pms_oracle_result_free(&r);

	sig[2].si_code = POLL_HUP;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && pms_oracle_failed(&c, &r, why, sizeof(why)),
	   "timer: bad si_code fails even for a timer (%s)", why);
	pms_oracle_result_free(&r);
}

static void test_anomaly_cap(void)
{
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	uint64_t v[20];
	size_t i, n;

	for (i = 0; i < 20; i++)
		v[i] = 100 + i;		/* index 0 over and over: all spurious */
	n = stream(v, 20);
	c.max_anomalies = 5;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "cap: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_SPURIOUS], 20, "cap: 20 spurious");
	is_u64(r.anomalies_total, 20, "cap: total counts every anomaly");
	is_u64(r.nr_anomalies, 5, "cap: only max_anomalies kept");
	ok(r.nr_anomalies == 5 && r.anomalies[0].signal == 1 && r.anomalies[4].signal == 5,
	   "cap: the first ones are kept");
	pms_oracle_result_free(&r);
	ok(r.anomalies == NULL && r.nr_anomalies == 0, "cap: result_free clears the list");
	pms_oracle_result_free(&r);

	c.max_anomalies = 0;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && r.anomalies_total == 20 &&
	   r.nr_anomalies == 0 && !r.anomalies, "cap 0: counted, none kept");
	pms_oracle_result_free(&r);
}

static void test_histogram(void)
{
	/* Deltas on each side of every edge for P 10000, tol 1000. */
	static const uint64_t d[] = {
		4999, 5000, 8999, 9000, 11000, 11001, 14999,
		15000, 24999, 25000, 34999, 35000, 1000000,
	};
	static const uint64_t want[PMS_HIST_NR] = { 1, 2, 2, 2, 2, 2, 2 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	uint64_t v[13], acc = 0;
	size_t i, n;
	int b, good = 1;

	for (i = 0; i < 13; i++) {
		acc += d[i];
		v[i] = acc;
	}
	n = stream(v, 13);
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "histogram: classify returns 0");
	for (b = 0; b < PMS_HIST_NR; b++) {
		if (r.hist[b] != want[b]) {
			printf("#   bin %s: got %" PRIu64 ", want %" PRIu64 "\n",
			       pms_hist_bin_name(b), r.hist[b], want[b]);
			good = 0;
		}
	}
	ok(good, "histogram: every edge falls in the right bin");
	ok(r.delta_min == 4999 && r.delta_max == 1000000, "histogram: delta min and max");
	is_str(pms_hist_bin_name(PMS_HIST_ON_TIME), "[P-tol,P+tol]", "histogram: on-time bin name");
	is_str(pms_hist_bin_name(PMS_HIST_MORE), "[3.5P,inf)", "histogram: last bin name");
	pms_oracle_result_free(&r);

	/* A counter read that goes backwards: negative delta, lowest bin. */
	{
		static const uint64_t w[] = { 10000, 5000 };

		n = stream(w, 2);
		ok(pms_oracle_classify(&c, sig, n, &r) == 0 && r.delta_min == -5000 &&
		   r.by_class[PMS_CLASS_SPURIOUS] == 1 && r.hist[PMS_HIST_LT_HALF] == 1,
		   "histogram: backwards read is spurious, delta -5000 in the lowest bin");
		pms_oracle_result_free(&r);
	}
}

/* After a late signal, the next can skip an index with a delta under P + tol. */
static void test_jump_two_small_delta(void)
{
	static const uint64_t v[] = { 19999, 30000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	size_t n = stream(v, 2);

	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && r.by_class[PMS_CLASS_LATE] == 1 &&
	   r.by_class[PMS_CLASS_GAP] == 1 &&
	   r.lost == 1 && r.nr_anomalies == 2 && r.anomalies[1].missing == 1 &&
	   r.anomalies[1].delta == 10001,
	   "jump 2 with delta P + 1: late, one index missing");
	pms_oracle_result_free(&r);
}

/* The class edges are inclusive on time: P - tol and P + tol are on time. */
/*
 * An exact counter's index is the overflows that had happened when it was
 * read: a signal more than P/2 late belongs to the earlier overflow, and
 * the one after it is early, not a coalesced repayment of a phantom skip.
 */
static void test_floor_index(void)
{
	static const uint64_t v[] = { 10001, 20001, 36000, 40002 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	size_t n = stream(v, 4);

	c.final_valid = true;
	c.final_value = 40050;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "floor: classify returns 0");
	ok(r.by_class[PMS_CLASS_LATE] == 1 && r.by_class[PMS_CLASS_EARLY] == 1 &&
	   r.by_class[PMS_CLASS_GAP] == 0 && r.lost == 0,
	   "floor: 1.6P late then 0.4P early: late + early, nothing lost");
	pms_oracle_result_free(&r);
	n = stream(v, 3);
	c.final_value = 36100;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && r.lost == 0 && r.overflows_implied == 3,
	   "floor: a run ending after a signal 0.6P late loses nothing (round would say 1)");
	pms_oracle_result_free(&r);
	c.sem = PMS_SEM_TIMER;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0 && r.anomalies_total > 0 &&
	   r.anomalies[r.nr_anomalies - 1].index == 4, "floor: timer events still round (3.6P -> 4)");
	pms_oracle_result_free(&r);
}

static void test_class_edges(void)
{
	static const uint64_t v[] = { 10000, 21000, 32001, 41001, 50000 };
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	size_t n = stream(v, 5);

	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "class edges: classify returns 0");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 3, "class edges: deltas P, P + tol and P - tol on time");
	ok(r.by_class[PMS_CLASS_LATE] == 1 && r.nr_anomalies == 2 && r.anomalies[0].delta == 11001,
	   "class edges: P + tol + 1 is late");
	ok(r.by_class[PMS_CLASS_EARLY] == 1 && r.nr_anomalies == 2 && r.anomalies[1].delta == 8999,
	   "class edges: P - tol - 1 is early");
	pms_oracle_result_free(&r);
}

static void test_names(void)
{
	is_str(pms_class_name(PMS_CLASS_ON_TIME), "on_time", "class name on_time");
	is_str(pms_class_name(PMS_CLASS_COALESCED), "coalesced", "class name coalesced");
	is_str(pms_class_name(PMS_CLASS_BAD_CODE), "bad_si_code", "class name bad_si_code");
}

static void test_wilson(void)
{
	double lo, hi;

	pms_wilson(0, 10, &lo, &hi);
	ok(lo == 0.0 && near(hi, 0.2775, 1e-4), "wilson 0/10: [0, 0.2775] (%f, %f)", lo, hi);
	pms_wilson(5, 10, &lo, &hi);
	ok(near(lo, 0.2366, 1e-4) && near(hi, 0.7634, 1e-4),
	   "wilson 5/10: [0.2366, 0.7634] (%f, %f)", lo, hi);
	pms_wilson(10, 10, &lo, &hi);
	ok(near(lo, 0.7225, 1e-4) && hi == 1.0, "wilson 10/10: [0.7225, 1] (%f, %f)", lo, hi);
	pms_wilson(0, 0, &lo, &hi);
	ok(lo == 0.0 && hi == 1.0, "wilson 0/0: [0, 1]");
	pms_wilson(3, 1000, &lo, &hi);
	ok(near(lo, 0.001021, 1e-5) && near(hi, 0.008783, 1e-5),
	   "wilson 3/1000: [0.00102, 0.00878] (%f, %f)", lo, hi);
}

static void test_einval(void)
{
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;

	c.tolerance = P;
	ok(pms_oracle_classify(&c, NULL, 0, &r) == -EINVAL, "tolerance == period: -EINVAL");
	ok(r.anomalies == NULL && r.signals == 0, "-EINVAL leaves a zeroed result");
	c.tolerance = P + 1;
	ok(pms_oracle_classify(&c, NULL, 0, &r) == -EINVAL, "tolerance > period: -EINVAL");
	c.period = 0;
	c.tolerance = 0;
	ok(pms_oracle_classify(&c, NULL, 0, &r) == -EINVAL, "period 0: -EINVAL");
	c = cfg_exact();
	ok(pms_oracle_classify(&c, NULL, 3, &r) == -EINVAL, "NULL signals with n > 0: -EINVAL");
	c.tolerance = P - 1;
	ok(pms_oracle_classify(&c, NULL, 0, &r) == 0, "tolerance P - 1: accepted");
	pms_oracle_result_free(&r);
}

static json_object *get(json_object *o, const char *path)
{
	char buf[128], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, tok, &o))
			return NULL;
	return o;
}

static int has(json_object *o, const char *path)
{
	char buf[128], *dot, *save = NULL;
	json_object *parent = o;

	snprintf(buf, sizeof(buf), "%s", path);
	dot = strrchr(buf, '.');
	if (dot) {
		*dot = '\0';
		parent = get(o, buf);
		save = dot + 1;
	} else {
		save = buf;
	}
	return parent && json_object_object_get_ex(parent, save, NULL);
}

static void test_json(void)
{
	static const char *const keys[] = {
		"semantics", "period", "tolerance", "signals",
		"classes.on_time", "classes.late", "classes.early", "classes.coalesced",
		"classes.spurious", "classes.bad_si_code",
		"judged.late", "judged.early", "judged.coalesced", "judged.spurious",
		"judged.bad_si_code", "judged.lost",
		"lost", "overflows_implied", "unsettled_tail",
		"loss_rate.value", "loss_rate.ci95", "loss_rate.method",
		"late_rate.value", "late_rate.ci95", "late_rate.method",
		"delta.min", "delta.max", "histogram",
		"anomalies.total", "anomalies.kept", "anomalies.list",
	};
	static const char *const akeys[] = {
		"signal", "class", "value", "delta", "index", "missing", "time_ns", "cpu",
		"si_code",
	};
	static const uint64_t v[] = {
		10002, 20003, 40002, 50004, 70002, 80004, 100062,
	};
	struct pms_oracle_cfg c = cfg_exact();
	struct pms_oracle_result r;
	json_object *j, *h, *a;
	size_t i, n = stream(v, 7);
	const char *missing = NULL;

	c.final_valid = true;
	c.final_value = 100600;
	ok(pms_oracle_classify(&c, sig, n, &r) == 0, "json: classify returns 0");
	j = pms_oracle_to_json(&c, &r);
	ok(j != NULL, "json: object built");
	if (!j) {
		pms_oracle_result_free(&r);
		return;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!has(j, keys[i]) && !missing)
			missing = keys[i];
	ok(!missing, "json: every top-level and nested key present (missing: %s)",
	   missing ? missing : "none");
	ok(!has(j, "judged.on_time"), "json: judged has no on_time");
	is_u64(json_object_get_uint64(get(j, "classes.gap")), 3, "json: classes.gap = 3");
	is_u64(json_object_get_uint64(get(j, "lost")), 3, "json: lost = 3");
	is_u64(json_object_get_uint64(get(j, "overflows_implied")), 10,
	       "json: overflows_implied = 10");
	ok(near(json_object_get_double(get(j, "loss_rate.value")), 0.3, 1e-9),
	   "json: loss_rate = 3/10");
	ok(json_object_array_length(get(j, "loss_rate.ci95")) == 2, "json: ci95 is a pair");
	is_str(json_object_get_string(get(j, "loss_rate.method")), "wilson", "json: method wilson");
	ok(json_object_get_boolean(get(j, "judged.lost")), "json: judged.lost true for exact");

	h = get(j, "histogram");
	ok(json_object_array_length(h) == PMS_HIST_NR, "json: histogram has 7 bins");
	ok(h && near(json_object_get_double(get(json_object_array_get_idx(h, 1), "hi_periods")),
		     0.9, 1e-9) &&
	   near(json_object_get_double(get(json_object_array_get_idx(h, 3), "lo_periods")),
		1.1, 1e-9), "json: tol edges at 0.9 and 1.1 periods");
	ok(h && has(json_object_array_get_idx(h, 6), "hi_periods") &&
	   get(json_object_array_get_idx(h, 6), "hi_periods") == NULL,
	   "json: last bin's upper edge is null");
	ok(h && json_object_get_uint64(get(json_object_array_get_idx(h, 4), "count")) == 3 &&
	   !strcmp(json_object_get_string(get(json_object_array_get_idx(h, 4), "bin")),
		   "[1.5P,2.5P)"), "json: [1.5P,2.5P) bin holds 3");

	a = json_object_array_get_idx(get(j, "anomalies.list"), 0);
	missing = NULL;
	for (i = 0; i < sizeof(akeys) / sizeof(akeys[0]); i++)
		if (!has(a, akeys[i]) && !missing)
			missing = akeys[i];
	ok(a && !missing, "json: anomaly has every key (missing: %s)", missing ? missing : "none");
	is_str(json_object_get_string(get(a, "class")), "gap", "json: anomaly class by name");
	ok(json_object_get_int64(get(a, "delta")) == 19999, "json: anomaly delta 19999");
	json_object_put(j);
	pms_oracle_result_free(&r);

	/* No signals, no final count: nulls rather than made-up zeros. */
	c.final_valid = false;
	ok(pms_oracle_classify(&c, NULL, 0, &r) == 0, "json empty: classify returns 0");
	j = pms_oracle_to_json(&c, &r);
	ok(j && has(j, "overflows_implied") && !get(j, "overflows_implied") &&
	   has(j, "delta") && !get(j, "delta"),
	   "json empty: overflows_implied and delta are null");
	ok(j && json_object_get_double(get(j, "loss_rate.value")) == 0.0,
	   "json empty: loss rate 0 with nothing implied");
	json_object_put(j);
	pms_oracle_result_free(&r);
}

int main(void)
{
	test_all_on_time();
	test_skid_jitter();
	test_rr_3607();
	test_late_then_coalesced();
	test_late_then_early();
	test_spurious();
	test_bad_code();
	test_signals_stop();
	test_unsettled_tail();
	test_wraparound();
	test_restart_on_enable();
	test_bp_extra_count();
	test_timer();
	test_anomaly_cap();
	test_histogram();
	test_skid_bound();
	test_timing_unjudged();
	test_jump_two_small_delta();
	test_floor_index();
	test_class_edges();
	test_names();
	test_wilson();
	test_einval();
	test_json();
	return tap_done();
}
