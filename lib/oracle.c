/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The oracle: turns the counter values read in overflow signal handlers into
 * per-signal classes and a count of overflows whose signal never came.
 *
 * Every signal is placed on the grid of overflow indices k = round(offset / P)
 * so that a late signal (one period slipped, as on arm64 when PMOVSCLR is
 * cleared at sched-out) and a lost one can be told apart: a late signal that
 * skips an index owes it, a following signal that does not advance the index
 * repays it, and what is still owed at the end was lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pms-oracle.h"
#include "pms-util.h"

/* Two-sided 95% normal quantile. */
#define PMS_WILSON_Z	1.959963984540054

static const char *const class_names[PMS_CLASS_NR] = {
	[PMS_CLASS_ON_TIME]	= "on_time",
	[PMS_CLASS_LATE]	= "late",
	[PMS_CLASS_EARLY]	= "early",
	[PMS_CLASS_COALESCED]	= "coalesced",
	[PMS_CLASS_SPURIOUS]	= "spurious",
	[PMS_CLASS_GAP]		= "gap",
	[PMS_CLASS_BAD_CODE]	= "bad_si_code",
};

static const char *const hist_names[PMS_HIST_NR] = {
	[PMS_HIST_LT_HALF]	= "[0,0.5P)",
	[PMS_HIST_EARLY]	= "[0.5P,P-tol)",
	[PMS_HIST_ON_TIME]	= "[P-tol,P+tol]",
	[PMS_HIST_LATE]		= "(P+tol,1.5P)",
	[PMS_HIST_2P]		= "[1.5P,2.5P)",
	[PMS_HIST_3P]		= "[2.5P,3.5P)",
	[PMS_HIST_MORE]		= "[3.5P,inf)",
};

/**
 * pms_class_name - JSON/CLI name of a signal class
 * @cls: class
 *
 * Return: a static string, "unknown" for an out-of-range value.
 */
const char *pms_class_name(enum pms_class cls)
{
	if ((unsigned int)cls >= PMS_CLASS_NR)
		return "unknown";
	return class_names[cls];
}

/**
 * pms_hist_bin_name - name of a delta histogram bin, edges in period units
 * @bin: bin
 *
 * Return: a static string, "unknown" for an out-of-range value.
 */
const char *pms_hist_bin_name(enum pms_hist_bin bin)
{
	if ((unsigned int)bin >= PMS_HIST_NR)
		return "unknown";
	return hist_names[bin];
}

/*
 * Is 2 * d < m * P?  Done in 128 bits because the bins are half-period
 * edges and a delta or period near 2^63 must not wrap into a smaller bin.
 */
static bool below_half_periods(uint64_t d, uint64_t period, unsigned int m)
{
	return (unsigned __int128)d * 2 < (unsigned __int128)period * m;
}

/*
 * Bins are tested in the order the classes are, so that the on-time bin
 * holds exactly the deltas the classifier calls on time even when tol is
 * wider than half a period (the early or late bin is then simply empty).
 */
static enum pms_hist_bin hist_bin(int64_t delta, uint64_t period, uint64_t tol)
{
	uint64_t d;

	/* Only a counter read going backwards gives this; lowest bin. */
	if (delta < 0)
		return PMS_HIST_LT_HALF;
	d = (uint64_t)delta;
	/* Written as d - P > tol: P + tol can wrap for P above 2^63. */
	if (d > period && d - period > tol) {
		if (below_half_periods(d, period, 3))
			return PMS_HIST_LATE;
		if (below_half_periods(d, period, 5))
			return PMS_HIST_2P;
		if (below_half_periods(d, period, 7))
			return PMS_HIST_3P;
		return PMS_HIST_MORE;
	}
	if (d >= period - tol)
		return PMS_HIST_ON_TIME;
	if (below_half_periods(d, period, 1))
		return PMS_HIST_LT_HALF;
	return PMS_HIST_EARLY;
}

/*
 * Offsets are taken as signed: a run never spans 2^63 counts, so this is
 * wraparound safe, and a value read below the segment base (a counter going
 * backwards) lands on index 0 instead of near 2^64 / P.
 *
 * An exact counter is read in the handler after its overflow, never before,
 * so the index is the number of overflows that had happened: floor.
 * Rounding would give a signal delivered more than P/2 late the index of an
 * overflow that had not happened yet, and at the end of a run that phantom
 * skip is a loss nobody can repay (seen on the emulated 6.1 baseline: as
 * many signals as overflows, yet "1 lost").  Timer events jitter both ways
 * around k * P, so for them the index rounds half up.
 */
