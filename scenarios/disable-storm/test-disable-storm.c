/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * disable-storm unit tests: the oracle rules as this scenario applies them,
 * on synthetic streams shaped like what a DISABLE/ENABLE storm produces
 * (including the figures of a first probe on emulated arm64 6.1), restart
 * accounting for counters whose period restarts at ENABLE, and the toggle
 * log helpers.  No PMU needed.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "rules.h"
#include "pms-oracle.h"

#define MAXSIG	64
#include "signal-stream.h"

static struct pms_oracle_cfg cfg(uint64_t p, enum pms_semantics sem, uint64_t final)
{
	struct pms_oracle_cfg c = {
		.period = p, .tolerance = p / 10, .sem = sem,
		.final_value = final, .final_valid = true, .max_anomalies = 64,
	};
	return c;
}

/* A counter that keeps its period across toggles: every multiple of P signalled. */
static void test_keeps_period_clean(void)
{
	static const uint64_t v[] = { 100, 200, 300, 400, 500 };
	struct pms_oracle_cfg c = cfg(100, PMS_SEM_EXACT, 550);
	struct pms_oracle_result r;
	char why[256];

	ok(pms_oracle_classify(&c, sig, stream(v, 5), &r) == 0, "keeps: classify");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 5, "keeps: every signal on time");
	is_u64(r.lost, 0, "keeps: nothing lost");
	is_u64(r.overflows_implied, 5, "keeps: 5 overflows implied by 550");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)), "keeps: passes (%s)", why);
	pms_oracle_result_free(&r);
}

/* arm64: the overflow pending at DISABLE is thrown away; the next one comes. */
static void test_pending_thrown_away(void)
{
	static const uint64_t v[] = { 10000, 20000, 40000, 50000 };
	struct pms_oracle_cfg c = cfg(10000, PMS_SEM_EXACT, 52000);
	struct pms_oracle_result r;
	char why[256];

	ok(pms_oracle_classify(&c, sig, stream(v, 4), &r) == 0, "thrown away: classify");
	is_u64(r.lost, 1, "thrown away: the overflow at 30000 is lost");
	is_u64(r.by_class[PMS_CLASS_GAP], 1, "thrown away: the signal after it is a gap");
	is_u64(r.by_class[PMS_CLASS_LATE], 0, "thrown away: and not also late");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && strstr(why, "lost"),
	   "thrown away: fails naming the loss (%s)", why);
	pms_oracle_result_free(&r);
}

/* A pending overflow delivered only after ENABLE: late, then repaid. */
static void test_delivered_after_enable(void)
{
	static const uint64_t v[] = { 10000, 30050, 30100, 40000 };
	struct pms_oracle_cfg c = cfg(10000, PMS_SEM_EXACT, 40500);
	struct pms_oracle_result r;

	ok(pms_oracle_classify(&c, sig, stream(v, 4), &r) == 0, "late: classify");
	is_u64(r.by_class[PMS_CLASS_LATE], 1, "late: one signal skipped index 2");
	is_u64(r.by_class[PMS_CLASS_COALESCED], 1, "late: the next repaid it");
	is_u64(r.lost, 0, "late: nothing lost");
	ok(r.judged[PMS_CLASS_COALESCED] && r.judged[PMS_CLASS_LATE],
	   "late: both judged under exact semantics");
	pms_oracle_result_free(&r);
}

/* First emulated-arm64 probe, 6.1: storm from another thread, 0 signals for 20 periods. */
static void test_arm64_61_silence(void)
{
	struct pms_oracle_cfg c = cfg(10000, PMS_SEM_EXACT, 205000);
	struct pms_oracle_result r;
	char why[256];

	ok(pms_oracle_classify(&c, NULL, 0, &r) == 0, "6.1 silence: classify no signal");
	is_u64(r.overflows_implied, 20, "6.1 silence: 20 overflows implied");
	is_u64(r.lost, 20, "6.1 silence: all 20 lost");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)), "6.1 silence: fails (%s)", why);
	pms_oracle_result_free(&r);
}

/* Same probe, at P=100000, 7 signals for 8 periods, one delta of 200,925. */
static void test_arm64_61_one_delta(void)
{
	static const uint64_t v[] = { 100012, 200020, 300031, 400040, 600965, 700980,
				      801000 };
	struct pms_oracle_cfg c = cfg(100000, PMS_SEM_EXACT, 850000);
	struct pms_oracle_result r;

	ok(pms_oracle_classify(&c, sig, stream(v, 7), &r) == 0, "6.1 P=100000: classify");
	is_u64(r.overflows_implied, 8, "6.1 P=100000: 8 periods");
	is_u64(r.lost, 1, "6.1 P=100000: one overflow lost");
	ok(r.delta_max == 200925, "6.1 P=100000: the delta of 200,925 is kept (%lld)",
	   (long long)r.delta_max);
	pms_oracle_result_free(&r);
}

