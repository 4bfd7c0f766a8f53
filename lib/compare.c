// SPDX-License-Identifier: GPL-2.0-only
/*
 * Comparing results: two sides (a file or a directory of them each) are
 * grouped by what was run, paired, and every rate the oracle counts is
 * tested old against new with Fisher's exact test, so that "it regressed on
 * the new kernel" comes with a p-value instead of an impression.  Nothing
 * here prints: the report is a JSON object and cmd/compare.c renders it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pms-compare.h"
#include "pms-util.h"

/*
 * R's fisher.test counts a table as "no more likely" than the observed one
 * within this relative error, so that ties computed along different paths
 * through lgamma still tie.
 */
#define FISHER_REL_ERR		1e-7

/*
 * A tail is summed outward until its terms fall this many nats below the
 * observed table's probability (e^-60 ~ 1e-26).  The hypergeometric is
 * log-concave, so what is left is bounded by a geometric series and cannot
 * move p in any digit that is printed.
 */
#define FISHER_TAIL_NATS	60.0

static const char *const rate_names[PMS_CMP_NR_RATES] = {
	[PMS_CMP_LOST]		= "lost",
	[PMS_CMP_LATE]		= "late",
	[PMS_CMP_SPURIOUS]	= "spurious",
	[PMS_CMP_GAP]		= "gap",
	[PMS_CMP_EARLY]		= "early",
	[PMS_CMP_COALESCED]	= "coalesced",
	[PMS_CMP_BAD_SI_CODE]	= "bad_si_code",
};

static const char *const verdict_names[PMS_CMP_NR_VERDICTS] = {
	[PMS_CMP_SKIP]	= "skip",
	[PMS_CMP_PASS]	= "pass",
	[PMS_CMP_ENVIRONMENT] = "environment",
	[PMS_CMP_ERROR]	= "error",
	[PMS_CMP_FAIL]	= "fail",
};

/*
 * What decides whether two runs measured the same thing.  Duration, the
 * result path, quiet, seeds and display options are left out on purpose:
 * a 10 s run and a 60 s run of the same setup are one experiment, and the
 * test weighs their different sizes.
 */
static const char *const key_fields[] = {
	"scenario", "counter.name", "counter.period", "options.no-mover", "options.mover",
	"options.pattern", "options.move-interval", "options.event", "options.exclude",
	/* another experiment, not another kernel: rotation on purpose, the
	 * trace (which perturbs an emulated guest), sysctls set for the run */
	"options.competing-events", "options.trace", "options.toggler",
	"host.emulation.sysctl_set",
};

/*
 * Options added after results were first kept (schema_version 1): an older
 * result ran as their default does, so it pairs with a new one that did.
 * Return: a new JSON value, or NULL when @field has no such default (or
 * the result is of a scenario that does not take it).
 */
static json_object *key_default(json_object *root, const char *field)
{
	json_object *sc;
	const char *name;

	if (!json_object_object_get_ex(root, "scenario", &sc))
		return NULL;
	name = json_object_get_string(sc);
	if (strcmp(name, "lost-overflow") && strcmp(name, "disable-storm"))
		return NULL;
	if (!strcmp(field, "options.trace"))
		return json_object_new_string("auto");
	if (!strcmp(field, "options.competing-events"))
		return json_object_new_int(0);
	return NULL;
}

/*
 * What a reader must know differs before believing a change is the
 * kernel's: CPU, PMU, emulation and the exclude bits all change what is
 * counted, and a run with --inject-* (recorder.fault_injection) loses
 * signals on purpose.  host.emulation's members are added one by one (see
 * run_env()).
 */
static const char *const env_fields[] = {
	"host.kernel.release", "host.cpu.model", "host.cpu.midr", "host.emulated",
	"counter.pmu", "counter.name", "counter.substitute",
	"counter.attr.exclude_user", "counter.attr.exclude_kernel", "counter.attr.exclude_hv",
	"counter.attr.exclude_idle", "counter.attr.exclude_host", "counter.attr.exclude_guest",
	"counter.attr.exclude_callchain_kernel", "counter.attr.exclude_callchain_user",
	"recorder.fault_injection", "aux_pause.abi.era", "aux_pause.abi.backport",
	"host.sysctl.perf_event_max_sample_rate", "host.cmdline.raw", "trace.used",
};

/*
 * The kernel command-line parameter that turns arm64 overflow interrupts
 * into pseudo-NMIs.  A member of host.cmdline whose name has a dot, so it
 * cannot be an env_fields path.
 */
#define PSEUDO_NMI_PARAM	"irqchip.gicv3_pseudo_nmi"

/*
 * Options that do not change the experiment, beside the key's: how long,
 * where the result goes, what is shown, limits on what is kept, the
 * watchdog, the seed (DESIGN: "Pairing"), which arguments were given, and
 * --period (counter.period, in the key, is what was used).  Every other
 * option both sides have is compared by its parsed value, so that argv
 * spelling (order, "--x=1" or "--x 1", spaces) is never a difference.
 */
static const char *const opts_ignored[] = {
	"duration", "json", "quiet", "show-anomalies", "max-anomalies", "watchdog", "seed",
	"_given", "period",
};

static const char *const unit_names[PMS_CMP_NR_UNITS] = {
	[PMS_CMP_MIGRATIONS]	= "migrations",
	[PMS_CMP_TOGGLES]	= "toggles",
	[PMS_CMP_OVERFLOWS]	= "overflows",
};

/*
 * Where the migrations come from, best first: every change of CPU the
 * scheduler made, the perf software counter (which folds several moves
 * between two schedule-ins into one), then what the mover asked for.
 */
static const char *const migration_sources[] = {
	"mover.migrations_sched", "mover.migrations_counted", "mover.rebinds_requested",
	"mover.requested",
};

/*
 * Conditions that bear on the rates, given side by side by name: the perf
 * sample-rate ceiling (and whether the kernel lowered it during the run:
 * throttling), the CPU, VHE, pseudo-NMI, the kernel command line and the
 * scheduler trace.  The mover's rate is added per group (rebinds over
 * seconds).
 */
enum cond {
	COND_MAX_SAMPLE_RATE,
	COND_RATE_BEFORE,
	COND_RATE_AFTER,
	COND_THROTTLED,
	COND_CPU_MODEL,
	COND_VHE,
	COND_PSEUDO_NMI,
	COND_CMDLINE,
	COND_TRACE_USED,
	NR_CONDS,
};

static const char *const cond_names[NR_CONDS] = {
	[COND_MAX_SAMPLE_RATE]	= "perf_event_max_sample_rate",
	[COND_RATE_BEFORE]	= "perf_event_max_sample_rate_before",
	[COND_RATE_AFTER]	= "perf_event_max_sample_rate_after",
	[COND_THROTTLED]	= "throttled_during_run",
	[COND_CPU_MODEL]	= "cpu_model",
	[COND_VHE]		= "vhe",
	[COND_PSEUDO_NMI]	= "pseudo_nmi",
	[COND_CMDLINE]		= "kernel_cmdline",
	[COND_TRACE_USED]	= "trace_used",
};

/* One result file, read. */
struct run {
	json_object *key;
	json_object *env;	/* field -> value (JSON null when absent) */
	json_object *abi;	/* aux-pause: case name -> errno seen ("ok", "EINVAL"...) */
	enum pms_cmp_verdict verdict;
	bool measured;		/* has an oracle section */
	bool interrupted;	/* ended early by SIGINT/SIGTERM: a partial run */
	bool storm_only;	/* lost rate from disable_storm.control's storm part */
	bool final_known;	/* oracle.overflows_implied is not null */
	uint64_t signals, lost, overflows;
	uint64_t events[PMS_CMP_NR_RATES], trials[PMS_CMP_NR_RATES];
	bool judged[PMS_CMP_NR_RATES];
	uint64_t anomalies;	/* every class: what oracle.anomalies.total counts */
	struct {
		bool known, driven;
		uint64_t value;
		const char *source;
	} expo[PMS_CMP_NR_UNITS];
	bool has_rate;		/* mover rebinds and seconds known */
	uint64_t rebinds;
	double mover_seconds;
	int attrib;		/* -1: no attribution section; 0: incomplete; 1: complete */
	uint64_t unexplained;
	json_object *claimed;	/* cause -> claimed; NULL without attribution */
	json_object *known;	/* ids of the known issues that matched; NULL without the section */
	json_object *cond;	/* cond_names -> value (JSON null when absent) */
	json_object *opts;	/* options compared (not the key's, not opts_ignored) */
};

const char *pms_cmp_unit_name(enum pms_cmp_unit unit)
{
	if ((unsigned int)unit >= PMS_CMP_NR_UNITS)
		return "unknown";
	return unit_names[unit];
}

const char *pms_cmp_rate_name(enum pms_cmp_rate rate)
{
	if ((unsigned int)rate >= PMS_CMP_NR_RATES)
		return "unknown";
	return rate_names[rate];
}

const char *pms_cmp_verdict_name(enum pms_cmp_verdict v)
{
	if ((unsigned int)v >= PMS_CMP_NR_VERDICTS)
		return "unknown";
	return verdict_names[v];
}

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* ---- Fisher's exact test */

/* log C(n, k), from lgamma_r: lgamma's signgam is a global. */
static double lchoose(double n, double k)
{
	int sign;

	return lgamma_r(n + 1.0, &sign) - lgamma_r(k + 1.0, &sign) -
	       lgamma_r(n - k + 1.0, &sign);
}

/*
 * A discrete distribution on [lo, hi] given by its log pmf, log-concave
 * (unimodal), as the hypergeometric of Fisher's test and the binomial of the
 * conditional Poisson test are.
 */
struct lpmf {
	double (*f)(const struct lpmf *d, uint64_t x);
	double a, b, c, l;	/* hyper: r1, r2, c1, log C(N, c1); binom: n, log p, log q */
};

/* log P(X = x): x events in the first row, margins fixed. */
static double lhyper(const struct lpmf *h, uint64_t x)
{
	double xd = (double)x;

	return lchoose(h->a, xd) + lchoose(h->b, h->c - xd) - h->l;
}

/* log P(X = x) for X ~ Binomial(n, p). */
static double lbinom(const struct lpmf *d, uint64_t x)
{
	double xd = (double)x;

	return lchoose(d->a, xd) + xd * d->b + (d->a - xd) * d->c;
}

/* Sum exp(log P(x) - la) from @x to @end (either way) until the terms vanish. */
static double tail_sum(const struct lpmf *d, uint64_t x, uint64_t end, double la)
{
	double s = 0.0, t;

	for (;;) {
		t = d->f(d, x) - la;
		if (t < -FISHER_TAIL_NATS)
			break;
		s += exp(t);
		if (x == end)
			break;
		x = x < end ? x + 1 : x - 1;
	}
	return s;
}

/*
 * Two-sided p of observing @obs: the total probability of every outcome in
 * [lo, hi] no more likely than it, ties within FISHER_REL_ERR.  P is
 * non-decreasing on [lo, mode] and non-increasing on [mode, hi].
 */
