// SPDX-License-Identifier: GPL-2.0-only
/*
 * disable-storm: does every overflow still produce exactly one signal while
 * the event is switched off and on with PERF_EVENT_IOC_DISABLE/ENABLE as
 * fast as the kernel allows?
 *
 * Seed: LKML armv8pmu thread ("an application disabling an event
 * temporarily could occasionally see the same missed overflow signals"):
 * arm64 throws away a pending overflow at DISABLE; on the sigtrap path a
 * racing sched-out ate pending_disable (fixed by ca6c21327c6a, 6.1-rc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pms-counter.h"
#include "pms-counting.h"
#include "pms-cpus.h"
#include "rules.h"
#include "pms-oracle.h"
#include "pms-perf.h"
#include "pms-supervise.h"
#include "pms-util.h"
#include "scenarios.h"

#define NS_PER_S 1000000000ull

enum ds_toggler { DS_THREAD, DS_SELF, DS_HANDLER };
enum ds_mover { DS_MOVER_NONE, DS_MOVER_HWLOC, DS_MOVER_TASKSET };
enum ds_sem_choice { DS_SEM_AUTO, DS_SEM_KEEPS, DS_SEM_RESTARTS };

static const char *const togglers[] = { "thread", "self", "handler", NULL };
static const char *const mover_kinds[] = { "none", "hwloc", "taskset", NULL };
static const char *const patterns[] = { "ping-pong", "round-robin", "random", NULL };
static const char *const sem_choices[] = { "auto", "keeps", "restarts", NULL };

static const struct pms_opt_desc ds_opts[] = {
	{ .name = "toggler", .type = PMS_OPT_CHOICE, .def = "thread", .choices = togglers,
	  .arg = "thread|self|handler",
	  .help = "who toggles: another thread, the counting thread between units of work, "
		  "or the overflow signal handler (as some profilers do)" },
	{ .name = "toggle-interval", .type = PMS_OPT_INTERVAL, .def = "0", .min = 0,
	  .max = 10 * NS_PER_S, .arg = "TIME",
	  .help = "pause between toggles (0: as fast as possible; bare number in us)" },
	{ .name = "max-toggles", .type = PMS_OPT_U64, .def = "1000000", .min = 1,
	  .max = 1ull << 28, .arg = "N",
	  .help = "toggles logged (32 bytes each, prefaulted); the storm stops when full" },
	{ .name = "enable-semantics", .type = PMS_OPT_CHOICE, .def = "auto",
	  .choices = sem_choices, .arg = "auto|keeps|restarts",
	  .help = "what ENABLE does to the remaining period (auto: measure it where the "
		  "counter counts units of work, else hardware keeps it)" },
	{ .name = "mover", .type = PMS_OPT_CHOICE, .def = "none", .choices = mover_kinds,
	  .arg = "none|hwloc|taskset", .help = "also move the counting thread between CPUs" },
	{ .name = "cpus", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "CPUs the mover uses (default: two CPUs of the same CPU kind)" },
	{ .name = "pattern", .type = PMS_OPT_CHOICE, .def = "ping-pong", .choices = patterns,
	  .arg = "ping-pong|round-robin|random", .help = "order of the moves" },
	{ .name = "move-interval", .type = PMS_OPT_INTERVAL, .def = "0", .min = 0,
	  .max = 10 * NS_PER_S, .arg = "TIME",
	  .help = "pause between moves (0: as fast as possible; bare number in us)" },
	{ .name = "seed", .type = PMS_OPT_U64, .def = "1", .min = 0, .max = 0xffffffffu,
	  .arg = "N", .help = "random seed for --pattern random" },
	{ .name = "inject-drop-every", .type = PMS_OPT_U64, .min = 2, .max = 1ull << 40,
	  .arg = "N", .help = "TESTING: ignore every Nth signal, as a kernel that lost it would" },
	{ .name = "inject-stop-after", .type = PMS_OPT_U64, .min = 1, .max = 1ull << 40,
	  .arg = "N", .help = "TESTING: ignore every signal after the Nth (proves the watchdog)" },
};

struct ds_state {
	struct pms_counter c;
	struct pms_recorder rec;
	struct pms_toggle_log log;
	struct pms_mover mover;
	enum ds_toggler toggler;
	uint64_t interval_ns;
	bool use_mover;
	hwloc_bitmap_t cpus;
	char cpus_why[256];
	int signo;

	/* what ENABLE does to the period, and where that came from */
	struct pms_enable_probe probe;
	bool probe_applies;
	enum pms_enable_sem enable_sem;
	enum pms_semantics applied;
	char sem_source[256];

	pthread_t toggler_thread;
	bool toggler_started, recorder_ready;
	sem_t counting;
	int toggler_stop;
	uint64_t last_handler_toggle, self_next;
	struct pms_workload work;
	uint64_t toggle_start_ns, toggle_end_ns;
	struct pms_counting k;		/* the counting thread and what it measured */
};

