// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared shape of the signal-counting scenarios (see pms-sigrun.h):
 * everything from choosing the CPUs to the verdict that does not depend on
 * the scenario's own stressor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pms-sigrun.h"
#include "pms-skidbound.h"
#include "pms-util.h"

const char *const pms_on_off[] = { "on", "off", NULL };

void pms_sigrun_init(struct pms_sigrun *s)
{
	s->stressor = PMS_CAUSE_NR;
	pms_counting_init(&s->k);
	s->cpus = hwloc_bitmap_alloc();
	s->nthreads = 1;
	s->watchdog_lane = -1;
}

struct pms_sigrun_lane *pms_sigrun_lane(struct pms_sigrun *s, unsigned int i)
{
	return i ? &s->more[i - 1] : &s->lane0;
}

const struct pms_sigrun_lane *pms_sigrun_lane_c(const struct pms_sigrun *s, unsigned int i)
{
	return i ? &s->more[i - 1] : &s->lane0;
}

#define for_each_lane(s, i, l)							\
	for ((i) = 0; (i) < (s)->nthreads && ((l) = pms_sigrun_lane((s), (i))); (i)++)

/*
 * --threads: one counting thread per pair of CPUs of one kind, cut in
 * order from the set (--cpus, else every allowed CPU of the kind the
 * default pair comes from).  Default: as many as there are disjoint pairs,
 * at most 8; more than that shares pairs, and the result says so.
 */
static enum pms_status choose_threads(struct pms_run *run, struct pms_sigrun *s)
{
	unsigned int want = (unsigned int)pms_opt_u64(&run->opts, "threads"), npairs, i, cpu;
	int cpus[2 * PMS_SIGRUN_MAX_THREADS], n = 0, kind;

	s->base_cpus = hwloc_bitmap_dup(s->cpus);
	if (!pms_opt_str(&run->opts, "cpus")) {
		kind = pms_cpus_kind_of(run->topo, s->cpus);
		if (kind >= 0)
			hwloc_cpukinds_get_info(run->topo, (unsigned int)kind, s->base_cpus, NULL, NULL,
						NULL, 0);
		else
			hwloc_bitmap_copy(s->base_cpus, hwloc_topology_get_allowed_cpuset(run->topo));
		hwloc_bitmap_and(s->base_cpus, s->base_cpus,
				 hwloc_topology_get_allowed_cpuset(run->topo));
	}
	hwloc_bitmap_foreach_begin(cpu, s->base_cpus) {
		if (n < (int)PMS_ARRAY_SIZE(cpus))
			cpus[n++] = (int)cpu;
	} hwloc_bitmap_foreach_end();
	npairs = (unsigned int)n / 2;
	if (!npairs)
		npairs = 1;
	if (!want)
		want = npairs < 8 ? npairs : 8;
	s->nthreads = want;
	s->pairs_shared = want > npairs;
	if (want > 1) {
		s->more = calloc(want - 1, sizeof(*s->more));
		if (!s->more) {
			snprintf(run->reason, sizeof(run->reason), "out of memory for %u threads", want);
			return PMS_E_SETUP;
		}
	}
	for (i = 0; i < want; i++) {
		struct pms_sigrun_lane *l = pms_sigrun_lane(s, i);
		unsigned int p = i % npairs;

		if (i)
			pms_counting_init(&l->k);
		if (!l->cpus)
			l->cpus = hwloc_bitmap_alloc();
		hwloc_bitmap_zero(l->cpus);
		if (n >= 2) {
			hwloc_bitmap_set(l->cpus, (unsigned int)cpus[2 * p]);
			hwloc_bitmap_set(l->cpus, (unsigned int)cpus[2 * p + 1]);
		} else {
			hwloc_bitmap_copy(l->cpus, s->base_cpus);
		}
		/* One thread keeps the whole set, as before --threads. */
		if (want == 1)
			hwloc_bitmap_copy(l->cpus, s->cpus);
		/* Unmoved threads sharing pairs: each pinned to a CPU of its own. */
		else if (!s->use_mover && s->pairs_shared && n >= 1) {
			hwloc_bitmap_zero(l->cpus);
			hwloc_bitmap_set(l->cpus, (unsigned int)cpus[i % (unsigned int)n]);
		}
	}
	return PMS_OK;
}

static enum pms_status choose_cpus(struct pms_run *run, struct pms_sigrun *s)
{
	const char *cpus = pms_opt_str(&run->opts, "cpus");
	char err[256];

	if (cpus) {
		if (pms_cpus_parse(run->topo, cpus, s->cpus, err, sizeof(err))) {
			snprintf(run->reason, sizeof(run->reason), "%s", err);
			return PMS_E_CPUS;
		}
		if (s->use_mover && hwloc_bitmap_weight(s->cpus) < 2) {
			snprintf(run->reason, sizeof(run->reason), "bad CPU list '%s': the mover "
				 "needs at least two CPUs (or use %s)", cpus, s->no_mover_hint);
			return PMS_E_CPUS;
		}
		snprintf(s->cpus_why, sizeof(s->cpus_why), "--cpus");
		if (pms_cpus_kind_of(run->topo, s->cpus) < 0 &&
		    hwloc_cpukinds_get_nr(run->topo, 0) > 1)
			snprintf(s->cpus_why, sizeof(s->cpus_why), "--cpus (spans CPU kinds: the "
				 "event may not count on every CPU of the set)");
		return PMS_OK;
	}
	if (pms_cpus_default_pair(run->topo, s->cpus, s->cpus_why, sizeof(s->cpus_why))) {
		if (s->use_mover) {
			snprintf(run->reason, sizeof(run->reason), "the mover needs two CPUs of one "
				 "kind and this machine has fewer (%s); %s runs without it",
				 s->cpus_why, s->no_mover_hint);
			return PMS_E_SKIP;
		}
		hwloc_bitmap_copy(s->cpus, hwloc_topology_get_allowed_cpuset(run->topo));
	}
	return PMS_OK;
}

/*
 * Lateness within the CPU's interrupt skid is how the PMU works, not a lost
 * signal: rr's per-CPU figures unless --skid-allowance says otherwise.  A
 * breakpoint's debug exception and a software event's overflow are taken
 * in place, so they are held exact.
 */
static void choose_skid(struct pms_run *run, struct pms_sigrun *s)
{
	if (pms_opt_given(&run->opts, "skid-allowance")) {
		s->skid = pms_opt_u64(&run->opts, "skid-allowance");
		snprintf(s->skid_why, sizeof(s->skid_why), "--skid-allowance");
	} else if (s->c.ev.breakpoint || s->c.ev.attr.type == PERF_TYPE_SOFTWARE ||
		   s->c.ev.attr.type == PERF_TYPE_TRACEPOINT) {
		s->skid = 0;
		snprintf(s->skid_why, sizeof(s->skid_why), "%s: the overflow is taken in place, "
			 "no PMU skid", s->c.ev.breakpoint ? "breakpoint" : "software event");
	} else {
		s->skid = pms_skid_default_allowance(pms_host_str(run->host, "cpu", "vendor"),
						     pms_host_str(run->host, "cpu", "model"),
						     pms_host_str(run->host, "cpu", "midr"),
						     s->skid_why, sizeof(s->skid_why));
		if (json_object_get_boolean(pms_json_get(run->host, "emulated"))) {
			s->skid_unbounded = true;
			snprintf(s->skid_why, sizeof(s->skid_why), "emulated PMU (QEMU TCG): the "
				 "emulator raises a counter's overflow interrupt at its next "
				 "timer event, not at the overflow, so no CPU's skid figure "
				 "bounds it; late, early and coalesced signals are reported, "
				 "not judged (--skid-allowance judges them)");
		}
	}
}

enum pms_status pms_sigrun_setup(struct pms_run *run, struct pms_sigrun *s)
{
	struct pms_sigrun_lane *l;
	enum pms_status st;
	unsigned int i;

