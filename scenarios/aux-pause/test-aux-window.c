// SPDX-License-Identifier: GPL-2.0-only
/*
 * AUX pause/resume window oracle unit tests, no PMU: every rule on synthetic
 * window sequences, what explains data (NMI resumes, throttling, a full
 * ring, a trace left running by the window before), the head checks, the
 * list cap, bad configurations and the JSON.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "tap.h"
#include "json-path.h"
#include "window.h"

#define ALLOW 64ULL
#define AUXSZ 65536ULL
#define TRACE 4096ULL		/* what one resumed window publishes */

static struct pms_auxwin win[64];
static size_t nwin;
static uint64_t head;

static void reset(void)
{
	memset(win, 0, sizeof(win));
	nwin = 0;
	head = 1ULL << 20;	/* heads are running counts, not offsets */
}

static struct pms_auxwin *add(enum pms_auxwin_kind kind, uint64_t bytes)
{
	struct pms_auxwin *x = &win[nwin];

	x->kind = kind;
	x->start_ns = 1000 * nwin;
	x->end_ns = x->start_ns + 500;
	x->head_before = head;
	head += bytes;
	x->head_after = head;
	x->rec_bytes = bytes;
	if (kind == PMS_AUXWIN_RESUMED) {
		x->resume_req = x->pause_req = 1;
		x->resume_hits = x->pause_hits = 1;
		x->resume_samples = x->pause_samples = 1;
	}
	nwin++;
	return x;
}

static struct pms_auxwin *paused(uint64_t bytes)
{
	return add(PMS_AUXWIN_PAUSED, bytes);
}

static struct pms_auxwin *resumed(uint64_t bytes)
{
	return add(PMS_AUXWIN_RESUMED, bytes);
}

/* n pairs of a paused window (no data) and a resumed one (TRACE bytes). */
static void alternate(unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		paused(0);
		resumed(TRACE);
	}
}

static struct pms_auxwin_cfg cfg(enum pms_auxwin_nmi nmi)
{
	struct pms_auxwin_cfg c = {
		.paused_allowance = ALLOW, .nmi_action = nmi, .aux_size = AUXSZ,
		.max_findings = 16,
	};
	return c;
}

static void judge(const struct pms_auxwin_cfg *c, struct pms_auxwin_result *r)
{
	ok(!pms_auxwin_judge(c, win, nwin, r), "judge returns 0");
}

/* The only finding is @kind in window @window (all others 0). */
static int only(const struct pms_auxwin_result *r, int kind, size_t window)
{
	int k;

	for (k = 0; k < PMS_AUXWIN_NR; k++)
		if (k != kind && r->by_kind[k])
			return 0;
	return r->by_kind[kind] == 1 && r->findings_total == 1 && r->nr_findings == 1 &&
	       (int)r->findings[0].kind == kind && r->findings[0].window == window;
}

static void test_clean(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	char why[512];
	size_t i;

	reset();
	alternate(10);
	win[4].head_after += ALLOW;	/* a paused window at the allowance */
	win[4].rec_bytes = ALLOW;
	head += ALLOW;
	for (i = 5; i < nwin; i++) {
		win[i].head_before += ALLOW;
		win[i].head_after += ALLOW;
	}
	judge(&c, &r);
	ok(r.windows[PMS_AUXWIN_PAUSED] == 10 && r.windows[PMS_AUXWIN_RESUMED] == 10,
	   "clean: 10 paused and 10 resumed windows");
	ok(r.findings_total == 0 && r.nr_findings == 0, "clean: no finding");
	ok(r.resume_req == 10 && r.pause_req == 10 && r.resume_hits == 10 &&
	   r.pause_samples == 10, "clean: 10 resume and 10 pause requests, hits, samples");
	is_u64(r.bytes[PMS_AUXWIN_RESUMED], 10 * TRACE, "clean: bytes in resumed windows");
	is_u64(r.bytes[PMS_AUXWIN_PAUSED], ALLOW, "clean: bytes in paused windows");
	ok(r.resumed_with_data == 10 && r.paused_over_allowance == 0,
	   "clean: every resumed window had data, no paused one over the allowance");
	ok(r.judged[PMS_AUXWIN_DATA_WHILE_PAUSED] && r.judged[PMS_AUXWIN_HEAD_OVERRUN] &&
	   !r.judged[PMS_AUXWIN_THROTTLED] && !r.judged[PMS_AUXWIN_RECORD_MISMATCH],
	   "clean: judged flags by kind");
	ok(!pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "10 of 10 paused windows published no AUX data") &&
	   strstr(why, "10 of 10 resumed windows published data") &&
	   strstr(why, "10 resume and 10 pause requests") && !strstr(why, "not judged"),
	   "clean: passes and says why (%s)", why);
	pms_auxwin_result_free(&r);

	reset();
	ok(!pms_auxwin_judge(&c, NULL, 0, &r) && !pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "no window"), "no windows: passes, says nothing was judged (%s)", why);
	pms_auxwin_result_free(&r);
}

