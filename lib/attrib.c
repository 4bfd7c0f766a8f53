// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attribution of anomalies to evidence, against the base rate (see
 * pms-attrib.h).  Pure: tested on synthetic signal and evidence streams.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pms-attrib.h"
#include "pms-compare.h"
#include "pms-util.h"

static const char *const cause_names[PMS_CAUSE_NR] = {
	[PMS_CAUSE_THROTTLE] = "throttle",
	[PMS_CAUSE_SIGNAL_QUEUE_FULL] = "signal_queue_full",
	[PMS_CAUSE_MULTIPLEX] = "multiplex",
	[PMS_CAUSE_IOCTL_DISABLE] = "ioctl_disable",
	[PMS_CAUSE_MIGRATION] = "migration",
	[PMS_CAUSE_REBIND] = "rebind",
	[PMS_CAUSE_SWITCH_OUT] = "switch_out",
};

const char *pms_cause_name(enum pms_cause c)
{
	return (unsigned int)c < PMS_CAUSE_NR ? cause_names[c] : "unexplained";
}

bool pms_cause_is_environment(enum pms_cause c)
{
	return c == PMS_CAUSE_THROTTLE || c == PMS_CAUSE_SIGNAL_QUEUE_FULL ||
	       c == PMS_CAUSE_MULTIPLEX;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct pms_evidence *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return (int)x->cause - (int)y->cause;
}

void pms_evidence_sort(struct pms_evidence *ev, size_t n)
{
	if (n > 1)
		qsort(ev, n, sizeof(*ev), cmp_ev);
}

/*
 * P(X >= k) for X ~ Binomial(n, p): the chance that at least k of n anomaly
 * windows hold a cause if each held it as often as an on-time window of its
 * length does.  The windows' own chances differ with their lengths (a
 * Poisson-binomial); the binomial at their mean is the wider of the two, so
 * the test errs towards "unexplained".  Only the upper tail matters (a cause
 * is claimed for excess), so it is summed only above the mean.
 */
static double binomial_tail(uint64_t k, uint64_t n, double p)
{
	double sum = 0, term, lp, lq;
	uint64_t i;

	if (!k)
		return 1;
	if (k > n || p <= 0)
		return 0;
	if (p >= 1 || (double)k <= (double)n * p)
		return 1;
	lp = log(p);
	lq = log1p(-p);
	for (i = k; i <= n; i++) {
		term = exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
			   lgamma((double)(n - i) + 1) + (double)i * lp + (double)(n - i) * lq);
		sum += term;
		if (term < sum * 1e-12)
			break;
	}
	return sum > 1 ? 1 : sum;
}

/*
 * How likely an on-time window of length @len is to hold the cause, from
 * the fraction @q of on-time windows (mean length @mean) that held it, if
 * the cause comes at random: 1 - (1 - q)^(len / mean).  A drop's window
 * spans two periods, so it has twice the chances of an on-time one by its
 * length alone, and that is not evidence.
 */
static double chance_in(double q, double len, double mean)
{
	if (q >= 1)
		return 1;
	if (mean <= 0)
		return q;
	return -expm1(log1p(-q) * len / mean);
}

/* Window lengths past the exact ones: 64 bins an octave, from 1 to 2^64. */
static size_t len_bin(double len)
{
	double b = len < 1 ? 0 : log2(len) * PMS_ATTRIB_BINS_PER_OCTAVE;

	return b >= PMS_ATTRIB_BINS - 1 ? PMS_ATTRIB_BINS - 1 : (size_t)b;
}

static double bin_len(size_t b)
{
	return exp2(((double)b + 0.5) / PMS_ATTRIB_BINS_PER_OCTAVE);
}

/* An anomaly window's length in time and in counts: exactly, then in bins. */
static int add_len(struct pms_attrib_stream *as, double lt, double lc)
{
	if (as->nlen >= PMS_ATTRIB_EXACT) {
		as->bin_t[len_bin(lt)]++;
		as->bin_c[len_bin(lc)]++;
		return 0;
	}
	if (as->nlen == as->len_cap) {
		size_t cap = as->len_cap ? 2 * as->len_cap : 256;
		double *t = realloc(as->len_t, cap * sizeof(*t));
		double *cn = t ? realloc(as->len_c, cap * sizeof(*cn)) : NULL;

		if (t)
			as->len_t = t;
		if (!t || !cn)
			return -ENOMEM;
		as->len_c = cn;
		as->len_cap = cap;
	}
	as->len_t[as->nlen] = lt;
	as->len_c[as->nlen++] = lc;
	return 0;
}

