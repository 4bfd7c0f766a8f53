// SPDX-License-Identifier: GPL-2.0-only
/*
 * compare: Fisher's exact test against R's fisher.test, the conditional
 * Poisson test against hand-computed binomial sums, then the hand-made
 * results in tests/fixtures/compare (regression, improvement, noise,
 * environment, timer semantics, bad files, directories, exposure, toggles,
 * causes, sysctl, argv, an old baseline): no PMU, no root.
 *
 * Usage: test-compare [FIXTURES_DIR]; else $PMS_FIXTURES; else tests/fixtures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "json-path.h"
#include "pms-compare.h"
#include "pms-util.h"

static const char *fixtures;


static const char *jstr(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v ? json_object_get_string(v) : NULL;
}

static uint64_t ju64(json_object *o, const char *path)
{
	return json_object_get_uint64(jget(o, path));
}

static double jdbl(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v ? json_object_get_double(v) : NAN;
}

static size_t jlen(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v && json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
}

static bool close_to(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

static void test_fisher(void)
{
	double p;

	/* R: fisher.test(matrix(c(1, 11, 9, 3), 2))$p.value */
	p = pms_fisher_exact(1, 9, 11, 3);
	ok(close_to(p, 0.002759456, 1e-6), "fisher [[1,9],[11,3]] p = 0.002759 (got %.7g)", p);
	p = pms_fisher_exact(3, 1, 1, 3);
	ok(close_to(p, 0.4857143, 1e-6), "fisher [[3,1],[1,3]] p = 0.4857 (got %.7g)", p);
	ok(pms_fisher_exact(0, 10, 0, 10) == 1.0, "fisher [[0,10],[0,10]] p = 1");
	ok(pms_fisher_exact(5, 5, 5, 5) == 1.0, "fisher [[5,5],[5,5]] p = 1");
	ok(pms_fisher_exact(0, 0, 3, 4) == 1.0, "fisher with an empty row: p = 1");
	/* R: 0.0005828 */
	p = pms_fisher_exact(7, 0, 0, 7);
	ok(close_to(p, 0.0005827506, 1e-6), "fisher [[7,0],[0,7]] p = 0.0005828 (got %.7g)", p);
	/* The regression fixture's counts; exact value from big-integer sums. */
	p = pms_fisher_exact(0, 50000, 200, 49800);
	ok(close_to(p, 1.0196084865e-60, 1e-6),
	   "fisher [[0,50000],[200,49800]] p = 1.0196e-60 in log space (got %.5g)", p);
	ok(pms_fisher_exact(1, 9, 11, 3) == pms_fisher_exact(11, 3, 1, 9) &&
	   pms_fisher_exact(1, 9, 11, 3) == pms_fisher_exact(9, 1, 3, 11),
	   "fisher is symmetric in rows and in columns");
	/* Millions of trials: the tails are summed from their edges, not over N. */
	p = pms_fisher_exact(2000000, 2000000, 2001000, 1999000);
	ok(close_to(p, 0.4799396, 1e-5), "fisher at 4e6 per row p = 0.4799 (got %.7g)", p);
	p = pms_fisher_exact(0, 4000000, 20000, 3980000);
	ok(p >= 0.0 && p < 1e-300, "fisher far below the smallest double gives 0, not NaN");
	ok(isnan(pms_fisher_exact(UINT64_MAX, 1, 0, 0)), "fisher: counts that overflow give NaN");
}

/*
 * The conditional test of two Poisson counts: k1 | k1 + k2 is binomial with
 * p = e1 / (e1 + e2).  Values by hand: Bin(10, 1/2) has P(0) = 1/1024, so
 * 0 vs 10 at equal exposure is 2/1024; 2 vs 8 sums P(X <= 2) + P(X >= 8) =
 * 2 * 56/1024; 3 vs 2 over exposures 1 and 4 is Bin(5, 0.2), whose outcomes
 * no likelier than P(3) = 0.0512 are 3, 4 and 5: 0.0512 + 0.0064 + 0.00032.
 */
static void test_poisson(void)
{
	double p;

	p = pms_poisson_rate_test(0, 1, 10, 1);
	ok(close_to(p, 0.001953125, 1e-9), "poisson 0 vs 10, equal exposure: p = 2/1024 (got %.10g)",
	   p);
	p = pms_poisson_rate_test(2, 1000, 8, 1000);
	ok(close_to(p, 0.109375, 1e-9), "poisson 2 vs 8, equal exposure: p = 112/1024 (got %.10g)",
	   p);
	p = pms_poisson_rate_test(3, 1, 2, 4);
	ok(close_to(p, 0.05792, 1e-9), "poisson 3 in 1 vs 2 in 4: p = 0.05792 (got %.10g)", p);
	p = pms_poisson_rate_test(1, 1, 4, 4);
	ok(close_to(p, 1.0, 1e-12), "poisson 1 in 1 vs 4 in 4 (the expected split): p = 1");
	/* The exposure fixture: 100 in 10^6 migrations vs 10 in 10^5, one rate. */
	p = pms_poisson_rate_test(100, 1000000, 10, 100000);
	ok(close_to(p, 1.0, 1e-9), "poisson 100 in 1e6 vs 10 in 1e5: p = 1 (got %.10g)", p);
	/* 100 in 10^6 vs 50 in 10^5; exact value from big-integer binomial sums. */
	p = pms_poisson_rate_test(100, 1000000, 50, 100000);
	ok(close_to(p, 1.545139931e-16, 1e-6), "poisson 100 in 1e6 vs 50 in 1e5: p = 1.545e-16 "
	   "(got %.10g)", p);
	ok(pms_poisson_rate_test(3, 1, 2, 4) == pms_poisson_rate_test(2, 4, 3, 1),
	   "poisson is symmetric in its samples");
	ok(pms_poisson_rate_test(0, 5, 0, 7) == 1.0, "poisson with no events: p = 1");
	ok(isnan(pms_poisson_rate_test(1, 0, 1, 5)), "poisson with no exposure on a side: NaN");
	ok(isnan(pms_poisson_rate_test(UINT64_MAX, 1, 1, 1)), "poisson: counts that overflow give NaN");
	/* Millions of events: normal approximation with continuity, 0.4147. */
	p = pms_poisson_rate_test(3000000, 1000000000, 3002000, 1000000000);
	ok(close_to(p, 0.4147, 2e-3), "poisson at 6e6 events p = 0.4147 (got %.5g)", p);
}

