// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioctl-semantics: do PERF_EVENT_IOC_PERIOD, PERF_EVENT_IOC_REFRESH and
 * PERF_EVENT_IOC_RESET do what rr and other sampling users rely on?
 *
 * Seed: rr's has_ioc_period_bug probe (IOC_PERIOD applied only after the next
 * overflow before 3.7 on ARM and 3.14 elsewhere), Intel errata minimum
 * periods, and the IOC_REFRESH POLL_HUP breakage restored in 6.17-rc5, whose
 * fix could hang the machine on cpu-clock/task-clock until "perf/core: Fix
 * system hang caused by cpu-clock usage" (Nov 2025).
 *
 * Every ioctl is issued by the counting thread itself between two calls of
 * the workload, so on an exact counter (the breakpoint substitute) the
 * counter value at each ioctl is known exactly and every rule is exact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pms-counter.h"
#include "rules.h"
#include "pms-oracle.h"
#include "pms-perf.h"
#include "pms-thread.h"
#include "pms-util.h"
#include "scenarios.h"

#define TICK_NS 100000000ull
/* Calls of the workload with no change of the count that mean "it stopped". */
#define STALL_STEPS 2000
#define MP_TIMER_SIGNALS 1000	/* min-period on a timer: the handler stops it then */
#define DEADLINE_GRACE_NS (30 * 1000000000ull)	/* the fixed-round sub-tests */
#define STOP_GRACE_NS (2 * 1000000000ull)	/* for the worker, events disabled */
/* A worker step takes microseconds: this long without one, signals flowing, is a storm. */
#define STORM_NS (1000 * 1000000ull)
#define MAX_ROUNDS 256
#define MAX_SEGS 100000

enum io_sub { SUB_TIMING, SUB_MIN, SUB_STORM, SUB_REFRESH, SUB_RESET, SUB_NR };

static const char *const sub_names[SUB_NR] = {
	"period-timing", "min-period", "period-storm", "refresh", "reset",
};

static const struct pms_opt_desc io_opts[] = {
	{ .name = "only", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "sub-tests to run, comma separated: period-timing,min-period,period-storm,"
	  "refresh,reset (default: all)" },
	{ .name = "force", .type = PMS_OPT_FLAG,
	  .help = "run refresh on cpu-clock/task-clock even on kernels that may hang (6.16, "
	  "6.17, 6.18-rc)" },
	{ .name = "kernel-release", .type = PMS_OPT_STRING, .arg = "REL",
	  .help = "TESTING: judge the refresh hang gate as if the kernel were REL (uname -r)" },
	{ .name = "period-b", .type = PMS_OPT_U64, .min = 1, .max = 1ull << 40, .arg = "N",
	  .help = "second period of the storm (default: 3/2 of --period)" },
	{ .name = "refresh-rounds", .type = PMS_OPT_U64, .def = "15", .min = 1, .max = MAX_ROUNDS,
	  .arg = "N", .help = "IOC_REFRESH rounds; round i refreshes (i % 5) + 1" },
	{ .name = "reset-rounds", .type = PMS_OPT_U64, .def = "20", .min = 1, .max = MAX_ROUNDS,
	  .arg = "N", .help = "IOC_RESET rounds, each at another point of the period" },
};

struct sub_res {
	bool selected, ran;
	enum pms_verdict verdict;
	char finding[512];
};

struct refresh_round {
	struct pms_refresh_acct a;
	uint64_t counted;
	bool stopped;
	/* Timer event cut off short of its limit, with nothing wrong seen. */
	bool incomplete;
};

struct reset_round {
	uint64_t since, after, next;
	bool got_next;
	enum pms_reset_model model;
};

struct io_state {
	struct pms_counter c;
	struct pms_recorder rec;
	struct pms_workload work;
	int signo;
	bool exact;		/* one count per workload call, exactly */
	uint64_t tol;		/* 0 on exact counters, else the counter's tolerance */
	uint64_t period_b;
	/*
	 * Workload calls between two reads of the count: 1 on exact counters;
	 * more elsewhere, because an exclude_kernel timer event whose hrtimer
	 * fires inside read(2) skips that overflow (perf_exclude_event()).
	 */
	uint64_t stride;
	bool force;
	int gate;		/* pms_ioctl_refresh_hang_risk() of this kernel */
	char gate_why[384];
	char release[65];

	struct pms_thread thread;
	int done;
	uint64_t progress;	/* the worker's own steps: still moving in a signal storm? */
	int cur;		/* the sub-test running (SUB_*), SUB_NR: none */
	pid_t tid;
	uint64_t storm_ns, start_ns, end_ns;

	struct sub_res sub[SUB_NR];

	/* period-timing */
	int pt_errno_1, pt_errno_used;
	uint64_t pt_new, pt_at, pt_first, pt_signals;
	short pt_revents;
	bool pt_have_first, pt_mmap;
	/* min-period */
	int mp_open_errno_1, mp_ioc_errno_1;
	uint64_t mp_min, mp_final, mp_sig_lo, mp_sig_hi;
	bool mp_final_valid;
	/* period-storm */
	struct pms_storm_seg *seg;
	size_t nseg;
	uint64_t st_sig_lo, st_sig_hi;
	enum pms_storm_model model;	/* what this PMU kind should follow */
	struct pms_storm_result storm, storm_other;
	/* refresh */
	struct refresh_round rr[MAX_ROUNDS];
	size_t nrr;
	uint64_t rf_hup_total, rf_in_total, rf_signals;
	/* reset */
	struct reset_round rs[MAX_ROUNDS];
	size_t nrs;
};

static bool stopping(struct io_state *st)
{
	return pms_thread_stopping(&st->thread);
}

static uint64_t rec_n(struct io_state *st)
{
	uint64_t n = __atomic_load_n(&st->rec.n, __ATOMIC_ACQUIRE);

	return n < st->rec.cap ? n : st->rec.cap;
}

static int open_event(struct io_state *st, uint64_t period, bool enabled)
{
	struct perf_event_attr attr;
	int fd;

	pms_counter_attr(&st->c, &attr);
	attr.sample_period = period;
	attr.disabled = !enabled;
	/* Each sample wakes poll(2): period-timing reads POLLIN like rr does. */
	attr.wakeup_events = 1;
	fd = pms_perf_open_self(&attr, -1);
	if (fd < 0)
		return fd;
	if (pms_perf_async(fd, st->signo, st->tid)) {
		close(fd);
		return -EIO;
	}
	pms_perf_guard(fd);
	return fd;
}

static void close_event(int fd)
{
	pms_perf_unguard(fd);
	close(fd);
}

