/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_PERF_H
#define PMS_PERF_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "pms-event.h"
#include "pms-oracle.h"
#include <json-c/json.h>

/**
 * pms_perf_open - perf_event_open(2) without a glibc wrapper.
 * Return: fd, or -errno.
 */
int pms_perf_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd,
		  unsigned long flags);

/*
 * pms_perf_open_self - pms_perf_open() as every open here wants it: on the
 * calling thread, any CPU, close-on-exec; @group_fd -1 for none.
 * Return: fd, or -errno.
 */
int pms_perf_open_self(struct perf_event_attr *attr, int group_fd);

/*
 * pms_perf_attr_user - zero @attr and make it a disabled counter of
 * @type/@config on user space only (exclude_kernel, exclude_hv): what an
 * unprivileged thread may open on itself at perf_event_paranoid=2, the base
 * of the one-off opens that ask the kernel whether it takes an attr bit.
 */
void pms_perf_attr_user(struct perf_event_attr *attr, __u32 type, __u64 config);

/**
 * pms_perf_strerror - one sentence a kernel developer can act on for a
 * perf_event_open failure of @ev (EACCES/EPERM name perf_event_paranoid and
 * CAP_PERFMON, ENOENT/EOPNOTSUPP the missing event or PMU capability,
 * E2BIG/EINVAL the kernel feature that is missing).
 */
void pms_perf_strerror(int err, const struct pms_event *ev, char *buf, size_t len);

/**
 * pms_perf_async - route @fd's overflow notifications to thread @tid as
 * real-time signal @signo: O_ASYNC, F_SETSIG, F_SETOWN_EX(F_OWNER_TID).
 * Return: 0 or -errno.
 */
int pms_perf_async(int fd, int signo, pid_t tid);

/*
 * Events a supervising thread may have to stop from outside: a worker
 * whose timer event overflows faster than its handler returns never runs
 * its own code again (each sigreturn delivers the next queued signal), so
 * only another thread's PERF_EVENT_IOC_DISABLE ends the storm.  A worker
 * guards each event it opens and unguards it before close(2).
 */
#define PMS_PERF_GUARD_MAX 64
void pms_perf_guard(int fd);
void pms_perf_unguard(int fd);
/* Disable every guarded event.  Return: how many. */
int pms_perf_disable_guarded(void);

/* read(2) of a counter's value, with or without the time read_format. Return 0 or -errno. */
int pms_perf_read(int fd, uint64_t *value);

/*
 * The value and, where the counter was opened with read_format
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, the two times (else 0).
 * Return: 1 with the times, 0 without, or -errno.
 */
int pms_perf_read_times(int fd, uint64_t *value, uint64_t *enabled, uint64_t *running);

/* Whether a missing hardware counter (not a permission problem) explains @err. */
bool pms_perf_err_no_hardware(int err);

/*
 * The overflow recorder: a SA_SIGINFO handler that reads the counter named by
 * si_fd and stores {value, time, cpu, si_code, si_fd} into preallocated
 * storage.  Async-signal-safe: no malloc, no stdio, no locks.  A full buffer
 * is counted in @dropped, never hidden.  When the real-time signal queue
 * overflows the kernel falls back to SIGIO: that is recorded too, with the
 * si_code the kernel gave (not POLL_IN), and counted in @sigio.
 */
/* Streaming mode: one counting thread's ring (single producer, single consumer). */
struct pms_sigring {
	struct pms_signal *slot;
	uint64_t mask;		/* slots - 1, a power of two minus one */
	uint64_t head;		/* written by the handler */
	uint64_t tail;		/* written by the drain */
	uint64_t overflow;	/* signals dropped because the ring was full */
} __attribute__((aligned(64)));

