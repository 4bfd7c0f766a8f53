/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The aux_action ABI model, no PMU needed: the era of a kernel release, the
 * errno every case must give in every era (the order of the kernel's
 * checks), which AUX PMUs can pause on which kernel, the attr word's
 * position, and finding the AUX PMU in a fake sysfs tree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "abi.h"

static const struct pms_auxabi_case *find_case(const char *name)
{
	size_t i;

	for (i = 0; i < pms_auxabi_nr_cases; i++)
		if (!strcmp(pms_auxabi_cases[i].name, name))
			return &pms_auxabi_cases[i];
	return NULL;
}

static int expect(const char *name, enum pms_aux_era era, bool can_pause, char *why,
		  size_t len)
{
	const struct pms_auxabi_case *c = find_case(name);

	if (!c) {
		snprintf(why, len, "no case %s", name);
		return -1;
	}
	return pms_auxabi_expect(c, era, can_pause, why, len);
}

static void test_era(void)
{
	enum pms_aux_era e;

	ok(!pms_aux_era_of("6.18.44-fc-v595", &e) && e == PMS_AUX_ERA_ACTION, "6.18 has aux_action");
	ok(!pms_aux_era_of("6.13.0-rc1", &e) && e == PMS_AUX_ERA_ACTION, "6.13-rc1 has aux_action");
	ok(!pms_aux_era_of("6.12.117+deb12-arm64", &e) && e == PMS_AUX_ERA_RESERVED,
	   "6.12 has the reserved word");
	ok(!pms_aux_era_of("6.1.0-56-arm64", &e) && e == PMS_AUX_ERA_RESERVED, "6.1 reserved");
	ok(!pms_aux_era_of("5.5.0", &e) && e == PMS_AUX_ERA_RESERVED, "5.5 reserved");
	ok(!pms_aux_era_of("5.4.290", &e) && e == PMS_AUX_ERA_NO_FIELD, "5.4 has no word");
	ok(!pms_aux_era_of("7.0", &e) && e == PMS_AUX_ERA_ACTION, "7.0 has aux_action");
	ok(pms_aux_era_of("linux", &e) == -EINVAL, "a release that is not X.Y is refused");
	ok(pms_aux_era_of(NULL, &e) == -EINVAL, "no release is refused");
	is_str(pms_aux_era_name(PMS_AUX_ERA_RESERVED), "reserved", "era name");
}

static void test_attr_word(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	pms_attr_set_aux_action(&a, PMS_AUX_START_PAUSED | PMS_AUX_RESUME);
	is_u64(pms_attr_aux_action(&a), 5, "the word reads back");
	ok(a.aux_sample_size == 0 && a.sig_data == 0, "neighbours untouched");
	is_u64(((const unsigned char *)&a)[116], 5, "bit 0 and 2 at byte 116, as in the 6.13 uapi");
}

static void test_expect_action_era(void)
{
	char why[512];

	is_u64(expect("control", PMS_AUX_ERA_ACTION, false, why, sizeof(why)), 0, "control opens");
	is_u64(expect("reserved-bit", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), EINVAL,
	       "bit 3: EINVAL even with aux_action");
	ok(strstr(why, "perf_copy_attr"), "reserved bit decided by perf_copy_attr");
	is_u64(expect("start-paused-software", PMS_AUX_ERA_ACTION, true, why, sizeof(why)),
	       EOPNOTSUPP, "start paused on software: EOPNOTSUPP");
	ok(strstr(why, "PERF_PMU_CAP_AUX_PAUSE"), "names the capability");
	is_u64(expect("start-paused-tracepoint", PMS_AUX_ERA_ACTION, false, why, sizeof(why)),
	       EOPNOTSUPP, "start paused on a tracepoint: EOPNOTSUPP");
	is_u64(expect("start-paused-breakpoint", PMS_AUX_ERA_ACTION, false, why, sizeof(why)),
	       EOPNOTSUPP, "start paused on a breakpoint: EOPNOTSUPP");
	is_u64(expect("pause-and-resume", PMS_AUX_ERA_ACTION, false, why, sizeof(why)), EINVAL,
	       "pause with resume: EINVAL");
	is_u64(expect("output-with-pause", PMS_AUX_ERA_ACTION, false, why, sizeof(why)),
	       EOPNOTSUPP, "aux_output with pause: EOPNOTSUPP");
	ok(strstr(why, "not told apart"), "says software cannot tell the two causes apart");
	is_u64(expect("output-with-resume", PMS_AUX_ERA_ACTION, false, why, sizeof(why)),
	       EOPNOTSUPP, "aux_output with resume: EOPNOTSUPP");
	is_u64(expect("pause-no-group", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), EINVAL,
	       "pause without a group: EINVAL");
	ok(strstr(why, "perf_event_open"), "decided by the group check");
	is_u64(expect("resume-no-group", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), EINVAL,
	       "resume without a group: EINVAL");
	is_u64(expect("pause-software-leader", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), EINVAL,
	       "pause under a software leader: EINVAL");
	is_u64(expect("resume-software-leader", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), EINVAL,
	       "resume under a software leader: EINVAL");
	is_u64(expect("pause-breakpoint-leader", PMS_AUX_ERA_ACTION, true, why, sizeof(why)),
	       EINVAL, "pause under a breakpoint leader: EINVAL");
	ok(strstr(why, "breakpoint"), "names the leader's PMU");

	/* The AUX PMU: the capability decides. */
	is_u64(expect("start-paused-aux", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), 0,
	       "start paused on a capable AUX PMU opens");
	is_u64(expect("start-paused-aux", PMS_AUX_ERA_ACTION, false, why, sizeof(why)), EOPNOTSUPP,
	       "start paused on an AUX PMU without the capability: EOPNOTSUPP");
	is_u64(expect("pause-aux-leader", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), 0,
	       "pause under a capable AUX leader opens");
	is_u64(expect("pause-aux-leader", PMS_AUX_ERA_ACTION, false, why, sizeof(why)), EINVAL,
	       "pause under an AUX leader that cannot pause: EINVAL");
	is_u64(expect("resume-aux-leader", PMS_AUX_ERA_ACTION, true, why, sizeof(why)), 0,
	       "resume under a capable AUX leader opens");
	is_u64(expect("pause-and-resume-aux-leader", PMS_AUX_ERA_ACTION, true, why, sizeof(why)),
	       EINVAL, "pause with resume is refused before the group is looked at");
	is_u64(expect("output-with-pause-aux-leader", PMS_AUX_ERA_ACTION, true, why, sizeof(why)),
	       EOPNOTSUPP, "aux_output with pause under a capable leader: EOPNOTSUPP");
}

