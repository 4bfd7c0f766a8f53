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

#include "pms-counter.h"
#include "pms-counting.h"
#include "pms-cpus.h"
#include "pms-oracle.h"
#include "pms-perf.h"
#include "pms-supervise.h"
#include "pms-util.h"
#include "scenarios.h"

#define NS_PER_S 1000000000ull

static const char *const mover_kinds[] = { "hwloc", "taskset", NULL };
static const char *const patterns[] = { "ping-pong", "round-robin", "random", NULL };

static const struct pms_opt_desc lo_opts[] = {
	{ .name = "no-mover", .type = PMS_OPT_FLAG,
	  .help = "control run: no rebinding, the thread stays on the first CPU of the set" },
	{ .name = "mover", .type = PMS_OPT_CHOICE, .def = "hwloc", .choices = mover_kinds,
	  .arg = "hwloc|taskset",
	  .help = "rebind from a thread (hwloc) or with a `taskset -c -p` loop as in the seed" },
	{ .name = "cpus", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "CPUs to move across (default: two CPUs of the same CPU kind)" },
	{ .name = "pattern", .type = PMS_OPT_CHOICE, .def = "ping-pong", .choices = patterns,
	  .arg = "ping-pong|round-robin|random", .help = "order of the moves" },
	{ .name = "move-interval", .type = PMS_OPT_INTERVAL, .def = "0", .min = 0,
	  .max = 10 * NS_PER_S, .arg = "TIME",
	  .help = "pause between moves (0: as fast as possible; bare number in us)" },
	{ .name = "seed", .type = PMS_OPT_U64, .def = "1", .min = 0, .max = 0xffffffffu,
	  .arg = "N", .help = "random seed for --pattern random" },
	{ .name = "inject-drop-every", .type = PMS_OPT_U64, .min = 2, .max = 1ull << 40,
	  .arg = "N", .help = "TESTING: ignore every Nth signal, as a kernel that lost it would "
	  "(proves the oracle catches losses end to end)" },
	{ .name = "inject-stop-after", .type = PMS_OPT_U64, .min = 1, .max = 1ull << 40,
	  .arg = "N", .help = "TESTING: ignore every signal after the Nth (proves the watchdog)" },
};

struct lo_state {
	struct pms_counter c;
	struct pms_recorder rec;
	struct pms_mover mover;
	bool use_mover;
	hwloc_bitmap_t cpus;
	char cpus_why[256];
	int signo;

	bool recorder_ready;
	struct pms_workload work;
	struct pms_counting k;		/* the counting thread and what it measured */
};

static enum pms_status lo_setup(struct pms_run *run)
{
	struct lo_state *st = calloc(1, sizeof(*st));
	const char *cpus = pms_opt_str(&run->opts, "cpus");
	enum pms_status s;
	char err[256];
	int ret;

	if (!st)
		return PMS_E_SETUP;
	run->priv = st;
	pms_counting_init(&st->k);
	st->use_mover = !pms_opt_u64(&run->opts, "no-mover");
	st->cpus = hwloc_bitmap_alloc();

	if (cpus) {
		if (pms_cpus_parse(run->topo, cpus, st->cpus, err, sizeof(err))) {
			snprintf(run->reason, sizeof(run->reason), "%s", err);
			return PMS_E_CPUS;
		}
		if (st->use_mover && hwloc_bitmap_weight(st->cpus) < 2) {
			snprintf(run->reason, sizeof(run->reason), "bad CPU list '%s': the mover "
				 "needs at least two CPUs (or use --no-mover)", cpus);
			return PMS_E_CPUS;
		}
		snprintf(st->cpus_why, sizeof(st->cpus_why), "--cpus");
		if (pms_cpus_kind_of(run->topo, st->cpus) < 0 &&
		    hwloc_cpukinds_get_nr(run->topo, 0) > 1)
			snprintf(st->cpus_why, sizeof(st->cpus_why), "--cpus (spans CPU kinds: the "
				 "event may not count on every CPU of the set)");
	} else if (pms_cpus_default_pair(run->topo, st->cpus, st->cpus_why,
					 sizeof(st->cpus_why))) {
		if (st->use_mover) {
			snprintf(run->reason, sizeof(run->reason), "the mover needs two CPUs of one "
				 "kind and this machine has fewer (%s); --no-mover runs the control",
				 st->cpus_why);
			return PMS_E_SKIP;
		}
		hwloc_bitmap_copy(st->cpus, hwloc_topology_get_allowed_cpuset(run->topo));
	}

