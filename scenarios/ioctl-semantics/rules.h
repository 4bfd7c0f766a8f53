/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_IOCTL_H
#define PMS_IOCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Pure rules of the ioctl-semantics scenario (PERF_EVENT_IOC_PERIOD,
 * PERF_EVENT_IOC_REFRESH, PERF_EVENT_IOC_RESET): no PMU, no system calls, so
 * that each can be unit tested on synthetic data.
 */

/**
 * pms_ioctl_refresh_hang_risk - whether kernel @release may hang the machine
 * when an IOC_REFRESH limit is reached on a cpu-clock/task-clock event.
 * @release: uname -r, e.g. "6.17.3-arch1", "6.18.0-rc4"
 * @why: receives one sentence saying why (either way)
 *
 * After the POLL_HUP delivery fix of 6.17-rc5, reaching the limit on a
 * cpu-clock/task-clock event could hang the machine until "perf/core: Fix
 * system hang caused by cpu-clock usage" (Nov 2025).  Without a precise list
 * of the stable releases that carry both, every 6.16.x and 6.17.x is treated
 * as affected, and so is every 6.18 release candidate (the fix's date puts it
 * in the 6.18 cycle: inferred, not checked against tags); 6.18 final and
 * later, and 6.15 and earlier, are not.
 *
 * Return: 1 affected, 0 not affected, -EINVAL when @release is not "X.Y...".
 */
int pms_ioctl_refresh_hang_risk(const char *release, char *why, size_t len);

/* One stretch of a period storm: IOC_PERIOD(@period) returned at counter
 * value @start, replacing @prev (the period in force before); the next switch
 * came at @end. */
struct pms_storm_seg {
	uint64_t start, end, period, prev;
};

/*
 * Where the overflows after IOC_PERIOD fall, by the kind of PMU.  Both come
 * from perf_event_period() setting period_left to 0:
 * RESTART   hardware PMUs reload the whole new period: s + t*p.
 * SWEVENT   software and breakpoint events (perf_swevent_set_period) take
 *           an overflow on the very next count, then one more *old* period,
 *           then the new one: s + 1, s + prev, s + prev + t*p (prev > 1;
 *           a previous period of 1 is not modelled).
 *           Seen on 6.18: when the task is scheduled in again between
 *           IOC_PERIOD and the next count, perf_swevent_add() reloads the
 *           period and a software event follows RESTART instead.
 * EITHER    each segment is judged by the model that fits it best.
 */
enum pms_storm_model { PMS_STORM_RESTART, PMS_STORM_SWEVENT, PMS_STORM_EITHER };

enum { PMS_STORM_LOST, PMS_STORM_EXTRA };

struct pms_storm_bad {
	uint64_t signal;	/* 0-based index into the values */
	uint64_t value;		/* 0 for a lost position past the last signal */
	uint64_t expected;	/* the position (lost), 0 for an extra signal */
	uint64_t period;	/* period in force in that segment */
	uint64_t seg;
	int kind;		/* PMS_STORM_LOST or PMS_STORM_EXTRA */
};

#define PMS_STORM_KEEP 16

struct pms_storm_result {
	uint64_t expected;	/* overflow positions the segments imply */
	uint64_t matched;	/* signals within tolerance of their position */
	uint64_t lost;		/* positions with no signal */
	uint64_t extra;		/* signals with no position */
	uint64_t max_error;	/* largest |value - expected| among matched signals */
	struct pms_storm_bad bad[PMS_STORM_KEEP];	/* the first mismatches */
	size_t nr_bad;
	uint64_t total_bad;	/* lost + extra */
	uint64_t segments_fit[2];	/* segments with no mismatch, by model */
	uint64_t segments_bad;		/* segments no model fits */
	/* ... of which the number of signals differs from the number of
	 * positions: an overflow lost or added, not just a late signal. */
	uint64_t segments_count_bad;
};

/**
 * pms_ioctl_storm_check - match the signals of a period storm against the
 * overflow positions @model says the segments imply.
 * @seg: @nseg segments in counter order
 * @values: the counter value read in each signal's handler, non-decreasing
 * @tol: how far a signal may be from its position (0 for exact counters)
 *
 * Signals up to a segment's end (+ @tol) belong to it.  A signal within @tol
 * of the next position matches it; one below it is extra; a position passed
 * with no signal is lost.
 *
 * Return: 0, or -EINVAL for a zero period or segments out of order.
 */
int pms_ioctl_storm_check(const struct pms_storm_seg *seg, size_t nseg,
			  enum pms_storm_model model, const uint64_t *values, size_t n,
			  uint64_t tol, struct pms_storm_result *res);

const char *pms_storm_model_name(enum pms_storm_model m);

/* Per-refresh accounting of IOC_REFRESH(limit). */
struct pms_refresh_acct {
	uint64_t limit;
	uint64_t signals;	/* signals in this round */
	uint64_t poll_in;	/* si_code POLL_IN */
	uint64_t poll_hup;	/* si_code POLL_HUP */
	uint64_t other;		/* any other si_code (e.g. SIGIO fallback) */
	bool hup_last;		/* the last signal of the round is the POLL_HUP */
	bool count_ok;		/* the counter stopped at limit periods (or not judged) */
	bool ok;
};

/**
 * pms_ioctl_refresh_account - judge one round of IOC_REFRESH(@limit).
 * @si_code: the si_code of each signal of the round, in order
 * @counted: how far the counter moved in the round
 * @period, @tol: the sampling period and the tolerance for @counted
 * @judge_count: whether @counted must be @limit * @period (+/- @tol):
 *	exact counters stop there; timer counters are not judged
 *
 * The rule: exactly @limit signals, @limit - 1 with POLL_IN and the last
 * one with POLL_HUP (the kernel sets pending_kill = POLL_HUP when
 * event_limit reaches 0 and disables the event), nothing after it.
 *
 * Return: 0, or -EINVAL for a zero limit.
 */
int pms_ioctl_refresh_account(uint64_t limit, const int32_t *si_code, size_t n, uint64_t counted,
			      uint64_t period, uint64_t tol, bool judge_count,
			      struct pms_refresh_acct *a);

enum pms_reset_model {
	PMS_RESET_CONTINUES,	/* RESET zeroes the count, the period position carries on */
	PMS_RESET_RESTARTS,	/* RESET also restarts the period */
	PMS_RESET_NOT_ZERO,	/* the count read right after RESET was not 0 (+/- tol) */
	PMS_RESET_NEITHER,	/* the next overflow fits neither model */
};

/**
 * pms_ioctl_reset_classify - which model one PERF_EVENT_IOC_RESET followed.
 * @period: P
 * @since_overflow: counts between the last overflow and the RESET (0 < r < P)
 * @after: the count read right after RESET
 * @next: the count read in the handler of the first overflow after RESET
 * @tol: tolerance on @after and @next
 *
 * Continues: the next overflow comes at P - r; restarts: at P.
 */
enum pms_reset_model pms_ioctl_reset_classify(uint64_t period, uint64_t since_overflow,
					      uint64_t after, uint64_t next, uint64_t tol);

const char *pms_reset_model_name(enum pms_reset_model m);

#endif
