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
	uint8_t *chosen;		/* per signal: cause + 1, 0 = none/on time */
};

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
			 const struct pms_signal *sig, const uint8_t *cls, size_t n,
			 const struct pms_evidence *ev, size_t nev, json_object *oracle);

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

#endif
