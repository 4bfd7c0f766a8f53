// SPDX-License-Identifier: GPL-2.0-only
/*
 * AUX-area pause/resume oracle: judges each window of an alternating
 * paused/resumed run by the bytes the AUX buffer published around it and by
 * what its triggers counted and sampled.  The rules, and what the kernel
 * allows that they must never call a bug, are in pms-aux-window.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "window.h"
#include "pms-util.h"

static const char *const kind_names[PMS_AUXWIN_NR] = {
	[PMS_AUXWIN_DATA_WHILE_PAUSED] = "data_while_paused",
	[PMS_AUXWIN_NO_DATA_WHILE_RESUMED] = "no_data_while_resumed",
	[PMS_AUXWIN_TRIGGER_MISSED] = "trigger_missed",
	[PMS_AUXWIN_TRIGGER_EXTRA] = "trigger_extra",
	[PMS_AUXWIN_HEAD_BACKWARDS] = "head_backwards",
	[PMS_AUXWIN_HEAD_OVERRUN] = "head_overrun",
	[PMS_AUXWIN_NMI_RESUME_IN_PAUSED] = "nmi_resume_in_paused",
	[PMS_AUXWIN_NMI_PAUSE_IN_RESUMED] = "nmi_pause_in_resumed",
	[PMS_AUXWIN_THROTTLED] = "throttled",
	[PMS_AUXWIN_RECORD_MISMATCH] = "record_mismatch",
	[PMS_AUXWIN_TRUNCATED] = "truncated",
	[PMS_AUXWIN_FLAGGED] = "flagged",
	[PMS_AUXWIN_GROUP_NOT_SCHEDULED] = "group_not_scheduled",
};

/* What explains a not-judged kind, for the reason sentence. */
static const char *const kind_why[PMS_AUXWIN_NR] = {
	[PMS_AUXWIN_NMI_RESUME_IN_PAUSED] = "an NMI resume restarted the trace",
	[PMS_AUXWIN_NMI_PAUSE_IN_RESUMED] = "an NMI pause stopped the trace",
	[PMS_AUXWIN_THROTTLED] = "perf_event_max_sample_rate throttling or a full ring",
	[PMS_AUXWIN_RECORD_MISMATCH] = "PERF_RECORD_AUX sizes differ from aux_head",
	[PMS_AUXWIN_TRUNCATED] = "the AUX buffer was full",
	[PMS_AUXWIN_FLAGGED] = "PERF_AUX_FLAG_PARTIAL or _COLLISION",
};

static const bool kind_judged[PMS_AUXWIN_NR] = {
	[PMS_AUXWIN_DATA_WHILE_PAUSED] = true,
	[PMS_AUXWIN_NO_DATA_WHILE_RESUMED] = true,
	[PMS_AUXWIN_TRIGGER_MISSED] = true,
	[PMS_AUXWIN_TRIGGER_EXTRA] = true,
	[PMS_AUXWIN_HEAD_BACKWARDS] = true,
	[PMS_AUXWIN_HEAD_OVERRUN] = true,
	[PMS_AUXWIN_GROUP_NOT_SCHEDULED] = true,
};

const char *pms_auxwin_kind_name(int kind)
{
	return kind >= 0 && kind < PMS_AUXWIN_NR ? kind_names[kind] : "?";
}

const char *pms_auxwin_window_name(enum pms_auxwin_kind kind)
{
	switch (kind) {
	case PMS_AUXWIN_PAUSED:
		return "paused";
	case PMS_AUXWIN_RESUMED:
		return "resumed";
	default:
		return "?";
	}
}

const char *pms_auxwin_nmi_name(enum pms_auxwin_nmi nmi)
{
	switch (nmi) {
	case PMS_AUXWIN_NMI_NONE:
		return "none";
	case PMS_AUXWIN_NMI_PAUSE:
		return "pause";
	case PMS_AUXWIN_NMI_RESUME:
		return "resume";
	default:
		return "?";
	}
}

/* Why the trace may still be running when a window begins. */
enum carry {
	CARRY_NONE,
	CARRY_NMI,		/* an NMI resume was sampled */
	CARRY_THROTTLE,		/* a pause not confirmed, or an NMI resume maybe lost,
				 * with throttling or a LOST record to explain it */
	CARRY_TRIGGER,		/* a judged trigger finding (missed pause, extra resume) */
	CARRY_REQUEST,		/* the workload resumed without pausing */
};

