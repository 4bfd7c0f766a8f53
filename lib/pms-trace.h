/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scheduler trace of a run: why an overflow signal was lost or late.  While
 * the workload runs, a private ftrace instance records its threads'
 * migrations, switches and wakeups on CLOCK_MONOTONIC, the clock the signal
 * recorder stamps signals with, so the two time lines can be merged.
 *
 * One trace per process: the instance is named "pmustress-<pid>", which is
 * also what lets a later run find and remove the instance of a run that was
 * SIGKILLed (pms_trace_reap_stale()).
 */
#ifndef PMS_TRACE_H
#define PMS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <json-c/json.h>

struct tep_handle;
struct tep_record;
struct tracefs_instance;

/*
 * Do not expect a SWITCH_IN after every WAKEUP: some kernels never record
 * the switch out of a CPU's idle task (CPU 1 of a Firecracker 6.18 guest
 * did not), so the thread's next SWITCH_OUT may be the first sign it ran.
 */
enum pms_ev_kind {
	PMS_EV_MIGRATE,		/* sched:sched_migrate_task */
	PMS_EV_SWITCH_OUT,	/* sched:sched_switch, the thread is prev */
	PMS_EV_SWITCH_IN,	/* sched:sched_switch, the thread is next */
	PMS_EV_WAKEUP,		/* sched:sched_wakeup */
	PMS_EV_KIND_NR,
};

/* pms_sched_ev.state of the kinds that have none. */
#define PMS_EV_NO_STATE '-'

/* One event of one workload thread. */
struct pms_sched_ev {
	uint64_t time_ns;	/* CLOCK_MONOTONIC (trace_clock "mono") */
	int32_t cpu;		/* CPU the event was recorded on */
	int32_t tid;		/* the workload thread it concerns */
	int32_t from_cpu;	/* MIGRATE: orig_cpu; others -1 */
	int32_t to_cpu;		/* MIGRATE: dest_cpu; WAKEUP: target_cpu; others -1 */
	char state;		/* SWITCH_OUT: see pms_trace_state_char(); others '-' */
	uint8_t kind;		/* enum pms_ev_kind */
};

/* A sched_switch between two traced threads is both a SWITCH_OUT and a SWITCH_IN. */
#define PMS_TRACE_PARSE_MAX 2

struct pms_trace_cfg {
	const char *tracefs;	/* tracefs mount point; NULL: where it is mounted */
	unsigned int buffer_kb;	/* per-CPU ring buffer size, 0: the kernel's default */
	const pid_t *tids;	/* the workload's threads (>= 1) */
	size_t nr_tids;
};

/*
 * Zero it (or let pms_trace_start() do so) before anything else; the rest is
 * for this module, and results once pms_trace_stop()/pms_trace_collect() ran.
 */
struct pms_trace {
	struct tracefs_instance *inst;
	struct tep_handle *tep;		/* the sched formats, parsed at the first collect */
	char tracefs[256];
	char name[32];			/* "pmustress-<pid>" */
	pid_t *tids;
	size_t nr_tids;
	bool created;			/* the instance directory is ours to remove */
	bool running;			/* tracing_on is 1 */

	/* results */
	unsigned int buffer_kb;		/* per-CPU size in effect (CPU 0) */
	char clock[16];			/* trace_clock read back: "mono" */
	uint64_t overrun;		/* events overwritten, sum over CPUs (stats) */
	uint64_t dropped;		/* events dropped, sum over CPUs (stats) */
	uint64_t missed;		/* losses the reader saw: overruns again, or pages */
	bool stats_valid;		/* overrun and dropped could be read */
	uint64_t count[PMS_EV_KIND_NR];	/* events collected, per kind */
	uint64_t malformed;		/* records pms_trace_parse() refused */
};

/**
 * pms_trace_usable - whether a scheduler trace can be taken here.
 * @tracefs: the tracefs mount point, or NULL for wherever it is mounted
 * @why: one sentence saying why not (may be NULL)
 * @len: size of @why
 *
 * Checks privileges, the mount, kernel lockdown, PID namespace, the three
 * sched tracepoints and the "mono" trace clock; it changes nothing and
 * never mounts tracefs (pms_tracefs_acquire() does that for the caller).
 *
 * Return: true when pms_trace_start() can be expected to work.
 */
bool pms_trace_usable(const char *tracefs, char *why, size_t len);

/**
 * pms_trace_instance_is_stale - whether @name is the instance of a
 * pmustress run that is gone.
 * @name: an entry of <tracefs>/instances
 * @alive: nonzero when the pid exists; NULL: kill(pid, 0) succeeds or EPERM
 *
 * Only names that are exactly "pmustress-<pid>" (decimal, no sign, no
 * leading zero) are ours; anything else is never stale.
 */
bool pms_trace_instance_is_stale(const char *name, int (*alive)(pid_t pid));

/**
 * pms_trace_reap_stale - remove the instances of dead pmustress runs.
 * @tracefs: the tracefs mount point, or NULL for wherever it is mounted
 *
 * Return: how many were removed, or -errno when the instances cannot be
 * listed.  One that cannot be removed (EBUSY: a reader still has it open)
 * is left for a later run.
 */
int pms_trace_reap_stale(const char *tracefs);

