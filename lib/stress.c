// SPDX-License-Identifier: GPL-2.0-only
/* Schedule-out stressors beside the counting thread (see pms-stress.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "pms-cpus.h"
#include "pms-stress.h"
#include "pms-util.h"

extern char **environ;

const char *const pms_preempt_kinds[] = { "thread", "process", NULL };

/* Runs set up in this process: each its own generation, never 0. */
static unsigned int generation;

/* A stop waits this long for a thread before leaving it behind. */
#define STOP_WAIT_NS (2 * NS_PER_S)

void pms_stress_init(struct pms_stress *st)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&st->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	st->cpus = hwloc_bitmap_alloc();
}

bool pms_stress_any(const struct pms_stress *st)
{
	return st->preempt || st->fork_hz || st->yield_every || st->sleep_every;
}

static bool stopping(struct pms_stress *st)
{
	return __atomic_load_n(&st->stop, __ATOMIC_ACQUIRE);
}

/*
 * Wait until @deadline (CLOCK_MONOTONIC ns) or the stop, on a condition
 * variable so that a stop never waits out a long pause.
 * Return: true when stopped.
 */
static bool wait_until(struct pms_stress *st, uint64_t deadline)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / NS_PER_S),
			       .tv_nsec = (long)(deadline % NS_PER_S) };
	bool stop;

	pthread_mutex_lock(&st->lock);
	while (!(stop = stopping(st)) && pms_now_ns() < deadline)
		if (pthread_cond_timedwait(&st->cond, &st->lock, &ts) == ETIMEDOUT)
			break;
	stop = stopping(st);
	pthread_mutex_unlock(&st->lock);
	return stop;
}