/* In the overflow handler, after the recorder read the value. */
static void handler_toggle(void *arg, const siginfo_t *si)
{
	struct ds_state *st = arg;

	if (st->interval_ns) {
		struct timespec ts;
		uint64_t now;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
		if (now - st->last_handler_toggle < st->interval_ns)
			return;
		st->last_handler_toggle = now;
	}
	pms_toggle_once(st->k.fd, &st->log);
}

/* The counting thread's hooks: the toggler starts once the counter runs from 0. */
static void counting_enabled(void *arg)
{
	struct ds_state *st = arg;

	sem_post(&st->counting);
}

/* --toggler self: the counting thread toggles between workload steps. */
static void counting_step(void *arg)
{
	struct ds_state *st = arg;

	if (st->toggler != DS_SELF)
		return;
	if (st->interval_ns) {
		uint64_t now = pms_now_ns();

		if (now < st->self_next)
			return;
		st->self_next = now + st->interval_ns;
	}
	pms_toggle_once(st->k.fd, &st->log);
}

/* No toggle (from the handler either) may switch it back on. */
static void counting_disabling(void *arg)
{
	struct ds_state *st = arg;

	__atomic_store_n(&st->log.stopped, 1, __ATOMIC_RELEASE);
}

static void *toggler_main(void *arg)
{
	struct ds_state *st = arg;

	pthread_setname_np(pthread_self(), "pms-toggle");
	while (sem_wait(&st->counting) && errno == EINTR)
		;
	while (!__atomic_load_n(&st->toggler_stop, __ATOMIC_RELAXED)) {
		if (pms_toggle_once(st->k.fd, &st->log) == -ENOSPC)
			break;
		if (st->interval_ns) {
			struct timespec ts = { (time_t)(st->interval_ns / NS_PER_S),
					       (long)(st->interval_ns % NS_PER_S) };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/*
 * Which semantics the oracle applies.  Hardware counters keep their
 * remaining period (the PMU counter is simply stopped and restarted);
 * counters that count units of work exactly are measured instead of
 * assumed, because breakpoints and software events share the software
 * period logic, whose behaviour at ENABLE is what is in question.
 */
static void choose_semantics(struct pms_run *run, struct ds_state *st)
{
	enum ds_sem_choice ch = (enum ds_sem_choice)pms_opt_u64(&run->opts, "enable-semantics");
	enum pms_semantics declared = st->c.ev.sem;
	int ret;

	st->applied = declared;
	st->probe_applies = st->c.ev.breakpoint ||
			    (declared == PMS_SEM_RESTART_ON_ENABLE &&
			     st->work.kind == PMS_WORKLOAD_PAGE_FAULTS);
	if (st->probe_applies) {
		ret = pms_enable_probe(&st->c, &st->work, SIGRTMIN + 5, &st->probe);
		st->enable_sem = ret ? PMS_ENABLE_UNKNOWN : st->probe.result;
	}
	if (ch == DS_SEM_KEEPS || ch == DS_SEM_RESTARTS) {
		st->enable_sem = ch == DS_SEM_KEEPS ? PMS_ENABLE_KEEPS : PMS_ENABLE_RESTARTS;
		snprintf(st->sem_source, sizeof(st->sem_source), "--enable-semantics %s",
			 sem_choices[ch]);
	} else if (st->probe_applies && st->enable_sem != PMS_ENABLE_UNKNOWN) {
		snprintf(st->sem_source, sizeof(st->sem_source), "measured on this kernel "
			 "(period %d, DISABLE/ENABLE at %d)", PMS_PROBE_PERIOD, PMS_PROBE_FIRST);
	} else if (declared == PMS_SEM_TIMER) {
		snprintf(st->sem_source, sizeof(st->sem_source), "timer event: not judged");
		return;
	} else if (declared == PMS_SEM_RESTART_ON_ENABLE) {
		st->enable_sem = PMS_ENABLE_RESTARTS;
		snprintf(st->sem_source, sizeof(st->sem_source), "%s: the event's declared "
			 "semantics", st->probe_applies ? "measurement inconclusive" :
			 "not measurable");
	} else {
		st->enable_sem = PMS_ENABLE_KEEPS;
		snprintf(st->sem_source, sizeof(st->sem_source), "%s: hardware counters keep "
			 "their remaining period", st->probe_applies ? "measurement inconclusive" :
			 "not measured");
	}
	if (declared == PMS_SEM_TIMER)
		return;
	if (st->enable_sem == PMS_ENABLE_RESTARTS)
		st->applied = PMS_SEM_RESTART_ON_ENABLE;
	else if (declared == PMS_SEM_RESTART_ON_ENABLE)
		st->applied = PMS_SEM_EXACT;
}

static enum pms_status ds_setup(struct pms_run *run)
{
	struct ds_state *st = calloc(1, sizeof(*st));
	const char *cpus = pms_opt_str(&run->opts, "cpus");
	enum ds_mover mk = (enum ds_mover)pms_opt_u64(&run->opts, "mover");
	enum pms_status s;
	char err[256];
	int ret;

	if (!st)
		return PMS_E_SETUP;
	run->priv = st;
	pms_counting_init(&st->k);
	sem_init(&st->counting, 0, 0);
	st->toggler = (enum ds_toggler)pms_opt_u64(&run->opts, "toggler");
	st->interval_ns = pms_opt_u64(&run->opts, "toggle-interval");
	st->use_mover = mk != DS_MOVER_NONE;
	st->cpus = hwloc_bitmap_alloc();

	if (cpus) {
		if (pms_cpus_parse(run->topo, cpus, st->cpus, err, sizeof(err))) {
			snprintf(run->reason, sizeof(run->reason), "%s", err);
			return PMS_E_CPUS;
		}
		if (st->use_mover && hwloc_bitmap_weight(st->cpus) < 2) {
			snprintf(run->reason, sizeof(run->reason), "bad CPU list '%s': the mover "
				 "needs at least two CPUs (or --mover none)", cpus);
			return PMS_E_CPUS;
		}
		snprintf(st->cpus_why, sizeof(st->cpus_why), "--cpus");
	} else if (pms_cpus_default_pair(run->topo, st->cpus, st->cpus_why,
					 sizeof(st->cpus_why))) {
		if (st->use_mover) {
			snprintf(run->reason, sizeof(run->reason), "the mover needs two CPUs "
				 "of one kind and this machine has fewer (%s); --mover none "
				 "runs without it",
				 st->cpus_why);
			return PMS_E_SKIP;
		}
		hwloc_bitmap_copy(st->cpus, hwloc_topology_get_allowed_cpuset(run->topo));
	}

	s = pms_counter_resolve(run, "cycles", 10000, 100, &st->c);
	if (s)
		return s;
	ret = pms_workload_init(&st->work, pms_workload_for(&st->c.ev));
	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot set up the workload: %s",
			 strerror(-ret));
		return PMS_E_SETUP;
	}
	choose_semantics(run, st);
	ret = pms_toggle_log_init(&st->log, pms_opt_u64(&run->opts, "max-toggles"));
	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot set up the toggle log: %s",
			 strerror(-ret));
		return PMS_E_SETUP;
	}

	st->signo = SIGRTMIN + 4;
	s = pms_run_recorder(run, &st->rec, st->signo);
	if (s)
		return s;
	st->recorder_ready = true;
	if (st->toggler == DS_HANDLER) {
		st->rec.hook = handler_toggle;
		st->rec.hook_arg = st;
	}

	st->mover.topo = run->topo;
	st->mover.cpus = st->cpus;
	st->mover.kind = mk == DS_MOVER_TASKSET ? PMS_MOVER_TASKSET : PMS_MOVER_HWLOC;
	st->mover.pattern = (enum pms_move_pattern)pms_opt_u64(&run->opts, "pattern");
	st->mover.interval_ns = pms_opt_u64(&run->opts, "move-interval");
	st->mover.seed = (unsigned int)pms_opt_u64(&run->opts, "seed");
	st->mover.log_cap = 1u << 20;

	st->k.c = &st->c;
	st->k.work = &st->work;
	st->k.signo = st->signo;
	st->k.enabled = counting_enabled;
	st->k.step = counting_step;
	st->k.disabling = counting_disabling;
	st->k.arg = st;
	s = pms_counting_start(&st->k, run->reason, sizeof(run->reason));
	if (s)
		return s;
	if (st->toggler == DS_THREAD) {
		ret = pthread_create(&st->toggler_thread, NULL, toggler_main, st);
		if (ret) {
			snprintf(run->reason, sizeof(run->reason), "cannot start the toggler: %s",
				 strerror(ret));
			return PMS_E_SETUP;
		}
		st->toggler_started = true;
	}
	return PMS_OK;
}