	st = choose_cpus(run, s);
	if (st)
		return st;
	st = pms_counter_resolve(run, s->preferred, s->hw_period, s->bp_period, &s->c);
	if (st)
		return st;
	if (s->stream) {
		st = choose_threads(run, s);
		if (st)
			return st;
	}
	for (i = 0; i < s->nthreads; i++) {
		st = pms_run_workload(run, &pms_sigrun_lane(s, i)->work, &s->c.ev);
		if (st)
			return st;
	}
	s->signo = PMS_OVERFLOW_SIGNO;
	if (s->stream) {
		int ret;

		if (pms_opt_given(&run->opts, "max-signals")) {
			snprintf(run->reason, sizeof(run->reason), "--max-signals does not apply to "
				 "%s: its recorder streams, so a run holds the same memory "
				 "however long it is", run->sc->name);
			return PMS_E_USAGE;
		}
		ret = pms_recorder_init_stream(&s->rec, s->nthreads, PMS_SIGRUN_STREAM_SLOTS,
					       s->signo);
		if (ret) {
			snprintf(run->reason, sizeof(run->reason), "cannot set up the signal "
				 "recorder: %s", strerror(-ret));
			return PMS_E_SETUP;
		}
		s->rec.inject_drop_every = pms_opt_u64(&run->opts, "inject-drop-every");
		s->rec.inject_stop_after = pms_opt_u64(&run->opts, "inject-stop-after");
	} else {
		st = pms_run_recorder(run, &s->rec, s->signo);
		if (st)
			return st;
	}

	for_each_lane(s, i, l) {
		l->mover.topo = run->topo;
		l->mover.cpus = l->cpus;
		l->mover.kind = s->mover_kind;
		l->mover.pattern = (enum pms_move_pattern)pms_opt_u64(&run->opts, "pattern");
		l->mover.interval_ns = pms_opt_u64(&run->opts, "move-interval");
		l->mover.seed = (unsigned int)pms_opt_u64(&run->opts, "seed") + i;
		l->mover.log_cap = s->stream ? 1u << 16 : 1u << 20;
		l->mover.log_ring = s->stream;

		l->k.lane = (int)i;
		l->k.c = &s->c;
		l->k.work = &l->work;
		l->k.signo = s->signo;
		l->k.topo = run->topo;
		l->k.pin_first = s->pin_control && !s->use_mover ? l->cpus : NULL;
		l->k.ring_pages = pms_opt_u64(&run->opts, "ring") == 0 ? PMS_SIGRUN_RING_PAGES : 0;
		l->k.competing = (unsigned int)pms_opt_u64(&run->opts, "competing-events");
	}
	s->throttle_ns = calloc(PMS_SIGRUN_THROTTLE_CAP, sizeof(*s->throttle_ns));
	if (!s->throttle_ns) {
		snprintf(run->reason, sizeof(run->reason), "out of memory for throttle records");
		return PMS_E_SETUP;
	}
	choose_skid(run, s);
	return PMS_OK;
}

static enum pms_status drain_setup(struct pms_run *run, struct pms_sigrun *s,
				   struct pms_sigrun_lane *l, unsigned int lane)
{
	struct pms_drain *d = &l->drain;
	const char *dump = getenv("PMUSTRESS_DUMP_ATTRIB");
	int ret;

	pms_sigrun_oracle_cfg(run, s, s->c.ev.sem, &d->ocfg);
	d->acfg = (struct pms_attrib_cfg){ .max_listed = 8, .complete = true, .alpha = 0.01,
					   .lift_min = pms_lift_min(run), .traced = s->tr.traced };
	d->multiplex_evidence = true;
	d->until_fail = pms_opt_u64(&run->opts, "until-fail") != 0;
	ret = pms_drain_init(d, &s->rec, lane);
	l->drain_ready = true;
	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot set up the drain: %s",
			 strerror(-ret));
		return ret == -EINVAL ? PMS_E_USAGE : PMS_E_SETUP;
	}
	if (dump && *dump && !lane) {
		d->dump = fopen(dump, "we");
		if (!d->dump)
			fprintf(stderr, "pmustress: PMUSTRESS_DUMP_ATTRIB: %s: %s\n", dump,
				strerror(errno));
		else
			fprintf(d->dump, "# pmustress %s attribution input (streamed, thread 0: a "
				"late signal may have become gap at the end): %s, kernel %s, trace "
				"%s\n", PMS_VERSION, run->sc->name,
				pms_host_str(run->host, "kernel", "release"),
				s->tr.traced ? "on" : "off");
	}
	return PMS_OK;
}

enum pms_status pms_sigrun_start(struct pms_run *run, struct pms_sigrun *s)
{
	pid_t tids[PMS_SIGRUN_MAX_THREADS];
	struct pms_sigrun_lane *l;
	enum pms_status st = PMS_OK;
	unsigned int i;

	for_each_lane(s, i, l) {
		st = pms_counting_start(&l->k, run->reason, sizeof(run->reason));
		if (st)
			return st;
		tids[i] = l->k.tid;
	}
	st = pms_tracing_start(run, &s->tr, tids, s->nthreads);
	for_each_lane(s, i, l)
		if (!st && s->stream)
			st = drain_setup(run, s, l, i);
	return st;
}

/*
 * Read what the kernel wrote to the counter's ring since the last call: one
 * 8-byte sample per overflow, which is only skipped, and the THROTTLE,
 * UNTHROTTLE and LOST records that say the kernel itself held signals back.
 * From the supervising thread; the counting thread never reads the ring.
 */
static void drain_lane_ring(struct pms_sigrun *s, struct pms_sigrun_lane *l)
{
	struct perf_event_mmap_page *pg = l->k.ring;
	struct pms_ring_rec recs[256];
	uint64_t head, size;
	long page = sysconf(_SC_PAGESIZE);

	if (!pg || l->ring_error)
		return;
	size = (uint64_t)PMS_SIGRUN_RING_PAGES * (uint64_t)page;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	if (l->ring_tail != head) {
		size_t n = 0, i;
		int64_t tail = pms_ring_parse_kept((const char *)pg + page, size, l->ring_tail,
						   head, s->c.ev.attr.sample_type,
						   1ull << PERF_RECORD_THROTTLE, recs,
						   PMS_ARRAY_SIZE(recs), &n, &l->ring_cnt);

		if (tail < 0) {
			l->ring_error = (int)tail;
			return;
		}
		for (i = 0; i < n; i++) {
			if (s->stream && l->drain_ready)
				pms_drain_evidence(&l->drain, recs[i].time_ns, PMS_CAUSE_THROTTLE,
						   -1, -1);
			else if (s->nthrottle < PMS_SIGRUN_THROTTLE_CAP)
				s->throttle_ns[s->nthrottle++] = recs[i].time_ns;
			else
				s->throttle_dropped++;
		}
		/* THROTTLE records past @recs were counted in ring_cnt.not_stored. */
		l->ring_tail = (uint64_t)tail;
		__atomic_store_n(&pg->data_tail, l->ring_tail, __ATOMIC_RELEASE);
	}
}

static bool drain_ring(void *arg)
{
	struct pms_sigrun *s = arg;

	drain_lane_ring(s, &s->lane0);
	return false;
}

/* The thread of @tid, or NULL. */
static struct pms_sigrun_lane *lane_of_tid(struct pms_sigrun *s, pid_t tid)
{
	struct pms_sigrun_lane *l;
	unsigned int i;

	for_each_lane(s, i, l)
		if (l->k.tid == tid)
			return l;
	return NULL;
}

/* One scheduler event becomes evidence of its thread. */
static void sched_evidence(void *arg, const struct pms_sched_ev *e)
{
	struct pms_sigrun *s = arg;
	struct pms_sigrun_lane *l = lane_of_tid(s, e->tid);

	if (!l || !l->drain_ready)
		return;
	if (e->kind == PMS_EV_MIGRATE)
		pms_drain_evidence(&l->drain, e->time_ns, PMS_CAUSE_MIGRATION, e->from_cpu,
				   e->to_cpu);
	else if (e->kind == PMS_EV_SWITCH_OUT)
		pms_drain_evidence(&l->drain, e->time_ns, PMS_CAUSE_SWITCH_OUT, e->state, -1);
}

/* The scheduler events read at the end become evidence; the list is emptied. */
static void feed_sched(struct pms_sigrun *s)
{
	size_t i;

	for (i = 0; i < s->tr.nsched; i++)
		sched_evidence(s, &s->tr.sched[i]);
	free(s->tr.sched);
	s->tr.sched = NULL;
	s->tr.nsched = 0;
}