static uint64_t val(int fd)
{
	uint64_t v = 0;

	pms_perf_read(fd, &v);
	return v;
}

/*
 * Run the workload until the count reaches @target, more than @signals
 * signals were recorded, or the count stops moving (an event a refresh
 * limit disabled).  Returns the last count read.
 */
static uint64_t advance(struct io_state *st, int fd, uint64_t target, uint64_t signals)
{
	uint64_t v = val(fd), last = v, same = 0, k;

	while (v < target && rec_n(st) <= signals && !stopping(st)) {
		for (k = 0; k < st->stride; k++)
			pms_workload_step(&st->work);
		__atomic_fetch_add(&st->progress, 1, __ATOMIC_RELAXED);
		v = val(fd);
		if (v == last) {
			if (++same >= STALL_STEPS)
				break;
		} else {
			same = 0;
			last = v;
		}
	}
	return v;
}

static void run_timing(struct io_state *st)
{
	struct sub_res *r = &st->sub[SUB_TIMING];
	long page = sysconf(_SC_PAGESIZE);
	struct pollfd pfd;
	void *rb;
	uint64_t n0, margin;
	int fd;

	r->ran = true;
	fd = open_event(st, 0xffffffffull, false);
	if (fd < 0) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "cannot open the event with period "
			 "0xffffffff: %s", strerror(-fd));
		return;
	}
	/* Without a ring buffer perf_poll() reports only POLLHUP; rr's probe
	 * needs the buffer's POLLIN. */
	rb = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	st->pt_mmap = rb != MAP_FAILED;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	pms_workload_step(&st->work);
	pms_workload_step(&st->work);
	/*
	 * Any period far below 0xffffffff tells "at once" from "after the next
	 * overflow".  A timer's is clamped to 10 us, often less than its own
	 * handler costs in task time (a signal storm): 100 us for timers.
	 */
	st->pt_new = st->c.ev.sem == PMS_SEM_TIMER ? 100000 : 1;
	if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &st->pt_new)) {
		st->pt_errno_1 = errno;
		st->pt_new = 32;
		if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &st->pt_new))
			st->pt_errno_used = errno;
	}
	st->pt_at = val(fd);
	n0 = rec_n(st);
	margin = st->c.ev.sem == PMS_SEM_TIMER ? 1000000 : st->exact ? 2 * st->pt_new :
		 2 * st->pt_new + 1000;
	advance(st, fd, st->pt_at + margin, ~0ull);
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	poll(&pfd, 1, 0);
	st->pt_revents = pfd.revents;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	st->pt_signals = rec_n(st) - n0;
	st->pt_have_first = st->pt_signals > 0;
	if (st->pt_have_first)
		st->pt_first = st->rec.sig[n0].value;
	if (st->pt_mmap)
		munmap(rb, 2 * (size_t)page);
	close_event(fd);

	if (st->pt_errno_used) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "IOC_PERIOD refused both 1 (%s) and 32 "
			 "(%s)", pms_errno_name(st->pt_errno_1), pms_errno_name(st->pt_errno_used));
	} else if (!(pfd.revents & POLLIN)) {
		r->verdict = PMS_VERDICT_FAIL;
		snprintf(r->finding, sizeof(r->finding), "old behaviour: after IOC_PERIOD(%llu) "
			 "on a period of 0xffffffff, poll(0) shows no POLLIN (revents 0x%x) and %llu "
			 "signals came: the new period applies only after the next overflow",
			 (unsigned long long)st->pt_new, pfd.revents,
			 (unsigned long long)st->pt_signals);
	} else if (st->exact && st->pt_first != st->pt_at + st->pt_new) {
		r->verdict = PMS_VERDICT_FAIL;
		snprintf(r->finding, sizeof(r->finding), "IOC_PERIOD(%llu) applied at once but the "
			 "first overflow came at count %llu, not %llu", (unsigned long long)st->pt_new,
			 (unsigned long long)st->pt_first,
			 (unsigned long long)(st->pt_at + st->pt_new));
	} else {
		r->verdict = PMS_VERDICT_PASS;
		snprintf(r->finding, sizeof(r->finding), "IOC_PERIOD(%llu) applies at once: POLLIN "
			 "after %s, first overflow at count %llu (IOC_PERIOD at %llu)",
			 (unsigned long long)st->pt_new, st->exact ? "one more count" : "a few counts",
			 (unsigned long long)st->pt_first, (unsigned long long)st->pt_at);
	}
}

static void run_min(struct io_state *st)
{
	struct sub_res *r = &st->sub[SUB_MIN];
	uint64_t one = 1, span;
	int fd;

	r->ran = true;
	fd = open_event(st, st->c.period, false);
	if (fd >= 0) {
		if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &one))
			st->mp_ioc_errno_1 = errno;
		close_event(fd);
	}
	st->mp_min = 1;
	fd = open_event(st, 1, false);
	if (fd == -EINVAL) {
		st->mp_open_errno_1 = EINVAL;
		st->mp_min = 32;
		fd = open_event(st, 32, false);
	}
	if (fd < 0) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "cannot open the event with period %llu: "
			 "%s", (unsigned long long)st->mp_min, strerror(-fd));
		return;
	}
	/*
	 * A timer's period is clamped to 10 us by the kernel: count for 10 ms,
	 * but its handler may cost 10 us of task time too, and then the worker
	 * never runs again: the handler itself disables the event after 1000.
	 */
	span = st->c.ev.sem == PMS_SEM_TIMER ? 10000000 : 200 * st->mp_min;
	st->mp_sig_lo = rec_n(st);
	if (st->c.ev.sem == PMS_SEM_TIMER)
		__atomic_store_n(&st->rec.disable_at, st->mp_sig_lo + MP_TIMER_SIGNALS,
				 __ATOMIC_RELEASE);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	advance(st, fd, span, ~0ull);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	__atomic_store_n(&st->rec.disable_at, 0, __ATOMIC_RELEASE);
	st->mp_final_valid = !pms_perf_read(fd, &st->mp_final);
	st->mp_sig_hi = rec_n(st);
	close_event(fd);

	r->verdict = PMS_VERDICT_PASS;
	snprintf(r->finding, sizeof(r->finding), "%s; IOC_PERIOD(1) on an open event: %s; %llu "
		 "signals for a count of %llu at period %llu",
		 st->mp_open_errno_1 ? "period 1 refused with EINVAL, 32 accepted: the PMU "
		 "enforces a minimum period" : "period 1 accepted: no minimum period",
		 st->mp_ioc_errno_1 ? pms_errno_name(st->mp_ioc_errno_1) : "accepted",
		 (unsigned long long)(st->mp_sig_hi - st->mp_sig_lo),
		 (unsigned long long)st->mp_final, (unsigned long long)st->mp_min);
}

