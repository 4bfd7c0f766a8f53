// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every scenario run shares: the common options and the wait that also
 * receives SIGINT/SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pms-counter.h"
#include "pms-known.h"
#include "pms-perf.h"
#include "pms-scenario.h"
#include "pms-thread.h"
#include "pms-util.h"

const struct pms_opt_desc pms_common_opts[] = {
	{ .name = "duration", .type = PMS_OPT_DURATION, .def = "10s", .min = 1000000,
	  .max = 86400 * NS_PER_S, .arg = "TIME", .help = "how long to count (10s, 500ms, 2m, 1h)" },
	{ .name = "event", .type = PMS_OPT_STRING, .arg = "SPEC",
	  .help = "perf-style event: cycles:u, r00c0, cpu/event=0x3c/, task-clock, breakpoint "
		  "(default: the scenario's hardware event, else the breakpoint substitute)" },
	{ .name = "exclude", .type = PMS_OPT_STRING, .arg = "LIST",
	  .help = "set exactly these exclude_* bits: user,kernel,hv,host,guest,idle or none "
		  "(default: kernel,guest as rr uses, unless the event has modifiers)" },
	{ .name = "period", .type = PMS_OPT_U64, .min = 1, .max = 1ull << 62, .arg = "N",
	  .help = "sample period P (default: 10000; 100 on the breakpoint substitute)" },
	{ .name = "tolerance", .type = PMS_OPT_STRING, .def = "10%", .arg = "N|PCT%",
	  .help = "a delta within P +/- tolerance is on time (count or percent of P)" },
	{ .name = "watchdog", .type = PMS_OPT_DURATION, .def = "5s", .min = 100000000,
	  .max = 3600 * NS_PER_S, .arg = "TIME",
	  .help = "end the run if no signal comes for this long while the counter passes 2P" },
	{ .name = "max-signals", .type = PMS_OPT_U64, .def = "4000000", .min = 1000,
	  .max = 1ull << 30, .arg = "N", .help = "signals stored (32 bytes each, prefaulted)" },
	{ .name = "max-anomalies", .type = PMS_OPT_U64, .def = "1000", .min = 0,
	  .max = 1000000, .arg = "N", .help = "anomalies kept in the JSON (the total is always counted)" },
	{ .name = "show-anomalies", .type = PMS_OPT_U64, .def = "20", .min = 0,
	  .max = 1000000, .arg = "N", .help = "anomalies printed in the human summary" },
	{ .name = "json", .type = PMS_OPT_STRING, .arg = "PATH|-",
	  .help = "where to write the result (default results/SCENARIO-KERNEL-UTC.json; - stdout)" },
	{ .name = "quiet", .type = PMS_OPT_FLAG, .help = "no human summary, no progress line" },
};
const size_t pms_nr_common_opts = PMS_ARRAY_SIZE(pms_common_opts);

bool pms_run_wait(struct pms_run *run, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S) };
	sigset_t set;
	int sig;

	if (run->interrupted)
		return true;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sig = sigtimedwait(&set, NULL, &ts);
	if (sig > 0) {
		run->interrupted = true;
		run->stop_signal = sig;
	}
	return run->interrupted;
}

void pms_run_append_reason(struct pms_run *run, const char *fmt, ...)
{
	size_t len = strlen(run->reason);
	va_list ap;

	if (len + 2 >= sizeof(run->reason))
		return;
	if (len) {
		memcpy(run->reason + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(run->reason + len, sizeof(run->reason) - len, fmt, ap);
	va_end(ap);
}

enum pms_status pms_run_recorder(struct pms_run *run, struct pms_recorder *rec, int signo)
{
	int ret = pms_recorder_init(rec, pms_opt_u64(&run->opts, "max-signals"), signo);

	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot set up the signal recorder: %s",
			 strerror(-ret));
		return PMS_E_SETUP;
	}
	/* Options the scenario does not have read as 0: no injection. */
	rec->inject_drop_every = pms_opt_u64(&run->opts, "inject-drop-every");
	rec->inject_stop_after = pms_opt_u64(&run->opts, "inject-stop-after");
	return PMS_OK;
}

const char *pms_host_str(json_object *host, const char *a, const char *b)
{
	json_object *o, *v;

	if (!host || !json_object_object_get_ex(host, a, &o) ||
	    !json_object_object_get_ex(o, b, &v) || !v || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

enum pms_status pms_run_workload(struct pms_run *run, struct pms_workload *w,
				 const struct pms_event *ev)
{
	int ret = pms_workload_init(w, pms_workload_for(ev));

	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot set up the workload: %s",
			 strerror(-ret));
		return PMS_E_SETUP;
	}
	return PMS_OK;
}

enum pms_status pms_run_thread(struct pms_run *run, struct pms_thread *t, void *(*fn)(void *),
			       void *arg, const char *what)
{
	int ret = pms_thread_start(t, fn, arg);

	if (ret) {
		snprintf(run->reason, sizeof(run->reason), "cannot start the %s: %s", what,
			 strerror(ret));
		return PMS_E_SETUP;
	}
	return PMS_OK;
}

