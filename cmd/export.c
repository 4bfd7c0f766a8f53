// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmustress export --ktap|--junit|--kcidb DIR`: a suite's run directory
 * (index.json written by the suite runner, one result JSON per run) in the
 * formats kernel CI reads.  The index is the authority on each run's verdict
 * (a run that timed out or crashed has no result file); the result files add
 * the detail: kernel, PMU, perf_event_attr bits, the oracle's finding classes
 * and a scenario's own sub-tests.  A result file that cannot be read costs
 * its run the detail, never the export.
 *
 * Every verdict is mapped once per format (ktap_status(), junit_status(),
 * kcidb_status()); DESIGN's "Exported results" has the table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "export.h"
#include "pms-util.h"

#define MAX_SUBTESTS	48

enum outcome { OUT_PASS, OUT_FAIL, OUT_SKIP, OUT_ENV, OUT_ERROR, OUT_TIMEOUT, OUT_CRASH };

static const char *const outcome_names[] = {
	[OUT_PASS] = "pass", [OUT_FAIL] = "fail", [OUT_SKIP] = "skip",
	[OUT_ENV] = "environment", [OUT_ERROR] = "error", [OUT_TIMEOUT] = "timeout",
	[OUT_CRASH] = "crash",
};

/* One run of the index, with its result file when there is one. */
struct run {
	json_object *entry;
	json_object *result;		/* owned; NULL: none, or unreadable (why) */
	const char *label;
	const char *scenario;
	const char *reason;
	enum outcome out;
	int as_expected;		/* 1, 0, or -1 when the plan said nothing */
	char why[512];			/* why result is NULL though the index names one */
	char unknown[80];		/* a verdict this exporter does not know */
};

static const char *str_or(json_object *o, const char *path, const char *def)
{
	const char *s = pms_json_get_str(o, path);

	return s ? s : def;
}

static bool is_num(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     json_object_is_type(v, json_type_double));
}

/*
 * The host's name: from the host block or beside it when the runner puts it
 * there, else from the run directory's name, which the suite contract makes
 * <UTC time>-<hostname>-<kernel release>.
 */
static const char *hostname(json_object *index, const char *dir, char *buf, size_t len)
{
	const char *h = pms_json_get_str(index, "host.hostname"),
		   *rel = pms_json_get_str(index, "kernel.release");
	const char *base, *end;
	size_t n, rl;

	if (!h)
		h = pms_json_get_str(index, "hostname");
	if (h)
		return h;
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (base = dir + n; base > dir && base[-1] != '/'; base--)
		;
	end = dir + n;
	rl = rel ? strlen(rel) : 0;
	/* "20261126T010000Z-" is 17 characters. */
	if (rl && end - base > 17 + (long)rl + 1 && base[16] == '-' && base[8] == 'T' &&
	    end[-(long)rl - 1] == '-' && !strncmp(end - rl, rel, rl)) {
		snprintf(buf, len, "%.*s", (int)(end - base - 17 - rl - 1), base + 17);
		return buf;
	}
	return "unknown-host";
}

int pms_export_index_check(json_object *index, char *why, size_t len)
{
	const char *kind = pms_json_get_str(index, "kind");
	json_object *v = pms_json_get(index, "schema_version"), *runs = pms_json_get(index, "runs");
	size_t i;

	if (!index || !json_object_is_type(index, json_type_object)) {
		snprintf(why, len, "not a JSON object");
		return -EINVAL;
	}
	if (!kind || strcmp(kind, "pmustress-suite-run")) {
		snprintf(why, len, "not a suite run index (kind is %s, not \"pmustress-suite-run\")",
			 kind ? kind : "missing");
		return -EINVAL;
	}
	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != 1) {
		snprintf(why, len, "schema_version %s: this pmustress reads suite index version 1",
			 v ? json_object_to_json_string(v) : "missing");
		return -EINVAL;
	}
	if (!runs || !json_object_is_type(runs, json_type_array)) {
		snprintf(why, len, "no runs array");
		return -EINVAL;
	}
	for (i = 0; i < json_object_array_length(runs); i++) {
		json_object *r = json_object_array_get_idx(runs, i);

		if (!pms_json_get_str(r, "label") || !pms_json_get_str(r, "scenario") ||
		    !pms_json_get_str(r, "verdict")) {
			snprintf(why, len, "runs[%zu] lacks a label, scenario or verdict", i);
			return -EINVAL;
		}
	}
	return 0;
}

static enum outcome outcome_of(const char *v, char *unknown, size_t len)
{
	size_t i;

	unknown[0] = '\0';
	for (i = 0; i < sizeof(outcome_names) / sizeof(outcome_names[0]); i++)
		if (!strcmp(v, outcome_names[i]))
			return i;
	/* A verdict from a newer runner: not a pass, and not hidden either. */
	snprintf(unknown, len, "%s", v);
	return OUT_ERROR;
}

static void run_load(struct run *r, json_object *entry, const char *dir)
{
	json_object *ae = pms_json_get(entry, "as_expected");
	const char *res = pms_json_get_str(entry, "result");
	char path[4096];

	memset(r, 0, sizeof(*r));
	r->entry = entry;
	r->label = pms_json_get_str(entry, "label");
	r->scenario = pms_json_get_str(entry, "scenario");
	r->out = outcome_of(pms_json_get_str(entry, "verdict"), r->unknown, sizeof(r->unknown));
	r->reason = str_or(entry, "reason", "");
	r->as_expected = ae && json_object_is_type(ae, json_type_boolean) ?
			 json_object_get_boolean(ae) : -1;
	if (!res)
		return;
	if (snprintf(path, sizeof(path), "%s/%s", dir, res) >= (int)sizeof(path)) {
		snprintf(r->why, sizeof(r->why), "%.400s: path too long", res);
		return;
	}
	r->result = pms_json_read_file(path, r->why, sizeof(r->why));
	if (r->result && !json_object_is_type(r->result, json_type_object)) {
		snprintf(r->why, sizeof(r->why), "%.400s: not a JSON object", res);
		json_object_put(r->result);
		r->result = NULL;
	}
}

