// SPDX-License-Identifier: GPL-2.0-only
/*
 * aux-pause: the aux_action ABI (aux_start_paused, aux_pause, aux_resume,
 * Linux 6.13) and races between pause/resume requests from task context
 * and from NMI context.
 *
 * Seed: "perf/core: Add aux_pause, aux_resume, aux_start_paused" (6.13,
 * intel_pt; CoreSight ETM 6.16).  A pause/resume requested from NMI context
 * while another is in progress is skipped by design.
 *
 * Two parts.  The ABI matrix opens events with every combination of the
 * bits on the software, tracepoint, breakpoint and (where present) AUX PMUs
 * and compares each errno with what the kernel version must give: it runs
 * on every machine.  The race stress needs an AUX PMU that can pause
 * (intel_pt, cs_etm): a paused AUX leader, a syscall whose entry tracepoint
 * resumes and exit tracepoint pauses it, and optionally a hardware counter
 * whose overflow NMI pauses or resumes it; windows run while paused must
 * not produce AUX data and windows run while resumed must.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "abi.h"
#include "window.h"
#include "pms-cpus.h"
#include "pms-event.h"
#include "pms-perf.h"
#include "pms-ring.h"
#include "pms-thread.h"
#include "pms-util.h"
#include "scenarios.h"

#define MAX_WORKERS 64
#define RING_PAGES 64		/* data pages: PERF_RECORD_AUX and trigger samples */

enum ap_part { AP_ALL, AP_ABI, AP_RACE };
static const char *const parts[] = { "all", "abi", "race", NULL };
enum ap_sys { AP_SYS_NEWUNAME, AP_SYS_GETPPID };
static const char *const syscalls_[] = { "newuname", "getppid", NULL };
static const char *const nmi_actions[] = { "pause", "resume", "none", NULL };

static const struct pms_opt_desc ap_opts[] = {
	{ .name = "part", .type = PMS_OPT_CHOICE, .def = "all", .choices = parts,
	  .arg = "all|abi|race",
	  .help = "the ABI matrix, the race stress, or both (race alone skips, exit 4, "
		  "without a pause-capable AUX PMU)" },
	{ .name = "aux-pmu", .type = PMS_OPT_STRING, .arg = "NAME",
	  .help = "AUX-area PMU (default: the first of intel_pt, cs_etm, arm_spe*, hisi_ptt*)" },
	{ .name = "kernel-release", .type = PMS_OPT_STRING, .arg = "REL",
	  .help = "TESTING: judge the ABI matrix as if the kernel were REL (uname -r): a wrong "
		  "release must give mismatches" },
	{ .name = "aux-config", .type = PMS_OPT_U64, .def = "0", .min = 0, .max = UINT64_MAX,
	  .arg = "N", .help = "race: attr.config of the AUX event (0: the PMU's default trace)" },
	{ .name = "aux-exclude", .type = PMS_OPT_STRING, .def = "none", .arg = "LIST",
	  .help = "race: exclude_* bits of the AUX event (default none: trace user and kernel)" },
	{ .name = "aux-pages", .type = PMS_OPT_U64, .def = "256", .min = 1, .max = 1u << 20,
	  .arg = "2^n", .help = "race: AUX buffer pages (a power of two)" },
	{ .name = "syscall", .type = PMS_OPT_CHOICE, .def = "newuname", .choices = syscalls_,
	  .arg = "newuname|getppid",
	  .help = "race: its sys_enter tracepoint resumes the trace, its sys_exit pauses it" },
	{ .name = "paused-loop", .type = PMS_OPT_U64, .def = "100000", .min = 0,
	  .max = 1ull << 40, .arg = "N", .help = "race: user loop iterations in each paused window" },
	{ .name = "paused-syscalls", .type = PMS_OPT_U64, .def = "8", .min = 0, .max = 1u << 20,
	  .arg = "N", .help = "race: getpid calls (kernel code) in each paused window" },
	{ .name = "paused-allowance", .type = PMS_OPT_U64, .def = "0", .min = 0,
	  .max = 1ull << 40, .arg = "BYTES",
	  .help = "race: AUX bytes a paused window may still produce" },
	{ .name = "nmi-action", .type = PMS_OPT_CHOICE, .def = "pause", .choices = nmi_actions,
	  .arg = "pause|resume|none",
	  .help = "race: what the --event counter's overflow (an NMI) does to the trace" },
	{ .name = "windows", .type = PMS_OPT_U64, .def = "0", .min = 0, .max = 1ull << 32,
	  .arg = "N", .help = "race: stop after N window pairs per thread (0: at --duration)" },
	{ .name = "max-windows", .type = PMS_OPT_U64, .def = "200000", .min = 2,
	  .max = 1ull << 26, .arg = "N", .help = "race: windows stored per thread" },
	{ .name = "threads", .type = PMS_OPT_U64, .def = "1", .min = 1, .max = MAX_WORKERS,
	  .arg = "N", .help = "race: threads, each with its own group (one per CPU of --cpus)" },
	{ .name = "cpus", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "race: CPUs the threads are pinned to, round robin (default: not pinned)" },
	{ .name = "mover", .type = PMS_OPT_FLAG,
	  .help = "race: each thread hops to the next CPU of --cpus after every window pair" },
};

struct ap_state;

struct ap_worker {
	struct ap_state *st;
	unsigned int idx;
	int cpu;		/* pinned to, -1: not */
	struct pms_thread thread;
	int done;		/* the worker returned */
	int lfd, rfd, pfd, nfd;
	uint64_t rid, pid, nid;
	struct perf_event_mmap_page *pg;
	void *ring;
	size_t ring_len;
	uint64_t data_size, tail;
	void *aux;
	size_t aux_len;
	struct pms_ring_rec *recs;
	size_t recs_cap;
	struct pms_auxwin *win;
	size_t nwin, cap;
	uint64_t rebinds, rebind_failed;
	uint64_t lid;			/* the leader's id: a group THROTTLE (6.16+) */
	uint64_t ioctl_errors, enable_skip, nmi_throttled, not_stored;
	uint64_t running;		/* the resume trigger's time_running so far */
	int ring_error;
	enum pms_status status;
	char err[512];
};

