// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared shape of the signal-counting scenarios (see pms-sigrun.h):
 * everything from choosing the CPUs to the verdict that does not depend on
 * the scenario's own stressor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pms-sigrun.h"
#include "pms-util.h"

void pms_sigrun_init(struct pms_sigrun *s)
{
	pms_counting_init(&s->k);
	s->cpus = hwloc_bitmap_alloc();
}

static enum pms_status choose_cpus(struct pms_run *run, struct pms_sigrun *s)
{
	const char *cpus = pms_opt_str(&run->opts, "cpus");
	char err[256];

	if (cpus) {
		if (pms_cpus_parse(run->topo, cpus, s->cpus, err, sizeof(err))) {
			snprintf(run->reason, sizeof(run->reason), "%s", err);
			return PMS_E_CPUS;
		}
		if (s->use_mover && hwloc_bitmap_weight(s->cpus) < 2) {
			snprintf(run->reason, sizeof(run->reason), "bad CPU list '%s': the mover "
				 "needs at least two CPUs (or use %s)", cpus, s->no_mover_hint);
			return PMS_E_CPUS;
		}
		snprintf(s->cpus_why, sizeof(s->cpus_why), "--cpus");
		if (pms_cpus_kind_of(run->topo, s->cpus) < 0 &&
		    hwloc_cpukinds_get_nr(run->topo, 0) > 1)
			snprintf(s->cpus_why, sizeof(s->cpus_why), "--cpus (spans CPU kinds: the "
				 "event may not count on every CPU of the set)");
		return PMS_OK;
	}
	if (pms_cpus_default_pair(run->topo, s->cpus, s->cpus_why, sizeof(s->cpus_why))) {
		if (s->use_mover) {
			snprintf(run->reason, sizeof(run->reason), "the mover needs two CPUs of one "
				 "kind and this machine has fewer (%s); %s runs without it",
				 s->cpus_why, s->no_mover_hint);
			return PMS_E_SKIP;
		}
		hwloc_bitmap_copy(s->cpus, hwloc_topology_get_allowed_cpuset(run->topo));
	}
	return PMS_OK;
}

enum pms_status pms_sigrun_setup(struct pms_run *run, struct pms_sigrun *s)
{
	enum pms_status st;

	st = choose_cpus(run, s);
	if (st)
		return st;
	st = pms_counter_resolve(run, s->preferred, s->hw_period, s->bp_period, &s->c);
	if (st)
		return st;
	st = pms_run_workload(run, &s->work, &s->c.ev);
	if (st)
		return st;
	s->signo = SIGRTMIN + 4;
	st = pms_run_recorder(run, &s->rec, s->signo);
	if (st)
		return st;

	s->mover.topo = run->topo;
	s->mover.cpus = s->cpus;
	s->mover.kind = s->mover_kind;
	s->mover.pattern = (enum pms_move_pattern)pms_opt_u64(&run->opts, "pattern");
	s->mover.interval_ns = pms_opt_u64(&run->opts, "move-interval");
	s->mover.seed = (unsigned int)pms_opt_u64(&run->opts, "seed");
	s->mover.log_cap = 1u << 20;

	s->k.c = &s->c;
	s->k.work = &s->work;
	s->k.signo = s->signo;
	s->k.topo = run->topo;
	s->k.pin_first = s->pin_control && !s->use_mover ? s->cpus : NULL;
	return PMS_OK;
}

enum pms_status pms_sigrun_start(struct pms_run *run, struct pms_sigrun *s)
{
	return pms_counting_start(&s->k, run->reason, sizeof(run->reason));
}

void pms_sigrun_supervise(struct pms_run *run, struct pms_sigrun *s,
			  void (*progress)(void *arg, char *buf, size_t len, uint64_t seen),
			  void *arg)
{
	s->sup.rec = &s->rec;
	s->sup.fd = s->k.fd;
	s->sup.period = s->c.period;
	s->sup.progress = progress;
	s->sup.arg = arg;
	pms_counting_go(&s->k);
	s->mover.target = s->k.tid;
	s->sup.mover = s->use_mover ? &s->mover : NULL;
	pms_supervise(run, &s->sup);
}

