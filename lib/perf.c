// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_event_open(2) plumbing: opening (and the user-only attr that one-off
 * feature opens start from), error sentences, O_ASYNC routing and the
 * overflow-signal recorder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pms-perf.h"
#include "pms-util.h"

int pms_perf_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd,
		  unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, tid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int pms_perf_open_self(struct perf_event_attr *attr, int group_fd)
{
	return pms_perf_open(attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

void pms_perf_attr_user(struct perf_event_attr *attr, __u32 type, __u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

bool pms_perf_err_no_hardware(int err)
{
	err = err < 0 ? -err : err;
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV;
}

void pms_perf_strerror(int err, const struct pms_event *ev, char *buf, size_t len)
{
	const char *what = ev ? ev->spec : "event";
	char paranoid[16] = "?";

	err = err < 0 ? -err : err;
	pms_read_text("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, len, "perf_event_open(%s) failed with %s: not permitted with "
			 "kernel.perf_event_paranoid=%s; run as root, grant CAP_PERFMON, or "
			 "lower the sysctl (exclude_kernel events need <= 2, kernel counting <= 1)",
			 what, pms_errno_name(err), paranoid);
		break;
	case ENOENT:
		snprintf(buf, len, "perf_event_open(%s) failed with ENOENT: the event does not "
			 "exist on this machine (no hardware PMU, or the PMU does not implement "
			 "this event; see `pmustress probe`)", what);
		break;
	case EOPNOTSUPP:
		snprintf(buf, len, "perf_event_open(%s) failed with EOPNOTSUPP: the PMU lacks a "
			 "capability the attr asks for (sampling interrupt, precise_ip, an "
			 "exclude_* filter, or aux_action)", what);
		break;
	case ENODEV:
		snprintf(buf, len, "perf_event_open(%s) failed with ENODEV: the PMU does not "
			 "cover this CPU (hybrid system?)", what);
		break;
	case E2BIG:
		snprintf(buf, len, "perf_event_open(%s) failed with E2BIG: this kernel predates "
			 "a perf_event_attr field pmustress set (attr size %zu)", what,
			 sizeof(struct perf_event_attr));
		break;
	case EINVAL:
		snprintf(buf, len, "perf_event_open(%s) failed with EINVAL: the kernel rejected "
			 "an attr field (period too small for this PMU, an unknown config or "
			 "exclude bit, a reserved field, or use_clockid unsupported)", what);
		break;
	case EBUSY:
		snprintf(buf, len, "perf_event_open(%s) failed with EBUSY: the counter is taken "
			 "(another exclusive user, or no free breakpoint slot)", what);
		break;
	case ENOSPC:
		snprintf(buf, len, "perf_event_open(%s) failed with ENOSPC: no free breakpoint "
			 "or counter slot", what);
		break;
	default:
		snprintf(buf, len, "perf_event_open(%s) failed with %s: %s", what,
			 pms_errno_name(err), strerror(err));
	}
}

int pms_perf_async(int fd, int signo, pid_t tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	int flags;

	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_ASYNC))
		return -errno;
	if (fcntl(fd, F_SETSIG, signo))
		return -errno;
	if (fcntl(fd, F_SETOWN_EX, &owner))
		return -errno;
	return 0;
}

int pms_perf_read_times(int fd, uint64_t *value, uint64_t *enabled, uint64_t *running)
{
	/* value, then time_enabled and time_running where read_format asks */
	uint64_t buf[3] = { 0, 0, 0 };
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return -errno;
	if (n < (ssize_t)sizeof(buf[0]))
		return -EIO;
	*value = buf[0];
	if (enabled)
		*enabled = n >= (ssize_t)sizeof(buf) ? buf[1] : 0;
	if (running)
		*running = n >= (ssize_t)sizeof(buf) ? buf[2] : 0;
	return n >= (ssize_t)sizeof(buf) ? 1 : 0;
}

static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guarded[PMS_PERF_GUARD_MAX];
static size_t nguarded;

