/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_KNOWN_H
#define PMS_KNOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/*
 * Known kernel behaviours, kept as data so that a result can say "this looks
 * like known bug X" (or "no known bug matches the evidence: possibly new") without any
 * verdict being hard-coded in a scenario.  A match is a hint for the person
 * reading the result, never a pass or a fail: the oracles judge, this table
 * only names what they may have seen.
 *
 * Versions follow the kernel's own scheme ("6.1", "4.12-rc4"); an entry
 * applies to a kernel K when (introduced == NULL || K >= introduced) and
 * (fixed_in == NULL || K < fixed_in).  Stable trees backport fixes (and
 * sometimes the bugs), so a version in range is a likelihood, not a proof.
 */

/* An optional requirement on the run or the machine. */
enum pms_known_req {
	PMS_KNOWN_REQ_ANY = 0,		/* does not matter (the default) */
	PMS_KNOWN_REQ_REQUIRED,		/* the bug shows only with it */
	PMS_KNOWN_REQ_FORBIDDEN,	/* the bug shows only without it */
};

struct pms_known_cond {
	enum pms_known_req exclude_kernel;	/* attr.exclude_kernel of the event */
	enum pms_known_req vhe;			/* arm64 host kernel runs at EL2 */
	bool pseudo_nmi_hides;		/* irqchip.gicv3_pseudo_nmi=1 mostly hides it */
	bool sigtrap;			/* only events with attr.sigtrap */
};

enum pms_known_confidence {
	PMS_KNOWN_SOURCED,	/* versions and commits as an upstream source gives them */
	PMS_KNOWN_INFERRED,	/* a version inferred from dates or merge order, not a tag */
};

struct pms_known {
	const char *id;		/* short stable slug; results refer to it */
	const char *title;
	const char *arch;	/* "arm64", "x86", "arm" or "any" */
	const char *pmu_driver;	/* "armv8_pmuv3", "intel_pt", "cs_etm", "arm_spe", "any" */
	const char *introduced;	/* first affected version; NULL: long-standing */
	const char *fixed_in;	/* first fixed version; NULL: not known to be fixed */
	const char *fix_commit;	/* 12 hex digits, or NULL */
	const char *link;	/* upstream report or thread */
	const char *scenarios;	/* comma-separated scenario names it shows in */
	struct pms_known_cond cond;
	const char *cause;	/* the dominant cause it produces (pms_known_causes) */
	const char *symptom;	/* how user space sees it, one sentence */
	bool by_design;		/* documented behaviour, not a bug: never "fixed" */
	enum pms_known_confidence confidence;
	const char *note;	/* what was inferred, backports, other reports; or NULL */
};

extern const struct pms_known pms_known_table[];
extern const size_t pms_known_nr;

/*
 * The cause vocabulary, the words the attribution of anomalies uses: "migration",
 * "switch_out", "ioctl_disable", "throttle", "multiplex",
 * "signal_queue_full", "injected", "unexplained".
 */
extern const char *const pms_known_causes[];
extern const size_t pms_known_nr_causes;

/* What a run, or the probe, knows about where it ran. */
struct pms_known_ctx {
	const char *arch;	/* uname -m: "aarch64", "x86_64", ...; NULL unknown */
	const char *release;	/* uname -r: "6.1.0-56-arm64", "6.18.44-fc-v782" */
	const char *pmu_driver;	/* sysfs PMU name: "armv8_pmuv3_0", "cpu_core"; NULL unknown */
	const char *scenario;	/* NULL from the probe: match on the machine only */
	const char *cause;	/* dominant cause of the run's anomalies, or several
				 * joined by commas; NULL from the probe */
	int exclude_kernel;	/* 0, 1, or -1 unknown */
	int vhe;		/* 0, 1, or -1 unknown */
	int pseudo_nmi;		/* 0, 1, or -1 unknown */
	bool sigtrap;
};

enum pms_known_fit {
	PMS_KNOWN_NO,		/* this machine or kernel cannot show it */
	PMS_KNOWN_APPLIES,	/* arch, driver and version range allow it */
	PMS_KNOWN_MATCHES,	/* ... and the scenario, conditions and cause agree */
};

/* A kernel version: "6.1.0-56-arm64" is 6.1.0, "4.12-rc4" is 4.12.0 rc 4. */
struct pms_known_kver {
	unsigned int major, minor, sublevel;
	unsigned int rc;	/* 0: a release; N: release candidate N */
};

/**
 * pms_known_kver_parse - read the version at the start of a kernel release
 * @s: "6.1.0-56-arm64", "6.12.117+deb12", "4.12-rc4", "v6.1", or Fedora's
 *     "6.9.0-0.rc7.fc41"; what follows the numbers (distribution suffixes)
 *     is ignored
 * @v: filled in on success
 *
 * Return: 0, or -EINVAL when @s does not start with MAJOR.MINOR followed by
 * the end or a separator (NULL, "", "6", "6.x", "6.1a" are malformed).
 */
int pms_known_kver_parse(const char *s, struct pms_known_kver *v);

