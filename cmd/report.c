// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmustress report DIR...`: the kernel x scenario matrix of many results in
 * one self-contained HTML file (inline CSS and SVG, nothing fetched, no
 * script) or as text for the terminal; `pmustress report --bug RESULT.json`:
 * one result as plain text for a mail to the kernel's lists.
 *
 * Inputs are run directories (index.json, written by the suite runner), the
 * emulated matrix's OUT/KERNEL/LABEL.json, plain folders of results, or
 * result files.  Each result is read, the few figures the report shows are
 * copied out and the object is freed, so a night's hundreds of results cost
 * what their figures cost, not what their anomaly lists do.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "pms-oracle.h"
#include "pms-util.h"

#define MAX_KNOWN	8	/* known-bug matches kept per result */
#define MAX_BINS	16	/* histogram bins kept per result (the oracle has 7) */
#define BUG_WIDTH	78	/* --bug lines, under the 80 columns a mail takes */
#define BUG_ANOMALIES	5	/* anomalies --bug shows */
#define BUG_EVIDENCE	3	/* evidence items shown per anomaly */

enum src_kind { SRC_RUN, SRC_DIR, SRC_FILE };

/* Where results came from: a run directory (one night of a suite), a folder, a file. */
struct source {
	char *path;
	enum src_kind kind;
	char *host;		/* run directories: the machine, for grouping nights */
	char *suite;
	char *start;		/* run directories: index.json's start_utc */
};

struct bin {
	char label[24];
	uint64_t count;
};

/* One run: what the report shows of it, copied out of its result. */
struct cell {
	char *kernel, *label, *scenario, *verdict, *reason, *file, *start;
	size_t source;
	bool has_rate;
	uint64_t lost, overflows;
	double rate, lo, hi;
	bool known_checked;	/* the result has a known_issues section */
	size_t nknown;
	char *known_id[MAX_KNOWN], *known_title[MAX_KNOWN];
	char *cause, *attrib_summary, *failure_kind;
	bool emulated, substitute;
	uint64_t period;
	size_t nbins;
	struct bin bins[MAX_BINS];
	size_t older;		/* earlier results of the same kernel and label */
};

struct report {
	struct source *src;
	size_t nsrc;
	struct cell *cell;
	size_t ncell;
	size_t ignored;		/* JSON files in a folder that are not results */
	/*
	 * --by-input: rows are INPUT/LABEL, so that inputs holding the same
	 * labels for the same kernels (one matrix per configuration) stay
	 * apart instead of the newest standing for all.
	 */
	bool by_input;
	const char *input;	/* the input argument being loaded */
	char err[1024];
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		pms_err("report: out of memory");
		exit(PMS_EXIT_ERROR);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return s ? strcpy(xrealloc(NULL, strlen(s) + 1), s) : NULL;
}

static const char *or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static bool is_int(json_object *v)
{
	return v && json_object_is_type(v, json_type_int);
}

static bool bget(json_object *o, const char *path)
{
	json_object *v = pms_json_get(o, path);

	return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

/* A result, not some other JSON: it says which scenario ran and what came of it. */
static bool is_result(json_object *o)
{
	return pms_json_get_str(o, "scenario") && pms_json_get_str(o, "verdict");
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* "DIR/lost-overflow.json" -> "lost-overflow" */
static char *stem(const char *path)
{
	char *s = xstrdup(base_name(path));
	size_t n = strlen(s);

	if (n > 5 && !strcmp(s + n - 5, ".json"))
		s[n - 5] = '\0';
	return s;
}

static char *join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0) {
		pms_err("report: out of memory");
		exit(PMS_EXIT_ERROR);
	}
	return p;
}

static size_t add_source(struct report *r, const char *path, enum src_kind kind)
{
	struct source *s;

	r->src = xrealloc(r->src, (r->nsrc + 1) * sizeof(*r->src));
	s = &r->src[r->nsrc];
	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
	s->kind = kind;
	return r->nsrc++;
}

/* Copy out of @res what the report shows. */
static void extract(struct cell *c, json_object *res)
{
	json_object *lost = pms_json_get(res, "oracle.lost"),
		    *ovf = pms_json_get(res, "oracle.overflows_implied");
	json_object *ki = pms_json_get(res, "known_issues"), *hist = pms_json_get(res, "oracle.histogram");
	size_t i;

	c->scenario = xstrdup(pms_json_get_str(res, "scenario"));
	if (!c->verdict)
		c->verdict = xstrdup(pms_json_get_str(res, "verdict"));
	if (!c->reason)
		c->reason = xstrdup(pms_json_get_str(res, "reason"));
	if (!c->start)
		c->start = xstrdup(pms_json_get_str(res, "start_utc"));
	if (!c->kernel)
		c->kernel = xstrdup(pms_json_get_str(res, "host.kernel.release"));
	c->failure_kind = xstrdup(pms_json_get_str(res, "failure_kind"));
	c->emulated = bget(res, "host.emulated");
	c->substitute = bget(res, "counter.substitute");
	/* The loss rate where the result has both counts: lost over overflows. */
	if (is_int(lost) && is_int(ovf) && json_object_get_int64(ovf) > 0 &&
	    json_object_get_int64(lost) >= 0) {
		c->has_rate = true;
		c->lost = json_object_get_uint64(lost);
		c->overflows = json_object_get_uint64(ovf);
		c->rate = c->lost > c->overflows ? 1.0 : (double)c->lost / (double)c->overflows;
		pms_wilson(c->lost, c->overflows, &c->lo, &c->hi);
	}
	if (ki && json_object_is_type(ki, json_type_array)) {
		c->known_checked = true;
		for (i = 0; i < json_object_array_length(ki) && c->nknown < MAX_KNOWN; i++) {
			json_object *e = json_object_array_get_idx(ki, i);
			const char *fit = pms_json_get_str(e, "fit"), *id = pms_json_get_str(e, "id");

			if (!fit || strcmp(fit, "matches") || !id)
				continue;
			c->known_id[c->nknown] = xstrdup(id);
			c->known_title[c->nknown] = xstrdup(pms_json_get_str(e, "title"));
			c->nknown++;
		}
	}
	c->cause = xstrdup(pms_json_get_str(res, "attribution.dominant"));
	c->attrib_summary = xstrdup(pms_json_get_str(res, "attribution.summary"));
	if (is_int(pms_json_get(res, "oracle.period")))
		c->period = json_object_get_uint64(pms_json_get(res, "oracle.period"));
	if (hist && json_object_is_type(hist, json_type_array)) {
		for (i = 0; i < json_object_array_length(hist) && c->nbins < MAX_BINS; i++) {
			json_object *b = json_object_array_get_idx(hist, i);

			if (!is_int(pms_json_get(b, "count")))
				continue;
			snprintf(c->bins[c->nbins].label, sizeof(c->bins[0].label), "%s",
				 pms_json_get_str(b, "bin") ? pms_json_get_str(b, "bin") : "?");
			c->bins[c->nbins].count = json_object_get_uint64(pms_json_get(b, "count"));
			c->nbins++;
		}
	}
}

static struct cell *new_cell(struct report *r, size_t source)
{
	struct cell *c;

	r->cell = xrealloc(r->cell, (r->ncell + 1) * sizeof(*r->cell));
	c = &r->cell[r->ncell++];
	memset(c, 0, sizeof(*c));
	c->source = source;
	return c;
}

/*
 * Read a result file into a new cell.  Return 0, 1 when the file is JSON
 * but not a result (@strict: an error), -1 on an unreadable or malformed
 * file (r->err says which and why).
 */
/* @label (taken) as the cell's row, under its input's name with --by-input. */
static void set_label(struct report *r, struct cell *c, char *label)
{
	const char *in;

	if (!r->by_input || !r->input) {
		c->label = label;
		return;
	}
	in = base_name(r->input);
	c->label = xrealloc(NULL, strlen(in) + strlen(label) + 2);
	sprintf(c->label, "%s/%s", in, label);
	free(label);
}