static void test_expect_old_eras(void)
{
	char why[512];
	size_t i, n_reserved = 0, n_nofield = 0, n_bits = 0;

	for (i = 0; i < pms_auxabi_nr_cases; i++) {
		const struct pms_auxabi_case *c = &pms_auxabi_cases[i];

		if (!c->action)
			continue;
		n_bits++;
		/* The capability cannot matter before the bits exist. */
		if (pms_auxabi_expect(c, PMS_AUX_ERA_RESERVED, true, why, sizeof(why)) == EINVAL &&
		    strstr(why, "__reserved_3"))
			n_reserved++;
		if (pms_auxabi_expect(c, PMS_AUX_ERA_NO_FIELD, true, why, sizeof(why)) == E2BIG)
			n_nofield++;
	}
	ok(n_bits >= 15, "most cases set aux_action bits (%zu)", n_bits);
	is_u64(n_reserved, n_bits, "5.5-6.12: every case with a bit is EINVAL (__reserved_3)");
	is_u64(n_nofield, n_bits, "before 5.5: every case with a bit is E2BIG");
	is_u64(expect("control", PMS_AUX_ERA_RESERVED, false, why, sizeof(why)), 0,
	       "control opens on 6.1/6.12");
	is_u64(expect("control", PMS_AUX_ERA_NO_FIELD, false, why, sizeof(why)), 0,
	       "control opens before 5.5 (the trailing bytes are zero)");
}

static void test_discriminating(void)
{
	char why[512];
	size_t i, differ = 0;

	/* Cases whose answer tells 6.13+ from 6.1/6.12: the matrix must have some. */
	for (i = 0; i < pms_auxabi_nr_cases; i++) {
		const struct pms_auxabi_case *c = &pms_auxabi_cases[i];

		if (c->pmu == PMS_AUXABI_AUX || c->leader == PMS_AUXABI_AUX)
			continue;
		if (pms_auxabi_expect(c, PMS_AUX_ERA_ACTION, false, why, sizeof(why)) !=
		    pms_auxabi_expect(c, PMS_AUX_ERA_RESERVED, false, why, sizeof(why)))
			differ++;
	}
	ok(differ >= 4, "%zu cases without an AUX PMU tell 6.13+ from older kernels", differ);
}

static void test_can_pause(void)
{
	ok(pms_aux_pmu_can_pause("intel_pt", PMS_AUX_ERA_ACTION, 6, 13), "intel_pt 6.13");
	ok(!pms_aux_pmu_can_pause("intel_pt", PMS_AUX_ERA_RESERVED, 6, 12), "intel_pt 6.12: no");
	ok(!pms_aux_pmu_can_pause("cs_etm", PMS_AUX_ERA_ACTION, 6, 15), "cs_etm 6.15: no");
	ok(pms_aux_pmu_can_pause("cs_etm", PMS_AUX_ERA_ACTION, 6, 16), "cs_etm 6.16");
	ok(pms_aux_pmu_can_pause("cs_etm", PMS_AUX_ERA_ACTION, 7, 0), "cs_etm 7.0");
	ok(!pms_aux_pmu_can_pause("arm_spe_0", PMS_AUX_ERA_ACTION, 6, 18), "arm_spe: never");
	ok(!pms_aux_pmu_can_pause(NULL, PMS_AUX_ERA_ACTION, 6, 18), "no PMU: no");
}