static int64_t overflow_index(uint64_t value, uint64_t seg_base, uint64_t period, bool round)
{
	int64_t off = (int64_t)(value - seg_base);
	uint64_t u, q, r;

	if (off <= 0)
		return 0;
	u = (uint64_t)off;
	q = u / period;
	r = u % period;
	if (round && r >= period - r)
		q++;
	return (int64_t)q;
}

/* Position of @x in the run, so that comparisons survive a wrap past 2^64. */
static uint64_t rel(const struct pms_oracle_cfg *cfg, uint64_t x)
{
	return x - cfg->base;
}

#define walk pms_oracle_stream

/*
 * Signals that skipped indices and are still owed them, newest last, run
 * length merged: @count signals in a row, each still owed @outstanding, with
 * the same @tag.  A repayment goes to the newest signal; what is left at the
 * end turns those signals from late into gap.  Signals whose anomaly was
 * kept, or whose class is written per signal, stay one to an entry.
 */
struct pms_gap_run {
	uint64_t outstanding;
	uint64_t count;
	size_t anomaly;		/* index in res->anomalies, or SIZE_MAX */
	uint64_t nr;		/* 1-based signal number of the newest */
	uint64_t last_ns;	/* its time */
	uint64_t first_nr, first_ns;	/* the oldest of the run, and its time */
	uint32_t tag;
};