/*
 * A counter whose period restarts at ENABLE, toggled at 600, 1200, 2800,
 * 3300 and 5500 with P = 1000: only 2200, 4300 and 5300 overflow.
 */
static const uint64_t rs_toggles[] = { 600, 1200, 2800, 3300, 5500 };
static const uint64_t rs_signals[] = { 2200, 4300, 5300 };

static void test_restart_accounted(void)
{
	struct pms_oracle_cfg c = cfg(1000, PMS_SEM_RESTART_ON_ENABLE, 6200);
	struct pms_oracle_result r;
	char why[256];

	c.restarts = rs_toggles;
	c.nr_restarts = 5;
	ok(pms_oracle_classify(&c, sig, stream(rs_signals, 3), &r) == 0, "restarts: classify");
	is_u64(r.by_class[PMS_CLASS_ON_TIME], 3, "restarts: each signal on its segment's grid");
	is_u64(r.overflows_implied, 3, "restarts: 3 overflows, the partial periods dropped");
	is_u64(r.lost, 0, "restarts: nothing lost");
	ok(!pms_oracle_failed(&c, &r, why, sizeof(why)), "restarts: passes (%s)", why);
	pms_oracle_result_free(&r);
}

/* The same stream without the ENABLE values: called lost, which it is not. */
static void test_restart_unaccounted(void)
{
	struct pms_oracle_cfg c = cfg(1000, PMS_SEM_EXACT, 6200);
	struct pms_oracle_cfg c2 = cfg(1000, PMS_SEM_RESTART_ON_ENABLE, 6200);
	struct pms_oracle_result r;
	char why[256];

	ok(pms_oracle_classify(&c, sig, stream(rs_signals, 3), &r) == 0,
	   "no restarts (exact): classify");
	is_u64(r.overflows_implied, 6, "no restarts (exact): 6 overflows implied");
	is_u64(r.lost, 3, "no restarts (exact): 3 overflows called lost");
	ok(pms_oracle_failed(&c, &r, why, sizeof(why)) && strstr(why, "lost"),
	   "no restarts (exact): fails as a loss (%s)", why);
	pms_oracle_result_free(&r);

	ok(pms_oracle_classify(&c2, sig, stream(rs_signals, 3), &r) == 0,
	   "restart semantics, no restart values: classify");
	ok(r.lost > 0, "restart semantics, no restart values: lost %llu",
	   (unsigned long long)r.lost);
	pms_oracle_result_free(&r);
}

/* A real loss inside a restart segment is still a loss. */
static void test_restart_real_loss(void)
{
	static const uint64_t v[] = { 2200, 5300 };
	struct pms_oracle_cfg c = cfg(1000, PMS_SEM_RESTART_ON_ENABLE, 6200);
	struct pms_oracle_result r;

	c.restarts = rs_toggles;
	c.nr_restarts = 5;
	ok(pms_oracle_classify(&c, sig, stream(v, 2), &r) == 0, "restart loss: classify");
	is_u64(r.lost, 1, "restart loss: the overflow at 4300 is lost");
	pms_oracle_result_free(&r);
}

static void test_toggle_restarts(void)
{
	struct pms_toggle t[4] = {
		{ .value = 10, .value_valid = 1 },
		{ .value = 20, .value_valid = 1, .err = -EBADF },
		{ .value = 30, .value_valid = 0 },
		{ .value = 40, .value_valid = 1 },
	};
	uint64_t out[4];

	is_u64(pms_toggle_restarts(t, 4, out), 2, "restarts: failed and unread toggles left out");
	ok(out[0] == 10 && out[1] == 40, "restarts: values in order");
	t[3].value = 5;
	ok(pms_toggle_restarts(t, 4, out) == -EINVAL, "restarts: values going back rejected");
	ok(pms_toggle_restarts(t, 0, out) == 0, "restarts: empty log gives none");
}

static void test_toggle_last_before(void)
{
	struct pms_toggle t[3] = {
		{ .disable_ns = 100 }, { .disable_ns = 200 }, { .disable_ns = 300 },
	};

	ok(pms_toggle_last_before(t, 3, 99) == -1, "nearest: before the first: none");
	ok(pms_toggle_last_before(t, 3, 100) == 0, "nearest: at the first");
	ok(pms_toggle_last_before(t, 3, 250) == 1, "nearest: between: the earlier");
	ok(pms_toggle_last_before(t, 3, 1000) == 2, "nearest: after the last: the last");
	ok(pms_toggle_last_before(t, 0, 1000) == -1, "nearest: empty log: none");
}

