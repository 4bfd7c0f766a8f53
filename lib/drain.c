// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drain: a streaming recorder's signals judged while the run goes, in
 * memory that does not grow with its length (see pms-drain.h).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pms-drain.h"
#include "pms-util.h"

static void settled(void *arg, size_t anomaly, uint32_t tag, uint64_t count)
{
	struct pms_drain *d = arg;

	pms_attrib_stream_settled(&d->as, tag, PMS_CLASS_LATE, PMS_CLASS_GAP, count);
}

static void *populated(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int pms_drain_init(struct pms_drain *d, struct pms_recorder *rec, unsigned int lane)
{
	int ret, i;

	d->rec = rec;
	d->lane = lane;
	d->ocfg.classes = NULL;
	ret = pms_oracle_stream_init(&d->os, &d->ocfg, &d->ores);
	if (ret)
		return ret;
	d->os.settled = settled;
	d->os.settled_arg = d;
	pms_attrib_stream_init(&d->as, &d->acfg, &d->ares, d->ocfg.max_anomalies);
	d->rng = 0x9e3779b97f4a7c15ull ^ lane;
	/*
	 * Every buffer at its full size and touched now: what a load spike
	 * would otherwise make resident halfway through the run is resident
	 * from the start, so the resident set stays flat.
	 */
	d->pend = populated(PMS_DRAIN_PENDING * sizeof(*d->pend));
	if (!d->pend)
		return -ENOMEM;
	for (i = 0; i < PMS_EV_SEGS; i++) {
		d->q[i].cap = PMS_DRAIN_EVIDENCE;
		d->q[i].ev = populated(d->q[i].cap * sizeof(*d->q[i].ev));
		if (!d->q[i].ev)
			return -ENOMEM;
	}
	return 0;
}

static unsigned int source_of(enum pms_cause cause)
{
	switch (cause) {
	case PMS_CAUSE_MIGRATION:
	case PMS_CAUSE_SWITCH_OUT:
		return 0;
	case PMS_CAUSE_REBIND:
		return 1;
	case PMS_CAUSE_SIGNAL_QUEUE_FULL:
	case PMS_CAUSE_MULTIPLEX:
		return 3;
	default:
		return 2;
	}
}

void pms_drain_evidence(struct pms_drain *d, uint64_t time_ns, enum pms_cause cause, int32_t a,
			int32_t b)
{
	struct pms_evidence e = { .time_ns = time_ns, .cause = (uint8_t)cause, .a = a, .b = b };
	struct pms_evq *q = &d->q[source_of(cause)];
	size_t i;

	if ((unsigned int)cause < PMS_CAUSE_NR)
		d->events[cause]++;
	if (q->head + q->n == q->cap) {
		if (q->n == PMS_DRAIN_EVIDENCE) {
			/* Full: the oldest eighth goes, and the attribution is incomplete. */
			size_t drop = PMS_DRAIN_EVIDENCE / 8;

			q->head += drop;
			q->n -= drop;
			d->ev_dropped += drop;
		}
		memmove(q->ev, q->ev + q->head, q->n * sizeof(*q->ev));
		q->head = 0;
	}
	/* A source comes in time order, so this is nearly always an append. */
	i = q->head + q->n;
	while (i > q->head && q->ev[i - 1].time_ns > time_ns) {
		q->ev[i] = q->ev[i - 1];
		i--;
	}
	q->ev[i] = e;
	q->n++;
}

/* Evidence at or before @t can fall into no later window. */
static void trim(struct pms_drain *d, uint64_t t)
{
	int g;

	for (g = 0; g < PMS_EV_SEGS; g++) {
		struct pms_evq *q = &d->q[g];

		while (q->n && q->ev[q->head].time_ns <= t) {
			const struct pms_evidence *e = &q->ev[q->head];

			if (e->cause == PMS_CAUSE_REBIND) {
				d->last_rebind_ns = e->time_ns;
				d->last_rebind_cpu = e->b;
				d->have_rebind = true;
			}
			q->head++;
			q->n--;
		}
	}
}

static void view_of(const struct pms_drain *d, struct pms_ev_view *v)
{
	int g;

	for (g = 0; g < PMS_EV_SEGS; g++) {
		v->ev[g] = d->q[g].ev + d->q[g].head;
		v->n[g] = d->q[g].n;
	}
}

static struct pms_drain_rb rebind_before(const struct pms_drain *d, uint64_t t)
{
	const struct pms_evq *q = &d->q[source_of(PMS_CAUSE_REBIND)];
	struct pms_drain_rb rb = { 0 };
	size_t i = q->head + q->n;

	while (i > q->head) {
		const struct pms_evidence *e = &q->ev[--i];

		if (e->time_ns > t || e->cause != PMS_CAUSE_REBIND)
			continue;
		rb.since_ns = t - e->time_ns;
		rb.cpu = e->b;
		rb.known = true;
		return rb;
	}
	if (d->have_rebind && d->last_rebind_ns <= t) {
		rb.since_ns = t - d->last_rebind_ns;
		rb.cpu = d->last_rebind_cpu;
		rb.known = true;
	}
	return rb;
}

static uint64_t next_rand(struct pms_drain *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return d->rng;
}

static void statistics(struct pms_drain *d, int64_t delta, enum pms_class cls)
{
	double x = (double)delta, dm;

	d->nstat++;
	dm = x - d->mean;
	d->mean += dm / (double)d->nstat;
	d->m2 += dm * (x - d->mean);
	if (cls != PMS_CLASS_ON_TIME)
		return;
	/* A uniform sample of the on-time deltas (reservoir, algorithm R). */
	if (d->nsample < PMS_DRAIN_RESERVOIR) {
		d->sample[d->nsample++] = delta;
	} else {
		uint64_t on_time = d->ores.by_class[PMS_CLASS_ON_TIME];
		uint64_t j = next_rand(d) % on_time;

		if (j < PMS_DRAIN_RESERVOIR)
			d->sample[j] = delta;
	}
}

static void judge(struct pms_drain *d, const struct pms_signal *s)
{
	struct pms_ev_view v;
	size_t before = d->ores.nr_anomalies, i;
	uint64_t prev = d->os.prev_value, owed;
	uint32_t tag;
	enum pms_class cls;

	view_of(d, &v);
	tag = pms_attrib_stream_tag(&d->as, s, &v);
	cls = pms_oracle_stream_push(&d->os, s, tag);
	if (pms_attrib_stream_push(&d->as, s, cls, tag, &v))
		d->oom = true;
	/* The signals after earlier anomalies, then this one's own before. */
	for (i = d->ctx_pending; i < d->rb_n; i++) {
		struct pms_drain_rb *r = &d->rb[i];

		if (r->nafter < PMS_DRAIN_CTX && r->signal < d->ores.signals && i < PMS_DRAIN_CTX_KEPT)
			r->after[r->nafter++] = (struct pms_drain_ctx){ .signal = d->ores.signals,
				.value = s->value, .time_ns = s->time_ns, .cpu = s->cpu };
		if (i == d->ctx_pending && (r->nafter == PMS_DRAIN_CTX || i >= PMS_DRAIN_CTX_KEPT))
			d->ctx_pending++;
	}
	if (d->ores.nr_anomalies > before) {
		struct pms_drain_rb *n = realloc(d->rb, d->ores.nr_anomalies * sizeof(*n));

		if (n) {
			d->rb = n;
			for (i = before; i < d->ores.nr_anomalies; i++) {
				struct pms_drain_rb *r = &d->rb[i];

				memset(r, 0, sizeof(*r));
				*r = rebind_before(d, s->time_ns);
				r->signal = d->ores.signals;
				if (i < PMS_DRAIN_CTX_KEPT) {
					memcpy(r->before, d->hist, d->nhist * sizeof(*d->hist));
					r->nbefore = d->nhist;
				}
			}
			d->rb_n = d->ores.nr_anomalies;
		} else {
			d->oom = true;
		}
	}
	if (d->nhist == PMS_DRAIN_CTX)
		memmove(d->hist, d->hist + 1, (PMS_DRAIN_CTX - 1) * sizeof(*d->hist));
	else
		d->nhist++;
	d->hist[d->nhist - 1] = (struct pms_drain_ctx){ .signal = d->ores.signals,
		.value = s->value, .time_ns = s->time_ns, .cpu = s->cpu };
	statistics(d, (int64_t)(s->value - prev), cls);
	if (d->dump)
		fprintf(d->dump, "S %llu %s\n", (unsigned long long)s->time_ns, pms_class_name(cls));

	/*
	 * --until-fail: an index skipped and still owed PMS_DRAIN_OWED_LOST
	 * signals later is taken as lost and ends the run (a late delivery
	 * usually repays it at once, as a coalesced signal; under emulation it
	 * has come a few signals later).  What is reported as the first loss
	 * is decided at the end, from the final judgment (pms_drain_finish()).
	 */
	owed = pms_oracle_stream_owed(&d->os);
	if (!owed) {
		d->owed_since = 0;
	} else if (++d->owed_since > PMS_DRAIN_OWED_LOST && d->until_fail && !d->failed_stop) {
		d->failed_stop = true;
		d->stop_signal = d->ores.signals;
		d->stop_ns = s->time_ns;
	}

	/* The next window starts at the last on-time signal (an anomaly's) or later. */
	trim(d, d->as.have_ok ? d->as.ok_t : d->as.prev_t);
}

static void judge_oldest(struct pms_drain *d)
{
	judge(d, &d->pend[d->pend_head]);
	d->pend_head++;
	d->pend_n--;
}

/*
 * The waiting signals are kept at the front of their buffer, so that only
 * as much of it is ever touched as waits at once: a buffer walked round
 * would grow the resident set for minutes.
 */
static void compact(struct pms_drain *d)
{
	if (!d->pend_head)
		return;
	memmove(d->pend, d->pend + d->pend_head, d->pend_n * sizeof(*d->pend));
	d->pend_head = 0;
}

/* Evidence the signals carry themselves: the SIGIO fallback, time off the PMU. */
static void derive(struct pms_drain *d, const struct pms_signal *s)
{
	/*
	 * Multiplexed out between two signals: time_enabled - time_running,
	 * read in the handler, grew.  Placed halfway, inside the later
	 * signal's window; a = the microseconds off the PMU.
	 */
	if (d->multiplex_evidence && d->have_last && s->si_code == POLL_IN &&
	    d->last.si_code == POLL_IN) {
		uint32_t off = s->off_pmu_ns - d->last.off_pmu_ns;

		if (off)
			pms_drain_evidence(d, d->last.time_ns + (s->time_ns - d->last.time_ns) / 2,
					   PMS_CAUSE_MULTIPLEX, (int32_t)(off / 1000), -1);
	}
	/* after the midpoint above: this source stays in time order */
	if (s->si_code != POLL_IN)
		pms_drain_evidence(d, s->time_ns, PMS_CAUSE_SIGNAL_QUEUE_FULL, -1, -1);
	d->last = *s;
	d->have_last = true;
}

bool pms_drain_poll(struct pms_drain *d, uint64_t watermark)
{
	struct pms_signal buf[512];
	size_t n, i;

	for (;;) {
		size_t room;

		compact(d);
		room = PMS_DRAIN_PENDING - d->pend_n;
		if (!room) {
			/* The watermark lags too far: judge now, and say so. */
			judge_oldest(d);
			d->judged_early++;
			continue;
		}
		n = pms_recorder_lane_pop(d->rec, d->lane, buf,
					  room < PMS_ARRAY_SIZE(buf) ? room : PMS_ARRAY_SIZE(buf));
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			derive(d, &buf[i]);
			d->pend[d->pend_n] = buf[i];
			d->pend_n++;
		}
	}
	while (d->pend_n && d->pend[d->pend_head].time_ns <= watermark && !d->failed_stop)
		judge_oldest(d);
	return d->failed_stop;
}

