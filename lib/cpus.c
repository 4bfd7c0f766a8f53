// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU sets and the mover, on hwloc: hwloc knows which PUs exist, which are
 * allowed, and which CPU kind (big/LITTLE, P/E core) each belongs to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

/* One range of a CPU list, bounds included. */
struct cpu_range {
	uint64_t lo, hi;
};

/*
 * A CPU number: decimal digits only.  *@big is set for one past 2^64 - 1,
 * which no machine has, rather than letting it wrap to a CPU that does.
 */
static const char *cpu_number(const char *p, uint64_t *v, bool *big)
{
	if (*p < '0' || *p > '9')
		return NULL;
	for (*v = 0; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(*v, 10, v) || __builtin_add_overflow(*v, *p - '0', v))
			*big = true;
	return p;
}

/*
 * The kernel's cpulist format, strictly: "N" or "N-M" (N <= M), separated by
 * single commas.  hwloc's own parser takes "0-1-0" and bits up to 2^32,
 * which it then cannot count, so it never sees the user's text.
 */
static int cpulist_split(const char *list, struct cpu_range **out, size_t *nr, char *why,
			 size_t len)
{
	struct cpu_range *r;
	const char *p = list;
	size_t n = 1;

	for (; *p; p++)
		n += *p == ',';
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (p = list, n = 0; ; n++) {
		const char *elem = p;
		bool big = false;

		p = cpu_number(p, &r[n].lo, &big);
		r[n].hi = r[n].lo;
		if (p && *p == '-')
			p = cpu_number(p + 1, &r[n].hi, &big);
		if (p && *p == '-') {
			snprintf(why, len, "a range has one dash, as in 0-3");
			break;
		}
		if (!p || (*p && *p != ',')) {
			snprintf(why, len, "expected e.g. 0-1 or 0,2,4-7");
			break;
		}
		if (big) {
			snprintf(why, len, "%.*s: no CPU has a number that large",
				 (int)(p - elem), elem);
			break;
		}
		if (r[n].lo > r[n].hi) {
			snprintf(why, len, "range %" PRIu64 "-%" PRIu64 " runs backwards",
				 r[n].lo, r[n].hi);
			break;
		}
		if (!*p++) {
			*out = r;
			*nr = n + 1;
			return 0;
		}
	}
	free(r);
	return -EINVAL;
}

