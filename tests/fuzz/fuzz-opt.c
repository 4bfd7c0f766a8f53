// SPDX-License-Identifier: GPL-2.0-only
/*
 * Command-line options (lib/opt.c): "--name value", "--name=value", flags,
 * and the number, duration and choice parsers behind them.
 *
 * Input: the arguments, one per line (so the seeds are readable), at most
 * 64.  The table has one option of every type, ranges as the scenarios use
 * them; the resolved options are turned into JSON, as a result does.
 */
#include <linux/perf_event.h>

#include "fuzz.h"
#include "pms-opt.h"

static const char *const colours[] = { "red", "green", "blue", NULL };

static const struct pms_opt_desc table[] = {
	{ .name = "flag", .type = PMS_OPT_FLAG, .help = "a flag" },
	{ .name = "period", .type = PMS_OPT_U64, .def = "10000", .min = 1,
	  .max = 1ull << 62, .arg = "N", .help = "an integer" },
	{ .name = "any", .type = PMS_OPT_U64, .min = 0, .max = UINT64_MAX, .help = "any u64" },
	{ .name = "ratio", .type = PMS_OPT_DOUBLE, .def = "0.5", .dmin = 0, .dmax = 1,
	  .help = "a number" },
	{ .name = "duration", .type = PMS_OPT_DURATION, .def = "10s", .min = 1000000,
	  .max = 86400ull * 1000000000, .arg = "TIME", .help = "a duration" },
	{ .name = "interval", .type = PMS_OPT_INTERVAL, .def = "0", .min = 0,
	  .max = 10ull * 1000000000, .help = "an interval" },
	{ .name = "event", .type = PMS_OPT_STRING, .arg = "SPEC", .help = "a string" },
	{ .name = "colour", .type = PMS_OPT_CHOICE, .def = "red", .choices = colours,
	  .help = "a choice" },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), *argv[64], *p, *nl, err[512];
	struct pms_opts o = { .n = 0 };
	json_object *j;
	int argc = 0;

	if (pms_opts_add(&o, table, sizeof(table) / sizeof(table[0])))
		abort();
	for (p = text; size && argc < 64; p = nl + 1) {
		argv[argc++] = p;
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
	}
	if (!pms_opts_parse(&o, argc, argv, err, sizeof(err))) {
		pms_opt_u64(&o, "period");
		pms_opt_double(&o, "ratio");
		pms_opt_str(&o, "event");
		pms_opt_given(&o, "flag");
		j = pms_opts_to_json(&o);
		if (j)
			json_object_to_json_string(j);
		json_object_put(j);
	}
	free(text);
	return 0;
}
