// SPDX-License-Identifier: GPL-2.0-only
/*
 * The aux_action ABI (Linux 6.13): what a kernel of each version must answer
 * for every combination of aux_start_paused, aux_pause, aux_resume and
 * aux_output, and a live matrix that asks the running kernel.
 *
 * The expectations follow the order of the kernel's own checks, from
 * "perf/core: Add aux_pause, aux_resume, aux_start_paused":
 *   perf_copy_attr:    any bit of the word reserved (before 6.13: all 32)  EINVAL
 *   perf_event_alloc:  aux_output without PERF_PMU_CAP_AUX_OUTPUT, or with
 *                      aux_pause/aux_resume                                EOPNOTSUPP
 *                      aux_pause together with aux_resume                  EINVAL
 *                      aux_start_paused without PERF_PMU_CAP_AUX_PAUSE     EOPNOTSUPP
 *   perf_event_open:   aux_pause/aux_resume/aux_output with no group leader,
 *                      or a leader whose PMU cannot pause                  EINVAL
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>

#include "abi.h"
#include "pms-auxabi.h"
#include "pms-event.h"
#include "pms-perf.h"
#include "pms-util.h"

static int parse_release(const char *release, unsigned int *major, unsigned int *minor)
{
	return pms_kernel_release(release, major, minor);
}

static bool at_least(unsigned int major, unsigned int minor, unsigned int M, unsigned int m)
{
	return major > M || (major == M && minor >= m);
}


const char *pms_auxabi_pmu_name(enum pms_auxabi_pmu p)
{
	static const char *const names[PMS_AUXABI_PMU_NR] = {
		"none", "software", "tracepoint", "breakpoint", "aux",
	};

	return p < PMS_AUXABI_PMU_NR ? names[p] : "?";
}

#define SW PMS_AUXABI_SOFTWARE
#define TP PMS_AUXABI_TRACEPOINT
#define BP PMS_AUXABI_BREAKPOINT
#define AUX PMS_AUXABI_AUX
#define NOGRP PMS_AUXABI_NONE

const struct pms_auxabi_case pms_auxabi_cases[] = {
	{ "control", "aux_action 0 with the 6.13 attr layout opens", SW, NOGRP, 0, false },
	{ "reserved-bit", "bit 3 of aux_action is reserved on every kernel", SW, NOGRP, 0x8, false },
	{ "start-paused-software", "aux_start_paused on a PMU without the pause capability",
	  SW, NOGRP, PMS_AUX_START_PAUSED, false },
	{ "start-paused-tracepoint", "aux_start_paused on a PMU without the pause capability",
	  TP, NOGRP, PMS_AUX_START_PAUSED, false },
	{ "start-paused-breakpoint", "aux_start_paused on a PMU without the pause capability",
	  BP, NOGRP, PMS_AUX_START_PAUSED, false },
	{ "pause-and-resume", "aux_pause and aux_resume together",
	  SW, NOGRP, PMS_AUX_PAUSE | PMS_AUX_RESUME, false },
	{ "output-with-pause", "aux_output together with aux_pause",
	  SW, NOGRP, PMS_AUX_PAUSE, true },
	{ "output-with-resume", "aux_output together with aux_resume",
	  TP, NOGRP, PMS_AUX_RESUME, true },
	{ "pause-no-group", "aux_pause on an event in no group", SW, NOGRP, PMS_AUX_PAUSE, false },
	{ "resume-no-group", "aux_resume on an event in no group", TP, NOGRP, PMS_AUX_RESUME, false },
	{ "pause-software-leader", "aux_pause in a group led by a software event",
	  SW, SW, PMS_AUX_PAUSE, false },
	{ "resume-software-leader", "aux_resume in a group led by a software event",
	  TP, SW, PMS_AUX_RESUME, false },
	{ "pause-breakpoint-leader", "aux_pause in a group led by a breakpoint",
	  SW, BP, PMS_AUX_PAUSE, false },
	{ "start-paused-aux", "aux_start_paused on the AUX PMU",
	  AUX, NOGRP, PMS_AUX_START_PAUSED, false },
	{ "pause-aux-leader", "aux_pause in a group led by the AUX event",
	  SW, AUX, PMS_AUX_PAUSE, false },
	{ "resume-aux-leader", "aux_resume in a group led by the AUX event",
	  TP, AUX, PMS_AUX_RESUME, false },
	{ "pause-and-resume-aux-leader", "aux_pause and aux_resume together under the AUX event",
	  SW, AUX, PMS_AUX_PAUSE | PMS_AUX_RESUME, false },
	{ "output-with-pause-aux-leader", "aux_output with aux_pause under the AUX event",
	  SW, AUX, PMS_AUX_PAUSE, true },
};
const size_t pms_auxabi_nr_cases = PMS_ARRAY_SIZE(pms_auxabi_cases);

#undef SW
#undef TP
#undef BP
#undef AUX
#undef NOGRP

bool pms_aux_pmu_can_pause(const char *pmu, enum pms_aux_era era, unsigned int major,
			   unsigned int minor)
{
	if (!pmu || era != PMS_AUX_ERA_ACTION)
		return false;
	if (!strcmp(pmu, "intel_pt"))
		return true;	/* with aux_action itself, backports included */
	if (!strcmp(pmu, "cs_etm"))
		return at_least(major, minor, 6, 16);
	return false;
}