enum pms_status pms_stress_setup(struct pms_run *run, struct pms_stress *st,
				 hwloc_const_bitmap_t cpus)
{
	const struct pms_opts *o = &run->opts;
	uint64_t period;
	int cpu;
	ssize_t n;

	st->preempt = pms_opt_u64(o, "preempt");
	st->preempt_process = pms_opt_u64(o, "preempt-by") == 1;
	st->preempt_rate = pms_opt_u64(o, "preempt-rate");
	st->preempt_burst_ns = pms_opt_u64(o, "preempt-burst");
	st->fork_hz = pms_opt_u64(o, "fork-churn");
	st->yield_every = pms_opt_u64(o, "yield-every");
	st->sleep_every = pms_opt_u64(o, "sleep-every");
	st->sleep_ns = pms_opt_u64(o, "sleep-for");
	st->self_on = st->yield_every || st->sleep_every;
	st->gen = __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);

	if (!st->preempt && (pms_opt_given(o, "preempt-by") || pms_opt_given(o, "preempt-rate") ||
			     pms_opt_given(o, "preempt-burst"))) {
		snprintf(run->reason, sizeof(run->reason), "--preempt-by, --preempt-rate and "
			 "--preempt-burst shape the competitors of --preempt N, which is off");
		return PMS_E_USAGE;
	}
	if (pms_opt_given(o, "preempt-burst") && !st->preempt_rate) {
		snprintf(run->reason, sizeof(run->reason), "--preempt-burst needs a --preempt-rate "
			 "above 0 (at 0 the competitors are busy all the time)");
		return PMS_E_USAGE;
	}
	if (st->preempt_rate) {
		period = NS_PER_S / st->preempt_rate;
		if (st->preempt_burst_ns >= period) {
			snprintf(run->reason, sizeof(run->reason), "--preempt-burst %llu ns does "
				 "not fit in a period of --preempt-rate %llu Hz (%llu ns): lower "
				 "one, or drop --preempt-rate to stay busy",
				 (unsigned long long)st->preempt_burst_ns,
				 (unsigned long long)st->preempt_rate, (unsigned long long)period);
			return PMS_E_USAGE;
		}
	}
	if (pms_opt_given(o, "sleep-for") && !st->sleep_every) {
		snprintf(run->reason, sizeof(run->reason), "--sleep-for needs --sleep-every N");
		return PMS_E_USAGE;
	}

	hwloc_bitmap_copy(st->cpus, cpus);
	st->ncpus = 0;
	hwloc_bitmap_foreach_begin(cpu, cpus) {
		if (st->ncpus < PMS_STRESS_MAX_CPUS)
			st->cpu[st->ncpus++] = cpu;
	} hwloc_bitmap_foreach_end();
	if (!st->ncpus && (st->preempt || st->fork_hz)) {
		snprintf(run->reason, sizeof(run->reason), "no CPU to pin the stressors to");
		return PMS_E_USAGE;
	}
	if (st->fork_hz || (st->preempt && st->preempt_process)) {
		/* The children run this binary: it is on every machine we run on. */
		n = readlink("/proc/self/exe", st->exe, sizeof(st->exe) - 1);
		if (n <= 0) {
			snprintf(run->reason, sizeof(run->reason), "cannot find this binary again "
				 "for the stressors' children (/proc/self/exe: %s)",
				 strerror(n < 0 ? errno : ENOENT));
			return PMS_E_SETUP;
		}
		st->exe[n] = '\0';
	}
	return PMS_OK;
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void pin_self_all(const struct pms_stress *st)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < st->ncpus; i++)
		CPU_SET(st->cpu[i], &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * One busy period: spin until @end or the stop.  The clock is read each
 * round, so a competitor preempted by the workload still ends its burst on
 * time rather than after a fixed amount of work.
 */
static void spin_until(const int *stop, uint64_t end)
{
	while (!__atomic_load_n(stop, __ATOMIC_RELAXED) && pms_now_ns() < end)
		;
}

static uint64_t cpu_clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void *competitor_main(void *arg)
{
	struct pms_stress_comp *c = arg;
	struct pms_stress *st = c->st;
	uint64_t next = st->start_ns, period;

	pthread_setname_np(pthread_self(), "pms-preempt");
	pin_self(c->cpu);
	if (!st->preempt_rate) {
		spin_until(&st->stop, UINT64_MAX);
	} else {
		period = NS_PER_S / st->preempt_rate;
		while (!wait_until(st, next)) {
			spin_until(&st->stop, next + st->preempt_burst_ns);
			c->bursts++;
			next += period;
			/* Behind (preempted for a whole period): skip, do not catch up. */
			if (next < pms_now_ns())
				next = pms_now_ns() + period - (pms_now_ns() - next) % period;
		}
	}
	c->cpu_ns = cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* posix_spawn() of this binary as a stressor child, on the caller's CPUs. */
static int spawn_child(const struct pms_stress *st, char *const argv[], pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int ret;

	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	/* The CLI blocks SIGINT/SIGTERM in every thread; a child must not keep that. */
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	/*
	 * posix_spawn, not fork: glibc's is a vfork-like clone that shares the
	 * address space until exec.  A fork() of this process would
	 * write-protect its prefaulted signal store, and the workload would then
	 * take copy-on-write faults that a churn beside it does not cause.
	 */
	ret = posix_spawn(pid, st->exe, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return ret;
}

static int start_process_competitor(struct pms_stress *st, struct pms_stress_comp *c)
{
	char cpu[16], rate[32], burst[32], ppid[16];
	char *argv[] = { "pmustress", PMS_STRESS_CHILD_ARG, "spin", cpu, rate, burst, ppid, NULL };

	snprintf(cpu, sizeof(cpu), "%d", c->cpu);
	snprintf(rate, sizeof(rate), "%llu", (unsigned long long)st->preempt_rate);
	snprintf(burst, sizeof(burst), "%llu", (unsigned long long)st->preempt_burst_ns);
	snprintf(ppid, sizeof(ppid), "%d", (int)getpid());
	return spawn_child(st, argv, &c->pid);
}

/*
 * The spawning thread of --fork-churn: one child at a time, each waited
 * for before the next, at the rate asked (or as fast as it goes when a
 * spawn takes longer than the period).  A child is reaped only after it is
 * cleared under the lock, so the stop can kill it by pid without ever
 * hitting a reused one.
 */
static void *fork_main(void *arg)
{
	struct pms_stress *st = arg;
	char *argv[] = { "pmustress", PMS_STRESS_CHILD_ARG, "noop", NULL };
	uint64_t period = NS_PER_S / st->fork_hz, next = st->start_ns;
	siginfo_t si;
	pid_t pid;
	int ret, status;

	pthread_setname_np(pthread_self(), "pms-forkchurn");
	pin_self_all(st);
	while (!wait_until(st, next)) {
		next += period;
		if (next < pms_now_ns())
			next = pms_now_ns();
		pthread_mutex_lock(&st->lock);
		if (stopping(st)) {
			pthread_mutex_unlock(&st->lock);
			break;
		}
		ret = spawn_child(st, argv, &pid);
		if (ret) {
			pthread_mutex_unlock(&st->lock);
			if (!st->spawn_failed++)
				st->spawn_err = ret;
			continue;
		}
		st->spawned++;
		st->fork_child = pid;
		pthread_mutex_unlock(&st->lock);

		memset(&si, 0, sizeof(si));
		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&st->lock);
		st->fork_child = 0;
		pthread_mutex_unlock(&st->lock);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			st->exited_ok++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
			st->counter_fd_seen++;
		else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && stopping(st))
			st->killed_at_stop++;
		else if (!st->exit_failed++)
			st->exit_status = status;
	}
	return NULL;
}

enum pms_status pms_stress_start(struct pms_run *run, struct pms_stress *st)
{
	unsigned int i, want = (unsigned int)st->preempt * (unsigned int)st->ncpus;
	int ret;

	st->started = true;
	st->start_ns = pms_now_ns();
	if (want) {
		st->comp = calloc(want, sizeof(*st->comp));
		if (!st->comp) {
			snprintf(run->reason, sizeof(run->reason), "out of memory for --preempt");
			return PMS_E_SETUP;
		}
		st->ncomp = want;
	}
	for (i = 0; i < st->ncomp; i++) {
		struct pms_stress_comp *c = &st->comp[i];

		c->st = st;
		c->cpu = st->cpu[i % (unsigned int)st->ncpus];
		if (st->preempt_process)
			ret = start_process_competitor(st, c);
		else
			ret = pthread_create(&c->thread, NULL, competitor_main, c);
		if (ret) {
			c->pid = 0;
			if (!st->comp_failed++)
				st->comp_err = ret;
			continue;
		}
		c->started = true;
		st->comp_started++;
	}
	if (st->ncomp && !st->comp_started)
		snprintf(st->error, sizeof(st->error), "--preempt: no competitor started (%s)",
			 strerror(st->comp_err));
	if (st->fork_hz) {
		ret = pthread_create(&st->fork_thread, NULL, fork_main, st);
		if (ret)
			snprintf(st->error, sizeof(st->error), "--fork-churn: cannot start the "
				 "spawning thread: %s", strerror(ret));
		else
			st->fork_started = true;
	}
	if (st->error[0] && !st->comp_started && !st->fork_started && !st->self_on) {
		snprintf(run->reason, sizeof(run->reason), "%s", st->error);
		return PMS_E_SETUP;
	}
	return PMS_OK;
}

/* This thread's switches so far, from the kernel's own counts. */
static bool thread_switches(uint64_t *vol, uint64_t *invol)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return false;
	*vol = (uint64_t)ru.ru_nvcsw;
	*invol = (uint64_t)ru.ru_nivcsw;
	return true;
}