static size_t runs_load(json_object *index, const char *dir, struct run **out)
{
	json_object *runs = pms_json_get(index, "runs");
	size_t i, n = json_object_array_length(runs);

	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return (size_t)-1;
	for (i = 0; i < n; i++)
		run_load(&(*out)[i], json_object_array_get_idx(runs, i), dir);
	return n;
}

static void runs_free(struct run *runs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		json_object_put(runs[i].result);
	free(runs);
}

/*
 * One line of text for a format that has no room for more: control
 * characters (a reason may hold newlines) become spaces, and with @no_hash
 * a '#' becomes '_' (a KTAP test name ends at '#').  Bytes are otherwise
 * kept: UTF-8 passes through.
 */
static const char *one_line(const char *s, bool no_hash, char *buf, size_t len)
{
	size_t i = 0;

	for (; s && *s && i + 1 < len; s++) {
		unsigned char c = *s;

		buf[i++] = c < 0x20 || c == 0x7f ? ' ' : no_hash && c == '#' ? '_' : c;
	}
	buf[i] = '\0';
	return buf;
}

/* The counter's attr as "type=0 (hardware) config=0x0 sample_period=10000 exclude_...". */
static const char *attr_text(json_object *result, char *buf, size_t len)
{
	static const char *const bits[] = {
		"exclude_user", "exclude_kernel", "exclude_hv", "exclude_idle", "exclude_host",
		"exclude_guest",
	};
	json_object *attr = pms_json_get(result, "counter.attr");
	size_t pos = 0, i;

	buf[0] = '\0';
	if (!attr)
		return NULL;
	pms_append(buf, len, &pos, "type=%" PRId64, json_object_get_int64(pms_json_get(attr, "type")));
	if (pms_json_get_str(attr, "type_name"))
		pms_append(buf, len, &pos, " (%s)", pms_json_get_str(attr, "type_name"));
	pms_append(buf, len, &pos, " config=0x%" PRIx64 " sample_period=%" PRIu64,
		   (uint64_t)json_object_get_int64(pms_json_get(attr, "config")),
		   (uint64_t)json_object_get_int64(pms_json_get(attr, "sample_period")));
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		pms_append(buf, len, &pos, " %s=%d", bits[i],
			   json_object_get_boolean(pms_json_get(attr, bits[i])));
	return buf;
}

/* The PMU the run counted on, the core PMU it would have, or NULL. */
static const char *pmu_of(json_object *result, json_object *index)
{
	const char *p = pms_json_get_str(result, "counter.pmu");

	if (!p)
		p = pms_json_get_str(result, "host.core_pmu");
	return p ? p : pms_json_get_str(index, "host.core_pmu");
}

static const char *release_of(const struct run *r, json_object *index)
{
	const char *k = pms_json_get_str(r->result, "host.kernel.release");

	return k ? k : str_or(index, "kernel.release", "unknown");
}

