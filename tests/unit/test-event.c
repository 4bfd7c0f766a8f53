/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event spec parsing against the fake sysfs trees in tests/fixtures: no PMU,
 * no root.  Usage: test-event [fixtures-dir]; else $PMS_FIXTURES; else
 * "tests/fixtures" relative to the repository root make runs from.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/hw_breakpoint.h>

#include "pms-event.h"
#include "tap.h"

static char x86[4096], arm[4096];
static char err[1024];
static struct pms_event ev;

static int parse(const char *spec, const char *root, const char *arch)
{
	memset(&ev, 0, sizeof(ev));
	err[0] = '\0';
	return pms_event_parse(spec, root, arch, &ev, err, sizeof(err));
}

/* On failure, the error text says more than the assertion name. */
static void diag(void)
{
	if (err[0])
		printf("#   err: %s\n", err);
}

/* ok() that shows the library's error text when the assertion fails */
#define okd(cond, ...) do {				\
	if (!ok(cond, __VA_ARGS__))			\
		diag();					\
} while (0)

static bool has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle);
}

static void test_hardware(void)
{
	static const struct {
		const char *name, *canon;
		uint64_t config;
	} t[] = {
		{ "cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES },
		{ "cpu-cycles", "cycles", PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", "instructions", PERF_COUNT_HW_INSTRUCTIONS },
		{ "cache-references", "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
		{ "cache-misses", "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
		{ "branches", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ "branch-misses", "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
		{ "bus-cycles", "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
		{ "stalled-cycles-frontend", "stalled-cycles-frontend",
		  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "idle-cycles-frontend", "stalled-cycles-frontend",
		  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
		{ "stalled-cycles-backend", "stalled-cycles-backend",
		  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "idle-cycles-backend", "stalled-cycles-backend",
		  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
		{ "ref-cycles", "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret = parse(t[i].name, x86, "x86_64");

		if (!ok(!ret && ev.attr.type == PERF_TYPE_HARDWARE &&
			ev.attr.config == t[i].config && !strcmp(ev.pmu, "cpu") &&
			!strcmp(ev.name, t[i].canon) && ev.sem == PMS_SEM_EXACT &&
			ev.attr.size == sizeof(ev.attr),
			"%s -> hardware/%llu on cpu as '%s'", t[i].name,
			(unsigned long long)t[i].config, t[i].canon)) {
			printf("#   ret %d type %u config %llu pmu '%s' name '%s'\n", ret,
			       ev.attr.type, (unsigned long long)ev.attr.config, ev.pmu, ev.name);
			diag();
		}
	}
	ok(!parse("cycles", "/nonexistent", "x86_64") && !strcmp(ev.pmu, "cpu"),
	   "cycles without any sysfs tree still parses, pmu 'cpu'");
}

static void test_software(void)
{
	static const struct {
		const char *name, *canon;
		uint64_t config;
		enum pms_semantics sem;
	} t[] = {
		{ "cpu-clock", "cpu-clock", PERF_COUNT_SW_CPU_CLOCK, PMS_SEM_TIMER },
		{ "task-clock", "task-clock", PERF_COUNT_SW_TASK_CLOCK, PMS_SEM_TIMER },
		{ "page-faults", "page-faults", PERF_COUNT_SW_PAGE_FAULTS,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "faults", "page-faults", PERF_COUNT_SW_PAGE_FAULTS, PMS_SEM_RESTART_ON_ENABLE },
		{ "context-switches", "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "cs", "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "cpu-migrations", "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "migrations", "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "minor-faults", "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "major-faults", "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "alignment-faults", "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "emulation-faults", "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS,
		  PMS_SEM_RESTART_ON_ENABLE },
		{ "dummy", "dummy", PERF_COUNT_SW_DUMMY, PMS_SEM_RESTART_ON_ENABLE },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret = parse(t[i].name, x86, "x86_64");

		if (!ok(!ret && ev.attr.type == PERF_TYPE_SOFTWARE &&
			ev.attr.config == t[i].config && !strcmp(ev.pmu, "software") &&
			!strcmp(ev.name, t[i].canon) && ev.sem == t[i].sem,
			"%s -> software/%llu, %s", t[i].name, (unsigned long long)t[i].config,
			pms_semantics_name(t[i].sem))) {
			printf("#   ret %d type %u config %llu pmu '%s' name '%s' sem %d\n", ret,
			       ev.attr.type, (unsigned long long)ev.attr.config, ev.pmu, ev.name,
			       ev.sem);
			diag();
		}
	}
}

static void test_modifiers(void)
{
	struct perf_event_attr *a = &ev.attr;

	ok(!parse("cycles", x86, "x86_64") && !a->exclude_user && !a->exclude_kernel &&
	   !a->exclude_hv && !a->exclude_host && !a->exclude_guest && !a->precise_ip,
	   "no modifiers: no exclude bits, precise_ip 0");
	ok(!parse("cycles:u", x86, "x86_64") && !a->exclude_user && a->exclude_kernel &&
	   a->exclude_hv, ":u excludes kernel and hv only");
	is_str(ev.spec, "cycles:u", "spec kept as given");
	is_str(ev.name, "cycles", "name without modifiers");
	ok(!parse("instructions:k", x86, "x86_64") && a->exclude_user && !a->exclude_kernel &&
	   a->exclude_hv, ":k excludes user and hv only");
	ok(!parse("instructions:uk", x86, "x86_64") && !a->exclude_user && !a->exclude_kernel &&
	   a->exclude_hv, ":uk excludes hv only");
	ok(!parse("cycles:G", x86, "x86_64") && a->exclude_host && !a->exclude_guest,
	   ":G counts the guest only (exclude_host)");
	ok(!parse("cycles:H", x86, "x86_64") && a->exclude_guest && !a->exclude_host,
	   ":H counts the host only (exclude_guest)");
	ok(!parse("cycles:I", x86, "x86_64") && a->exclude_idle && !a->exclude_kernel,
	   ":I sets exclude_idle only");
	ok(!parse("cycles:ppp", x86, "x86_64") && a->precise_ip == 3, ":ppp -> precise_ip 3");
	ok(!parse("cycles:upp", x86, "x86_64") && a->precise_ip == 2 && a->exclude_kernel,
	   ":upp -> precise_ip 2 and user only");
	ok(parse("cycles:pppp", x86, "x86_64") == -EINVAL, ":pppp is -EINVAL");
	okd(parse("cycles:uz", x86, "x86_64") == -EINVAL && has(err, "'z'"),
	    "unknown modifier is -EINVAL naming it");
	ok(parse("cycles:", x86, "x86_64") == -EINVAL, "empty modifier is -EINVAL");
}

static void test_raw(void)
{
	ok(!parse("r00c0", x86, "x86_64") && ev.attr.type == PERF_TYPE_RAW &&
	   ev.attr.config == 0xc0 && !strcmp(ev.pmu, "cpu") && ev.sem == PMS_SEM_EXACT,
	   "r00c0 -> raw 0xc0 on cpu");
	is_str(ev.name, "r00c0", "raw name");
	ok(!parse("rC0:u", x86, "x86_64") && ev.attr.type == PERF_TYPE_RAW &&
	   ev.attr.config == 0xc0 && ev.attr.exclude_kernel && !ev.attr.exclude_user,
	   "rC0:u -> raw 0xc0, user only");
	ok(parse("r10000000000000000", x86, "x86_64") == -EINVAL,
	   "raw wider than 64 bits is -EINVAL");
	ok(!parse("r11", arm, "aarch64") && ev.attr.type == PERF_TYPE_RAW &&
	   !strcmp(ev.pmu, "armv8_pmuv3_0"), "raw on arm64 names the armv8 PMU");
}

static void test_pmu_terms(void)
{
	struct perf_event_attr *a = &ev.attr;

	okd(!parse("cpu/event=0x3c,umask=0x1/", x86, "x86_64") && a->type == 4 &&
	    a->config == 0x13c && !strcmp(ev.pmu, "cpu"), "cpu/event=0x3c,umask=0x1/ -> 4:0x13c");
	okd(!parse("cpu/event=0x3c,edge,inv,cmask=2,any=0/u", x86, "x86_64") &&
	    a->config == (0x3cULL | 1ULL << 18 | 1ULL << 23 | 2ULL << 24) &&
	    a->exclude_kernel && !a->exclude_user,
	    "bare format terms mean 1, single bits placed, /u applies");
	ok(!parse("cpu/event=0xc0/:k", x86, "x86_64") && a->config == 0xc0 && a->exclude_user,
	   "cpu/.../:k also takes modifiers");
	ok(!parse("cpu/instructions/", x86, "x86_64") && a->type == 4 && a->config == 0xc0,
	   "cpu/instructions/ uses the sysfs alias");
	is_str(ev.name, "instructions", "alias name");
	ok(!parse("cpu/ref-cycles,umask=0x1/", x86, "x86_64") && a->config == 0x100,
	   "a later term overrides the alias's bits");
	ok(!parse("cpu/mem-loads/", x86, "x86_64") && a->config == 0x1cd && a->config1 == 3,
	   "alias with a config1 term (ldlat)");
	ok(!parse("cpu/cycles/", x86, "x86_64") && a->type == PERF_TYPE_HARDWARE &&
	   a->config == PERF_COUNT_HW_CPU_CYCLES && !strcmp(ev.pmu, "cpu"),
	   "cpu/cycles/ without a sysfs alias is the generic event");
	ok(!parse("cpu/config=0x5300c0,config1=7,config2=0x10/", x86, "x86_64") &&
	   a->type == 4 && a->config == 0x5300c0 && a->config1 == 7 && a->config2 == 0x10,
	   "literal config, config1, config2 terms");
	ok(!parse("uncore_cha_0/event=0x34,umask=0x1bff/", x86, "x86_64") && a->type == 24 &&
	   a->config == 0x0000001b0000ff34ULL,
	   "split umask config:8-15,32-43,45-55: bits 8+ continue at 32");
	if (a->config != 0x0000001b0000ff34ULL)
		printf("#   config %#llx\n", (unsigned long long)a->config);
	ok(!parse("uncore_cha_0/umask=0x100000/", x86, "x86_64") && a->config == 1ULL << 45,
	   "value bit 20 skips the hole at 44 and lands on bit 45");
	ok(!parse("uncore_cha_0/umask=0x7fffffff/", x86, "x86_64") &&
	   a->config == (0xffULL << 8 | 0xfffULL << 32 | 0x7ffULL << 45),
	   "all 31 umask bits fill exactly the three ranges");
	ok(parse("uncore_cha_0/umask=0x80000000/", x86, "x86_64") == -EINVAL,
	   "a 32nd bit is too wide for the split umask");
	okd(parse("cpu/event=0x100/", x86, "x86_64") == -EINVAL && has(err, "event"),
	    "event=0x100 too wide for config:0-7");
	ok(parse("cpu/edge=2/", x86, "x86_64") == -EINVAL, "edge=2 too wide for one bit");
	okd(parse("cpu/foo=1/", x86, "x86_64") == -EINVAL && has(err, "'foo'") &&
	    has(err, "umask") && has(err, "cmask"), "unknown term names it and the format terms");
	ok(parse("cpu/event=0x3c,period=1000/", x86, "x86_64") == -EINVAL &&
	   has(err, "--period"), "period= is refused, pointing at --period");
	ok(parse("cpu/event=zz/", x86, "x86_64") == -EINVAL, "non-numeric value is -EINVAL");
	ok(parse("cpu/event=0x3c", x86, "x86_64") == -EINVAL, "missing closing '/' is -EINVAL");
	okd(parse("bar/event=1/", x86, "x86_64") == -ENOENT && has(err, "unknown PMU 'bar'") &&
	    has(err, "cpu, software") && has(err, "tracepoint"),
	    "unknown PMU is -ENOENT and lists the PMUs");
	ok(parse("cpu/nosuch/", x86, "x86_64") == -ENOENT && has(err, "ref-cycles") &&
	   has(err, "mem-loads"), "unknown event on a PMU lists what it offers");
}

static void test_arm64(void)
{
	struct perf_event_attr *a = &ev.attr;

	ok(!parse("armv8_pmuv3_0/br_retired/", arm, "aarch64") && a->type == 8 &&
	   a->config == 0x21 && !strcmp(ev.pmu, "armv8_pmuv3_0") && ev.sem == PMS_SEM_EXACT,
	   "armv8_pmuv3_0/br_retired/ -> 8:0x21, exact");
	ok(!parse("br_retired", arm, "aarch64") && a->type == 8 && a->config == 0x21 &&
	   !strcmp(ev.pmu, "armv8_pmuv3_0"), "bare br_retired resolves through the core PMU");
	is_str(ev.name, "br_retired", "bare alias name");
	ok(!parse("cpu_cycles:u", arm, "aarch64") && a->type == 8 && a->config == 0x11 &&
	   a->exclude_kernel, "bare cpu_cycles:u -> 8:0x11, user only");
	ok(!parse("cycles", arm, "aarch64") && a->type == PERF_TYPE_HARDWARE &&
	   a->config == PERF_COUNT_HW_CPU_CYCLES && !strcmp(ev.pmu, "armv8_pmuv3_0"),
	   "generic cycles on arm64 names the armv8 PMU");
	ok(!parse("armv8_pmuv3_0/event=0x11,long/", arm, "aarch64") && a->config == 0x11 &&
	   a->config1 == 1, "long sets config1 bit 0");
	ok(parse("armv8_pmuv3_0/event=0x10000/", arm, "aarch64") == -EINVAL,
	   "event wider than config:0-15 is -EINVAL");
	ok(parse("br_retired", x86, "x86_64") == -ENOENT,
	   "arm64 event names are unknown on the x86 tree");
}

static void test_breakpoint(void)
{
	struct perf_event_attr *a = &ev.attr;

	ok(!parse("breakpoint", x86, "x86_64") && a->type == PERF_TYPE_BREAKPOINT &&
	   a->bp_type == HW_BREAKPOINT_X && a->bp_len == sizeof(long) && a->bp_addr == 0 &&
	   ev.breakpoint && !strcmp(ev.pmu, "breakpoint"),
	   "breakpoint -> execute breakpoint, len sizeof(long), addr left 0");
	ok(ev.sem == PMS_SEM_EXACT, "breakpoint on x86_64 is exact");
	ok(!parse("breakpoint:u", arm, "aarch64") && ev.sem == PMS_SEM_BP_EXTRA_COUNT &&
	   a->exclude_kernel, "breakpoint on aarch64 adds a count per signal");
	ok(!parse("breakpoint", arm, "arm64") && ev.sem == PMS_SEM_BP_EXTRA_COUNT,
	   "arch 'arm64' means the same");
	ok(!parse("cycles", arm, "aarch64") && ev.sem == PMS_SEM_EXACT && !ev.breakpoint,
	   "hardware events on aarch64 stay exact");
}

static void test_unknown_event(void)
{
	const char *want = "unknown event 'foo': cpu offers cycles, instructions, ";

	ok(parse("foo", x86, "x86_64") == -ENOENT, "unknown event is -ENOENT");
	okd(!strncmp(err, want, strlen(want)) && has(err, "mem-loads") &&
	    has(err, ", software offers cpu-clock, task-clock") &&
	    !strcmp(err + strlen(err) - strlen(", breakpoint"), ", breakpoint") &&
	    !strchr(err, '\n'), "error lists cpu, software and breakpoint on one line");
	ok(parse("foo", arm, "aarch64") == -ENOENT &&
	   has(err, "armv8_pmuv3_0 offers cycles") && has(err, "br_retired"),
	   "on arm64 the list names the armv8 PMU and its events");
}

static void test_list_offered(void)
{
	char buf[1024];

	pms_event_list_offered(arm, "armv8_pmuv3_0", buf, sizeof(buf));
	is_str(buf, "cycles, instructions, cache-references, cache-misses, branches, "
	       "branch-misses, bus-cycles, stalled-cycles-frontend, stalled-cycles-backend, "
	       "ref-cycles, br_mis_pred_retired, br_retired, cpu_cycles, inst_retired",
	       "armv8 offers the generic names, then its events sorted");
	pms_event_list_offered(x86, "cpu", buf, sizeof(buf));
	ok(!has(buf, "cpu-cycles") && has(buf, "ref-cycles, mem-loads"),
	   "sysfs aliases of generic names are not listed twice");
	pms_event_list_offered(x86, "software", buf, sizeof(buf));
	ok(has(buf, "cpu-clock, task-clock, page-faults, context-switches") &&
	   !has(buf, "faults, faults"), "software lists canonical names only");
	pms_event_list_offered(x86, "tracepoint", buf, sizeof(buf));
	is_str(buf, "", "a PMU with nothing known gives \"\"");
	pms_event_list_offered(arm, "armv8_pmuv3_0", buf, 24);
	is_str(buf, "cycles, ...", "a cut list ends with ', ...' at an item boundary");
}

static void test_exclude(void)
{
	struct perf_event_attr a = { 0 };

	ok(!pms_event_set_exclude(&a, "user,hv", err, sizeof(err)) && a.exclude_user &&
	   a.exclude_hv && !a.exclude_kernel && !a.exclude_idle, "exclude user,hv");
	ok(!pms_event_set_exclude(&a, PMS_EXCLUDE_ALL, err, sizeof(err)) && a.exclude_user &&
	   a.exclude_kernel && a.exclude_hv && a.exclude_host && a.exclude_guest &&
	   a.exclude_idle, "exclude all six");
	ok(!pms_event_set_exclude(&a, "kernel, idle", err, sizeof(err)) && !a.exclude_user &&
	   a.exclude_kernel && a.exclude_idle && !a.exclude_guest,
	   "spaces allowed; words not named are cleared");
	ok(!pms_event_set_exclude(&a, "none", err, sizeof(err)) && !a.exclude_kernel &&
	   !a.exclude_idle, "none clears them");
	a.exclude_hv = 1;
	ok(pms_event_set_exclude(&a, "user,bogus", err, sizeof(err)) == -EINVAL &&
	   has(err, "'bogus'") && a.exclude_hv && !a.exclude_user,
	   "bad word is -EINVAL naming it, attr untouched");
	ok(pms_event_set_exclude(&a, "none,user", err, sizeof(err)) == -EINVAL,
	   "none with other words is -EINVAL");
}

static void test_json(void)
{
	static const char * const keys[] = {
		"type", "type_name", "config", "config1", "config2", "sample_period",
		"sample_type", "read_format", "disabled", "pinned", "exclusive",
		"exclude_user", "exclude_kernel", "exclude_hv", "exclude_idle",
		"exclude_host", "exclude_guest", "exclude_callchain_kernel",
		"exclude_callchain_user", "use_clockid", "sigtrap", "remove_on_exec",
		"inherit", "precise_ip", "clockid", "wakeup_events", "bp_type", "bp_addr",
		"bp_len", "aux_action",
	};
	json_object *o, *v;
	uint32_t aux = 5;
	size_t i, missing = 0;

	parse("cycles:uppp", x86, "x86_64");
	ev.attr.sample_period = 100003;
	ev.attr.sigtrap = 1;
	ev.attr.config2 = UINT64_MAX;
	/* Set aux_action by position, as lib does: its name depends on the header. */
	memcpy((char *)&ev.attr + offsetof(struct perf_event_attr, aux_sample_size) + 4, &aux, 4);
	o = pms_attr_to_json(&ev.attr);
	ok(o != NULL, "attr_to_json returns an object");
	if (!o)
		return;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!json_object_object_get_ex(o, keys[i], NULL)) {
			printf("#   missing key %s\n", keys[i]);
			missing++;
		}
	}
	ok(!missing && (size_t)json_object_object_length(o) == sizeof(keys) / sizeof(keys[0]),
	   "exactly the %zu documented keys", sizeof(keys) / sizeof(keys[0]));
	json_object_object_get_ex(o, "type_name", &v);
	is_str(json_object_get_string(v), "hardware", "type_name hardware");
	json_object_object_get_ex(o, "sample_period", &v);
	is_u64(json_object_get_uint64(v), 100003, "sample_period");
	json_object_object_get_ex(o, "config2", &v);
	ok(json_object_is_type(v, json_type_int) && json_object_get_uint64(v) == UINT64_MAX,
	   "config2 is a JSON integer keeping all 64 bits");
	json_object_object_get_ex(o, "exclude_kernel", &v);
	ok(json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v),
	   "exclude_kernel true as a boolean");
	json_object_object_get_ex(o, "exclude_user", &v);
	ok(json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v),
	   "exclude_user false");
	json_object_object_get_ex(o, "precise_ip", &v);
	is_u64(json_object_get_int(v), 3, "precise_ip 3");
	json_object_object_get_ex(o, "sigtrap", &v);
	ok(json_object_get_boolean(v), "sigtrap true");
	json_object_object_get_ex(o, "aux_action", &v);
	is_u64(json_object_get_int64(v), 5, "aux_action read from the word after aux_sample_size");
	json_object_put(o);

	parse("breakpoint", x86, "x86_64");
	ev.attr.bp_addr = 0x401a2b;
	o = pms_attr_to_json(&ev.attr);
	json_object_object_get_ex(o, "bp_addr", &v);
	is_str(json_object_get_string(v), "0x401a2b", "bp_addr as a hex string");
	json_object_object_get_ex(o, "type_name", &v);
	is_str(json_object_get_string(v), "breakpoint", "type_name breakpoint");
	json_object_object_get_ex(o, "bp_len", &v);
	is_u64(json_object_get_uint64(v), sizeof(long), "bp_len");
	json_object_put(o);

	parse("armv8_pmuv3_0/br_retired/", arm, "aarch64");
	o = pms_attr_to_json(&ev.attr);
	json_object_object_get_ex(o, "type_name", &v);
	is_str(json_object_get_string(v), "dynamic", "sysfs type 8 is 'dynamic'");
	json_object_object_get_ex(o, "type", &v);
	is_u64(json_object_get_int64(v), 8, "type number 8");
	json_object_put(o);

	parse("r00c0", x86, "x86_64");
	o = pms_attr_to_json(&ev.attr);
	json_object_object_get_ex(o, "type_name", &v);
	is_str(json_object_get_string(v), "raw", "type_name raw");
	json_object_put(o);
}

static void test_semantics(void)
{
	int i, j, distinct = 1;

	is_str(pms_semantics_name(PMS_SEM_EXACT), "exact", "name exact");
	is_str(pms_semantics_name(PMS_SEM_BP_EXTRA_COUNT), "bp_extra_count",
	       "name bp_extra_count");
	is_str(pms_semantics_name(PMS_SEM_RESTART_ON_ENABLE), "restart_on_enable",
	       "name restart_on_enable");
	is_str(pms_semantics_name(PMS_SEM_TIMER), "timer", "name timer");
	for (i = 0; i < PMS_SEM_NR; i++) {
		for (j = 0; j < i; j++) {
			if (!strcmp(pms_semantics_describe(i), pms_semantics_describe(j)))
				distinct = 0;
		}
		if (!*pms_semantics_describe(i))
			distinct = 0;
	}
	ok(distinct, "each semantics has its own non-empty description");
	ok(has(pms_semantics_describe(PMS_SEM_TIMER), "hrtimer"), "timer description says hrtimer");
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("PMS_FIXTURES");
	struct stat st;

	if (!dir)
		dir = "tests/fixtures";
	snprintf(x86, sizeof(x86), "%s/sysfs-x86", dir);
	snprintf(arm, sizeof(arm), "%s/sysfs-arm64", dir);
	if (stat(x86, &st) || stat(arm, &st)) {
		/* The fixtures ship with the tests: missing means a wrong cwd, not a skip. */
		printf("Bail out! fixtures not found under %s (pass the directory or set "
		       "PMS_FIXTURES)\n", dir);
		return 1;
	}
	test_hardware();
	test_software();
	test_modifiers();
	test_raw();
	test_pmu_terms();
	test_arm64();
	test_breakpoint();
	test_unknown_event();
	test_list_offered();
	test_exclude();
	test_json();
	test_semantics();
	return tap_done();
}