static void run_storm(struct io_state *st)
{
	struct sub_res *r = &st->sub[SUB_STORM];
	uint64_t end_ns = pms_now_ns() + st->storm_ns, lo;
	uint64_t *values;
	size_t j, n;
	int fd, ret;

	r->ran = true;
	st->seg = calloc(MAX_SEGS, sizeof(*st->seg));
	fd = st->seg ? open_event(st, st->c.period, false) : -ENOMEM;
	if (fd < 0) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "cannot open the event: %s",
			 strerror(-fd));
		return;
	}
	st->st_sig_lo = lo = rec_n(st);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/* Segment 0: from ENABLE to the first switch, at the opening period;
	 * a counter that is not exact may pass an overflow in between. */
	st->seg[0].period = st->seg[0].prev = st->c.period;
	st->seg[0].end = val(fd);
	for (j = 1; j < MAX_SEGS && pms_now_ns() < end_ns && !stopping(st); j++) {
		struct pms_storm_seg *s = &st->seg[j];
		uint64_t prev = st->seg[j - 1].period;
		uint64_t p = j & 1 ? st->c.period : st->period_b;
		/* 1-3 whole periods, then part of one: the switch lands mid-period. */
		uint64_t k = 1 + j % 3, rem = p > 1 ? 1 + (j * 37) % (p - 1) : 0;

		if (ioctl(fd, PERF_EVENT_IOC_PERIOD, &p))
			break;
		s->period = p;
		s->prev = prev;
		s->start = val(fd);
		s->end = advance(st, fd, s->start + k * p + rem, ~0ull);
		if (rec_n(st) >= st->rec.cap)
			break;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close_event(fd);
	st->nseg = j;
	if (st->nseg == 1)
		st->nseg = 0;	/* no switch happened */
	st->st_sig_hi = rec_n(st);
	n = st->st_sig_hi - lo;
	values = calloc(n + 1, sizeof(*values));
	if (!values) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "out of memory");
		return;
	}
	for (j = 0; j < n; j++)
		values[j] = st->rec.sig[lo + j].value;
	/* Software and breakpoint events may follow either model (see
	 * pms-ioctl.h); hardware PMUs reload the new period. */
	st->model = st->c.ev.breakpoint || st->c.ev.attr.type == PERF_TYPE_SOFTWARE ?
		    PMS_STORM_EITHER : PMS_STORM_RESTART;
	ret = pms_ioctl_storm_check(st->seg, st->nseg, st->model, values, n, st->tol,
				    &st->storm);
	if (!ret)
		ret = pms_ioctl_storm_check(st->seg, st->nseg, PMS_STORM_RESTART, values, n,
					    st->tol, &st->storm_other);
	free(values);
	if (ret || !st->nseg) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "no usable storm (%zu segments)",
			 st->nseg);
	} else if (st->c.ev.sem != PMS_SEM_TIMER &&
		   (st->exact ? st->storm.segments_bad : st->storm.lost != st->storm.extra)) {
		r->verdict = PMS_VERDICT_FAIL;
		snprintf(r->finding, sizeof(r->finding), "%zu period switches (%llu <-> %llu): "
			 "%llu segments fit no model (%s), %llu with the wrong number of overflows: "
			 "%llu lost and %llu extra overflows of %llu positions", st->nseg - 1,
			 (unsigned long long)st->c.period, (unsigned long long)st->period_b,
			 (unsigned long long)st->storm.segments_bad,
			 pms_storm_model_name(st->model),
			 (unsigned long long)st->storm.segments_count_bad,
			 (unsigned long long)st->storm.lost, (unsigned long long)st->storm.extra,
			 (unsigned long long)st->storm.expected);
	} else {
		r->verdict = PMS_VERDICT_PASS;
		snprintf(r->finding, sizeof(r->finding), "%zu period switches (%llu <-> %llu): "
			 "%llu of %llu overflows where the period in force puts them (largest error "
			 "%llu); segments: %llu new period at once (restart), %llu with an extra "
			 "overflow on the next count and one more old period (swevent)%s",
			 st->nseg - 1, (unsigned long long)st->c.period,
			 (unsigned long long)st->period_b, (unsigned long long)st->storm.matched,
			 (unsigned long long)st->storm.expected,
			 (unsigned long long)st->storm.max_error,
			 (unsigned long long)st->storm.segments_fit[PMS_STORM_RESTART],
			 (unsigned long long)st->storm.segments_fit[PMS_STORM_SWEVENT],
			 !st->storm.total_bad ? "" : st->c.ev.sem == PMS_SEM_TIMER ?
			 "; mismatches reported, not judged under timer semantics" :
			 "; some signals out of place, but as many signals as overflows in all "
			 "(late signals: skid, not IOC_PERIOD; positions are judged only on exact "
			 "counters)");
	}
}