static void mkpmu(const char *root, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	mkdir(path, 0755);
}

static void test_find_pmu(void)
{
	char root[] = "/tmp/pms-aux-XXXXXX", name[64] = "", cmd[600];

	if (!mkdtemp(root)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	mkpmu(root, "software");
	mkpmu(root, "breakpoint");
	ok(!pms_aux_find_pmu(root, name, sizeof(name)), "no AUX PMU in software+breakpoint");
	mkpmu(root, "arm_spe_0");
	ok(pms_aux_find_pmu(root, name, sizeof(name)), "arm_spe_0 found");
	is_str(name, "arm_spe_0", "its name");
	mkpmu(root, "cs_etm");
	ok(pms_aux_find_pmu(root, name, sizeof(name)) && !strcmp(name, "cs_etm"),
	   "cs_etm preferred to arm_spe (it can pause)");
	mkpmu(root, "intel_pt_x");
	ok(pms_aux_find_pmu(root, name, sizeof(name)) && !strcmp(name, "cs_etm"),
	   "intel_pt_x is not intel_pt");
	mkpmu(root, "intel_pt");
	ok(pms_aux_find_pmu(root, name, sizeof(name)) && !strcmp(name, "intel_pt"),
	   "intel_pt first");
	ok(!pms_aux_find_pmu("/nonexistent/pms", name, sizeof(name)), "no directory: none");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", root);
}

/* A BTF blob: header, no types, a string section of @strs (NUL separated). */
static size_t make_btf(unsigned char *buf, const char *strs, size_t slen)
{
	uint16_t magic = 0xeb9f;
	uint32_t hdr_len = 24, zero = 0, str_len = (uint32_t)slen;

	memset(buf, 0, 24);
	memcpy(buf, &magic, 2);
	buf[2] = 1;
	memcpy(buf + 4, &hdr_len, 4);
	memcpy(buf + 8, &zero, 4);	/* type_off */
	memcpy(buf + 12, &zero, 4);	/* type_len */
	memcpy(buf + 16, &zero, 4);	/* str_off */
	memcpy(buf + 20, &str_len, 4);
	memcpy(buf + 24, strs, slen);
	return 24 + slen;
}

static void test_btf(void)
{
	static const char with[] = "\0perf_event_attr\0aux_sample_size\0aux_start_paused\0sig_data";
	static const char without[] = "\0perf_event_attr\0aux_start_paused_x\0__reserved_3";
	unsigned char buf[256];
	char path[] = "/tmp/pms-btf-XXXXXX";
	enum pms_aux_era era = PMS_AUX_ERA_NO_FIELD;
	size_t n;
	FILE *f;
	int fd;

	n = make_btf(buf, with, sizeof(with));
	is_u64(pms_btf_has_string(buf, n, "aux_start_paused"), 1, "BTF names aux_start_paused");
	is_u64(pms_btf_has_string(buf, n, "sig_data"), 1, "last string found (NUL-terminated)");
	is_u64(pms_btf_has_string(buf, n, "aux_start"), 0, "a prefix is not the string");
	n = make_btf(buf, without, sizeof(without));
	is_u64(pms_btf_has_string(buf, n, "aux_start_paused"), 0,
	       "a longer name is not aux_start_paused");
	ok(pms_btf_has_string(buf, 10, "x") == -EINVAL, "truncated header: EINVAL");
	buf[0] = 0;
	ok(pms_btf_has_string(buf, n, "x") == -EINVAL, "bad magic: EINVAL");
	n = make_btf(buf, with, sizeof(with));
	ok(pms_btf_has_string(buf, n - 8, "x") == -EINVAL, "string section past the end: EINVAL");

	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		ok(0, "temp file");
		return;
	}
	fwrite(buf, 1, n, f);
	fclose(f);
	ok(!pms_aux_btf_era(path, &era) && era == PMS_AUX_ERA_ACTION,
	   "BTF with aux_start_paused: the aux_action era, whatever the version");
	f = fopen(path, "w");
	n = make_btf(buf, without, sizeof(without));
	fwrite(buf, 1, n, f);
	fclose(f);
	ok(!pms_aux_btf_era(path, &era) && era == PMS_AUX_ERA_RESERVED,
	   "BTF without it: the word is reserved");
	unlink(path);
	ok(pms_aux_btf_era(path, &era) == -ENOENT, "no BTF file: ENOENT, the caller uses the release");
	ok(pms_aux_btf_era(NULL, &era) == -ENOENT, "no BTF path: ENOENT");
}

int main(void)
{
	test_btf();
	test_era();
	test_attr_word();
	test_expect_action_era();
	test_expect_old_eras();
	test_discriminating();
	test_can_pause();
	test_find_pmu();
	return tap_done();
}
