/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_ATTRIB_H
#define PMS_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "pms-oracle.h"

/*
 * Attribution: why was a signal lost, late, early or extra?  Each signal
 * has a window (an anomaly's from the last on-time signal, an on-time
 * signal's from the one before it); evidence stamped on the same clock
 * (scheduler trace, the mover's rebinds, the scenario's ioctls, throttling,
 * the SIGIO fallback) falls into windows.  A cause is claimed for an
 * anomaly only where it is found in more anomaly windows than on-time
 * windows of the same length would hold, by at least the lift threshold
 * and beyond chance
 * (environment causes, which by themselves stop signals, excepted): a
 * migration in every window explains nothing.
 */
enum pms_cause {
	/* environment: never a kernel bug */
	PMS_CAUSE_THROTTLE,		/* PERF_RECORD_THROTTLE, or the rate ceiling */
	PMS_CAUSE_SIGNAL_QUEUE_FULL,	/* SIGIO fallback: RLIMIT_SIGPENDING reached */
	PMS_CAUSE_MULTIPLEX,		/* time_running stalled while enabled */
	/* schedule-out paths: where the known PMU bugs live */
	PMS_CAUSE_IOCTL_DISABLE,	/* the scenario's PERF_EVENT_IOC_DISABLE */
	PMS_CAUSE_MIGRATION,		/* sched_migrate_task of the counting thread */
	PMS_CAUSE_REBIND,		/* the mover's request (no trace: a proxy) */
	PMS_CAUSE_SWITCH_OUT,		/* sched_switch away from the counting thread */
	PMS_CAUSE_NR,
};

const char *pms_cause_name(enum pms_cause c);	/* "migration", ... */
bool pms_cause_is_environment(enum pms_cause c);

struct pms_evidence {
	uint64_t time_ns;	/* CLOCK_MONOTONIC */
	uint8_t cause;		/* enum pms_cause */
	int32_t a, b;		/* migration: from/to CPU; switch: prev_state char; else -1 */
};

struct pms_attrib_cfg {
	double lift_min;	/* claim a correlated cause only at this lift or more */
	double alpha;		/* ... and when chance would explain it with p below this */
	size_t max_listed;	/* evidence items listed per anomaly */
	bool complete;		/* every source was captured in full */
	const char *incomplete_why;
	bool traced;		/* scheduler trace present (else rebinds stand in) */
	bool window_by_time;	/* measure windows in time even where counts would do */
};

struct pms_cause_stat {
	uint64_t events;		/* evidence items of this cause in the run */
	uint64_t anomaly_windows;	/* anomaly windows holding at least one */
	uint64_t on_time_windows;	/* on-time windows holding at least one */
	uint64_t claimed;		/* anomalies this cause was chosen for */
	uint64_t anomaly_events;	/* its events inside anomaly windows */
	uint64_t on_time_events;	/* its events inside on-time windows */
	double q;			/* share of on-time windows holding it (+1 pseudo) */
	double expected;		/* anomaly windows expected to hold it at that share */
	double lift;			/* anomaly_windows / expected; <0: no on-time window */
	bool never_on_time;		/* not in any on-time window: lift a lower bound */
	double p;			/* P(at least anomaly_windows | binomial at expected) */
};

struct pms_attrib_result {
	uint64_t anomalies, on_time;	/* windows of each kind */
	uint64_t anomaly_ns, on_time_ns;	/* their total length */
	uint64_t unexplained;
	bool by_count;			/* windows measured in counts, not time */
	struct pms_cause_stat cause[PMS_CAUSE_NR];
	int dominant;			/* enum pms_cause, or -1: none claimed */
	uint64_t anomalies_by_class[PMS_CLASS_NR];
	uint64_t claimed_by_class[PMS_CLASS_NR][PMS_CAUSE_NR];
	/* the first anomalies' windows, for the anomaly list; by signal number */
	struct pms_attrib_kept *kept;
	size_t nr_kept;
	/* anomaly windows past the first PMS_ATTRIB_EXACT, whose lengths were
	 * kept in 1/64-octave bins for the expected counts */
	uint64_t lengths_binned;
};