static void run_refresh(struct io_state *st, uint64_t rounds)
{
	struct sub_res *r = &st->sub[SUB_REFRESH];
	int32_t codes[8];
	size_t i, bad = 0, dead = 0, first_bad = 0, incomplete = 0;
	int fd;

	if (st->c.ev.sem == PMS_SEM_TIMER && st->gate && !st->force) {
		r->verdict = PMS_VERDICT_SKIP;
		snprintf(r->finding, sizeof(r->finding), "refused: %s; --force runs it anyway "
			 "(it may hang the machine)", st->gate_why);
		return;
	}
	r->ran = true;
	fd = open_event(st, st->c.period, false);
	if (fd < 0) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "cannot open the event: %s",
			 strerror(-fd));
		return;
	}
	for (i = 0; i < rounds && !stopping(st); i++) {
		struct refresh_round *rr = &st->rr[i];
		uint64_t limit = 1 + i % 5, n0, n1, k, v;

		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		n0 = rec_n(st);
		if (ioctl(fd, PERF_EVENT_IOC_REFRESH, (int)limit)) {
			r->verdict = PMS_VERDICT_ERROR;
			snprintf(r->finding, sizeof(r->finding), "IOC_REFRESH(%llu) failed: %s",
				 (unsigned long long)limit, strerror(errno));
			close_event(fd);
			return;
		}
		/* Past the limit by a period: a counter still counting fails. */
		v = advance(st, fd, (limit + 1) * st->c.period, ~0ull);
		rr->stopped = v < (limit + 1) * st->c.period;
		if (!rr->stopped)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		rr->counted = val(fd);
		n1 = rec_n(st);
		for (k = 0; k < n1 - n0 && k < PMS_ARRAY_SIZE(codes); k++)
			codes[k] = st->rec.sig[n0 + k].si_code;
		pms_ioctl_refresh_account(limit, codes, k, rr->counted, st->c.period, st->tol,
					  st->c.ev.sem != PMS_SEM_TIMER, &rr->a);
		/* More signals than we kept codes for cannot be a pass. */
		rr->a.signals = n1 - n0;
		if (rr->a.signals != limit)
			rr->a.ok = false;
		st->rf_signals += rr->a.signals;
		st->rf_in_total += rr->a.poll_in;
		st->rf_hup_total += rr->a.poll_hup;
		/*
		 * A timer event skips the overflows its hrtimer meets in excluded
		 * modes (or while the task is off the CPU, under load), so its limit
		 * may not be reached within the periods this round waits: fewer
		 * signals than n, none of them POLL_HUP or foreign, and still
		 * counting is an unfinished round, not a broken rule.
		 */
		rr->incomplete = st->c.ev.sem == PMS_SEM_TIMER && !rr->a.ok &&
				 rr->a.signals < limit && !rr->a.poll_hup && !rr->a.other &&
				 !rr->stopped;
		incomplete += rr->incomplete;
		if (!rr->a.ok && !rr->incomplete && !bad++)
			first_bad = i;
		/* Re-armed by IOC_REFRESH yet counting nothing at all. */
		dead += !rr->counted && !rr->a.signals;
		st->nrr++;
		/*
		 * A round that did not stop leaves event_limit above zero, and the
		 * next REFRESH adds to it: give the next round an event of its own.
		 */
		if (!rr->stopped && i + 1 < rounds) {
			close_event(fd);
			fd = open_event(st, st->c.period, false);
			if (fd < 0) {
				r->verdict = PMS_VERDICT_ERROR;
				snprintf(r->finding, sizeof(r->finding), "cannot reopen the event: %s",
					 strerror(-fd));
				return;
			}
		}
	}
	close_event(fd);
	if (bad) {
		r->verdict = PMS_VERDICT_FAIL;
		const struct refresh_round *fb = &st->rr[first_bad];

		snprintf(r->finding, sizeof(r->finding), "%zu of %zu IOC_REFRESH rounds broke the "
			 "rule (n signals, the last POLL_HUP, then stop): %llu POLL_HUP for %zu "
			 "refreshes, %llu POLL_IN; first: round %zu, REFRESH(%llu) gave %llu signals "
			 "(%llu POLL_IN, %llu POLL_HUP) and counted %llu%s", bad, st->nrr,
			 (unsigned long long)st->rf_hup_total, st->nrr,
			 (unsigned long long)st->rf_in_total, first_bad + 1,
			 (unsigned long long)fb->a.limit, (unsigned long long)fb->a.signals,
			 (unsigned long long)fb->a.poll_in, (unsigned long long)fb->a.poll_hup,
			 (unsigned long long)fb->counted,
			 dead ? "; the event never counted again after a refresh limit stopped it "
			 "(count 0, no signal)" : "");
	} else {
		r->verdict = PMS_VERDICT_PASS;
		snprintf(r->finding, sizeof(r->finding), "%zu IOC_REFRESH(n) rounds, n = 1..5: "
			 "each %sgave n signals, n-1 POLL_IN then one POLL_HUP, and the event "
			 "stopped", st->nrr - incomplete, incomplete ? "that finished " : "");
		if (incomplete)
			snprintf(r->finding + strlen(r->finding),
				 sizeof(r->finding) - strlen(r->finding),
				 "; %zu timer round(s) did not reach their limit in the time given "
				 "(hrtimer overflows skipped): not judged", incomplete);
	}
}

static size_t bad_rounds(const struct io_state *st)
{
	size_t i, n = 0;

	for (i = 0; i < st->nrr; i++)
		n += !st->rr[i].a.ok && !st->rr[i].incomplete;
	return n;
}

static void run_reset(struct io_state *st, uint64_t rounds)
{
	struct sub_res *r = &st->sub[SUB_RESET];
	size_t i, counts[4] = { 0 };
	uint64_t P = st->c.period;
	int fd;

	r->ran = true;
	fd = open_event(st, P, false);
	if (fd < 0) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "cannot open the event: %s",
			 strerror(-fd));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < rounds && !stopping(st); i++) {
		struct reset_round *rs = &st->rs[i];
		uint64_t n0 = rec_n(st), ov, v, lo = 1, span = P > 1 ? P - 1 : 1, want;

		/* Off an exact counter keep r clear of the tolerance at both ends,
		 * so that the two models stay apart. */
		if (!st->exact && P > 4 * st->tol + 2) {
			lo = 2 * st->tol + 1;
			span = P - 4 * st->tol - 1;
		}
		want = lo + (i * 7919) % span;

		/* An overflow, then part of a period, then RESET. */
		advance(st, fd, ~0ull, n0);
		if (rec_n(st) <= n0)
			break;
		ov = st->rec.sig[rec_n(st) - 1].value;
		v = advance(st, fd, ov + want, ~0ull);
		/* Skid may have let another overflow in: count from the latest. */
		ov = st->rec.sig[rec_n(st) - 1].value;
		rs->since = v - ov;
		n0 = rec_n(st);
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		rs->after = val(fd);
		advance(st, fd, ~0ull, n0);
		rs->got_next = rec_n(st) > n0;
		rs->next = rs->got_next ? st->rec.sig[n0].value : 0;
		rs->model = rs->got_next ? pms_ioctl_reset_classify(P, rs->since, rs->after,
								    rs->next, st->tol) :
			    PMS_RESET_NEITHER;
		counts[rs->model]++;
		st->nrs++;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close_event(fd);
	if (!st->nrs) {
		r->verdict = PMS_VERDICT_ERROR;
		snprintf(r->finding, sizeof(r->finding), "no overflow came: nothing to reset");
	} else if (st->c.ev.sem != PMS_SEM_TIMER &&
		   ((st->exact && (counts[PMS_RESET_NOT_ZERO] || counts[PMS_RESET_NEITHER])) ||
		    (counts[PMS_RESET_CONTINUES] && counts[PMS_RESET_RESTARTS]))) {
		r->verdict = PMS_VERDICT_FAIL;
		snprintf(r->finding, sizeof(r->finding), "IOC_RESET inconsistent over %zu rounds: "
			 "count not zero after RESET %zu, next overflow fits neither model %zu, "
			 "period continued %zu, restarted %zu", st->nrs, counts[PMS_RESET_NOT_ZERO],
			 counts[PMS_RESET_NEITHER], counts[PMS_RESET_CONTINUES],
			 counts[PMS_RESET_RESTARTS]);
	} else {
		r->verdict = PMS_VERDICT_PASS;
		snprintf(r->finding, sizeof(r->finding), "%zu IOC_RESET rounds mid-period: count 0 "
			 "after RESET and the next overflow where the period %s (continued %zu, "
			 "restarted %zu, neither %zu, not zero %zu%s)", st->nrs,
			 counts[PMS_RESET_CONTINUES] ? "position carried on" : "restarted",
			 counts[PMS_RESET_CONTINUES], counts[PMS_RESET_RESTARTS],
			 counts[PMS_RESET_NEITHER], counts[PMS_RESET_NOT_ZERO],
			 st->c.ev.sem == PMS_SEM_TIMER ? "; timer semantics: not judged" :
			 st->exact ? "" : "; outliers are skid: judged only on exact counters");
	}
}

