/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_COUNTER_H
#define PMS_COUNTER_H

#include <stdint.h>
#include <json-c/json.h>

#include "pms-event.h"
#include "pms-scenario.h"

/* The counter a scenario drives, with where each of its settings came from. */
struct pms_counter {
	struct pms_event ev;
	uint64_t period;
	uint64_t tolerance;
	char period_source[192];
	char exclude_source[192];
	char open_error[384];	/* why the preferred event did not open, if it did not */
	char preferred_source[256];	/* why the default event is what it is */
};

/**
 * pms_counter_resolve - choose the counter for @run: --event if given, else
 * @preferred (but cycles on an emulated arm64 guest, see counter.c); apply --exclude (or rr's exclude_kernel,exclude_guest when the
 * spec has no modifiers); pick the period and tolerance; open the event once
 * to see that it works.  Without --event and without a hardware PMU the
 * breakpoint substitute on the workload loop is chosen, and says why.
 *
 * Return: PMS_OK, PMS_E_EVENT (bad spec, run->reason says why), PMS_E_USAGE
 * (bad tolerance), PMS_E_SKIP (the asked-for hardware is missing) or
 * PMS_E_SETUP (the kernel refused for another reason).
 */
enum pms_status pms_counter_resolve(struct pms_run *run, const char *preferred,
				    uint64_t hw_period, uint64_t bp_period,
				    struct pms_counter *c);

/* attr ready to open: sampling fields, use_clockid, bp_addr. */
void pms_counter_attr(const struct pms_counter *c, struct perf_event_attr *attr);

json_object *pms_counter_to_json(const struct pms_counter *c);

/*
 * The workload: one call is one unit of work.  Its first instruction is where
 * the breakpoint substitute sits, so a breakpoint count is an exact count of
 * calls.  Not inlined, never optimised away.
 */
void pms_workload_tick(volatile uint64_t *iterations);

enum pms_workload_kind {
	PMS_WORKLOAD_LOOP,		/* pure user-space calls */
	PMS_WORKLOAD_PAGE_FAULTS,	/* plus one minor page fault per call */
};

struct pms_workload {
	enum pms_workload_kind kind;
	volatile uint64_t iterations;
	char *page;
	size_t page_size;
};

/* The workload the counter needs: faults for fault events, a loop otherwise. */
enum pms_workload_kind pms_workload_for(const struct pms_event *ev);
const char *pms_workload_name(enum pms_workload_kind kind);
int pms_workload_init(struct pms_workload *w, enum pms_workload_kind kind);
void pms_workload_fini(struct pms_workload *w);

/* One unit of work: one pms_workload_tick(), and one fault if the kind asks. */
void pms_workload_step(struct pms_workload *w);

#endif