static void fixture(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/compare/%s", fixtures, rel);
}

/* Load old and new fixtures and compare them; NULL (with a failed test) on error. */
static json_object *compare(const char *old_rel, const char *new_rel, double alpha)
{
	struct pms_cmp_side old, new;
	char po[512], pn[512], err[512] = "";
	json_object *rep = NULL;
	int ro, rn;

	fixture(po, sizeof(po), old_rel);
	fixture(pn, sizeof(pn), new_rel);
	ro = pms_cmp_load(po, &old, err, sizeof(err));
	rn = ro ? 0 : pms_cmp_load(pn, &new, err, sizeof(err));
	if (!ok(!ro && !rn, "%s vs %s: both sides load", old_rel, new_rel)) {
		printf("#   %s\n", err);
	} else {
		rep = pms_cmp_compare(&old, &new, alpha);
		ok(rep, "%s vs %s: compare returns a report", old_rel, new_rel);
	}
	pms_cmp_side_free(&old);
	if (!ro)
		pms_cmp_side_free(&new);
	return rep;
}

static void test_regression(void)
{
	json_object *r = compare("regression/old.json", "regression/new.json", PMS_CMP_ALPHA);

	is_str(jstr(r, "test"), "fisher-exact", "regression: the test is named fisher-exact");
	is_u64(jlen(r, "pairs"), 1, "regression: one pair");
	is_str(jstr(r, "pairs.0.status"), "REGRESSED", "regression: status REGRESSED");
	is_u64(ju64(r, "regressed"), 1, "regression: regressed = 1");
	is_u64(ju64(r, "improved"), 0, "regression: improved = 0");
	is_str(jstr(r, "pairs.0.old.verdict"), "pass", "regression: old verdict pass");
	is_str(jstr(r, "pairs.0.new.verdict"), "fail", "regression: new verdict fail");
	is_str(jstr(r, "pairs.0.why.0"), "verdict pass -> fail",
	       "regression: why names the verdict");
	is_u64(ju64(r, "pairs.0.rates.lost.new_events"), 200, "regression: lost 200 ...");
	is_u64(ju64(r, "pairs.0.rates.lost.new_trials"), 50000,
	       "regression: ... of 50000 overflows");
	ok(jdbl(r, "pairs.0.rates.lost.old") == 0.0 && jdbl(r, "pairs.0.rates.lost.new") == 0.004,
	   "regression: lost rate 0 -> 0.004");
	ok(close_to(jdbl(r, "pairs.0.rates.lost.p"), 1.0196e-60, 1e-4),
	   "regression: lost p = 1.02e-60");
	is_str(jstr(r, "pairs.0.rates.lost.change"), "rose", "regression: lost rate rose");
	is_u64(ju64(r, "pairs.0.rates.late.new_trials"), 49800, "regression: late is over signals");
	ok(jdbl(r, "pairs.0.rates.late.p") == 1.0, "regression: late 0 -> 0 has p = 1");
	/* Across kernels: compared all the same, and the kernel named. */
	ok(json_object_get_boolean(jget(r, "pairs.0.environment_differs")),
	   "regression: environment differs (another kernel)");
	is_u64(jlen(r, "pairs.0.differences"), 1, "regression: only the kernel differs");
	is_str(jstr(r, "pairs.0.differences.0.field"), "host.kernel.release",
	       "regression: difference field host.kernel.release");
	is_str(jstr(r, "pairs.0.differences.0.old"), "6.1.0-graviton", "regression: old kernel");
	is_str(jstr(r, "pairs.0.differences.0.new"), "6.5.0-graviton", "regression: new kernel");
	is_str(jstr(r, "pairs.0.new.kernel"), "6.5.0-graviton", "regression: new.kernel");
	json_object_put(r);

	/* The same pair the other way round is an improvement. */
	r = compare("regression/new.json", "regression/old.json", PMS_CMP_ALPHA);
	is_str(jstr(r, "pairs.0.status"), "IMPROVED", "regression reversed: IMPROVED");
	json_object_put(r);
}

static void test_improvement(void)
{
	json_object *r = compare("improvement/old.json", "improvement/new.json", PMS_CMP_ALPHA);

	is_str(jstr(r, "pairs.0.status"), "IMPROVED", "improvement: status IMPROVED");
	is_u64(ju64(r, "improved"), 1, "improvement: improved = 1");
	is_u64(ju64(r, "regressed"), 0, "improvement: regressed = 0");
	is_str(jstr(r, "pairs.0.rates.late.change"), "fell", "improvement: late rate fell");
	ok(jdbl(r, "pairs.0.rates.late.p") < 1e-30,
	   "improvement: late p < 1e-30 (120 -> 0 of 50000)");
	ok(!json_object_get_boolean(jget(r, "pairs.0.environment_differs")),
	   "improvement: same environment");
	is_u64(jlen(r, "pairs.0.differences"), 0, "improvement: no differences");
	json_object_put(r);
}