static void *counting_main(void *arg)
{
	struct pms_run *run = arg;
	struct io_state *st = run->priv;
	int i;

	st->tid = gettid();
	pthread_setname_np(pthread_self(), "pms-ioctl");
	pms_thread_ready(&st->thread);
	/* Stopped before go: every sub-test below sees it and is skipped. */
	(void)pms_thread_wait_go(&st->thread);
	st->start_ns = pms_now_ns();
	for (i = 0; i < SUB_NR && !stopping(st); i++) {
		if (!st->sub[i].selected)
			continue;
		/* For the supervisor's message, should this one stop moving. */
		__atomic_store_n(&st->cur, i, __ATOMIC_RELAXED);
		switch (i) {
		case SUB_TIMING: run_timing(st); break;
		case SUB_MIN: run_min(st); break;
		case SUB_STORM: run_storm(st); break;
		case SUB_REFRESH: run_refresh(st, pms_opt_u64(&run->opts, "refresh-rounds")); break;
		case SUB_RESET: run_reset(st, pms_opt_u64(&run->opts, "reset-rounds")); break;
		}
	}
	__atomic_store_n(&st->cur, SUB_NR, __ATOMIC_RELAXED);
	st->end_ns = pms_now_ns();
	__atomic_store_n(&st->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int parse_only(struct io_state *st, const char *list, char *err, size_t len)
{
	char buf[256], *tok, *save = NULL;
	int i;

	if (!list) {
		for (i = 0; i < SUB_NR; i++)
			st->sub[i].selected = true;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < SUB_NR; i++)
			if (!strcmp(tok, sub_names[i]))
				break;
		if (i == SUB_NR) {
			snprintf(err, len, "bad value '%s' for --only: unknown sub-test '%s' "
				 "(period-timing, min-period, period-storm, refresh, reset)",
				 list, tok);
			return -EINVAL;
		}
		st->sub[i].selected = true;
	}
	return 0;
}

static enum pms_status io_setup(struct pms_run *run)
{
	struct io_state *st = run->priv;
	struct utsname u;
	enum pms_status s;

	pms_thread_init(&st->thread);
	if (parse_only(st, pms_opt_str(&run->opts, "only"), run->reason, sizeof(run->reason)))
		return PMS_E_USAGE;
	st->force = pms_opt_u64(&run->opts, "force");
	uname(&u);
	snprintf(st->release, sizeof(st->release), "%s",
		 pms_opt_str(&run->opts, "kernel-release") ?: u.release);
	st->gate = pms_ioctl_refresh_hang_risk(st->release, st->gate_why, sizeof(st->gate_why));

	s = pms_counter_resolve(run, "instructions", 10000, 100, &st->c);
	if (s)
		return s;
	st->exact = st->c.ev.breakpoint && st->c.ev.sem == PMS_SEM_EXACT;
	st->tol = st->exact ? 0 : st->c.tolerance;
	st->stride = st->exact ? 1 : st->c.ev.sem == PMS_SEM_TIMER ? 4096 : 64;
	st->period_b = pms_opt_given(&run->opts, "period-b") ? pms_opt_u64(&run->opts, "period-b")
		       : st->c.period + st->c.period / 2;
	st->storm_ns = pms_opt_u64(&run->opts, "duration");
	st->cur = SUB_NR;

	s = pms_run_workload(run, &st->work, &st->c.ev);
	if (s)
		return s;
	st->signo = PMS_OVERFLOW_SIGNO;
	s = pms_run_recorder(run, &st->rec, st->signo);
	if (s)
		return s;
	s = pms_run_thread(run, &st->thread, counting_main, run, "counting thread");
	if (s)
		return s;
	return PMS_OK;
}

static json_object *jverdict(const struct sub_res *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "selected", json_object_new_boolean(r->selected));
	json_object_object_add(o, "ran", json_object_new_boolean(r->ran));
	json_object_object_add(o, "verdict", r->selected ?
			       json_object_new_string(pms_verdict_name(r->verdict)) :
			       json_object_new_string("not_selected"));
	json_object_object_add(o, "finding", r->finding[0] ?
			       json_object_new_string(r->finding) : NULL);
	return o;
}

#define JU(o, k, v) json_object_object_add(o, k, json_object_new_uint64(v))
#define JB(o, k, v) json_object_object_add(o, k, json_object_new_boolean(v))
#define JS(o, k, v) json_object_object_add(o, k, (v) ? json_object_new_string(v) : NULL)