void pms_attrib_stream_init(struct pms_attrib_stream *as, const struct pms_attrib_cfg *cfg,
			    struct pms_attrib_result *res, size_t max_kept)
{
	memset(as, 0, sizeof(*as));
	memset(res, 0, sizeof(*res));
	res->dominant = -1;
	as->cfg = cfg;
	as->res = res;
	as->max_kept = max_kept;
}

/*
 * An anomaly's window starts at the last on-time signal before it, so a
 * burst of late signals all see what happened since things last went right;
 * an on-time signal's window starts at the signal before it (what it came
 * through unharmed), so a cause is not counted twice around one anomaly.
 * Before the first on-time signal, an anomaly's window starts at the signal
 * before it; the first signal has none.
 */
static bool window_from(const struct pms_attrib_stream *as, bool on_time, uint64_t *t,
			uint64_t *v)
{
	if (!on_time && as->have_ok) {
		*t = as->ok_t;
		*v = as->ok_v;
		return true;
	}
	if (!as->have_prev)
		return false;
	*t = as->prev_t;
	*v = as->prev_v;
	return true;
}

/* Causes present in (from, to], and how many items of each. */
static uint8_t scan(const struct pms_ev_view *ev, uint64_t from, uint64_t to,
		    uint64_t count[PMS_CAUSE_NR], size_t lo_out[PMS_EV_SEGS])
{
	uint8_t mask = 0;
	int g;

	for (g = 0; ev && g < PMS_EV_SEGS; g++) {
		const struct pms_evidence *e = ev->ev[g];
		size_t lo, hi, i;

		if (!ev->n[g])
			continue;
		/* the items stamped in (from, to] */
		lo = PMS_UPPER_BOUND(e, ev->n[g], time_ns, from);
		hi = PMS_UPPER_BOUND(e, ev->n[g], time_ns, to);
		for (i = lo; i < hi; i++) {
			if (e[i].cause >= PMS_CAUSE_NR)
				continue;
			mask |= (uint8_t)(1u << e[i].cause);
			if (count)
				count[e[i].cause]++;
		}
		if (lo_out)
			lo_out[g] = lo;
	}
	return mask;
}

/* The first items of (from, to] over every segment, in time order. */
static uint8_t first_items(const struct pms_ev_view *ev, size_t lo[PMS_EV_SEGS], uint64_t to,
			   struct pms_evidence *out, size_t max)
{
	size_t got = 0;

	while (got < max) {
		int g, best = -1;

		for (g = 0; g < PMS_EV_SEGS; g++)
			if (lo[g] < ev->n[g] && ev->ev[g][lo[g]].time_ns <= to &&
			    (best < 0 || ev->ev[g][lo[g]].time_ns < ev->ev[best][lo[best]].time_ns))
				best = g;
		if (best < 0)
			break;
		out[got++] = ev->ev[best][lo[best]++];
	}
	return (uint8_t)got;
}

uint32_t pms_attrib_stream_tag(const struct pms_attrib_stream *as, const struct pms_signal *s,
			       const struct pms_ev_view *ev)
{
	uint64_t from, v;
	uint32_t kept = as->res->nr_kept < as->max_kept ? (uint32_t)as->res->nr_kept + 1 : 0;

	if (!window_from(as, false, &from, &v))
		return PMS_ATTRIB_NO_WINDOW | kept << 8;
	return scan(ev, from, s->time_ns, NULL, NULL) | kept << 8;
}

int pms_attrib_stream_push(struct pms_attrib_stream *as, const struct pms_signal *s,
			   enum pms_class cls, uint32_t tag, const struct pms_ev_view *ev)
{
	struct pms_attrib_result *res = as->res;
	bool on_time = cls == PMS_CLASS_ON_TIME;
	uint64_t from = 0, from_v = 0, count[PMS_CAUSE_NR] = { 0 };
	bool win = window_from(as, on_time, &from, &from_v);
	uint8_t mask = 0;
	size_t lo[PMS_EV_SEGS] = { 0 };
	int c;

