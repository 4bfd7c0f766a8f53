// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "scenarios.h"

#define PMS_SCENARIO_PTR(n) &pms_scenario_##n,
const struct pms_scenario *const pms_scenarios[] = { PMS_SCENARIOS(PMS_SCENARIO_PTR) };
#undef PMS_SCENARIO_PTR
const size_t pms_nr_scenarios = sizeof(pms_scenarios) / sizeof(pms_scenarios[0]);

const struct pms_scenario *pms_scenario_find(const char *name)
{
	size_t i;

	for (i = 0; i < pms_nr_scenarios; i++)
		if (!strcmp(pms_scenarios[i]->name, name))
			return pms_scenarios[i];
	return NULL;
}