static json_object *section(struct pms_run *run, struct io_state *st)
{
	json_object *o = json_object_new_object(), *s, *a, *x;
	size_t i;

	JS(o, "kernel_release", st->release);
	JB(o, "kernel_release_given", pms_opt_given(&run->opts, "kernel-release"));
	JB(o, "exact", st->exact);
	JU(o, "tolerance", st->tol);
	JS(o, "tolerance_rule", st->exact ? "0: the breakpoint counts workload calls exactly and "
	   "every ioctl is issued between two calls" : "the counter's --tolerance");
	JS(o, "ioctl_thread", "the counting thread itself, between two workload calls");

	s = jverdict(&st->sub[SUB_TIMING]);
	if (st->sub[SUB_TIMING].ran) {
		JS(s, "probe", "rr's: period 0xffffffff, IOC_PERIOD(1) (32 if refused), count on, "
		   "poll(POLLIN, 0) with a 1-page ring buffer and wakeup_events=1");
		JS(s, "errno_period_1", st->pt_errno_1 ? pms_errno_name(st->pt_errno_1) : NULL);
		JU(s, "new_period", st->pt_new);
		JB(s, "ring_buffer", st->pt_mmap);
		JU(s, "count_at_ioctl", st->pt_at);
		json_object_object_add(s, "poll_revents", json_object_new_int(st->pt_revents));
		JB(s, "pollin", st->pt_revents & POLLIN);
		JS(s, "behaviour", st->pt_revents & POLLIN ? "immediate" : "after_next_overflow");
		JU(s, "signals", st->pt_signals);
		json_object_object_add(s, "first_signal_value", st->pt_have_first ?
				       json_object_new_uint64(st->pt_first) : NULL);
		json_object_object_add(s, "expected_first_value", st->exact ?
				       json_object_new_uint64(st->pt_at + st->pt_new) : NULL);
	}
	json_object_object_add(o, "period_timing", s);

	s = jverdict(&st->sub[SUB_MIN]);
	if (st->sub[SUB_MIN].ran) {
		JS(s, "open_period_1", st->mp_open_errno_1 ? pms_errno_name(st->mp_open_errno_1) :
		   "ok");
		JS(s, "ioc_period_1", st->mp_ioc_errno_1 ? pms_errno_name(st->mp_ioc_errno_1) :
		   "ok");
		JB(s, "minimum_enforced", st->mp_open_errno_1 != 0);
		JU(s, "period_used", st->mp_min);
		json_object_object_add(s, "final_count", st->mp_final_valid ?
				       json_object_new_uint64(st->mp_final) : NULL);
		JU(s, "signals", st->mp_sig_hi - st->mp_sig_lo);
		JS(s, "judged_by", "the oracle section (this stream is the one it classifies)");
	}
	json_object_object_add(o, "min_period", s);

	s = jverdict(&st->sub[SUB_STORM]);
	if (st->sub[SUB_STORM].ran) {
		JU(s, "period_a", st->c.period);
		JU(s, "period_b", st->period_b);
		JU(s, "switches", st->nseg ? st->nseg - 1 : 0);
		JS(s, "model", pms_storm_model_name(st->model));
		JS(s, "rule", "restart: IOC_PERIOD(p) at count s puts overflows at s + t*p "
		   "(t >= 1) until the next switch; swevent: IOC_PERIOD(p) replacing q puts them "
		   "at s + 1, s + q, s + q + t*p (perf_swevent_set_period after period_left = 0; "
		   "a reschedule in between gives restart). Hardware counters must follow "
		   "restart; software and breakpoint events either, segment by segment");
		JU(s, "segments_restart", st->storm.segments_fit[PMS_STORM_RESTART]);
		JU(s, "segments_swevent", st->storm.segments_fit[PMS_STORM_SWEVENT]);
		JU(s, "segments_bad", st->storm.segments_bad);
		JU(s, "segments_count_bad", st->storm.segments_count_bad);
		JS(s, "judged_on", st->exact ? "every position (exact counter)" :
		   "lost == extra: as many signals as overflows over the storm (positions carry "
		   "skid, and a late signal can cross into the next segment)");
		JS(s, "segments", "each runs 1-3 periods plus a remainder, so switches land "
		   "mid-period");
		JU(s, "signals", st->st_sig_hi - st->st_sig_lo);
		JU(s, "expected", st->storm.expected);
		JU(s, "matched", st->storm.matched);
		JU(s, "lost", st->storm.lost);
		JU(s, "extra", st->storm.extra);
		x = json_object_new_object();
		JS(x, "model", "restart");
		JS(x, "meaning", "the strict reading (every delta is the period in force when it "
		   "started): mismatches here and not above are the swevent quirk");
		JU(x, "matched", st->storm_other.matched);
		JU(x, "lost", st->storm_other.lost);
		JU(x, "extra", st->storm_other.extra);
		json_object_object_add(s, "strict", x);
		JU(s, "max_error", st->storm.max_error);
		JB(s, "judged", st->c.ev.sem != PMS_SEM_TIMER);
		a = json_object_new_array();
		for (i = 0; i < st->storm.nr_bad; i++) {
			const struct pms_storm_bad *b = &st->storm.bad[i];

			x = json_object_new_object();
			JS(x, "kind", b->kind == PMS_STORM_LOST ? "lost" : "extra");
			JU(x, "signal", b->signal);
			JU(x, "value", b->value);
			json_object_object_add(x, "expected", b->expected ?
					       json_object_new_uint64(b->expected) : NULL);
			JU(x, "segment", b->seg);
			JU(x, "period", b->period);
			/* Where in its segment: right after the IOC_PERIOD or not. */
			JU(x, "segment_start", st->seg[b->seg].start);
			JU(x, "segment_end", st->seg[b->seg].end);
			json_object_array_add(a, x);
		}
		json_object_object_add(s, "mismatches", a);
		/* The signals around the first mismatch, and the segments there. */
		a = json_object_new_array();
		x = json_object_new_array();
		if (st->storm.nr_bad) {
			uint64_t b = st->storm.bad[0].signal, sg = st->storm.bad[0].seg, k;

			for (k = b > 4 ? b - 4 : 0; k < b + 4 && st->st_sig_lo + k < st->st_sig_hi;
			     k++)
				json_object_array_add(a, json_object_new_uint64(
					st->rec.sig[st->st_sig_lo + k].value));
			for (k = sg > 2 ? sg - 2 : 0; k < sg + 2 && k < st->nseg; k++) {
				json_object *g = json_object_new_object();

				JU(g, "segment", k);
				JU(g, "start", st->seg[k].start);
				JU(g, "end", st->seg[k].end);
				JU(g, "period", st->seg[k].period);
				JU(g, "prev", st->seg[k].prev);
				json_object_array_add(x, g);
			}
		}
		json_object_object_add(s, "first_mismatch_signals", a);
		json_object_object_add(s, "first_mismatch_segments", x);
	}
	json_object_object_add(o, "period_storm", s);

	s = jverdict(&st->sub[SUB_REFRESH]);
	JB(s, "hang_risk_kernel", st->gate > 0);
	JS(s, "hang_risk_why", st->gate_why);
	JB(s, "timer_event", st->c.ev.sem == PMS_SEM_TIMER);
	JB(s, "forced", st->force);
	JB(s, "refused", st->sub[SUB_REFRESH].selected && !st->sub[SUB_REFRESH].ran &&
	   st->sub[SUB_REFRESH].verdict == PMS_VERDICT_SKIP);
	JS(s, "si_code_note", "POLL_HUP (6) is the expected si_code of the signal of the last "
	   "overflow of each refresh; the recorder keeps it and the generic oracle would count "
	   "it as bad_si_code, so refresh is judged here, per round, and its signals are not "
	   "given to the oracle");
	if (st->sub[SUB_REFRESH].ran) {
		JU(s, "rounds", st->nrr);
		JU(s, "signals", st->rf_signals);
		JU(s, "poll_in", st->rf_in_total);
		JU(s, "poll_hup", st->rf_hup_total);
		JU(s, "rounds_ok", st->nrr - bad_rounds(st));
		a = json_object_new_array();
		for (i = 0; i < st->nrr; i++) {
			const struct refresh_round *rr = &st->rr[i];

			x = json_object_new_object();
			JU(x, "refresh", rr->a.limit);
			JU(x, "signals", rr->a.signals);
			JU(x, "poll_in", rr->a.poll_in);
			JU(x, "poll_hup", rr->a.poll_hup);
			JU(x, "other", rr->a.other);
			JB(x, "hup_last", rr->a.hup_last);
			JU(x, "counted", rr->counted);
			JB(x, "stopped", rr->stopped);
			JB(x, "ok", rr->a.ok);
			JB(x, "incomplete", rr->incomplete);
			json_object_array_add(a, x);
		}
		json_object_object_add(s, "per_refresh", a);
	}
	json_object_object_add(o, "refresh", s);

	s = jverdict(&st->sub[SUB_RESET]);
	if (st->sub[SUB_RESET].ran) {
		size_t c[4] = { 0 };

		JS(s, "rule", "r counts after an overflow, RESET: the count must read 0, and the "
		   "next overflow come at P - r (period position carried on) or at P (restarted), "
		   "the same in every round");
		for (i = 0; i < st->nrs; i++)
			c[st->rs[i].model]++;
		JU(s, "rounds", st->nrs);
		JU(s, "continues", c[PMS_RESET_CONTINUES]);
		JU(s, "restarts", c[PMS_RESET_RESTARTS]);
		JU(s, "not_zero", c[PMS_RESET_NOT_ZERO]);
		JU(s, "neither", c[PMS_RESET_NEITHER]);
		a = json_object_new_array();
		for (i = 0; i < st->nrs; i++) {
			x = json_object_new_object();
			JU(x, "since_overflow", st->rs[i].since);
			JU(x, "after_reset", st->rs[i].after);
			json_object_object_add(x, "next_overflow", st->rs[i].got_next ?
					       json_object_new_uint64(st->rs[i].next) : NULL);
			JS(x, "model", pms_reset_model_name(st->rs[i].model));
			json_object_array_add(a, x);
		}
		json_object_object_add(s, "per_round", a);
	}
	json_object_object_add(o, "reset", s);
	return o;
}

