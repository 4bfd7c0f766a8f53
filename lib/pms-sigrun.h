/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_SIGRUN_H
#define PMS_SIGRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <hwloc.h>
#include <json-c/json.h>

#include "pms-attrib.h"
#include "pms-counter.h"
#include "pms-counting.h"
#include "pms-evidence.h"
#include "pms-cpus.h"
#include "pms-drain.h"
#include "pms-oracle.h"
#include "pms-perf.h"
#include "pms-ring.h"
#include "pms-scenario.h"
#include "pms-supervise.h"
#include "pms-trace.h"

/*
 * The shape every signal-counting scenario shares (lost-overflow,
 * disable-storm): the CPU set the mover uses, the counter, the workload,
 * the overflow recorder, the counting thread and the supervising loop; then
 * the oracle's configuration, the shared result sections and the verdict.
 * A scenario fills the few fields below, adds its own stressor around the
 * counting thread's hooks, and keeps only what is its own.
 */
/*
 * Evidence options of every counting scenario: the scheduler trace and the
 * attribution threshold.
 */
extern const char *const pms_on_off[];		/* "on", "off" */
#define PMS_EVIDENCE_OPTS							\
	PMS_TRACE_OPTS,									\
	{ .name = "skid-allowance", .type = PMS_OPT_U64, .min = 0, .max = 1ull << 40,	\
	  .arg = "N", .help = "events an interrupt may land past its overflow on this CPU: "	\
		  "late signals within it are reported, not failed (default: the CPU's "	\
		  "figure as rr keeps it; 0 on breakpoints and software events)" },	\
	{ .name = "ring", .type = PMS_OPT_CHOICE, .def = "on", .choices = pms_on_off,	\
	  .arg = "on|off",								\
	  .help = "map a ring on the counter to read the kernel's THROTTLE and LOST "	\
		  "records (off: throttling is seen only through the sysctl; each "	\
		  "overflow then writes no sample)" },					\
	{ .name = "competing-events", .type = PMS_OPT_U64, .def = "0", .min = 0,		\
	  .max = 64, .arg = "N",							\
	  .help = "open N more events like the counter on the counting thread, so the "	\
		  "PMU multiplexes them on purpose (rotation is a schedule-out path)" }

/*
 * What each counting thread has of its own: its counter and thread, its
 * mover and CPUs, its workload, its drain (streaming), the kernel's
 * records on its counter's ring, its watchdog.  Lane 0 is also reachable
 * by the old single-thread names (s->k, s->mover, ...): the two are one
 * memory, laid out by the same list.
 */
#define PMS_SIGRUN_LANE_FIELDS						\
	struct pms_counting k;						\
	struct pms_mover mover;						\
	struct pms_workload work;					\
	struct pms_drain drain;						\
	hwloc_bitmap_t cpus;						\
	uint64_t ring_tail;						\
	struct pms_ring_counts ring_cnt;				\
	int ring_error;			/* -errno from the parser, or 0 */	\
	uint64_t rebind_cursor, rebinds_lapped;				\
	struct pms_watchdog wd;						\
	bool drain_ready;

struct pms_sigrun_lane {
	PMS_SIGRUN_LANE_FIELDS
};

#define PMS_SIGRUN_MAX_THREADS	64

struct pms_sigrun {
	/* set by the scenario before pms_sigrun_setup() */
	const char *preferred;		/* default event, e.g. "instructions" */
	uint64_t hw_period, bp_period;	/* default periods: hardware, breakpoint */
	bool use_mover;
	enum pms_mover_kind mover_kind;
	const char *no_mover_hint;	/* the option that runs without it, for messages */
	bool pin_control;		/* without the mover, stay on the set's first CPU */
	/*
	 * Streaming: signals are judged while the run goes (pms-drain.h), in
	 * memory that does not grow with --duration; the scenario reads the
	 * oracle's and attribution's results from @drain after
	 * pms_sigrun_stop().  Else every signal is kept for the end.
	 */
	bool stream;
	/* The cause the scenario's own stressor produces (PMS_CAUSE_NR: none);
	 * where it is in every window, it stands as the candidate. */
	enum pms_cause stressor;
	/* ... in words ("the DISABLE/ENABLE storm"), and measured against a
	 * control part of the run without it, where the scenario has one */
	const char *stressor_words;
	struct pms_stressor_control control;

	/* filled by pms_sigrun_setup(); the scenario may set k's hooks before start */
	struct pms_counter c;
	struct pms_recorder rec;
	union {
		struct pms_sigrun_lane lane0;
		struct { PMS_SIGRUN_LANE_FIELDS };
	};
	/* streaming only: --threads; lanes 1.. live in @more */
	unsigned int nthreads;
	struct pms_sigrun_lane *more;
	bool pairs_shared;		/* more threads than disjoint pairs */
	hwloc_bitmap_t base_cpus;	/* the set the pairs were cut from */
	struct pms_supervisor sup;
	char cpus_why[256];
	int signo;
	uint64_t skid;			/* lateness allowed as interrupt skid */
	bool skid_unbounded;		/* an emulated PMU: timing not judged */
	char skid_why[384];

	/* evidence: the scheduler trace and the sample-rate ceiling */
	struct pms_tracing tr;

	/* the kernel's own records on the counter's ring: THROTTLE, LOST (lane 0's
	 * in the fields above; THROTTLE times kept here in array mode) */
	uint64_t *throttle_ns;		/* THROTTLE times, at most PMS_SIGRUN_THROTTLE_CAP */
	size_t nthrottle;
	uint64_t throttle_dropped;

