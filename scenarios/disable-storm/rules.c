// SPDX-License-Identifier: GPL-2.0-only
/*
 * disable-storm: the DISABLE/ENABLE toggler, its log, and the experiment
 * that says what ENABLE does to the remaining period of a counter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "rules.h"
#include "pms-perf.h"
#include "pms-util.h"

/**
 * pms_toggle_log_init - allocate and prefault room for @cap toggles
 * @log: zeroed log
 * @cap: number of toggles
 *
 * Prefaulted so that a toggle logged from a signal handler never faults
 * (a fault would count on a page-faults event).
 *
 * Return: 0, -EINVAL or -errno of mmap.
 */
int pms_toggle_log_init(struct pms_toggle_log *log, size_t cap)
{
	void *p;

	if (!cap)
		return -EINVAL;
	p = mmap(NULL, cap * sizeof(*log->t), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	log->t = p;
	log->cap = cap;
	log->n = log->failed = log->full = 0;
	log->stopped = 0;
	return 0;
}

/**
 * pms_toggle_log_fini - free the log
 * @log: log; safe to call on a zeroed or freed one
 */
void pms_toggle_log_fini(struct pms_toggle_log *log)
{
	if (log->t)
		munmap(log->t, log->cap * sizeof(*log->t));
	log->t = NULL;
	log->cap = 0;
}

/**
 * pms_toggle_once - DISABLE, read, ENABLE and log one toggle
 * @fd: the perf event
 * @log: where to log it
 *
 * Return: 0, -ESHUTDOWN, -ENOSPC, or -errno of the step that failed.
 */
int pms_toggle_once(int fd, struct pms_toggle_log *log)
{
	struct pms_toggle *t;
	uint64_t slot, value = 0;
	int saved = errno, err = 0, ret;

	if (__atomic_load_n(&log->stopped, __ATOMIC_ACQUIRE))
		return -ESHUTDOWN;
	slot = __atomic_fetch_add(&log->n, 1, __ATOMIC_RELAXED);
	if (slot >= log->cap) {
		__atomic_fetch_sub(&log->n, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&log->full, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	t = &log->t[slot];
	t->disable_ns = pms_now_ns();
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		err = -errno;
	/* a bare read(2): safe in the signal handler too */
	ret = pms_perf_read(fd, &value);
	t->value_valid = !ret;
	if (ret && !err)
		err = ret;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) && !err)
		err = -errno;
	t->enable_ns = pms_now_ns();
	t->value = value;
	t->err = err;
	if (err)
		__atomic_fetch_add(&log->failed, 1, __ATOMIC_RELAXED);
	errno = saved;
	return err;
}

/**
 * pms_toggle_last_before - binary search of the toggle log by DISABLE time
 * @t: toggles in time order
 * @n: how many
 * @time_ns: CLOCK_MONOTONIC time
 *
 * Return: index of the last toggle with disable_ns <= @time_ns, or -1.
 */
long pms_toggle_last_before(const struct pms_toggle *t, size_t n, uint64_t time_ns)
{
	return (long)PMS_UPPER_BOUND(t, n, disable_ns, time_ns) - 1;
}

/**
 * pms_toggle_restarts - ENABLE values for the oracle's restart segments
 * @t: toggles in log order
 * @n: how many
 * @out: room for @n values
 *
 * A toggle that failed or whose value could not be read is left out: where
 * ENABLE resumed is then unknown (the run reports it as failed toggles).
 *
 * Return: number written, or -EINVAL if the values go backwards.
 */
long pms_toggle_restarts(const struct pms_toggle *t, size_t n, uint64_t *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (t[i].err || !t[i].value_valid)
			continue;
		if (k && t[i].value < out[k - 1])
			return -EINVAL;
		out[k++] = t[i].value;
	}
	return (long)k;
}

const char *pms_enable_sem_name(enum pms_enable_sem s)
{
	switch (s) {
	case PMS_ENABLE_KEEPS:
		return "keeps_period";
	case PMS_ENABLE_RESTARTS:
		return "restarts_period";
	default:
		return "unknown";
	}
}

/**
 * pms_enable_sem_decide - the probe's verdict
 * @sigs_second: signals after PMS_PROBE_FIRST + PMS_PROBE_SECOND units
 * @sigs_third: further signals after PMS_PROBE_THIRD more units
 * @count_second: counter value after the second stretch
 * @count_third: counter value after the third stretch
 *
 * Return: PMS_ENABLE_KEEPS, PMS_ENABLE_RESTARTS or PMS_ENABLE_UNKNOWN.
 */
enum pms_enable_sem pms_enable_sem_decide(uint64_t sigs_second, uint64_t sigs_third,
					  uint64_t count_second, uint64_t count_third)
{
	/* Anything but one count per unit of work makes the timing meaningless. */
	if (count_second != PMS_PROBE_FIRST + PMS_PROBE_SECOND ||
	    count_third != count_second + PMS_PROBE_THIRD)
		return PMS_ENABLE_UNKNOWN;
	if (sigs_second == 1 && sigs_third == 0)
		return PMS_ENABLE_KEEPS;
	if (sigs_second == 0 && sigs_third == 1)
		return PMS_ENABLE_RESTARTS;
	return PMS_ENABLE_UNKNOWN;
}