static void feed_rebinds(struct pms_sigrun *s, struct pms_sigrun_lane *l)
{
	struct pms_rebind rb[256];
	size_t n, i;

	if (!s->use_mover || !l->drain_ready)
		return;
	do {
		n = pms_mover_log_read(&l->mover, &l->rebind_cursor, rb, PMS_ARRAY_SIZE(rb),
				       &l->rebinds_lapped);
		for (i = 0; i < n; i++)
			pms_drain_evidence(&l->drain, rb[i].time_ns, PMS_CAUSE_REBIND, -1, rb[i].cpu);
	} while (n == PMS_ARRAY_SIZE(rb));
}

/* Resident set of this process in KiB (/proc/self/statm), or 0. */
static uint64_t rss_kib(void)
{
	unsigned long long size, resident;
	FILE *f = fopen("/proc/self/statm", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	return n == 2 ? resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024 : 0;
}

/*
 * Every thread but the first has its own watchdog here (the supervisor's
 * watches the first): signals that stop on one thread while the others
 * go on must end the run too.
 */
static bool lanes_watchdog(struct pms_sigrun *s, uint64_t now)
{
	struct pms_sigrun_lane *l;
	unsigned int i;

	for_each_lane(s, i, l) {
		uint64_t value = 0;

		if (!i)
			continue;
		if (!l->wd.timeout_ns)
			pms_watchdog_start(&l->wd, s->c.period, s->sup.wd.timeout_ns, now);
		pms_perf_read(l->k.fd, &value);
		if (pms_watchdog_check(&l->wd, now, __atomic_load_n(&s->rec.lanes[i].head,
								     __ATOMIC_ACQUIRE), value)) {
			s->watchdog_lane = (int)i;
			return true;
		}
	}
	return false;
}

/*
 * Every 10 ms while the run goes: the kernel's records, the rebinds, every
 * 100 ms the scheduler trace; then the signals whose windows can hold
 * nothing more are judged.  Without a trace the watermark trails the clock
 * by 2 ms (a rebind is logged just after it returns).
 */
static bool stream_poll(void *arg)
{
	struct pms_sigrun *s = arg;
	struct pms_sigrun_lane *l;
	uint64_t now = pms_now_ns(), mark;
	unsigned int i;
	bool stop = false;

	/* Memory and the other threads' watchdogs once a second / tick. */
	if (now - s->rss_read_ns >= 1000000000ull) {
		uint64_t kib = rss_kib();

		if (!s->rss_read_ns)
			s->rss_first_ns = now;
		else if (!s->rss_1s_kib)
			s->rss_1s_kib = kib;
		else if (!s->rss_10s_kib && now - s->rss_first_ns >= 10000000000ull)
			s->rss_10s_kib = kib;
		s->rss_read_ns = now;
		s->rss_last_kib = kib;
		if (kib > s->rss_max_kib)
			s->rss_max_kib = kib;
	}
	if (s->nthreads > 1 && lanes_watchdog(s, now))
		return true;
	for_each_lane(s, i, l) {
		drain_lane_ring(s, l);
		feed_rebinds(s, l);
	}
	if (s->tr.traced && s->tr.trace.created && !s->trace_read_err &&
	    now - s->trace_read_ns >= PMS_SIGRUN_TRACE_READ_NS) {
		s->trace_read_ns = now;
		s->trace_read_err = pms_trace_collect_each(&s->tr.trace, sched_evidence, s);
		if (!s->trace_read_err)
			s->trace_watermark = now;
	}
	mark = now - 2000000;
	if (s->tr.traced && !s->trace_read_err && s->trace_watermark < mark)
		mark = s->trace_watermark;
	for_each_lane(s, i, l)
		if (pms_drain_poll(&l->drain, mark))
			stop = true;
	if (stop)
		s->until_fail_hit = true;
	return stop;
}

void pms_sigrun_supervise(struct pms_run *run, struct pms_sigrun *s,
			  void (*progress)(void *arg, char *buf, size_t len, uint64_t seen),
			  void *arg)
{
	struct pms_sigrun_lane *l;
	unsigned int i;
	int ret;

	s->sup.rec = &s->rec;
	s->sup.fd = s->k.fd;
	s->sup.period = s->c.period;
	s->sup.progress = progress;
	s->sup.arg = arg;
	s->sup.poll = s->stream ? stream_poll : drain_ring;
	s->sup.poll_arg = s;
	s->sup.poll_ns = 10000000;
	for_each_lane(s, i, l) {
		pms_counting_go(&l->k);
		l->mover.target = l->k.tid;
		/* The supervisor starts and stops the first thread's mover. */
		if (i && s->use_mover) {
			ret = pms_mover_start(&l->mover);
			if (ret) {
				run->verdict = PMS_VERDICT_ERROR;
				snprintf(run->reason, sizeof(run->reason), "cannot start the mover "
					 "of thread %u: %s", i, strerror(-ret));
			}
		}
	}
	s->sup.mover = s->use_mover ? &s->mover : NULL;
	if (run->verdict != PMS_VERDICT_ERROR)
		pms_supervise(run, &s->sup);
	for_each_lane(s, i, l)
		if (i)
			pms_mover_stop(&l->mover);
	/* Another thread's watchdog ended the run: it is the run's finding. */
	if (s->watchdog_lane > 0) {
		const struct pms_watchdog *w = &pms_sigrun_lane(s, (unsigned int)s->watchdog_lane)->wd;

		s->sup.wd.fired = w->fired;
		s->sup.wd.stalled = w->stalled;
		snprintf(s->sup.wd.message, sizeof(s->sup.wd.message), "thread %d: %.480s",
			 s->watchdog_lane, w->message);
	}
}

/* The counts every shared section reports, over all threads. */
static void sum_lanes(struct pms_sigrun *s)
{
	struct pms_sigrun_lane *l;
	unsigned int i;

	memset(&s->ring_sum, 0, sizeof(s->ring_sum));
	s->ring_all_ok = true;
	s->rebinds_sum = s->rebinds_failed_sum = s->rebinds_lapped_sum = 0;
	s->migrations_sched_sum = 0;
	s->aff_restored_all = true;
	for_each_lane(s, i, l) {
		const struct pms_ring_counts *c = &l->ring_cnt;

		s->ring_sum.samples += c->samples;
		s->ring_sum.throttle += c->throttle;
		s->ring_sum.unthrottle += c->unthrottle;
		s->ring_sum.lost_records += c->lost_records;
		s->ring_sum.lost_samples += c->lost_samples;
		s->ring_sum.other += c->other;
		s->ring_sum.not_stored += c->not_stored;
		s->ring_sum.bytes += c->bytes;
		s->ring_all_ok &= l->k.ring && !l->ring_error;
		s->rebinds_sum += l->mover.requested;
		s->rebinds_failed_sum += l->mover.failed;
		s->rebinds_lapped_sum += l->rebinds_lapped;
		if (l->k.nr_migrations_sched < 0 || s->migrations_sched_sum < 0)
			s->migrations_sched_sum = -1;
		else
			s->migrations_sched_sum += l->k.nr_migrations_sched;
		s->aff_restored_all &= l->k.aff_restored;
	}
}

/* Every thread's oracle figures added up; anomalies in thread order. */
static int total_oracle(struct pms_sigrun *s)
{
	struct pms_oracle_result *t = &s->total;
	struct pms_sigrun_lane *l;
	size_t cap = s->drain.ocfg.max_anomalies;
	unsigned int i;
	int c;

	memset(t, 0, sizeof(*t));
	free(s->total_lane);
	s->total_lane = NULL;
	s->total_final_valid = true;
	s->total_final = 0;
	s->total_iterations = 0;
	for_each_lane(s, i, l) {
		const struct pms_oracle_result *r = &l->drain.ores;
		size_t k;

		if (!i) {
			memcpy(t->judged, r->judged, sizeof(t->judged));
			t->lost_judged = r->lost_judged;
			t->delta_min = r->delta_min;
			t->delta_max = r->delta_max;
		}
		if (r->signals && (r->delta_min < t->delta_min || !t->signals))
			t->delta_min = r->delta_min;
		if (r->signals && (r->delta_max > t->delta_max || !t->signals))
			t->delta_max = r->delta_max;
		t->signals += r->signals;
		for (c = 0; c < PMS_CLASS_NR; c++)
			t->by_class[c] += r->by_class[c];
		for (c = 0; c < PMS_HIST_NR; c++)
			t->hist[c] += r->hist[c];
		t->lost += r->lost;
		t->overflows_implied += r->overflows_implied;
		t->unsettled_tail += r->unsettled_tail;
		t->late_in_skid += r->late_in_skid;
		t->early_in_skid += r->early_in_skid;
		t->anomalies_total += r->anomalies_total;
		for (k = 0; k < r->nr_anomalies && t->nr_anomalies < cap; k++) {
			struct pms_anomaly *na = realloc(t->anomalies, (t->nr_anomalies + 1) *
							 sizeof(*na));
			uint16_t *nl = realloc(s->total_lane, (t->nr_anomalies + 1) * sizeof(*nl));

			if (na)
				t->anomalies = na;
			if (nl)
				s->total_lane = nl;
			if (!na || !nl)
				return -ENOMEM;
			s->total_lane[t->nr_anomalies] = (uint16_t)i;
			t->anomalies[t->nr_anomalies++] = r->anomalies[k];
		}
		s->total_final_valid &= l->drain.ocfg.final_valid;
		s->total_final += l->k.final_value;
		s->total_iterations += l->work.iterations;
	}
	s->total_cfg = s->drain.ocfg;
	s->total_cfg.final_valid = s->total_final_valid;
	s->total_cfg.final_value = s->total_final;
	return 0;
}

void pms_sigrun_stop(struct pms_sigrun *s)
{
	struct pms_sigrun_lane *l;
	unsigned int i;
	int ret;

	for_each_lane(s, i, l)
		pms_counting_stop(&l->k);
	for_each_lane(s, i, l)
		drain_lane_ring(s, l);
	pms_tracing_stop(&s->tr);
	sum_lanes(s);
	if (!s->stream || !s->drain_ready)
		return;
	if (s->trace_read_err) {
		snprintf(s->tr.why, sizeof(s->tr.why), "the trace could not be read while the "
			 "run went: %s", strerror(-s->trace_read_err));
		s->tr.traced = false;
	}
	feed_sched(s);
	for_each_lane(s, i, l) {
		feed_rebinds(s, l);
		/* With signals dropped for want of room, the final count implies
		 * overflows we cannot check: do not let it call them lost. */
		l->drain.ocfg.final_valid = l->k.final_valid && !s->rec.dropped;
		l->drain.ocfg.final_value = l->k.final_value;
		ret = pms_drain_finish(&l->drain);
		if (ret && !s->drain_err)
			s->drain_err = ret;
	}
	/* One attribution over every thread's windows: the base rate is the run's. */
	for_each_lane(s, i, l) {
		uint64_t *ev = s->drain.events;
		int c;

		if (!i)
			continue;
		for (c = 0; c < PMS_CAUSE_NR; c++)
			ev[c] += l->drain.events[c];
		ret = pms_attrib_stream_merge(&s->drain.as, &l->drain.as, (uint16_t)i);
		if (ret && !s->drain_err)
			s->drain_err = ret;
	}
	s->drain.acfg.traced = s->tr.traced;
	ret = pms_attrib_stream_finish(&s->drain.as, s->drain.events);
	if (ret && !s->drain_err)
		s->drain_err = ret;
	ret = total_oracle(s);
	if (ret && !s->drain_err)
		s->drain_err = ret;
}

size_t pms_sigrun_nsignals(const struct pms_sigrun *s)
{
	if (s->stream)
		return (size_t)__atomic_load_n(&s->rec.n, __ATOMIC_ACQUIRE);
	uint64_t n = __atomic_load_n(&s->rec.n, __ATOMIC_ACQUIRE);

	return n < s->rec.cap ? (size_t)n : s->rec.cap;
}

void pms_sigrun_oracle_cfg(const struct pms_run *run, const struct pms_sigrun *s,
			   enum pms_semantics sem, struct pms_oracle_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->period = s->c.period;
	cfg->tolerance = s->c.tolerance;
	cfg->sem = sem;
	/* With signals dropped for want of room, the final count implies
	 * overflows we cannot check: do not let it call them lost. */
	cfg->final_valid = s->k.final_valid && !s->rec.dropped;
	cfg->final_value = s->k.final_value;
	cfg->max_anomalies = pms_opt_u64(&run->opts, "max-anomalies");
	cfg->skid = s->skid;
	cfg->timing_unjudged = s->skid_unbounded;
}

static json_object *workload_json(const struct pms_sigrun *s, json_object *count_check)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(pms_workload_name(s->work.kind)));
	json_object_object_add(o, "description", json_object_new_string(
		s->work.kind == PMS_WORKLOAD_PAGE_FAULTS ?
		"user loop calling pms_workload_tick(), then one minor page fault per call" :
		"user loop calling pms_workload_tick() (a breakpoint counts each call)"));
	json_object_object_add(o, "iterations", json_object_new_uint64(s->work.iterations));
	json_object_object_add(o, "final_count", s->k.final_valid ?
			       json_object_new_uint64(s->k.final_value) : NULL);
	json_object_object_add(o, "seconds",
			       json_object_new_double((double)(s->k.end_ns - s->k.start_ns) / 1e9));
	json_object_object_add(o, "tid", json_object_new_int(s->k.tid));
	json_object_object_add(o, "count_check", count_check);
	return o;
}