static int load_result(struct report *r, const char *path, const char *label,
		       const char *kernel, size_t source, bool strict)
{
	json_object *res = pms_json_read_file(path, r->err, sizeof(r->err));
	struct cell *c;

	if (!res)
		return -1;
	if (!is_result(res)) {
		json_object_put(res);
		if (!strict)
			return 1;
		snprintf(r->err, sizeof(r->err), "%s: not a pmustress result (no scenario and "
			 "verdict)", path);
		return -1;
	}
	c = new_cell(r, source);
	set_label(r, c, label ? xstrdup(label) : stem(path));
	c->file = xstrdup(path);
	c->kernel = xstrdup(or(pms_json_get_str(res, "host.kernel.release"),
			       or(kernel, "unknown kernel")));
	extract(c, res);
	json_object_put(res);
	return 0;
}

/*
 * The machine a run directory is from: the index's hostname when it has one,
 * else the middle of the directory's name, <UTC time>-<host>-<release>.
 */
static char *run_host(json_object *idx, const char *dir, const char *release)
{
	const char *h = or(pms_json_get_str(idx, "hostname"),
			   pms_json_get_str(idx, "host.hostname"));
	char *name, *dash;
	size_t n, rl = release ? strlen(release) : 0;

	if (h)
		return xstrdup(h);
	name = xstrdup(base_name(dir));
	n = strlen(name);
	while (n > 1 && name[n - 1] == '/')
		name[--n] = '\0';
	dash = strchr(name, '-');
	if (dash && rl && n > rl + 1 && !strcmp(name + n - rl, release) && name[n - rl - 1] == '-' &&
	    dash < name + n - rl - 1) {
		name[n - rl - 1] = '\0';
		memmove(name, dash + 1, strlen(dash + 1) + 1);
		return name;
	}
	free(name);
	return xstrdup("unknown host");
}

static int load_run_dir(struct report *r, const char *dir, const char *index)
{
	json_object *idx = pms_json_read_file(index, r->err, sizeof(r->err)), *runs;
	const char *release;
	struct source *s;
	size_t si, i;

	if (!idx)
		return -1;
	runs = pms_json_get(idx, "runs");
	if (!runs || !json_object_is_type(runs, json_type_array)) {
		snprintf(r->err, sizeof(r->err), "%s: not a suite index (no runs array)", index);
		json_object_put(idx);
		return -1;
	}
	release = pms_json_get_str(idx, "kernel.release");
	si = add_source(r, dir, SRC_RUN);
	s = &r->src[si];
	s->host = run_host(idx, dir, release);
	s->suite = xstrdup(or(pms_json_get_str(idx, "suite.name"), "(no suite)"));
	s->start = xstrdup(pms_json_get_str(idx, "start_utc"));
	for (i = 0; i < json_object_array_length(runs); i++) {
		json_object *run = json_object_array_get_idx(runs, i);
		const char *label = pms_json_get_str(run, "label"), *file = pms_json_get_str(run, "result");
		struct cell *c;
		char *path;
		int ret;

		if (!label || !pms_json_get_str(run, "verdict")) {
			snprintf(r->err, sizeof(r->err), "%s: run %zu has no label or no verdict",
				 index, i + 1);
			json_object_put(idx);
			return -1;
		}
		if (file && (strchr(file, '/') || !strcmp(file, "..") || !file[0])) {
			snprintf(r->err, sizeof(r->err), "%s: run '%s' names a result outside its "
				 "directory ('%s')", index, label, file);
			json_object_put(idx);
			return -1;
		}
		if (file) {
			path = join(dir, file);
			ret = load_result(r, path, label, release, si, true);
			free(path);
			if (ret) {
				json_object_put(idx);
				return -1;
			}
			c = &r->cell[r->ncell - 1];
		} else {
			/* A run that left no result (timeout, crash): the index's word. */
			c = new_cell(r, si);
			set_label(r, c, xstrdup(label));
			c->kernel = xstrdup(release);
			c->scenario = xstrdup(pms_json_get_str(run, "scenario"));
		}
		/* The runner's verdict wins: "timeout" or "crash" is not in any result. */
		free(c->verdict);
		c->verdict = xstrdup(pms_json_get_str(run, "verdict"));
		if (pms_json_get_str(run, "reason")) {
			free(c->reason);
			c->reason = xstrdup(pms_json_get_str(run, "reason"));
		}
		if (!c->start)
			c->start = xstrdup(or(pms_json_get_str(run, "start_utc"), s->start));
		if (!c->kernel)
			c->kernel = xstrdup("unknown kernel");
	}
	json_object_put(idx);
	return 0;
}

static int dot_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/*
 * A directory: a run directory when it has index.json; otherwise its result
 * files, and (at the top level only) its subdirectories the same way, which
 * is the emulated matrix's OUT/KERNEL/LABEL.json.
 */