	as->nr++;
	if (win) {
		uint64_t span = s->time_ns - from;

		if (s->value < from_v)
			as->count_back = true;
		mask = scan(ev, from, s->time_ns, count, lo);
		if (on_time) {
			res->on_time++;
			res->on_time_ns += span;
			as->on_time_count += s->value - from_v;
		} else {
			double lt = (double)span, lc = (double)(s->value - from_v);

			res->anomalies++;
			res->anomaly_ns += span;
			if (add_len(as, lt, lc))
				return -ENOMEM;
		}
		for (c = 0; c < PMS_CAUSE_NR; c++) {
			if (!count[c])
				continue;
			if (on_time) {
				res->cause[c].on_time_windows++;
				res->cause[c].on_time_events += count[c];
			} else {
				res->cause[c].anomaly_windows++;
				res->cause[c].anomaly_events += count[c];
			}
		}
	}
	if (!on_time) {
		uint8_t key = win ? mask : PMS_ATTRIB_NO_WINDOW;

		as->tally[cls][key]++;
		if ((tag >> 8) && res->nr_kept < as->max_kept) {
			struct pms_attrib_kept *k;

			if (res->nr_kept == as->kept_cap) {
				size_t cap = as->kept_cap ? 2 * as->kept_cap : 64;
				struct pms_attrib_kept *nk;

				if (cap > as->max_kept)
					cap = as->max_kept;
				nk = realloc(res->kept, cap * sizeof(*nk));
				if (!nk)
					return -ENOMEM;
				res->kept = nk;
				as->kept_cap = cap;
			}
			k = &res->kept[res->nr_kept++];
			memset(k, 0, sizeof(*k));
			k->signal = as->nr;
			k->time_ns = s->time_ns;
			k->from_ns = from;
			k->windowed = win;
			k->mask = key;
			k->cls = (uint8_t)cls;
			if (win && ev && res->nr_kept <= PMS_ATTRIB_ITEMS_KEPT)
				k->nitems = first_items(ev, lo, s->time_ns, k->items,
							as->cfg->max_listed < PMS_ATTRIB_MAX_LISTED ?
							as->cfg->max_listed : PMS_ATTRIB_MAX_LISTED);
		}
	}
	as->have_prev = true;
	as->prev_t = s->time_ns;
	as->prev_v = s->value;
	if (on_time) {
		as->have_ok = true;
		as->ok_t = s->time_ns;
		as->ok_v = s->value;
	}
	return 0;
}

void pms_attrib_stream_settled(struct pms_attrib_stream *as, uint32_t tag, enum pms_class from,
			       enum pms_class to, uint64_t count)
{
	uint8_t key = (uint8_t)(tag & 0xff);
	uint32_t kept = tag >> 8;

	if (as->tally[from][key] < count)
		count = as->tally[from][key];
	as->tally[from][key] -= count;
	as->tally[to][key] += count;
	if (kept && kept <= as->res->nr_kept && as->res->kept[kept - 1].cls == from)
		as->res->kept[kept - 1].cls = (uint8_t)to;
}

/* The cause chosen for an anomaly whose window held @mask, by the documented rule. */
static int choose(const struct pms_attrib_cfg *cfg, const struct pms_attrib_result *res,
		  uint8_t mask)
{
	int c, best = -1;

	if (mask & PMS_ATTRIB_NO_WINDOW)
		return -1;
	for (c = 0; c < PMS_CAUSE_NR; c++) {
		const struct pms_cause_stat *cs = &res->cause[c];

		if (!(mask & (1u << c)))
			continue;
		/* Environment stops signals by itself: present is enough. */
		if (pms_cause_is_environment(c))
			return c;
		/* Never seen on time, or seen far more often with anomalies. */
		if ((cs->lift < 0 || cs->lift >= cfg->lift_min) && cs->p < cfg->alpha &&
		    (best < 0 || (cs->lift < 0 ? 1e300 : cs->lift) >
		     (res->cause[best].lift < 0 ? 1e300 : res->cause[best].lift)))
			best = c;
	}
	return best;
}