static void test_noise(void)
{
	json_object *r = compare("noise/old.json", "noise/new.json", PMS_CMP_ALPHA);
	double p = jdbl(r, "pairs.0.rates.late.p");

	ok(p > 0.05 && p < 1.0, "noise: late 4 -> 6 of 50000 has p > 0.05 (got %.3g)", p);
	is_str(jstr(r, "pairs.0.rates.late.change"), "same", "noise: late rate did not change");
	is_str(jstr(r, "pairs.0.status"), "SAME", "noise: fail -> fail with noise is SAME");
	is_u64(ju64(r, "same"), 1, "noise: same = 1");
	json_object_put(r);

	/* At alpha 0.8 the same noise counts, which shows alpha is applied. */
	r = compare("noise/old.json", "noise/new.json", 0.8);
	is_str(jstr(r, "pairs.0.status"), "REGRESSED", "noise at alpha 0.8: REGRESSED");
	ok(jdbl(r, "alpha") == 0.8, "noise at alpha 0.8: alpha recorded");
	json_object_put(r);
}

static bool has_diff(json_object *r, const char *field, const char *old, const char *new)
{
	json_object *diffs = jget(r, "pairs.0.differences");
	size_t i;

	for (i = 0; diffs && i < json_object_array_length(diffs); i++) {
		json_object *d = json_object_array_get_idx(diffs, i), *o, *n;

		if (strcmp(jstr(d, "field"), field))
			continue;
		o = jget(d, "old");
		n = jget(d, "new");
		return !strcmp(o ? json_object_get_string(o) : "null", old) &&
		       !strcmp(n ? json_object_get_string(n) : "null", new);
	}
	return false;
}

static void test_environment(void)
{
	json_object *r = compare("environment/old.json", "environment/new.json", PMS_CMP_ALPHA);

	is_u64(jlen(r, "pairs"), 1, "environment: still paired");
	is_str(jstr(r, "pairs.0.status"), "SAME", "environment: status SAME (nothing changed)");
	ok(json_object_get_boolean(jget(r, "pairs.0.environment_differs")),
	   "environment: environment_differs");
	ok(has_diff(r, "host.kernel.release", "6.1.0-qemu", "6.6.0-qemu"),
	   "environment: kernel 6.1.0-qemu -> 6.6.0-qemu");
	ok(has_diff(r, "counter.attr.exclude_kernel", "true", "false"),
	   "environment: exclude_kernel true -> false");
	ok(has_diff(r, "counter.attr.exclude_hv", "false", "true"),
	   "environment: exclude_hv false -> true");
	ok(has_diff(r, "host.emulation.qemu", "8.2.2", "9.1.0"),
	   "environment: host.emulation.qemu 8.2.2 -> 9.1.0");
	ok(has_diff(r, "host.emulation.icount", "null", "shift=auto"),
	   "environment: host.emulation.icount null -> shift=auto");
	is_u64(jlen(r, "pairs.0.differences"), 5, "environment: nothing else differs");
	json_object_put(r);
}

/* aux-pause: answers that changed are listed, not judged; eras are environment. */
static void test_aux_abi(void)
{
	json_object *r = compare("aux/old.json", "aux/new.json", PMS_CMP_ALPHA);

	is_u64(jlen(r, "pairs"), 1, "aux: the two ABI matrices pair");
	is_str(jstr(r, "pairs.0.status"), "SAME", "aux: pass -> pass is SAME (changes are not judged)");
	is_u64(jlen(r, "pairs.0.abi_changes"), 1, "aux: exactly one case changed its answer");
	is_str(jstr(r, "pairs.0.abi_changes.0.case"), "start-paused-software", "aux: which case");
	is_str(jstr(r, "pairs.0.abi_changes.0.old.0"), "EINVAL", "aux: old answer EINVAL");
	is_str(jstr(r, "pairs.0.abi_changes.0.new.0"), "EOPNOTSUPP", "aux: new answer EOPNOTSUPP");
	ok(has_diff(r, "aux_pause.abi.era", "reserved", "aux_action"),
	   "aux: era reserved -> aux_action is an environment difference");
	ok(has_diff(r, "aux_pause.abi.backport", "false", "true"), "aux: so is the backport");
	json_object_put(r);
	r = compare("regression/old.json", "regression/new.json", PMS_CMP_ALPHA);
	ok(r && jget(r, "pairs.0") && !jget(r, "pairs.0.abi_changes"),
	   "aux: abi_changes is null for scenarios without an ABI matrix");
	json_object_put(r);
}

static void test_timer(void)
{
	json_object *r = compare("timer/old.json", "timer/new.json", PMS_CMP_ALPHA);

	is_str(jstr(r, "pairs.0.rates.late.change"), "rose", "timer: late rose 10 -> 300 of 5000");
	ok(!json_object_get_boolean(jget(r, "pairs.0.rates.late.judged")),
	   "timer: late is not judged under timer semantics");
	ok(json_object_get_boolean(jget(r, "pairs.0.rates.spurious.judged")),
	   "timer: spurious is judged");
	is_str(jstr(r, "pairs.0.status"), "SAME", "timer: an unjudged rise decides nothing");
	json_object_put(r);

	/* Different counters: keys differ, nothing pairs, each side listed. */
	r = compare("timer/old.json", "regression/new.json", PMS_CMP_ALPHA);
	is_u64(jlen(r, "pairs"), 0, "unpaired: no pair across counters");
	is_u64(jlen(r, "only_old"), 1, "unpaired: one only in OLD");
	is_u64(jlen(r, "only_new"), 1, "unpaired: one only in NEW");
	is_str(jstr(r, "only_old.0.key.counter.name"), "task-clock", "unpaired: OLD is task-clock");
	json_object_put(r);
}

