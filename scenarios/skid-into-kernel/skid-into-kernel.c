// SPDX-License-Identifier: GPL-2.0-only
/*
 * skid-into-kernel: does an exclude_kernel event whose overflow interrupt
 * lands after the CPU entered the kernel still give a sample and a signal,
 * and does the sample never carry a kernel IP?
 *
 * Seed: cc1582c231ea (4.12-rc) dropped such interrupts entirely (no sample,
 * no SIGIO) to stop kernel IPs leaking into samples of user-only events;
 * rr lost ticks and it was reverted by 6a8a75f32357 (4.13-rc2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pms-counter.h"
#include "pms-evidence.h"
#include "pms-oracle.h"
#include "pms-perf.h"
#include "pms-supervise.h"
#include "rules.h"
#include "pms-thread.h"
#include "pms-util.h"
#include "scenarios.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define FAULT_PAGES 4096	/* page-fault entry: one madvise per this many faults */

enum sk_entry { SK_ENTRY_SYSCALL, SK_ENTRY_PAGE_FAULT, SK_ENTRY_YIELD };
static const char *const entries[] = { "syscall", "page-fault", "yield", NULL };

static const struct pms_opt_desc sk_opts[] = {
	{ .name = "entry", .type = PMS_OPT_CHOICE, .def = "syscall", .choices = entries,
	  .arg = "syscall|page-fault|yield",
	  .help = "how the loop enters the kernel: getppid via syscall(2), a minor page fault, "
		  "sched_yield" },
	{ .name = "entry-every", .type = PMS_OPT_U64, .def = "4", .min = 1, .max = 1u << 30,
	  .arg = "N", .help = "workload calls between two kernel entries (a few dozen "
	  "instructions each)" },
	{ .name = "skid-allowance", .type = PMS_OPT_U64, .min = 0, .max = 1ull << 40, .arg = "N",
	  .help = "counts of skid allowed per interrupt (default: rr's figure for this CPU)" },
	{ .name = "ring-pages", .type = PMS_OPT_U64, .def = "256", .min = 1, .max = 1u << 20,
	  .arg = "2^n", .help = "data pages of the sample ring buffer (a power of two)" },
	{ .name = "drain-interval", .type = PMS_OPT_INTERVAL, .def = "10ms", .min = 100000,
	  .max = NS_PER_S, .arg = "TIME",
	  .help = "how often the supervising thread drains the ring (bare number in us)" },
	{ .name = "judge-kernel-ip", .type = PMS_OPT_FLAG,
	  .help = "fail on samples with a kernel IP (by design since the 4.13 revert of the "
		  "drop: reported, not judged, without this)" },
	PMS_TRACE_OPTS,
	{ .name = "inject-drop-every", .type = PMS_OPT_U64, .min = 2, .max = 1ull << 40,
	  .arg = "N", .help = "TESTING: ignore every Nth signal (its sample stays): proves "
	  "\"sample but no signal\" is caught end to end" },
};

struct sk_state {
	struct pms_counter c;
	struct pms_recorder rec;
	int signo;
	enum sk_entry entry;
	uint64_t entry_every;
	uint64_t allowance, cpu_allowance;
	char allowance_why[384], allowance_source[192];
	bool allowance_given;

	struct pms_thread thread;
	char setup_msg[512];
	enum pms_status setup_status;

	pid_t tid;
	int fd;
	volatile uint64_t iterations;
	uint64_t nr_entries;
	char *fault_area;
	size_t page_size;
	uint64_t start_ns, end_ns, final_value;
	bool final_valid;

	/* The ring: control page, then 2^n data pages. */
	void *ring;
	size_t ring_len;
	uint64_t data_size, data_offset, tail;
	struct pms_ring_rec *recs;
	size_t nr_recs, recs_cap;
	struct pms_ring_counts counts;
	int ring_error;

	struct pms_tracing tr;		/* evidence: scheduler trace, sample-rate ceiling */
};