static void test_paused(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	char why[512];
	json_object *j;

	/* Data while paused, at window 6. */
	reset();
	alternate(3);
	paused(5000);
	resumed(TRACE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_DATA_WHILE_PAUSED, 6), "paused data: data_while_paused at window 6");
	ok(r.findings[0].bytes == 5000 && r.findings[0].cause == 6 &&
	   r.findings[0].window_kind == PMS_AUXWIN_PAUSED && r.findings[0].start_ns == 6000,
	   "paused data: bytes, cause, window kind and start time");
	ok(r.paused_over_allowance == 1, "paused data: one paused window over the allowance");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "data_while_paused 1 window (first window 6)"),
	   "paused data fails and names the kind and window (%s)", why);
	pms_auxwin_result_free(&r);

	/* The allowance is inclusive. */
	reset();
	paused(ALLOW);
	resumed(TRACE);
	judge(&c, &r);
	ok(r.findings_total == 0 && !pms_auxwin_failed(&r, why, sizeof(why)),
	   "exactly the allowance (64 bytes) passes");
	pms_auxwin_result_free(&r);
	reset();
	paused(ALLOW + 1);
	resumed(TRACE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_DATA_WHILE_PAUSED, 0) && pms_auxwin_failed(&r, why, sizeof(why)),
	   "the allowance + 1 (65 bytes) fails");
	pms_auxwin_result_free(&r);

	/* An NMI resume explains paused data, but only when NMIs resume. */
	reset();
	alternate(2);
	paused(3000)->nmi_samples = 2;
	resumed(TRACE);
	c = cfg(PMS_AUXWIN_NMI_RESUME);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_NMI_RESUME_IN_PAUSED, 4) && r.findings[0].nmi_samples == 2 &&
	   !r.judged[PMS_AUXWIN_NMI_RESUME_IN_PAUSED],
	   "NMI resume: nmi_resume_in_paused at window 4, not judged");
	ok(!pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "not judged: nmi_resume_in_paused 1 window") &&
	   strstr(why, "2 of 3 paused windows"), "NMI resume: passes, named (%s)", why);
	j = pms_auxwin_to_json(&c, &r);
	ok(j && !strcmp(json_object_get_string(jget(j, "nmi_action")), "resume") &&
	   json_object_get_uint64(jget(j, "samples.nmi")) == 2 &&
	   !json_object_get_boolean(jget(j, "judged.nmi_resume_in_paused")),
	   "NMI resume: JSON nmi_action, samples.nmi, judged");
	json_object_put(j);
	pms_auxwin_result_free(&r);
	c = cfg(PMS_AUXWIN_NMI_PAUSE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_DATA_WHILE_PAUSED, 4) && pms_auxwin_failed(&r, why, sizeof(why)),
	   "the same data with NMI pause: data_while_paused, fails");
	pms_auxwin_result_free(&r);
	c = cfg(PMS_AUXWIN_NMI_NONE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_DATA_WHILE_PAUSED, 4), "the same data with no NMI action: fails");
	pms_auxwin_result_free(&r);

	/* An NMI resume late in one paused window runs on into the next. */
	reset();
	paused(10)->nmi_samples = 1;
	paused(3000);
	resumed(TRACE);
	c = cfg(PMS_AUXWIN_NMI_RESUME);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_NMI_RESUME_IN_PAUSED, 1) && r.findings[0].cause == 0,
	   "NMI resume carried: window 1 explained by window 0's NMI resume");
	pms_auxwin_result_free(&r);

	/* A lost sample may have been an NMI resume. */
	reset();
	paused(3000)->lost = 1;
	resumed(TRACE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_THROTTLED, 0) && !pms_auxwin_failed(&r, why, sizeof(why)),
	   "NMI resume, a LOST record: throttled, not judged (%s)", why);
	pms_auxwin_result_free(&r);
}