static json_object *mover_json(const struct pms_sigrun *s)
{
	json_object *o = s->use_mover ? pms_mover_to_json(&s->mover) : json_object_new_object();
	char cpus[1024];

	json_object_object_add(o, "enabled", json_object_new_boolean(s->use_mover));
	pms_cpus_format(s->cpus, cpus, sizeof(cpus));
	json_object_object_add(o, "cpus", json_object_new_string(cpus));
	json_object_object_add(o, "cpus_source", json_object_new_string(s->cpus_why));
	json_object_object_add(o, "migrations_counted", s->k.migrations_valid ?
			       json_object_new_uint64(s->k.migrations_counted) : NULL);
	json_object_object_add(o, "migrations_sched", s->k.nr_migrations_sched >= 0 ?
			       json_object_new_int64(s->k.nr_migrations_sched) : NULL);
	return o;
}

static void cpuset_string(const cpu_set_t *cs, char *buf, size_t len)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, cs))
			hwloc_bitmap_set(set, (unsigned int)cpu);
	pms_cpus_format(set, buf, len);
	hwloc_bitmap_free(set);
}

static json_object *affinity_json(const struct pms_sigrun *s)
{
	json_object *o = json_object_new_object();
	char a[1024], b[1024];

	cpuset_string(&s->k.aff_initial, a, sizeof(a));
	cpuset_string(&s->k.aff_final, b, sizeof(b));
	json_object_object_add(o, "initial", json_object_new_string(a));
	json_object_object_add(o, "final", json_object_new_string(b));
	json_object_object_add(o, "restored", json_object_new_boolean(s->aff_restored_all));
	return o;
}

/*
 * Put each anomaly next to the rebind that preceded it, on the one clock
 * both were stamped with: a late signal 2 us after a move is a lead.
 */
static void annotate_rebinds(const struct pms_sigrun *s, json_object *oracle)
{
	json_object *anom, *list;
	size_t i;

	if (!json_object_object_get_ex(oracle, "anomalies", &anom) ||
	    !json_object_object_get_ex(anom, "list", &list))
		return;
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i), *t;
		const struct pms_rebind *rb = NULL;
		uint64_t time_ns;

		if (!json_object_object_get_ex(a, "time_ns", &t))
			continue;
		time_ns = json_object_get_uint64(t);
		if (s->use_mover)
			rb = pms_mover_last_before(&s->mover, time_ns);
		json_object_object_add(a, "since_rebind_ns",
				       rb ? json_object_new_uint64(time_ns - rb->time_ns) : NULL);
		json_object_object_add(a, "rebind_cpu", rb ? json_object_new_int(rb->cpu) : NULL);
	}
}

/* The thread whose first lost overflow came first, or NULL. */
static const struct pms_drain *first_loss(const struct pms_sigrun *s)
{
	const struct pms_drain *best = NULL;
	unsigned int i;

	for (i = 0; i < s->nthreads; i++) {
		const struct pms_drain *d = &pms_sigrun_lane_c(s, i)->drain;

		if (d->first_loss_signal && (!best || d->first_loss_ns < best->first_loss_ns))
			best = d;
	}
	return best;
}