/* The plan's accepted verdicts, "fail" or "pass|fail", or NULL. */
static const char *expect_text(json_object *entry, char *buf, size_t len)
{
	json_object *e = pms_json_get(entry, "expect");
	size_t i, pos = 0;

	buf[0] = '\0';
	if (!e || !json_object_is_type(e, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(e); i++)
		pms_append(buf, len, &pos, "%s%s", i ? "|" : "",
			   json_object_get_string(json_object_array_get_idx(e, i)));
	return buf;
}

/* ---- KTAP ------------------------------------------------------------- */

struct subtest {
	bool ok;
	char name[64];
	char tail[2200];	/* " # DIRECTIVE text" or " # data", or "" */
};

struct subtests {
	struct subtest t[MAX_SUBTESTS];
	size_t n;
};

static void sub_add(struct subtests *s, bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void sub_add(struct subtests *s, bool ok, const char *name, const char *fmt, ...)
{
	struct subtest *t;
	char raw[sizeof(t->tail)];
	va_list ap;

	if (s->n == MAX_SUBTESTS)
		return;
	t = &s->t[s->n++];
	t->ok = ok;
	one_line(name, true, t->name, sizeof(t->name));
	raw[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
	}
	one_line(raw, false, t->tail, sizeof(t->tail));
}

/*
 * The oracle's finding classes as subtests: a judged class passes at zero.
 * In an environment run the tool has put the counts down to configuration,
 * so a non-zero class there is skipped, not failed: the kernel was not
 * tested by it.  on_time is what the others are measured against: no test.
 */
static void sub_classes(struct subtests *s, const struct run *r)
{
	json_object *oracle = pms_json_get(r->result, "oracle"),
		    *classes = pms_json_get(oracle, "classes");
	json_object *lost = pms_json_get(oracle, "lost");
	const char *sem = str_or(oracle, "semantics", "this");

	if (!classes || !json_object_is_type(classes, json_type_object))
		return;
	json_object_object_foreach(classes, name, v) {
		json_object *judged = pms_json_get(pms_json_get(oracle, "judged"), name);
		int64_t n = json_object_get_int64(v);

		if (!strcmp(name, "on_time") || !is_num(v))
			continue;
		if (judged && !json_object_get_boolean(judged))
			sub_add(s, true, name, " # SKIP not judged under %s semantics (count=%" PRId64 ")",
				sem, n);
		else if (n && r->out == OUT_ENV)
			sub_add(s, true, name, " # SKIP count=%" PRId64 " put down to the environment", n);
		else
			sub_add(s, !n, name, " # count=%" PRId64, n);
	}
	if (is_num(lost)) {
		json_object *judged = pms_json_get(oracle, "judged.lost");
		int64_t n = json_object_get_int64(lost);

		if (judged && !json_object_get_boolean(judged))
			sub_add(s, true, "lost", " # SKIP not judged under %s semantics", sem);
		else if (n && r->out == OUT_ENV)
			sub_add(s, true, "lost", " # SKIP count=%" PRId64 " put down to the environment", n);
		else
			sub_add(s, !n, "lost", " # count=%" PRId64, n);
	}
}

/*
 * A scenario's own sub-tests: the members of its section (named after the
 * scenario, '-' as '_') that carry a verdict of their own, as ioctl-semantics'
 * period_storm or aux-pause's abi and race do.
 */
static void sub_scenario(struct subtests *s, const struct run *r)
{
	char key[64];
	json_object *sec;
	size_t i;

	snprintf(key, sizeof(key), "%s", r->scenario);
	for (i = 0; key[i]; i++)
		if (key[i] == '-')
			key[i] = '_';
	sec = pms_json_get(r->result, key);
	if (!sec || !json_object_is_type(sec, json_type_object))
		return;
	json_object_object_foreach(sec, name, v) {
		const char *verdict = pms_json_get_str(v, "verdict");
		const char *why = pms_json_get_str(v, "finding");

		if (!verdict)
			continue;
		if (!why)
			why = str_or(v, "reason", "");
		if (!strcmp(verdict, "pass"))
			sub_add(s, true, name, NULL);
		else if (!strcmp(verdict, "skip"))
			sub_add(s, true, name, " # SKIP %s", *why ? why : "skipped");
		else if (!strcmp(verdict, "fail"))
			sub_add(s, false, name, "%s%s", *why ? " # " : "", why);
		else
			sub_add(s, false, name, " # ERROR %s: %s", verdict, why);
	}
}

/*
 * A run's line in KTAP terms: ok or not, and its directive.  An expected
 * fail (the plan said fail, and it failed) is "ok ... # XFAIL", as
 * kselftest prints one; a pass the plan did not accept is "not ok".
 */
struct ktap_status {
	bool ok;
	const char *directive;	/* SKIP, XFAIL, ERROR, TIMEOUT, or NULL */
	const char *prefix;	/* before the reason in the directive's text */
};

static struct ktap_status ktap_status(const struct run *r)
{
	switch (r->out) {
	case OUT_PASS:
		if (r->as_expected == 0)
			return (struct ktap_status){ false, NULL, "unexpected pass" };
		return (struct ktap_status){ true, NULL, NULL };
	case OUT_FAIL:
		if (r->as_expected == 1)
			return (struct ktap_status){ true, "XFAIL", "" };
		return (struct ktap_status){ false, NULL, NULL };
	case OUT_SKIP:
		return (struct ktap_status){ true, "SKIP", "" };
	case OUT_ENV:
		return (struct ktap_status){ true, "SKIP", "environment: " };
	case OUT_TIMEOUT:
		return (struct ktap_status){ false, "TIMEOUT", "" };
	case OUT_CRASH:
		return (struct ktap_status){ false, "ERROR", "crash: " };
	case OUT_ERROR:
		break;
	}
	return (struct ktap_status){ false, "ERROR", "" };
}

/* "pmustress run SCENARIO OPTIONS...": what the plan ran, for the reader. */
static const char *command_text(const struct run *r, char *buf, size_t len)
{
	json_object *opts = pms_json_get(r->entry, "options");
	size_t pos = 0, i;

	buf[0] = '\0';
	pms_append(buf, len, &pos, "pmustress run %s", r->scenario);
	if (opts && json_object_is_type(opts, json_type_array))
		for (i = 0; i < json_object_array_length(opts); i++)
			pms_append(buf, len, &pos, " %s",
				   json_object_get_string(json_object_array_get_idx(opts, i)));
	return buf;
}

static void ktap_known_issues(FILE *f, const struct run *r, const char *name)
{
	json_object *ki = pms_json_get(r->result, "known_issues");
	size_t i;

	if (!ki || !json_object_is_type(ki, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(ki); i++) {
		json_object *k = json_object_array_get_idx(ki, i);
		const char *fit = pms_json_get_str(k, "fit");

		if (fit && !strcmp(fit, "matches"))
			fprintf(f, "# %s: matches known bug %s\n", name, str_or(k, "id", "?"));
	}
}

/*
 * One run: a nested group (diagnostics for command, kernel, PMU and attr,
 * then the subtests), the reason as a diagnostic line, then the run's line.
 * A free-text reason never goes after a plain "# " on a result line, where
 * a parser could take its first word for a directive; it goes after a
 * directive, or on a diagnostic line of its own.
 */
static int ktap_run(FILE *f, const struct run *r, size_t nr, json_object *index)
{
	struct ktap_status st = ktap_status(r);
	struct subtests *s = calloc(1, sizeof(*s));
	char buf[1024], name[256], reason[2048], expect[128];
	bool all_ok = true;
	const char *v;
	size_t i;

	if (!s)
		return -ENOMEM;
	one_line(r->label, true, name, sizeof(name));
	one_line(r->reason, false, reason, sizeof(reason));
	fprintf(f, "  KTAP version 1\n");
	fprintf(f, "  # %s: %s\n", name,
		one_line(command_text(r, buf, sizeof(buf)), false, buf, sizeof(buf)));
	v = pms_json_get_str(r->result, "host.kernel.version");
	fprintf(f, "  # kernel: %s %s\n", release_of(r, index),
		one_line(v ? v : str_or(index, "kernel.version", ""), false, buf, sizeof(buf)));
	if ((v = pmu_of(r->result, index)))
		fprintf(f, "  # pmu: %s%s%s\n", v,
			pms_json_get_str(r->result, "counter.name") ? ", counter " : "",
			str_or(r->result, "counter.name", ""));
	if (attr_text(r->result, buf, sizeof(buf)))
		fprintf(f, "  # attr: %s\n", buf);
	if ((v = pms_json_get_str(r->entry, "result")) && r->result)
		fprintf(f, "  # result: %s\n", one_line(v, false, buf, sizeof(buf)));
	else if (v)
		fprintf(f, "  # result: %s\n", one_line(r->why, false, buf, sizeof(buf)));
	if (r->unknown[0])
		fprintf(f, "  # verdict '%s' is unknown to this exporter: reported as an error\n",
			one_line(r->unknown, false, buf, sizeof(buf)));
	if (r->result && (r->out == OUT_PASS || r->out == OUT_FAIL || r->out == OUT_ENV)) {
		sub_classes(s, r);
		sub_scenario(s, r);
	}
	/* Always a last subtest, so that no group is empty (KUnit's parser fails one). */
	if (st.directive)
		sub_add(s, st.ok, "verdict", " # %s %s%s", st.directive, st.prefix, reason);
	else
		sub_add(s, st.ok, "verdict", NULL);
	fprintf(f, "  1..%zu\n", s->n);
	for (i = 0; i < s->n; i++) {
		bool skip = !strncmp(s->t[i].tail, " # SKIP", 7);

		fprintf(f, "  %s %zu %s%s\n", s->t[i].ok ? "ok" : "not ok", i + 1, s->t[i].name,
			s->t[i].tail);
		if (!s->t[i].ok && !skip)
			all_ok = false;
	}
	free(s);
	ktap_known_issues(f, r, name);
	if (st.prefix && !st.directive && expect_text(r->entry, expect, sizeof(expect)))
		fprintf(f, "# %s: %s, the plan expected %s\n", name, st.prefix, expect);
	/* The reason on a line of its own unless a SKIP or XFAIL directive has it. */
	if (*reason && (!st.ok || !st.directive))
		fprintf(f, "# %s: %s\n", name, reason);
	/* A parent fails when a subtest fails, unless its failure was expected. */
	if (!all_ok && st.ok && !(st.directive && !strcmp(st.directive, "XFAIL")))
		st = (struct ktap_status){ false, NULL, NULL };
	fprintf(f, "%s %zu %s", st.ok ? "ok" : "not ok", nr, name);
	if (st.directive)
		fprintf(f, " # %s %s%s", st.directive, st.prefix, reason);
	fputc('\n', f);
	return 0;
}

int pms_export_ktap(FILE *out, json_object *index, const char *dir)
{
	struct run *runs;
	size_t n, i;
	int ret = 0;
	char host[256];

	n = runs_load(index, dir, &runs);
	if (n == (size_t)-1)
		return -ENOMEM;
	fprintf(out, "KTAP version 1\n");
	fprintf(out, "# pmustress suite %s on %s: kernel %s (%s), %zu runs\n",
		str_or(index, "suite.name", "unnamed"), hostname(index, dir, host, sizeof(host)),
		str_or(index, "kernel.release", "unknown"), str_or(index, "kernel.arch", "unknown"), n);
	fprintf(out, "1..%zu\n", n);
	for (i = 0; i < n && !ret; i++)
		ret = ktap_run(out, &runs[i], i + 1, index);
	runs_free(runs, n);
	if (ret)
		return ret;
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

/* ---- JUnit XML ---------------------------------------------------------- */

/*
 * The length (1-4) of the well-formed UTF-8 sequence at @s and its code
 * point, or 0 when the bytes there are not one (stray continuation,
 * overlong form, surrogate, past U+10FFFF, cut short).
 */
static int utf8_seq(const unsigned char *s, uint32_t *cp)
{
	int n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, *cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, *cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, *cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && *cp < 0x10000) || *cp > 0x10ffff ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * @s as XML character data, or as an attribute value with @attr (quotes
 * escaped; tab and newline as references, which attribute-value
 * normalisation would otherwise turn into spaces).  What XML 1.0 cannot
 * hold at all (most control characters, U+FFFE, U+FFFF, bytes that are not
 * UTF-8) becomes U+FFFD, so one odd byte in a reason cannot make the whole
 * report unreadable.
 */
static void xml_put(FILE *f, const char *s, bool attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	uint32_t cp;
	int n;

	while (*p) {
		n = utf8_seq(p, &cp);
		if (!n || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') ||
		    cp == 0xfffe || cp == 0xffff) {
			fputs("\xef\xbf\xbd", f);
			p += n ? n : 1;
			continue;
		}
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs(attr ? "&quot;" : "\"", f); break;
		case '\'': fputs(attr ? "&apos;" : "'", f); break;
		case '\t': fputs(attr ? "&#9;" : "\t", f); break;
		case '\n': fputs(attr ? "&#10;" : "\n", f); break;
		case '\r': fputs("&#13;", f); break;
		default: fwrite(p, 1, n, f);
		}
		p += n;
	}
}

static void xml_attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	xml_put(f, value, true);
	fputc('"', f);
}

static void xml_prop(FILE *f, const char *prefix, const char *name, const char *value)
{
	if (!value)
		return;
	fputs("      <property name=\"", f);
	if (prefix) {
		xml_put(f, prefix, true);
		fputc('.', f);
	}
	xml_put(f, name, true);
	fputs("\" value=\"", f);
	xml_put(f, value, true);
	fputs("\"/>\n", f);
}

enum junit_kind { J_PASS, J_FAILURE, J_SKIPPED };

/*
 * What a run is to a JUnit reader, who gates a job on it: the suite's own
 * exit status is followed, so a fail the plan expected is skipped (as
 * pytest reports an xfail), and a pass the plan did not expect fails.
 */
static enum junit_kind junit_status(const struct run *r, const char **type)
{
	*type = outcome_names[r->out];
	switch (r->out) {
	case OUT_PASS:
		if (r->as_expected == 0) {
			*type = "unexpected-pass";
			return J_FAILURE;
		}
		return J_PASS;
	case OUT_FAIL:
		if (r->as_expected == 1) {
			*type = "expected-fail";
			return J_SKIPPED;
		}
		return J_FAILURE;
	case OUT_SKIP:
	case OUT_ENV:
		return J_SKIPPED;
	case OUT_ERROR:
	case OUT_TIMEOUT:
	case OUT_CRASH:
		break;
	}
	return J_FAILURE;
}

static void junit_run_props(FILE *f, const struct run *r, json_object *index)
{
	static const char *const attr_keys[] = {
		"type", "config", "sample_period", "exclude_user", "exclude_kernel", "exclude_hv",
		"exclude_idle", "exclude_host", "exclude_guest",
	};
	json_object *attr = pms_json_get(r->result, "counter.attr");
	char buf[128], expect[128];
	size_t i;

	xml_prop(f, r->label, "scenario", r->scenario);
	xml_prop(f, r->label, "verdict", pms_json_get_str(r->entry, "verdict"));
	xml_prop(f, r->label, "expect", expect_text(r->entry, expect, sizeof(expect)));
	xml_prop(f, r->label, "kernel.release", release_of(r, index));
	xml_prop(f, r->label, "pmu", pmu_of(r->result, index));
	xml_prop(f, r->label, "counter", pms_json_get_str(r->result, "counter.name"));
	for (i = 0; attr && i < sizeof(attr_keys) / sizeof(attr_keys[0]); i++) {
		json_object *v = pms_json_get(attr, attr_keys[i]);

		if (!v)
			continue;
		if (json_object_is_type(v, json_type_boolean))
			snprintf(buf, sizeof(buf), "%d", json_object_get_boolean(v));
		else if (!strcmp(attr_keys[i], "config"))
			snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)json_object_get_int64(v));
		else
			snprintf(buf, sizeof(buf), "%s", json_object_get_string(v));
		snprintf(expect, sizeof(expect), "attr.%s", attr_keys[i]);
		xml_prop(f, r->label, expect, buf);
	}
	xml_prop(f, r->label, "result", pms_json_get_str(r->entry, "result"));
	xml_prop(f, r->label, "log", pms_json_get_str(r->entry, "log"));
}

