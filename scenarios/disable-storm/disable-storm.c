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

#include "pms-sigrun.h"
#include "rules.h"
#include "pms-util.h"
#include "scenarios.h"

enum ds_toggler { DS_THREAD, DS_SELF, DS_HANDLER };

/* Fewer overflows than this in the storm: the run says it tested little. */
#define DS_STORM_FEW	100
enum ds_mover { DS_MOVER_NONE, DS_MOVER_HWLOC, DS_MOVER_TASKSET };
enum ds_sem_choice { DS_SEM_AUTO, DS_SEM_KEEPS, DS_SEM_RESTARTS };

static const char *const togglers[] = { "thread", "self", "handler", NULL };
static const char *const mover_kinds[] = { "none", "hwloc", "taskset", NULL };
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
	{ .name = "control", .type = PMS_OPT_DURATION, .def = "1s", .min = 0,
	  .max = 3600 * NS_PER_S, .arg = "TIME",
	  .help = "count this long without toggles first, as the base rate the storm is "
		  "measured against (at most a quarter of --duration; 0: none)" },
	{ .name = "mover", .type = PMS_OPT_CHOICE, .def = "none", .choices = mover_kinds,
	  .arg = "none|hwloc|taskset", .help = "also move the counting thread between CPUs" },
	{ .name = "cpus", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "CPUs the mover uses (default: two CPUs of the same CPU kind)" },
	PMS_MOVER_OPTS,
	PMS_EVIDENCE_OPTS,
	PMS_INJECT_OPTS,
};

struct ds_state {
	struct pms_sigrun r;		/* counter, recorder, mover, counting thread */
	struct pms_toggle_log log;
	enum ds_toggler toggler;
	uint64_t interval_ns;

	/* what ENABLE does to the period, and where that came from */
	struct pms_enable_probe probe;
	bool probe_applies;
	enum pms_enable_sem enable_sem;
	enum pms_semantics applied;
	char sem_source[256];

	pthread_t toggler_thread;
	bool toggler_started;
	sem_t counting;
	int toggler_stop;
	uint64_t last_handler_toggle, self_next;
	uint64_t toggle_start_ns, toggle_end_ns;
	uint64_t control_ns;		/* the control part's length */
	uint64_t storm_at;		/* CLOCK_MONOTONIC: no toggle before it */
};

/* Whether the control part is over (any toggler, the handler included). */
static bool storm_on(const struct ds_state *st)
{
	return pms_now_ns() >= __atomic_load_n(&st->storm_at, __ATOMIC_ACQUIRE);
}

/* In the overflow handler, after the recorder read the value. */
static void handler_toggle(void *arg, const siginfo_t *si)
{
	struct ds_state *st = arg;

	if (!storm_on(st))
		return;
	if (st->interval_ns) {
		uint64_t now = pms_now_ns();

		if (now - st->last_handler_toggle < st->interval_ns)
			return;
		st->last_handler_toggle = now;
	}
	pms_toggle_once(st->r.k.fd, &st->log);
}

/* The counting thread's hooks: the toggler starts once the counter runs from 0. */
static void counting_enabled(void *arg)
{
	struct ds_state *st = arg;

	__atomic_store_n(&st->storm_at, pms_now_ns() + st->control_ns, __ATOMIC_RELEASE);
	sem_post(&st->counting);
}