	s = pms_counter_resolve(run, "instructions", 10000, 100, &st->c);
	if (s)
		return s;

	ret = pms_workload_init(&st->work, pms_workload_for(&st->c.ev));
	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot set up the workload: %s",
			 strerror(-ret));
		return PMS_E_SETUP;
	}

	st->signo = SIGRTMIN + 4;
	s = pms_run_recorder(run, &st->rec, st->signo);
	if (s)
		return s;
	st->recorder_ready = true;

	st->mover.topo = run->topo;
	st->mover.cpus = st->cpus;
	st->mover.kind = (enum pms_mover_kind)pms_opt_u64(&run->opts, "mover");
	st->mover.pattern = (enum pms_move_pattern)pms_opt_u64(&run->opts, "pattern");
	st->mover.interval_ns = pms_opt_u64(&run->opts, "move-interval");
	st->mover.seed = (unsigned int)pms_opt_u64(&run->opts, "seed");
	st->mover.log_cap = 1u << 20;

	st->k.c = &st->c;
	st->k.work = &st->work;
	st->k.signo = st->signo;
	st->k.topo = run->topo;
	st->k.pin_first = st->use_mover ? NULL : st->cpus;	/* the control stays put */
	return pms_counting_start(&st->k, run->reason, sizeof(run->reason));
}

/* Deltas out of tolerance so far, for the progress line only. */
static uint64_t count_off(const struct lo_state *st, uint64_t *scanned, uint64_t *prev,
			  uint64_t off)
{
	uint64_t n = __atomic_load_n(&st->rec.n, __ATOMIC_ACQUIRE), i;

	if (n > st->rec.cap)
		n = st->rec.cap;
	for (i = *scanned; i < n; i++) {
		uint64_t v = st->rec.sig[i].value;
		int64_t d = (int64_t)(v - *prev);

		if (d < (int64_t)(st->c.period - st->c.tolerance) ||
		    d > (int64_t)(st->c.period + st->c.tolerance))
			off++;
		*prev = v;
	}
	*scanned = n;
	return off;
}

/*
 * Put each anomaly next to the rebind that preceded it, on the one clock
 * both were stamped with: a late signal 2 us after a move is a lead.
 */
static void annotate_anomalies(const struct lo_state *st, json_object *oracle)
{
	json_object *anom, *list;
	size_t i;

	if (!json_object_object_get_ex(oracle, "anomalies", &anom) ||
	    !json_object_object_get_ex(anom, "list", &list))
		return;
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i), *t;
		const struct pms_rebind *rb = NULL;
		uint64_t time_ns;

		if (!json_object_object_get_ex(a, "time_ns", &t))
			continue;
		time_ns = json_object_get_uint64(t);
		if (st->use_mover)
			rb = pms_mover_last_before(&st->mover, time_ns);
		json_object_object_add(a, "since_rebind_ns",
				       rb ? json_object_new_uint64(time_ns - rb->time_ns) : NULL);
		json_object_object_add(a, "rebind_cpu", rb ? json_object_new_int(rb->cpu) : NULL);
	}
}

/*
 * What the final count should be given the workload's own tally: a
 * breakpoint counts calls exactly (plus one per signal on arm64), a fault
 * event counts one fault per call; other counters have no such check.
 */
static json_object *count_check(const struct lo_state *st, uint64_t signals)
{
	json_object *o = json_object_new_object();
	uint64_t expect = st->work.iterations;
	bool applies = st->c.ev.breakpoint;

	if (st->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT)
		expect += signals;
	if (!applies || !st->k.final_valid) {
		json_object_object_add(o, "applies", json_object_new_boolean(false));
		return o;
	}
	json_object_object_add(o, "applies", json_object_new_boolean(true));
	json_object_object_add(o, "expected", json_object_new_uint64(expect));
	json_object_object_add(o, "observed", json_object_new_uint64(st->k.final_value));
	json_object_object_add(o, "match", json_object_new_boolean(expect == st->k.final_value));
	json_object_object_add(o, "rule", json_object_new_string(
		st->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT ?
		"arm64 breakpoint: one count per call plus one per signal" :
		"breakpoint: one count per call"));
	return o;
}

