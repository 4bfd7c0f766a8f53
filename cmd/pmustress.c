// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmustress: stress Linux perf overflow signal delivery.  The command table
 * maps each subcommand to its file in cmd/, with the help text that
 * `pmustress help COMMAND` and `pmustress COMMAND --help` print.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "export.h"
#include "pms-stress.h"
#include "scenarios.h"

static const struct pms_command commands[] = {
	{ "run", cmd_run,
	  "run SCENARIO|all [opts]  run a scenario, all of them, or --suite NAME; write JSON",
	  "usage: pmustress run SCENARIO [options] [--bisect]\n"
	  "       pmustress run --suite NAME|FILE [--out DIR] [--timeout TIME] [--bisect] [--quiet]\n"
	  "                 [--check] [--format text|ktap|junit]\n"
	  "       pmustress run all [--duration TIME] [--out DIR] [--timeout TIME] [--bisect] ...\n\n"
	  "Run one scenario on this machine: drive its counter, record every overflow\n"
	  "signal, judge them with the scenario's oracle, print a summary and write the\n"
	  "JSON result (default results/<scenario>-<release>-<UTC time>.json, never\n"
	  "replacing an earlier one; --json PATH or --json - to choose).\n\n"
	  "A suite runs many: each run is `pmustress run SCENARIO ... --quiet` in a\n"
	  "child process of its own with a time limit, and the run directory\n"
	  "(--out DIR, default results/<UTC>-<host>-<release>/) gets LABEL.json,\n"
	  "LABEL.log and index.json (results/schema/suite-index.schema.json), then a\n"
	  "table is printed: label, scenario, verdict, time, reason.  `run all` runs\n"
	  "every scenario (those that cannot run here are listed as skipped, with why).\n"
	  "NAME is looked up in $PMUSTRESS_SUITES, then scripts/suites/ beside the\n"
	  "binary (nightly, quick); --check only reads the plan.  A plan file:\n\n"
	  "    pmustress-suite 1                  # first line; # starts a comment\n"
	  "    name nightly                       # optional (default: the file name)\n"
	  "    run LABEL SCENARIO [--option [VALUE]]... [expect=VERDICT[,VERDICT]] [timeout=TIME]\n\n"
	  "Verdicts: pass fail skip error environment timeout crash.  timeout= (or\n"
	  "--timeout) defaults to twice the run's --duration plus 60 s; then SIGTERM,\n"
	  "and SIGKILL 10 s later.  A plan's options are checked before anything runs.\n\n"
	  "Suite exit status: 0 every run passed or met its expect=, 1 one failed or\n"
	  "missed it (error, timeout, crash too), 4 every run skipped, 64 bad option,\n"
	  "65 unknown scenario, 68 bad plan (one line: FILE:LINE: what), 73 the run\n"
	  "directory cannot be written, 130 interrupted (the index says what ran).\n"
	  "--bisect, for `git bisect run`: 0 good, 1 bad (a fail), 125 cannot test\n"
	  "(skip, environment, error, setup failure, timeout, crash, interrupted),\n"
	  "128 bad input (git aborts the bisection).\n\n"
	  "`pmustress help SCENARIO` (or `pmustress run SCENARIO --help`) lists a\n"
	  "scenario's own options; `pmustress list` says which scenarios can run here.\n" },
	{ "list", cmd_list, "list                     scenarios and whether they can run here",
	  "usage: pmustress list\n\n"
	  "Every scenario, whether and how it can run on this machine (a hardware PMU,\n"
	  "the breakpoint substitute, or skipped and why), and its one-line summary.\n" },
	{ "probe", cmd_probe, "probe [--json]           kernel, CPU, PMUs, sysctls, features",
	  "usage: pmustress probe [--json]\n\n"
	  "What this machine offers pmustress: kernel release and config, CPU and its\n"
	  "PMUs, the perf sysctls, and perf features probed by opening events\n"
	  "(sigtrap, aux_action, ...).  --json prints the `host` block every result\n"
	  "carries.\n" },
	{ "compare", cmd_compare,
	  "compare OLD NEW [opts]   two sets of results paired and tested: --alpha P, --json",
	  "usage: pmustress compare [--alpha P] [--json] OLD NEW\n\n"
	  "OLD and NEW are result files or directories of them (for example two\n"
	  "kernels' baselines).  Results are paired by scenario and the options that\n"
	  "matter; each rate is tested with a two-sided Fisher's exact test at\n"
	  "significance P (default 0.05), and environment differences are listed.\n"
	  "Exit 0: nothing regressed; 1: something regressed; 68: unreadable input.\n" },
	{ "known-issues", cmd_known_issues,
	  "known-issues [--json]    the known kernel bugs a result can match",
	  "usage: pmustress known-issues [--json]\n\n"
	  "The table of known kernel bugs behind lost or late perf overflow signals:\n"
	  "architecture, PMU driver, kernel range (introduced, fixed in, fix commit),\n"
	  "the conditions, the cause each produces and the upstream report.  A failing\n"
	  "run names the entries that match it (\"matches: ID\") or says \"no known bug\n"
	  "matches: possibly new\"; the result's known_issues section has the detail.\n" },
	{ "report", cmd_report,
	  "report DIR... [-o F]     the kernel x scenario matrix as HTML (--text); --bug R",
	  "usage: pmustress report [-o FILE.html] [--text] [--by-input] DIR|RESULT...\n"
	  "       pmustress report --bug [-o FILE] RESULT.json\n\n"
	  "DIR is a run directory (index.json), the emulated matrix's output\n"
	  "(OUT/KERNEL/LABEL.json) or a folder of result files.  The report is one\n"
	  "self-contained HTML file (inline CSS and SVG, no script, nothing fetched):\n"
	  "the kernel x scenario matrix, cells coloured by verdict with the loss rate\n"
	  "and its 95% Wilson interval, known-bug matches and dominant causes; each\n"
	  "run's delta histogram; night-over-night trends when several run directories\n"
	  "of one host and suite are given.  --text prints the matrix instead.\n"
	  "--by-input keeps inputs with the same labels apart (INPUT/LABEL rows),\n"
	  "for one emulated matrix per configuration.\n"
	  "-o FILE is written whole or not at all (temp file and rename); without it,\n"
	  "stdout.  --bug prints one result as plain text for a mail to the kernel's\n"
	  "lists: kernel, CPU, PMU, attr, the command, expected and seen, the first\n"
	  "anomalies, the known-bug match or \"possibly new\", and the file to attach.\n"
	  "Exit 0; 64 bad usage; 68 unreadable or malformed input, or nothing to report;\n"
	  "73 output not writable.\n" },
	{ "export", cmd_export,
	  "export --FORMAT DIR      a suite's run directory as --ktap, --junit or --kcidb",
	  "usage: pmustress export --ktap|--junit|--kcidb DIR [-o FILE] [--url-base URL]\n\n"
	  "DIR is a suite's run directory (index.json and one result JSON per run).\n"
	  "--ktap: KTAP version 1, one nested test per run (the oracle's classes, the\n"
	  "scenario's sub-tests, the verdict), for kselftest runners and LAVA.\n"
	  "--junit: JUnit XML, one testcase per run, for Jenkins and GitLab.\n"
	  "--kcidb: a KCIDB I/O document (schema " PMS_KCIDB_VERSION_TEXT "): checkout, build and\n"
	  "one test per run; output files are file:NAME relative to DIR, or under\n"
	  "--url-base URL.\n"
	  "Written to stdout, or atomically to FILE with -o (--kcidb -o DIR: DIR/kcidb.json).\n"
	  "Exit 0; 64 bad usage; 68 missing or malformed index.json; 73 output not writable.\n" },
	{ "help", cmd_help, "help [COMMAND|SCENARIO]  this text, a command's or a scenario's help",
	  "usage: pmustress help [COMMAND|SCENARIO]\n\n"
	  "Without an argument, the commands and exit statuses; with a command, its\n"
	  "usage; with a scenario, its options (generated from its option table).\n" },
};

