/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_DRAIN_H
#define PMS_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pms-attrib.h"
#include "pms-oracle.h"
#include "pms-perf.h"

/*
 * The drain: judges a streaming recorder's signals while the run goes, so
 * that memory stays the same however long it runs.  It owns one counting
 * thread's ring (a lane), its oracle and attribution streams, and the
 * evidence that can still fall into a window: items older than the last
 * on-time signal can never be looked up again and are dropped.
 *
 * A signal is judged once every evidence source has been read past its
 * time (the watermark), so its window holds everything it will ever hold.
 * Bounded: at most PMS_DRAIN_PENDING signals wait for the watermark (past
 * that they are judged early, and the attribution says it is incomplete),
 * and at most PMS_DRAIN_EVIDENCE evidence items are held per source (the
 * oldest go first, counted).  All of it is allocated and touched at the
 * start, so the resident set does not creep up with load spikes.
 */
#define PMS_DRAIN_PENDING	(1u << 15)	/* 1 MiB; 0.33 s at 100k signals/s */
#define PMS_DRAIN_EVIDENCE	(1u << 15)	/* per source, 768 KiB */
#define PMS_DRAIN_RESERVOIR	4096
#define PMS_DRAIN_CTX		3	/* signals kept before and after an anomaly */
#define PMS_DRAIN_CTX_KEPT	4096	/* anomalies that keep them */
#define PMS_DRAIN_OWED_LOST	16	/* --until-fail: signals an index may stay owed */

struct pms_drain {
	struct pms_recorder *rec;
	unsigned int lane;
	/* set before pms_drain_init(); final_value/final_valid before finish */
	struct pms_oracle_cfg ocfg;
	struct pms_attrib_cfg acfg;
	bool multiplex_evidence;	/* read_format times valid: off-PMU deltas */
	bool until_fail;		/* stop at the first lost overflow */
	uint64_t start_ns;		/* counting started (for time to first loss) */

	struct pms_oracle_result ores;
	struct pms_oracle_stream os;
	struct pms_attrib_result ares;
	struct pms_attrib_stream as;

	/* evidence that may still fall into a window: a queue per source
	 * (scheduler trace, rebinds, kernel records, the signals' own),
	 * each sorted by time */
	struct pms_evq {
		struct pms_evidence *ev;
		size_t head, n, cap;
	} q[PMS_EV_SEGS];
	uint64_t ev_dropped;		/* the oldest, dropped for room */
	uint64_t events[PMS_CAUSE_NR];	/* items per cause, whole run */

	/* popped from the ring, waiting for the watermark */
	struct pms_signal *pend;
	size_t pend_head, pend_n;
	uint64_t judged_early;		/* judged before the watermark passed them */
	struct pms_signal last;		/* the last one popped (off-PMU deltas) */
	bool have_last;

	/*
	 * Per kept anomaly: the rebind before it, and its context (the
	 * signals just before and after it; the first PMS_DRAIN_CTX_KEPT only)
	 */
	struct pms_drain_rb {
		uint64_t since_ns;
		int32_t cpu;
		bool known;
		uint8_t nbefore, nafter;
		uint64_t signal;
		struct pms_drain_ctx {
			uint64_t signal, value, time_ns;
			int32_t cpu;
		} before[PMS_DRAIN_CTX], after[PMS_DRAIN_CTX];
	} *rb;
	size_t rb_n, ctx_pending;	/* first kept anomaly still owed signals after it */
	struct pms_drain_ctx hist[PMS_DRAIN_CTX];	/* the last judged, newest last */
	uint8_t nhist;
	uint64_t last_rebind_ns;	/* newest rebind trimmed from the evidence */
	int32_t last_rebind_cpu;
	bool have_rebind;

	/* streaming statistics of every delta, and a sample of on-time ones */
	uint64_t nstat;
	double mean, m2;
	int64_t sample[PMS_DRAIN_RESERVOIR];
	size_t nsample;
	uint64_t rng;

	/* --until-fail */
	bool failed_stop;
	uint64_t first_loss_signal, first_loss_ns;	/* after finish: the first gap kept */
	uint64_t owed_since;		/* signals judged while an index was owed */
	uint64_t stop_signal, stop_ns;	/* --until-fail stopped here (0: did not) */

	FILE *dump;			/* $PMUSTRESS_DUMP_ATTRIB, or NULL */
	bool oom;
	bool finished;
};

/* Return: 0, -EINVAL (bad oracle configuration) or -ENOMEM. */
int pms_drain_init(struct pms_drain *d, struct pms_recorder *rec, unsigned int lane);

/* Add an evidence item (any source, any order: it is placed by time). */
void pms_drain_evidence(struct pms_drain *d, uint64_t time_ns, enum pms_cause cause, int32_t a,
			int32_t b);

/*
 * Pop what the ring holds, and judge the signals stamped at or before
 * @watermark (UINT64_MAX: all of them).  Return: true when --until-fail
 * saw its first lost overflow.
 */
bool pms_drain_poll(struct pms_drain *d, uint64_t watermark);

/*
 * After counting stopped and every source was read: judge the rest and
 * close the oracle.  The attribution stream (@as) is left open, so that
 * several threads' can be merged before pms_attrib_stream_finish().
 */
int pms_drain_finish(struct pms_drain *d);

/* The `stream` section: what was held, dropped, judged early; statistics. */
json_object *pms_drain_to_json(const struct pms_drain *d);

/* Kept anomaly @k's context: {before: [...], after: [...]}, or NULL past the first 4096. */
json_object *pms_drain_context_json(const struct pms_drain *d, size_t k);


void pms_drain_fini(struct pms_drain *d);

#endif
