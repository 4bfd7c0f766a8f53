// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU sets and the mover, on hwloc: hwloc knows which PUs exist, which are
 * allowed, and which CPU kind (big/LITTLE, P/E core) each belongs to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pms-cpus.h"
#include "pms-util.h"

extern char **environ;

static int cpulist_syntax_ok(const char *list)
{
	const char *p = list;

	/* hwloc's list parser is lenient; reject what a user surely mistyped. */
	if (!*p)
		return 0;
	for (; *p; p++)
		if (!strchr("0123456789,-", *p))
			return 0;
	return list[0] != ',' && list[0] != '-' && p[-1] != ',' && p[-1] != '-' &&
	       !strstr(list, ",,") && !strstr(list, "--") && !strstr(list, "-,") &&
	       !strstr(list, ",-");
}

int pms_cpus_parse(hwloc_topology_t topo, const char *list, hwloc_bitmap_t set,
		   char *err, size_t errlen)
{
	hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(topo);
	hwloc_const_bitmap_t present = hwloc_topology_get_complete_cpuset(topo);
	unsigned int cpu;
	char have[1024];

	if (!cpulist_syntax_ok(list) || hwloc_bitmap_list_sscanf(set, list) < 0 ||
	    hwloc_bitmap_iszero(set)) {
		snprintf(err, errlen, "bad CPU list '%s': expected e.g. 0-1 or 0,2,4-7", list);
		return -EINVAL;
	}
	pms_cpus_format(allowed, have, sizeof(have));
	hwloc_bitmap_foreach_begin(cpu, set) {
		if (!hwloc_bitmap_isset(present, cpu)) {
			snprintf(err, errlen, "bad CPU list '%s': CPU %u does not exist "
				 "(allowed CPUs: %s)", list, cpu, have);
			return -EINVAL;
		}
		if (!hwloc_bitmap_isset(allowed, cpu)) {
			snprintf(err, errlen, "bad CPU list '%s': CPU %u is offline or outside "
				 "this process's cpuset (allowed CPUs: %s)", list, cpu, have);
			return -EINVAL;
		}
	} hwloc_bitmap_foreach_end();
	return 0;
}

void pms_cpus_format(hwloc_const_bitmap_t set, char *buf, size_t len)
{
	hwloc_bitmap_list_snprintf(buf, len, set);
}

int pms_cpus_kind_of(hwloc_topology_t topo, hwloc_const_bitmap_t set)
{
	return hwloc_cpukinds_get_by_cpuset(topo, set, 0);
}

int pms_cpus_default_pair(hwloc_topology_t topo, hwloc_bitmap_t set, char *why, size_t len)
{
	hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(topo);
	hwloc_bitmap_t kind = hwloc_bitmap_alloc(), best = hwloc_bitmap_alloc();
	int nr = hwloc_cpukinds_get_nr(topo, 0), best_kind = -1, best_w = 0, i, ret = 0;
	unsigned int cpu, taken = 0;

	if (!kind || !best) {
		ret = -ENOMEM;
		goto out;
	}
	if (nr <= 0) {
		hwloc_bitmap_copy(best, allowed);
	} else {
		for (i = 0; i < nr; i++) {
			int w;

			if (hwloc_cpukinds_get_info(topo, (unsigned int)i, kind, NULL, NULL, NULL, 0))
				continue;
			hwloc_bitmap_and(kind, kind, allowed);
			w = hwloc_bitmap_weight(kind);
			if (w > best_w) {
				best_w = w;
				best_kind = i;
				hwloc_bitmap_copy(best, kind);
			}
		}
	}
	hwloc_bitmap_zero(set);
	hwloc_bitmap_foreach_begin(cpu, best) {
		if (taken == 2)
			break;
		hwloc_bitmap_set(set, cpu);
		taken++;
	} hwloc_bitmap_foreach_end();
	if (taken < 2) {
		snprintf(why, len, "fewer than two allowed CPUs of one kind: the mover needs two");
		ret = -ENODEV;
	} else if (nr <= 0) {
		snprintf(why, len, "first two allowed CPUs (hwloc reports no CPU kinds: homogeneous)");
	} else {
		snprintf(why, len, "first two allowed CPUs of CPU kind %d of %d (the kind with the "
			 "most CPUs), so the thread never moves between PMUs", best_kind, nr);
	}
out:
	hwloc_bitmap_free(kind);
	hwloc_bitmap_free(best);
	return ret;
}

const char *const pms_move_patterns[] = {
	[PMS_MOVE_PINGPONG] = "ping-pong",
	[PMS_MOVE_ROUNDROBIN] = "round-robin",
	[PMS_MOVE_RANDOM] = "random",
	NULL,
};

const char *pms_move_pattern_name(enum pms_move_pattern p)
{
	return (unsigned int)p <= PMS_MOVE_RANDOM ? pms_move_patterns[p] : "?";
}

const char *pms_mover_kind_name(enum pms_mover_kind k)
{
	return k == PMS_MOVER_TASKSET ? "taskset" : "hwloc";
}

static int next_cpu(struct pms_mover *m, uint64_t step)
{
	uint64_t n = (uint64_t)m->nr_cpus, i;

	switch (m->pattern) {
	case PMS_MOVE_PINGPONG:
		/* 0 1 2 .. n-1 n-2 .. 1 0 1 ..: with two CPUs, strict alternation. */
		if (n == 1)
			return m->cpu_list[0];
		i = step % (2 * n - 2);
		return m->cpu_list[i < n ? i : 2 * n - 2 - i];
	case PMS_MOVE_ROUNDROBIN:
		return m->cpu_list[step % n];
	case PMS_MOVE_RANDOM:
		return m->cpu_list[(uint64_t)rand_r(&m->seed) % n];
	}
	return m->cpu_list[0];
}