/**
 * pms_trace_filter_string - the kernel filter that keeps @event's records of
 * @tids: "pid==A||pid==B" for sched_migrate_task and sched_wakeup,
 * "prev_pid==A||next_pid==A||..." for sched_switch.
 * @event: "sched_migrate_task", "sched_switch" or "sched_wakeup"
 * @tids: @nr_tids threads (>= 1)
 * @buf: the filter, NUL-terminated
 * @len: size of @buf
 *
 * Return: its length, -EINVAL for an unknown @event or no tids, -E2BIG
 * when it does not fit in @len.
 */
int pms_trace_filter_string(const char *event, const pid_t *tids, size_t nr_tids,
			    char *buf, size_t len);

/**
 * pms_trace_start - create the instance and start recording.
 * @t: zeroed here first, so pms_trace_destroy() is always safe afterwards
 * @cfg: where and what to trace; copied
 * @why: one sentence on failure (may be NULL)
 * @len: size of @why
 *
 * Creates <tracefs>/instances/pmustress-<getpid()>, sets its trace_clock
 * to "mono" and checks it took, sets the buffer size, filters the three
 * sched events on their own pid fields (not set_event_pid: a migration is
 * recorded by the stopper thread, not by the thread migrated), enables them
 * and turns tracing on.
 *
 * Return: 0; -ENOTSUP when the kernel has no "mono" trace clock, -E2BIG
 * when the tids do not fit in a filter, -EBUSY when this process already
 * has a trace, or another -errno.
 */
int pms_trace_start(struct pms_trace *t, const struct pms_trace_cfg *cfg, char *why, size_t len);

/**
 * pms_trace_stop - stop recording and read the per-CPU overrun and dropped
 * counts into @t.
 * @t: a started trace
 *
 * Return: 0, or -errno (the counts then stay invalid: stats_valid false).
 */
int pms_trace_stop(struct pms_trace *t);

/**
 * pms_trace_collect - parse what the instance recorded.
 * @t: a started (normally stopped) trace
 * @evs: a malloc'd array of the workload threads' events, by time
 * @n: its length
 *
 * Reading consumes the buffers: a second call returns only what was
 * recorded since.  Per-kind counts and malformed records add up in @t.
 *
 * Return: 0 (*@evs is NULL when *@n is 0), or -errno with *@evs NULL.
 */
/*
 * pms_trace_collect_each - the same read, each event handed to @each as it
 * is parsed and nothing kept: a streaming run reads every 100 ms and must
 * not grow a list with the load.  Return: 0 or -errno.
 */
int pms_trace_collect_each(struct pms_trace *t,
			   void (*each)(void *arg, const struct pms_sched_ev *ev), void *arg);

int pms_trace_collect(struct pms_trace *t, struct pms_sched_ev **evs, size_t *n);

/**
 * pms_trace_destroy - remove the instance, leaving <tracefs>/instances as
 * found.  Safe on a zeroed trace, after a failed start, and twice.  The
 * results (name, clock, counts) stay, for pms_trace_to_json() afterwards.
 * @t: the trace
 */
void pms_trace_destroy(struct pms_trace *t);

/**
 * pms_trace_emergency_cleanup - for a fatal-signal handler or atexit():
 * turn tracing off in this process's instance and remove it, with
 * async-signal-safe calls only.  Removal fails (EBUSY) when the signal
 * interrupted pms_trace_collect() with the buffers open; the next run's
 * pms_trace_reap_stale() removes it then.
 */
void pms_trace_emergency_cleanup(void);

/**
 * pms_trace_parse - turn one record into the events of the traced threads.
 * @tep: a handle with the sched events' formats
 * @rec: the record (data, size, ts, cpu)
 * @tids: @nr_tids threads
 * @out: room for PMS_TRACE_PARSE_MAX events
 *
 * Fields are found by name, so layout changes between kernels do not
 * matter as long as the names stay.
 *
 * Return: how many events were written to @out: 0 when the record is not
 * one of the three sched events or concerns none of @tids; -EINVAL for
 * missing arguments, -EBADMSG for a record shorter than its format, -EPROTO
 * for a format that lacks a field this needs.
 */
int pms_trace_parse(struct tep_handle *tep, struct tep_record *rec, const pid_t *tids,
		    size_t nr_tids, struct pms_sched_ev *out);

/**
 * pms_trace_state_char - sched_switch prev_state as one letter.
 * @prev_state: the raw field
 *
 * 'R' for 0 (TASK_RUNNING) and for the preemption marker (TASK_REPORT_MAX,
 * 0x100 since Linux 4.14, reported alone), 'S' when bit 0 is set, 'D' when
 * bit 1 is, '?' for anything else (stopped, dead, idle...).
 */
char pms_trace_state_char(long long prev_state);

/* Whether events may be missing: overruns, drops, missed pages, or unknown counts. */
bool pms_trace_incomplete(const struct pms_trace *t);

/**
 * pms_trace_to_json - the trace's counts for the result: instance, clock,
 * buffer_kb, events per kind, overrun, dropped, missed, malformed and
 * incomplete.
 * @t: the trace
 *
 * Return: a new object, or NULL with errno ENOMEM.
 */
json_object *pms_trace_to_json(const struct pms_trace *t);

/* "migrate", "switch_out", "switch_in", "wakeup"; "?" out of range. */
const char *pms_ev_kind_name(enum pms_ev_kind k);

#endif