/* The findings of one window: a set of kinds, each with its cause. */
struct win_findings {
	unsigned int set;
	size_t cause[PMS_AUXWIN_NR];
	uint64_t bytes[PMS_AUXWIN_NR];
};

static void mark(struct win_findings *f, int kind, size_t cause, uint64_t bytes)
{
	f->set |= 1u << kind;
	f->cause[kind] = cause;
	f->bytes[kind] = bytes;
}

static void emit(const struct pms_auxwin_cfg *cfg, const struct pms_auxwin *x, size_t i,
		 const struct win_findings *f, struct pms_auxwin_result *res)
{
	int k;

	for (k = 0; k < PMS_AUXWIN_NR; k++) {
		if (!(f->set & (1u << k)))
			continue;
		if (!res->by_kind[k]++)
			res->first_window[k] = i;
		res->findings_total++;
		if (res->nr_findings < cfg->max_findings)
			res->findings[res->nr_findings++] = (struct pms_auxwin_finding){
				.kind = (enum pms_auxwin_finding_kind)k,
				.window_kind = x->kind,
				.window = i,
				.cause = f->cause[k],
				.bytes = f->bytes[k],
				.nmi_samples = x->nmi_samples,
				.start_ns = x->start_ns,
			};
	}
}

int pms_auxwin_judge(const struct pms_auxwin_cfg *cfg, const struct pms_auxwin *w, size_t n,
		     struct pms_auxwin_result *res)
{
	const uint64_t gaps = PERF_AUX_FLAG_PARTIAL | PERF_AUX_FLAG_COLLISION;
	uint64_t outstanding = 0;	/* THROTTLE minus UNTHROTTLE records so far */
	enum carry carry = CARRY_NONE;	/* started paused: aux_start_paused */
	size_t carry_from = 0, last_throttle = 0, i;
	bool *lost_after, any_throttle = false;
	int k;

	memset(res, 0, sizeof(*res));
	if (!cfg->aux_size || (cfg->aux_size & (cfg->aux_size - 1)) ||
	    (unsigned int)cfg->nmi_action >= PMS_AUXWIN_NMI_NR || (n && !w))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if ((unsigned int)w[i].kind >= PMS_AUXWIN_KIND_NR)
			return -EINVAL;
	res->findings = calloc(cfg->max_findings ? cfg->max_findings : 1, sizeof(*res->findings));
	lost_after = calloc(n ? n : 1, sizeof(*lost_after));
	if (!res->findings || !lost_after) {
		free(lost_after);
		pms_auxwin_result_free(res);
		return -ENOMEM;
	}
	for (k = 0; k < PMS_AUXWIN_NR; k++)
		res->judged[k] = kind_judged[k];
	/* A LOST record is written when its ring next has room, in this window
	 * or a later one, and the counts are pooled: any later one may be it. */
	for (i = n; i-- > 0;)
		lost_after[i] = w[i].lost || (i + 1 < n && lost_after[i + 1]);