struct ap_state {
	enum ap_part part;
	char tracefs[256], tracefs_why[256];
	bool tracefs_ours, tracefs_ok;
	/* race configuration */
	bool race_possible;
	char race_skip[768];
	char aux_pmu[96];
	bool coresight;			/* cs_etm: TRBE pads with 0x70 ignore packets */
	struct perf_event_attr aux_attr, resume_attr, pause_attr, nmi_attr;
	bool nmi;
	char nmi_name[128], nmi_note[768], nmi_pmu[64];
	enum pms_auxwin_nmi nmi_action;
	char tp_enter[96], tp_exit[96];
	enum ap_sys sys;
	uint64_t paused_loop, paused_syscalls, allowance, windows, max_windows;
	uint64_t aux_pages;
	hwloc_bitmap_t cpus;
	int cpu_list[1024];
	unsigned int ncpus;
	bool mover;
	char cpus_note[384];
	unsigned int nthreads;
	struct ap_worker w[MAX_WORKERS];
	uint64_t start_ns, end_ns;
};

static int read_tp_id(const char *tracefs, const char *sys, const char *name, uint64_t *id)
{
	char path[512], buf[32];

	if (!tracefs)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name);
	if (pms_read_text(path, buf, sizeof(buf)) < 0)
		return -errno;
	return pms_parse_u64(buf, id);
}

static const char *host_release(struct pms_run *run)
{
	json_object *k, *r;

	if (run->host && json_object_object_get_ex(run->host, "kernel", &k) &&
	    json_object_object_get_ex(k, "release", &r) && json_object_is_type(r, json_type_string))
		return json_object_get_string(r);
	return NULL;
}

/*
 * Decide whether the race stress can run here; fills st->race_skip when it
 * cannot.  Return: PMS_OK, or a usage/event error for bad options.
 */
static enum pms_status race_setup(struct pms_run *run, struct ap_state *st)
{
	const char *pmu = pms_opt_str(&run->opts, "aux-pmu");
	const char *excl = pms_opt_str(&run->opts, "aux-exclude");
	const char *ev = pms_opt_str(&run->opts, "event");
	const char *release = host_release(run);
	const char *tracefs = st->tracefs_ok ? st->tracefs : NULL;
	struct pms_event nev;
	char path[512], buf[64], err[512];
	uint64_t type, id_enter, id_exit;
	int fd;

	if (pmu) {
		snprintf(path, sizeof(path), "%s/%s/type", run->devices, pmu);
		if (pms_read_text(path, buf, sizeof(buf)) < 0 || pms_parse_u64(buf, &type)) {
			snprintf(run->reason, sizeof(run->reason), "unknown PMU '%s': no %s",
				 pmu, path);
			return PMS_E_EVENT;
		}
		snprintf(st->aux_pmu, sizeof(st->aux_pmu), "%s", pmu);
	} else if (!pms_aux_find_pmu(run->devices, st->aux_pmu, sizeof(st->aux_pmu))) {
		snprintf(st->race_skip, sizeof(st->race_skip), "needs an AUX-area PMU that can "
			 "pause (intel_pt on 6.13+, cs_etm on 6.16+): %s has none",
			 run->devices);
		return PMS_OK;
	} else {
		snprintf(path, sizeof(path), "%s/%s/type", run->devices, st->aux_pmu);
		if (pms_read_text(path, buf, sizeof(buf)) < 0 || pms_parse_u64(buf, &type)) {
			snprintf(st->race_skip, sizeof(st->race_skip), "%s: unreadable", path);
			return PMS_OK;
		}
	}
	st->coresight = !strcmp(st->aux_pmu, "cs_etm");
	if (st->coresight && st->aux_pages < 2) {
		snprintf(run->reason, sizeof(run->reason), "--aux-pages %llu: cs_etm needs at least "
			 "2 (a TRBE sink refuses 1)", (unsigned long long)st->aux_pages);
		return PMS_E_USAGE;
	}
	if (st->coresight && st->nthreads > 1) {
		snprintf(run->reason, sizeof(run->reason), "--threads %u: cs_etm runs one thread "
			 "(a shared ETR/ETF sink serves one owner and refuses the others with EBUSY)",
			 st->nthreads);
		return PMS_E_USAGE;
	}
	memset(&st->aux_attr, 0, sizeof(st->aux_attr));
	st->aux_attr.size = sizeof(st->aux_attr);
	st->aux_attr.type = (uint32_t)type;
	st->aux_attr.config = pms_opt_u64(&run->opts, "aux-config");
	st->aux_attr.disabled = 1;
	if (pms_event_set_exclude(&st->aux_attr, excl, err, sizeof(err))) {
		snprintf(run->reason, sizeof(run->reason), "--aux-exclude: %s", err);
		return PMS_E_EVENT;
	}
	pms_attr_set_aux_action(&st->aux_attr, PMS_AUX_START_PAUSED);

