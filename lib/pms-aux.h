/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_AUX_H
#define PMS_AUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <json-c/json.h>

/*
 * attr.aux_action (Linux 6.13): the u32 after aux_sample_size, called
 * __reserved_3 in older headers (5.5 to 6.12), where the kernel rejects any
 * bit in it with EINVAL.  Kernels before 5.5 do not know the word at all.
 */
#define PMS_AUX_START_PAUSED	0x1u
#define PMS_AUX_PAUSE		0x2u
#define PMS_AUX_RESUME		0x4u
#define PMS_AUX_ACTION_OFFSET	116u	/* offsetof(struct perf_event_attr, aux_action) */

void pms_attr_set_aux_action(struct perf_event_attr *attr, uint32_t action);
uint32_t pms_attr_aux_action(const struct perf_event_attr *attr);

/* What a kernel does with the aux_action word, by version. */
enum pms_aux_era {
	PMS_AUX_ERA_NO_FIELD,	/* < 5.5: the word is past the attr: E2BIG */
	PMS_AUX_ERA_RESERVED,	/* 5.5 .. 6.12: __reserved_3, any bit EINVAL */
	PMS_AUX_ERA_ACTION,	/* 6.13+: aux_start_paused, aux_pause, aux_resume */
};

/**
 * pms_aux_era_of - the era of kernel @release (uname -r: "6.18.44-foo").
 * Return: 0, or -EINVAL when @release is not "X.Y...".
 */
int pms_aux_era_of(const char *release, enum pms_aux_era *era);

const char *pms_aux_era_name(enum pms_aux_era era);

/**
 * pms_btf_has_string - whether the string section of the BTF blob @buf
 * (@len bytes, as /sys/kernel/btf/vmlinux) holds @s as a whole string.
 * Return: 1, 0, or -EINVAL when @buf is not BTF (magic, header, bounds).
 */
int pms_btf_has_string(const void *buf, size_t len, const char *s);

/**
 * pms_aux_btf_era - the era the running kernel's own type information
 * declares: BTF that names aux_start_paused means perf_event_attr has
 * aux_action whatever the version says (a backport), BTF without it means
 * the word is still reserved.
 * Return: 0 with @era set, or -errno when @btf_path cannot be read or parsed.
 */
int pms_aux_btf_era(const char *btf_path, enum pms_aux_era *era);

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
 * pms_auxabi_supported - does the running kernel know aux_action?  Opens a
 * task-clock event with aux_start_paused: EOPNOTSUPP (the software PMU
 * lacks the capability) means yes, EINVAL or E2BIG (reserved bits) means no.
 * Return: 1, 0, or -1 when the open says nothing about it (permissions...);
 * @detail gets the sentence.
 */
int pms_auxabi_supported(char *detail, size_t len);

/**
 * pms_aux_find_pmu - the first AUX-area PMU under @sysfs_root
 * (.../bus/event_source/devices) in the order intel_pt, cs_etm, arm_spe*,
 * hisi_ptt*; @name gets it.  Return: true if one was found.
 */
bool pms_aux_find_pmu(const char *sysfs_root, char *name, size_t len);

#endif