static void test_carry(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	struct pms_auxwin *x;
	char why[512];

	/* The pause of window 3 was throttled away: the trace ran on. */
	reset();
	alternate(1);
	paused(0);
	x = resumed(TRACE);
	x->pause_hits = x->pause_samples = 0;
	x->throttled = 1;
	paused(6000)->unthrottled = 1;
	resumed(TRACE);
	judge(&c, &r);
	ok(r.by_kind[PMS_AUXWIN_THROTTLED] == 2 && r.findings_total == 2 &&
	   !r.by_kind[PMS_AUXWIN_DATA_WHILE_PAUSED] && !r.by_kind[PMS_AUXWIN_TRIGGER_MISSED],
	   "throttled pause: the pause and the data after it are throttled, nothing judged");
	ok(r.nr_findings == 2 && r.findings[1].window == 4 && r.findings[1].cause == 3,
	   "throttled pause: window 4's data is caused by window 3");
	ok(!pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "throttled 2 windows (perf_event_max_sample_rate"),
	   "throttled pause: passes, throttling named (%s)", why);
	pms_auxwin_result_free(&r);

	/* The same without the throttle record: the trigger missed. */
	win[3].throttled = 0;
	win[4].unthrottled = 0;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRIGGER_MISSED, 3),
	   "missed pause: trigger_missed at 3; window 4's data follows from it, no second finding");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) && strstr(why, "trigger_missed 1 window"),
	   "missed pause fails (%s)", why);
	pms_auxwin_result_free(&r);

	/* A confirmed pause that did not stop the trace: the bug. */
	win[3].pause_hits = win[3].pause_samples = 1;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_DATA_WHILE_PAUSED, 4),
	   "pause confirmed but data after it: data_while_paused at 4");
	pms_auxwin_result_free(&r);
}