/* The thread whose owed index stopped an --until-fail run, or NULL. */
static const struct pms_drain *stop_lane(const struct pms_sigrun *s)
{
	unsigned int i;

	for (i = 0; i < s->nthreads; i++)
		if (pms_sigrun_lane_c(s, i)->drain.stop_signal)
			return &pms_sigrun_lane_c(s, i)->drain;
	return NULL;
}

static json_object *until_fail_json(const struct pms_run *run, const struct pms_sigrun *s)
{
	json_object *o = json_object_new_object();
	const struct pms_drain *d = first_loss(s);

	pms_json_add(o, "requested", json_object_new_boolean(pms_opt_u64(&run->opts,
									"until-fail")));
	pms_json_add(o, "stopped", json_object_new_boolean(s->until_fail_hit));
	json_object_object_add(o, "time_to_first_loss_ns", d ?
			       json_object_new_uint64(d->first_loss_ns - s->k.start_ns) : NULL);
	json_object_object_add(o, "signals_to_first_loss", d ?
			       json_object_new_uint64(d->first_loss_signal) : NULL);
	json_object_object_add(o, "thread", d ? json_object_new_int((int)d->lane) : NULL);
	{
		const struct pms_drain *st = stop_lane(s);

		json_object_object_add(o, "stop_signal", st ?
				       json_object_new_uint64(st->stop_signal) : NULL);
		json_object_object_add(o, "stop_confirmed", st ?
				       json_object_new_boolean(s->total.lost > 0) : NULL);
	}
	return o;
}

/* Each of the total's anomalies: its thread, and the rebind before it on that thread. */
static void annotate_threads(const struct pms_sigrun *s, json_object *oracle)
{
	json_object *anom, *list;
	size_t i, seen[PMS_SIGRUN_MAX_THREADS] = { 0 };

	if (!json_object_object_get_ex(oracle, "anomalies", &anom) ||
	    !json_object_object_get_ex(anom, "list", &list))
		return;
	for (i = 0; i < json_object_array_length(list) && s->total_lane; i++) {
		json_object *a = json_object_array_get_idx(list, i);
		unsigned int t = s->total_lane[i];
		const struct pms_drain *d = &pms_sigrun_lane_c(s, t)->drain;
		size_t k = seen[t]++;

		json_object_object_add(a, "thread", json_object_new_int((int)t));
		json_object_object_add(a, "since_rebind_ns", k < d->rb_n && d->rb[k].known ?
				       json_object_new_uint64(d->rb[k].since_ns) : NULL);
		json_object_object_add(a, "rebind_cpu", k < d->rb_n && d->rb[k].known ?
				       json_object_new_int(d->rb[k].cpu) : NULL);
		json_object_object_add(a, "context", pms_drain_context_json(d, k));
	}
}

/* Per counting thread: where it ran and what it saw. */
static json_object *threads_json(const struct pms_sigrun *s)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	for (i = 0; i < s->nthreads; i++) {
		const struct pms_sigrun_lane *l = pms_sigrun_lane_c(s, i);
		const struct pms_oracle_result *r = &l->drain.ores;
		json_object *o = json_object_new_object(), *cls = json_object_new_object();
		char cpus[256];
		int c;

		pms_cpus_format(l->cpus, cpus, sizeof(cpus));
		for (c = 0; c < PMS_CLASS_NR; c++)
			pms_json_add(cls, pms_class_name(c), json_object_new_uint64(r->by_class[c]));
		pms_json_add(o, "thread", json_object_new_int((int)i));
		pms_json_add(o, "tid", json_object_new_int(l->k.tid));
		pms_json_add(o, "cpus", json_object_new_string(cpus));
		pms_json_add(o, "signals", json_object_new_uint64(r->signals));
		pms_json_add(o, "lost", json_object_new_uint64(r->lost));
		json_object_object_add(o, "overflows_implied", l->drain.ocfg.final_valid ?
				       json_object_new_uint64(r->overflows_implied) : NULL);
		pms_json_add(o, "classes", cls);
		pms_json_add(o, "iterations", json_object_new_uint64(l->work.iterations));
		json_object_object_add(o, "final_count", l->k.final_valid ?
				       json_object_new_uint64(l->k.final_value) : NULL);
		pms_json_add(o, "rebinds", json_object_new_uint64(l->mover.requested));
		pms_json_add(o, "rebinds_failed", json_object_new_uint64(l->mover.failed));
		json_object_object_add(o, "migrations_sched", l->k.nr_migrations_sched >= 0 ?
				       json_object_new_int64(l->k.nr_migrations_sched) : NULL);
		pms_json_add(o, "ring_overflow", json_object_new_uint64(s->rec.lanes ?
							s->rec.lanes[i].overflow : 0));
		pms_json_add(o, "affinity_restored", json_object_new_boolean(l->k.aff_restored));
		json_object_array_add(arr, o);
	}
	return arr;
}

json_object *pms_sigrun_report(struct pms_run *run, const struct pms_sigrun *s,
			       json_object *count_check, const struct pms_oracle_cfg *cfg,
			       const struct pms_oracle_result *res)
{
	json_object *o, *w, *m;

	json_object_object_add(run->result, "counter", pms_counter_to_json(&s->c));
	w = workload_json(s, count_check);
	m = mover_json(s);
	if (s->stream) {
		/* Figures of every thread together; each thread's in `threads`. */
		json_object_object_add(w, "iterations", json_object_new_uint64(s->total_iterations));
		json_object_object_add(w, "final_count", s->total_final_valid ?
				       json_object_new_uint64(s->total_final) : NULL);
		json_object_object_add(w, "threads", json_object_new_int((int)s->nthreads));
		if (s->use_mover) {
			json_object_object_add(m, "rebinds_requested",
					       json_object_new_uint64(s->rebinds_sum));
			json_object_object_add(m, "rebinds_failed",
					       json_object_new_uint64(s->rebinds_failed_sum));
		}
		json_object_object_add(m, "migrations_sched", s->migrations_sched_sum >= 0 ?
				       json_object_new_int64(s->migrations_sched_sum) : NULL);
	}
	json_object_object_add(run->result, "workload", w);
	json_object_object_add(run->result, "mover", m);
	json_object_object_add(run->result, "affinity", affinity_json(s));
	json_object_object_add(run->result, "recorder", pms_recorder_to_json(&s->rec));
	o = pms_oracle_to_json(cfg, res);
	json_object_object_add(o, "skid_source", json_object_new_string(s->skid_why));
	if (s->stream) {
		json_object *st = pms_drain_to_json(&s->drain), *mem = json_object_new_object(), *thr;
		char cpus[1024];

		annotate_threads(s, o);
		json_object_object_add(mem, "rss_kib_after_1s", s->rss_1s_kib ?
				       json_object_new_uint64(s->rss_1s_kib) : NULL);
		json_object_object_add(mem, "rss_kib_after_10s", s->rss_10s_kib ?
				       json_object_new_uint64(s->rss_10s_kib) : NULL);
		json_object_object_add(mem, "rss_kib_last", s->rss_last_kib ?
				       json_object_new_uint64(s->rss_last_kib) : NULL);
		json_object_object_add(mem, "rss_kib_max", s->rss_max_kib ?
				       json_object_new_uint64(s->rss_max_kib) : NULL);
		json_object_object_add(st, "memory", mem);
		json_object_object_add(st, "judged", json_object_new_uint64(res->signals));
		json_object_object_add(run->result, "stream", st);
		json_object_object_add(run->result, "until_fail", until_fail_json(run, s));
		thr = json_object_new_object();
		pms_json_add(thr, "count", json_object_new_int((int)s->nthreads));
		pms_cpus_format(s->base_cpus ? s->base_cpus : s->cpus, cpus, sizeof(cpus));
		pms_json_add(thr, "cpus", json_object_new_string(cpus));
		pms_json_add(thr, "pairs_shared", json_object_new_boolean(s->pairs_shared));
		pms_json_add(thr, "source", json_object_new_string(
			pms_opt_given(&run->opts, "threads") ? "--threads" :
			"default: one per disjoint CPU pair of one kind, at most 8"));
		pms_json_add(thr, "list", threads_json(s));
		json_object_object_add(run->result, "threads", thr);
	} else {
		annotate_rebinds(s, o);
	}
	json_object_object_add(run->result, "oracle", o);
	json_object_object_add(run->result, "watchdog", pms_watchdog_to_json(&s->sup.wd));
	return o;
}