void pms_sigrun_stop(struct pms_sigrun *s)
{
	pms_counting_stop(&s->k);
}

size_t pms_sigrun_nsignals(const struct pms_sigrun *s)
{
	uint64_t n = __atomic_load_n(&s->rec.n, __ATOMIC_ACQUIRE);

	return n < s->rec.cap ? (size_t)n : s->rec.cap;
}

void pms_sigrun_oracle_cfg(const struct pms_run *run, const struct pms_sigrun *s,
			   enum pms_semantics sem, struct pms_oracle_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->period = s->c.period;
	cfg->tolerance = s->c.tolerance;
	cfg->sem = sem;
	/* With signals dropped for want of room, the final count implies
	 * overflows we cannot check: do not let it call them lost. */
	cfg->final_valid = s->k.final_valid && !s->rec.dropped;
	cfg->final_value = s->k.final_value;
	cfg->max_anomalies = pms_opt_u64(&run->opts, "max-anomalies");
}

static json_object *workload_json(const struct pms_sigrun *s, json_object *count_check)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(pms_workload_name(s->work.kind)));
	json_object_object_add(o, "description", json_object_new_string(
		s->work.kind == PMS_WORKLOAD_PAGE_FAULTS ?
		"user loop calling pms_workload_tick(), then one minor page fault per call" :
		"user loop calling pms_workload_tick() (a breakpoint counts each call)"));
	json_object_object_add(o, "iterations", json_object_new_uint64(s->work.iterations));
	json_object_object_add(o, "final_count", s->k.final_valid ?
			       json_object_new_uint64(s->k.final_value) : NULL);
	json_object_object_add(o, "seconds",
			       json_object_new_double((double)(s->k.end_ns - s->k.start_ns) / 1e9));
	json_object_object_add(o, "tid", json_object_new_int(s->k.tid));
	json_object_object_add(o, "count_check", count_check);
	return o;
}

static json_object *mover_json(const struct pms_sigrun *s)
{
	json_object *o = s->use_mover ? pms_mover_to_json(&s->mover) : json_object_new_object();
	char cpus[1024];

	json_object_object_add(o, "enabled", json_object_new_boolean(s->use_mover));
	pms_cpus_format(s->cpus, cpus, sizeof(cpus));
	json_object_object_add(o, "cpus", json_object_new_string(cpus));
	json_object_object_add(o, "cpus_source", json_object_new_string(s->cpus_why));
	json_object_object_add(o, "migrations_counted", s->k.migrations_valid ?
			       json_object_new_uint64(s->k.migrations_counted) : NULL);
	json_object_object_add(o, "migrations_sched", s->k.nr_migrations_sched >= 0 ?
			       json_object_new_int64(s->k.nr_migrations_sched) : NULL);
	return o;
}

static void cpuset_string(const cpu_set_t *cs, char *buf, size_t len)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, cs))
			hwloc_bitmap_set(set, (unsigned int)cpu);
	pms_cpus_format(set, buf, len);
	hwloc_bitmap_free(set);
}

static json_object *affinity_json(const struct pms_sigrun *s)
{
	json_object *o = json_object_new_object();
	char a[1024], b[1024];

	cpuset_string(&s->k.aff_initial, a, sizeof(a));
	cpuset_string(&s->k.aff_final, b, sizeof(b));
	json_object_object_add(o, "initial", json_object_new_string(a));
	json_object_object_add(o, "final", json_object_new_string(b));
	json_object_object_add(o, "restored", json_object_new_boolean(s->k.aff_restored));
	return o;
}

/*
 * Put each anomaly next to the rebind that preceded it, on the one clock
 * both were stamped with: a late signal 2 us after a move is a lead.
 */
