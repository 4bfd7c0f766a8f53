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
};

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
};

/* One result file, read. */
struct run {
	json_object *key;
	json_object *env;	/* field -> value (JSON null when absent) */
	json_object *abi;	/* aux-pause: case name -> errno seen ("ok", "EINVAL"...) */
	enum pms_cmp_verdict verdict;
	bool measured;		/* has an oracle section */
	bool final_known;	/* oracle.overflows_implied is not null */
	uint64_t signals, lost, overflows;
	uint64_t events[PMS_CMP_NR_RATES], trials[PMS_CMP_NR_RATES];
	bool judged[PMS_CMP_NR_RATES];
};

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

struct hyper {
	double r1, r2, c1, lden;	/* row sums, first column sum, log C(N, c1) */
};

/* log P(X = x): x events in the first row, margins fixed. */
static double lhyper(const struct hyper *h, uint64_t x)
{
	double xd = (double)x;

	return lchoose(h->r1, xd) + lchoose(h->r2, h->c1 - xd) - h->lden;
}

/* Sum exp(lhyper(x) - la) from @x to @end (either way) until the terms vanish. */
static double tail_sum(const struct hyper *h, uint64_t x, uint64_t end, double la)
{
	double s = 0.0, t;

	for (;;) {
		t = lhyper(h, x) - la;
		if (t < -FISHER_TAIL_NATS)
			break;
		s += exp(t);
		if (x == end)
			break;
		x = x < end ? x + 1 : x - 1;
	}
	return s;
}

