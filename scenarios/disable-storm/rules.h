/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_DISABLE_STORM_H
#define PMS_DISABLE_STORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "pms-attrib.h"
#include "pms-counter.h"
#include "pms-oracle.h"

/* One PERF_EVENT_IOC_DISABLE / PERF_EVENT_IOC_ENABLE pair. */
struct pms_toggle {
	uint64_t disable_ns;	/* CLOCK_MONOTONIC just before DISABLE */
	uint64_t enable_ns;	/* CLOCK_MONOTONIC just after ENABLE returned */
	uint64_t value;		/* counter read while disabled: where ENABLE resumed */
	int32_t err;		/* 0, or -errno of the first step that failed */
	int32_t value_valid;	/* the read between DISABLE and ENABLE worked */
};

/*
 * Preallocated, prefaulted log of toggles, written by one toggler at a time
 * (a thread, the counting thread or its signal handler), so that a toggle
 * can be done and logged from a signal handler.  A toggle that finds the log
 * full is not done at all, and counted in @full: an unlogged ENABLE would be
 * a restart the oracle cannot account for.
 */
struct pms_toggle_log {
	struct pms_toggle *t;
	size_t cap;
	uint64_t n;		/* logged; atomically incremented */
	uint64_t failed;	/* toggles with err != 0 */
	uint64_t full;		/* toggles not done for want of room */
	int stopped;		/* set before the final DISABLE: no toggle after it */
};

/**
 * pms_toggle_log_init - allocate and prefault room for @cap toggles.
 * Return: 0, -EINVAL (@cap 0) or -errno of mmap.
 */
int pms_toggle_log_init(struct pms_toggle_log *log, size_t cap);

/* Free the log; safe on a zeroed or already freed log. */
void pms_toggle_log_fini(struct pms_toggle_log *log);

/**
 * pms_toggle_once - DISABLE @fd, read it, ENABLE it, and log the pair with
 * its CLOCK_MONOTONIC times.  Async-signal-safe (syscalls and atomics only).
 * ENABLE is attempted whenever DISABLE was, so a failed read never leaves
 * the counter off.
 *
 * Return: 0; -ESHUTDOWN once @log->stopped is set; -ENOSPC when the log is
 * full (nothing done); -errno of the ioctl or read that failed (logged).
 */
int pms_toggle_once(int fd, struct pms_toggle_log *log);

/**
 * pms_toggle_last_before - the last toggle whose DISABLE came at or before
 * @time_ns in @t[0..n) (ordered by time, as one toggler logs them).
 * Return: its index, or -1 if there is none.
 */
long pms_toggle_last_before(const struct pms_toggle *t, size_t n, uint64_t time_ns);

/**
 * pms_toggle_restarts - the counter values at which ENABLE resumed counting,
 * for the oracle's restart segments: toggles that succeeded with a valid
 * read, in log order, into @out (room for @n).
 * Return: how many were written, or -EINVAL if they are not ascending
 * (a log the oracle cannot use).
 */
long pms_toggle_restarts(const struct pms_toggle *t, size_t n, uint64_t *out);

/* What PERF_EVENT_IOC_ENABLE does to the remaining period, as measured. */
enum pms_enable_sem {
	PMS_ENABLE_UNKNOWN,	/* not measured, or the experiment was inconclusive */
	PMS_ENABLE_KEEPS,	/* the remaining period survives DISABLE/ENABLE */
	PMS_ENABLE_RESTARTS,	/* ENABLE starts a fresh period */
};

const char *pms_enable_sem_name(enum pms_enable_sem s);

/* The probe's period and where it toggles and looks (see pms_enable_probe). */
#define PMS_PROBE_PERIOD	10
#define PMS_PROBE_FIRST		6	/* units before the toggle */
#define PMS_PROBE_SECOND	6	/* units after it: 12 crosses P only if kept */
#define PMS_PROBE_THIRD		4	/* 10 after the toggle: P if restarted */

/**
 * pms_enable_sem_decide - the verdict of the probe from the signals seen
 * after the second and third stretch: one then none is KEEPS (the overflow
 * came at 10 counts from the start), none then one is RESTARTS (at 10
 * counts from ENABLE), anything else (or counts that were not exactly the
 * units of work done) is UNKNOWN.
 */
enum pms_enable_sem pms_enable_sem_decide(uint64_t sigs_second, uint64_t sigs_third,
					  uint64_t count_second, uint64_t count_third);

struct pms_enable_probe {
	enum pms_enable_sem result;
	uint64_t sigs_second, sigs_third;	/* signals after each stretch */
	uint64_t count_second, count_third;	/* counter values then */
	int err;				/* -errno if the probe could not run */
};

/**
 * pms_enable_probe - find out by experiment what ENABLE does to the
 * remaining period of @c's event: open it on the calling thread with period
 * PMS_PROBE_PERIOD, do PMS_PROBE_FIRST units of @w, DISABLE/ENABLE, then
 * PMS_PROBE_SECOND and PMS_PROBE_THIRD units, counting overflow signals
 * (real-time signal @signo, blocked and collected with sigtimedwait()).
 * Only meaningful for counters that count units of work exactly
 * (breakpoints on the workload, fault events); the caller decides that.
 * The calling thread's signal mask and @signo's action are restored.
 *
 * Return: 0 (see @out->result) or -errno (also in @out->err).
 */
int pms_enable_probe(const struct pms_counter *c, struct pms_workload *w, int signo,
		     struct pms_enable_probe *out);

json_object *pms_enable_probe_to_json(const struct pms_enable_probe *p, bool applies);

/*
 * pms_control_split - the control part (before the first toggle @t0)
 * against the storm, from the counts: the signals stamped before @t0's
 * DISABLE against the overflows its read implies ((value - base) / period).
 * An overflow still in flight at that DISABLE (one more implied than
 * signalled) is left to the storm, which has to deliver it.  The storm's
 * losses are the run's (@lost of @implied, the oracle's) less the
 * control's.  Fills overflows, lost, overflows_with, lost_with and valid
 * of @c (valid false when the read is below @base or implies more than the
 * run did).
 */
void pms_control_split(const struct pms_signal *sig, size_t n, const struct pms_toggle *t0,
		       uint64_t base, uint64_t period, uint64_t lost, uint64_t implied,
		       struct pms_stressor_control *c);

#endif