/*
 * A mover that did not move: most rebinds refused (the guest without
 * taskset, a cpuset that forbids the CPUs), or rebinds that the scheduler's
 * own count says never became migrations.
 */
static bool mover_idle(const struct pms_sigrun *s, char *why, size_t len)
{
	const struct pms_mover *m = &s->mover;

	if (!s->use_mover)
		return false;
	if (!s->rebinds_sum) {
		snprintf(why, len, "the mover made no rebind at all");
		return true;
	}
	if (s->rebinds_failed_sum * 2 > s->rebinds_sum) {
		snprintf(why, len, "the mover's rebinds failed (%llu of %llu, %s mover): the "
			 "thread was hardly moved, so migration was not tested",
			 (unsigned long long)s->rebinds_failed_sum,
			 (unsigned long long)s->rebinds_sum,
			 m->kind == PMS_MOVER_TASKSET ? "taskset" : "hwloc");
		return true;
	}
	if (s->migrations_sched_sum == 0 ||
	    (s->k.nr_migrations_sched < 0 && s->k.migrations_valid && !s->k.migrations_counted)) {
		snprintf(why, len, "%llu rebinds but no migration happened (se.nr_migrations): "
			 "migration was not tested", (unsigned long long)s->rebinds_sum);
		return true;
	}
	return false;
}

/* The worst thing a failing run saw, for the summary's first line. */
static const char *failure_kind(const struct pms_oracle_result *res,
				const struct pms_watchdog *wd)
{
	if (res->lost_judged && res->lost)
		return "lost overflows";
	if ((res->judged[PMS_CLASS_SPURIOUS] && res->by_class[PMS_CLASS_SPURIOUS]) ||
	    (res->judged[PMS_CLASS_BAD_CODE] && res->by_class[PMS_CLASS_BAD_CODE]))
		return "extra or malformed signals";
	if (wd->fired)
		return "signals stopped";
	return "late signals beyond the skid bound";
}

void pms_sigrun_verdict(struct pms_run *run, const struct pms_sigrun *s,
			const struct pms_oracle_cfg *cfg, const struct pms_oracle_result *res,
			const char *stressor_idle)
{
	const struct pms_watchdog *wd = &s->sup.wd;
	char why[480];

	if (run->verdict == PMS_VERDICT_ERROR) {
		/* the mover failed to start: reason already set */
	} else if (s->stream && s->rec.dropped) {
		/* Unjudged signals would read as lost ones: no verdict on the kernel. */
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "judgment incomplete: %llu signals "
			 "found the recorder's ring full and were dropped unjudged (the drain "
			 "fell behind)", (unsigned long long)s->rec.dropped);
	} else if (wd->stalled) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s", wd->message);
	} else if (mover_idle(s, why, sizeof(why))) {
		/* Neither a pass nor a fail: the bug's trigger never fired. */
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "invalid run: %s", why);
	} else if (pms_oracle_failed(cfg, res, why, sizeof(why)) || wd->fired) {
		run->verdict = PMS_VERDICT_FAIL;
		json_object_object_add(run->result, "failure_kind",
				       json_object_new_string(failure_kind(res, wd)));
		snprintf(run->reason, sizeof(run->reason), "%s%s%s", wd->message,
			 wd->fired ? "; " : "", why);
	} else if (!res->signals && (!s->k.final_valid || s->k.final_value < s->c.period)) {
		run->verdict = PMS_VERDICT_ERROR;
		if (s->k.final_valid)
			snprintf(run->reason, sizeof(run->reason), "no overflow happened: the counter "
				 "reached %llu, below one period (%llu); run longer or lower --period",
				 (unsigned long long)s->k.final_value,
				 (unsigned long long)s->c.period);
		else
			snprintf(run->reason, sizeof(run->reason), "no overflow happened and the "
				 "final count could not be read");
	} else if (stressor_idle) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s", stressor_idle);
	} else {
		run->verdict = PMS_VERDICT_PASS;
		snprintf(run->reason, sizeof(run->reason), "%s", why);
	}
}

/*
 * Configuration that holds signals back by design, each with the knob that
 * avoids it, into @buf.  Return: whether it can explain the anomalies: the
 * kernel's THROTTLE records fell into their windows (or, with no ring to
 * read them from, the kernel lowered the sample-rate ceiling during the
 * run); the event was multiplexed without --competing-events asking for
 * it; signals fell back to SIGIO.  What was seen but explains nothing
 * (THROTTLE records only between on-time signals) is still named.
 */
static bool environment(const struct pms_sigrun *s, const struct pms_attrib_result *ar,
			char *buf, size_t len)
{
	bool ring_ok = s->ring_all_ok;
	bool lowered = pms_tracing_rate_lowered(&s->tr);
	bool explains = false;
	size_t pos = 0;

	buf[0] = '\0';
	if (s->ring_sum.throttle || lowered) {
		bool in_windows = ar->cause[PMS_CAUSE_THROTTLE].claimed || (!ring_ok && lowered);

		pms_env_throttled(buf, len, &pos, s->ring_sum.throttle, &s->tr,
				  ring_ok && !in_windows ? ", none in an anomaly's window" : "",
				  in_windows);
		explains |= in_windows;
	}
	if (s->k.times_valid && s->k.time_enabled &&
	    (double)s->k.time_running < 0.99 * (double)s->k.time_enabled) {
		bool asked = s->k.competing_open > 0;

		pms_append(buf, len, &pos, "%sthe event was multiplexed (on the PMU %.1f%% of "
			   "its enabled time)%s", pos ? "; " : "",
			   100.0 * (double)s->k.time_running / (double)s->k.time_enabled,
			   asked ? " on purpose (--competing-events): rotation is a schedule-out "
			   "path under test" : ": free PMU counters (other perf users, the NMI "
			   "watchdog)");
		explains |= !asked;
	}
	if (s->rec.sigio) {
		pms_env_sigio(buf, len, &pos, s->rec.sigio);
		explains = true;
	}
	return explains;
}

static json_object *multiplex_json(const struct pms_sigrun *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "time_enabled_ns", s->k.times_valid ?
			       json_object_new_uint64(s->k.time_enabled) : NULL);
	json_object_object_add(o, "time_running_ns", s->k.times_valid ?
			       json_object_new_uint64(s->k.time_running) : NULL);
	json_object_object_add(o, "running_fraction", s->k.times_valid && s->k.time_enabled ?
			       json_object_new_double((double)s->k.time_running /
						      (double)s->k.time_enabled) : NULL);
	json_object_object_add(o, "competing_requested", json_object_new_int((int)s->k.competing));
	json_object_object_add(o, "competing_opened", json_object_new_int((int)s->k.competing_open));
	json_object_object_add(o, "competing_error", s->k.competing_err ?
			       json_object_new_string(pms_errno_name(s->k.competing_err)) : NULL);
	return o;
}

/* In (nearly) every anomaly window and most on-time ones: no contrast. */
static bool ubiquitous(const struct pms_cause_stat *cs, const struct pms_attrib_result *ar)
{
	return ar->anomalies && ar->on_time &&
	       (double)cs->anomaly_windows >= 0.9 * (double)ar->anomalies &&
	       (double)cs->on_time_windows >= 0.5 * (double)ar->on_time;
}

/* Every source's evidence on one clock, sorted.  Return: 0 or -ENOMEM. */
static int gather_evidence(const struct pms_sigrun *s, const struct pms_evidence *extra,
			   size_t nextra, struct pms_evbuf *b)
{
	size_t n = pms_sigrun_nsignals(s), i;

	pms_evbuf_add_sched(b, &s->tr);
	for (i = 0; s->use_mover && i < s->mover.log_n; i++)
		pms_evbuf_add(b, s->mover.log[i].time_ns, PMS_CAUSE_REBIND, -1,
			      s->mover.log[i].cpu);
	pms_evbuf_add_sigio(b, s->rec.sig, n);
	/*
	 * Multiplexed out between two signals: time_enabled - time_running,
	 * read in the handler, grew.  Placed halfway, inside the later
	 * signal's window; a = the microseconds off the PMU.
	 */
	for (i = 1; s->k.times_valid && i < n; i++) {
		uint32_t off = s->rec.sig[i].off_pmu_ns - s->rec.sig[i - 1].off_pmu_ns;

		if (off && s->rec.sig[i].si_code == POLL_IN && s->rec.sig[i - 1].si_code == POLL_IN)
			pms_evbuf_add(b, s->rec.sig[i - 1].time_ns +
				      (s->rec.sig[i].time_ns - s->rec.sig[i - 1].time_ns) / 2,
				      PMS_CAUSE_MULTIPLEX, (int32_t)(off / 1000), -1);
	}
	for (i = 0; i < nextra; i++)
		pms_evbuf_add(b, extra[i].time_ns, extra[i].cause, extra[i].a, extra[i].b);
	for (i = 0; i < s->nthrottle; i++)
		pms_evbuf_add(b, s->throttle_ns[i], PMS_CAUSE_THROTTLE, -1, -1);
	return pms_evbuf_finish(b);
}