static void junit_case(FILE *f, const struct run *r, json_object *index)
{
	char cls[256], buf[1024];
	const char *type, *v;
	enum junit_kind k = junit_status(r, &type);
	json_object *d = pms_json_get(r->entry, "duration_s");

	snprintf(cls, sizeof(cls), "pmustress.%s", r->scenario);
	fputs("    <testcase", f);
	xml_attr(f, "name", r->label);
	xml_attr(f, "classname", cls);
	if (is_num(d)) {
		snprintf(buf, sizeof(buf), "%.3f", json_object_get_double(d));
		xml_attr(f, "time", buf);
	}
	fputs(">\n", f);
	if (k != J_PASS) {
		fprintf(f, "      <%s", k == J_FAILURE ? "failure" : "skipped");
		xml_attr(f, "type", type);
		xml_attr(f, "message", r->reason);
		fputs(">", f);
		xml_put(f, r->reason, false);
		fprintf(f, "</%s>\n", k == J_FAILURE ? "failure" : "skipped");
	}
	/* The detail beside the case, where CI web pages show it. */
	fputs("      <system-out>", f);
	snprintf(buf, sizeof(buf), "%s\n", command_text(r, cls, sizeof(cls)));
	xml_put(f, buf, false);
	snprintf(buf, sizeof(buf), "verdict: %s\nkernel: %s\n", pms_json_get_str(r->entry, "verdict"),
		 release_of(r, index));
	xml_put(f, buf, false);
	if ((v = pmu_of(r->result, index))) {
		snprintf(buf, sizeof(buf), "pmu: %s\n", v);
		xml_put(f, buf, false);
	}
	if (attr_text(r->result, cls, sizeof(cls))) {
		snprintf(buf, sizeof(buf), "attr: %s\n", cls);
		xml_put(f, buf, false);
	}
	if ((v = pms_json_get_str(r->entry, "result"))) {
		snprintf(buf, sizeof(buf), "result: %s%s%s\n", v, r->result ? "" : " (unreadable: ",
			 r->result ? "" : r->why);
		xml_put(f, buf, false);
	}
	fputs("</system-out>\n    </testcase>\n", f);
}