/* --toggler self: the counting thread toggles between workload steps. */
static void counting_step(void *arg)
{
	struct ds_state *st = arg;

	if (st->toggler != DS_SELF || !storm_on(st))
		return;
	if (st->interval_ns) {
		uint64_t now = pms_now_ns();

		if (now < st->self_next)
			return;
		st->self_next = now + st->interval_ns;
	}
	pms_toggle_once(st->r.k.fd, &st->log);
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
	/* The control part: no toggle, in naps short enough to stop on time. */
	while (!__atomic_load_n(&st->toggler_stop, __ATOMIC_RELAXED) && !storm_on(st)) {
		uint64_t left = __atomic_load_n(&st->storm_at, __ATOMIC_ACQUIRE) - pms_now_ns();
		struct timespec ts = { 0, (long)(left < 10 * NS_PER_MS ? left : 10 * NS_PER_MS) };

		nanosleep(&ts, NULL);
	}
	while (!__atomic_load_n(&st->toggler_stop, __ATOMIC_RELAXED)) {
		if (pms_toggle_once(st->r.k.fd, &st->log) == -ENOSPC)
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
	enum pms_semantics declared = st->r.c.ev.sem;
	int ret;

	st->applied = declared;
	st->probe_applies = st->r.c.ev.breakpoint ||
			    (declared == PMS_SEM_RESTART_ON_ENABLE &&
			     st->r.work.kind == PMS_WORKLOAD_PAGE_FAULTS);
	if (st->probe_applies) {
		/* its own signal: not the recorder's */
		ret = pms_enable_probe(&st->r.c, &st->r.work, PMS_OVERFLOW_SIGNO + 1, &st->probe);
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
	struct ds_state *st = run->priv;
	enum ds_mover mk = (enum ds_mover)pms_opt_u64(&run->opts, "mover");
	enum pms_status s;
	int ret;

	pms_sigrun_init(&st->r);
	sem_init(&st->counting, 0, 0);
	st->toggler = (enum ds_toggler)pms_opt_u64(&run->opts, "toggler");
	st->interval_ns = pms_opt_u64(&run->opts, "toggle-interval");
	st->r.preferred = "cycles";
	st->r.hw_period = 10000;
	st->r.bp_period = 100;
	st->r.use_mover = mk != DS_MOVER_NONE;
	st->r.mover_kind = mk == DS_MOVER_TASKSET ? PMS_MOVER_TASKSET : PMS_MOVER_HWLOC;
	st->r.no_mover_hint = "--mover none";
	st->r.stressor = PMS_CAUSE_IOCTL_DISABLE;
	st->r.stressor_words = "the DISABLE/ENABLE storm";
	/* A quarter of the run at most: the storm is what is under test. */
	st->control_ns = pms_opt_u64(&run->opts, "control");
	if (st->control_ns > pms_opt_u64(&run->opts, "duration") / 4)
		st->control_ns = pms_opt_u64(&run->opts, "duration") / 4;
	st->storm_at = UINT64_MAX;	/* until counting starts */
	s = pms_sigrun_setup(run, &st->r);
	if (s)
		return s;
	choose_semantics(run, st);
	ret = pms_toggle_log_init(&st->log, pms_opt_u64(&run->opts, "max-toggles"));
	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot set up the toggle log: %s",
			 strerror(-ret));
		return PMS_E_SETUP;
	}
	if (st->toggler == DS_HANDLER) {
		st->r.rec.hook = handler_toggle;
		st->r.rec.hook_arg = st;
	}
	st->r.k.enabled = counting_enabled;
	st->r.k.step = counting_step;
	st->r.k.disabling = counting_disabling;
	st->r.k.arg = st;
	s = pms_sigrun_start(run, &st->r);
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
 * stamped with (the move before it is already in the anomaly itself).
 * Returns the toggle list for the disable_storm section.
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
	}
	return out;
}

/* The control part against the storm (rules.c says how). */
static void split_control(struct ds_state *st, const struct pms_oracle_cfg *cfg,
			  const struct pms_oracle_result *res, uint64_t nt)
{
	struct pms_stressor_control *c = &st->r.control;

	memset(c, 0, sizeof(*c));
	if (!st->control_ns || !nt || !st->log.t[0].value_valid || !cfg->final_valid ||
	    cfg->sem == PMS_SEM_TIMER)
		return;
	pms_control_split(st->r.rec.sig, pms_sigrun_nsignals(&st->r), &st->log.t[0], cfg->base,
			  cfg->period, res->lost, res->overflows_implied, c);
	c->seconds = (double)(st->log.t[0].disable_ns - st->r.k.start_ns) / 1e9;
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
			       json_object_new_double((double)(st->r.k.end_ns - st->r.k.start_ns) / 1e9));
	json_object_object_add(o, "storm_seconds", nt ? json_object_new_double(
		(double)(st->log.t[nt - 1].enable_ns - st->log.t[0].disable_ns) / 1e9) : NULL);
	json_object_object_add(o, "toggles_per_second",
			       json_object_new_double(toggle_rate(st, nt)));
	json_object_object_add(o, "first_toggle_ns", nt ?
			       json_object_new_uint64(st->log.t[0].disable_ns) : NULL);
	json_object_object_add(o, "last_toggle_ns", nt ?
			       json_object_new_uint64(st->log.t[nt - 1].enable_ns) : NULL);
	/* How much of the work the storm let the counter see. */
	json_object_object_add(o, "counted_fraction", st->r.c.ev.breakpoint && st->r.k.final_valid &&
			       st->r.work.iterations ? json_object_new_double(
				       (double)st->r.k.final_value / (double)st->r.work.iterations) :
			       NULL);
	json_object_object_add(o, "restarts_to_oracle", nr_restarts >= 0 ?
			       json_object_new_int64(nr_restarts) : NULL);

	json_object_object_add(e, "declared",
			       json_object_new_string(pms_semantics_name(st->r.c.ev.sem)));
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

