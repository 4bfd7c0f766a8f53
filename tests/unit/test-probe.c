/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host probe against fake sysfs/procfs trees (no PMU, no root needed),
 * then once against this machine with only assertions that hold on any
 * Linux host.
 *
 * Usage: test-probe [FIXTURES_DIR]; else $PMS_FIXTURES; else tests/fixtures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pms-probe.h"
#include "tap.h"
#include "json-path.h"


/* A key holding JSON null, as opposed to a missing key. */
static bool is_null_member(json_object *o, const char *path)
{
	char buf[256], *dot;
	json_object *parent = o, *v;

	snprintf(buf, sizeof(buf), "%s", path);
	dot = strrchr(buf, '.');
	if (dot) {
		*dot = '\0';
		parent = jget(o, buf);
	}
	return parent && json_object_object_get_ex(parent, dot ? dot + 1 : buf, &v) && !v;
}

static const char *jstrv(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static long long jintv(json_object *o, const char *path, long long dflt)
{
	json_object *v = jget(o, path);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : dflt;
}

/* -1 missing or not a bool. */
static int jboolv(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v && json_object_is_type(v, json_type_boolean) ? json_object_get_boolean(v) : -1;
}

/* The key has a dot in it, so jget() cannot walk to it. */
static const char *gicv3_nmi(json_object *root)
{
	json_object *v;

	if (!json_object_object_get_ex(jget(root, "cmdline"), "irqchip.gicv3_pseudo_nmi", &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static json_object *pmu_by_name(json_object *root, const char *name)
{
	json_object *pmus = jget(root, "pmus");
	size_t i;

	if (!pmus || !json_object_is_type(pmus, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(pmus); i++) {
		json_object *p = json_object_array_get_idx(pmus, i);
		const char *n = jstrv(p, "name");

		if (n && !strcmp(n, name))
			return p;
	}
	return NULL;
}

static bool array_has_substr(json_object *arr, const char *needle)
{
	size_t i;

	if (!arr || !json_object_is_type(arr, json_type_array))
		return false;
	for (i = 0; i < json_object_array_length(arr); i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(arr, i));

		if (s && strstr(s, needle))
			return true;
	}
	return false;
}

/* Create @rel below @root with @len bytes of @data, making every missing directory. */
static int mkfile(const char *root, const char *rel, const char *data, size_t len)
{
	char path[PATH_MAX], *p;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -1;
	for (p = path + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

#define MK(root, rel, s) mkfile(root, rel, s, strlen(s))

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static json_object *probe_tree(const char *base)
{
	char sys[PATH_MAX], proc[PATH_MAX];
	struct pms_probe_cfg cfg = { .sysfs_root = sys, .procfs_root = proc };

	snprintf(sys, sizeof(sys), "%s/sys", base);
	snprintf(proc, sizeof(proc), "%s/proc", base);
	return pms_probe_host(&cfg);
}

static void test_arm64_fixture(const char *fixtures)
{
	char base[PATH_MAX / 2], sys[PATH_MAX], name[64];
	json_object *root, *p;
	const char *t;

	snprintf(base, sizeof(base), "%s/probe-arm64", fixtures);
	snprintf(sys, sizeof(sys), "%s/sys", base);
	root = probe_tree(base);
	if (!ok(root != NULL, "arm64 fixture: probe returns an object")) {
		printf("#   fixture %s: %s\n", base, strerror(errno));
		return;
	}

	is_str(jstrv(root, "kernel.release"), "6.1.0-56-arm64",
	       "arm64: kernel.release from fake osrelease");
	is_str(jstrv(root, "kernel.version"), "#1 SMP Debian 6.1.192-1",
	       "arm64: kernel.version from fake tree");
	is_str(jstrv(root, "arch"), "aarch64", "arm64: arch from fake proc/sys/kernel/arch");

	is_str(jstrv(root, "cpu.midr"), "0x00000000410fd083", "arm64: cpu.midr");
	is_str(jstrv(root, "cpu.model"), "Cortex-A72", "arm64: MIDR part 0xd08 is Cortex-A72");
	is_str(jstrv(root, "cpu.vendor"), "ARM", "arm64: implementer 0x41 is ARM");
	is_u64(jintv(root, "cpu.nr_cpus_online", -1), 2, "arm64: 2 CPUs online");

	p = jget(root, "pmus");
	is_u64(p && json_object_is_type(p, json_type_array) ? json_object_array_length(p) : 0, 4,
	       "arm64: four PMUs listed");
	is_str(jstrv(root, "pmus.0.name"), "armv8_pmuv3_0",
	       "arm64: pmus sorted, armv8_pmuv3_0 first");
	is_str(jstrv(root, "pmus.3.name"), "tracepoint", "arm64: pmus sorted, tracepoint last");
	is_u64(jintv(pmu_by_name(root, "armv8_pmuv3_0"), "type", -1), 8,
	       "arm64: armv8_pmuv3_0 type 8");
	is_u64(jintv(pmu_by_name(root, "software"), "type", -1), 1, "arm64: software type 1");
	is_u64(jintv(pmu_by_name(root, "tracepoint"), "type", -1), 2, "arm64: tracepoint type 2");
	is_u64(jintv(pmu_by_name(root, "breakpoint"), "type", -1), 5, "arm64: breakpoint type 5");
	is_u64(jboolv(pmu_by_name(root, "armv8_pmuv3_0"), "core"), 1,
	       "arm64: armv8_pmuv3_0 is core");
	is_u64(jboolv(pmu_by_name(root, "software"), "core"), 0, "arm64: software is not core");
	is_str(jstrv(pmu_by_name(root, "armv8_pmuv3_0"), "caps.slots"), "0x00000000",
	       "arm64: caps/slots read without its newline");
	p = jget(pmu_by_name(root, "breakpoint"), "caps");
	ok(p && json_object_is_type(p, json_type_object) && !json_object_object_length(p),
	   "arm64: a PMU without caps/ gets an empty caps object");
	is_u64(jboolv(root, "hardware_pmu"), 1, "arm64: hardware_pmu true");
	is_str(jstrv(root, "core_pmu"), "armv8_pmuv3_0", "arm64: core_pmu");

	is_u64(jintv(root, "sysctl.perf_event_paranoid", -99), 2, "arm64: perf_event_paranoid");
	is_u64(jintv(root, "sysctl.perf_event_max_sample_rate", -99), 100000,
	       "arm64: perf_event_max_sample_rate");
	is_u64(jintv(root, "sysctl.perf_cpu_time_max_percent", -99), 25,
	       "arm64: perf_cpu_time_max_percent");
	is_u64(jintv(root, "sysctl.nmi_watchdog", -99), 0, "arm64: nmi_watchdog");

	is_str(jstrv(root, "cmdline.raw"), "console=ttyAMA0 irqchip.gicv3_pseudo_nmi=1 -- run",
	       "arm64: cmdline.raw without newline");
	is_str(gicv3_nmi(root), "1", "arm64: cmdline irqchip.gicv3_pseudo_nmi");
	ok(is_null_member(root, "cmdline.nosmt") && is_null_member(root, "cmdline.mitigations") &&
	   is_null_member(root, "cmdline.isolcpus"),
	   "arm64: absent cmdline parameters are null");

	is_u64(jboolv(root, "hypervisor.detected"), 1, "arm64: hypervisor detected");
	is_str(jstrv(root, "hypervisor.kind"), "qemu", "arm64: dummy-virt means qemu");
	ok(array_has_substr(jget(root, "hypervisor.evidence"), "linux,dummy-virt"),
	   "arm64: evidence names the devicetree compatible");
	is_u64(jboolv(root, "emulated"), 1, "arm64: dummy-virt without KVM signs guessed emulated");
	ok(array_has_substr(jget(root, "emulated_evidence"), "best guess"),
	   "arm64: emulated_evidence says it is a guess");
	ok(array_has_substr(jget(root, "emulated_evidence"), "BogoMIPS 125.00"),
	   "arm64: emulated_evidence cites the 62.5 MHz timer");

	ok(is_null_member(root, "topology"), "arm64: topology null on a fake root");
	ok(is_null_member(root, "tracefs"), "arm64: tracefs null on a fake root");
	ok(!jget(root, "features"), "arm64: no features without feature_probes");
	t = jstrv(root, "probe_time_utc");
	ok(t && strlen(t) == 20 && t[4] == '-' && t[10] == 'T' && t[19] == 'Z',
	   "arm64: probe_time_utc is ISO 8601 UTC (%s)", t ? t : "null");
	json_object_put(root);

	memset(name, 'x', sizeof(name));
	ok(pms_probe_has_core_pmu(sys, name, sizeof(name)), "arm64: pms_probe_has_core_pmu true");
	is_str(name, "armv8_pmuv3_0", "arm64: pms_probe_has_core_pmu names it");
	ok(pms_probe_has_core_pmu(sys, name, 6) && !strcmp(name, "armv8"),
	   "arm64: pms_probe_has_core_pmu truncates to len");
	ok(pms_probe_has_core_pmu(sys, NULL, 0), "arm64: pms_probe_has_core_pmu with name NULL");
}

/* Only software and breakpoint PMUs, nothing else: every member must be null or false. */
static void test_nopmu(const char *tmp)
{
	char base[PATH_MAX / 2], sys[PATH_MAX], name[64];
	json_object *root;

	snprintf(base, sizeof(base), "%s/nopmu", tmp);
	snprintf(sys, sizeof(sys), "%s/sys", base);
	if (MK(base, "sys/bus/event_source/devices/software/type", "1\n") ||
	    MK(base, "sys/bus/event_source/devices/breakpoint/type", "5\n") ||
	    mkfile(base, "proc/.keep", "", 0)) {
		ok(0, "nopmu: build fake tree");
		return;
	}

	strcpy(name, "stale");
	ok(!pms_probe_has_core_pmu(sys, name, sizeof(name)), "nopmu: pms_probe_has_core_pmu false");
	is_str(name, "", "nopmu: name cleared when none is found");
	ok(!pms_probe_has_core_pmu("/nonexistent-pms", name, sizeof(name)),
	   "nopmu: missing sysfs root is no core PMU");

	root = probe_tree(base);
	if (!ok(root != NULL, "nopmu: probe survives a near-empty tree"))
		return;
	is_u64(jboolv(root, "hardware_pmu"), 0, "nopmu: hardware_pmu false");
	ok(is_null_member(root, "core_pmu"), "nopmu: core_pmu null");
	ok(is_null_member(root, "kernel.release") && is_null_member(root, "arch"),
	   "nopmu: no osrelease/arch in the fake tree gives null, not the host's");
	ok(is_null_member(root, "cpu.midr") && is_null_member(root, "cpu.model") &&
	   is_null_member(root, "cpu.nr_cpus_online"), "nopmu: cpu members null");
	ok(is_null_member(root, "sysctl.perf_event_paranoid") &&
	   is_null_member(root, "sysctl.nmi_watchdog"), "nopmu: sysctl members null");
	ok(is_null_member(root, "cmdline.raw") && is_null_member(root, "cmdline.isolcpus"),
	   "nopmu: cmdline members null");
	is_u64(jboolv(root, "hypervisor.detected"), 0, "nopmu: no hypervisor evidence");
	ok(is_null_member(root, "hypervisor.kind"), "nopmu: hypervisor.kind null");
	is_u64(jboolv(root, "emulated"), 0, "nopmu: not emulated");
	json_object_put(root);
}

/* An x86 QEMU/TCG-looking guest with a hybrid-style PMU set. */
static void test_x86(const char *tmp)
{
	char base[PATH_MAX / 2], sys[PATH_MAX], name[64];
	json_object *root;

	snprintf(base, sizeof(base), "%s/x86", tmp);
	snprintf(sys, sizeof(sys), "%s/sys", base);
	if (MK(base, "sys/bus/event_source/devices/cpu_core/type", "4\n") ||
	    MK(base, "sys/bus/event_source/devices/cpu_core/cpus", "0-7\n") ||
	    MK(base, "sys/bus/event_source/devices/cpu_core/caps/pmu_name", "alderlake_hybrid\n") ||
	    MK(base, "sys/bus/event_source/devices/cpu_core/caps/branches", "32\n") ||
	    MK(base, "sys/bus/event_source/devices/cpu_atom/type", "10\n") ||
	    MK(base, "sys/bus/event_source/devices/uncore_imc_0/cpus", "0\n") ||
	    MK(base, "sys/bus/event_source/devices/uncore_imc_0/events/cpu-cycles", "x\n") ||
	    MK(base, "sys/bus/event_source/devices/uncore_imc_0/type", "14\n") ||
	    MK(base, "sys/bus/event_source/devices/power/type", "15\n") ||
	    MK(base, "sys/bus/event_source/devices/software/type", "1\n") ||
	    MK(base, "sys/bus/event_source/devices/nohex/type", "junk\n") ||
	    MK(base, "sys/class/dmi/id/sys_vendor", "QEMU\n") ||
	    MK(base, "sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n") ||
	    MK(base, "proc/cpuinfo",
	       "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM) "
	       "i7-12700\nflags\t\t: fpu vme tsc hypervisor lahf_lm\n\n") ||
	    MK(base, "proc/cmdline",
	       "BOOT_IMAGE=/vmlinuz isolcpus=\"1-3\" nohz-full=1-3 nosmt mitigations=auto "
	       "mitigations=off "
	       "irqchip.gicv3_pseudo_nmi=0 nmi_watchdog=0 -- irqchip.gicv3_pseudo_nmi=1\n")) {
		ok(0, "x86: build fake tree");
		return;
	}

	root = probe_tree(base);
	if (!ok(root != NULL, "x86: probe returns an object"))
		return;
	is_str(jstrv(root, "core_pmu"), "cpu_atom", "x86: hybrid core_pmu is the first core PMU");
	is_u64(jboolv(pmu_by_name(root, "cpu_core"), "core"), 1, "x86: cpu_core is core");
	is_u64(jboolv(pmu_by_name(root, "uncore_imc_0"), "core"), 0,
	       "x86: uncore_* never core, even with cpus and cpu-cycles");
	is_str(jstrv(pmu_by_name(root, "cpu_core"), "caps.pmu_name"), "alderlake_hybrid",
	       "x86: caps read");
	ok(is_null_member(pmu_by_name(root, "nohex"), "type"), "x86: unparsable type is null");
	is_str(jstrv(root, "cpu.model"), "Intel(R) Core(TM) i7-12700", "x86: model name");
	is_str(jstrv(root, "cpu.vendor"), "GenuineIntel", "x86: vendor_id");
	ok(is_null_member(root, "cpu.midr"), "x86: no midr");
	is_str(jstrv(root, "hypervisor.kind"), "qemu", "x86: DMI QEMU is qemu");
	ok(array_has_substr(jget(root, "hypervisor.evidence"), "cpuinfo flags: hypervisor"),
	   "x86: cpuinfo hypervisor flag is evidence");
	is_u64(jboolv(root, "emulated"), 0, "x86: DMI alone does not claim emulation");
	is_str(gicv3_nmi(root), "0", "x86: parameters after -- belong to init");
	is_str(jstrv(root, "cmdline.isolcpus"), "1-3", "x86: quoted value unquoted");
	is_str(jstrv(root, "cmdline.nohz_full"), "1-3", "x86: nohz-full matches nohz_full");
	is_str(jstrv(root, "cmdline.nosmt"), "", "x86: bare flag is an empty string");
	is_str(jstrv(root, "cmdline.mitigations"), "off", "x86: the last mitigations= wins");
	is_str(jstrv(root, "cmdline.nmi_watchdog"), "0", "x86: nmi_watchdog on cmdline");
	json_object_put(root);

	ok(pms_probe_has_core_pmu(sys, name, sizeof(name)) && !strcmp(name, "cpu_atom"),
	   "x86: pms_probe_has_core_pmu agrees with core_pmu");
}

/*
 * An arm64 KVM guest on QEMU's virt board: the KVM PTP clock must outrank
 * dummy-virt and stop the emulation guess.  cpu0 is offline, so the MIDR
 * comes from the first online CPU; one PMU is core only by the cpus +
 * cpu_cycles rule.
 */
static void test_arm64_kvm(const char *tmp)
{
	char base[PATH_MAX / 2], sys[PATH_MAX], name[64];
	json_object *root;

	snprintf(base, sizeof(base), "%s/arm64-kvm", tmp);
	snprintf(sys, sizeof(sys), "%s/sys", base);
	if (MK(base, "sys/bus/event_source/devices/foo_pmu/type", "11\n") ||
	    MK(base, "sys/bus/event_source/devices/foo_pmu/cpus", "1-2,4\n") ||
	    MK(base, "sys/bus/event_source/devices/foo_pmu/events/cpu_cycles", "event=0x11\n") ||
	    MK(base, "sys/bus/event_source/devices/bar_pmu/type", "12\n") ||
	    MK(base, "sys/bus/event_source/devices/bar_pmu/cpus", "0\n") ||
	    MK(base, "sys/bus/event_source/devices/bar_pmu/events/cycles", "event=0x1\n") ||
	    MK(base, "sys/devices/system/cpu/online", "1-2,4\n") ||
	    MK(base, "sys/devices/system/cpu/cpu1/regs/identification/midr_el1",
	       "0x00000000414fd0b1\n") ||
	    mkfile(base, "sys/firmware/devicetree/base/compatible", "linux,dummy-virt", 17) ||
	    MK(base, "sys/class/ptp/ptp0/clock_name", "KVM virtual PTP\n") ||
	    MK(base, "proc/cpuinfo", "processor\t: 1\nBogoMIPS\t: 50.00\n\n")) {
		ok(0, "arm64-kvm: build fake tree");
		return;
	}

	root = probe_tree(base);
	if (!ok(root != NULL, "arm64-kvm: probe returns an object"))
		return;
	is_u64(jintv(root, "cpu.nr_cpus_online", -1), 3, "arm64-kvm: online list with a gap");
	is_str(jstrv(root, "cpu.model"), "Cortex-A76", "arm64-kvm: MIDR of first online CPU");
	is_str(jstrv(root, "core_pmu"), "foo_pmu", "arm64-kvm: cpus + cpu_cycles makes a core PMU");
	is_u64(jboolv(pmu_by_name(root, "bar_pmu"), "core"), 0,
	       "arm64-kvm: cpus + plain cycles does not");
	is_str(jstrv(root, "hypervisor.kind"), "kvm",
	       "arm64-kvm: KVM PTP clock outranks dummy-virt");
	ok(array_has_substr(jget(root, "hypervisor.evidence"), "KVM virtual PTP") &&
	   array_has_substr(jget(root, "hypervisor.evidence"), "dummy-virt"),
	   "arm64-kvm: both pieces of evidence kept");
	is_u64(jboolv(root, "emulated"), 0, "arm64-kvm: KVM evidence means not emulated");
	ok(!array_has_substr(jget(root, "emulated_evidence"), "BogoMIPS"),
	   "arm64-kvm: timer hint only backs an emulation guess");
	json_object_put(root);

	ok(pms_probe_has_core_pmu(sys, name, sizeof(name)) && !strcmp(name, "foo_pmu"),
	   "arm64-kvm: pms_probe_has_core_pmu uses the same rule");
}

/* Xen's devicetree hypervisor node, and x86 kvm-clock outranking DMI "QEMU". */
static void test_xen_and_kvmclock(const char *tmp)
{
	static const char xen_compat[] = "xen,xen-4.17\0xen,xen";
	char base[PATH_MAX / 2];
	json_object *root;

	snprintf(base, sizeof(base), "%s/arm64-xen", tmp);
	if (mkfile(base, "sys/firmware/devicetree/base/hypervisor/compatible", xen_compat,
		   sizeof(xen_compat)) ||
	    mkfile(base, "proc/.keep", "", 0)) {
		ok(0, "arm64-xen: build fake tree");
	} else {
		root = probe_tree(base);
		is_str(jstrv(root, "hypervisor.kind"), "xen", "arm64-xen: devicetree xen,xen");
		ok(array_has_substr(jget(root, "hypervisor.evidence"), "xen,xen-4.17,xen,xen"),
		   "arm64-xen: NUL-separated compatible shown joined");
		is_u64(jboolv(root, "emulated"), 0, "arm64-xen: not emulated");
		json_object_put(root);
	}

	snprintf(base, sizeof(base), "%s/x86-kvm", tmp);
	if (MK(base, "sys/devices/system/clocksource/clocksource0/available_clocksource",
	       "tsc kvm-clock acpi_pm \n") ||
	    MK(base, "sys/class/dmi/id/sys_vendor", "QEMU\n") ||
	    MK(base, "sys/class/dmi/id/product_name", "Standard PC (i440FX + PIIX, 1996)\n") ||
	    mkfile(base, "proc/.keep", "", 0)) {
		ok(0, "x86-kvm: build fake tree");
		return;
	}
	root = probe_tree(base);
	is_str(jstrv(root, "hypervisor.kind"), "kvm", "x86-kvm: kvm-clock outranks DMI QEMU");
	is_u64(jboolv(root, "hypervisor.detected"), 1, "x86-kvm: detected");
	json_object_put(root);
}

/* MIDR decoding: table hit, other implementer, and the cpuinfo-only fallback. */
static void test_midr(const char *tmp)
{
	static const struct {
		const char *dir, *midr, *cpuinfo, *model, *vendor;
	} cases[] = {
		{ "n1", "0x00000000413fd0c1\n", NULL, "Neoverse-N1", "ARM" },
		{ "v2", "0x00000000410fd4f0\n", NULL, "Neoverse-V2", "ARM" },
		{ "apple", "0x00000000611f0221\n", NULL, "implementer 0x61 part 0x022", "Apple" },
		{ "noregs", NULL, "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0b\n",
		  "Cortex-A76", "ARM" },
	};
	char base[PATH_MAX / 2], msg[128];
	json_object *root;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(base, sizeof(base), "%s/midr-%s", tmp, cases[i].dir);
		if ((cases[i].midr &&
		     MK(base, "sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
			cases[i].midr)) ||
		    MK(base, "proc/cpuinfo", cases[i].cpuinfo ? cases[i].cpuinfo : "")) {
			ok(0, "midr %s: build fake tree", cases[i].dir);
			continue;
		}
		root = probe_tree(base);
		snprintf(msg, sizeof(msg), "midr %s: model", cases[i].dir);
		is_str(jstrv(root, "cpu.model"), cases[i].model, msg);
		snprintf(msg, sizeof(msg), "midr %s: vendor", cases[i].dir);
		is_str(jstrv(root, "cpu.vendor"), cases[i].vendor, msg);
		json_object_put(root);
	}
}

/* The running machine: only what holds on every Linux host. */
static void test_live(void)
{
	struct pms_probe_cfg cfg = {
		.sysfs_root = "/sys", .procfs_root = "/proc", .feature_probes = true,
	};
	static const char *const feats[] = {
		"sigtrap", "aux_action", "exclude_host", "hw_breakpoint", "use_clockid",
	};
	json_object *root, *v;
	struct utsname u;
	bool shaped = true;
	size_t i;

	root = pms_probe_host(&cfg);
	if (!ok(root != NULL, "live: probe returns an object"))
		return;
	if (getenv("PMS_PROBE_DUMP"))
		printf("# %s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));

	uname(&u);
	is_str(jstrv(root, "kernel.release"), u.release, "live: kernel.release matches uname");
	is_str(jstrv(root, "arch"), u.machine, "live: arch matches uname");
	ok(pmu_by_name(root, "software") != NULL, "live: pmus contains software");
	is_u64(jintv(pmu_by_name(root, "software"), "type", -1), 1,
	       "live: software PMU type is PERF_TYPE_SOFTWARE");
	is_u64(jboolv(root, "features.use_clockid.supported"), 1,
	       "live: use_clockid supported");
	ok(jintv(root, "topology.pus", 0) >= 1, "live: topology.pus >= 1");
	v = jget(root, "topology.cpukinds");
	ok(v && json_object_is_type(v, json_type_array) && json_object_array_length(v) >= 1,
	   "live: at least one cpukind");
	for (i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		char p[64];

		snprintf(p, sizeof(p), "features.%s.detail", feats[i]);
		if (!jstrv(root, p))
			shaped = false;
	}
	ok(shaped, "live: every feature has a detail sentence");
	if (jboolv(root, "hardware_pmu") == 0)
		ok(is_null_member(root, "features.exclude_host.supported"),
		   "live: exclude_host unknown without a hardware PMU");
	else
		ok(jget(root, "features.exclude_host") != NULL, "live: exclude_host probed");
	json_object_put(root);
}

/*
 * The running kernel's configuration, when this machine has one: an option
 * found in its first lines (the read must still go to the end, or gzip dies
 * of SIGPIPE and a found option reads as "no configuration"), one that is
 * not set, and the hash of the same text.
 */
static void test_kconfig(void)
{
	char src[4096], src2[4096], hex[65], boot[300];
	struct utsname u;
	int first;

	snprintf(boot, sizeof(boot), "/boot/config-%s", uname(&u) ? "?" : u.release);
	if (access(boot, R_OK) && access("/proc/config.gz", R_OK)) {
		ok(1, "# SKIP no %s nor /proc/config.gz here", boot);
		return;
	}
	first = pms_kconfig("CONFIG_CC_VERSION_TEXT", src, sizeof(src));
	ok(first == 1 || first == 0, "an option near the top is read (%d from %s)", first, src);
	ok(pms_kconfig("CONFIG_NO_SUCH_OPTION_PMS", src, sizeof(src)) == 0,
	   "an absent option: 0, not an error");
	ok(!pms_kconfig_sha256(hex, src2, sizeof(src2)) && strlen(hex) == 64 && !strcmp(src, src2),
	   "the configuration's hash, from the same file (%s)", src2);
}

int main(int argc, char **argv)
{
	const char *fixtures = argc > 1 ? argv[1] : getenv("PMS_FIXTURES");
	char tmp[] = "/tmp/pms-probe-XXXXXX";

	if (!fixtures)
		fixtures = "tests/fixtures";

	test_arm64_fixture(fixtures);
	if (mkdtemp(tmp)) {
		test_nopmu(tmp);
		test_x86(tmp);
		test_midr(tmp);
		test_arm64_kvm(tmp);
		test_xen_and_kvmclock(tmp);
		rm_tree(tmp);
	} else {
		ok(0, "mkdtemp: %s", strerror(errno));
	}
	test_live();
	test_kconfig();
	return tap_done();
}