/* Another thread's, from /proc (the same counters getrusage() reads). */
static bool task_switches(pid_t tid, uint64_t *vol, uint64_t *invol)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1) {
			*vol = v;
			found |= 1;
		} else if (sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1) {
			*invol = v;
			found |= 2;
		}
	}
	fclose(f);
	return found == 3;
}

/*
 * Per workload thread: the run it counted itself into (by generation, so a
 * struct reused at the same address is a new run), and its steps.
 */
static __thread unsigned int tl_gen;
static __thread uint64_t tl_steps;

static void watch_self(struct pms_stress *st)
{
	unsigned int i = __atomic_fetch_add(&st->nwatch, 1, __ATOMIC_ACQ_REL);
	struct pms_stress_watch *w;

	tl_gen = st->gen;
	tl_steps = 0;
	if (i >= PMS_STRESS_MAX_WATCHED) {
		__atomic_fetch_add(&st->watch_dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	w = &st->watch[i];
	w->tid = gettid();
	if (!thread_switches(&w->vol0, &w->invol0))
		w->tid = -1;
}

void pms_stress_step(struct pms_stress *st)
{
	if (__builtin_expect(tl_gen != st->gen, 0))
		watch_self(st);
	if (!st->self_on)
		return;
	tl_steps++;
	if (st->yield_every && tl_steps % st->yield_every == 0) {
		sched_yield();
		__atomic_fetch_add(&st->yields, 1, __ATOMIC_RELAXED);
	}
	if (st->sleep_every && tl_steps % st->sleep_every == 0) {
		struct timespec ts = { .tv_sec = (time_t)(st->sleep_ns / NS_PER_S),
				       .tv_nsec = (long)(st->sleep_ns % NS_PER_S) };
		uint64_t t0 = pms_now_ns();

		/* An EINTR (an overflow signal) ends the sleep early: still a switch. */
		nanosleep(&ts, NULL);
		__atomic_fetch_add(&st->slept_ns, pms_now_ns() - t0, __ATOMIC_RELAXED);
		__atomic_fetch_add(&st->sleeps, 1, __ATOMIC_RELAXED);
	}
}

/* Join @t, or give up after STOP_WAIT_NS and leave it detached. */
static bool join_within(pthread_t t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)(STOP_WAIT_NS / NS_PER_S);
	if (pthread_timedjoin_np(t, NULL, &ts)) {
		pthread_detach(t);
		return false;
	}
	return true;
}

void pms_stress_stop(struct pms_stress *st)
{
	unsigned int i, n;

	if (st->stopped)
		return;
	st->stopped = true;
	/* The workload's switches first, before the stop adds any of its own. */
	n = __atomic_load_n(&st->nwatch, __ATOMIC_ACQUIRE);
	for (i = 0; i < n && i < PMS_STRESS_MAX_WATCHED; i++) {
		struct pms_stress_watch *w = &st->watch[i];

		if (w->tid > 0)
			w->valid = task_switches(w->tid, &w->vol1, &w->invol1);
	}
	st->stop_ns = pms_now_ns();

	pthread_mutex_lock(&st->lock);
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&st->cond);
	/* A child still running when the run ends is killed now, not waited out. */
	if (st->fork_child > 0)
		kill(st->fork_child, SIGKILL);
	pthread_mutex_unlock(&st->lock);

	for (i = 0; i < st->ncomp; i++) {
		struct pms_stress_comp *c = &st->comp[i];

		if (!c->started)
			continue;
		if (st->preempt_process) {
			struct rusage ru;
			int status;

			kill(c->pid, SIGKILL);
			while (wait4(c->pid, &status, 0, &ru) < 0 && errno == EINTR)
				;
			c->cpu_ns = (uint64_t)ru.ru_utime.tv_sec * NS_PER_S +
				    (uint64_t)ru.ru_utime.tv_usec * 1000 +
				    (uint64_t)ru.ru_stime.tv_sec * NS_PER_S +
				    (uint64_t)ru.ru_stime.tv_usec * 1000;
			c->pid = 0;
		} else if (!join_within(c->thread)) {
			/* It reads st: keep the memory (fini leaks it rather than free). */
			st->fork_abandoned = true;
		}
	}
	if (st->fork_started && !join_within(st->fork_thread))
		st->fork_abandoned = true;
}

