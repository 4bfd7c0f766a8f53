// SPDX-License-Identifier: GPL-2.0-only
/*
 * lost-overflow: does every counter overflow still produce exactly one
 * signal, on time, while the counting thread is moved between CPUs?
 *
 * Seed: rr issue 3607 and LKML "armv8pmu: Pending overflow interrupt is
 * discarded" (Nov 2023): armv8pmu_disable_intens() clears a pending overflow
 * when the event is scheduled out, so the count stays right and the signal
 * comes a period late, or never.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pms-sigrun.h"
#include "pms-stress.h"
#include "pms-util.h"
#include "scenarios.h"

static const char *const mover_kinds[] = { "hwloc", "taskset", NULL };

static const struct pms_opt_desc lo_opts[] = {
	{ .name = "no-mover", .type = PMS_OPT_FLAG,
	  .help = "control run: no rebinding, the thread stays on the first CPU of the set" },
	{ .name = "mover", .type = PMS_OPT_CHOICE, .def = "hwloc", .choices = mover_kinds,
	  .arg = "hwloc|taskset",
	  .help = "rebind from a thread (hwloc) or with a `taskset -c -p` loop as in the seed" },
	{ .name = "cpus", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "CPUs to move across (default: two CPUs of the same CPU kind)" },
	{ .name = "threads", .type = PMS_OPT_U64, .def = "0", .min = 0, .max = 64, .arg = "N",
	  .help = "counting threads, each with its own counter, signal, oracle and mover on "
		  "its own pair of CPUs (default 0: one per disjoint pair of one CPU kind, at "
		  "most 8; more than the pairs share them)" },
	{ .name = "until-fail", .type = PMS_OPT_FLAG,
	  .help = "stop at the first lost overflow and report the time and signals to it "
		  "(for CI and bisection)" },
	PMS_MOVER_OPTS,
	PMS_EVIDENCE_OPTS,
	PMS_STRESS_OPTS,
	PMS_INJECT_OPTS,
};

struct lo_state {
	struct pms_sigrun r;
	struct pms_stress stress;
	bool stress_init;
};

/* The counting thread's step hook: the workload's own stressors. */
static void lo_step(void *arg)
{
	pms_stress_step(arg);
}

static enum pms_status lo_setup(struct pms_run *run)
{
	struct lo_state *st = run->priv;
	enum pms_status s;

	pms_sigrun_init(&st->r);
	st->r.preferred = "instructions";
	st->r.hw_period = 10000;
	st->r.bp_period = 100;
	st->r.use_mover = !pms_opt_u64(&run->opts, "no-mover");
	st->r.mover_kind = (enum pms_mover_kind)pms_opt_u64(&run->opts, "mover");
	st->r.no_mover_hint = "--no-mover";
	st->r.pin_control = true;	/* the control stays put */
	st->r.stream = true;		/* judged as it runs: any --duration */
	s = pms_sigrun_setup(run, &st->r);
	if (s)
		return s;
	pms_stress_init(&st->stress);
	st->stress_init = true;
	/*
	 * Where the workload runs: every thread's pair, or with --no-mover the
	 * CPU each thread is pinned to.
	 */
	{
		hwloc_bitmap_t where = hwloc_bitmap_alloc();
		unsigned int i;

		for (i = 0; i < st->r.nthreads; i++) {
			struct pms_sigrun_lane *l = pms_sigrun_lane(&st->r, i);

			if (st->r.use_mover)
				hwloc_bitmap_or(where, where, l->cpus);
			else
				hwloc_bitmap_set(where, (unsigned int)hwloc_bitmap_first(l->cpus));
			l->k.step = lo_step;
			l->k.arg = &st->stress;
		}
		s = pms_stress_setup(run, &st->stress, where);
		hwloc_bitmap_free(where);
	}
	if (s)
		return s;
	if (pms_stress_any(&st->stress))
		st->r.stressor = PMS_CAUSE_SWITCH_OUT;
	s = pms_sigrun_start(run, &st->r);
	if (s)
		return s;
	return pms_stress_start(run, &st->stress);
}


