/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_AUX_ABI_MATRIX_H
#define PMS_AUX_ABI_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <json-c/json.h>

#include "pms-auxabi.h"


/*
 * The PMUs a case is opened on.  Software, tracepoint and breakpoint PMUs
 * exist almost everywhere and have neither PERF_PMU_CAP_AUX_OUTPUT nor
 * PERF_PMU_CAP_AUX_PAUSE; the AUX PMU is whichever AUX-area PMU the machine
 * has (intel_pt, cs_etm, arm_spe_N, ...), with or without the pause
 * capability.
 */
enum pms_auxabi_pmu {
	PMS_AUXABI_NONE,	/* leader: no group */
	PMS_AUXABI_SOFTWARE,
	PMS_AUXABI_TRACEPOINT,
	PMS_AUXABI_BREAKPOINT,
	PMS_AUXABI_AUX,
	PMS_AUXABI_PMU_NR,
};

const char *pms_auxabi_pmu_name(enum pms_auxabi_pmu p);

struct pms_auxabi_case {
	const char *name;
	const char *rule;	/* the check the case reaches, in words */
	enum pms_auxabi_pmu pmu;	/* the event opened last (the one judged) */
	enum pms_auxabi_pmu leader;	/* its group leader, opened first */
	uint32_t action;	/* aux_action bits of the judged event */
	bool aux_output;
};

extern const struct pms_auxabi_case pms_auxabi_cases[];
extern const size_t pms_auxabi_nr_cases;

/**
 * pms_aux_pmu_can_pause - whether AUX PMU @pmu has PERF_PMU_CAP_AUX_PAUSE on
 * a kernel of era @era and version @major.@minor: intel_pt from 6.13,
 * cs_etm from 6.16, no other AUX PMU (arm_spe, hisi_ptt, ...).
 */
bool pms_aux_pmu_can_pause(const char *pmu, enum pms_aux_era era, unsigned int major,
			   unsigned int minor);

/**
 * pms_auxabi_expect - the errno a kernel of era @era must give for case @c
 * (0: the open succeeds), following the order of the kernel's checks:
 * perf_copy_attr (reserved bits), perf_event_alloc (aux_output with
 * pause/resume or without the capability EOPNOTSUPP; pause with resume
 * EINVAL; aux_start_paused without the capability EOPNOTSUPP), then
 * perf_event_open's group check (pause/resume need a leader with the
 * capability, else EINVAL).
 * @aux_can_pause: the AUX PMU, where a case uses it, has the capability.
 * @why: one sentence naming the check that decides.
 */
int pms_auxabi_expect(const struct pms_auxabi_case *c, enum pms_aux_era era,
		      bool aux_can_pause, char *why, size_t len);

/* How the live matrix opens each PMU; filled in by pms_auxabi_targets(). */
struct pms_auxabi_target {
	bool available;
	char name[96];		/* "software/task-clock", "tracepoint/syscalls:sys_enter_getppid" */
	char why[640];		/* unavailable: why */
	uint32_t type;
	uint64_t config;
};

struct pms_auxabi_env {
	const char *sysfs_root;		/* ".../bus/event_source/devices" */
	const char *tracefs;		/* tracefs mount, or NULL */
	const char *tracefs_why;	/* NULL tracefs: why */
	const char *release;		/* uname -r */
	const char *btf_path;		/* /sys/kernel/btf/vmlinux; NULL: judge by release */
	const char *aux_pmu;		/* NULL: first AUX PMU found */
};

/**
 * pms_auxabi_run - run every case with real perf_event_open calls on this
 * kernel and compare with what its version should do.
 *
 * Each PMU is first opened with aux_action 0 (the control): a PMU whose
 * control does not open skips its cases, with the errno, so every errno
 * judged is the aux_action bits' doing.
 *
 * The era comes from the kernel's BTF where @env->btf_path can be read (so a
 * backport is judged by the ABI it carries, and said to be one), else from
 * the release.
 *
 * Return: the `abi` section: {verdict, finding, release, era, era_source,
 * release_era, btf_aux_action, backport, attr_size,
 * aux_action_offset, aux_pmu, aux_pmu_can_pause, feature {expected,
 * observed}, counts {match, mismatch, skipped}, cases [{name, rule, pmu,
 * leader, attr {type, config, sample_period, aux_output, aux_action,
 * aux_start_paused, aux_pause, aux_resume}, seen, expected, result, why}]},
 * or NULL on ENOMEM.  @mismatches/@matched get the counts.
 */
json_object *pms_auxabi_run(const struct pms_auxabi_env *env, size_t *matched,
			    size_t *mismatches);


/**
 * pms_aux_find_pmu - the first AUX-area PMU under @sysfs_root
 * (.../bus/event_source/devices) in the order intel_pt, cs_etm, arm_spe*,
 * hisi_ptt*; @name gets it.  Return: true if one was found.
 */
bool pms_aux_find_pmu(const char *sysfs_root, char *name, size_t len);

#endif
