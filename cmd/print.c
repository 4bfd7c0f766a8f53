// SPDX-License-Identifier: GPL-2.0-only
/*
 * The human summary, drawn from the result object alone, so that what a
 * person reads and what the JSON says cannot disagree.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "pms-util.h"

static const char *str(json_object *o, const char *path)
{
	json_object *v = pms_json_get(o, path);

	return v ? json_object_get_string(v) : "?";
}

static uint64_t u64(json_object *o, const char *path)
{
	json_object *v = pms_json_get(o, path);

	return v ? json_object_get_uint64(v) : 0;
}

static void print_attr(FILE *f, json_object *attr)
{
	static const char *const bits[] = {
		"exclude_user", "exclude_kernel", "exclude_hv", "exclude_idle", "exclude_host",
		"exclude_guest", "pinned", "use_clockid",
	};
	size_t i;

	fprintf(f, "  attr:     type=%s (%s) config=0x%" PRIx64 " sample_period=%" PRIu64
		" precise_ip=%" PRIu64, str(attr, "type"), str(attr, "type_name"),
		u64(attr, "config"), u64(attr, "sample_period"), u64(attr, "precise_ip"));
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (pms_json_get(attr, bits[i]) && json_object_get_boolean(pms_json_get(attr, bits[i])))
			fprintf(f, " %s", bits[i]);
	if (!strcmp(str(attr, "type_name"), "breakpoint"))
		fprintf(f, " bp_addr=%s", str(attr, "bp_addr"));
	fprintf(f, "\n");
}

static void print_histogram(FILE *f, json_object *hist)
{
	size_t i, n = hist ? json_object_array_length(hist) : 0;
	uint64_t max = 0;

	for (i = 0; i < n; i++) {
		uint64_t c = u64(json_object_array_get_idx(hist, i), "count");

		max = c > max ? c : max;
	}
	if (!n)
		return;
	fprintf(f, "  deltas in periods (bar: log scale):\n");
	for (i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(hist, i);
		uint64_t c = u64(b, "count");
		int w = c ? 1 + (int)(39.0 * log10((double)c) / (max > 1 ? log10((double)max) : 1)) : 0;
		char bar[48];

		memset(bar, '#', (size_t)w);
		bar[w] = '\0';
		fprintf(f, "    %-16s %10" PRIu64 " %s\n", str(b, "bin"), c, bar);
	}
}

/*
 * What a scenario adds in its own section (named after it): sub-tests with
 * a verdict and a finding, counted findings with whether each is judged,
 * and toggle rates.  Generic, so a new scenario prints without new code.
 */
static void print_scenario_section(FILE *f, json_object *r)
{
	char key[64];
	json_object *sec, *findings, *judged, *cases, *c;
	size_t i, n;

	snprintf(key, sizeof(key), "%s", str(r, "scenario"));
	for (i = 0; key[i]; i++)
		key[i] = key[i] == '-' ? '_' : key[i];
	if (!json_object_object_get_ex(r, key, &sec) || !json_object_is_type(sec, json_type_object))
		return;
	json_object_object_foreach(sec, name, val) {
		if (val && json_object_is_type(val, json_type_object) && pms_json_get(val, "verdict") &&
		    pms_json_get(val, "finding"))
			fprintf(f, "  %-14s %s: %s\n", name, str(val, "verdict"), str(val, "finding"));
	}
	cases = pms_json_get(sec, "abi.cases");
	n = cases ? json_object_array_length(cases) : 0;
	if (n)
		fprintf(f, "  %-29s %-12s %-12s %-10s %-10s %s\n", "aux_action case", "event",
			"leader", "seen", "expected", "result");
	for (i = 0; i < n; i++) {
		json_object *c = json_object_array_get_idx(cases, i);
		json_object *leader = pms_json_get(c, "leader"), *seen = pms_json_get(c, "seen");

		fprintf(f, "  %-29s %-12.*s %-12.*s %-10s %-10s %s\n", str(c, "name"),
			(int)strcspn(str(c, "pmu"), "/"), str(c, "pmu"),
			(int)strcspn(leader ? json_object_get_string(leader) : "-", "/"),
			leader ? json_object_get_string(leader) : "-",
			seen ? json_object_get_string(seen) : "-",
			pms_json_get(c, "expected") ? str(c, "expected") : "-", str(c, "result"));
	}
	findings = pms_json_get(sec, "findings");
	judged = pms_json_get(sec, "judged");
	if (findings && json_object_is_type(findings, json_type_object)) {
		fprintf(f, "  findings: ");
		json_object_object_foreach(findings, fname, fval) {
			json_object *j = judged ? pms_json_get(judged, fname) : NULL;

			fprintf(f, " %s %" PRIu64 "%s", fname, json_object_get_uint64(fval),
				j && !json_object_get_boolean(j) ? " (not judged)" : "");
		}
		fprintf(f, "\n");
	}
	if (pms_json_get(sec, "toggles_per_second"))
		fprintf(f, "  toggles:  %s DISABLE/ENABLE pairs (%.0f/s) by the %s toggler\n",
			str(sec, "toggles"), json_object_get_double(pms_json_get(sec, "toggles_per_second")),
			str(sec, "toggler"));
	c = pms_json_get(sec, "control");
	if (c && json_object_get_boolean(pms_json_get(c, "measured")))
		fprintf(f, "  control:  %.2f s without toggles first: %s lost of %s overflows; "
			"the storm %s of %s%s\n", json_object_get_double(pms_json_get(c, "seconds")),
			str(c, "lost"), str(c, "overflows"), str(c, "lost_with"),
			str(c, "overflows_with"), json_object_get_boolean(pms_json_get(c, "stands")) ?
			" (the storm stands as the cause)" : "");
	else if (c)
		fprintf(f, "  control:  none (--control 0, no toggle, or no final count)\n");
}

