// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/known.c: kernel versions order as the kernel numbers them, every table
 * entry is well formed, and the matcher names a known bug only where its
 * machine, kernel, scenario and cause all agree.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "pms-known.h"

#define AARCH64_RUN(scen, cause_)						\
	{ .arch = "aarch64", .release = "6.1.0-56-arm64", .pmu_driver = "armv8_pmuv3_0",	\
	  .scenario = (scen), .cause = (cause_), .exclude_kernel = 1, .vhe = -1,	\
	  .pseudo_nmi = 0 }

static void cmp_is(const char *a, const char *b, int want)
{
	int c = 99, ret = pms_known_version_cmp(a, b, &c);
	int sign = c < 0 ? -1 : c > 0;

	ok(!ret && sign == want, "%s %s %s", a, want < 0 ? "<" : want > 0 ? ">" : "==", b);
}

static void malformed(const char *s)
{
	struct pms_known_kver v;
	int c = 42;

	ok(pms_known_kver_parse(s, &v) == -EINVAL &&
	   pms_known_version_cmp(s, "6.1", &c) == -EINVAL && c == 42,
	   "'%s' is malformed, and the compare leaves its result alone", s ? s : "(null)");
}

static void test_versions(void)
{
	struct pms_known_kver v;

	ok(!pms_known_kver_parse("4.12.0-rc5", &v) && v.major == 4 && v.minor == 12 &&
	   v.sublevel == 0 && v.rc == 5, "4.12.0-rc5 is 4.12.0 rc 5");
	ok(!pms_known_kver_parse("6.12.117+deb12", &v) && v.sublevel == 117 && !v.rc,
	   "Debian's 6.12.117+deb12 is 6.12.117");
	cmp_is("6.1.0-56-arm64", "6.1", 0);
	cmp_is("6.1", "6.1.0", 0);
	cmp_is("v6.1", "6.1", 0);
	cmp_is("4.12-rc4", "4.12", -1);
	cmp_is("4.12-rc4", "4.12-rc5", -1);
	cmp_is("4.12.0-rc5", "4.12-rc4", 1);
	cmp_is("4.12.0-rc5", "4.13-rc2", -1);
	cmp_is("4.12.9", "4.13-rc2", -1);
	cmp_is("4.13.0", "4.13-rc2", 1);
	cmp_is("6.10", "6.9", 1);
	cmp_is("6.12.117+deb12", "6.12.116", 1);
	cmp_is("6.12.117+deb12", "6.13", -1);
	cmp_is("6.18.44-fc-v782", "6.18", 1);
	cmp_is("6.17.1-arch1-1", "6.17-rc5", 1);
	cmp_is("5.15.0-91-generic", "5.15.0-1-generic", 0);
	cmp_is("4.18.0-513.el8.x86_64", "4.18", 0);
	cmp_is("6.9.0-0.rc7.20240507git.fc41", "6.9", -1);
	cmp_is("6.9.0-0.rc7.20240507git.fc41", "6.9-rc6", 1);
	cmp_is("2.6.32.59", "2.6.32", 0);
	cmp_is("6.1-rc", "6.1", 0);
	malformed(NULL);
	malformed("");
	malformed("6");
	malformed("6.");
	malformed(".1");
	malformed("abc");
	malformed("6.x");
	malformed("6.1a");
	malformed("6.1.");
	malformed("-6.1");
	malformed("6.1-rc0");
	malformed("4.12-rc4x");
	malformed("9999999999.1");
	ok(pms_known_version_cmp("6.1", "6.2", NULL) == -EINVAL, "no result pointer: EINVAL");
}

static void test_table(void)
{
	char why[256];
	size_t i, j;

	ok(pms_known_nr >= 12, "the table has %zu entries", pms_known_nr);
	for (i = 0; i < pms_known_nr; i++) {
		const struct pms_known *k = &pms_known_table[i];
		/* Checked before ok(): its arguments read why in no set order. */
		int ret = pms_known_check(k, why, sizeof(why)), c = 0;
		bool unique = true;

		for (j = 0; j < i; j++)
			if (!strcmp(pms_known_table[j].id, k->id))
				unique = false;
		ok(!ret && !why[0], "%s well formed%s%s", k->id, why[0] ? ": " : "", why);
		ok(k->id[0] && unique, "%s: id is non-empty and unique", k->id);
		ok(k->title && k->title[0] && k->arch && k->arch[0], "%s: title and arch", k->id);
		ok(pms_known_cause_valid(k->cause), "%s: cause %s is in the vocabulary", k->id,
		   k->cause);
		ok(!k->introduced || !k->fixed_in ||
		   (!pms_known_version_cmp(k->fixed_in, k->introduced, &c) && c > 0),
		   "%s: fixed_in after introduced", k->id);
		ok(pms_known_find(k->id) == k, "%s: found by id", k->id);
	}
	ok(!pms_known_cause_valid("lost") && !pms_known_cause_valid(NULL),
	   "a word outside the vocabulary is not a cause");
	ok(pms_known_check(NULL, why, sizeof(why)) == -EINVAL, "no entry: EINVAL");
}