#define PMS_ATTRIB_MAX_LISTED	8	/* evidence items listed per anomaly, at most */
#define PMS_ATTRIB_ITEMS_KEPT	4096	/* anomalies whose evidence items are kept */
#define PMS_ATTRIB_EXACT	65536	/* anomaly windows whose length is kept exactly */
#define PMS_ATTRIB_BINS_PER_OCTAVE 64
#define PMS_ATTRIB_BINS		(64 * PMS_ATTRIB_BINS_PER_OCTAVE)
#define PMS_ATTRIB_NO_WINDOW	0x80	/* mask bit: the anomaly had no window */

struct pms_attrib_kept {
	uint64_t signal;	/* 1-based signal number */
	uint64_t time_ns, from_ns;
	bool windowed;
	uint8_t mask;		/* causes present in the window (PMS_ATTRIB_NO_WINDOW) */
	uint8_t cls;		/* its class, late turned gap when settled */
	uint8_t cause;		/* chosen cause + 1, 0: unexplained */
	uint8_t nitems;
	uint16_t lane;		/* the counting thread (merged runs), 0 otherwise */
	struct pms_evidence items[PMS_ATTRIB_MAX_LISTED];
};

/*
 * Evidence a window is looked up in: up to PMS_EV_SEGS arrays, each sorted
 * by time (one per source in a streaming run, so no source waits for
 * another to be merged in).
 */
#define PMS_EV_SEGS 4
struct pms_ev_view {
	const struct pms_evidence *ev[PMS_EV_SEGS];
	size_t n[PMS_EV_SEGS];
};

/*
 * Attribution one signal at a time, in memory that does not grow with the
 * run: each window's evidence is looked up in @ev as the signal is pushed
 * (the caller keeps it covering the window: from the last on-time signal),
 * and only counts, per-(class, evidence mask) tallies, the lengths of the
 * first PMS_ATTRIB_EXACT anomaly windows (then 1/64-octave bins) and the
 * first @max_kept anomalies' windows are kept.  A cause is chosen from the
 * mask alone once the base rates are known, so it is the same rule as the
 * whole-run pms_attrib_run(), which is this over arrays.
 */
struct pms_attrib_stream {
	const struct pms_attrib_cfg *cfg;
	struct pms_attrib_result *res;
	uint64_t nr;
	bool have_prev, have_ok;
	uint64_t prev_t, prev_v, ok_t, ok_v;
	uint64_t on_time_count;
	bool count_back;
	uint64_t tally[PMS_CLASS_NR][256];
	double *len_t, *len_c;
	size_t nlen, len_cap;
	uint64_t bin_t[PMS_ATTRIB_BINS], bin_c[PMS_ATTRIB_BINS];
	size_t max_kept, kept_cap;
};

void pms_attrib_stream_init(struct pms_attrib_stream *as, const struct pms_attrib_cfg *cfg,
			    struct pms_attrib_result *res, size_t max_kept);
/*
 * The tag to push @s to the oracle with: the evidence mask of the window
 * @s has if it is an anomaly, and where its record goes if it is kept.
 */
uint32_t pms_attrib_stream_tag(const struct pms_attrib_stream *as, const struct pms_signal *s,
			       const struct pms_ev_view *ev);
/* @s as the oracle classed it.  Return: 0 or -ENOMEM. */
int pms_attrib_stream_push(struct pms_attrib_stream *as, const struct pms_signal *s,
			   enum pms_class cls, uint32_t tag, const struct pms_ev_view *ev);
/* @count anomalies pushed with @tag changed class (the oracle's late -> gap). */
void pms_attrib_stream_settled(struct pms_attrib_stream *as, uint32_t tag, enum pms_class from,
			       enum pms_class to, uint64_t count);
/* Base rates, lifts, and a cause per anomaly.  @events: items per cause in the run. */
int pms_attrib_stream_finish(struct pms_attrib_stream *as, const uint64_t events[PMS_CAUSE_NR]);
void pms_attrib_stream_abort(struct pms_attrib_stream *as);
/*
 * Add @src's windows (another counting thread's, marked @lane) to @dst
 * before pms_attrib_stream_finish(@dst): the base rates are then the
 * run's.  @src is released.  Return: 0 or -ENOMEM.
 */