/* "FAIL", "ENVIRONMENT", ...: the verdict as the summary shouts it. */
static void upper_verdict(json_object *r, char *v, size_t len)
{
	size_t k;

	snprintf(v, len, "%s", str(r, "verdict"));
	for (k = 0; v[k]; k++)
		v[k] = (char)(v[k] >= 'a' && v[k] <= 'z' ? v[k] - 32 : v[k]);
}

void pms_print_result(FILE *f, json_object *r, long show)
{
	json_object *oracle = pms_json_get(r, "oracle"), *list, *host = pms_json_get(r, "host");
	char v[32];
	uint64_t period = u64(r, "counter.period"), tol = u64(r, "counter.tolerance");
	size_t i, n;

	upper_verdict(r, v, sizeof(v));
	{
		/* The first line says what kind of result this is. */
		fprintf(f, "pmustress %s: %s%s%s%s on kernel %s, %s, %s\n", str(r, "scenario"), v,
			pms_json_get(r, "failure_kind") ? " (" : "",
			pms_json_get(r, "failure_kind") ? str(r, "failure_kind") : "",
			pms_json_get(r, "failure_kind") ? ")" : "",
			str(host, "kernel.release"), str(host, "arch"), str(host, "cpu.model"));
	}
	if (pms_json_get(r, "counter")) {
		fprintf(f, "  counter:  %s on %s, period %" PRIu64 " +/- %" PRIu64 ", %s semantics\n",
			str(r, "counter.name"), str(r, "counter.pmu"), period, tol,
			str(r, "counter.semantics"));
		if (pms_json_get(r, "counter.substitute") &&
		    json_object_get_boolean(pms_json_get(r, "counter.substitute")))
			fprintf(f, "  SUBSTITUTE COUNTER: %s\n", str(r, "counter.substitute_reason"));
		print_attr(f, pms_json_get(r, "counter.attr"));
	}
	if (pms_json_get(r, "mover")) {
		if (json_object_get_boolean(pms_json_get(r, "mover.enabled")))
			fprintf(f, "  mover:    %s %s on CPUs %s: %" PRIu64 " rebinds (%.0f/s), %"
				PRIu64 " failed; migrations counted %s, scheduler %s\n",
				str(r, "mover.kind"), str(r, "mover.pattern"), str(r, "mover.cpus"),
				u64(r, "mover.rebinds_requested"),
				json_object_get_double(pms_json_get(r, "mover.rebinds_per_second")),
				u64(r, "mover.rebinds_failed"), str(r, "mover.migrations_counted"),
				str(r, "mover.migrations_sched"));
		else
			fprintf(f, "  mover:    off (control run on CPU %s); migrations counted %s\n",
				str(r, "mover.cpus"), str(r, "mover.migrations_counted"));
	}
	if (oracle) {
		fprintf(f, "  signals:  %" PRIu64 " for %s overflows implied by the final count %s\n",
			u64(oracle, "signals"), str(oracle, "overflows_implied"),
			str(r, "workload.final_count"));
		fprintf(f, "           ");
		{
			json_object *cls = pms_json_get(oracle, "classes");

			if (cls) {
				json_object_object_foreach(cls, key, val)
					fprintf(f, " %s %" PRIu64, key, json_object_get_uint64(val));
			}
		}
		fprintf(f, "  lost %" PRIu64 "  unsettled %" PRIu64 "\n", u64(oracle, "lost"),
			u64(oracle, "unsettled_tail"));
		/* Several counting threads: each one's CPUs and figures. */
		list = pms_json_get(r, "threads.list");
		n = list ? json_object_array_length(list) : 0;
		for (i = 0; n > 1 && i < n; i++) {
			json_object *t = json_object_array_get_idx(list, i);

			fprintf(f, "  thread %s (tid %s, CPUs %s): %" PRIu64 " signals, %" PRIu64
				" lost, %" PRIu64 " rebinds\n", str(t, "thread"), str(t, "tid"),
				str(t, "cpus"), u64(t, "signals"), u64(t, "lost"), u64(t, "rebinds"));
		}
		list = pms_json_get(oracle, "anomalies.list");
		n = list ? json_object_array_length(list) : 0;
		for (i = 0; i < n && (long)i < show; i++) {
			json_object *a = json_object_array_get_idx(list, i);

			fprintf(f, "  ");
			if (pms_json_get(a, "thread") && u64(r, "threads.count") > 1)
				fprintf(f, "thread %s, ", str(a, "thread"));
			fprintf(f, "Signal #%" PRIu64 ": delta of %s is outside %" PRIu64 " +/- %"
				PRIu64 " (%s", u64(a, "signal"), str(a, "delta"), period, tol,
				str(a, "class"));
			if (u64(a, "missing"))
				fprintf(f, ", %" PRIu64 " index(es) skipped", u64(a, "missing"));
			fprintf(f, ", cpu %s, si_code %s", str(a, "cpu"), str(a, "si_code"));
			if (pms_json_get(a, "since_rebind_ns"))
				fprintf(f, ", %.1f us after a move to CPU %s",
					(double)u64(a, "since_rebind_ns") / 1e3, str(a, "rebind_cpu"));
			fprintf(f, ")\n");
		}
		if (u64(oracle, "anomalies.total") > (uint64_t)(show < 0 ? 0 : show) &&
		    u64(oracle, "anomalies.total") > n)
			fprintf(f, "  ... %" PRIu64 " anomalies in all (%zu kept in the JSON)\n",
				u64(oracle, "anomalies.total"), n);
		else if (n > (size_t)show)
			fprintf(f, "  ... %zu anomalies in all (see the JSON)\n", n);
		print_histogram(f, pms_json_get(oracle, "histogram"));
		{
			json_object *ci = pms_json_get(oracle, "loss_rate.ci95");

			if (ci && json_object_array_length(ci) == 2)
				fprintf(f, "  loss rate %.3g, 95%% CI [%.3g, %.3g] (Wilson)\n",
					json_object_get_double(pms_json_get(oracle, "loss_rate.value")),
					json_object_get_double(json_object_array_get_idx(ci, 0)),
					json_object_get_double(json_object_array_get_idx(ci, 1)));
		}
	}
	if (pms_json_get(r, "attribution")) {
		/* Where the evidence came from, then what it says. */
		json_object *frac = pms_json_get(r, "multiplexing.running_fraction");

		if (json_object_get_boolean(pms_json_get(r, "trace.used")))
			fprintf(f, "  evidence: scheduler trace yes");
		else
			fprintf(f, "  evidence: scheduler trace no (%s)", str(r, "trace.why_not"));
		fprintf(f, "; THROTTLE records %s", str(r, "perf_records.throttle"));
		if (frac)
			fprintf(f, "; on the PMU %.1f%% of its enabled time",
				100.0 * json_object_get_double(frac));
		else if (pms_json_get(r, "multiplexing"))
			fprintf(f, "; on the PMU - of its enabled time");
		fprintf(f, "\n");
		fprintf(f, "  causes:   %s\n", str(r, "attribution.summary"));
	}
	print_scenario_section(f, r);
	if (pms_json_get(r, "interrupted") && json_object_get_boolean(pms_json_get(r, "interrupted")))
		fprintf(f, "  INTERRUPTED by %s: the result covers the run so far\n",
			str(r, "stop_signal"));
	fprintf(f, "%s: %s\n", v, str(r, "reason"));
}
