/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Host probe: what a result needs so that it can be read later -- which
 * kernel, CPU and PMU, which knobs (throttling, pseudo-NMI, watchdog) were
 * set, whether this is a guest or an emulator, and which perf_event_open(2)
 * features the running kernel accepts.
 *
 * Everything comes from below cfg->sysfs_root and cfg->procfs_root so the unit
 * tests can hand in a fake tree.  Only hwloc, tracefs, CPUID and the feature
 * probes look at the live system; the first three are skipped for a fake
 * root because mixing live answers into a fake machine would describe neither.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <signal.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PMS_HAVE_CPUID 1
#endif

#include <hwloc.h>
#include <tracefs.h>

#include "pms-auxabi.h"
#include "pms-perf.h"
#include "pms-probe.h"
#include "pms-sha256.h"
#include "pms-util.h"

#define SYSFS_LIVE	"/sys"
#define PROCFS_LIVE	"/proc"

/* Enough for any single sysfs/procfs value we read; cpuinfo is streamed. */
#define VALUE_MAX	4096
/* COMMAND_LINE_SIZE is 2048..4096 depending on the arch; leave headroom. */
#define CMDLINE_MAX	16384

/* Iterations of the user-space loop the exclude_host probe counts over. */
#define EXCLUDE_HOST_LOOP	1000000UL

/* Why a user-only exclude_host=1 event can count nothing (Arm VHE maps it onto EL0). */
#ifdef __aarch64__
#define EXCLUDE_HOST_WHY	"arm64: such an event counts only while a KVM guest runs, and under VHE EL0 is filtered"
#else
#define EXCLUDE_HOST_WHY	"the PMU counts guest mode only, as AMD's GuestOnly bit does"
#endif

/* A recognisable non-zero sig_data: a pre-5.13 kernel must see it to say E2BIG. */
#define SIGTRAP_PROBE_DATA	0x504d5350UL

struct probe_ctx {
	const char *sys;
	const char *proc;
	bool live_sys;		/* sys is the running system's sysfs */
	bool live_proc;		/* proc is the running system's procfs */
	bool oom;		/* some allocation failed: the object is incomplete */
};

/* ---- json helpers: remember allocation failures instead of checking each */

static json_object *jnew(struct probe_ctx *c, json_object *o)
{
	if (!o)
		c->oom = true;
	return o;
}

/* NULL in, JSON null out: that is how a missing file is reported. */
static json_object *jstr(struct probe_ctx *c, const char *s)
{
	return s ? jnew(c, json_object_new_string(s)) : NULL;
}

static json_object *jint(struct probe_ctx *c, int64_t v)
{
	return jnew(c, json_object_new_int64(v));
}

static json_object *jbool(struct probe_ctx *c, bool b)
{
	return jnew(c, json_object_new_boolean(b));
}

static json_object *jobj(struct probe_ctx *c)
{
	return jnew(c, json_object_new_object());
}

static json_object *jarr(struct probe_ctx *c)
{
	return jnew(c, json_object_new_array());
}

static void jset(struct probe_ctx *c, json_object *obj, const char *key, json_object *val)
{
	/* json-c leaves @val with the caller when the insert fails. */
	if (!obj || json_object_object_add(obj, key, val)) {
		json_object_put(val);
		c->oom = true;
	}
}

static void jpush(struct probe_ctx *c, json_object *arr, json_object *val)
{
	if (!arr || json_object_array_add(arr, val)) {
		json_object_put(val);
		c->oom = true;
	}
}

static __attribute__((format(printf, 3, 4)))
void jpushf(struct probe_ctx *c, json_object *arr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jpush(c, arr, jstr(c, buf));
}

/* ---- file helpers */

static __attribute__((format(printf, 3, 4)))
bool pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

/* Returns the bytes read (@buf is NUL-terminated, possibly truncated) or -errno. */
static ssize_t read_raw(const char *path, char *buf, size_t len)
{
	size_t total = 0;
	ssize_t n;
	int fd, err;

	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			close(fd);
			return err;
		}
		if (!n)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
		     s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

/* A sysfs/procfs value without its trailing newline; -errno when unreadable. */
static int read_value(const char *path, char *buf, size_t len)
{
	ssize_t n = read_raw(path, buf, len);
	char *t;

	if (n < 0)
		return n;
	t = trim(buf);
	memmove(buf, t, strlen(t) + 1);
	return 0;
}