static void io_run(struct pms_run *run)
{
	struct io_state *st = run->priv;
	uint64_t watchdog = pms_opt_u64(&run->opts, "watchdog");
	uint64_t now = pms_now_ns(), last_seen = 0, last_ns = now;
	struct pms_oracle_cfg cfg = { 0 };
	struct pms_oracle_result res = { 0 };
	uint64_t start = now, deadline = now + st->storm_ns + watchdog + DEADLINE_GRACE_NS;
	uint64_t last_steps = 0, steps_ns = now, seen_at_steps = 0;
	bool watchdog_fired = false;
	char msg[512] = "", oreason[512], stuck[512] = "";
	int disabled = 0;
	json_object *o;
	size_t i, nfail = 0, nerr = 0, nran = 0;
	int ret;

	pms_thread_go(&st->thread);
	/*
	 * Three ways a worker stops making progress.  No signal and no step
	 * for the storm's length plus --watchdog: stuck.  Steps stopped while
	 * signals keep coming for STORM_NS: a signal storm (a timer event
	 * whose period is shorter than the handler: each sigreturn delivers
	 * the next queued signal and the worker never runs its own code, while
	 * the queue fills this uid's RLIMIT_SIGPENDING).  Past the hard
	 * deadline (every sub-test's bound plus grace) whatever it does.
	 * Then the supervisor disables the worker's events, which ends a
	 * storm, and waits a bounded time for it.
	 */
	while (!__atomic_load_n(&st->done, __ATOMIC_ACQUIRE)) {
		uint64_t seen, steps;

		if (pms_run_wait(run, TICK_NS))
			break;
		now = pms_now_ns();
		seen = pms_recorder_seen(&st->rec);
		steps = __atomic_load_n(&st->progress, __ATOMIC_RELAXED);
		if (steps != last_steps) {
			last_steps = steps;
			steps_ns = now;
			seen_at_steps = seen;
		}
		if (seen != last_seen) {
			last_seen = seen;
			last_ns = now;
		} else if (now - last_ns > watchdog + st->storm_ns) {
			watchdog_fired = true;
			snprintf(msg, sizeof(msg), "watchdog: no signal and no progress for %.1f s",
				 (double)(now - last_ns) / 1e9);
			break;
		}
		if (now - steps_ns > STORM_NS && seen - seen_at_steps > 1000) {
			int cur = __atomic_load_n(&st->cur, __ATOMIC_RELAXED);

			snprintf(stuck, sizeof(stuck), "signal storm in %s: the worker made no "
				 "progress for %.1f s while %llu signals arrived (%s overflowed "
				 "again before each handler returned, so the worker never ran its "
				 "own code and the queue of this uid's RLIMIT_SIGPENDING filled): "
				 "%s", cur < SUB_NR ? sub_names[cur] : "set-up",
				 (double)(now - steps_ns) / 1e9,
				 (unsigned long long)(seen - seen_at_steps), st->c.ev.name,
				 cur == SUB_MIN ? "min-period runs at period 1 whatever --period "
				 "says: leave it out with --only" : "lengthen --period");
			break;
		}
		if (now > deadline) {
			snprintf(stuck, sizeof(stuck), "the sub-tests did not end within %.1f s "
				 "(their bound plus grace)", (double)(deadline - start) / 1e9);
			break;
		}
	}
	if (stuck[0] || watchdog_fired)
		disabled = pms_perf_disable_guarded();
	if (pms_thread_stop_within(&st->thread, STOP_GRACE_NS)) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s; the worker did not stop within "
			 "%.0f s after its %d event(s) were disabled: left behind, its results "
			 "not read", stuck[0] ? stuck : msg, STOP_GRACE_NS / 1e9, disabled);
		return;
	}

	cfg.period = st->mp_min ? st->mp_min : st->c.period;
	cfg.tolerance = st->sub[SUB_MIN].ran ? (st->exact ? 0 : cfg.period / 10) : st->c.tolerance;
	cfg.sem = st->c.ev.sem;
	cfg.final_valid = st->mp_final_valid && !st->rec.dropped;
	cfg.final_value = st->mp_final;
	cfg.max_anomalies = pms_opt_u64(&run->opts, "max-anomalies");
	ret = pms_oracle_classify(&cfg, st->rec.sig + st->mp_sig_lo,
				  st->mp_sig_hi - st->mp_sig_lo, &res);
	if (ret) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "oracle failed: %s", strerror(-ret));
		return;
	}
	/* At period 1 every signal is within skid of the next overflow: only an
	 * exact counter can be held to one signal per count. */
	if (st->sub[SUB_MIN].ran && st->exact &&
	    pms_oracle_failed(&cfg, &res, oreason, sizeof(oreason))) {
		st->sub[SUB_MIN].verdict = PMS_VERDICT_FAIL;
		snprintf(st->sub[SUB_MIN].finding + strlen(st->sub[SUB_MIN].finding),
			 sizeof(st->sub[SUB_MIN].finding) - strlen(st->sub[SUB_MIN].finding),
			 "; at that period: %s", oreason);
	}

	json_object_object_add(run->result, "counter", pms_counter_to_json(&st->c));
	o = json_object_new_object();
	JS(o, "kind", pms_workload_name(st->work.kind));
	JS(o, "description", "user loop calling pms_workload_tick(); every ioctl between two calls");
	JU(o, "iterations", st->work.iterations);
	json_object_object_add(o, "final_count", NULL);
	json_object_object_add(o, "seconds", json_object_new_double(
		st->end_ns > st->start_ns ? (double)(st->end_ns - st->start_ns) / 1e9 : 0));
	json_object_object_add(o, "tid", json_object_new_int(st->tid));
	{
		json_object *cc = json_object_new_object();

		JB(cc, "applies", false);
		json_object_object_add(o, "count_check", cc);
	}
	json_object_object_add(run->result, "workload", o);

	json_object_object_add(run->result, "recorder", pms_recorder_to_json(&st->rec));

	json_object_object_add(run->result, "oracle", pms_oracle_to_json(&cfg, &res));
	o = json_object_new_object();
	JB(o, "fired", watchdog_fired);
	json_object_object_add(o, "message", msg[0] ? json_object_new_string(msg) : NULL);
	json_object_object_add(run->result, "watchdog", o);

	o = section(run, st);
	JS(o, "oracle_source", st->sub[SUB_MIN].ran ? "the oracle section classifies the "
	   "min-period stream only (one constant period), and judges it only on an exact "
	   "counter; the other sub-tests are judged here" :
	   "min-period did not run: the oracle section is empty");

	run->reason[0] = 0;
	for (i = 0; i < SUB_NR; i++) {
		const struct sub_res *r = &st->sub[i];

		if (!r->selected)
			continue;
		nran += r->ran;
		nfail += r->verdict == PMS_VERDICT_FAIL;
		nerr += r->verdict == PMS_VERDICT_ERROR;
		if (r->verdict == PMS_VERDICT_FAIL || r->verdict == PMS_VERDICT_ERROR ||
		    r->verdict == PMS_VERDICT_SKIP) {
			pms_run_append_reason(run, "%s %s: %s", sub_names[i],
					      pms_verdict_name(r->verdict), r->finding);
		}
	}
	{
		json_object *sv = json_object_new_object();

		json_object_object_add(sv, "stuck", stuck[0] ? json_object_new_string(stuck) : NULL);
		JU(sv, "events_disabled", (uint64_t)disabled);
		json_object_object_add(o, "supervisor", sv);
	}
	if (stuck[0])
		run->verdict = PMS_VERDICT_ERROR;	/* the run's own set-up, not the kernel */
	else if (watchdog_fired || nfail)
		run->verdict = PMS_VERDICT_FAIL;
	else if (nerr || !nran)
		run->verdict = nran ? PMS_VERDICT_ERROR : PMS_VERDICT_SKIP;
	else
		run->verdict = PMS_VERDICT_PASS;
	/* The schema lets only setup skip: all refused is "measured nothing". */
	if (run->verdict == PMS_VERDICT_SKIP)
		run->verdict = PMS_VERDICT_ERROR;
	if (watchdog_fired)
		pms_run_append_reason(run, "%s", msg);
	if (stuck[0]) {
		char was[sizeof(run->reason)];

		snprintf(was, sizeof(was), "%s", run->reason);
		snprintf(run->reason, sizeof(run->reason), "invalid run: %s; the supervisor "
			 "disabled %d event(s) to end it", stuck, disabled);
		if (was[0])
			pms_run_append_reason(run, "sub-tests so far: %s", was);
	}
	if (!run->reason[0])
		snprintf(run->reason, sizeof(run->reason), "%zu sub-test(s) passed", nran);
	/*
	 * Each finding names its ioctl, round and counts: the ioctl is the
	 * evidence, and no schedule-out path is in play, so a failure is
	 * matched to known bugs as "unexplained" (their cause in the table).
	 */
	pms_run_known_issues(run, run->verdict == PMS_VERDICT_FAIL ? "unexplained" : NULL,
			     st->c.ev.attr.exclude_kernel);
	JS(o, "verdict", pms_verdict_name(run->verdict));
	json_object_object_add(run->result, "ioctl_semantics", o);
	pms_oracle_result_free(&res);
}