	/* streaming */
	uint64_t trace_read_ns, trace_watermark;
	int trace_read_err;
	bool until_fail_hit;
	int drain_err;			/* pms_drain_finish() failed: -errno */
	/* streaming, after pms_sigrun_stop(): every thread's figures together */
	struct pms_oracle_result total;
	struct pms_oracle_cfg total_cfg;
	uint16_t *total_lane;		/* the thread of each of total's anomalies */
	uint64_t total_iterations, total_final;
	bool total_final_valid;
	int watchdog_lane;		/* the thread whose watchdog ended the run, or -1 */
	/* every thread's together (one thread: its own), for the shared sections */
	struct pms_ring_counts ring_sum;
	bool ring_all_ok;
	uint64_t rebinds_sum, rebinds_failed_sum, rebinds_lapped_sum;
	int64_t migrations_sched_sum;	/* -1: unknown for some thread */
	bool aff_restored_all;
	/* resident set, read once a second while the run goes */
	uint64_t rss_read_ns, rss_first_ns, rss_1s_kib, rss_10s_kib, rss_last_kib, rss_max_kib;
};

#define PMS_SIGRUN_STREAM_SLOTS	32768	/* per counting thread: 0.33 s at 100k signals/s */
#define PMS_SIGRUN_TRACE_READ_NS 100000000ull	/* the trace is read every 100 ms */

#define PMS_SIGRUN_RING_PAGES	64	/* drained every 10 ms: 8-byte samples fit */
#define PMS_SIGRUN_THROTTLE_CAP	65536

/* Before anything else; pms_sigrun_fini() may then always be called. */
void pms_sigrun_init(struct pms_sigrun *s);

/* Counting thread @i (0 <= i < nthreads, at least 1). */
struct pms_sigrun_lane *pms_sigrun_lane(struct pms_sigrun *s, unsigned int i);
const struct pms_sigrun_lane *pms_sigrun_lane_c(const struct pms_sigrun *s, unsigned int i);

/**
 * pms_sigrun_setup - the CPU set (--cpus, or two CPUs of one kind), the
 * counter, its workload, the recorder and the mover's settings (--pattern,
 * --move-interval, --seed).  The counting thread is not started yet, so the
 * scenario can still set its hooks.
 * Return: PMS_OK, or the status with run->reason set.
 */
enum pms_status pms_sigrun_setup(struct pms_run *run, struct pms_sigrun *s);

/* Start the counting thread (its counter opened on itself). */
enum pms_status pms_sigrun_start(struct pms_run *run, struct pms_sigrun *s);

/**
 * pms_sigrun_supervise - count and move until the run ends (see
 * pms_supervise()); the caller stops its own stressor after this, then
 * calls pms_sigrun_stop().
 */
void pms_sigrun_supervise(struct pms_run *run, struct pms_sigrun *s,
			  void (*progress)(void *arg, char *buf, size_t len, uint64_t seen),
			  void *arg);

/* Stop the counting thread: the final count is read then. */
void pms_sigrun_stop(struct pms_sigrun *s);

/* The oracle's configuration for this run's counter, semantics @sem. */
void pms_sigrun_oracle_cfg(const struct pms_run *run, const struct pms_sigrun *s,
			   enum pms_semantics sem, struct pms_oracle_cfg *cfg);

/* Signals recorded so far (never past the storage). */
size_t pms_sigrun_nsignals(const struct pms_sigrun *s);

/**
 * pms_sigrun_report - the shared result sections: counter, workload (with
 * @count_check, owned), mover, affinity, recorder, and the oracle's (each
 * anomaly with the rebind before it) and the watchdog's.
 * Return: the oracle section, for the scenario to annotate further.
 */
json_object *pms_sigrun_report(struct pms_run *run, const struct pms_sigrun *s,
			       json_object *count_check, const struct pms_oracle_cfg *cfg,
			       const struct pms_oracle_result *res);

/**
 * pms_sigrun_verdict - the verdict of a counting run, in this order: the
 * mover failed to start (already an error), the counter stalled, the oracle
 * or the watchdog found the bug, nothing overflowed, @stressor_idle (non-NULL:
 * the stressor did not run, an error saying so), else a pass.
 */
void pms_sigrun_verdict(struct pms_run *run, const struct pms_sigrun *s,
			const struct pms_oracle_cfg *cfg, const struct pms_oracle_result *res,
			const char *stressor_idle);

/**
 * pms_sigrun_attribute - gather the evidence (scheduler trace, rebinds, the
 * SIGIO fallback, and @extra from the scenario: its ioctls) and attribute
 * every anomaly of @res against the base rate; adds the `attribution` and
 * `trace` sections, each anomaly's cause and evidence to @oracle, and on a
 * failure the attribution sentence and the known-bug match to the reason.
 * Judges s->control (the stressor against its control part) first, with the
 * attribution's lift_min and alpha, whether or not the scenario filled it.
 * @cls: the per-signal classes the oracle wrote (cfg->classes).
 */
void pms_sigrun_attribute(struct pms_run *run, struct pms_sigrun *s,
			  const struct pms_oracle_result *res, const uint8_t *cls,
			  const struct pms_evidence *extra, size_t nextra, json_object *oracle);

/* Append what limits the run's meaning: a full signal store, fault injection. */
void pms_sigrun_caveats(struct pms_run *run, const struct pms_sigrun *s);

/* Stop and free everything; puts the thread's affinity back. */
void pms_sigrun_fini(struct pms_sigrun *s);

#endif
