// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigtrap: is every synchronous SIGTRAP of a perf event (attr.sigtrap,
 * Linux 5.13+) delivered, once, to the thread that caused it, before that
 * thread's next instruction, with the right siginfo, across inherited
 * threads, thread churn, a fork, an exec (remove_on_exec), DISABLE/ENABLE
 * and MODIFY_ATTRIBUTES storms, CPU migration and signal-masking windows?
 *
 * Seed: the sigtrap fixes of 5.13-6.x (ca6c21327c6a lost SIGTRAPs under a
 * disable race, 517e6a301f34, c5d93d23a260, 56799bc03565) and the kernel
 * selftest sigtrap_threads, which counts hits and hangs on a lost signal.
 *
 * Exact by construction.  Every access of every thread is bracketed: the
 * thread notes the access's sequence number, accesses, and clears it; the
 * SIGTRAP handler, running on the thread that took the trap, counts a trap
 * against the access in flight (synchronous) or, with none in flight,
 * calls it late or meant for another thread.  The storm thread changes the
 * event only inside a seqlock write section, so each access knows whether
 * the event was on, off or changing during it: on gives exactly the traps
 * the period model says, off none, changing zero or one (counted apart,
 * never judged).  A missing trap cannot block anything: the access just
 * completes.  Only a thread that stops making progress (stuck in the
 * kernel) needs the watchdog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "pms-cpus.h"
#include "pms-event.h"
#include "pms-probe.h"
#include "pms-perf.h"
#include "pms-util.h"
#include "rules.h"
#include "scenarios.h"

#define TICK_NS 5000000ull		/* the supervisor's poll */
#define JOIN_GRACE_NS (2 * NS_PER_S)	/* for a thread asked to stop, event disabled */
#define EXEC_GRACE_NS (10 * NS_PER_S)	/* fork + exec + helper, whatever the event does */
#define SIG_DATA_MAGIC 0x5157a9d0000000ull
#define SLOT_B_OFFSET 64		/* the second watched address (MODIFY storm) */
#define MAX_THREADS 4096

enum st_kind { K_WATCH_W, K_WATCH_RW, K_EXEC, K_CYCLES, K_INSTRUCTIONS };
enum st_storm { STORM_NONE, STORM_TOGGLE, STORM_MODIFY, STORM_BOTH };
enum st_role { ROLE_WORKER, ROLE_PRE };

static const char *const kinds[] = { "watch-w", "watch-rw", "exec", "cycles", "instructions",
				     NULL };
static const char *const storms[] = { "none", "toggle", "modify", "both", NULL };
static const char *const mover_kinds[] = { "none", "hwloc", NULL };

static const struct pms_opt_desc st_opts[] = {
	{ .name = "trap", .type = PMS_OPT_CHOICE, .def = "watch-w", .choices = kinds,
	  .arg = "watch-w|watch-rw|exec|cycles|instructions",
	  .help = "the event: data watchpoint on writes (or reads and writes) of a shared "
		  "variable, execute breakpoint on a shared function, or a sampling counter" },
	{ .name = "threads", .type = PMS_OPT_U64, .min = 1, .max = 1024, .arg = "N",
	  .help = "worker threads started after the event is open (default: 4 per CPU)" },
	{ .name = "pre-threads", .type = PMS_OPT_U64, .def = "1", .min = 0, .max = 64, .arg = "N",
	  .help = "threads started before the event is open: they never inherit it and must "
		  "get no trap" },
	{ .name = "accesses", .type = PMS_OPT_U64, .def = "20000", .min = 1, .max = 1ull << 32,
	  .arg = "N", .help = "triggering accesses per worker (split over its generations)" },
	{ .name = "churn", .type = PMS_OPT_U64, .def = "0", .min = 0, .max = 64, .arg = "N",
	  .help = "each worker's accesses are made by N+1 threads in turn, each started "
		  "when the one before exits" },
	{ .name = "inherit-thread", .type = PMS_OPT_FLAG,
	  .help = "attr.inherit_thread: threads inherit the event, the fork child does not" },
	{ .name = "exec-check", .type = PMS_OPT_CHOICE, .def = "on",
	  .choices = (const char *const[]){ "on", "off", NULL }, .arg = "on|off",
	  .help = "fork a child that counts its inherited traps, then execs: after exec "
		  "(remove_on_exec) the same accesses must give none" },
	{ .name = "storm", .type = PMS_OPT_CHOICE, .def = "none", .choices = storms,
	  .arg = "none|toggle|modify|both",
	  .help = "from another thread: DISABLE/ENABLE, MODIFY_ATTRIBUTES moving bp_addr "
		  "between two addresses, or both in turn" },
	{ .name = "storm-interval", .type = PMS_OPT_INTERVAL, .def = "20us", .min = 0,
	  .max = 10 * NS_PER_S, .arg = "TIME",
	  .help = "pause between storm operations (0: back to back; bare number in us)" },
	{ .name = "unclone", .type = PMS_OPT_CHOICE, .def = "auto",
	  .choices = (const char *const[]){ "auto", "on", "off", NULL }, .arg = "auto|on|off",
	  .help = "each thread opens a dummy event on itself so its inherited context stops "
		  "being a clone, which the kernel's fast context switch swaps between sibling "
		  "threads, period phase and all (auto: on where the period is over 1)" },
	{ .name = "mask-every", .type = PMS_OPT_U64, .def = "0", .min = 0, .max = 1ull << 32,
	  .arg = "N", .help = "every Nth access is made with SIGTRAP blocked: its trap must "
		  "come at the unblock, flagged asynchronous (needs si_perf_flags, 5.18+)" },
	{ .name = "mover", .type = PMS_OPT_CHOICE, .def = "none", .choices = mover_kinds,
	  .arg = "none|hwloc", .help = "also move the first worker between CPUs" },
	{ .name = "cpus", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "CPUs the mover uses (default: two CPUs of the same CPU kind)" },
	PMS_MOVER_OPTS,
	{ .name = "inject-drop-every", .type = PMS_OPT_U64, .def = "0", .min = 0,
	  .max = 1ull << 32, .arg = "N",
	  .help = "TESTING: the handler ignores every Nth SIGTRAP of each thread" },
	{ .name = "inject-stall-after", .type = PMS_OPT_U64, .def = "0", .min = 0,
	  .max = 1ull << 32, .arg = "N",
	  .help = "TESTING: the first worker stops making progress after N accesses" },
};

/* A trap or access worth showing a maintainer, kept up to --max-anomalies. */
struct st_anom {
	uint64_t time_ns, seq;
	int32_t tid;
	uint32_t cls;		/* enum anom_cls */
	uint32_t bad;		/* ST_BAD_* */
	int32_t prev;		/* the thread's access before: enum st_access, -1 none */
	struct st_sig sig;
};

enum anom_cls { A_LOST, A_DUPLICATE, A_UNEXPECTED, A_WRONG_THREAD, A_WRONG_DATA, A_LATE };
static const char *const anom_names[] = { "lost", "duplicate", "unexpected", "wrong_thread",
					  "wrong_data", "late" };

struct st_state;

struct st_worker {
	struct st_state *st;
	enum st_role role;
	unsigned int index, generation;
	bool inherited;		/* started after the event opened */
	pid_t tid;
	uint64_t target, seq_base;
	pthread_t thread;
	bool started, joined;
	int done;
	uint64_t progress;	/* accesses done: the supervisor's watchdog reads it */

	/* the thread and its handler only */
	volatile uint64_t inflight;	/* seq of the access in flight, 0: none */
	volatile uint64_t mask_seq;	/* masked access waiting for its unblock */
	volatile uint64_t t0;
	volatile uint64_t cur_addr;
	volatile uint32_t got, got_async;
	uint64_t seen, injected, unclaimed;
	uint64_t late, wrong_thread, wrong_data, bad_field[ST_BAD_NR];

	uint64_t accesses, judged_on, judged_off, ambiguous, masked, traps;
	uint64_t due, lost, duplicate, unexpected;
	uint64_t hist[ST_HIST_BUCKETS];
	uint64_t lat_n, lat_sum, lat_min, lat_max;
	uint64_t start_ns, end_ns;
	struct st_phase phase;
	int prev_state;		/* enum st_access of the access before, -1: none */
	/*
	 * Set when the thread was cloned while a storm op was in flight: its
	 * event took the parent's state before the op reached it, so its
	 * accesses are ambiguous until an op that began after its birth ends.
	 */
	uint64_t settle_seq;
	uint64_t birth_ambiguous, birth_race_traps;
};

/* The storm's seqlock: odd while an operation is in flight. */
struct st_seqlock {
	uint64_t seq;
	int enabled;
	int watched;		/* 0: address A, 1: address B */
};

struct st_fork_result {
	bool ran;
	pid_t pid;
	char error[256];
	/* before exec: the inherited event */
	uint64_t pre_accesses, pre_traps, pre_bad, pre_outside, pre_expected;
	bool pre_seen;
	/* after exec: the same accesses at the same addresses */
	uint64_t post_accesses, post_traps;
	bool post_seen, post_mapped;
	int post_map_errno;
	int status;		/* waitpid's */
	bool exited, killed_by_sigtrap, timed_out;
	uint64_t spurious, mismatch;
};