static void test_resumed(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	struct pms_auxwin *x;
	char why[512];

	reset();
	alternate(2);
	paused(0);
	resumed(0);
	alternate(1);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_NO_DATA_WHILE_RESUMED, 5) && r.resumed_with_data == 3,
	   "resumed, 0 bytes: no_data_while_resumed at window 5; 3 of 4 had data");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "no_data_while_resumed 1 window (first window 5)"),
	   "no data fails (%s)", why);
	pms_auxwin_result_free(&r);

	/* An NMI pause sample explains it, only when NMIs pause. */
	win[5].nmi_samples = 1;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_NO_DATA_WHILE_RESUMED, 5),
	   "an NMI sample with no NMI action explains nothing");
	pms_auxwin_result_free(&r);
	c = cfg(PMS_AUXWIN_NMI_PAUSE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_NMI_PAUSE_IN_RESUMED, 5) &&
	   !pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "nmi_pause_in_resumed 1 window"),
	   "NMI pause: nmi_pause_in_resumed, not judged (%s)", why);
	pms_auxwin_result_free(&r);

	/* A resume sample missing with a throttle record: throttled. */
	c = cfg(PMS_AUXWIN_NMI_NONE);
	reset();
	alternate(1);
	x = resumed(0);
	x->resume_samples = 0;
	x->throttled = 1;
	x->unthrottled = 1;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_THROTTLED, 2) && !r.by_kind[PMS_AUXWIN_NO_DATA_WHILE_RESUMED],
	   "resume sample missing, throttled: throttled, no data not judged");
	ok(!pms_auxwin_failed(&r, why, sizeof(why)), "throttled resume passes (%s)", why);
	pms_auxwin_result_free(&r);
	x->throttled = x->unthrottled = 0;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRIGGER_MISSED, 2) && r.judged[PMS_AUXWIN_TRIGGER_MISSED],
	   "resume sample missing, no throttle record: trigger_missed, judged");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "trigger_missed 1 window (first window 2)"),
	   "missed resume fails (%s)", why);
	pms_auxwin_result_free(&r);

	/* Throttling lasts until UNTHROTTLE, across windows. */
	reset();
	alternate(1);
	win[1].throttled = 1;
	x = resumed(TRACE);	/* 2: no record, but still throttled */
	x->pause_samples = 0;
	paused(0)->unthrottled = 1;
	x = resumed(TRACE);	/* 4: unthrottled before it */
	x->pause_samples = 0;
	judge(&c, &r);
	ok(r.by_kind[PMS_AUXWIN_THROTTLED] == 1 && r.first_window[PMS_AUXWIN_THROTTLED] == 2 &&
	   r.by_kind[PMS_AUXWIN_TRIGGER_MISSED] == 1 &&
	   r.first_window[PMS_AUXWIN_TRIGGER_MISSED] == 4,
	   "throttle outstanding: window 2 throttled, window 4 (after UNTHROTTLE) missed");
	pms_auxwin_result_free(&r);

	/* A LOST record written later explains a missing sample, not an earlier one. */
	reset();
	alternate(1);
	x = resumed(TRACE);
	x->pause_samples = 0;
	alternate(1);
	win[4].lost = 1;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_THROTTLED, 2), "sample missing, LOST record later: throttled");
	pms_auxwin_result_free(&r);
	win[4].lost = 0;
	win[1].lost = 1;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRIGGER_MISSED, 2), "a LOST record before it explains nothing");
	pms_auxwin_result_free(&r);
	win[1].lost = 0;
	win[2].pause_hits = 0;
	win[2].lost = 1;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRIGGER_MISSED, 2),
	   "tracepoint did not count, LOST record: still trigger_missed (a count is not a sample)");
	pms_auxwin_result_free(&r);
}

static void test_triggers(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	struct pms_auxwin *x;
	char why[512];

	reset();
	alternate(1);
	x = resumed(TRACE);
	x->pause_hits = x->pause_samples = 0;
	alternate(1);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRIGGER_MISSED, 2) && pms_auxwin_failed(&r, why, sizeof(why)),
	   "pause tracepoint hits 0 of 1: trigger_missed (%s)", why);
	pms_auxwin_result_free(&r);

	x->pause_hits = x->pause_samples = 2;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRIGGER_EXTRA, 2) && r.judged[PMS_AUXWIN_TRIGGER_EXTRA],
	   "pause tracepoint hits 2 of 1: trigger_extra, judged");
	pms_auxwin_result_free(&r);

	/* A resume tracepoint firing in a paused window (getpid is not X). */
	reset();
	alternate(1);
	x = paused(5000);
	x->resume_hits = x->resume_samples = 1;
	resumed(TRACE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRIGGER_EXTRA, 2) && r.paused_over_allowance == 1,
	   "resume hit in a paused window: trigger_extra; its data is no second finding");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) &&
	   strstr(why, "trigger_extra 1 window (first window 2)"), "extra resume fails (%s)", why);
	pms_auxwin_result_free(&r);

	/* Throttling never adds a hit. */
	x->throttled = 1;
	judge(&c, &r);
	ok(r.by_kind[PMS_AUXWIN_TRIGGER_EXTRA] == 1 && !r.by_kind[PMS_AUXWIN_THROTTLED],
	   "extra hit with a throttle record: still trigger_extra");
	pms_auxwin_result_free(&r);
}