int pms_attrib_stream_finish(struct pms_attrib_stream *as, const uint64_t events[PMS_CAUSE_NR])
{
	const struct pms_attrib_cfg *cfg = as->cfg;
	struct pms_attrib_result *res = as->res;
	double mean;
	size_t i;
	int c, k, m;

	for (c = 0; c < PMS_CAUSE_NR; c++)
		res->cause[c].events = events ? events[c] : 0;
	/*
	 * Presence, not counts: evidence comes in bursts (a mover that got the
	 * CPU rebinds many times in a row), so its events are not independent
	 * and a count-based test would find "significance" in noise.  The unit
	 * is the window: how many anomaly windows held the cause, against how
	 * many would have if each held it as often as an on-time window of the
	 * same length.  One pseudo-window holding it keeps "never on time" from
	 * meaning "infinitely more often".
	 */
	for (c = 0; c < PMS_CAUSE_NR; c++) {
		struct pms_cause_stat *cs = &res->cause[c];

		cs->never_on_time = !cs->on_time_windows;
		cs->q = res->on_time ? (double)(cs->on_time_windows + 1) / (double)(res->on_time + 1) : 0;
	}
	/*
	 * A window's length in counts of the counter where the values allow
	 * (they never go back and on-time windows advance): a cause that
	 * stops the counter (a DISABLE, rotation off the PMU) makes a window
	 * long in time but not in counts, and must not thereby look expected.
	 */
	res->by_count = !as->count_back && as->on_time_count && res->on_time &&
			!cfg->window_by_time;
	mean = !res->on_time ? 0 : res->by_count ?
	       (double)as->on_time_count / (double)res->on_time :
	       (double)res->on_time_ns / (double)res->on_time;
	res->lengths_binned = 0;
	for (i = 0; i < PMS_ATTRIB_BINS; i++)
		res->lengths_binned += res->by_count ? as->bin_c[i] : as->bin_t[i];
	for (c = 0; c < PMS_CAUSE_NR && res->on_time; c++) {
		struct pms_cause_stat *cs = &res->cause[c];

		for (i = 0; i < as->nlen; i++)
			cs->expected += chance_in(cs->q, res->by_count ? as->len_c[i] : as->len_t[i],
						  mean);
		for (i = 0; i < PMS_ATTRIB_BINS; i++) {
			uint64_t nb = res->by_count ? as->bin_c[i] : as->bin_t[i];

			if (nb)
				cs->expected += (double)nb * chance_in(cs->q, bin_len(i), mean);
		}
	}
	for (c = 0; c < PMS_CAUSE_NR; c++) {
		struct pms_cause_stat *cs = &res->cause[c];

		cs->lift = cs->expected > 0 ? (double)cs->anomaly_windows / cs->expected : -1;
		/* A lift from a handful of windows is noise: how likely is it by chance? */
		cs->p = res->on_time && res->anomalies ?
			binomial_tail(cs->anomaly_windows, res->anomalies,
				      cs->expected / (double)res->anomalies) : 1;
	}

	/* Choose a cause per anomaly: it depends only on what its window held. */
	for (k = 0; k < PMS_CLASS_NR; k++) {
		for (m = 0; m < 256; m++) {
			uint64_t n = as->tally[k][m];
			int best;

			if (!n)
				continue;
			res->anomalies_by_class[k] += n;
			best = choose(cfg, res, (uint8_t)m);
			if (best < 0) {
				res->unexplained += n;
				continue;
			}
			res->cause[best].claimed += n;
			res->claimed_by_class[k][best] += n;
		}
	}
	for (i = 0; i < res->nr_kept; i++) {
		int best = choose(cfg, res, res->kept[i].mask);

		res->kept[i].cause = (uint8_t)(best + 1);
	}
	for (c = 0; c < PMS_CAUSE_NR; c++)
		if (res->cause[c].claimed &&
		    (res->dominant < 0 || res->cause[c].claimed > res->cause[res->dominant].claimed))
			res->dominant = c;
	free(as->len_t);
	free(as->len_c);
	as->len_t = as->len_c = NULL;
	return 0;
}

int pms_attrib_stream_merge(struct pms_attrib_stream *dst, struct pms_attrib_stream *src,
			    uint16_t lane)
{
	struct pms_attrib_result *d = dst->res, *r = src->res;
	size_t i;
	int c, k, m;

	d->anomalies += r->anomalies;
	d->on_time += r->on_time;
	d->anomaly_ns += r->anomaly_ns;
	d->on_time_ns += r->on_time_ns;
	for (c = 0; c < PMS_CAUSE_NR; c++) {
		d->cause[c].anomaly_windows += r->cause[c].anomaly_windows;
		d->cause[c].on_time_windows += r->cause[c].on_time_windows;
		d->cause[c].anomaly_events += r->cause[c].anomaly_events;
		d->cause[c].on_time_events += r->cause[c].on_time_events;
	}
	dst->on_time_count += src->on_time_count;
	dst->count_back |= src->count_back;
	for (k = 0; k < PMS_CLASS_NR; k++)
		for (m = 0; m < 256; m++)
			dst->tally[k][m] += src->tally[k][m];
	for (i = 0; i < src->nlen; i++)
		if (add_len(dst, src->len_t[i], src->len_c[i]))
			return -ENOMEM;
	for (i = 0; i < PMS_ATTRIB_BINS; i++) {
		dst->bin_t[i] += src->bin_t[i];
		dst->bin_c[i] += src->bin_c[i];
	}
	for (i = 0; i < r->nr_kept && d->nr_kept < dst->max_kept; i++) {
		if (d->nr_kept == dst->kept_cap) {
			size_t cap = dst->kept_cap ? 2 * dst->kept_cap : 64;
			struct pms_attrib_kept *nk = realloc(d->kept, cap * sizeof(*nk));

			if (!nk)
				return -ENOMEM;
			d->kept = nk;
			dst->kept_cap = cap;
		}
		d->kept[d->nr_kept] = r->kept[i];
		d->kept[d->nr_kept++].lane = lane;
	}
	pms_attrib_stream_abort(src);
	return 0;
}