int pms_auxabi_expect(const struct pms_auxabi_case *c, enum pms_aux_era era,
		      bool aux_can_pause, char *why, size_t len)
{
	uint32_t a = c->action;
	bool start = a & PMS_AUX_START_PAUSED, pause = a & PMS_AUX_PAUSE;
	bool resume = a & PMS_AUX_RESUME;
	bool pmu_can_pause = c->pmu == PMS_AUXABI_AUX && aux_can_pause;

	if (a && era == PMS_AUX_ERA_NO_FIELD) {
		snprintf(why, len, "before 5.5 the word is past the end of the kernel's attr and "
			 "not zero: E2BIG");
		return E2BIG;
	}
	if (a && era == PMS_AUX_ERA_RESERVED) {
		snprintf(why, len, "5.5 to 6.12: the word is __reserved_3 and perf_copy_attr "
			 "rejects any bit in it: EINVAL");
		return EINVAL;
	}
	if (a & ~(PMS_AUX_START_PAUSED | PMS_AUX_PAUSE | PMS_AUX_RESUME)) {
		snprintf(why, len, "perf_copy_attr: bits 3-31 of aux_action are reserved: EINVAL");
		return EINVAL;
	}
	/* perf_event_alloc; none of the PMUs used has PERF_PMU_CAP_AUX_OUTPUT. */
	if (c->aux_output) {
		snprintf(why, len, "perf_event_alloc: aux_output %s: EOPNOTSUPP",
			 pause || resume ? "with aux_pause/aux_resume (this PMU also lacks "
			 "PERF_PMU_CAP_AUX_OUTPUT, so the two causes are not told apart)" :
			 "on a PMU without PERF_PMU_CAP_AUX_OUTPUT");
		return EOPNOTSUPP;
	}
	if (pause && resume) {
		snprintf(why, len, "perf_event_alloc: aux_pause with aux_resume: EINVAL");
		return EINVAL;
	}
	if (start && !pmu_can_pause) {
		snprintf(why, len, "perf_event_alloc: aux_start_paused on a PMU without "
			 "PERF_PMU_CAP_AUX_PAUSE: EOPNOTSUPP");
		return EOPNOTSUPP;
	}
	if (pause || resume) {
		if (c->leader == PMS_AUXABI_NONE) {
			snprintf(why, len, "perf_event_open: aux_pause/aux_resume need a group "
				 "leader that is an AUX event: none: EINVAL");
			return EINVAL;
		}
		if (c->leader != PMS_AUXABI_AUX || !aux_can_pause) {
			snprintf(why, len, "perf_event_open: the group leader's PMU (%s) cannot "
				 "pause: EINVAL", pms_auxabi_pmu_name(c->leader));
			return EINVAL;
		}
		snprintf(why, len, "the leader's PMU has PERF_PMU_CAP_AUX_PAUSE: opens");
		return 0;
	}
	if (start)
		snprintf(why, len, "the AUX PMU has PERF_PMU_CAP_AUX_PAUSE: opens");
	else
		snprintf(why, len, "no aux_action bit: opens");
	return 0;
}

