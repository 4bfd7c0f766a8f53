/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_ORACLE_H
#define PMS_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include "pms-event.h"

/* One overflow signal as the handler recorded it. */
struct pms_signal {
	uint64_t value;		/* counter value read in the handler */
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	int32_t cpu;		/* sched_getcpu() in the handler */
	int32_t si_code;	/* POLL_IN expected */
	int32_t fd;		/* si_fd (named so: si_fd is a macro in <signal.h>) */
	/*
	 * Low 32 bits of time_enabled - time_running (ns) as the handler read
	 * them (0 without that read_format): the event's time off the PMU.
	 * Its change between two signals, mod 2^32, says whether the event
	 * was multiplexed out in between.
	 */
	uint32_t off_pmu_ns;
};

/*
 * Per-signal classes.  Each is a different kernel behaviour and they are
 * never summed into one number.  "lost" is not a class of a signal that
 * arrived; it is counted from missing indices (see struct pms_oracle_result).
 */
enum pms_class {
	PMS_CLASS_ON_TIME,	/* index advanced by one, delta within P +/- tol */
	PMS_CLASS_LATE,		/* delta > P + tol; one that skipped indices which a
				 * later signal repaid (late delivery of those) */
	PMS_CLASS_EARLY,	/* index advanced by one, delta < P - tol */
	PMS_CLASS_COALESCED,	/* no index advance, repays an index skipped before */
	PMS_CLASS_SPURIOUS,	/* no index advance and nothing owed: extra signal */
	PMS_CLASS_GAP,		/* skipped indices that were never repaid: this signal
				 * came for its own index, the ones before it are
				 * counted in lost (the seed's "delta of 19999") */
	PMS_CLASS_BAD_CODE,	/* si_code other than POLL_IN (counted besides the above) */
	PMS_CLASS_NR,
};

/* Histogram of deltas in period units; edges depend on the tolerance. */
enum pms_hist_bin {
	PMS_HIST_LT_HALF,	/* [0, 0.5P) */
	PMS_HIST_EARLY,		/* [0.5P, P - tol) */
	PMS_HIST_ON_TIME,	/* [P - tol, P + tol] */
	PMS_HIST_LATE,		/* (P + tol, 1.5P) */
	PMS_HIST_2P,		/* [1.5P, 2.5P) */
	PMS_HIST_3P,		/* [2.5P, 3.5P) */
	PMS_HIST_MORE,		/* [3.5P, inf) */
	PMS_HIST_NR,
};

struct pms_oracle_cfg {
	uint64_t period;	/* P, > 0 */
	uint64_t tolerance;	/* tol, < P */
	enum pms_semantics sem;
	uint64_t base;		/* counter value when counting started (usually 0) */
	uint64_t final_value;	/* counter value after the event was disabled */
	bool final_valid;
	/* PMS_SEM_RESTART_ON_ENABLE: counter values at which ENABLE restarted
	 * the period, ascending; the index base moves to each.  May be NULL. */
	const uint64_t *restarts;
	size_t nr_restarts;
	size_t max_anomalies;	/* how many anomalies to keep; the total is always counted */
	/*
	 * Interrupt skid the CPU is allowed: a signal late (or, after a late
	 * one, early) by at most tolerance + skid with no index jump is
	 * counted in its class but does not fail the run.  0: exact.
	 */
	uint64_t skid;
	/*
	 * The PMU's overflow interrupt has no bound in counts (an emulator
	 * that raises it at its next timer event): late, early and coalesced
	 * signals are counted and reported, not judged.  Lost overflows and
	 * the rest still are.
	 */
	bool timing_unjudged;
	/* NULL, or room for one byte per signal: its timing class (never
	 * BAD_CODE), for attribution. */
	uint8_t *classes;
};

struct pms_anomaly {
	uint64_t signal;	/* 1-based signal number */
	enum pms_class cls;
	uint64_t value;
	int64_t delta;		/* value - previous value (previous = base for #1) */
	uint64_t index;		/* floor((value - base) / P); rounded for timer events */
	uint64_t missing;	/* indices this signal skipped (late with index jump) */
	uint64_t time_ns;
	int32_t cpu;
	int32_t si_code;
};