static double per_s(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0;
}

static json_object *u64_or_null(bool valid, uint64_t v)
{
	return valid ? json_object_new_uint64(v) : NULL;
}

static json_object *switches_json(const struct pms_stress *st, double secs)
{
	json_object *o = json_object_new_object(), *list = json_object_new_array();
	uint64_t vol = 0, invol = 0;
	unsigned int i, n = __atomic_load_n(&st->nwatch, __ATOMIC_ACQUIRE), valid = 0;

	for (i = 0; i < n && i < PMS_STRESS_MAX_WATCHED; i++) {
		const struct pms_stress_watch *w = &st->watch[i];
		json_object *t = json_object_new_object();

		json_object_object_add(t, "tid", json_object_new_int(w->tid));
		json_object_object_add(t, "voluntary", u64_or_null(w->valid, w->vol1 - w->vol0));
		json_object_object_add(t, "involuntary",
				       u64_or_null(w->valid, w->invol1 - w->invol0));
		json_object_array_add(list, t);
		if (!w->valid)
			continue;
		valid++;
		vol += w->vol1 - w->vol0;
		invol += w->invol1 - w->invol0;
	}
	json_object_object_add(o, "threads", list);
	json_object_object_add(o, "voluntary", u64_or_null(valid, vol));
	json_object_object_add(o, "involuntary", u64_or_null(valid, invol));
	json_object_object_add(o, "voluntary_per_second",
			       valid ? json_object_new_double(per_s(vol, secs)) : NULL);
	json_object_object_add(o, "involuntary_per_second",
			       valid ? json_object_new_double(per_s(invol, secs)) : NULL);
	json_object_object_add(o, "source", json_object_new_string(
		"getrusage(RUSAGE_THREAD) at each workload thread's first step, "
		"/proc/self/task/TID/status at the stressors' stop"));
	return o;
}