/*
 * What the final count should be given the workload's own tally: a
 * breakpoint counts calls exactly (plus one per signal on arm64), a fault
 * event counts one fault per call; other counters have no such check.
 */
static json_object *count_check(const struct pms_sigrun *r, uint64_t signals)
{
	json_object *o = json_object_new_object();
	uint64_t expect = r->total_iterations;
	bool applies = r->c.ev.breakpoint;

	if (r->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT)
		expect += signals;
	if (!applies || !r->total_final_valid) {
		json_object_object_add(o, "applies", json_object_new_boolean(false));
		return o;
	}
	json_object_object_add(o, "applies", json_object_new_boolean(true));
	json_object_object_add(o, "expected", json_object_new_uint64(expect));
	json_object_object_add(o, "observed", json_object_new_uint64(r->total_final));
	json_object_object_add(o, "match", json_object_new_boolean(expect == r->total_final));
	json_object_object_add(o, "rule", json_object_new_string(
		r->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT ?
		"arm64 breakpoint: one count per call plus one per signal" :
		"breakpoint: one count per call"));
	return o;
}

struct lo_progress {
	const struct pms_sigrun *r;
};

/* What the drain judged so far (read racily: a progress line only). */
static void lo_progress(void *arg, char *buf, size_t len, uint64_t seen)
{
	struct lo_progress *pr = arg;
	const struct pms_oracle_result *res = &pr->r->drain.ores;

	snprintf(buf, len, "  judged %llu  off-period %llu  owed %llu  rebinds %llu",
		 (unsigned long long)res->signals,
		 (unsigned long long)(res->signals - res->by_class[PMS_CLASS_ON_TIME]),
		 (unsigned long long)pr->r->drain.os.owed,
		 (unsigned long long)pr->r->mover.requested);
}

static void lo_run(struct pms_run *run)
{
	struct lo_state *st = run->priv;
	struct pms_sigrun *r = &st->r;
	struct lo_progress pr = { .r = r };
	json_object *oracle;

	pms_sigrun_supervise(run, r, lo_progress, &pr);
	pms_stress_stop(&st->stress);
	pms_sigrun_stop(r);
	json_object_object_add(run->result, "stressors", pms_stress_to_json(&st->stress));
	if (r->drain_err) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "oracle failed: %s",
			 strerror(-r->drain_err));
		return;
	}
	oracle = pms_sigrun_report(run, r, count_check(r, r->total.signals), &r->total_cfg,
				   &r->total);
	pms_sigrun_verdict(run, r, &r->total_cfg, &r->total, pms_stress_idle(&st->stress));
	pms_sigrun_attribute(run, r, &r->total, NULL, NULL, 0, oracle);
	pms_sigrun_caveats(run, r);
}

static void lo_teardown(struct pms_run *run)
{
	struct lo_state *st = run->priv;

	if (st->stress_init)
		pms_stress_stop(&st->stress);
	pms_sigrun_fini(&st->r);
	if (st->stress_init)
		pms_stress_fini(&st->stress);
}

const struct pms_scenario pms_scenario_lost_overflow = {
	.name = "lost-overflow",
	.summary = "every overflow gives one signal, on time, while the thread ping-pongs "
		   "between CPUs",
	.seed = "rr issue 3607; LKML Nov 2023 \"armv8pmu: Pending overflow interrupt is "
		"discarded\"",
	.needs = "a hardware PMU (else the breakpoint substitute); two CPUs of one kind for "
		 "the mover",
	.priv_size = sizeof(struct lo_state),
	PMS_SCENARIO_OPTS(lo_opts),
	.setup = lo_setup,
	.run = lo_run,
	.teardown = lo_teardown,
};