void pms_attrib_stream_abort(struct pms_attrib_stream *as)
{
	free(as->len_t);
	free(as->len_c);
	as->len_t = as->len_c = NULL;
	pms_attrib_free(as->res);
}

int pms_attrib_run(const struct pms_attrib_cfg *cfg, const struct pms_signal *sig,
		   const uint8_t *cls, size_t n, const struct pms_evidence *ev, size_t nev,
		   struct pms_attrib_result *res)
{
	struct pms_attrib_stream as;
	struct pms_ev_view view = { .ev = { ev }, .n = { nev } };
	uint64_t events[PMS_CAUSE_NR] = { 0 };
	size_t i;

	pms_attrib_stream_init(&as, cfg, res, n);
	for (i = 0; i < nev; i++)
		if (ev[i].cause < PMS_CAUSE_NR)
			events[ev[i].cause]++;
	for (i = 0; i < n; i++) {
		uint32_t tag = cls[i] == PMS_CLASS_ON_TIME ? 0 : pms_attrib_stream_tag(&as, &sig[i],
										     &view);

		if (pms_attrib_stream_push(&as, &sig[i], (enum pms_class)cls[i], tag, &view)) {
			pms_attrib_stream_abort(&as);
			return -ENOMEM;
		}
	}
	return pms_attrib_stream_finish(&as, events);
}

int pms_attrib_schedule_out_cause(const struct pms_attrib_result *res,
				  bool multiplex_under_test)
{
	int c, best = -1;

	for (c = 0; c < PMS_CAUSE_NR; c++)
		if ((!pms_cause_is_environment(c) ||
		     (c == PMS_CAUSE_MULTIPLEX && multiplex_under_test)) &&
		    res->cause[c].claimed &&
		    (best < 0 || res->cause[c].claimed > res->cause[best].claimed))
			best = c;
	return best;
}

void pms_attrib_free(struct pms_attrib_result *res)
{
	free(res->kept);
	res->kept = NULL;
	res->nr_kept = 0;
}