int pms_export_junit(FILE *out, json_object *index, const char *dir)
{
	size_t n, i, failures = 0, skipped = 0;
	double total = 0;
	struct run *runs;
	char name[256], buf[64], host[256];

	n = runs_load(index, dir, &runs);
	if (n == (size_t)-1)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *type;
		enum junit_kind k = junit_status(&runs[i], &type);
		json_object *d = pms_json_get(runs[i].entry, "duration_s");

		failures += k == J_FAILURE;
		skipped += k == J_SKIPPED;
		total += is_num(d) ? json_object_get_double(d) : 0;
	}
	snprintf(name, sizeof(name), "pmustress.%s", str_or(index, "suite.name", "unnamed"));
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", out);
	xml_attr(out, "name", "pmustress");
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\">\n", n, failures,
		total);
	/* One suite: the run directory; errors are failures with their type (DESIGN). */
	fputs("  <testsuite", out);
	xml_attr(out, "name", name);
	fprintf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\"",
		n, failures, skipped, total);
	xml_attr(out, "timestamp", str_or(index, "start_utc", ""));
	xml_attr(out, "hostname", hostname(index, dir, host, sizeof(host)));
	fputs(">\n    <properties>\n", out);
	xml_prop(out, NULL, "suite", pms_json_get_str(index, "suite.name"));
	xml_prop(out, NULL, "suite.file", pms_json_get_str(index, "suite.file"));
	xml_prop(out, NULL, "tool.version", pms_json_get_str(index, "tool.version"));
	xml_prop(out, NULL, "kernel.release", pms_json_get_str(index, "kernel.release"));
	xml_prop(out, NULL, "kernel.version", pms_json_get_str(index, "kernel.version"));
	xml_prop(out, NULL, "arch", pms_json_get_str(index, "kernel.arch"));
	xml_prop(out, NULL, "config_hash", pms_json_get_str(index, "config_hash"));
	xml_prop(out, NULL, "core_pmu", pms_json_get_str(index, "host.core_pmu"));
	snprintf(buf, sizeof(buf), "%" PRId64, json_object_get_int64(pms_json_get(index, "exit_code")));
	xml_prop(out, NULL, "exit_code", buf);
	/* The XSD Jenkins validates with has no per-testcase properties: LABEL.KEY. */
	for (i = 0; i < n; i++)
		junit_run_props(out, &runs[i], index);
	fputs("    </properties>\n", out);
	for (i = 0; i < n; i++)
		junit_case(out, &runs[i], index);
	fputs("  </testsuite>\n</testsuites>\n", out);
	runs_free(runs, n);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

