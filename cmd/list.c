// SPDX-License-Identifier: GPL-2.0-only
/* `pmustress list`: every scenario, and whether it can run here. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "pms-cpus.h"
#include "pms-probe.h"
#include "scenarios.h"

static void print_availability(const struct pms_scenario *sc, const struct pms_run *run,
			       char *buf, size_t len)
{
	sc->availability(run, buf, len);
	printf("%-18s %s\n", sc->name, buf);
}

int cmd_list(int argc, char **argv)
{
	struct pms_run run = { 0 };
	char pmu[64], why[256], pair_why[256];
	bool core, pair;
	hwloc_bitmap_t set;
	size_t i;

	if (argc > 1) {
		pms_err("list takes no arguments (got '%s')", argv[1]);
		return PMS_EXIT_USAGE;
	}
	run.devices = PMS_DEVICES;
	hwloc_topology_init(&run.topo);
	hwloc_topology_load(run.topo);
	set = hwloc_bitmap_alloc();
	pair = !pms_cpus_default_pair(run.topo, set, pair_why, sizeof(pair_why));
	core = pms_probe_has_core_pmu("/sys", pmu, sizeof(pmu));
	for (i = 0; i < pms_nr_scenarios; i++) {
		const struct pms_scenario *sc = pms_scenarios[i];

		if (sc->unsupported && sc->unsupported(&run, why, sizeof(why)))
			printf("%-18s no: %s\n", sc->name, why);
		else if (sc->availability)
			print_availability(sc, &run, why, sizeof(why));
		else if (!pair)
			printf("%-18s control only (--no-mover): %s\n", sc->name, pair_why);
		else if (!core)
			printf("%-18s yes, on the breakpoint substitute (no hardware PMU)\n", sc->name);
		else
			printf("%-18s yes, on %s\n", sc->name, pmu);
		printf("%-18s   %s\n", "", sc->summary);
	}
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(run.topo);
	return 0;
}
