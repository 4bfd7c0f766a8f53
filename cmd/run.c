// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmustress run SCENARIO`: options -> probe -> setup -> run -> teardown ->
 * result JSON (atomically) -> human summary -> exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd.h"
#include "pms-plan.h"
#include "pms-probe.h"
#include "pms-util.h"
#include "scenarios.h"

#define PMS_SCHEMA_VERSION 2

static void progress(struct pms_run *run, const char *line)
{
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
}

static const char *scenario_names(char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < pms_nr_scenarios; i++) {
		strncat(buf, i ? ", " : "", len - strlen(buf) - 1);
		strncat(buf, pms_scenarios[i]->name, len - strlen(buf) - 1);
	}
	return buf;
}

static int exit_for_status(enum pms_status s)
{
	switch (s) {
	case PMS_OK: return PMS_EXIT_PASS;
	case PMS_E_USAGE: return PMS_EXIT_USAGE;
	case PMS_E_CPUS: return PMS_EXIT_CPUS;
	case PMS_E_EVENT: return PMS_EXIT_EVENT;
	case PMS_E_SETUP: return PMS_EXIT_SETUP;
	case PMS_E_SKIP: return PMS_EXIT_SKIP;
	}
	return PMS_EXIT_SETUP;
}

static int exit_for_verdict(const struct pms_run *run, enum pms_status s)
{
	if (s != PMS_OK)
		return exit_for_status(s);
	if (run->interrupted && run->verdict != PMS_VERDICT_FAIL)
		return PMS_EXIT_INTERRUPTED;
	switch (run->verdict) {
	case PMS_VERDICT_PASS: return PMS_EXIT_PASS;
	case PMS_VERDICT_FAIL: return PMS_EXIT_FAIL;
	case PMS_VERDICT_SKIP: return PMS_EXIT_SKIP;
	case PMS_VERDICT_ERROR: return PMS_EXIT_ERROR;
	/* kselftest's skip: not a pass, and not the kernel's fault */
	case PMS_VERDICT_ENVIRONMENT: return PMS_EXIT_SKIP;
	}
	return PMS_EXIT_ERROR;
}

/*
 * --bisect, table-driven: every exit status of a run and what `git bisect
 * run` should make of it.  A status not in the table cannot be tested.
 * 66 and 67 can depend on the kernel under test (CPUs it brought up, PMU
 * events its driver names), so they skip the commit; usage, an unknown
 * scenario, a bad plan and an unwritable result are wrong on every commit,
 * and abort the bisection.
 */
static const struct { int status, bisect; } bisect_status_table[] = {
	{ PMS_EXIT_PASS, PMS_BISECT_GOOD },
	{ PMS_EXIT_FAIL, PMS_BISECT_BAD },
	{ PMS_EXIT_SKIP, PMS_BISECT_UNTESTABLE },	/* skip, environment */
	{ PMS_EXIT_USAGE, PMS_BISECT_ABORT },
	{ PMS_EXIT_SCENARIO, PMS_BISECT_ABORT },
	{ PMS_EXIT_CPUS, PMS_BISECT_UNTESTABLE },
	{ PMS_EXIT_EVENT, PMS_BISECT_UNTESTABLE },
	{ PMS_EXIT_PLAN, PMS_BISECT_ABORT },
	{ PMS_EXIT_SETUP, PMS_BISECT_UNTESTABLE },
	{ PMS_EXIT_ERROR, PMS_BISECT_UNTESTABLE },
	{ PMS_EXIT_OUTPUT, PMS_BISECT_ABORT },
	{ PMS_EXIT_INTERRUPTED, PMS_BISECT_UNTESTABLE },
};

int pms_bisect_status(int status)
{
	size_t i;

	for (i = 0; i < PMS_ARRAY_SIZE(bisect_status_table); i++)
		if (bisect_status_table[i].status == status)
			return bisect_status_table[i].bisect;
	return PMS_BISECT_UNTESTABLE;
}

/* A suite's run by its outcome (enum pms_outcome order). */
static const enum pms_bisect_class bisect_outcome_table[PMS_NR_OUTCOMES] = {
	[PMS_OUTCOME_PASS] = PMS_BISECT_IS_GOOD,
	[PMS_OUTCOME_FAIL] = PMS_BISECT_IS_BAD,
	[PMS_OUTCOME_SKIP] = PMS_BISECT_NEUTRAL,
	[PMS_OUTCOME_ENVIRONMENT] = PMS_BISECT_NEUTRAL,
	[PMS_OUTCOME_ERROR] = PMS_BISECT_IS_UNTESTABLE,
	[PMS_OUTCOME_TIMEOUT] = PMS_BISECT_IS_UNTESTABLE,
	[PMS_OUTCOME_CRASH] = PMS_BISECT_IS_UNTESTABLE,
};