bool pms_aux_find_pmu(const char *sysfs_root, char *name, size_t len)
{
	static const char *const order[] = { "intel_pt", "cs_etm", "arm_spe", "hisi_ptt" };
	char best[256] = "";
	size_t rank = PMS_ARRAY_SIZE(order), i;
	struct dirent *d;
	DIR *dir = opendir(sysfs_root);

	if (!dir)
		return false;
	while ((d = readdir(dir))) {
		for (i = 0; i < rank; i++) {
			size_t n = strlen(order[i]);

			if (!strncmp(d->d_name, order[i], n) &&
			    (!d->d_name[n] || i >= 2)) {
				rank = i;
				snprintf(best, sizeof(best), "%s", d->d_name);
				break;
			}
		}
	}
	closedir(dir);
	if (!best[0])
		return false;
	snprintf(name, len, "%s", best);
	return true;
}

/* ---- the live matrix */

static volatile unsigned long bp_sink;

static __attribute__((noinline)) void bp_target(void)
{
	bp_sink++;
}

static void target_attr(const struct pms_auxabi_target *t, enum pms_auxabi_pmu kind,
			struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = t->type;
	attr->config = t->config;
	attr->disabled = 1;
	switch (kind) {
	case PMS_AUXABI_SOFTWARE:
		attr->sample_period = 1000000;	/* 1 ms of task-clock */
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		break;
	case PMS_AUXABI_TRACEPOINT:
		attr->sample_period = 1;
		break;
	case PMS_AUXABI_BREAKPOINT:
		attr->sample_period = 1;
		attr->bp_type = HW_BREAKPOINT_X;
		attr->bp_addr = (uint64_t)(uintptr_t)bp_target;
		attr->bp_len = sizeof(long);
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		break;
	default:
		break;		/* AUX: a plain per-task trace */
	}
}

static int read_u64_file(const char *path, uint64_t *v)
{
	char buf[64];

	if (pms_read_text(path, buf, sizeof(buf)) < 0)
		return -errno;
	return pms_parse_u64(buf, v);
}

