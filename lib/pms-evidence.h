/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_EVIDENCE_H
#define PMS_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "pms-attrib.h"
#include "pms-opt.h"
#include "pms-ring.h"
#include "pms-scenario.h"
#include "pms-trace.h"

/*
 * The evidence a counting scenario gathers for attribution, whatever its
 * counter and workload: the scheduler trace of its counting thread (start,
 * stop, the result's `trace` section, --trace auto|on|off), the sample-rate
 * ceiling before and after the run, and a growable list of evidence items
 * on CLOCK_MONOTONIC for pms_attrib_run().
 */
extern const char *const pms_trace_modes[];	/* "auto", "on", "off" */
enum pms_trace_mode { PMS_TRACE_AUTO, PMS_TRACE_ON, PMS_TRACE_OFF };

/* Options of every scenario that attributes: the trace and the threshold. */
#define PMS_TRACE_OPTS								\
	{ .name = "trace", .type = PMS_OPT_CHOICE, .def = "auto",			\
	  .choices = pms_trace_modes, .arg = "auto|on|off",				\
	  .help = "scheduler trace of the counting thread (sched_migrate_task, "	\
		  "sched_switch, sched_wakeup) in a private tracefs instance, as "	\
		  "evidence for attribution (auto: when tracefs is usable)" },		\
	{ .name = "trace-buffer-kb", .type = PMS_OPT_U64, .def = "4096", .min = 0,	\
	  .max = 1u << 20, .arg = "KB",							\
	  .help = "per-CPU trace buffer (0: the kernel's default); an overrun makes "	\
		  "the attribution incomplete" },						\
	{ .name = "lift-min", .type = PMS_OPT_STRING, .def = "2", .arg = "X",		\
	  .help = "claim a cause for an anomaly only when X times as many anomaly "	\
		  "windows hold it as on-time windows of the same length would" }

/* --lift-min; 2 when it is not above 1 (a lift of 1 would claim noise). */
double pms_lift_min(const struct pms_run *run);

struct pms_tracing {
	enum pms_trace_mode mode;
	struct pms_trace trace;
	bool traced;			/* the trace ran for the whole count */
	char why[256];			/* why there is no trace */
	char tracefs[256];
	bool tracefs_mounted;
	struct pms_sched_ev *sched;	/* collected after the count */
	size_t nsched;
	long long max_rate_before, max_rate_after;	/* kernel.perf_event_max_sample_rate */
};

/* kernel.perf_event_max_sample_rate, or -1 when it cannot be read. */
long long pms_max_sample_rate(void);

/*
 * Before the counting thread counts: --trace and --trace-buffer-kb from
 * @run's options, the sample-rate ceiling, and the trace of @tid.  Return:
 * PMS_OK (t->why says why there is no trace) or PMS_E_SETUP (--trace on and
 * no trace, run->reason set).
 */
enum pms_status pms_tracing_start(struct pms_run *run, struct pms_tracing *t, const pid_t *tids,
				  size_t nr_tids);

/* After the count: the ceiling again, the trace stopped, read and removed. */
void pms_tracing_stop(struct pms_tracing *t);

/* The result's `trace` section (counts, mode, used, why_not). */
json_object *pms_tracing_to_json(const struct pms_tracing *t);

/* The result's `sysctl_during_run` section. */
json_object *pms_tracing_sysctl_json(const struct pms_tracing *t);

/* Whether the ceiling fell during the run (the kernel lowers it by itself). */
bool pms_tracing_rate_lowered(const struct pms_tracing *t);

/*
 * Why the trace cannot be complete evidence, appended to @buf at *@pos:
 * none taken (@no_trace_hint says what stands in), or overruns.
 */
void pms_tracing_gaps(const struct pms_tracing *t, const char *no_trace_hint, char *buf,
		      size_t len, size_t *pos);

/*
 * The result's `perf_records` section: what the kernel wrote to a ring on
 * the counter (@pages data pages, @mapped or not; @error: why it could not
 * be mapped or parsed, or NULL).
 */
json_object *pms_perf_records_json(const struct pms_ring_counts *c, unsigned int pages,
				   bool mapped, const char *error);

/*
 * The environment's sentences, appended at *@pos ("; " before when not
 * first): throttling, with @records THROTTLE records, @note after their
 * count, the sample-rate ceiling before and after, and with @knob what to
 * turn; the SIGIO fallback of @n signals and what to do about it.
 */
void pms_env_throttled(char *buf, size_t len, size_t *pos, uint64_t records,
		       const struct pms_tracing *t, const char *note, bool knob);
void pms_env_sigio(char *buf, size_t len, size_t *pos, uint64_t n);

/* Release tracefs, free the events.  Safe on a zeroed struct and twice. */
void pms_tracing_fini(struct pms_tracing *t);

/* A growable evidence list; an allocation failure sticks in @oom. */
struct pms_evbuf {
	struct pms_evidence *ev;
	size_t n, cap;
	bool oom;
};

void pms_evbuf_add(struct pms_evbuf *b, uint64_t time_ns, enum pms_cause cause, int32_t a,
		   int32_t b_);

/* The trace's migrations (from/to CPU) and switch-outs (state). */
void pms_evbuf_add_sched(struct pms_evbuf *b, const struct pms_tracing *t);

/* Signals that fell back to SIGIO (si_code not POLL_IN): the queue was full. */
void pms_evbuf_add_sigio(struct pms_evbuf *b, const struct pms_signal *sig, size_t n);

/* Sort for pms_attrib_run(); return -ENOMEM (and free) if any add failed. */
int pms_evbuf_finish(struct pms_evbuf *b);

void pms_evbuf_free(struct pms_evbuf *b);

#endif