enum pms_bisect_class pms_bisect_class(int outcome, unsigned int expect)
{
	if ((unsigned int)outcome >= PMS_NR_OUTCOMES)
		return PMS_BISECT_IS_UNTESTABLE;
	/* A control expected to fail (fault injection) that did: the tool works. */
	if (outcome == PMS_OUTCOME_FAIL && (expect & (1u << PMS_OUTCOME_FAIL)))
		return PMS_BISECT_IS_GOOD;
	/* A control that should have failed and passed: the tool's check is broken. */
	if (outcome == PMS_OUTCOME_PASS && expect && !(expect & (1u << PMS_OUTCOME_PASS)))
		return PMS_BISECT_IS_UNTESTABLE;
	return bisect_outcome_table[outcome];
}

int pms_bisect_suite(const enum pms_bisect_class *cls, size_t n, bool interrupted)
{
	bool good = false, untestable = interrupted;
	size_t i;

	for (i = 0; i < n; i++) {
		if (cls[i] == PMS_BISECT_IS_BAD)
			return PMS_BISECT_BAD;
		untestable |= cls[i] == PMS_BISECT_IS_UNTESTABLE;
		good |= cls[i] == PMS_BISECT_IS_GOOD;
	}
	/* Nothing ran that could tell (every run skipped): not a good commit either. */
	return !untestable && good ? PMS_BISECT_GOOD : PMS_BISECT_UNTESTABLE;
}

/*
 * --bisect may come anywhere among a run's options; it is the CLI's, not
 * the scenario's, so it is taken out before the option table sees them.
 */
static bool take_bisect(int *argc, char **argv)
{
	bool found = false;
	int i, j;

	for (i = j = 0; i < *argc; i++) {
		if (i >= 2 && !strcmp(argv[i], "--bisect"))
			found = true;
		else
			argv[j++] = argv[i];
	}
	*argc = j;
	argv[j] = NULL;
	return found;
}

static int default_path(const char *scenario, const char *release, char *path, size_t len)
{
	const char *dir = getenv("PMUSTRESS_RESULTS");
	char utc[32];

	if (!dir || !*dir)
		dir = "results";
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	pms_utc_string(utc, sizeof(utc), true);
	snprintf(path, len, "%s/%s-%s-%s.json", dir, scenario, release, utc);
	return 0;
}

static int run_scenario(int argc, char **argv);

int cmd_run(int argc, char **argv)
{
	bool bisect;
	int code;

	if (argc >= 2 && (!strcmp(argv[1], "all") || !strncmp(argv[1], "--suite", 7)))
		return cmd_suite(argc, argv);
	bisect = take_bisect(&argc, argv);
	code = run_scenario(argc, argv);
	return bisect ? pms_bisect_status(code) : code;
}