struct lo_progress {
	const struct lo_state *st;
	uint64_t scanned, prev, off;
};

static void lo_progress(void *arg, char *buf, size_t len, uint64_t seen)
{
	struct lo_progress *pr = arg;

	pr->off = count_off(pr->st, &pr->scanned, &pr->prev, pr->off);
	snprintf(buf, len, "  off-period deltas %llu  rebinds %llu",
		 (unsigned long long)pr->off, (unsigned long long)pr->st->mover.requested);
}

static void lo_run(struct pms_run *run)
{
	struct lo_state *st = run->priv;
	struct lo_progress pr = { .st = st };
	struct pms_supervisor sup = {
		.rec = &st->rec, .fd = st->k.fd, .period = st->c.period,
		.progress = lo_progress, .arg = &pr,
	};
	struct pms_oracle_cfg cfg = { 0 };
	struct pms_oracle_result res = { 0 };
	char oracle_reason[480];
	json_object *o;
	int ret;

	pms_counting_go(&st->k);
	st->mover.target = st->k.tid;
	sup.mover = st->use_mover ? &st->mover : NULL;
	pms_supervise(run, &sup);
	pms_counting_stop(&st->k);

	cfg.period = st->c.period;
	cfg.tolerance = st->c.tolerance;
	cfg.sem = st->c.ev.sem;
	cfg.base = 0;
	/* With signals dropped for want of room, the final count implies
	 * overflows we cannot check: do not let it call them lost. */
	cfg.final_valid = st->k.final_valid && !st->rec.dropped;
	cfg.final_value = st->k.final_value;
	cfg.max_anomalies = pms_opt_u64(&run->opts, "max-anomalies");
	ret = pms_oracle_classify(&cfg, st->rec.sig, st->rec.n < st->rec.cap ? st->rec.n :
				  st->rec.cap, &res);
	if (ret) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "oracle failed: %s", strerror(-ret));
		return;
	}

	json_object_object_add(run->result, "counter", pms_counter_to_json(&st->c));
	o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(pms_workload_name(st->work.kind)));
	json_object_object_add(o, "description", json_object_new_string(
		st->work.kind == PMS_WORKLOAD_PAGE_FAULTS ?
		"user loop calling pms_workload_tick(), then one minor page fault per call" :
		"user loop calling pms_workload_tick() (a breakpoint counts each call)"));
	json_object_object_add(o, "iterations", json_object_new_uint64(st->work.iterations));
	json_object_object_add(o, "final_count", st->k.final_valid ?
			       json_object_new_uint64(st->k.final_value) : NULL);
	json_object_object_add(o, "seconds",
			       json_object_new_double((double)(st->k.end_ns - st->k.start_ns) / 1e9));
	json_object_object_add(o, "tid", json_object_new_int(st->k.tid));
	json_object_object_add(o, "count_check", count_check(st, st->rec.n));
	json_object_object_add(run->result, "workload", o);

	o = st->use_mover ? pms_mover_to_json(&st->mover) : json_object_new_object();
	json_object_object_add(o, "enabled", json_object_new_boolean(st->use_mover));
	{
		char cpus[1024];

		pms_cpus_format(st->cpus, cpus, sizeof(cpus));
		json_object_object_add(o, "cpus", json_object_new_string(cpus));
	}
	json_object_object_add(o, "cpus_source", json_object_new_string(st->cpus_why));
	json_object_object_add(o, "migrations_counted", st->k.migrations_valid ?
			       json_object_new_uint64(st->k.migrations_counted) : NULL);
	json_object_object_add(o, "migrations_sched", st->k.nr_migrations_sched >= 0 ?
			       json_object_new_int64(st->k.nr_migrations_sched) : NULL);
	json_object_object_add(run->result, "mover", o);

	o = json_object_new_object();
	{
		char a[1024], b[1024];
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		int cpu;

		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &st->k.aff_initial))
				hwloc_bitmap_set(set, (unsigned int)cpu);
		pms_cpus_format(set, a, sizeof(a));
		hwloc_bitmap_zero(set);
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &st->k.aff_final))
				hwloc_bitmap_set(set, (unsigned int)cpu);
		pms_cpus_format(set, b, sizeof(b));
		hwloc_bitmap_free(set);
		json_object_object_add(o, "initial", json_object_new_string(a));
		json_object_object_add(o, "final", json_object_new_string(b));
		json_object_object_add(o, "restored", json_object_new_boolean(st->k.aff_restored));
	}
	json_object_object_add(run->result, "affinity", o);

	json_object_object_add(run->result, "recorder", pms_recorder_to_json(&st->rec));

	o = pms_oracle_to_json(&cfg, &res);
	annotate_anomalies(st, o);
	json_object_object_add(run->result, "oracle", o);

	json_object_object_add(run->result, "watchdog", pms_watchdog_to_json(&sup.wd));

	if (run->verdict == PMS_VERDICT_ERROR) {
		/* the mover failed to start: reason already set */
	} else if (sup.wd.stalled) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s", sup.wd.message);
	} else if (pms_oracle_failed(&cfg, &res, oracle_reason, sizeof(oracle_reason)) ||
		   sup.wd.fired) {
		run->verdict = PMS_VERDICT_FAIL;
		snprintf(run->reason, sizeof(run->reason), "%s%s%s", sup.wd.message,
			 sup.wd.fired ? "; " : "", oracle_reason);
	} else if (!res.signals && (!st->k.final_valid || st->k.final_value < st->c.period)) {
		run->verdict = PMS_VERDICT_ERROR;
		if (st->k.final_valid)
			snprintf(run->reason, sizeof(run->reason), "no overflow happened: the counter "
				 "reached %llu, below one period (%llu); run longer or lower --period",
				 (unsigned long long)st->k.final_value,
				 (unsigned long long)st->c.period);
		else
			snprintf(run->reason, sizeof(run->reason), "no overflow happened and the "
				 "final count could not be read");
	} else {
		run->verdict = PMS_VERDICT_PASS;
		snprintf(run->reason, sizeof(run->reason), "%s", oracle_reason);
	}
	if (sup.full || st->rec.dropped)
		pms_run_append_reason(run, "signal storage full after %llu signals (%llu dropped): "
				      "the run ended early and the final count was not used (raise "
				      "--max-signals)", (unsigned long long)st->rec.n,
				      (unsigned long long)st->rec.dropped);
	if (st->rec.injected)
		pms_run_append_reason(run, "FAULT INJECTION: %llu signals were ignored on purpose "
				      "(--inject-*), this run does not describe the kernel",
				      (unsigned long long)st->rec.injected);
	/* se.nr_migrations counts every move; the perf software event at most
	 * one per schedule-in, so it is only the fallback. */
	if (st->use_mover && st->mover.requested && run->verdict == PMS_VERDICT_PASS &&
	    (st->k.nr_migrations_sched >= 0 ? st->k.nr_migrations_sched == 0 :
	     st->k.migrations_valid && !st->k.migrations_counted))
		pms_run_append_reason(run, "but no migration actually happened: the mover did "
				      "not exercise the bug");
	pms_oracle_result_free(&res);
}

static void lo_teardown(struct pms_run *run)
{
	struct lo_state *st = run->priv;

	if (!st)
		return;
	pms_mover_stop(&st->mover);
	pms_counting_fini(&st->k);
	if (st->recorder_ready)
		pms_recorder_fini(&st->rec);
	pms_mover_free(&st->mover);
	hwloc_bitmap_free(st->cpus);
	pms_workload_fini(&st->work);
	free(st);
	run->priv = NULL;
}

const struct pms_scenario pms_scenario_lost_overflow = {
	.name = "lost-overflow",
	.summary = "every overflow gives one signal, on time, while the thread ping-pongs "
		   "between CPUs",
	.seed = "rr issue 3607; LKML Nov 2023 \"armv8pmu: Pending overflow interrupt is "
		"discarded\"",
	.needs = "a hardware PMU (else the breakpoint substitute); two CPUs of one kind for "
		 "the mover",
	.opts = lo_opts,
	.nr_opts = PMS_ARRAY_SIZE(lo_opts),
	.setup = lo_setup,
	.run = lo_run,
	.teardown = lo_teardown,
};