	/* The NMI trigger: --event, default cycles. */
	st->nmi_action = pms_opt_u64(&run->opts, "nmi-action") == 0 ? PMS_AUXWIN_NMI_PAUSE :
			 pms_opt_u64(&run->opts, "nmi-action") == 1 ? PMS_AUXWIN_NMI_RESUME :
			 PMS_AUXWIN_NMI_NONE;
	if (st->nmi_action != PMS_AUXWIN_NMI_NONE) {
		if (pms_event_parse(ev ? ev : "cycles", run->devices, run->arch, &nev, err,
				    sizeof(err))) {
			if (ev) {
				snprintf(run->reason, sizeof(run->reason), "unknown event '%s': %s",
					 ev, err);
				return PMS_E_EVENT;
			}
			snprintf(st->nmi_note, sizeof(st->nmi_note), "no hardware cycles counter "
				 "(%s): NMI triggers off", err);
			st->nmi_action = PMS_AUXWIN_NMI_NONE;
		} else {
			st->nmi = true;
			st->nmi_attr = nev.attr;
			snprintf(st->nmi_name, sizeof(st->nmi_name), "%s", nev.name);
			st->nmi_attr.sample_period = pms_opt_given(&run->opts, "period") ?
				pms_opt_u64(&run->opts, "period") : 100000;
			st->nmi_attr.sample_type = PERF_SAMPLE_IDENTIFIER;
			st->nmi_attr.pinned = 0;	/* only a leader may be */
			st->nmi_attr.exclusive = 0;
			snprintf(st->nmi_pmu, sizeof(st->nmi_pmu), "%s", nev.pmu);
			pms_attr_set_aux_action(&st->nmi_attr,
						st->nmi_action == PMS_AUXWIN_NMI_PAUSE ?
						PMS_AUX_PAUSE : PMS_AUX_RESUME);
		}
	}

	snprintf(st->tp_enter, sizeof(st->tp_enter), "sys_enter_%s", syscalls_[st->sys]);
	snprintf(st->tp_exit, sizeof(st->tp_exit), "sys_exit_%s", syscalls_[st->sys]);
	if (read_tp_id(tracefs, "syscalls", st->tp_enter, &id_enter) ||
	    read_tp_id(tracefs, "syscalls", st->tp_exit, &id_exit)) {
		snprintf(st->race_skip, sizeof(st->race_skip), "no tracepoints syscalls:%s and "
			 "syscalls:%s under %s (tracefs mounted, CONFIG_FTRACE_SYSCALLS?)",
			 st->tp_enter, st->tp_exit, tracefs ? tracefs : "(no tracefs)");
		return PMS_OK;
	}
	memset(&st->resume_attr, 0, sizeof(st->resume_attr));
	st->resume_attr.size = sizeof(st->resume_attr);
	st->resume_attr.type = PERF_TYPE_TRACEPOINT;
	st->resume_attr.config = id_enter;
	st->resume_attr.sample_period = 1;
	st->resume_attr.sample_type = PERF_SAMPLE_IDENTIFIER;
	/* time_running tells a group that was never on a CPU from a lost trigger. */
	st->resume_attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				      PERF_FORMAT_TOTAL_TIME_RUNNING;
	st->pause_attr = st->resume_attr;
	st->pause_attr.config = id_exit;
	pms_attr_set_aux_action(&st->resume_attr, PMS_AUX_RESUME);
	pms_attr_set_aux_action(&st->pause_attr, PMS_AUX_PAUSE);

	/* Can this PMU start paused on this kernel? */
	fd = pms_perf_open_self(&st->aux_attr, -1);
	if (fd == -EOPNOTSUPP) {
		snprintf(st->race_skip, sizeof(st->race_skip), "%s has no pause capability on "
			 "this kernel (aux_start_paused: EOPNOTSUPP)", st->aux_pmu);
		return PMS_OK;
	}
	if (fd == -EINVAL || fd == -E2BIG) {
		/* Asked of the kernel, not of its version: backports exist. */
		snprintf(st->race_skip, sizeof(st->race_skip), "kernel %s predates aux_action: "
			 "aux_start_paused on %s is rejected as reserved (%s)",
			 release ? release : "?", st->aux_pmu, pms_errno_name(-fd));
		return PMS_OK;
	}
	if (fd < 0) {
		snprintf(st->race_skip, sizeof(st->race_skip), "%s with aux_start_paused does not "
			 "open: %s", st->aux_pmu, pms_errno_name(-fd));
		return PMS_OK;
	}
	close(fd);
	st->race_possible = true;
	return PMS_OK;
}

/* The threads' CPUs, in order, from st->cpus. */
static void fill_cpu_list(struct ap_state *st)
{
	int i;

	st->ncpus = 0;
	hwloc_bitmap_foreach_begin(i, st->cpus)
		if (st->ncpus < PMS_ARRAY_SIZE(st->cpu_list))
			st->cpu_list[st->ncpus++] = i;
	hwloc_bitmap_foreach_end();
}

/*
 * A hardware trigger moves the whole group into its PMU's context, which
 * is scheduled only on that PMU's CPUs (hybrid x86, big.LITTLE): keep the
 * threads there, or the group, trace and tracepoints included, never runs.
 */
static enum pms_status confine_to_pmu(struct pms_run *run, struct ap_state *st)
{
	char path[512], list[256], have[256];
	hwloc_bitmap_t pmu_cpus;

	snprintf(path, sizeof(path), "%s/%s/cpus", run->devices, st->nmi_pmu);
	if (pms_read_text(path, list, sizeof(list)) < 0)
		return PMS_OK;		/* a PMU of every CPU */
	pmu_cpus = hwloc_bitmap_alloc();
	if (!pmu_cpus || hwloc_bitmap_list_sscanf(pmu_cpus, list) < 0) {
		hwloc_bitmap_free(pmu_cpus);
		return PMS_OK;
	}
	if (st->ncpus)
		hwloc_bitmap_and(st->cpus, st->cpus, pmu_cpus);
	else
		hwloc_bitmap_copy(st->cpus, pmu_cpus);
	hwloc_bitmap_free(pmu_cpus);
	if (hwloc_bitmap_iszero(st->cpus)) {
		snprintf(run->reason, sizeof(run->reason), "bad CPU list '%s': none of its CPUs "
			 "has PMU %s (cpus %s), whose counter triggers the group",
			 pms_opt_str(&run->opts, "cpus"), st->nmi_pmu, list);
		return PMS_E_CPUS;
	}
	fill_cpu_list(st);
	pms_cpus_format(st->cpus, have, sizeof(have));
	snprintf(st->cpus_note, sizeof(st->cpus_note), "threads kept on %s, the CPUs of %s "
		 "(the group lives in its context)", have, st->nmi_pmu);
	return PMS_OK;
}

