/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_SCENARIO_H
#define PMS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <hwloc.h>
#include <json-c/json.h>

#include "pms-opt.h"

enum pms_verdict {
	PMS_VERDICT_PASS,
	PMS_VERDICT_FAIL,	/* the bug was reproduced */
	PMS_VERDICT_SKIP,	/* what the scenario needs is missing here */
	PMS_VERDICT_ERROR,	/* the run could not be set up or did not measure */
	PMS_VERDICT_ENVIRONMENT,	/* signals were held back by configuration, not a
					 * kernel bug: throttling, multiplexing, a full
					 * signal queue */
};

/* Why setup stopped; cmd/ maps these to exit statuses. */
enum pms_status {
	PMS_OK = 0,
	PMS_E_USAGE,		/* options that cannot go together, bad tolerance... */
	PMS_E_CPUS,		/* bad CPU list */
	PMS_E_EVENT,		/* unknown or malformed event spec / exclude list */
	PMS_E_SETUP,		/* the system refused (perf_event_open, threads...) */
	PMS_E_SKIP,		/* needed hardware is missing */
};

struct pms_run;

/*
 * A scenario plugin: a const struct with designated initialisers, listed
 * once in scenarios/scenarios.h.
 */
struct pms_scenario {
	const char *name;
	const char *summary;	/* one line */
	const char *seed;	/* the bug report it reproduces */
	const char *needs;	/* what it needs, for `list` and help */
	/* run->priv: this many zeroed bytes before setup, freed after teardown */
	size_t priv_size;
	const struct pms_opt_desc *opts;	/* set both with PMS_SCENARIO_OPTS() */
	size_t nr_opts;
	/* NULL or a reason this machine cannot run it (returns true). */
	bool (*unsupported)(const struct pms_run *run, char *why, size_t len);
	/* NULL, or how it would run here, for `list` (when it has no counter). */
	void (*availability)(const struct pms_run *run, char *buf, size_t len);
	enum pms_status (*setup)(struct pms_run *run);
	/* Runs the measurement and sets run->verdict and run->reason. */
	void (*run)(struct pms_run *run);
	/* Always called when setup was called; puts the system back as found. */
	void (*teardown)(struct pms_run *run);
	/*
	 * NULL, or the entry of a helper process the scenario runs itself
	 * (`pmustress __helper NAME ARGS...`, e.g. a child after exec):
	 * @argv[0] is NAME.  Return: the process's exit status.
	 */
	int (*helper)(int argc, char **argv);
};

/* A descriptor's ->opts and ->nr_opts from one table: the count cannot drift from it. */
#define PMS_SCENARIO_OPTS(table) .opts = (table), .nr_opts = sizeof(table) / sizeof((table)[0])

struct pms_run {
	const struct pms_scenario *sc;
	struct pms_opts opts;
	const char *devices;	/* /sys/bus/event_source/devices */
	char arch[65];		/* uname -m */
	hwloc_topology_t topo;
	json_object *host;	/* the probe's host block (read only) */
	json_object *result;	/* the scenario adds its sections here */
	enum pms_verdict verdict;
	char reason[1024];
	bool interrupted;
	int stop_signal;
	bool tty;		/* progress may be drawn */
	/* Progress line for the terminal; NULL when nobody is watching. */
	void (*progress)(struct pms_run *run, const char *line);
	void *priv;		/* the scenario's state */
	/* This uid's pending-signal queue: overflow signals are queued there. */
	long long sigq_pending_start, sigq_limit_start;	/* SigQ; -1: unknown */
	long long sigpending_soft_before, sigpending_soft, sigpending_hard;	/* -1: unlimited */
};

/*
 * pms_run_sigq_begin - before a scenario starts: raise the soft
 * RLIMIT_SIGPENDING to the hard one (queued overflow signals count
 * against it; past it the kernel falls back to a plain SIGIO), record both
 * and this uid's SigQ.
 * Return: true when another process already holds most of the queue (the
 * caller warns: lib never prints).
 */
bool pms_run_sigq_begin(struct pms_run *run);

/* pms_run_sigq_end - the `signal_queue` section: the limits and SigQ at start and end. */
json_object *pms_run_sigq_end(const struct pms_run *run);

/* Options every scenario takes, before its own. */
extern const struct pms_opt_desc pms_common_opts[];
extern const size_t pms_nr_common_opts;

/**
 * pms_run_wait - wait up to @ns for SIGINT/SIGTERM, which the CLI blocks in
 * every thread before a scenario starts, so this is where they arrive.
 * Return: true once interrupted (also sets run->interrupted).
 */
bool pms_run_wait(struct pms_run *run, uint64_t ns);

/* Append "; " and a formatted finding to run->reason, never past its end. */
void pms_run_append_reason(struct pms_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct pms_recorder;

/**
 * pms_run_recorder - install the overflow recorder for @signo with room for
 * --max-signals, and the fault injection of --inject-drop-every and
 * --inject-stop-after where the scenario has those options.
 * Return: PMS_OK, or PMS_E_SETUP with run->reason set.
 */
enum pms_status pms_run_recorder(struct pms_run *run, struct pms_recorder *rec, int signo);

/* @host's string member @a.@b ("cpu", "midr"), or NULL when absent or not a string. */
const char *pms_host_str(json_object *host, const char *a, const char *b);

struct pms_workload;
struct pms_event;
struct pms_thread;

/* The workload @ev needs, in @w.  Return: PMS_OK, or PMS_E_SETUP with the reason. */
enum pms_status pms_run_workload(struct pms_run *run, struct pms_workload *w,
				 const struct pms_event *ev);

/*
 * Start @t running @fn(@arg); @what names the thread in the reason if it
 * cannot start.  Return: PMS_OK or PMS_E_SETUP.
 */
enum pms_status pms_run_thread(struct pms_run *run, struct pms_thread *t, void *(*fn)(void *),
			       void *arg, const char *what);

/**
 * pms_run_known_issues - the known-bug table's view of this run: adds the
 * `known_issues` section (entries that apply or match, with why) and, on a
 * fail, appends "matches: ID..." or "no known bug matches: possibly new" to
 * the reason.
 * @cause: the dominant cause of the run's anomalies, or NULL
 * @exclude_kernel: the counter's exclude_kernel bit, -1 unknown
 */
void pms_run_known_issues(struct pms_run *run, const char *cause, int exclude_kernel);

/*
 * pms_run_known_issues() for a finding of another PMU than the core one
 * (@pmu as sysfs names it: "arm_spe_0").
 */
void pms_run_known_issues_pmu(struct pms_run *run, const char *cause, int exclude_kernel,
			      const char *pmu);

/* pms_run_known_issues() for a run whose event had attr.sigtrap set. */
void pms_run_known_issues_sigtrap(struct pms_run *run, const char *cause, int exclude_kernel);

const char *pms_verdict_name(enum pms_verdict v);

/**
 * pms_parse_tolerance - "10%" of @period or an absolute count "1000".
 * Return: 0 or -EINVAL (tolerance must be below the period).
 */
int pms_parse_tolerance(const char *text, uint64_t period, uint64_t *tol);

#endif