/* ---- KCIDB ---------------------------------------------------------------- */

/*
 * KCIDB statuses say what the test learnt about the kernel: an environment
 * run and a skip learnt nothing (SKIP); an error, a timeout or a crash
 * stopped the test itself (ERROR).  An expectation is the plan's business,
 * kept in misc, not a status: an expected fail is still a kernel that lost
 * signals.
 */
static const char *kcidb_status(const struct run *r)
{
	switch (r->out) {
	case OUT_PASS: return "PASS";
	case OUT_FAIL: return "FAIL";
	case OUT_SKIP:
	case OUT_ENV: return "SKIP";
	case OUT_ERROR:
	case OUT_TIMEOUT:
	case OUT_CRASH: break;
	}
	return "ERROR";
}

/* KCIDB's path charset, [a-zA-Z0-9_-]: anything else becomes '_'. */
static void path_part(char *dst, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++)
		dst[i++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			   (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ? *s : '_';
	if (!i && len > 1)
		dst[i++] = '_';
	dst[i] = '\0';
}

/* KCIDB's architecture names are the kernel's (arm64, x86_64), [a-z0-9_]. */
static void arch_name(char *dst, size_t len, const char *uname_m)
{
	if (!strcmp(uname_m, "aarch64"))
		uname_m = "arm64";
	else if (!strncmp(uname_m, "armv", 4))
		uname_m = "arm";
	path_part(dst, len, uname_m);
	for (; *dst; dst++)
		*dst = *dst == '-' ? '_' : (*dst >= 'A' && *dst <= 'Z') ? *dst - 'A' + 'a' : *dst;
}

/* A file of the run directory as a URL: under @base, or "file:NAME" relative to it. */
static json_object *file_url(const char *base, const char *name)
{
	static const char hex[] = "0123456789ABCDEF";
	char url[4096];
	size_t pos = 0;
	const unsigned char *p;

	pms_append(url, sizeof(url), &pos, "%s", base ? base : "file:");
	if (base && pos && url[pos - 1] != '/')
		pms_append(url, sizeof(url), &pos, "/");
	for (p = (const unsigned char *)name; *p && pos + 4 < sizeof(url); p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p)) {
			url[pos++] = *p;
		} else {
			url[pos++] = '%';
			url[pos++] = hex[*p >> 4];
			url[pos++] = hex[*p & 15];
		}
	}
	url[pos] = '\0';
	return json_object_new_string(url);
}

/* The last path component of @name, for a KCIDB resource name. */
static const char *base_name(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? slash + 1 : name;
}

static void add(json_object *o, const char *key, json_object *v)
{
	if (v)
		json_object_object_add(o, key, v);
}

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* A copy of @v, or NULL when it is absent or null (KCIDB allows no nulls). */
static json_object *copy(json_object *v)
{
	json_object *c = NULL;

	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	return json_object_deep_copy(v, &c, NULL) ? NULL : c;
}

/* @s cut to at most @max bytes on a UTF-8 character boundary, "..." marking the cut. */
static json_object *bounded(const char *s, size_t max)
{
	size_t n = strlen(s);
	char *cut;
	json_object *o;

	if (n <= max)
		return json_object_new_string(s);
	n = max - 3;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	if (asprintf(&cut, "%.*s...", (int)n, s) < 0)
		return NULL;
	o = json_object_new_string(cut);
	free(cut);
	return o;
}

static json_object *kcidb_environment(json_object *index, const char *hostname)
{
	json_object *env = json_object_new_object(), *misc = json_object_new_object();
	json_object *host = pms_json_get(index, "host");
	char comment[1024];
	size_t pos = 0;

	pms_append(comment, sizeof(comment), &pos, "pmustress on host %s: %s, %s", hostname,
		   str_or(host, "arch", str_or(index, "kernel.arch", "unknown arch")),
		   str_or(host, "cpu.model", "unknown CPU"));
	if (pms_json_get(host, "cpu.nr_cpus_online"))
		pms_append(comment, sizeof(comment), &pos, ", %" PRId64 " CPUs online",
			   json_object_get_int64(pms_json_get(host, "cpu.nr_cpus_online")));
	pms_append(comment, sizeof(comment), &pos, ", core PMU %s",
		   str_or(host, "core_pmu", "none"));
	if (json_object_get_boolean(pms_json_get(host, "emulated")))
		pms_append(comment, sizeof(comment), &pos, "; emulated: %s",
			   str_or(host, "emulation.description", "yes"));
	add(env, "comment", json_object_new_string(comment));
	add(misc, "hostname", jstr(hostname));
	add(misc, "cpu", copy(pms_json_get(host, "cpu")));
	add(misc, "core_pmu", copy(pms_json_get(host, "core_pmu")));
	add(misc, "emulated", copy(pms_json_get(host, "emulated")));
	add(misc, "hypervisor", copy(pms_json_get(host, "hypervisor.kind")));
	add(env, "misc", misc);
	return env;
}