/*
 * Signals that came so far.  The overflow's signal is sent from irq_work,
 * which runs as soon as the exception that counted returns; the short wait
 * only covers a kernel that defers it further.
 */
static uint64_t collect(const sigset_t *set, int signo, long wait_ns)
{
	struct timespec ts = { 0, wait_ns };
	uint64_t n = 0;

	while (sigtimedwait(set, NULL, &ts) == signo) {
		n++;
		ts.tv_nsec = 0;
	}
	return n;
}

/**
 * pms_enable_probe - measure what ENABLE does to the remaining period
 * @c: the counter (its event, exclude bits and breakpoint address)
 * @w: the workload whose units the counter counts
 * @signo: a real-time signal nobody else uses
 * @out: the measurement
 *
 * Return: 0 or -errno.
 */
int pms_enable_probe(const struct pms_counter *c, struct pms_workload *w, int signo,
		     struct pms_enable_probe *out)
{
	struct perf_event_attr attr;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigset_t set, oldmask;
	int fd, ret = 0, i;
	const long wait_ns = 20000000;

	memset(out, 0, sizeof(*out));
	sigemptyset(&set);
	sigaddset(&set, signo);
	pthread_sigmask(SIG_BLOCK, &set, &oldmask);
	pms_counter_attr(c, &attr);
	attr.sample_period = PMS_PROBE_PERIOD;
	attr.disabled = 1;
	fd = pms_perf_open_self(&attr, -1);
	if (fd < 0) {
		ret = fd;
		goto out_mask;
	}
	ret = pms_perf_async(fd, signo, gettid());
	if (ret)
		goto out_close;
	collect(&set, signo, 0);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < PMS_PROBE_FIRST; i++)
		pms_workload_step(w);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		ret = -errno;
		goto out_close;
	}
	for (i = 0; i < PMS_PROBE_SECOND; i++)
		pms_workload_step(w);
	/* Read while counting: a second DISABLE/ENABLE would move a restart. */
	pms_perf_read(fd, &out->count_second);
	out->sigs_second = collect(&set, signo, wait_ns);
	for (i = 0; i < PMS_PROBE_THIRD; i++)
		pms_workload_step(w);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	pms_perf_read(fd, &out->count_third);
	out->sigs_third = collect(&set, signo, wait_ns);
	out->result = pms_enable_sem_decide(out->sigs_second, out->sigs_third,
					    out->count_second, out->count_third);
out_close:
	if (fd >= 0)
		close(fd);
out_mask:
	/* Nothing left pending may reach the default action (terminate). */
	sigaction(signo, &ign, &old);
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(signo, &old, NULL);
	out->err = ret;
	return ret;
}

/**
 * pms_enable_probe_to_json - the probe as a JSON object
 * @p: the measurement
 * @applies: whether the probe ran (the counter counts units of work)
 *
 * Return: {applies, result, signals_after_12, signals_after_16, count_*,
 * error}; NULL on allocation failure.
 */
json_object *pms_enable_probe_to_json(const struct pms_enable_probe *p, bool applies)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "applies", json_object_new_boolean(applies));
	json_object_object_add(o, "result", json_object_new_string(
		applies ? pms_enable_sem_name(p->result) : "not_measured"));
	json_object_object_add(o, "period", json_object_new_int(PMS_PROBE_PERIOD));
	json_object_object_add(o, "toggle_at", json_object_new_int(PMS_PROBE_FIRST));
	json_object_object_add(o, "signals_at_12", applies ?
			       json_object_new_uint64(p->sigs_second) : NULL);
	json_object_object_add(o, "signals_at_16", applies ?
			       json_object_new_uint64(p->sigs_third) : NULL);
	json_object_object_add(o, "count_at_12", applies ?
			       json_object_new_uint64(p->count_second) : NULL);
	json_object_object_add(o, "count_at_16", applies ?
			       json_object_new_uint64(p->count_third) : NULL);
	json_object_object_add(o, "error", applies && p->err ?
			       json_object_new_string(strerror(-p->err)) : NULL);
	return o;
}

void pms_control_split(const struct pms_signal *sig, size_t n, const struct pms_toggle *t0,
		       uint64_t base, uint64_t period, uint64_t lost, uint64_t implied,
		       struct pms_stressor_control *c)
{
	uint64_t sigs = 0, before;
	size_t i;

	c->valid = false;
	c->overflows = c->lost = c->overflows_with = c->lost_with = 0;
	if (!period || t0->value < base)
		return;
	for (i = 0; i < n; i++)
		if (sig[i].time_ns < t0->disable_ns)
			sigs++;
	before = (t0->value - base) / period;
	if (before > sigs)
		before--;		/* the one in flight: the storm's */
	if (before > implied)
		return;
	c->valid = true;
	c->overflows = before;
	c->lost = before > sigs ? before - sigs : 0;
	if (c->lost > lost)
		c->lost = lost;
	c->overflows_with = implied - before;
	c->lost_with = lost - c->lost;
	if (c->lost_with > c->overflows_with)
		c->lost_with = c->overflows_with;
}