static enum pms_status ap_setup(struct pms_run *run)
{
	struct ap_state *st = run->priv;
	const char *cpus = pms_opt_str(&run->opts, "cpus");
	enum pms_status s;
	char err[256];
	int ret;

	st->part = (enum ap_part)pms_opt_u64(&run->opts, "part");
	st->sys = (enum ap_sys)pms_opt_u64(&run->opts, "syscall");
	st->paused_loop = pms_opt_u64(&run->opts, "paused-loop");
	st->paused_syscalls = pms_opt_u64(&run->opts, "paused-syscalls");
	st->allowance = pms_opt_u64(&run->opts, "paused-allowance");
	st->windows = pms_opt_u64(&run->opts, "windows");
	st->max_windows = pms_opt_u64(&run->opts, "max-windows");
	st->aux_pages = pms_opt_u64(&run->opts, "aux-pages");
	st->nthreads = (unsigned int)pms_opt_u64(&run->opts, "threads");
	st->mover = pms_opt_u64(&run->opts, "mover");
	st->cpus = hwloc_bitmap_alloc();
	if (st->aux_pages & (st->aux_pages - 1)) {
		snprintf(run->reason, sizeof(run->reason), "--aux-pages %llu is not a power of two",
			 (unsigned long long)st->aux_pages);
		return PMS_E_USAGE;
	}
	if (cpus) {
		if (pms_cpus_parse(run->topo, cpus, st->cpus, err, sizeof(err))) {
			snprintf(run->reason, sizeof(run->reason), "%s", err);
			return PMS_E_CPUS;
		}
		fill_cpu_list(st);
	}
	ret = pms_tracefs_acquire(st->tracefs, sizeof(st->tracefs), &st->tracefs_ours);
	if (ret)
		snprintf(st->tracefs_why, sizeof(st->tracefs_why), "tracefs is not mounted and "
			 "mounting it at %s failed: %s", PMS_TRACEFS_DEFAULT, pms_errno_name(-ret));
	st->tracefs_ok = !ret;
	if (st->mover && st->ncpus < 2) {
		snprintf(run->reason, sizeof(run->reason), "--mover needs --cpus with at least two "
			 "CPUs");
		return PMS_E_CPUS;
	}
	if (st->part == AP_ABI)
		return PMS_OK;
	s = race_setup(run, st);
	if (s)
		return s;
	if (st->race_possible && st->nmi) {
		s = confine_to_pmu(run, st);
		if (s)
			return s;
	}
	if (st->part == AP_RACE && !st->race_possible) {
		snprintf(run->reason, sizeof(run->reason), "race stress: %s", st->race_skip);
		return PMS_E_SKIP;
	}
	return PMS_OK;
}

/* ---- the race stress: one worker per thread */

/*
 * Publish the AUX data: IOC_DISABLE makes the driver end its output handle
 * (aux_head and a PERF_RECORD_AUX), IOC_ENABLE begins a new one; the pause
 * state survives both.  @at_disable ends a window; @at_enable, which is
 * later than it when the sink pads at enable (TRBE), begins the next.
 */
static void flush(struct ap_worker *w, uint64_t *at_disable, uint64_t *at_enable)
{
	if (ioctl(w->lfd, PERF_EVENT_IOC_DISABLE, 0))
		w->ioctl_errors++;
	*at_disable = __atomic_load_n(&w->pg->aux_head, __ATOMIC_ACQUIRE);
	if (ioctl(w->lfd, PERF_EVENT_IOC_ENABLE, 0))
		w->ioctl_errors++;
	*at_enable = __atomic_load_n(&w->pg->aux_head, __ATOMIC_ACQUIRE);
	w->enable_skip += *at_enable - *at_disable;
}