static int read_ll(const char *path, long long *v)
{
	char buf[64], *end;
	int err;

	err = read_value(path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

static bool file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* "0-3,8,10-11" -> 7; @first gets the lowest CPU.  -EINVAL on junk. */
static int cpulist_count(const char *list, long *first)
{
	const char *p = list;
	long lo, hi, n = 0;
	char *end;

	*first = -1;
	while (*p) {
		lo = strtol(p, &end, 10);
		if (end == p || lo < 0)
			return -EINVAL;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return -EINVAL;
			p = end;
		}
		if (*first < 0 || lo < *first)
			*first = lo;
		n += hi - lo + 1;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return n;
}

/* ---- kernel */

static void probe_kernel(struct probe_ctx *c, json_object *root)
{
	char rel[VALUE_MAX], ver[VALUE_MAX], arch[256], path[PATH_MAX];
	json_object *k = jobj(c);
	struct utsname u;
	bool have_rel = false, have_ver = false, have_arch = false;

	/*
	 * uname() describes the running kernel, which is only right when the
	 * caller asked about the running system; a fake tree that lacks these
	 * files gets nulls rather than the host's answer.
	 */
	if (c->live_proc && !uname(&u)) {
		snprintf(rel, sizeof(rel), "%s", u.release);
		snprintf(ver, sizeof(ver), "%s", u.version);
		snprintf(arch, sizeof(arch), "%s", u.machine);
		have_rel = have_ver = have_arch = true;
	} else if (!c->live_proc) {
		have_rel = pathf(path, sizeof(path), "%s/sys/kernel/osrelease", c->proc) &&
			   !read_value(path, rel, sizeof(rel));
		have_ver = pathf(path, sizeof(path), "%s/sys/kernel/version", c->proc) &&
			   !read_value(path, ver, sizeof(ver));
		have_arch = pathf(path, sizeof(path), "%s/sys/kernel/arch", c->proc) &&
			    !read_value(path, arch, sizeof(arch));
	}
	jset(c, k, "release", jstr(c, have_rel ? rel : NULL));
	jset(c, k, "version", jstr(c, have_ver ? ver : NULL));
	jset(c, root, "kernel", k);
	jset(c, root, "arch", jstr(c, have_arch ? arch : NULL));
}

/* ---- cpu */

struct cpuinfo {
	bool present;
	bool hypervisor_flag;	/* x86 "flags" has "hypervisor" */
	char model[256];	/* x86 "model name" */
	char vendor[64];	/* x86 "vendor_id" */
	char implementer[32];	/* arm64 "CPU implementer" */
	char part[32];		/* arm64 "CPU part" */
	char bogomips[32];	/* arm64 "BogoMIPS": twice the generic timer MHz */
};

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

static void read_cpuinfo(struct probe_ctx *c, struct cpuinfo *ci)
{
	char path[PATH_MAX], *line = NULL, *colon, *key, *val;
	size_t cap = 0;
	FILE *f;

	memset(ci, 0, sizeof(*ci));
	if (!pathf(path, sizeof(path), "%s/cpuinfo", c->proc))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	ci->present = true;
	/* The first CPU's block decides; later blocks repeat the same keys. */
	while (getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		key = trim(line);
		val = trim(colon + 1);
		if (!strcmp(key, "model name") && !ci->model[0])
			snprintf(ci->model, sizeof(ci->model), "%s", val);
		else if (!strcmp(key, "vendor_id") && !ci->vendor[0])
			snprintf(ci->vendor, sizeof(ci->vendor), "%s", val);
		else if (!strcmp(key, "CPU implementer") && !ci->implementer[0])
			snprintf(ci->implementer, sizeof(ci->implementer), "%s", val);
		else if (!strcmp(key, "CPU part") && !ci->part[0])
			snprintf(ci->part, sizeof(ci->part), "%s", val);
		else if (!strcmp(key, "BogoMIPS") && !ci->bogomips[0])
			snprintf(ci->bogomips, sizeof(ci->bogomips), "%s", val);
		else if (!strcmp(key, "flags") && has_word(val, "hypervisor"))
			ci->hypervisor_flag = true;
	}
	free(line);
	fclose(f);
}

static const struct {
	unsigned int implementer;
	const char *name;
} arm_implementers[] = {
	{ 0x41, "ARM" },	{ 0x42, "Broadcom" },	{ 0x43, "Cavium" },
	{ 0x46, "Fujitsu" },	{ 0x48, "HiSilicon" },	{ 0x4e, "NVIDIA" },
	{ 0x50, "APM" },	{ 0x51, "Qualcomm" },	{ 0x61, "Apple" },
	{ 0x6d, "Microsoft" },	{ 0xc0, "Ampere" },
};

/* Arm Ltd parts; the skid allowances (skid-into-kernel) are keyed on these. */
static const struct {
	unsigned int part;
	const char *name;
} arm_parts[] = {
	{ 0xd03, "Cortex-A53" },	{ 0xd05, "Cortex-A55" },
	{ 0xd07, "Cortex-A57" },	{ 0xd08, "Cortex-A72" },
	{ 0xd09, "Cortex-A73" },	{ 0xd0a, "Cortex-A75" },
	{ 0xd0b, "Cortex-A76" },	{ 0xd0c, "Neoverse-N1" },
	{ 0xd0d, "Cortex-A77" },	{ 0xd40, "Neoverse-V1" },
	{ 0xd41, "Cortex-A78" },	{ 0xd44, "Cortex-X1" },
	{ 0xd49, "Neoverse-N2" },	{ 0xd4f, "Neoverse-V2" },
};

static const char *arm_implementer_name(unsigned int impl)
{
	size_t i;

	for (i = 0; i < sizeof(arm_implementers) / sizeof(arm_implementers[0]); i++)
		if (arm_implementers[i].implementer == impl)
			return arm_implementers[i].name;
	return NULL;
}

static void arm_model(unsigned int impl, unsigned int part, char *buf, size_t len)
{
	size_t i;

	if (impl == 0x41)
		for (i = 0; i < sizeof(arm_parts) / sizeof(arm_parts[0]); i++)
			if (arm_parts[i].part == part) {
				snprintf(buf, len, "%s", arm_parts[i].name);
				return;
			}
	snprintf(buf, len, "implementer 0x%02x part 0x%03x", impl, part);
}

static bool parse_hex(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return !errno && end != s && !*end;
}

static void probe_cpu(struct probe_ctx *c, json_object *root, const struct cpuinfo *ci)
{
	char path[PATH_MAX], buf[VALUE_MAX], model[128], midr_s[32], vendor_s[32];
	const char *model_p = NULL, *vendor_p = NULL, *midr_p = NULL;
	unsigned long long midr = 0, impl = 0, part = 0;
	json_object *cpu = jobj(c);
	long first = -1, online = -1;
	bool have_impl = false;

	if (pathf(path, sizeof(path), "%s/devices/system/cpu/online", c->sys) &&
	    !read_value(path, buf, sizeof(buf)))
		online = cpulist_count(buf, &first);
	if (online < 0 && c->live_sys)
		online = sysconf(_SC_NPROCESSORS_ONLN);

	/* cpu0 can be offline; its regs directory then does not exist. */
	if (pathf(path, sizeof(path), "%s/devices/system/cpu/cpu%ld/regs/identification/midr_el1",
		  c->sys, first < 0 ? 0 : first) &&
	    !read_value(path, buf, sizeof(buf)) && parse_hex(buf, &midr)) {
		snprintf(midr_s, sizeof(midr_s), "0x%016llx", midr);
		midr_p = midr_s;
		impl = (midr >> 24) & 0xff;
		part = (midr >> 4) & 0xfff;
		have_impl = true;
	} else if (ci->implementer[0] && ci->part[0]) {
		/* cpuinfo lacks the architecture field, so no MIDR is rebuilt. */
		have_impl = parse_hex(ci->implementer, &impl) && parse_hex(ci->part, &part);
	}

	if (ci->model[0]) {
		model_p = ci->model;
	} else if (have_impl) {
		arm_model(impl, part, model, sizeof(model));
		model_p = model;
	}
	if (ci->vendor[0]) {
		vendor_p = ci->vendor;
	} else if (have_impl) {
		vendor_p = arm_implementer_name(impl);
		if (!vendor_p) {
			snprintf(vendor_s, sizeof(vendor_s), "implementer 0x%02llx", impl);
			vendor_p = vendor_s;
		}
	}

	jset(c, cpu, "model", jstr(c, model_p));
	jset(c, cpu, "vendor", jstr(c, vendor_p));
	jset(c, cpu, "midr", jstr(c, midr_p));
	jset(c, cpu, "nr_cpus_online", online > 0 ? jint(c, online) : NULL);
	jset(c, root, "cpu", cpu);
}

/* ---- PMUs */

static int pmu_filter(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Byte order, not strcoll(): the output must not depend on the caller's locale. */
static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool pmu_is_core(const char *devices, const char *name)
{
	static const char *const never[] = {
		"software", "breakpoint", "tracepoint", "uprobe", "kprobe", "msr", "power",
	};
	static const char *const names[] = { "cpu", "cpu_core", "cpu_atom" };
	static const char *const prefixes[] = { "armv8_", "armv7_", "arm_cortex", "apple_" };
	char path[PATH_MAX];
	size_t i;

	if (!strncmp(name, "uncore", 6))
		return false;
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (!strcmp(name, never[i]))
			return false;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;

	/* Drivers with other names: a CPU mask plus a cycles event is a core PMU. */
	if (!pathf(path, sizeof(path), "%s/%s/cpus", devices, name) || !file_exists(path))
		return false;
	if (pathf(path, sizeof(path), "%s/%s/events/cpu_cycles", devices, name) &&
	    file_exists(path))
		return true;
	return pathf(path, sizeof(path), "%s/%s/events/cpu-cycles", devices, name) &&
	       file_exists(path);
}

/* Sorted PMU directory entries (symlinks in real sysfs); count or -errno. */
static int pmu_scan(const char *sys, char *devices, size_t len, struct dirent ***list)
{
	int n;

	if (!pathf(devices, len, "%s/bus/event_source/devices", sys))
		return -ENAMETOOLONG;
	n = scandir(devices, list, pmu_filter, name_cmp);
	return n < 0 ? -errno : n;
}

static void free_scan(struct dirent **list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static json_object *pmu_caps(struct probe_ctx *c, const char *devices, const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX], buf[VALUE_MAX];
	json_object *caps = jobj(c);
	struct dirent **list;
	int i, n;

	if (!pathf(dir, sizeof(dir), "%s/%s/caps", devices, name))
		return caps;
	n = scandir(dir, &list, pmu_filter, name_cmp);
	if (n < 0)
		return caps;
	for (i = 0; i < n; i++) {
		if (!pathf(path, sizeof(path), "%s/%s", dir, list[i]->d_name) ||
		    read_value(path, buf, sizeof(buf)))
			continue;
		jset(c, caps, list[i]->d_name, jstr(c, buf));
	}
	free_scan(list, n);
	return caps;
}

static void probe_pmus(struct probe_ctx *c, json_object *root, bool *hw)
{
	char devices[PATH_MAX], path[PATH_MAX];
	const char *core_name = NULL;
	json_object *pmus, *p;
	struct dirent **list;
	long long type;
	bool core;
	int i, n;

	*hw = false;
	n = pmu_scan(c->sys, devices, sizeof(devices), &list);
	if (n < 0) {
		jset(c, root, "pmus", NULL);
		jset(c, root, "hardware_pmu", jbool(c, false));
		jset(c, root, "core_pmu", NULL);
		return;
	}
	pmus = jarr(c);
	for (i = 0; i < n; i++) {
		const char *name = list[i]->d_name;

		if (!pathf(path, sizeof(path), "%s/%s", devices, name) || !is_dir(path))
			continue;
		core = pmu_is_core(devices, name);
		if (core && !core_name)
			core_name = name;
		p = jobj(c);
		jset(c, p, "name", jstr(c, name));
		jset(c, p, "type", pathf(path, sizeof(path), "%s/%s/type", devices, name) &&
			 !read_ll(path, &type) ? jint(c, type) : NULL);
		jset(c, p, "caps", pmu_caps(c, devices, name));
		jset(c, p, "core", jbool(c, core));
		jpush(c, pmus, p);
	}
	*hw = core_name != NULL;
	jset(c, root, "pmus", pmus);
	jset(c, root, "hardware_pmu", jbool(c, *hw));
	jset(c, root, "core_pmu", jstr(c, core_name));
	free_scan(list, n);
}

/**
 * pms_probe_has_core_pmu - whether the machine has a core (CPU) PMU
 * @sysfs_root: sysfs mount point, "/sys" for the running system; NULL means "/sys"
 * @name: receives the core PMU's name (the first in byte order when there are
 *	several, as on hybrid machines); may be NULL
 * @len: size of @name
 *
 * A core PMU is cpu, cpu_core, cpu_atom, armv8_*, armv7_*, arm_cortex*,
 * apple_*, or any other PMU with a cpus mask and a cpu_cycles/cpu-cycles
 * event; software, breakpoint, tracepoint, uprobe, kprobe, msr, power and
 * uncore* never are.
 *
 * Return: true if one was found under <sysfs_root>/bus/event_source/devices.
 * @name is set to "" when none was (or the directory cannot be read).
 */
bool pms_probe_has_core_pmu(const char *sysfs_root, char *name, size_t len)
{
	char devices[PATH_MAX], path[PATH_MAX];
	struct dirent **list;
	bool found = false;
	int i, n;

	if (name && len)
		name[0] = '\0';
	n = pmu_scan(sysfs_root ? sysfs_root : SYSFS_LIVE, devices, sizeof(devices), &list);
	if (n < 0)
		return false;
	for (i = 0; i < n && !found; i++) {
		if (!pathf(path, sizeof(path), "%s/%s", devices, list[i]->d_name) ||
		    !is_dir(path) || !pmu_is_core(devices, list[i]->d_name))
			continue;
		found = true;
		if (name && len)
			snprintf(name, len, "%s", list[i]->d_name);
	}
	free_scan(list, n);
	return found;
}

/* ---- sysctl */

static void probe_sysctl(struct probe_ctx *c, json_object *root)
{
	static const char *const knobs[] = {
		"perf_event_paranoid", "perf_event_max_sample_rate",
		"perf_cpu_time_max_percent", "nmi_watchdog",
	};
	json_object *s = jobj(c);
	char path[PATH_MAX];
	long long v;
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		bool ok = pathf(path, sizeof(path), "%s/sys/kernel/%s", c->proc, knobs[i]) &&
			  !read_ll(path, &v);

		jset(c, s, knobs[i], ok ? jint(c, v) : NULL);
	}
	jset(c, root, "sysctl", s);
}

/* ---- kernel command line */

/* The kernel treats '-' and '_' in parameter names as the same character. */
static bool param_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;

		if (x != y)
			return false;
	}
	return *a == *b;
}

