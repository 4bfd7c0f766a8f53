// SPDX-License-Identifier: GPL-2.0-only
/*
 * Suite plans: a good plan read whole, then every kind of bad line, each
 * refused with its class (-EINVAL: a bad plan, exit 68; -ENOENT: unknown
 * scenario, 65; -EDOM: options, 64) and one line naming FILE:LINE.  Two
 * made-up scenarios stand in for the registry, with option tables of
 * their own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pms-plan.h"
#include "tap.h"

static const struct pms_opt_desc alpha_opts[] = {
	{ .name = "no-mover", .type = PMS_OPT_FLAG, .help = "control run" },
	{ .name = "rounds", .type = PMS_OPT_U64, .def = "3", .min = 1, .max = 9, .arg = "N",
	  .help = "rounds" },
};
static const struct pms_scenario alpha = { .name = "alpha", PMS_SCENARIO_OPTS(alpha_opts) };
static const struct pms_scenario beta = { .name = "beta" };
static const struct pms_scenario *const reg[] = { &alpha, &beta };

static char err[1024];

static int parse(const char *text, struct pms_plan *p)
{
	memset(p, 0, sizeof(*p));
	err[0] = '\0';
	return pms_plan_parse(p, "plans/x", text, strlen(text), reg, 2, err, sizeof(err));
}

/* @text must be refused with @want, and the message start with @prefix and hold @has. */
static void bad(const char *what, const char *text, int want, const char *prefix,
		const char *has)
{
	struct pms_plan p;
	int ret = parse(text, &p);

	ok(ret == want && !strncmp(err, prefix, strlen(prefix)) && strstr(err, has) &&
	   !strchr(err, '\n'), "%s: refused (%d), '%s'", what, ret, err);
	if (ret != want)
		printf("#   got %d, want %d\n", ret, want);
	pms_plan_free(&p);
}

#define V "pmustress-suite 1\n"