/**
 * pms_known_kver_cmp - order two versions; a release candidate comes before
 * its release ("4.12-rc4" < "4.12-rc5" < "4.12" == "4.12.0" < "4.12.1").
 *
 * Return: <0, 0 or >0 as @a is older than, the same as or newer than @b.
 */
int pms_known_kver_cmp(const struct pms_known_kver *a, const struct pms_known_kver *b);

/**
 * pms_known_version_cmp - pms_known_kver_cmp() on two strings
 * @a: a kernel release or version
 * @b: the other
 * @cmp: receives <0, 0 or >0; untouched on error
 *
 * Return: 0, or -EINVAL when either string is malformed (see
 * pms_known_kver_parse()).
 */
int pms_known_version_cmp(const char *a, const char *b, int *cmp);

/**
 * pms_known_arch_family - the table's name for a uname -m machine
 * @machine: "aarch64", "x86_64", "i686", "armv7l", ...
 *
 * Return: "arm64", "x86", "arm", @machine itself for anything else, or NULL
 * for NULL or "".
 */
const char *pms_known_arch_family(const char *machine);

/**
 * pms_known_driver_of - the driver behind a PMU as sysfs names it
 * @pmu: "armv8_pmuv3_0", "armv8_cortex_a72", "arm_spe_0", "cpu_core", ...
 * @buf: room for a name with its instance number removed
 * @len: size of @buf
 *
 * Every armv8_ and armv9_ PMU is the armv8_pmuv3 driver, every armv7_ one
 * armv7, and x86's cpu, cpu_core and cpu_atom are "cpu"; anything else loses
 * a trailing "_<digits>" (arm_spe_0 is arm_spe).
 *
 * Return: a constant string or @buf; NULL for NULL or "".
 */
const char *pms_known_driver_of(const char *pmu, char *buf, size_t len);

/* Whether @cause is one of pms_known_causes. */
bool pms_known_cause_valid(const char *cause);

/* The entry named @id, or NULL. */
const struct pms_known *pms_known_find(const char *id);

/* "no", "applies", "matches". */
const char *pms_known_fit_name(enum pms_known_fit fit);

/**
 * pms_known_range_text - the version range of @k in words, e.g. "long-standing,
 * not known to be fixed" or "since 4.12-rc4, fixed in 4.13-rc2 by
 * 6a8a75f32357"; ", versions inferred" is added for inferred entries.
 * @k: the entry
 * @buf: receives the text (truncated to fit)
 * @len: size of @buf
 */
void pms_known_range_text(const struct pms_known *k, char *buf, size_t len);

/**
 * pms_known_check - whether entry @k is well formed: a slug id, a title, a
 * known arch, a driver, scenarios, a cause from the vocabulary, a symptom, a
 * link, versions that parse with fixed_in after introduced, and a fix commit
 * of 12 lower-case hex digits when there is one.
 * @k: the entry
 * @why: receives the first problem found (empty when there is none)
 * @len: size of @why
 *
 * Return: 0 or -EINVAL.
 */
int pms_known_check(const struct pms_known *k, char *why, size_t len);

/**
 * pms_known_fit - how well entry @k fits what @ctx knows
 * @k: the entry
 * @ctx: the run or the machine; unknown fields (NULL, -1) never rule an
 *       entry out, and @why names them
 * @why: receives one sentence, e.g. "kernel 6.1.0-56-arm64 is in range
 *       (long-standing, not known to be fixed), driver armv8_pmuv3, scenario
 *       lost-overflow, cause migration"
 * @len: size of @why
 *
 * APPLIES needs the arch, the driver, the version range and VHE to allow the
 * bug; MATCHES needs in addition the scenario to be one the entry lists, the
 * run's exclude_kernel and sigtrap to meet its conditions and the dominant
 * cause to be the entry's.  A core PMU in @ctx does not rule out an entry about
 * an AUX PMU (intel_pt, cs_etm, arm_spe): the probe names only the core PMU.
 *
 * Return: the fit (PMS_KNOWN_NO for a NULL @k or @ctx).
 */
enum pms_known_fit pms_known_fit(const struct pms_known *k, const struct pms_known_ctx *ctx,
				 char *why, size_t len);

/**
 * pms_known_match_json - every entry that applies to or matches @ctx
 * @ctx: the run (with scenario and cause) or the machine (scenario NULL)
 * @summary: receives one line: "matches: <id>[, <id>...]" or "no known bug
 *           matches the evidence (on this kernel, in this scenario, without its
 *           cause: <id>...): possibly new" for a run; "applies: <id>[, ...]" or
 *           "no known bug applies" for the machine alone
 * @len: size of @summary
 *
 * Meant for a run that has anomalies: a clean run has no cause to match.
 *
 * Return: a new array of {id, title, fit, why, link, fix_commit, fixed_in},
 * matching entries first, then those that only apply, each in table order;
 * NULL with errno ENOMEM when out of memory.
 */
json_object *pms_known_match_json(const struct pms_known_ctx *ctx, char *summary, size_t len);

/**
 * pms_known_table_json - the whole table, every field of every entry
 * (scenarios as an array, conditions as an object, NULL fields as null)
 *
 * Return: a new array, or NULL with errno ENOMEM when out of memory.
 */
json_object *pms_known_table_json(void);

#endif