static void enter_kernel(struct sk_state *st)
{
	switch (st->entry) {
	case SK_ENTRY_SYSCALL:
		syscall(SYS_getppid);
		break;
	case SK_ENTRY_PAGE_FAULT: {
		/* Fresh pages fault once each; one madvise re-arms them all. */
		uint64_t page = st->nr_entries % FAULT_PAGES;

		if (!page && st->nr_entries)
			madvise(st->fault_area, FAULT_PAGES * st->page_size, MADV_DONTNEED);
		*(volatile char *)(st->fault_area + page * st->page_size) = 1;
		break;
	}
	case SK_ENTRY_YIELD:
		sched_yield();
		break;
	}
	st->nr_entries++;
}

static void set_status(struct sk_state *st, enum pms_status s, const char *fmt, int err)
{
	st->setup_status = s;
	snprintf(st->setup_msg, sizeof(st->setup_msg), fmt, strerror(-err));
}

static void *counting_main(void *arg)
{
	struct sk_state *st = arg;
	struct perf_event_attr attr;
	uint64_t n = 0;
	int ret;

	st->tid = gettid();
	pthread_setname_np(pthread_self(), "pms-skid");
	pms_counter_attr(&st->c, &attr);
	attr.sample_type = SAMPLE_TYPE;
	st->fd = pms_perf_open_self(&attr, -1);
	if (st->fd < 0) {
		st->setup_status = PMS_E_SETUP;
		pms_perf_strerror(st->fd, &st->c.ev, st->setup_msg, sizeof(st->setup_msg));
		goto out_ready;
	}
	/* Writable: the kernel then honours data_tail and never overwrites. */
	st->ring = mmap(NULL, st->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, st->fd, 0);
	if (st->ring == MAP_FAILED) {
		st->ring = NULL;
		set_status(st, PMS_E_SETUP, "cannot mmap the sample ring buffer: %s (lower "
			   "--ring-pages or raise kernel.perf_event_mlock_kb)", -errno);
		goto out_ready;
	}
	{
		struct perf_event_mmap_page *meta = st->ring;

		st->data_offset = meta->data_offset ? meta->data_offset : st->page_size;
		st->data_size = meta->data_size ? meta->data_size : st->ring_len - st->page_size;
	}
	ret = pms_perf_async(st->fd, st->signo, st->tid);
	if (ret) {
		set_status(st, PMS_E_SETUP, "cannot route overflow signals (O_ASYNC/F_SETSIG/"
			   "F_SETOWN_EX): %s", ret);
		goto out_ready;
	}
	st->setup_status = PMS_OK;
out_ready:
	pms_thread_ready(&st->thread);
	if (st->setup_status != PMS_OK || !pms_thread_wait_go(&st->thread))
		return NULL;

	ioctl(st->fd, PERF_EVENT_IOC_RESET, 0);
	st->start_ns = pms_now_ns();
	ioctl(st->fd, PERF_EVENT_IOC_ENABLE, 0);
	while (!pms_thread_stopping(&st->thread)) {
		pms_workload_tick(&st->iterations);
		if (++n >= st->entry_every) {
			n = 0;
			enter_kernel(st);
		}
	}
	ioctl(st->fd, PERF_EVENT_IOC_DISABLE, 0);
	st->end_ns = pms_now_ns();
	st->final_valid = !pms_perf_read(st->fd, &st->final_value);
	return NULL;
}

/* Called from the supervising thread only: the handler never touches the ring. */
static void drain(struct sk_state *st)
{
	struct perf_event_mmap_page *meta = st->ring;
	uint64_t head;
	int64_t tail;

	if (!meta || st->ring_error)
		return;
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = pms_ring_parse((char *)st->ring + st->data_offset, st->data_size, st->tail, head,
			      SAMPLE_TYPE, st->recs, st->recs_cap, &st->nr_recs, &st->counts);
	if (tail < 0) {
		st->ring_error = (int)tail;
		return;
	}
	st->tail = (uint64_t)tail;
	__atomic_store_n(&meta->data_tail, st->tail, __ATOMIC_RELEASE);
}

static enum pms_status sk_setup(struct pms_run *run)
{
	struct sk_state *st = run->priv;
	uint64_t pages = pms_opt_u64(&run->opts, "ring-pages");
	enum pms_status s;