static double two_sided(const struct lpmf *d, uint64_t lo, uint64_t hi, uint64_t mode,
			uint64_t obs)
{
	uint64_t x, y, mid;
	double la, thr, s = 0.0;

	if (lo == hi)
		return 1.0;	/* one outcome possible: nothing to tell apart */
	if (mode < lo)
		mode = lo;
	if (mode > hi)
		mode = hi;
	la = d->f(d, obs);
	thr = la + log1p(FISHER_REL_ERR);

	/*
	 * The outcomes at most as likely as the observed one are the two
	 * tails [lo, x] and [y, hi].  Each boundary is found by bisection over
	 * a monotone half, and each tail is summed from its boundary outward,
	 * so the cost depends on the spread of the distribution, not on N.
	 */
	if (d->f(d, lo) <= thr) {
		x = lo;
		y = mode;
		if (d->f(d, y) <= thr) {
			x = y;
		} else {
			while (y - x > 1) {	/* P(x) <= thr < P(y) */
				mid = x + (y - x) / 2;
				if (d->f(d, mid) <= thr)
					x = mid;
				else
					y = mid;
			}
		}
		s += tail_sum(d, x, lo, la);
	}
	if (mode < hi && d->f(d, hi) <= thr) {
		x = mode + 1;
		y = hi;
		if (d->f(d, x) <= thr) {
			y = x;
		} else {
			while (y - x > 1) {	/* P(x) > thr >= P(y) */
				mid = x + (y - x) / 2;
				if (d->f(d, mid) <= thr)
					y = mid;
				else
					x = mid;
			}
		}
		s += tail_sum(d, y, hi, la);
	}
	/* p = P(obs) * s, formed in logs so that a tiny P(obs) does not round
	 * to 0 before s (>= 1: it holds the observed outcome) scales it. */
	if (s <= 0.0)
		return 0.0;
	s = exp(la + log(s));
	return s > 1.0 ? 1.0 : s;
}

double pms_fisher_exact(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t r1, r2, c1, n, lo, hi, mode;
	struct lpmf h = { .f = lhyper };

	if (__builtin_add_overflow(a, b, &r1) || __builtin_add_overflow(c, d, &r2) ||
	    __builtin_add_overflow(a, c, &c1) || __builtin_add_overflow(r1, r2, &n))
		return NAN;
	lo = c1 > r2 ? c1 - r2 : 0;
	hi = r1 < c1 ? r1 : c1;
	if (lo == hi)
		return 1.0;	/* one table fits the margins: nothing to tell apart */

	h.a = (double)r1;
	h.b = (double)r2;
	h.c = (double)c1;
	h.l = lchoose((double)n, h.c);
	/* The hypergeometric mode. */
	mode = (uint64_t)floorl(((long double)c1 + 1) * ((long double)r1 + 1) /
				((long double)n + 2));
	return two_sided(&h, lo, hi, mode, a);
}

double pms_poisson_rate_test(uint64_t k1, uint64_t e1, uint64_t k2, uint64_t e2)
{
	struct lpmf d = { .f = lbinom };
	long double t;
	uint64_t n, mode;

	if (!e1 || !e2 || __builtin_add_overflow(k1, k2, &n))
		return NAN;
	if (!n)
		return 1.0;
	/* k1 | n ~ Binomial(n, e1 / (e1 + e2)) under one rate for both. */
	t = (long double)e1 + (long double)e2;
	d.a = (double)n;
	d.b = (double)(logl((long double)e1) - logl(t));
	d.c = (double)(logl((long double)e2) - logl(t));
	/* The binomial mode, floor((n + 1) p). */
	mode = (uint64_t)floorl(((long double)n + 1) * (long double)e1 / t);
	return two_sided(&d, 0, n, mode, k1);
}

/* ---- reading results */

/* Walk "a.b.c"; true when the member exists (*out may then be NULL for JSON null). */
static bool lookup(json_object *o, const char *path, json_object **out)
{
	char key[128];
	const char *dot;
	size_t len;

	*out = NULL;
	while (path) {
		if (!o || !json_object_is_type(o, json_type_object))
			return false;
		dot = strchr(path, '.');
		len = dot ? (size_t)(dot - path) : strlen(path);
		if (len >= sizeof(key))
			return false;
		memcpy(key, path, len);
		key[len] = '\0';
		if (!json_object_object_get_ex(o, key, &o))
			return false;
		path = dot ? dot + 1 : NULL;
	}
	*out = o;
	return true;
}

static bool is_u64(json_object *v)
{
	return v && json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0;
}

/* A count no run can have (or one json-c saturated) is refused, not tested. */
static int check_count(const char *file, const char *path, uint64_t v, char *err,
		       size_t errlen)
{
	char num[32];

	if (v <= PMS_CMP_COUNT_MAX)
		return 0;
	if (v == UINT64_MAX)
		snprintf(num, sizeof(num), "2^64 - 1 or more");
	else
		snprintf(num, sizeof(num), "%" PRIu64, v);
	return fail(err, errlen, -EINVAL, "%s: %s is %s, past 2^53: no run counts that many, so "
		    "the result is damaged", file, path, num);
}

static int read_u64(json_object *root, const char *path, const char *file, uint64_t *out,
		    char *err, size_t errlen)
{
	json_object *v;

	if (!lookup(root, path, &v) || !is_u64(v))
		return fail(err, errlen, -EINVAL, "%s: %s is missing or not a non-negative integer",
			    file, path);
	*out = json_object_get_uint64(v);
	return check_count(file, path, *out, err, errlen);
}

static int add_u64(uint64_t *sum, uint64_t v)
{
	return __builtin_add_overflow(*sum, v, sum) ? -EOVERFLOW : 0;
}

/* The environment of one run: every env_fields entry, then host.emulation. */
static int run_env(json_object *root, json_object *env)
{
	json_object *v, *emu;
	char name[160];
	size_t i;

	for (i = 0; i < PMS_ARRAY_SIZE(env_fields); i++) {
		lookup(root, env_fields[i], &v);
		if (json_object_object_add(env, env_fields[i], json_object_get(v)))
			return -ENOMEM;
	}
	lookup(root, "host.cmdline", &v);
	if (!v || !json_object_object_get_ex(v, PSEUDO_NMI_PARAM, &v))
		v = NULL;
	if (json_object_object_add(env, "host.cmdline." PSEUDO_NMI_PARAM, json_object_get(v)))
		return -ENOMEM;
	/*
	 * The arm64 QEMU harness adds host.emulation (QEMU version, machine,
	 * cpu, icount).  Member by member, so that a report says "icount
	 * changed" rather than "the emulation object changed".
	 */
	if (!lookup(root, "host.emulation", &emu))
		return 0;
	if (!emu || !json_object_is_type(emu, json_type_object))
		return json_object_object_add(env, "host.emulation", json_object_get(emu)) ?
		       -ENOMEM : 0;
	json_object_object_foreach(emu, k, val) {
		/* How long a boot took is a measurement, not a setting. */
		if (!strcmp(k, "boot_wall_seconds"))
			continue;
		snprintf(name, sizeof(name), "host.emulation.%s", k);
		if (json_object_object_add(env, name, json_object_get(val)))
			return -ENOMEM;
	}
	return 0;
}

static void run_free(struct run *r)
{
	json_object_put(r->key);
	json_object_put(r->env);
	json_object_put(r->abi);
	json_object_put(r->claimed);
	json_object_put(r->known);
	json_object_put(r->cond);
	json_object_put(r->opts);
	r->key = r->env = r->abi = r->claimed = r->known = r->cond = r->opts = NULL;
}

