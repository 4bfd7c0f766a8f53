/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_STRESS_H
#define PMS_STRESS_H

#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <hwloc.h>
#include <json-c/json.h>

#include "pms-opt.h"
#include "pms-scenario.h"

/*
 * Schedule-out stressors: ways to take the counting thread's event off the
 * PMU without moving it.  The seed's `taskset -c -p` loop lost far more
 * overflows than a mover a hundred times faster, so its losses go with
 * something else it does to the thread: processes it starts run on the
 * thread's CPU and preempt it.  Each stressor here does one such thing,
 * alone or beside the mover:
 *
 *   preempt     busy threads (or processes) pinned to the workload's CPUs,
 *               all the time or in bursts at a rate: involuntary switches
 *   fork-churn  processes spawned and exec'd beside the workload at a rate,
 *               as the seed's loop did: wake-ups and preemption by new tasks
 *   yield       the workload itself calls sched_yield() every N steps
 *   sleep       the workload itself sleeps every N steps: voluntary switches
 *
 * Multiplexing rotation, the fifth path, is --competing-events.  What each
 * did, and the workload threads' context switches over the run, go to the
 * `stressors` section so that a result shows the stressor really scheduled
 * the workload out.
 */
extern const char *const pms_preempt_kinds[];	/* "thread", "process" */

#define PMS_STRESS_OPTS								\
	{ .name = "preempt", .type = PMS_OPT_U64, .def = "0", .min = 0, .max = 16,	\
	  .arg = "N",									\
	  .help = "N busy competitors pinned to each CPU the workload runs on, so the "	\
		  "scheduler preempts it there (0: off)" },				\
	{ .name = "preempt-by", .type = PMS_OPT_CHOICE, .def = "thread",		\
	  .choices = pms_preempt_kinds, .arg = "thread|process",			\
	  .help = "competitors are threads of this process, or processes (this binary "	\
		  "re-exec'd) like the seed's loop started" },				\
	{ .name = "preempt-rate", .type = PMS_OPT_U64, .def = "1000", .min = 0,		\
	  .max = 100000, .arg = "HZ",							\
	  .help = "competitors run in bursts this many times a second; each wake-up "	\
		  "preempts the workload (0: busy all the time, switched at the "	\
		  "scheduler's slice)" },						\
	{ .name = "preempt-burst", .type = PMS_OPT_INTERVAL, .def = "100us", .min = 1000,	\
	  .max = 1000000000ull, .arg = "TIME",						\
	  .help = "length of each burst with --preempt-rate (bare number in us)" },	\
	{ .name = "fork-churn", .type = PMS_OPT_U64, .def = "0", .min = 0,		\
	  .max = 100000, .arg = "HZ",							\
	  .help = "spawn and exec a no-op process (this binary) this many times a "	\
		  "second on the workload's CPUs, as the seed's loop did (0: off)" },	\
	{ .name = "yield-every", .type = PMS_OPT_U64, .def = "0", .min = 0,		\
	  .max = 1ull << 32, .arg = "N",						\
	  .help = "the workload calls sched_yield() every N steps (0: off)" },		\
	{ .name = "sleep-every", .type = PMS_OPT_U64, .def = "0", .min = 0,		\
	  .max = 1ull << 32, .arg = "N",						\
	  .help = "the workload sleeps for --sleep-for every N steps, a voluntary "	\
		  "switch and a wake-up (0: off)" },					\
	{ .name = "sleep-for", .type = PMS_OPT_INTERVAL, .def = "50us", .min = 1000,	\
	  .max = 1000000000ull, .arg = "TIME",						\
	  .help = "how long each --sleep-every sleep asks for (bare number in us)" }

/* argv[1] of this binary when it runs as a stressor's child (never shown). */
#define PMS_STRESS_CHILD_ARG "--pms-stress-child"

#define PMS_STRESS_MAX_CPUS	64
#define PMS_STRESS_MAX_COMP	(16 * PMS_STRESS_MAX_CPUS)
#define PMS_STRESS_MAX_WATCHED	64

/* One competitor of --preempt: a thread, or a process and its pid. */
struct pms_stress_comp {
	struct pms_stress *st;
	int cpu;
	pthread_t thread;
	bool started;
	pid_t pid;			/* process competitor, 0 once reaped */
	uint64_t bursts;		/* thread competitors only */
	uint64_t cpu_ns;		/* CPU time it got, at its end */
};

