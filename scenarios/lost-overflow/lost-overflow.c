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

#define NS_PER_S 1000000000ull

static const char *const mover_kinds[] = { "hwloc", "taskset", NULL };

static const struct pms_opt_desc lo_opts[] = {
	{ .name = "no-mover", .type = PMS_OPT_FLAG,
	  .help = "control run: no rebinding, the thread stays on the first CPU of the set" },
	{ .name = "mover", .type = PMS_OPT_CHOICE, .def = "hwloc", .choices = mover_kinds,
	  .arg = "hwloc|taskset",
	  .help = "rebind from a thread (hwloc) or with a `taskset -c -p` loop as in the seed" },
	{ .name = "cpus", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "CPUs to move across (default: two CPUs of the same CPU kind)" },
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
	s = pms_sigrun_setup(run, &st->r);
	if (s)
		return s;
	pms_stress_init(&st->stress);
	st->stress_init = true;
	/* Where the workload runs: the mover's set, or the control's first CPU. */
	{
		hwloc_bitmap_t where = hwloc_bitmap_dup(st->r.cpus);

		if (!st->r.use_mover)
			hwloc_bitmap_only(where, (unsigned int)hwloc_bitmap_first(st->r.cpus));
		s = pms_stress_setup(run, &st->stress, where);
		hwloc_bitmap_free(where);
	}
	if (s)
		return s;
	if (pms_stress_any(&st->stress))
		st->r.stressor = PMS_CAUSE_SWITCH_OUT;
	st->r.k.step = lo_step;
	st->r.k.arg = &st->stress;
	s = pms_sigrun_start(run, &st->r);
	if (s)
		return s;
	return pms_stress_start(run, &st->stress);
}

/* Deltas out of tolerance so far, for the progress line only. */
static uint64_t count_off(const struct pms_sigrun *r, uint64_t *scanned, uint64_t *prev,
			  uint64_t off)
{
	uint64_t n = pms_sigrun_nsignals(r), i;

	for (i = *scanned; i < n; i++) {
		uint64_t v = r->rec.sig[i].value;
		int64_t d = (int64_t)(v - *prev);

		if (d < (int64_t)(r->c.period - r->c.tolerance) ||
		    d > (int64_t)(r->c.period + r->c.tolerance))
			off++;
		*prev = v;
	}
	*scanned = n;
	return off;
}

/*
 * What the final count should be given the workload's own tally: a
 * breakpoint counts calls exactly (plus one per signal on arm64), a fault
 * event counts one fault per call; other counters have no such check.
 */
static json_object *count_check(const struct pms_sigrun *r, uint64_t signals)
{
	json_object *o = json_object_new_object();
	uint64_t expect = r->work.iterations;
	bool applies = r->c.ev.breakpoint;

	if (r->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT)
		expect += signals;
	if (!applies || !r->k.final_valid) {
		json_object_object_add(o, "applies", json_object_new_boolean(false));
		return o;
	}
	json_object_object_add(o, "applies", json_object_new_boolean(true));
	json_object_object_add(o, "expected", json_object_new_uint64(expect));
	json_object_object_add(o, "observed", json_object_new_uint64(r->k.final_value));
	json_object_object_add(o, "match", json_object_new_boolean(expect == r->k.final_value));
	json_object_object_add(o, "rule", json_object_new_string(
		r->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT ?
		"arm64 breakpoint: one count per call plus one per signal" :
		"breakpoint: one count per call"));
	return o;
}

struct lo_progress {
	const struct pms_sigrun *r;
	uint64_t scanned, prev, off;
};

static void lo_progress(void *arg, char *buf, size_t len, uint64_t seen)
{
	struct lo_progress *pr = arg;

	pr->off = count_off(pr->r, &pr->scanned, &pr->prev, pr->off);
	snprintf(buf, len, "  off-period deltas %llu  rebinds %llu",
		 (unsigned long long)pr->off, (unsigned long long)pr->r->mover.requested);
}

static void lo_run(struct pms_run *run)
{
	struct lo_state *st = run->priv;
	struct pms_sigrun *r = &st->r;
	struct lo_progress pr = { .r = r };
	struct pms_oracle_cfg cfg;
	struct pms_oracle_result res = { 0 };
	json_object *oracle;
	uint8_t *cls;
	int ret;

	pms_sigrun_supervise(run, r, lo_progress, &pr);
	pms_stress_stop(&st->stress);
	pms_sigrun_stop(r);
	json_object_object_add(run->result, "stressors", pms_stress_to_json(&st->stress));

	pms_sigrun_oracle_cfg(run, r, r->c.ev.sem, &cfg);
	cls = malloc(pms_sigrun_nsignals(r) + 1);
	cfg.classes = cls;
	ret = cls ? pms_oracle_classify(&cfg, r->rec.sig, pms_sigrun_nsignals(r), &res) : -ENOMEM;
	if (ret) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "oracle failed: %s", strerror(-ret));
		free(cls);
		return;
	}
	oracle = pms_sigrun_report(run, r, count_check(r, r->rec.n), &cfg, &res);
	pms_sigrun_verdict(run, r, &cfg, &res, pms_stress_idle(&st->stress));
	pms_sigrun_attribute(run, r, &res, cls, NULL, 0, oracle);
	free(cls);
	pms_sigrun_caveats(run, r);
	pms_oracle_result_free(&res);
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
	.opts = lo_opts,
	.nr_opts = PMS_ARRAY_SIZE(lo_opts),
	.setup = lo_setup,
	.run = lo_run,
	.teardown = lo_teardown,
};