static void stop_toggler(struct ds_state *st)
{
	if (!st->toggler_started)
		return;
	__atomic_store_n(&st->toggler_stop, 1, __ATOMIC_RELEASE);
	/* If counting never started, the toggler still waits for it. */
	sem_post(&st->counting);
	pthread_join(st->toggler_thread, NULL);
	st->toggler_started = false;
}

/*
 * Each anomaly next to the toggles around it, on the one clock both were
 * stamped with; the move before it goes into the anomaly itself, as in
 * lost-overflow.  Returns the toggle list for the disable_storm section.
 */
static json_object *annotate_anomalies(const struct ds_state *st, json_object *oracle,
				       uint64_t nt)
{
	json_object *anom, *list, *out = json_object_new_array();
	size_t i;

	if (!json_object_object_get_ex(oracle, "anomalies", &anom) ||
	    !json_object_object_get_ex(anom, "list", &list))
		return out;
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i), *t, *n, *o;
		const struct pms_rebind *rb = NULL;
		uint64_t time_ns;
		long k;

		if (!json_object_object_get_ex(a, "time_ns", &t) ||
		    !json_object_object_get_ex(a, "signal", &n))
			continue;
		time_ns = json_object_get_uint64(t);
		k = pms_toggle_last_before(st->log.t, nt, time_ns);
		o = json_object_new_object();
		json_object_object_add(o, "signal",
				       json_object_new_uint64(json_object_get_uint64(n)));
		json_object_object_add(o, "time_ns", json_object_new_uint64(time_ns));
		json_object_object_add(o, "toggle_before", k >= 0 ?
				       json_object_new_int64(k + 1) : NULL);
		json_object_object_add(o, "since_toggle_ns", k >= 0 ?
				       json_object_new_uint64(time_ns - st->log.t[k].disable_ns) :
				       NULL);
		json_object_object_add(o, "toggle_value", k >= 0 && st->log.t[k].value_valid ?
				       json_object_new_uint64(st->log.t[k].value) : NULL);
		json_object_object_add(o, "next_toggle_in_ns", (uint64_t)(k + 1) < nt ?
				       json_object_new_uint64(st->log.t[k + 1].disable_ns -
							      time_ns) : NULL);
		json_object_array_add(out, o);
		if (st->use_mover)
			rb = pms_mover_last_before(&st->mover, time_ns);
		json_object_object_add(a, "since_rebind_ns",
				       rb ? json_object_new_uint64(time_ns - rb->time_ns) : NULL);
		json_object_object_add(a, "rebind_cpu", rb ? json_object_new_int(rb->cpu) : NULL);
	}
	return out;
}