static int push_gap(struct walk *w, uint64_t missing, size_t anomaly, uint64_t nr,
		    uint32_t tag, uint64_t time_ns)
{
	struct pms_gap_run *top = w->nr_gaps ? &w->gaps[w->nr_gaps - 1] : NULL;

	if (top && anomaly == SIZE_MAX && top->anomaly == SIZE_MAX && !w->cfg->classes &&
	    top->outstanding == missing && top->tag == tag) {
		top->count++;
		top->nr = nr;
		top->last_ns = time_ns;
		return 0;
	}
	if (w->nr_gaps == w->gaps_cap) {
		size_t cap = w->gaps_cap ? 2 * w->gaps_cap : 64;
		struct pms_gap_run *g = realloc(w->gaps, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->gaps = g;
		w->gaps_cap = cap;
	}
	w->gaps[w->nr_gaps] = (struct pms_gap_run){ .outstanding = missing, .count = 1,
		.anomaly = anomaly, .nr = nr, .last_ns = time_ns, .first_nr = nr,
		.first_ns = time_ns, .tag = tag };
	w->nr_gaps++;
	return 0;
}

/* One owed index repaid: by the newest signal still owed any. */
static void repay_gap(struct walk *w)
{
	struct pms_gap_run *top;

	if (!w->nr_gaps)
		return;
	top = &w->gaps[w->nr_gaps - 1];
	if (top->count > 1) {
		/* split the newest off its run; it owes one less */
		uint64_t nr = top->nr, ns = top->last_ns, left = top->outstanding - 1;
		uint32_t tag = top->tag;

		top->count--;
		if (left && push_gap(w, left, SIZE_MAX, nr, tag, ns))
			w->oom = true;
		return;
	}
	if (!--top->outstanding)
		w->nr_gaps--;
}

/* Late signals whose skipped indices nobody repaid carried a loss, not lateness. */
static void settle_gaps(struct walk *w)
{
	struct pms_oracle_result *res = w->res;
	size_t i;

	/* The oldest run never repaid holds the first lost overflow's signal. */
	if (w->nr_gaps) {
		res->first_gap_signal = w->gaps[0].first_nr;
		res->first_gap_ns = w->gaps[0].first_ns;
	}
	for (i = 0; i < w->nr_gaps; i++) {
		const struct pms_gap_run *g = &w->gaps[i];

		res->by_class[PMS_CLASS_LATE] -= g->count;
		res->by_class[PMS_CLASS_GAP] += g->count;
		if (g->anomaly != SIZE_MAX)
			res->anomalies[g->anomaly].cls = PMS_CLASS_GAP;
		if (w->cfg->classes)
			w->cfg->classes[g->nr - 1] = PMS_CLASS_GAP;
		if (w->settled)
			w->settled(w->settled_arg, g->anomaly, g->tag, g->count);
	}
	free(w->gaps);
	w->gaps = NULL;
	w->nr_gaps = 0;
}

static void add_anomaly(struct walk *w, uint64_t nr, enum pms_class cls,
			const struct pms_signal *s, int64_t delta, int64_t index,
			uint64_t missing)
{
	struct pms_oracle_result *res = w->res;
	struct pms_anomaly *a;

	res->anomalies_total++;
	if (res->nr_anomalies >= w->cap)
		return;
	if (res->nr_anomalies == w->anomalies_alloc) {
		size_t cap = w->anomalies_alloc ? 2 * w->anomalies_alloc : 64;
		struct pms_anomaly *na;

		if (cap > w->cap)
			cap = w->cap;
		na = realloc(res->anomalies, cap * sizeof(*na));
		if (!na) {
			w->oom = true;
			return;
		}
		res->anomalies = na;
		w->anomalies_alloc = cap;
	}
	a = &res->anomalies[res->nr_anomalies++];
	a->signal = nr;
	a->cls = cls;
	a->value = s->value;
	a->delta = delta;
	a->index = (uint64_t)index;
	a->missing = missing;
	a->time_ns = s->time_ns;
	a->cpu = s->cpu;
	a->si_code = s->si_code;
}

/*
 * Close the current segment at @end (a restart value, or the final count).
 * Whole periods past the last index reached were overflows that nobody
 * signalled; the partial period after the last one is not owed, because the
 * period starts afresh at a restart.
 */
static uint64_t segment_tail(struct walk *w, uint64_t end, bool final)
{
	const struct pms_oracle_cfg *cfg = w->cfg;
	uint64_t span = end - w->seg_base;
	uint64_t implied = span / cfg->period;
	uint64_t tail = 0;

	if (cfg->final_valid)
		w->res->overflows_implied += implied;
	if (implied > (uint64_t)w->prev_index) {
		tail = implied - (uint64_t)w->prev_index;
		/*
		 * Counting stopped within tol of the last overflow: its signal
		 * can still be on its way, so it is neither on time nor lost.
		 */
		if (final && span % cfg->period <= cfg->tolerance) {
			w->res->unsettled_tail = 1;
			tail--;
		}
	}
	return tail;
}

static void start_segment(struct walk *w, uint64_t base)
{
	w->seg_base = base;
	w->prev_value = base;
	w->prev_index = 0;
}

/*
 * A restart ends a segment before the signal that was read after it.  The
 * segment's unsignalled overflows stay owed rather than lost outright: the
 * first signal of the next segment may be the late delivery of one of them.
 */
static void cross_restarts(struct walk *w, uint64_t value)
{
	const struct pms_oracle_cfg *cfg = w->cfg;

	if (cfg->sem != PMS_SEM_RESTART_ON_ENABLE)
		return;
	while (w->next_restart < cfg->nr_restarts &&
	       rel(cfg, value) >= rel(cfg, cfg->restarts[w->next_restart])) {
		uint64_t r = cfg->restarts[w->next_restart++];

		w->owed += segment_tail(w, r, false);
		start_segment(w, r);
	}
}

static enum pms_class classify_one(struct walk *w, uint64_t nr, const struct pms_signal *s,
				   uint32_t tag)
{
	const struct pms_oracle_cfg *cfg = w->cfg;
	struct pms_oracle_result *res = w->res;
	uint64_t P = cfg->period, tol = cfg->tolerance;
	enum pms_class cls;
	uint64_t missing = 0;
	int64_t delta, index, jump;

	cross_restarts(w, s->value);

	delta = (int64_t)(s->value - w->prev_value);
	index = overflow_index(s->value, w->seg_base, P, cfg->sem == PMS_SEM_TIMER);
	jump = index - w->prev_index;

	if (jump <= 0) {
		if (w->owed) {
			cls = PMS_CLASS_COALESCED;
			w->owed--;
			repay_gap(w);
		} else {
			cls = PMS_CLASS_SPURIOUS;
		}
	} else if (jump >= 2) {
		/* Late by whole periods whatever the delta says. */
		cls = PMS_CLASS_LATE;
		missing = (uint64_t)jump - 1;
		w->owed += missing;
	} else if (delta > 0 && (uint64_t)delta > P && (uint64_t)delta - P > tol) {
		cls = PMS_CLASS_LATE;
	} else if (delta < 0 || (uint64_t)delta < P - tol) {
		cls = PMS_CLASS_EARLY;
	} else {
		cls = PMS_CLASS_ON_TIME;
	}

	res->by_class[cls]++;
	/* Single-period lateness up to the CPU's skid: how the PMU works. */
	if (cls == PMS_CLASS_LATE && !missing && (uint64_t)delta - P - tol <= cfg->skid)
		res->late_in_skid++;
	else if (cls == PMS_CLASS_EARLY && delta >= 0 && P - tol - (uint64_t)delta <= cfg->skid)
		res->early_in_skid++;
	if (cfg->classes)
		cfg->classes[nr - 1] = (uint8_t)cls;
	res->hist[hist_bin(delta, P, tol)]++;
	if (nr == 1 || delta < res->delta_min)
		res->delta_min = delta;
	if (nr == 1 || delta > res->delta_max)
		res->delta_max = delta;
	if (cls != PMS_CLASS_ON_TIME)
		add_anomaly(w, nr, cls, s, delta, index, missing);
	if (missing && push_gap(w, missing, res->nr_anomalies && res->anomalies_total ==
				res->nr_anomalies ? res->nr_anomalies - 1 : SIZE_MAX, nr, tag,
				s->time_ns))
		w->oom = true;
	/* Counted besides the timing class: it is a separate kernel fault. */
	if (s->si_code != POLL_IN) {
		res->by_class[PMS_CLASS_BAD_CODE]++;
		add_anomaly(w, nr, PMS_CLASS_BAD_CODE, s, delta, index, 0);
	}

	w->prev_value = s->value;
	if (index > w->prev_index)
		w->prev_index = index;
	return cls;
}

static int check_cfg(const struct pms_oracle_cfg *cfg)
{
	size_t i;

	if (!cfg->period || cfg->tolerance >= cfg->period)
		return -EINVAL;
	if (cfg->sem != PMS_SEM_RESTART_ON_ENABLE || !cfg->nr_restarts)
		return 0;
	if (!cfg->restarts)
		return -EINVAL;
	for (i = 1; i < cfg->nr_restarts; i++)
		if (rel(cfg, cfg->restarts[i]) < rel(cfg, cfg->restarts[i - 1]))
			return -EINVAL;
	return 0;
}

/**
 * pms_oracle_classify - classify a stream of signals
 * @cfg: period, tolerance, semantics, base/final counts and restarts
 * @sig: signals in arrival order (may be NULL when @n is 0)
 * @n: number of signals
 * @res: zeroed and filled in; free with pms_oracle_result_free()
 *
 * See pms-oracle.h for the classes.  Under PMS_SEM_RESTART_ON_ENABLE a signal
 * read at or past a restart value starts a new segment with its own index
 * base.  Every non-on-time class is an anomaly, and a bad si_code is a second
 * anomaly of its own; the first @cfg->max_anomalies are kept.  Tail losses
 * (overflows after the last signal) are counted only where the end of the
 * segment is known: at each restart, and at the final count if final_valid.
 *
 * Return: 0, -EINVAL (period 0, tolerance >= period, restarts NULL or not
 * ascending, @sig NULL with @n > 0), or -ENOMEM.
 */
int pms_oracle_stream_init(struct pms_oracle_stream *w, const struct pms_oracle_cfg *cfg,
			   struct pms_oracle_result *res)
{
	int ret;

	if (!w || !res)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	memset(res, 0, sizeof(*res));
	if (!cfg)
		return -EINVAL;
	ret = check_cfg(cfg);
	if (ret)
		return ret;
	w->cfg = cfg;
	w->res = res;
	w->cap = cfg->max_anomalies;
	start_segment(w, cfg->base);
	return 0;
}

enum pms_class pms_oracle_stream_push(struct pms_oracle_stream *w, const struct pms_signal *s,
				      uint32_t tag)
{
	w->res->signals++;
	return classify_one(w, w->res->signals, s, tag);
}

uint64_t pms_oracle_stream_owed(const struct pms_oracle_stream *w)
{
	return w->owed;
}

int pms_oracle_stream_finish(struct pms_oracle_stream *w)
{
	const struct pms_oracle_cfg *cfg = w->cfg;
	struct pms_oracle_result *res = w->res;
	size_t i;

	if (cfg->final_valid) {
		cross_restarts(w, cfg->final_value);
		w->owed += segment_tail(w, cfg->final_value, true);
	}
	res->lost = w->owed;
	settle_gaps(w);
	if (w->oom) {
		pms_oracle_result_free(res);
		return -ENOMEM;
	}

	res->lost_judged = cfg->sem != PMS_SEM_TIMER;
	for (i = 0; i < PMS_CLASS_NR; i++)
		res->judged[i] = i != PMS_CLASS_ON_TIME;
	res->judged[PMS_CLASS_GAP] = res->lost_judged;
	/*
	 * An hrtimer's period is wall time: slack and skipped ticks are normal.
	 * An emulated PMU's interrupt comes when the emulator gets to it.
	 */
	if (cfg->sem == PMS_SEM_TIMER || cfg->timing_unjudged) {
		res->judged[PMS_CLASS_LATE] = false;
		res->judged[PMS_CLASS_EARLY] = false;
		res->judged[PMS_CLASS_COALESCED] = false;
	}
	return 0;
}

void pms_oracle_stream_abort(struct pms_oracle_stream *w)
{
	free(w->gaps);
	w->gaps = NULL;
	w->nr_gaps = 0;
	pms_oracle_result_free(w->res);
}

int pms_oracle_classify(const struct pms_oracle_cfg *cfg, const struct pms_signal *sig,
			size_t n, struct pms_oracle_result *res)
{
	struct pms_oracle_stream w;
	size_t i;
	int ret;

	if (!res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	if (!cfg || (n && !sig))
		return -EINVAL;
	ret = pms_oracle_stream_init(&w, cfg, res);
	if (ret)
		return ret;
	for (i = 0; i < n && !w.oom; i++)
		pms_oracle_stream_push(&w, &sig[i], 0);
	return pms_oracle_stream_finish(&w);
}

/**
 * pms_oracle_result_free - release what pms_oracle_classify() allocated
 * @res: result; safe to call twice and after a failed classify
 */
void pms_oracle_result_free(struct pms_oracle_result *res)
{
	if (!res)
		return;
	free(res->anomalies);
	res->anomalies = NULL;
	res->nr_anomalies = 0;
}

static const char *const class_findings[PMS_CLASS_NR][2] = {
	[PMS_CLASS_LATE]	= { "signal late", "signals late" },
	[PMS_CLASS_EARLY]	= { "signal early", "signals early" },
	[PMS_CLASS_COALESCED]	= { "signal coalesced", "signals coalesced" },
	[PMS_CLASS_SPURIOUS]	= { "spurious signal", "spurious signals" },
	[PMS_CLASS_BAD_CODE]	= { "signal with si_code other than POLL_IN",
				    "signals with si_code other than POLL_IN" },
};

static const char *const class_why[PMS_CLASS_NR] = {
	[PMS_CLASS_LATE]	= " (delta > P + tol)",
	[PMS_CLASS_EARLY]	= " (delta < P - tol)",
	[PMS_CLASS_COALESCED]	= " (no index advance, repaid a skipped index)",
	[PMS_CLASS_SPURIOUS]	= " (no index advance, nothing owed)",
	[PMS_CLASS_BAD_CODE]	= "",
};

/* "; 3 late, 2 early, 4 coalesced signals reported, not judged: ..." */
static void timing_unjudged_words(const struct pms_oracle_result *res, char *reason, size_t len,
				  size_t *pos)
{
	uint64_t late = res->by_class[PMS_CLASS_LATE], early = res->by_class[PMS_CLASS_EARLY];
	uint64_t coal = res->by_class[PMS_CLASS_COALESCED];

	if (!(late + early + coal))
		return;
	pms_append(reason, len, pos, "; %" PRIu64 " late, %" PRIu64 " early, %" PRIu64
		   " coalesced signal%s reported, not judged: the emulated PMU raises an "
		   "overflow at the emulator's next timer event, so its skid has no bound",
		   late, early, coal, late + early + coal == 1 ? "" : "s");
}

/**
 * pms_oracle_failed - whether any judged class (or lost) is non-zero
 * @cfg: the configuration @res was classified with
 * @res: result of pms_oracle_classify()
 * @reason: receives one sentence naming every non-zero judged finding, or
 *          why the run passed; may be NULL
 * @len: size of @reason
 *
 * Return: true if the run failed.
 */
bool pms_oracle_failed(const struct pms_oracle_cfg *cfg, const struct pms_oracle_result *res,
		       char *reason, size_t len)
{
	static const enum pms_class judged_order[] = {
		PMS_CLASS_LATE, PMS_CLASS_EARLY, PMS_CLASS_COALESCED,
		PMS_CLASS_SPURIOUS, PMS_CLASS_BAD_CODE,
	};
	bool failed = false;
	size_t pos = 0, i;
	uint64_t untimed;

	if (!reason)
		len = 0;
	else if (len)
		reason[0] = '\0';

	if (res->lost_judged && res->lost) {
		pms_append(reason, len, &pos,
		       "%" PRIu64 " overflow%s lost (index missing, never signalled)",
		       res->lost, res->lost == 1 ? "" : "s");
		failed = true;
	}
	for (i = 0; i < sizeof(judged_order) / sizeof(judged_order[0]); i++) {
		enum pms_class c = judged_order[i];
		uint64_t v = res->by_class[c];

		if (c == PMS_CLASS_LATE)
			v -= res->late_in_skid;
		else if (c == PMS_CLASS_EARLY)
			v -= res->early_in_skid;
		if (!res->judged[c] || !v)
			continue;
		pms_append(reason, len, &pos, "%s%" PRIu64 " %s%s%s", failed ? "; " : "", v,
		       class_findings[c][v != 1],
		       (c == PMS_CLASS_LATE || c == PMS_CLASS_EARLY) && cfg->skid ?
		       " beyond the skid bound" : "", class_why[c]);
		failed = true;
	}
	if (failed) {
		if (cfg->timing_unjudged && cfg->sem != PMS_SEM_TIMER)
			timing_unjudged_words(res, reason, len, &pos);
		return true;
	}

	if (cfg->sem == PMS_SEM_TIMER) {
		pms_append(reason, len, &pos, "%" PRIu64 " signal%s", res->signals,
		       res->signals == 1 ? "" : "s");
		if (cfg->final_valid)
			pms_append(reason, len, &pos, " for %" PRIu64 " period%s",
			       res->overflows_implied, res->overflows_implied == 1 ? "" : "s");
		pms_append(reason, len, &pos,
		       "; timer-based event: lateness and missing periods reported, not judged");
		return false;
	}

	untimed = cfg->timing_unjudged ? res->by_class[PMS_CLASS_LATE] +
		  res->by_class[PMS_CLASS_EARLY] + res->by_class[PMS_CLASS_COALESCED] : 0;
	if (untimed)
		pms_append(reason, len, &pos, "no overflow lost: %" PRIu64 " signal%s",
			   res->signals, res->signals == 1 ? "" : "s");
	else
		pms_append(reason, len, &pos, "all %" PRIu64 " signal%s on time", res->signals,
			   res->signals == 1 ? "" : "s");
	if (!untimed && res->late_in_skid + res->early_in_skid)
		pms_append(reason, len, &pos, " or within the skid bound (%" PRIu64 " late, %"
			   PRIu64 " early by at most %" PRIu64 " events past the tolerance)",
			   res->late_in_skid, res->early_in_skid, cfg->skid);
	if (cfg->final_valid)
		pms_append(reason, len, &pos, " for %" PRIu64 " overflow%s", res->overflows_implied,
		       res->overflows_implied == 1 ? "" : "s");
	pms_append(reason, len, &pos, " (%s semantics", pms_semantics_name(cfg->sem));
	if (!cfg->final_valid)
		pms_append(reason, len, &pos, "; no final count, tail losses not checked");
	if (res->unsettled_tail)
		pms_append(reason, len, &pos, "; last overflow unsettled when counting stopped");
	pms_append(reason, len, &pos, ")");
	if (untimed)
		timing_unjudged_words(res, reason, len, &pos);
	return false;
}

/**
 * pms_wilson - 95% Wilson score interval for @k successes out of @n trials
 * @k: successes (values above @n are taken as @n)
 * @n: trials; 0 gives [0, 1]
 * @lo: lower bound
 * @hi: upper bound
 *
 * Wilson rather than the normal approximation because lost overflows are
 * rare: at k = 0 the normal interval collapses to [0, 0].
 */
void pms_wilson(uint64_t k, uint64_t n, double *lo, double *hi)
{
	const double z = PMS_WILSON_Z, z2 = z * z;
	double p, nn, denom, centre, half;

	if (!n) {
		*lo = 0.0;
		*hi = 1.0;
		return;
	}
	if (k > n)
		k = n;
	nn = (double)n;
	p = (double)k / nn;
	denom = 1.0 + z2 / nn;
	centre = (p + z2 / (2.0 * nn)) / denom;
	half = z * sqrt(p * (1.0 - p) / nn + z2 / (4.0 * nn * nn)) / denom;
	*lo = centre - half < 0.0 ? 0.0 : centre - half;
	*hi = centre + half > 1.0 ? 1.0 : centre + half;
	/* Exact at the ends: rounding must not report 1e-17 for k = 0. */
	if (k == 0)
		*lo = 0.0;
	if (k == n)
		*hi = 1.0;
}

static int jnull(json_object *obj, const char *key)
{
	return json_object_object_add(obj, key, NULL) ? -ENOMEM : 0;
}

static json_object *rate_json(uint64_t k, uint64_t n)
{
	json_object *o = json_object_new_object(), *ci;
	double lo, hi;

	if (!o)
		return NULL;
	pms_wilson(k, n, &lo, &hi);
	ci = json_object_new_array();
	if (pms_json_add(o, "value", json_object_new_double(n ? (double)k / (double)n : 0.0)) ||
	    pms_json_add(o, "ci95", ci) ||
	    pms_json_push(ci, json_object_new_double(lo)) ||
	    pms_json_push(ci, json_object_new_double(hi)) ||
	    pms_json_add(o, "method", json_object_new_string("wilson"))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *classes_json(const struct pms_oracle_result *res, bool judged)
{
	json_object *o = json_object_new_object();
	int c;

	if (!o)
		return NULL;
	for (c = 0; c < PMS_CLASS_NR; c++) {
		json_object *v;

		if (judged && c == PMS_CLASS_ON_TIME)
			continue;
		v = judged ? json_object_new_boolean(res->judged[c])
			   : json_object_new_uint64(res->by_class[c]);
		if (pms_json_add(o, class_names[c], v))
			goto fail;
	}
	if (judged && pms_json_add(o, "lost", json_object_new_boolean(res->lost_judged)))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

static json_object *histogram_json(const struct pms_oracle_cfg *cfg,
				   const struct pms_oracle_result *res)
{
	double P = (double)cfg->period;
	double lower = ((double)cfg->period - (double)cfg->tolerance) / P;
	double upper = ((double)cfg->period + (double)cfg->tolerance) / P;
	/* Bin edges in period units, clamped as hist_bin() tests them. */
	double edge[PMS_HIST_NR + 1] = {
		0.0, lower < 0.5 ? lower : 0.5, lower, upper,
		upper > 1.5 ? upper : 1.5, 2.5, 3.5, INFINITY,
	};
	json_object *arr = json_object_new_array();
	int b;

	if (!arr)
		return NULL;
	for (b = 0; b < PMS_HIST_NR; b++) {
		json_object *o = json_object_new_object();

		if (pms_json_push(arr, o) ||
		    pms_json_add(o, "bin", json_object_new_string(hist_names[b])) ||
		    pms_json_add(o, "lo_periods", json_object_new_double(edge[b])) ||
		    (isinf(edge[b + 1]) ? jnull(o, "hi_periods")
		     : pms_json_add(o, "hi_periods", json_object_new_double(edge[b + 1]))) ||
		    pms_json_add(o, "count", json_object_new_uint64(res->hist[b]))) {
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

static json_object *anomaly_json(const struct pms_anomaly *a)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (pms_json_add(o, "signal", json_object_new_uint64(a->signal)) ||
	    pms_json_add(o, "class", json_object_new_string(pms_class_name(a->cls))) ||
	    pms_json_add(o, "value", json_object_new_uint64(a->value)) ||
	    pms_json_add(o, "delta", json_object_new_int64(a->delta)) ||
	    pms_json_add(o, "index", json_object_new_uint64(a->index)) ||
	    pms_json_add(o, "missing", json_object_new_uint64(a->missing)) ||
	    pms_json_add(o, "time_ns", json_object_new_uint64(a->time_ns)) ||
	    pms_json_add(o, "cpu", json_object_new_int(a->cpu)) ||
	    pms_json_add(o, "si_code", json_object_new_int(a->si_code))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *anomalies_json(const struct pms_oracle_result *res)
{
	json_object *o = json_object_new_object(), *list;
	size_t i;

	if (!o)
		return NULL;
	list = json_object_new_array();
	if (pms_json_add(o, "total", json_object_new_uint64(res->anomalies_total)) ||
	    pms_json_add(o, "kept", json_object_new_uint64(res->nr_anomalies)) ||
	    pms_json_add(o, "list", list))
		goto fail;
	for (i = 0; i < res->nr_anomalies; i++)
		if (pms_json_push(list, anomaly_json(&res->anomalies[i])))
			goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

static json_object *delta_json(const struct pms_oracle_result *res)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (pms_json_add(o, "min", json_object_new_int64(res->delta_min)) ||
	    pms_json_add(o, "max", json_object_new_int64(res->delta_max))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/**
 * pms_oracle_to_json - the oracle's findings as a JSON object
 * @cfg: the configuration @res was classified with
 * @res: result of pms_oracle_classify()
 *
 * Keys: semantics, period, tolerance, signals, classes, judged, lost,
 * overflows_implied (null without a final count), unsettled_tail, loss_rate
 * and late_rate (value, ci95, method), delta (null without signals),
 * histogram, anomalies (total, kept, list).  The schema in results/ and the
 * CLI read these names.
 *
 * Return: a new object owned by the caller, or NULL with errno = ENOMEM.
 */
json_object *pms_oracle_to_json(const struct pms_oracle_cfg *cfg,
				const struct pms_oracle_result *res)
{
	json_object *o = json_object_new_object();
	int ret;

	if (!o)
		goto nomem;
	ret = pms_json_add(o, "semantics", json_object_new_string(pms_semantics_name(cfg->sem))) ||
	      pms_json_add(o, "period", json_object_new_uint64(cfg->period)) ||
	      pms_json_add(o, "tolerance", json_object_new_uint64(cfg->tolerance)) ||
	      pms_json_add(o, "signals", json_object_new_uint64(res->signals)) ||
	      pms_json_add(o, "classes", classes_json(res, false)) ||
	      pms_json_add(o, "judged", classes_json(res, true)) ||
	      pms_json_add(o, "lost", json_object_new_uint64(res->lost)) ||
	      (cfg->final_valid
	       ? pms_json_add(o, "overflows_implied", json_object_new_uint64(res->overflows_implied))
	       : jnull(o, "overflows_implied")) ||
	      pms_json_add(o, "unsettled_tail", json_object_new_uint64(res->unsettled_tail)) ||
	      pms_json_add(o, "skid_bound", json_object_new_uint64(cfg->skid)) ||
	      pms_json_add(o, "skid_bounded", json_object_new_boolean(!cfg->timing_unjudged)) ||
	      pms_json_add(o, "late_within_skid", json_object_new_uint64(res->late_in_skid)) ||
	      pms_json_add(o, "early_within_skid", json_object_new_uint64(res->early_in_skid)) ||
	      (cfg->final_valid
	       ? pms_json_add(o, "loss_rate", rate_json(res->lost, res->overflows_implied))
	       : jnull(o, "loss_rate")) ||
	      pms_json_add(o, "late_rate", rate_json(res->by_class[PMS_CLASS_LATE], res->signals)) ||
	      (res->signals ? pms_json_add(o, "delta", delta_json(res)) : jnull(o, "delta")) ||
	      pms_json_add(o, "histogram", histogram_json(cfg, res)) ||
	      pms_json_add(o, "anomalies", anomalies_json(res));
	if (!ret)
		return o;
	json_object_put(o);
nomem:
	errno = ENOMEM;
	return NULL;
}