static json_object *kcidb_attr(json_object *result)
{
	static const char *const keys[] = {
		"type", "config", "sample_period", "exclude_user", "exclude_kernel", "exclude_hv",
		"exclude_idle", "exclude_host", "exclude_guest",
	};
	json_object *attr = pms_json_get(result, "counter.attr"), *o;
	size_t i;

	if (!attr)
		return NULL;
	o = json_object_new_object();
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		add(o, keys[i], copy(pms_json_get(attr, keys[i])));
	return o;
}

static json_object *kcidb_test(const struct run *r, json_object *index, const char *build_id,
			       const char *url_base, const char *hostname)
{
	json_object *t = json_object_new_object(), *misc = json_object_new_object(), *files;
	char id[1024], path[512], sc[128], lb[256];
	const char *res = pms_json_get_str(r->entry, "result"),
		   *log = pms_json_get_str(r->entry, "log"), *v;
	json_object *d = pms_json_get(r->entry, "duration_s");

	snprintf(id, sizeof(id), "pmustress:%s:%s:%s", str_or(index, "start_utc", "unknown-time"),
		 hostname, r->label);
	path_part(sc, sizeof(sc), r->scenario);
	path_part(lb, sizeof(lb), r->label);
	snprintf(path, sizeof(path), "pmustress.%s.%s", sc, lb);
	add(t, "id", json_object_new_string(id));
	add(t, "build_id", json_object_new_string(build_id));
	add(t, "origin", json_object_new_string("pmustress"));
	add(t, "path", json_object_new_string(path));
	add(t, "comment", jstr(pms_json_get_str(r->result, "scenario_summary")));
	add(t, "status", json_object_new_string(kcidb_status(r)));
	add(t, "start_time", jstr(pms_json_get_str(r->entry, "start_utc")));
	if (is_num(d))
		add(t, "duration", json_object_new_double(json_object_get_double(d)));
	if (*r->reason)
		add(t, "log_excerpt", bounded(r->reason, PMS_KCIDB_EXCERPT_MAX));
	if (log)
		add(t, "log_url", file_url(url_base, log));
	if (res) {
		json_object *f = json_object_new_object();

		files = json_object_new_array();
		add(f, "name", json_object_new_string(base_name(res)));
		add(f, "url", file_url(url_base, res));
		json_object_array_add(files, f);
		add(t, "output_files", files);
	}
	add(t, "environment", kcidb_environment(index, hostname));
	add(misc, "label", json_object_new_string(r->label));
	add(misc, "scenario", json_object_new_string(r->scenario));
	add(misc, "verdict", jstr(pms_json_get_str(r->entry, "verdict")));
	add(misc, "options", copy(pms_json_get(r->entry, "options")));
	add(misc, "expect", copy(pms_json_get(r->entry, "expect")));
	add(misc, "as_expected", copy(pms_json_get(r->entry, "as_expected")));
	add(misc, "exit_code", copy(pms_json_get(r->entry, "exit_code")));
	add(misc, "signal", copy(pms_json_get(r->entry, "signal")));
	add(misc, "timeout_s", copy(pms_json_get(r->entry, "timeout_s")));
	add(misc, "pmu", jstr(pmu_of(r->result, index)));
	add(misc, "counter", jstr(pms_json_get_str(r->result, "counter.name")));
	add(misc, "attr", kcidb_attr(r->result));
	if (res && !r->result)
		add(misc, "result_unreadable", json_object_new_string(r->why));
	if ((v = pms_json_get_str(r->result, "failure_kind")))
		add(misc, "failure_kind", json_object_new_string(v));
	add(t, "misc", misc);
	return t;
}

json_object *pms_export_kcidb_doc(json_object *index, const char *dir, const char *url_base)
{
	json_object *doc, *ver, *co, *b, *tests, *misc;
	char co_id[512], b_id[1024], arch[64], comment[1024], host[256];
	const char *rel = str_or(index, "kernel.release", "unknown");
	const char *kver = pms_json_get_str(index, "kernel.version");
	struct run *runs;
	size_t n, i;

	n = runs_load(index, dir, &runs);
	if (n == (size_t)-1)
		return NULL;
	arch_name(arch, sizeof(arch), str_or(index, "kernel.arch", ""));
	/* pmustress tests the kernel it boots on: it checks out and builds
	 * nothing, so the checkout and build name that kernel, one per
	 * release and per release, arch and config. */
	snprintf(co_id, sizeof(co_id), "pmustress:kernel-%s", rel);
	snprintf(b_id, sizeof(b_id), "pmustress:kernel-%s:%s:%s", rel, arch,
		 str_or(index, "config_hash", "config-unknown"));
	doc = json_object_new_object();
	ver = json_object_new_object();
	add(ver, "major", json_object_new_int(PMS_KCIDB_MAJOR));
	add(ver, "minor", json_object_new_int(PMS_KCIDB_MINOR));
	add(doc, "version", ver);

	co = json_object_new_object();
	add(co, "id", json_object_new_string(co_id));
	add(co, "origin", json_object_new_string("pmustress"));
	snprintf(comment, sizeof(comment), "the running kernel %s%s%s, as booted (not checked "
		 "out by pmustress)", rel, kver ? " " : "", kver ? kver : "");
	add(co, "comment", json_object_new_string(comment));
	misc = json_object_new_object();
	add(misc, "kernel_release", json_object_new_string(rel));
	add(misc, "kernel_version", jstr(kver));
	add(co, "misc", misc);
	add(doc, "checkouts", json_object_new_array());
	json_object_array_add(pms_json_get(doc, "checkouts"), co);

	b = json_object_new_object();
	add(b, "id", json_object_new_string(b_id));
	add(b, "checkout_id", json_object_new_string(co_id));
	add(b, "origin", json_object_new_string("pmustress"));
	if (*arch)
		add(b, "architecture", json_object_new_string(arch));
	snprintf(comment, sizeof(comment), "the running kernel's build (%s); config %s", rel,
		 str_or(index, "config_hash", "unknown"));
	add(b, "comment", json_object_new_string(comment));
	misc = json_object_new_object();
	add(misc, "config_hash", jstr(pms_json_get_str(index, "config_hash")));
	add(b, "misc", misc);
	add(doc, "builds", json_object_new_array());
	json_object_array_add(pms_json_get(doc, "builds"), b);

	tests = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(tests, kcidb_test(&runs[i], index, b_id, url_base,
							hostname(index, dir, host, sizeof(host))));
	add(doc, "tests", tests);
	runs_free(runs, n);
	return doc;
}