void pms_err(const char *fmt, ...)
{
	va_list ap;

	fputs("pmustress: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const struct pms_command *pms_command_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

void pms_usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: pmustress COMMAND [ARGS]\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  pmustress %s\n", commands[i].usage);
	fprintf(f, "  pmustress --version\n\n"
		"`pmustress help COMMAND` or `pmustress COMMAND --help` for a command,\n"
		"`pmustress help SCENARIO` for a scenario's options, man ./pmustress.1 for all.\n\n"
		"exit status: 0 pass, 1 fail (bug reproduced; compare: something "
		"regressed), 4 skip,\n64 usage, 65 unknown scenario, 66 bad CPU list, "
		"67 unknown event, 68 bad JSON input,\n69 setup failed, 70 run error, "
		"73 result not writable, 130 interrupted (result still written);\n"
		"run --bisect: 0 good, 1 bad, 125 cannot test, 128 bad input\n");
}

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int main(int argc, char **argv)
{
	const struct pms_command *c;

	/* A stressor's child (--fork-churn, --preempt-by process): not a command. */
	if (argc >= 2 && !strcmp(argv[1], PMS_STRESS_CHILD_ARG))
		return pms_stress_child_main(argc - 1, argv + 1);
	if (argc < 2) {
		pms_usage(stderr);
		return PMS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("pmustress %s\n", PMS_VERSION);
		return 0;
	}
	if (is_help(argv[1])) {
		pms_usage(stdout);
		return 0;
	}
	/* Not a command: a scenario's own child process (after exec), never for users. */
	if (!strcmp(argv[1], "__helper")) {
		const struct pms_scenario *sc = argc > 2 ? pms_scenario_find(argv[2]) : NULL;

		if (!sc || !sc->helper) {
			pms_err("__helper: internal use only");
			return PMS_EXIT_USAGE;
		}
		return sc->helper(argc - 2, argv + 2);
	}
	c = pms_command_find(argv[1]);
	if (!c) {
		pms_err("unknown command '%s' (have: run, list, probe, compare, known-issues, "
			"report, export, help)", argv[1]);
		return PMS_EXIT_USAGE;
	}
	/* COMMAND --help; `run SCENARIO --help` is the scenario's own help. */
	if (argc > 2 && is_help(argv[2]))
		return pms_help_command(c);
	if (c->fn == cmd_run && argc > 3 && is_help(argv[3]) &&
	    strcmp(argv[2], "all") && strncmp(argv[2], "--suite", 7))
		return cmd_help(2, (char *[]){ "help", argv[2], NULL });
	if (c->fn == cmd_run && argc > 3 && !strcmp(argv[argc - 1], "--help") &&
	    (!strcmp(argv[2], "all") || !strncmp(argv[2], "--suite", 7)))
		return pms_help_command(c);
	return c->fn(argc - 1, argv + 1);
}