struct st_state {
	enum st_kind kind;
	enum st_storm storm;
	struct st_model model;
	char period_why[160];
	struct perf_event_attr attr;
	int fd;
	uint64_t sig_data;
	uintptr_t addr[2];	/* the two watched addresses (data or code) */
	void *pages;		/* data page, then code page */
	size_t page_size;
	bool flags_known;	/* si_perf_flags: the kernel has them */
	char flags_why[256];
	bool modify_ok;
	char modify_why[256];
	bool masking;
	uint64_t mask_every;
	bool unclone;
	char unclone_why[200];
	uint64_t unclone_failed;
	int unclone_errno;
	uint64_t inject_drop, inject_stall;
	sem_t stall;

	unsigned int nworkers, npre, generations;
	uint64_t accesses;
	struct st_worker *w;	/* nworkers * generations, then npre */
	size_t nw;
	sem_t go;
	int stop;
	uint64_t start_ns, end_ns;
	bool timed_out;

	struct st_seqlock sl;
	pthread_t storm_thread;
	bool storm_started;
	int storm_stop;
	uint64_t storm_interval, storm_toggles, storm_modifies, storm_failed;
	int storm_errno;
	uint64_t storm_off_ns, storm_first_ns, storm_last_ns;

	bool use_mover;
	struct pms_mover mover;
	bool mover_started;

	struct st_fork_result fk;
	bool exec_check;

	struct sigaction old_trap;
	bool handler_installed;

	/* traps on threads that are not ours (main, storm, mover) */
	uint64_t stray;
	struct st_anom *anom;
	uint64_t anom_cap, anom_n;

	bool watchdog;
	char watchdog_msg[256];
	int abandoned;
};

/* One run per process: the handler finds its state here and its thread by TLS. */
static struct st_state *g_st;
static __thread struct st_worker *st_self;

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * glibc 2.36's siginfo_t has no si_perf_* members: read the kernel's layout
 * (the _sigfault union after the 16-byte header: addr, then data, type, flags).
 */
static void read_sig(const siginfo_t *si, struct st_sig *s)
{
	const char *p = (const char *)si;
	uint64_t addr;

	s->signo = si->si_signo;
	s->code = si->si_code;
	s->err = si->si_errno;
	memcpy(&addr, p + 16, sizeof(addr));
	s->addr = addr;
	memcpy(&s->data, p + 16 + sizeof(void *), sizeof(s->data));
	memcpy(&s->type, p + 16 + 2 * sizeof(void *), sizeof(s->type));
	memcpy(&s->flags, p + 16 + 2 * sizeof(void *) + 4, sizeof(s->flags));
}

static void anomaly(struct st_state *st, enum anom_cls cls, pid_t tid, uint64_t seq,
		    const struct st_sig *sig, unsigned int bad)
{
	uint64_t i = __atomic_fetch_add(&st->anom_n, 1, __ATOMIC_RELAXED);
	struct st_anom *a;

	if (i >= st->anom_cap)
		return;
	a = &st->anom[i];
	a->time_ns = pms_now_ns();
	a->seq = seq;
	a->tid = tid;
	a->cls = cls;
	a->bad = bad;
	a->prev = st_self ? st_self->prev_state : -1;
	if (sig)
		a->sig = *sig;
}

/* Async-signal-safe: per-thread storage, atomics for the shared bits. */
static void on_sigtrap(int signo, siginfo_t *si, void *uc)
{
	uint64_t now = pms_now_ns();
	struct st_state *st = g_st;
	struct st_worker *w = st_self;
	struct st_sig_want want;
	struct st_sig s;
	unsigned int bad, b;
	int saved = errno;

	read_sig(si, &s);
	if (!st)
		goto out;
	if (!w) {
		__atomic_add_fetch(&st->stray, 1, __ATOMIC_RELAXED);
		anomaly(st, A_WRONG_THREAD, my_tid(), 0, &s, 0);
		goto out;
	}
	w->seen++;
	if (st->inject_drop && w->seen % st->inject_drop == 0) {
		w->injected++;
		goto out;
	}
	want.addr = w->inflight || w->mask_seq ? w->cur_addr :
		    s.addr == st->addr[1] ? st->addr[1] : st->addr[0];
	if (st->kind == K_CYCLES || st->kind == K_INSTRUCTIONS)
		want.addr = 0;
	want.data = st->sig_data;
	want.type = st->attr.type;
	want.flags_known = st->flags_known;
	want.async = !w->inflight && w->mask_seq;
	bad = st_fields_bad(&s, &want);
	if (bad) {
		w->wrong_data++;
		for (b = 0; b < ST_BAD_NR; b++)
			if (bad & (1u << b))
				w->bad_field[b]++;
		anomaly(st, A_WRONG_DATA, w->tid, w->inflight ? w->inflight : w->mask_seq, &s,
			bad);
	}
	if (w->inflight) {
		uint64_t lat = now - w->t0;

		w->got++;
		w->hist[st_hist_bucket(lat)]++;
		w->lat_n++;
		w->lat_sum += lat;
		if (!w->lat_min || lat < w->lat_min)
			w->lat_min = lat;
		if (lat > w->lat_max)
			w->lat_max = lat;
	} else if (w->mask_seq) {
		w->got_async++;
	} else if (st_outside(w->unclaimed) == ST_OUT_LATE) {
		w->unclaimed--;
		w->late++;
		anomaly(st, A_LATE, w->tid, 0, &s, 0);
	} else {
		w->wrong_thread++;
		anomaly(st, A_WRONG_THREAD, w->tid, 0, &s, 0);
	}
out:
	errno = saved;
}

/* The triggering access: a write, a read, or a call into the code page. */
static __attribute__((noinline)) void trigger(const struct st_state *st, int which, uint64_t seq)
{
	switch (st->kind) {
	case K_WATCH_W:
		*(volatile uint64_t *)st->addr[which] = seq;
		break;
	case K_WATCH_RW:
		(void)*(volatile uint64_t *)st->addr[which];
		break;
	case K_EXEC:
		((void (*)(void))st->addr[which])();
		break;
	default:
		break;
	}
	__asm__ volatile("" ::: "memory");
}

static void judge(struct st_state *st, struct st_worker *w, enum st_access s, unsigned int got,
		  bool masked, uint64_t seq)
{
	enum st_want want = st_want(&st->model, &w->phase, s);
	unsigned int extra;

	switch (st_judge(&st->model, &w->phase, s, got, masked, &extra)) {
	case ST_OK:
		break;
	case ST_LOST:
		w->lost++;
		w->unclaimed++;
		anomaly(st, A_LOST, w->tid, seq, NULL, 0);
		break;
	case ST_DUPLICATE:
		w->duplicate += extra;
		if (want == ST_WANT_NONE)
			w->unexpected++;
		anomaly(st, A_DUPLICATE, w->tid, seq, NULL, 0);
		break;
	case ST_UNEXPECTED:
		w->unexpected++;
		anomaly(st, A_UNEXPECTED, w->tid, seq, NULL, 0);
		break;
	}
	w->due += want == ST_WANT_ONE;
	w->traps += got;
}