/* A synthetic entry for the conditions no table entry uses today. */
static const struct pms_known vhe_only = {
	.id = "test-vhe-only",
	.title = "test entry",
	.arch = "arm64",
	.pmu_driver = "armv8_pmuv3",
	.link = "https://example.invalid/",
	.scenarios = "lost-overflow",
	.cond = { .vhe = PMS_KNOWN_REQ_REQUIRED,
		  .exclude_kernel = PMS_KNOWN_REQ_FORBIDDEN },
	.cause = "switch_out",
	.symptom = "none",
};

static void test_conditions(void)
{
	struct pms_known_ctx ctx = AARCH64_RUN("lost-overflow", "switch_out");
	char why[512];

	ok(!pms_known_check(&vhe_only, why, sizeof(why)), "the synthetic entry is well formed");
	ctx.vhe = 0;
	ok(pms_known_fit(&vhe_only, &ctx, why, sizeof(why)) == PMS_KNOWN_NO &&
	   strstr(why, "VHE"), "VHE required, host without it: no (%s)", why);
	ctx.vhe = -1;
	ok(pms_known_fit(&vhe_only, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES &&
	   strstr(why, "VHE unknown") && strstr(why, "exclude_kernel=0"),
	   "VHE unknown does not rule it out; exclude_kernel forbidden, run had 1 (%s)", why);
	ctx.vhe = 1;
	ctx.exclude_kernel = 0;
	ok(pms_known_fit(&vhe_only, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES,
	   "VHE and exclude_kernel=0: matches (%s)", why);
	ctx.pmu_driver = "armv8_cortex_a72";
	ok(pms_known_fit(&vhe_only, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES,
	   "armv8_cortex_a72 is the armv8_pmuv3 driver");
	ctx.pmu_driver = "breakpoint";
	ok(pms_known_fit(&vhe_only, &ctx, why, sizeof(why)) == PMS_KNOWN_NO &&
	   strstr(why, "breakpoint"), "the breakpoint substitute is not the PMU driver (%s)", why);
	ok(pms_known_fit(NULL, &ctx, why, sizeof(why)) == PMS_KNOWN_NO &&
	   pms_known_fit(&vhe_only, NULL, why, sizeof(why)) == PMS_KNOWN_NO,
	   "no entry or no context: no");
}

static void test_names(void)
{
	char buf[64];

	is_str(pms_known_arch_family("aarch64"), "arm64", "aarch64 is arm64");
	is_str(pms_known_arch_family("x86_64"), "x86", "x86_64 is x86");
	is_str(pms_known_arch_family("i686"), "x86", "i686 is x86");
	is_str(pms_known_arch_family("armv7l"), "arm", "armv7l is arm");
	is_str(pms_known_arch_family("riscv64"), "riscv64", "riscv64 stays itself");
	is_str(pms_known_arch_family("i"), "i", "a one-letter machine is read safely");
	ok(!pms_known_arch_family(NULL) && !pms_known_arch_family(""), "no machine: NULL");
	is_str(pms_known_driver_of("armv8_pmuv3_0", buf, sizeof(buf)), "armv8_pmuv3",
	       "armv8_pmuv3_0 is armv8_pmuv3");
	is_str(pms_known_driver_of("armv9_neoverse_v2", buf, sizeof(buf)), "armv8_pmuv3",
	       "armv9_ PMUs are armv8_pmuv3 too");
	is_str(pms_known_driver_of("cpu_core", buf, sizeof(buf)), "cpu", "cpu_core is cpu");
	is_str(pms_known_driver_of("arm_spe_0", buf, sizeof(buf)), "arm_spe", "arm_spe_0");
	is_str(pms_known_driver_of("cs_etm", buf, sizeof(buf)), "cs_etm", "cs_etm");
	is_str(pms_known_driver_of("armv7_cortex_a15", buf, sizeof(buf)), "armv7", "armv7");
	ok(!pms_known_driver_of(NULL, buf, sizeof(buf)), "no PMU: NULL");
	is_str(pms_known_fit_name(PMS_KNOWN_MATCHES), "matches", "fit names");
}

/* pidns: an SPE finding is matched on the SPE PMU, not the core one. */
static void test_spe_pidns(void)
{
	const struct pms_known *k = pms_known_find("arm-spe-contextidr-pidns");
	struct pms_known_ctx ctx = AARCH64_RUN("pidns", "unexplained");
	char why[512], summary[512];
	json_object *arr;

	ok(k != NULL, "the SPE context entry exists");
	if (!k)
		return;
	pms_known_fit(k, &ctx, why, sizeof(why));
	ok(strstr(why, "arm_spe not checked") != NULL, "named with the core PMU, the driver "
	   "is said to be unchecked: %s", why);
	ctx.pmu_driver = "arm_spe_0";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   !strstr(why, "not checked"), "on arm_spe_0, pidns, unexplained: matches, the "
	   "driver checked: %s", why);
	ctx.scenario = "lost-overflow";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) != PMS_KNOWN_MATCHES, "another scenario "
	   "does not match it");
	ctx.scenario = "pidns";
	ctx.arch = "x86_64";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO, "x86: no");
	/* An injected failure names no bug. */
	ctx.arch = "aarch64";
	ctx.cause = "injected";
	arr = pms_known_match_json(&ctx, summary, sizeof(summary));
	ok(arr && strstr(summary, "injected") && !strstr(summary, "possibly new"),
	   "an injected failure: %s", summary);
	json_object_put(arr);
}

