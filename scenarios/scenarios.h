/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every scenario, listed once.  A scenario that cannot be built on this
 * platform still defines its symbol and says why in ->unsupported, so `list`
 * is always complete.
 */
#ifndef PMS_SCENARIOS_H
#define PMS_SCENARIOS_H

#include "pms-scenario.h"

#define PMS_SCENARIOS(X)		\
	X(lost_overflow)	\
	X(disable_storm)	\
	X(ioctl_semantics)	\
	X(skid_into_kernel)	\
	X(aux_pause)		\
	X(sigtrap)		\
	X(pidns)

#define PMS_DECLARE_SCENARIO(n) extern const struct pms_scenario pms_scenario_##n;
PMS_SCENARIOS(PMS_DECLARE_SCENARIO)
#undef PMS_DECLARE_SCENARIO

extern const struct pms_scenario *const pms_scenarios[];
extern const size_t pms_nr_scenarios;

const struct pms_scenario *pms_scenario_find(const char *name);

#endif
