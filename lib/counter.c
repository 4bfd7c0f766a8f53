// SPDX-License-Identifier: GPL-2.0-only
/*
 * Choosing the counter: the user's event, the scenario's preferred hardware
 * event, or, where there is no PMU, an execute breakpoint on the workload,
 * which is exact on x86 (one count per call) and says loudly that it is a
 * substitute.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pms-counter.h"
#include "pms-perf.h"
#include "pms-util.h"

__attribute__((noinline)) void pms_workload_tick(volatile uint64_t *iterations)
{
	(*iterations)++;
	__asm__ __volatile__("" ::: "memory");
}

enum pms_workload_kind pms_workload_for(const struct pms_event *ev)
{
	if (ev->attr.type == PERF_TYPE_SOFTWARE &&
	    (ev->attr.config == PERF_COUNT_SW_PAGE_FAULTS ||
	     ev->attr.config == PERF_COUNT_SW_PAGE_FAULTS_MIN))
		return PMS_WORKLOAD_PAGE_FAULTS;
	return PMS_WORKLOAD_LOOP;
}

const char *pms_workload_name(enum pms_workload_kind kind)
{
	return kind == PMS_WORKLOAD_PAGE_FAULTS ? "page-faults" : "loop";
}

int pms_workload_init(struct pms_workload *w, enum pms_workload_kind kind)
{
	memset(w, 0, sizeof(*w));
	w->kind = kind;
	if (kind != PMS_WORKLOAD_PAGE_FAULTS)
		return 0;
	w->page_size = (size_t)sysconf(_SC_PAGESIZE);
	w->page = mmap(NULL, w->page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (w->page == MAP_FAILED) {
		w->page = NULL;
		return -errno;
	}
	return 0;
}

void pms_workload_fini(struct pms_workload *w)
{
	if (w->page)
		munmap(w->page, w->page_size);
	w->page = NULL;
}

void pms_workload_step(struct pms_workload *w)
{
	pms_workload_tick(&w->iterations);
	if (w->kind == PMS_WORKLOAD_PAGE_FAULTS) {
		/* Dropping the page makes the next write a fresh minor fault. */
		madvise(w->page, w->page_size, MADV_DONTNEED);
		*(volatile char *)w->page = 1;
	}
}

static bool has_modifiers(const char *spec)
{
	const char *slash = strrchr(spec, '/');

	return strchr(slash ? slash : spec, ':') != NULL;
}

void pms_counter_attr(const struct pms_counter *c, struct perf_event_attr *attr)
{
	*attr = c->ev.attr;
	attr->size = sizeof(*attr);
	attr->sample_period = c->period;
	attr->disabled = 1;
	/* time_running < time_enabled is the mark of multiplexing. */
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* Signals, rebinds and trace events all go on CLOCK_MONOTONIC. */
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;
	if (c->ev.breakpoint)
		attr->bp_addr = (uint64_t)(uintptr_t)pms_workload_tick;
}

static int try_open(const struct pms_counter *c)
{
	struct perf_event_attr attr;
	int fd;

	pms_counter_attr(c, &attr);
	fd = pms_perf_open_self(&attr, -1);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd;
}

static enum pms_status set_exclude(struct pms_run *run, struct pms_counter *c, bool given_event)
{
	const char *ex = pms_opt_str(&run->opts, "exclude");
	char err[256];

	if (ex) {
		if (pms_event_set_exclude(&c->ev.attr, ex, err, sizeof(err))) {
			snprintf(run->reason, sizeof(run->reason), "bad --exclude: %s", err);
			return PMS_E_EVENT;
		}
		snprintf(c->exclude_source, sizeof(c->exclude_source), "--exclude %s", ex);
	} else if (given_event && has_modifiers(c->ev.spec)) {
		snprintf(c->exclude_source, sizeof(c->exclude_source), "modifiers of '%s'",
			 c->ev.spec);
	} else {
		pms_event_set_exclude(&c->ev.attr, "kernel,guest", err, sizeof(err));
		snprintf(c->exclude_source, sizeof(c->exclude_source),
			 "default: exclude_kernel, exclude_guest (what rr sets)");
	}
	return PMS_OK;
}

/*
 * Under QEMU TCG (the emulated-arm64 matrix) the only exact counter is
 * cycles with -icount shift=0, which advances once per guest instruction;
 * QEMU 7.2 notices an instructions overflow only at the next timer tick.
 */
static const char *preferred_event(struct pms_run *run, const char *preferred, char *why,
				   size_t len)
{
	if (!strcmp(run->arch, "aarch64") &&
	    json_object_get_boolean(pms_json_get(run->host, "emulated")) &&
	    json_object_get_boolean(pms_json_get(run->host, "hardware_pmu"))) {
		snprintf(why, len, "emulated arm64 (QEMU): cycles, which advance one per guest "
			 "instruction under -icount shift=0; QEMU signals an instructions "
			 "overflow only at the next timer tick");
		return "cycles";
	}
	snprintf(why, len, "the scenario's preferred hardware event");
	return preferred;
}