static void test_enable_sem_decide(void)
{
	ok(pms_enable_sem_decide(1, 0, 12, 16) == PMS_ENABLE_KEEPS,
	   "decide: overflow at 10 from the start: keeps");
	ok(pms_enable_sem_decide(0, 1, 12, 16) == PMS_ENABLE_RESTARTS,
	   "decide: overflow at 10 from ENABLE: restarts");
	ok(pms_enable_sem_decide(1, 1, 12, 16) == PMS_ENABLE_UNKNOWN, "decide: both: unknown");
	ok(pms_enable_sem_decide(0, 0, 12, 16) == PMS_ENABLE_UNKNOWN, "decide: none: unknown");
	ok(pms_enable_sem_decide(1, 0, 13, 17) == PMS_ENABLE_UNKNOWN,
	   "decide: counts not one per unit: unknown");
	is_str(pms_enable_sem_name(PMS_ENABLE_RESTARTS), "restarts_period", "decide: name");
}

static void test_toggle_log(void)
{
	struct pms_toggle_log log = { 0 };

	ok(pms_toggle_log_init(&log, 0) == -EINVAL, "log: capacity 0 rejected");
	ok(pms_toggle_log_init(&log, 2) == 0, "log: init");
	ok(pms_toggle_once(-1, &log) == -EBADF, "log: a bad fd fails with EBADF");
	ok(log.n == 1 && log.failed == 1 && log.t[0].err == -EBADF && !log.t[0].value_valid &&
	   log.t[0].enable_ns >= log.t[0].disable_ns, "log: the failed toggle is logged");
	pms_toggle_once(-1, &log);
	ok(pms_toggle_once(-1, &log) == -ENOSPC && log.n == 2 && log.full == 1,
	   "log: full: not done, counted");
	log.stopped = 1;
	ok(pms_toggle_once(-1, &log) == -ESHUTDOWN && log.full == 1, "log: stopped: refused");
	pms_toggle_log_fini(&log);
	ok(!log.t, "log: freed");
	pms_toggle_log_fini(&log);
}

/*
 * The control part: signals before the first DISABLE against the overflows
 * its read implies; one in flight at that DISABLE goes to the storm.
 */
static void test_control_split(void)
{
	static const uint64_t v[] = { 100, 200, 300, 400, 500, 700, 800 };
	struct pms_toggle t0 = { .disable_ns = 0, .value = 450, .value_valid = 1 };
	struct pms_stressor_control c;
	size_t n = stream(v, 7);

	/* signal k at time 1000 * k: the first four before the DISABLE */
	t0.disable_ns = 4500;
	pms_control_split(sig, n, &t0, 0, 100, 1, 8, &c);
	ok(c.valid && c.overflows == 4 && c.lost == 0 && c.overflows_with == 4 &&
	   c.lost_with == 1, "4 overflows, 4 signals before the storm; the storm lost 1 of 4 "
	   "(%llu/%llu, %llu/%llu)", (unsigned long long)c.lost, (unsigned long long)c.overflows,
	   (unsigned long long)c.lost_with, (unsigned long long)c.overflows_with);

	/* the 5th overflow happened before the DISABLE, its signal came after */
	t0.value = 520;
	pms_control_split(sig, n, &t0, 0, 100, 1, 8, &c);
	ok(c.valid && c.overflows == 4 && c.lost == 0 && c.overflows_with == 4,
	   "an overflow in flight at the first DISABLE is the storm's, not a control loss");

	/* two implied beyond the signals: one lost in the control */
	t0.value = 620;
	pms_control_split(sig, n, &t0, 0, 100, 1, 8, &c);
	ok(c.valid && c.overflows == 5 && c.lost == 1 && c.lost_with == 0 &&
	   c.overflows_with == 3, "two overflows unsignalled at the DISABLE: one lost before "
	   "the storm, the run's one loss is the control's");

	t0.value = 5000;
	pms_control_split(sig, n, &t0, 0, 100, 1, 8, &c);
	ok(!c.valid, "a read implying more than the run did: not measured");
	t0.value = 50;
	pms_control_split(sig, n, &t0, 100, 100, 1, 8, &c);
	ok(!c.valid, "a read below the base: not measured");
}

int main(void)
{
	test_keeps_period_clean();
	test_pending_thrown_away();
	test_delivered_after_enable();
	test_arm64_61_silence();
	test_arm64_61_one_delta();
	test_restart_accounted();
	test_restart_unaccounted();
	test_restart_real_loss();
	test_toggle_restarts();
	test_toggle_last_before();
	test_enable_sem_decide();
	test_toggle_log();
	test_control_split();
	return tap_done();
}