/* A workload thread's context switches: at its first step, and at stop. */
struct pms_stress_watch {
	pid_t tid;
	uint64_t vol0, invol0, vol1, invol1;
	bool valid;			/* both ends read */
};

struct pms_stress {
	/* configuration, from the options */
	uint64_t preempt;		/* competitors per CPU */
	bool preempt_process;
	uint64_t preempt_rate, preempt_burst_ns;
	uint64_t fork_hz;
	uint64_t yield_every, sleep_every, sleep_ns;
	bool self_on;			/* yield or sleep: pms_stress_step() has work */
	unsigned int gen;		/* this run, for the workload threads' own state */
	int cpu[PMS_STRESS_MAX_CPUS];	/* the workload's CPUs */
	int ncpus;
	hwloc_bitmap_t cpus;
	char exe[4096];			/* this binary, for the children */

	/* what happened */
	int stop;			/* atomic */
	pthread_mutex_t lock;		/* the stop condition; fork_child */
	pthread_cond_t cond;
	uint64_t start_ns, stop_ns;
	struct pms_stress_comp *comp;
	unsigned int ncomp, comp_started;
	uint64_t comp_failed;
	int comp_err;			/* first errno of a competitor that did not start */

	pthread_t fork_thread;
	bool fork_started;
	pid_t fork_child;		/* spawned, not yet reaped (under lock) */
	uint64_t spawned, exited_ok, spawn_failed, exit_failed, counter_fd_seen;
	uint64_t killed_at_stop;
	int exit_status;		/* wait status of the first child that failed */
	int spawn_err;			/* first posix_spawn() error */
	bool fork_abandoned;

	uint64_t yields, sleeps, slept_ns;	/* atomics: every workload thread adds */
	struct pms_stress_watch watch[PMS_STRESS_MAX_WATCHED];
	unsigned int nwatch;		/* atomic: slots taken */
	uint64_t watch_dropped;
	bool stopped, started;
	char error[256];		/* the first thing that did not start */
};

/* Before anything else; pms_stress_fini() may then always be called. */
void pms_stress_init(struct pms_stress *st);

/**
 * pms_stress_setup - read PMS_STRESS_OPTS from @run and keep @cpus, the CPUs
 * the workload runs on (where competitors and spawned children are pinned).
 * Return: PMS_OK; PMS_E_USAGE for settings that cannot go together (a
 * --preempt-* option without --preempt, a burst as long as its period,
 * --sleep-for without --sleep-every), PMS_E_SETUP when this binary cannot be
 * found again for the children; run->reason says which.
 */
enum pms_status pms_stress_setup(struct pms_run *run, struct pms_stress *st,
				 hwloc_const_bitmap_t cpus);

/**
 * pms_stress_start - start the competitors and the spawning thread.  A
 * competitor that does not start is counted and named, not fatal: the
 * section and pms_stress_idle() say so.
 * Return: PMS_OK, or PMS_E_SETUP with run->reason when nothing could start.
 */
enum pms_status pms_stress_start(struct pms_run *run, struct pms_stress *st);

/**
 * pms_stress_step - from every workload thread after each step: the yield
 * and sleep stressors, and (once per thread) the thread's switch counts at
 * its start.  Thread-safe; a load and a compare when off.
 */
void pms_stress_step(struct pms_stress *st);

/**
 * pms_stress_stop - stop every stressor, kill and reap every child, read the
 * workload threads' switch counts (call it while they still run).  Bounded
 * in time; safe to call twice, and before start.
 */
void pms_stress_stop(struct pms_stress *st);

/* The `stressors` section: settings, what each did, the workload's switches. */
json_object *pms_stress_to_json(const struct pms_stress *st);

/* Whether any stressor was asked for. */
bool pms_stress_any(const struct pms_stress *st);

/* NULL, or why a requested stressor did not run (the run is then an error). */
const char *pms_stress_idle(const struct pms_stress *st);

/* pms_stress_stop(), then free. */
void pms_stress_fini(struct pms_stress *st);

/**
 * pms_stress_child_main - what this binary does when started as a
 * stressor's child (argv[0] is PMS_STRESS_CHILD_ARG): "noop" exits at once,
 * 0 when it holds no perf_event file descriptor, 3 when it inherited one;
 * "spin CPU RATE BURST_NS PPID" is a --preempt-by process competitor.
 * Never returns: ends the process with _exit() and the exit status.
 */
__attribute__((noreturn)) int pms_stress_child_main(int argc, char **argv);

#endif