	st->fd = -1;
	pms_thread_init(&st->thread);
	st->page_size = (size_t)sysconf(_SC_PAGESIZE);
	st->entry = (enum sk_entry)pms_opt_u64(&run->opts, "entry");
	st->entry_every = pms_opt_u64(&run->opts, "entry-every");
	if (pages & (pages - 1)) {
		snprintf(run->reason, sizeof(run->reason), "bad value '%llu' for --ring-pages: "
			 "the ring's data area must be a power of two pages",
			 (unsigned long long)pages);
		return PMS_E_USAGE;
	}
	st->ring_len = (size_t)(pages + 1) * st->page_size;

	s = pms_counter_resolve(run, "instructions", 10000, 100, &st->c);
	if (s)
		return s;

	st->cpu_allowance = pms_skid_default_allowance(
		pms_host_str(run->host, "cpu", "vendor"), pms_host_str(run->host, "cpu", "model"),
		pms_host_str(run->host, "cpu", "midr"), st->allowance_why, sizeof(st->allowance_why));
	st->allowance_given = pms_opt_given(&run->opts, "skid-allowance");
	if (st->allowance_given) {
		st->allowance = pms_opt_u64(&run->opts, "skid-allowance");
		snprintf(st->allowance_source, sizeof(st->allowance_source), "--skid-allowance");
	} else if (st->c.ev.breakpoint) {
		/* The CPU's PMU figure does not apply to a debug exception. */
		st->allowance = 0;
		snprintf(st->allowance_source, sizeof(st->allowance_source), "breakpoint counter: "
			 "the debug exception is synchronous, skid is zero (the CPU default "
			 "applies to its PMU, not to a breakpoint)");
	} else if (st->c.ev.attr.type == PERF_TYPE_SOFTWARE) {
		st->allowance = 0;
		snprintf(st->allowance_source, sizeof(st->allowance_source), "software event: "
			 "counted and overflowed by the kernel in place, no PMU skid (the CPU "
			 "default applies to its PMU)");
	} else {
		st->allowance = st->cpu_allowance;
		snprintf(st->allowance_source, sizeof(st->allowance_source), "cpu default");
	}