static void one_access(struct st_state *st, struct st_worker *w, uint64_t seq, bool masked)
{
	int which = st->storm == STORM_MODIFY || st->storm == STORM_BOTH ? (int)(seq & 1) : 0;
	uint64_t s1, s2;
	int en, wa;
	enum st_access state;
	sigset_t set;

	s1 = __atomic_load_n(&st->sl.seq, __ATOMIC_ACQUIRE);
	en = __atomic_load_n(&st->sl.enabled, __ATOMIC_RELAXED);
	wa = __atomic_load_n(&st->sl.watched, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (masked) {
		sigemptyset(&set);
		sigaddset(&set, SIGTRAP);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	w->got = w->got_async = 0;
	w->cur_addr = st->addr[which];
	w->t0 = pms_now_ns();
	w->inflight = seq;
	__asm__ volatile("" ::: "memory");
	trigger(st, which, seq);
	__asm__ volatile("" ::: "memory");
	w->inflight = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s2 = __atomic_load_n(&st->sl.seq, __ATOMIC_ACQUIRE);
	if (masked) {
		w->mask_seq = seq;
		__asm__ volatile("" ::: "memory");
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		__asm__ volatile("" ::: "memory");
		w->mask_seq = 0;
		w->masked++;
	}
	if (w->role == ROLE_PRE)
		state = ST_OFF;		/* it never had the event */
	else if ((s1 & 1) || s1 != s2)
		state = ST_AMBIG;
	else
		state = en && wa == which ? ST_ON : ST_OFF;
	if (state != ST_AMBIG && s1 < __atomic_load_n(&w->settle_seq, __ATOMIC_ACQUIRE)) {
		w->birth_ambiguous++;
		if (state == ST_OFF && w->got + w->got_async)
			w->birth_race_traps++;
		state = ST_AMBIG;
	}
	w->accesses++;
	w->ambiguous += state == ST_AMBIG;
	w->judged_on += state == ST_ON;
	w->judged_off += state == ST_OFF;
	judge(st, w, state, w->got + w->got_async, masked, seq);
	w->prev_state = state;
}

/*
 * Opening any event on a task unclones its perf context (find_get_context),
 * so the scheduler can no longer swap it with a sibling's identical clone
 * and the inherited event's remaining period stays with this thread.
 */
static void unclone_self(struct st_state *st)
{
	struct perf_event_attr a;
	int fd;

	pms_perf_attr_user(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	fd = pms_perf_open_self(&a, -1);
	if (fd < 0) {
		__atomic_add_fetch(&st->unclone_failed, 1, __ATOMIC_RELAXED);
		st->unclone_errno = -fd;
		return;
	}
	close(fd);
}

static bool stopping(const struct st_state *st)
{
	return __atomic_load_n(&st->stop, __ATOMIC_RELAXED);
}

static void *worker_main(void *arg)
{
	struct st_worker *w = arg;
	struct st_state *st = w->st;
	uint64_t i;

	w->tid = my_tid();
	w->prev_state = -1;
	st_phase_init(&w->phase);
	st_self = w;
	pthread_setname_np(pthread_self(), w->role == ROLE_PRE ? "pms-pre" : "pms-trap");
	if (st->unclone && w->role == ROLE_WORKER)
		unclone_self(st);
	if (w->generation == 0)
		while (sem_wait(&st->go) && errno == EINTR)
			;
	w->start_ns = pms_now_ns();
	for (i = 0; i < w->target && !stopping(st); i++) {
		uint64_t seq = w->seq_base + i + 1;

		one_access(st, w, seq, st->masking && seq % st->mask_every == 0);
		__atomic_store_n(&w->progress, i + 1, __ATOMIC_RELAXED);
		if (st->inject_stall && w->role == ROLE_WORKER && w->index == 0 &&
		    w->seq_base + i + 1 == st->inject_stall)
			while (sem_wait(&st->stall) && errno == EINTR)
				;
	}
	w->end_ns = pms_now_ns();
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- the storm */

static int storm_op(struct st_state *st, bool toggle)
{
	int ret;

	__atomic_store_n(&st->sl.seq, st->sl.seq + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (toggle) {
		bool off = st->sl.enabled;

		ret = ioctl(st->fd, off ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0);
		if (!ret) {
			uint64_t now = pms_now_ns();

			if (off)
				st->storm_last_ns = now;
			else
				st->storm_off_ns += now - st->storm_last_ns;
			__atomic_store_n(&st->sl.enabled, !off, __ATOMIC_RELAXED);
			st->storm_toggles++;
		}
	} else {
		struct perf_event_attr a = st->attr;
		int next = !st->sl.watched;

		a.bp_addr = st->addr[next];
		/* The kernel applies attr.disabled as given: keep the state as it is. */
		a.disabled = !st->sl.enabled;
		ret = ioctl(st->fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a);
		if (!ret) {
			__atomic_store_n(&st->sl.watched, next, __ATOMIC_RELAXED);
			st->storm_modifies++;
		}
	}
	if (ret) {
		st->storm_failed++;
		st->storm_errno = errno;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&st->sl.seq, st->sl.seq + 1, __ATOMIC_RELEASE);
	return ret;
}

static void *storm_main(void *arg)
{
	struct st_state *st = arg;
	uint64_t n = 0;

	pthread_setname_np(pthread_self(), "pms-storm");
	st->storm_first_ns = pms_now_ns();
	while (!__atomic_load_n(&st->storm_stop, __ATOMIC_RELAXED)) {
		bool toggle = st->storm == STORM_TOGGLE ||
			      (st->storm == STORM_BOTH && (n & 1));

		storm_op(st, toggle);
		n++;
		if (st->storm_interval) {
			struct timespec ts = { (time_t)(st->storm_interval / NS_PER_S),
					       (long)(st->storm_interval % NS_PER_S) };

			nanosleep(&ts, NULL);
		}
	}
	/* Leave the event on and at A, as the fork check and a rerun expect. */
	if (!st->sl.enabled)
		storm_op(st, true);
	if (st->sl.watched && st->modify_ok)
		storm_op(st, false);
	return NULL;
}

/* ---- the fork + exec check */

static void put_u64(char *buf, size_t *pos, const char *key, uint64_t v)
{
	char digits[24];
	int n = 0;

	while (*key)
		buf[(*pos)++] = *key++;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		buf[(*pos)++] = digits[--n];
	buf[(*pos)++] = ' ';
}

/* In the fork child: only async-signal-safe calls, then exec. */
static void fork_child(struct st_state *st, int out)
{
	struct st_worker *w = &st->w[st->nw];	/* spare slot */
	char buf[256], a0[24], a1[24], n[24], sd[24], kind[8];
	size_t pos = 0;
	uint64_t i, outside;
	char *argv[10];

	memset(w, 0, sizeof(*w));
	w->st = st;
	w->tid = my_tid();
	st_self = w;
	if (st->unclone)
		unclone_self(st);
	for (i = 1; i <= st->accesses; i++) {
		w->got = 0;
		w->cur_addr = st->addr[0];
		w->t0 = pms_now_ns();
		w->inflight = i;
		__asm__ volatile("" ::: "memory");
		trigger(st, 0, i);
		__asm__ volatile("" ::: "memory");
		w->inflight = 0;
		w->traps += w->got;
	}
	outside = w->late + w->wrong_thread;
	memcpy(buf, "fork ", 5);
	pos = 5;
	put_u64(buf, &pos, "accesses=", st->accesses);
	put_u64(buf, &pos, "traps=", w->traps);
	put_u64(buf, &pos, "bad=", w->wrong_data);
	put_u64(buf, &pos, "outside=", outside);
	buf[pos++] = '\n';
	if (write(out, buf, pos) < 0)
		_exit(120);
	if (dup2(out, STDOUT_FILENO) < 0)
		_exit(121);
	pos = 0;
	put_u64(a0, &pos, "", (uint64_t)(uintptr_t)st->pages);
	a0[pos - 1] = '\0';
	pos = 0;
	put_u64(n, &pos, "", st->accesses);
	n[pos - 1] = '\0';
	pos = 0;
	put_u64(sd, &pos, "", st->sig_data);
	sd[pos - 1] = '\0';
	pos = 0;
	put_u64(a1, &pos, "", st->page_size);
	a1[pos - 1] = '\0';
	kind[0] = (char)('0' + st->kind);
	kind[1] = '\0';
	argv[0] = "pmustress";
	argv[1] = "__helper";
	argv[2] = "sigtrap";
	argv[3] = kind;
	argv[4] = a0;
	argv[5] = a1;
	argv[6] = n;
	argv[7] = sd;
	argv[8] = NULL;
	execv("/proc/self/exe", argv);
	_exit(122);
}

/* "key=value" in @line, or false. */
static bool field_u64(const char *line, const char *key, uint64_t *v)
{
	const char *p = strstr(line, key);

	if (!p)
		return false;
	return sscanf(p + strlen(key), "%" SCNu64, v) == 1;
}

static void exec_check(struct st_state *st)
{
	struct st_fork_result *f = &st->fk;
	uint64_t deadline = pms_now_ns() + EXEC_GRACE_NS;
	char out[1024] = "";
	size_t len = 0;
	int p[2], status;
	pid_t pid, r;
	bool eof = false;

	f->ran = true;
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(f->error, sizeof(f->error), "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(f->error, sizeof(f->error), "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		fork_child(st, p[1]);
	}
	f->pid = pid;
	close(p[1]);
	while (!eof) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		uint64_t now = pms_now_ns();
		ssize_t n;

		if (now >= deadline)
			break;
		if (poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			continue;
		n = read(p[0], out + len, sizeof(out) - 1 - len);
		if (n <= 0)
			eof = true;
		else
			len += (size_t)n;
		if (len >= sizeof(out) - 1)
			eof = true;
	}
	out[len] = '\0';
	close(p[0]);
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (pms_now_ns() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			f->timed_out = true;
			break;
		}
		poll(NULL, 0, 2);	/* a bounded wait for an exit, not synchronisation */
	}
	f->status = status;
	f->exited = WIFEXITED(status);
	f->killed_by_sigtrap = WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP;
	{
		const char *fork_line = strstr(out, "fork "), *exec_line = strstr(out, "exec ");
		uint64_t v;

		if (fork_line) {
			f->pre_seen = field_u64(fork_line, "accesses=", &f->pre_accesses) &&
				      field_u64(fork_line, "traps=", &f->pre_traps);
			field_u64(fork_line, "bad=", &f->pre_bad);
			field_u64(fork_line, "outside=", &f->pre_outside);
		}
		if (exec_line) {
			f->post_seen = field_u64(exec_line, "accesses=", &f->post_accesses) &&
				       field_u64(exec_line, "traps=", &f->post_traps);
			f->post_mapped = field_u64(exec_line, "mapped=", &v) && v;
			if (field_u64(exec_line, "errno=", &v))
				f->post_map_errno = (int)v;
		}
	}
	f->pre_expected = st->attr.inherit_thread ? 0 : st_expected_traps(&st->model, st->accesses);
	if (f->pre_seen && (f->pre_traps != f->pre_expected || f->pre_bad || f->pre_outside))
		f->mismatch = 1;
	/* After exec the event must be gone: any trap, or death by SIGTRAP, is spurious. */
	if (f->killed_by_sigtrap)
		f->spurious = f->post_traps ? f->post_traps : 1;
	else if (f->post_seen)
		f->spurious = f->post_traps;
	if (!f->pre_seen || (!f->post_seen && !f->killed_by_sigtrap) || f->timed_out)
		snprintf(f->error, sizeof(f->error), "the child %s (status 0x%x)%s%s",
			 f->timed_out ? "did not finish in time" : "reported incompletely",
			 (unsigned int)status, f->pre_seen ? "" : "; no line before exec",
			 f->post_seen ? "" : "; no line after exec");
	else if (!f->post_mapped)
		snprintf(f->error, sizeof(f->error), "after exec the watched address could not be "
			 "mapped again (%s): remove_on_exec not tested",
			 strerror(f->post_map_errno));
}

/*
 * The exec'd child (`pmustress __helper sigtrap KIND PAGES PAGESIZE N DATA`):
 * map the same two pages at the same address, make the same accesses, and
 * say how many SIGTRAPs came.  A kernel that kept the event across exec
 * traps here: counted, or the default action kills us (also a finding).
 */
static volatile uint64_t helper_traps;

static void helper_trap(int signo, siginfo_t *si, void *uc)
{
	if (si->si_code == ST_TRAP_PERF)
		helper_traps++;
}

static void make_code(void *code)
{
#if defined(__x86_64__) || defined(__i386__)
	static const unsigned char ret[] = { 0xc3 };
#elif defined(__aarch64__)
	static const unsigned char ret[] = { 0xc0, 0x03, 0x5f, 0xd6 };
#else
	static const unsigned char ret[] = { 0 };
#endif
	memcpy(code, ret, sizeof(ret));
	memcpy((char *)code + SLOT_B_OFFSET, ret, sizeof(ret));
	__builtin___clear_cache((char *)code, (char *)code + SLOT_B_OFFSET + sizeof(ret));
}

static int st_helper(int argc, char **argv)
{
	struct st_state st = { 0 };
	struct sigaction sa = { 0 };
	uint64_t kind, pages, psz, n, data, i;
	void *p;

	if (argc != 6 || pms_parse_u64(argv[1], &kind) || pms_parse_u64(argv[2], &pages) ||
	    pms_parse_u64(argv[3], &psz) || pms_parse_u64(argv[4], &n) ||
	    pms_parse_u64(argv[5], &data) || kind > K_EXEC || psz < 4096) {
		fprintf(stderr, "pmustress: __helper sigtrap: internal use only\n");
		return 64;
	}
	p = mmap((void *)(uintptr_t)pages, 2 * psz, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || p != (void *)(uintptr_t)pages) {
		printf("exec accesses=0 traps=0 mapped=0 errno=%d\n", p == MAP_FAILED ? errno : EEXIST);
		return 3;
	}
	make_code((char *)p + psz);
	st.kind = (enum st_kind)kind;
	st.addr[0] = kind == K_EXEC ? (uintptr_t)p + psz : (uintptr_t)p;
	sa.sa_sigaction = helper_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	for (i = 1; i <= n; i++)
		trigger(&st, 0, i);
	printf("exec accesses=%" PRIu64 " traps=%" PRIu64 " mapped=1\n", n, helper_traps);
	return 0;
}

/* ---- set-up */

static bool host_feature(const struct pms_run *run, const char *name, char *why, size_t len)
{
	json_object *f, *s, *d;

	if (!json_object_object_get_ex(run->host, "features", &f) ||
	    !json_object_object_get_ex(f, name, &f) || !f) {
		snprintf(why, len, "not probed");
		return false;
	}
	if (json_object_object_get_ex(f, "detail", &d) && d)
		snprintf(why, len, "%s", json_object_get_string(d));
	return json_object_object_get_ex(f, "supported", &s) && s && json_object_get_boolean(s);
}

static bool st_unsupported(const struct pms_run *run, char *why, size_t len)
{
	struct perf_event_attr a;
	char d[256];
	int fd;

	/* `list` probes no features: ask the kernel here, as the probe would. */
	if (!host_feature(run, "sigtrap", d, sizeof(d)) && !strcmp(d, "not probed")) {
		pms_perf_attr_user(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		a.sigtrap = 1;
		a.remove_on_exec = 1;
		fd = pms_perf_open_self(&a, -1);
		if (fd >= 0) {
			close(fd);
			return false;
		}
		snprintf(d, sizeof(d), "task-clock with sigtrap=1 remove_on_exec=1: %s",
			 pms_errno_name(-fd));
		snprintf(why, len, "the kernel does not offer attr.sigtrap (Linux 5.13+): %s", d);
		return true;
	}
	if (!host_feature(run, "sigtrap", d, sizeof(d))) {
		snprintf(why, len, "the kernel does not offer attr.sigtrap (Linux 5.13+): %s", d);
		return true;
	}
	return false;
}

static void st_availability(const struct pms_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "yes, on hardware watchpoints and breakpoints (--trap cycles and "
		 "instructions: not yet)");
}

/* The event, or -errno. */
static int open_event(struct st_state *st)
{
	return pms_perf_open_self(&st->attr, -1);
}

static enum pms_status setup_event(struct pms_run *run, struct st_state *st)
{
	struct perf_event_attr *a = &st->attr;
	const char *exclude = pms_opt_str(&run->opts, "exclude");
	char err[256];

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_BREAKPOINT;
	a->sample_period = st->model.period;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->inherit = 1;
	a->inherit_thread = pms_opt_u64(&run->opts, "inherit-thread");
	a->remove_on_exec = 1;
	a->sigtrap = 1;
	a->sig_data = st->sig_data;
	a->bp_addr = st->addr[0];
	switch (st->kind) {
	case K_WATCH_W:
		a->bp_type = HW_BREAKPOINT_W;
		a->bp_len = HW_BREAKPOINT_LEN_8;
		break;
	case K_WATCH_RW:
		a->bp_type = HW_BREAKPOINT_RW;
		a->bp_len = HW_BREAKPOINT_LEN_8;
		break;
	case K_EXEC:
		a->bp_type = HW_BREAKPOINT_X;
		a->bp_len = sizeof(long);
		break;
	default:
		break;
	}
	if (exclude && pms_event_set_exclude(a, exclude, err, sizeof(err))) {
		snprintf(run->reason, sizeof(run->reason), "%s", err);
		return PMS_E_EVENT;
	}
	st->fd = open_event(st);
	if (st->fd < 0) {
		int e = -st->fd;

		snprintf(run->reason, sizeof(run->reason), "perf_event_open of the %s with "
			 "sigtrap=1 remove_on_exec=1 inherit=1%s failed: %s (%s)",
			 kinds[st->kind], a->inherit_thread ? " inherit_thread=1" : "",
			 pms_errno_name(e), e == ENOSPC ? "no free hardware breakpoint slot" :
			 e == E2BIG ? "the kernel predates attr.sig_data" : strerror(e));
		return e == ENOSPC || e == ENODEV || e == ENOENT || e == E2BIG ? PMS_E_SKIP :
		       PMS_E_SETUP;
	}
	return PMS_OK;
}

static enum pms_status setup_mover(struct pms_run *run, struct st_state *st)
{
	struct pms_mover *m = &st->mover;
	const char *list = pms_opt_str(&run->opts, "cpus");
	char why[256];
	int ret;

	m->topo = run->topo;
	m->cpus = hwloc_bitmap_alloc();
	if (!m->cpus)
		return PMS_E_SETUP;
	if (list) {
		if (pms_cpus_parse(run->topo, list, m->cpus, run->reason, sizeof(run->reason)))
			return PMS_E_CPUS;
	} else {
		ret = pms_cpus_default_pair(run->topo, m->cpus, why, sizeof(why));
		if (ret) {
			snprintf(run->reason, sizeof(run->reason), "--mover needs two CPUs of one "
				 "kind: %s", why);
			return PMS_E_SKIP;
		}
	}
	m->pattern = (enum pms_move_pattern)pms_opt_u64(&run->opts, "pattern");
	m->kind = PMS_MOVER_HWLOC;
	m->interval_ns = pms_opt_u64(&run->opts, "move-interval");
	m->seed = (unsigned int)pms_opt_u64(&run->opts, "seed");
	m->log_cap = 0;
	return PMS_OK;
}

static enum pms_status st_setup(struct pms_run *run)
{
	struct st_state *st = run->priv;
	bool arm64 = !strcmp(run->arch, "aarch64");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char d[256];
	size_t i;
	enum pms_status s;

	st->fd = -1;
	sem_init(&st->go, 0, 0);
	sem_init(&st->stall, 0, 0);
	st->kind = (enum st_kind)pms_opt_u64(&run->opts, "trap");
	st->storm = (enum st_storm)pms_opt_u64(&run->opts, "storm");
	st->storm_interval = pms_opt_u64(&run->opts, "storm-interval");
	st->mask_every = pms_opt_u64(&run->opts, "mask-every");
	st->inject_drop = pms_opt_u64(&run->opts, "inject-drop-every");
	st->inject_stall = pms_opt_u64(&run->opts, "inject-stall-after");
	st->exec_check = pms_opt_u64(&run->opts, "exec-check") == 0;
	st->use_mover = pms_opt_u64(&run->opts, "mover") != 0;
	st->nworkers = pms_opt_given(&run->opts, "threads") ?
		       (unsigned int)pms_opt_u64(&run->opts, "threads") :
		       (unsigned int)(4 * (ncpu > 0 ? ncpu : 1));
	st->npre = (unsigned int)pms_opt_u64(&run->opts, "pre-threads");
	st->generations = (unsigned int)pms_opt_u64(&run->opts, "churn") + 1;
	st->accesses = pms_opt_u64(&run->opts, "accesses");
	st->sig_data = SIG_DATA_MAGIC | (uint64_t)getpid();

	if (pms_opt_given(&run->opts, "event")) {
		snprintf(run->reason, sizeof(run->reason), "sigtrap chooses its event with "
			 "--trap (watch-w, watch-rw, exec, cycles, instructions), not --event");
		return PMS_E_USAGE;
	}
	if ((size_t)st->nworkers * st->generations + st->npre > MAX_THREADS) {
		snprintf(run->reason, sizeof(run->reason), "--threads x (--churn + 1) + "
			 "--pre-threads is over %d threads", MAX_THREADS);
		return PMS_E_USAGE;
	}
	if (st->accesses < st->generations) {
		snprintf(run->reason, sizeof(run->reason), "--accesses %" PRIu64 " cannot be split "
			 "over %u generations (--churn)", st->accesses, st->generations);
		return PMS_E_USAGE;
	}
	if (st->kind == K_CYCLES || st->kind == K_INSTRUCTIONS) {
		char pmu[64];

		if (!pms_probe_has_core_pmu("/sys", pmu, sizeof(pmu))) {
			snprintf(run->reason, sizeof(run->reason), "--trap %s needs a hardware PMU "
				 "and this machine has none (use a watchpoint or breakpoint)",
				 kinds[st->kind]);
			return PMS_E_SKIP;
		}
		snprintf(run->reason, sizeof(run->reason), "--trap %s: the sampling-counter "
			 "variant is not implemented yet (its per-thread counts are not exact "
			 "per access; it needs its own oracle)", kinds[st->kind]);
		return PMS_E_SKIP;
	}
	if (!host_feature(run, "hw_breakpoint", d, sizeof(d))) {
		snprintf(run->reason, sizeof(run->reason), "hardware breakpoints are not "
			 "available here: %s", d);
		return PMS_E_SKIP;
	}
	/* The model of one thread's event. */
	st->model.retrigger = arm64 ? 1 : 0;
	if (pms_opt_given(&run->opts, "period")) {
		st->model.period = pms_opt_u64(&run->opts, "period");
		snprintf(st->period_why, sizeof(st->period_why), "--period");
	} else {
		st->model.period = arm64 ? 2 : 1;
		snprintf(st->period_why, sizeof(st->period_why), "%s", arm64 ?
			 "default on arm64: 2, the smallest period the retrigger allows" :
			 "default: 1, one trap per access");
	}
	if (st->model.period <= st->model.retrigger) {
		snprintf(run->reason, sizeof(run->reason), "--period %" PRIu64 " on %s: the "
			 "breakpoint hits again as the handler returns, so period 1 would trap "
			 "forever (use 2 or more)", st->model.period, run->arch);
		return PMS_E_USAGE;
	}
	switch (pms_opt_u64(&run->opts, "unclone")) {
	case 0:
		st->unclone = st->model.period > 1;
		snprintf(st->unclone_why, sizeof(st->unclone_why), "%s", st->unclone ?
			 "auto: period over 1, so each thread's remaining period must stay its own" :
			 "auto: period 1 has no remaining period, so the fast context switch is "
			 "left to swap the clones (the path of the pending-SIGTRAP fixes)");
		break;
	case 1:
		st->unclone = true;
		snprintf(st->unclone_why, sizeof(st->unclone_why), "--unclone on");
		break;
	default:
		st->unclone = false;
		snprintf(st->unclone_why, sizeof(st->unclone_why), "--unclone off%s",
			 st->model.period > 1 ? ": per-thread phases may move between threads at "
			 "a context switch; a finding then may be that, not a kernel bug" : "");
		break;
	}
	st->modify_ok = host_feature(run, "sigtrap_modify_attributes", st->modify_why,
				     sizeof(st->modify_why));
	if ((st->storm == STORM_MODIFY || st->storm == STORM_BOTH) && !st->modify_ok) {
		snprintf(run->reason, sizeof(run->reason), "--storm %s needs "
			 "PERF_EVENT_IOC_MODIFY_ATTRIBUTES on breakpoints: %s", storms[st->storm],
			 st->modify_why);
		return PMS_E_SKIP;
	}
	st->flags_known = host_feature(run, "sigtrap_si_perf_flags", st->flags_why,
				       sizeof(st->flags_why));
	if (st->mask_every && !st->flags_known) {
		snprintf(run->reason, sizeof(run->reason), "--mask-every needs a kernel that "
			 "delivers a blocked SIGTRAP later, flagged in si_perf_flags (5.18+); "
			 "before, the blocked trap kills the process: %s", st->flags_why);
		return PMS_E_SKIP;
	}
	st->masking = st->mask_every != 0;
	if (pms_opt_given(&run->opts, "inherit-thread") && !host_feature(run,
			"sigtrap_inherit_thread", d, sizeof(d))) {
		snprintf(run->reason, sizeof(run->reason), "--inherit-thread: %s", d);
		return PMS_E_SKIP;
	}

	/* The two watched addresses: a data page and a code page of our own, so
	 * that the exec'd child can map the very same addresses again. */
	st->page_size = (size_t)sysconf(_SC_PAGESIZE);
	st->pages = mmap(NULL, 2 * st->page_size, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->pages == MAP_FAILED) {
		st->pages = NULL;
		snprintf(run->reason, sizeof(run->reason), "mmap of the watched pages: %s",
			 strerror(errno));
		return PMS_E_SETUP;
	}
	make_code((char *)st->pages + st->page_size);
	if (st->kind == K_EXEC) {
		st->addr[0] = (uintptr_t)st->pages + st->page_size;
	} else {
		st->addr[0] = (uintptr_t)st->pages;
	}
	st->addr[1] = st->addr[0] + SLOT_B_OFFSET;

	st->anom_cap = pms_opt_u64(&run->opts, "max-anomalies");
	st->anom = calloc(st->anom_cap ? st->anom_cap : 1, sizeof(*st->anom));
	st->nw = (size_t)st->nworkers * st->generations + st->npre;
	st->w = calloc(st->nw + 1, sizeof(*st->w));	/* +1: the fork child's slot */
	if (!st->anom || !st->w) {
		snprintf(run->reason, sizeof(run->reason), "out of memory for %zu threads", st->nw);
		return PMS_E_SETUP;
	}
	for (i = 0; i < st->nw; i++) {
		struct st_worker *w = &st->w[i];
		size_t nwg = (size_t)st->nworkers * st->generations;

		w->st = st;
		if (i < nwg) {
			uint64_t per = st->accesses / st->generations;

			w->role = ROLE_WORKER;
			w->index = (unsigned int)(i / st->generations);
			w->generation = (unsigned int)(i % st->generations);
			w->seq_base = per * w->generation;
			w->target = w->generation + 1 == st->generations ?
				    st->accesses - w->seq_base : per;
			w->inherited = true;
		} else {
			w->role = ROLE_PRE;
			w->index = (unsigned int)(i - nwg);
			w->target = st->accesses;
		}
	}
	st->sl.enabled = 1;
	g_st = st;
	{
		struct sigaction sa = { 0 };

		sa.sa_sigaction = on_sigtrap;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTRAP, &sa, &st->old_trap);
		st->handler_installed = true;
	}
	if (st->use_mover) {
		s = setup_mover(run, st);
		if (s)
			return s;
	}
	/* Threads that exist before the event: they must never see it. */
	for (i = (size_t)st->nworkers * st->generations; i < st->nw; i++) {
		int ret = pthread_create(&st->w[i].thread, NULL, worker_main, &st->w[i]);

		if (ret) {
			snprintf(run->reason, sizeof(run->reason), "cannot start a pre-open thread: "
				 "%s", strerror(ret));
			return PMS_E_SETUP;
		}
		st->w[i].started = true;
	}
	return setup_event(run, st);
}

static int start_worker(struct st_worker *w)
{
	struct st_state *st = w->st;
	uint64_t before = __atomic_load_n(&st->sl.seq, __ATOMIC_ACQUIRE), after;
	int ret;

	/* The thread reads settle_seq only after pthread_create() returns it to us. */
	w->settle_seq = UINT64_MAX;
	ret = pthread_create(&w->thread, NULL, worker_main, w);
	after = __atomic_load_n(&st->sl.seq, __ATOMIC_ACQUIRE);
	if (!ret)
		w->started = true;
	if (before == after && !(before & 1))
		__atomic_store_n(&w->settle_seq, 0, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&w->settle_seq, (after | 1) + 1 + 2, __ATOMIC_RELEASE);
	return ret;
}

/* Join within @ns; false when the thread did not end (it is then left running). */
static bool join_within(struct st_worker *w, uint64_t ns)
{
	struct timespec ts;
	uint64_t t;

	if (!w->started || w->joined)
		return true;
	clock_gettime(CLOCK_REALTIME, &ts);
	t = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec + ns;
	ts.tv_sec = (time_t)(t / NS_PER_S);
	ts.tv_nsec = (long)(t % NS_PER_S);
	if (pthread_timedjoin_np(w->thread, NULL, &ts))
		return false;
	w->joined = true;
	return true;
}

/* ---- the run */

static void supervise(struct pms_run *run, struct st_state *st)
{
	uint64_t duration = pms_opt_u64(&run->opts, "duration");
	uint64_t watchdog = pms_opt_u64(&run->opts, "watchdog");
	uint64_t *last_prog, *last_ns, now, deadline;
	unsigned int *cur;
	size_t i, nwg = (size_t)st->nworkers * st->generations;
	char line[256];
	uint64_t next_draw = 0;

	last_prog = calloc(st->nw, sizeof(*last_prog));
	last_ns = calloc(st->nw, sizeof(*last_ns));
	cur = calloc(st->nworkers, sizeof(*cur));
	if (!last_prog || !last_ns || !cur) {
		free(last_prog);
		free(last_ns);
		free(cur);
		st->stop = 1;
		return;
	}
	now = st->start_ns;
	deadline = now + duration;
	for (i = 0; i < st->nw; i++)
		last_ns[i] = now;
	for (;;) {
		bool all_done = true;

		if (pms_run_wait(run, TICK_NS))
			break;
		now = pms_now_ns();
		for (i = 0; i < st->nw; i++) {
			struct st_worker *w = &st->w[i];
			uint64_t p;

			if (!w->started)
				continue;
			if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
				join_within(w, JOIN_GRACE_NS);
				/* Churn: the next generation, started by the event's owner. */
				if (i < nwg && w->generation + 1 < st->generations &&
				    !st->w[i + 1].started && start_worker(&st->w[i + 1]) == 0)
					last_ns[i + 1] = now;
				continue;
			}
			all_done = false;
			p = __atomic_load_n(&w->progress, __ATOMIC_RELAXED);
			if (p != last_prog[i]) {
				last_prog[i] = p;
				last_ns[i] = now;
			} else if (now - last_ns[i] > watchdog) {
				st->watchdog = true;
				snprintf(st->watchdog_msg, sizeof(st->watchdog_msg), "watchdog: thread "
					 "%d (%s %u) made no progress for %.1f s after %" PRIu64
					 " accesses", w->tid, w->role == ROLE_PRE ? "pre-open" : "worker",
					 w->index, (double)(now - last_ns[i]) / 1e9, p);
			}
		}
		for (i = 0; i < nwg; i++)
			if (!st->w[i].started)
				all_done = false;
		if (st->watchdog || all_done)
			break;
		if (now >= deadline) {
			st->timed_out = true;
			break;
		}
		if (run->progress && now >= next_draw) {
			uint64_t done = 0;

			for (i = 0; i < st->nw; i++)
				done += __atomic_load_n(&st->w[i].progress, __ATOMIC_RELAXED);
			snprintf(line, sizeof(line), "[%5.1f s] accesses %" PRIu64 " of %" PRIu64
				 ", storm ops %" PRIu64, (double)(now - st->start_ns) / 1e9, done,
				 st->accesses * (st->nworkers + st->npre),
				 st->storm_toggles + st->storm_modifies);
			run->progress(run, line);
			next_draw = now + 100000000ull;
		}
	}
	free(last_prog);
	free(last_ns);
	free(cur);
}

static void stop_all(struct st_state *st)
{
	size_t i;

	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	if (st->watchdog && st->fd >= 0)
		ioctl(st->fd, PERF_EVENT_IOC_DISABLE, 0);
	sem_post(&st->stall);
	if (st->storm_started) {
		__atomic_store_n(&st->storm_stop, 1, __ATOMIC_RELEASE);
		pthread_join(st->storm_thread, NULL);
		st->storm_started = false;
	}
	if (st->mover_started) {
		pms_mover_stop(&st->mover);
		st->mover_started = false;
	}
	/* Generation 0 may still wait for go if the run ended early. */
	for (i = 0; i < st->nw; i++)
		sem_post(&st->go);
	for (i = 0; i < st->nw; i++)
		if (!join_within(&st->w[i], JOIN_GRACE_NS))
			st->abandoned++;
	st->end_ns = pms_now_ns();
}

/* ---- the result */

#define JU(o, k, v) json_object_object_add(o, k, json_object_new_uint64(v))
#define JI(o, k, v) json_object_object_add(o, k, json_object_new_int64(v))
#define JB(o, k, v) json_object_object_add(o, k, json_object_new_boolean(v))
#define JD(o, k, v) json_object_object_add(o, k, json_object_new_double(v))
#define JS(o, k, v) json_object_object_add(o, k, str_or_null(v))

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void hex(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "0x%" PRIx64, v);
}

static json_object *event_json(const struct pms_run *run, const struct st_state *st)
{
	json_object *o = json_object_new_object(), *a = pms_attr_to_json(&st->attr);
	char h[24];

	JS(o, "trap", kinds[st->kind]);
	JS(o, "description", st->kind == K_WATCH_W ? "data watchpoint (HW_BREAKPOINT_W, 8 bytes) "
	   "on a shared variable; each access is a write" : st->kind == K_WATCH_RW ?
	   "data watchpoint (HW_BREAKPOINT_RW, 8 bytes) on a shared variable; each access is a "
	   "read" : "execute breakpoint (HW_BREAKPOINT_X) on a one-instruction function; each "
	   "access is a call");
	if (a) {
		JB(a, "inherit_thread", st->attr.inherit_thread);
		hex(h, sizeof(h), st->attr.sig_data);
		JS(a, "sig_data", h);
	}
	json_object_object_add(o, "attr", a);
	hex(h, sizeof(h), st->addr[0]);
	JS(o, "address_a", h);
	hex(h, sizeof(h), st->addr[1]);
	JS(o, "address_b", h);
	JS(o, "opened_by", "the supervising thread (pid 0, cpu -1), before the workers start: "
	   "each worker, the storm thread and the mover inherit it");
	return o;
}

static json_object *kernel_json(const struct pms_run *run, const struct st_state *st)
{
	static const char *const names[] = { "sigtrap", "remove_on_exec",
		"sigtrap_inherit_thread", "sigtrap_modify_attributes", "sigtrap_si_perf_flags" };
	json_object *o = json_object_new_object(), *f;
	size_t i;

	for (i = 0; i < PMS_ARRAY_SIZE(names); i++) {
		char why[256];
		bool sup = host_feature(run, names[i], why, sizeof(why));

		f = json_object_new_object();
		JB(f, "supported", sup);
		JS(f, "detail", why);
		json_object_object_add(o, names[i], f);
	}
	return o;
}

static json_object *latency_json(const uint64_t *hist, uint64_t n, uint64_t sum, uint64_t min,
				 uint64_t max)
{
	json_object *o = json_object_new_object();

	JU(o, "samples", n);
	json_object_object_add(o, "min", n ? json_object_new_uint64(min) : NULL);
	json_object_object_add(o, "mean", n ? json_object_new_double((double)sum / (double)n) : NULL);
	json_object_object_add(o, "p50", n ? json_object_new_uint64(st_hist_quantile(hist, n, 0.5)) : NULL);
	json_object_object_add(o, "p90", n ? json_object_new_uint64(st_hist_quantile(hist, n, 0.9)) : NULL);
	json_object_object_add(o, "p99", n ? json_object_new_uint64(st_hist_quantile(hist, n, 0.99)) : NULL);
	json_object_object_add(o, "p999", n ? json_object_new_uint64(st_hist_quantile(hist, n, 0.999)) : NULL);
	json_object_object_add(o, "max", n ? json_object_new_uint64(max) : NULL);
	return o;
}

static json_object *thread_json(const struct st_state *st, const struct st_worker *w)
{
	json_object *o = json_object_new_object();
	double secs = w->end_ns > w->start_ns ? (double)(w->end_ns - w->start_ns) / 1e9 : 0;

	JI(o, "tid", w->tid);
	JS(o, "role", w->role == ROLE_PRE ? "pre-open" : "worker");
	JU(o, "worker", w->index);
	JU(o, "generation", w->generation);
	JB(o, "inherited", w->inherited);
	JU(o, "accesses", w->accesses);
	JU(o, "accesses_planned", w->target);
	JU(o, "judged_on", w->judged_on);
	JU(o, "judged_off", w->judged_off);
	JU(o, "ambiguous", w->ambiguous);
	JU(o, "masked", w->masked);
	JU(o, "traps_due", w->due);
	JU(o, "traps", w->traps);
	JU(o, "traps_received", w->seen);
	JU(o, "injected_ignored", w->injected);
	JU(o, "lost", w->unclaimed);
	JU(o, "late", w->late);
	JU(o, "duplicate", w->duplicate);
	JU(o, "unexpected", w->unexpected);
	JU(o, "wrong_thread", w->wrong_thread);
	JU(o, "wrong_data", w->wrong_data);
	JU(o, "ambiguous_after_clone", w->birth_ambiguous);
	JU(o, "traps_while_off_after_clone", w->birth_race_traps);
	JD(o, "seconds", secs);
	JD(o, "traps_per_second", secs > 0 ? (double)w->traps / secs : 0);
	json_object_object_add(o, "latency_ns", latency_json(w->hist, w->lat_n, w->lat_sum,
							     w->lat_min, w->lat_max));
	return o;
}

static json_object *fork_json(const struct st_state *st)
{
	const struct st_fork_result *f = &st->fk;
	json_object *o = json_object_new_object(), *a;

	JB(o, "ran", f->ran);
	if (!f->ran) {
		JS(o, "why_not", "--exec-check off");
		return o;
	}
	JI(o, "pid", f->pid);
	a = json_object_new_object();
	JS(a, "what", "the child of fork(), which inherits the event unless inherit_thread=1, "
	   "makes the same accesses as a worker");
	JB(a, "reported", f->pre_seen);
	JU(a, "accesses", f->pre_accesses);
	JU(a, "traps", f->pre_traps);
	JU(a, "traps_expected", f->pre_expected);
	JU(a, "wrong_data", f->pre_bad);
	JU(a, "outside_an_access", f->pre_outside);
	JB(a, "ok", f->pre_seen && !f->mismatch);
	json_object_object_add(o, "before_exec", a);
	a = json_object_new_object();
	JS(a, "what", "the child execs pmustress, maps the same pages at the same addresses and "
	   "makes the same accesses: remove_on_exec must have removed the event");
	JB(a, "reported", f->post_seen);
	JB(a, "mapped", f->post_mapped);
	JU(a, "accesses", f->post_accesses);
	JU(a, "traps", f->post_traps);
	JU(a, "traps_expected", 0);
	JB(a, "killed_by_sigtrap", f->killed_by_sigtrap);
	JI(a, "wait_status", f->status);
	JB(a, "timed_out", f->timed_out);
	JB(a, "ok", f->post_seen && f->post_mapped && !f->spurious);
	json_object_object_add(o, "after_exec", a);
	JS(o, "error", f->error[0] ? f->error : NULL);
	return o;
}

static json_object *anomalies_json(const struct st_state *st)
{
	json_object *o = json_object_new_object(), *l = json_object_new_array();
	uint64_t n = st->anom_n < st->anom_cap ? st->anom_n : st->anom_cap, i;
	char h[24];

	JU(o, "total", st->anom_n);
	JU(o, "kept", n);
	for (i = 0; i < n; i++) {
		const struct st_anom *a = &st->anom[i];
		json_object *x = json_object_new_object(), *bad = json_object_new_array();
		unsigned int b;

		JS(x, "class", anom_names[a->cls]);
		JU(x, "time_ns", a->time_ns);
		JI(x, "tid", a->tid);
		json_object_object_add(x, "seq", a->seq ? json_object_new_uint64(a->seq) : NULL);
		JS(x, "previous_access", a->prev < 0 ? NULL : a->prev == ST_ON ? "on" :
		   a->prev == ST_OFF ? "off" : "ambiguous");
		if (a->sig.signo) {
			json_object *s = json_object_new_object();

			JI(s, "si_signo", a->sig.signo);
			JI(s, "si_code", a->sig.code);
			JI(s, "si_errno", a->sig.err);
			hex(h, sizeof(h), a->sig.addr);
			JS(s, "si_addr", h);
			hex(h, sizeof(h), a->sig.data);
			JS(s, "si_perf_data", h);
			JU(s, "si_perf_type", a->sig.type);
			JU(s, "si_perf_flags", a->sig.flags);
			json_object_object_add(x, "siginfo", s);
		}
		for (b = 0; b < ST_BAD_NR; b++)
			if (a->bad & (1u << b))
				json_object_array_add(bad, json_object_new_string(st_field_name(b)));
		json_object_object_add(x, "wrong_fields", bad);
		json_object_array_add(l, x);
	}
	json_object_object_add(o, "list", l);
	return o;
}

static void st_run(struct pms_run *run)
{
	struct st_state *st = run->priv;
	struct st_totals t = { 0 };
	uint64_t hist[ST_HIST_BUCKETS] = { 0 }, lat_n = 0, lat_sum = 0, lat_min = 0, lat_max = 0;
	uint64_t bad_field[ST_BAD_NR] = { 0 };
	json_object *o, *threads, *cls, *x, *wd;
	double secs, total_rate;
	uint64_t birth_threads = 0, birth_traps = 0;
	char why[512];
	size_t i, b;
	int ret;

	if (st->exec_check)
		exec_check(st);
	/* Workers after the event is open: each inherits it. */
	for (i = 0; i < (size_t)st->nworkers * st->generations; i += st->generations) {
		ret = start_worker(&st->w[i]);
		if (ret) {
			run->verdict = PMS_VERDICT_ERROR;
			snprintf(run->reason, sizeof(run->reason), "cannot start worker %zu: %s",
				 i / st->generations, strerror(ret));
			stop_all(st);
			return;
		}
	}
	if (st->storm != STORM_NONE) {
		ret = pthread_create(&st->storm_thread, NULL, storm_main, st);
		if (ret) {
			run->verdict = PMS_VERDICT_ERROR;
			snprintf(run->reason, sizeof(run->reason), "cannot start the storm thread: %s",
				 strerror(ret));
			stop_all(st);
			return;
		}
		st->storm_started = true;
	}
	if (st->use_mover) {
		/* Worker 0 has said its tid once it runs; wait for it boundedly. */
		uint64_t until = pms_now_ns() + NS_PER_S;

		while (!__atomic_load_n(&st->w[0].tid, __ATOMIC_ACQUIRE) && pms_now_ns() < until)
			sched_yield();
		st->mover.target = st->w[0].tid;
		ret = pms_mover_start(&st->mover);
		if (ret) {
			run->verdict = PMS_VERDICT_ERROR;
			snprintf(run->reason, sizeof(run->reason), "cannot start the mover: %s",
				 strerror(-ret));
			stop_all(st);
			return;
		}
		st->mover_started = true;
	}
	st->start_ns = pms_now_ns();
	for (i = 0; i < st->nw; i++)
		sem_post(&st->go);
	supervise(run, st);
	stop_all(st);

	/* ---- judge */
	threads = json_object_new_array();
	for (i = 0; i < st->nw; i++) {
		const struct st_worker *w = &st->w[i];

		if (!w->started)
			continue;
		t.accesses += w->accesses;
		t.judged += w->judged_on + w->judged_off;
		t.ambiguous += w->ambiguous;
		t.traps += w->traps;
		t.lost += w->unclaimed;
		t.late += w->late;
		t.duplicate += w->duplicate;
		t.unexpected += w->unexpected;
		t.wrong_thread += w->wrong_thread;
		t.wrong_data += w->wrong_data;
		for (b = 0; b < ST_HIST_BUCKETS; b++)
			hist[b] += w->hist[b];
		for (b = 0; b < ST_BAD_NR; b++)
			bad_field[b] += w->bad_field[b];
		if (w->lat_n && (!lat_min || w->lat_min < lat_min))
			lat_min = w->lat_min;
		if (w->lat_max > lat_max)
			lat_max = w->lat_max;
		lat_n += w->lat_n;
		lat_sum += w->lat_sum;
		json_object_array_add(threads, thread_json(st, w));
	}
	t.wrong_thread += st->stray;
	for (i = 0; i < st->nw; i++) {
		birth_threads += st->w[i].settle_seq != 0 && st->w[i].started;
		birth_traps += st->w[i].birth_race_traps;
	}
	t.spurious_after_exec = st->fk.spurious;
	t.fork_mismatch = st->fk.mismatch;
	t.watchdog = st->watchdog;

	o = json_object_new_object();
	json_object_object_add(o, "event", event_json(run, st));
	x = json_object_new_object();
	JU(x, "period", st->model.period);
	JS(x, "period_source", st->period_why);
	JU(x, "retrigger", st->model.retrigger);
	JS(x, "retrigger_why", st->model.retrigger ? "arm64: the debug exception comes before "
	   "the access and signal delivery skips the kernel's step over it, so the access hits "
	   "again when the handler returns and counts once more" :
	   "the access is counted once");
	JB(x, "unclone", st->unclone);
	JS(x, "unclone_why", st->unclone_why);
	JU(x, "unclone_failed", st->unclone_failed);
	JS(x, "unclone_error", st->unclone_failed ? pms_errno_name(st->unclone_errno) : NULL);
	JS(x, "rule", "per thread and per access: event on the whole access -> exactly the traps "
	   "the period gives (period 1: one), delivered before the access returns; off (disabled "
	   "or watching the other address) -> none; a storm op during the access -> zero or "
	   "one, not judged");
	json_object_object_add(o, "model", x);
	json_object_object_add(o, "kernel", kernel_json(run, st));

	x = json_object_new_object();
	JU(x, "threads", st->nworkers);
	JU(x, "pre_open_threads", st->npre);
	JU(x, "accesses_per_thread", st->accesses);
	JU(x, "generations", st->generations);
	JU(x, "threads_started", json_object_array_length(threads));
	JU(x, "mask_every", st->mask_every);
	secs = st->end_ns > st->start_ns ? (double)(st->end_ns - st->start_ns) / 1e9 : 0;
	JD(x, "seconds", secs);
	JB(x, "stopped_at_duration", st->timed_out);
	json_object_object_add(o, "workload", x);

	x = json_object_new_object();
	JS(x, "mode", storms[st->storm]);
	JU(x, "interval_ns", st->storm_interval);
	JU(x, "toggles", st->storm_toggles);
	JU(x, "modifies", st->storm_modifies);
	JU(x, "failed", st->storm_failed);
	JS(x, "last_error", st->storm_failed ? pms_errno_name(st->storm_errno) : NULL);
	JU(x, "disabled_ns", st->storm_off_ns);
	JU(x, "threads_cloned_during_op", birth_threads);
	JU(x, "traps_while_off_after_clone", birth_traps);
	JS(x, "exactness", "each op runs inside a seqlock write section; an access that saw the "
	   "sequence odd or changed is ambiguous, any other knows the event's state for its "
	   "whole length");
	json_object_object_add(o, "storm", x);
	json_object_object_add(o, "mover", st->use_mover ? pms_mover_to_json(&st->mover) : NULL);
	json_object_object_add(o, "exec_check", fork_json(st));
	json_object_object_add(o, "threads", threads);

	x = json_object_new_object();
	JU(x, "accesses", t.accesses);
	JU(x, "judged", t.judged);
	JU(x, "ambiguous", t.ambiguous);
	JU(x, "traps", t.traps);
	JU(x, "traps_on_other_threads", st->stray);
	cls = json_object_new_object();
	JU(cls, "lost", t.lost);
	JU(cls, "duplicate", t.duplicate);
	JU(cls, "unexpected", t.unexpected);
	JU(cls, "wrong_thread", t.wrong_thread);
	JU(cls, "wrong_data", t.wrong_data);
	JU(cls, "late", t.late);
	JU(cls, "spurious_after_exec", t.spurious_after_exec);
	JU(cls, "fork_mismatch", t.fork_mismatch);
	json_object_object_add(x, "classes", cls);
	JD(x, "traps_per_second", secs > 0 ? (double)t.traps / secs : 0);
	total_rate = secs > 0 ? (double)t.traps / secs : 0;
	JD(x, "traps_per_second_per_thread", st->nworkers ? total_rate / st->nworkers : 0);
	json_object_object_add(o, "totals", x);

	x = json_object_new_object();
	for (b = 0; b < ST_BAD_NR; b++)
		JU(x, st_field_name((unsigned int)b), bad_field[b]);
	JB(x, "si_perf_flags_checked", st->flags_known);
	JS(x, "si_perf_flags_detail", st->flags_known ? st->flags_why :
	   "not available on this kernel: si_perf_flags not checked");
	JS(x, "expected", "si_signo SIGTRAP, si_code TRAP_PERF, si_errno 0, si_addr the watched "
	   "address, si_perf_data attr.sig_data, si_perf_type attr.type, si_perf_flags 0 "
	   "(TRAP_PERF_FLAG_ASYNC after a masking window)");
	json_object_object_add(o, "wrong_fields", x);
	x = latency_json(hist, lat_n, lat_sum, lat_min, lat_max);
	JS(x, "what", "ns from just before the access to the handler's first instruction, "
	   "synchronous traps only; percentiles are histogram bucket upper bounds (within 19%)");
	json_object_object_add(o, "latency_ns", x);
	json_object_object_add(o, "anomalies", anomalies_json(st));
	x = json_object_new_object();
	JU(x, "drop_every", st->inject_drop);
	JU(x, "stall_after", st->inject_stall);
	{
		uint64_t dropped = 0;

		for (i = 0; i < st->nw; i++)
			dropped += st->w[i].injected;
		JU(x, "traps_ignored", dropped);
	}
	json_object_object_add(o, "fault_injection", x);

	wd = json_object_new_object();
	JB(wd, "fired", st->watchdog);
	JS(wd, "message", st->watchdog ? st->watchdog_msg : NULL);
	json_object_object_add(run->result, "watchdog", wd);

	/* ---- verdict */
	if (st_failed(&t, why, sizeof(why))) {
		run->verdict = PMS_VERDICT_FAIL;
		snprintf(run->reason, sizeof(run->reason), "%s", why);
		if (st->watchdog)
			pms_run_append_reason(run, "%s", st->watchdog_msg);
	} else if (!t.judged) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "no access was judged: nothing measured");
	} else {
		run->verdict = PMS_VERDICT_PASS;
		snprintf(run->reason, sizeof(run->reason), "%s", why);
	}
	pms_run_append_reason(run, "%u threads x %" PRIu64 " accesses, %s on %s, period %" PRIu64
			      ", %.0f traps/s", st->nworkers, st->accesses, kinds[st->kind],
			      run->arch, st->model.period, total_rate);
	if (st->storm != STORM_NONE)
		pms_run_append_reason(run, "storm %s: %" PRIu64 " toggles, %" PRIu64 " modifies, "
				      "%" PRIu64 " ambiguous accesses", storms[st->storm],
				      st->storm_toggles, st->storm_modifies, t.ambiguous);
	if (birth_traps)
		pms_run_append_reason(run, "note: %" PRIu64 " trap(s) came while the event was "
				      "disabled on thread(s) cloned during a storm op (the new "
				      "thread's event took the parent's state before the op reached "
				      "it); not judged", birth_traps);
	if (st->fk.ran)
		pms_run_append_reason(run, "fork child %" PRIu64 "/%" PRIu64 " traps, after exec %"
				      PRIu64 " traps%s%s", st->fk.pre_traps, st->fk.pre_expected,
				      st->fk.post_traps, st->fk.error[0] ? ": " : "", st->fk.error);
	if (st->timed_out)
		pms_run_append_reason(run, "stopped at --duration before every access was made");
	if (st->inject_drop || st->inject_stall)
		pms_run_append_reason(run, "FAULT INJECTION (--inject-*): the handler or a worker "
				      "was told to misbehave");
	if (st->abandoned)
		pms_run_append_reason(run, "%d thread(s) did not stop and were left running",
				      st->abandoned);
	pms_run_known_issues_sigtrap(run, run->verdict != PMS_VERDICT_FAIL ? NULL :
				     st->inject_drop || st->inject_stall ? "injected" :
				     t.lost && st->storm != STORM_NONE ? "ioctl_disable" :
				     "unexplained", st->attr.exclude_kernel);
	json_object_object_add(run->result, "sigtrap", o);
}

