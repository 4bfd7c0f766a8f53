/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_SKID_RULES_H
#define PMS_SKID_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "pms-oracle.h"

#include "pms-ring.h"
#include "pms-skidbound.h"

/*
 * skid-into-kernel analysis: the rules that put each overflow's sample next
 * to its signal.  Pure functions: no syscalls, so they are tested on
 * synthetic rings and streams.
 */

/*
 * Findings, each a different behaviour and never summed.  The first four
 * are judged (fail a run), kernel_ip only when asked; the rest are reported.
 */
enum pms_skid_kind {
	PMS_SKID_KERNEL_IP,		/* exclude_kernel event, sample IP in the kernel: the
					 * leak the 4.12 drop fixed; by design since its revert,
					 * judged only on request */
	PMS_SKID_SAMPLE_NO_SIGNAL,	/* overflow written to the ring, its signal lost */
	PMS_SKID_DROPPED,		/* delta > P + allowance, no sample and no signal:
					 * the interrupt was dropped (cc1582c231ea) */
	PMS_SKID_SIGNAL_NO_SAMPLE,	/* a signal with no sample before it (judged only
					 * when the ring lost nothing) */
	PMS_SKID_OVER_ALLOWANCE,	/* skid above the allowance (rr's "outside expected
					 * interrupt period") */
	PMS_SKID_AMBIGUOUS,		/* index jumped but delta <= P + allowance: a skid
					 * larger than P cannot be told from a drop */
	PMS_SKID_LATE_SIGNAL,		/* a signal that did not advance the index and came
					 * for a sample passed over just before: the signal
					 * of that overflow, delivered more than P late */
	PMS_SKID_NO_ADVANCE,		/* a signal that did not advance the overflow index */
	PMS_SKID_FOREIGN_TID,		/* a sample of another thread */
	PMS_SKID_NR,
};

/* Skid histogram: 0, 1, [2,4), [4,8), ... [2^30, inf). */
#define PMS_SKID_HIST_NR 32

struct pms_skid_cfg {
	uint64_t period;	/* P > 0 */
	uint64_t allowance;	/* skid allowed per interrupt, in counts */
	uint64_t base;		/* counter value at enable */
	uint64_t final_value;	/* after disable */
	bool final_valid;
	/* Timer events count ns and skip overflows in excluded modes by design:
	 * the count-based rules (dropped, over allowance) are then not judged. */
	bool timer;
	uint32_t tid;		/* the counting thread; 0: not checked */
	uint64_t kernel_ip_mask;	/* an IP with any of these bits is a kernel address */
	/* Fail on kernel IPs (--judge-kernel-ip).  Off by default: since the
	 * revert of the drop (6a8a75f32357, 4.13) an interrupt whose skid
	 * lands in the kernel gives a sample with that kernel IP by design. */
	bool judge_kernel_ip;
	size_t max_findings;
};

struct pms_skid_finding {
	enum pms_skid_kind kind;
	uint64_t signal;	/* 1-based, 0: none */
	uint64_t sample;	/* 1-based, 0: none */
	uint64_t index;		/* overflow index k */
	uint64_t count;		/* overflows this finding stands for */
	uint64_t value;		/* counter value at the signal, if any */
	uint64_t ip;
	uint64_t time_ns;
	int32_t cpu;
};

struct pms_skid_result {
	uint64_t signals, samples, matched;
	uint64_t by_kind[PMS_SKID_NR];
	bool judged[PMS_SKID_NR];
	uint64_t overflows_implied;	/* floor((final - base) / P), 0 without final */
	uint64_t unsettled_tail;	/* last overflow within the allowance of the end */
	uint64_t skid_min, skid_max, skid_sum, skid_n;
	uint64_t skid_hist[PMS_SKID_HIST_NR];
	uint64_t latency_min_ns, latency_max_ns, latency_sum_ns;	/* signal - sample time */
	struct pms_ring_counts ring;
	uint64_t findings_total;
	struct pms_skid_finding *findings;	/* malloc'd, at most max_findings */
	size_t nr_findings;
};

/**
 * pms_skid_analyze - put samples next to signals and apply the rules.
 *
 * Sample j (in ring order, numbered from 1 with the samples of LOST records
 * counted) is overflow j.  Signal i is overflow k = floor((value - base) / P)
 * with skid value - base - kP.  Walking both in order on their one clock
 * (CLOCK_MONOTONIC, use_clockid), a signal matches the first unmatched
 * sample at or before its own time; a sample of an earlier overflow that has
 * a later sample before the signal, too, had no signal, unless the next
 * signal does not advance the index: that one is its late signal.  A jump of the index
 * by more than one with a delta above P + allowance is a dropped interrupt
 * for every skipped overflow that had no sample either, unless the next
 * signals do not advance the index (late signals: a skid above P).  Overflows the final
 * count implies after the last signal are judged the same way, but the last
 * one is unsettled (not judged) when the count ended within the allowance.
 *
 * Return: 0, -EINVAL (period 0) or -ENOMEM.
 */
int pms_skid_analyze(const struct pms_skid_cfg *cfg, const struct pms_signal *sig, size_t nsig,
		     const struct pms_ring_rec *rec, size_t nrec,
		     const struct pms_ring_counts *counts, struct pms_skid_result *res);

void pms_skid_result_free(struct pms_skid_result *res);

/**
 * pms_skid_failed - whether a judged finding is non-zero; one sentence in
 * @reason naming each, or why the run passes (with throttling attributed).
 */
bool pms_skid_failed(const struct pms_skid_cfg *cfg, const struct pms_skid_result *res,
		     char *reason, size_t len);

const char *pms_skid_kind_name(enum pms_skid_kind kind);


/* The skid_into_kernel section's analysis part: counts, skid, findings. */
json_object *pms_skid_to_json(const struct pms_skid_cfg *cfg, const struct pms_skid_result *res);

#endif
