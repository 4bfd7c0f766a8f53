// SPDX-License-Identifier: GPL-2.0-only
/*
 * Evidence for attribution shared by the counting scenarios: the scheduler
 * trace's lifecycle around one counting thread, the sample-rate ceiling,
 * and the evidence list (see pms-evidence.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pms-evidence.h"
#include "pms-opt.h"
#include "pms-util.h"

const char *const pms_trace_modes[] = { "auto", "on", "off", NULL };

double pms_lift_min(const struct pms_run *run)
{
	double v = strtod(pms_opt_str(&run->opts, "lift-min") ?: "2", NULL);

	return v > 1 ? v : 2;
}

long long pms_max_sample_rate(void)
{
	char buf[64];

	if (pms_read_text("/proc/sys/kernel/perf_event_max_sample_rate", buf, sizeof(buf)) < 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/*
 * The trace starts once the counting thread exists (its tid is the filter)
 * and before it counts.  Instances a SIGKILLed run left behind go first.
 * "auto" runs without a trace where tracefs is unusable, and the result says
 * why; "on" makes that a set-up failure.
 */
enum pms_status pms_tracing_start(struct pms_run *run, struct pms_tracing *t, const pid_t *tids,
				  size_t nr_tids)
{
	struct pms_trace_cfg cfg = { 0 };
	int ret;

	t->mode = (enum pms_trace_mode)pms_opt_u64(&run->opts, "trace");
	t->max_rate_before = pms_max_sample_rate();
	t->max_rate_after = -1;
	if (t->mode == PMS_TRACE_OFF) {
		snprintf(t->why, sizeof(t->why), "--trace off");
		return PMS_OK;
	}
	/*
	 * Measured on the emulated arm64 6.1 kernel (QEMU, icount): with the
	 * trace on, a control run without mover had 302 late signals in 2
	 * guest seconds, 7 without.  There the trace changes what it would
	 * explain, so "auto" leaves it off; --trace on still forces it.
	 */
	if (t->mode == PMS_TRACE_AUTO &&
	    json_object_get_boolean(pms_json_get(run->host, "emulated"))) {
		snprintf(t->why, sizeof(t->why), "--trace auto in an emulated guest, where "
			 "tracing perturbs the run (a control's late signals 7 -> 302 on emulated "
			 "6.1): --trace on to force it");
		return PMS_OK;
	}
	ret = pms_tracefs_acquire(t->tracefs, sizeof(t->tracefs), &t->tracefs_mounted);
	if (ret)
		snprintf(t->why, sizeof(t->why), "tracefs is not mounted and cannot be: %s",
			 strerror(-ret));
	else if (pms_trace_usable(t->tracefs, t->why, sizeof(t->why)))
		t->why[0] = '\0';
	if (!t->why[0]) {
		pms_trace_reap_stale(t->tracefs);
		cfg.tracefs = t->tracefs;
		cfg.buffer_kb = (unsigned int)pms_opt_u64(&run->opts, "trace-buffer-kb");
		cfg.tids = tids;
		cfg.nr_tids = nr_tids;
		if (!pms_trace_start(&t->trace, &cfg, t->why, sizeof(t->why)))
			t->traced = true;
	}
	if (!t->traced && t->mode == PMS_TRACE_ON) {
		snprintf(run->reason, sizeof(run->reason), "--trace on: %s", t->why);
		return PMS_E_SETUP;
	}
	return PMS_OK;
}

void pms_tracing_stop(struct pms_tracing *t)
{
	t->max_rate_after = pms_max_sample_rate();
	if (!t->traced)
		return;
	pms_trace_stop(&t->trace);
	if (pms_trace_collect(&t->trace, &t->sched, &t->nsched)) {
		snprintf(t->why, sizeof(t->why), "the trace could not be read");
		t->traced = false;
	}
	pms_trace_destroy(&t->trace);
}

json_object *pms_tracing_to_json(const struct pms_tracing *t)
{
	json_object *tr = t->traced || t->trace.created ? pms_trace_to_json(&t->trace) :
			  json_object_new_object();

	json_object_object_add(tr, "mode", json_object_new_string(pms_trace_modes[t->mode]));
	json_object_object_add(tr, "used", json_object_new_boolean(t->traced));
	json_object_object_add(tr, "why_not", t->traced ? NULL : json_object_new_string(t->why));
	return tr;
}

json_object *pms_tracing_sysctl_json(const struct pms_tracing *t)
{
	json_object *sy = json_object_new_object();

	json_object_object_add(sy, "perf_event_max_sample_rate_before", t->max_rate_before >= 0 ?
			       json_object_new_int64(t->max_rate_before) : NULL);
	json_object_object_add(sy, "perf_event_max_sample_rate_after", t->max_rate_after >= 0 ?
			       json_object_new_int64(t->max_rate_after) : NULL);
	return sy;
}

