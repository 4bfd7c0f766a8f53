// SPDX-License-Identifier: GPL-2.0-only
/* `pmustress help SCENARIO`: generated from the scenario's option table. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "scenarios.h"

static void print_opts(const struct pms_opt_desc *d, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		char left[64];

		snprintf(left, sizeof(left), "--%s%s%s", d[i].name, d[i].arg ? " " : "",
			 d[i].arg ? d[i].arg : "");
		printf("  %-30s %s", left, d[i].help);
		if (d[i].def && d[i].type != PMS_OPT_FLAG)
			printf(" [default: %s]", d[i].def);
		if (d[i].type == PMS_OPT_CHOICE && !d[i].arg) {
			printf(" {");
			for (j = 0; d[i].choices[j]; j++)
				printf("%s%s", j ? "," : "", d[i].choices[j]);
			printf("}");
		}
		printf("\n");
	}
}

int cmd_help(int argc, char **argv)
{
	const struct pms_scenario *sc;

	if (argc < 2)
		return 0;
	sc = pms_scenario_find(argv[1]);
	if (!sc) {
		pms_err("unknown scenario '%s' (try pmustress list)", argv[1]);
		return PMS_EXIT_SCENARIO;
	}
	printf("pmustress run %s [options]\n\n  %s\n\n", sc->name, sc->summary);
	printf("seed:  %s\nneeds: %s\n\n", sc->seed, sc->needs);
	printf("%s options:\n", sc->name);
	print_opts(sc->opts, sc->nr_opts);
	printf("\ncommon options:\n");
	print_opts(pms_common_opts, pms_nr_common_opts);
	return 0;
}
