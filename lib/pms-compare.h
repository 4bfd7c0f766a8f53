/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_COMPARE_H
#define PMS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/* The result format this module reads (the top-level schema_version). */
#define PMS_CMP_SCHEMA_VERSION	2
/* ... and the oldest it still reads: 1 lacks the environment verdict only. */
#define PMS_CMP_SCHEMA_OLDEST	1

/*
 * The largest count a result may hold: every count is an integer a double
 * holds exactly, which the tests need, and no run counts more (2^53
 * overflows at one per microsecond take 285 years).  json-c reads any
 * number from 2^64 up as 2^64 - 1, so this also catches those.
 */
#define PMS_CMP_COUNT_MAX	(1ull << 53)

/* What `compare --json` prints is versioned apart from the result format. */
#define PMS_CMP_REPORT_VERSION	1

/* Default significance level of the per-rate test. */
#define PMS_CMP_ALPHA		0.05

/* Rates against exposure are given per this many units of exposure. */
#define PMS_CMP_PER		1000000.0

/*
 * Exposures beyond this factor apart, old against new, are said to differ:
 * a kernel exposed to a tenth of the migrations has little chance to lose
 * what a migration loses.
 */
#define PMS_CMP_EXPOSURE_FACTOR	2.0

/*
 * The rates compared, each events over trials: lost over the overflows the
 * final count implies, every other class over the signals classified.  They
 * are different kernel behaviours, so each gets its own test.
 */
enum pms_cmp_rate {
	PMS_CMP_LOST,
	PMS_CMP_LATE,
	PMS_CMP_SPURIOUS,
	PMS_CMP_GAP,
	PMS_CMP_EARLY,
	PMS_CMP_COALESCED,
	PMS_CMP_BAD_SI_CODE,
	PMS_CMP_NR_RATES,
};

/*
 * What a run was exposed to, against which its losses and anomalies are also
 * counted: the migrations of the counting thread (the mover's doing), the
 * DISABLE/ENABLE toggles of disable-storm, and the overflows themselves.
 */
enum pms_cmp_unit {
	PMS_CMP_MIGRATIONS,
	PMS_CMP_TOGGLES,
	PMS_CMP_OVERFLOWS,
	PMS_CMP_NR_UNITS,
};

enum pms_cmp_verdict {
	PMS_CMP_SKIP,		/* ordered best to worst: a merged group takes the worst */
	PMS_CMP_PASS,
	PMS_CMP_ENVIRONMENT,	/* configuration held signals back: not the kernel */
	PMS_CMP_ERROR,
	PMS_CMP_FAIL,
	PMS_CMP_NR_VERDICTS,
};

/*
 * One exposure of a group, summed over its measured runs where it is known;
 * lost and anomalies are those runs' own, so that a run without the exposure
 * adds neither events nor exposure.
 */
struct pms_cmp_exposure {
	size_t runs;			/* measured runs where the exposure is known */
	size_t runs_driven;		/* ... and applied on purpose (mover on, toggler ran) */
	uint64_t value;			/* the exposure, summed */
	uint64_t lost, anomalies;	/* oracle.lost and every anomaly class, summed */
	uint64_t ovf_value, ovf;	/* exposure and overflows of the runs with both known */
	json_object *sources;		/* set of the fields the exposure was read from */
};

/*
 * Every result of one side that shares a pairing key, merged: counts are
 * summed, and each environment field keeps the set of values its runs had.
 */
struct pms_cmp_group {
	json_object *key;		/* {"scenario": ..., "counter.name": ..., ...} */
	json_object *files;		/* array of the paths merged, in load order */
	size_t runs;
	size_t runs_measured;		/* runs with an oracle section */
	size_t runs_interrupted;	/* runs SIGINT/SIGTERM ended early: partial counts */
	size_t runs_storm_only;		/* disable-storm runs whose lost rate is the storm's */
	size_t runs_no_final;		/* ... whose overflows_implied was null */
	size_t verdicts[PMS_CMP_NR_VERDICTS];
	uint64_t signals, lost, overflows;
	uint64_t events[PMS_CMP_NR_RATES], trials[PMS_CMP_NR_RATES];
	bool judged[PMS_CMP_NR_RATES];	/* judged in every measured run */
	json_object *env;		/* field -> array of its distinct values */
	json_object *abi;		/* aux-pause: case -> array of the errnos seen */
	size_t runs_abi;		/* runs with an ABI matrix */
	uint64_t anomalies;		/* every anomaly class, summed (oracle.anomalies.total) */
	struct pms_cmp_exposure expo[PMS_CMP_NR_UNITS];
	size_t runs_rate;		/* runs with mover rebinds and seconds */
	uint64_t rebinds;
	double mover_seconds;
	size_t runs_attrib;		/* runs with an attribution section */
	size_t runs_attrib_complete;	/* ... that says complete */
	uint64_t unexplained;
	json_object *claimed;		/* cause -> claimed, summed; NULL without attribution */
	size_t runs_known;		/* runs with a known_issues section */
	json_object *known;		/* set of the known-issue ids that matched */
	json_object *cond;		/* named condition -> array of its distinct values */
	json_object *opts;		/* option -> array of its distinct values */
};

struct pms_cmp_side {
	char *path;
	struct pms_cmp_group *groups;
	size_t nr_groups;
	size_t nr_results;		/* result files loaded */
	size_t nr_ignored;		/* *.json in a directory that are not results */
	size_t nr_interrupted;		/* results of runs ended early by a signal */
};

/**
 * pms_cmp_rate_name - name of a compared rate in the report: "lost", "late", ...
 * @rate: the rate
 *
 * Return: a static string, "unknown" out of range.
 */