/* Loading @rel fails with @want, and the error is "FILE: ...@msg..." for @file_rel. */
static void load_fails(const char *rel, const char *file_rel, int want, const char *msg,
		       const char *name)
{
	struct pms_cmp_side side;
	char path[512], file[512], err[512] = "";
	int ret;

	fixture(path, sizeof(path), rel);
	fixture(file, sizeof(file), file_rel);
	ret = pms_cmp_load(path, &side, err, sizeof(err));
	pms_cmp_side_free(&side);
	if (!ok(ret == want, "%s: returns %d", name, want))
		printf("#   got %d (%s)\n", ret, err);
	if (!ok(!strncmp(err, file, strlen(file)) && !strncmp(err + strlen(file), ": ", 2) &&
		strstr(err, msg), "%s: error names %s and says '%s'", name, file_rel, msg))
		printf("#   got '%s'\n", err);
}

static void test_bad_files(void)
{
	struct pms_cmp_side a, b;

	load_fails("bad/malformed.json", "bad/malformed.json", -EINVAL, "malformed JSON",
		   "malformed JSON");
	load_fails("bad/not-result.json", "bad/not-result.json", -EINVAL,
		   "not a pmustress result", "not a result");
	load_fails("bad/schema-v3.json", "bad/schema-v3.json", -EINVAL,
		   "unsupported schema_version 3", "schema_version 3");
	/* In a directory a non-result is skipped, but malformed JSON is not. */
	load_fails("bad", "bad/malformed.json", -EINVAL, "malformed JSON",
		   "directory with malformed JSON");
	load_fails("no-such-file.json", "no-such-file.json", -ENOENT, "No such file",
		   "missing file");

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	errno = 0;
	ok(!pms_cmp_compare(&a, &b, 0.0) && errno == EINVAL, "alpha 0 is EINVAL");
	errno = 0;
	ok(!pms_cmp_compare(&a, &b, 1.0) && errno == EINVAL, "alpha 1 is EINVAL");
	errno = 0;
	ok(!pms_cmp_compare(&a, &b, NAN) && errno == EINVAL, "alpha NaN is EINVAL");
}

