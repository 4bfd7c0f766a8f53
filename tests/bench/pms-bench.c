// SPDX-License-Identifier: GPL-2.0-only
/*
 * pms-bench: the bare baselines pmustress's own machinery is measured
 * against.  Prints figures, never a verdict: scripts/bench puts them next to
 * what `pmustress run` achieved.
 *
 *   pms-bench affinity SECONDS CPU_A CPU_B
 *	a spinning thread, re-bound between two CPUs by a plain
 *	sched_setaffinity() loop: the fastest any mover can hope to be
 *   pms-bench signals SECONDS bare|recorder|stream
 *	an execute breakpoint with period 1 on pms_workload_tick(), overflow
 *	signals routed as pmustress routes them; the handler is either a bare
 *	counter, pmustress's array recorder, or its streaming recorder with
 *	a drain thread judging the signals as lost-overflow does
 *
 * Output is one line of key=value pairs on stdout; errors go to stderr.
 * Exit: 0 measured, 1 could not run, 4 the kernel lacks what is needed,
 * 64 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include "pms-counter.h"
#include "pms-cpus.h"
#include "pms-drain.h"
#include "pms-perf.h"
#include "pms-util.h"

#define EXIT_RAN 0
#define EXIT_COULD_NOT 1
#define EXIT_SKIP 4
#define EXIT_USAGE 64

/*
 * Room for the recorder: a breakpoint hit and its signal cost 5-9 us on the
 * project's VMs, so 500k signals/s (2 us each) leaves room for faster
 * machines; the cap is lost-overflow's default --max-signals (128 MB).  The
 * loop stops when the storage is full, so every signal measured was stored:
 * a recorder that only counts drops would be cheaper than the real one.
 */
#define RECORDER_PER_SECOND 500000ull
#define RECORDER_MAX 4000000ull

static void usage(FILE *f)
{
	fprintf(f, "usage: pms-bench affinity SECONDS CPU_A CPU_B\n"
		   "       pms-bench signals SECONDS bare|recorder|stream\n");
}

static int parse_seconds(const char *s, uint64_t *ns)
{
	if (pms_parse_duration_ns(s, NS_PER_S, ns) || !*ns) {
		fprintf(stderr, "pms-bench: bad duration '%s' (e.g. 3, 3s, 500ms)\n", s);
		return -EINVAL;
	}
	return 0;
}

static uint64_t rusage_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NS_PER_S + (uint64_t)tv->tv_usec * 1000u;
}

/* --- affinity ------------------------------------------------------------ */

struct spinner {
	pid_t tid;
	int started;
	int stop;
};