	if (st->entry == SK_ENTRY_PAGE_FAULT) {
		st->fault_area = mmap(NULL, FAULT_PAGES * st->page_size, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (st->fault_area == MAP_FAILED) {
			st->fault_area = NULL;
			snprintf(run->reason, sizeof(run->reason),
				 "cannot map the page-fault area: %s", strerror(errno));
			return PMS_E_SETUP;
		}
	}
	/* Samples and throttle records; calloc'd so untouched room costs nothing. */
	st->recs_cap = pms_opt_u64(&run->opts, "max-signals") * 2 + 4096;
	st->recs = calloc(st->recs_cap, sizeof(*st->recs));
	if (!st->recs) {
		snprintf(run->reason, sizeof(run->reason), "cannot allocate room for %zu ring "
			 "records", st->recs_cap);
		return PMS_E_SETUP;
	}

	st->signo = PMS_OVERFLOW_SIGNO;
	s = pms_run_recorder(run, &st->rec, st->signo);
	if (s)
		return s;

	s = pms_run_thread(run, &st->thread, counting_main, st, "counting thread");
	if (s)
		return s;
	if (st->setup_status != PMS_OK) {
		snprintf(run->reason, sizeof(run->reason), "%s", st->setup_msg);
		return st->setup_status;
	}
	/* The counting thread exists and waits: its tid is the trace's filter. */
	return pms_tracing_start(run, &st->tr, &st->tid, 1);
}

/*
 * Why signals went missing or came late, against the base rate (as the
 * counting scenarios do): the scheduler trace and the kernel's THROTTLE
 * records on the sample ring, counted in each signal's window.  The
 * anomalies are the oracle's per-signal classes: a dropped interrupt or a
 * sample without its signal leaves a gap signal behind it.  Throttling
 * that explains them, with no schedule-out cause, is the environment, not
 * the kernel bug this scenario looks for.  Writes the attribution's
 * sentence to @sentence, the environment's to @env (empty when none explains
 * the failure) and the cause a known bug is matched on to *@cause.
 */
static void sk_attribute(struct pms_run *run, struct sk_state *st, const uint8_t *cls,
			 size_t nsig, json_object *oracle, bool failed, char *sentence,
			 size_t len, char *env, size_t envlen, const char **cause)
{
	struct pms_attrib_cfg cfg = { .max_listed = 8, .alpha = 0.01 };
	struct pms_attrib_result ar;
	struct pms_evbuf eb = { 0 };
	char why[512];
	size_t i, pos = 0;
	int best;

	sentence[0] = env[0] = '\0';
	*cause = failed ? "unexplained" : NULL;
	cfg.lift_min = pms_lift_min(run);
	cfg.traced = st->tr.traced;
	why[0] = '\0';
	pms_tracing_gaps(&st->tr, NULL, why, sizeof(why), &pos);
	if (st->counts.lost_records || st->counts.not_stored)
		pms_append(why, sizeof(why), &pos, "%sthe ring lost records (%llu LOST, %llu "
			   "not kept)", pos ? "; " : "",
			   (unsigned long long)st->counts.lost_records,
			   (unsigned long long)st->counts.not_stored);
	cfg.complete = !why[0];
	cfg.incomplete_why = why[0] ? why : NULL;

	pms_evbuf_add_sched(&eb, &st->tr);
	for (i = 0; i < st->nr_recs; i++)
		if (st->recs[i].type == PERF_RECORD_THROTTLE)
			pms_evbuf_add(&eb, st->recs[i].time_ns, PMS_CAUSE_THROTTLE, -1, -1);
	pms_evbuf_add_sigio(&eb, st->rec.sig, nsig);
	if (pms_evbuf_finish(&eb) || pms_attrib_run(&cfg, st->rec.sig, cls, nsig, eb.ev, eb.n,
						    &ar)) {
		pms_evbuf_free(&eb);
		snprintf(sentence, len, "no attribution: out of memory");
		return;
	}
	pms_attrib_annotate(&cfg, &ar, oracle);
	json_object_object_add(run->result, "attribution", pms_attrib_to_json(&cfg, &ar));
	json_object_object_add(run->result, "trace", pms_tracing_to_json(&st->tr));
	json_object_object_add(run->result, "sysctl_during_run",
			       pms_tracing_sysctl_json(&st->tr));
	json_object_object_add(run->result, "perf_records", pms_perf_records_json(
		&st->counts, (unsigned int)(st->data_size / st->page_size), st->ring != NULL,
		st->ring_error ? strerror(-st->ring_error) : NULL));
	if (ar.anomalies_by_class[PMS_CLASS_GAP])
		pms_attrib_class_sentence(&ar, PMS_CLASS_GAP, sentence, len);
	else
		pms_attrib_sentence(&ar, sentence, len);
	if (!cfg.complete) {
		pos = strlen(sentence);
		pms_append(sentence, len, &pos, " (incomplete: see attribution)");
	}
	/* Known bugs are matched on schedule-out causes, never on environment. */
	best = pms_attrib_schedule_out_cause(&ar, false);
	if (failed && best >= 0)
		*cause = pms_cause_name(best);
	pos = 0;
	if (failed && best < 0 && (ar.cause[PMS_CAUSE_THROTTLE].claimed ||
				   (!st->counts.throttle && pms_tracing_rate_lowered(&st->tr))))
		pms_env_throttled(env, envlen, &pos, st->counts.throttle, &st->tr, "", true);
	if (failed && best < 0 && ar.cause[PMS_CAUSE_SIGNAL_QUEUE_FULL].claimed)
		pms_env_sigio(env, envlen, &pos, ar.cause[PMS_CAUSE_SIGNAL_QUEUE_FULL].events);
	pms_attrib_free(&ar);
	pms_evbuf_free(&eb);
}

static json_object *workload_json(const struct sk_state *st, uint64_t signals)
{
	json_object *o = json_object_new_object(), *cc = json_object_new_object();
	static const char *const desc[] = {
		[SK_ENTRY_SYSCALL] = "user loop calling pms_workload_tick(); every N calls "
				     "syscall(SYS_getppid)",
		[SK_ENTRY_PAGE_FAULT] = "user loop calling pms_workload_tick(); every N calls "
					"a minor page fault on a fresh page (one madvise per "
					"4096 faults re-arms them)",
		[SK_ENTRY_YIELD] = "user loop calling pms_workload_tick(); every N calls "
				   "sched_yield()",
	};
	uint64_t expect = st->iterations;

	/* lost-overflow's shape: the counted loop; the entries are in skid_into_kernel. */
	json_object_object_add(o, "kind", json_object_new_string("loop"));
	json_object_object_add(o, "description", json_object_new_string(desc[st->entry]));
	json_object_object_add(o, "iterations", json_object_new_uint64(st->iterations));
	json_object_object_add(o, "final_count", st->final_valid ?
			       json_object_new_uint64(st->final_value) : NULL);
	json_object_object_add(o, "seconds",
			       json_object_new_double((double)(st->end_ns - st->start_ns) / 1e9));
	json_object_object_add(o, "tid", json_object_new_int(st->tid));
	if (st->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT)
		expect += signals;
	json_object_object_add(cc, "applies", json_object_new_boolean(st->c.ev.breakpoint &&
								       st->final_valid));
	if (st->c.ev.breakpoint && st->final_valid) {
		json_object_object_add(cc, "expected", json_object_new_uint64(expect));
		json_object_object_add(cc, "observed", json_object_new_uint64(st->final_value));
		json_object_object_add(cc, "match", json_object_new_boolean(
			expect == st->final_value));
		json_object_object_add(cc, "rule", json_object_new_string(
			st->c.ev.sem == PMS_SEM_BP_EXTRA_COUNT ?
			"arm64 breakpoint: one count per call plus one per signal" :
			"breakpoint: one count per call"));
	}
	json_object_object_add(o, "count_check", cc);
	return o;
}

/* Drain the ring as it fills; the run ends if the sample store is full. */
static bool sk_poll(void *arg)
{
	struct sk_state *st = arg;

	drain(st);
	return st->nr_recs >= st->recs_cap;
}

static void sk_progress(void *arg, char *buf, size_t len, uint64_t seen)
{
	const struct sk_state *st = arg;

	snprintf(buf, len, "  samples %llu  throttled %llu",
		 (unsigned long long)st->counts.samples, (unsigned long long)st->counts.throttle);
}

static void sk_run(struct pms_run *run)
{
	struct sk_state *st = run->priv;
	struct pms_supervisor sup = {
		.rec = &st->rec, .fd = st->fd, .period = st->c.period,
		.poll_ns = pms_opt_u64(&run->opts, "drain-interval"), .poll = sk_poll,
		.progress = sk_progress, .arg = st,
	};
	struct pms_oracle_cfg ocfg = { 0 };
	struct pms_oracle_result ores = { 0 };
	struct pms_skid_cfg scfg = { 0 };
	struct pms_skid_result sres = { 0 };
	bool failed;
	char skid_reason[768], sentence[512], env[512];
	const char *cause;
	size_t nsig;
	json_object *o, *a, *oracle;
	uint8_t *cls;
	int ret;

	pms_thread_go(&st->thread);
	pms_supervise(run, &sup);
	pms_thread_stop(&st->thread);
	/* After DISABLE nothing more is written: this drain is complete. */
	drain(st);
	pms_tracing_stop(&st->tr);

	nsig = st->rec.n < st->rec.cap ? st->rec.n : st->rec.cap;
	ocfg.period = st->c.period;
	ocfg.tolerance = st->c.tolerance;
	ocfg.sem = st->c.ev.sem;
	ocfg.final_valid = st->final_valid && !st->rec.dropped;
	ocfg.final_value = st->final_value;
	ocfg.max_anomalies = pms_opt_u64(&run->opts, "max-anomalies");
	cls = malloc(nsig + 1);
	ocfg.classes = cls;
	ret = cls ? pms_oracle_classify(&ocfg, st->rec.sig, nsig, &ores) : -ENOMEM;
	if (ret) {
		free(cls);
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "oracle failed: %s", strerror(-ret));
		return;
	}

