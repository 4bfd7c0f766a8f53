// SPDX-License-Identifier: GPL-2.0-only
/*
 * Suite plans (pms-plan.h): a line-oriented text format, read whole and
 * checked whole before the runner starts anything, so that a typo on
 * line 40 does not surface after half an hour of runs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pms-plan.h"
#include "pms-util.h"

#define TIMEOUT_MAX_NS (48 * 3600 * NS_PER_S)

static const char *const outcome_names[PMS_NR_OUTCOMES] = {
	[PMS_OUTCOME_PASS] = "pass",
	[PMS_OUTCOME_FAIL] = "fail",
	[PMS_OUTCOME_SKIP] = "skip",
	[PMS_OUTCOME_ERROR] = "error",
	[PMS_OUTCOME_ENVIRONMENT] = "environment",
	[PMS_OUTCOME_TIMEOUT] = "timeout",
	[PMS_OUTCOME_CRASH] = "crash",
};

const char *pms_outcome_name(enum pms_outcome o)
{
	return (unsigned int)o < PMS_NR_OUTCOMES ? outcome_names[o] : NULL;
}

int pms_outcome_parse(const char *name)
{
	int i;

	for (i = 0; i < PMS_NR_OUTCOMES; i++)
		if (!strcmp(name, outcome_names[i]))
			return i;
	return -1;
}

static void fail(char *err, size_t errlen, const char *where, unsigned int line,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void fail(char *err, size_t errlen, const char *where, unsigned int line,
		 const char *fmt, ...)
{
	size_t pos = 0;
	va_list ap;

	if (line)
		pms_append(err, errlen, &pos, "%s:%u: ", where, line);
	else
		pms_append(err, errlen, &pos, "%s: ", where);
	if (pos < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + pos, errlen - pos, fmt, ap);
		va_end(ap);
	}
}

/* A name that is safe as a file name in the run directory and in a shell. */
static bool good_name(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > PMS_PLAN_LABEL_MAX)
		return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

int pms_plan_add_run(struct pms_plan *plan, const char *where, unsigned int line,
		     const char *label, const struct pms_scenario *sc, int argc, char **argv,
		     char *err, size_t errlen)
{
	struct pms_plan_run *r, *runs;
	struct pms_opts *o;
	char why[512];
	size_t i;
	int a, ret;

	if (!good_name(label)) {
		fail(err, errlen, where, line, "bad label '%s': letters, digits, '.', '_', '-', "
		     "starting with a letter or digit, at most %d characters", label,
		     PMS_PLAN_LABEL_MAX);
		return -EINVAL;
	}
	if (!strcmp(label, "index")) {
		fail(err, errlen, where, line, "label 'index' is taken by the run directory's "
		     "index.json: choose another");
		return -EINVAL;
	}
	for (i = 0; i < plan->nr_runs; i++) {
		if (strcmp(plan->runs[i].label, label))
			continue;
		if (plan->runs[i].line)
			fail(err, errlen, where, line, "label '%s' is already used on line %u",
			     label, plan->runs[i].line);
		else
			fail(err, errlen, where, line, "label '%s' is already used", label);
		return -EINVAL;
	}
	if (plan->nr_runs >= PMS_PLAN_MAX_RUNS) {
		fail(err, errlen, where, line, "more than %d runs", PMS_PLAN_MAX_RUNS);
		return -EINVAL;
	}
	for (a = 0; a < argc; a++) {
		/* The runner names each run's result itself: LABEL.json. */
		if (!strcmp(argv[a], "--json") || !strncmp(argv[a], "--json=", 7)) {
			fail(err, errlen, where, line, "run %s: --json is the suite runner's "
			     "(it writes %s.json in the run directory)", label, label);
			return -EINVAL;
		}
	}

	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	if (pms_opts_add(o, pms_common_opts, pms_nr_common_opts) ||
	    pms_opts_add(o, sc->opts, sc->nr_opts)) {
		fail(err, errlen, where, line, "internal: option tables of %s collide", sc->name);
		free(o);
		return -EDOM;
	}
	ret = pms_opts_parse(o, argc, argv, why, sizeof(why));
	if (ret) {
		fail(err, errlen, where, line, "run %s: %s (see pmustress help %s)", label, why,
		     sc->name);
		free(o);
		return -EDOM;
	}

	runs = realloc(plan->runs, (plan->nr_runs + 1) * sizeof(*runs));
	if (!runs) {
		free(o);
		return -ENOMEM;
	}
	plan->runs = runs;
	r = &runs[plan->nr_runs];
	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%s", label);
	r->sc = sc;
	r->line = line;
	r->duration_ns = pms_opt_u64(o, "duration");
	free(o);
	r->argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!r->argv)
		return -ENOMEM;
	plan->nr_runs++;	/* from here pms_plan_free() frees what it holds */
	for (a = 0; a < argc; a++) {
		r->argv[a] = strdup(argv[a]);
		if (!r->argv[a])
			return -ENOMEM;
		r->argc = a + 1;
	}
	return 0;
}

