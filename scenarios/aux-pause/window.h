/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_AUX_WINDOW_H
#define PMS_AUX_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/*
 * AUX-area pause/resume oracle (perf_event_attr.aux_action, Linux 6.13+).
 *
 * An AUX event (intel_pt, cs_etm) leads a group and starts paused
 * (aux_start_paused).  Triggers in its group resume it at
 * syscalls:sys_enter_X and pause it at syscalls:sys_exit_X (task context);
 * an optional hardware counter pauses or resumes it from NMI context.  The
 * scenario alternates PAUSED windows (a user loop and unrelated syscalls)
 * with RESUMED windows (one call of X), flushes the AUX buffer around each
 * (DISABLE + ENABLE of the leader publishes aux_head) and measures each
 * window.  No trace is decoded: only byte counts are judged.  Pure
 * functions, tested on synthetic windows.
 *
 * What the kernel allows, and so never counts as a bug here:
 *  - An NMI request is skipped when another pause/resume is in progress, so
 *    an NMI sample never proves that its request took effect: NMI samples
 *    only ever explain data, they are never required to cause any.
 *    Tracepoint requests run in task context with interrupts off and are
 *    never skipped (an NMI nests inside them and finishes first).
 *  - Throttling (kernel.perf_event_max_sample_rate): a throttled trigger's
 *    overflows are not processed (no sample, no pause/resume; a stopped
 *    tracepoint does not count either), and since 6.16
 *    (perf_event_throttle_group) throttling stops the whole group, the AUX
 *    event with it.  Throttling lasts until the UNTHROTTLE record (the
 *    next tick, or the next flush's ENABLE, which unthrottles in
 *    event_sched_in), so at most a window or two here; a tracepoint with
 *    period 1 never throttles itself, only a group throttle (6.16+, logged
 *    for the leader) stops it: a window is throttle-affected
 *    when it has a THROTTLE or UNTHROTTLE record or begins with more
 *    THROTTLE than UNTHROTTLE records before it.  A scenario that does not
 *    count UNTHROTTLE leaves every window after the first THROTTLE unjudged
 *    for triggers: safe, never wrong.
 *  - A full ring (PERF_RECORD_LOST): the overflow ran, and its pause/resume
 *    with it, but its sample is gone.  LOST is written only when the ring
 *    next has room, in a later window, and the counts are pooled over
 *    triggers, so a LOST record in this or any later window explains a
 *    missing sample here (and an NMI request nobody saw).
 *  - Pause state survives DISABLE/ENABLE (hw.aux_paused): a trace that a
 *    window left running runs on into the next one.  The oracle carries a
 *    "may be running" state from window to window: set by a pause request
 *    that was not confirmed by its sample, by an NMI resume (seen, or
 *    possibly lost), by a resume trigger that fired without a request, or
 *    by a resume request with no pause request after it; cleared only by a
 *    confirmed tracepoint pause with no NMI resume in the same window.  It
 *    only ever explains data, never demands it.
 *
 * Findings, each a different behaviour, never summed; one finding per kind
 * and window.  The first six are judged (fail the run):
 *  - data_while_paused: a paused window produced more than paused_allowance
 *    bytes and nothing explains it: no NMI resume (seen or lost) in it, no
 *    resume trigger fired in it, and the trace was not left running by an
 *    earlier window.  When the explanation is an NMI resume (here or the one
 *    that left the trace running) the window is nmi_resume_in_paused; when
 *    it is throttling or a lost sample, throttled; when it is a trigger
 *    finding (an extra resume here, a missed pause before), no data finding
 *    is added: the judged trigger finding names the cause.  The finding's
 *    cause is the window whose event explains it.
 *  - no_data_while_resumed: a resumed window published 0 bytes although
 *    its resume and pause triggers each counted and sampled exactly the
 *    requests (a resume before the kernel body of X, never skipped), its
 *    records are not TRUNCATED, PARTIAL or COLLISION, no NMI pause was seen
 *    (nmi_pause_in_resumed) or may have been lost, and it is not
 *    throttle-affected (throttled).
 *  - trigger_missed: a tracepoint counted fewer hits than the workload made
 *    requests, or sampled fewer than it counted, with no throttling (and,
 *    for samples, no LOST record) to explain it; else throttled.
 *  - trigger_extra: more hits than requests or more samples than hits:
 *    neither throttling nor a full ring can add any.
 *  - head_backwards: aux_head after the window is below aux_head before it,
 *    or aux_head before it is below aux_head after the previous window
 *    (the windows are of one buffer, in order).  bytes is how far back.
 *  - head_overrun: more than aux_size bytes between two flushes; not judged
 *    in overwrite (snapshot) mode, where the head wraps over unread data.
 *  - group_not_scheduled: the triggers' time_running did not advance over
 *    the window (cfg.running_measured): the group was not on a CPU, so
 *    nothing about the trace can be judged there.  It replaces the trigger
 *    and data findings of that window; cause is the last window with a
 *    THROTTLE record (a throttled CoreSight group that never comes back,
 *    before "perf/core: Use AUX pause/resume for throttling"), else the
 *    window itself (e.g. a group confined to one CPU type's PMU).
 * Sink padding: a TRBE sink pads the AUX buffer with ignore packets at
 * every enable and sched-in, paused or not; the scenario counts those bytes
 * in padding and the data rules judge bytes - padding (the payload).
 * Reported, not judged:
 *  - nmi_resume_in_paused, nmi_pause_in_resumed, throttled: above.
 *  - record_mismatch: the PERF_RECORD_AUX sizes do not add up to the head.
 *  - truncated: PERF_AUX_FLAG_TRUNCATED (the buffer was full); such a
 *    window is not judged for no_data_while_resumed.
 *  - flagged: PERF_AUX_FLAG_PARTIAL or _COLLISION; not judged for no data.
 */

enum pms_auxwin_kind {		/* a window's kind */
	PMS_AUXWIN_PAUSED,
	PMS_AUXWIN_RESUMED,
	PMS_AUXWIN_KIND_NR,
};

enum pms_auxwin_nmi {		/* what the hardware trigger does on overflow */
	PMS_AUXWIN_NMI_NONE,
	PMS_AUXWIN_NMI_PAUSE,
	PMS_AUXWIN_NMI_RESUME,
	PMS_AUXWIN_NMI_NR,
};

enum pms_auxwin_finding_kind {
	PMS_AUXWIN_DATA_WHILE_PAUSED,
	PMS_AUXWIN_NO_DATA_WHILE_RESUMED,
	PMS_AUXWIN_TRIGGER_MISSED,
	PMS_AUXWIN_TRIGGER_EXTRA,
	PMS_AUXWIN_HEAD_BACKWARDS,
	PMS_AUXWIN_HEAD_OVERRUN,
	PMS_AUXWIN_NMI_RESUME_IN_PAUSED,
	PMS_AUXWIN_NMI_PAUSE_IN_RESUMED,
	PMS_AUXWIN_THROTTLED,
	PMS_AUXWIN_RECORD_MISMATCH,
	PMS_AUXWIN_TRUNCATED,
	PMS_AUXWIN_FLAGGED,
	PMS_AUXWIN_GROUP_NOT_SCHEDULED,
	PMS_AUXWIN_NR,
};

/* One window, as the scenario measured it. */
struct pms_auxwin {
	enum pms_auxwin_kind kind;
	uint64_t start_ns, end_ns;
	uint64_t head_before, head_after;	/* aux_head published by the flushes around it */
	uint64_t rec_bytes;		/* sum of its PERF_RECORD_AUX aux_size */
	uint64_t rec_flags;		/* OR of their flags (PERF_AUX_FLAG_*) */
	uint64_t resume_req, pause_req;	/* calls of X made: resumed 1 and 1, paused 0 and 0 */
	uint64_t resume_hits, pause_hits;	/* tracepoint trigger counts (read()) */
	uint64_t resume_samples, pause_samples;	/* their samples in the ring */
	uint64_t nmi_samples;		/* samples of the hardware (NMI) trigger */
	uint64_t throttled;		/* PERF_RECORD_THROTTLE records, any trigger */
	uint64_t unthrottled;		/* PERF_RECORD_UNTHROTTLE records, any trigger */
	uint64_t lost;			/* sum of PERF_RECORD_LOST lost counts */
	uint64_t padding;		/* bytes of the window that are sink padding */
	uint64_t running_ns;		/* the triggers' time_running over the window */
};

struct pms_auxwin_cfg {
	uint64_t paused_allowance;	/* bytes a paused window may still publish */
	enum pms_auxwin_nmi nmi_action;
	uint64_t aux_size;		/* AUX buffer size in bytes, a power of two */
	bool overwrite;			/* AUX mapped read-only (snapshot mode) */
	bool running_measured;		/* running_ns is meaningful */
	size_t max_findings;		/* findings kept in the list; all are counted */
};

struct pms_auxwin_finding {
	enum pms_auxwin_finding_kind kind;
	enum pms_auxwin_kind window_kind;
	size_t window;		/* 0-based index */
	size_t cause;		/* the window whose event explains it (== window unless
				 * the trace was left running by an earlier one) */
	uint64_t bytes;		/* head_after - head_before; head_backwards: how far back */
	uint64_t nmi_samples;
	uint64_t start_ns;
};

struct pms_auxwin_result {
	uint64_t windows[PMS_AUXWIN_KIND_NR];
	uint64_t resume_req, pause_req;
	uint64_t resume_hits, pause_hits;
	uint64_t resume_samples, pause_samples, nmi_samples;
	uint64_t throttled, unthrottled, lost;
	uint64_t bytes[PMS_AUXWIN_KIND_NR];	/* published in paused / resumed windows */
	uint64_t padding;			/* of which sink padding */
	uint64_t resumed_with_data;		/* resumed windows with bytes > 0 */
	uint64_t paused_over_allowance;		/* paused windows with bytes > allowance */
	uint64_t by_kind[PMS_AUXWIN_NR];	/* windows with each finding */
	uint64_t first_window[PMS_AUXWIN_NR];	/* valid where by_kind[] is non-zero */
	bool judged[PMS_AUXWIN_NR];
	uint64_t findings_total;
	struct pms_auxwin_finding *findings;	/* malloc'd, at most max_findings */
	size_t nr_findings;
};

/**
 * pms_auxwin_judge - apply the rules above to @n windows in time order
 * @cfg: allowance, NMI action, AUX buffer size, list cap
 * @w: the windows (may be NULL when @n is 0)
 * @n: how many
 * @res: filled; free with pms_auxwin_result_free() after a 0 return
 *
 * Return: 0, -EINVAL (aux_size 0 or not a power of two, an unknown
 * nmi_action or window kind) or -ENOMEM; on error @res holds nothing to free.
 */
int pms_auxwin_judge(const struct pms_auxwin_cfg *cfg, const struct pms_auxwin *w, size_t n,
		     struct pms_auxwin_result *res);

void pms_auxwin_result_free(struct pms_auxwin_result *res);

/**
 * pms_auxwin_failed - whether any judged finding was made
 * @res: result of pms_auxwin_judge()
 * @reason: one sentence: each judged kind with its window count and first
 *	window, or why the run passes; either way the not-judged kinds with
 *	their counts and what explains them
 * @len: size of @reason
 *
 * Return: true when the run fails.
 */
bool pms_auxwin_failed(const struct pms_auxwin_result *res, char *reason, size_t len);

/* A finding kind's lower_snake name ("data_while_paused"), "?" if unknown. */
const char *pms_auxwin_kind_name(int kind);

/* "paused" or "resumed"; "none", "pause" or "resume". */
const char *pms_auxwin_window_name(enum pms_auxwin_kind kind);
const char *pms_auxwin_nmi_name(enum pms_auxwin_nmi nmi);

/**
 * pms_auxwin_to_json - the oracle's result as a JSON object
 * @cfg: the configuration @res was judged with
 * @res: result of pms_auxwin_judge()
 *
 * Keys: windows {paused, resumed}, requests, hits {resume, pause}, samples
 * {resume, pause, nmi}, records {throttle, unthrottle, lost}, bytes {paused,
 * resumed}, resumed_with_data, paused_over_allowance, paused_allowance,
 * aux_size, overwrite, nmi_action, findings {kind: windows}, judged {kind:
 * bool}, findings_total, list [{window, kind, window_kind, cause, bytes,
 * nmi_samples, start_ns}].
 *
 * Return: a new object owned by the caller, or NULL with errno = ENOMEM.
 */
json_object *pms_auxwin_to_json(const struct pms_auxwin_cfg *cfg,
				const struct pms_auxwin_result *res);

#endif
