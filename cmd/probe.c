// SPDX-License-Identifier: GPL-2.0-only
/* `pmustress probe [--json]`: the host block every result carries. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "pms-known.h"
#include "pms-probe.h"

static const char *s(json_object *o, const char *k1, const char *k2)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, k1, &v) || !v)
		return "-";
	if (k2 && (!json_object_object_get_ex(v, k2, &v) || !v))
		return "-";
	return json_object_get_string(v);
}

/* Which known kernel bugs this machine and kernel can show (no run needed). */
static void print_known(json_object *host)
{
	struct pms_known_ctx ctx = {
		.arch = s(host, "arch", NULL), .release = s(host, "kernel", "release"),
		.exclude_kernel = -1, .vhe = -1, .pseudo_nmi = -1,
	};
	const char *pmu = s(host, "core_pmu", NULL);
	json_object *list;
	char summary[512];
	size_t i;

	ctx.pmu_driver = strcmp(pmu, "-") ? pmu : NULL;
	list = pms_known_match_json(&ctx, summary, sizeof(summary));
	printf("known bugs:  %s\n", summary);
	for (i = 0; list && i < json_object_array_length(list); i++)
		printf("  %-34s %s\n", s(json_object_array_get_idx(list, i), "id", NULL),
		       s(json_object_array_get_idx(list, i), "why", NULL));
	json_object_put(list);
}

int cmd_probe(int argc, char **argv)
{
	struct pms_probe_cfg cfg = { "/sys", "/proc", true };
	bool as_json = false;
	json_object *host, *arr, *kinds;
	size_t i;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--json"))) {
		pms_err("probe takes only --json (got '%s')", argv[1]);
		return PMS_EXIT_USAGE;
	}
	as_json = argc == 2;
	host = pms_probe_host(&cfg);
	if (!host) {
		pms_err("probe failed: out of memory");
		return PMS_EXIT_SETUP;
	}
	if (as_json) {
		puts(json_object_to_json_string_ext(host, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(host);
		return 0;
	}
	printf("kernel:      %s (%s)\n", s(host, "kernel", "release"), s(host, "kernel", "version"));
	printf("arch:        %s\n", s(host, "arch", NULL));
	printf("cpu:         %s (midr %s), %s online\n", s(host, "cpu", "model"),
	       s(host, "cpu", "midr"), s(host, "cpu", "nr_cpus_online"));
	printf("core PMU:    %s\n", s(host, "core_pmu", NULL));
	printf("PMUs:       ");
	if (json_object_object_get_ex(host, "pmus", &arr))
		for (i = 0; i < json_object_array_length(arr); i++)
			printf(" %s(%s)", s(json_object_array_get_idx(arr, i), "name", NULL),
			       s(json_object_array_get_idx(arr, i), "type", NULL));
	printf("\nsysctl:      perf_event_paranoid=%s perf_event_max_sample_rate=%s "
	       "perf_cpu_time_max_percent=%s nmi_watchdog=%s\n",
	       s(host, "sysctl", "perf_event_paranoid"),
	       s(host, "sysctl", "perf_event_max_sample_rate"),
	       s(host, "sysctl", "perf_cpu_time_max_percent"), s(host, "sysctl", "nmi_watchdog"));
	printf("cmdline:     irqchip.gicv3_pseudo_nmi=%s\n",
	       s(host, "cmdline", "irqchip.gicv3_pseudo_nmi"));
	printf("hypervisor:  %s (%s)\n", s(host, "hypervisor", "detected"),
	       s(host, "hypervisor", "kind"));
	printf("topology:    %s packages, %s cores, %s PUs, cpuset %s\n",
	       s(host, "topology", "packages"), s(host, "topology", "cores"),
	       s(host, "topology", "pus"), s(host, "topology", "cpuset"));
	if (json_object_object_get_ex(host, "topology", &arr) && arr &&
	    json_object_object_get_ex(arr, "cpukinds", &kinds) && kinds)
		for (i = 0; i < json_object_array_length(kinds); i++)
			printf("  cpukind %zu: cpus %s efficiency %s\n", i,
			       s(json_object_array_get_idx(kinds, i), "cpuset", NULL),
			       s(json_object_array_get_idx(kinds, i), "efficiency", NULL));
	printf("tracefs:     %s %s\n", s(host, "tracefs", "available"), s(host, "tracefs", "path"));
	printf("pid ns:      inode %s, initial %s (NSpid levels %s)\n",
	       s(host, "pid_namespace", "inode"), s(host, "pid_namespace", "initial"),
	       s(host, "pid_namespace", "nspid_levels"));
	printf("kconfig:     CONFIG_PID_IN_CONTEXTIDR %s (%s)\n",
	       s(host, "config_pid_in_contextidr", "value"),
	       s(host, "config_pid_in_contextidr", "source"));
	if (json_object_object_get_ex(host, "spe", &arr) && arr) {
		size_t n = json_object_array_length(arr);

		if (!n)
			printf("spe:         none (no arm_spe PMU)\n");
		for (size_t i = 0; i < n; i++)
			printf("spe:         %s type %s\n", s(json_object_array_get_idx(arr, i),
							  "name", NULL),
			       s(json_object_array_get_idx(arr, i), "type", NULL));
	}
	if (json_object_object_get_ex(host, "features", &arr) && arr) {
		json_object_object_foreach(arr, key, val)
			printf("feature:     %-14s %-5s %s\n", key, s(val, "supported", NULL),
			       s(val, "detail", NULL));
	}
	print_known(host);
	json_object_put(host);
	return 0;
}