static int rebind_taskset(pid_t tid, int cpu)
{
	char cpu_s[16], tid_s[16];
	char *argv[] = { "taskset", "-c", "-p", cpu_s, tid_s, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	pid_t pid;
	int status, ret;

	snprintf(cpu_s, sizeof(cpu_s), "%d", cpu);
	snprintf(tid_s, sizeof(tid_s), "%d", (int)tid);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	/* The CLI blocks SIGINT/SIGTERM in every thread; taskset must not inherit that. */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	ret = posix_spawnp(&pid, "taskset", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (ret)
		return -ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

static void *mover_main(void *arg)
{
	struct pms_mover *m = arg;
	hwloc_bitmap_t one = hwloc_bitmap_alloc();
	uint64_t step = 1;	/* step 0 is where the target starts */
	struct timespec ts;

	pthread_setname_np(pthread_self(), "pms-mover");
	while (!__atomic_load_n(&m->stop, __ATOMIC_ACQUIRE)) {
		int cpu = next_cpu(m, step++), err = 0;

		if (m->kind == PMS_MOVER_TASKSET) {
			err = rebind_taskset(m->target, cpu);
		} else {
			hwloc_bitmap_only(one, (unsigned int)cpu);
			if (hwloc_set_proc_cpubind(m->topo, m->target, one, HWLOC_CPUBIND_THREAD))
				err = -errno;
		}
		m->requested++;
		if (err)
			m->failed++;
		if (m->log_n < m->log_cap) {
			m->log[m->log_n].time_ns = pms_now_ns();
			m->log[m->log_n].cpu = cpu;
			m->log[m->log_n].err = -err;
			m->log_n++;
		} else {
			m->log_dropped++;
		}
		/* The target exited: nothing left to move. */
		if (err == -ESRCH)
			break;
		if (m->interval_ns) {
			ts.tv_sec = (time_t)(m->interval_ns / 1000000000ull);
			ts.tv_nsec = (long)(m->interval_ns % 1000000000ull);
			/* Pacing, not synchronisation: the rate is the knob. */
			nanosleep(&ts, NULL);
		}
	}
	m->end_ns = pms_now_ns();
	hwloc_bitmap_free(one);
	return NULL;
}

int pms_mover_start(struct pms_mover *m)
{
	unsigned int cpu;
	int i = 0, ret;

	m->nr_cpus = hwloc_bitmap_weight(m->cpus);
	if (m->nr_cpus < 1)
		return -EINVAL;
	m->cpu_list = calloc((size_t)m->nr_cpus, sizeof(int));
	m->log = m->log_cap ? calloc(m->log_cap, sizeof(*m->log)) : NULL;
	if (!m->cpu_list || (m->log_cap && !m->log))
		return -ENOMEM;
	hwloc_bitmap_foreach_begin(cpu, m->cpus) {
		m->cpu_list[i++] = (int)cpu;
	} hwloc_bitmap_foreach_end();
	m->requested = m->failed = m->log_dropped = 0;
	m->log_n = 0;
	m->stop = 0;
	m->start_ns = m->end_ns = pms_now_ns();
	ret = pthread_create(&m->thread, NULL, mover_main, m);
	if (ret)
		return -ret;
	m->running = true;
	return 0;
}

void pms_mover_stop(struct pms_mover *m)
{
	if (!m->running)
		return;
	__atomic_store_n(&m->stop, 1, __ATOMIC_RELEASE);
	pthread_join(m->thread, NULL);
	m->running = false;
}

void pms_mover_free(struct pms_mover *m)
{
	pms_mover_stop(m);
	free(m->cpu_list);
	free(m->log);
	m->cpu_list = NULL;
	m->log = NULL;
}

json_object *pms_mover_to_json(const struct pms_mover *m)
{
	json_object *o = json_object_new_object();
	double secs = (double)(m->end_ns - m->start_ns) / 1e9;
	char cpus[1024];

	pms_cpus_format(m->cpus, cpus, sizeof(cpus));
	json_object_object_add(o, "kind", json_object_new_string(pms_mover_kind_name(m->kind)));
	json_object_object_add(o, "pattern",
			       json_object_new_string(pms_move_pattern_name(m->pattern)));
	json_object_object_add(o, "cpus", json_object_new_string(cpus));
	json_object_object_add(o, "interval_ns", json_object_new_uint64(m->interval_ns));
	json_object_object_add(o, "rebinds_requested", json_object_new_uint64(m->requested));
	json_object_object_add(o, "rebinds_failed", json_object_new_uint64(m->failed));
	json_object_object_add(o, "seconds", json_object_new_double(secs));
	json_object_object_add(o, "rebinds_per_second",
			       json_object_new_double(secs > 0 ? (double)m->requested / secs : 0));
	json_object_object_add(o, "log_kept", json_object_new_uint64(m->log_n));
	json_object_object_add(o, "log_dropped", json_object_new_uint64(m->log_dropped));
	return o;
}

const struct pms_rebind *pms_mover_last_before(const struct pms_mover *m, uint64_t t)
{
	size_t lo = 0, hi = m->log_n;

	/* The log is in time order: binary search for the first entry after t. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->log[mid].time_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Past the end of a log that overflowed, the last entry is not the
	 * last rebind: say nothing rather than something wrong. */
	if (lo == m->log_n && m->log_dropped)
		return NULL;
	return lo ? &m->log[lo - 1] : NULL;
}

int64_t pms_task_nr_migrations(pid_t tid)
{
	char path[64], line[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/sched", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "se.nr_migrations : %lld", &v) == 1)
			break;
	fclose(f);
	return v < 0 ? -ENOENT : v;
}