void pms_perf_guard(int fd)
{
	pthread_mutex_lock(&guard_lock);
	if (fd >= 0 && nguarded < PMS_PERF_GUARD_MAX)
		guarded[nguarded++] = fd;
	pthread_mutex_unlock(&guard_lock);
}

/* Under the lock, so a supervisor never disables a number reused by close+open. */
void pms_perf_unguard(int fd)
{
	size_t i;

	pthread_mutex_lock(&guard_lock);
	for (i = 0; i < nguarded; i++)
		if (guarded[i] == fd) {
			guarded[i] = guarded[--nguarded];
			break;
		}
	pthread_mutex_unlock(&guard_lock);
}

int pms_perf_disable_guarded(void)
{
	size_t i;
	int n = 0;

	pthread_mutex_lock(&guard_lock);
	for (i = 0; i < nguarded; i++)
		n += !ioctl(guarded[i], PERF_EVENT_IOC_DISABLE, 0);
	pthread_mutex_unlock(&guard_lock);
	return n;
}

int pms_perf_read(int fd, uint64_t *value)
{
	int ret = pms_perf_read_times(fd, value, NULL, NULL);

	return ret < 0 ? ret : 0;
}

/* One recorder at a time: the handler has no other way to find it. */
static struct pms_recorder *active;
static struct sigaction old_rt, old_io;
/* Streaming mode: the lane of the thread the handler runs on (-1: none). */
static __thread int tls_lane = -1;

void pms_recorder_lane_bind(int lane)
{
	tls_lane = lane;
}

/*
 * Streaming mode: one single-producer ring per counting thread.  Signals
 * are routed to their thread (F_SETOWN_EX), so the producer is the handler
 * on that thread, never nested (both signals are blocked while it runs),
 * and the consumer is the drain.  A full ring drops and counts.
 */
static void record_lane(struct pms_recorder *r, const struct pms_signal *sig)
{
	struct pms_sigring *q;
	uint64_t head, tail;

	if (tls_lane < 0 || (unsigned int)tls_lane >= r->nlanes) {
		__atomic_fetch_add(&r->misrouted, 1, __ATOMIC_RELAXED);
		return;
	}
	q = &r->lanes[tls_lane];
	head = q->head;
	tail = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
	if (head - tail > q->mask) {
		__atomic_fetch_add(&q->overflow, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	q->slot[head & q->mask] = *sig;
	__atomic_store_n(&q->head, head + 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&r->n, 1, __ATOMIC_RELAXED);
}

size_t pms_recorder_lane_pop(struct pms_recorder *r, unsigned int lane, struct pms_signal *out,
			     size_t max)
{
	struct pms_sigring *q = &r->lanes[lane];
	uint64_t head = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE), tail = q->tail, n = 0;

	while (tail + n < head && n < max) {
		out[n] = q->slot[(tail + n) & q->mask];
		n++;
	}
	__atomic_store_n(&q->tail, tail + n, __ATOMIC_RELEASE);
	return (size_t)n;
}

static void record(int signo, siginfo_t *si, void *uc)
{
	struct pms_recorder *r = active;
	struct pms_signal *s;
	struct timespec ts;
	uint64_t value[3] = { 0, 0, 0 }, slot;
	int saved = errno;

	if (!r)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	slot = __atomic_add_fetch(&r->arrived, 1, __ATOMIC_RELAXED);
	if ((r->inject_drop_every && slot % r->inject_drop_every == 0) ||
	    (r->inject_stop_after && slot > r->inject_stop_after)) {
		__atomic_fetch_add(&r->injected, 1, __ATOMIC_RELAXED);
		errno = saved;
		return;
	}
	__atomic_fetch_add(&r->seen, 1, __ATOMIC_RELAXED);
	if (signo == SIGIO)
		__atomic_fetch_add(&r->sigio, 1, __ATOMIC_RELAXED);
	/* SIGIO from a queue overflow carries no si_fd: the value stays 0. */
	if (signo == r->signo && read(si->si_fd, value, sizeof(value)) < (ssize_t)sizeof(value[0]))
		__atomic_fetch_add(&r->read_errors, 1, __ATOMIC_RELAXED);
	if (r->lanes) {
		struct pms_signal one = {
			.value = value[0],
			.time_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
			.cpu = sched_getcpu(),
			.si_code = si->si_code,
			.fd = signo == r->signo ? si->si_fd : -1,
			.off_pmu_ns = (uint32_t)(value[1] - value[2]),
		};

		record_lane(r, &one);
		errno = saved;
		return;
	}
	slot = __atomic_fetch_add(&r->n, 1, __ATOMIC_RELAXED);
	if (slot >= r->cap) {
		__atomic_fetch_sub(&r->n, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&r->dropped, 1, __ATOMIC_RELAXED);
	} else {
		s = &r->sig[slot];
		s->value = value[0];
		s->time_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		s->cpu = sched_getcpu();
		s->si_code = si->si_code;
		s->fd = signo == r->signo ? si->si_fd : -1;
		s->off_pmu_ns = (uint32_t)(value[1] - value[2]);
	}
	if (signo == r->signo && r->disable_at && slot + 1 >= r->disable_at &&
	    !ioctl(si->si_fd, PERF_EVENT_IOC_DISABLE, 0))
		__atomic_fetch_add(&r->storm_stops, 1, __ATOMIC_RELAXED);
	if (r->hook)
		r->hook(r->hook_arg, si);
	errno = saved;
}

int pms_recorder_init(struct pms_recorder *r, size_t cap, int signo)
{
	struct sigaction sa;
	size_t bytes = cap * sizeof(*r->sig);

	if (active || !cap)
		return -EBUSY;
	r->sig = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		      MAP_POPULATE, -1, 0);
	if (r->sig == MAP_FAILED) {
		r->sig = NULL;
		return -errno;
	}
	r->cap = cap;
	r->n = r->seen = r->dropped = r->sigio = r->read_errors = 0;
	r->arrived = r->injected = 0;
	r->signo = signo;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = record;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	active = r;
	if (sigaction(signo, &sa, &old_rt) || sigaction(SIGIO, &sa, &old_io)) {
		int err = -errno;

		active = NULL;
		munmap(r->sig, bytes);
		r->sig = NULL;
		return err;
	}
	return 0;
}

