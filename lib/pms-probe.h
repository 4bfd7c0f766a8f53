/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_PROBE_H
#define PMS_PROBE_H

#include <stdbool.h>
#include <json-c/json.h>

struct pms_probe_cfg {
	const char *sysfs_root;	/* "/sys" normally; tests pass a fake tree */
	const char *procfs_root;	/* "/proc" normally */
	bool feature_probes;	/* do the real perf_event_open feature probes */
};

/**
 * pms_probe_host - describe the machine, as the `host` block of a result
 *
 * kernel {release, version}, arch, cpu {model, vendor, midr (arm64)},
 * pmus [{name, type, caps{}}] from <sysfs>/bus/event_source/devices,
 * hardware_pmu (bool: a core PMU was found: cpu, cpu_core, cpu_atom,
 * armv8_*, ...), sysctl {perf_event_paranoid, perf_event_max_sample_rate,
 * perf_cpu_time_max_percent, nmi_watchdog}, cmdline {irqchip.gicv3_pseudo_nmi,
 * ...}, hypervisor {detected, kind, evidence}, topology (hwloc: packages,
 * cores, pus, cpukinds [{cpuset, efficiency, infos{}}]), tracefs {available,
 * path}, features {sigtrap, aux_action, exclude_host, ...: each
 * {supported: true/false/null, detail}}.
 *
 * Return: a new object (never NULL but for ENOMEM).  Missing files give
 * null members, never failure.
 */
json_object *pms_probe_host(const struct pms_probe_cfg *cfg);

/**
 * pms_probe_has_core_pmu - whether <sysfs_root>/bus/event_source/devices has
 * a core (CPU) PMU; @name receives its name.
 */
bool pms_probe_has_core_pmu(const char *sysfs_root, char *name, size_t len);

/**
 * pms_kconfig - the running kernel's value of config option @name
 * ("CONFIG_PID_IN_CONTEXTIDR"), from /boot/config-RELEASE or else
 * /proc/config.gz (read through gzip -dc).
 * @src: receives the file it came from ("" when none was readable)
 * Return: 1 built in (=y), 2 module (=m), 0 not set, -ENOENT when no
 * configuration could be read.
 */
int pms_kconfig(const char *name, char *src, size_t len);

/**
 * pms_kconfig_sha256 - the SHA-256 of the running kernel's configuration
 * text, from /boot/config-RELEASE or else /proc/config.gz (decompressed, so
 * that both give one hash for one configuration), as 64 hex digits in @hex.
 * @src: receives the file it came from ("" when none)
 * Return: 0, -ENOENT when neither can be read, -EIO on a read error.
 */
int pms_kconfig_sha256(char hex[65], char *src, size_t len);

/**
 * pms_probe_pid_namespace - this process's PID namespace: nsfs dev and
 * inode of /proc/self/ns/pid, the levels NSpid shows, and whether that is
 * one (the initial namespace, as this /proc sees it).
 */
json_object *pms_probe_pid_namespace(void);

/**
 * pms_probe_spe - Arm SPE PMUs (arm_spe_*) under @devices with their type
 * and caps; an empty array where there are none.
 */
json_object *pms_probe_spe(const char *devices);

#endif
