/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_CMD_H
#define PMS_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>

/*
 * Exit statuses.  0/1/4 are kselftest's pass/fail/skip so kernel CI reads
 * them as it reads a selftest; the rest are distinct per kind of problem so
 * a script can tell a typo from a kernel refusing an event.
 */
enum {
	PMS_EXIT_PASS = 0,
	PMS_EXIT_FAIL = 1,		/* the bug was reproduced */
	PMS_EXIT_SKIP = 4,		/* needed hardware missing */
	PMS_EXIT_USAGE = 64,		/* unknown command or option, bad option value */
	PMS_EXIT_SCENARIO = 65,		/* unknown scenario */
	PMS_EXIT_CPUS = 66,		/* bad CPU list */
	PMS_EXIT_EVENT = 67,		/* unknown event or bad event spec / exclude list */
	PMS_EXIT_JSON_INPUT = 68,	/* unreadable or malformed JSON input */
	PMS_EXIT_PLAN = 68,		/* a suite's plan: unreadable, or a bad line */
	PMS_EXIT_SETUP = 69,		/* the run could not be set up (kernel refused...) */
	PMS_EXIT_ERROR = 70,		/* the run went but measured nothing usable */
	PMS_EXIT_OUTPUT = 73,		/* the result cannot be written */
	PMS_EXIT_INTERRUPTED = 130,	/* SIGINT/SIGTERM: partial result written */
};

/*
 * --bisect: what `git bisect run` understands.  0 good, 1 bad (the kernel
 * was caught: a fail), 125 this commit cannot be tested (skip, environment,
 * error, set-up failure, timeout, interrupted), and 128 for a command that
 * is wrong whatever the commit (bad usage, unknown scenario, bad plan, an
 * unwritable result): git aborts the bisection on it rather than mark every
 * commit bad.
 */
enum {
	PMS_BISECT_GOOD = 0,
	PMS_BISECT_BAD = 1,
	PMS_BISECT_UNTESTABLE = 125,
	PMS_BISECT_ABORT = 128,
};

/* A run's exit status as --bisect reports it. */
int pms_bisect_status(int status);

/*
 * One run of a suite as a bisection sees it: good (passed, or met its
 * expectation), bad (failed, not expected to), untestable (error, timeout,
 * crash, or a control that missed its expectation), or neutral (skip,
 * environment: it says nothing about this commit).
 */
enum pms_bisect_class { PMS_BISECT_NEUTRAL, PMS_BISECT_IS_GOOD, PMS_BISECT_IS_BAD,
			PMS_BISECT_IS_UNTESTABLE };
enum pms_bisect_class pms_bisect_class(int outcome, unsigned int expect);

/* A suite's --bisect status from its runs' classes. */
int pms_bisect_suite(const enum pms_bisect_class *cls, size_t n, bool interrupted);

struct pms_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;	/* one line for the command list */
	const char *help;	/* `pmustress help NAME`, `pmustress NAME --help` */
};

const struct pms_command *pms_command_find(const char *name);

/* The command list and exit statuses. */
void pms_usage(FILE *f);

/* A command's help on stdout (run's with the common options). Return: 0. */
int pms_help_command(const struct pms_command *c);

int cmd_run(int argc, char **argv);
/* `run --suite NAME|FILE` and `run all` (cmd/suite.c); @argv[0] is "run". */
int cmd_suite(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_known_issues(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* One-line error on stderr, "pmustress: ..." */
void pms_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Human summary of a result object. */
void pms_print_result(FILE *f, json_object *result, long show_anomalies);

#define PMS_DEVICES "/sys/bus/event_source/devices"

#endif