static void test_armv8(void)
{
	const struct pms_known *k = pms_known_find("armv8pmu-pending-overflow-sched-out");
	struct pms_known_ctx ctx = AARCH64_RUN("lost-overflow", "migration");
	char why[512];

	ok(k != NULL, "the armv8pmu sched-out entry exists");
	if (!k)
		return;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES, "matches: %s", why);
	ok(strstr(why, "6.1.0-56-arm64 is in range") && strstr(why, "not known to be fixed") &&
	   strstr(why, "driver armv8_pmuv3") && strstr(why, "cause migration") &&
	   !strstr(why, "backport"), "why names kernel, range, driver and cause");
	ctx.cause = "switch_out";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES,
	   "any schedule-out matches: switch_out (%s)", why);
	ctx.cause = "rebind";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES,
	   "the mover's rebind (no trace) matches too");
	ctx.cause = "ioctl_disable";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES,
	   "ioctl_disable is the other entry's: applies only");
	{
		const struct pms_known *d = pms_known_find("armv8pmu-pending-overflow-ioc-disable");

		/* a storm beside the mover: both causes stood, both entries match */
		ctx.scenario = "disable-storm";
		ctx.cause = "rebind,ioctl_disable";
		ok(d && pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
		   pms_known_fit(d, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES,
		   "causes rebind,ioctl_disable: the sched-out and the IOC_DISABLE entries both "
		   "match (%s)", why);
		ctx.cause = "throttle,unexplained";
		ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES,
		   "a list with no cause of the entry's: applies only");
		ctx.scenario = "lost-overflow";
	}
	ok(pms_known_cause_valid("migration,rebind,switch_out") &&
	   !pms_known_cause_valid("migration,bogus") && !pms_known_cause_valid(""),
	   "cause lists are checked word by word");
	ctx.cause = "throttle";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES &&
	   strstr(why, "throttle"), "cause throttle: applies only (%s)", why);
	ctx.cause = "migration";
	ctx.scenario = "skid-into-kernel";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES,
	   "another scenario: applies only (%s)", why);
	ctx.scenario = "lost-overflow";
	ctx.pseudo_nmi = 1;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   strstr(why, "pseudo_nmi=1 mostly hides it"), "pseudo-NMI is named (%s)", why);
	ctx.pseudo_nmi = 0;
	ctx.arch = "x86_64";
	ctx.pmu_driver = "cpu";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO && strstr(why, "arm64"),
	   "x86_64: no (%s)", why);
	ctx.arch = "aarch64";
	ctx.pmu_driver = NULL;
	ctx.release = "not-a-version";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   strstr(why, "could not be parsed") && strstr(why, "PMU unknown"),
	   "unknown PMU and unparsable release do not rule it out (%s)", why);
	ctx.release = "6.1.0-56-arm64";
	ctx.scenario = NULL;
	ctx.cause = NULL;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES,
	   "from the probe (no scenario): applies (%s)", why);
}