/*
 * lost-overflow checks a breakpoint's final count against the workload's
 * calls; here the calls made while the event was off are not counted, so
 * that check cannot apply: the fraction counted goes in disable_storm.
 */
static json_object *count_check(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "applies", json_object_new_boolean(false));
	return o;
}

static json_object *affinity_json(const struct ds_state *st)
{
	json_object *o = json_object_new_object();
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	char a[1024], b[1024];
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
	return o;
}

/*
 * Toggles per second while the storm ran: from the first DISABLE to the
 * last ENABLE, so that a storm cut short by a full log is not diluted.
 */
static double toggle_rate(const struct ds_state *st, uint64_t nt)
{
	double secs;

	if (nt < 2)
		return 0;
	secs = (double)(st->log.t[nt - 1].enable_ns - st->log.t[0].disable_ns) / 1e9;
	return secs > 0 ? (double)nt / secs : 0;
}

static json_object *storm_json(const struct ds_state *st, uint64_t nt, long nr_restarts,
			       json_object *near)
{
	json_object *o = json_object_new_object(), *e = json_object_new_object();

	json_object_object_add(o, "toggler", json_object_new_string(togglers[st->toggler]));
	json_object_object_add(o, "interval_ns", json_object_new_uint64(st->interval_ns));
	json_object_object_add(o, "toggles", json_object_new_uint64(nt));
	json_object_object_add(o, "toggles_failed", json_object_new_uint64(st->log.failed));
	json_object_object_add(o, "log_capacity", json_object_new_uint64(st->log.cap));
	json_object_object_add(o, "log_full", json_object_new_uint64(st->log.full));
	json_object_object_add(o, "seconds",
			       json_object_new_double((double)(st->k.end_ns - st->k.start_ns) / 1e9));
	json_object_object_add(o, "storm_seconds", nt ? json_object_new_double(
		(double)(st->log.t[nt - 1].enable_ns - st->log.t[0].disable_ns) / 1e9) : NULL);
	json_object_object_add(o, "toggles_per_second",
			       json_object_new_double(toggle_rate(st, nt)));
	json_object_object_add(o, "first_toggle_ns", nt ?
			       json_object_new_uint64(st->log.t[0].disable_ns) : NULL);
	json_object_object_add(o, "last_toggle_ns", nt ?
			       json_object_new_uint64(st->log.t[nt - 1].enable_ns) : NULL);
	/* How much of the work the storm let the counter see. */
	json_object_object_add(o, "counted_fraction", st->c.ev.breakpoint && st->k.final_valid &&
			       st->work.iterations ? json_object_new_double(
				       (double)st->k.final_value / (double)st->work.iterations) :
			       NULL);
	json_object_object_add(o, "restarts_to_oracle", nr_restarts >= 0 ?
			       json_object_new_int64(nr_restarts) : NULL);

	json_object_object_add(e, "declared",
			       json_object_new_string(pms_semantics_name(st->c.ev.sem)));
	json_object_object_add(e, "enable", json_object_new_string(
		pms_enable_sem_name(st->enable_sem)));
	json_object_object_add(e, "applied",
			       json_object_new_string(pms_semantics_name(st->applied)));
	json_object_object_add(e, "source", json_object_new_string(st->sem_source));
	json_object_object_add(e, "probe", pms_enable_probe_to_json(&st->probe, st->probe_applies));
	json_object_object_add(o, "enable_semantics", e);
	json_object_object_add(o, "anomaly_toggles", near);
	return o;
}