int pms_recorder_init_stream(struct pms_recorder *r, unsigned int nlanes, size_t lane_cap,
			     int signo)
{
	struct sigaction sa;
	size_t cap = 1, bytes;
	unsigned int i;
	char *mem;

	if (active || !nlanes || !lane_cap)
		return -EBUSY;
	while (cap < lane_cap)
		cap <<= 1;
	bytes = (size_t)nlanes * (sizeof(struct pms_sigring) + cap * sizeof(struct pms_signal));
	/* Prefaulted so that the handler never takes a page fault. */
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		   -1, 0);
	if (mem == MAP_FAILED)
		return -errno;
	memset(r, 0, sizeof(*r));
	r->lanes = (struct pms_sigring *)mem;
	r->nlanes = nlanes;
	r->lanes_bytes = bytes;
	for (i = 0; i < nlanes; i++) {
		r->lanes[i].slot = (struct pms_signal *)(mem + (size_t)nlanes *
				   sizeof(struct pms_sigring) + (size_t)i * cap *
				   sizeof(struct pms_signal));
		r->lanes[i].mask = cap - 1;
	}
	r->cap = (size_t)nlanes * cap;
	r->signo = signo;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = record;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	/* One producer per ring: the handler is never nested on its thread. */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, signo);
	sigaddset(&sa.sa_mask, SIGIO);
	active = r;
	if (sigaction(signo, &sa, &old_rt) || sigaction(SIGIO, &sa, &old_io)) {
		int err = -errno;

		active = NULL;
		munmap(mem, bytes);
		r->lanes = NULL;
		return err;
	}
	return 0;
}

void pms_recorder_fini(struct pms_recorder *r)
{
	if (active != r)
		return;
	sigaction(r->signo, &old_rt, NULL);
	sigaction(SIGIO, &old_io, NULL);
	active = NULL;
	if (r->lanes) {
		munmap(r->lanes, r->lanes_bytes);
		r->lanes = NULL;
		return;
	}
	munmap(r->sig, r->cap * sizeof(*r->sig));
	r->sig = NULL;
}