static void test_skid(void)
{
	const struct pms_known *k = pms_known_find("skid-into-kernel-dropped-overflow");
	struct pms_known_ctx ctx = {
		.arch = "x86_64", .release = "4.12.0-rc5", .pmu_driver = "cpu",
		.scenario = "skid-into-kernel", .cause = "unexplained", .exclude_kernel = 1,
		.vhe = -1, .pseudo_nmi = -1,
	};
	char why[512];

	ok(k != NULL, "the skid entry exists");
	if (!k)
		return;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   !strstr(why, "backport"), "4.12.0-rc5 x86_64 exclude_kernel=1: matches (%s)", why);
	ctx.release = "4.12.7";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   strstr(why, "in range by version") && strstr(why, "stable backport"),
	   "4.12.7: matches by version, a backport may have fixed it (%s)", why);
	ctx.release = "4.13.0";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO &&
	   strstr(why, "out of range"), "4.13.0: no (%s)", why);
	ctx.release = "4.12-rc3";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO, "4.12-rc3: no");
	ctx.release = "4.12.0-rc5";
	ctx.exclude_kernel = 0;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES &&
	   strstr(why, "exclude_kernel=1"), "exclude_kernel=0: applies only (%s)", why);
	ctx.exclude_kernel = -1;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   strstr(why, "exclude_kernel not recorded"), "exclude_kernel unknown: named (%s)", why);
}

static void test_sigtrap(void)
{
	const struct pms_known *k = pms_known_find("sigtrap-pending-disable-race");
	struct pms_known_ctx ctx = {
		.arch = "x86_64", .release = "6.2.0", .pmu_driver = "cpu_core",
		.scenario = "disable-storm", .cause = "ioctl_disable", .exclude_kernel = 1,
		.vhe = -1, .pseudo_nmi = -1, .sigtrap = true,
	};
	char why[512];

	ok(k != NULL, "the sigtrap race entry exists");
	if (!k)
		return;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO, "6.2: no (%s)", why);
	ctx.release = "5.15.0-91-generic";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   strstr(why, "stable backport") && strstr(why, "versions inferred"),
	   "5.15 disable-storm with sigtrap: matches (%s)", why);
	ctx.sigtrap = false;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES &&
	   strstr(why, "sigtrap"), "without attr.sigtrap: applies only (%s)", why);
	ctx.release = "6.1-rc4";
	ctx.sigtrap = true;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_MATCHES &&
	   !strstr(why, "backport"), "6.1-rc4: matches, no backport talk for an rc (%s)", why);
	ctx.release = "5.12.19";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO, "5.12 predates sigtrap");
}

static void test_aux(void)
{
	const struct pms_known *k = pms_known_find("aux-pause-nmi-skip-intel-pt");
	struct pms_known_ctx ctx = {
		.arch = "x86_64", .release = "6.13.2", .pmu_driver = "cpu_core",
		.vhe = -1, .pseudo_nmi = -1, .exclude_kernel = -1,
	};
	char why[512];

	ok(k != NULL, "the intel_pt AUX entry exists");
	if (!k)
		return;
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_APPLIES &&
	   strstr(why, "intel_pt not checked") && strstr(why, "not a bug"),
	   "a core PMU does not rule out an AUX entry (%s)", why);
	ctx.pmu_driver = "cs_etm";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO,
	   "another AUX PMU does (%s)", why);
	ctx.pmu_driver = "intel_pt";
	ctx.release = "6.12.9";
	ok(pms_known_fit(k, &ctx, why, sizeof(why)) == PMS_KNOWN_NO, "6.12: no (%s)", why);
}