static void *spin_main(void *arg)
{
	struct spinner *s = arg;

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
	/* Always runnable, like the counting thread: a sleeping thread is
	 * re-bound without migrating until it wakes. */
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

static int parse_cpu(const char *s, int *cpu)
{
	uint64_t v;

	if (pms_parse_u64(s, &v) || v >= CPU_SETSIZE) {
		fprintf(stderr, "pms-bench: bad CPU number '%s'\n", s);
		return -EINVAL;
	}
	*cpu = (int)v;
	return 0;
}

static int cmd_affinity(int argc, char **argv)
{
	struct spinner s = { 0 };
	cpu_set_t set[2];
	uint64_t duration, start, end, now, rebinds = 0, failed = 0;
	int64_t mig0, mig1;
	int cpu[2], first_err = 0, ret, i;
	pthread_t thread;
	double secs;

	if (argc != 5) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (parse_seconds(argv[2], &duration) || parse_cpu(argv[3], &cpu[0]) ||
	    parse_cpu(argv[4], &cpu[1]))
		return EXIT_USAGE;
	if (cpu[0] == cpu[1]) {
		fprintf(stderr, "pms-bench: CPU_A and CPU_B are both %d: nothing would migrate\n",
			cpu[0]);
		return EXIT_USAGE;
	}
	for (i = 0; i < 2; i++) {
		CPU_ZERO(&set[i]);
		CPU_SET(cpu[i], &set[i]);
	}

	ret = pthread_create(&thread, NULL, spin_main, &s);
	if (ret) {
		fprintf(stderr, "pms-bench: cannot start the target thread: %s\n", strerror(ret));
		return EXIT_COULD_NOT;
	}
	while (!__atomic_load_n(&s.started, __ATOMIC_ACQUIRE))
		sched_yield();

	/* Start from CPU_A so that the first rebind of the loop is a move. */
	if (sched_setaffinity(s.tid, sizeof(set[0]), &set[0])) {
		ret = errno;
		fprintf(stderr, "pms-bench: sched_setaffinity(%d, CPU %d): %s\n", (int)s.tid,
			cpu[0], strerror(ret));
		ret = EXIT_COULD_NOT;
		goto out;
	}
	mig0 = pms_task_nr_migrations(s.tid);

	start = now = pms_now_ns();
	end = start + duration;
	/* The clock read is a vDSO call, well under 1% of a rebind. */
	for (i = 1; now < end; i ^= 1) {
		if (sched_setaffinity(s.tid, sizeof(set[i]), &set[i])) {
			failed++;
			if (!first_err)
				first_err = errno;
		}
		rebinds++;
		now = pms_now_ns();
	}

	/* Read while the thread still exists: its /proc entry goes with it. */
	mig1 = pms_task_nr_migrations(s.tid);
	secs = (double)(now - start) / 1e9;
	printf("affinity cpus=%d,%d seconds=%.3f rebinds=%llu failed=%llu "
	       "rebinds_per_second=%.0f", cpu[0], cpu[1], secs, (unsigned long long)rebinds,
	       (unsigned long long)failed, (double)rebinds / secs);
	if (mig0 >= 0 && mig1 >= 0)
		printf(" migrations_sched=%lld migrations_per_second=%.0f",
		       (long long)(mig1 - mig0), (double)(mig1 - mig0) / secs);
	else
		printf(" migrations_sched=na migrations_per_second=na");
	printf("\n");
	if (first_err)
		fprintf(stderr, "pms-bench: %llu of %llu rebinds failed, the first with %s\n",
			(unsigned long long)failed, (unsigned long long)rebinds,
			strerror(first_err));
	if (mig0 < 0 || mig1 < 0)
		fprintf(stderr, "pms-bench: cannot read se.nr_migrations of thread %d: %s\n",
			(int)s.tid, strerror((int)-(mig0 < 0 ? mig0 : mig1)));
	ret = failed == rebinds ? EXIT_COULD_NOT : EXIT_RAN;
out:
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	return ret;
}

/* --- signals ------------------------------------------------------------- */

static uint64_t bare_seen, bare_sigio;

/* The least a handler can do: what the recorder adds is measured against this. */
static void bare_handler(int signo, siginfo_t *si, void *uc)
{
	(void)signo, (void)si, (void)uc;
	__atomic_fetch_add(&bare_seen, 1, __ATOMIC_RELAXED);
}

/* A full real-time queue falls back to SIGIO, whose default would kill us. */
static void bare_sigio_handler(int signo, siginfo_t *si, void *uc)
{
	(void)signo, (void)si, (void)uc;
	__atomic_fetch_add(&bare_sigio, 1, __ATOMIC_RELAXED);
}

static int bare_install(int signo)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	/* The recorder's flags, so that only the handler body differs. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = bare_handler;
	if (sigaction(signo, &sa, NULL))
		return -errno;
	sa.sa_sigaction = bare_sigio_handler;
	if (sigaction(SIGIO, &sa, NULL))
		return -errno;
	return 0;
}

/* stream: the drain judging on another thread, as lost-overflow runs it. */
struct bench_drain {
	struct pms_drain d;
	volatile int stop;
	uint64_t polls;
};

static void *drain_main(void *arg)
{
	struct bench_drain *b = arg;
	struct timespec ts = { 0, 1000000 };

	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		pms_drain_poll(&b->d, UINT64_MAX);
		b->polls++;
		/* Pacing, not synchronisation: lost-overflow drains every 10 ms. */
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int cmd_signals(int argc, char **argv)
{
	struct bench_drain *bd = NULL;
	pthread_t drain_thread;
	bool stream = false;
	struct perf_event_attr attr;
	struct pms_recorder rec = { 0 };
	struct rusage ru0, ru1;
	volatile uint64_t iterations = 0;
	uint64_t duration, start, end, now, hits = 0, seen, cap = 0, user, sys;
	int signo = SIGRTMIN + 4;	/* what lost-overflow uses */
	bool recorder, full = false;
	char err[512];
	double secs;
	int fd, ret;

	if (argc != 4) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (parse_seconds(argv[2], &duration))
		return EXIT_USAGE;
	if (!strcmp(argv[3], "recorder")) {
		recorder = true;
	} else if (!strcmp(argv[3], "stream")) {
		stream = true;
		recorder = false;
	} else if (!strcmp(argv[3], "bare")) {
		recorder = false;
	} else {
		fprintf(stderr, "pms-bench: unknown handler '%s' (bare, recorder or stream)\n",
			argv[3]);
		return EXIT_USAGE;
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (uint64_t)(uintptr_t)pms_workload_tick;
	attr.bp_len = sizeof(long);
	attr.exclude_kernel = 1;
	/* Every hit is an overflow: the rate is bounded by the trap alone. */
	attr.sample_period = 1;
	attr.disabled = 1;

	fd = pms_perf_open_self(&attr, -1);
	if (fd < 0) {
		pms_perf_strerror(fd, NULL, err, sizeof(err));
		fprintf(stderr, "pms-bench: execute breakpoint on pms_workload_tick: %s\n", err);
		return pms_perf_err_no_hardware(fd) ? EXIT_SKIP : EXIT_COULD_NOT;
	}
	if (recorder) {
		cap = duration / NS_PER_S * RECORDER_PER_SECOND +
		      (duration % NS_PER_S) * RECORDER_PER_SECOND / NS_PER_S + 1;
		if (cap > RECORDER_MAX)
			cap = RECORDER_MAX;
		ret = pms_recorder_init(&rec, cap, signo);
	} else if (stream) {
		bd = calloc(1, sizeof(*bd));
		ret = bd ? pms_recorder_init_stream(&rec, 1, 65536, signo) : -ENOMEM;
		if (!ret) {
			bd->d.ocfg = (struct pms_oracle_cfg){ .period = 1, .tolerance = 0,
							      .sem = PMS_SEM_EXACT,
							      .max_anomalies = 1000 };
			bd->d.acfg = (struct pms_attrib_cfg){ .lift_min = 2, .alpha = 0.01,
							      .max_listed = 8, .complete = true };
			ret = pms_drain_init(&bd->d, &rec, 0);
			if (!ret)
				ret = -pthread_create(&drain_thread, NULL, drain_main, bd);
			pms_recorder_lane_bind(0);
		}
	} else {
		ret = bare_install(signo);
	}
	if (ret) {
		fprintf(stderr, "pms-bench: cannot install the %s handler: %s\n", argv[3],
			strerror(-ret));
		close(fd);
		return EXIT_COULD_NOT;
	}
	ret = pms_perf_async(fd, signo, gettid());
	if (ret) {
		fprintf(stderr, "pms-bench: cannot route overflow signals (O_ASYNC/F_SETSIG/"
			"F_SETOWN_EX): %s\n", strerror(-ret));
		ret = EXIT_COULD_NOT;
		goto out;
	}

	getrusage(RUSAGE_THREAD, &ru0);
	start = now = pms_now_ns();
	end = start + duration;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	while (now < end) {
		pms_workload_tick(&iterations);
		if (recorder && pms_recorder_seen(&rec) >= cap) {
			full = true;
			break;
		}
		now = pms_now_ns();
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	now = pms_now_ns();
	getrusage(RUSAGE_THREAD, &ru1);
	/* Signals raised by the last hits are delivered on the way back from
	 * the DISABLE ioctl, so the count below includes them. */
	seen = recorder || stream ? pms_recorder_seen(&rec) :
	       __atomic_load_n(&bare_seen, __ATOMIC_RELAXED) +
	       __atomic_load_n(&bare_sigio, __ATOMIC_RELAXED);
	if (stream) {
		__atomic_store_n(&bd->stop, 1, __ATOMIC_RELEASE);
		pthread_join(drain_thread, NULL);
		pms_drain_poll(&bd->d, UINT64_MAX);
	}
	if (pms_perf_read(fd, &hits))
		hits = 0;

	secs = (double)(now - start) / 1e9;
	user = rusage_ns(&ru1.ru_utime) - rusage_ns(&ru0.ru_utime);
	sys = rusage_ns(&ru1.ru_stime) - rusage_ns(&ru0.ru_stime);
	printf("signals handler=%s seconds=%.3f calls=%llu hits=%llu signals=%llu "
	       "sigio=%llu", argv[3], secs, (unsigned long long)iterations,
	       (unsigned long long)hits, (unsigned long long)seen,
	       (unsigned long long)(recorder || stream ? rec.sigio : bare_sigio));
	if (stream)
		printf(" judged=%llu ring_overflow=%llu", (unsigned long long)bd->d.ores.signals,
		       (unsigned long long)rec.dropped);
	if (recorder)
		printf(" stored=%llu dropped=%llu read_errors=%llu storage_full=%d",
		       (unsigned long long)rec.n, (unsigned long long)rec.dropped,
		       (unsigned long long)rec.read_errors, full);
	if (seen)
		printf(" signals_per_second=%.0f wall_ns_per_signal=%.0f cpu_ns_per_signal=%.0f "
		       "user_ns_per_signal=%.0f sys_ns_per_signal=%.0f\n", (double)seen / secs,
		       (double)(now - start) / (double)seen, (double)(user + sys) / (double)seen,
		       (double)user / (double)seen, (double)sys / (double)seen);
	else
		printf(" signals_per_second=0 wall_ns_per_signal=na cpu_ns_per_signal=na "
		       "user_ns_per_signal=na sys_ns_per_signal=na\n");
	if (!seen) {
		fprintf(stderr, "pms-bench: no overflow signal arrived in %.3f s (%llu "
			"breakpoint hits)\n", secs, (unsigned long long)hits);
		ret = EXIT_COULD_NOT;
	} else {
		ret = EXIT_RAN;
	}
out:
	close(fd);
	if (recorder || stream)
		pms_recorder_fini(&rec);
	if (bd) {
		pms_recorder_lane_bind(-1);
		pms_drain_fini(&bd->d);
		free(bd);
	}
	return ret;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "affinity"))
		return cmd_affinity(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "signals"))
		return cmd_signals(argc, argv);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return EXIT_RAN;
	}
	usage(stderr);
	return EXIT_USAGE;
}
