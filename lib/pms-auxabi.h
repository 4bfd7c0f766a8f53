/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_AUXABI_H
#define PMS_AUXABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

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

/**
 * pms_kernel_release - major and minor of a kernel release ("6.18.44-foo").
 * Return: 0, or -EINVAL when @release is not "X.Y...".
 */
int pms_kernel_release(const char *release, unsigned int *major, unsigned int *minor);

/**
 * pms_auxabi_supported - does the running kernel know aux_action?  Opens a
 * task-clock event with aux_start_paused: EOPNOTSUPP (the software PMU
 * lacks the capability) means yes, EINVAL or E2BIG (reserved bits) means no.
 * Return: 1, 0, or -1 when the open says nothing about it (permissions...);
 * @detail gets the sentence.
 */
int pms_auxabi_supported(char *detail, size_t len);

#endif