bool pms_tracing_rate_lowered(const struct pms_tracing *t)
{
	return t->max_rate_after >= 0 && t->max_rate_after < t->max_rate_before;
}

void pms_tracing_gaps(const struct pms_tracing *t, const char *no_trace_hint, char *buf,
		      size_t len, size_t *pos)
{
	if (!t->traced)
		pms_append(buf, len, pos, "%sno scheduler trace (%s)%s%s", *pos ? "; " : "",
			   t->why, no_trace_hint ? ": " : "", no_trace_hint ?: "");
	else if (pms_trace_incomplete(&t->trace))
		pms_append(buf, len, pos, "%sthe trace buffer overran (%llu events lost): raise "
			   "--trace-buffer-kb", *pos ? "; " : "",
			   (unsigned long long)(t->trace.overrun + t->trace.dropped));
}

json_object *pms_perf_records_json(const struct pms_ring_counts *c, unsigned int pages,
				   bool mapped, const char *error)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "ring_pages", json_object_new_int((int)pages));
	json_object_object_add(o, "mapped", json_object_new_boolean(mapped));
	json_object_object_add(o, "error", error ? json_object_new_string(error) : NULL);
	json_object_object_add(o, "samples", json_object_new_uint64(c->samples));
	json_object_object_add(o, "throttle", json_object_new_uint64(c->throttle));
	json_object_object_add(o, "unthrottle", json_object_new_uint64(c->unthrottle));
	json_object_object_add(o, "lost_records", json_object_new_uint64(c->lost_records));
	json_object_object_add(o, "lost_samples", json_object_new_uint64(c->lost_samples));
	return o;
}

void pms_env_throttled(char *buf, size_t len, size_t *pos, uint64_t records,
		       const struct pms_tracing *t, const char *note, bool knob)
{
	pms_append(buf, len, pos, "%sthe kernel throttled the event (%llu THROTTLE records%s; "
		   "kernel.perf_event_max_sample_rate %lld -> %lld)%s", *pos ? "; " : "",
		   (unsigned long long)records, note, t->max_rate_before, t->max_rate_after,
		   knob ? ": raise kernel.perf_event_max_sample_rate or lengthen --period" : "");
}

void pms_env_sigio(char *buf, size_t len, size_t *pos, uint64_t n)
{
	pms_append(buf, len, pos, "%s%llu signals fell back to SIGIO: this uid's pending-signal "
		   "queue (RLIMIT_SIGPENDING, SigQ in /proc/PID/status) was full: raise ulimit -i "
		   "or stop other signal-heavy processes of the uid", *pos ? "; " : "",
		   (unsigned long long)n);
}

void pms_tracing_fini(struct pms_tracing *t)
{
	pms_trace_destroy(&t->trace);
	if (t->tracefs[0])
		pms_tracefs_release(t->tracefs, t->tracefs_mounted);
	t->tracefs[0] = '\0';
	free(t->sched);
	t->sched = NULL;
	t->nsched = 0;
}

void pms_evbuf_add(struct pms_evbuf *b, uint64_t time_ns, enum pms_cause cause, int32_t a,
		   int32_t b_)
{
	if (b->oom)
		return;
	if (b->n == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 1024;
		struct pms_evidence *p = realloc(b->ev, nc * sizeof(*p));

		if (!p) {
			b->oom = true;
			return;
		}
		b->ev = p;
		b->cap = nc;
	}
	b->ev[b->n++] = (struct pms_evidence){ .time_ns = time_ns, .cause = (uint8_t)cause,
					       .a = a, .b = b_ };
}

void pms_evbuf_add_sched(struct pms_evbuf *b, const struct pms_tracing *t)
{
	size_t i;

	for (i = 0; i < t->nsched; i++) {
		const struct pms_sched_ev *e = &t->sched[i];

		if (e->kind == PMS_EV_MIGRATE)
			pms_evbuf_add(b, e->time_ns, PMS_CAUSE_MIGRATION, e->from_cpu, e->to_cpu);
		else if (e->kind == PMS_EV_SWITCH_OUT)
			pms_evbuf_add(b, e->time_ns, PMS_CAUSE_SWITCH_OUT, e->state, -1);
	}
}

void pms_evbuf_add_sigio(struct pms_evbuf *b, const struct pms_signal *sig, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (sig[i].si_code != POLL_IN)
			pms_evbuf_add(b, sig[i].time_ns, PMS_CAUSE_SIGNAL_QUEUE_FULL, -1, -1);
}

int pms_evbuf_finish(struct pms_evbuf *b)
{
	if (b->oom) {
		pms_evbuf_free(b);
		return -ENOMEM;
	}
	pms_evidence_sort(b->ev, b->n);
	return 0;
}

void pms_evbuf_free(struct pms_evbuf *b)
{
	free(b->ev);
	memset(b, 0, sizeof(*b));
}