int pms_attrib_stream_merge(struct pms_attrib_stream *dst, struct pms_attrib_stream *src,
			    uint16_t lane);

/* The kept window of thread @lane's signal number @signal, or NULL. */
const struct pms_attrib_kept *pms_attrib_kept_find_lane(const struct pms_attrib_result *res,
							uint16_t lane, uint64_t signal);
/* The same for thread 0. */
const struct pms_attrib_kept *pms_attrib_kept_find(const struct pms_attrib_result *res,
						   uint64_t signal);

/**
 * pms_attrib_run - attribute every anomaly among @n signals whose timing
 * classes the oracle wrote into @cls (PMS_CLASS_*), given @ev (sorted by
 * time, @nev items).  Return: 0 or -ENOMEM.
 */
int pms_attrib_run(const struct pms_attrib_cfg *cfg, const struct pms_signal *sig,
		   const uint8_t *cls, size_t n, const struct pms_evidence *ev, size_t nev,
		   struct pms_attrib_result *res);

void pms_attrib_free(struct pms_attrib_result *res);

/*
 * The schedule-out cause claimed for the most anomalies, or -1: never an
 * environment cause, except multiplexing when @multiplex_under_test (the
 * run made the PMU rotate on purpose).  What known bugs are matched on.
 */
int pms_attrib_schedule_out_cause(const struct pms_attrib_result *res,
				  bool multiplex_under_test);

/* Sort evidence by time (stable for equal stamps). */
void pms_evidence_sort(struct pms_evidence *ev, size_t n);

/**
 * pms_attrib_annotate - add "cause" and "evidence" (the items in its window,
 * with their offsets from the window's start) to each anomaly of the
 * oracle's JSON list.
 */
void pms_attrib_annotate(const struct pms_attrib_cfg *cfg, const struct pms_attrib_result *res,
			 json_object *oracle);

/* The `attribution` section of a result. */
json_object *pms_attrib_to_json(const struct pms_attrib_cfg *cfg,
				const struct pms_attrib_result *res);

/* One sentence for the verdict: "lost/late came with migration (97% of anomaly
 * windows vs 4% of on-time ones, lift 24)" or "unexplained". */
void pms_attrib_sentence(const struct pms_attrib_result *res, char *buf, size_t len);

/*
 * The same for the anomalies of one class (the failing one: gap signals for
 * lost overflows, late signals, ...): "of the 157 gap signals, 150 came with
 * migration; 7 unexplained".
 */
void pms_attrib_class_sentence(const struct pms_attrib_result *res, enum pms_class cls,
			       char *buf, size_t len);

/*
 * A stressor measured against its own base rate: the same counter, workload
 * and mover, first for a while without the stressor (the control), then
 * with it.  A stressor present in every window of the stressed part (a
 * DISABLE/ENABLE storm) has no on-time windows to be compared with; its
 * control is the comparison instead.
 */
struct pms_stressor_control {
	bool valid;			/* both parts measured */
	double seconds;			/* the control's length */
	uint64_t overflows, lost;	/* without the stressor */
	uint64_t overflows_with, lost_with;	/* with it */
	double p;			/* Fisher's exact test, two-sided */
	double lift;			/* loss rate with / without; at least, if none without */
	bool lift_at_least;		/* no loss without: one pseudo-loss stands in */
	bool stands;			/* the stressor raised the loss rate */
};

/*
 * pms_stressor_control_judge - fill p, lift and stands: the stressor stands
 * as the cause when the loss rate with it is at least @lift_min times the
 * rate without (one pseudo-loss standing in for none) and Fisher's exact
 * test puts the difference below @alpha.
 */
void pms_stressor_control_judge(struct pms_stressor_control *c, double lift_min, double alpha);

/* "the DISABLE/ENABLE storm: 101 of 238 overflows lost with it (42%), 0 of
 * 9000 in the 0.50 s before it without it (0%): lift at least 3.8e+03,
 * Fisher's exact p 1e-90" */
void pms_stressor_control_sentence(const struct pms_stressor_control *c, const char *stressor,
				   char *buf, size_t len);
json_object *pms_stressor_control_json(const struct pms_stressor_control *c);

#endif