/* A tracepoint trigger's count, and its time_running into *@running. */
static uint64_t count_of(int fd, uint64_t *running)
{
	uint64_t v[3] = { 0, 0, 0 };	/* value, time_enabled, time_running */

	if (fd >= 0 && read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		v[0] = v[2] = 0;
	if (running)
		*running = v[2];
	return v[0];
}

/* Bytes of the AUX buffer in [from, to) equal to @pad (TRBE's 0x70 fill). */
static uint64_t count_padding(const struct ap_worker *w, uint64_t from, uint64_t to, uint8_t pad)
{
	const uint8_t *a = w->aux;
	uint64_t n = 0, i;

	if (to <= from || to - from > w->aux_len)
		return 0;
	for (i = from; i < to; i++)
		n += a[i & (w->aux_len - 1)] == pad;
	return n;
}

/* Parse the data ring into @win (NULL: discard). */
static void drain(struct ap_worker *w, struct pms_auxwin *win)
{
	uint64_t head = __atomic_load_n(&w->pg->data_head, __ATOMIC_ACQUIRE);
	struct pms_ring_counts cnt = { 0 };
	size_t n = 0, i;
	int64_t pos;

	pos = pms_ring_parse((char *)w->ring + w->pg->data_offset, w->data_size, w->tail, head,
			     PERF_SAMPLE_IDENTIFIER, w->recs, w->recs_cap, &n, &cnt);
	if (pos < 0) {
		w->ring_error = (int)pos;
		pos = (int64_t)head;	/* skip what cannot be parsed; reported */
	}
	w->tail = (uint64_t)pos;
	__atomic_store_n(&w->pg->data_tail, w->tail, __ATOMIC_RELEASE);
	if (!win)
		return;
	for (i = 0; i < n; i++) {
		const struct pms_ring_rec *r = &w->recs[i];

		switch (r->type) {
		case PERF_RECORD_SAMPLE:
			if (r->id == w->rid)
				win->resume_samples++;
			else if (r->id == w->pid)
				win->pause_samples++;
			else if (w->nfd >= 0 && r->id == w->nid)
				win->nmi_samples++;
			break;
		/* Only a group throttle (the leader's id, 6.16+) or a tracepoint's
		 * stops the tracepoints; the NMI trigger's alone does not. */
		case PERF_RECORD_THROTTLE:
			if (r->id == w->lid || r->id == w->rid || r->id == w->pid)
				win->throttled++;
			else
				w->nmi_throttled++;
			break;
		case PERF_RECORD_UNTHROTTLE:
			if (r->id == w->lid || r->id == w->rid || r->id == w->pid)
				win->unthrottled++;
			break;
		case PERF_RECORD_LOST:
			win->lost += r->lost;
			break;
		case PERF_RECORD_AUX:
			win->rec_bytes += r->aux_size;
			win->rec_flags |= r->aux_flags;
			break;
		default:
			break;
		}
	}
	/* Records beyond @recs_cap were counted but not attributed: the thread's
	 * result is then not judged (see race_section). */
	w->not_stored += cnt.not_stored;
}

static void paused_work(struct ap_state *st)
{
	volatile uint64_t sink = 0;
	uint64_t i;

	for (i = 0; i < st->paused_loop; i++)
		sink += i;
	(void)sink;
	for (i = 0; i < st->paused_syscalls; i++)
		syscall(SYS_getpid);
}

static void resumed_work(struct ap_state *st)
{
	struct utsname u;

	if (st->sys == AP_SYS_NEWUNAME)
		uname(&u);
	else
		syscall(SYS_getppid);
}

static bool pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

static int open_trigger(struct ap_worker *w, struct perf_event_attr *attr, uint64_t *id)
{
	int fd = pms_perf_open_self(attr, w->lfd);

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, w->lfd) || ioctl(fd, PERF_EVENT_IOC_ID, id)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int worker_open(struct ap_worker *w)
{
	struct ap_state *st = w->st;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd;

	w->lfd = pms_perf_open_self(&st->aux_attr, -1);
	if (w->lfd < 0) {
		snprintf(w->err, sizeof(w->err), "%s (aux_start_paused): %s", st->aux_pmu,
			 pms_errno_name(-w->lfd));
		return w->lfd;
	}
	if (ioctl(w->lfd, PERF_EVENT_IOC_ID, &w->lid)) {
		snprintf(w->err, sizeof(w->err), "PERF_EVENT_IOC_ID on %s: %s", st->aux_pmu,
			 strerror(errno));
		return -errno;
	}
	w->data_size = RING_PAGES * page;
	w->ring_len = page + w->data_size;
	w->ring = mmap(NULL, w->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, w->lfd, 0);
	if (w->ring == MAP_FAILED) {
		w->ring = NULL;
		snprintf(w->err, sizeof(w->err), "mmap of the %s ring: %s", st->aux_pmu,
			 strerror(errno));
		return -errno;
	}
	w->pg = w->ring;
	w->pg->aux_offset = w->ring_len;
	w->pg->aux_size = st->aux_pages * page;
	w->aux_len = st->aux_pages * page;
	w->aux = mmap(NULL, w->aux_len, PROT_READ | PROT_WRITE, MAP_SHARED, w->lfd,
		      (off_t)w->ring_len);
	if (w->aux == MAP_FAILED) {
		w->aux = NULL;
		snprintf(w->err, sizeof(w->err), "mmap of the %s AUX area (%zu bytes): %s",
			 st->aux_pmu, w->aux_len, strerror(errno));
		return -errno;
	}
	fd = open_trigger(w, &st->resume_attr, &w->rid);
	if (fd < 0) {
		snprintf(w->err, sizeof(w->err), "syscalls:%s with aux_resume in the %s group: %s",
			 st->tp_enter, st->aux_pmu, pms_errno_name(-fd));
		return fd;
	}
	w->rfd = fd;
	fd = open_trigger(w, &st->pause_attr, &w->pid);
	if (fd < 0) {
		snprintf(w->err, sizeof(w->err), "syscalls:%s with aux_pause in the %s group: %s",
			 st->tp_exit, st->aux_pmu, pms_errno_name(-fd));
		return fd;
	}
	w->pfd = fd;
	if (st->nmi) {
		fd = open_trigger(w, &st->nmi_attr, &w->nid);
		if (fd < 0) {
			snprintf(w->err, sizeof(w->err), "%s with aux_%s in the %s group: %s",
				 st->nmi_name, st->nmi_action == PMS_AUXWIN_NMI_PAUSE ? "pause" :
				 "resume", st->aux_pmu, pms_errno_name(-fd));
			return fd;
		}
		w->nfd = fd;
	}
	w->recs_cap = 4096;
	w->recs = calloc(w->recs_cap, sizeof(*w->recs));
	w->cap = (size_t)st->max_windows;
	w->win = calloc(w->cap, sizeof(*w->win));
	if (!w->recs || !w->win) {
		snprintf(w->err, sizeof(w->err), "out of memory for %zu windows", w->cap);
		return -ENOMEM;
	}
	return 0;
}

static bool stopping(struct ap_worker *w)
{
	return pms_thread_stopping(&w->thread);
}

/*
 * One window: its work between two flushes, aux_head where the last one
 * re-enabled (*@head) and where the next one disabled, the tracepoints'
 * counts and time_running after it (*@r, *@p carry them on), sink padding,
 * and the ring drained into it.
 */
static void run_window(struct ap_worker *w, struct pms_auxwin *win, enum pms_auxwin_kind kind,
		       uint64_t *head, uint64_t *r, uint64_t *p)
{
	uint64_t r1, p1, running, at_disable;

	win->kind = kind;
	win->head_before = *head;
	win->resume_req = win->pause_req = kind == PMS_AUXWIN_RESUMED;
	win->start_ns = pms_now_ns();
	if (kind == PMS_AUXWIN_RESUMED)
		resumed_work(w->st);
	else
		paused_work(w->st);
	flush(w, &at_disable, head);
	win->end_ns = pms_now_ns();
	win->head_after = at_disable;
	r1 = count_of(w->rfd, &running);
	p1 = count_of(w->pfd, NULL);
	win->resume_hits = r1 - *r;
	win->pause_hits = p1 - *p;
	win->running_ns = running - w->running;
	w->running = running;
	*r = r1;
	*p = p1;
	if (w->st->coresight)
		win->padding = count_padding(w, win->head_before, win->head_after, 0x70);
	drain(w, win);
}

static void *worker_main(void *arg)
{
	struct ap_worker *w = arg;
	struct ap_state *st = w->st;
	uint64_t head, r, p, pairs = 0;
	unsigned int hop = 0;
	int ret;

	pthread_setname_np(pthread_self(), "pms-aux");
	if (w->cpu >= 0 && !pin(w->cpu)) {
		snprintf(w->err, sizeof(w->err), "cannot pin to CPU %d: %s", w->cpu,
			 strerror(errno));
		w->status = PMS_E_SETUP;
		pms_thread_ready(&w->thread);
		goto out;
	}
	ret = worker_open(w);
	if (ret)
		w->status = PMS_E_SETUP;
	pms_thread_ready(&w->thread);
	if (!pms_thread_wait_go(&w->thread) || ret)
		goto out;

	ioctl(w->lfd, PERF_EVENT_IOC_ENABLE, 0);
	flush(w, &r, &head);	/* r: scratch */
	drain(w, NULL);
	r = count_of(w->rfd, &w->running);
	p = count_of(w->pfd, NULL);
	while (!stopping(w) && w->nwin + 2 <= w->cap && (!st->windows || pairs < st->windows)) {
		/* Paused: user loop and unrelated syscalls must leave no trace. */
		run_window(w, &w->win[w->nwin], PMS_AUXWIN_PAUSED, &head, &r, &p);
		/* Resumed: the syscall's entry resumes, its exit pauses. */
		run_window(w, &w->win[w->nwin + 1], PMS_AUXWIN_RESUMED, &head, &r, &p);

		/* Consume the AUX data: the oracle needs sizes only. */
		__atomic_store_n(&w->pg->aux_tail, head, __ATOMIC_RELEASE);
		w->nwin += 2;
		pairs++;
		if (st->mover) {
			hop = (hop + 1) % st->ncpus;
			if (pin(st->cpu_list[hop]))
				w->rebinds++;
			else
				w->rebind_failed++;
		}
	}
	ioctl(w->lfd, PERF_EVENT_IOC_DISABLE, 0);
out:
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static json_object *attr_json(const struct perf_event_attr *attr)
{
	json_object *o = pms_attr_to_json(attr);

	return o;
}

static json_object *race_section(struct pms_run *run, struct ap_state *st, int *verdict)
{
	json_object *o = json_object_new_object(), *workers, *trig;
	char reason[1024] = "", first_fail[900] = "";
	size_t nfail = 0, nerr = 0, total = 0;
	unsigned int i;

	if (!o)
		return NULL;
	if (!st->race_possible) {
		*verdict = PMS_VERDICT_SKIP;
		json_object_object_add(o, "verdict", json_object_new_string("skip"));
		json_object_object_add(o, "finding", json_object_new_string(st->race_skip));
		json_object_object_add(o, "needs", json_object_new_string(
			"an AUX-area PMU with PERF_PMU_CAP_AUX_PAUSE (intel_pt on 6.13+, cs_etm on "
			"6.16+), syscall tracepoints (CONFIG_FTRACE_SYSCALLS), a hardware counter "
			"for NMI triggers"));
		return o;
	}
	json_object_object_add(o, "aux_pmu", json_object_new_string(st->aux_pmu));
	json_object_object_add(o, "aux_attr", attr_json(&st->aux_attr));
	json_object_object_add(o, "aux_buffer_bytes",
			       json_object_new_uint64(st->aux_pages * (uint64_t)sysconf(_SC_PAGESIZE)));
	trig = json_object_new_object();
	if (trig) {
		json_object_object_add(trig, "resume", json_object_new_string(st->tp_enter));
		json_object_object_add(trig, "pause", json_object_new_string(st->tp_exit));
		json_object_object_add(trig, "resume_attr", attr_json(&st->resume_attr));
		json_object_object_add(trig, "pause_attr", attr_json(&st->pause_attr));
		json_object_object_add(trig, "nmi_event", st->nmi ?
				       json_object_new_string(st->nmi_name) : NULL);
		json_object_object_add(trig, "nmi_action", json_object_new_string(
			nmi_actions[pms_opt_u64(&run->opts, "nmi-action")]));
		json_object_object_add(trig, "nmi_attr", st->nmi ? attr_json(&st->nmi_attr) : NULL);
		json_object_object_add(trig, "nmi_note", st->nmi_note[0] ?
				       json_object_new_string(st->nmi_note) : NULL);
	}
	json_object_object_add(o, "triggers", trig);
	json_object_object_add(o, "cpus_note", st->cpus_note[0] ?
			       json_object_new_string(st->cpus_note) : NULL);
	json_object_object_add(o, "padding_byte", st->coresight ?
			       json_object_new_string("0x70 (TRBE ignore packet)") : NULL);
	json_object_object_add(o, "duration_s",
			       json_object_new_double((double)(st->end_ns - st->start_ns) / 1e9));
	workers = json_object_new_array();
	for (i = 0; i < st->nthreads && workers; i++) {
		struct ap_worker *w = &st->w[i];
		struct pms_auxwin_cfg cfg = {
			.paused_allowance = st->allowance,
			.nmi_action = st->nmi ? st->nmi_action : PMS_AUXWIN_NMI_NONE,
			.aux_size = w->aux_len ? w->aux_len : 1,
			.max_findings = pms_opt_u64(&run->opts, "max-anomalies"),
			.running_measured = true,
		};
		struct pms_auxwin_result res;
		json_object *wo = json_object_new_object();

		if (!wo)
			break;
		json_object_object_add(wo, "cpu", w->cpu >= 0 ? json_object_new_int(w->cpu) : NULL);
		json_object_object_add(wo, "rebinds", json_object_new_uint64(w->rebinds));
		json_object_object_add(wo, "rebinds_failed", json_object_new_uint64(w->rebind_failed));
		json_object_object_add(wo, "windows", json_object_new_uint64(w->nwin));
		json_object_object_add(wo, "ioctl_errors", json_object_new_uint64(w->ioctl_errors));
		json_object_object_add(wo, "enable_skip_bytes", json_object_new_uint64(w->enable_skip));
		json_object_object_add(wo, "nmi_throttled", json_object_new_uint64(w->nmi_throttled));
		json_object_object_add(wo, "records_not_stored", json_object_new_uint64(w->not_stored));
		json_object_object_add(wo, "storage_full", json_object_new_boolean(
				       w->cap && w->nwin + 2 > w->cap));
		json_object_object_add(wo, "ring_error", w->ring_error ?
				       json_object_new_string(pms_errno_name(-w->ring_error)) : NULL);
		if (w->status != PMS_OK) {
			nerr++;
			json_object_object_add(wo, "error", json_object_new_string(w->err));
			if (!reason[0])
				snprintf(reason, sizeof(reason), "thread %u: %s", i, w->err);
		} else if (w->ring_error || w->not_stored || w->ioctl_errors) {
			nerr++;
			snprintf(w->err, sizeof(w->err), "not judged: %s%s%s", w->ring_error ?
				 "the ring did not parse; " : "", w->not_stored ?
				 "records beyond the parser's room were not attributed; " : "",
				 w->ioctl_errors ? "IOC_DISABLE/ENABLE failed" : "");
			json_object_object_add(wo, "error", json_object_new_string(w->err));
			if (!reason[0])
				snprintf(reason, sizeof(reason), "thread %u: %s", i, w->err);
		} else if (pms_auxwin_judge(&cfg, w->win, w->nwin, &res)) {
			nerr++;
			json_object_object_add(wo, "error", json_object_new_string("analysis failed"));
		} else {
			char why[768];
			bool failed = pms_auxwin_failed(&res, why, sizeof(why));

			total += w->nwin;
			json_object_object_add(wo, "verdict",
					       json_object_new_string(failed ? "fail" : "pass"));
			json_object_object_add(wo, "finding", json_object_new_string(why));
			json_object_object_add(wo, "analysis", pms_auxwin_to_json(&cfg, &res));
			if (failed && !nfail++)
				snprintf(first_fail, sizeof(first_fail), "thread %u: %s", i, why);
			else if (!failed && !reason[0])
				snprintf(reason, sizeof(reason), "%s", why);
			pms_auxwin_result_free(&res);
		}
		json_object_array_add(workers, wo);
	}
	json_object_object_add(o, "threads", workers);
	if (nfail) {
		*verdict = PMS_VERDICT_FAIL;
		snprintf(reason, sizeof(reason), "%s", first_fail);
	} else if (nerr || !total) {
		*verdict = PMS_VERDICT_ERROR;
		if (!reason[0])
			snprintf(reason, sizeof(reason), "no window was measured");
	} else {
		*verdict = PMS_VERDICT_PASS;
	}
	json_object_object_add(o, "verdict", json_object_new_string(pms_verdict_name(*verdict)));
	json_object_object_add(o, "finding", json_object_new_string(reason));
	return o;
}

static void race_run(struct pms_run *run, struct ap_state *st)
{
	uint64_t deadline;
	unsigned int i;

	for (i = 0; i < st->nthreads; i++) {
		struct ap_worker *w = &st->w[i];

		w->st = st;
		w->idx = i;
		w->lfd = w->rfd = w->pfd = w->nfd = -1;
		w->cpu = st->ncpus ? st->cpu_list[i % st->ncpus] : -1;
		pms_thread_init(&w->thread);
		if (pms_thread_start(&w->thread, worker_main, w)) {
			w->status = PMS_E_SETUP;
			snprintf(w->err, sizeof(w->err), "cannot start a thread");
			__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
		}
	}
	st->start_ns = pms_now_ns();
	for (i = 0; i < st->nthreads; i++)
		pms_thread_go(&st->w[i].thread);
	deadline = st->start_ns + pms_opt_u64(&run->opts, "duration");
	while (!run->interrupted) {
		uint64_t now = pms_now_ns();
		bool all_done = true;

		for (i = 0; i < st->nthreads; i++)
			if (!__atomic_load_n(&st->w[i].done, __ATOMIC_ACQUIRE))
				all_done = false;
		if (all_done || now >= deadline)
			break;
		pms_run_wait(run, deadline - now < 20000000 ? deadline - now : 20000000);
	}
	for (i = 0; i < st->nthreads; i++)
		pms_thread_stop(&st->w[i].thread);
	st->end_ns = pms_now_ns();
}

static void ap_run(struct pms_run *run)
{
	struct ap_state *st = run->priv;
	json_object *sec = json_object_new_object(), *abi = NULL, *race = NULL;
	int abi_v = PMS_VERDICT_SKIP, race_v = PMS_VERDICT_SKIP;
	size_t matched = 0, mismatched = 0;
	char why[768];

	json_object_object_add(sec, "part", json_object_new_string(parts[st->part]));
	{
		json_object *t = json_object_new_object();

		if (t) {
			json_object_object_add(t, "path", st->tracefs_ok ?
					       json_object_new_string(st->tracefs) : NULL);
			json_object_object_add(t, "mounted_by_pmustress",
					       json_object_new_boolean(st->tracefs_ours));
			json_object_object_add(t, "note", st->tracefs_why[0] ?
					       json_object_new_string(st->tracefs_why) : NULL);
		}
		json_object_object_add(sec, "tracefs", t);
	}
	if (st->part != AP_RACE) {
		struct pms_auxabi_env env = {
			.sysfs_root = run->devices,
			.tracefs = st->tracefs_ok ? st->tracefs : NULL,
			.tracefs_why = st->tracefs_why,
			.release = pms_opt_str(&run->opts, "kernel-release") ?
				   pms_opt_str(&run->opts, "kernel-release") : host_release(run),
			.btf_path = pms_opt_str(&run->opts, "kernel-release") ? NULL :
				    "/sys/kernel/btf/vmlinux",
			.aux_pmu = pms_opt_str(&run->opts, "aux-pmu"),
		};

		abi = pms_auxabi_run(&env, &matched, &mismatched);
		abi_v = mismatched ? PMS_VERDICT_FAIL : matched ? PMS_VERDICT_PASS :
			PMS_VERDICT_ERROR;
		json_object_object_add(sec, "abi", abi);
	}
	if (st->part != AP_ABI) {
		if (st->race_possible)
			race_run(run, st);
		race = race_section(run, st, &race_v);
		json_object_object_add(sec, "race", race);
	}

	if (abi_v == PMS_VERDICT_FAIL || race_v == PMS_VERDICT_FAIL)
		run->verdict = PMS_VERDICT_FAIL;
	else if (abi_v == PMS_VERDICT_ERROR || race_v == PMS_VERDICT_ERROR)
		run->verdict = PMS_VERDICT_ERROR;
	else
		run->verdict = PMS_VERDICT_PASS;
	run->reason[0] = '\0';
	if (abi) {
		json_object *f;

		json_object_object_get_ex(abi, "finding", &f);
		pms_run_append_reason(run, "ABI %s: %s", pms_verdict_name(abi_v),
				      json_object_get_string(f));
	}
	if (race) {
		json_object *f;

		json_object_object_get_ex(race, "finding", &f);
		snprintf(why, sizeof(why), "%s", json_object_get_string(f));
		pms_run_append_reason(run, "race stress %s: %s",
				      race_v == PMS_VERDICT_SKIP ? "SKIPPED" :
				      pms_verdict_name(race_v), why);
	}
	json_object_object_add(sec, "verdict",
			       json_object_new_string(pms_verdict_name(run->verdict)));
	json_object_object_add(run->result, "aux_pause", sec);
}

static void ap_teardown(struct pms_run *run)
{
	struct ap_state *st = run->priv;
	unsigned int i;

	for (i = 0; i < MAX_WORKERS; i++) {
		struct ap_worker *w = &st->w[i];

		if (w->st)
			pms_thread_fini(&w->thread);	/* joined before its fds go */
		if (w->aux)
			munmap(w->aux, w->aux_len);
		if (w->ring)
			munmap(w->ring, w->ring_len);
		if (w->st) {
			if (w->nfd >= 0)
				close(w->nfd);
			if (w->pfd >= 0)
				close(w->pfd);
			if (w->rfd >= 0)
				close(w->rfd);
			if (w->lfd >= 0)
				close(w->lfd);
		}
		free(w->recs);
		free(w->win);
	}
	if (st->cpus)
		hwloc_bitmap_free(st->cpus);
	pms_tracefs_release(st->tracefs, st->tracefs_ours);
}

static void ap_availability(const struct pms_run *run, char *buf, size_t len)
{
	char pmu[96];

	if (pms_aux_find_pmu(run->devices, pmu, sizeof(pmu)))
		snprintf(buf, len, "ABI matrix yes; race stress on %s, if it can pause on this "
			 "kernel", pmu);
	else
		snprintf(buf, len, "ABI matrix yes; race stress SKIPPED: no AUX PMU (intel_pt, "
			 "cs_etm)");
}

const struct pms_scenario pms_scenario_aux_pause = {
	.name = "aux-pause",
	.summary = "the aux_action ABI (aux_start_paused/aux_pause/aux_resume) on this kernel, "
		   "and pause/resume races between task and NMI context",
	.seed = "\"perf/core: Add aux_pause, aux_resume, aux_start_paused\" (6.13; intel_pt, "
		"CoreSight ETM 6.16): NMI pause/resume is skipped when another is in progress",
	.needs = "nothing for the ABI matrix; an AUX PMU that can pause (intel_pt, cs_etm) for "
		 "the race stress",
	.priv_size = sizeof(struct ap_state),
	PMS_SCENARIO_OPTS(ap_opts),
	.availability = ap_availability,
	.setup = ap_setup,
	.run = ap_run,
	.teardown = ap_teardown,
};