static void annotate_rebinds(const struct pms_sigrun *s, json_object *oracle)
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
		if (s->use_mover)
			rb = pms_mover_last_before(&s->mover, time_ns);
		json_object_object_add(a, "since_rebind_ns",
				       rb ? json_object_new_uint64(time_ns - rb->time_ns) : NULL);
		json_object_object_add(a, "rebind_cpu", rb ? json_object_new_int(rb->cpu) : NULL);
	}
}

json_object *pms_sigrun_report(struct pms_run *run, const struct pms_sigrun *s,
			       json_object *count_check, const struct pms_oracle_cfg *cfg,
			       const struct pms_oracle_result *res)
{
	json_object *o;

	json_object_object_add(run->result, "counter", pms_counter_to_json(&s->c));
	json_object_object_add(run->result, "workload", workload_json(s, count_check));
	json_object_object_add(run->result, "mover", mover_json(s));
	json_object_object_add(run->result, "affinity", affinity_json(s));
	json_object_object_add(run->result, "recorder", pms_recorder_to_json(&s->rec));
	o = pms_oracle_to_json(cfg, res);
	annotate_rebinds(s, o);
	json_object_object_add(run->result, "oracle", o);
	json_object_object_add(run->result, "watchdog", pms_watchdog_to_json(&s->sup.wd));
	return o;
}

void pms_sigrun_verdict(struct pms_run *run, const struct pms_sigrun *s,
			const struct pms_oracle_cfg *cfg, const struct pms_oracle_result *res,
			const char *stressor_idle)
{
	const struct pms_watchdog *wd = &s->sup.wd;
	char why[480];

	if (run->verdict == PMS_VERDICT_ERROR) {
		/* the mover failed to start: reason already set */
	} else if (wd->stalled) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s", wd->message);
	} else if (pms_oracle_failed(cfg, res, why, sizeof(why)) || wd->fired) {
		run->verdict = PMS_VERDICT_FAIL;
		snprintf(run->reason, sizeof(run->reason), "%s%s%s", wd->message,
			 wd->fired ? "; " : "", why);
	} else if (!res->signals && (!s->k.final_valid || s->k.final_value < s->c.period)) {
		run->verdict = PMS_VERDICT_ERROR;
		if (s->k.final_valid)
			snprintf(run->reason, sizeof(run->reason), "no overflow happened: the counter "
				 "reached %llu, below one period (%llu); run longer or lower --period",
				 (unsigned long long)s->k.final_value,
				 (unsigned long long)s->c.period);
		else
			snprintf(run->reason, sizeof(run->reason), "no overflow happened and the "
				 "final count could not be read");
	} else if (stressor_idle) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s", stressor_idle);
	} else {
		run->verdict = PMS_VERDICT_PASS;
		snprintf(run->reason, sizeof(run->reason), "%s", why);
	}
}

void pms_sigrun_caveats(struct pms_run *run, const struct pms_sigrun *s)
{
	if (s->sup.full || s->rec.dropped)
		pms_run_append_reason(run, "signal storage full after %llu signals (%llu dropped): "
				      "the run ended early and the final count was not used (raise "
				      "--max-signals)", (unsigned long long)s->rec.n,
				      (unsigned long long)s->rec.dropped);
	if (s->rec.injected)
		pms_run_append_reason(run, "FAULT INJECTION: %llu signals were ignored on purpose "
				      "(--inject-*), this run does not describe the kernel",
				      (unsigned long long)s->rec.injected);
}

void pms_sigrun_fini(struct pms_sigrun *s)
{
	pms_mover_stop(&s->mover);
	pms_counting_fini(&s->k);
	pms_recorder_fini(&s->rec);
	pms_mover_free(&s->mover);
	if (s->cpus)
		hwloc_bitmap_free(s->cpus);
	s->cpus = NULL;
	pms_workload_fini(&s->work);
}
