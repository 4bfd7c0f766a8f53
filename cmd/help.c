// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmustress help [COMMAND|SCENARIO]`: a command's help from the command
 * table, a scenario's from its option table, so neither can drift from
 * what the code accepts.
 */
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

int pms_help_command(const struct pms_command *c)
{
	size_t i;

	fputs(c->help, stdout);
	if (c->fn != cmd_run)
		return 0;
	printf("\nscenarios:\n");
	for (i = 0; i < pms_nr_scenarios; i++)
		printf("  %-18s %s\n", pms_scenarios[i]->name, pms_scenarios[i]->summary);
	printf("\ncommon options (every scenario):\n");
	print_opts(pms_common_opts, pms_nr_common_opts);
	return 0;
}

int cmd_help(int argc, char **argv)
{
	const struct pms_scenario *sc;
	const struct pms_command *c;

	if (argc < 2) {
		pms_usage(stdout);
		return 0;
	}
	c = pms_command_find(argv[1]);
	if (c)
		return pms_help_command(c);
	sc = pms_scenario_find(argv[1]);
	if (!sc) {
		pms_err("unknown command or scenario '%s' (try pmustress list)", argv[1]);
		return PMS_EXIT_SCENARIO;
	}
	printf("pmustress run %s [options]\n\n  %s\n\n", sc->name, sc->summary);
	printf("seed:  %s\nneeds: %s\n\n", sc->seed, sc->needs);
	printf("%s options:\n", sc->name);
	print_opts(sc->opts, sc->nr_opts);
	printf("\ncommon options:\n");
	print_opts(pms_common_opts, pms_nr_common_opts);
	printf("\nmore: scenarios/%s/README, man ./pmustress.1\n", sc->name);
	return 0;
}