/* aux-pause: what the kernel answered for each ABI case it reached. */
static int run_abi(json_object *root, struct run *r)
{
	json_object *cases, *name, *seen;
	size_t i;

	if (!lookup(root, "aux_pause.abi.cases", &cases) ||
	    !json_object_is_type(cases, json_type_array))
		return 0;
	r->abi = json_object_new_object();
	if (!r->abi)
		return -ENOMEM;
	for (i = 0; i < json_object_array_length(cases); i++) {
		json_object *c = json_object_array_get_idx(cases, i);

		if (!json_object_object_get_ex(c, "name", &name) ||
		    !json_object_object_get_ex(c, "seen", &seen) || !seen)
			continue;
		if (json_object_object_add(r->abi, json_object_get_string(name),
					   json_object_get(seen)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * What the oracle's counts promise of each other (results/schema): no more
 * lost than overflows, each signal in one timing class, and no more
 * overflows signalled and lost than happened.  A result that breaks one was
 * damaged or made by hand, and its rates would be tested as if they meant
 * something.  (The verdict is not held to the counts: a scenario may judge
 * by more than its oracle section.)
 */
static int oracle_consistent(json_object *root, const char *file, const struct run *r,
			     char *err, size_t errlen)
{
	uint64_t on_time = 0, sum;
	bool have_on_time;
	json_object *v;
	int i, ret;

	if (r->final_known && r->lost > r->overflows)
		return fail(err, errlen, -EINVAL, "%s: oracle.lost (%" PRIu64 ") is more than "
			    "oracle.overflows_implied (%" PRIu64 "): more overflows lost than "
			    "happened", file, r->lost, r->overflows);
	if (r->events[PMS_CMP_BAD_SI_CODE] > r->signals)
		return fail(err, errlen, -EINVAL, "%s: oracle.classes.bad_si_code (%" PRIu64 ") is "
			    "more than oracle.signals (%" PRIu64 ")", file,
			    r->events[PMS_CMP_BAD_SI_CODE], r->signals);
	/* on_time is no rate compared: results have it, hand-made ones may not. */
	have_on_time = lookup(root, "oracle.classes.on_time", &v);
	if (have_on_time) {
		ret = read_u64(root, "oracle.classes.on_time", file, &on_time, err, errlen);
		if (ret)
			return ret;
	}
	sum = on_time;
	for (i = PMS_CMP_LATE; i < PMS_CMP_NR_RATES; i++)
		if (i != PMS_CMP_BAD_SI_CODE)
			sum += r->events[i];	/* each <= 2^53: no overflow */
	if (sum > r->signals || (sum != r->signals && have_on_time))
		return fail(err, errlen, -EINVAL, "%s: oracle.classes (on_time to gap) add up to "
			    "%" PRIu64 ", not oracle.signals (%" PRIu64 "): each signal has one "
			    "timing class", file, sum, r->signals);
	/*
	 * Every signal but a spurious one stands for an overflow, and so does
	 * every lost one: together no more than happened (one more under timer
	 * semantics, whose index rounds half up).
	 */
	sum = r->signals - r->events[PMS_CMP_SPURIOUS] + r->lost;
	if (r->final_known && sum > r->overflows + 1)
		return fail(err, errlen, -EINVAL, "%s: %" PRIu64 " overflows signalled or lost "
			    "(oracle.signals less spurious, plus oracle.lost), more than the %"
			    PRIu64 " of oracle.overflows_implied", file, sum, r->overflows);
	return 0;
}

static bool get_u64(json_object *o, const char *path, uint64_t *out);
static bool get_bool(json_object *o, const char *path, bool *out);

static int parse_oracle(json_object *root, const char *file, struct run *r, char *err,
			size_t errlen)
{
	json_object *o, *v;
	uint64_t n;
	bool measured;
	int ret, i;

	if (!lookup(root, "oracle", &o) || !o)
		return 0;	/* skipped, or setup failed: nothing was measured */
	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, -EINVAL, "%s: oracle is not an object", file);
	r->measured = true;
	ret = read_u64(root, "oracle.signals", file, &r->signals, err, errlen);
	if (!ret)
		ret = read_u64(root, "oracle.lost", file, &r->lost, err, errlen);
	if (ret)
		return ret;
	for (i = PMS_CMP_LATE; i < PMS_CMP_NR_RATES; i++) {
		char path[64];

		snprintf(path, sizeof(path), "oracle.classes.%s", rate_names[i]);
		ret = read_u64(root, path, file, &n, err, errlen);
		if (ret)
			return ret;
		r->events[i] = n;
		r->trials[i] = r->signals;
		if (add_u64(&r->anomalies, n))
			return fail(err, errlen, -EINVAL, "%s: oracle.classes add up past 2^64",
				    file);
	}
	/* null when the final count is unknown: then lost has no denominator. */
	if (!lookup(root, "oracle.overflows_implied", &v) || (v && !is_u64(v)))
		return fail(err, errlen, -EINVAL,
			    "%s: oracle.overflows_implied is missing or not null or a non-negative "
			    "integer", file);
	r->final_known = v != NULL;
	if (v) {
		r->overflows = json_object_get_uint64(v);
		ret = check_count(file, "oracle.overflows_implied", r->overflows, err, errlen);
		if (ret)
			return ret;
		r->events[PMS_CMP_LOST] = r->lost;
		r->trials[PMS_CMP_LOST] = r->overflows;
	}
	/*
	 * disable-storm with a control part: what a storm is compared on is
	 * its own loss rate, not one diluted by the control's overflows (a
	 * result without a control is all storm).
	 */
	if (r->final_known && get_bool(root, "disable_storm.control.measured", &measured) &&
	    measured) {
		uint64_t lw, ow;

		if (get_u64(root, "disable_storm.control.lost_with", &lw) &&
		    get_u64(root, "disable_storm.control.overflows_with", &ow) && lw <= ow &&
		    lw <= r->lost && ow <= r->overflows) {
			r->events[PMS_CMP_LOST] = lw;
			r->trials[PMS_CMP_LOST] = ow;
			r->storm_only = true;
		}
	}
	/* A class the semantics do not judge (timer events) must not decide a
	 * regression; results before oracle.judged existed judged everything. */
	for (i = 0; i < PMS_CMP_NR_RATES; i++) {
		char path[64];

		snprintf(path, sizeof(path), "oracle.judged.%s", rate_names[i]);
		r->judged[i] = true;
		if (lookup(root, path, &v)) {
			if (!v || !json_object_is_type(v, json_type_boolean))
				return fail(err, errlen, -EINVAL, "%s: %s is not a boolean", file,
					    path);
			r->judged[i] = json_object_get_boolean(v);
		}
	}
	return oracle_consistent(root, file, r, err, errlen);
}

static int set_add(json_object *set, json_object *v);

/*
 * The sections below came after the first results: each is read when it is
 * there and of the expected shape, and is otherwise unknown ("n/a" in the
 * report), never an error, so that old baselines still compare.
 */

/* A non-negative integer at @path under @o, or false (absent, null, other type). */
static bool get_u64(json_object *o, const char *path, uint64_t *out)
{
	json_object *v;

	if (!lookup(o, path, &v) || !is_u64(v))
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

static bool get_bool(json_object *o, const char *path, bool *out)
{
	json_object *v;

	if (!lookup(o, path, &v) || !v || !json_object_is_type(v, json_type_boolean))
		return false;
	*out = json_object_get_boolean(v);
	return true;
}

static bool is_number(json_object *v)
{
	return v && (json_object_is_type(v, json_type_double) ||
		     json_object_is_type(v, json_type_int));
}

/* What a measured run was exposed to: migrations, toggles, overflows. */
static void run_exposure(json_object *root, struct run *r)
{
	json_object *mover, *v;
	bool enabled;
	size_t i;

	if (!r->measured)
		return;
	if (lookup(root, "mover", &mover) && mover &&
	    json_object_is_type(mover, json_type_object)) {
		/* Before mover.enabled, a mover that ran said how often it rebound. */
		if (!get_bool(mover, "enabled", &enabled))
			enabled = lookup(mover, "rebinds_requested", &v) ||
				  lookup(mover, "requested", &v);
		for (i = 0; i < PMS_ARRAY_SIZE(migration_sources); i++) {
			if (!get_u64(root, migration_sources[i], &r->expo[PMS_CMP_MIGRATIONS].value))
				continue;
			r->expo[PMS_CMP_MIGRATIONS].known = true;
			r->expo[PMS_CMP_MIGRATIONS].driven = enabled;
			r->expo[PMS_CMP_MIGRATIONS].source = migration_sources[i];
			break;
		}
		if (enabled && (get_u64(mover, "rebinds_requested", &r->rebinds) ||
				get_u64(mover, "requested", &r->rebinds)) &&
		    lookup(mover, "seconds", &v) && is_number(v) && json_object_get_double(v) > 0) {
			r->has_rate = true;
			r->mover_seconds = json_object_get_double(v);
		}
	}
	if (get_u64(root, "disable_storm.toggles", &r->expo[PMS_CMP_TOGGLES].value)) {
		r->expo[PMS_CMP_TOGGLES].known = true;
		r->expo[PMS_CMP_TOGGLES].driven = true;
		r->expo[PMS_CMP_TOGGLES].source = "disable_storm.toggles";
	}
	if (r->final_known) {
		r->expo[PMS_CMP_OVERFLOWS].known = true;
		r->expo[PMS_CMP_OVERFLOWS].driven = true;
		r->expo[PMS_CMP_OVERFLOWS].value = r->overflows;
		r->expo[PMS_CMP_OVERFLOWS].source = "oracle.overflows_implied";
	}
}

/* attribution: claimed per cause, unexplained, complete. */
static int run_attrib(json_object *root, struct run *r)
{
	json_object *a, *causes, *name, *prev;
	uint64_t n, sum;
	bool complete;
	size_t i;

	r->attrib = -1;
	if (!lookup(root, "attribution", &a) || !a || !json_object_is_type(a, json_type_object))
		return 0;
	r->attrib = get_bool(a, "complete", &complete) && complete;
	get_u64(a, "unexplained", &r->unexplained);
	r->claimed = json_object_new_object();
	if (!r->claimed)
		return -ENOMEM;
	if (!lookup(a, "causes", &causes) || !causes ||
	    !json_object_is_type(causes, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(causes); i++) {
		json_object *c = json_object_array_get_idx(causes, i);

		if (!lookup(c, "cause", &name) || !name ||
		    !json_object_is_type(name, json_type_string) || !get_u64(c, "claimed", &n))
			continue;
		sum = n;
		if (json_object_object_get_ex(r->claimed, json_object_get_string(name), &prev) &&
		    __builtin_add_overflow(json_object_get_uint64(prev), n, &sum))
			continue;
		if (json_object_object_add(r->claimed, json_object_get_string(name),
					   json_object_new_uint64(sum)))
			return -ENOMEM;
	}
	return 0;
}

/* known_issues: the ids that matched (fit "matches"), not those that merely apply. */
static int run_known(json_object *root, struct run *r)
{
	json_object *k, *fit, *id;
	size_t i;

	if (!lookup(root, "known_issues", &k) || !k || !json_object_is_type(k, json_type_array))
		return 0;
	r->known = json_object_new_array();
	if (!r->known)
		return -ENOMEM;
	for (i = 0; i < json_object_array_length(k); i++) {
		json_object *e = json_object_array_get_idx(k, i);

		if (!lookup(e, "fit", &fit) || !fit || !json_object_is_type(fit, json_type_string) ||
		    strcmp(json_object_get_string(fit), "matches") || !lookup(e, "id", &id) ||
		    !id || !json_object_is_type(id, json_type_string))
			continue;
		if (set_add(r->known, id))
			return -ENOMEM;
	}
	return 0;
}

/*
 * irqchip.gicv3_pseudo_nmi as the command line @cmd gives it: its value,
 * "set" bare, "unset" when absent (the kernel's default is off).
 */
static json_object *cmdline_pseudo_nmi(const char *cmd)
{
	size_t len = strlen(PSEUDO_NMI_PARAM), n;
	const char *p = cmd;

	while ((p = strstr(p, PSEUDO_NMI_PARAM))) {
		if ((p == cmd || p[-1] == ' ') && (p[len] == '=' || p[len] == ' ' || !p[len])) {
			if (p[len] != '=')
				return json_object_new_string("set");
			p += len + 1;
			n = strcspn(p, " ");
			return json_object_new_string_len(p, (int)n);
		}
		p += len;
	}
	return json_object_new_string("unset");
}

static int cond_add(struct run *r, enum cond c, json_object *v)
{
	if (json_object_object_add(r->cond, cond_names[c], v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

/* The named conditions of one run (cond_names); JSON null where unknown. */
static int run_cond(json_object *root, struct run *r)
{
	json_object *v, *cmd = NULL, *pnmi = NULL;
	uint64_t before, after;
	int ret;

	r->cond = json_object_new_object();
	if (!r->cond)
		return -ENOMEM;
	lookup(root, "host.sysctl.perf_event_max_sample_rate", &v);
	ret = cond_add(r, COND_MAX_SAMPLE_RATE, json_object_get(v));
	lookup(root, "sysctl_during_run.perf_event_max_sample_rate_before", &v);
	ret |= cond_add(r, COND_RATE_BEFORE, json_object_get(v));
	lookup(root, "sysctl_during_run.perf_event_max_sample_rate_after", &v);
	ret |= cond_add(r, COND_RATE_AFTER, json_object_get(v));
	/* The kernel lowers the ceiling itself when perf interrupts run long. */
	v = NULL;
	if (get_u64(root, "sysctl_during_run.perf_event_max_sample_rate_before", &before) &&
	    get_u64(root, "sysctl_during_run.perf_event_max_sample_rate_after", &after))
		v = json_object_new_boolean(after < before);
	ret |= cond_add(r, COND_THROTTLED, v);
	lookup(root, "host.cpu.model", &v);
	ret |= cond_add(r, COND_CPU_MODEL, json_object_get(v));
	lookup(root, "host.emulation.vhe", &v);
	ret |= cond_add(r, COND_VHE, json_object_get(v));

	/* host.cmdline.raw (the probe's), else what the QEMU harness booted with. */
	if (!lookup(root, "host.cmdline.raw", &cmd) || !cmd ||
	    !json_object_is_type(cmd, json_type_string))
		if (!lookup(root, "host.emulation.kernel_cmdline", &cmd) || !cmd ||
		    !json_object_is_type(cmd, json_type_string))
			cmd = NULL;
	lookup(root, "host.cmdline", &v);
	if (v && json_object_object_get_ex(v, PSEUDO_NMI_PARAM, &v) && v)
		pnmi = json_object_get(v);
	else if (cmd)
		pnmi = cmdline_pseudo_nmi(json_object_get_string(cmd));
	ret |= cond_add(r, COND_PSEUDO_NMI, pnmi);
	ret |= cond_add(r, COND_CMDLINE, json_object_get(cmd));
	lookup(root, "trace.used", &v);
	ret |= cond_add(r, COND_TRACE_USED, json_object_get(v));
	return ret ? -ENOMEM : 0;
}

/* The options compared by value: all but the key's and opts_ignored. */
static int run_opts(json_object *root, struct run *r)
{
	json_object *o;
	char name[160];
	size_t i;

	r->opts = json_object_new_object();
	if (!r->opts)
		return -ENOMEM;
	if (!lookup(root, "options", &o) || !o || !json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, k, v) {
		bool skip = false;

		snprintf(name, sizeof(name), "options.%s", k);
		for (i = 0; i < PMS_ARRAY_SIZE(opts_ignored) && !skip; i++)
			skip = !strcmp(k, opts_ignored[i]);
		for (i = 0; i < PMS_ARRAY_SIZE(key_fields) && !skip; i++)
			skip = !strcmp(name, key_fields[i]);
		if (skip)
			continue;
		if (json_object_object_add(r->opts, name, json_object_get(v)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A run SIGINT or SIGTERM ended before its duration counted what it saw:
 * its result is partial, which the report must say.  Exit status 130 says
 * so too, where a hand-made result lacks the flag.
 */
static int run_interrupted(json_object *root, const char *file, struct run *r, char *err,
			   size_t errlen)
{
	json_object *v;

	if (lookup(root, "interrupted", &v) && v) {
		if (!json_object_is_type(v, json_type_boolean))
			return fail(err, errlen, -EINVAL, "%s: interrupted is not a boolean", file);
		r->interrupted = json_object_get_boolean(v);
	}
	if (lookup(root, "exit_code", &v) && v && json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) == 130)
		r->interrupted = true;
	return 0;
}

static int parse_run(json_object *root, const char *file, struct run *r, char *err,
		     size_t errlen)
{
	json_object *v;
	const char *s;
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	lookup(root, "schema_version", &v);
	if (!v || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < PMS_CMP_SCHEMA_OLDEST ||
	    json_object_get_int64(v) > PMS_CMP_SCHEMA_VERSION)
		return fail(err, errlen, -EINVAL,
			    "%s: unsupported schema_version %s (this pmustress reads %d to %d)",
			    file, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    PMS_CMP_SCHEMA_OLDEST, PMS_CMP_SCHEMA_VERSION);
	lookup(root, "scenario", &v);
	if (!v || !json_object_is_type(v, json_type_string))
		return fail(err, errlen, -EINVAL, "%s: scenario is not a string", file);
	lookup(root, "verdict", &v);
	s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
	for (i = 0; i < PMS_CMP_NR_VERDICTS; i++)
		if (!strcmp(s, verdict_names[i]))
			break;
	if (i == PMS_CMP_NR_VERDICTS)
		return fail(err, errlen, -EINVAL,
			    "%s: verdict is missing or not one of pass, fail, skip, error, "
			    "environment", file);
	r->verdict = (enum pms_cmp_verdict)i;
	ret = run_interrupted(root, file, r, err, errlen);
	if (ret)
		return ret;

	r->key = json_object_new_object();
	r->env = json_object_new_object();
	if (!r->key || !r->env)
		goto nomem;
	for (i = 0; i < PMS_ARRAY_SIZE(key_fields); i++) {
		lookup(root, key_fields[i], &v);
		if (!v && (v = key_default(root, key_fields[i]))) {
			if (json_object_object_add(r->key, key_fields[i], v))
				goto nomem;
			continue;
		}
		if (json_object_object_add(r->key, key_fields[i], json_object_get(v)))
			goto nomem;
	}
	if (run_env(root, r->env) || run_abi(root, r))
		goto nomem;
	ret = parse_oracle(root, file, r, err, errlen);
	if (ret) {
		run_free(r);
		return ret;
	}
	run_exposure(root, r);
	if (run_attrib(root, r) || run_known(root, r) || run_cond(root, r) || run_opts(root, r))
		goto nomem;
	return 0;
nomem:
	run_free(r);
	return fail(err, errlen, -ENOMEM, "%s: out of memory", file);
}

/* ---- merging runs into groups */

static const char *canon(json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
}

static int canon_cmp(const void *a, const void *b)
{
	return strcmp(canon(*(json_object *const *)a), canon(*(json_object *const *)b));
}

static bool set_has(json_object *set, json_object *v)
{
	size_t i;

	for (i = 0; i < json_object_array_length(set); i++)
		if (json_object_equal(json_object_array_get_idx(set, i), v))
			return true;
	return false;
}

/* Sorted, so that two sets print the same whatever order the runs came in. */
static int set_add(json_object *set, json_object *v)
{
	if (set_has(set, v))
		return 0;
	if (json_object_array_add(set, json_object_get(v))) {
		json_object_put(v);
		return -ENOMEM;
	}
	json_object_array_sort(set, canon_cmp);
	return 0;
}

static bool set_equal(json_object *a, json_object *b)
{
	size_t i;

	if (json_object_array_length(a) != json_object_array_length(b))
		return false;
	for (i = 0; i < json_object_array_length(a); i++)
		if (!set_has(b, json_object_array_get_idx(a, i)))
			return false;
	return true;
}

/* Merge one run's field -> value map into @map (field -> set of values). */
static int map_merge(json_object *map, json_object *vals, size_t runs)
{
	json_object *set, *v;

	/* A field this run has that earlier runs lacked: they had null. */
	json_object_object_foreach(vals, field, val) {
		if (!json_object_object_get_ex(map, field, &set)) {
			set = json_object_new_array();
			if (!set || json_object_object_add(map, field, set))
				return -ENOMEM;
			if (runs && set_add(set, NULL))
				return -ENOMEM;
		}
		if (set_add(set, val))
			return -ENOMEM;
	}
	/* And the reverse: a field earlier runs had and this one lacks. */
	json_object_object_foreach(map, gfield, gset) {
		if (!json_object_object_get_ex(vals, gfield, &v) && set_add(gset, NULL))
			return -ENOMEM;
	}
	return 0;
}

static int env_merge(struct pms_cmp_group *g, json_object *env)
{
	return map_merge(g->env, env, g->runs);
}

/* A run's exposures into its group's; -EOVERFLOW when a sum overflows. */
static int group_add_exposure(struct pms_cmp_group *g, const struct run *r)
{
	json_object *src;
	int u, ret = 0;

	for (u = 0; u < PMS_CMP_NR_UNITS; u++) {
		struct pms_cmp_exposure *e = &g->expo[u];

		if (!r->expo[u].known)
			continue;
		src = json_object_new_string(r->expo[u].source);
		if (!e->sources && !(e->sources = json_object_new_array()))
			ret = -ENOMEM;
		if (!src || !e->sources || set_add(e->sources, src))
			ret = -ENOMEM;
		json_object_put(src);
		if (ret)
			return ret;
		e->runs++;
		e->runs_driven += r->expo[u].driven;
		ret |= add_u64(&e->value, r->expo[u].value);
		ret |= add_u64(&e->lost, r->lost);
		ret |= add_u64(&e->anomalies, r->anomalies);
		if (r->final_known) {
			ret |= add_u64(&e->ovf_value, r->expo[u].value);
			ret |= add_u64(&e->ovf, r->overflows);
		}
	}
	return ret ? -EOVERFLOW : 0;
}

/* Mover rate, attribution and known issues of a run into its group. */
static int group_add_context(struct pms_cmp_group *g, const struct run *r)
{
	json_object *prev;
	uint64_t sum;
	size_t i;

	if (r->has_rate) {
		if (add_u64(&g->rebinds, r->rebinds))
			return -EOVERFLOW;
		g->mover_seconds += r->mover_seconds;
		g->runs_rate++;
	}
	if (r->attrib >= 0) {
		if (!g->claimed && !(g->claimed = json_object_new_object()))
			return -ENOMEM;
		g->runs_attrib++;
		g->runs_attrib_complete += r->attrib;
		if (add_u64(&g->unexplained, r->unexplained))
			return -EOVERFLOW;
		json_object_object_foreach(r->claimed, cause, n) {
			sum = json_object_get_uint64(n);
			if (json_object_object_get_ex(g->claimed, cause, &prev) &&
			    __builtin_add_overflow(sum, json_object_get_uint64(prev), &sum))
				return -EOVERFLOW;
			if (json_object_object_add(g->claimed, cause, json_object_new_uint64(sum)))
				return -ENOMEM;
		}
	}
	if (r->known) {
		if (!g->known && !(g->known = json_object_new_array()))
			return -ENOMEM;
		g->runs_known++;
		for (i = 0; i < json_object_array_length(r->known); i++)
			if (set_add(g->known, json_object_array_get_idx(r->known, i)))
				return -ENOMEM;
	}
	return 0;
}

static int group_add(struct pms_cmp_group *g, struct run *r, const char *file)
{
	int ret = 0, i, e;

	if (json_object_array_add(g->files, json_object_new_string(file)))
		return -ENOMEM;
	ret = env_merge(g, r->env);
	if (ret)
		return ret;
	if (r->abi) {
		if (!g->abi && !(g->abi = json_object_new_object()))
			return -ENOMEM;
		ret = map_merge(g->abi, r->abi, g->runs_abi++);
		if (ret)
			return ret;
	}
	ret = map_merge(g->cond, r->cond, g->runs);
	if (!ret)
		ret = map_merge(g->opts, r->opts, g->runs);
	if (!ret)
		ret = group_add_context(g, r);
	if (ret)
		return ret;
	g->verdicts[r->verdict]++;
	g->runs_interrupted += r->interrupted;
	g->runs_storm_only += r->storm_only;
	if (r->measured) {
		for (i = 0; i < PMS_CMP_NR_RATES; i++) {
			g->judged[i] = g->runs_measured ? g->judged[i] && r->judged[i] :
					r->judged[i];
			ret |= add_u64(&g->events[i], r->events[i]);
			ret |= add_u64(&g->trials[i], r->trials[i]);
		}
		ret |= add_u64(&g->signals, r->signals);
		ret |= add_u64(&g->lost, r->lost);
		ret |= add_u64(&g->overflows, r->overflows);
		ret |= add_u64(&g->anomalies, r->anomalies);
		e = group_add_exposure(g, r);
		if (e == -ENOMEM)
			return e;
		ret |= e;
		g->runs_measured++;
		if (!r->final_known)
			g->runs_no_final++;
	}
	g->runs++;
	return ret ? -EOVERFLOW : 0;
}

static int side_add(struct pms_cmp_side *side, struct run *r, const char *file, char *err,
		    size_t errlen)
{
	struct pms_cmp_group *g = NULL, *grown;
	size_t i;
	int ret;

	for (i = 0; i < side->nr_groups && !g; i++)
		if (json_object_equal(side->groups[i].key, r->key))
			g = &side->groups[i];
	if (!g) {
		grown = realloc(side->groups, (side->nr_groups + 1) * sizeof(*grown));
		if (!grown)
			return fail(err, errlen, -ENOMEM, "%s: out of memory", file);
		side->groups = grown;
		g = &side->groups[side->nr_groups];
		memset(g, 0, sizeof(*g));
		g->files = json_object_new_array();
		g->env = json_object_new_object();
		g->cond = json_object_new_object();
		g->opts = json_object_new_object();
		if (!g->files || !g->env || !g->cond || !g->opts) {
			json_object_put(g->files);
			json_object_put(g->env);
			json_object_put(g->cond);
			json_object_put(g->opts);
			return fail(err, errlen, -ENOMEM, "%s: out of memory", file);
		}
		g->key = json_object_get(r->key);
		side->nr_groups++;
	}
	ret = group_add(g, r, file);
	if (ret == -EOVERFLOW)
		return fail(err, errlen, ret, "%s: counts too large to add to the other runs of %s",
			    file, canon(g->key));
	if (ret)
		return fail(err, errlen, ret, "%s: out of memory", file);
	return 0;
}

static int load_file(struct pms_cmp_side *side, const char *path, bool named, char *err,
		     size_t errlen)
{
	json_object *root, *v;
	struct run r;
	int ret;

	root = pms_json_read_file(path, err, errlen);
	if (!root) {
		ret = errno ? -errno : -EINVAL;
		if (ret == -ENOMEM)
			fail(err, errlen, ret, "%s: out of memory", path);
		return ret;
	}
	if (!lookup(root, "schema_version", &v) || !lookup(root, "scenario", &v)) {
		json_object_put(root);
		/* A directory of results may hold other JSON (the schema, say). */
		if (!named) {
			side->nr_ignored++;
			return 0;
		}
		return fail(err, errlen, -EINVAL, "%s: not a pmustress result (no schema_version "
			    "and scenario at the top level)", path);
	}
	ret = parse_run(root, path, &r, err, errlen);
	if (!ret) {
		ret = side_add(side, &r, path, err, errlen);
		run_free(&r);
	}
	json_object_put(root);
	if (!ret) {
		side->nr_results++;
		side->nr_interrupted += r.interrupted;
	}
	return ret;
}

static bool json_name(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && !strcmp(name + len - 5, ".json");
}

/*
 * A *.json symlink in a directory: a result when it leads to a regular file.
 * One leading to a FIFO or a device would block or never end a directory
 * scan, so it is an error, as a dangling one is.
 */
static int load_link(struct pms_cmp_side *side, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st))
		return fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, -EINVAL, "%s: leads to a %s, not a result file (in a "
			    "directory only regular files are read)", path,
			    S_ISFIFO(st.st_mode) ? "FIFO" : S_ISSOCK(st.st_mode) ? "socket" :
			    "device");
	return load_file(side, path, false, err, errlen);
}

static int load_dir(struct pms_cmp_side *side, const char *dir, char *err, size_t errlen)
{
	struct dirent **names;
	struct stat st;
	char *path;
	int n, i, ret = 0;

	/* Sorted, so that merged files and unpaired groups come in a stable order. */
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return fail(err, errlen, -errno, "%s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (ret || !strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (asprintf(&path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/",
			     name) < 0) {
			ret = fail(err, errlen, -ENOMEM, "%s: out of memory", dir);
			continue;
		}
		/* lstat: a symlink to a directory is not followed, so no loops. */
		if (lstat(path, &st))
			ret = fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			ret = load_dir(side, path, err, errlen);
		else if (S_ISLNK(st.st_mode) && json_name(name))
			ret = load_link(side, path, err, errlen);
		else if (S_ISREG(st.st_mode) && json_name(name))
			ret = load_file(side, path, false, err, errlen);
		free(path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int pms_cmp_load(const char *path, struct pms_cmp_side *side, char *err, size_t errlen)
{
	struct stat st;

	memset(side, 0, sizeof(*side));
	side->path = strdup(path);
	if (!side->path)
		return fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	if (stat(path, &st))
		return fail(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return load_dir(side, path, err, errlen);
	return load_file(side, path, true, err, errlen);
}

void pms_cmp_side_free(struct pms_cmp_side *side)
{
	size_t i;
	int u;

	for (i = 0; i < side->nr_groups; i++) {
		json_object_put(side->groups[i].key);
		json_object_put(side->groups[i].files);
		json_object_put(side->groups[i].env);
		json_object_put(side->groups[i].abi);
		json_object_put(side->groups[i].claimed);
		json_object_put(side->groups[i].known);
		json_object_put(side->groups[i].cond);
		json_object_put(side->groups[i].opts);
		for (u = 0; u < PMS_CMP_NR_UNITS; u++)
			json_object_put(side->groups[i].expo[u].sources);
	}
	free(side->groups);
	free(side->path);
	memset(side, 0, sizeof(*side));
}

/* ---- the report */

/*
 * JSON building: *oom latches any allocation failure so that each builder
 * checks once.  @v NULL is JSON null when @want is false, else a failed
 * allocation.
 */
static void put(json_object *o, const char *k, json_object *v, bool want, bool *oom)
{
	if (!o || (want && !v) || json_object_object_add(o, k, v)) {
		json_object_put(v);
		*oom = true;
	}
}

static void push(json_object *arr, json_object *v, bool *oom)
{
	if (!arr || !v || json_object_array_add(arr, v)) {
		json_object_put(v);
		*oom = true;
	}
}

/* json-c asserts on the length of NULL, which a failed allocation leaves. */
static size_t arr_len(json_object *arr)
{
	return arr ? json_object_array_length(arr) : 0;
}

/* The one value every merged run agreed on, else the set of them. */
static json_object *env_value(json_object *set)
{
	if (json_object_array_length(set) == 1)
		return json_object_get(json_object_array_get_idx(set, 0));
	return json_object_get(set);
}

/* A field's set of values in a group; a field the group never saw was null. */
static json_object *group_env(const struct pms_cmp_group *g, const char *field,
			      json_object *null_set)
{
	json_object *set;

	if (json_object_object_get_ex(g->env, field, &set) && set)
		return set;
	return null_set;
}

static enum pms_cmp_verdict group_verdict(const struct pms_cmp_group *g)
{
	int i;

	for (i = PMS_CMP_NR_VERDICTS - 1; i > 0; i--)
		if (g->verdicts[i])
			break;
	return (enum pms_cmp_verdict)i;
}

static json_object *group_json(const struct pms_cmp_group *g, bool with_key,
			       json_object *null_set, bool *oom)
{
	json_object *o = json_object_new_object(), *verdicts, *counts;
	bool final = g->runs_measured > g->runs_no_final;
	int i;

	verdicts = json_object_new_object();
	for (i = 0; i < PMS_CMP_NR_VERDICTS; i++) {
		if (!g->verdicts[i])
			continue;
		put(verdicts, verdict_names[i], json_object_new_uint64(g->verdicts[i]), true, oom);
	}
	counts = json_object_new_object();
	put(counts, "runs_measured", json_object_new_uint64(g->runs_measured), true, oom);
	put(counts, "signals", json_object_new_uint64(g->signals), true, oom);
	put(counts, "overflows_implied", final ? json_object_new_uint64(g->overflows) : NULL,
	    final, oom);
	put(counts, "runs_without_final_count", json_object_new_uint64(g->runs_no_final), true,
	    oom);
	put(counts, "lost", json_object_new_uint64(g->lost), true, oom);
	for (i = PMS_CMP_LATE; i < PMS_CMP_NR_RATES; i++)
		put(counts, rate_names[i], json_object_new_uint64(g->events[i]), true, oom);
	put(counts, "anomalies", json_object_new_uint64(g->anomalies), true, oom);
	/* What the runs were exposed to, where known (see the pair's exposure). */
	for (i = 0; i < PMS_CMP_NR_UNITS; i++)
		put(counts, unit_names[i], g->expo[i].runs ?
		    json_object_new_uint64(g->expo[i].value) : NULL, false, oom);

	if (with_key)
		put(o, "key", json_object_get(g->key), true, oom);
	put(o, "files", json_object_get(g->files), true, oom);
	put(o, "runs", json_object_new_uint64(g->runs), true, oom);
	put(o, "runs_interrupted", json_object_new_uint64(g->runs_interrupted), true, oom);
	put(o, "kernel", env_value(group_env(g, "host.kernel.release", null_set)), false, oom);
	put(o, "verdict", json_object_new_string(verdict_names[group_verdict(g)]), true, oom);
	put(o, "verdicts", verdicts, true, oom);
	put(o, "counts", counts, true, oom);
	return o;
}

/*
 * The shortest text that reads back as the same double: json-c's default
 * "%.17g" turns a rate of 0.004 into 0.0040000000000000001.  Only finite
 * values come here.
 */
static json_object *new_double(double v)
{
	char buf[32];
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*g", prec, v);
	/* Still a double to a typed reader: 0.0, not 0. */
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
	return json_object_new_double_s(v, buf);
}

static double rate_of(uint64_t k, uint64_t n)
{
	return (double)k / (double)n;
}

/* Sign of k1/n1 - k2/n2, exactly (n1, n2 > 0). */
static int rate_cmp(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
	unsigned __int128 l = (unsigned __int128)k1 * n2, r = (unsigned __int128)k2 * n1;

	return l < r ? -1 : l > r;
}

/* One rate of a pair; *dir is +1 when it rose significantly, -1 fell, 0 neither. */
static json_object *rate_json(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
			      enum pms_cmp_rate r, double alpha, int *dir, double *pp, bool *oom)
{
	uint64_t k1 = g->events[r], n1 = g->trials[r], k2 = h->events[r], n2 = h->trials[r];
	json_object *o = json_object_new_object();
	double p = NAN;

	/* No trials on a side, or counts that are not a proportion: no test. */
	if (n1 && n2 && k1 <= n1 && k2 <= n2)
		p = pms_fisher_exact(k1, n1 - k1, k2, n2 - k2);
	*dir = !isnan(p) && p < alpha ? rate_cmp(k2, n2, k1, n1) : 0;
	*pp = p;
	put(o, "old", n1 ? new_double(rate_of(k1, n1)) : NULL, n1, oom);
	put(o, "new", n2 ? new_double(rate_of(k2, n2)) : NULL, n2, oom);
	put(o, "p", isnan(p) ? NULL : new_double(p), !isnan(p), oom);
	put(o, "old_events", json_object_new_uint64(k1), true, oom);
	put(o, "old_trials", json_object_new_uint64(n1), true, oom);
	put(o, "new_events", json_object_new_uint64(k2), true, oom);
	put(o, "new_trials", json_object_new_uint64(n2), true, oom);
	put(o, "judged", json_object_new_boolean(g->judged[r] && h->judged[r]), true, oom);
	put(o, "change", json_object_new_string(*dir > 0 ? "rose" : *dir < 0 ? "fell" : "same"),
	    true, oom);
	return o;
}

static json_object *differences(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
				json_object *null_set, bool *oom)
{
	json_object *diffs = json_object_new_array(), *a, *b, *d, *unused;
	int pass;

	/* Fields of the old side in order, then those only the new side has. */
	for (pass = 0; pass < 2; pass++) {
		json_object_object_foreach(pass ? h->env : g->env, field, val) {
			(void)val;
			if (pass && json_object_object_get_ex(g->env, field, &unused))
				continue;
			a = group_env(g, field, null_set);
			b = group_env(h, field, null_set);
			if (set_equal(a, b))
				continue;
			d = json_object_new_object();
			put(d, "field", json_object_new_string(field), true, oom);
			put(d, "old", env_value(a), false, oom);
			put(d, "new", env_value(b), false, oom);
			push(diffs, d, oom);
		}
	}
	/* Options both sides recorded, by parsed value: argv's spelling never counts. */
	json_object_object_foreach(g->opts, opt, gset) {
		json_object *hset;

		if (!json_object_object_get_ex(h->opts, opt, &hset) || set_equal(gset, hset))
			continue;
		d = json_object_new_object();
		put(d, "field", json_object_new_string(opt), true, oom);
		put(d, "old", env_value(gset), false, oom);
		put(d, "new", env_value(hset), false, oom);
		push(diffs, d, oom);
	}
	return diffs;
}

static const char *fmt_rate(char *buf, size_t len, uint64_t k, uint64_t n)
{
	if (!n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", rate_of(k, n));
	return buf;
}

static void why_add(json_object *why, bool *oom, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void why_add(json_object *why, bool *oom, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	push(why, json_object_new_string(buf), oom);
}

/* ---- rates against exposure */

static const char *set_text(json_object *set);

/* What a pair's exposures say about crediting an improvement. */
struct expo_verdict {
	bool less;		/* NEW exposed > PMS_CMP_EXPOSURE_FACTOR times less (driven) */
	bool fell;		/* ... but a decisive rate per that exposure fell */
	char why[160];		/* "0.1x the migrations per overflow of OLD" */
};

/* "1.35e+05" reads worse than "135227": counts print whole. */
static const char *fmt_count(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* Three significant digits, but whole numbers from 1000 up (4775, not 4.77e+03). */
static const char *fmt_g(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1000 && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

static void fmt_p_text(char *buf, size_t len, double p)
{
	if (p < 1e-300)
		snprintf(buf, len, "p < 1e-300");
	else
		snprintf(buf, len, "p = %.2g", p);
}

/*
 * Losses or anomalies per PMS_CMP_PER of one exposure, old against new, with
 * the conditional Poisson test; *dir as in rate_json().  A side without the
 * exposure has null events and rate; an exposure of 0 has a null rate.
 */
static json_object *per_exposure_json(const struct pms_cmp_exposure *e,
				      const struct pms_cmp_exposure *f, uint64_t k1,
				      uint64_t k2, bool judged, bool decides, double alpha,
				      int *dir, double *pp, bool *oom)
{
	json_object *o = json_object_new_object();
	bool have = e->runs && f->runs;
	double p = NAN;

	if (have)
		p = pms_poisson_rate_test(k1, e->value, k2, f->value);
	*dir = !isnan(p) && p < alpha ? rate_cmp(k2, f->value, k1, e->value) : 0;
	*pp = p;
	put(o, "old", e->runs && e->value ? new_double(PMS_CMP_PER * rate_of(k1, e->value)) :
	    NULL, e->runs && e->value, oom);
	put(o, "new", f->runs && f->value ? new_double(PMS_CMP_PER * rate_of(k2, f->value)) :
	    NULL, f->runs && f->value, oom);
	put(o, "p", isnan(p) ? NULL : new_double(p), !isnan(p), oom);
	put(o, "old_events", e->runs ? json_object_new_uint64(k1) : NULL, e->runs, oom);
	put(o, "old_exposure", e->runs ? json_object_new_uint64(e->value) : NULL, e->runs, oom);
	put(o, "new_events", f->runs ? json_object_new_uint64(k2) : NULL, f->runs, oom);
	put(o, "new_exposure", f->runs ? json_object_new_uint64(f->value) : NULL, f->runs, oom);
	put(o, "judged", json_object_new_boolean(judged), true, oom);
	put(o, "decides", json_object_new_boolean(decides), true, oom);
	put(o, "change", json_object_new_string(*dir > 0 ? "rose" : *dir < 0 ? "fell" : "same"),
	    true, oom);
	return o;
}

/* new / old, or NaN without both. */
static double ratio_of(double old, double new)
{
	return old > 0 ? new / old : NAN;
}

static bool beyond_factor(double r)
{
	return !isnan(r) && (r > PMS_CMP_EXPOSURE_FACTOR || r < 1.0 / PMS_CMP_EXPOSURE_FACTOR);
}

/*
 * One exposure of a pair: its totals, its intensity per overflow, whether
 * they differ beyond PMS_CMP_EXPOSURE_FACTOR (a note says so), and lost and
 * anomalies per PMS_CMP_PER of it.  Migrations and toggles the runs applied
 * on purpose on both sides decide (into @worse and @better); overflows are
 * shown for reference, Fisher's test of the lost rate decides for them.
 */
static json_object *unit_json(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
			      enum pms_cmp_unit u, double alpha, json_object *worse,
			      json_object *better, json_object *notes, struct expo_verdict *ev,
			      bool *oom)
{
	const struct pms_cmp_exposure *e = &g->expo[u], *f = &h->expo[u];
	json_object *o = json_object_new_object(), *r;
	bool driven = e->runs && f->runs && e->runs_driven == e->runs &&
		      f->runs_driven == f->runs;
	bool intensity = u != PMS_CMP_OVERFLOWS;
	bool judged_anom = true, decides, differs, same_source;
	double ratio = NAN, ri = NAN, io = NAN, in = NAN, p;
	char a[32], b[32], c[32], d[32], ps[32];
	int i, dir, which;

	for (i = PMS_CMP_LATE; i < PMS_CMP_NR_RATES; i++)
		judged_anom &= g->judged[i] && h->judged[i];
	/*
	 * The scheduler's migrations, the perf counter's (which folds moves
	 * between two schedule-ins) and the mover's requests are different
	 * measures: a rate per one against a rate per another decides nothing.
	 */
	same_source = e->sources && f->sources && json_object_array_length(e->sources) == 1 &&
		      set_equal(e->sources, f->sources);
	if (driven && !same_source)
		why_add(notes, oom, "%s read from %s on OLD and %s on NEW: the rates per 10^6 %s "
			"are shown, not decisive", unit_names[u], set_text(e->sources),
			set_text(f->sources), unit_names[u]);
	if (e->runs && f->runs)
		ratio = ratio_of((double)e->value, (double)f->value);
	if (intensity && e->ovf)
		io = (double)e->ovf_value / (double)e->ovf;
	if (intensity && f->ovf)
		in = (double)f->ovf_value / (double)f->ovf;
	ri = ratio_of(io, in);
	/* Exposure on one side only (a mover that never moved the thread) differs too. */
	differs = (u == PMS_CMP_OVERFLOWS || driven) && e->runs && f->runs &&
		  (beyond_factor(ratio) || beyond_factor(ri) || (!e->value != !f->value));

	put(o, "old", e->runs ? json_object_new_uint64(e->value) : NULL, e->runs, oom);
	put(o, "new", f->runs ? json_object_new_uint64(f->value) : NULL, f->runs, oom);
	put(o, "old_source", e->sources ? env_value(e->sources) : NULL, false, oom);
	put(o, "new_source", f->sources ? env_value(f->sources) : NULL, false, oom);
	put(o, "driven", json_object_new_boolean(driven), true, oom);
	put(o, "ratio", isnan(ratio) ? NULL : new_double(ratio), !isnan(ratio), oom);
	if (intensity) {
		put(o, "old_per_overflow", isnan(io) ? NULL : new_double(io), !isnan(io), oom);
		put(o, "new_per_overflow", isnan(in) ? NULL : new_double(in), !isnan(in), oom);
	}
	put(o, "differs", json_object_new_boolean(differs), true, oom);

	for (which = 0; which < 2; which++) {
		const char *what = which ? "anomalies" : "lost";
		bool judged = which ? judged_anom : g->judged[PMS_CMP_LOST] &&
						     h->judged[PMS_CMP_LOST];
		uint64_t k1 = which ? e->anomalies : e->lost, k2 = which ? f->anomalies : f->lost;

		decides = driven && intensity && judged && same_source;
		r = per_exposure_json(e, f, k1, k2, judged, decides, alpha, &dir, &p, oom);
		put(o, what, r, true, oom);
		if (!decides || !dir)
			continue;
		fmt_p_text(ps, sizeof(ps), p);
		why_add(dir > 0 ? worse : better, oom,
			"%s per 10^6 %s %s %s -> %s (%" PRIu64 " in %" PRIu64 " -> %" PRIu64
			" in %" PRIu64 "), %s", what, unit_names[u], dir > 0 ? "rose" : "fell",
			fmt_g(a, sizeof(a), PMS_CMP_PER * rate_of(k1, e->value)),
			fmt_g(b, sizeof(b), PMS_CMP_PER * rate_of(k2, f->value)), k1, e->value,
			k2, f->value, ps);
		if (dir < 0)
			ev->fell = true;
	}

	if (!differs)
		return o;
	/* NEW exposed less per overflow (or, without overflows, in all). */
	if (intensity && !ev->less && (isnan(ri) ? ratio : ri) < 1.0 / PMS_CMP_EXPOSURE_FACTOR) {
		ev->less = true;
		if (!f->value)
			snprintf(ev->why, sizeof(ev->why), "no %s", unit_names[u]);
		else
			snprintf(ev->why, sizeof(ev->why), "%.3gx the %s%s of OLD",
				 isnan(ri) ? ratio : ri, unit_names[u],
				 isnan(ri) ? "" : " per overflow");
	}
	if (u == PMS_CMP_OVERFLOWS) {
		why_add(notes, oom, "overflows differ more than %gx: %s -> %s (%sx): the runs differ "
			"in length or pace; the rates per overflow and per signal weigh this",
			PMS_CMP_EXPOSURE_FACTOR, fmt_count(a, sizeof(a), e->value),
			fmt_count(b, sizeof(b), f->value), fmt_g(c, sizeof(c), ratio));
		return o;
	}
	if (isnan(io) || isnan(in))
		snprintf(d, sizeof(d), "n/a");
	else
		snprintf(d, sizeof(d), "%.3g -> %.3g", io, in);
	/* Totals apart but not per overflow: runs of different length, comparable. */
	if (!isnan(ri) && !beyond_factor(ri) && !e->value == !f->value) {
		why_add(notes, oom, "%s differ more than %gx in all, %s -> %s (%sx), but not per "
			"overflow (%s): the runs differ in length, and their rates compare",
			unit_names[u], PMS_CMP_EXPOSURE_FACTOR, fmt_count(a, sizeof(a), e->value),
			fmt_count(b, sizeof(b), f->value), fmt_g(c, sizeof(c), ratio), d);
		return o;
	}
	why_add(notes, oom, "%s differ more than %gx: %s -> %s (%sx; per overflow %s): NEW was "
		"exposed %s, so its rates per signal and per overflow do not compare like with "
		"like; read the rates per 10^6 %s", unit_names[u], PMS_CMP_EXPOSURE_FACTOR,
		fmt_count(a, sizeof(a), e->value), fmt_count(b, sizeof(b), f->value),
		isnan(ratio) ? "n/a" : fmt_g(c, sizeof(c), ratio), d,
		(isnan(ri) ? ratio : ri) < 1.0 ? "less" : "more", unit_names[u]);
	return o;
}

static json_object *exposure_json(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
				  double alpha, json_object *worse, json_object *better,
				  json_object *notes, struct expo_verdict *ev, bool *oom)
{
	json_object *o = json_object_new_object();
	int u;

	for (u = 0; u < PMS_CMP_NR_UNITS; u++)
		put(o, unit_names[u], unit_json(g, h, (enum pms_cmp_unit)u, alpha, worse, better,
						notes, ev, oom), true, oom);
	return o;
}

/* ---- causes and known issues side by side */

/* The cause claimed most (first in order on a tie, as lib/attrib.c), or NULL. */
static const char *dominant(json_object *claimed)
{
	const char *best = NULL;
	uint64_t most = 0;

	json_object_object_foreach(claimed, cause, n) {
		if (json_object_get_uint64(n) > most) {
			most = json_object_get_uint64(n);
			best = cause;
		}
	}
	return best;
}

static json_object *attrib_side(const struct pms_cmp_group *g, bool *oom)
{
	json_object *o;
	const char *dom;
	uint64_t claimed = 0;
	size_t of = g->runs_measured > g->runs_attrib ? g->runs_measured : g->runs_attrib;

	if (!g->runs_attrib)
		return NULL;
	o = json_object_new_object();
	json_object_object_foreach(g->claimed, cause, n) {
		(void)cause;
		claimed += json_object_get_uint64(n);
	}
	dom = dominant(g->claimed);
	put(o, "runs", json_object_new_uint64(g->runs_attrib), true, oom);
	put(o, "of_runs", json_object_new_uint64(of), true, oom);
	/* Complete only when every run was attributed and every attribution complete. */
	put(o, "complete", json_object_new_boolean(g->runs_attrib == of &&
						   g->runs_attrib_complete == g->runs_attrib),
	    true, oom);
	put(o, "claimed", json_object_new_uint64(claimed), true, oom);
	put(o, "unexplained", json_object_new_uint64(g->unexplained), true, oom);
	put(o, "dominant", dom ? json_object_new_string(dom) : NULL, dom, oom);
	return o;
}

/* Claimed per cause: old's causes in order, then any only new has. */
static json_object *attribution_json(const struct pms_cmp_group *g,
				     const struct pms_cmp_group *h, bool *oom)
{
	json_object *o = json_object_new_object(), *causes = json_object_new_array(), *c, *v;
	int pass;

	put(o, "old", attrib_side(g, oom), false, oom);
	put(o, "new", attrib_side(h, oom), false, oom);
	for (pass = 0; pass < 2; pass++) {
		json_object *from = pass ? h->claimed : g->claimed;

		if (!from)
			continue;
		json_object_object_foreach(from, cause, n) {
			(void)n;
			if (pass && g->claimed && json_object_object_get_ex(g->claimed, cause, &v))
				continue;
			c = json_object_new_object();
			put(c, "cause", json_object_new_string(cause), true, oom);
			/* A side with attribution but no such cause claimed none of it. */
			v = NULL;
			if (g->claimed && !json_object_object_get_ex(g->claimed, cause, &v))
				v = json_object_new_uint64(0);
			else
				v = json_object_get(v);
			put(c, "old", v, false, oom);
			v = NULL;
			if (h->claimed && !json_object_object_get_ex(h->claimed, cause, &v))
				v = json_object_new_uint64(0);
			else
				v = json_object_get(v);
			put(c, "new", v, false, oom);
			push(causes, c, oom);
		}
	}
	put(o, "causes", causes, true, oom);
	return o;
}

/* Each id of @a missing from @b, comma-separated into @buf; false when none. */
static bool set_minus(json_object *a, json_object *b, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < json_object_array_length(a); i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (b && set_has(b, v))
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? ", " : "",
				 json_object_get_string(v));
	}
	return used > 0;
}

static json_object *known_json(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
			       json_object *notes, bool *oom)
{
	json_object *o = json_object_new_object();
	char buf[512];

	put(o, "old", g->known ? json_object_get(g->known) : NULL, false, oom);
	put(o, "new", h->known ? json_object_get(h->known) : NULL, false, oom);
	if (!g->known || !h->known)
		return o;
	if (set_minus(h->known, g->known, buf, sizeof(buf)))
		why_add(notes, oom, "known issue matched on NEW only: %s", buf);
	if (set_minus(g->known, h->known, buf, sizeof(buf)))
		why_add(notes, oom, "known issue matched on OLD only: %s", buf);
	return o;
}

/* ---- conditions that bear on the rates */

static json_object *cond_set(const struct pms_cmp_group *g, enum cond c, json_object *null_set)
{
	json_object *set;

	if (json_object_object_get_ex(g->cond, cond_names[c], &set) && set)
		return set;
	return null_set;
}

static bool set_is_null(json_object *set)
{
	return json_object_array_length(set) == 1 && !json_object_array_get_idx(set, 0);
}

static void cond_put(json_object *o, const char *name, json_object *old, json_object *new,
		     bool differs, bool *oom)
{
	json_object *c = json_object_new_object();

	put(c, "old", old, false, oom);
	put(c, "new", new, false, oom);
	put(c, "differs", json_object_new_boolean(differs), true, oom);
	put(o, name, c, true, oom);
}

/* The one value of a set as text (its JSON when several), "n/a" for null. */
static const char *set_text(json_object *set)
{
	json_object *v;

	if (set_is_null(set))
		return "n/a";
	if (json_object_array_length(set) != 1)
		return canon(set);
	v = json_object_array_get_idx(set, 0);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : canon(v);
}

/* trace.used as words: a result from before the trace recorded none. */
static const char *trace_text(json_object *set)
{
	json_object *v;

	if (set_is_null(set))
		return "not recorded";
	if (json_object_array_length(set) != 1)
		return "used in some runs";
	v = json_object_array_get_idx(set, 0);
	return json_object_get_boolean(v) ? "used" : "not used";
}

/* Why a differing condition matters, for the notes. */
static const char *const cond_why[NR_CONDS] = {
	[COND_MAX_SAMPLE_RATE]	= "the ceiling on perf interrupts per second differs; under a "
				  "lower one the kernel throttles overflows sooner",
	[COND_CPU_MODEL]	= "another CPU, another PMU implementation",
	[COND_VHE]		= "with VHE the host kernel runs at EL2: another exception level "
				  "for the PMU to count, filter and interrupt",
	[COND_PSEUDO_NMI]	= "overflow interrupts are pseudo-NMIs on one side only, which "
				  "changes when they are taken",
	[COND_CMDLINE]		= "the kernel was booted differently",
	[COND_TRACE_USED]	= "the causes rest on different evidence",
};

/*
 * The conditions side by side, by name, each {old, new, differs}; a value a
 * side does not record is null, and null is not a difference, except for
 * the scheduler trace (no trace section: none was taken).  Those that
 * differ, a run throttled on either side, and mover rates beyond
 * PMS_CMP_EXPOSURE_FACTOR apart are also said in @notes.
 */
static json_object *conditions_json(const struct pms_cmp_group *g,
				    const struct pms_cmp_group *h, json_object *null_set,
				    json_object *notes, bool *oom)
{
	static const enum cond shown[] = {
		COND_MAX_SAMPLE_RATE, COND_RATE_BEFORE, COND_RATE_AFTER, COND_THROTTLED,
		COND_CPU_MODEL, COND_VHE, COND_PSEUDO_NMI, COND_CMDLINE, COND_TRACE_USED,
	};
	const struct pms_cmp_group *side[2] = { g, h };
	json_object *o = json_object_new_object(), *a, *b, *t;
	double ro = NAN, rn = NAN, r;
	char x[32], y[32], z[32];
	bool differs;
	size_t i;
	int s;

	for (i = 0; i < PMS_ARRAY_SIZE(shown); i++) {
		enum cond c = shown[i];

		a = cond_set(g, c, null_set);
		b = cond_set(h, c, null_set);
		differs = !set_equal(a, b) &&
			  (c == COND_TRACE_USED || (!set_is_null(a) && !set_is_null(b)));
		cond_put(o, cond_names[c], env_value(a), env_value(b), differs, oom);
		if (!differs || !cond_why[c])
			continue;
		if (c == COND_MAX_SAMPLE_RATE)
			why_add(notes, oom, "kernel.perf_event_max_sample_rate %s -> %s: %s",
				set_text(a), set_text(b), cond_why[c]);
		else if (c == COND_TRACE_USED)
			why_add(notes, oom, "scheduler trace %s -> %s: %s", trace_text(a),
				trace_text(b), cond_why[c]);
		else if (c == COND_CMDLINE)
			why_add(notes, oom, "kernel command line '%s' -> '%s': %s", set_text(a),
				set_text(b), cond_why[c]);
		else
			why_add(notes, oom, "%s %s -> %s: %s",
				c == COND_CPU_MODEL ? "CPU model" : c == COND_VHE ? "VHE" :
				"pseudo-NMI (" PSEUDO_NMI_PARAM ")", set_text(a), set_text(b),
				cond_why[c]);
	}
	/* A ceiling lowered during a run is the kernel throttling perf interrupts. */
	for (s = 0; s < 2; s++) {
		json_object *json_true = json_object_new_boolean(true);

		t = cond_set(side[s], COND_THROTTLED, null_set);
		if (json_true && set_has(t, json_true))
			why_add(notes, oom, "%s was throttled during the run: the kernel lowered "
				"kernel.perf_event_max_sample_rate %s -> %s (perf interrupts took "
				"too long), so overflows may have been held back",
				s ? "NEW" : "OLD",
				set_text(cond_set(side[s], COND_RATE_BEFORE, null_set)),
				set_text(cond_set(side[s], COND_RATE_AFTER, null_set)));
		json_object_put(json_true);
	}
	if (g->runs_rate && g->mover_seconds > 0)
		ro = (double)g->rebinds / g->mover_seconds;
	if (h->runs_rate && h->mover_seconds > 0)
		rn = (double)h->rebinds / h->mover_seconds;
	r = ratio_of(ro, rn);
	differs = beyond_factor(r);
	cond_put(o, "rebinds_per_second", isnan(ro) ? NULL : new_double(ro),
		 isnan(rn) ? NULL : new_double(rn), differs, oom);
	if (differs)
		why_add(notes, oom, "mover rate %s -> %s rebinds/s (%sx): the thread was moved at "
			"another pace", fmt_g(x, sizeof(x), ro), fmt_g(y, sizeof(y), rn),
			fmt_g(z, sizeof(z), r));
	return o;
}

/* One pair; *status is 1 for REGRESSED, -1 for IMPROVED, 0 for SAME. */
/*
 * aux-pause: the ABI cases whose answers differ between the two sides (each
 * side a set, over its runs); null when either side has no ABI matrix.  A
 * change is reported, not judged: a kernel that gains aux_action changes its
 * answers legitimately, and each side's verdict says whether they were right.
 */
static json_object *abi_changes(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
				bool *oom)
{
	json_object *arr, *hset;

	if (!g->abi || !h->abi)
		return NULL;
	arr = json_object_new_array();
	if (!arr) {
		*oom = true;
		return NULL;
	}
	json_object_object_foreach(g->abi, name, gset) {
		json_object *c;

		if (!json_object_object_get_ex(h->abi, name, &hset) || set_equal(gset, hset))
			continue;
		c = json_object_new_object();
		put(c, "case", json_object_new_string(name), true, oom);
		put(c, "old", json_object_get(gset), true, oom);
		put(c, "new", json_object_get(hset), true, oom);
		push(arr, c, oom);
	}
	return arr;
}

/* Runs cut short by a signal are compared, but never as if complete. */
static void interrupted_notes(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
			      json_object *notes, bool *oom)
{
	const struct pms_cmp_group *side[2] = { g, h };
	int s;

	for (s = 0; s < 2; s++) {
		if (!side[s]->runs_interrupted)
			continue;
		why_add(notes, oom, "%s: %zu of %zu run%s ended early by SIGINT or SIGTERM "
			"(interrupted): %s counts are partial, not those of a complete run",
			s ? "NEW" : "OLD", side[s]->runs_interrupted, side[s]->runs,
			side[s]->runs == 1 ? "" : "s",
			side[s]->runs_interrupted == 1 ? "its" : "their");
	}
}

/* disable-storm runs with a control: whose lost rate is the storm's alone. */
static void storm_notes(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
			json_object *notes, bool *oom)
{
	const struct pms_cmp_group *side[2] = { g, h };
	int s;

	for (s = 0; s < 2; s++)
		if (side[s]->runs_storm_only)
			why_add(notes, oom, "%s: lost per overflow is the storm's alone in %zu of "
				"%zu run%s (disable_storm.control.lost_with of overflows_with): "
				"the control before the storm is left out", s ? "NEW" : "OLD",
				side[s]->runs_storm_only, side[s]->runs,
				side[s]->runs == 1 ? "" : "s");
}

static json_object *pair_json(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
			      double alpha, json_object *null_set, int *status, bool *oom)
{
	json_object *o = json_object_new_object(), *rates, *diffs, *worse, *better, *better_sig;
	json_object *withheld, *notes, *expo, *also;
	enum pms_cmp_verdict vo = group_verdict(g), vn = group_verdict(h);
	struct expo_verdict ev = { 0 };
	char ro[32], rn[32], ps[32];
	double p;
	size_t k;
	int i, dir;

	rates = json_object_new_object();
	worse = json_object_new_array();
	better = json_object_new_array();
	better_sig = json_object_new_array();
	withheld = json_object_new_array();
	notes = json_object_new_array();
	diffs = differences(g, h, null_set, oom);
	interrupted_notes(g, h, notes, oom);
	storm_notes(g, h, notes, oom);

	/* Verdicts and rates per signal or overflow (Fisher's test). */
	if (vo == PMS_CMP_PASS && vn == PMS_CMP_FAIL)
		why_add(worse, oom, "verdict pass -> fail");
	if (vo == PMS_CMP_FAIL && vn == PMS_CMP_PASS)
		why_add(better_sig, oom, "verdict fail -> pass");
	/* Neither side's kernel is to blame for what configuration did. */
	if ((vo == PMS_CMP_ENVIRONMENT) != (vn == PMS_CMP_ENVIRONMENT))
		why_add(notes, oom, "verdict %s -> %s: one side's signals were held back by "
			"configuration (throttling, multiplexing, a full signal queue), so its "
			"rates do not describe the kernel", verdict_names[vo], verdict_names[vn]);
	for (i = 0; i < PMS_CMP_NR_RATES; i++) {
		put(rates, rate_names[i],
		    rate_json(g, h, (enum pms_cmp_rate)i, alpha, &dir, &p, oom), true, oom);
		/* A class the semantics do not judge is reported, never decisive. */
		if (!dir || !(g->judged[i] && h->judged[i]))
			continue;
		fmt_p_text(ps, sizeof(ps), p);
		why_add(dir > 0 ? worse : better_sig, oom,
			"%s rate %s %s -> %s (%" PRIu64 "/%" PRIu64 " -> %" PRIu64 "/%" PRIu64
			"), %s", rate_names[i], dir > 0 ? "rose" : "fell",
			fmt_rate(ro, sizeof(ro), g->events[i], g->trials[i]),
			fmt_rate(rn, sizeof(rn), h->events[i], h->trials[i]),
			g->events[i], g->trials[i], h->events[i], h->trials[i], ps);
	}
	/* Rates per migration and per toggle decide too. */
	expo = exposure_json(g, h, alpha, worse, better, notes, &ev, oom);
	/*
	 * A side moved or toggled far less has had less chance to lose: its
	 * better rates per signal are not credited unless its rate per
	 * exposure fell as well.  Regressions are never withheld.
	 */
	for (k = 0; k < arr_len(better_sig); k++) {
		const char *t = json_object_get_string(json_object_array_get_idx(better_sig, k));

		if (ev.less && !ev.fell)
			why_add(withheld, oom, "not credited (NEW had %s): %s", ev.why, t);
		else
			why_add(better, oom, "%s", t);
	}
	json_object_put(better_sig);
	*status = arr_len(worse) ? 1 : arr_len(better) ? -1 : 0;

	put(o, "key", json_object_get(g->key), true, oom);
	put(o, "old", group_json(g, false, null_set, oom), true, oom);
	put(o, "new", group_json(h, false, null_set, oom), true, oom);
	put(o, "rates", rates, true, oom);
	put(o, "exposure", expo, true, oom);
	put(o, "attribution", attribution_json(g, h, oom), true, oom);
	put(o, "known_issues_matched", known_json(g, h, notes, oom), true, oom);
	put(o, "conditions", conditions_json(g, h, null_set, notes, oom), true, oom);
	put(o, "abi_changes", abi_changes(g, h, oom), false, oom);
	put(o, "incomplete", json_object_new_boolean(g->runs_interrupted || h->runs_interrupted),
	    true, oom);
	put(o, "environment_differs",
	    json_object_new_boolean(arr_len(diffs) > 0), true, oom);
	put(o, "differences", diffs, true, oom);
	put(o, "status", json_object_new_string(*status > 0 ? "REGRESSED" :
						*status < 0 ? "IMPROVED" : "SAME"), true, oom);
	/*
	 * why: what made the status.  also: improvements outweighed by a
	 * regression in the same pair, and improvements not credited, so that
	 * none is hidden.  notes: what a reader must weigh before believing
	 * the rates (exposure, conditions, known issues).
	 */
	also = *status < 0 ? worse : better;
	for (k = 0; k < arr_len(withheld); k++)
		push(also, json_object_get(json_object_array_get_idx(withheld, k)), oom);
	json_object_put(withheld);
	put(o, "why", *status < 0 ? better : worse, true, oom);
	put(o, "also", also, true, oom);
	put(o, "notes", notes, true, oom);
	return o;
}

json_object *pms_cmp_compare(const struct pms_cmp_side *old, const struct pms_cmp_side *new,
			     double alpha)
{
	json_object *rep, *pairs, *only_old, *only_new, *null_set;
	size_t i, j, regressed = 0, improved = 0, same = 0;
	bool *paired, oom = false;
	int status;

	if (!(alpha > 0.0 && alpha < 1.0)) {
		errno = EINVAL;
		return NULL;
	}
	paired = calloc(new->nr_groups + 1, sizeof(*paired));
	rep = json_object_new_object();
	pairs = json_object_new_array();
	only_old = json_object_new_array();
	only_new = json_object_new_array();
	null_set = json_object_new_array();
	if (!paired || !null_set || json_object_array_add(null_set, NULL))
		oom = true;

	for (i = 0; i < old->nr_groups && !oom; i++) {
		for (j = 0; j < new->nr_groups; j++)
			if (!paired[j] && json_object_equal(old->groups[i].key, new->groups[j].key))
				break;
		if (j == new->nr_groups) {
			push(only_old, group_json(&old->groups[i], true, null_set, &oom), &oom);
			continue;
		}
		paired[j] = true;
		push(pairs, pair_json(&old->groups[i], &new->groups[j], alpha, null_set, &status,
				      &oom), &oom);
		if (status > 0)
			regressed++;
		else if (status < 0)
			improved++;
		else
			same++;
	}
	for (j = 0; j < new->nr_groups && !oom; j++)
		if (!paired[j])
			push(only_new, group_json(&new->groups[j], true, null_set, &oom), &oom);

	put(rep, "schema_version", json_object_new_int(PMS_CMP_REPORT_VERSION), true, &oom);
	put(rep, "test", json_object_new_string("fisher-exact"), true, &oom);
	put(rep, "exposure_test", json_object_new_string("poisson-conditional"), true, &oom);
	put(rep, "per", json_object_new_uint64((uint64_t)PMS_CMP_PER), true, &oom);
	put(rep, "exposure_factor", new_double(PMS_CMP_EXPOSURE_FACTOR), true, &oom);
	put(rep, "alpha", new_double(alpha), true, &oom);
	put(rep, "old", json_object_new_string(old->path ? old->path : ""), true, &oom);
	put(rep, "new", json_object_new_string(new->path ? new->path : ""), true, &oom);
	put(rep, "old_results", json_object_new_uint64(old->nr_results), true, &oom);
	put(rep, "new_results", json_object_new_uint64(new->nr_results), true, &oom);
	put(rep, "old_ignored", json_object_new_uint64(old->nr_ignored), true, &oom);
	put(rep, "new_ignored", json_object_new_uint64(new->nr_ignored), true, &oom);
	put(rep, "old_interrupted", json_object_new_uint64(old->nr_interrupted), true, &oom);
	put(rep, "new_interrupted", json_object_new_uint64(new->nr_interrupted), true, &oom);
	put(rep, "pairs", pairs, true, &oom);
	put(rep, "only_old", only_old, true, &oom);
	put(rep, "only_new", only_new, true, &oom);
	put(rep, "regressed", json_object_new_uint64(regressed), true, &oom);
	put(rep, "improved", json_object_new_uint64(improved), true, &oom);
	put(rep, "same", json_object_new_uint64(same), true, &oom);
	json_object_put(null_set);
	free(paired);
	if (oom) {
		json_object_put(rep);
		errno = ENOMEM;
		return NULL;
	}
	return rep;
}
