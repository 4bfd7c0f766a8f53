/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_PLAN_H
#define PMS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "pms-scenario.h"

/*
 * A suite's plan: a versioned text file, one run per line.
 *
 *	# comment (a word that starts with # starts one, to the end of the line)
 *	pmustress-suite 1			first line that is not blank or a comment
 *	name nightly				optional (default: the file's name), once
 *	run LABEL SCENARIO [--option [VALUE]]... [expect=VERDICT[,VERDICT]...] [timeout=TIME]
 *
 * Words are separated by blanks; there is no quoting (no option value of
 * a scenario needs a blank).  A LABEL names the run's files (LABEL.json,
 * LABEL.log): letters, digits, '.', '_' and '-', starting with a letter
 * or digit, at most 64 characters, unique in the plan, never "index".
 * The options are checked against the scenario's option table (and the
 * common one) when the plan is read, so a typo fails before anything runs.
 * A run's outcome is one of the verdicts of a result, or timeout or crash,
 * which only the runner can see.
 */
#define PMS_PLAN_VERSION	1		/* the newest format this build reads */
#define PMS_PLAN_LABEL_MAX	64
#define PMS_PLAN_MAX_BYTES	(1 << 20)	/* a plan is text a person wrote */
#define PMS_PLAN_MAX_RUNS	1000
#define PMS_PLAN_MAX_WORDS	256		/* words on one line */

enum pms_outcome {
	PMS_OUTCOME_PASS,
	PMS_OUTCOME_FAIL,
	PMS_OUTCOME_SKIP,
	PMS_OUTCOME_ERROR,
	PMS_OUTCOME_ENVIRONMENT,
	PMS_OUTCOME_TIMEOUT,	/* the runner stopped it at its time limit */
	PMS_OUTCOME_CRASH,	/* killed by a signal the runner did not send */
	PMS_NR_OUTCOMES
};

/* "pass", "fail", ...; NULL past the end. */
const char *pms_outcome_name(enum pms_outcome o);
/* The outcome called @name, or -1. */
int pms_outcome_parse(const char *name);

struct pms_plan_run {
	char label[PMS_PLAN_LABEL_MAX + 1];
	const struct pms_scenario *sc;
	unsigned int line;		/* in the plan file; 0 when not from a file */
	int argc;			/* the options as written */
	char **argv;			/* NULL-terminated */
	unsigned int expect;		/* bit (1 << outcome) per accepted outcome; 0: any */
	uint64_t timeout_ns;		/* timeout=; 0: the runner's default */
	uint64_t duration_ns;		/* --duration as the option table resolves it */
};

struct pms_plan {
	unsigned int version;
	char name[PMS_PLAN_LABEL_MAX + 1];
	struct pms_plan_run *runs;
	size_t nr_runs;
};

/**
 * pms_plan_parse - read a plan from @text (@len bytes; NUL bytes are an
 * error) into @plan (zeroed by the caller; free it with pms_plan_free()
 * whatever this returns).
 * @file: the name used in error messages and for the default plan name
 * @scenarios: the registry (@nr entries) a run's SCENARIO is looked up in
 * @err: on failure one line, "FILE:LINE: what is wrong"
 *
 * Return: 0; -EINVAL for a bad line (missing or future version line,
 * unknown keyword, bad or duplicate label, bad verdict or timeout, no run
 * line), -ENOENT for an unknown scenario, -EDOM for options the
 * scenario's table refuses, -ENOMEM.
 */
int pms_plan_parse(struct pms_plan *plan, const char *file, const char *text, size_t len,
		   const struct pms_scenario *const *scenarios, size_t nr,
		   char *err, size_t errlen);

/**
 * pms_plan_add_run - append a run to @plan, its options (@argc words of
 * @argv, copied) checked against @sc's option table as a plan line's are.
 * @where: the "FILE:LINE" the error message starts with
 * Return: 0; -EINVAL (bad or duplicate label), -EDOM (options), -ENOMEM.
 */
int pms_plan_add_run(struct pms_plan *plan, const char *where, unsigned int line,
		     const char *label, const struct pms_scenario *sc, int argc, char **argv,
		     char *err, size_t errlen);

void pms_plan_free(struct pms_plan *plan);

#endif