json_object *pms_stress_to_json(const struct pms_stress *st)
{
	json_object *o = json_object_new_object(), *p, *f, *y, *s;
	double secs = st->started && st->stop_ns > st->start_ns ?
		      (double)(st->stop_ns - st->start_ns) / 1e9 : 0;
	uint64_t bursts = 0, cpu_ns = 0;
	char cpus[256];
	unsigned int i;

	pms_cpus_format(st->cpus, cpus, sizeof(cpus));
	json_object_object_add(o, "any", json_object_new_boolean(pms_stress_any(st)));
	json_object_object_add(o, "cpus", json_object_new_string(cpus));
	json_object_object_add(o, "seconds", json_object_new_double(secs));
	json_object_object_add(o, "cause", json_object_new_string(
		pms_stress_any(st) ? "switch_out" : "none"));

	for (i = 0; i < st->ncomp; i++) {
		bursts += st->comp[i].bursts;
		cpu_ns += st->comp[i].cpu_ns;
	}
	p = json_object_new_object();
	json_object_object_add(p, "requested", json_object_new_boolean(st->preempt > 0));
	json_object_object_add(p, "per_cpu", json_object_new_uint64(st->preempt));
	json_object_object_add(p, "by", json_object_new_string(
		pms_preempt_kinds[st->preempt_process ? 1 : 0]));
	json_object_object_add(p, "rate_hz", json_object_new_uint64(st->preempt_rate));
	json_object_object_add(p, "burst_ns", st->preempt_rate ?
			       json_object_new_uint64(st->preempt_burst_ns) : NULL);
	json_object_object_add(p, "competitors", json_object_new_uint64(st->ncomp));
	json_object_object_add(p, "started", json_object_new_uint64(st->comp_started));
	json_object_object_add(p, "failed", json_object_new_uint64(st->comp_failed));
	json_object_object_add(p, "error", st->comp_failed ?
			       json_object_new_string(strerror(st->comp_err)) : NULL);
	/* A process competitor's bursts are its own: only its CPU time comes back. */
	json_object_object_add(p, "bursts", u64_or_null(st->preempt_rate && !st->preempt_process,
							bursts));
	json_object_object_add(p, "bursts_per_second", st->preempt_rate && !st->preempt_process ?
			       json_object_new_double(per_s(bursts, secs)) : NULL);
	json_object_object_add(p, "cpu_seconds", json_object_new_double((double)cpu_ns / 1e9));
	json_object_object_add(p, "cpu_share", json_object_new_double(
		secs > 0 && st->ncpus ? (double)cpu_ns / 1e9 / secs / st->ncpus : 0));
	json_object_object_add(o, "preempt", p);

	f = json_object_new_object();
	json_object_object_add(f, "requested", json_object_new_boolean(st->fork_hz > 0));
	json_object_object_add(f, "rate_hz", json_object_new_uint64(st->fork_hz));
	json_object_object_add(f, "program", st->exe[0] && st->fork_hz ?
			       json_object_new_string(st->exe) : NULL);
	json_object_object_add(f, "how", json_object_new_string(
		"posix_spawn (vfork-like clone, then execve) of this binary as a no-op child, "
		"one at a time, each waited for; pinned to the workload's CPUs"));
	json_object_object_add(f, "spawned", json_object_new_uint64(st->spawned));
	json_object_object_add(f, "spawned_per_second",
			       json_object_new_double(per_s(st->spawned, secs)));
	json_object_object_add(f, "exited_ok", json_object_new_uint64(st->exited_ok));
	json_object_object_add(f, "spawn_failed", json_object_new_uint64(st->spawn_failed));
	json_object_object_add(f, "spawn_error", st->spawn_failed ?
			       json_object_new_string(strerror(st->spawn_err)) : NULL);
	json_object_object_add(f, "exit_failed", json_object_new_uint64(st->exit_failed));
	json_object_object_add(f, "first_failed_status", st->exit_failed ?
			       json_object_new_int(st->exit_status) : NULL);
	json_object_object_add(f, "killed_at_stop", json_object_new_uint64(st->killed_at_stop));
	json_object_object_add(f, "inherited_perf_fd", json_object_new_uint64(st->counter_fd_seen));
	json_object_object_add(o, "fork_churn", f);

	y = json_object_new_object();
	json_object_object_add(y, "requested", json_object_new_boolean(st->yield_every > 0));
	json_object_object_add(y, "every_steps", json_object_new_uint64(st->yield_every));
	json_object_object_add(y, "yields", json_object_new_uint64(st->yields));
	json_object_object_add(y, "per_second", json_object_new_double(per_s(st->yields, secs)));
	json_object_object_add(o, "yield", y);

	s = json_object_new_object();
	json_object_object_add(s, "requested", json_object_new_boolean(st->sleep_every > 0));
	json_object_object_add(s, "every_steps", json_object_new_uint64(st->sleep_every));
	json_object_object_add(s, "sleep_ns", json_object_new_uint64(st->sleep_ns));
	json_object_object_add(s, "sleeps", json_object_new_uint64(st->sleeps));
	json_object_object_add(s, "per_second", json_object_new_double(per_s(st->sleeps, secs)));
	json_object_object_add(s, "slept_seconds", json_object_new_double((double)st->slept_ns / 1e9));
	json_object_object_add(o, "sleep", s);

	json_object_object_add(o, "workload_switches", switches_json(st, secs));
	json_object_object_add(o, "left_running", json_object_new_boolean(st->fork_abandoned));
	return o;
}