	for (i = 0; i < n; i++) {
		const struct pms_auxwin *x = &w[i];
		struct win_findings f = { .set = 0 };
		bool backwards = x->head_after < x->head_before;
		uint64_t bytes = backwards ? 0 : x->head_after - x->head_before;
		bool thr = x->throttled || x->unthrottled || outstanding;
		bool lost = lost_after[i];
		bool nmi_resume = cfg->nmi_action == PMS_AUXWIN_NMI_RESUME;
		bool nmi_pause = cfg->nmi_action == PMS_AUXWIN_NMI_PAUSE;
		bool tp_short = x->resume_hits < x->resume_req || x->pause_hits < x->pause_req;
		bool smp_short = x->resume_samples < x->resume_hits ||
				 x->pause_samples < x->pause_hits;
		bool extra = x->resume_hits > x->resume_req || x->pause_hits > x->pause_req ||
			     x->resume_samples > x->resume_hits ||
			     x->pause_samples > x->pause_hits;
		bool flagged = x->rec_flags & (PERF_AUX_FLAG_TRUNCATED | gaps);
		bool idle = cfg->running_measured && !x->running_ns;
		uint64_t payload = bytes > x->padding ? bytes - x->padding : 0;

		res->windows[x->kind]++;
		res->resume_req += x->resume_req;
		res->pause_req += x->pause_req;
		res->resume_hits += x->resume_hits;
		res->pause_hits += x->pause_hits;
		res->resume_samples += x->resume_samples;
		res->pause_samples += x->pause_samples;
		res->nmi_samples += x->nmi_samples;
		res->throttled += x->throttled;
		res->unthrottled += x->unthrottled;
		res->lost += x->lost;
		res->bytes[x->kind] += bytes;
		res->padding += bytes - payload;
		if (x->throttled)
			last_throttle = i;
		if (x->throttled)
			any_throttle = true;

		/* The head: only forward, never more than the buffer per window. */
		if (backwards)
			mark(&f, PMS_AUXWIN_HEAD_BACKWARDS, i, x->head_before - x->head_after);
		else if (i && x->head_before < w[i - 1].head_after)
			mark(&f, PMS_AUXWIN_HEAD_BACKWARDS, i,
			     w[i - 1].head_after - x->head_before);
		if (!backwards && bytes > cfg->aux_size && !cfg->overwrite &&
		    !(x->rec_flags & PERF_AUX_FLAG_OVERWRITE))
			mark(&f, PMS_AUXWIN_HEAD_OVERRUN, i, bytes);
		if (!backwards && x->rec_bytes != bytes)
			mark(&f, PMS_AUXWIN_RECORD_MISMATCH, i, bytes);
		if (x->rec_flags & PERF_AUX_FLAG_TRUNCATED)
			mark(&f, PMS_AUXWIN_TRUNCATED, i, bytes);
		if (x->rec_flags & gaps)
			mark(&f, PMS_AUXWIN_FLAGGED, i, bytes);

		/* A group off every CPU: nothing below can be judged. */
		if (idle) {
			mark(&f, PMS_AUXWIN_GROUP_NOT_SCHEDULED, any_throttle ? last_throttle : i,
			     bytes);
			emit(cfg, x, i, &f, res);
			outstanding += x->throttled;
			outstanding = outstanding > x->unthrottled ? outstanding - x->unthrottled : 0;
			continue;
		}
		/* Triggers: throttling stops a trigger (no count, or no sample);
		 * a full ring loses a sample of an overflow that did count. */
		if (extra)
			mark(&f, PMS_AUXWIN_TRIGGER_EXTRA, i, bytes);
		if ((tp_short && !thr) || (smp_short && !thr && !lost))
			mark(&f, PMS_AUXWIN_TRIGGER_MISSED, i, bytes);
		else if (tp_short || smp_short)
			mark(&f, PMS_AUXWIN_THROTTLED, i, bytes);

		/* Data while paused: whatever could have resumed the trace. */
		if (!backwards && x->kind == PMS_AUXWIN_PAUSED && payload > cfg->paused_allowance) {
			res->paused_over_allowance++;
			if (nmi_resume && x->nmi_samples)
				mark(&f, PMS_AUXWIN_NMI_RESUME_IN_PAUSED, i, bytes);
			else if (nmi_resume && lost)
				mark(&f, PMS_AUXWIN_THROTTLED, i, bytes);
			else if (x->resume_hits || x->resume_samples || x->resume_req)
				;	/* a resume fired: trigger_extra names it */
			else if (carry == CARRY_NMI)
				mark(&f, PMS_AUXWIN_NMI_RESUME_IN_PAUSED, carry_from, bytes);
			else if (carry == CARRY_THROTTLE)
				mark(&f, PMS_AUXWIN_THROTTLED, carry_from, bytes);
			else if (carry == CARRY_NONE)
				mark(&f, PMS_AUXWIN_DATA_WHILE_PAUSED, i, bytes);
		}

		/* No data while resumed: only when both requests were processed,
		 * exactly, and nothing allowed could have stopped the trace. */
		if (!backwards && x->kind == PMS_AUXWIN_RESUMED) {
			bool exact = x->resume_hits == x->resume_req &&
				     x->resume_samples == x->resume_req &&
				     x->pause_hits == x->pause_req &&
				     x->pause_samples == x->pause_req;

			if (payload)
				res->resumed_with_data++;
			else if (flagged || !x->resume_req || !exact)
				;	/* flagged, nothing asked, or a trigger finding */
			else if (nmi_pause && x->nmi_samples)
				mark(&f, PMS_AUXWIN_NMI_PAUSE_IN_RESUMED, i, bytes);
			else if (thr || (nmi_pause && lost))
				mark(&f, PMS_AUXWIN_THROTTLED, i, bytes);
			else
				mark(&f, PMS_AUXWIN_NO_DATA_WHILE_RESUMED, i, bytes);
		}
		emit(cfg, x, i, &f, res);

		/* The state the next window begins in.  The order of requests
		 * inside a window is unknown: anything that may resume wins. */
		if (x->pause_req) {
			if (x->pause_hits >= x->pause_req && x->pause_samples >= x->pause_req) {
				carry = CARRY_NONE;
			} else {
				/* Not confirmed: the trigger rule said missed or throttled. */
				carry = f.set & (1u << PMS_AUXWIN_TRIGGER_MISSED) ?
					CARRY_TRIGGER : CARRY_THROTTLE;
				carry_from = i;
			}
		} else if (x->resume_req) {
			carry = CARRY_REQUEST;
			carry_from = i;
		}
		if (x->resume_hits > x->resume_req || x->resume_samples > x->resume_req) {
			carry = CARRY_TRIGGER;
			carry_from = i;
		}
		if (nmi_resume && x->nmi_samples) {
			carry = CARRY_NMI;
			carry_from = i;
		} else if (nmi_resume && lost && carry == CARRY_NONE) {
			carry = CARRY_THROTTLE;
			carry_from = i;
		}
		outstanding += x->throttled;
		outstanding = outstanding > x->unthrottled ? outstanding - x->unthrottled : 0;
	}
	free(lost_after);
	return 0;
}