struct pms_recorder {
	/* streaming mode (pms_recorder_init_stream()): rings, else NULL */
	struct pms_sigring *lanes;
	unsigned int nlanes;
	size_t lanes_bytes;
	uint64_t misrouted;	/* delivered on a thread that owns no ring */
	/* array mode */
	struct pms_signal *sig;
	size_t cap;
	uint64_t n;		/* stored; atomically incremented */
	uint64_t seen;		/* delivered, including dropped */
	uint64_t dropped;	/* buffer full */
	uint64_t sigio;		/* SIGIO fallbacks */
	uint64_t read_errors;
	int signo;
	/*
	 * Fault injection for testing the whole chain: signals the handler
	 * pretends never arrived, as a kernel that lost them would.  Every
	 * @inject_drop_every-th, and every one after @inject_stop_after.
	 */
	uint64_t inject_drop_every, inject_stop_after;
	uint64_t arrived, injected;
	/*
	 * Storm breaker: once @disable_at signals are stored (0: never), the
	 * handler disables the event that sent the next one.  For a sub-test
	 * that must overflow a timer at its clamped 10 us, whose handler can
	 * cost as much: the worker would otherwise never run again.
	 */
	uint64_t disable_at, storm_stops;
	/* Called at the end of the handler, e.g. to toggle the event from
	 * inside the handler; must itself be async-signal-safe. */
	void (*hook)(void *arg, const siginfo_t *si);
	void *hook_arg;
};

/*
 * The real-time signal a counting scenario's overflows arrive as, for the
 * recorder and pms_perf_async() alike.
 */
#define PMS_OVERFLOW_SIGNO (SIGRTMIN + 4)

/*
 * The recorder's fault-injection options (see pms_run_recorder()), for the
 * scenarios whose oracle works on the recorded signals alone.
 */
#define PMS_INJECT_OPTS								\
	{ .name = "inject-drop-every", .type = PMS_OPT_U64, .min = 2, .max = 1ull << 40,	\
	  .arg = "N", .help = "TESTING: ignore every Nth signal, as a kernel that lost it "	\
	  "would (proves the oracle catches losses end to end)" },			\
	{ .name = "inject-stop-after", .type = PMS_OPT_U64, .min = 1, .max = 1ull << 40,	\
	  .arg = "N", .help = "TESTING: ignore every signal after the Nth (proves the watchdog)" }

/**
 * pms_recorder_init - allocate and prefault room for @cap signals (so the
 * handler never page-faults) and install the handler for @signo and SIGIO.
 * Only one recorder is installed at a time.
 * Return: 0 or -errno.
 */
int pms_recorder_init(struct pms_recorder *r, size_t cap, int signo);

/*
 * pms_recorder_init_stream - the same handler writing into @nlanes rings of
 * @lane_cap slots (rounded up to a power of two), one per counting thread,
 * which calls pms_recorder_lane_bind() before its counter can overflow.
 * Memory stays the rings' however long the run; @n counts what was stored,
 * @dropped what found its ring full.  Return: 0 or -errno.
 */
int pms_recorder_init_stream(struct pms_recorder *r, unsigned int nlanes, size_t lane_cap,
			     int signo);

/* From a counting thread: its signals go to ring @lane. */
void pms_recorder_lane_bind(int lane);

/* From the drain: take up to @max signals of ring @lane, oldest first. */
size_t pms_recorder_lane_pop(struct pms_recorder *r, unsigned int lane, struct pms_signal *out,
			     size_t max);

/* Restore the previous handlers and free the storage; a no-op unless installed. */
void pms_recorder_fini(struct pms_recorder *r);

/**
 * pms_recorder_to_json - the `recorder` section of a result: signal,
 * delivery, capacity, stored, delivered, dropped_full, sigio_fallback,
 * read_errors, and fault_injection (null unless --inject-* was used).
 */
json_object *pms_recorder_to_json(const struct pms_recorder *r);

/*
 * The supervising thread's watchdog.  A run ends when no signal has come for
 * @timeout_ns while the counter passed two periods (the bug, or a storm that
 * silenced it: "fired"), or when the counter has not moved at all (the event
 * counts nothing here: "stalled").  Only the counter's progress can make it
 * fire, so a slow counter never trips it.
 */
struct pms_watchdog {
	uint64_t period, timeout_ns;
	uint64_t last_seen, last_signal_ns, last_value;
	bool fired, stalled;
	char message[512];
};

void pms_watchdog_start(struct pms_watchdog *w, uint64_t period, uint64_t timeout_ns,
			uint64_t now);

/* Feed one tick: signals seen so far and the counter's value. True: stop the run. */
bool pms_watchdog_check(struct pms_watchdog *w, uint64_t now, uint64_t seen, uint64_t value);

/* The `watchdog` section: fired (either way), message. */
json_object *pms_watchdog_to_json(const struct pms_watchdog *w);

/* Relaxed snapshot of how many signals were delivered so far. */
uint64_t pms_recorder_seen(const struct pms_recorder *r);

#endif
