// SPDX-License-Identifier: GPL-2.0-only
/*
 * Known kernel behaviours as data, and the matcher that names them in a
 * result.  Self-contained (json-c and libc only) so that the probe, the
 * result printer and the unit test can all link it without the rest of lib.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pms-known.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *const pms_known_causes[] = {
	"migration", "rebind", "switch_out", "ioctl_disable", "throttle", "multiplex",
	"signal_queue_full", "injected", "unexplained",
};
const size_t pms_known_nr_causes = ARRAY_SIZE(pms_known_causes);

/*
 * Versions marked inferred come from merge dates or the cycle a pull request
 * was sent for, not from tags: where the exact release candidate is unsure,
 * the final release of that cycle is taken as fixed, which errs towards
 * naming a bug rather than missing it.
 */
const struct pms_known pms_known_table[] = {
	{
		.id = "armv8pmu-pending-overflow-sched-out",
		.title = "armv8pmu discards an overflow still pending when the event is "
			 "scheduled out",
		.arch = "arm64",
		.pmu_driver = "armv8_pmuv3",
		.link = "https://github.com/rr-debugger/rr/issues/3607",
		.scenarios = "lost-overflow,disable-storm",
		.cond = { .pseudo_nmi_hides = true },
		/* every schedule-out: a migration, the mover's request for one,
		 * any switch away from the counting thread, or rotation off the
		 * PMU when multiplexed (the same pmu->del) */
		.cause = "migration,rebind,switch_out,multiplex",
		.symptom = "Right after the task moves to another CPU a signal comes one period "
			   "late: the counter read in the handler has advanced by about two "
			   "periods (19999 with period 10000), while the final count is right.",
		.confidence = PMS_KNOWN_SOURCED,
		.note = "Removing the event clears its overflow flag (armv8pmu_disable_intens() "
			"writes PMOVSCLR), so an interrupt not yet taken is lost.  Reported on "
			"5.4, 5.10, 6.1 and 6.5, far more often on some hosts (Graviton2) than "
			"on others, and on LKML in November 2023 (\"armv8pmu: Pending overflow "
			"interrupt is discarded when perf event is disabled\").  An out-of-tree "
			"rework saves and restores the overflow state; not known to be merged.",
	},
	{
		.id = "armv8pmu-pending-overflow-ioc-disable",
		.title = "armv8pmu discards an overflow still pending at PERF_EVENT_IOC_DISABLE",
		.arch = "arm64",
		.pmu_driver = "armv8_pmuv3",
		.link = "https://lore.kernel.org/all/"
			"950001BD-490C-4BAC-8EEA-CDB9F7C4ADFC@amazon.com/",
		.scenarios = "disable-storm",
		.cond = { .pseudo_nmi_hides = true },
		.cause = "ioctl_disable",
		.symptom = "An overflow that was pending when another thread disabled the event "
			   "is never signalled: after the next ENABLE the counter delta at the "
			   "next signal is about two periods.",
		.confidence = PMS_KNOWN_SOURCED,
		.note = "The same driver path as at sched-out: disabling the event clears the "
			"pending overflow flag.  The LKML report expected this case from the "
			"code rather than showing it.  Not known to be fixed.",
	},
	{
		.id = "skid-into-kernel-dropped-overflow",
		.title = "An exclude_kernel overflow whose interrupt lands in the kernel is "
			 "dropped",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "4.12-rc4",
		.fixed_in = "4.13-rc2",
		.fix_commit = "6a8a75f32357",
		.link = "https://git.kernel.org/torvalds/c/6a8a75f32357",
		.scenarios = "skid-into-kernel",
		.cond = { .exclude_kernel = PMS_KNOWN_REQ_REQUIRED },
		.cause = "unexplained",
		.symptom = "An overflow whose interrupt arrives after the task entered the kernel "
			   "gives neither a sample nor a signal: the next signal's counter delta "
			   "is about two periods.",
		.confidence = PMS_KNOWN_SOURCED,
		.note = "Introduced by cc1582c231ea (\"perf/core: Drop kernel samples even though "
			":u is specified\"), meant to stop skid leaking kernel addresses; 4.12 "
			"shipped with it and the revert 6a8a75f32357 came in 4.13-rc2.  Seen on "
			"x86.  Samples with a kernel IP on an exclude_kernel event are the "
			"opposite (leak) symptom, not this bug.",
	},
	{
		.id = "sigtrap-pending-disable-race",
		.title = "A racing sched-out consumes pending_disable and SIGTRAPs stop",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "5.13",
		.fixed_in = "6.1",
		.fix_commit = "ca6c21327c6a",
		.link = "https://lore.kernel.org/all/20220927121322.1236730-1-elver@google.com/",
		.scenarios = "disable-storm,sigtrap",
		.cond = { .sigtrap = true },
		.cause = "ioctl_disable",
		.symptom = "One SIGTRAP is lost and the event is left disabled, so no later "
			   "overflow is signalled either: the signal count stops while the "
			   "workload runs on.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "attr.sigtrap arrived in 5.13.  The race needs a sched-out between the "
			"overflow and its pending disable, which an ENABLE from another thread "
			"brings about (it reschedules the context by IPI).  The fix went in "
			"through perf/urgent during the 6.1 release candidates; 6.1 is taken as "
			"the first fixed release.",
	},
	{
		.id = "sigtrap-os-filter-skid",
		.title = "Skid into the kernel upsets the SIGTRAP bookkeeping of exclude_kernel "
			 "events",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "6.1-rc1",
		.fixed_in = "6.1",
		.fix_commit = "030a976efae8",
		.link = "https://lore.kernel.org/all/Y3hDYiXwRnJr8RYG@xpf.sh.intel.com/",
		.scenarios = "sigtrap,skid-into-kernel",
		.cond = { .exclude_kernel = PMS_KNOWN_REQ_REQUIRED, .sigtrap = true },
		.cause = "unexplained",
		.symptom = "A SIGTRAP's si_addr can come from an overflow taken in the kernel "
			   "(fixed kernels report 0 there), and dmesg shows a WARNING from "
			   "__perf_event_overflow.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "A follow-up to ca6c21327c6a, whose new check assumed that an "
			"exclude_kernel event never overflows in the kernel; skid and errata "
			"make it happen.  Upstream only 6.1 release candidates carry it: the "
			"fix was pulled for 6.1-rc7.",
	},
	{
		.id = "sigtrap-pending-task-uaf",
		.title = "The deferred SIGTRAP task work can run after its event was freed",
		.arch = "any",
		.pmu_driver = "any",
		.fixed_in = "6.1",
		.fix_commit = "517e6a301f34",
		.link = "https://git.kernel.org/torvalds/c/517e6a301f34",
		.scenarios = "sigtrap",
		.cond = { .sigtrap = true },
		.cause = "unexplained",
		.symptom = "Closing a sigtrap event while its signal is still queued can crash "
			   "the kernel or leave a KASAN use-after-free report in dmesg.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "Found by syzbot once ca6c21327c6a had moved SIGTRAP delivery to task "
			"work; the fix was pulled for 6.1-rc8.  Stable trees without sigtrap "
			"(5.10) took a reduced backport for the irq_work path, so older kernels "
			"are treated as affected too.",
	},
	{
		.id = "sigtrap-blocked-kills",
		.title = "A SIGTRAP raised while SIGTRAP is blocked kills the task",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "5.13",
		.fixed_in = "5.18",
		.fix_commit = "78ed93d72ded",
		.link = "https://git.kernel.org/torvalds/c/78ed93d72ded",
		.scenarios = "sigtrap",
		.cond = { .sigtrap = true },
		.cause = "unexplained",
		.symptom = "An access that overflows a sigtrap event while the thread blocks "
			   "SIGTRAP ends the process (the forced signal resets the handler); "
			   "fixed kernels deliver it at the unblock, flagged "
			   "TRAP_PERF_FLAG_ASYNC in si_perf_flags.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "\"signal: Deliver SIGTRAP on perf event asynchronously if blocked\" "
			"added si_perf_flags; 5.18 is inferred from the merge date.  The probe's "
			"sigtrap_si_perf_flags feature tells the two behaviours apart in a child, "
			"and sigtrap --mask-every skips where the old one is found.",
	},
	{
		.id = "sigtrap-irq-work-delay",
		.title = "A SIGTRAP raised through irq_work can arrive late",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "5.13",
		.fixed_in = "6.11",
		.fix_commit = "c5d93d23a260",
		.link = "https://git.kernel.org/torvalds/c/c5d93d23a260",
		.scenarios = "sigtrap",
		.cond = { .sigtrap = true },
		.cause = "unexplained",
		.symptom = "On an architecture where irq_work has no interrupt of its own the "
			   "SIGTRAP waits for the next tick, so it is delivered after the thread "
			   "has run on past the overflow.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "c5d93d23a260 (\"perf: Enqueue SIGTRAP always via task_work.\") queues "
			"the signal for the return to user space instead; it was carried in the "
			"PREEMPT_RT patches before it was merged, and 6.11 is inferred from the "
			"merge date.  Most x86 and arm64 systems raise irq_work by interrupt, "
			"so expect it elsewhere.",
	},
	{
		.id = "sigtrap-free-hang",
		.title = "Closing a sigtrap event with a SIGTRAP still queued can hang the task",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "5.13",
		.fixed_in = "6.15",
		.fix_commit = "56799bc03565",
		.link = "https://lore.kernel.org/all/20250304135446.18905-1-frederic@kernel.org/",
		.scenarios = "sigtrap",
		.cond = { .sigtrap = true },
		.cause = "unexplained",
		.symptom = "close() of the event, or the exit of its thread, never returns: the "
			   "task waits in D state for a signal that can no longer be sent.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "Introduced upstream by 3a5465418f5f (\"perf: Fix event leak upon exec "
			"and file release\", 6.11 by merge date), which stable trees took as far "
			"back as 5.15, so every sigtrap-capable kernel before the fix is treated "
			"as in range.  The fix was pulled just after 6.15-rc1.",
	},
	{
		.id = "refresh-pollhup-lost",
		.title = "Reaching the IOC_REFRESH limit neither stops the counter nor sends "
			 "POLL_HUP",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "6.16-rc1",
		.fixed_in = "6.17-rc5",
		.fix_commit = "18dbcbfabfff",
		.link = "https://lore.kernel.org/lkml/"
			"aICYAqM5EQUlTqtX@li-2b55cdcc-350b-11b2-a85c-a78bff51fc11.ibm.com/",
		.scenarios = "ioctl-semantics",
		.cause = "unexplained",
		.symptom = "After PERF_EVENT_IOC_REFRESH(n) the signal for the n-th overflow does "
			   "not come as POLL_HUP and the counter is not stopped at once, so the "
			   "POLL_IN and POLL_HUP counts per refresh are off.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "Broken by 9734e25fbf5a (\"perf: Fix the throttle logic for a group\"), "
			"which moved the drivers' stop at the limit into the core and lost it; "
			"that series is taken to be in 6.16-rc1.  The fix was also queued for "
			"6.16 stable.",
	},
	{
		.id = "refresh-cpu-clock-hang",
		.title = "Reaching the IOC_REFRESH limit on cpu-clock or task-clock can hang the "
			 "machine",
		.arch = "any",
		.pmu_driver = "any",
		.introduced = "6.16",
		.fixed_in = "6.18",
		.fix_commit = "eb3182ef0405",
		.link = "https://lore.kernel.org/all/"
			"CAHPNGSQpXEopYreir+uDDEbtXTBvBvi8c6fYXJvceqtgTPao3Q@mail.gmail.com/",
		.scenarios = "ioctl-semantics",
		.cause = "unexplained",
		.symptom = "When the refresh limit of a cpu-clock or task-clock event runs out "
			   "the CPU deadlocks in its own hrtimer handler and the machine "
			   "freezes: the run never ends.",
		.confidence = PMS_KNOWN_INFERRED,
		.note = "Caused by the POLL_HUP fix 18dbcbfabfff (6.17-rc5, also taken into 6.16 "
			"stable, hence 6.16 here): stopping the event now cancels the hrtimer "
			"from inside its own callback.  The fix (\"perf/core: Fix system hang "
			"caused by cpu-clock usage\") went in through perf/urgent in November "
			"2025, after 6.18-rc4; 6.18 is taken as the first fixed release.  A "
			"follow-up, \"perf: Ensure swevent hrtimer is properly destroyed\" "
			"(January 2026), closes a hole that fix left on the free path.",
	},
	{
		.id = "aux-pause-nmi-skip-intel-pt",
		.title = "An AUX pause/resume asked for in NMI context is skipped while another "
			 "is in progress (intel_pt)",
		.arch = "x86",
		.pmu_driver = "intel_pt",
		.introduced = "6.13",
		.link = "https://lore.kernel.org/all/"
			"20240531055731.12541-1-adrian.hunter@intel.com/",
		.scenarios = "aux-pause",
		.cause = "unexplained",
		.symptom = "A hardware-counter overflow that should pause or resume the trace "
			   "sometimes does not, although its sample is there: trace bytes in a "
			   "paused window, or none in a resumed one.",
		.by_design = true,
		.confidence = PMS_KNOWN_INFERRED,
		.note = "The core gives up on a pause or resume requested from NMI context when "
			"another one is running rather than wait for it; tracepoint triggers run "
			"with interrupts off and are never skipped.  aux_action reached intel_pt "
			"in 6.13 (inferred from the merge date).",
	},
	{
		.id = "aux-pause-nmi-skip-cs-etm",
		.title = "An AUX pause/resume asked for in NMI context is skipped while another "
			 "is in progress (CoreSight ETM)",
		.arch = "arm64",
		.pmu_driver = "cs_etm",
		.introduced = "6.16",
		.link = "https://lore.kernel.org/all/20250310104919.58816-1-leo.yan@arm.com/",
		.scenarios = "aux-pause",
		.cause = "unexplained",
		.symptom = "A hardware-counter overflow that should pause or resume the trace "
			   "sometimes does not, although its sample is there: trace bytes in a "
			   "paused window, or none in a resumed one.",
		.by_design = true,
		.confidence = PMS_KNOWN_SOURCED,
		.note = "The same core rule as for intel_pt; CoreSight ETM gained pause and "
			"resume in 6.16.  A TRBE sink pads the buffer at every enable and "
			"sched-in, so judge the payload, not the raw byte count.",
	},
	{
		.id = "arm-spe-contextidr-pidns",
		.title = "Arm SPE Context packets carry root-namespace PIDs",
		.arch = "arm64",
		.pmu_driver = "arm_spe",
		.link = "https://lore.kernel.org/all/20201130162454.28255-1-james.clark@arm.com/",
		.scenarios = "pidns",
		.cause = "unexplained",
		.symptom = "In a non-root PID namespace the PIDs in SPE Context packets are not "
			   "the ones the session knows its tasks by (or there are no Context "
			   "packets), so samples go to the wrong task or to none.",
		.confidence = PMS_KNOWN_SOURCED,
		.note = "CONTEXTIDR_EL1 holds the PID only with CONFIG_PID_IN_CONTEXTIDR, the "
			"driver asks for Context packets only for a perfmon-capable opener, and "
			"the PID written is the root namespace's; perf falls back to "
			"PERF_RECORD_SWITCH outside the root namespace.  Proposals from 2020 to "
			"2022 to handle namespaces are not known to be merged.",
	},
};
const size_t pms_known_nr = ARRAY_SIZE(pms_known_table);

/* Append to @buf at *@pos; a full buffer truncates and *@pos stays below @len. */
static void cat(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cat(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!buf || !len || *pos >= len - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*pos = (size_t)n >= len - *pos ? len - 1 : *pos + (size_t)n;
}

static void clear(char *buf, size_t len)
{
	if (buf && len)
		buf[0] = '\0';
}

/* Up to 9 decimal digits, so that the value always fits an unsigned int. */
static int parse_num(const char **p, unsigned int *out)
{
	const char *s = *p;
	unsigned int v = 0;
	int n = 0;

	while (isdigit((unsigned char)s[n])) {
		if (n == 9)
			return -EINVAL;
		v = v * 10 + (unsigned int)(s[n] - '0');
		n++;
	}
	if (!n)
		return -EINVAL;
	*p = s + n;
	*out = v;
	return 0;
}

int pms_known_kver_parse(const char *s, struct pms_known_kver *v)
{
	struct pms_known_kver k = { 0 };
	const char *p = s;
	bool rc = false;

	if (!s || !v)
		return -EINVAL;
	if (*p == 'v')		/* git tags: "v6.1" */
		p++;
	if (parse_num(&p, &k.major) || *p++ != '.' || parse_num(&p, &k.minor))
		return -EINVAL;
	if (p[0] == '.' && isdigit((unsigned char)p[1])) {
		p++;
		if (parse_num(&p, &k.sublevel))
			return -EINVAL;
	}
	/* Old four-part versions ("2.6.32.59"): the fourth number is not compared. */
	while (p[0] == '.' && isdigit((unsigned char)p[1]))
		for (p++; isdigit((unsigned char)*p); p++)
			;
	/* Mainline's "-rcN", and Fedora's "-0.rcN" for its pre-release builds. */
	if (!strncmp(p, "-rc", 3) && isdigit((unsigned char)p[3])) {
		p += 3;
		rc = true;
	} else if (!strncmp(p, "-0.rc", 5) && isdigit((unsigned char)p[5])) {
		p += 5;
		rc = true;
	}
	if (rc && (parse_num(&p, &k.rc) || !k.rc))
		return -EINVAL;
	/* The numbers must end cleanly: "6.1a", "4.12-rc4x" and "6.1." do not. */
	if (isalnum((unsigned char)*p) || (p[0] == '.' && !p[1]))
		return -EINVAL;
	*v = k;
	return 0;
}

static int cmp_uint(unsigned int a, unsigned int b)
{
	return a < b ? -1 : a > b;
}

int pms_known_kver_cmp(const struct pms_known_kver *a, const struct pms_known_kver *b)
{
	int c;

	c = cmp_uint(a->major, b->major);
	if (!c)
		c = cmp_uint(a->minor, b->minor);
	if (!c)
		c = cmp_uint(a->sublevel, b->sublevel);
	/* A release (rc 0) sorts after every one of its release candidates. */
	if (!c)
		c = cmp_uint(a->rc ? a->rc : UINT_MAX, b->rc ? b->rc : UINT_MAX);
	return c;
}

int pms_known_version_cmp(const char *a, const char *b, int *cmp)
{
	struct pms_known_kver va, vb;

	if (!cmp || pms_known_kver_parse(a, &va) || pms_known_kver_parse(b, &vb))
		return -EINVAL;
	*cmp = pms_known_kver_cmp(&va, &vb);
	return 0;
}

const char *pms_known_arch_family(const char *machine)
{
	if (!machine || !*machine)
		return NULL;
	if (!strcmp(machine, "aarch64") || !strcmp(machine, "aarch64_be") ||
	    !strcmp(machine, "arm64"))
		return "arm64";
	/* i386 to i686: "i", any one character, "86". */
	if (!strcmp(machine, "x86_64") || !strcmp(machine, "amd64") || !strcmp(machine, "x86") ||
	    (strlen(machine) == 4 && machine[0] == 'i' && !strcmp(machine + 2, "86")))
		return "x86";
	if (!strncmp(machine, "arm", 3))
		return "arm";
	return machine;
}

const char *pms_known_driver_of(const char *pmu, char *buf, size_t len)
{
	size_t n;

	if (!pmu || !*pmu)
		return NULL;
	if (!strncmp(pmu, "armv8_", 6) || !strncmp(pmu, "armv9_", 6))
		return "armv8_pmuv3";
	if (!strncmp(pmu, "armv7_", 6))
		return "armv7";
	if (!strcmp(pmu, "cpu") || !strncmp(pmu, "cpu_", 4))
		return "cpu";
	if (!buf || !len)
		return pmu;
	snprintf(buf, len, "%s", pmu);
	n = strlen(buf);
	while (n && isdigit((unsigned char)buf[n - 1]))
		n--;
	if (n && n < strlen(buf) && buf[n - 1] == '_')
		buf[n - 1] = '\0';
	return buf;
}

/* AUX-area PMUs: a run or probe naming only the core PMU says nothing about them. */
static bool is_aux_driver(const char *drv)
{
	static const char *const aux[] = { "intel_pt", "intel_bts", "cs_etm", "arm_spe",
					   "hisi_ptt" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(aux); i++)
		if (!strcmp(drv, aux[i]))
			return true;
	return false;
}

static bool one_cause_valid(const char *cause, size_t n)
{
	size_t i;

	for (i = 0; i < pms_known_nr_causes; i++)
		if (strlen(pms_known_causes[i]) == n && !strncmp(cause, pms_known_causes[i], n))
			return true;
	return false;
}

/* One cause of the vocabulary, or several joined by commas (an entry's list). */
bool pms_known_cause_valid(const char *cause)
{
	const char *p = cause;

	if (!cause || !*cause)
		return false;
	while (p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (!one_cause_valid(p, l))
			return false;
		p = end ? end + 1 : NULL;
	}
	return true;
}

const struct pms_known *pms_known_find(const char *id)
{
	size_t i;

	if (!id)
		return NULL;
	for (i = 0; i < pms_known_nr; i++)
		if (!strcmp(pms_known_table[i].id, id))
			return &pms_known_table[i];
	return NULL;
}

const char *pms_known_fit_name(enum pms_known_fit fit)
{
	switch (fit) {
	case PMS_KNOWN_MATCHES:
		return "matches";
	case PMS_KNOWN_APPLIES:
		return "applies";
	default:
		return "no";
	}
}

void pms_known_range_text(const struct pms_known *k, char *buf, size_t len)
{
	size_t pos = 0;

	clear(buf, len);
	if (!k)
		return;
	if (k->introduced)
		cat(buf, len, &pos, "since %s", k->introduced);
	else
		cat(buf, len, &pos, "long-standing");
	if (k->fixed_in) {
		cat(buf, len, &pos, ", fixed in %s", k->fixed_in);
		if (k->fix_commit)
			cat(buf, len, &pos, " by %s", k->fix_commit);
	} else if (k->by_design) {
		cat(buf, len, &pos, ", by design");
	} else {
		cat(buf, len, &pos, ", not known to be fixed");
	}
	if (k->confidence == PMS_KNOWN_INFERRED)
		cat(buf, len, &pos, ", versions inferred");
}

/* Whether the @n bytes at @name are one of the comma-separated names in @list. */
static bool in_list_n(const char *list, const char *name, size_t n)
{
	const char *p = list;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (l == n && !strncmp(p, name, n))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* Whether @name is one of the comma-separated names in @list. */
static bool in_list(const char *list, const char *name)
{
	return in_list_n(list, name, strlen(name));
}

/* Whether any name of the comma list @names is in @list. */
static bool any_in_list(const char *list, const char *names)
{
	const char *p = names;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (in_list_n(list, p, l))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

static bool is_slug(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

/* "a,b-c": non-empty names of a-z, 0-9 and '-', separated by single commas. */
static bool is_name_list(const char *s)
{
	bool item = false;

	if (!s)
		return false;
	for (; *s; s++) {
		if (*s == ',') {
			if (!item)
				return false;
			item = false;
		} else if (islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-') {
			item = true;
		} else {
			return false;
		}
	}
	return item;
}

static bool is_commit(const char *s)
{
	size_t i;

	for (i = 0; i < 12; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return s[12] == '\0';
}

static bool empty(const char *s)
{
	return !s || !*s;
}

int pms_known_check(const struct pms_known *k, char *why, size_t len)
{
	static const char *const arches[] = { "arm64", "x86", "arm", "any" };
	struct pms_known_kver in, fix;
	const char *what = NULL;
	size_t i, pos = 0;

	clear(why, len);
	if (!k)
		what = "no entry";
	else if (!is_slug(k->id))
		what = "id is not a slug of a-z, 0-9 and '-'";
	else if (empty(k->title))
		what = "no title";
	else if (empty(k->arch))
		what = "no arch";
	else if (empty(k->pmu_driver))
		what = "no PMU driver (\"any\" if it does not matter)";
	else if (!is_name_list(k->scenarios))
		what = "scenarios are not a comma-separated list of names";
	else if (!pms_known_cause_valid(k->cause))
		what = "cause is not in the cause vocabulary";
	else if (empty(k->symptom))
		what = "no symptom";
	else if (empty(k->link))
		what = "no link to an upstream report";
	else if (k->introduced && pms_known_kver_parse(k->introduced, &in))
		what = "introduced is not a kernel version";
	else if (k->fixed_in && pms_known_kver_parse(k->fixed_in, &fix))
		what = "fixed_in is not a kernel version";
	else if (k->introduced && k->fixed_in && pms_known_kver_cmp(&fix, &in) <= 0)
		what = "fixed_in is not after introduced";
	else if (k->fix_commit && !is_commit(k->fix_commit))
		what = "fix_commit is not 12 lower-case hex digits";
	else if (k->by_design && (k->fixed_in || k->fix_commit))
		what = "a by-design entry has a fix";
	if (!what && k) {
		for (i = 0; i < ARRAY_SIZE(arches); i++)
			if (!strcmp(k->arch, arches[i]))
				break;
		if (i == ARRAY_SIZE(arches))
			what = "arch is not arm64, x86, arm or any";
	}
	if (!what)
		return 0;
	cat(why, len, &pos, "%s: %s", k && k->id ? k->id : "(no id)", what);
	return -EINVAL;
}

/*
 * The version test.  Return 1 in range, 0 out of range, -1 not checked (an
 * unknown or unparsable release, which the caller names in its sentence).
 */
static int version_in_range(const struct pms_known *k, const char *release)
{
	struct pms_known_kver rel, v;

	if (!release || pms_known_kver_parse(release, &rel))
		return -1;
	if (k->introduced && !pms_known_kver_parse(k->introduced, &v) &&
	    pms_known_kver_cmp(&rel, &v) < 0)
		return 0;
	if (k->fixed_in && !pms_known_kver_parse(k->fixed_in, &v) &&
	    pms_known_kver_cmp(&rel, &v) >= 0)
		return 0;
	return 1;
}

static bool is_rc(const char *release)
{
	struct pms_known_kver v;

	return release && !pms_known_kver_parse(release, &v) && v.rc;
}

enum pms_known_fit pms_known_fit(const struct pms_known *k, const struct pms_known_ctx *ctx,
				 char *why, size_t len)
{
	char range[160], drvbuf[64];
	const char *fam, *drv;
	size_t pos = 0;
	int in;

	clear(why, len);
	if (!k || !ctx) {
		cat(why, len, &pos, "no entry or no context to compare");
		return PMS_KNOWN_NO;
	}
	pms_known_range_text(k, range, sizeof(range));

	/* The machine: arch, driver, version, VHE.  Unknowns never rule it out. */
	fam = pms_known_arch_family(ctx->arch);
	if (strcmp(k->arch, "any") && fam && strcmp(fam, k->arch)) {
		if (strcmp(fam, ctx->arch))
			cat(why, len, &pos, "arch %s (%s) cannot show it: the bug is %s only",
			    fam, ctx->arch, k->arch);
		else
			cat(why, len, &pos, "arch %s cannot show it: the bug is %s only", fam,
			    k->arch);
		return PMS_KNOWN_NO;
	}
	drv = pms_known_driver_of(ctx->pmu_driver, drvbuf, sizeof(drvbuf));
	/* Only a PMU of the same kind (core or AUX) can rule the driver out. */
	if (strcmp(k->pmu_driver, "any") && drv && strcmp(drv, k->pmu_driver) &&
	    is_aux_driver(drv) == is_aux_driver(k->pmu_driver)) {
		if (!strcmp(drv, ctx->pmu_driver))
			cat(why, len, &pos, "PMU %s is not %s, the driver the bug is in",
			    drv, k->pmu_driver);
		else
			cat(why, len, &pos, "PMU %s is driven by %s, not %s, the driver the "
			    "bug is in", ctx->pmu_driver, drv, k->pmu_driver);
		return PMS_KNOWN_NO;
	}
	in = version_in_range(k, ctx->release);
	if (!in) {
		cat(why, len, &pos, "kernel %s is out of range (%s)", ctx->release, range);
		return PMS_KNOWN_NO;
	}
	if ((k->cond.vhe == PMS_KNOWN_REQ_REQUIRED && ctx->vhe == 0) ||
	    (k->cond.vhe == PMS_KNOWN_REQ_FORBIDDEN && ctx->vhe == 1)) {
		cat(why, len, &pos, "the bug needs a host kernel %s VHE, this one runs %s it",
		    ctx->vhe ? "without" : "with", ctx->vhe ? "with" : "without");
		return PMS_KNOWN_NO;
	}

	if (in > 0)
		cat(why, len, &pos, "kernel %s is in range%s (%s)", ctx->release,
		    k->fixed_in && !is_rc(ctx->release) ? " by version" : "", range);
	else if (ctx->release)
		cat(why, len, &pos, "kernel %s could not be parsed, so the range (%s) was not "
		    "checked", ctx->release, range);
	else
		cat(why, len, &pos, "kernel unknown, so the range (%s) was not checked", range);
	if (!fam)
		cat(why, len, &pos, ", arch unknown");
	/* The driver is worth naming only when the bug lives in one. */
	if (!strcmp(k->pmu_driver, "any"))
		;
	else if (!drv)
		cat(why, len, &pos, ", PMU unknown");
	else if (strcmp(drv, k->pmu_driver))
		cat(why, len, &pos, ", %s not checked (the context names %s)", k->pmu_driver,
		    ctx->pmu_driver);
	else
		cat(why, len, &pos, ", driver %s", drv);
	if (k->cond.vhe != PMS_KNOWN_REQ_ANY && ctx->vhe < 0)
		cat(why, len, &pos, ", VHE unknown");

	/* The run: scenario, conditions, cause. */
	if (ctx->scenario) {
		const char *but = NULL;
		char tmp[160];

		tmp[0] = '\0';
		if (!in_list(k->scenarios, ctx->scenario)) {
			snprintf(tmp, sizeof(tmp), "scenario %s is not one it shows in (%s)",
				 ctx->scenario, k->scenarios);
			but = tmp;
		} else if (k->cond.exclude_kernel == PMS_KNOWN_REQ_REQUIRED &&
			   ctx->exclude_kernel == 0) {
			but = "it needs exclude_kernel=1 and the run had 0";
		} else if (k->cond.exclude_kernel == PMS_KNOWN_REQ_FORBIDDEN &&
			   ctx->exclude_kernel == 1) {
			but = "it needs exclude_kernel=0 and the run had 1";
		} else if (k->cond.sigtrap && !ctx->sigtrap) {
			but = "it needs attr.sigtrap and the run did not set it";
		} else if (!ctx->cause) {
			but = "the run has no dominant cause to compare";
		} else if (!any_in_list(k->cause, ctx->cause)) {
			snprintf(tmp, sizeof(tmp), "the dominant cause is %s, the bug gives %s",
				 ctx->cause, k->cause);
			but = tmp;
		}
		if (but) {
			cat(why, len, &pos, "; but %s", but);
			return PMS_KNOWN_APPLIES;
		}
		cat(why, len, &pos, ", scenario %s, cause %s", ctx->scenario, ctx->cause);
		if (k->cond.exclude_kernel != PMS_KNOWN_REQ_ANY && ctx->exclude_kernel < 0)
			cat(why, len, &pos, ", exclude_kernel not recorded");
	}
	if (in > 0 && k->fixed_in && !is_rc(ctx->release))
		cat(why, len, &pos, "; a stable backport may have fixed it");
	if (k->cond.pseudo_nmi_hides && ctx->pseudo_nmi == 1)
		cat(why, len, &pos, "; irqchip.gicv3_pseudo_nmi=1 mostly hides it");
	if (k->by_design)
		cat(why, len, &pos, "; documented behaviour, not a bug");
	return ctx->scenario ? PMS_KNOWN_MATCHES : PMS_KNOWN_APPLIES;
}

/* json-c helpers: a NULL string becomes JSON null; Return: 0 or -ENOMEM. */
static int add(json_object *o, const char *key, json_object *val)
{
	if (json_object_object_add(o, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int add_str(json_object *o, const char *key, const char *s)
{
	json_object *v = NULL;

	if (s && !(v = json_object_new_string(s)))
		return -ENOMEM;
	return add(o, key, v);
}

static int add_bool(json_object *o, const char *key, bool b)
{
	json_object *v = json_object_new_boolean(b);

	return v ? add(o, key, v) : -ENOMEM;
}

static int push(json_object *arr, json_object *val)
{
	if (!val || json_object_array_add(arr, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static const char *req_name(enum pms_known_req r)
{
	switch (r) {
	case PMS_KNOWN_REQ_REQUIRED:
		return "required";
	case PMS_KNOWN_REQ_FORBIDDEN:
		return "forbidden";
	default:
		return "any";
	}
}

static json_object *scenarios_json(const char *list)
{
	json_object *arr = json_object_new_array();
	const char *p = list;

	while (arr && p && *p) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (push(arr, json_object_new_string_len(p, (int)l))) {
			json_object_put(arr);
			return NULL;
		}
		p = end ? end + 1 : NULL;
	}
	return arr;
}

static json_object *cond_json(const struct pms_known_cond *c)
{
	json_object *o = json_object_new_object();

	if (!o || add_str(o, "exclude_kernel", req_name(c->exclude_kernel)) ||
	    add_str(o, "vhe", req_name(c->vhe)) ||
	    add_bool(o, "pseudo_nmi_hides", c->pseudo_nmi_hides) ||
	    add_bool(o, "sigtrap", c->sigtrap)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *entry_json(const struct pms_known *k)
{
	json_object *o = json_object_new_object(), *v;

	if (!o || add_str(o, "id", k->id) || add_str(o, "title", k->title) ||
	    add_str(o, "arch", k->arch) || add_str(o, "pmu_driver", k->pmu_driver) ||
	    add_str(o, "introduced", k->introduced) || add_str(o, "fixed_in", k->fixed_in) ||
	    add_str(o, "fix_commit", k->fix_commit) || add_str(o, "link", k->link))
		goto fail;
	v = scenarios_json(k->scenarios);
	if (!v || add(o, "scenarios", v))
		goto fail;
	v = cond_json(&k->cond);
	if (!v || add(o, "conditions", v))
		goto fail;
	if (add_str(o, "cause", k->cause) || add_str(o, "symptom", k->symptom) ||
	    add_bool(o, "by_design", k->by_design) ||
	    add_str(o, "confidence",
		    k->confidence == PMS_KNOWN_INFERRED ? "inferred" : "sourced") ||
	    add_str(o, "note", k->note))
		goto fail;
	return o;
fail:
	json_object_put(o);
	return NULL;
}

json_object *pms_known_table_json(void)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; arr && i < pms_known_nr; i++) {
		if (push(arr, entry_json(&pms_known_table[i]))) {
			json_object_put(arr);
			arr = NULL;
		}
	}
	if (!arr)
		errno = ENOMEM;
	return arr;
}

static json_object *match_entry_json(const struct pms_known *k, enum pms_known_fit fit,
				     const char *why)
{
	json_object *o = json_object_new_object();

	if (!o || add_str(o, "id", k->id) || add_str(o, "title", k->title) ||
	    add_str(o, "fit", pms_known_fit_name(fit)) || add_str(o, "why", why) ||
	    add_str(o, "link", k->link) || add_str(o, "fix_commit", k->fix_commit) ||
	    add_str(o, "fixed_in", k->fixed_in)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *pms_known_match_json(const struct pms_known_ctx *ctx, char *summary, size_t len)
{
	static const enum pms_known_fit want[] = { PMS_KNOWN_MATCHES, PMS_KNOWN_APPLIES };
	/* A run is summed up by what matches it, the machine alone by what applies. */
	enum pms_known_fit best = ctx && ctx->scenario ? PMS_KNOWN_MATCHES : PMS_KNOWN_APPLIES;
	const char *head = best == PMS_KNOWN_MATCHES ? "matches: " : "applies: ";
	json_object *arr = json_object_new_array();
	size_t i, w, pos = 0, named = 0;
	char why[512];

	clear(summary, len);
	if (!arr)
		goto nomem;
	/* Matches first, so that a reader (or a truncated list) sees them. */
	for (w = 0; ctx && w < ARRAY_SIZE(want); w++) {
		for (i = 0; i < pms_known_nr; i++) {
			const struct pms_known *k = &pms_known_table[i];
			enum pms_known_fit fit = pms_known_fit(k, ctx, why, sizeof(why));

			if (fit != want[w])
				continue;
			if (push(arr, match_entry_json(k, fit, why)))
				goto nomem;
			if (fit == best)
				cat(summary, len, &pos, "%s%s", named++ ? ", " : head, k->id);
		}
	}
	if (!named && best == PMS_KNOWN_MATCHES && ctx->cause &&
	    !strcmp(ctx->cause, "injected")) {
		/* The run was told to make this failure: there is no kernel bug to name. */
		cat(summary, len, &pos, "the failure was injected (--inject-*): no kernel bug "
		    "to match");
	} else if (!named && best == PMS_KNOWN_MATCHES) {
		size_t near = 0;

		/*
		 * Entries of this scenario on this kernel whose cause the
		 * evidence did not show: "possibly new" alone would hide them.
		 */
		cat(summary, len, &pos, "no known bug matches the evidence");
		for (i = 0; i < pms_known_nr; i++) {
			const struct pms_known *k = &pms_known_table[i];

			if (pms_known_fit(k, ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES &&
			    in_list(k->scenarios, ctx->scenario))
				cat(summary, len, &pos, "%s%s", near++ ? ", " :
				    " (on this kernel, in this scenario, without its cause: ", k->id);
		}
		cat(summary, len, &pos, "%s: possibly new", near ? ")" : "");
	} else if (!named) {
		cat(summary, len, &pos, "no known bug applies");
	}
	return arr;
nomem:
	json_object_put(arr);
	clear(summary, len);
	errno = ENOMEM;
	return NULL;
}