static void st_teardown(struct pms_run *run)
{
	struct st_state *st = run->priv;

	stop_all(st);
	if (st->fd >= 0)
		close(st->fd);
	if (st->abandoned) {
		/* Threads still use the state, the handler and the pages: leave them. */
		run->priv = NULL;
		return;
	}
	if (st->handler_installed)
		sigaction(SIGTRAP, &st->old_trap, NULL);
	g_st = NULL;
	if (st->mover.cpus) {
		pms_mover_free(&st->mover);
		hwloc_bitmap_free(st->mover.cpus);
	}
	if (st->pages)
		munmap(st->pages, 2 * st->page_size);
	free(st->w);
	free(st->anom);
	sem_destroy(&st->go);
	sem_destroy(&st->stall);
}

const struct pms_scenario pms_scenario_sigtrap = {
	.name = "sigtrap",
	.summary = "every synchronous SIGTRAP (attr.sigtrap) comes once, on the accessing thread, "
		   "before its next access, with the right siginfo, across inherit, fork, exec "
		   "and disable/modify storms",
	.seed = "sigtrap fixes ca6c21327c6a (lost SIGTRAPs, 6.1-rc), 517e6a301f34, c5d93d23a260, "
		"56799bc03565; kernel selftest sigtrap_threads hangs on a lost signal",
	.needs = "attr.sigtrap (5.13+) and hardware breakpoints",
	.priv_size = sizeof(struct st_state),
	PMS_SCENARIO_OPTS(st_opts),
	.unsupported = st_unsupported,
	.availability = st_availability,
	.setup = st_setup,
	.run = st_run,
	.teardown = st_teardown,
	.helper = st_helper,
};