uint64_t pms_recorder_seen(const struct pms_recorder *r)
{
	return __atomic_load_n(&r->seen, __ATOMIC_RELAXED);
}

json_object *pms_recorder_to_json(const struct pms_recorder *r)
{
	json_object *o = json_object_new_object(), *fi = NULL;

	json_object_object_add(o, "signal", json_object_new_int(r->signo));
	json_object_object_add(o, "delivery", json_object_new_string(
		"O_ASYNC + F_SETSIG (real-time signal) + F_SETOWN_EX (F_OWNER_TID)"));
	json_object_object_add(o, "storage", json_object_new_string(r->lanes ?
		"streaming: a ring per counting thread, drained and judged as the run goes" :
		"array: every signal of the run kept"));
	json_object_object_add(o, "capacity", json_object_new_uint64(r->cap));
	if (r->lanes) {
		json_object *per = json_object_new_array();
		unsigned int i;

		for (i = 0; i < r->nlanes; i++)
			json_object_array_add(per, json_object_new_uint64(r->lanes[i].overflow));
		json_object_object_add(o, "ring_slots_per_thread",
				       json_object_new_uint64(r->lanes[0].mask + 1));
		json_object_object_add(o, "ring_overflow_per_thread", per);
		json_object_object_add(o, "misrouted", json_object_new_uint64(r->misrouted));
	}
	json_object_object_add(o, "stored", json_object_new_uint64(r->n));
	json_object_object_add(o, "delivered", json_object_new_uint64(r->seen));
	json_object_object_add(o, "dropped_full", json_object_new_uint64(r->dropped));
	json_object_object_add(o, "sigio_fallback", json_object_new_uint64(r->sigio));
	json_object_object_add(o, "read_errors", json_object_new_uint64(r->read_errors));
	json_object_object_add(o, "storm_stops", json_object_new_uint64(r->storm_stops));
	if (r->inject_drop_every || r->inject_stop_after) {
		fi = json_object_new_object();
		json_object_object_add(fi, "drop_every", json_object_new_uint64(r->inject_drop_every));
		json_object_object_add(fi, "stop_after", json_object_new_uint64(r->inject_stop_after));
		json_object_object_add(fi, "signals_ignored", json_object_new_uint64(r->injected));
	}
	json_object_object_add(o, "fault_injection", fi);
	return o;
}

void pms_watchdog_start(struct pms_watchdog *w, uint64_t period, uint64_t timeout_ns,
			uint64_t now)
{
	memset(w, 0, sizeof(*w));
	w->period = period;
	w->timeout_ns = timeout_ns;
	w->last_signal_ns = now;
}

bool pms_watchdog_check(struct pms_watchdog *w, uint64_t now, uint64_t seen, uint64_t value)
{
	if (seen != w->last_seen) {
		w->last_seen = seen;
		w->last_signal_ns = now;
		w->last_value = value;
	}
	if (now - w->last_signal_ns < w->timeout_ns)
		return false;
	if (value - w->last_value >= 2 * w->period) {
		w->fired = true;
		snprintf(w->message, sizeof(w->message), "watchdog: no signal for %.1f s while the "
			 "counter advanced by %llu (%.1f periods)",
			 (double)(now - w->last_signal_ns) / 1e9,
			 (unsigned long long)(value - w->last_value),
			 (double)(value - w->last_value) / (double)w->period);
		return true;
	}
	if (value == w->last_value) {
		w->stalled = true;
		snprintf(w->message, sizeof(w->message), "the counter did not advance for %.1f s "
			 "(value %llu): the event counts nothing here (exclude bits? not "
			 "supported on this CPU?)", (double)(now - w->last_signal_ns) / 1e9,
			 (unsigned long long)value);
		return true;
	}
	return false;
}

json_object *pms_watchdog_to_json(const struct pms_watchdog *w)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "fired", json_object_new_boolean(w->fired || w->stalled));
	json_object_object_add(o, "message", w->message[0] ?
			       json_object_new_string(w->message) : NULL);
	return o;
}