static char *strip_quotes(char *s)
{
	size_t n;

	if (*s != '"')
		return s;
	s++;
	n = strlen(s);
	if (n && s[n - 1] == '"')
		s[n - 1] = '\0';
	return s;
}

static void probe_cmdline(struct probe_ctx *c, json_object *root)
{
	static const char *const keys[] = {
		"irqchip.gicv3_pseudo_nmi", "nmi_watchdog", "isolcpus", "nohz_full",
		"nosmt", "mitigations",
	};
	const char *vals[sizeof(keys) / sizeof(keys[0])] = { NULL };
	char path[PATH_MAX], *raw, *work = NULL, *p, *tok, *eq, *val;
	json_object *cl = jobj(c);
	bool in_quote;
	size_t i;

	raw = malloc(CMDLINE_MAX);
	if (!raw) {
		c->oom = true;
		goto out;
	}
	if (!pathf(path, sizeof(path), "%s/cmdline", c->proc) ||
	    read_value(path, raw, CMDLINE_MAX)) {
		free(raw);
		raw = NULL;
		goto out;
	}
	work = strdup(raw);
	if (!work) {
		c->oom = true;
		goto out;
	}

	p = work;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		tok = p;
		for (in_quote = false; *p; p++) {
			if (*p == '"')
				in_quote = !in_quote;
			else if (!in_quote && (*p == ' ' || *p == '\t' || *p == '\n'))
				break;
		}
		if (*p)
			*p++ = '\0';
		/* Everything after a bare "--" belongs to init, not the kernel. */
		if (!strcmp(tok, "--"))
			break;
		tok = strip_quotes(tok);
		eq = strchr(tok, '=');
		val = "";
		if (eq) {
			*eq = '\0';
			val = strip_quotes(eq + 1);
		}
		/* The last occurrence wins, as it does for the kernel's own parsing. */
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (param_eq(tok, keys[i]))
				vals[i] = val;
	}