/*
 * $PMUSTRESS_DUMP_ATTRIB=FILE writes what attribution was given (each
 * signal's time and class, each evidence item) as text: how the fixtures
 * under tests/fixtures/attrib were recorded from real runs.  A file that
 * cannot be written is only said on stderr: it never changes the run.
 */
static void dump_attrib(const struct pms_run *run, const struct pms_sigrun *s,
			const uint8_t *cls, size_t n, const struct pms_evbuf *eb)
{
	const char *path = getenv("PMUSTRESS_DUMP_ATTRIB");
	FILE *f;
	size_t i;

	if (!path || !*path)
		return;
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "pmustress: PMUSTRESS_DUMP_ATTRIB: %s: %s\n", path,
			strerror(errno));
		return;
	}
	fprintf(f, "# pmustress %s attribution input: %s, kernel %s, trace %s\n",
		PMS_VERSION, run->sc->name, pms_host_str(run->host, "kernel", "release"),
		s->tr.traced ? "on" : "off");
	fprintf(f, "# S TIME_NS CLASS: a signal; E TIME_NS CAUSE A B: evidence\n");
	for (i = 0; i < n; i++)
		fprintf(f, "S %llu %s\n", (unsigned long long)s->rec.sig[i].time_ns,
			pms_class_name(cls[i]));
	for (i = 0; i < eb->n; i++)
		fprintf(f, "E %llu %s %d %d\n", (unsigned long long)eb->ev[i].time_ns,
			pms_cause_name(eb->ev[i].cause), eb->ev[i].a, eb->ev[i].b);
	if (fclose(f))
		fprintf(stderr, "pmustress: PMUSTRESS_DUMP_ATTRIB: %s: %s\n", path,
			strerror(errno));
}

void pms_sigrun_attribute(struct pms_run *run, struct pms_sigrun *s,
			  const struct pms_oracle_result *res, const uint8_t *cls,
			  const struct pms_evidence *extra, size_t nextra, json_object *oracle)
{
	struct pms_attrib_cfg cfg = { .max_listed = 8, .complete = true, .alpha = 0.01 };
	struct pms_attrib_result ar;
	struct pms_evbuf eb = { 0 };
	size_t n = pms_sigrun_nsignals(s), wpos = 0;
	char why[512], sentence[512], env[1024], ctl[512] = "";
	bool env_any;

	cfg.lift_min = pms_lift_min(run);
	cfg.traced = s->tr.traced;
	/* Judged here, before any early return, so the scenario can report it. */
	pms_stressor_control_judge(&s->control, cfg.lift_min, cfg.alpha);
	if (!s->stream) {
		if (gather_evidence(s, extra, nextra, &eb)) {
			pms_run_append_reason(run, "no attribution: out of memory for the evidence");
			return;
		}
		dump_attrib(run, s, cls, n, &eb);
	}

	why[0] = '\0';
	pms_tracing_gaps(&s->tr, "the mover's rebinds stand in for migrations", why,
			 sizeof(why), &wpos);
	if (!s->ring_all_ok)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sno THROTTLE records "
			 "(%s)", why[0] ? "; " : "", s->k.ring_err ? strerror(s->k.ring_err) :
			 s->ring_error ? "the ring could not be parsed" : "--ring off");
	else if (s->ring_sum.lost_records || s->throttle_dropped || s->ring_sum.not_stored)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sthe ring lost records "
			 "(%llu LOST, %llu THROTTLE not kept)", why[0] ? "; " : "",
			 (unsigned long long)s->ring_sum.lost_records,
			 (unsigned long long)(s->throttle_dropped + s->ring_sum.not_stored));
	if (s->mover.log_dropped)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sthe rebind log kept "
			 "%zu of %llu rebinds", why[0] ? "; " : "", s->mover.log_n,
			 (unsigned long long)s->mover.requested);
	if (s->stream && s->rebinds_lapped_sum)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%llu rebinds were "
			 "overwritten before they were read", why[0] ? "; " : "",
			 (unsigned long long)s->rebinds_lapped_sum);
	if (s->stream) {
		uint64_t dropped = 0, early = 0;
		unsigned int i;

		for (i = 0; i < s->nthreads; i++) {
			dropped += pms_sigrun_lane_c(s, i)->drain.ev_dropped;
			early += pms_sigrun_lane_c(s, i)->drain.judged_early;
		}
		if (dropped || early)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sthe drain fell "
				 "behind (%llu evidence items dropped for room, %llu signals judged "
				 "before every source was read past them)", why[0] ? "; " : "",
				 (unsigned long long)dropped, (unsigned long long)early);
	}
	cfg.complete = !why[0];
	cfg.incomplete_why = why[0] ? why : NULL;

	if (s->stream) {
		if (s->drain_err) {
			pms_run_append_reason(run, "no attribution: %s", strerror(-s->drain_err));
			return;
		}
		cfg.max_listed = s->drain.acfg.max_listed;
		ar = s->drain.ares;
		/* owned by the drain: freed with it */
		s->drain.ares.kept = NULL;
		s->drain.ares.nr_kept = 0;
	} else if (pms_attrib_run(&cfg, s->rec.sig, cls, n, eb.ev, eb.n, &ar)) {
		pms_run_append_reason(run, "no attribution: out of memory");
		pms_evbuf_free(&eb);
		return;
	}
	pms_attrib_annotate(&cfg, &ar, oracle);
	json_object_object_add(run->result, "attribution", pms_attrib_to_json(&cfg, &ar));
	json_object_object_add(run->result, "trace", pms_tracing_to_json(&s->tr));
	json_object_object_add(run->result, "sysctl_during_run", pms_tracing_sysctl_json(&s->tr));

	json_object_object_add(run->result, "perf_records", pms_perf_records_json(
		&s->ring_sum, s->k.ring_pages, s->k.ring != NULL, s->k.ring_err ?
		strerror(s->k.ring_err) : s->ring_error ? strerror(-s->ring_error) : NULL));
	json_object_object_add(run->result, "multiplexing", multiplex_json(s));

	/*
	 * A fail, or a pass whose anomalies were only not judged (timer
	 * events), under configuration that holds signals back.
	 */
	env_any = environment(s, &ar, env, sizeof(env));
	/*
	 * An emulated PMU raises an overflow when the emulator gets to it: an
	 * interrupt late by periods folds them into one signal, as a lost one
	 * would look.  Where no schedule-out cause stands out, that is the
	 * reading this run supports.
	 */
	if (s->skid_unbounded && res->lost_judged && res->lost) {
		size_t pos = strlen(env);

		pms_append(env, sizeof(env), &pos, "%sthe PMU is emulated (QEMU TCG): it raises "
			   "an overflow at the emulator's next timer event, and an interrupt "
			   "that late folds several periods into one signal", pos ? "; " : "");
		env_any = true;
	}
	if (s->stressor < PMS_CAUSE_NR && s->control.valid)
		pms_stressor_control_sentence(&s->control, s->stressor_words ? s->stressor_words :
					      pms_cause_name(s->stressor), ctl, sizeof(ctl));
	if (run->verdict == PMS_VERDICT_FAIL ||
	    (run->verdict == PMS_VERDICT_PASS && (res->lost || res->anomalies_total) && env_any)) {
		/*
		 * Bugs are matched on schedule-out causes, never on environment;
		 * multiplexing asked for with --competing-events is a schedule-out
		 * under test.  A stressor that raised the loss rate over its own
		 * control (a DISABLE/ENABLE storm) is one as well.
		 */
		int best = pms_attrib_schedule_out_cause(&ar, s->k.competing_open > 0);
		bool stands = s->control.valid && s->control.stands;

		/* The failing class's own causes first: that is what was judged. */
		sentence[0] = '\0';
		if (res->lost_judged && res->lost)
			pms_attrib_class_sentence(&ar, PMS_CLASS_GAP, sentence, sizeof(sentence));
		else if (res->judged[PMS_CLASS_SPURIOUS] && res->by_class[PMS_CLASS_SPURIOUS])
			pms_attrib_class_sentence(&ar, PMS_CLASS_SPURIOUS, sentence,
						  sizeof(sentence));
		else if (res->judged[PMS_CLASS_LATE] &&
			 res->by_class[PMS_CLASS_LATE] > res->late_in_skid)
			pms_attrib_class_sentence(&ar, PMS_CLASS_LATE, sentence, sizeof(sentence));
		if (!sentence[0])
			pms_attrib_sentence(&ar, sentence, sizeof(sentence));
		if (env_any && best < 0 && !stands) {
			/*
			 * The kernel did what it was configured to do and no
			 * schedule-out path explains anything: not a kernel bug.
			 */
			char was[sizeof(run->reason)];

			snprintf(was, sizeof(was), "%s", run->reason);
			run->verdict = PMS_VERDICT_ENVIRONMENT;
			snprintf(run->reason, sizeof(run->reason), "not a kernel bug: %s", env);
			pms_run_append_reason(run, "what was seen: %s", was);
			/* Without a scheduler trace a switch cannot stand out: say so. */
			pms_run_append_reason(run, "attribution: %s%s", sentence,
					      cfg.complete ? "" : " (incomplete: see attribution; "
					      "--trace on would show switches and migrations)");
			if (ctl[0])
				pms_run_append_reason(run, "measured against its base rate, %s", ctl);
			pms_run_known_issues(run, NULL, s->c.ev.attr.exclude_kernel);
		} else {
			char causes[96];
			size_t cpos = 0;

			causes[0] = '\0';
			if (best >= 0)
				pms_append(causes, sizeof(causes), &cpos, "%s", pms_cause_name(best));
			pms_run_append_reason(run, "attribution: %s%s", sentence,
					      cfg.complete ? "" : " (incomplete: see attribution)");
			/*
			 * The stressor against its control (disable-storm): where
			 * it raised the loss rate it is a cause too, next to any
			 * the windows found (a mover's rebinds).
			 */
			if (ctl[0]) {
				pms_run_append_reason(run, "measured against its base rate, %s%s", ctl,
						      stands ? "" : s->control.lost_with ?
						      ": not enough to blame it" : ": it lost nothing");
				if (stands && best != (int)s->stressor)
					pms_append(causes, sizeof(causes), &cpos, "%s%s",
						   cpos ? "," : "", pms_cause_name(s->stressor));
			} else if (best < 0 && s->stressor < PMS_CAUSE_NR &&
				   ubiquitous(&ar.cause[s->stressor], &ar)) {
				/* No control: a stressor everywhere stands as the candidate. */
				pms_append(causes, sizeof(causes), &cpos, "%s",
					   pms_cause_name(s->stressor));
				pms_run_append_reason(run, "%s was in %llu of %llu anomaly windows "
						      "and %.0f%% of on-time ones: a stressor "
						      "everywhere has no base rate to beat, so it "
						      "stands as the candidate (compare with a run "
						      "without it)", causes, (unsigned long long)
						      ar.cause[s->stressor].anomaly_windows,
						      (unsigned long long)ar.anomalies,
						      ar.on_time ? 100.0 * (double)ar.cause[s->stressor]
						      .on_time_windows / (double)ar.on_time : 0);
			}
			if (env[0])
				pms_run_append_reason(run, "environment too: %s", env);
			/* A pass (anomalies reported, not judged) accuses nothing. */
			pms_run_known_issues(run, run->verdict == PMS_VERDICT_FAIL && causes[0] ?
					     causes : NULL, s->c.ev.attr.exclude_kernel);
		}
	} else {
		pms_run_known_issues(run, NULL, s->c.ev.attr.exclude_kernel);
	}
	pms_attrib_free(&ar);
	pms_evbuf_free(&eb);
}

