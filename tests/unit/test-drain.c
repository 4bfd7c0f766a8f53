/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The streaming path against the whole-run one: the same signals and
 * evidence, pushed through a recorder ring and the drain in small bites,
 * must give the oracle's and the attribution's figures exactly as
 * pms_oracle_classify() and pms_attrib_run() give them over arrays.  And
 * the ring's own accounting: what does not fit is counted, never lost
 * silently.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "pms-drain.h"
#include "pms-perf.h"

#define P	1000ull
#define N	50000

static struct pms_signal sig[N];
static struct pms_evidence ev[N];

/* An awkward stream: jitter, lateness, losses repaid and not, extras, SIGIO. */
static size_t make_stream(size_t *nev)
{
	uint64_t v = 0, t = 1000000, x = 12345;
	size_t n = 0, k = 0, i;

	for (i = 0; n < N - 4 && i < N; i++) {
		uint64_t step = P;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		switch ((x >> 33) % 200) {
		case 0:	step = 2 * P; break;		/* a skipped index */
		case 1: step = P + P / 2; break;	/* late */
		case 2: step = P / 2; break;		/* early */
		default: step = P - 40 + (x >> 40) % 80; break;
		}
		v += step;
		t += 10000 + (x >> 50) % 5000;
		sig[n] = (struct pms_signal){ .value = v, .time_ns = t, .cpu = (int)(x >> 60) % 2,
					      .si_code = (x >> 33) % 997 ? POLL_IN : 0, .fd = 3 };
		n++;
		if ((x >> 33) % 200 == 0 && (x >> 20) % 2)	/* repaid: coalesced */
			sig[n - 1].value -= 0, sig[n++] = (struct pms_signal){ .value = v,
				.time_ns = t + 100, .si_code = POLL_IN, .fd = 3 };
		if ((x >> 33) % 7 == 0 && k < N) {
			ev[k++] = (struct pms_evidence){ .time_ns = t - 3000, .cause =
				(x >> 33) % 200 == 0 ? PMS_CAUSE_MIGRATION : PMS_CAUSE_REBIND,
				.a = 0, .b = 1 };
		}
		if ((x >> 33) % 200 == 0 && k < N)
			ev[k++] = (struct pms_evidence){ .time_ns = t - 2000,
				.cause = PMS_CAUSE_MIGRATION, .a = 1, .b = 0 };
	}
	*nev = k;
	return n;
}

static void put(struct pms_recorder *r, const struct pms_signal *s)
{
	struct pms_sigring *q = &r->lanes[0];

	q->slot[q->head & q->mask] = *s;
	q->head++;
	r->n++;
}