out:
	jset(c, cl, "raw", jstr(c, raw));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		jset(c, cl, keys[i], jstr(c, vals[i]));
	jset(c, root, "cmdline", cl);
	free(work);
	free(raw);
}

/* ---- hypervisor and emulation */

struct hv_state {
	json_object *evidence;
	const char *kind;
	int rank;		/* how direct the evidence behind @kind is */
	bool any;
	bool kvm;		/* something says hardware-assisted KVM */
	bool tcg;		/* something says QEMU TCG */
	bool dummy_virt;	/* QEMU's arm/arm64 "virt" board */
};

/* Ranks: CPUID signature 3 > what the guest kernel found 2 > firmware tables 1. */
static __attribute__((format(printf, 5, 6)))
void hv_note(struct probe_ctx *c, struct hv_state *hv, const char *kind, int rank,
	     const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jpush(c, hv->evidence, jstr(c, buf));
	hv->any = true;
	if (kind && !strcmp(kind, "kvm"))
		hv->kvm = true;
	if (kind && rank > hv->rank) {
		hv->kind = kind;
		hv->rank = rank;
	}
}

#ifdef PMS_HAVE_CPUID
static void hv_cpuid(struct probe_ctx *c, struct hv_state *hv)
{
	static const struct {
		const char *sig;
		const char *kind;
	} sigs[] = {
		{ "KVMKVMKVM", "kvm" },		{ "TCGTCGTCGTCG", "qemu" },
		{ "XenVMMXenVMM", "xen" },	{ "VMwareVMware", "vmware" },
		{ "Microsoft Hv", "hyperv" },
	};
	unsigned int a, b, cx, d;
	char sig[13], shown[13];
	size_t i, j;

	if (!__get_cpuid(1, &a, &b, &cx, &d) || !(cx & (1u << 31)))
		return;
	/* Leaf 0x40000000 is only defined when the hypervisor bit is set. */
	__cpuid(0x40000000, a, b, cx, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &cx, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (i = j = 0; i < 12 && sig[i]; i++)
		if (sig[i] >= 0x20 && sig[i] < 0x7f)
			shown[j++] = sig[i];
	shown[j] = '\0';
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcmp(sig, sigs[i].sig))
			break;
	if (i < sizeof(sigs) / sizeof(sigs[0])) {
		if (!strcmp(sigs[i].sig, "TCGTCGTCGTCG"))
			hv->tcg = true;
		hv_note(c, hv, sigs[i].kind, 3, "cpuid 0x40000000 signature '%s'", shown);
	} else {
		hv_note(c, hv, NULL, 3, "cpuid hypervisor bit set, signature '%s'", shown);
	}
}
#endif

/* Devicetree string lists are NUL-separated. */
static bool dt_has(const char *buf, size_t len, const char *want)
{
	size_t off = 0;

	while (off < len) {
		if (!strcmp(buf + off, want))
			return true;
		off += strlen(buf + off) + 1;
	}
	return false;
}

static void dt_join(char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++)
		if (!buf[i])
			buf[i] = ',';
}

static void hv_dmi(struct probe_ctx *c, struct hv_state *hv)
{
	char path[PATH_MAX], vendor[256] = "", product[256] = "";
	const char *kind = NULL;

	if (pathf(path, sizeof(path), "%s/class/dmi/id/sys_vendor", c->sys))
		read_value(path, vendor, sizeof(vendor));
	if (pathf(path, sizeof(path), "%s/class/dmi/id/product_name", c->sys))
		read_value(path, product, sizeof(product));
	if (!vendor[0] && !product[0])
		return;

	if (strstr(product, "KVM"))
		kind = "kvm";
	else if (strstr(vendor, "QEMU"))
		kind = "qemu";
	else if (strstr(vendor, "Xen") || strstr(product, "HVM domU"))
		kind = "xen";
	else if (strstr(vendor, "VMware"))
		kind = "vmware";
	else if (strstr(vendor, "Microsoft") && strstr(product, "Virtual Machine"))
		kind = "hyperv";
	/* EC2 and GCE instances are KVM guests, but EC2 "*.metal" is bare metal. */
	else if (strstr(vendor, "Amazon EC2") && !strstr(product, "metal"))
		kind = "kvm";
	else if (strstr(vendor, "Google") && strstr(product, "Compute Engine"))
		kind = "kvm";
	else if (strstr(product, "VirtualBox"))
		hv_note(c, hv, NULL, 1, "dmi product_name '%s'", product);

	if (kind)
		hv_note(c, hv, kind, 1, "dmi sys_vendor '%s' product_name '%s'", vendor, product);
}

static void hv_clocks(struct probe_ctx *c, struct hv_state *hv)
{
	char path[PATH_MAX], buf[VALUE_MAX];
	struct dirent **list;
	int i, n;

	/* Paravirtual clocksources register only when the guest kernel found its host. */
	if (pathf(path, sizeof(path),
		  "%s/devices/system/clocksource/clocksource0/available_clocksource", c->sys) &&
	    !read_value(path, buf, sizeof(buf))) {
		if (has_word(buf, "kvm-clock"))
			hv_note(c, hv, "kvm", 2, "clocksource kvm-clock available");
		if (has_word(buf, "hyperv_clocksource_tsc_page"))
			hv_note(c, hv, "hyperv", 2,
				"clocksource hyperv_clocksource_tsc_page available");
		if (has_word(buf, "xen"))
			hv_note(c, hv, "xen", 2, "clocksource xen available");
	}

	/* ptp_kvm is the one KVM sign an arm64 guest shows in sysfs. */
	if (!pathf(path, sizeof(path), "%s/class/ptp", c->sys))
		return;
	n = scandir(path, &list, pmu_filter, name_cmp);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		if (pathf(path, sizeof(path), "%s/class/ptp/%s/clock_name", c->sys,
			  list[i]->d_name) &&
		    !read_value(path, buf, sizeof(buf)) && strstr(buf, "KVM"))
			hv_note(c, hv, "kvm", 2, "ptp clock '%s'", buf);
	}
	free_scan(list, n);
}

static void hv_devicetree(struct probe_ctx *c, struct hv_state *hv)
{
	char path[PATH_MAX], buf[VALUE_MAX];
	ssize_t n;

	if (pathf(path, sizeof(path), "%s/firmware/devicetree/base/hypervisor/compatible",
		  c->sys) &&
	    (n = read_raw(path, buf, sizeof(buf))) > 0) {
		bool xen = dt_has(buf, n, "xen,xen");

		dt_join(buf, n);
		hv_note(c, hv, xen ? "xen" : NULL, 1, "devicetree hypervisor node '%s'", trim(buf));
	}
	if (pathf(path, sizeof(path), "%s/firmware/devicetree/base/compatible", c->sys) &&
	    (n = read_raw(path, buf, sizeof(buf))) > 0 && dt_has(buf, n, "linux,dummy-virt")) {
		hv->dummy_virt = true;
		hv_note(c, hv, "qemu", 1,
			"devicetree compatible linux,dummy-virt (QEMU virt machine)");
	}
}

