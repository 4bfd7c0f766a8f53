/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_CPUS_H
#define PMS_CPUS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <hwloc.h>
#include <json-c/json.h>

/**
 * pms_cpus_parse - parse a CPU list ("0-1", "0,2,4-7") into @set and check
 * that every CPU exists in @topo and is allowed for this process.  The
 * syntax is the kernel's cpulist, strictly (decimal, N <= M in N-M, one
 * dash per range); ranges are checked against the machine before any bit
 * is set, so "0-4294967295" names the CPUs that do not exist.
 * Return: 0, or -EINVAL (-ENOMEM) with a one-line reason in @err.
 */
int pms_cpus_parse(hwloc_topology_t topo, const char *list, hwloc_bitmap_t set,
		   char *err, size_t errlen);

/**
 * pms_cpus_default_pair - two allowed PUs of the same CPU kind (the kind with
 * the most allowed PUs), so that on big.LITTLE and hybrid parts the thread
 * never moves between PMUs; @why says which and why.
 * Return: 0, or -ENODEV when fewer than two allowed PUs share a kind.
 */
int pms_cpus_default_pair(hwloc_topology_t topo, hwloc_bitmap_t set, char *why, size_t len);

/* Index of the CPU kind @set lies in, or -1 if it spans kinds or none are known. */
int pms_cpus_kind_of(hwloc_topology_t topo, hwloc_const_bitmap_t set);

/* "0-1" for @set into @buf. */
void pms_cpus_format(hwloc_const_bitmap_t set, char *buf, size_t len);

enum pms_move_pattern { PMS_MOVE_PINGPONG, PMS_MOVE_ROUNDROBIN, PMS_MOVE_RANDOM };
enum pms_mover_kind { PMS_MOVER_HWLOC, PMS_MOVER_TASKSET };

struct pms_rebind {
	uint64_t time_ns;	/* CLOCK_MONOTONIC after the rebind returned */
	int32_t cpu;		/* CPU the thread was bound to */
	int32_t err;		/* 0 or the errno of a failed rebind */
};

/*
 * The mover re-binds a target thread across a CPU set, from a thread of its
 * own (hwloc) or by running `taskset -c -p CPU TID` as the original
 * reproducer did.  It logs every rebind with its time so that signals and
 * rebinds can be put on one clock.
 */
struct pms_mover {
	hwloc_topology_t topo;
	hwloc_bitmap_t cpus;
	enum pms_move_pattern pattern;
	enum pms_mover_kind kind;
	uint64_t interval_ns;	/* 0: as fast as possible */
	pid_t target;		/* kernel TID */
	unsigned int seed;

	/*
	 * log_ring: the log is a ring of log_cap entries that a reader drains
	 * while the run goes (pms_mover_log_read()): log_n counts every entry
	 * ever written and nothing is counted in log_dropped; the reader
	 * counts what it was lapped by.  Else an array that keeps the first
	 * log_cap rebinds.
	 */
	bool log_ring;

	/* results */
	struct pms_rebind *log;
	size_t log_cap, log_n;
	uint64_t requested, failed, log_dropped;
	uint64_t start_ns, end_ns;

	/* private */
	int *cpu_list;
	int nr_cpus;
	volatile int stop;
	pthread_t thread;
	bool running;
};

/**
 * pms_mover_start - start moving @m->target; the caller fills topo, cpus,
 * pattern, kind, interval_ns, target, seed and log_cap.
 * Return: 0 or -errno.
 */
int pms_mover_start(struct pms_mover *m);

/* Stop the mover and wait for it. Safe to call twice. */
void pms_mover_stop(struct pms_mover *m);

void pms_mover_free(struct pms_mover *m);

/* kind, pattern, cpus, interval, requested, failed, rate, log summary. */
json_object *pms_mover_to_json(const struct pms_mover *m);

/*
 * Ring mode: copy the entries written since *@cursor (at most @max) into
 * @out and advance the cursor; entries the writer overwrote before they
 * were read are added to *@lost.  Return: how many were copied.
 */
size_t pms_mover_log_read(const struct pms_mover *m, uint64_t *cursor, struct pms_rebind *out,
			  size_t max, uint64_t *lost);

/* The last logged rebind at or before @t (CLOCK_MONOTONIC ns), or NULL (ring mode: NULL). */
const struct pms_rebind *pms_mover_last_before(const struct pms_mover *m, uint64_t t);

const char *pms_move_pattern_name(enum pms_move_pattern p);

/* The pattern names in enum order, NULL-terminated: an option's choices. */
extern const char *const pms_move_patterns[];

/*
 * The mover's options that every moving scenario shares (its own --mover
 * and --cpus say how it is switched on): order, pace and seed.
 */
#define PMS_MOVER_OPTS								\
	{ .name = "pattern", .type = PMS_OPT_CHOICE, .def = "ping-pong",		\
	  .choices = pms_move_patterns, .arg = "ping-pong|round-robin|random",	\
	  .help = "order of the moves" },						\
	{ .name = "move-interval", .type = PMS_OPT_INTERVAL, .def = "0", .min = 0,	\
	  .max = 10 * 1000000000ull, .arg = "TIME",					\
	  .help = "pause between moves (0: as fast as possible; bare number in us)" },	\
	{ .name = "seed", .type = PMS_OPT_U64, .def = "1", .min = 0, .max = 0xffffffffu,	\
	  .arg = "N", .help = "random seed for --pattern random" }
const char *pms_mover_kind_name(enum pms_mover_kind k);

/* Migrations the scheduler counted for thread @tid (se.nr_migrations), or -errno. */
int64_t pms_task_nr_migrations(pid_t tid);

#endif