int main(void)
{
	struct pms_plan p;
	const char *good =
		"# a comment before the version line\n"
		"\n"
		"  pmustress-suite   1   # the version, and a comment after it\n"
		"name nightly\n"
		"run lo alpha --duration 2s\t--rounds=5 expect=pass\n"
		"run lo.ctl alpha --no-mover expect=pass,skip timeout=90s\r\n"
		"run b_1 beta timeout=2m # beta runs with no options\n";
	int ret;

	ret = parse(good, &p);
	ok(ret == 0, "a good plan parses (%s)", err);
	is_u64(p.version, 1, "version 1");
	is_str(p.name, "nightly", "name from the name line");
	is_u64(p.nr_runs, 3, "three runs");
	is_str(p.runs[0].label, "lo", "run 1: label");
	ok(p.runs[0].sc == &alpha, "run 1: scenario alpha");
	is_u64(p.runs[0].line, 5, "run 1: on line 5");
	is_u64(p.runs[0].argc, 3, "run 1: three option words (keywords are not options)");
	is_str(p.runs[0].argv[2], "--rounds=5", "run 1: --rounds=5 kept as written");
	ok(p.runs[0].argv[3] == NULL, "run 1: argv is NULL-terminated");
	is_u64(p.runs[0].duration_ns, 2000000000ull, "run 1: --duration 2s resolved");
	is_u64(p.runs[0].expect, 1u << PMS_OUTCOME_PASS, "run 1: expect=pass");
	is_u64(p.runs[0].timeout_ns, 0, "run 1: no timeout= (the runner's default)");
	is_u64(p.runs[1].expect, (1u << PMS_OUTCOME_PASS) | (1u << PMS_OUTCOME_SKIP),
	       "run 2: expect=pass,skip");
	is_u64(p.runs[1].timeout_ns, 90000000000ull, "run 2: timeout=90s (CRLF line)");
	is_u64(p.runs[1].duration_ns, 10000000000ull, "run 2: --duration defaults to 10s");
	is_str(p.runs[2].argv[0] ? p.runs[2].argv[0] : "(none)", "(none)", "run 3: no options");
	is_u64(p.runs[2].timeout_ns, 120000000000ull, "run 3: timeout=2m");
	is_u64(p.runs[2].expect, 0, "run 3: no expect= (any verdict)");
	pms_plan_free(&p);

	ret = parse(V "run a beta\n", &p);
	ok(ret == 0 && !strcmp(p.name, "x"), "no name line: the file's name (%s)", p.name);
	pms_plan_free(&p);
	ret = parse(V "run a beta expect=timeout,crash,error,environment,fail\n", &p);
	ok(ret == 0 && p.runs[0].expect == 0x7a, "every outcome can be expected");
	pms_plan_free(&p);

	is_str(pms_outcome_name(PMS_OUTCOME_ENVIRONMENT), "environment", "outcome names");
	ok(pms_outcome_name(PMS_NR_OUTCOMES) == NULL, "no name past the last outcome");
	ok(pms_outcome_parse("crash") == PMS_OUTCOME_CRASH && pms_outcome_parse("PASS") < 0,
	   "outcomes parse by their lowercase names only");

	/* The version line. */
	bad("empty file", "", -EINVAL, "plans/x:1: ", "missing the version line");
	bad("only comments", "# nothing\n\n", -EINVAL, "plans/x:2: ", "missing the version line");
	bad("no version line", "name x\nrun a beta\n", -EINVAL, "plans/x:1: ",
	    "expected the version line 'pmustress-suite 1' first, got 'name'");
	bad("future version", "# made by a newer one\npmustress-suite 2\nrun a beta\n", -EINVAL,
	    "plans/x:2: ", "version 2 is newer than this pmustress reads (1)");
	bad("version 0", "pmustress-suite 0\n", -EINVAL, "plans/x:1: ", "bad version line");
	bad("version not a number", "pmustress-suite one\n", -EINVAL, "plans/x:1: ",
	    "bad version line");
	bad("version with extra words", "pmustress-suite 1 2\n", -EINVAL, "plans/x:1: ",
	    "bad version line");
	bad("second version line", V "run a beta\npmustress-suite 1\n", -EINVAL, "plans/x:3: ",
	    "a second version line");

	/* Keywords and names. */
	bad("unknown keyword", V "name x\nrnu a beta\n", -EINVAL, "plans/x:3: ",
	    "unknown keyword 'rnu'");
	bad("name twice", V "name a\nname b\n", -EINVAL, "plans/x:3: ", "'name' again (first on line 2)");
	bad("bad name", V "name a/b\n", -EINVAL, "plans/x:2: ", "'name' takes one name");
	bad("name without a value", V "name\n", -EINVAL, "plans/x:2: ", "'name' takes one name");
	bad("no run line", V "name a\n# none\n", -EINVAL, "plans/x:3: ", "no 'run' line");
	bad("run without a scenario", V "run a\n", -EINVAL, "plans/x:2: ",
	    "'run' needs a label and a scenario");

	/* Labels. */
	bad("duplicate label", V "run a beta\n\nrun a alpha\n", -EINVAL, "plans/x:4: ",
	    "label 'a' is already used on line 2");
	bad("label with a slash", V "run ../a beta\n", -EINVAL, "plans/x:2: ", "bad label '../a'");
	bad("label starting with a dot", V "run .a beta\n", -EINVAL, "plans/x:2: ", "bad label");
	bad("label too long", V "run aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa beta\n",
	    -EINVAL, "plans/x:2: ", "at most 64 characters");
	bad("label index", V "run index beta\n", -EINVAL, "plans/x:2: ", "index.json");

	/* Scenarios, verdicts, timeouts. */
	bad("unknown scenario", V "run a gamma\n", -ENOENT, "plans/x:2: ",
	    "unknown scenario 'gamma' (have: alpha, beta)");
	bad("bad verdict", V "run a beta expect=pass,passed\n", -EINVAL, "plans/x:2: ",
	    "expect: 'passed' is not a verdict (pass, fail, skip, error, environment, timeout, crash)");
	bad("empty verdict", V "run a beta expect=\n", -EINVAL, "plans/x:2: ", "is not a verdict");
	bad("trailing comma in expect", V "run a beta expect=pass,\n", -EINVAL, "plans/x:2: ",
	    "is not a verdict");
	bad("expect twice", V "run a beta expect=pass expect=fail\n", -EINVAL, "plans/x:2: ",
	    "expect= given twice");
	bad("bad timeout", V "run a beta timeout=soon\n", -EINVAL, "plans/x:2: ",
	    "bad timeout 'soon'");
	bad("zero timeout", V "run a beta timeout=0\n", -EINVAL, "plans/x:2: ", "bad timeout '0'");
	bad("timeout past 48h", V "run a beta timeout=49h\n", -EINVAL, "plans/x:2: ",
	    "bad timeout '49h'");
	bad("timeout twice", V "run a beta timeout=1s timeout=2s\n", -EINVAL, "plans/x:2: ",
	    "timeout= given twice");

	/* Options, against the tables. */
	bad("unknown option", V "run a alpha --rouns 2\n", -EDOM, "plans/x:2: ",
	    "run a: unknown option '--rouns' (see pmustress help alpha)");
	bad("option of another scenario", V "run a beta --no-mover\n", -EDOM, "plans/x:2: ",
	    "unknown option '--no-mover'");
	bad("value out of range", V "run a alpha --rounds 10\n", -EDOM, "plans/x:2: ", "run a: ");
	bad("bad duration", V "run a alpha --duration forever\n", -EDOM, "plans/x:2: ", "run a: ");
	bad("missing value", V "run a alpha --rounds\n", -EDOM, "plans/x:2: ", "needs a value");
	bad("stray word", V "run a alpha retries=3\n", -EDOM, "plans/x:2: ",
	    "unexpected argument 'retries=3'");
	bad("--json is the runner's", V "run a alpha --json /tmp/x.json\n", -EINVAL, "plans/x:2: ",
	    "--json is the suite runner's");

	/* Not text. */
	{
		static const char nul[] = V "run a beta\nrun b \0beta\n";

		memset(&p, 0, sizeof(p));
		ret = pms_plan_parse(&p, "plans/x", nul, sizeof(nul) - 1, reg, 2, err, sizeof(err));
		ok(ret == -EINVAL && strstr(err, "plans/x:3: a NUL byte"), "a NUL byte: %s", err);
		pms_plan_free(&p);
	}
	{
		size_t n = PMS_PLAN_MAX_BYTES + 1;
		char *big = malloc(n);

		memset(big, '#', n);
		memset(&p, 0, sizeof(p));
		ret = pms_plan_parse(&p, "plans/x", big, n, reg, 2, err, sizeof(err));
		ok(ret == -EINVAL && strstr(err, "plans/x: larger than"), "past 1 MiB: %s", err);
		pms_plan_free(&p);
		free(big);
	}

	/* Runs added directly (`run all`) are checked the same way. */
	memset(&p, 0, sizeof(p));
	ret = pms_plan_add_run(&p, "run all", 0, "alpha", &alpha, 2, (char *[]){ "--duration", "1s", NULL },
			       err, sizeof(err));
	ok(ret == 0 && p.runs[0].duration_ns == 1000000000ull, "add_run: alpha --duration 1s");
	ret = pms_plan_add_run(&p, "run all", 0, "alpha", &alpha, 0, NULL, err, sizeof(err));
	ok(ret == -EINVAL && !strcmp(err, "run all: label 'alpha' is already used"),
	   "add_run: duplicate label without a line: '%s'", err);
	ret = pms_plan_add_run(&p, "run all", 0, "beta", &beta, 2, (char *[]){ "--duration", "0", NULL },
			       err, sizeof(err));
	ok(ret == -EDOM && !strncmp(err, "run all: run beta: ", 19), "add_run: bad duration: '%s'", err);
	pms_plan_free(&p);
	return tap_done();
}