const char *pms_stress_idle(const struct pms_stress *st)
{
	static __thread char why[256];
	uint64_t cpu_ns = 0;
	unsigned int i;

	if (st->error[0])
		return st->error;
	for (i = 0; i < st->ncomp; i++)
		cpu_ns += st->comp[i].cpu_ns;
	if (st->preempt && !cpu_ns) {
		snprintf(why, sizeof(why), "--preempt: the competitors never ran (%u of %u "
			 "started)", st->comp_started, st->ncomp);
		return why;
	}
	if (st->fork_hz && st->counter_fd_seen) {
		snprintf(why, sizeof(why), "--fork-churn: %llu children held a perf_event file "
			 "descriptor after exec (a counter opened without FD_CLOEXEC)",
			 (unsigned long long)st->counter_fd_seen);
		return why;
	}
	if (st->fork_hz && !st->exited_ok) {
		snprintf(why, sizeof(why), "--fork-churn: no child ran to its end (%llu spawned, "
			 "%llu spawns failed%s%s)", (unsigned long long)st->spawned,
			 (unsigned long long)st->spawn_failed, st->spawn_failed ? ": " : "",
			 st->spawn_failed ? strerror(st->spawn_err) : "");
		return why;
	}
	if (st->yield_every && !st->yields)
		return "--yield-every: the workload never yielded (fewer steps than N)";
	if (st->sleep_every && !st->sleeps)
		return "--sleep-every: the workload never slept (fewer steps than N)";
	return NULL;
}

void pms_stress_fini(struct pms_stress *st)
{
	pms_stress_stop(st);
	if (!st->fork_abandoned) {
		free(st->comp);
		st->comp = NULL;
		pthread_cond_destroy(&st->cond);
		pthread_mutex_destroy(&st->lock);
	}
	hwloc_bitmap_free(st->cpus);
	st->cpus = NULL;
}

/* --- the children, in a fresh exec of this binary */

/* Whether this process holds a perf_event fd: one not closed at exec. */
static bool holds_perf_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		char path[300], link[64];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strstr(link, "perf_event"))
			found = true;
	}
	closedir(d);
	return found;
}

static int child_spin(int argc, char **argv)
{
	static const int never = 0;
	unsigned long long rate, burst, period, next;
	int cpu;
	pid_t ppid;

	if (argc < 6)
		return 2;
	cpu = atoi(argv[2]);
	rate = strtoull(argv[3], NULL, 10);
	burst = strtoull(argv[4], NULL, 10);
	ppid = (pid_t)atoi(argv[5]);
	/* Die with the run even if it is killed outright. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != ppid)
		return 0;
	pin_self(cpu);
	if (!rate) {
		spin_until(&never, UINT64_MAX);
		return 0;
	}
	period = NS_PER_S / rate;
	for (next = pms_now_ns();; next += period) {
		struct timespec ts = { .tv_sec = (time_t)(next / NS_PER_S),
				       .tv_nsec = (long)(next % NS_PER_S) };
		uint64_t now;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		spin_until(&never, next + burst);
		now = pms_now_ns();
		if (next + period < now)
			next = now - (now - next) % period;
	}
	return 0;
}

/*
 * A stressor child ends with _exit(): it has nothing to flush, and the run
 * kills whatever still runs at its stop.  An exit() would start a
 * sanitized build's leak check, whose ptrace of its own threads that kill
 * can interrupt mid-report ("Unable to get registers from thread", or an
 * empty report file that fails the sanitized suite).
 */
int pms_stress_child_main(int argc, char **argv)
{
	int rc = 2;

	if (argc >= 2 && !strcmp(argv[1], "noop"))
		rc = holds_perf_fd() ? 3 : 0;
	else if (argc >= 2 && !strcmp(argv[1], "spin"))
		rc = child_spin(argc, argv);
	_exit(rc);
}