static void test_heads(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	struct pms_auxwin *x;
	char why[512];

	reset();
	alternate(1);
	x = resumed(TRACE);
	x->head_after = x->head_before - 100;
	judge(&c, &r);
	ok(r.by_kind[PMS_AUXWIN_HEAD_BACKWARDS] == 1 && r.findings[0].window == 2 &&
	   r.findings[0].bytes == 100 && !r.by_kind[PMS_AUXWIN_NO_DATA_WHILE_RESUMED],
	   "head backwards in window 2 by 100 bytes; no data verdict on it");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) && strstr(why, "head_backwards 1 window"),
	   "head backwards fails (%s)", why);
	pms_auxwin_result_free(&r);

	reset();
	alternate(2);
	win[3].head_before -= 8;
	win[3].rec_bytes += 8;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_HEAD_BACKWARDS, 3) && r.findings[0].bytes == 8,
	   "head before window 3 below the head after window 2: head_backwards");
	pms_auxwin_result_free(&r);

	reset();
	paused(0);
	resumed(AUXSZ);
	paused(0);
	resumed(AUXSZ + 1);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_HEAD_OVERRUN, 3) && r.judged[PMS_AUXWIN_HEAD_OVERRUN],
	   "aux_size bytes pass, aux_size + 1 is head_overrun at window 3");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) && strstr(why, "head_overrun 1 window"),
	   "head overrun fails (%s)", why);
	pms_auxwin_result_free(&r);
	c.overwrite = true;
	judge(&c, &r);
	ok(r.findings_total == 0, "overwrite (snapshot) mode: no head_overrun");
	pms_auxwin_result_free(&r);
	c.overwrite = false;

	reset();
	alternate(2);
	win[1].rec_bytes = TRACE - 16;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_RECORD_MISMATCH, 1) && !r.judged[PMS_AUXWIN_RECORD_MISMATCH],
	   "PERF_RECORD_AUX sizes short of the head: record_mismatch, not judged");
	ok(!pms_auxwin_failed(&r, why, sizeof(why)) && strstr(why, "record_mismatch 1 window"),
	   "record mismatch passes and is reported (%s)", why);
	pms_auxwin_result_free(&r);

	reset();
	alternate(1);
	resumed(0)->rec_flags = PERF_AUX_FLAG_TRUNCATED;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_TRUNCATED, 2) && !r.by_kind[PMS_AUXWIN_NO_DATA_WHILE_RESUMED],
	   "truncated resumed window with 0 bytes: truncated, not judged for no data");
	ok(!pms_auxwin_failed(&r, why, sizeof(why)) && strstr(why, "truncated 1 window"),
	   "truncated passes and is reported (%s)", why);
	pms_auxwin_result_free(&r);
	win[2].rec_flags = PERF_AUX_FLAG_PARTIAL;
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_FLAGGED, 2), "PARTIAL flag: flagged, not judged for no data");
	pms_auxwin_result_free(&r);
}

static void test_cap_and_config(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	unsigned int k;

	reset();
	for (k = 0; k < 5; k++) {
		paused(1000);
		resumed(TRACE);
	}
	c.max_findings = 2;
	judge(&c, &r);
	ok(r.nr_findings == 2 && r.findings_total == 5 &&
	   r.by_kind[PMS_AUXWIN_DATA_WHILE_PAUSED] == 5,
	   "max_findings 2: 2 kept, 5 counted");
	ok(r.findings[0].window == 0 && r.findings[1].window == 2 &&
	   r.first_window[PMS_AUXWIN_DATA_WHILE_PAUSED] == 0, "max_findings: the first two kept");
	pms_auxwin_result_free(&r);
	c.max_findings = 0;
	judge(&c, &r);
	ok(r.nr_findings == 0 && r.findings_total == 5, "max_findings 0: none kept, all counted");
	pms_auxwin_result_free(&r);

	c = cfg(PMS_AUXWIN_NMI_NONE);
	c.aux_size = 0;
	ok(pms_auxwin_judge(&c, win, nwin, &r) == -EINVAL && !r.findings, "aux_size 0: -EINVAL");
	c.aux_size = 3;
	ok(pms_auxwin_judge(&c, win, nwin, &r) == -EINVAL, "aux_size 3: -EINVAL");
	c.aux_size = AUXSZ;
	c.nmi_action = (enum pms_auxwin_nmi)7;
	ok(pms_auxwin_judge(&c, win, nwin, &r) == -EINVAL, "unknown nmi_action: -EINVAL");
	c.nmi_action = PMS_AUXWIN_NMI_NONE;
	win[0].kind = (enum pms_auxwin_kind)9;
	ok(pms_auxwin_judge(&c, win, nwin, &r) == -EINVAL, "unknown window kind: -EINVAL");
}

