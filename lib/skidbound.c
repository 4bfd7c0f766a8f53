// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CPU skid bounds (see pms-skidbound.h): the figures rr allows,
 * keyed by vendor, Arm MIDR part number or model name.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pms-skidbound.h"

/* Allowances rr uses, keyed as the probe names Arm parts (MIDR part numbers). */
static const struct {
	unsigned int part;
	const char *name;
	uint64_t allowance;
} arm_skid[] = {
	{ 0xd0c, "Neoverse-N1", 1000 },	{ 0xd40, "Neoverse-V1", 1000 },
	{ 0xd49, "Neoverse-N2", 1000 },	{ 0xd0b, "Cortex-A76", 10000 },
	{ 0xd0d, "Cortex-A77", 10000 },	{ 0xd41, "Cortex-A78", 10000 },
	{ 0xd44, "Cortex-X1", 10000 },
};

uint64_t pms_skid_default_allowance(const char *vendor, const char *model, const char *midr,
				    char *why, size_t len)
{
	unsigned long long m;
	size_t i;

	if (vendor && !strcmp(vendor, "GenuineIntel")) {
		snprintf(why, len, "Intel (%s): rr allows 100-125, the upper end is used",
			 model ? model : "model unknown");
		return 125;
	}
	if (vendor && !strcmp(vendor, "AuthenticAMD")) {
		snprintf(why, len, "AMD (%s), taken as Zen: skid is effectively unbounded, rr "
			 "allows 10000", model ? model : "model unknown");
		return 10000;
	}
	if (midr && sscanf(midr, "%llx", &m) == 1 && ((m >> 24) & 0xff) == 0x41) {
		unsigned int part = (unsigned int)((m >> 4) & 0xfff);

		for (i = 0; i < sizeof(arm_skid) / sizeof(arm_skid[0]); i++)
			if (arm_skid[i].part == part) {
				snprintf(why, len, "Arm %s (MIDR %s): rr allows %llu",
					 arm_skid[i].name, midr,
					 (unsigned long long)arm_skid[i].allowance);
				return arm_skid[i].allowance;
			}
	}
	if (model)
		for (i = 0; i < sizeof(arm_skid) / sizeof(arm_skid[0]); i++)
			if (!strcasecmp(model, arm_skid[i].name)) {
				snprintf(why, len, "Arm %s (cpu.model): rr allows %llu",
					 arm_skid[i].name,
					 (unsigned long long)arm_skid[i].allowance);
				return arm_skid[i].allowance;
			}
	snprintf(why, len, "no skid figure is known for %s%s%s (vendor %s): rr's largest "
		 "allowance (10000, Zen and Cortex-A76/A77/A78/X1) is taken so that skid is "
		 "not mistaken for a dropped interrupt", model ? model : "this CPU",
		 midr ? ", MIDR " : "", midr ? midr : "", vendor ? vendor : "unknown");
	return 10000;
}