static json_object *control_json(const struct ds_state *st)
{
	json_object *o = pms_stressor_control_json(&st->r.control);

	json_object_object_add(o, "requested_seconds",
			       json_object_new_double((double)st->control_ns / 1e9));
	json_object_object_add(o, "rule", json_object_new_string(
		"the counter runs without toggles for the control's length, then the storm "
		"starts; the control's overflows are its first DISABLE's read over the period, "
		"one still in flight at that DISABLE left to the storm, its losses those "
		"overflows less the signals before that DISABLE; the storm stands as the "
		"cause when its loss rate is at least lift_min times the control's (one "
		"pseudo-loss if it lost none) and Fisher's exact test gives p below 0.01"));
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
	struct pms_sigrun *r = &st->r;
	uint64_t nt;
	struct pms_oracle_cfg cfg;
	struct pms_oracle_result res = { 0 };
	uint64_t *restarts = NULL;
	long nr_restarts = -1;
	char idle[256];
	struct pms_evidence *toggles;
	uint8_t *cls;
	uint64_t i;
	json_object *o, *near;
	int ret;

	/* A storm that silences the counter is the bug, not a hang: the watchdog. */
	pms_sigrun_supervise(run, r, ds_progress, st);
	stop_toggler(st);
	pms_sigrun_stop(r);
	nt = __atomic_load_n(&st->log.n, __ATOMIC_ACQUIRE);

	pms_sigrun_oracle_cfg(run, r, st->applied, &cfg);
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
	cls = malloc(pms_sigrun_nsignals(r) + 1);
	cfg.classes = cls;
	ret = nr_restarts == -EINVAL ? -EINVAL : !cls ? -ENOMEM :
	      pms_oracle_classify(&cfg, r->rec.sig, pms_sigrun_nsignals(r), &res);
	if (ret) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "oracle failed: %s", strerror(-ret));
		free(restarts);
		free(cls);
		return;
	}

	o = pms_sigrun_report(run, r, count_check(), &cfg, &res);
	near = annotate_anomalies(st, o, nt);
	json_object_object_add(run->result, "disable_storm", storm_json(st, nt, nr_restarts, near));

	snprintf(idle, sizeof(idle), "no toggle happened: the storm did not run (%s toggler), "
		 "so nothing was tested", togglers[st->toggler]);
	pms_sigrun_verdict(run, r, &cfg, &res, nt ? NULL : idle);
	split_control(st, &cfg, &res, nt);
	/* Each DISABLE is evidence: the seed's schedule-out path by ioctl. */
	toggles = calloc(nt ? nt : 1, sizeof(*toggles));
	for (i = 0; toggles && i < nt; i++)
		toggles[i] = (struct pms_evidence){ .time_ns = st->log.t[i].disable_ns,
			.cause = PMS_CAUSE_IOCTL_DISABLE, .a = (int32_t)(i + 1), .b = -1 };
	/* It also judges the control against the storm. */
	pms_sigrun_attribute(run, r, &res, cls, toggles, toggles ? nt : 0, o);
	free(toggles);
	json_object_object_add(json_object_object_get(run->result, "disable_storm"), "control",
			       control_json(st));
	free(cls);
	pms_run_append_reason(run, "%llu signals for %llu overflows implied; %llu "
			      "DISABLE/ENABLE toggles (%.0f/s, %s toggler, %s semantics: "
			      "ENABLE %s, %s)", (unsigned long long)res.signals,
			      (unsigned long long)res.overflows_implied, (unsigned long long)nt,
			      toggle_rate(st, nt), togglers[st->toggler],
			      pms_semantics_name(st->applied), pms_enable_sem_name(st->enable_sem),
			      st->sem_source);
	if (res.nr_anomalies) {
		const struct pms_anomaly *a = &res.anomalies[0];
		long k = pms_toggle_last_before(st->log.t, nt, a->time_ns);

		if (k >= 0)
			pms_run_append_reason(run, "first anomaly: signal #%llu (%s) %.1f us "
					      "after toggle #%ld", (unsigned long long)a->signal,
					      pms_class_name(a->cls),
					      (double)(a->time_ns - st->log.t[k].disable_ns) / 1e3,
					      k + 1);
	}
	/* A storm that let the counter count little tested little. */
	if (r->control.valid && r->control.overflows_with < DS_STORM_FEW)
		pms_run_append_reason(run, "the storm covered only %llu overflow%s (the toggler "
				      "kept the counter off; --toggle-interval paces it): a pass "
				      "says little", (unsigned long long)r->control.overflows_with,
				      r->control.overflows_with == 1 ? "" : "s");
	if (st->log.full)
		pms_run_append_reason(run, "the toggle log filled up: the storm stopped after "
				      "%.2f s of %.2f (raise --max-toggles)",
				      (double)(st->log.t[nt - 1].enable_ns -
					       st->log.t[0].disable_ns) / 1e9,
				      (double)(st->r.k.end_ns - st->r.k.start_ns) / 1e9);
	pms_sigrun_caveats(run, r);
	free(restarts);
	pms_oracle_result_free(&res);
}

static void ds_teardown(struct pms_run *run)
{
	struct ds_state *st = run->priv;

	pms_mover_stop(&st->r.mover);
	stop_toggler(st);
	pms_sigrun_fini(&st->r);
	pms_toggle_log_fini(&st->log);
	sem_destroy(&st->counting);
}

const struct pms_scenario pms_scenario_disable_storm = {
	.name = "disable-storm",
	.summary = "every overflow gives one signal while the event is DISABLEd and ENABLEd "
		   "as fast as possible",
	.seed = "LKML armv8pmu thread (pending overflow thrown away at PERF_EVENT_IOC_DISABLE); "
		"sigtrap pending_disable race fixed by ca6c21327c6a (6.1-rc)",
	.needs = "a hardware PMU (else the breakpoint substitute); two CPUs for --mover",
	.priv_size = sizeof(struct ds_state),
	PMS_SCENARIO_OPTS(ds_opts),
	.setup = ds_setup,
	.run = ds_run,
	.teardown = ds_teardown,
};