enum pms_status pms_counter_resolve(struct pms_run *run, const char *preferred,
				    uint64_t hw_period, uint64_t bp_period,
				    struct pms_counter *c)
{
	const char *spec = pms_opt_str(&run->opts, "event");
	bool given = spec != NULL;
	enum pms_status st;
	char err[512];
	int ret;

	memset(c, 0, sizeof(*c));
	if (!spec)
		spec = preferred_event(run, preferred, c->preferred_source,
				       sizeof(c->preferred_source));
	else
		snprintf(c->preferred_source, sizeof(c->preferred_source), "--event");
	ret = pms_event_parse(spec, run->devices, run->arch, &c->ev, err, sizeof(err));
	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "%s", err);
		return PMS_E_EVENT;
	}
	st = set_exclude(run, c, given);
	if (st)
		return st;

	if (pms_opt_given(&run->opts, "period")) {
		c->period = pms_opt_u64(&run->opts, "period");
		snprintf(c->period_source, sizeof(c->period_source), "--period");
	} else if (c->ev.sem == PMS_SEM_TIMER) {
		c->period = 1000000;
		snprintf(c->period_source, sizeof(c->period_source),
			 "default for timer events: 1 ms (their counts are nanoseconds)");
	} else if (c->ev.breakpoint) {
		c->period = bp_period;
		snprintf(c->period_source, sizeof(c->period_source),
			 "default for breakpoints: each hit is a debug exception, so a smaller "
			 "period keeps the signal rate useful");
	} else {
		c->period = hw_period;
		snprintf(c->period_source, sizeof(c->period_source), "scenario default");
	}

	ret = try_open(c);
	if (ret && !given && pms_perf_err_no_hardware(ret)) {
		struct pms_event want = c->ev;
		int open_err = ret;

		pms_perf_strerror(ret, &want, c->open_error, sizeof(c->open_error));
		ret = pms_event_parse("breakpoint", run->devices, run->arch, &c->ev, err,
				      sizeof(err));
		if (ret) {
			snprintf(run->reason, sizeof(run->reason), "%s", err);
			return PMS_E_SETUP;
		}
		c->ev.attr.exclude_kernel = want.attr.exclude_kernel;
		c->ev.attr.exclude_hv = want.attr.exclude_hv;
		c->ev.attr.exclude_guest = want.attr.exclude_guest;
		c->ev.attr.exclude_host = want.attr.exclude_host;
		c->ev.substitute = true;
		snprintf(c->ev.substitute_reason, sizeof(c->ev.substitute_reason),
			 "no hardware PMU for '%s' (%s): an execute breakpoint on the workload "
			 "counts its calls exactly%s", want.spec, pms_errno_name(open_err),
			 c->ev.sem == PMS_SEM_BP_EXTRA_COUNT ?
			 ", plus one count per signal on arm64" : "");
		if (!pms_opt_given(&run->opts, "period")) {
			c->period = bp_period;
			snprintf(c->period_source, sizeof(c->period_source),
				 "default for the breakpoint substitute: each hit is a debug "
				 "exception, so a smaller period keeps the signal rate useful");
		}
		ret = try_open(c);
	}
	if (ret) {
		pms_perf_strerror(ret, &c->ev, run->reason, sizeof(run->reason));
		return pms_perf_err_no_hardware(ret) ? PMS_E_SKIP : PMS_E_SETUP;
	}

	if (pms_parse_tolerance(pms_opt_str(&run->opts, "tolerance"), c->period, &c->tolerance)) {
		snprintf(run->reason, sizeof(run->reason), "bad value '%s' for --tolerance: expected "
			 "a count or a percentage below the period %llu",
			 pms_opt_str(&run->opts, "tolerance"), (unsigned long long)c->period);
		return PMS_E_USAGE;
	}
	return PMS_OK;
}

json_object *pms_counter_to_json(const struct pms_counter *c)
{
	json_object *o = json_object_new_object();
	struct perf_event_attr attr;

	pms_counter_attr(c, &attr);
	json_object_object_add(o, "spec", json_object_new_string(c->ev.spec));
	json_object_object_add(o, "name", json_object_new_string(c->ev.name));
	json_object_object_add(o, "pmu", json_object_new_string(c->ev.pmu));
	json_object_object_add(o, "substitute", json_object_new_boolean(c->ev.substitute));
	json_object_object_add(o, "substitute_reason", c->ev.substitute ?
			       json_object_new_string(c->ev.substitute_reason) : NULL);
	json_object_object_add(o, "source", json_object_new_string(c->preferred_source));
	json_object_object_add(o, "preferred_open_error", c->open_error[0] ?
			       json_object_new_string(c->open_error) : NULL);
	json_object_object_add(o, "semantics", json_object_new_string(pms_semantics_name(c->ev.sem)));
	json_object_object_add(o, "semantics_description",
			       json_object_new_string(pms_semantics_describe(c->ev.sem)));
	json_object_object_add(o, "period", json_object_new_uint64(c->period));
	json_object_object_add(o, "period_source", json_object_new_string(c->period_source));
	json_object_object_add(o, "tolerance", json_object_new_uint64(c->tolerance));
	json_object_object_add(o, "exclude_source", json_object_new_string(c->exclude_source));
	json_object_object_add(o, "attr", pms_attr_to_json(&attr));
	return o;
}