/* expect=pass,skip: a bit per outcome. */
static int parse_expect(const char *list, unsigned int *mask, char *bad, size_t len)
{
	const char *p = list;

	*mask = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char word[32];
		int o;

		snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) - 1 ? n : sizeof(word) - 1),
			 p);
		o = n < sizeof(word) ? pms_outcome_parse(word) : -1;
		if (o < 0) {
			snprintf(bad, len, "%.*s", (int)n, p);
			return -EINVAL;
		}
		*mask |= 1u << o;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static const char *const verdict_list =
	"pass, fail, skip, error, environment, timeout, crash";

/* One "run" line, split into @n words. */
static int parse_run(struct pms_plan *plan, const char *file, unsigned int line, char **w,
		     int n, const struct pms_scenario *const *scenarios, size_t nr,
		     char *err, size_t errlen)
{
	const struct pms_scenario *sc = NULL;
	char *opts[PMS_PLAN_MAX_WORDS];
	unsigned int expect = 0;
	uint64_t timeout = 0;
	bool have_expect = false, have_timeout = false;
	char bad[64];
	size_t i;
	int k, nopts = 0, ret;

	if (n < 3) {
		fail(err, errlen, file, line, "'run' needs a label and a scenario: "
		     "run LABEL SCENARIO [OPTIONS...] [expect=VERDICT,...] [timeout=TIME]");
		return -EINVAL;
	}
	for (i = 0; i < nr; i++)
		if (!strcmp(scenarios[i]->name, w[2]))
			sc = scenarios[i];
	if (!sc) {
		char names[512];
		size_t pos = 0;

		names[0] = '\0';
		for (i = 0; i < nr; i++)
			pms_append(names, sizeof(names), &pos, "%s%s", i ? ", " : "",
				   scenarios[i]->name);
		fail(err, errlen, file, line, "unknown scenario '%s' (have: %s)", w[2], names);
		return -ENOENT;
	}
	for (k = 3; k < n; k++) {
		if (!strncmp(w[k], "expect=", 7)) {
			if (have_expect) {
				fail(err, errlen, file, line, "expect= given twice");
				return -EINVAL;
			}
			have_expect = true;
			if (parse_expect(w[k] + 7, &expect, bad, sizeof(bad))) {
				fail(err, errlen, file, line, "expect: '%s' is not a verdict (%s)",
				     bad, verdict_list);
				return -EINVAL;
			}
		} else if (!strncmp(w[k], "timeout=", 8)) {
			if (have_timeout) {
				fail(err, errlen, file, line, "timeout= given twice");
				return -EINVAL;
			}
			have_timeout = true;
			if (pms_parse_duration_ns(w[k] + 8, NS_PER_S, &timeout) || !timeout ||
			    timeout > TIMEOUT_MAX_NS) {
				fail(err, errlen, file, line, "bad timeout '%s' (a duration above 0 "
				     "and up to 48h: 90s, 10m, 1h)", w[k] + 8);
				return -EINVAL;
			}
		} else {
			opts[nopts++] = w[k];
		}
	}
	ret = pms_plan_add_run(plan, file, line, w[1], sc, nopts, opts, err, errlen);
	if (ret)
		return ret;
	plan->runs[plan->nr_runs - 1].expect = expect;
	plan->runs[plan->nr_runs - 1].timeout_ns = timeout;
	return 0;
}

/* The default plan name: the file's base name, if it is a good name. */
static void default_name(struct pms_plan *plan, const char *file)
{
	const char *base = strrchr(file, '/');

	base = base ? base + 1 : file;
	snprintf(plan->name, sizeof(plan->name), "%s", good_name(base) ? base : "suite");
}