static void probe_hypervisor(struct probe_ctx *c, json_object *root, const struct cpuinfo *ci)
{
	struct hv_state hv = { .evidence = jarr(c) };
	char path[PATH_MAX], buf[VALUE_MAX];
	json_object *h = jobj(c), *emu_ev = jarr(c);
	bool emulated = false;

#ifdef PMS_HAVE_CPUID
	/* CPUID describes this CPU, not the tree: only for the running system. */
	if (c->live_sys && c->live_proc)
		hv_cpuid(c, &hv);
#endif
	if (ci->hypervisor_flag)
		hv_note(c, &hv, NULL, 0, "cpuinfo flags: hypervisor");
	if (pathf(path, sizeof(path), "%s/hypervisor/type", c->sys) &&
	    !read_value(path, buf, sizeof(buf)) && buf[0])
		hv_note(c, &hv, !strcmp(buf, "xen") ? "xen" : NULL, 2,
			"sysfs hypervisor/type '%s'", buf);
	hv_clocks(c, &hv);
	hv_dmi(c, &hv);
	hv_devicetree(c, &hv);

	jset(c, h, "detected", jbool(c, hv.any));
	jset(c, h, "kind", jstr(c, hv.kind));
	jset(c, h, "evidence", hv.evidence);
	jset(c, root, "hypervisor", h);

	/*
	 * KVM guests also boot QEMU's virt board, and nothing in sysfs proves
	 * the absence of KVM, so this stays a guess and says which way it went.
	 */
	if (hv.tcg) {
		emulated = true;
		jpushf(c, emu_ev, "cpuid signature TCGTCGTCGTCG: QEMU TCG");
	} else if (hv.dummy_virt && !hv.kvm) {
		emulated = true;
		jpushf(c, emu_ev, "best guess: QEMU virt machine (linux,dummy-virt) with no sign "
		       "of KVM (no kvm-clock, no KVM PTP clock, no KVM cpuid/DMI)");
	} else if (hv.kvm) {
		jpushf(c, emu_ev, "best guess: KVM evidence present, hardware-assisted");
	} else {
		jpushf(c, emu_ev, "best guess: no sign of an emulated machine");
	}
	/* 62.5 MHz was QEMU TCG's generic timer before 9.0; KVM passes the host's on. */
	if (emulated && !strcmp(ci->bogomips, "125.00"))
		jpushf(c, emu_ev, "cpuinfo BogoMIPS 125.00: 62.5 MHz generic timer, "
		       "QEMU TCG's default before 9.0");
	jset(c, root, "emulated", jbool(c, emulated));
	jset(c, root, "emulated_evidence", emu_ev);
}

/* ---- topology (hwloc, live system only) */

static json_object *probe_topology(struct probe_ctx *c)
{
	json_object *t = NULL, *kinds, *kind, *infos;
	hwloc_topology_t topo;
	hwloc_bitmap_t set = NULL;
	unsigned int nr_infos, j;
	struct hwloc_info_s *info;
	char *s = NULL;
	int i, nr, eff;

	if (hwloc_topology_init(&topo))
		return NULL;
	if (hwloc_topology_load(topo))
		goto out;

	t = jobj(c);
	jset(c, t, "packages", jint(c, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE)));
	jset(c, t, "cores", jint(c, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)));
	jset(c, t, "pus", jint(c, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)));
	jset(c, t, "numa_nodes", jint(c, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE)));
	if (hwloc_bitmap_list_asprintf(&s, hwloc_topology_get_topology_cpuset(topo)) < 0)
		s = NULL;
	jset(c, t, "cpuset", jstr(c, s));

	kinds = jarr(c);
	nr = hwloc_cpukinds_get_nr(topo, 0);
	if (nr <= 0) {
		kind = jobj(c);
		jset(c, kind, "cpuset", jstr(c, s));
		jset(c, kind, "efficiency", jint(c, -1));
		jset(c, kind, "infos", jobj(c));
		jset(c, kind, "note", jstr(c, "hwloc reports no CPU kinds (homogeneous)"));
		jpush(c, kinds, kind);
	}
	free(s);
	s = NULL;
	set = hwloc_bitmap_alloc();
	if (!set && nr > 0)
		c->oom = true;
	for (i = 0; set && i < nr; i++) {
		if (hwloc_cpukinds_get_info(topo, i, set, &eff, &nr_infos, &info, 0))
			continue;
		kind = jobj(c);
		if (hwloc_bitmap_list_asprintf(&s, set) < 0)
			s = NULL;
		jset(c, kind, "cpuset", jstr(c, s));
		free(s);
		s = NULL;
		jset(c, kind, "efficiency", jint(c, eff));
		infos = jobj(c);
		for (j = 0; j < nr_infos; j++)
			jset(c, infos, info[j].name, jstr(c, info[j].value));
		jset(c, kind, "infos", infos);
		jpush(c, kinds, kind);
	}
	jset(c, t, "cpukinds", kinds);
	hwloc_bitmap_free(set);
out:
	hwloc_topology_destroy(topo);
	return t;
}

/* ---- tracefs (live system only) */

static json_object *probe_tracefs(struct probe_ctx *c)
{
	json_object *t = jobj(c);
	const char *path = NULL;
	int ret;

	/*
	 * tracefs_tracing_dir() mounts tracefs when it is missing; a probe must
	 * not change the machine it describes, so only ask whether it is there.
	 */
	ret = tracefs_tracing_dir_is_mounted(false, &path);
	jset(c, t, "available", jbool(c, ret == 1 && path));
	jset(c, t, "path", jstr(c, ret == 1 ? path : NULL));
	if (ret == 0)
		jset(c, t, "note", jstr(c, "tracefs is not mounted (the probe does not mount it)"));
	return t;
}

/* ---- perf_event_open feature probes (live kernel, calling thread) */

/* The probes below read why an open failed from errno. */
static int perf_open(struct perf_event_attr *attr)
{
	int fd = pms_perf_open_self(attr, -1);

	if (fd < 0)
		errno = -fd;
	return fd;
}

/* state: 1 supported, 0 not, -1 unknown (null). */
static __attribute__((format(printf, 5, 6)))
void feature(struct probe_ctx *c, json_object *feats, const char *name, int state,
	     const char *fmt, ...)
{
	json_object *f = jobj(c);
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	jset(c, f, "supported", state < 0 ? NULL : jbool(c, state));
	jset(c, f, "detail", jstr(c, buf));
	jset(c, feats, name, f);
}

/* Errors that say nothing about the feature itself; true if one was reported. */
static bool feature_unknown(struct probe_ctx *c, json_object *feats, const char *name, int err)
{
	const char *en = pms_errno_name(err);

	switch (err) {
	case EACCES:
	case EPERM:
		feature(c, feats, name, -1, "%s: not permitted here (perf_event_paranoid or "
			"missing CAP_PERFMON): cannot tell", en);
		return true;
	case ENOSYS:
		feature(c, feats, name, -1, "%s: kernel built without perf events", en);
		return true;
	case EMFILE:
	case ENFILE:
	case ENOMEM:
		feature(c, feats, name, -1, "%s: out of resources: cannot tell", en);
		return true;
	}
	return false;
}