static int load_path(struct report *r, const char *path, int depth)
{
	struct dirent **names = NULL;
	struct stat st;
	size_t si = (size_t)-1;
	char *index, *kernel = NULL;
	int n, i, ret = 0;

	if (stat(path, &st)) {
		snprintf(r->err, sizeof(r->err), "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return load_result(r, path, NULL, NULL, add_source(r, path, SRC_FILE), true);
	index = join(path, "index.json");
	if (!access(index, F_OK)) {
		ret = load_run_dir(r, path, index);
		free(index);
		return ret;
	}
	free(index);
	n = scandir(path, &names, dot_filter, alphasort);
	if (n < 0) {
		snprintf(r->err, sizeof(r->err), "%s: %s", path, strerror(errno));
		return -1;
	}
	/* The matrix's host.json names the kernel of results that lack a host block. */
	{
		char *hp = join(path, "host.json");
		json_object *h = access(hp, F_OK) ? NULL : pms_json_read_file(hp, r->err,
									   sizeof(r->err));

		kernel = xstrdup(pms_json_get_str(h, "kernel.release") ? pms_json_get_str(h, "kernel.release")
				 : base_name(path));
		json_object_put(h);
		free(hp);
	}
	for (i = 0; i < n && !ret; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *p = join(path, name);
		struct stat es;

		if (stat(p, &es)) {
			/* A dangling link is not an input anyone meant. */
		} else if (S_ISDIR(es.st_mode)) {
			if (depth == 0)
				ret = load_path(r, p, 1);
		} else if (len > 5 && !strcmp(name + len - 5, ".json") &&
			   strcmp(name, "host.json") && strcmp(name, "index.json")) {
			if (si == (size_t)-1)
				si = add_source(r, path, SRC_DIR);
			ret = load_result(r, p, NULL, kernel, si, false);
			if (ret == 1) {
				r->ignored++;
				ret = 0;
			}
		}
		free(p);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(kernel);
	return ret < 0 ? -1 : 0;
}

/* ---- output helpers */

/*
 * Text from JSON, made safe for HTML (and for the SVG inside it, read as
 * XML): the five specials as references; control characters, C1 controls,
 * noncharacters and bytes that are not UTF-8 as U+FFFD, which a strict
 * parser reports otherwise.
 */
static void esc(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		unsigned int cp = 0, need = 0, k;

		if (*p < 0x80) {
			switch (*p) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&#39;", f); break;
			default:
				if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
					fputs("\xef\xbf\xbd", f);
				else
					fputc(*p, f);
			}
			p++;
			continue;
		}
		if ((*p & 0xe0) == 0xc0) {
			cp = *p & 0x1f;
			need = 1;
		} else if ((*p & 0xf0) == 0xe0) {
			cp = *p & 0x0f;
			need = 2;
		} else if ((*p & 0xf8) == 0xf0) {
			cp = *p & 0x07;
			need = 3;
		}
		for (k = 1; need && k <= need; k++) {
			if ((p[k] & 0xc0) != 0x80) {
				need = 0;
				break;
			}
			cp = cp << 6 | (p[k] & 0x3f);
		}
		/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
		if (!need || (need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) ||
		    (need == 3 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
		    (cp >= 0x80 && cp <= 0x9f) || (cp >= 0xfdd0 && cp <= 0xfdef) ||
		    (cp & 0xfffe) == 0xfffe) {
			fputs("\xef\xbf\xbd", f);
			p += need ? need + 1 : 1;
			continue;
		}
		fwrite(p, 1, need + 1, f);
		p += need + 1;
	}
}

/* For the terminal: control characters (an escape sequence in a reason) as '?'. */
static void tput(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

/* The verdict as a CSS class name: only letters, anything else "other". */
static const char *vclass(const char *v)
{
	static const char *const known[] = { "pass", "fail", "skip", "error", "environment",
					     "timeout", "crash" };
	size_t i;

	for (i = 0; v && i < PMS_ARRAY_SIZE(known); i++)
		if (!strcmp(v, known[i]))
			return known[i];
	return "other";
}

/* "5.52%" with the digits a rate of this size needs. */
static void pct(char *buf, size_t len, double x)
{
	x *= 100.0;
	if (x == 0.0)
		snprintf(buf, len, "0%%");
	else if (x >= 10.0)
		snprintf(buf, len, "%.1f%%", x);
	else if (x >= 0.01)
		snprintf(buf, len, "%.2f%%", x);
	else
		snprintf(buf, len, "%.2g%%", x);
}

static void rate_text(const struct cell *c, char *buf, size_t len)
{
	char v[24], lo[24], hi[24];

	pct(v, sizeof(v), c->rate);
	pct(lo, sizeof(lo), c->lo);
	pct(hi, sizeof(hi), c->hi);
	snprintf(buf, len, "%s [%s, %s]", v, lo, hi);
}

static int kernel_cmp(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Unique kernels (version order) and labels (order of first appearance). */
static void axes(struct report *r, char ***kernels, size_t *nk, char ***labels, size_t *nl)
{
	size_t i, j;

	*kernels = xrealloc(NULL, (r->ncell + 1) * sizeof(char *));
	*labels = xrealloc(NULL, (r->ncell + 1) * sizeof(char *));
	*nk = *nl = 0;
	for (i = 0; i < r->ncell; i++) {
		for (j = 0; j < *nk && strcmp((*kernels)[j], r->cell[i].kernel); j++)
			;
		if (j == *nk)
			(*kernels)[(*nk)++] = r->cell[i].kernel;
		for (j = 0; j < *nl && strcmp((*labels)[j], r->cell[i].label); j++)
			;
		if (j == *nl)
			(*labels)[(*nl)++] = r->cell[i].label;
	}
	qsort(*kernels, *nk, sizeof(char *), kernel_cmp);
}

/* The newest result of @kernel and @label (by start time), its older ones counted. */
static struct cell *lookup(struct report *r, const char *kernel, const char *label)
{
	struct cell *best = NULL;
	size_t i, n = 0;

	for (i = 0; i < r->ncell; i++) {
		struct cell *c = &r->cell[i];

		if (strcmp(c->kernel, kernel) || strcmp(c->label, label))
			continue;
		n++;
		if (!best || strcmp(c->start ? c->start : "", best->start ? best->start : "") > 0)
			best = c;
	}
	if (best)
		best->older = n - 1;
	return best;
}

/* ---- HTML */

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:1.5em;color:#222;max-width:80em}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}\n"
	"h3{font-size:1em;margin:1.5em 0 .3em}\n"
	"table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:.3em .5em;"
	"vertical-align:top;text-align:left}\n"
	"td.cell{min-width:11em}td.cell a{color:inherit;font-weight:bold}\n"
	".pass{background:#d7f0d0}.fail{background:#f6c9c4}.skip{background:#e6e6e6}\n"
	".environment{background:#fbe7b5}.error,.timeout,.crash{background:#e3c6f0}\n"
	".other{background:#fff}.none{background:#fafafa;color:#888}\n"
	".rate,.ki,.cause,.note{display:block;font-size:.85em}.ki{color:#7a0000}\n"
	".legend span{display:inline-block;padding:.1em .6em;margin-right:.4em;"
	"border:1px solid #bbb}\n"
	".reason{white-space:pre-wrap;font-family:monospace;font-size:.85em}\n"
	"code{font-size:.9em}svg{display:block;margin:.3em 0}\n";

static void html_cell(FILE *f, struct cell *c, size_t id)
{
	size_t k;

	fprintf(f, "<td class=\"cell %s\" data-kernel=\"", vclass(c->verdict));
	esc(f, c->kernel);
	fputs("\" data-label=\"", f);
	esc(f, c->label);
	fputs("\" data-verdict=\"", f);
	esc(f, c->verdict);
	fputc('"', f);
	if (c->has_rate)
		fprintf(f, " data-loss=\"%.17g\" data-ci-lo=\"%.17g\" data-ci-hi=\"%.17g\" "
			"data-lost=\"%" PRIu64 "\" data-overflows=\"%" PRIu64 "\"",
			c->rate, c->lo, c->hi, c->lost, c->overflows);
	fprintf(f, "><a href=\"#run%zu\">", id);
	esc(f, c->verdict);
	fputs("</a>", f);
	if (c->has_rate) {
		char rt[128];

		rate_text(c, rt, sizeof(rt));
		fprintf(f, "<span class=\"rate\" title=\"%" PRIu64 " lost of %" PRIu64
			" overflows; 95%% Wilson interval\">lost %s</span>", c->lost, c->overflows,
			rt);
	}
	for (k = 0; k < c->nknown; k++) {
		fputs("<span class=\"ki\" title=\"", f);
		esc(f, c->known_title[k]);
		fputs("\">matches ", f);
		esc(f, c->known_id[k]);
		fputs("</span>", f);
	}
	if (!c->nknown && c->known_checked && !strcmp(vclass(c->verdict), "fail"))
		fputs("<span class=\"ki\">no known bug: possibly new</span>", f);
	if (c->cause) {
		fputs("<span class=\"cause\">cause: ", f);
		esc(f, c->cause);
		fputs("</span>", f);
	}
	if (c->older)
		fprintf(f, "<span class=\"note\">newest of %zu</span>", c->older + 1);
	fputs("</td>", f);
}

/* Deltas in periods as bars, heights on a log scale so the rare bins show. */
static void svg_histogram(FILE *f, const struct cell *c)
{
	const int bw = 64, gap = 6, top = 18, h = 100, W = (int)c->nbins * (bw + gap) + gap;
	double lmax = 0.0;
	size_t i;

	for (i = 0; i < c->nbins; i++)
		lmax = fmax(lmax, log10((double)c->bins[i].count + 1.0));
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hist\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", W, top + h + 20, W,
		top + h + 20);
	fputs("<title>deltas between signals, in periods (bar heights: log scale)</title>\n", f);
	fprintf(f, "<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", top + h, W,
		top + h);
	for (i = 0; i < c->nbins; i++) {
		double l = log10((double)c->bins[i].count + 1.0);
		int bh = lmax > 0 ? (int)lround(h * l / lmax) : 0;
		int x = gap + (int)i * (bw + gap);
		bool on_time = strstr(c->bins[i].label, "P-tol,P+tol") != NULL;

		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
			"<title>", x, top + h - bh, bw, bh, on_time ? "#4a9a3a" : "#d0703a");
		esc(f, c->bins[i].label);
		fprintf(f, ": %" PRIu64 "</title></rect>\n", c->bins[i].count);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%"
			PRIu64 "</text>\n", x + bw / 2, top + h - bh - 3, c->bins[i].count);
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"middle\">",
			x + bw / 2, top + h + 13);
		esc(f, c->bins[i].label);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static int src_time_cmp(const void *a, const void *b, void *arg)
{
	const struct source *s = arg;
	const char *x = s[*(const size_t *)a].start, *y = s[*(const size_t *)b].start;

	return strcmp(x ? x : "", y ? y : "");
}

/*
 * One label's nights: a dot per run (coloured by verdict) at its loss rate,
 * its 95% interval as a whisker, joined by a line; runs without counts sit
 * on the axis.
 */
static void svg_trend(FILE *f, struct report *r, const size_t *nights, size_t n,
		      const char *label)
{
	const int W = 360, H = 110, L = 54, R = 12, T = 12, B = 30;
	struct cell *pts[64];
	double ymax = 0.0;
	size_t i, j, np = 0;
	char buf[32];
	bool line = false;

	/* The newest nights when there are more than the chart holds. */
	if (n > PMS_ARRAY_SIZE(pts)) {
		nights += n - PMS_ARRAY_SIZE(pts);
		n = PMS_ARRAY_SIZE(pts);
	}
	for (i = 0; i < n; i++) {
		struct cell *c = NULL;

		for (j = 0; j < r->ncell; j++)
			if (r->cell[j].source == nights[i] && !strcmp(r->cell[j].label, label))
				c = &r->cell[j];
		pts[np++] = c;
		if (c && c->has_rate)
			ymax = fmax(ymax, c->hi);
	}
	if (ymax <= 0.0)
		ymax = 0.01;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"trend\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<title>loss rate of ", W, H,
		W, H);
	esc(f, label);
	fputs(" per run</title>\n", f);
	pct(buf, sizeof(buf), ymax);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n"
		"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n"
		"<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">%s</text>\n"
		"<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"end\">0</text>\n",
		L, H - B, W - R, H - B, L, T, L, H - B, L - 4, T + 4, buf, L - 4, H - B);
#define PX(i) (L + (np > 1 ? (int)((i) * (size_t)(W - L - R - 10) / (np - 1)) : 0) + 5)
#define PY(v) ((double)(H - B) - (v) / ymax * (double)(H - B - T))
	fputs("<polyline fill=\"none\" stroke=\"#555\" points=\"", f);
	for (i = 0; i < np; i++)
		if (pts[i] && pts[i]->has_rate) {
			fprintf(f, "%s%d,%.1f", line ? " " : "", PX(i), PY(pts[i]->rate));
			line = true;
		}
	fputs("\"/>\n", f);
	for (i = 0; i < np; i++) {
		struct cell *c = pts[i];
		const char *cls = c ? vclass(c->verdict) : "none";
		static const struct { const char *cls, *fill; } fills[] = {
			{ "pass", "#4a9a3a" }, { "fail", "#c0392b" }, { "skip", "#999" },
			{ "environment", "#d4a017" }, { "none", "#fff" },
		};
		const char *fill = "#8e44ad";
		double y = c && c->has_rate ? PY(c->rate) : (double)(H - B);

		for (j = 0; j < PMS_ARRAY_SIZE(fills); j++)
			if (!strcmp(cls, fills[j].cls))
				fill = fills[j].fill;
		if (c && c->has_rate)
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
				"stroke=\"#999\"/>\n", PX(i), PY(c->lo), PX(i), PY(c->hi));
		fprintf(f, "<circle cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#333\" "
			"class=\"%s\"><title>", PX(i), y, fill, cls);
		esc(f, r->src[nights[i]].start ? r->src[nights[i]].start : "?");
		if (c) {
			fputs(" ", f);
			esc(f, c->kernel);
			fputs(": ", f);
			esc(f, c->verdict);
			if (c->has_rate) {
				char rt[128];

				rate_text(c, rt, sizeof(rt));
				fprintf(f, ", lost %s", rt);
			}
		} else {
			fputs(": not run", f);
		}
		fputs("</title></circle>\n", f);
	}
	/* The first and last nights' dates under the axis. */
	for (i = 0; i < np; i += np - 1 ? np - 1 : 1) {
		const char *s = r->src[nights[i]].start;

		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"9\" text-anchor=\"%s\">", PX(i),
			H - B + 14, i == 0 ? "start" : "end");
		esc(f, s ? s : "?");
		fputs("</text>\n", f);
		if (np == 1)
			break;
	}
