/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_CMD_H
#define PMS_CMD_H

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
	PMS_EXIT_SETUP = 69,		/* the run could not be set up (kernel refused...) */
	PMS_EXIT_ERROR = 70,		/* the run went but measured nothing usable */
	PMS_EXIT_OUTPUT = 73,		/* the result cannot be written */
	PMS_EXIT_INTERRUPTED = 130,	/* SIGINT/SIGTERM: partial result written */
};

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
