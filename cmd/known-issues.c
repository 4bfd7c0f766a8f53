// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmustress known-issues [--json]`: the kernel behaviours a result can name
 * ("matches: <id>"), so that a person can look an entry up before a run or
 * after one.  The text is drawn from the table alone; --json prints the
 * table itself, for scripts that want to match results on their own.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "pms-known.h"

#define WRAP	79	/* a terminal's width: the symptoms are prose, not code */
#define INDENT	4
#define LABEL	11	/* "symptom:" and friends, padded, so the text lines up */

static const char help_text[] =
	"usage: pmustress known-issues [--json]\n\n"
	"The kernel bugs and documented behaviours pmustress can name in a result:\n"
	"where each one shows (arch, PMU driver, kernel versions), the scenarios and\n"
	"the dominant cause it produces, and how user space sees it.  A result names\n"
	"an entry only when its machine, kernel, scenario and cause all agree.\n"
	"Versions marked inferred come from merge dates, not tags, and a stable\n"
	"kernel may carry a fix that its version predates.\n\n"
	"  --json   every field of every entry, as a JSON array\n";

/*
 * @text at @indent, after @label padded to LABEL columns when there is one,
 * wrapped at word boundaries; runs of spaces collapse to one.
 */
static void wrapped(const char *label, const char *text)
{
	int start = INDENT + (label ? LABEL : 0), col;
	const char *p = text;

	col = printf("%*s%-*s", INDENT, "", label ? LABEL : 0, label ? label : "");
	while (*p) {
		int w = (int)strcspn(p, " ");

		if (col > start && col + 1 + w > WRAP) {
			col = printf("\n%*s", start, "") - 1;
		} else if (col > start) {
			putchar(' ');
			col++;
		}
		col += printf("%.*s", w, p);
		p += w;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
}

/* "lost-overflow, disable-storm; cause migration" */
static void shows_in(const struct pms_known *k, char *buf, size_t len)
{
	size_t used = 0;
	const char *p;

	for (p = k->scenarios; *p && used + 3 < len; p++) {
		if (*p == ',') {
			buf[used++] = ',';
			buf[used++] = ' ';
		} else {
			buf[used++] = *p;
		}
	}
	buf[used] = '\0';
	snprintf(buf + used, len - used, "; cause %s", k->cause);
}

/* The conditions in words: "exclude_kernel=1, attr.sigtrap", or "nothing special". */
static void needs(const struct pms_known *k, char *buf, size_t len)
{
	const struct pms_known_cond *c = &k->cond;
	const char *part[4];
	size_t n = 0, i, used = 0;

	if (c->exclude_kernel != PMS_KNOWN_REQ_ANY)
		part[n++] = c->exclude_kernel == PMS_KNOWN_REQ_REQUIRED ? "exclude_kernel=1" :
									  "exclude_kernel=0";
	if (c->vhe != PMS_KNOWN_REQ_ANY)
		part[n++] = c->vhe == PMS_KNOWN_REQ_REQUIRED ? "a VHE host" : "a non-VHE host";
	if (c->sigtrap)
		part[n++] = "attr.sigtrap";
	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", part[i]);
	if (!n)
		snprintf(buf, len, "nothing special");
	used = strlen(buf);
	if (c->pseudo_nmi_hides && used < len)
		snprintf(buf + used, len - used, "; irqchip.gicv3_pseudo_nmi=1 mostly hides it");
}

static void print_entry(const struct pms_known *k)
{
	char buf[256];

	printf("%s\n", k->id);
	wrapped(NULL, k->title);
	snprintf(buf, sizeof(buf), "%s, %s", !strcmp(k->arch, "any") ? "any arch" : k->arch,
		 !strcmp(k->pmu_driver, "any") ? "any PMU" : k->pmu_driver);
	wrapped("where:", buf);
	pms_known_range_text(k, buf, sizeof(buf));
	wrapped("kernels:", buf);
	shows_in(k, buf, sizeof(buf));
	wrapped("shows in:", buf);
	needs(k, buf, sizeof(buf));
	wrapped("needs:", buf);
	wrapped("symptom:", k->symptom);
	if (k->note)
		wrapped("note:", k->note);
	wrapped("report:", k->link);
}

static int print_table(void)
{
	size_t i, by_design = 0;

	for (i = 0; i < pms_known_nr; i++)
		by_design += pms_known_table[i].by_design;
	printf("%zu known kernel behaviours: %zu bugs, %zu by design.\n", pms_known_nr,
	       pms_known_nr - by_design, by_design);
	for (i = 0; i < pms_known_nr; i++) {
		putchar('\n');
		print_entry(&pms_known_table[i]);
	}
	return 0;
}

static int print_json(void)
{
	json_object *arr = pms_known_table_json();

	if (!arr) {
		pms_err("known-issues: out of memory");
		return PMS_EXIT_OUTPUT;
	}
	puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	return 0;
}

int cmd_known_issues(int argc, char **argv)
{
	bool as_json = false;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			as_json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(help_text, stdout);
			return 0;
		} else {
			pms_err("known-issues: unknown %s '%s' (have: --json, --help)",
				argv[i][0] == '-' ? "option" : "argument", argv[i]);
			return PMS_EXIT_USAGE;
		}
	}
	ret = as_json ? print_json() : print_table();
	/* A closed pipe or a full disk must not pass for a complete listing. */
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		pms_err("known-issues: cannot write the listing");
		return PMS_EXIT_OUTPUT;
	}
	return ret;
}