#undef PX
#undef PY
	fputs("</svg>\n", f);
}

/* Nights of the same host and suite, each group two or more: one trend per label. */
static void html_trends(FILE *f, struct report *r)
{
	size_t *order = xrealloc(NULL, (r->nsrc + 1) * sizeof(size_t));
	bool *done = xrealloc(NULL, (r->nsrc + 1) * sizeof(bool));
	size_t i, j, k, n, groups = 0;

	memset(done, 0, (r->nsrc + 1) * sizeof(bool));
	fputs("<h2 id=\"trends\">Night over night</h2>\n", f);
	for (i = 0; i < r->nsrc; i++) {
		if (done[i] || r->src[i].kind != SRC_RUN)
			continue;
		for (n = 0, j = i; j < r->nsrc; j++)
			if (r->src[j].kind == SRC_RUN && same(r->src[j].host, r->src[i].host) &&
			    same(r->src[j].suite, r->src[i].suite)) {
				order[n++] = j;
				done[j] = true;
			}
		if (n < 2)
			continue;
		groups++;
		qsort_r(order, n, sizeof(size_t), src_time_cmp, r->src);
		fputs("<h3>host ", f);
		esc(f, r->src[i].host);
		fputs(", suite ", f);
		esc(f, r->src[i].suite);
		fprintf(f, ": %zu runs</h3>\n<table class=\"trends\">\n"
			"<tr><th scope=\"col\">label</th><th scope=\"col\">loss rate per run "
			"(oldest first; whiskers: 95%% interval)</th></tr>\n", n);
		for (k = 0; k < r->ncell; k++) {
			bool first = true;

			/* Each label once, at its first appearance in the group. */
			for (j = 0; j < k && first; j++)
				if (!strcmp(r->cell[j].label, r->cell[k].label) &&
				    done[r->cell[j].source] && same(r->src[r->cell[j].source].host,
								    r->src[i].host) &&
				    same(r->src[r->cell[j].source].suite, r->src[i].suite) &&
				    r->src[r->cell[j].source].kind == SRC_RUN)
					first = false;
			if (!first || r->src[r->cell[k].source].kind != SRC_RUN ||
			    !same(r->src[r->cell[k].source].host, r->src[i].host) ||
			    !same(r->src[r->cell[k].source].suite, r->src[i].suite))
				continue;
			fputs("<tr class=\"trend\" data-label=\"", f);
			esc(f, r->cell[k].label);
			fputs("\"><th scope=\"row\">", f);
			esc(f, r->cell[k].label);
			fputs("</th><td>", f);
			svg_trend(f, r, order, n, r->cell[k].label);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	if (!groups)
		fputs("<p>One run per host and suite: trends need two or more run directories "
		      "(index.json) of the same host and suite.</p>\n", f);
	free(order);
	free(done);
}

static void html_runs(FILE *f, struct report *r)
{
	size_t i, k;

	fputs("<h2 id=\"runs\">Runs</h2>\n", f);
	for (i = 0; i < r->ncell; i++) {
		struct cell *c = &r->cell[i];

		fprintf(f, "<div class=\"run\" id=\"run%zu\">\n<h3 class=\"%s\">", i,
			vclass(c->verdict));
		esc(f, c->kernel);
		fputs(" / ", f);
		esc(f, c->label);
		fputs(": ", f);
		esc(f, c->verdict);
		fputs("</h3>\n<p>scenario <code>", f);
		esc(f, c->scenario ? c->scenario : "?");
		fputs("</code>; started ", f);
		esc(f, c->start ? c->start : "?");
		fputs("; result <code>", f);
		esc(f, c->file ? c->file : "none (the run left no result)");
		fputs("</code>", f);
		if (c->emulated)
			fputs("; emulated machine", f);
		if (c->substitute)
			fputs("; counter substitute", f);
		fputs("</p>\n<p class=\"reason\">", f);
		esc(f, c->reason ? c->reason : "");
		fputs("</p>\n", f);
		if (c->has_rate) {
			char rt[128];

			rate_text(c, rt, sizeof(rt));
			fprintf(f, "<p>loss rate %s (%" PRIu64 " lost of %" PRIu64 " overflows; 95%% "
				"Wilson interval)</p>\n", rt, c->lost, c->overflows);
		}
		for (k = 0; k < c->nknown; k++) {
			fputs("<p class=\"ki\">known bug: matches <b>", f);
			esc(f, c->known_id[k]);
			fputs("</b>: ", f);
			esc(f, c->known_title[k]);
			fputs("</p>\n", f);
		}
		if (c->attrib_summary) {
			fputs("<p>attribution: ", f);
			esc(f, c->attrib_summary);
			fputs("</p>\n", f);
		}
		if (c->nbins) {
			fprintf(f, "<p>deltas between signals in periods (P = %" PRIu64 "):</p>\n",
				c->period);
			svg_histogram(f, c);
		}
		fputs("</div>\n", f);
	}
}

static void html_report(FILE *f, struct report *r)
{
	char **kernels, **labels;
	size_t nk, nl, i, j, k, nfail = 0, nmatch = 0;

	axes(r, &kernels, &nk, &labels, &nl);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>pmustress report</title>\n<style>\n", f);
	fputs(css, f);
	fputs("</style>\n</head>\n<body>\n<h1>pmustress report</h1>\n", f);
	fprintf(f, "<p>%zu results on %zu kernels, %zu labels, by pmustress %s, from:</p>\n<ul>\n",
		r->ncell, nk, nl, PMS_VERSION);
	for (i = 0; i < r->nsrc; i++) {
		fputs("<li><code>", f);
		esc(f, r->src[i].path);
		fputs("</code>", f);
		if (r->src[i].kind == SRC_RUN) {
			fputs(" (run directory: host ", f);
			esc(f, r->src[i].host);
			fputs(", suite ", f);
			esc(f, r->src[i].suite);
			fputs(", started ", f);
			esc(f, r->src[i].start ? r->src[i].start : "?");
			fputs(")", f);
		}
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	if (r->ignored)
		fprintf(f, "<p>%zu JSON files in those folders were not results and are left out."
			"</p>\n", r->ignored);

	fputs("<h2 id=\"matrix\">Kernel x scenario</h2>\n<p class=\"legend\">"
	      "<span class=\"pass\">pass</span><span class=\"fail\">fail</span>"
	      "<span class=\"environment\">environment</span><span class=\"skip\">skip</span>"
	      "<span class=\"error\">error, timeout, crash</span>"
	      "<span class=\"none\">not run</span></p>\n"
	      "<p>Each cell: the verdict (a link to the run), the loss rate (overflows lost over "
	      "overflows the final count implies) with its 95% Wilson score interval where the "
	      "result has both counts, the known bugs it matches and the dominant cause "
	      "attribution found.</p>\n", f);
	fputs("<table class=\"matrix\">\n<thead><tr><th scope=\"col\">label</th>", f);
	for (k = 0; k < nk; k++) {
		fputs("<th scope=\"col\" class=\"kernel\">", f);
		esc(f, kernels[k]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (j = 0; j < nl; j++) {
		fputs("<tr><th scope=\"row\" class=\"label\">", f);
		esc(f, labels[j]);
		fputs("</th>", f);
		for (k = 0; k < nk; k++) {
			struct cell *c = lookup(r, kernels[k], labels[j]);

			if (c) {
				html_cell(f, c, (size_t)(c - r->cell));
				nfail += !strcmp(vclass(c->verdict), "fail");
				nmatch += c->nknown > 0;
			} else {
				fputs("<td class=\"cell none\">-</td>", f);
			}
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	fprintf(f, "<p>%zu failing cells, %zu of them matching a known bug.</p>\n", nfail, nmatch);

	fputs("<h2 id=\"known\">Known bugs matched</h2>\n", f);
	if (!nmatch) {
		fputs("<p>No result matches a known bug.</p>\n", f);
	} else {
		fputs("<table class=\"known\">\n<tr><th scope=\"col\">known bug</th>"
		      "<th scope=\"col\">runs</th></tr>\n", f);
		for (i = 0; i < r->ncell; i++)
			for (k = 0; k < r->cell[i].nknown; k++) {
				const char *id = r->cell[i].known_id[k];
				bool first = true;
				size_t a, b;

				for (a = 0; a <= i && first; a++)
					for (b = 0; b < (a == i ? k : r->cell[a].nknown); b++)
						if (!strcmp(r->cell[a].known_id[b], id))
							first = false;
				if (!first)
					continue;
				fputs("<tr><td class=\"ki\"><b>", f);
				esc(f, id);
				fputs("</b><br>", f);
				esc(f, r->cell[i].known_title[k]);
				fputs("</td><td>", f);
				for (a = i; a < r->ncell; a++)
					for (b = 0; b < r->cell[a].nknown; b++)
						if (!strcmp(r->cell[a].known_id[b], id)) {
							fprintf(f, "<a href=\"#run%zu\">", a);
							esc(f, r->cell[a].kernel);
							fputs(" / ", f);
							esc(f, r->cell[a].label);
							fputs("</a> ", f);
						}
				fputs("</td></tr>\n", f);
			}
		fputs("</table>\n", f);
	}
	html_trends(f, r);
	html_runs(f, r);
	fputs("<h2 id=\"method\">Method</h2>\n<p>Loss rate: the result's oracle.lost over "
	      "oracle.overflows_implied.  Its 95% confidence interval is the Wilson score "
	      "interval (z = 1.96), as the result's own oracle.loss_rate records it: unlike "
	      "the normal approximation it stays inside [0, 1] and does not collapse to "
	      "[0, 0] when nothing was lost.  Results without both counts (sigtrap, pidns, "
	      "aux-pause, a run that left no result) show their verdict only.  Where a "
	      "kernel and label have several results the newest is shown in the matrix; "
	      "all are listed under Runs.</p>\n</body>\n</html>\n", f);
	free(kernels);
	free(labels);
}

/* ---- text */

/* A cell as the terminal shows it: verdict, loss rate, '*' when a note follows. */
static void text_cell(struct cell *c, char *buf, size_t len)
{
	char rt[128];

	if (!c) {
		snprintf(buf, len, "-");
	} else if (c->has_rate) {
		rate_text(c, rt, sizeof(rt));
		snprintf(buf, len, "%s %s%s", c->verdict, rt, c->nknown || c->cause ? " *" : "");
	} else {
		snprintf(buf, len, "%s%s", c->verdict, c->nknown || c->cause ? " *" : "");
	}
}

static void text_report(FILE *f, struct report *r)
{
	char **kernels, **labels, buf[160];
	size_t nk, nl, j, k, lw = 5, cw = 1, notes = 0;

	axes(r, &kernels, &nk, &labels, &nl);
	for (j = 0; j < nl; j++)
		lw = strlen(labels[j]) > lw ? strlen(labels[j]) : lw;
	for (k = 0; k < nk; k++)
		cw = strlen(kernels[k]) > cw ? strlen(kernels[k]) : cw;
	for (j = 0; j < nl; j++)
		for (k = 0; k < nk; k++) {
			text_cell(lookup(r, kernels[k], labels[j]), buf, sizeof(buf));
			cw = strlen(buf) > cw ? strlen(buf) : cw;
		}
	fprintf(f, "%-*s", (int)lw, "LABEL");
	for (k = 0; k < nk; k++) {
		fputs("  ", f);
		tput(f, kernels[k]);
		if (k + 1 < nk)
			fprintf(f, "%*s", (int)(cw - strlen(kernels[k])), "");
	}
	fputc('\n', f);
	for (j = 0; j < nl; j++) {
		tput(f, labels[j]);
		fprintf(f, "%*s", (int)(lw - strlen(labels[j])), "");
		for (k = 0; k < nk; k++) {
			text_cell(lookup(r, kernels[k], labels[j]), buf, sizeof(buf));
			fputs("  ", f);
			tput(f, buf);
			if (k + 1 < nk)
				fprintf(f, "%*s", (int)(cw - strlen(buf)), "");
		}
		fputc('\n', f);
	}
	fputs("\nlost: overflows lost of those implied, [95% Wilson interval]\n", f);
	for (j = 0; j < nl; j++)
		for (k = 0; k < nk; k++) {
			struct cell *c = lookup(r, kernels[k], labels[j]);
			size_t i;

			if (!c || (!c->nknown && !c->cause))
				continue;
			if (!notes++)
				fputs("* known bugs matched and dominant causes:\n", f);
			fputs("  ", f);
			tput(f, c->kernel);
			fputs(" ", f);
			tput(f, c->label);
			fputs(":", f);
			for (i = 0; i < c->nknown; i++) {
				fputs(i ? ", " : " matches ", f);
				tput(f, c->known_id[i]);
			}
			if (c->cause) {
				fputs(c->nknown ? "; cause " : " cause ", f);
				tput(f, c->cause);
			}
			fputc('\n', f);
		}
	free(kernels);
	free(labels);
}

/* ---- --bug: plain text for a mail, every line under 80 columns */

struct wrap {
	FILE *f;
	size_t col;
	int indent;
	bool fresh;	/* right after a heading: the next word takes no space */
};

static void wrap_nl(struct wrap *w)
{
	fputc('\n', w->f);
	w->col = 0;
}

/*
 * One word at the cursor, onto a new line when it does not fit; a word too
 * long for any line is cut.
 */
static void wrap_word(struct wrap *w, const char *s, size_t n)
{
	size_t room;

	if (w->col && w->col + (w->fresh ? 0 : 1) + n > BUG_WIDTH)
		wrap_nl(w);
	if (!w->col) {
		fprintf(w->f, "%*s", w->indent, "");
		w->col = (size_t)w->indent;
	} else if (!w->fresh) {
		fputc(' ', w->f);
		w->col++;
	}
	w->fresh = false;
	while (w->col + n > BUG_WIDTH) {
		room = BUG_WIDTH - w->col;
		/* Not inside a UTF-8 sequence. */
		while (room > 1 && ((unsigned char)s[room] & 0xc0) == 0x80)
			room--;
		fwrite(s, 1, room, w->f);
		s += room;
		n -= room;
		wrap_nl(w);
		fprintf(w->f, "%*s", w->indent, "");
		w->col = (size_t)w->indent;
	}
	fwrite(s, 1, n, w->f);
	w->col += n;
}

/*
 * Text filled to BUG_WIDTH columns: @first (a heading, may be NULL) starts
 * the first line, the others are indented by @indent.
 */
static void para(FILE *f, const char *first, int indent, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void para(FILE *f, const char *first, int indent, const char *fmt, ...)
{
	struct wrap w = { f, 0, indent, false };
	char *text, *p;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	for (p = text; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	if (first && *first) {
		fputs(first, f);
		w.col = strlen(first);
		w.fresh = true;
	}
	for (p = text; *p;) {
		size_t len;

		while (*p == ' ')
			p++;
		len = strcspn(p, " ");
		if (len)
			wrap_word(&w, p, len);
		p += len;
	}
	if (w.col)
		wrap_nl(&w);
	free(text);
}

/* A value as text: strings bare, numbers and the rest as JSON. */
static const char *vtext(json_object *v)
{
	if (!v || json_object_is_type(v, json_type_null))
		return "null";
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* The event's perf_event_attr: the counter's, or a scenario's own event's. */
static json_object *find_attr(json_object *res)
{
	json_object *a = pms_json_get(res, "counter.attr");

	if (a && pms_json_get(a, "type"))
		return a;
	json_object_object_foreach(res, key, val) {
		(void)key;
		if (!json_object_is_type(val, json_type_object))
			continue;
		a = pms_json_get(val, "event.attr");
		if (a && pms_json_get(a, "type"))
			return a;
		a = pms_json_get(val, "attr");
		if (a && pms_json_get(a, "type"))
			return a;
	}
	return NULL;
}

/* The first anomalies: the oracle's, or those of a scenario's own section. */
static json_object *find_anomalies(json_object *res, uint64_t *total)
{
	json_object *l = pms_json_get(res, "oracle.anomalies.list");

	*total = 0;
	if (l && json_object_is_type(l, json_type_array)) {
		*total = json_object_get_uint64(pms_json_get(res, "oracle.anomalies.total"));
		return l;
	}
	json_object_object_foreach(res, key, val) {
		(void)key;
		if (!json_object_is_type(val, json_type_object))
			continue;
		l = pms_json_get(val, "anomalies.list");
		if (l && json_object_is_type(l, json_type_array)) {
			*total = json_object_get_uint64(pms_json_get(val, "anomalies.total"));
			return l;
		}
		l = pms_json_get(val, "anomalies");
		if (l && json_object_is_type(l, json_type_array)) {
			*total = is_int(pms_json_get(val, "anomalies_total")) ?
				 json_object_get_uint64(pms_json_get(val, "anomalies_total")) :
				 json_object_array_length(l);
			return l;
		}
	}
	return NULL;
}

/* "k=v k=v" of an object's scalars that say something (not null, not false). */
static void scalars(char *buf, size_t len, json_object *o, const char *skip)
{
	size_t pos = 0;

	buf[0] = '\0';
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, key, v) {
		if ((skip && !strcmp(key, skip)) || !v || json_object_is_type(v, json_type_null) ||
		    json_object_is_type(v, json_type_object) ||
		    json_object_is_type(v, json_type_array) ||
		    (json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v)))
			continue;
		pms_append(buf, len, &pos, "%s%s=%s", pos ? " " : "", key, vtext(v));
	}
}

/*
 * An argument as the shell reads it back.  Double quotes rather than single
 * ones: inside them a backslash-newline is a continuation, so a long
 * argument can be cut across lines and still read as one word.
 */
static void shell_quote(char *buf, size_t len, size_t *pos, const char *a)
{
	const char *p;

	if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			 "-_./=:,+%@") == strlen(a)) {
		pms_append(buf, len, pos, "%s", a);
		return;
	}
	pms_append(buf, len, pos, "\"");
	for (p = a; *p; p++)
		pms_append(buf, len, pos, "%s%c", strchr("\\$`\"!", *p) ? "\\" : "", *p);
	pms_append(buf, len, pos, "\"");
}

/*
 * A command, continued with backslashes past the width; an argument longer
 * than a line is cut with a backslash-newline too (the next part starts in
 * column 0, since spaces there would be part of the word).
 */
static void print_command(FILE *f, const char *const *words, size_t n)
{
	size_t i, col = 2;
	char arg[2048];

	fputs("  ", f);
	for (i = 0; i < n; i++) {
		size_t pos = 0, len;
		const char *s = arg;

		arg[0] = '\0';
		shell_quote(arg, sizeof(arg), &pos, words[i]);
		len = strlen(arg);
		if (i && col + 1 + len > BUG_WIDTH - 2) {
			fputs(" \\\n    ", f);
			col = 4;
		} else if (i) {
			fputc(' ', f);
			col++;
		}
		while (col + len > BUG_WIDTH - 2) {
			size_t room = BUG_WIDTH - 2 - col;

			fwrite(s, 1, room, f);
			fputs("\\\n", f);
			s += room;
			len -= room;
			col = 0;
		}
		fputs(s, f);
		col += len;
	}
	fputc('\n', f);
}

/* "6.1.0-56-arm64" -> "6.1": the series scripts/kernel-matrix takes. */
static void series(char *buf, size_t len, const char *release)
{
	size_t n = strspn(release, "0123456789");

	if (release[n] == '.')
		n += 1 + strspn(release + n + 1, "0123456789");
	snprintf(buf, len, "%.*s", (int)n, release);
}

static int bug_report(FILE *f, json_object *res, const char *path)
{
	json_object *attr = find_attr(res), *argv = pms_json_get(res, "argv"), *an, *ki;
	const char *rel = or(pms_json_get_str(res, "host.kernel.release"), "unknown");
	const char *verdict = pms_json_get_str(res, "verdict"), *pmu;
	char buf[4096], what[256];
	size_t pos, i, nmatch = 0;
	uint64_t total;
	struct stat st;

	pmu = pms_json_get_str(res, "counter.pmu");
	/* A scenario without the common counter names its event's PMU in its own section. */
	json_object_object_foreach(res, key, val) {
		(void)key;
		if (!pmu && json_object_is_type(val, json_type_object) && pms_json_get_str(val, "event.pmu"))
			pmu = pms_json_get_str(val, "event.pmu");
	}
	snprintf(what, sizeof(what), "%s", or(pms_json_get_str(res, "failure_kind"), verdict));
	/* The PMU is left out of a subject that would not fit in one line. */
	snprintf(buf, sizeof(buf), "Subject: [BUG] perf: %s: %s on %s%s%s%s",
		 pms_json_get_str(res, "scenario"), what, rel, pmu ? " (" : "", pmu ? pmu : "", pmu ? ")" : "");
	if (strlen(buf) > BUG_WIDTH)
		snprintf(buf, sizeof(buf), "Subject: [BUG] perf: %s: %s on %s",
			 pms_json_get_str(res, "scenario"), what, rel);
	if (strlen(buf) > BUG_WIDTH) {
		buf[BUG_WIDTH - 3] = '\0';
		strcat(buf, "...");
	}
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20)
			buf[i] = ' ';
	fprintf(f, "%s\n\n", buf);
	para(f, NULL, 0, "pmustress %s's %s scenario %s on this machine (%s).",
	     or(pms_json_get_str(res, "tool.version"), "?"), pms_json_get_str(res, "scenario"),
	     !strcmp(verdict, "fail") ? "fails" : !strcmp(verdict, "pass") ? "passes" :
	     "did not give a pass or a fail", or(pms_json_get_str(res, "start_utc"), "time unknown"));
	fputc('\n', f);

	para(f, "Kernel:   ", 10, "%s %s", rel, or(pms_json_get_str(res, "host.kernel.version"), ""));
	para(f, "Arch:     ", 10, "%s", or(pms_json_get_str(res, "host.arch"), "?"));
	pos = 0;
	buf[0] = '\0';
	pms_append(buf, sizeof(buf), &pos, "%s %s", or(pms_json_get_str(res, "host.cpu.vendor"), ""),
		   or(pms_json_get_str(res, "host.cpu.model"), "model unknown"));
	if (pms_json_get_str(res, "host.cpu.midr"))
		pms_append(buf, sizeof(buf), &pos, ", MIDR %s", pms_json_get_str(res, "host.cpu.midr"));
	if (pms_json_get(res, "host.cpu.family") &&
	    !json_object_is_type(pms_json_get(res, "host.cpu.family"), json_type_null))
		pms_append(buf, sizeof(buf), &pos, ", family %s model %s",
			   vtext(pms_json_get(res, "host.cpu.family")), vtext(pms_json_get(res, "host.cpu.model_id")));
	if (is_int(pms_json_get(res, "host.cpu.nr_cpus_online")))
		pms_append(buf, sizeof(buf), &pos, ", %s CPUs online",
			   vtext(pms_json_get(res, "host.cpu.nr_cpus_online")));
	para(f, "CPU:      ", 10, "%s", buf);
	para(f, "PMU:      ", 10, "event on %s; core PMU %s; hardware PMU %s", or(pmu, "?"),
	     or(pms_json_get_str(res, "host.core_pmu"), "none"),
	     bget(res, "host.hardware_pmu") ? "yes" : "no");
	if (pms_json_get_str(res, "counter.spec"))
		para(f, "Counter:  ", 10, "%s, period %s, tolerance %s, semantics %s",
		     pms_json_get_str(res, "counter.spec"),
		     vtext(pms_json_get(res, "counter.period")),
		     vtext(pms_json_get(res, "counter.tolerance")),
		     or(pms_json_get_str(res, "counter.semantics"), "?"));
	if (attr) {
		pos = 0;
		buf[0] = '\0';
		json_object_object_foreach(attr, key, v) {
			if (!strcmp(key, "type_name") || !v || json_object_is_type(v, json_type_null))
				continue;
			if (!strcmp(key, "type")) {
				pms_append(buf, sizeof(buf), &pos, "%stype=%s (%s)", pos ? " " : "",
					   vtext(v), or(pms_json_get_str(attr, "type_name"), "?"));
			} else if (json_object_is_type(v, json_type_boolean)) {
				if (json_object_get_boolean(v))
					pms_append(buf, sizeof(buf), &pos, "%s%s", pos ? " " : "", key);
			} else if (is_int(v)) {
				if (json_object_get_int64(v))
					pms_append(buf, sizeof(buf), &pos, "%s%s=%s", pos ? " " : "", key,
						   vtext(v));
			} else if (json_object_is_type(v, json_type_string)) {
				const char *s = json_object_get_string(v);

				if (strcmp(s, "0x0") && strcmp(s, "0") && *s)
					pms_append(buf, sizeof(buf), &pos, "%s%s=%s", pos ? " " : "",
						   key, s);
			}
		}
		fputs("\nperf_event_attr (fields set; the others are 0):\n", f);
		para(f, NULL, 2, "%s", buf);
	}

	fputs("\nTo reproduce (pmustress built from its repository):\n", f);
	if (argv && json_object_is_type(argv, json_type_array) && json_object_array_length(argv)) {
		size_t n = json_object_array_length(argv), nw = 0, k;
		const char **w = xrealloc(NULL, (n + 5) * sizeof(*w));
		char *run = NULL, *lab = stem(path), s[32];
		size_t rl = 0;
		FILE *rf;

		for (k = 0; k < n; k++)
			w[nw++] = vtext(json_object_array_get_idx(argv, k));
		print_command(f, w, nw);
		/* The emulated guest's harness adds --json itself and names the run. */
		if (bget(res, "host.emulated") && pms_json_get(res, "host.emulation") && n > 1 &&
		    (rf = open_memstream(&run, &rl))) {
			fputs(lab, rf);
			for (k = 1; k < n; k++) {
				if (!strcmp(w[k], "--json") && k + 1 < n) {
					k++;
					continue;
				}
				fprintf(rf, " %s", w[k]);
			}
			fclose(rf);
			series(s, sizeof(s), rel);
			fputs("in the emulated arm64 guest (QEMU), from the repository:\n", f);
			w[0] = "scripts/kernel-matrix";
			w[1] = "--kernel";
			w[2] = s;
			w[3] = "--run";
			w[4] = run;
			print_command(f, w, 5);
			free(run);
		}
		free(lab);
		free(w);
	} else {
		fputs("  (the result has no argv)\n", f);
	}

	fputs("\n", f);
	para(f, "Expected: ", 10, "%s", or(pms_json_get_str(res, "scenario_summary"), "?"));
	para(f, "Seen:     ", 10, "verdict %s (exit %s)%s%s: %s", verdict,
	     vtext(pms_json_get(res, "exit_code")),
	     pms_json_get_str(res, "failure_kind") ? ", " : "",
	     or(pms_json_get_str(res, "failure_kind"), ""),
	     or(pms_json_get_str(res, "reason"), "no reason given"));
	if (pms_json_get(res, "oracle.signals")) {
		char cl[512];

		scalars(cl, sizeof(cl), pms_json_get(res, "oracle.classes"), NULL);
		para(f, "Oracle:   ", 10,
		     "%s signals for %s overflows implied (period %s, "
		     "tolerance %s, skid bound %s); lost %s; signals by class: %s",
		     vtext(pms_json_get(res, "oracle.signals")),
		     vtext(pms_json_get(res, "oracle.overflows_implied")),
		     vtext(pms_json_get(res, "oracle.period")),
		     vtext(pms_json_get(res, "oracle.tolerance")),
		     vtext(pms_json_get(res, "oracle.skid_bound")),
		     vtext(pms_json_get(res, "oracle.lost")), cl);
		if (is_int(pms_json_get(res, "oracle.lost")) &&
		    is_int(pms_json_get(res, "oracle.overflows_implied")) &&
		    json_object_get_int64(pms_json_get(res, "oracle.overflows_implied")) > 0) {
			double lo, hi;
			uint64_t k = json_object_get_uint64(pms_json_get(res, "oracle.lost"));
			uint64_t n = json_object_get_uint64(pms_json_get(res, "oracle.overflows_implied"));

			pms_wilson(k, n, &lo, &hi);
			para(f, "Loss:     ", 10, "%.4g (%" PRIu64 " of %" PRIu64 "), 95%% Wilson "
			     "interval [%.4g, %.4g]", k > n ? 1.0 : (double)k / (double)n, k, n, lo,
			     hi);
		}
	} else {
		json_object_object_foreach(res, key, val) {
			json_object *t = json_object_is_type(val, json_type_object) ?
					 pms_json_get(val, "totals") : NULL;
			char sc[1024], cl[1024];

			if (!t)
				continue;
			scalars(sc, sizeof(sc), t, NULL);
			scalars(cl, sizeof(cl), pms_json_get(t, "classes"), NULL);
			para(f, "Counts:   ", 10, "%s: %s%s%s", key, sc, *cl ? "; " : "", cl);
			break;
		}
	}
	if (pms_json_get_str(res, "attribution.summary"))
		para(f, "Cause:    ", 10, "%s%s%s", pms_json_get_str(res, "attribution.summary"),
		     pms_json_get_str(res, "attribution.dominant") ? "; dominant: " : "",
		     or(pms_json_get_str(res, "attribution.dominant"), ""));

	an = find_anomalies(res, &total);
	if (an && json_object_array_length(an)) {
		size_t n = json_object_array_length(an);

		fprintf(f, "\nFirst anomalies (%zu of %" PRIu64 "):\n",
			n < BUG_ANOMALIES ? n : BUG_ANOMALIES, total > n ? total : (uint64_t)n);
		for (i = 0; i < n && i < BUG_ANOMALIES; i++) {
			json_object *a = json_object_array_get_idx(an, i), *ev = pms_json_get(a, "evidence");
			char sc[1024], head[32];
			size_t e;

			scalars(sc, sizeof(sc), a, "class");
			snprintf(head, sizeof(head), "  %zu. ", i + 1);
			para(f, head, 5, "%s: %s", or(pms_json_get_str(a, "class"), "anomaly"), sc);
			for (e = 0; ev && json_object_is_type(ev, json_type_array) &&
			     e < json_object_array_length(ev) && e < BUG_EVIDENCE; e++) {
				scalars(sc, sizeof(sc), json_object_array_get_idx(ev, e), NULL);
				para(f, "      evidence: ", 16, "%s", sc);
			}
			if (ev && json_object_is_type(ev, json_type_array) &&
			    json_object_array_length(ev) > BUG_EVIDENCE)
				fprintf(f, "      (%zu evidence items in all)\n",
					json_object_array_length(ev));
		}
	}

	fputs("\n", f);
	ki = pms_json_get(res, "known_issues");
	for (i = 0; ki && json_object_is_type(ki, json_type_array) &&
	     i < json_object_array_length(ki); i++) {
		json_object *e = json_object_array_get_idx(ki, i);

		if (!pms_json_get_str(e, "fit") || strcmp(pms_json_get_str(e, "fit"), "matches"))
			continue;
		nmatch++;
		para(f, "Known bug: ", 11, "matches %s: %s", or(pms_json_get_str(e, "id"), "?"),
		     or(pms_json_get_str(e, "title"), ""));
		if (pms_json_get_str(e, "why"))
			para(f, "           ", 11, "(%s)", pms_json_get_str(e, "why"));
		if (pms_json_get_str(e, "link"))
			para(f, "           ", 11, "%s", pms_json_get_str(e, "link"));
		if (pms_json_get_str(e, "fixed_in"))
			para(f, "           ", 11, "fixed in %s by %s", pms_json_get_str(e, "fixed_in"),
			     or(pms_json_get_str(e, "fix_commit"), "?"));
	}
	if (!nmatch) {
		if (!strcmp(verdict, "fail"))
			para(f, "Known bug: ", 11, "no known bug matches: possibly new%s",
			     ki ? "" : " (the result has no known_issues section)");
		else
			para(f, "Known bug: ", 11, "none matched (the verdict is %s)", verdict);
	}

	if (bget(res, "host.emulated")) {
		fputc('\n', f);
		para(f, "Caveat:   ", 10, "this ran on an emulated machine%s%s%s%s%s%s%s. Counts "
		     "are as the emulator gives them and timing is artificial: confirm on "
		     "hardware before blaming the driver.",
		     pms_json_get_str(res, "host.emulation.description") ? " (" : "",
		     or(pms_json_get_str(res, "host.emulation.description"), ""),
		     pms_json_get_str(res, "host.emulation.qemu_version") ? "; " : "",
		     or(pms_json_get_str(res, "host.emulation.qemu_version"), ""),
		     pms_json_get_str(res, "host.emulation.cpu") ? "; -cpu " : "",
		     or(pms_json_get_str(res, "host.emulation.cpu"), ""),
		     pms_json_get_str(res, "host.emulation.description") ? ")" : "");
	} else if (bget(res, "host.hypervisor.detected")) {
		fputc('\n', f);
		para(f, "Caveat:   ", 10, "this ran under a hypervisor (%s): the guest's PMU is "
		     "virtualised.", or(pms_json_get_str(res, "host.hypervisor.kind"), "unknown kind"));
	}
	if (bget(res, "counter.substitute"))
		para(f, "Caveat:   ", 10, "the counter is a substitute, not the hardware event "
		     "asked for: %s", or(pms_json_get_str(res, "counter.substitute_reason"), "no reason given"));

	fputc('\n', f);
	st.st_size = 0;
	stat(path, &st);
	para(f, "Attach:   ", 10, "%s (the whole result, %lld bytes of JSON, schema version "
	     "%s; its schema is results/schema/result.schema.json in pmustress)",
	     base_name(path), (long long)st.st_size, vtext(pms_json_get(res, "schema_version")));
	return 0;
}

/* ---- output, written whole or not at all */

static int write_out(const char *path, const char *text, size_t len, char *why, size_t wl)
{
	int ret;

	fflush(stdout);
	ret = pms_write_atomic(path ? path : "-", text, len);
	if (ret)
		snprintf(why, wl, "%s: %s", path && strcmp(path, "-") ? path : "stdout",
			 strerror(-ret));
	return ret ? -1 : 0;
}

static void report_free(struct report *r)
{
	size_t i, k;

	for (i = 0; i < r->ncell; i++) {
		struct cell *c = &r->cell[i];

		free(c->kernel);
		free(c->label);
		free(c->scenario);
		free(c->verdict);
		free(c->reason);
		free(c->file);
		free(c->start);
		free(c->cause);
		free(c->attrib_summary);
		free(c->failure_kind);
		for (k = 0; k < c->nknown; k++) {
			free(c->known_id[k]);
			free(c->known_title[k]);
		}
	}
	for (i = 0; i < r->nsrc; i++) {
		free(r->src[i].path);
		free(r->src[i].host);
		free(r->src[i].suite);
		free(r->src[i].start);
	}
	free(r->cell);
	free(r->src);
}

int cmd_report(int argc, char **argv)
{
	const char *out = NULL, *bug = NULL, **paths;
	bool text = false, opts_done = false, want_bug = false;
	struct report r = { 0 };
	char *buf = NULL, why[1024];
	size_t len = 0, np = 0;
	int i, code = 0;
	FILE *f;

	paths = xrealloc(NULL, (size_t)argc * sizeof(*paths));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && !strcmp(a, "--text")) {
			text = true;
		} else if (!opts_done && !strcmp(a, "--by-input")) {
			r.by_input = true;
		} else if (!opts_done && !strcmp(a, "--bug")) {
			want_bug = true;
		} else if (!opts_done && (!strcmp(a, "-o") || !strcmp(a, "--output") ||
					  !strncmp(a, "--output=", 9))) {
			out = a[1] == '-' && a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
			if (!out || !*out) {
				pms_err("report: %s needs a file name (- for stdout)", a);
				free(paths);
				return PMS_EXIT_USAGE;
			}
		} else if (!opts_done && a[0] == '-' && a[1]) {
			pms_err("report: unknown option '%s' (report takes -o FILE, --text, --by-input, --bug)", a);
			free(paths);
			return PMS_EXIT_USAGE;
		} else {
			paths[np++] = a;
		}
	}
	if (want_bug && (np != 1 || text)) {
		pms_err("report --bug takes one result file (and -o FILE), nothing else");
		free(paths);
		return PMS_EXIT_USAGE;
	}
	if (!np) {
		pms_err("report needs run directories, folders of results or result files "
			"(pmustress help report)");
		free(paths);
		return PMS_EXIT_USAGE;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		pms_err("report: %s", strerror(errno));
		free(paths);
		return PMS_EXIT_ERROR;
	}
	if (want_bug) {
		json_object *res;

		bug = paths[0];
		res = pms_json_read_file(bug, r.err, sizeof(r.err));
		if (res && !is_result(res)) {
			snprintf(r.err, sizeof(r.err), "%s: not a pmustress result (no scenario and "
				 "verdict)", bug);
			json_object_put(res);
			res = NULL;
		}
		if (!res) {
			pms_err("report: %s", r.err);
			code = PMS_EXIT_JSON_INPUT;
		} else {
			bug_report(f, res, bug);
			json_object_put(res);
		}
	} else {
		size_t k;

		for (k = 0; k < np && !code; k++)
			if ((r.input = paths[k]), load_path(&r, paths[k], 0)) {
				pms_err("report: %s", r.err);
				code = PMS_EXIT_JSON_INPUT;
			}
		if (!code && !r.ncell) {
			if (r.ignored)
				pms_err("report: nothing to report: %zu JSON file(s) found, none of them "
					"a pmustress result", r.ignored);
			else
				pms_err("report: nothing to report: no index.json and no result JSON in "
					"%s%s", paths[0], np > 1 ? " or the other inputs" : "");
			code = PMS_EXIT_JSON_INPUT;
		}
		if (!code) {
			if (text)
				text_report(f, &r);
			else
				html_report(f, &r);
		}
	}
	if (fclose(f)) {
		pms_err("report: %s", strerror(errno));
		code = code ? code : PMS_EXIT_ERROR;
	}
	if (!code && write_out(out, buf, len, why, sizeof(why))) {
		pms_err("report: cannot write %s", why);
		code = PMS_EXIT_OUTPUT;
	}
	free(buf);
	free(paths);
	report_free(&r);
	return code;
}
