/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_COUNTING_H
#define PMS_COUNTING_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <hwloc.h>

#include "pms-counter.h"
#include "pms-scenario.h"
#include "pms-thread.h"

/*
 * The counting thread of the signal scenarios (lost-overflow,
 * disable-storm): it opens the counter on itself, routes its overflows to
 * itself as @signo, counts its own CPU migrations beside it, and on go
 * resets and enables the counter, runs the workload until stop, disables
 * it and reads the final count; it leaves its affinity as it found it,
 * and says whether it did.
 */
#define PMS_COMPETING_MAX 64

struct pms_counting {
	/* set by the scenario */
	const struct pms_counter *c;
	struct pms_workload *work;
	int signo;
	int lane;		/* its ring in a streaming recorder (0 for one thread) */
	/* Bind to the first CPU of this set before counting (NULL: leave it). */
	hwloc_topology_t topo;
	hwloc_const_bitmap_t pin_first;
	/* In the counting thread, each may be NULL: after ENABLE, after every
	 * workload step, before DISABLE. */
	/* Map a ring of this many data pages (a power of two; 0: none) on the
	 * counter, for the kernel's THROTTLE and LOST records. */
	unsigned int ring_pages;
	/* Open this many more counting events like the counter on the thread
	 * (at most PMS_COMPETING_MAX), to make the PMU multiplex on purpose. */
	unsigned int competing;
	void (*enabled)(void *arg);
	void (*step)(void *arg);
	void (*disabling)(void *arg);
	void *arg;

	/* results */
	struct pms_thread thread;
	pid_t tid;
	int fd, mig_fd;			/* the counter; the cpu-migrations counter */
	enum pms_status setup_status;
	char setup_msg[512];
	uint64_t start_ns, end_ns;
	uint64_t final_value;
	bool final_valid;
	/* read_format times at the end: running < enabled means multiplexed */
	uint64_t time_enabled, time_running;
	bool times_valid;
	void *ring;			/* control page, then the data pages */
	size_t ring_len;
	int ring_err;			/* mmap failure, or 0 */
	int competing_fd[64];
	unsigned int competing_open;
	int competing_err;		/* first open failure, or 0 */
	uint64_t migrations_counted;
	bool migrations_valid;
	int64_t nr_migrations_sched;	/* the scheduler's se.nr_migrations, -1 unknown */
	cpu_set_t aff_initial, aff_final;
	bool aff_restored;
};

/* Before anything else; pms_counting_fini() may then always be called. */
void pms_counting_init(struct pms_counting *k);

/**
 * pms_counting_start - start the thread and wait until its counter is open
 * (or failed to open).
 * Return: PMS_OK, or the failure with a one-line reason in @reason.
 */
enum pms_status pms_counting_start(struct pms_counting *k, char *reason, size_t len);

/* Reset and enable the counter and run the workload. */
void pms_counting_go(struct pms_counting *k);

/* Stop the workload, join the thread (the final count is read then). */
void pms_counting_stop(struct pms_counting *k);

/* Stop, close the counters. */
void pms_counting_fini(struct pms_counting *k);

#endif
