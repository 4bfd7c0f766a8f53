/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_EVENT_H
#define PMS_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <json-c/json.h>

/*
 * What one overflow means for a kind of counter.  The oracle only calls a
 * loss what these semantics say is one.
 */
enum pms_semantics {
	/* Hardware events, x86 breakpoints: one overflow per P counts, always. */
	PMS_SEM_EXACT,
	/* arm64 breakpoints: the breakpoint hits again on return from the
	 * handler, so every signal adds one count of its own. */
	PMS_SEM_BP_EXTRA_COUNT,
	/* Software counting events (page-faults, ...): exact, except that the
	 * period restarts from zero at every PERF_EVENT_IOC_ENABLE. */
	PMS_SEM_RESTART_ON_ENABLE,
	/* cpu-clock / task-clock: driven by an hrtimer, values in ns; deltas
	 * are not exact and a missing period is not a kernel loss. */
	PMS_SEM_TIMER,
	PMS_SEM_NR,
};

#define PMS_EXCLUDE_ALL "user,kernel,hv,host,guest,idle"

struct pms_event {
	char spec[128];		/* as written by the user, or the default's name */
	char name[64];		/* resolved event name, e.g. "instructions", "r00c0" */
	char pmu[64];		/* sysfs PMU name: "cpu", "armv8_pmuv3_0", "software"... */
	struct perf_event_attr attr;	/* type, config*, exclude_*, precise_ip */
	enum pms_semantics sem;
	bool breakpoint;	/* execute breakpoint on the workload: bp_addr set at open */
	bool substitute;	/* stands in for the scenario's preferred hardware event */
	char substitute_reason[256];
};

/**
 * pms_event_parse - resolve a perf-style event spec into @ev
 * @spec: "instructions", "cycles:u", "r00c0:k", "cpu/event=0x3c,umask=0x0/u",
 *        "armv8_pmuv3_0/cpu_cycles/", "task-clock", "breakpoint", ...
 * @sysfs_root: directory holding <pmu>/{type,format/,events/}; normally
 *        "/sys/bus/event_source/devices" (tests pass a fake tree)
 * @arch: "x86_64", "aarch64", ... (selects semantics, e.g. arm64 breakpoints)
 * @err: receives a one-line reason on failure
 *
 * The attr gets size, type, config[12], exclude_* from the modifiers,
 * precise_ip; sampling fields are left to the caller.  Without modifiers the
 * exclude bits are untouched (zero).
 *
 * Return: 0, -ENOENT for an unknown event or PMU (@err lists what the PMU
 * offers), -EINVAL for a malformed spec or term.
 */
int pms_event_parse(const char *spec, const char *sysfs_root, const char *arch,
		    struct pms_event *ev, char *err, size_t errlen);

/**
 * pms_event_set_exclude - set exclude_* from "user,kernel,hv,host,guest,idle"
 * (any subset, comma separated; "none" clears all six)
 *
 * Return: 0 or -EINVAL naming the bad word in @err.
 */
int pms_event_set_exclude(struct perf_event_attr *attr, const char *list,
			  char *err, size_t errlen);

/**
 * pms_event_list_offered - comma separated list of the events the PMU
 * @pmu offers (generic names for "cpu"-like PMUs, events/ in sysfs), for
 * error messages.  Writes "" when nothing is known.
 */
void pms_event_list_offered(const char *sysfs_root, const char *pmu, char *buf, size_t len);

const char *pms_semantics_name(enum pms_semantics sem);
const char *pms_semantics_describe(enum pms_semantics sem);

/**
 * pms_attr_to_json - every perf_event_attr field that matters to a result:
 * type (number and name), config, config1, config2, sample_period,
 * sample_type, read_format, disabled, pinned, exclusive, exclude_* (all),
 * precise_ip, use_clockid, clockid, sigtrap, remove_on_exec, bp_type,
 * bp_addr, bp_len, wakeup_events.
 */
json_object *pms_attr_to_json(const struct perf_event_attr *attr);

#endif