static void find_targets(const struct pms_auxabi_env *env, struct pms_auxabi_target *t)
{
	static const char *const tps[] = {
		"syscalls/sys_enter_getppid", "sched/sched_switch", "raw_syscalls/sys_enter",
	};
	char path[512], aux[128];
	uint64_t v;
	size_t i;
	int ret;

	memset(t, 0, sizeof(*t) * PMS_AUXABI_PMU_NR);
	t[PMS_AUXABI_SOFTWARE] = (struct pms_auxabi_target){
		.available = true, .name = "software/task-clock",
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
	};
	t[PMS_AUXABI_BREAKPOINT] = (struct pms_auxabi_target){
		.available = true, .name = "breakpoint/execute", .type = PERF_TYPE_BREAKPOINT,
	};
	snprintf(t[PMS_AUXABI_TRACEPOINT].name, sizeof(t->name), "tracepoint");
	if (!env->tracefs) {
		snprintf(t[PMS_AUXABI_TRACEPOINT].why, sizeof(t->why), "%s: no tracepoint id to "
			 "open", env->tracefs_why ? env->tracefs_why : "tracefs is not mounted");
	} else {
		snprintf(t[PMS_AUXABI_TRACEPOINT].why, sizeof(t->why), "none of "
			 "syscalls:sys_enter_getppid, sched:sched_switch, raw_syscalls:sys_enter "
			 "in %s/events", env->tracefs);
		for (i = 0; i < PMS_ARRAY_SIZE(tps); i++) {
			snprintf(path, sizeof(path), "%s/events/%s/id", env->tracefs, tps[i]);
			if (read_u64_file(path, &v))
				continue;
			t[PMS_AUXABI_TRACEPOINT].available = true;
			t[PMS_AUXABI_TRACEPOINT].type = PERF_TYPE_TRACEPOINT;
			t[PMS_AUXABI_TRACEPOINT].config = v;
			snprintf(t[PMS_AUXABI_TRACEPOINT].name, sizeof(t->name), "tracepoint/%s",
				 tps[i]);
			*strchr(t[PMS_AUXABI_TRACEPOINT].name + 11, '/') = ':';
			break;
		}
	}
	if (env->aux_pmu)
		snprintf(aux, sizeof(aux), "%s", env->aux_pmu);
	else if (!pms_aux_find_pmu(env->sysfs_root, aux, sizeof(aux)))
		aux[0] = '\0';
	snprintf(t[PMS_AUXABI_AUX].name, sizeof(t->name), "%s", aux[0] ? aux : "aux");
	if (!aux[0]) {
		snprintf(t[PMS_AUXABI_AUX].why, sizeof(t->why), "no AUX-area PMU here (intel_pt, "
			 "cs_etm, arm_spe, hisi_ptt): the pause-capable path is not reachable");
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/type", env->sysfs_root, aux);
	ret = read_u64_file(path, &v);
	if (ret) {
		snprintf(t[PMS_AUXABI_AUX].why, sizeof(t->why), "%s: %s", path,
			 pms_errno_name(-ret));
		return;
	}
	t[PMS_AUXABI_AUX].available = true;
	t[PMS_AUXABI_AUX].type = (uint32_t)v;
}

/*
 * Open @c's leader (plain) and its judged event with @action and
 * @aux_output.  Return: 0 when the judged event opened, else -errno; on a
 * leader failure @leader_err is set too.
 */
static int try_case(const struct pms_auxabi_case *c, const struct pms_auxabi_target *t,
		    uint32_t action, bool aux_output, int *leader_err)
{
	struct perf_event_attr attr;
	int lfd = -1, fd;

	*leader_err = 0;
	if (c->leader != PMS_AUXABI_NONE) {
		target_attr(&t[c->leader], c->leader, &attr);
		lfd = pms_perf_open_self(&attr, -1);
		if (lfd < 0) {
			*leader_err = lfd;
			return lfd;
		}
	}
	target_attr(&t[c->pmu], c->pmu, &attr);
	if (c->leader != PMS_AUXABI_NONE)
		attr.disabled = 0;	/* members follow the leader */
	attr.aux_output = aux_output;
	pms_attr_set_aux_action(&attr, action);
	fd = pms_perf_open_self(&attr, lfd);
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	return fd < 0 ? fd : 0;
}

static json_object *case_attr_json(const struct pms_auxabi_case *c,
				   const struct pms_auxabi_target *t)
{
	struct perf_event_attr attr;
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	target_attr(&t[c->pmu], c->pmu, &attr);
	json_object_object_add(o, "type", json_object_new_int64(attr.type));
	json_object_object_add(o, "config", json_object_new_uint64(attr.config));
	json_object_object_add(o, "sample_period", json_object_new_uint64(attr.sample_period));
	json_object_object_add(o, "aux_output", json_object_new_boolean(c->aux_output));
	json_object_object_add(o, "aux_action", json_object_new_int64(c->action));
	json_object_object_add(o, "aux_start_paused",
			       json_object_new_boolean(c->action & PMS_AUX_START_PAUSED));
	json_object_object_add(o, "aux_pause", json_object_new_boolean(c->action & PMS_AUX_PAUSE));
	json_object_object_add(o, "aux_resume",
			       json_object_new_boolean(c->action & PMS_AUX_RESUME));
	return o;
}

static const char *errno_or_ok(int err)
{
	return err ? pms_errno_name(err) : "ok";
}

/* Which era's ABI an observed errno fits, for a mismatch's explanation. */
static const char *fitting_era(const struct pms_auxabi_case *c, bool aux_can_pause, int seen)
{
	static const enum pms_aux_era eras[] = {
		PMS_AUX_ERA_ACTION, PMS_AUX_ERA_RESERVED, PMS_AUX_ERA_NO_FIELD,
	};
	char why[256];
	size_t i;

	for (i = 0; i < PMS_ARRAY_SIZE(eras); i++)
		if (pms_auxabi_expect(c, eras[i], eras[i] == PMS_AUX_ERA_ACTION && aux_can_pause,
				      why, sizeof(why)) == seen)
			return pms_aux_era_name(eras[i]);
	return NULL;
}

static void add_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

json_object *pms_auxabi_run(const struct pms_auxabi_env *env, size_t *matched,
			    size_t *mismatches)
{
	struct pms_auxabi_target t[PMS_AUXABI_PMU_NR];
	unsigned int major = 0, minor = 0;
	enum pms_aux_era era = PMS_AUX_ERA_ACTION;
	json_object *sec, *cases, *counts, *feat;
	size_t nmatch = 0, nmis = 0, nskip = 0, i;
	bool can_pause, era_known;
	int feat_seen = -1;
	char finding[512] = "";

	enum pms_aux_era rel_era = PMS_AUX_ERA_ACTION, btf_era = PMS_AUX_ERA_ACTION;
	bool rel_known, btf_known;
	int btf_ret = env->btf_path ? pms_aux_btf_era(env->btf_path, &btf_era) : -ENOENT;

	rel_known = !pms_aux_era_of(env->release, &rel_era) &&
		    !parse_release(env->release, &major, &minor);
	btf_known = !btf_ret;
	era_known = btf_known || rel_known;
	era = btf_known ? btf_era : rel_era;
	find_targets(env, t);
	can_pause = t[PMS_AUXABI_AUX].available &&
		    pms_aux_pmu_can_pause(t[PMS_AUXABI_AUX].name, era, major, minor);
	sec = json_object_new_object();
	cases = json_object_new_array();
	if (!sec || !cases) {
		json_object_put(sec);
		json_object_put(cases);
		return NULL;
	}
	for (i = 0; i < pms_auxabi_nr_cases; i++) {
		const struct pms_auxabi_case *c = &pms_auxabi_cases[i];
		json_object *o = json_object_new_object();
		char why[512], exp_why[256];
		int expect, seen, lerr;
		const char *result;

		if (!o)
			break;
		expect = pms_auxabi_expect(c, era, can_pause, exp_why, sizeof(exp_why));
		add_str(o, "name", c->name);
		add_str(o, "rule", c->rule);
		add_str(o, "pmu", t[c->pmu].name);
		add_str(o, "leader", c->leader == PMS_AUXABI_NONE ? NULL : t[c->leader].name);
		json_object_object_add(o, "attr", case_attr_json(c, t));
		if (!era_known) {
			result = "skipped";
			snprintf(why, sizeof(why), "kernel release '%s' is not X.Y: no expectation",
				 env->release ? env->release : "");
			seen = -1;
		} else if (!t[c->pmu].available ||
			   (c->leader != PMS_AUXABI_NONE && !t[c->leader].available)) {
			result = "skipped";
			snprintf(why, sizeof(why), "%s", !t[c->pmu].available ? t[c->pmu].why :
				 t[c->leader].why);
			seen = -1;
		} else if ((seen = try_case(c, t, 0, false, &lerr)) < 0) {
			result = "skipped";
			snprintf(why, sizeof(why), "control (same events, aux_action 0) does not "
				 "open: %s%s: the path is not reachable here", pms_errno_name(-seen),
				 lerr ? " on the group leader" : "");
			seen = -1;
		} else {
			seen = -try_case(c, t, c->action, c->aux_output, &lerr);
			if (seen == expect) {
				result = "match";
				snprintf(why, sizeof(why), "%s", exp_why);
			} else {
				const char *fit = fitting_era(c, can_pause, seen);

				result = "mismatch";
				snprintf(why, sizeof(why), "expected %s for kernel %s (%s era): %s; saw "
					 "%s%s%s%s", errno_or_ok(expect), env->release,
					 pms_aux_era_name(era), exp_why, errno_or_ok(seen),
					 fit ? ", which is what the " : "", fit ? fit : "",
					 fit ? " era gives (a backport or a revert?)" : "");
			}
		}
		if (!strcmp(c->name, "start-paused-software") && seen >= 0)
			feat_seen = seen == EOPNOTSUPP ? 1 :
				    (seen == EINVAL || seen == E2BIG) ? 0 : -1;
		if (seen >= 0) {
			add_str(o, "seen", errno_or_ok(seen));
		} else {
			json_object_object_add(o, "seen", NULL);
		}
		/* Without the AUX PMU its cases' answer depends on which PMU it would be. */
		add_str(o, "expected", era_known && (t[PMS_AUXABI_AUX].available ||
			(c->pmu != PMS_AUXABI_AUX && c->leader != PMS_AUXABI_AUX)) ?
			errno_or_ok(expect) : NULL);
		add_str(o, "result", result);
		add_str(o, "why", why);
		json_object_array_add(cases, o);
		if (!strcmp(result, "match")) {
			nmatch++;
		} else if (!strcmp(result, "mismatch")) {
			size_t used = strlen(finding);

			if (!nmis)
				snprintf(finding, sizeof(finding), "mismatch: ");
			used = strlen(finding);
			snprintf(finding + used, sizeof(finding) - used, "%s%s (saw %s, expected %s)",
				 nmis ? ", " : "", c->name, errno_or_ok(seen), errno_or_ok(expect));
			nmis++;
		} else {
			nskip++;
		}
	}
	if (!nmis)
		snprintf(finding, sizeof(finding), "%zu case(s) match the %s ABI of %s%s, %zu not "
			 "reachable here", nmatch, pms_aux_era_name(era),
			 env->release ? env->release : "?",
			 btf_known && rel_known && btf_era != rel_era ?
			 (btf_era == PMS_AUX_ERA_ACTION ? " (BACKPORT: its BTF has aux_action, its "
			  "version predates 6.13)" : " (its BTF has no aux_action although its version "
			  "is 6.13+)") : "", nskip);
	add_str(sec, "verdict", nmis ? "fail" : nmatch ? "pass" : "error");
	add_str(sec, "finding", finding);
	add_str(sec, "release", env->release);
	add_str(sec, "era", era_known ? pms_aux_era_name(era) : NULL);
	add_str(sec, "era_source", btf_known ? "btf" : rel_known ? "release" : NULL);
	add_str(sec, "release_era", rel_known ? pms_aux_era_name(rel_era) : NULL);
	json_object_object_add(sec, "btf_aux_action", btf_known ?
			       json_object_new_boolean(btf_era == PMS_AUX_ERA_ACTION) : NULL);
	add_str(sec, "btf_note", btf_known ? NULL : env->btf_path ?
		pms_errno_name(-btf_ret) : "not consulted (--kernel-release)");
	json_object_object_add(sec, "backport", json_object_new_boolean(
			       btf_known && rel_known && btf_era != rel_era));
	json_object_object_add(sec, "attr_size", json_object_new_int64(sizeof(struct perf_event_attr)));
	json_object_object_add(sec, "aux_action_offset", json_object_new_int64(PMS_AUX_ACTION_OFFSET));
	add_str(sec, "aux_pmu", t[PMS_AUXABI_AUX].available ? t[PMS_AUXABI_AUX].name : NULL);
	json_object_object_add(sec, "aux_pmu_can_pause",
			       t[PMS_AUXABI_AUX].available ? json_object_new_boolean(can_pause) :
			       NULL);
	feat = json_object_new_object();
	if (feat) {
		json_object_object_add(feat, "expected", era_known ?
				       json_object_new_boolean(era == PMS_AUX_ERA_ACTION) : NULL);
		json_object_object_add(feat, "observed", feat_seen < 0 ? NULL :
				       json_object_new_boolean(feat_seen));
	}
	json_object_object_add(sec, "aux_action_supported", feat);
	counts = json_object_new_object();
	if (counts) {
		json_object_object_add(counts, "match", json_object_new_uint64(nmatch));
		json_object_object_add(counts, "mismatch", json_object_new_uint64(nmis));
		json_object_object_add(counts, "skipped", json_object_new_uint64(nskip));
	}
	json_object_object_add(sec, "counts", counts);
	json_object_object_add(sec, "cases", cases);
	if (matched)
		*matched = nmatch;
	if (mismatches)
		*mismatches = nmis;
	return sec;
}