static void test_same_as_whole_run(void)
{
	struct pms_recorder rec;
	struct pms_drain *d = calloc(1, sizeof(*d));
	struct pms_oracle_cfg cfg = { .period = P, .tolerance = P / 10, .sem = PMS_SEM_EXACT,
				      .max_anomalies = 100000 };
	struct pms_attrib_cfg acfg = { .lift_min = 2, .alpha = 0.01, .max_listed = 8,
				       .complete = true };
	struct pms_oracle_result whole;
	struct pms_attrib_result aw;
	uint8_t *cls = malloc(N);
	size_t nev, n = make_stream(&nev), i, e = 0;
	int same = 1, c, k;

	ok(!pms_recorder_init_stream(&rec, 1, 4096, SIGRTMIN + 4), "stream recorder: set up");
	cfg.final_valid = true;
	cfg.final_value = sig[n - 1].value + P / 3;
	d->ocfg = cfg;
	d->acfg = acfg;
	ok(!pms_drain_init(d, &rec, 0), "drain: set up");
	/* Bites of 1000 signals, each with the evidence up to its last one. */
	for (i = 0; i < n; i++) {
		while (e < nev && ev[e].time_ns <= sig[i].time_ns)
			pms_drain_evidence(d, ev[e].time_ns, ev[e].cause, ev[e].a, ev[e].b), e++;
		put(&rec, &sig[i]);
		if (i % 1000 == 999)
			pms_drain_poll(d, sig[i].time_ns);
	}
	while (e < nev)
		pms_drain_evidence(d, ev[e].time_ns, ev[e].cause, ev[e].a, ev[e].b), e++;
	ok(!pms_drain_finish(d), "drain: finish");
	ok(!pms_attrib_stream_finish(&d->as, d->events), "drain: attribution finish");

	/* What sigrun adds to the whole run's evidence, the drain derives itself. */
	for (i = 0; i < n && nev < N; i++)
		if (sig[i].si_code != POLL_IN)
			ev[nev++] = (struct pms_evidence){ .time_ns = sig[i].time_ns,
				.cause = PMS_CAUSE_SIGNAL_QUEUE_FULL, .a = -1, .b = -1 };
	pms_evidence_sort(ev, nev);
	cfg.classes = cls;
	ok(!pms_oracle_classify(&cfg, sig, n, &whole), "whole run: classify");
	ok(!pms_attrib_run(&acfg, sig, cls, n, ev, nev, &aw), "whole run: attribute");

	is_u64(d->ores.signals, whole.signals, "same signal count");
	for (c = 0; c < PMS_CLASS_NR; c++)
		same &= d->ores.by_class[c] == whole.by_class[c];
	ok(same, "same count in every class (gap %llu, late %llu, coalesced %llu, spurious %llu)",
	   (unsigned long long)whole.by_class[PMS_CLASS_GAP],
	   (unsigned long long)whole.by_class[PMS_CLASS_LATE],
	   (unsigned long long)whole.by_class[PMS_CLASS_COALESCED],
	   (unsigned long long)whole.by_class[PMS_CLASS_SPURIOUS]);
	ok(whole.by_class[PMS_CLASS_GAP] && whole.by_class[PMS_CLASS_COALESCED] &&
	   whole.by_class[PMS_CLASS_BAD_CODE], "the stream has gaps, repayments and bad codes");
	is_u64(d->ores.lost, whole.lost, "same lost");
	is_u64(d->ores.overflows_implied, whole.overflows_implied, "same overflows implied");
	ok(!memcmp(d->ores.hist, whole.hist, sizeof(whole.hist)), "same histogram");
	same = d->ores.nr_anomalies == whole.nr_anomalies;
	for (i = 0; same && i < whole.nr_anomalies; i++)
		same = d->ores.anomalies[i].signal == whole.anomalies[i].signal &&
		       d->ores.anomalies[i].cls == whole.anomalies[i].cls &&
		       d->ores.anomalies[i].missing == whole.anomalies[i].missing;
	ok(same, "same anomaly list (%zu)", whole.nr_anomalies);
	for (i = 0; i < whole.nr_anomalies && whole.anomalies[i].cls != PMS_CLASS_GAP; i++)
		;
	ok(i < whole.nr_anomalies && whole.first_gap_signal == whole.anomalies[i].signal &&
	   whole.first_gap_ns == whole.anomalies[i].time_ns &&
	   d->ores.first_gap_signal == whole.first_gap_signal,
	   "the first lost overflow's signal (#%llu) is the first gap, streamed or not",
	   (unsigned long long)whole.first_gap_signal);

	is_u64(d->ares.anomalies, aw.anomalies, "attribution: same anomaly windows");
	is_u64(d->ares.on_time, aw.on_time, "attribution: same on-time windows");
	same = 1;
	for (c = 0; c < PMS_CAUSE_NR; c++)
		same &= d->ares.cause[c].anomaly_windows == aw.cause[c].anomaly_windows &&
			d->ares.cause[c].on_time_windows == aw.cause[c].on_time_windows &&
			d->ares.cause[c].claimed == aw.cause[c].claimed &&
			d->ares.cause[c].events == aw.cause[c].events;
	for (c = 0; c < PMS_CAUSE_NR && !same; c++)
		printf("# %d: aw %llu/%llu ow %llu/%llu claimed %llu/%llu events %llu/%llu\n", c,
		       (unsigned long long)d->ares.cause[c].anomaly_windows,
		       (unsigned long long)aw.cause[c].anomaly_windows,
		       (unsigned long long)d->ares.cause[c].on_time_windows,
		       (unsigned long long)aw.cause[c].on_time_windows,
		       (unsigned long long)d->ares.cause[c].claimed,
		       (unsigned long long)aw.cause[c].claimed,
		       (unsigned long long)d->ares.cause[c].events,
		       (unsigned long long)aw.cause[c].events);
	ok(same, "attribution: same windows, events and claims per cause (migration claimed %llu)",
	   (unsigned long long)aw.cause[PMS_CAUSE_MIGRATION].claimed);
	ok(aw.cause[PMS_CAUSE_MIGRATION].claimed > 0, "the planted cause is claimed");
	same = 1;
	for (k = 0; k < PMS_CLASS_NR; k++)
		for (c = 0; c < PMS_CAUSE_NR; c++)
			same &= d->ares.claimed_by_class[k][c] == aw.claimed_by_class[k][c];
	ok(same, "attribution: same claims per class (late turned gap at the end)");
	ok(d->ev_dropped == 0 && d->judged_early == 0, "nothing dropped, nothing judged early");

	pms_attrib_free(&aw);
	pms_oracle_result_free(&whole);
	pms_drain_fini(d);
	pms_recorder_fini(&rec);
	free(d);
	free(cls);
}

/* Real signals into a ring of 8 that nobody drains: 8 kept, the rest counted. */
static void test_ring_overflow(void)
{
	struct pms_recorder rec;
	struct pms_signal out[16];
	int i;

	ok(!pms_recorder_init_stream(&rec, 1, 5, SIGRTMIN + 4), "ring of 5 rounds up to 8");
	is_u64(rec.lanes[0].mask + 1, 8, "8 slots");
	raise(SIGRTMIN + 4);
	is_u64(rec.misrouted, 1, "a signal on a thread with no ring: counted misrouted");
	pms_recorder_lane_bind(0);
	for (i = 0; i < 20; i++)
		raise(SIGRTMIN + 4);
	is_u64(rec.n, 8, "8 stored");
	is_u64(rec.lanes[0].overflow, 12, "12 counted as ring overflow");
	is_u64(rec.dropped, 12, "and as dropped");
	is_u64(pms_recorder_lane_pop(&rec, 0, out, 16), 8, "the drain gets the 8");
	raise(SIGRTMIN + 4);
	is_u64(pms_recorder_lane_pop(&rec, 0, out, 16), 1, "room again after the drain");
	pms_recorder_lane_bind(-1);
	pms_recorder_fini(&rec);
}

int main(void)
{
	int null = open("/dev/null", O_RDONLY);

	/* raise() carries no si_fd: the handler's read() then sees fd 0. */
	if (null >= 0 && null != 0) {
		dup2(null, 0);
		close(null);
	}
	test_same_as_whole_run();
	test_ring_overflow();
	return tap_done();
}
