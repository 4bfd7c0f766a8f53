/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_SKIDBOUND_H
#define PMS_SKIDBOUND_H

#include <stddef.h>
#include <stdint.h>

/*
 * How far past its overflow a PMU interrupt may land on a given CPU (events
 * counted between the overflow and the interrupt): the bound below which a
 * late signal is skid, not a kernel bug.  Used by skid-into-kernel for its
 * allowance and by the counting scenarios to judge lateness.
 */

/**
 * pms_skid_default_allowance - rr's per-CPU skid allowance
 * from the probe's cpu.vendor, cpu.model and cpu.midr (any may be NULL):
 * Intel 125, Neoverse N1/V1/N2 1000, Cortex-A76/A77/A78/X1 10000, AMD (Zen)
 * 10000; anything else 10000, the largest rr uses, since no figure is
 * known.  @why gets the sentence the JSON records.
 *
 * Return: the allowance.
 */
uint64_t pms_skid_default_allowance(const char *vendor, const char *model, const char *midr,
				    char *why, size_t len);

#endif