static void test_names_and_json(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	json_object *j, *v;
	int k, named = 0;

	for (k = 0; k < PMS_AUXWIN_NR; k++)
		named += strcmp(pms_auxwin_kind_name(k), "?") != 0;
	ok(named == PMS_AUXWIN_NR, "every finding kind has a name");
	is_str(pms_auxwin_kind_name(PMS_AUXWIN_DATA_WHILE_PAUSED), "data_while_paused",
	       "name: data_while_paused");
	is_str(pms_auxwin_kind_name(PMS_AUXWIN_NR), "?", "name: out of range is ?");
	is_str(pms_auxwin_kind_name(-1), "?", "name: negative is ?");

	reset();
	alternate(3);
	paused(2000);
	resumed(TRACE)->rec_bytes = 1;
	judge(&c, &r);
	j = pms_auxwin_to_json(&c, &r);
	ok(j != NULL, "JSON: built");
	ok(json_object_get_uint64(jget(j, "windows.paused")) == 4 &&
	   json_object_get_uint64(jget(j, "windows.resumed")) == 4,
	   "JSON: windows.paused 4, windows.resumed 4");
	ok(json_object_get_uint64(jget(j, "requests.resume")) == 4 &&
	   json_object_get_uint64(jget(j, "hits.pause")) == 4 &&
	   json_object_get_uint64(jget(j, "samples.pause")) == 4,
	   "JSON: requests, hits and samples");
	ok(json_object_get_uint64(jget(j, "bytes.paused")) == 2000 &&
	   json_object_get_uint64(jget(j, "bytes.resumed")) == 4 * TRACE,
	   "JSON: bytes.paused 2000, bytes.resumed 4 * 4096");
	ok(json_object_get_uint64(jget(j, "paused_over_allowance")) == 1 &&
	   json_object_get_uint64(jget(j, "resumed_with_data")) == 4 &&
	   json_object_get_uint64(jget(j, "paused_allowance")) == ALLOW,
	   "JSON: paused_over_allowance, resumed_with_data, paused_allowance");
	ok(json_object_get_uint64(jget(j, "findings.data_while_paused")) == 1 &&
	   json_object_get_uint64(jget(j, "findings.record_mismatch")) == 1 &&
	   json_object_get_uint64(jget(j, "findings_total")) == 2,
	   "JSON: findings by kind and total");
	ok(json_object_get_boolean(jget(j, "judged.data_while_paused")) &&
	   !json_object_get_boolean(jget(j, "judged.record_mismatch")),
	   "JSON: judged flags");
	ok(json_object_object_get_ex(j, "findings", &v) &&
	   json_object_object_length(v) == PMS_AUXWIN_NR &&
	   json_object_object_get_ex(j, "judged", &v) &&
	   json_object_object_length(v) == PMS_AUXWIN_NR,
	   "JSON: every kind in findings and judged");
	ok(json_object_array_length(jget(j, "list")) == 2 &&
	   json_object_get_uint64(jget(j, "list.0.window")) == 6 &&
	   !strcmp(json_object_get_string(jget(j, "list.0.kind")), "data_while_paused") &&
	   !strcmp(json_object_get_string(jget(j, "list.0.window_kind")), "paused") &&
	   json_object_get_uint64(jget(j, "list.0.bytes")) == 2000 &&
	   json_object_get_uint64(jget(j, "list.0.start_ns")) == 6000 &&
	   json_object_get_uint64(jget(j, "list.1.window")) == 7,
	   "JSON: list entries with window, kind, window_kind, bytes, start_ns");
	json_object_put(j);
	pms_auxwin_result_free(&r);
}