static void known_issues(struct pms_run *run, const char *cause, int exclude_kernel,
			 bool sigtrap, const char *pmu_driver)
{
	struct pms_known_ctx ctx = {
		.arch = run->arch, .scenario = run->sc->name, .cause = cause,
		.exclude_kernel = exclude_kernel, .vhe = -1, .pseudo_nmi = -1,
		.sigtrap = sigtrap,
	};
	json_object *k, *pmu;
	char summary[512];

	if (json_object_object_get_ex(run->host, "kernel", &k) &&
	    json_object_object_get_ex(k, "release", &k))
		ctx.release = json_object_get_string(k);
	if (pmu_driver)
		ctx.pmu_driver = pmu_driver;
	else if (json_object_object_get_ex(run->host, "core_pmu", &pmu) && pmu)
		ctx.pmu_driver = json_object_get_string(pmu);
	json_object_object_add(run->result, "known_issues",
			       pms_known_match_json(&ctx, summary, sizeof(summary)));
	if (run->verdict == PMS_VERDICT_FAIL)
		pms_run_append_reason(run, "%s", summary);
}

void pms_run_known_issues(struct pms_run *run, const char *cause, int exclude_kernel)
{
	known_issues(run, cause, exclude_kernel, false, NULL);
}

void pms_run_known_issues_pmu(struct pms_run *run, const char *cause, int exclude_kernel,
			      const char *pmu)
{
	known_issues(run, cause, exclude_kernel, false, pmu);
}

void pms_run_known_issues_sigtrap(struct pms_run *run, const char *cause, int exclude_kernel)
{
	known_issues(run, cause, exclude_kernel, true, NULL);
}

const char *pms_verdict_name(enum pms_verdict v)
{
	switch (v) {
	case PMS_VERDICT_PASS: return "pass";
	case PMS_VERDICT_FAIL: return "fail";
	case PMS_VERDICT_SKIP: return "skip";
	case PMS_VERDICT_ERROR: return "error";
	case PMS_VERDICT_ENVIRONMENT: return "environment";
	}
	return "?";
}

int pms_parse_tolerance(const char *text, uint64_t period, uint64_t *tol)
{
	size_t len = strlen(text);
	uint64_t v;

	if (len > 1 && text[len - 1] == '%') {
		char num[32], *end;
		double pct;

		if (len >= sizeof(num))
			return -EINVAL;
		memcpy(num, text, len - 1);
		num[len - 1] = '\0';
		errno = 0;
		pct = strtod(num, &end);
		if (errno || *end || end == num || !isfinite(pct) || pct < 0 || pct >= 100)
			return -EINVAL;
		v = (uint64_t)floor((double)period * pct / 100.0);
	} else if (pms_parse_u64(text, &v)) {
		return -EINVAL;
	}
	if (v >= period)
		return -EINVAL;
	*tol = v;
	return 0;
}

/* "SigQ:\tPENDING/LIMIT" of /proc/self/status: the uid's queue. */
static int read_sigq(long long *pending, long long *limit)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	int ret = -ENOENT;

	*pending = *limit = -1;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigQ: %lld/%lld", pending, limit) == 2) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

static long long rlim_ll(rlim_t r)
{
	return r == RLIM_INFINITY ? -1 : (long long)r;
}

/* Another process of the uid holds 90% of the queue or more. */
static bool sigq_nearly_full(const struct pms_run *run)
{
	return run->sigq_limit_start > 0 &&
	       run->sigq_pending_start * 10 >= run->sigq_limit_start * 9;
}

bool pms_run_sigq_begin(struct pms_run *run)
{
	struct rlimit rl;

	run->sigpending_soft_before = run->sigpending_soft = run->sigpending_hard = -1;
	if (!getrlimit(RLIMIT_SIGPENDING, &rl)) {
		run->sigpending_soft_before = rlim_ll(rl.rlim_cur);
		run->sigpending_hard = rlim_ll(rl.rlim_max);
		if (rl.rlim_cur != rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_SIGPENDING, &rl);
			getrlimit(RLIMIT_SIGPENDING, &rl);
		}
		run->sigpending_soft = rlim_ll(rl.rlim_cur);
	}
	read_sigq(&run->sigq_pending_start, &run->sigq_limit_start);
	return sigq_nearly_full(run);
}

json_object *pms_run_sigq_end(const struct pms_run *run)
{
	json_object *o = json_object_new_object();
	long long pending, limit;

	read_sigq(&pending, &limit);
#define LL(v) ((v) >= 0 ? json_object_new_int64(v) : NULL)
	json_object_object_add(o, "rlimit_sigpending_soft_before", LL(run->sigpending_soft_before));
	json_object_object_add(o, "rlimit_sigpending_soft", LL(run->sigpending_soft));
	json_object_object_add(o, "rlimit_sigpending_hard", LL(run->sigpending_hard));
	json_object_object_add(o, "pending_at_start", LL(run->sigq_pending_start));
	json_object_object_add(o, "limit_at_start", LL(run->sigq_limit_start));
	json_object_object_add(o, "pending_at_end", LL(pending));
	json_object_object_add(o, "nearly_full_at_start",
			       json_object_new_boolean(sigq_nearly_full(run)));
#undef LL
	return o;
}