static void feat_sigtrap(struct probe_ctx *c, json_object *feats)
{
	struct perf_event_attr attr;
	int fd, err;

	pms_perf_attr_user(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.sigtrap = 1;
	attr.remove_on_exec = 1;	/* the kernel refuses sigtrap without it */
	attr.sig_data = SIGTRAP_PROBE_DATA;
	fd = perf_open(&attr);
	if (fd >= 0) {
		close(fd);
		feature(c, feats, "sigtrap", 1, "task-clock with sigtrap=1, remove_on_exec=1 and "
			"sig_data opens (attr size %zu)", sizeof(attr));
		return;
	}
	err = errno;
	if (feature_unknown(c, feats, "sigtrap", err))
		return;
	if (err == E2BIG)
		feature(c, feats, "sigtrap", 0, "E2BIG: kernel predates attr.sig_data (5.13+); "
			"it knows attr size %u", attr.size);
	else if (err == EINVAL)
		feature(c, feats, "sigtrap", 0, "EINVAL: kernel rejects attr.sigtrap");
	else
		feature(c, feats, "sigtrap", -1, "%s: unexpected error, cannot tell",
			pms_errno_name(err));
}

/* The aux-pause scenario's decisive ABI case: aux_start_paused on task-clock. */
static void feat_aux_action(struct probe_ctx *c, json_object *feats)
{
	char detail[256];
	int state = pms_auxabi_supported(detail, sizeof(detail));

	feature(c, feats, "aux_action", state, "%s", detail);
}

static volatile unsigned long probe_sink;

static __attribute__((noinline)) void user_loop(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		probe_sink = probe_sink + i;
}

static void feat_exclude_host(struct probe_ctx *c, json_object *feats, bool hw)
{
	struct perf_event_attr attr;
	struct {
		__u64 value, enabled, running;
	} rd;
	int fd, err;
	ssize_t n;

	if (!hw) {
		feature(c, feats, "exclude_host", -1, "no hardware PMU: not measurable");
		return;
	}
	pms_perf_attr_user(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.exclude_host = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = perf_open(&attr);
	if (fd < 0) {
		err = errno;
		if (!feature_unknown(c, feats, "exclude_host", err))
			feature(c, feats, "exclude_host", -1, "%s: user-only instructions event "
				"with exclude_host=1 does not open, cannot tell",
				pms_errno_name(err));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	user_loop(EXCLUDE_HOST_LOOP);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	n = read(fd, &rd, sizeof(rd));
	err = errno;
	close(fd);

	if (n != (ssize_t)sizeof(rd))
		feature(c, feats, "exclude_host", -1, "%s: reading the counter failed",
			n < 0 ? pms_errno_name(err) : "short read");
	else if (!rd.running)
		feature(c, feats, "exclude_host", -1, "the event never got a counter "
			"(time_running 0): cannot tell");
	else if (!rd.value)
		feature(c, feats, "exclude_host", 0, "exclude_host=1 counts no host user space "
			"here (%s): 0 instructions over %lu loop iterations",
			EXCLUDE_HOST_WHY, EXCLUDE_HOST_LOOP);
	else
		feature(c, feats, "exclude_host", 1, "exclude_host=1 user-only event counted "
			"%llu instructions over %lu loop iterations",
			(unsigned long long)rd.value, EXCLUDE_HOST_LOOP);
}

static __attribute__((noinline)) void breakpoint_target(void)
{
	__asm__ volatile("" ::: "memory");
}

static void feat_hw_breakpoint(struct probe_ctx *c, json_object *feats)
{
	struct perf_event_attr attr;
	int fd, err;

	pms_perf_attr_user(&attr, PERF_TYPE_BREAKPOINT, 0);
	attr.bp_type = HW_BREAKPOINT_X;
	attr.bp_addr = (uintptr_t)breakpoint_target;
	/* x86 insists on sizeof(long) for execute breakpoints; arm64 fixes it up to 4. */
	attr.bp_len = sizeof(long);
	fd = perf_open(&attr);
	if (fd >= 0) {
		close(fd);
		feature(c, feats, "hw_breakpoint", 1, "execute breakpoint on a user function "
			"opens");
		return;
	}
	err = errno;
	if (feature_unknown(c, feats, "hw_breakpoint", err))
		return;
	if (err == ENOSPC)
		feature(c, feats, "hw_breakpoint", 0, "ENOSPC: no free breakpoint slot (none "
			"exposed to this guest, or all in use)");
	else
		feature(c, feats, "hw_breakpoint", 0, "%s: execute breakpoint does not open",
			pms_errno_name(err));
}

static void feat_use_clockid(struct probe_ctx *c, json_object *feats)
{
	struct perf_event_attr attr;
	int fd, err;

	pms_perf_attr_user(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	fd = perf_open(&attr);
	if (fd >= 0) {
		close(fd);
		feature(c, feats, "use_clockid", 1, "use_clockid=1 with CLOCK_MONOTONIC opens");
		return;
	}
	err = errno;
	if (feature_unknown(c, feats, "use_clockid", err))
		return;
	feature(c, feats, "use_clockid", 0, "%s: use_clockid=1 with CLOCK_MONOTONIC rejected",
		pms_errno_name(err));
}

/*
 * What the sigtrap scenario relies on, each probed on its own so that a
 * result says which part an older kernel lacks.
 */
static void feat_remove_on_exec(struct probe_ctx *c, json_object *feats)
{
	struct perf_event_attr attr;
	int fd, err, without;

	pms_perf_attr_user(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.sigtrap = 1;
	attr.sig_data = SIGTRAP_PROBE_DATA;
	fd = perf_open(&attr);		/* sigtrap without remove_on_exec */
	without = fd >= 0 ? 0 : errno;
	if (fd >= 0)
		close(fd);
	attr.remove_on_exec = 1;
	attr.sigtrap = 0;
	fd = perf_open(&attr);
	if (fd >= 0) {
		close(fd);
		feature(c, feats, "remove_on_exec", 1, "remove_on_exec=1 opens; sigtrap=1 "
			"without it %s", without ? pms_errno_name(without) : "opens too (unexpected)");
		return;
	}
	err = errno;
	if (feature_unknown(c, feats, "remove_on_exec", err))
		return;
	feature(c, feats, "remove_on_exec", 0, "%s: remove_on_exec=1 rejected (5.13+)",
		pms_errno_name(err));
}

static void feat_sigtrap_inherit_thread(struct probe_ctx *c, json_object *feats)
{
	struct perf_event_attr attr;
	int fd, err, alone;

	pms_perf_attr_user(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	attr.sigtrap = 1;
	attr.remove_on_exec = 1;
	attr.sig_data = SIGTRAP_PROBE_DATA;
	attr.inherit_thread = 1;	/* without inherit: the kernel must refuse */
	fd = perf_open(&attr);
	alone = fd >= 0 ? 0 : errno;
	if (fd >= 0)
		close(fd);
	attr.inherit = 1;
	fd = perf_open(&attr);
	if (fd >= 0) {
		close(fd);
		feature(c, feats, "sigtrap_inherit_thread", 1, "sigtrap with inherit=1 "
			"inherit_thread=1 opens; inherit_thread without inherit %s",
			alone ? pms_errno_name(alone) : "opens too (unexpected)");
		return;
	}
	err = errno;
	if (feature_unknown(c, feats, "sigtrap_inherit_thread", err))
		return;
	feature(c, feats, "sigtrap_inherit_thread", 0, "%s: sigtrap with inherit=1 "
		"inherit_thread=1 rejected", pms_errno_name(err));
}

static volatile uint64_t probe_watched[16] __attribute__((aligned(64)));

static void watch_attr(struct perf_event_attr *attr, volatile void *addr)
{
	pms_perf_attr_user(attr, PERF_TYPE_BREAKPOINT, 0);
	attr->bp_type = HW_BREAKPOINT_W;
	attr->bp_addr = (uintptr_t)addr;
	attr->bp_len = HW_BREAKPOINT_LEN_8;
	attr->sample_period = 1;
	attr->sigtrap = 1;
	attr->remove_on_exec = 1;
	attr->sig_data = SIGTRAP_PROBE_DATA;
}

static void feat_sigtrap_modify(struct probe_ctx *c, json_object *feats)
{
	struct perf_event_attr attr;
	int fd, err, ret;

	watch_attr(&attr, &probe_watched[0]);
	fd = perf_open(&attr);
	if (fd < 0) {
		err = errno;
		if (!feature_unknown(c, feats, "sigtrap_modify_attributes", err))
			feature(c, feats, "sigtrap_modify_attributes", -1, "%s: no sigtrap "
				"watchpoint opens here, cannot tell", pms_errno_name(err));
		return;
	}
	attr.bp_addr = (uintptr_t)&probe_watched[8];
	ret = ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr);
	err = errno;
	close(fd);
	if (!ret)
		feature(c, feats, "sigtrap_modify_attributes", 1, "PERF_EVENT_IOC_MODIFY_ATTRIBUTES "
			"moves a sigtrap watchpoint's bp_addr");
	else
		feature(c, feats, "sigtrap_modify_attributes", 0, "%s: "
			"PERF_EVENT_IOC_MODIFY_ATTRIBUTES on a sigtrap watchpoint refused (4.17+ "
			"for breakpoints, 5.13+ applied to inherited children)", pms_errno_name(err));
}

static volatile uint32_t probe_flags, probe_traps;

static void probe_on_trap(int signo, siginfo_t *si, void *uc)
{
	uint32_t flags;

	/* si_perf_flags: after the header, si_addr, si_perf_data and si_perf_type. */
	memcpy(&flags, (const char *)si + 16 + 2 * sizeof(void *) + 4, sizeof(flags));
	probe_flags = flags;
	probe_traps++;
}

/*
 * In a child, because a kernel without si_perf_flags (before 5.18) forces a
 * SIGTRAP that arrives blocked, which kills the task: block SIGTRAP, write
 * a watched variable, unblock.  Exit 10: delivered at the unblock with
 * TRAP_PERF_FLAG_ASYNC; 11: delivered without it; 12: not delivered.
 */
static void feat_sigtrap_flags(struct probe_ctx *c, json_object *feats)
{
	const char *name = "sigtrap_si_perf_flags";
	struct perf_event_attr attr;
	int status = 0, i;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		feature(c, feats, name, -1, "fork: %s: cannot tell", pms_errno_name(errno));
		return;
	}
	if (pid == 0) {
		struct sigaction sa = { 0 };
		sigset_t set;
		int fd;

		sa.sa_sigaction = probe_on_trap;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGTRAP, &sa, NULL);
		watch_attr(&attr, &probe_watched[0]);
		attr.disabled = 0;
		fd = perf_open(&attr);
		if (fd < 0)
			_exit(13);
		sigemptyset(&set);
		sigaddset(&set, SIGTRAP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		probe_watched[0] = 1;
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		_exit(!probe_traps ? 12 : probe_flags & 1 ? 10 : 11);
	}
	/* A child that does not end in 5 s is stuck: kill it rather than wait. */
	for (i = 0; i < 2500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		poll(NULL, 0, 2);
	if (i == 2500) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		feature(c, feats, name, -1, "the probe child did not finish: cannot tell");
		return;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP)
		feature(c, feats, name, 0, "a SIGTRAP raised while blocked killed the task: the "
			"kernel forces it (before 5.18, no si_perf_flags)");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 10)
		feature(c, feats, name, 1, "a SIGTRAP raised while blocked came at the unblock with "
			"si_perf_flags TRAP_PERF_FLAG_ASYNC");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 11)
		feature(c, feats, name, 0, "a SIGTRAP raised while blocked came at the unblock "
			"without TRAP_PERF_FLAG_ASYNC");
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 13)
		feature(c, feats, name, -1, "no sigtrap watchpoint opens here: cannot tell");
	else
		feature(c, feats, name, -1, "the probe child ended with status 0x%x: cannot tell",
			(unsigned int)status);
}

static void probe_features(struct probe_ctx *c, json_object *root, bool hw)
{
	json_object *feats = jobj(c);

	feat_sigtrap(c, feats);
	feat_aux_action(c, feats);
	feat_exclude_host(c, feats, hw);
	feat_hw_breakpoint(c, feats);
	feat_use_clockid(c, feats);
	feat_remove_on_exec(c, feats);
	feat_sigtrap_inherit_thread(c, feats);
	feat_sigtrap_modify(c, feats);
	feat_sigtrap_flags(c, feats);
	jset(c, root, "features", feats);
}

/* ---- entry point */

/**
 * pms_probe_host - describe the machine, as the `host` block of a result
 * @cfg: roots to read (a fake tree in tests) and whether to run the
 *	perf_event_open(2) feature probes; NULL means the running system,
 *	without feature probes
 *
 * Reads below @cfg->sysfs_root and @cfg->procfs_root.  The hwloc topology,
 * tracefs and CPUID look at the running system and are only consulted when
 * the roots are exactly "/sys" and "/proc"; otherwise topology and tracefs
 * are null.  Feature probes open (and close) events on the calling thread;
 * they never describe a fake tree.  Nothing is printed and nothing is
 * mounted.
 *
 * Return: a new object the caller puts, never NULL but for ENOMEM (then
 * errno is ENOMEM).  Missing or unreadable files give null members.
 */
json_object *pms_probe_host(const struct pms_probe_cfg *cfg)
{
	struct probe_ctx c = {
		.sys = cfg && cfg->sysfs_root ? cfg->sysfs_root : SYSFS_LIVE,
		.proc = cfg && cfg->procfs_root ? cfg->procfs_root : PROCFS_LIVE,
	};
	struct cpuinfo ci;
	json_object *root;
	char stamp[32];
	struct tm tm;
	time_t now;
	bool hw;

	c.live_sys = !strcmp(c.sys, SYSFS_LIVE);
	c.live_proc = !strcmp(c.proc, PROCFS_LIVE);

	root = json_object_new_object();
	if (!root) {
		errno = ENOMEM;
		return NULL;
	}
	read_cpuinfo(&c, &ci);
	probe_kernel(&c, root);
	probe_cpu(&c, root, &ci);
	probe_pmus(&c, root, &hw);
	probe_sysctl(&c, root);
	probe_cmdline(&c, root);
	probe_hypervisor(&c, root, &ci);
	jset(&c, root, "topology", c.live_sys ? probe_topology(&c) : NULL);
	jset(&c, root, "tracefs", c.live_sys ? probe_tracefs(&c) : NULL);
	if (cfg && cfg->feature_probes)
		probe_features(&c, root, hw);
	if (c.live_sys && c.live_proc) {
		char src[PATH_MAX];
		int kc = pms_kconfig("CONFIG_PID_IN_CONTEXTIDR", src, sizeof(src));
		json_object *k = jobj(&c);

		jset(&c, k, "value", kc == -ENOENT ? NULL : jstr(&c, kc == 1 ? "y" : kc == 2 ?
								 "m" : "not set"));
		jset(&c, k, "source", src[0] ? jstr(&c, src) : NULL);
		jset(&c, root, "config_pid_in_contextidr", k);
		jset(&c, root, "pid_namespace", pms_probe_pid_namespace());
		jset(&c, root, "spe", pms_probe_spe(SYSFS_LIVE "/bus/event_source/devices"));
	}

	now = time(NULL);
	if (gmtime_r(&now, &tm) && strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
		jset(&c, root, "probe_time_utc", jstr(&c, stamp));
	else
		jset(&c, root, "probe_time_utc", NULL);

	if (c.oom) {
		json_object_put(root);
		errno = ENOMEM;
		return NULL;
	}
	return root;
}

/* ---- PID namespaces, kernel configuration, Arm SPE (the pidns scenario) */

/*
 * The running kernel's configuration as a stream: /boot/config-RELEASE, else
 * /proc/config.gz through gzip -dc (no zlib here for one file: gzip is on
 * every distribution that ships one).  @src gets the file's name; *@piped
 * says which to close it with (kconfig_close).  Return: NULL when neither
 * can be read.
 */
static FILE *kconfig_open(char *src, size_t len, bool *piped)
{
	struct utsname u;
	char path[PATH_MAX];
	FILE *f;

	src[0] = '\0';
	*piped = false;
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = fopen(path, "re");
		if (f) {
			snprintf(src, len, "%s", path);
			return f;
		}
	}
	if (access("/proc/config.gz", R_OK))
		return NULL;
	f = popen("gzip -dc /proc/config.gz 2>/dev/null", "re");
	if (!f)
		return NULL;
	*piped = true;
	snprintf(src, len, "/proc/config.gz");
	return f;
}

/* Close what kconfig_open() gave.  Return: 0, or -EIO when gzip failed. */
static int kconfig_close(FILE *f, bool piped)
{
	if (!piped)
		return fclose(f) ? -EIO : 0;
	return pclose(f) ? -EIO : 0;
}

/*
 * Scan @f for "NAME=value" to its end (a pipe left half read would kill
 * gzip with SIGPIPE, and pclose() would call that a failure).
 * Return: 1 y, 2 m, 0 not set or absent.
 */
static int kconfig_scan(FILE *f, const char *name)
{
	char line[512];
	size_t n = strlen(name);
	int v = 0;

	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == '=')
			v = line[n + 1] == 'y' ? 1 : line[n + 1] == 'm' ? 2 : 0;
	return v;
}

