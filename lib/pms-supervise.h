/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_SUPERVISE_H
#define PMS_SUPERVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pms-cpus.h"
#include "pms-perf.h"
#include "pms-scenario.h"

/*
 * The supervising thread's loop, the same in every counting scenario: start
 * the mover; then, until --duration passes, SIGINT/SIGTERM arrive, the
 * signal storage fills or the watchdog ends the run, read the counter every
 * tick, feed the watchdog and draw progress; stop the mover.  Starting and
 * stopping the counting thread stays with the caller.
 */
struct pms_supervisor {
	const struct pms_recorder *rec;
	int fd;				/* the counter, read every tick */
	uint64_t period;
	struct pms_mover *mover;	/* NULL: none; else target filled in */
	/* Run every @poll_ns (0: at ticks only); true ends the run because
	 * storage of the scenario's own filled up. */
	uint64_t poll_ns;
	bool (*poll)(void *arg);
	void *poll_arg;			/* NULL: @arg */
	/* Append the scenario's figures to the progress line. */
	void (*progress)(void *arg, char *buf, size_t len, uint64_t seen);
	void *arg;

	/* results */
	bool full;			/* signal storage or @poll ended the run */
	struct pms_watchdog wd;
};

/**
 * pms_supervise - run the loop above for @run, with --duration and
 * --watchdog from its options.  A mover that cannot start makes
 * run->verdict an error, with the reason.
 */
void pms_supervise(struct pms_run *run, struct pms_supervisor *s);

#endif