static void io_teardown(struct pms_run *run)
{
	struct io_state *st = run->priv;

	/*
	 * A worker that did not stop even with its events disabled still uses
	 * this state and the recorder: leave them to it (run->priv NULL: not
	 * freed either); the process's exit ends the thread.
	 */
	if (st->thread.abandoned) {
		run->priv = NULL;
		return;
	}
	pms_thread_stop(&st->thread);
	pms_recorder_fini(&st->rec);
	pms_workload_fini(&st->work);
	free(st->seg);
	pms_thread_fini(&st->thread);
}

const struct pms_scenario pms_scenario_ioctl_semantics = {
	.name = "ioctl-semantics",
	.summary = "IOC_PERIOD applies at once and is obeyed, IOC_REFRESH(n) gives n signals "
		   "then POLL_HUP, IOC_RESET keeps the period consistent",
	.seed = "rr's has_ioc_period_bug probe; Intel minimum-period errata; IOC_REFRESH POLL_HUP "
		"restored in 6.17-rc5 and \"perf/core: Fix system hang caused by cpu-clock "
		"usage\" (Nov 2025)",
	.needs = "a hardware PMU (else the breakpoint substitute)",
	.priv_size = sizeof(struct io_state),
	PMS_SCENARIO_OPTS(io_opts),
	.setup = io_setup,
	.run = io_run,
	.teardown = io_teardown,
};