double pms_fisher_exact(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t r1, r2, c1, n, lo, hi, mode, x, y, mid;
	struct hyper h;
	double la, thr, s = 0.0;

	if (__builtin_add_overflow(a, b, &r1) || __builtin_add_overflow(c, d, &r2) ||
	    __builtin_add_overflow(a, c, &c1) || __builtin_add_overflow(r1, r2, &n))
		return NAN;
	lo = c1 > r2 ? c1 - r2 : 0;
	hi = r1 < c1 ? r1 : c1;
	if (lo == hi)
		return 1.0;	/* one table fits the margins: nothing to tell apart */

	h.r1 = (double)r1;
	h.r2 = (double)r2;
	h.c1 = (double)c1;
	h.lden = lchoose((double)n, h.c1);
	/* The hypergeometric mode; P is non-decreasing on [lo, mode] and
	 * non-increasing on [mode, hi]. */
	mode = (uint64_t)floorl(((long double)c1 + 1) * ((long double)r1 + 1) /
				((long double)n + 2));
	if (mode < lo)
		mode = lo;
	if (mode > hi)
		mode = hi;
	la = lhyper(&h, a);
	thr = la + log1p(FISHER_REL_ERR);

	/*
	 * The tables at most as likely as the observed one are the two tails
	 * [lo, x] and [y, hi].  Each boundary is found by bisection over a
	 * monotone half, and each tail is summed from its boundary outward,
	 * so the cost depends on the spread of the distribution, not on N.
	 */
	if (lhyper(&h, lo) <= thr) {
		x = lo;
		y = mode;
		if (lhyper(&h, y) <= thr) {
			x = y;
		} else {
			while (y - x > 1) {	/* P(x) <= thr < P(y) */
				mid = x + (y - x) / 2;
				if (lhyper(&h, mid) <= thr)
					x = mid;
				else
					y = mid;
			}
		}
		s += tail_sum(&h, x, lo, la);
	}
	if (mode < hi && lhyper(&h, hi) <= thr) {
		x = mode + 1;
		y = hi;
		if (lhyper(&h, x) <= thr) {
			y = x;
		} else {
			while (y - x > 1) {	/* P(x) > thr >= P(y) */
				mid = x + (y - x) / 2;
				if (lhyper(&h, mid) <= thr)
					y = mid;
				else
					x = mid;
			}
		}
		s += tail_sum(&h, y, hi, la);
	}
	/* p = P(a) * s, formed in logs so that a tiny P(a) does not round to 0
	 * before s (>= 1: it holds the observed table) scales it. */
	if (s <= 0.0)
		return 0.0;
	s = exp(la + log(s));
	return s > 1.0 ? 1.0 : s;
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

static int read_u64(json_object *root, const char *path, const char *file, uint64_t *out,
		    char *err, size_t errlen)
{
	json_object *v;

	if (!lookup(root, path, &v) || !is_u64(v))
		return fail(err, errlen, -EINVAL, "%s: %s is missing or not a non-negative integer",
			    file, path);
	*out = json_object_get_uint64(v);
	return 0;
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
	r->key = r->env = r->abi = NULL;
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

static int parse_oracle(json_object *root, const char *file, struct run *r, char *err,
			size_t errlen)
{
	json_object *o, *v;
	uint64_t n;
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
	}
	/* null when the final count is unknown: then lost has no denominator. */
	if (!lookup(root, "oracle.overflows_implied", &v) || (v && !is_u64(v)))
		return fail(err, errlen, -EINVAL,
			    "%s: oracle.overflows_implied is missing or not null or a non-negative "
			    "integer", file);
	r->final_known = v != NULL;
	if (v) {
		r->overflows = json_object_get_uint64(v);
		r->events[PMS_CMP_LOST] = r->lost;
		r->trials[PMS_CMP_LOST] = r->overflows;
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
	    json_object_get_int64(v) != PMS_CMP_SCHEMA_VERSION)
		return fail(err, errlen, -EINVAL,
			    "%s: unsupported schema_version %s (this pmustress reads %d)", file,
			    json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			    PMS_CMP_SCHEMA_VERSION);
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
			    "%s: verdict is missing or not one of pass, fail, skip, error", file);
	r->verdict = (enum pms_cmp_verdict)i;

	r->key = json_object_new_object();
	r->env = json_object_new_object();
	if (!r->key || !r->env)
		goto nomem;
	for (i = 0; i < PMS_ARRAY_SIZE(key_fields); i++) {
		lookup(root, key_fields[i], &v);
		if (json_object_object_add(r->key, key_fields[i], json_object_get(v)))
			goto nomem;
	}
	if (run_env(root, r->env) || run_abi(root, r))
		goto nomem;
	ret = parse_oracle(root, file, r, err, errlen);
	if (ret)
		run_free(r);
	return ret;
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

static int group_add(struct pms_cmp_group *g, struct run *r, const char *file)
{
	int ret = 0, i;

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
	g->verdicts[r->verdict]++;
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
		if (!g->files || !g->env) {
			json_object_put(g->files);
			json_object_put(g->env);
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
	if (!ret)
		side->nr_results++;
	return ret;
}

static bool json_name(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && !strcmp(name + len - 5, ".json");
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
		else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && json_name(name))
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

	for (i = 0; i < side->nr_groups; i++) {
		json_object_put(side->groups[i].key);
		json_object_put(side->groups[i].files);
		json_object_put(side->groups[i].env);
		json_object_put(side->groups[i].abi);
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

	if (with_key)
		put(o, "key", json_object_get(g->key), true, oom);
	put(o, "files", json_object_get(g->files), true, oom);
	put(o, "runs", json_object_new_uint64(g->runs), true, oom);
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

static json_object *pair_json(const struct pms_cmp_group *g, const struct pms_cmp_group *h,
			      double alpha, json_object *null_set, int *status, bool *oom)
{
	json_object *o = json_object_new_object(), *rates, *diffs, *worse, *better;
	enum pms_cmp_verdict vo = group_verdict(g), vn = group_verdict(h);
	char ro[32], rn[32], ps[32];
	double p;
	int i, dir;

	rates = json_object_new_object();
	worse = json_object_new_array();
	better = json_object_new_array();
	diffs = differences(g, h, null_set, oom);

	if (vo == PMS_CMP_PASS && vn == PMS_CMP_FAIL)
		why_add(worse, oom, "verdict pass -> fail");
	if (vo == PMS_CMP_FAIL && vn == PMS_CMP_PASS)
		why_add(better, oom, "verdict fail -> pass");
	for (i = 0; i < PMS_CMP_NR_RATES; i++) {
		put(rates, rate_names[i],
		    rate_json(g, h, (enum pms_cmp_rate)i, alpha, &dir, &p, oom), true, oom);
		/* A class the semantics do not judge is reported, never decisive. */
		if (!dir || !(g->judged[i] && h->judged[i]))
			continue;
		if (p < 1e-300)
			snprintf(ps, sizeof(ps), "p < 1e-300");
		else
			snprintf(ps, sizeof(ps), "p = %.2g", p);
		why_add(dir > 0 ? worse : better, oom,
			"%s rate %s %s -> %s (%" PRIu64 "/%" PRIu64 " -> %" PRIu64 "/%" PRIu64
			"), %s", rate_names[i], dir > 0 ? "rose" : "fell",
			fmt_rate(ro, sizeof(ro), g->events[i], g->trials[i]),
			fmt_rate(rn, sizeof(rn), h->events[i], h->trials[i]),
			g->events[i], g->trials[i], h->events[i], h->trials[i], ps);
	}
	*status = arr_len(worse) ? 1 : arr_len(better) ? -1 : 0;

	put(o, "key", json_object_get(g->key), true, oom);
	put(o, "old", group_json(g, false, null_set, oom), true, oom);
	put(o, "new", group_json(h, false, null_set, oom), true, oom);
	put(o, "rates", rates, true, oom);
	put(o, "abi_changes", abi_changes(g, h, oom), false, oom);
	put(o, "environment_differs",
	    json_object_new_boolean(arr_len(diffs) > 0), true, oom);
	put(o, "differences", diffs, true, oom);
	put(o, "status", json_object_new_string(*status > 0 ? "REGRESSED" :
						*status < 0 ? "IMPROVED" : "SAME"), true, oom);
	/*
	 * why: what made the status.  also: improvements outweighed by a
	 * regression in the same pair, so that neither is hidden.
	 */
	if (*status < 0) {
		put(o, "why", better, true, oom);
		put(o, "also", worse, true, oom);
	} else {
		put(o, "why", worse, true, oom);
		put(o, "also", better, true, oom);
	}
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
	put(rep, "alpha", new_double(alpha), true, &oom);
	put(rep, "old", json_object_new_string(old->path ? old->path : ""), true, &oom);
	put(rep, "new", json_object_new_string(new->path ? new->path : ""), true, &oom);
	put(rep, "old_results", json_object_new_uint64(old->nr_results), true, &oom);
	put(rep, "new_results", json_object_new_uint64(new->nr_results), true, &oom);
	put(rep, "old_ignored", json_object_new_uint64(old->nr_ignored), true, &oom);
	put(rep, "new_ignored", json_object_new_uint64(new->nr_ignored), true, &oom);
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
