// SPDX-License-Identifier: GPL-2.0-only
/*
 * The supervising loop every counting scenario shares: deadline, signals,
 * watchdog, progress, and the mover around them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "pms-supervise.h"
#include "pms-util.h"

#define TICK_NS 100000000ull	/* progress and watchdog */

void pms_supervise(struct pms_run *run, struct pms_supervisor *s)
{
	uint64_t duration = pms_opt_u64(&run->opts, "duration");
	uint64_t step = s->poll_ns && s->poll_ns < TICK_NS ? s->poll_ns : TICK_NS;
	uint64_t start, deadline, now, next_tick, value = 0;
	char line[256];
	int ret;

	s->full = false;
	if (s->mover) {
		ret = pms_mover_start(s->mover);
		if (ret) {
			run->verdict = PMS_VERDICT_ERROR;
			snprintf(run->reason, sizeof(run->reason), "cannot start the mover: %s",
				 strerror(-ret));
			return;
		}
	}
	now = start = pms_now_ns();
	pms_watchdog_start(&s->wd, s->period, pms_opt_u64(&run->opts, "watchdog"), now);
	deadline = now + duration;
	next_tick = now + TICK_NS;
	while (now < deadline) {
		uint64_t seen;
		int n;

		if (pms_run_wait(run, deadline - now < step ? deadline - now : step))
			break;
		if (s->poll && s->poll(s->poll_arg ? s->poll_arg : s->arg)) {
			s->full = true;
			break;
		}
		now = pms_now_ns();
		if (now < next_tick && now < deadline)
			continue;
		next_tick = now + TICK_NS;
		seen = pms_recorder_seen(s->rec);
		pms_perf_read(s->fd, &value);
		if (s->rec->sig && seen >= s->rec->cap) {
			s->full = true;
			break;
		}
		/* Only a counter that passed two overflows with no signal is a stall. */
		if (pms_watchdog_check(&s->wd, now, seen, value))
			break;
		if (run->progress) {
			n = snprintf(line, sizeof(line), "[%5.1f/%.1f s] signals %llu",
				     (double)(now - start) / 1e9, (double)duration / 1e9,
				     (unsigned long long)seen);
			if (s->progress && n > 0 && (size_t)n < sizeof(line))
				s->progress(s->arg, line + n, sizeof(line) - (size_t)n, seen);
			run->progress(run, line);
		}
	}
	/* The mover first: the counting thread restores its affinity once it stops. */
	if (s->mover)
		pms_mover_stop(s->mover);
}