	scfg.period = st->c.period;
	scfg.allowance = st->allowance;
	scfg.final_valid = ocfg.final_valid && !sup.full;
	scfg.final_value = st->final_value;
	scfg.tid = (uint32_t)st->tid;
	scfg.timer = st->c.ev.sem == PMS_SEM_TIMER;
	/* Kernel addresses have the top bit set on x86_64 and arm64. */
	if (!strcmp(run->arch, "x86_64") || !strcmp(run->arch, "aarch64"))
		scfg.kernel_ip_mask = 1ull << 63;
	scfg.max_findings = pms_opt_u64(&run->opts, "max-anomalies");
	scfg.judge_kernel_ip = pms_opt_u64(&run->opts, "judge-kernel-ip");
	ret = pms_skid_analyze(&scfg, st->rec.sig, nsig, st->recs, st->nr_recs, &st->counts,
			       &sres);
	if (ret) {
		free(cls);
		pms_oracle_result_free(&ores);
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "skid analysis failed: %s",
			 strerror(-ret));
		return;
	}
	if (!scfg.kernel_ip_mask)
		sres.judged[PMS_SKID_KERNEL_IP] = false;

	json_object_object_add(run->result, "counter", pms_counter_to_json(&st->c));
	json_object_object_add(run->result, "workload", workload_json(st, nsig));
	json_object_object_add(run->result, "recorder", pms_recorder_to_json(&st->rec));
	oracle = pms_oracle_to_json(&ocfg, &ores);
	json_object_object_add(run->result, "oracle", oracle);
	json_object_object_add(run->result, "watchdog", pms_watchdog_to_json(&sup.wd));

	o = pms_skid_to_json(&scfg, &sres);
	a = json_object_new_object();
	json_object_object_add(a, "value", json_object_new_uint64(st->allowance));
	json_object_object_add(a, "source", json_object_new_string(st->allowance_source));
	json_object_object_add(a, "cpu_default", json_object_new_uint64(st->cpu_allowance));
	json_object_object_add(a, "cpu_default_why", json_object_new_string(st->allowance_why));
	json_object_object_add(a, "note", st->allowance >= st->c.period ? json_object_new_string(
		"allowance >= period: a dropped interrupt cannot be told from skid by the deltas "
		"(reported as ambiguous_jump); raise --period above the allowance") : NULL);
	json_object_object_add(o, "allowance", a);
	json_object_object_add(o, "interrupt", json_object_new_string(
		scfg.timer ? "hrtimer: values are ns, and an overflow whose timer fires in an "
		"excluded mode is skipped by design (perf_exclude_event), so drops and skid are "
		"reported, not judged" :
		st->c.ev.attr.type == PERF_TYPE_SOFTWARE ? "software event: the kernel overflows "
		"it in place, no PMU interrupt" :
		st->c.ev.breakpoint ? "synchronous: a breakpoint is a debug exception at the "
		"instruction, skid is zero and no interrupt can land in the kernel, so this run "
		"checks the machinery (ring, matching, rules), not the bug" :
		"PMU overflow interrupt: skid lets it land after a kernel entry"));
	json_object_object_add(o, "kernel_ip_rule", scfg.kernel_ip_mask ? json_object_new_string(
		"an IP with bit 63 set is a kernel address (x86_64, arm64)") : NULL);
	a = json_object_new_object();
	json_object_object_add(a, "kind", json_object_new_string(entries[st->entry]));
	json_object_object_add(a, "every", json_object_new_uint64(st->entry_every));
	json_object_object_add(a, "count", json_object_new_uint64(st->nr_entries));
	json_object_object_add(o, "kernel_entries", a);
	json_object_object_add(o, "sample_type", json_object_new_string("IP|TID|TIME|CPU"));
	json_object_object_add(o, "ring_pages",
			       json_object_new_uint64(st->data_size / st->page_size));
	json_object_object_add(o, "drain_interval_ns", json_object_new_uint64(sup.poll_ns));
	json_object_object_add(o, "ring_error", st->ring_error ?
			       json_object_new_string(pms_errno_name(-st->ring_error)) : NULL);
	json_object_object_add(run->result, "skid_into_kernel", o);

	failed = pms_skid_failed(&scfg, &sres, skid_reason, sizeof(skid_reason));
	sk_attribute(run, st, cls, nsig, oracle, failed || sup.wd.fired, sentence,
		     sizeof(sentence), env, sizeof(env), &cause);
	free(cls);
	if (sup.wd.stalled) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "%s", sup.wd.message);
	} else if (st->ring_error) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "the sample ring could not be parsed "
			 "(%s): the run measured nothing usable", pms_errno_name(-st->ring_error));
	} else if (env[0]) {
		/* The kernel did what it was configured to do: not the bug. */
		run->verdict = PMS_VERDICT_ENVIRONMENT;
		snprintf(run->reason, sizeof(run->reason), "not a kernel bug: %s", env);
		cause = NULL;
		pms_run_append_reason(run, "what was seen: %.500s%s%.500s", sup.wd.message,
				      sup.wd.fired ? "; " : "", skid_reason);
		pms_run_append_reason(run, "attribution: %s", sentence);
	} else if (failed || sup.wd.fired) {
		run->verdict = PMS_VERDICT_FAIL;
		snprintf(run->reason, sizeof(run->reason), "%.500s%s%.500s", sup.wd.message,
			 sup.wd.fired ? "; " : "", skid_reason);
		pms_run_append_reason(run, "attribution: %s", sentence);
	} else if (!nsig && !sres.samples) {
		run->verdict = PMS_VERDICT_ERROR;
		snprintf(run->reason, sizeof(run->reason), "no overflow happened: the counter "
			 "reached %llu, below one period (%llu); run longer or lower --period",
			 (unsigned long long)st->final_value, (unsigned long long)st->c.period);
	} else {
		run->verdict = PMS_VERDICT_PASS;
		snprintf(run->reason, sizeof(run->reason), "%s", skid_reason);
	}
	pms_run_known_issues(run, cause, st->c.ev.attr.exclude_kernel);
	if (st->c.ev.breakpoint)
		pms_run_append_reason(run, "on the breakpoint substitute the interrupt is "
				      "synchronous (skid 0): the machinery is checked, not the bug");
	if (sup.full || st->rec.dropped)
		pms_run_append_reason(run, "storage full after %llu signals / %zu ring records: "
				      "the run ended early (raise --max-signals)",
				      (unsigned long long)st->rec.n, st->nr_recs);
	if (st->rec.injected)
		pms_run_append_reason(run, "FAULT INJECTION: %llu signals were ignored on purpose "
				      "(--inject-*), this run does not describe the kernel",
				      (unsigned long long)st->rec.injected);
	pms_oracle_result_free(&ores);
	pms_skid_result_free(&sres);
}

static void sk_teardown(struct pms_run *run)
{
	struct sk_state *st = run->priv;

	pms_thread_stop(&st->thread);
	if (st->ring)
		munmap(st->ring, st->ring_len);
	if (st->fd >= 0)
		close(st->fd);
	pms_recorder_fini(&st->rec);
	if (st->fault_area)
		munmap(st->fault_area, FAULT_PAGES * st->page_size);
	free(st->recs);
	pms_tracing_fini(&st->tr);
	pms_thread_fini(&st->thread);
}

const struct pms_scenario pms_scenario_skid_into_kernel = {
	.name = "skid-into-kernel",
	.summary = "a user-only event whose interrupt lands in the kernel still gives a sample "
		   "(with a user IP) and a signal",
	.seed = "cc1582c231ea (4.12-rc) dropped PMU interrupts whose skid landed in the kernel; "
		"reverted by 6a8a75f32357 (4.13-rc2), reported for rr",
	.needs = "a hardware PMU (else the breakpoint substitute, whose interrupt is synchronous)",
	.priv_size = sizeof(struct sk_state),
	PMS_SCENARIO_OPTS(sk_opts),
	.setup = sk_setup,
	.run = sk_run,
	.teardown = sk_teardown,
};