static int run_scenario(int argc, char **argv)
{
	struct pms_run run = { 0 };
	const struct pms_scenario *sc;
	struct pms_probe_cfg pcfg = { "/sys", "/proc", true };
	json_object *out, *host, *args, *o;
	char err[512], names[256], path[4096], start[32], end[32];
	enum pms_status st;
	sigset_t block, old;
	struct utsname u;
	bool quiet;
	int ret, code, i;
	FILE *human;

	if (argc < 2) {
		pms_err("run needs a scenario (have: %s)", scenario_names(names, sizeof(names)));
		return PMS_EXIT_USAGE;
	}
	sc = pms_scenario_find(argv[1]);
	if (!sc) {
		pms_err("unknown scenario '%s' (have: %s)", argv[1],
			scenario_names(names, sizeof(names)));
		return PMS_EXIT_SCENARIO;
	}
	run.sc = sc;
	if (pms_opts_add(&run.opts, pms_common_opts, pms_nr_common_opts) ||
	    pms_opts_add(&run.opts, sc->opts, sc->nr_opts)) {
		pms_err("internal: option tables of %s collide", sc->name);
		return PMS_EXIT_SETUP;
	}
	ret = pms_opts_parse(&run.opts, argc - 2, argv + 2, err, sizeof(err));
	if (ret) {
		pms_err("%s (see pmustress help %s)", err, sc->name);
		return PMS_EXIT_USAGE;
	}
	quiet = pms_opt_u64(&run.opts, "quiet");

	uname(&u);
	snprintf(run.arch, sizeof(run.arch), "%s", u.machine);
	run.devices = getenv("PMUSTRESS_SYSFS_DEVICES");
	if (!run.devices)
		run.devices = PMS_DEVICES;

	if (pms_opt_str(&run.opts, "json")) {
		snprintf(path, sizeof(path), "%s", pms_opt_str(&run.opts, "json"));
	} else if ((ret = default_path(sc->name, u.release, path, sizeof(path)))) {
		pms_err("cannot create the results directory: %s", strerror(-ret));
		return PMS_EXIT_OUTPUT;
	}
	/* Find out now, not after a ten-minute run. */
	if (pms_path_writable(path, err, sizeof(err))) {
		pms_err("cannot write result to '%s': %s", path, err);
		return PMS_EXIT_OUTPUT;
	}
	human = strcmp(path, "-") ? stdout : stderr;

	if (hwloc_topology_init(&run.topo) || hwloc_topology_load(run.topo)) {
		pms_err("hwloc cannot read the CPU topology: %s", strerror(errno));
		return PMS_EXIT_SETUP;
	}
	host = pms_probe_host(&pcfg);
	run.host = host;

	/* SIGINT/SIGTERM are taken by pms_run_wait() in the supervising thread;
	 * blocking them before any thread exists keeps them out of the others. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	run.tty = !quiet && isatty(STDERR_FILENO);
	run.progress = run.tty ? progress : NULL;
	run.result = json_object_new_object();
	pms_utc_string(start, sizeof(start), false);

	if (pms_run_sigq_begin(&run))
		pms_err("warning: this uid already has %lld of %lld signals queued (SigQ, "
			 "RLIMIT_SIGPENDING): overflow signals will fall back to SIGIO; stop the "
			 "process holding them or raise ulimit -i", run.sigq_pending_start,
			 run.sigq_limit_start);
	st = PMS_OK;
	if (sc->unsupported && sc->unsupported(&run, run.reason, sizeof(run.reason)))
		st = PMS_E_SKIP;
	if (st == PMS_OK && sc->priv_size && !(run.priv = calloc(1, sc->priv_size))) {
		snprintf(run.reason, sizeof(run.reason), "out of memory for the scenario's state");
		st = PMS_E_SETUP;
	}
	if (st == PMS_OK)
		st = sc->setup(&run);
	if (st == PMS_OK)
		sc->run(&run);
	if (sc->teardown && run.priv)
		sc->teardown(&run);
	free(run.priv);
	run.priv = NULL;
	json_object_object_add(run.result, "signal_queue", pms_run_sigq_end(&run));
	if (run.tty)
		fprintf(stderr, "\r\033[K");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pms_utc_string(end, sizeof(end), false);

	if (st == PMS_E_USAGE || st == PMS_E_CPUS || st == PMS_E_EVENT) {
		/* Bad input: one line, no result file. */
		pms_err("%s", run.reason);
		code = exit_for_status(st);
		goto out;
	}
	if (st == PMS_E_SKIP)
		run.verdict = PMS_VERDICT_SKIP;
	else if (st == PMS_E_SETUP)
		run.verdict = PMS_VERDICT_ERROR;
	code = exit_for_verdict(&run, st);

	out = json_object_new_object();
	json_object_object_add(out, "schema_version", json_object_new_int(PMS_SCHEMA_VERSION));
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string("pmustress"));
	json_object_object_add(o, "version", json_object_new_string(PMS_VERSION));
	json_object_object_add(out, "tool", o);
	args = json_object_new_array();
	for (i = -1; i < argc; i++)
		json_object_array_add(args, json_object_new_string(i < 0 ? "pmustress" : argv[i]));
	json_object_object_add(out, "argv", args);
	json_object_object_add(out, "start_utc", json_object_new_string(start));
	json_object_object_add(out, "end_utc", json_object_new_string(end));
	json_object_object_add(out, "scenario", json_object_new_string(sc->name));
	json_object_object_add(out, "scenario_summary", json_object_new_string(sc->summary));
	json_object_object_add(out, "reproduces", json_object_new_string(sc->seed));
	json_object_object_add(out, "verdict", json_object_new_string(pms_verdict_name(run.verdict)));
	json_object_object_add(out, "reason", json_object_new_string(run.reason));
	json_object_object_add(out, "exit_code", json_object_new_int(code));
	json_object_object_add(out, "setup_status", json_object_new_string(
		st == PMS_OK ? "ok" : st == PMS_E_SKIP ? "skip" : "failed"));
	json_object_object_add(out, "interrupted", json_object_new_boolean(run.interrupted));
	json_object_object_add(out, "stop_signal", run.interrupted ?
			       json_object_new_string(run.stop_signal == SIGINT ? "SIGINT" :
						      run.stop_signal == SIGTERM ? "SIGTERM" : "?") : NULL);
	json_object_object_add(out, "options", pms_opts_to_json(&run.opts));
	json_object_object_add(out, "host", host);
	json_object_object_foreach(run.result, key, val)
		json_object_object_add(out, key, json_object_get(val));

	/* A default name is shared by runs started in the same second: never replace. */
	ret = pms_opt_str(&run.opts, "json") ? pms_json_write_atomic(out, path) :
	      pms_json_write_new(out, path, sizeof(path));
	if (!quiet)
		pms_print_result(human, out, (long)pms_opt_u64(&run.opts, "show-anomalies"));
	if (ret) {
		pms_err("cannot write result to '%s': %s", path, strerror(-ret));
		code = PMS_EXIT_OUTPUT;
	} else if (!quiet && strcmp(path, "-")) {
		fprintf(human, "result: %s\n", path);
	}
	json_object_put(out);
out:
	json_object_put(run.result);
	if (st != PMS_OK && st != PMS_E_SKIP && st != PMS_E_SETUP)
		json_object_put(host);
	hwloc_topology_destroy(run.topo);
	return code;
}