int pms_kconfig(const char *name, char *src, size_t len)
{
	bool piped;
	FILE *f = kconfig_open(src, len, &piped);
	int v;

	if (!f)
		return -ENOENT;
	v = kconfig_scan(f, name);
	if (kconfig_close(f, piped)) {
		src[0] = '\0';
		return -ENOENT;
	}
	return v;
}

/* Hash what @f gives until EOF.  Return: 0 or -EIO. */
static int hash_stream(FILE *f, struct pms_sha256 *s)
{
	char buf[8192];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), f)))
		pms_sha256_update(s, buf, n);
	return ferror(f) ? -EIO : 0;
}

int pms_kconfig_sha256(char hex[65], char *src, size_t len)
{
	struct pms_sha256 s;
	bool piped;
	FILE *f = kconfig_open(src, len, &piped);
	int ret;

	if (!f)
		return -ENOENT;
	pms_sha256_init(&s);
	ret = hash_stream(f, &s);
	if (kconfig_close(f, piped) || ret) {
		src[0] = '\0';
		return -EIO;
	}
	pms_sha256_hex(&s, hex);
	return 0;
}

json_object *pms_probe_pid_namespace(void)
{
	json_object *o = json_object_new_object();
	char line[256];
	struct stat st;
	int levels = 0;
	FILE *f;

	if (!o)
		return NULL;
	if (!stat("/proc/self/ns/pid", &st)) {
		json_object_object_add(o, "dev_major", json_object_new_int64(major(st.st_dev)));
		json_object_object_add(o, "dev_minor", json_object_new_int64(minor(st.st_dev)));
		json_object_object_add(o, "inode", json_object_new_uint64(st.st_ino));
	}
	f = fopen("/proc/self/status", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char *p = line + 6, *end;

			if (strncmp(line, "NSpid:", 6))
				continue;
			for (;;) {
				strtol(p, &end, 10);
				if (end == p)
					break;
				levels++;
				p = end;
			}
		}
		fclose(f);
	}
	json_object_object_add(o, "nspid_levels", levels ? json_object_new_int(levels) : NULL);
	json_object_object_add(o, "initial", levels ? json_object_new_boolean(levels == 1) : NULL);
	return o;
}

