// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmustress: stress Linux perf overflow signal delivery.  The command table
 * maps each subcommand to its file in cmd/.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct command commands[] = {
	{ "run", cmd_run, "run SCENARIO [options]   run a scenario, write its JSON result" },
	{ "list", cmd_list, "list                     scenarios and whether they can run here" },
	{ "probe", cmd_probe, "probe [--json]           kernel, CPU, PMUs, sysctls, features" },
	{ "compare", cmd_compare,
	  "compare OLD NEW [opts]   two sets of results paired and tested: --alpha P, --json" },
	{ "help", cmd_help, "help [SCENARIO]          this text, or a scenario's options" },
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

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: pmustress COMMAND [ARGS]\n\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  pmustress %s\n", commands[i].usage);
	fprintf(f, "  pmustress --version\n\n"
		"exit status: 0 pass, 1 fail (bug reproduced; compare: something "
		"regressed), 4 skip,\n64 usage, 65 unknown scenario, 66 bad CPU list, "
		"67 unknown event, 68 bad JSON input,\n69 setup failed, 70 run error, "
		"73 result not writable, 130 interrupted (result still written)\n");
}

int cmd_help(int argc, char **argv);

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return PMS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("pmustress %s\n", PMS_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	pms_err("unknown command '%s' (have: run, list, probe, compare, help)", argv[1]);
	return PMS_EXIT_USAGE;
}