/* Inputs that are not files: /dev/zero ends at once, a big file is not read. */
static void test_special_inputs(void)
{
	char dir[] = "/tmp/pms-cmp-XXXXXX", path[512], err[512] = "";
	struct pms_cmp_side side;
	int fd, ret;

	ret = pms_cmp_load("/dev/zero", &side, err, sizeof(err));
	pms_cmp_side_free(&side);
	ok(ret == -EINVAL && strstr(err, "/dev/zero: malformed JSON at byte 0"),
	   "/dev/zero is refused at its first byte: %s", err);
	if (!ok(mkdtemp(dir) != NULL, "temp dir"))
		return;
	/* Sparse: it costs no disk, and its size alone refuses it. */
	snprintf(path, sizeof(path), "%s/huge.json", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ok(fd >= 0 && !ftruncate(fd, (off_t)PMS_JSON_MAX_BYTES + 1), "a file one byte past the cap");
	if (fd >= 0)
		close(fd);
	ret = pms_cmp_load(path, &side, err, sizeof(err));
	pms_cmp_side_free(&side);
	ok(ret == -EFBIG && strstr(err, "larger than any result"),
	   "a file past the cap is refused unread: %s", err);
	unlink(path);
	/* A directory's *.json leading to a device would never end the scan. */
	snprintf(path, sizeof(path), "%s/zero.json", dir);
	ok(!symlink("/dev/zero", path), "a *.json link to /dev/zero in a directory");
	ret = pms_cmp_load(dir, &side, err, sizeof(err));
	pms_cmp_side_free(&side);
	ok(ret == -EINVAL && strstr(err, "zero.json: leads to a device"),
	   "the directory scan refuses it: %s", err);
	unlink(path);
	rmdir(dir);
}

static void test_directories(void)
{
	struct pms_cmp_side side;
	char path[512], err[512] = "";
	json_object *r;

	fixture(path, sizeof(path), "dir-old");
	ok(pms_cmp_load(path, &side, err, sizeof(err)) == 0, "dir-old loads (%s)", err);
	is_u64(side.nr_results, 3, "dir-old: 3 results, one in a subdirectory");
	is_u64(side.nr_ignored, 1, "dir-old: the schema copy is ignored, notes.txt not read");
	is_u64(side.nr_groups, 2, "dir-old: 2 groups (mover runs merged, control apart)");
	pms_cmp_side_free(&side);

	r = compare("dir-old", "dir-new", PMS_CMP_ALPHA);
	is_u64(jlen(r, "pairs"), 1, "dirs: one pair");
	is_u64(ju64(r, "pairs.0.old.runs"), 2, "dirs: 2 OLD runs merged");
	is_u64(ju64(r, "pairs.0.new.runs"), 3, "dirs: 3 NEW runs merged, durations aside");
	is_u64(jlen(r, "pairs.0.new.files"), 3, "dirs: the 3 NEW files are listed");
	is_u64(ju64(r, "pairs.0.old.counts.signals"), 50000, "dirs: OLD signals summed");
	is_u64(ju64(r, "pairs.0.rates.lost.new_events"), 3, "dirs: NEW lost summed");
	is_u64(ju64(r, "pairs.0.rates.lost.new_trials"), 90000, "dirs: NEW overflows summed");
	is_str(jstr(r, "pairs.0.new.verdict"), "fail", "dirs: merged verdict is the worst run's");
	is_u64(ju64(r, "pairs.0.new.verdicts.pass"), 2, "dirs: ... with the tally, 2 pass");
	is_u64(ju64(r, "pairs.0.new.verdicts.fail"), 1, "dirs: ... and 1 fail");
	ok(jdbl(r, "pairs.0.rates.lost.p") > 0.05,
	   "dirs: 0/50000 -> 3/90000 lost is not significant");
	is_str(jstr(r, "pairs.0.status"), "REGRESSED", "dirs: REGRESSED by the verdict alone");
	is_u64(jlen(r, "only_old"), 1, "dirs: one only in OLD");
	ok(json_object_get_boolean(jget(r, "only_old.0.key.options.no-mover")),
	   "dirs: the OLD-only one is the control run");
	is_u64(jlen(r, "only_new"), 1, "dirs: one only in NEW");
	is_u64(ju64(r, "only_new.0.key.counter.period"), 5000,
	       "dirs: the NEW-only one has period 5000");
	ok(strstr(jstr(r, "only_new.0.files.0"), "dir-new/period-5000.json") != NULL,
	   "dirs: the NEW-only file is named");
	json_object_put(r);
}

/* Some string of the array at @path contains @sub. */
static bool has_str(json_object *r, const char *path, const char *sub)
{
	json_object *arr = jget(r, path);
	size_t i;

	for (i = 0; arr && json_object_is_type(arr, json_type_array) &&
		    i < json_object_array_length(arr); i++)
		if (strstr(json_object_get_string(json_object_array_get_idx(arr, i)), sub))
			return true;
	return false;
}

static bool is_null_at(json_object *r, const char *path)
{
	return !jget(r, path);
}

/* The cause entry @cause of pairs.0.attribution.causes. */
static json_object *cause(json_object *r, const char *name)
{
	json_object *causes = jget(r, "pairs.0.attribution.causes");
	size_t i;

	for (i = 0; causes && i < json_object_array_length(causes); i++)
		if (!strcmp(jstr(json_object_array_get_idx(causes, i), "cause"), name))
			return json_object_array_get_idx(causes, i);
	return NULL;
}

/*
 * A kernel that lost fewer overflows because it moved the thread ten times
 * less is not better: per migration it loses as much (SAME), or more
 * (REGRESSED).  Only a rate per migration that fell too earns IMPROVED.
 */
static void test_exposure(void)
{
	json_object *r = compare("exposure/old.json", "exposure/new-equal.json", PMS_CMP_ALPHA);

	is_str(jstr(r, "exposure_test"), "poisson-conditional", "exposure: the test is named");
	is_u64(ju64(r, "per"), 1000000, "exposure: rates per 10^6");
	is_str(jstr(r, "pairs.0.rates.lost.change"), "fell",
	       "exposure: per overflow, NEW's lost rate fell (100 -> 10 of 500000)");
	is_u64(ju64(r, "pairs.0.exposure.migrations.old"), 1000000, "exposure: OLD 10^6 migrations");
	is_u64(ju64(r, "pairs.0.exposure.migrations.new"), 100000, "exposure: NEW 10^5 migrations");
	is_str(jstr(r, "pairs.0.exposure.migrations.old_source"), "mover.migrations_sched",
	       "exposure: read from mover.migrations_sched");
	ok(jdbl(r, "pairs.0.exposure.migrations.ratio") == 0.1, "exposure: ratio 0.1");
	ok(jdbl(r, "pairs.0.exposure.migrations.old_per_overflow") == 2.0 &&
	   jdbl(r, "pairs.0.exposure.migrations.new_per_overflow") == 0.2,
	   "exposure: 2 -> 0.2 migrations per overflow");
	ok(json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.differs")),
	   "exposure: migrations differ more than 2x");
	ok(jdbl(r, "pairs.0.exposure.migrations.lost.old") == 100.0 &&
	   jdbl(r, "pairs.0.exposure.migrations.lost.new") == 100.0,
	   "exposure: 100 lost per 10^6 migrations on both");
	ok(jdbl(r, "pairs.0.exposure.migrations.lost.p") > 0.999, "exposure: p = 1 per migration");
	is_str(jstr(r, "pairs.0.exposure.migrations.lost.change"), "same",
	       "exposure: per migration nothing changed");
	ok(json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.lost.decides")),
	   "exposure: the mover ran on both sides, so the rate per migration decides");
	ok(!json_object_get_boolean(jget(r, "pairs.0.exposure.overflows.lost.decides")),
	   "exposure: per overflow is shown, Fisher's lost rate decides");
	ok(jdbl(r, "pairs.0.exposure.overflows.lost.old") == 200.0 &&
	   jdbl(r, "pairs.0.exposure.overflows.lost.new") == 20.0,
	   "exposure: 200 -> 20 lost per 10^6 overflows");
	ok(!json_object_get_boolean(jget(r, "pairs.0.exposure.overflows.differs")),
	   "exposure: overflows do not differ");
	ok(is_null_at(r, "pairs.0.exposure.toggles.old") && is_null_at(r, "pairs.0.exposure.toggles.new"),
	   "exposure: no toggles in lost-overflow (null)");
	is_str(jstr(r, "pairs.0.status"), "SAME", "exposure: fewer losses from 10x fewer migrations "
	       "is SAME, not IMPROVED");
	is_u64(ju64(r, "improved"), 0, "exposure: improved = 0");
	ok(has_str(r, "pairs.0.also", "not credited (NEW had 0.1x the migrations per overflow of "
		   "OLD): lost rate fell"), "exposure: the lost rate's fall is listed, not credited");
	ok(has_str(r, "pairs.0.notes", "migrations differ more than 2x: 1000000 -> 100000 (0.1x"),
	   "exposure: the note says the migrations differ more than 2x");
	ok(has_str(r, "pairs.0.notes", "NEW was exposed less"), "exposure: ... and which way");
	ok(has_str(r, "pairs.0.notes", "mover rate 100000 -> 10000 rebinds/s"),
	   "exposure: the mover rate is named");
	json_object_put(r);

	r = compare("exposure/old.json", "exposure/new-worse.json", PMS_CMP_ALPHA);
	is_str(jstr(r, "pairs.0.rates.lost.change"), "fell", "exposure worse: per overflow it fell");
	is_str(jstr(r, "pairs.0.status"), "REGRESSED",
	       "exposure worse: 100 -> 500 lost per 10^6 migrations is REGRESSED");
	ok(has_str(r, "pairs.0.why", "lost per 10^6 migrations rose 100 -> 500 (100 in 1000000 -> "
		   "50 in 100000), p = 1.5e-16"), "exposure worse: why names the rate per migration");
	ok(has_str(r, "pairs.0.also", "not credited"), "exposure worse: the per-overflow fall is "
	   "not credited");
	json_object_put(r);

	r = compare("exposure/old.json", "exposure/new-better.json", PMS_CMP_ALPHA);
	is_str(jstr(r, "pairs.0.status"), "IMPROVED",
	       "exposure better: no losses, per migration too, is IMPROVED");
	ok(has_str(r, "pairs.0.why", "lost per 10^6 migrations fell 100 -> 0"),
	   "exposure better: why names the rate per migration");
	ok(has_str(r, "pairs.0.why", "lost rate fell") && !has_str(r, "pairs.0.also", "not credited"),
	   "exposure better: the per-overflow fall is credited then");
	json_object_put(r);

	/* The other way round: more exposure and more losses is never excused. */
	r = compare("exposure/new-equal.json", "exposure/old.json", PMS_CMP_ALPHA);
	is_str(jstr(r, "pairs.0.status"), "REGRESSED",
	       "exposure reversed: a rise per overflow still regresses (never withheld)");
	ok(has_str(r, "pairs.0.notes", "NEW was exposed more"), "exposure reversed: noted");
	json_object_put(r);

	/* Five times as long at the same pace: the totals differ, the rates compare. */
	r = compare("exposure/old.json", "exposure/new-longer.json", PMS_CMP_ALPHA);
	ok(json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.differs")),
	   "exposure longer: 5x the migrations in all is said to differ");
	ok(has_str(r, "pairs.0.notes", "but not per overflow (2 -> 2): the runs differ in length"),
	   "exposure longer: ... but not per overflow");
	ok(has_str(r, "pairs.0.notes", "overflows differ more than 2x: 500000 -> 2500000 (5x)"),
	   "exposure longer: the overflows too");
	is_str(jstr(r, "pairs.0.status"), "SAME", "exposure longer: SAME");
	ok(!has_str(r, "pairs.0.also", "not credited"), "exposure longer: nothing withheld");
	json_object_put(r);

	/* Fallbacks: the perf counter's migrations, then the mover's requests. */
	r = compare("exposure/old.json", "exposure/new-counted.json", PMS_CMP_ALPHA);
	is_str(jstr(r, "pairs.0.exposure.migrations.new_source"), "mover.migrations_counted",
	       "exposure fallback: migrations_sched null -> migrations_counted");
	is_u64(ju64(r, "pairs.0.exposure.migrations.new"), 40000, "exposure fallback: 40000 counted");
	ok(!json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.lost.decides")),
	   "exposure fallback: a rate per another measure of migrations does not decide");
	ok(has_str(r, "pairs.0.notes", "migrations read from mover.migrations_sched on OLD and "
		   "mover.migrations_counted on NEW"), "exposure fallback: the sources are named");
	is_str(jstr(r, "pairs.0.status"), "SAME", "exposure fallback: SAME");
	json_object_put(r);
	r = compare("exposure/old.json", "exposure/new-requested.json", PMS_CMP_ALPHA);
	is_str(jstr(r, "pairs.0.exposure.migrations.new_source"), "mover.rebinds_requested",
	       "exposure fallback: no migration counts -> mover.rebinds_requested");
	ok(json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.driven")),
	   "exposure fallback: a mover without 'enabled' that rebound was on");
	json_object_put(r);
}

/* disable-storm: toggles are the exposure; the mover was off. */
static void test_toggles(void)
{
	json_object *r = compare("toggles/old.json", "toggles/new.json", PMS_CMP_ALPHA);

	is_str(jstr(r, "pairs.0.rates.lost.change"), "same", "toggles: per overflow the same 12");
	is_u64(ju64(r, "pairs.0.exposure.toggles.old"), 1000000, "toggles: OLD 10^6 toggles");
	is_str(jstr(r, "pairs.0.exposure.toggles.new_source"), "disable_storm.toggles",
	       "toggles: read from disable_storm.toggles");
	ok(jdbl(r, "pairs.0.exposure.toggles.lost.old") == 12.0 &&
	   jdbl(r, "pairs.0.exposure.toggles.lost.new") == 120.0,
	   "toggles: 12 -> 120 lost per 10^6 toggles");
	is_str(jstr(r, "pairs.0.status"), "REGRESSED", "toggles: ten times the loss per toggle");
	ok(!json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.driven")) &&
	   !json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.lost.decides")),
	   "toggles: migrations with the mover off do not decide");
	ok(is_null_at(r, "pairs.0.exposure.migrations.lost.old"),
	   "toggles: no rate per 0 migrations (null)");
	ok(has_str(r, "pairs.0.notes", "toggles differ more than 2x"), "toggles: exposure noted");
	json_object_put(r);
}

/*
 * disable-storm with a control: the same storm (12 lost of 10000) after a
 * clean 40000-overflow control is the SAME, not an improvement diluted by
 * the control's overflows.
 */
static void test_storm_control(void)
{
	json_object *r = compare("toggles/old.json", "toggles/new-control.json", PMS_CMP_ALPHA);

	ok(ju64(r, "pairs.0.rates.lost.new_events") == 12 &&
	   ju64(r, "pairs.0.rates.lost.new_trials") == 10000,
	   "storm control: NEW's lost rate is the storm's, 12 of 10000");
	is_str(jstr(r, "pairs.0.rates.lost.change"), "same", "storm control: the same rate");
	is_str(jstr(r, "pairs.0.status"), "SAME", "storm control: SAME, not IMPROVED");
	ok(has_str(r, "pairs.0.notes", "NEW: lost per overflow is the storm's alone"),
	   "storm control: the note says the control was left out");
	json_object_put(r);
}

static void test_causes(void)
{
	json_object *r = compare("causes/old.json", "causes/new.json", PMS_CMP_ALPHA), *c;

	ok(json_object_get_boolean(jget(r, "pairs.0.attribution.old.complete")),
	   "causes: OLD attribution complete");
	ok(jget(r, "pairs.0.attribution.new.complete") &&
	   !json_object_get_boolean(jget(r, "pairs.0.attribution.new.complete")),
	   "causes: NEW attribution incomplete");
	is_str(jstr(r, "pairs.0.attribution.old.dominant"), "migration", "causes: OLD dominant");
	is_str(jstr(r, "pairs.0.attribution.new.dominant"), "throttle", "causes: NEW dominant");
	is_u64(ju64(r, "pairs.0.attribution.old.unexplained"), 15, "causes: OLD 15 unexplained");
	is_u64(ju64(r, "pairs.0.attribution.new.unexplained"), 8, "causes: NEW 8 unexplained");
	is_u64(ju64(r, "pairs.0.attribution.old.claimed"), 35, "causes: OLD 35 claimed");
	c = cause(r, "throttle");
	ok(c && ju64(c, "old") == 0 && ju64(c, "new") == 40, "causes: throttle 0 -> 40");
	c = cause(r, "migration");
	ok(c && ju64(c, "old") == 30 && ju64(c, "new") == 2, "causes: migration 30 -> 2");
	c = cause(r, "switch_out");
	ok(c && ju64(c, "old") == 5 && jget(c, "new") && ju64(c, "new") == 0,
	   "causes: switch_out 5 -> 0 (absent from NEW's list: claimed none)");
	is_u64(jlen(r, "pairs.0.attribution.causes"), 7, "causes: every cause listed once");
	is_u64(jlen(r, "pairs.0.known_issues_matched.old"), 1,
	   "causes: OLD matched one known issue (one that only applies is left out)");
	is_str(jstr(r, "pairs.0.known_issues_matched.old.0"), "armv8pmu-pending-overflow-sched-out",
	       "causes: OLD matched armv8pmu-pending-overflow-sched-out");
	is_u64(jlen(r, "pairs.0.known_issues_matched.new"), 2, "causes: NEW matched two");
	ok(has_str(r, "pairs.0.notes", "known issue matched on NEW only: sigtrap-irq-work-delay"),
	   "causes: the new match is noted");
	json_object_put(r);
}

static void test_sysctl(void)
{
	json_object *r = compare("sysctl/old.json", "sysctl/new.json", PMS_CMP_ALPHA);

	ok(has_diff(r, "host.sysctl.perf_event_max_sample_rate", "100000", "25000"),
	   "sysctl: perf_event_max_sample_rate 100000 -> 25000 is an environment difference");
	ok(json_object_get_boolean(jget(r, "pairs.0.conditions.perf_event_max_sample_rate.differs")),
	   "sysctl: the condition perf_event_max_sample_rate differs");
	ok(has_str(r, "pairs.0.notes", "kernel.perf_event_max_sample_rate 100000 -> 25000: the "
		   "ceiling on perf interrupts per second differs"), "sysctl: named in the notes");
	ok(json_object_get_boolean(jget(r, "pairs.0.conditions.throttled_during_run.new")) &&
	   !json_object_get_boolean(jget(r, "pairs.0.conditions.throttled_during_run.old")),
	   "sysctl: NEW throttled during the run, OLD not");
	ok(has_str(r, "pairs.0.notes", "NEW was throttled during the run: the kernel lowered "
		   "kernel.perf_event_max_sample_rate 25000 -> 12500"),
	   "sysctl: the throttling is named with its before and after");
	ok(!has_str(r, "pairs.0.notes", "OLD was throttled"), "sysctl: OLD is not said throttled");
	is_u64(jlen(r, "pairs.0.differences"), 1, "sysctl: nothing else differs");
	is_str(jstr(r, "pairs.0.status"), "SAME", "sysctl: SAME (same counts)");
	json_object_put(r);
}

static void test_argv(void)
{
	json_object *r = compare("argv/old.json", "argv/new.json", PMS_CMP_ALPHA);

	ok(!json_object_get_boolean(jget(r, "pairs.0.environment_differs")),
	   "argv: the same options typed differently are not an environment difference");
	is_u64(jlen(r, "pairs.0.differences"), 0, "argv: no differences");
	is_u64(jlen(r, "pairs.0.notes"), 0, "argv: no notes");
	is_str(jstr(r, "pairs.0.status"), "SAME", "argv: SAME");
	json_object_put(r);

	r = compare("argv/old.json", "argv/new-tolerance.json", PMS_CMP_ALPHA);
	ok(has_diff(r, "options.tolerance", "10%", "5%"),
	   "argv: a parsed option that differs (tolerance 10%% -> 5%%) is listed");
	is_u64(jlen(r, "pairs.0.differences"), 1, "argv: and only it");
	json_object_put(r);
}

/* Results from before attribution, trace, sysctl_during_run and known_issues. */
static void test_old_baseline(void)
{
	json_object *r = compare("old-baseline/old.json", "old-baseline/new.json", PMS_CMP_ALPHA);
	char path[512];
	struct stat st;

	is_u64(jlen(r, "pairs"), 1, "old baseline: pairs with a new result");
	ok(is_null_at(r, "pairs.0.attribution.old") && jget(r, "pairs.0.attribution.new"),
	   "old baseline: attribution null on OLD, present on NEW");
	ok(is_null_at(r, "pairs.0.known_issues_matched.old") &&
	   jlen(r, "pairs.0.known_issues_matched.new") == 0,
	   "old baseline: known issues null on OLD, none matched on NEW");
	ok(is_null_at(r, "pairs.0.conditions.throttled_during_run.old") &&
	   is_null_at(r, "pairs.0.conditions.perf_event_max_sample_rate_before.old"),
	   "old baseline: no sysctl_during_run on OLD (null)");
	ok(!json_object_get_boolean(jget(r, "pairs.0.conditions.throttled_during_run.differs")),
	   "old baseline: null is not a difference");
	is_u64(ju64(r, "pairs.0.exposure.migrations.old"), 135227,
	       "old baseline: its migrations_sched is the exposure");
	ok(jget(r, "pairs.0.exposure.migrations.lost.decides") &&
	   json_object_get_boolean(jget(r, "pairs.0.exposure.migrations.lost.decides")),
	   "old baseline: the rate per migration decides");
	ok(has_str(r, "pairs.0.notes", "scheduler trace not recorded -> used"),
	   "old baseline: the trace taken only on NEW is named");
	json_object_put(r);

	/* The committed baselines themselves, when this is a full tree. */
	fixture(path, sizeof(path), "../../../results/baseline/emulated-arm64/6.1.0-56-arm64");
	if (stat(path, &st)) {
		printf("# committed baselines not found (%s): not compared\n", path);
		return;
	}
	r = compare("../../../results/baseline/emulated-arm64/6.1.0-56-arm64",
		    "../../../results/baseline/emulated-arm64/6.12.117+deb12-arm64", PMS_CMP_ALPHA);
	/*
	 * One pair per run label, sigtrap's apart: compare does not yet key
	 * on sigtrap's own options, so its five runs pool into two pairs.
	 */
	{
		size_t i, n = jlen(r, "pairs"), sig = 0;
		char key[64];

		for (i = 0; i < n; i++) {
			json_object *sc;

			snprintf(key, sizeof(key), "pairs.%zu.key.scenario", i);
			sc = jget(r, key);
			sig += sc && !strcmp(json_object_get_string(sc), "sigtrap");
		}
		is_u64(n - sig, 14, "committed baselines 6.1 -> 6.12: 14 pairs, one per run, "
		       "besides sigtrap's");
		is_u64(sig, 2, "committed baselines: sigtrap's runs pool into 2 pairs");
	}
	ok(!is_null_at(r, "pairs.11.attribution.old") && !is_null_at(r, "pairs.11.attribution.new"),
	   "committed baselines: attribution on both sides of the mover run");
	is_u64(ju64(r, "pairs.11.exposure.migrations.new"), 105800,
	       "committed baselines: 6.12's mover run migrated 105800 times");
	json_object_put(r);
}

/* Counts that contradict each other or cannot be counts: refused, never tested. */
static void test_inconsistent(void)
{
	static const struct {
		const char *file, *msg, *name;
	} cases[] = {
		{ "inconsistent/count-2-64.json", "oracle.lost is 2^64 - 1 or more, past 2^53",
		  "a count of 2^64 (json-c reads it as 2^64 - 1)" },
		{ "inconsistent/count-2-53.json", "oracle.signals is 9007199254740993, past 2^53",
		  "a count past 2^53" },
		{ "inconsistent/lost-past-overflows.json",
		  "oracle.lost (60000) is more than oracle.overflows_implied (50000)",
		  "more lost than overflows" },
		{ "inconsistent/classes-sum.json", "add up to 49000, not oracle.signals (50000)",
		  "classes that do not add up to the signals" },
		{ "inconsistent/signalled-and-lost.json",
		  "50100 overflows signalled or lost", "more signalled and lost than overflows" },
		{ "inconsistent/interrupted-not-boolean.json", "interrupted is not a boolean",
		  "interrupted that is not a boolean" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		load_fails(cases[i].file, cases[i].file, -EINVAL, cases[i].msg, cases[i].name);
}

/* An interrupted run is compared, and flagged wherever the pair is reported. */
static void test_interrupted(void)
{
	json_object *r = compare("interrupted/old.json", "interrupted/new.json", PMS_CMP_ALPHA);

	is_u64(jlen(r, "pairs"), 1, "interrupted: still paired");
	ok(json_object_get_boolean(jget(r, "pairs.0.incomplete")),
	   "interrupted: the pair is incomplete");
	is_u64(ju64(r, "pairs.0.old.runs_interrupted"), 0, "interrupted: none on OLD");
	is_u64(ju64(r, "pairs.0.new.runs_interrupted"), 1, "interrupted: one on NEW");
	is_u64(ju64(r, "new_interrupted"), 1, "interrupted: the report counts it");
	is_u64(ju64(r, "old_interrupted"), 0, "interrupted: and none on OLD");
	ok(has_str(r, "pairs.0.notes", "NEW: 1 of 1 run ended early by SIGINT or SIGTERM"),
	   "interrupted: a note says NEW's counts are partial");
	json_object_put(r);

	r = compare("regression/old.json", "regression/new.json", PMS_CMP_ALPHA);
	ok(r && jget(r, "pairs.0") && !json_object_get_boolean(jget(r, "pairs.0.incomplete")) &&
	   !has_str(r, "pairs.0.notes", "interrupted"), "complete runs: not incomplete");
	json_object_put(r);
}

int main(int argc, char **argv)
{
	struct stat st;
	char path[512];

	fixtures = argc > 1 ? argv[1] : getenv("PMS_FIXTURES");
	if (!fixtures)
		fixtures = "tests/fixtures";
	fixture(path, sizeof(path), "");
	if (stat(path, &st)) {
		/* The fixtures ship with the tests: missing means a wrong cwd, not a skip. */
		printf("Bail out! fixtures not found under %s (pass the directory or set "
		       "PMS_FIXTURES)\n", path);
		return 1;
	}
	test_fisher();
	test_poisson();
	test_regression();
	test_improvement();
	test_noise();
	test_environment();
	test_aux_abi();
	test_timer();
	test_bad_files();
	test_special_inputs();
	test_directories();
	test_exposure();
	test_toggles();
	test_storm_control();
	test_causes();
	test_sysctl();
	test_argv();
	test_old_baseline();
	test_inconsistent();
	test_interrupted();
	return tap_done();
}