void pms_auxwin_result_free(struct pms_auxwin_result *res)
{
	free(res->findings);
	res->findings = NULL;
	res->nr_findings = 0;
}

static const char *windows_word(uint64_t n)
{
	return n == 1 ? "window" : "windows";
}

bool pms_auxwin_failed(const struct pms_auxwin_result *res, char *reason, size_t len)
{
	uint64_t paused = res->windows[PMS_AUXWIN_PAUSED];
	uint64_t resumed = res->windows[PMS_AUXWIN_RESUMED];
	bool failed = false, other = false;
	size_t off = 0;
	int k;

	if (!len)
		return false;
	reason[0] = '\0';
	for (k = 0; k < PMS_AUXWIN_NR; k++) {
		if (!res->judged[k] || !res->by_kind[k])
			continue;
		pms_append(reason, len, &off, "%s%s %llu %s (first window %llu)", failed ? ", " : "",
		    kind_names[k], (unsigned long long)res->by_kind[k],
		    windows_word(res->by_kind[k]), (unsigned long long)res->first_window[k]);
		failed = true;
	}
	if (failed) {
		pms_append(reason, len, &off, ", in %llu paused and %llu resumed windows",
		    (unsigned long long)paused, (unsigned long long)resumed);
		if (res->by_kind[PMS_AUXWIN_GROUP_NOT_SCHEDULED])
			pms_append(reason, len, &off, "; group_not_scheduled: the triggers' "
				   "time_running stood still, the group was on no CPU%s",
				   res->throttled ? " (after a THROTTLE: see the cause window)" :
				   "");
	} else if (!paused && !resumed) {
		pms_append(reason, len, &off, "no window was measured: nothing judged");
	} else {
		pms_append(reason, len, &off, "%llu of %llu paused windows published no AUX data "
		    "beyond the allowance; %llu of %llu resumed windows published data; "
		    "%llu resume and %llu pause requests, %llu and %llu sampled",
		    (unsigned long long)(paused - res->paused_over_allowance),
		    (unsigned long long)paused, (unsigned long long)res->resumed_with_data,
		    (unsigned long long)resumed, (unsigned long long)res->resume_req,
		    (unsigned long long)res->pause_req, (unsigned long long)res->resume_samples,
		    (unsigned long long)res->pause_samples);
	}
	for (k = 0; k < PMS_AUXWIN_NR; k++) {
		if (res->judged[k] || !res->by_kind[k])
			continue;
		pms_append(reason, len, &off, "%s%s %llu %s (%s)", other ? ", " : "; not judged: ",
		    kind_names[k], (unsigned long long)res->by_kind[k],
		    windows_word(res->by_kind[k]), kind_why[k]);
		other = true;
	}
	return failed;
}