void pms_sigrun_caveats(struct pms_run *run, const struct pms_sigrun *s)
{
	unsigned int i;

	if (s->stream) {
		const struct pms_drain *fl = first_loss(s), *sl = stop_lane(s);

		if (s->until_fail_hit && fl)
			pms_run_append_reason(run, "stopped at the first lost overflow (--until-fail): "
					      "thread %u's signal #%llu, %.3f s into the count",
					      fl->lane, (unsigned long long)fl->first_loss_signal,
					      (double)(fl->first_loss_ns - s->k.start_ns) / 1e9);
		else if (s->until_fail_hit && sl)
			pms_run_append_reason(run, "--until-fail stopped the run at thread %u's "
					      "signal #%llu (an index owed %d signals), but the final "
					      "judgment saw it repaid: no overflow was lost before the "
					      "stop", sl->lane, (unsigned long long)sl->stop_signal,
					      PMS_DRAIN_OWED_LOST);
		if (s->rec.dropped)
			pms_run_append_reason(run, "JUDGMENT INCOMPLETE: %llu signals found the "
					      "recorder's ring full (%u slots; the drain fell "
					      "behind) and were dropped unjudged; the final count was "
					      "not used", (unsigned long long)s->rec.dropped,
					      (unsigned int)(s->rec.lanes ? s->rec.lanes[0].mask + 1 : 0));
		if (s->nthreads > 1 && s->total.lost) {
			char buf[512], cpus[64];
			size_t pos = 0;

			buf[0] = '\0';
			for (i = 0; i < s->nthreads; i++) {
				const struct pms_sigrun_lane *l = pms_sigrun_lane_c(s, i);

				if (!l->drain.ores.lost)
					continue;
				pms_cpus_format(l->cpus, cpus, sizeof(cpus));
				pms_append(buf, sizeof(buf), &pos, "%sthread %u (CPUs %s) %llu",
					   pos ? ", " : "", i, cpus,
					   (unsigned long long)l->drain.ores.lost);
			}
			pms_run_append_reason(run, "lost per thread: %s", buf);
		}
		if (s->rec.misrouted)
			pms_run_append_reason(run, "%llu signals were delivered to a thread that does "
					      "not own the counter (F_SETOWN_EX ignored?)",
					      (unsigned long long)s->rec.misrouted);
	} else if (s->sup.full || s->rec.dropped)
		pms_run_append_reason(run, "signal storage full after %llu signals (%llu dropped): "
				      "the run ended early and the final count was not used (raise "
				      "--max-signals)", (unsigned long long)s->rec.n,
				      (unsigned long long)s->rec.dropped);
	if (s->rec.injected)
		pms_run_append_reason(run, "FAULT INJECTION: %llu signals were ignored on purpose "
				      "(--inject-*), this run does not describe the kernel",
				      (unsigned long long)s->rec.injected);
}

void pms_sigrun_fini(struct pms_sigrun *s)
{
	struct pms_sigrun_lane *l;
	unsigned int i;

	for (i = 0; i < s->nthreads && (i == 0 || s->more); i++) {
		l = pms_sigrun_lane(s, i);
		if (l->drain_ready)
			pms_drain_fini(&l->drain);
		l->drain_ready = false;
		pms_mover_stop(&l->mover);
		pms_counting_fini(&l->k);
	}
	pms_tracing_fini(&s->tr);
	free(s->throttle_ns);
	s->throttle_ns = NULL;
	pms_recorder_fini(&s->rec);
	for (i = 0; i < s->nthreads && (i == 0 || s->more); i++) {
		l = pms_sigrun_lane(s, i);
		pms_mover_free(&l->mover);
		if (l->cpus)
			hwloc_bitmap_free(l->cpus);
		l->cpus = NULL;
		pms_workload_fini(&l->work);
	}
	free(s->more);
	s->more = NULL;
	if (s->base_cpus)
		hwloc_bitmap_free(s->base_cpus);
	s->base_cpus = NULL;
	pms_oracle_result_free(&s->total);
	free(s->total_lane);
	s->total_lane = NULL;
}