const char *pms_cmp_rate_name(enum pms_cmp_rate rate);

/**
 * pms_cmp_verdict_name - "pass", "fail", "skip" or "error"
 * @v: the verdict
 *
 * Return: a static string, "unknown" out of range.
 */
const char *pms_cmp_verdict_name(enum pms_cmp_verdict v);

/**
 * pms_fisher_exact - two-sided Fisher's exact test of the 2x2 table
 * [[@a, @b], [@c, @d]]
 * @a: events in the first sample
 * @b: non-events in the first sample
 * @c: events in the second sample
 * @d: non-events in the second sample
 *
 * The p-value is the sum of the hypergeometric probabilities (margins fixed)
 * of every table no more likely than the one observed, with R's relative
 * tolerance of 1e-7 for ties.  Probabilities are taken in log space from
 * lgamma, and only the tables that contribute are summed, so counts of
 * millions cost microseconds and do not overflow.
 *
 * Return: p in [0, 1] (0 only when it underflows a double); 1 when a margin
 * is empty; NaN when the counts overflow 64 bits.
 */
double pms_fisher_exact(uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/**
 * pms_poisson_rate_test - two-sided test that two Poisson counts, each over its
 * exposure, have one rate
 * @k1: events in the first sample
 * @e1: its exposure (migrations, toggles, overflows...)
 * @k2: events in the second sample
 * @e2: its exposure
 *
 * Given the total n = @k1 + @k2, @k1 is Binomial(n, @e1 / (@e1 + @e2)) when
 * the rates are equal (the conditional test, R's poisson.test for two
 * samples).  The p-value is the sum of the binomial probabilities of every
 * outcome no more likely than @k1, with the same tolerance for ties and the
 * same log-space tail sums as pms_fisher_exact().
 *
 * Return: p in [0, 1]; 1 when @k1 + @k2 is 0; NaN when an exposure is 0 or the
 * counts overflow 64 bits.
 */
double pms_poisson_rate_test(uint64_t k1, uint64_t e1, uint64_t k2, uint64_t e2);

/**
 * pms_cmp_unit_name - "migrations", "toggles" or "overflows"
 * @unit: the exposure
 *
 * Return: a static string, "unknown" out of range.
 */
const char *pms_cmp_unit_name(enum pms_cmp_unit unit);

/**
 * pms_cmp_load - load one side of a comparison
 * @path: a result file, or a directory searched recursively for *.json
 * @side: filled in; release with pms_cmp_side_free() whatever the return
 * @err: on failure, one line "FILE: problem"
 * @errlen: size of @err
 *
 * A file named directly must be a result; it may be a pipe or a device
 * (compare A <(ssh host cat B)), read up to PMS_JSON_MAX_BYTES like any
 * file.  In a directory, a *.json whose top level lacks schema_version or
 * scenario is counted in nr_ignored (it is something else, such as a
 * schema); but malformed JSON, an unsupported schema_version, a result
 * whose counts are not counts or contradict each other (a count past
 * PMS_CMP_COUNT_MAX, more lost than overflows implied, classes that do not
 * add up to the signals, more overflows signalled and lost than implied), or
 * a *.json symlink to anything but a regular file or a directory is an
 * error.  Results are read in path order and merged into groups by pairing
 * key.
 *
 * Return: 0; -ENOENT, -EACCES... when a path cannot be read; -EINVAL for
 * malformed JSON, a file that is not a result or an unsupported
 * schema_version; -EFBIG past PMS_JSON_MAX_BYTES; -ENOMEM.
 */
int pms_cmp_load(const char *path, struct pms_cmp_side *side, char *err, size_t errlen);

/**
 * pms_cmp_side_free - release what pms_cmp_load() filled in (also after it
 * failed) and zero @side
 * @side: the side
 */
void pms_cmp_side_free(struct pms_cmp_side *side);

/**
 * pms_cmp_compare - pair two loaded sides and test each pair
 * @old: the baseline
 * @new: the side under test
 * @alpha: significance level, 0 < alpha < 1
 *
 * Groups pair when their keys are equal.  For each pair and each rate the
 * 2x2 table [events, trials - events], old against new, gets
 * pms_fisher_exact().  Losses and anomalies are also counted per
 * PMS_CMP_PER migrations, toggles and overflows and tested with
 * pms_poisson_rate_test(); the migrations and toggles rates decide when the
 * run applied them on purpose on both sides.  A pair is REGRESSED when its
 * verdict went from pass to fail or a judged rate rose with p < @alpha,
 * IMPROVED for the reverse (REGRESSED wins when both hold), SAME otherwise;
 * but an improvement per signal or overflow is not credited to a NEW side
 * exposed more than PMS_CMP_EXPOSURE_FACTOR times less per overflow, unless
 * its rate per exposure fell too.  Environment fields and options that
 * differ are listed, and the conditions that bear on the rates (sample-rate
 * ceiling and throttling, mover rate, CPU, VHE, pseudo-NMI, kernel command
 * line, scheduler trace) are given side by side; none of them stops the
 * comparison.  Sections a result lacks (older results) are null, not errors.
 * A run ended early by SIGINT or SIGTERM is compared but flagged: its
 * group's runs_interrupted, the pair's incomplete and a note, and the
 * report's old_interrupted and new_interrupted.
 *
 * Return: the report object (what `compare --json` prints: schema_version,
 * test, exposure_test, per, alpha, old, new, old_interrupted,
 * new_interrupted, pairs, only_old, only_new, regressed, improved, same), or
 * NULL with errno EINVAL (bad @alpha) or ENOMEM.
 */
json_object *pms_cmp_compare(const struct pms_cmp_side *old, const struct pms_cmp_side *new,
			     double alpha);

#endif