int pms_drain_finish(struct pms_drain *d)
{
	int ret;

	d->until_fail = false;
	d->failed_stop = false;
	pms_drain_poll(d, UINT64_MAX);
	ret = pms_oracle_stream_finish(&d->os);
	d->finished = true;
	if (ret) {
		pms_attrib_stream_abort(&d->as);
		return ret;
	}
	/* The first loss: the first signal whose skipped index was never repaid. */
	d->first_loss_signal = d->ores.first_gap_signal;
	d->first_loss_ns = d->ores.first_gap_ns;
	return d->oom ? -ENOMEM : 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

json_object *pms_drain_to_json(const struct pms_drain *d)
{
	json_object *o = json_object_new_object(), *q = json_object_new_object();
	int64_t sorted[PMS_DRAIN_RESERVOIR];
	static const double pct[] = { 0.01, 0.5, 0.99 };
	static const char *const pname[] = { "p1", "p50", "p99" };
	size_t i;

	pms_json_add(o, "judged", json_object_new_uint64(d->ores.signals));
	pms_json_add(o, "judged_before_watermark", json_object_new_uint64(d->judged_early));
	pms_json_add(o, "evidence_dropped", json_object_new_uint64(d->ev_dropped));
	pms_json_add(o, "pending_capacity", json_object_new_uint64(PMS_DRAIN_PENDING));
	pms_json_add(o, "evidence_capacity", json_object_new_uint64(PMS_DRAIN_EVIDENCE));
	pms_json_add(o, "delta_mean", json_object_new_double(d->nstat ? d->mean : 0));
	pms_json_add(o, "delta_stddev", json_object_new_double(
		d->nstat > 1 ? sqrt(d->m2 / (double)(d->nstat - 1)) : 0));
	memcpy(sorted, d->sample, d->nsample * sizeof(*sorted));
	qsort(sorted, d->nsample, sizeof(*sorted), cmp_i64);
	for (i = 0; i < PMS_ARRAY_SIZE(pct); i++)
		json_object_object_add(q, pname[i], d->nsample ? json_object_new_int64(
			sorted[(size_t)(pct[i] * (double)(d->nsample - 1))]) : NULL);
	pms_json_add(o, "on_time_delta_sample", json_object_new_uint64(d->nsample));
	pms_json_add(o, "on_time_delta_quantiles", q);
	json_object_object_add(o, "until_fail", d->first_loss_signal ? json_object_new_uint64(
		d->first_loss_signal) : NULL);
	return o;
}

static json_object *ctx_json(const struct pms_drain_ctx *c, size_t n)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < n; i++) {
		json_object *o = json_object_new_object();

		pms_json_add(o, "signal", json_object_new_uint64(c[i].signal));
		pms_json_add(o, "value", json_object_new_uint64(c[i].value));
		pms_json_add(o, "time_ns", json_object_new_uint64(c[i].time_ns));
		pms_json_add(o, "cpu", json_object_new_int(c[i].cpu));
		json_object_array_add(arr, o);
	}
	return arr;
}