static void test_match_json(void)
{
	struct pms_known_ctx ctx = AARCH64_RUN("lost-overflow", "migration");
	json_object *arr, *first, *v;
	char summary[256];
	size_t i, n;
	bool all_fit = true;

	arr = pms_known_match_json(&ctx, summary, sizeof(summary));
	ok(arr != NULL, "match array built");
	is_str(summary, "matches: armv8pmu-pending-overflow-sched-out", "summary names the match");
	n = arr ? json_object_array_length(arr) : 0;
	first = n ? json_object_array_get_idx(arr, 0) : NULL;
	ok(first && json_object_object_get_ex(first, "id", &v) &&
	   !strcmp(json_object_get_string(v), "armv8pmu-pending-overflow-sched-out") &&
	   json_object_object_get_ex(first, "fit", &v) &&
	   !strcmp(json_object_get_string(v), "matches"), "the match comes first");
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		if (!json_object_object_get_ex(e, "why", &v) ||
		    !json_object_object_get_ex(e, "fixed_in", &v) ||
		    !json_object_object_get_ex(e, "fix_commit", &v) ||
		    !json_object_object_get_ex(e, "link", &v) ||
		    !json_object_object_get_ex(e, "fit", &v) ||
		    strcmp(json_object_get_string(v), "no") == 0)
			all_fit = false;
	}
	ok(n > 1 && all_fit, "%zu entries, each with why, link, fix_commit, fixed_in and a fit", n);
	json_object_put(arr);

	ctx.cause = "throttle";
	arr = pms_known_match_json(&ctx, summary, sizeof(summary));
	is_str(summary, "no known bug matches the evidence (on this kernel, in this scenario, "
	       "without its cause: armv8pmu-pending-overflow-sched-out): possibly new",
	       "nothing matches a throttle cause, and the near miss is named");
	ctx.arch = "x86_64";
	json_object_put(pms_known_match_json(&ctx, summary, sizeof(summary)));
	is_str(summary, "no known bug matches the evidence: possibly new",
	       "x86: no near miss to name");
	ctx.arch = "aarch64";
	ok(arr && json_object_array_length(arr) > 0, "but the entries that apply are listed");
	json_object_put(arr);

	ctx.scenario = NULL;
	ctx.cause = NULL;
	arr = pms_known_match_json(&ctx, summary, sizeof(summary));
	ok(!strncmp(summary, "applies: armv8pmu-pending-overflow-sched-out, "
		    "armv8pmu-pending-overflow-ioc-disable", 80),
	   "from the probe: what applies (%s)", summary);
	json_object_put(arr);

	ctx.arch = "riscv64";
	ctx.release = "3.10.0";
	arr = pms_known_match_json(&ctx, summary, sizeof(summary));
	ok(arr && !strcmp(summary, "applies: sigtrap-pending-task-uaf"),
	   "riscv64 3.10 machine: only the long-standing any-arch entry (%s)", summary);
	json_object_put(arr);

	ctx.release = "7.0";
	ctx.scenario = "lost-overflow";
	ctx.cause = "unexplained";
	arr = pms_known_match_json(&ctx, summary, 8);
	ok(arr && strlen(summary) == 7, "a short summary buffer truncates (%s)", summary);
	json_object_put(arr);
}

static void test_table_json(void)
{
	json_object *arr = pms_known_table_json(), *e, *v, *c;
	bool good = arr && json_object_array_length(arr) == pms_known_nr;
	size_t i;

	for (i = 0; good && i < pms_known_nr; i++) {
		e = json_object_array_get_idx(arr, i);
		good = json_object_object_get_ex(e, "id", &v) &&
		       !strcmp(json_object_get_string(v), pms_known_table[i].id) &&
		       json_object_object_get_ex(e, "scenarios", &v) &&
		       json_object_is_type(v, json_type_array) &&
		       json_object_array_length(v) > 0 &&
		       json_object_object_get_ex(e, "conditions", &c) &&
		       json_object_object_get_ex(c, "pseudo_nmi_hides", &v) &&
		       json_object_object_get_ex(e, "confidence", &v) &&
		       json_object_object_get_ex(e, "fixed_in", &v);
	}
	ok(good, "the table as JSON: one object per entry, every field there");
	e = arr ? json_object_array_get_idx(arr, 0) : NULL;
	ok(e && json_object_object_get_ex(e, "fixed_in", &v) && !v,
	   "a NULL field is JSON null");
	json_object_put(arr);
}

int main(void)
{
	test_versions();
	test_table();
	test_conditions();
	test_names();
	test_armv8();
	test_spe_pidns();
	test_skid();
	test_sigtrap();
	test_aux();
	test_match_json();
	test_table_json();
	return tap_done();
}