static void ds_progress(void *arg, char *buf, size_t len, uint64_t seen)
{
	const struct ds_state *st = arg;

	snprintf(buf, len, "  toggles %llu",
		 (unsigned long long)__atomic_load_n(&st->log.n, __ATOMIC_RELAXED));
}

static void ds_run(struct pms_run *run)
{
	struct ds_state *st = run->priv;
	struct pms_supervisor sup = {
		.rec = &st->rec, .fd = st->k.fd, .period = st->c.period,
		.progress = ds_progress, .arg = st,
	};
	uint64_t nt;
	struct pms_oracle_cfg cfg = { 0 };
	struct pms_oracle_result res = { 0 };
	char oracle_reason[480];
	uint64_t *restarts = NULL;
	long nr_restarts = -1;
	size_t len;
	json_object *o, *near;
	int ret;

	pms_counting_go(&st->k);
	st->mover.target = st->k.tid;
	sup.mover = st->use_mover ? &st->mover : NULL;
	/* A storm that silences the counter is the bug, not a hang: the watchdog. */
	pms_supervise(run, &sup);
	stop_toggler(st);
	pms_counting_stop(&st->k);
	nt = __atomic_load_n(&st->log.n, __ATOMIC_ACQUIRE);

	cfg.period = st->c.period;
	cfg.tolerance = st->c.tolerance;
	cfg.sem = st->applied;
	cfg.final_valid = st->k.final_valid && !st->rec.dropped;
	cfg.final_value = st->k.final_value;
	cfg.max_anomalies = pms_opt_u64(&run->opts, "max-anomalies");
	if (cfg.sem == PMS_SEM_RESTART_ON_ENABLE) {
		restarts = malloc((nt ? nt : 1) * sizeof(*restarts));
		if (!restarts) {
			run->verdict = PMS_VERDICT_ERROR;
			snprintf(run->reason, sizeof(run->reason), "out of memory for restarts");
			return;
		}
		nr_restarts = pms_toggle_restarts(st->log.t, nt, restarts);
		cfg.restarts = restarts;
		cfg.nr_restarts = nr_restarts > 0 ? (size_t)nr_restarts : 0;
	}
	ret = nr_restarts == -EINVAL ? -EINVAL :
	      pms_oracle_classify(&cfg, st->rec.sig, st->rec.n < st->rec.cap ? st->rec.n :
				  st->rec.cap, &res);
	if (ret) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "oracle failed: %s", strerror(-ret));
		free(restarts);
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
	json_object_object_add(o, "count_check", count_check());
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
	json_object_object_add(run->result, "affinity", affinity_json(st));
	json_object_object_add(run->result, "recorder", pms_recorder_to_json(&st->rec));

	o = pms_oracle_to_json(&cfg, &res);
	near = annotate_anomalies(st, o, nt);
	json_object_object_add(run->result, "oracle", o);

	json_object_object_add(run->result, "watchdog", pms_watchdog_to_json(&sup.wd));
	json_object_object_add(run->result, "disable_storm", storm_json(st, nt, nr_restarts, near));

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
		snprintf(run->reason, sizeof(run->reason), "no overflow happened: the counter "
			 "reached %llu, below one period (%llu); run longer or lower --period",
			 (unsigned long long)st->k.final_value, (unsigned long long)st->c.period);
	} else if (!nt) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "no toggle happened: the storm did "
			 "not run (%s toggler), so nothing was tested", togglers[st->toggler]);
	} else {
		run->verdict = PMS_VERDICT_PASS;
		snprintf(run->reason, sizeof(run->reason), "%s", oracle_reason);
	}
	len = strlen(run->reason);
	snprintf(run->reason + len, sizeof(run->reason) - len, "; %llu signals for %llu "
		 "overflows implied; %llu DISABLE/ENABLE toggles (%.0f/s, %s toggler, %s "
		 "semantics: ENABLE %s, %s)", (unsigned long long)res.signals,
		 (unsigned long long)res.overflows_implied, (unsigned long long)nt,
		 toggle_rate(st, nt), togglers[st->toggler], pms_semantics_name(st->applied),
		 pms_enable_sem_name(st->enable_sem), st->sem_source);
	if (res.nr_anomalies) {
		const struct pms_anomaly *a = &res.anomalies[0];
		long k = pms_toggle_last_before(st->log.t, nt, a->time_ns);

		len = strlen(run->reason);
		if (k >= 0)
			snprintf(run->reason + len, sizeof(run->reason) - len, "; first anomaly: "
				 "signal #%llu (%s) %.1f us after toggle #%ld",
				 (unsigned long long)a->signal, pms_class_name(a->cls),
				 (double)(a->time_ns - st->log.t[k].disable_ns) / 1e3, k + 1);
	}
	if (st->log.full) {
		len = strlen(run->reason);
		snprintf(run->reason + len, sizeof(run->reason) - len, "; the toggle log filled "
			 "up: the storm stopped after %.2f s of %.2f (raise --max-toggles)",
			 (double)(st->log.t[nt - 1].enable_ns - st->log.t[0].disable_ns) / 1e9,
			 (double)(st->k.end_ns - st->k.start_ns) / 1e9);
	}
	if (sup.full || st->rec.dropped) {
		len = strlen(run->reason);
		snprintf(run->reason + len, sizeof(run->reason) - len,
			 "; signal storage full after %llu signals (%llu dropped): "
			 "the final count was not used",
			 (unsigned long long)st->rec.n, (unsigned long long)st->rec.dropped);
	}
	if (st->rec.injected)
		pms_run_append_reason(run, "FAULT INJECTION: %llu signals were ignored on purpose "
				      "(--inject-*), this run does not describe the kernel",
				      (unsigned long long)st->rec.injected);
	free(restarts);
	pms_oracle_result_free(&res);
}

static void ds_teardown(struct pms_run *run)
{
	struct ds_state *st = run->priv;

	if (!st)
		return;
	pms_mover_stop(&st->mover);
	stop_toggler(st);
	pms_counting_fini(&st->k);
	if (st->recorder_ready)
		pms_recorder_fini(&st->rec);
	pms_toggle_log_fini(&st->log);
	pms_mover_free(&st->mover);
	hwloc_bitmap_free(st->cpus);
	pms_workload_fini(&st->work);
	sem_destroy(&st->counting);
	free(st);
	run->priv = NULL;
}

const struct pms_scenario pms_scenario_disable_storm = {
	.name = "disable-storm",
	.summary = "every overflow gives one signal while the event is DISABLEd and ENABLEd "
		   "as fast as possible",
	.seed = "LKML armv8pmu thread (pending overflow thrown away at PERF_EVENT_IOC_DISABLE); "
		"sigtrap pending_disable race fixed by ca6c21327c6a (6.1-rc)",
	.needs = "a hardware PMU (else the breakpoint substitute); two CPUs for --mover",
	.opts = ds_opts,
	.nr_opts = PMS_ARRAY_SIZE(ds_opts),
	.setup = ds_setup,
	.run = ds_run,
	.teardown = ds_teardown,
};