int pms_plan_parse(struct pms_plan *plan, const char *file, const char *text, size_t len,
		   const struct pms_scenario *const *scenarios, size_t nr,
		   char *err, size_t errlen)
{
	char *buf, *line, *next, *w[PMS_PLAN_MAX_WORDS];
	unsigned int lineno = 0, name_line = 0;
	size_t i;
	int ret = 0;

	if (len > PMS_PLAN_MAX_BYTES) {
		fail(err, errlen, file, 0, "larger than %d bytes: not a plan", PMS_PLAN_MAX_BYTES);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (text[i])
			continue;
		for (lineno = 1; i--; )
			lineno += text[i] == '\n';
		fail(err, errlen, file, lineno, "a NUL byte: not a text file");
		return -EINVAL;
	}
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, text, len);
	buf[len] = '\0';

	for (line = buf; line && *line; line = next) {
		int n = 0;
		char *p;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* Split on blanks; a word starting with # ends the line. */
		for (p = line; ; ) {
			while (*p == ' ' || *p == '\t' || *p == '\r')
				p++;
			if (!*p || *p == '#')
				break;
			if (n == PMS_PLAN_MAX_WORDS) {
				fail(err, errlen, file, lineno, "more than %d words on one line",
				     PMS_PLAN_MAX_WORDS);
				ret = -EINVAL;
				goto out;
			}
			w[n++] = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\r')
				p++;
			if (*p)
				*p++ = '\0';
		}
		if (!n)
			continue;

		if (!plan->version) {
			uint64_t v;

			if (strcmp(w[0], "pmustress-suite")) {
				fail(err, errlen, file, lineno, "expected the version line "
				     "'pmustress-suite %d' first, got '%s'", PMS_PLAN_VERSION, w[0]);
				ret = -EINVAL;
				goto out;
			}
			if (n != 2 || pms_parse_u64(w[1], &v) || !v) {
				fail(err, errlen, file, lineno, "bad version line: "
				     "'pmustress-suite %d' expected", PMS_PLAN_VERSION);
				ret = -EINVAL;
				goto out;
			}
			if (v > PMS_PLAN_VERSION) {
				fail(err, errlen, file, lineno, "suite format version %llu is newer "
				     "than this pmustress reads (%d): a newer pmustress wrote it",
				     (unsigned long long)v, PMS_PLAN_VERSION);
				ret = -EINVAL;
				goto out;
			}
			plan->version = (unsigned int)v;
		} else if (!strcmp(w[0], "pmustress-suite")) {
			fail(err, errlen, file, lineno, "a second version line");
			ret = -EINVAL;
			goto out;
		} else if (!strcmp(w[0], "name")) {
			if (name_line) {
				fail(err, errlen, file, lineno, "'name' again (first on line %u)",
				     name_line);
				ret = -EINVAL;
				goto out;
			}
			if (n != 2 || !good_name(w[1])) {
				fail(err, errlen, file, lineno, "'name' takes one name: letters, "
				     "digits, '.', '_', '-', at most %d characters",
				     PMS_PLAN_LABEL_MAX);
				ret = -EINVAL;
				goto out;
			}
			name_line = lineno;
			snprintf(plan->name, sizeof(plan->name), "%s", w[1]);
		} else if (!strcmp(w[0], "run")) {
			ret = parse_run(plan, file, lineno, w, n, scenarios, nr, err, errlen);
			if (ret)
				goto out;
		} else {
			fail(err, errlen, file, lineno, "unknown keyword '%s' (have: "
			     "pmustress-suite, name, run)", w[0]);
			ret = -EINVAL;
			goto out;
		}
	}
	if (!plan->version) {
		fail(err, errlen, file, lineno ? lineno : 1, "missing the version line "
		     "'pmustress-suite %d': not a plan", PMS_PLAN_VERSION);
		ret = -EINVAL;
	} else if (!plan->nr_runs) {
		fail(err, errlen, file, lineno, "no 'run' line: nothing to run");
		ret = -EINVAL;
	}
	if (!ret && !name_line)
		default_name(plan, file);
out:
	free(buf);
	return ret;
}

void pms_plan_free(struct pms_plan *plan)
{
	size_t i;
	int a;

	for (i = 0; i < plan->nr_runs; i++) {
		for (a = 0; a < plan->runs[i].argc; a++)
			free(plan->runs[i].argv[a]);
		free(plan->runs[i].argv);
	}
	free(plan->runs);
	plan->runs = NULL;
	plan->nr_runs = 0;
}