struct pms_oracle_result {
	uint64_t signals;
	uint64_t by_class[PMS_CLASS_NR];
	/* Indices skipped and never repaid by a coalesced signal: the overflow
	 * happened (the count says so) and its signal never came. */
	uint64_t lost;
	/* The first signal that skipped an index never repaid, and its time
	 * (0: none); known after the whole stream, whatever was kept. */
	uint64_t first_gap_signal, first_gap_ns;
	/* Overflows the final count implies: floor((final - base) / P) summed
	 * over restart segments; 0 if !final_valid. */
	uint64_t overflows_implied;
	/* The final overflow's signal may still be in flight when counting
	 * stopped within tol of it: not counted as lost, reported here. */
	uint64_t unsettled_tail;
	/* true where the semantics let the oracle judge that class; a class
	 * that is not judged is reported but never fails a run. */
	bool judged[PMS_CLASS_NR];
	bool lost_judged;
	/* late / early signals within the skid bound: reported, not judged */
	uint64_t late_in_skid, early_in_skid;
	uint64_t hist[PMS_HIST_NR];
	int64_t delta_min, delta_max;
	uint64_t anomalies_total;
	struct pms_anomaly *anomalies;	/* malloc'd, at most max_anomalies */
	size_t nr_anomalies;
};

/**
 * pms_oracle_classify - classify a stream of signals
 *
 * k = floor((value - base) / P) indexes each signal (u64 wraparound safe):
 * an exact counter is read after its overflow, so k is the number of
 * overflows that had happened; timer events round half up instead.
 * A jump of one within tolerance is on time; a delta above P + tol is late
 * and a jump of more than one owes the skipped indices; a signal that does
 * not advance the index repays one owed index (coalesced) or, with nothing
 * owed, is spurious; a jump of one below P - tol is early.  What is still
 * owed at the end is lost, and a signal whose skipped indices were never
 * repaid is reclassified from late to gap, so that one lost overflow is not
 * also reported as a late signal.  Under PMS_SEM_TIMER late/early/lost are counted
 * but not judged.
 *
 * Return: 0, or -ENOMEM / -EINVAL (period 0, tolerance >= period).
 */
int pms_oracle_classify(const struct pms_oracle_cfg *cfg, const struct pms_signal *sig,
			size_t n, struct pms_oracle_result *res);

void pms_oracle_result_free(struct pms_oracle_result *res);

/*
 * The same classification one signal at a time, in constant memory: the
 * streaming recorder's drain feeds it as signals arrive, and
 * pms_oracle_classify() is this over an array, so both judge alike.  Late
 * signals that skipped indices stay "late" until pms_oracle_stream_finish()
 * knows nobody repaid them; @settled (may be NULL) is then told, per run
 * of such signals, the @tag each was pushed with (the attribution's
 * evidence mask) and how many turned from late to gap.
 */
struct pms_gap_run;
struct pms_oracle_stream {
	const struct pms_oracle_cfg *cfg;
	struct pms_oracle_result *res;
	size_t cap, anomalies_alloc;
	uint64_t seg_base;
	uint64_t prev_value;
	int64_t prev_index;		/* highest index reached in this segment */
	uint64_t owed;
	size_t next_restart;
	struct pms_gap_run *gaps;
	size_t nr_gaps, gaps_cap;
	bool oom;
	void (*settled)(void *arg, size_t anomaly, uint32_t tag, uint64_t count);
	void *settled_arg;
};

/* Return: 0, or -EINVAL as pms_oracle_classify(). */
int pms_oracle_stream_init(struct pms_oracle_stream *w, const struct pms_oracle_cfg *cfg,
			   struct pms_oracle_result *res);
/* Classify the next signal; its class as known now (late may become gap). */
enum pms_class pms_oracle_stream_push(struct pms_oracle_stream *w, const struct pms_signal *s,
				      uint32_t tag);
/* Overflow indices skipped and not (yet) repaid. */
uint64_t pms_oracle_stream_owed(const struct pms_oracle_stream *w);
/* Close the run (final count, gaps).  Return: 0 or -ENOMEM (res freed). */
int pms_oracle_stream_finish(struct pms_oracle_stream *w);
/* Give up without finishing: frees what the stream holds and res. */
void pms_oracle_stream_abort(struct pms_oracle_stream *w);

/**
 * pms_oracle_failed - whether any judged class (or lost) is non-zero;
 * writes a one-sentence reason naming every non-zero judged class, or the
 * reason for a pass, into @reason.
 */
bool pms_oracle_failed(const struct pms_oracle_cfg *cfg, const struct pms_oracle_result *res,
		       char *reason, size_t len);

const char *pms_class_name(enum pms_class cls);	/* "on_time", "late", ... */
const char *pms_hist_bin_name(enum pms_hist_bin bin); /* "[0,0.5P)", ... */

/**
 * pms_wilson - 95% Wilson score interval for @k successes out of @n trials.
 * n == 0 gives [0, 1].
 */
void pms_wilson(uint64_t k, uint64_t n, double *lo, double *hi);

/**
 * pms_oracle_to_json - signal totals per class, lost, overflows_implied,
 * unsettled_tail, judged flags, histogram (bin name, lower and upper edge in
 * period units, count), anomalies (capped, with total), rates with 95% CI.
 */
json_object *pms_oracle_to_json(const struct pms_oracle_cfg *cfg,
				const struct pms_oracle_result *res);

#endif