json_object *pms_drain_context_json(const struct pms_drain *d, size_t k)
{
	json_object *o;

	if (k >= d->rb_n || k >= PMS_DRAIN_CTX_KEPT)
		return NULL;
	o = json_object_new_object();
	pms_json_add(o, "before", ctx_json(d->rb[k].before, d->rb[k].nbefore));
	pms_json_add(o, "after", ctx_json(d->rb[k].after, d->rb[k].nafter));
	return o;
}

void pms_drain_fini(struct pms_drain *d)
{
	if (!d->finished) {
		free(d->os.gaps);
		d->os.gaps = NULL;
	}
	free(d->as.len_t);
	free(d->as.len_c);
	d->as.len_t = d->as.len_c = NULL;
	pms_oracle_result_free(&d->ores);
	pms_attrib_free(&d->ares);
	if (d->pend)
		munmap(d->pend, PMS_DRAIN_PENDING * sizeof(*d->pend));
	for (int g = 0; g < PMS_EV_SEGS; g++) {
		if (d->q[g].ev)
			munmap(d->q[g].ev, PMS_DRAIN_EVIDENCE * sizeof(*d->q[g].ev));
		d->q[g].ev = NULL;
	}
	free(d->rb);
	d->pend = NULL;
	d->rb = NULL;
	if (d->dump)
		fclose(d->dump);
	d->dump = NULL;
}