static int jadd_u64(json_object *obj, const char *key, uint64_t v)
{
	return pms_json_add(obj, key, json_object_new_uint64(v));
}

/* {a: x, b: y}, or {a: x, b: y, c: z} when @c is not NULL. */
static json_object *pair_json(const char *a, uint64_t x, const char *b, uint64_t y,
			      const char *c, uint64_t z)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (jadd_u64(o, a, x) || jadd_u64(o, b, y) || (c && jadd_u64(o, c, z))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *kinds_json(const struct pms_auxwin_result *res, bool judged)
{
	json_object *o = json_object_new_object();
	int k;

	if (!o)
		return NULL;
	for (k = 0; k < PMS_AUXWIN_NR; k++)
		if (pms_json_add(o, kind_names[k], judged ? json_object_new_boolean(res->judged[k]) :
			 json_object_new_uint64(res->by_kind[k]))) {
			json_object_put(o);
			return NULL;
		}
	return o;
}

static json_object *finding_json(const struct pms_auxwin_finding *f)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (jadd_u64(o, "window", f->window) ||
	    pms_json_add(o, "kind", json_object_new_string(kind_names[f->kind])) ||
	    pms_json_add(o, "window_kind",
		 json_object_new_string(pms_auxwin_window_name(f->window_kind))) ||
	    jadd_u64(o, "cause", f->cause) ||
	    jadd_u64(o, "bytes", f->bytes) ||
	    jadd_u64(o, "nmi_samples", f->nmi_samples) ||
	    jadd_u64(o, "start_ns", f->start_ns)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *list_json(const struct pms_auxwin_result *res)
{
	json_object *arr = json_object_new_array();
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; i < res->nr_findings; i++)
		if (pms_json_push(arr, finding_json(&res->findings[i]))) {
			json_object_put(arr);
			return NULL;
		}
	return arr;
}

json_object *pms_auxwin_to_json(const struct pms_auxwin_cfg *cfg,
				const struct pms_auxwin_result *res)
{
	json_object *o = json_object_new_object();

	if (!o)
		goto nomem;
	if (pms_json_add(o, "windows", pair_json("paused", res->windows[PMS_AUXWIN_PAUSED],
					 "resumed", res->windows[PMS_AUXWIN_RESUMED], NULL, 0)) ||
	    pms_json_add(o, "requests", pair_json("resume", res->resume_req, "pause", res->pause_req,
					  NULL, 0)) ||
	    pms_json_add(o, "hits", pair_json("resume", res->resume_hits, "pause", res->pause_hits,
				      NULL, 0)) ||
	    pms_json_add(o, "samples", pair_json("resume", res->resume_samples, "pause",
					 res->pause_samples, "nmi", res->nmi_samples)) ||
	    pms_json_add(o, "records", pair_json("throttle", res->throttled, "unthrottle",
					 res->unthrottled, "lost", res->lost)) ||
	    pms_json_add(o, "bytes", pair_json("paused", res->bytes[PMS_AUXWIN_PAUSED],
				       "resumed", res->bytes[PMS_AUXWIN_RESUMED], NULL, 0)) ||
	    jadd_u64(o, "padding", res->padding) ||
	    pms_json_add(o, "running_measured", json_object_new_boolean(cfg->running_measured)) ||
	    jadd_u64(o, "resumed_with_data", res->resumed_with_data) ||
	    jadd_u64(o, "paused_over_allowance", res->paused_over_allowance) ||
	    jadd_u64(o, "paused_allowance", cfg->paused_allowance) ||
	    jadd_u64(o, "aux_size", cfg->aux_size) ||
	    pms_json_add(o, "overwrite", json_object_new_boolean(cfg->overwrite)) ||
	    pms_json_add(o, "nmi_action", json_object_new_string(pms_auxwin_nmi_name(cfg->nmi_action))) ||
	    pms_json_add(o, "findings", kinds_json(res, false)) ||
	    pms_json_add(o, "judged", kinds_json(res, true)) ||
	    jadd_u64(o, "findings_total", res->findings_total) ||
	    pms_json_add(o, "list", list_json(res))) {
		json_object_put(o);
		goto nomem;
	}
	return o;
nomem:
	errno = ENOMEM;
	return NULL;
}