const struct pms_attrib_kept *pms_attrib_kept_find_lane(const struct pms_attrib_result *res,
							uint16_t lane, uint64_t signal)
{
	size_t lo = 0, hi = res->nr_kept;

	/* sorted by (lane, signal): each thread's were appended in order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (res->kept[mid].lane < lane ||
		    (res->kept[mid].lane == lane && res->kept[mid].signal < signal))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < res->nr_kept && res->kept[lo].lane == lane && res->kept[lo].signal == signal ?
	       &res->kept[lo] : NULL;
}

const struct pms_attrib_kept *pms_attrib_kept_find(const struct pms_attrib_result *res,
						   uint64_t signal)
{
	return pms_attrib_kept_find_lane(res, 0, signal);
}

static json_object *evidence_json(const struct pms_evidence *e, uint64_t from)
{
	json_object *o = json_object_new_object();

	pms_json_add(o, "kind", json_object_new_string(pms_cause_name(e->cause)));
	pms_json_add(o, "offset_ns", json_object_new_uint64(e->time_ns - from));
	if (e->cause == PMS_CAUSE_MIGRATION || e->cause == PMS_CAUSE_REBIND) {
		json_object_object_add(o, "from_cpu", e->a >= 0 ? json_object_new_int(e->a) : NULL);
		json_object_object_add(o, "to_cpu", e->b >= 0 ? json_object_new_int(e->b) : NULL);
	} else if (e->cause == PMS_CAUSE_SWITCH_OUT) {
		char st[2] = { (char)e->a, 0 };

		pms_json_add(o, "state", json_object_new_string(st));
	} else if (e->cause == PMS_CAUSE_IOCTL_DISABLE) {
		json_object_object_add(o, "toggle", e->a >= 0 ? json_object_new_int(e->a) : NULL);
	} else if (e->cause == PMS_CAUSE_MULTIPLEX) {
		pms_json_add(o, "off_pmu_us", json_object_new_int(e->a));
	}
	return o;
}

void pms_attrib_annotate(const struct pms_attrib_cfg *cfg, const struct pms_attrib_result *res,
			 json_object *oracle)
{
	json_object *anom, *list;
	size_t i, k;

	if (!json_object_object_get_ex(oracle, "anomalies", &anom) ||
	    !json_object_object_get_ex(anom, "list", &list))
		return;
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i), *num, *items, *th;
		const struct pms_attrib_kept *kp;
		uint16_t lane = 0;

		if (!json_object_object_get_ex(a, "signal", &num))
			continue;
		if (json_object_object_get_ex(a, "thread", &th))
			lane = (uint16_t)json_object_get_int(th);
		kp = pms_attrib_kept_find_lane(res, lane, json_object_get_uint64(num));
		if (!kp)
			continue;
		json_object_object_add(a, "cause", json_object_new_string(
			kp->cause ? pms_cause_name(kp->cause - 1) : "unexplained"));
		json_object_object_add(a, "window_ns", kp->windowed ?
				       json_object_new_uint64(kp->time_ns - kp->from_ns) : NULL);
		items = json_object_new_array();
		for (k = 0; k < kp->nitems && k < cfg->max_listed; k++)
			pms_json_push(items, evidence_json(&kp->items[k], kp->from_ns));
		json_object_object_add(a, "evidence", items);
	}
}

/* Per anomaly class: how many, and which causes were claimed for them. */
static json_object *by_class_json(const struct pms_attrib_result *res)
{
	json_object *o = json_object_new_object();
	int k, c;

	for (k = 0; k < PMS_CLASS_NR; k++) {
		json_object *e, *claimed;
		uint64_t sum = 0;

		if (!res->anomalies_by_class[k])
			continue;
		e = json_object_new_object();
		claimed = json_object_new_object();
		for (c = 0; c < PMS_CAUSE_NR; c++) {
			sum += res->claimed_by_class[k][c];
			if (res->claimed_by_class[k][c])
				pms_json_add(claimed, pms_cause_name(c),
					     json_object_new_uint64(res->claimed_by_class[k][c]));
		}
		pms_json_add(e, "anomalies", json_object_new_uint64(res->anomalies_by_class[k]));
		pms_json_add(e, "claimed", claimed);
		pms_json_add(e, "unexplained",
			     json_object_new_uint64(res->anomalies_by_class[k] - sum));
		pms_json_add(o, pms_class_name(k), e);
	}
	return o;
}

json_object *pms_attrib_to_json(const struct pms_attrib_cfg *cfg,
				const struct pms_attrib_result *res)
{
	json_object *o = json_object_new_object(), *causes = json_object_new_array();
	char sentence[512];
	int c;

	pms_json_add(o, "rule", json_object_new_string(
		"an anomaly's window runs from the last on-time signal before it, an on-time "
		"signal's from the signal before it; an anomaly "
		"is given the environment cause (throttle, signal_queue_full, multiplex) found "
		"in its window, else the correlated cause in its window with the highest lift "
		"(the anomaly windows that held it / the number expected if each held it as "
		"often as an on-time window of its length, measured in counts of the counter "
		"where window_length says so, else in time, with one pseudo-window holding it) "
		"if that lift is at least lift_min and the chance of that many windows at the "
		"on-time rate (binomial) is below alpha; else it is unexplained"));
	pms_json_add(o, "lift_min", json_object_new_double(cfg->lift_min));
	pms_json_add(o, "alpha", json_object_new_double(cfg->alpha));
	pms_json_add(o, "window_length", json_object_new_string(res->by_count ? "counts" :
								  "time"));
	pms_json_add(o, "complete", json_object_new_boolean(cfg->complete));
	json_object_object_add(o, "incomplete_why", cfg->incomplete_why ?
		     json_object_new_string(cfg->incomplete_why) : NULL);
	pms_json_add(o, "scheduler_trace", json_object_new_boolean(cfg->traced));
	pms_json_add(o, "anomaly_windows", json_object_new_uint64(res->anomalies));
	pms_json_add(o, "on_time_windows", json_object_new_uint64(res->on_time));
	pms_json_add(o, "anomaly_window_ns", json_object_new_uint64(res->anomaly_ns));
	pms_json_add(o, "on_time_window_ns", json_object_new_uint64(res->on_time_ns));
	for (c = 0; c < PMS_CAUSE_NR; c++) {
		const struct pms_cause_stat *cs = &res->cause[c];
		json_object *e = json_object_new_object();

		pms_json_add(e, "cause", json_object_new_string(pms_cause_name(c)));
		pms_json_add(e, "environment", json_object_new_boolean(pms_cause_is_environment(c)));
		pms_json_add(e, "events", json_object_new_uint64(cs->events));
		pms_json_add(e, "in_anomaly_windows", json_object_new_uint64(cs->anomaly_windows));
		pms_json_add(e, "in_on_time_windows", json_object_new_uint64(cs->on_time_windows));
		pms_json_add(e, "events_in_anomaly_windows", json_object_new_uint64(cs->anomaly_events));
		pms_json_add(e, "events_in_on_time_windows", json_object_new_uint64(cs->on_time_events));
		pms_json_add(e, "expected_in_anomaly_windows", json_object_new_double(cs->expected));
		json_object_object_add(e, "anomaly_fraction", res->anomalies ? json_object_new_double(
			(double)cs->anomaly_windows / res->anomalies) : NULL);
		json_object_object_add(e, "on_time_fraction", res->on_time ? json_object_new_double(
			(double)cs->on_time_windows / res->on_time) : NULL);
		json_object_object_add(e, "lift", cs->lift >= 0 ? json_object_new_double(cs->lift) : NULL);
		pms_json_add(e, "p_value", json_object_new_double(cs->p));
		pms_json_add(e, "claimed", json_object_new_uint64(cs->claimed));
		pms_json_push(causes, e);
	}
	pms_json_add(o, "causes", causes);
	pms_json_add(o, "unexplained", json_object_new_uint64(res->unexplained));
	pms_json_add(o, "by_class", by_class_json(res));
	json_object_object_add(o, "dominant", res->dominant >= 0 ?
		     json_object_new_string(pms_cause_name(res->dominant)) : NULL);
	pms_attrib_sentence(res, sentence, sizeof(sentence));
	pms_json_add(o, "summary", json_object_new_string(sentence));
	return o;
}

/*
 * An environment cause is claimed wherever it is present, not by its lift;
 * and a long window may be long because of it (an event rotated off the
 * PMU counts nothing for a while), which makes the length-adjusted lift
 * meaningless there.  Say so instead of printing it.
 */
static void lift_words(const struct pms_cause_stat *cs, int c, char *buf, size_t len,
		       size_t *pos)
{
	if (pms_cause_is_environment(c))
		pms_append(buf, len, pos, "claimed where present)");
	else if (cs->lift < 0)
		pms_append(buf, len, pos, "no on-time window to compare with)");
	else if (cs->never_on_time)
		pms_append(buf, len, pos, "never with an on-time signal: lift at least %.1f)",
			   cs->lift);
	else
		pms_append(buf, len, pos, "lift %.1f)", cs->lift);
}

void pms_attrib_sentence(const struct pms_attrib_result *res, char *buf, size_t len)
{
	const struct pms_cause_stat *cs;
	uint64_t total = res->unexplained;
	size_t pos = 0;
	int c;

	if (!res->anomalies) {
		snprintf(buf, len, "no anomaly to attribute");
		return;
	}
	if (res->dominant < 0) {
		snprintf(buf, len, "all %llu anomalies unexplained: no evidence in their windows "
			 "stands out from the on-time windows", (unsigned long long)res->anomalies);
		return;
	}
	cs = &res->cause[res->dominant];
	for (c = 0; c < PMS_CAUSE_NR; c++)
		total += res->cause[c].claimed;
	pms_append(buf, len, &pos, "%llu of %llu anomalies came with %s (in %.0f%% of anomaly "
		   "windows vs %.0f%% of on-time ones; ", (unsigned long long)cs->claimed,
		   (unsigned long long)total, pms_cause_name(res->dominant),
		   100.0 * (double)cs->anomaly_windows / (double)res->anomalies,
		   res->on_time ? 100.0 * (double)cs->on_time_windows / (double)res->on_time : 0);
	lift_words(cs, res->dominant, buf, len, &pos);
	if (res->unexplained)
		pms_append(buf, len, &pos, "; %llu unexplained", (unsigned long long)res->unexplained);
}

void pms_attrib_class_sentence(const struct pms_attrib_result *res, enum pms_class cls,
			       char *buf, size_t len)
{
	uint64_t n = res->anomalies_by_class[cls], claimed = 0;
	size_t pos = 0;
	int c, best = -1;

	buf[0] = '\0';
	if (!n)
		return;
	for (c = 0; c < PMS_CAUSE_NR; c++) {
		claimed += res->claimed_by_class[cls][c];
		if (res->claimed_by_class[cls][c] &&
		    (best < 0 || res->claimed_by_class[cls][c] > res->claimed_by_class[cls][best]))
			best = c;
	}
	pms_append(buf, len, &pos, "of the %llu %s signal%s, ", (unsigned long long)n,
		   pms_class_name(cls), n == 1 ? "" : "s");
	if (best < 0) {
		pms_append(buf, len, &pos, "none stands out from the on-time windows");
		return;
	}
	pms_append(buf, len, &pos, "%llu came with %s (", (unsigned long long)
		   res->claimed_by_class[cls][best], pms_cause_name(best));
	lift_words(&res->cause[best], best, buf, len, &pos);
	for (c = 0; c < PMS_CAUSE_NR; c++)
		if (c != best && res->claimed_by_class[cls][c])
			pms_append(buf, len, &pos, ", %llu with %s", (unsigned long long)
				   res->claimed_by_class[cls][c], pms_cause_name(c));
	if (n > claimed)
		pms_append(buf, len, &pos, "; %llu unexplained", (unsigned long long)(n - claimed));
}

void pms_stressor_control_judge(struct pms_stressor_control *c, double lift_min, double alpha)
{
	double with, without;

	c->p = 1;
	c->lift = 0;
	c->lift_at_least = false;
	c->stands = false;
	if (!c->valid || !c->overflows || !c->overflows_with)
		return;
	if (c->lost > c->overflows)
		c->lost = c->overflows;
	if (c->lost_with > c->overflows_with)
		c->lost_with = c->overflows_with;
	with = (double)c->lost_with / (double)c->overflows_with;
	c->lift_at_least = !c->lost;
	without = c->lost ? (double)c->lost / (double)c->overflows :
		  1.0 / ((double)c->overflows + 1.0);
	c->lift = with / without;
	c->p = pms_fisher_exact(c->lost_with, c->overflows_with - c->lost_with,
				c->lost, c->overflows - c->lost);
	c->stands = c->lost_with && c->lift >= lift_min && c->p < alpha;
}

void pms_stressor_control_sentence(const struct pms_stressor_control *c, const char *stressor,
				   char *buf, size_t len)
{
	size_t pos = 0;

	if (len)
		buf[0] = '\0';
	if (!c->valid)
		return;
	pms_append(buf, len, &pos, "%s: %llu of %llu overflows lost with it (%.2g%%), %llu of "
		   "%llu in the %.2f s before it without it (%.2g%%)", stressor,
		   (unsigned long long)c->lost_with, (unsigned long long)c->overflows_with,
		   c->overflows_with ? 100.0 * (double)c->lost_with / (double)c->overflows_with : 0.0,
		   (unsigned long long)c->lost, (unsigned long long)c->overflows, c->seconds,
		   c->overflows ? 100.0 * (double)c->lost / (double)c->overflows : 0.0);
	if (c->overflows && c->overflows_with)
		pms_append(buf, len, &pos, ": lift %s%.3g, Fisher's exact p %.2g",
			   c->lift_at_least ? "at least " : "", c->lift, c->p);
}

json_object *pms_stressor_control_json(const struct pms_stressor_control *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "measured", json_object_new_boolean(c->valid));
	json_object_object_add(o, "seconds", json_object_new_double(c->seconds));
	json_object_object_add(o, "overflows", json_object_new_uint64(c->overflows));
	json_object_object_add(o, "lost", json_object_new_uint64(c->lost));
	json_object_object_add(o, "overflows_with", json_object_new_uint64(c->overflows_with));
	json_object_object_add(o, "lost_with", json_object_new_uint64(c->lost_with));
	json_object_object_add(o, "lift", c->valid && c->overflows && c->overflows_with ?
			       json_object_new_double(c->lift) : NULL);
	json_object_object_add(o, "lift_at_least", json_object_new_boolean(c->lift_at_least));
	json_object_object_add(o, "p_value", c->valid && c->overflows && c->overflows_with ?
			       json_object_new_double(c->p) : NULL);
	json_object_object_add(o, "stands", json_object_new_boolean(c->stands));
	return o;
}