static int range_cmp(const void *a, const void *b)
{
	const struct cpu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sort and join overlapping or adjacent ranges; return how many are left. */
static size_t ranges_merge(struct cpu_range *r, size_t n)
{
	size_t i, m = 0;

	qsort(r, n, sizeof(*r), range_cmp);
	for (i = 1; i < n; i++) {
		if (r[i].lo <= r[m].hi || r[i].lo - 1 == r[m].hi) {
			if (r[i].hi > r[m].hi)
				r[m].hi = r[i].hi;
		} else {
			r[++m] = r[i];
		}
	}
	return n ? m + 1 : 0;
}

/*
 * The CPUs of @r that @have lacks, as a cpulist into @buf; CPUs past @last
 * (the highest in @have) are never put in a bitmap, so a range up to 2^64
 * costs nothing.  Return: how many (saturating), 0 when none.
 */
static uint64_t cpus_missing(const struct cpu_range *r, size_t n, hwloc_const_bitmap_t have,
			     unsigned int last, char *buf, size_t len)
{
	hwloc_bitmap_t miss = hwloc_bitmap_alloc();
	uint64_t count = 0, c, top;
	size_t i, pos;

	buf[0] = '\0';
	if (!miss)
		return 0;
	for (i = 0; i < n; i++) {
		top = r[i].hi < last ? r[i].hi : last;
		for (c = r[i].lo; c <= top; c++) {
			if (!hwloc_bitmap_isset(have, (unsigned int)c)) {
				hwloc_bitmap_set(miss, (unsigned int)c);
				count++;
			}
		}
	}
	hwloc_bitmap_list_snprintf(buf, len, miss);
	hwloc_bitmap_free(miss);
	for (i = 0; i < n; i++) {
		if (r[i].hi <= last)
			continue;
		c = r[i].lo > last ? r[i].lo : (uint64_t)last + 1;
		pos = strlen(buf);
		if (c == r[i].hi)
			snprintf(buf + pos, len - pos, "%s%" PRIu64, pos ? "," : "", c);
		else
			snprintf(buf + pos, len - pos, "%s%" PRIu64 "-%" PRIu64, pos ? "," : "", c,
				 r[i].hi);
		if (__builtin_add_overflow(count, r[i].hi - c + 1, &count) || !count)
			count = UINT64_MAX;
	}
	return count;
}

int pms_cpus_parse(hwloc_topology_t topo, const char *list, hwloc_bitmap_t set,
		   char *err, size_t errlen)
{
	hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(topo);
	hwloc_const_bitmap_t present = hwloc_topology_get_complete_cpuset(topo);
	int last = hwloc_bitmap_last(present);
	struct cpu_range *r = NULL;
	char have[512], cpus[256], why[128];
	uint64_t n;
	size_t nr, i;
	int ret;

	ret = cpulist_split(list, &r, &nr, why, sizeof(why));
	if (ret == -ENOMEM) {
		snprintf(err, errlen, "out of memory for CPU list '%s'", list);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen, "bad CPU list '%s': %s", list, why);
		return ret;
	}
	/* No CPU at all, or a set without end: neither is a machine. */
	if (last < 0) {
		snprintf(err, errlen, "bad CPU list '%s': hwloc reports no CPUs here", list);
		free(r);
		return -EINVAL;
	}
	nr = ranges_merge(r, nr);
	pms_cpus_format(allowed, have, sizeof(have));
	ret = -EINVAL;
	if ((n = cpus_missing(r, nr, present, (unsigned int)last, cpus, sizeof(cpus))))
		snprintf(err, errlen, "bad CPU list '%s': CPU%s %s do%s not exist (allowed CPUs: "
			 "%s)", list, n > 1 ? "s" : "", cpus, n > 1 ? "" : "es", have);
	else if ((n = cpus_missing(r, nr, allowed, (unsigned int)last, cpus, sizeof(cpus))))
		snprintf(err, errlen, "bad CPU list '%s': CPU%s %s %s offline or outside this "
			 "process's cpuset (allowed CPUs: %s)", list, n > 1 ? "s" : "", cpus,
			 n > 1 ? "are" : "is", have);
	else
		ret = 0;
	hwloc_bitmap_zero(set);
	for (i = 0; !ret && i < nr; i++)
		hwloc_bitmap_set_range(set, (unsigned int)r[i].lo, (int)r[i].hi);
	free(r);
	return ret;
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
		if (m->log_ring && m->log_cap) {
			/* A ring the drain reads while it is written: see pms-cpus.h. */
			struct pms_rebind *e = &m->log[m->log_n % m->log_cap];

			e->time_ns = pms_now_ns();
			e->cpu = cpu;
			e->err = -err;
			__atomic_store_n(&m->log_n, m->log_n + 1, __ATOMIC_RELEASE);
		} else if (m->log_n < m->log_cap) {
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
	json_object_object_add(o, "log", json_object_new_string(m->log_ring ?
		"ring read as the run goes (rebinds become evidence, then are dropped)" :
		"array kept for the whole run"));
	json_object_object_add(o, "log_kept", json_object_new_uint64(m->log_ring ?
		(m->log_n < m->log_cap ? m->log_n : m->log_cap) : m->log_n));
	json_object_object_add(o, "log_dropped", json_object_new_uint64(m->log_dropped));
	return o;
}

size_t pms_mover_log_read(const struct pms_mover *m, uint64_t *cursor, struct pms_rebind *out,
			  size_t max, uint64_t *lost)
{
	uint64_t n = __atomic_load_n(&m->log_n, __ATOMIC_ACQUIRE), i, got = 0, after;

	if (!m->log || !m->log_cap)
		return 0;
	if (n - *cursor > m->log_cap) {
		*lost += n - *cursor - m->log_cap;
		*cursor = n - m->log_cap;
	}
	for (i = *cursor; i < n && got < max; i++)
		out[got++] = m->log[i % m->log_cap];
	/* What the writer lapped while we copied is not to be trusted. */
	after = __atomic_load_n(&m->log_n, __ATOMIC_ACQUIRE);
	if (after > m->log_cap && after - m->log_cap > *cursor) {
		uint64_t bad = after - m->log_cap - *cursor;

		if (bad > got)
			bad = got;
		memmove(out, out + bad, (size_t)(got - bad) * sizeof(*out));
		got -= bad;
		*lost += bad;
		*cursor += bad;
	}
	*cursor += got;
	return (size_t)got;
}

const struct pms_rebind *pms_mover_last_before(const struct pms_mover *m, uint64_t t)
{
	size_t lo;

	if (m->log_ring)
		return NULL;
	/* The log is in time order: the first entry after t. */
	lo = PMS_UPPER_BOUND(m->log, m->log_n, time_ns, t);
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
