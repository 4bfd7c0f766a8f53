// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmustress compare OLD NEW`: load both sides, pair their results, test
 * each rate, then print the report as a table or (--json) as JSON.  The
 * table is drawn from the report object alone, so the two cannot disagree.
 * Exit 1 when anything regressed, so a CI job can gate on a kernel update.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "pms-compare.h"

/* The rates in the table; the others show up in the notes when they move. */
static const char *const table_rates[] = { "lost", "late", "spurious" };

enum { COL_NR, COL_PAIR, COL_RUNS, COL_KERNEL, COL_VERDICT, COL_LOST, COL_LATE, COL_SPURIOUS,
       COL_STATUS, COL_ENV, NR_COLS };

static const char *const col_names[NR_COLS] = {
	"#", "PAIR", "RUNS", "KERNEL", "VERDICT", "LOST RATE", "LATE RATE", "SPURIOUS RATE",
	"STATUS", "ENV",
};

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* A value as a person reads it: strings bare, everything else as JSON. */
static const char *text(json_object *v)
{
	if (v && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* "lost-overflow breakpoint P=100 hwloc ping-pong": the pairing key, short. */
static void key_label(json_object *key, char *buf, size_t len)
{
	json_object *v;

	buf[0] = '\0';
	v = get(key, "counter.name");
	if (!v || json_object_is_type(v, json_type_null)) {
		/* No counter (aux-pause): the scenario names the experiment. */
		cat(buf, len, "%s", text(get(key, "scenario")));
		if ((v = get(key, "options.event")))
			cat(buf, len, " event=%s", text(v));
		return;
	}
	cat(buf, len, "%s %s P=%s", text(get(key, "scenario")), text(get(key, "counter.name")),
	    text(get(key, "counter.period")));
	if ((v = get(key, "options.no-mover")) && json_object_get_boolean(v)) {
		cat(buf, len, " no-mover");
	} else {
		cat(buf, len, " %s %s", text(get(key, "options.mover")),
		    text(get(key, "options.pattern")));
		v = get(key, "options.move-interval");
		if (v && json_object_get_int64(v))
			cat(buf, len, " interval=%sns", text(v));
	}
	if ((v = get(key, "options.event")))
		cat(buf, len, " event=%s", text(v));
	if ((v = get(key, "options.exclude")))
		cat(buf, len, " exclude=%s", text(v));
}

static const char *plural(json_object *n, const char *what, char *buf, size_t len)
{
	int64_t v = json_object_get_int64(n);

	snprintf(buf, len, "%" PRId64 " %s%s", v, what, v == 1 ? "" : "s");
	return buf;
}

/* A kernel, or how many when the merged runs had several. */
static const char *kernel(json_object *side, char *buf, size_t len)
{
	json_object *k = get(side, "kernel");

	if (k && json_object_is_type(k, json_type_array))
		snprintf(buf, len, "%zu kernels", json_object_array_length(k));
	else
		snprintf(buf, len, "%s", text(k));
	return buf;
}

/*
 * A merged side's verdict is its worst run's; "fail 1/3" says how many of
 * the runs had it, so one bad run in three is not read as three.
 */
static const char *verdict(json_object *side, char *buf, size_t len)
{
	const char *v = text(get(side, "verdict"));
	int64_t runs = json_object_get_int64(get(side, "runs"));
	int64_t had = json_object_get_int64(get(get(side, "verdicts"), v));

	if (had < runs)
		snprintf(buf, len, "%s %" PRId64 "/%" PRId64, v, had, runs);
	else
		snprintf(buf, len, "%s", v);
	return buf;
}

static void fmt_p(char *buf, size_t len, json_object *p)
{
	double v;

	if (!p) {
		snprintf(buf, len, "-");
		return;
	}
	v = json_object_get_double(p);
	if (v < 1e-300)
		snprintf(buf, len, "<1e-300");
	else
		snprintf(buf, len, "%.2g", v);
}

static void fmt_rate(char *buf, size_t len, json_object *v)
{
	if (v)
		snprintf(buf, len, "%.3g", json_object_get_double(v));
	else
		snprintf(buf, len, "-");
}

/* "0 -> 0.004 (p=1e-60)", with "~" when the semantics do not judge it. */
static void rate_cell(json_object *rates, const char *name, char *buf, size_t len)
{
	json_object *r = get(rates, name);
	char o[32], n[32], p[32];

	fmt_rate(o, sizeof(o), get(r, "old"));
	fmt_rate(n, sizeof(n), get(r, "new"));
	fmt_p(p, sizeof(p), get(r, "p"));
	snprintf(buf, len, "%s -> %s (p=%s)%s", o, n, p,
		 json_object_get_boolean(get(r, "judged")) ? "" : "~");
}

static void print_notes(json_object *pair, size_t nr)
{
	json_object *why = get(pair, "why"), *also = get(pair, "also");
	json_object *diffs = get(pair, "differences"), *abi = get(pair, "abi_changes");
	json_object *notes = get(pair, "notes");
	size_t i;

	if (json_object_array_length(why)) {
		printf("#%zu %s:", nr, text(get(pair, "status")));
		for (i = 0; i < json_object_array_length(why); i++)
			printf("%s %s", i ? ";" : "", text(json_object_array_get_idx(why, i)));
		printf("\n");
	}
	if (json_object_array_length(also)) {
		printf("#%zu also:", nr);
		for (i = 0; i < json_object_array_length(also); i++)
			printf("%s %s", i ? ";" : "", text(json_object_array_get_idx(also, i)));
		printf("\n");
	}
	if (abi && json_object_is_type(abi, json_type_array) && json_object_array_length(abi)) {
		printf("#%zu aux_action answers changed (reported, not judged):", nr);
		for (i = 0; i < json_object_array_length(abi); i++) {
			json_object *c = json_object_array_get_idx(abi, i);

			printf("%s %s %s", i ? ";" : "", text(get(c, "case")), text(get(c, "old")));
			printf(" -> %s", text(get(c, "new")));
		}
		printf("\n");
	}
	if (json_object_array_length(diffs)) {
		printf("#%zu environment differs:", nr);
		for (i = 0; i < json_object_array_length(diffs); i++) {
			json_object *d = json_object_array_get_idx(diffs, i);

			printf("%s %s %s", i ? ";" : "", text(get(d, "field")),
			       text(get(d, "old")));
			printf(" -> %s", text(get(d, "new")));
		}
		printf("\n");
	}
	for (i = 0; i < json_object_array_length(notes); i++)
		printf("#%zu note: %s\n", nr, text(json_object_array_get_idx(notes, i)));
}

/* ---- the side-by-side block of each pair */

#define BLOCK_ROWS	64
#define BLOCK_CELL	96
#define CMDLINE_SHOWN	40

/* Rows of four cells: what, OLD, NEW, remark. */
struct block {
	char cell[BLOCK_ROWS][4][BLOCK_CELL];
	size_t n;
};

static void row(struct block *b, const char *what, const char *old, const char *new,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void row(struct block *b, const char *what, const char *old, const char *new,
		const char *fmt, ...)
{
	va_list ap;

	if (b->n == BLOCK_ROWS)
		return;
	snprintf(b->cell[b->n][0], BLOCK_CELL, "%s", what);
	snprintf(b->cell[b->n][1], BLOCK_CELL, "%s", old);
	snprintf(b->cell[b->n][2], BLOCK_CELL, "%s", new);
	va_start(ap, fmt);
	vsnprintf(b->cell[b->n][3], BLOCK_CELL, fmt, ap);
	va_end(ap);
	b->n++;
}

static void block_print(const struct block *b)
{
	size_t w[3] = { 0 }, i, c;

	for (i = 0; i < b->n; i++)
		for (c = 0; c < 3; c++)
			if (strlen(b->cell[i][c]) > w[c])
				w[c] = strlen(b->cell[i][c]);
	for (i = 0; i < b->n; i++) {
		printf("   %-*s  %-*s  ", (int)w[0], b->cell[i][0], (int)w[1], b->cell[i][1]);
		if (b->cell[i][3][0])
			printf("%-*s  %s\n", (int)w[2], b->cell[i][2], b->cell[i][3]);
		else
			printf("%s\n", b->cell[i][2]);
	}
}

static bool is_null(json_object *v)
{
	return !v || json_object_is_type(v, json_type_null);
}

/* Three significant digits, whole numbers from 1000 up; "n/a" for null. */
static const char *num(json_object *v, char *buf, size_t len)
{
	double d;

	if (is_null(v)) {
		snprintf(buf, len, "n/a");
	} else if (json_object_is_type(v, json_type_int)) {
		snprintf(buf, len, "%s", json_object_get_string(v));
	} else {
		d = json_object_get_double(v);
		if (fabs(d) >= 1000 && fabs(d) < 1e15)
			snprintf(buf, len, "%.0f", d);
		else
			snprintf(buf, len, "%.3g", d);
	}
	return buf;
}

/* A value as text, "n/a" for null, yes/no for booleans. */
static const char *val(json_object *v, char *buf, size_t len)
{
	if (is_null(v))
		snprintf(buf, len, "n/a");
	else if (json_object_is_type(v, json_type_boolean))
		snprintf(buf, len, "%s", json_object_get_boolean(v) ? "yes" : "no");
	else
		snprintf(buf, len, "%s", text(v));
	return buf;
}

/* "mover.migrations_sched" -> "sched"; a list when the runs disagreed. */
static const char *source(json_object *v)
{
	const char *s = text(v), *dot;

	if (is_null(v))
		return "n/a";
	if (!json_object_is_type(v, json_type_string))
		return s;
	dot = strrchr(s, '.');
	return dot ? dot + 1 : s;
}

/* One exposure: its totals, then lost and anomalies per 10^6 of it. */
static void block_unit(struct block *b, json_object *expo, const char *unit)
{
	json_object *u = get(expo, unit), *r;
	char o[64], n[64], x[64], y[64], p[32], what[64], src[128];
	const char *srco, *srcn;
	int which;

	if (is_null(get(u, "old")) && is_null(get(u, "new")))
		return;
	srco = source(get(u, "old_source"));
	srcn = source(get(u, "new_source"));
	if (!strcmp(srco, srcn) || !strcmp(srcn, "n/a"))
		snprintf(src, sizeof(src), "%s", srco);
	else if (!strcmp(srco, "n/a"))
		snprintf(src, sizeof(src), "%s", srcn);
	else
		snprintf(src, sizeof(src), "%s / %s", srco, srcn);
	if (!get(u, "old_per_overflow") || is_null(get(u, "old_per_overflow")))
		snprintf(o, sizeof(o), "%s", num(get(u, "old"), x, sizeof(x)));
	else
		snprintf(o, sizeof(o), "%s (%s/ovf)", num(get(u, "old"), x, sizeof(x)),
			 num(get(u, "old_per_overflow"), y, sizeof(y)));
	if (!get(u, "new_per_overflow") || is_null(get(u, "new_per_overflow")))
		snprintf(n, sizeof(n), "%s", num(get(u, "new"), x, sizeof(x)));
	else
		snprintf(n, sizeof(n), "%s (%s/ovf)", num(get(u, "new"), x, sizeof(x)),
			 num(get(u, "new_per_overflow"), y, sizeof(y)));
	num(get(u, "ratio"), x, sizeof(x));
	row(b, unit, o, n, "%s%s, from %s%s%s", x, strcmp(x, "n/a") ? "x" : "", src,
	    json_object_get_boolean(get(u, "driven")) ? "" : ", not applied on purpose",
	    json_object_get_boolean(get(u, "differs")) ? "  DIFFERS >2x" : "");
	for (which = 0; which < 2; which++) {
		const char *k = which ? "anomalies" : "lost";

		r = get(u, k);
		snprintf(what, sizeof(what), "  %s per 10^6 %s", k, unit);
		snprintf(o, sizeof(o), "%s (%s)", num(get(r, "old"), x, sizeof(x)),
			 num(get(r, "old_events"), y, sizeof(y)));
		snprintf(n, sizeof(n), "%s (%s)", num(get(r, "new"), x, sizeof(x)),
			 num(get(r, "new_events"), y, sizeof(y)));
		fmt_p(p, sizeof(p), is_null(get(r, "p")) ? NULL : get(r, "p"));
		row(b, what, o, n, "p=%s %s%s", p, text(get(r, "change")),
		    json_object_get_boolean(get(r, "decides")) ? "" : " ~");
	}
}

static const char *attrib_complete(json_object *side, char *buf, size_t len)
{
	if (is_null(side))
		snprintf(buf, len, "n/a");
	else if (json_object_get_boolean(get(side, "complete")))
		snprintf(buf, len, "yes");
	else if (json_object_get_int64(get(side, "runs")) < json_object_get_int64(get(side, "of_runs")))
		snprintf(buf, len, "no (%s of %s runs)", text(get(side, "runs")),
			 text(get(side, "of_runs")));
	else
		snprintf(buf, len, "no");
	return buf;
}

static void block_attrib(struct block *b, json_object *pair)
{
	json_object *a = get(pair, "attribution"), *ao = get(a, "old"), *an = get(a, "new");
	json_object *causes = get(a, "causes"), *ki = get(pair, "known_issues_matched");
	char o[BLOCK_CELL], n[BLOCK_CELL], what[64];
	size_t i, j, shown = 0;

	if (is_null(ao) && is_null(an)) {
		row(b, "attribution", "n/a", "n/a", "%s", "");
	} else {
		row(b, "attribution complete", attrib_complete(ao, o, sizeof(o)),
		    attrib_complete(an, n, sizeof(n)), "%s", "");
		for (i = 0; i < json_object_array_length(causes); i++) {
			json_object *c = json_object_array_get_idx(causes, i);

			/* Causes neither side claimed anything for stay in the JSON. */
			if (json_object_get_int64(get(c, "old")) == 0 &&
			    json_object_get_int64(get(c, "new")) == 0)
				continue;
			snprintf(what, sizeof(what), "  claimed: %s", text(get(c, "cause")));
			row(b, what, num(get(c, "old"), o, sizeof(o)), num(get(c, "new"), n, sizeof(n)),
			    "%s", "");
			shown++;
		}
		if (!shown)
			row(b, "  claimed", is_null(ao) ? "n/a" : "0", is_null(an) ? "n/a" : "0",
			    "%s", "no cause claimed anything");
		row(b, "  unexplained", num(get(ao, "unexplained"), o, sizeof(o)),
		    num(get(an, "unexplained"), n, sizeof(n)), "%s", "");
		row(b, "  dominant cause", is_null(ao) ? "n/a" : is_null(get(ao, "dominant")) ?
		    "none" : text(get(ao, "dominant")), is_null(an) ? "n/a" :
		    is_null(get(an, "dominant")) ? "none" : text(get(an, "dominant")), "%s", "");
	}
	for (j = 0; j < 2; j++) {
		json_object *ids = get(ki, j ? "new" : "old");
		char *buf = j ? n : o;

		buf[0] = '\0';
		if (is_null(ids))
			snprintf(buf, BLOCK_CELL, "n/a");
		else if (!json_object_array_length(ids))
			snprintf(buf, BLOCK_CELL, "none");
		for (i = 0; !is_null(ids) && i < json_object_array_length(ids); i++)
			cat(buf, BLOCK_CELL, "%s%s", i ? "," : "",
			    text(json_object_array_get_idx(ids, i)));
	}
	row(b, "known issues matched", o, n, "%s",
	    strcmp(o, "n/a") && strcmp(n, "n/a") && strcmp(o, n) ? "DIFFERS" : "");
}

/* A condition row, when either side records it. */
static void block_cond(struct block *b, json_object *conds, const char *name, const char *what)
{
	json_object *c = get(conds, name);
	char o[BLOCK_CELL], n[BLOCK_CELL];

	if (is_null(get(c, "old")) && is_null(get(c, "new")))
		return;
	if (!strcmp(name, "rebinds_per_second")) {
		num(get(c, "old"), o, sizeof(o));
		num(get(c, "new"), n, sizeof(n));
	} else {
		val(get(c, "old"), o, sizeof(o));
		val(get(c, "new"), n, sizeof(n));
	}
	if (!strcmp(name, "kernel_cmdline")) {
		if (strlen(o) > CMDLINE_SHOWN)
			strcpy(o + CMDLINE_SHOWN - 3, "...");
		if (strlen(n) > CMDLINE_SHOWN)
			strcpy(n + CMDLINE_SHOWN - 3, "...");
	}
	row(b, what, o, n, "%s", json_object_get_boolean(get(c, "differs")) ? "DIFFERS" : "");
}

static void block_conditions(struct block *b, json_object *conds)
{
	json_object *bo, *ao, *bn, *an;
	char o[BLOCK_CELL], n[BLOCK_CELL], x[32], y[32];

	block_cond(b, conds, "perf_event_max_sample_rate", "perf_event_max_sample_rate");
	bo = get(get(conds, "perf_event_max_sample_rate_before"), "old");
	ao = get(get(conds, "perf_event_max_sample_rate_after"), "old");
	bn = get(get(conds, "perf_event_max_sample_rate_before"), "new");
	an = get(get(conds, "perf_event_max_sample_rate_after"), "new");
	if (!is_null(bo) || !is_null(ao) || !is_null(bn) || !is_null(an)) {
		snprintf(o, sizeof(o), "%s -> %s", num(bo, x, sizeof(x)), num(ao, y, sizeof(y)));
		snprintf(n, sizeof(n), "%s -> %s", num(bn, x, sizeof(x)), num(an, y, sizeof(y)));
		row(b, "  during the run", o, n, "%s", "");
	}
	block_cond(b, conds, "throttled_during_run", "  throttled during the run");
	block_cond(b, conds, "rebinds_per_second", "mover rate (rebinds/s)");
	block_cond(b, conds, "cpu_model", "CPU model");
	block_cond(b, conds, "vhe", "VHE");
	block_cond(b, conds, "pseudo_nmi", "pseudo-NMI");
	block_cond(b, conds, "kernel_cmdline", "kernel command line");
	block_cond(b, conds, "trace_used", "scheduler trace used");
}

/*
 * OLD and NEW side by side: exposures and the rates against them, causes,
 * known issues, and the conditions that bear on the rates.
 */
static void print_block(json_object *pair, size_t nr)
{
	struct block *b = calloc(1, sizeof(*b));
	json_object *expo = get(pair, "exposure");
	bool measured;
	char label[512];

	if (!b) {
		pms_err("out of memory");
		return;
	}
	measured = json_object_get_int64(get(get(get(pair, "old"), "counts"), "runs_measured")) ||
		   json_object_get_int64(get(get(get(pair, "new"), "counts"), "runs_measured"));
	key_label(get(pair, "key"), label, sizeof(label));
	printf("#%zu %s, side by side:\n", nr, label);
	row(b, "", "OLD", "NEW", "%s", "");
	if (measured) {
		block_unit(b, expo, "migrations");
		block_unit(b, expo, "toggles");
		block_unit(b, expo, "overflows");
		block_attrib(b, pair);
	}
	block_conditions(b, get(pair, "conditions"));
	block_print(b);
	free(b);
}

static void print_only(const char *side, json_object *list)
{
	char label[512], k[128];
	json_object *g, *files;
	size_t i;

	for (i = 0; i < json_object_array_length(list); i++) {
		g = json_object_array_get_idx(list, i);
		files = get(g, "files");
		key_label(get(g, "key"), label, sizeof(label));
		printf("only in %s: %s (kernel %s, %s, ", side, label, kernel(g, k, sizeof(k)),
		       text(get(g, "verdict")));
		if (json_object_get_int64(get(g, "runs_interrupted")))
			printf("%s interrupted, ", text(get(g, "runs_interrupted")));
		if (json_object_array_length(files) == 1)
			printf("%s)\n", text(json_object_array_get_idx(files, 0)));
		else
			printf("%zu runs merged)\n", json_object_array_length(files));
	}
}

/* "2 -> 1", and "(interrupted: 0 -> 1)" when runs were cut short: partial counts. */
static void runs_cell(json_object *po, json_object *pn, char *buf, size_t len)
{
	int64_t io = json_object_get_int64(get(po, "runs_interrupted"));
	int64_t in = json_object_get_int64(get(pn, "runs_interrupted"));

	snprintf(buf, len, "%s -> %s", text(get(po, "runs")), text(get(pn, "runs")));
	if (io || in)
		cat(buf, len, " (interrupted: %" PRId64 " -> %" PRId64 ")", io, in);
}

static void print_table(json_object *rep)
{
	json_object *pairs = get(rep, "pairs"), *pair, *rates;
	size_t n = json_object_array_length(pairs), i, w[NR_COLS], nr_only;
	char (*cells)[NR_COLS][512], a[128], b[128];
	int64_t nr_int;
	int c;

	printf("pmustress compare: OLD %s (%s) -> NEW %s (%s), test %s, alpha %g\n",
	       text(get(rep, "old")), plural(get(rep, "old_results"), "result", a, sizeof(a)),
	       text(get(rep, "new")), plural(get(rep, "new_results"), "result", b, sizeof(b)),
	       text(get(rep, "test")), json_object_get_double(get(rep, "alpha")));

	cells = calloc(n + 1, sizeof(*cells));
	if (!cells) {
		pms_err("out of memory");
		return;
	}
	for (c = 0; c < NR_COLS; c++) {
		snprintf(cells[0][c], sizeof(cells[0][c]), "%s", col_names[c]);
		w[c] = strlen(col_names[c]);
	}
	for (i = 0; i < n; i++) {
		char (*row)[512] = cells[i + 1];
		json_object *po, *pn;

		pair = json_object_array_get_idx(pairs, i);
		rates = get(pair, "rates");
		po = get(pair, "old");
		pn = get(pair, "new");
		snprintf(row[COL_NR], sizeof(row[0]), "%zu", i + 1);
		key_label(get(pair, "key"), row[COL_PAIR], sizeof(row[0]));
		runs_cell(po, pn, row[COL_RUNS], sizeof(row[0]));
		snprintf(row[COL_KERNEL], sizeof(row[0]), "%s -> %s", kernel(po, a, sizeof(a)),
			 kernel(pn, b, sizeof(b)));
		snprintf(row[COL_VERDICT], sizeof(row[0]), "%s -> %s", verdict(po, a, sizeof(a)),
			 verdict(pn, b, sizeof(b)));
		rate_cell(rates, table_rates[0], row[COL_LOST], sizeof(row[0]));
		rate_cell(rates, table_rates[1], row[COL_LATE], sizeof(row[0]));
		rate_cell(rates, table_rates[2], row[COL_SPURIOUS], sizeof(row[0]));
		snprintf(row[COL_STATUS], sizeof(row[0]), "%s", text(get(pair, "status")));
		snprintf(row[COL_ENV], sizeof(row[0]), "%s",
			 json_object_get_boolean(get(pair, "environment_differs")) ? "DIFFERS" :
			 "same");
		for (c = 0; c < NR_COLS; c++)
			if (strlen(row[c]) > w[c])
				w[c] = strlen(row[c]);
	}
	for (i = 0; i <= n; i++) {
		for (c = 0; c < NR_COLS - 1; c++)
			printf("%-*s  ", (int)w[c], cells[i][c]);
		printf("%s\n", cells[i][c]);
	}
	free(cells);

	for (i = 0; i < n; i++) {
		print_block(json_object_array_get_idx(pairs, i), i + 1);
		print_notes(json_object_array_get_idx(pairs, i), i + 1);
	}
	print_only("OLD", get(rep, "only_old"));
	print_only("NEW", get(rep, "only_new"));
	nr_only = json_object_array_length(get(rep, "only_old")) +
		  json_object_array_length(get(rep, "only_new"));
	printf("%zu pair%s: %s regressed, %s improved, %s same; %zu unpaired", n,
	       n == 1 ? "" : "s", text(get(rep, "regressed")), text(get(rep, "improved")),
	       text(get(rep, "same")), nr_only);
	nr_int = json_object_get_int64(get(rep, "old_interrupted")) +
		 json_object_get_int64(get(rep, "new_interrupted"));
	if (nr_int)
		printf("; %" PRId64 " result%s of interrupted runs (partial counts)", nr_int,
		       nr_int == 1 ? "" : "s");
	printf("\n");
	printf("p: two-sided Fisher's exact test (fisher-exact) of events against non-events, "
	       "OLD vs NEW:\n   lost over overflows implied; late, spurious (and gap, early, "
	       "coalesced, bad_si_code) over signals.\n   REGRESSED: verdict pass -> fail, or a "
	       "judged rate rose with p < %g; IMPROVED: the reverse.\n"
	       "per 10^6: lost and anomalies over migrations, toggles and overflows (count in "
	       "parentheses), two-sided\n   conditional Poisson test (%s); those over "
	       "migrations and toggles decide when the mover or\n   toggler ran on both sides, "
	       "and a NEW exposed under 1/%g as much per overflow is not credited\n   with "
	       "better rates per signal unless its rate per exposure fell too.\n"
	       "   ~: reported, never decisive (not judged under the counter's semantics, or an "
	       "exposure not applied\n   on purpose, or per overflow: the lost rate above "
	       "decides).\n",
	       json_object_get_double(get(rep, "alpha")), text(get(rep, "exposure_test")),
	       json_object_get_double(get(rep, "exposure_factor")));
}

static int parse_alpha(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0.0 && v < 1.0))
		return -EINVAL;
	*out = v;
	return 0;
}

/* The one-line reason no pair formed, naming both sides. */
static void nothing_to_compare(const struct pms_cmp_side *old, const struct pms_cmp_side *new)
{
	if (!old->nr_results || !new->nr_results)
		pms_err("nothing to compare: OLD '%s' holds %zu pmustress result%s, NEW '%s' "
			"holds %zu", old->path, old->nr_results, old->nr_results == 1 ? "" : "s",
			new->path, new->nr_results);
	else
		pms_err("nothing to compare: no result in OLD '%s' (%zu) has the scenario, counter "
			"and options of a result in NEW '%s' (%zu)", old->path, old->nr_results,
			new->path, new->nr_results);
}

int cmd_compare(int argc, char **argv)
{
	struct pms_cmp_side old, new;
	const char *paths[2], *val;
	double alpha = PMS_CMP_ALPHA;
	bool as_json = false, opts_done = false;
	json_object *rep;
	char err[1024];
	int i, np = 0, code;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && !strcmp(a, "--json")) {
			as_json = true;
		} else if (!opts_done && (!strcmp(a, "--alpha") || !strncmp(a, "--alpha=", 8))) {
			val = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : NULL;
			if (!val) {
				pms_err("option --alpha needs a value");
				return PMS_EXIT_USAGE;
			}
			if (parse_alpha(val, &alpha)) {
				pms_err("bad value '%s' for --alpha (a significance level, "
					"0 < P < 1)", val);
				return PMS_EXIT_USAGE;
			}
		} else if (!opts_done && a[0] == '-' && a[1]) {
			pms_err("unknown option '%s' (compare takes --alpha P and --json)", a);
			return PMS_EXIT_USAGE;
		} else if (np == 2) {
			pms_err("unexpected argument '%s' (compare takes OLD and NEW)", a);
			return PMS_EXIT_USAGE;
		} else {
			paths[np++] = a;
		}
	}
	if (np < 2) {
		pms_err("compare needs OLD and NEW: each a result file or a directory of them");
		return PMS_EXIT_USAGE;
	}

	if (pms_cmp_load(paths[0], &old, err, sizeof(err))) {
		pms_err("%s", err);
		pms_cmp_side_free(&old);
		return PMS_EXIT_JSON_INPUT;
	}
	if (pms_cmp_load(paths[1], &new, err, sizeof(err))) {
		pms_err("%s", err);
		pms_cmp_side_free(&old);
		pms_cmp_side_free(&new);
		return PMS_EXIT_JSON_INPUT;
	}
	rep = pms_cmp_compare(&old, &new, alpha);
	if (!rep) {
		pms_err("compare: %s", strerror(errno));
		code = PMS_EXIT_ERROR;
	} else if (!json_object_array_length(get(rep, "pairs"))) {
		nothing_to_compare(&old, &new);
		code = PMS_EXIT_JSON_INPUT;
	} else {
		if (as_json)
			puts(json_object_to_json_string_ext(rep, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
		else
			print_table(rep);
		code = json_object_get_int64(get(rep, "regressed")) ? PMS_EXIT_FAIL : PMS_EXIT_PASS;
	}
	json_object_put(rep);
	pms_cmp_side_free(&old);
	pms_cmp_side_free(&new);
	return code;
}