static int kcidb_write(const char *out, json_object *index, const char *dir, const char *url_base)
{
	json_object *doc = pms_export_kcidb_doc(index, dir, url_base);
	char *path = NULL;
	struct stat st;
	int ret;

	if (!doc)
		return -errno;
	if (strcmp(out, "-") && !stat(out, &st) && S_ISDIR(st.st_mode)) {
		if (asprintf(&path, "%s/kcidb.json", out) < 0) {
			json_object_put(doc);
			return -ENOMEM;
		}
		out = path;
	}
	ret = pms_json_write_atomic(doc, out);
	free(path);
	json_object_put(doc);
	return ret;
}

int pms_export_kcidb(const char *outdir_or_file, json_object *index, const char *dir)
{
	return kcidb_write(outdir_or_file, index, dir, NULL);
}

/* ---- the command ------------------------------------------------------------ */

enum fmt { FMT_NONE, FMT_KTAP, FMT_JUNIT, FMT_KCIDB };

int cmd_export(int argc, char **argv)
{
	static const char *const flags[] = { [FMT_KTAP] = "--ktap", [FMT_JUNIT] = "--junit",
					     [FMT_KCIDB] = "--kcidb" };
	const char *dir = NULL, *out = "-", *url_base = NULL;
	enum fmt fmt = FMT_NONE;
	json_object *index;
	char path[4096], why[512];
	struct stat st;
	int i, ret, code = PMS_EXIT_PASS;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		enum fmt f = FMT_NONE;
		int j;

		for (j = FMT_KTAP; j <= FMT_KCIDB; j++)
			if (!strcmp(a, flags[j]))
				f = j;
		if (f != FMT_NONE) {
			if (fmt != FMT_NONE) {
				pms_err("export: one format at a time (%s and %s given)", flags[fmt], a);
				return PMS_EXIT_USAGE;
			}
			fmt = f;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--url-base")) {
			if (i + 1 >= argc || !*argv[i + 1]) {
				pms_err("export: %s needs a value", a);
				return PMS_EXIT_USAGE;
			}
			if (!strcmp(a, "--url-base"))
				url_base = argv[++i];
			else
				out = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			pms_err("export: unknown option '%s' (export takes --ktap, --junit or --kcidb, "
				"-o FILE, --url-base URL)", a);
			return PMS_EXIT_USAGE;
		} else if (dir) {
			pms_err("export: unexpected argument '%s' (export takes one run directory)", a);
			return PMS_EXIT_USAGE;
		} else {
			dir = a;
		}
	}
	if (fmt == FMT_NONE || !dir) {
		pms_err("export needs a format and a run directory: "
			"pmustress export --ktap|--junit|--kcidb DIR [-o FILE]");
		return PMS_EXIT_USAGE;
	}
	if (url_base && fmt != FMT_KCIDB) {
		pms_err("export: --url-base is for --kcidb (the other formats name files, not URLs)");
		return PMS_EXIT_USAGE;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		int err = errno;

		pms_err("%s: not a run directory (%s)", dir,
			strerror(stat(dir, &st) ? err : ENOTDIR));
		return PMS_EXIT_JSON_INPUT;
	}
	snprintf(path, sizeof(path), "%s/index.json", dir);
	index = pms_json_read_file(path, why, sizeof(why));
	if (!index) {
		pms_err("%s", why);
		return PMS_EXIT_JSON_INPUT;
	}
	if (pms_export_index_check(index, why, sizeof(why))) {
		pms_err("%s: %s", path, why);
		json_object_put(index);
		return PMS_EXIT_JSON_INPUT;
	}
	if (fmt == FMT_KCIDB) {
		ret = kcidb_write(out, index, dir, url_base);
	} else {
		char *buf = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&buf, &len);

		ret = mem ? 0 : -errno;
		if (!ret)
			ret = fmt == FMT_KTAP ? pms_export_ktap(mem, index, dir) :
						pms_export_junit(mem, index, dir);
		if (mem && fclose(mem) && !ret)
			ret = -errno;
		if (!ret)
			ret = pms_write_atomic(out, buf, len);
		free(buf);
	}
	if (ret) {
		pms_err("export: %s: %s", strcmp(out, "-") ? out : "stdout", strerror(-ret));
		code = PMS_EXIT_OUTPUT;
	}
	json_object_put(index);
	return code;
}