/* TRBE padding is not data; a group off every CPU is its own finding. */
static void test_padding_and_scheduling(void)
{
	struct pms_auxwin_cfg c = cfg(PMS_AUXWIN_NMI_NONE);
	struct pms_auxwin_result r;
	char why[512];
	size_t k;

	c.paused_allowance = 0;
	reset();
	alternate(2);
	paused(4096)->padding = 4096;	/* a sched-in padded a page: nothing traced */
	resumed(TRACE);
	judge(&c, &r);
	ok(!pms_auxwin_failed(&r, why, sizeof(why)), "padding only in a paused window passes");
	is_u64(r.padding, 4096, "padding counted");
	is_u64(r.paused_over_allowance, 0, "padding is not over the allowance");
	pms_auxwin_result_free(&r);

	reset();
	alternate(2);
	paused(4097)->padding = 4096;	/* one byte of real trace beside the padding */
	resumed(TRACE);
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_DATA_WHILE_PAUSED, 4), "one payload byte beside padding fails");
	pms_auxwin_result_free(&r);

	reset();
	alternate(1);
	resumed(256)->padding = 256;	/* only padding in a resumed window: resume lost */
	judge(&c, &r);
	ok(only(&r, PMS_AUXWIN_NO_DATA_WHILE_RESUMED, 2), "a resumed window of padding alone "
	   "has no data");
	pms_auxwin_result_free(&r);

	/* running_ns 0: the group was off every CPU from window 4 on, after a throttle. */
	c.running_measured = true;
	reset();
	alternate(3);
	for (k = 0; k < nwin; k++)
		win[k].running_ns = 1000;
	win[3].throttled = 1;
	for (k = 0; k < 4; k++) {
		struct pms_auxwin *x = k % 2 ? resumed(0) : paused(0);

		x->resume_hits = x->pause_hits = 0;
		x->resume_samples = x->pause_samples = 0;
	}
	judge(&c, &r);
	is_u64(r.by_kind[PMS_AUXWIN_GROUP_NOT_SCHEDULED], 4, "four windows not scheduled");
	ok(r.judged[PMS_AUXWIN_GROUP_NOT_SCHEDULED], "group_not_scheduled is judged");
	is_u64(r.by_kind[PMS_AUXWIN_TRIGGER_MISSED] + r.by_kind[PMS_AUXWIN_NO_DATA_WHILE_RESUMED],
	       0, "it replaces trigger_missed and no_data_while_resumed there");
	is_u64(r.findings[0].window, 6, "first at window 6");
	is_u64(r.findings[0].cause, 3, "cause: the window with the THROTTLE record");
	ok(pms_auxwin_failed(&r, why, sizeof(why)) && strstr(why, "group_not_scheduled 4") &&
	   strstr(why, "after a THROTTLE"), "the reason names it and the throttle (%s)", why);
	pms_auxwin_result_free(&r);

	c.running_measured = false;
	judge(&c, &r);
	is_u64(r.by_kind[PMS_AUXWIN_GROUP_NOT_SCHEDULED], 0,
	       "without running_measured the rule is off");
	ok(r.by_kind[PMS_AUXWIN_THROTTLED] == 2 && !pms_auxwin_failed(&r, why, sizeof(why)),
	   "and the dead group would hide behind the open THROTTLE (2 resumed windows "
	   "excused): the reason to measure time_running");
	pms_auxwin_result_free(&r);
}

int main(void)
{
	test_padding_and_scheduling();
	test_clean();
	test_paused();
	test_carry();
	test_resumed();
	test_triggers();
	test_heads();
	test_cap_and_config();
	test_names_and_json();
	return tap_done();
}