json_object *pms_probe_spe(const char *devices)
{
	json_object *arr = json_object_new_array();
	struct dirent *d;
	DIR *dir;

	if (!arr)
		return NULL;
	dir = opendir(devices);
	if (!dir)
		return arr;
	while ((d = readdir(dir))) {
		char path[PATH_MAX], buf[VALUE_MAX];
		json_object *pmu, *caps;
		struct dirent *cd;
		DIR *cdir;

		if (strncmp(d->d_name, "arm_spe", 7))
			continue;
		pmu = json_object_new_object();
		json_object_object_add(pmu, "name", json_object_new_string(d->d_name));
		snprintf(path, sizeof(path), "%s/%s/type", devices, d->d_name);
		json_object_object_add(pmu, "type", read_value(path, buf, sizeof(buf)) ? NULL :
				       json_object_new_int64(strtoll(buf, NULL, 10)));
		caps = json_object_new_object();
		snprintf(path, sizeof(path), "%s/%s/caps", devices, d->d_name);
		cdir = opendir(path);
		while (cdir && (cd = readdir(cdir))) {
			char cp[PATH_MAX + 256];

			if (cd->d_name[0] == '.')
				continue;
			snprintf(cp, sizeof(cp), "%s/%s", path, cd->d_name);
			if (!read_value(cp, buf, sizeof(buf)))
				json_object_object_add(caps, cd->d_name, json_object_new_string(buf));
		}
		if (cdir)
			closedir(cdir);
		json_object_object_add(pmu, "caps", caps);
		json_object_array_add(arr, pmu);
	}
	closedir(dir);
	return arr;
}
