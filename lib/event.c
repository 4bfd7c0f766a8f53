/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event specs.  A perf-style spec ("cycles:u", "cpu/event=0x3c/", "r00c0",
 * "armv8_pmuv3_0/br_retired/") becomes a perf_event_attr plus what one
 * overflow of that counter means.  PMU types, formats and event aliases are
 * read from a sysfs root passed in, so the unit tests run against fake trees
 * and results name the same PMU the kernel used.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

#include "pms-auxabi.h"
#include "pms-event.h"
#include "pms-util.h"

#define PMS_SYSFS_EVENT_SOURCE	"/sys/bus/event_source/devices"
/* format/ and events/ files hold one short line; anything longer is not one. */
#define PMS_SYSFS_LINE		512
/* Room for a whole "offers ..." list before it is cut with "...". */
#define PMS_LIST_LEN		2048

/*
 * A perf type and a config only mean something together: the software type
 * with PERF_COUNT_HW_CPU_CYCLES silently opens cpu-clock.  The macros paste
 * the enum prefix that matches the type, so a table row cannot mix them.
 */
struct pms_typed_config {
	__u32 type;
	__u64 config;
};

#define PMS_HW(id)	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_##id }
#define PMS_SW(id)	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##id }

struct pms_symbol {
	const char *name;
	struct pms_typed_config tc;
};

/* The first row of a pair is its canonical name; later rows are aliases. */
static const struct pms_symbol pms_hw_symbols[] = {
	{ "cycles",			PMS_HW(CPU_CYCLES) },
	{ "cpu-cycles",			PMS_HW(CPU_CYCLES) },
	{ "instructions",		PMS_HW(INSTRUCTIONS) },
	{ "cache-references",		PMS_HW(CACHE_REFERENCES) },
	{ "cache-misses",		PMS_HW(CACHE_MISSES) },
	{ "branches",			PMS_HW(BRANCH_INSTRUCTIONS) },
	{ "branch-instructions",	PMS_HW(BRANCH_INSTRUCTIONS) },
	{ "branch-misses",		PMS_HW(BRANCH_MISSES) },
	{ "bus-cycles",			PMS_HW(BUS_CYCLES) },
	{ "stalled-cycles-frontend",	PMS_HW(STALLED_CYCLES_FRONTEND) },
	{ "idle-cycles-frontend",	PMS_HW(STALLED_CYCLES_FRONTEND) },
	{ "stalled-cycles-backend",	PMS_HW(STALLED_CYCLES_BACKEND) },
	{ "idle-cycles-backend",	PMS_HW(STALLED_CYCLES_BACKEND) },
	{ "ref-cycles",			PMS_HW(REF_CPU_CYCLES) },
};

static const struct pms_symbol pms_sw_symbols[] = {
	{ "cpu-clock",			PMS_SW(CPU_CLOCK) },
	{ "task-clock",			PMS_SW(TASK_CLOCK) },
	{ "page-faults",		PMS_SW(PAGE_FAULTS) },
	{ "faults",			PMS_SW(PAGE_FAULTS) },
	{ "context-switches",		PMS_SW(CONTEXT_SWITCHES) },
	{ "cs",				PMS_SW(CONTEXT_SWITCHES) },
	{ "cpu-migrations",		PMS_SW(CPU_MIGRATIONS) },
	{ "migrations",			PMS_SW(CPU_MIGRATIONS) },
	{ "minor-faults",		PMS_SW(PAGE_FAULTS_MIN) },
	{ "major-faults",		PMS_SW(PAGE_FAULTS_MAJ) },
	{ "alignment-faults",		PMS_SW(ALIGNMENT_FAULTS) },
	{ "emulation-faults",		PMS_SW(EMULATION_FAULTS) },
	{ "dummy",			PMS_SW(DUMMY) },
};

#define PMS_NSYMS(tab)	(sizeof(tab) / sizeof((tab)[0]))

/* Modifier letters we take, in perf's meaning; listed in error messages. */
#define PMS_MODIFIERS	"u, k, h, G, H, I, p, D, e"

struct pms_modifiers {
	bool user, kernel, hv;
	bool guest, host;
	bool idle, pinned, exclusive;
	int precise;
};

/* What resolving terms against one PMU needs. */
struct pms_term_ctx {
	const char *root;
	const char *pmu;
	struct perf_event_attr *attr;
	char *err;
	size_t errlen;
};

struct pms_names {
	char **v;
	size_t n;
};

enum pms_list_kind {
	PMS_LIST_PMUS,
	PMS_LIST_EVENTS,
	PMS_LIST_FORMATS,
};

/* A list being written into a caller's buffer, cut with "..." when full. */
struct pms_sbuf {
	char *buf;
	size_t len;
	size_t used;
	bool full;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	n = vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* A cut message should say so rather than stop mid-word. */
	if (n >= 0 && (size_t)n >= errlen && errlen > 4)
		memcpy(err + errlen - 4, "...", 4);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/*
 * Names end up in paths under the sysfs root, so nothing that could climb
 * out of it ('/', a leading '.') gets through.
 */
static bool valid_name(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && !strchr("_-.", *s))
			return false;
	}
	return true;
}

static int sysfs_path(char *buf, size_t len, const char *root, const char *pmu,
		      const char *dir, const char *name)
{
	int n;

	if (dir && name)
		n = snprintf(buf, len, "%s/%s/%s/%s", root, pmu, dir, name);
	else if (dir || name)
		n = snprintf(buf, len, "%s/%s/%s", root, pmu, dir ? dir : name);
	else
		n = snprintf(buf, len, "%s/%s", root, pmu);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

static int read_pmu_file(const char *root, const char *pmu, const char *dir,
			 const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	ret = sysfs_path(path, sizeof(path), root, pmu, dir, name);
	if (ret)
		return ret;
	ret = pms_read_line(path, buf, len);
	/* A PMU without an events/ or format/ directory simply has none. */
	if (ret == -ENOTDIR || ret == -EISDIR)
		ret = -ENOENT;
	return ret;
}

/* Decimal, or hex with 0x; no octal, signs or spaces, which perf rejects too. */
static int parse_u64(const char *s, __u64 *out)
{
	unsigned long long v;
	const char *digits = s;
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = s + 2;
		base = 16;
		if (!isxdigit((unsigned char)*digits))
			return -EINVAL;
	} else if (!isdigit((unsigned char)*digits)) {
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(digits, &end, base);
	if (*end || errno == ERANGE)
		return -EINVAL;
	*out = v;
	return 0;
}

static int read_pmu_type(const char *root, const char *pmu, __u32 *type)
{
	char buf[32];
	__u64 v;
	int ret;

	ret = read_pmu_file(root, pmu, NULL, "type", buf, sizeof(buf));
	if (ret)
		return ret;
	if (parse_u64(buf, &v) || v > UINT32_MAX)
		return -EINVAL;
	*type = v;
	return 0;
}

static void names_free(struct pms_names *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* events/ also holds .scale, .unit, ... companions, which are not events. */
static bool event_companion(const char *name)
{
	static const char * const suffix[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t n = strlen(name), i, s;

	for (i = 0; i < PMS_NSYMS(suffix); i++) {
		s = strlen(suffix[i]);
		if (n > s && !strcmp(name + n - s, suffix[i]))
			return true;
	}
	return false;
}

/*
 * Sorted names under <root>/<pmu>/<dir> (or the PMUs under <root>).  Sorted
 * with strcmp, not the locale, so error messages are stable in tests and CI.
 */
static int list_names(const char *root, const char *pmu, const char *dir,
		      enum pms_list_kind kind, struct pms_names *out)
{
	char path[PATH_MAX], entry[PATH_MAX];
	struct dirent *de;
	struct stat st;
	char **v;
	DIR *d;
	int ret;

	out->v = NULL;
	out->n = 0;
	if (kind == PMS_LIST_PMUS)
		ret = snprintf(path, sizeof(path), "%s", root) >= (int)sizeof(path) ?
		      -ENAMETOOLONG : 0;
	else
		ret = sysfs_path(path, sizeof(path), root, pmu, dir, NULL);
	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!valid_name(de->d_name))
			continue;
		if (kind == PMS_LIST_EVENTS && event_companion(de->d_name))
			continue;
		/*
		 * Real sysfs PMU entries are symlinks into /sys/devices, so
		 * d_type cannot tell a PMU from a file: stat through them.
		 */
		if (kind == PMS_LIST_PMUS) {
			if (snprintf(entry, sizeof(entry), "%s/%s", path, de->d_name) >=
			    (int)sizeof(entry))
				continue;
			if (stat(entry, &st) || !S_ISDIR(st.st_mode))
				continue;
		}
		v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v)
			goto nomem;
		out->v = v;
		out->v[out->n] = strdup(de->d_name);
		if (!out->v[out->n])
			goto nomem;
		out->n++;
	}
	closedir(d);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_names);
	return 0;
nomem:
	closedir(d);
	names_free(out);
	return -ENOMEM;
}

static void sbuf_init(struct pms_sbuf *sb, char *buf, size_t len)
{
	sb->buf = buf;
	sb->len = len;
	sb->used = 0;
	sb->full = false;
	if (len)
		buf[0] = '\0';
}

static void sbuf_item(struct pms_sbuf *sb, const char *item)
{
	static const char cut[] = ", ...";
	const char *sep = sb->used ? ", " : "";
	size_t need = strlen(sep) + strlen(item);

	if (sb->full || !sb->len)
		return;
	/* Keep room for the ", ..." that says the list was cut. */
	if (sb->used + need + sizeof(cut) > sb->len) {
		sb->full = true;
		if (sb->used + sizeof(cut) <= sb->len) {
			memcpy(sb->buf + sb->used, sb->used ? cut : cut + 2,
			       sb->used ? sizeof(cut) : sizeof(cut) - 2);
		}
		return;
	}
	sb->used += sprintf(sb->buf + sb->used, "%s%s", sep, item);
}

static const struct pms_symbol *sym_find(const struct pms_symbol *tab, size_t n,
					 const char *name)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (strcmp(tab[i].name, name))
			continue;
		/* Return the canonical row so ev->name never depends on the alias. */
		for (j = 0; j < i; j++) {
			if (tab[j].tc.type == tab[i].tc.type &&
			    tab[j].tc.config == tab[i].tc.config)
				return &tab[j];
		}
		return &tab[i];
	}
	return NULL;
}

static void sym_list(struct pms_sbuf *sb, const struct pms_symbol *tab, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (sym_find(tab, n, tab[i].name) == &tab[i])
			sbuf_item(sb, tab[i].name);
	}
}

static bool file_exists(const char *root, const char *pmu, const char *name)
{
	char path[PATH_MAX];

	if (sysfs_path(path, sizeof(path), root, pmu, NULL, name))
		return false;
	return access(path, F_OK) == 0;
}

/*
 * The CPU's own PMU: "cpu" on x86, cpu_core/cpu_atom on hybrid x86, armv8_*
 * or armv9_* on arm64.  Like perf, a PMU with a "cpus" file also counts:
 * core PMUs have one, uncore PMUs have "cpumask" instead.
 */
static bool is_core_pmu(const char *root, const char *pmu)
{
	static const char * const prefix[] = { "armv7_", "armv8_", "armv9_" };
	size_t i;

	if (!strcmp(pmu, "cpu") || !strcmp(pmu, "cpu_core") || !strcmp(pmu, "cpu_atom"))
		return true;
	for (i = 0; i < PMS_NSYMS(prefix); i++) {
		if (!strncmp(pmu, prefix[i], strlen(prefix[i])))
			return true;
	}
	if (!strcmp(pmu, "software") || !strcmp(pmu, "breakpoint") ||
	    !strcmp(pmu, "tracepoint"))
		return false;
	return file_exists(root, pmu, "cpus");
}

/*
 * Pick one core PMU for generic and raw events.  On hybrid x86 that is
 * cpu_core, where the kernel puts a plain PERF_TYPE_HARDWARE event unless
 * told otherwise.  Writes "cpu" and returns false when sysfs shows none.
 */
static bool find_core_pmu(const char *root, char *name, size_t len)
{
	bool has_cpu = false, has_cpu_core = false, found = false;
	struct pms_names l;
	size_t i;

	copy_str(name, len, "cpu");
	if (list_names(root, NULL, NULL, PMS_LIST_PMUS, &l))
		return false;
	for (i = 0; i < l.n; i++) {
		has_cpu |= !strcmp(l.v[i], "cpu");
		has_cpu_core |= !strcmp(l.v[i], "cpu_core");
	}
	if (has_cpu || has_cpu_core) {
		copy_str(name, len, has_cpu ? "cpu" : "cpu_core");
		found = true;
	}
	for (i = 0; i < l.n && !found; i++) {
		if (is_core_pmu(root, l.v[i])) {
			copy_str(name, len, l.v[i]);
			found = true;
		}
	}
	names_free(&l);
	return found;
}

/**
 * pms_event_list_offered - what @pmu offers, for error messages
 * @sysfs_root: the event_source devices directory; NULL for the real one
 * @pmu: "cpu"-like PMUs list the generic names first, then their events/
 *       aliases that are not generic names; "software" and "breakpoint"
 *       list ours; other PMUs their events/ aliases
 * @buf: receives ", "-separated names, cut with ", ..." when full
 * @len: size of @buf
 */
void pms_event_list_offered(const char *sysfs_root, const char *pmu, char *buf, size_t len)
{
	struct pms_names l;
	struct pms_sbuf sb;
	bool core;
	size_t i;

	sbuf_init(&sb, buf, len);
	if (!pmu || !len)
		return;
	if (!sysfs_root)
		sysfs_root = PMS_SYSFS_EVENT_SOURCE;
	if (!strcmp(pmu, "software")) {
		sym_list(&sb, pms_sw_symbols, PMS_NSYMS(pms_sw_symbols));
		return;
	}
	if (!strcmp(pmu, "breakpoint")) {
		sbuf_item(&sb, "breakpoint");
		return;
	}
	if (!valid_name(pmu))
		return;
	core = is_core_pmu(sysfs_root, pmu);
	if (core)
		sym_list(&sb, pms_hw_symbols, PMS_NSYMS(pms_hw_symbols));
	if (list_names(sysfs_root, pmu, "events", PMS_LIST_EVENTS, &l))
		return;
	for (i = 0; i < l.n; i++) {
		/* A bare generic name resolves to the generic event, not this one. */
		if (core && sym_find(pms_hw_symbols, PMS_NSYMS(pms_hw_symbols), l.v[i]))
			continue;
		sbuf_item(&sb, l.v[i]);
	}
	names_free(&l);
}

static void list_formats(const char *root, const char *pmu, char *buf, size_t len)
{
	struct pms_names l;
	struct pms_sbuf sb;
	size_t i;

	sbuf_init(&sb, buf, len);
	if (!list_names(root, pmu, "format", PMS_LIST_FORMATS, &l)) {
		for (i = 0; i < l.n; i++)
			sbuf_item(&sb, l.v[i]);
		names_free(&l);
	}
	sbuf_item(&sb, "config");
	sbuf_item(&sb, "config1");
	sbuf_item(&sb, "config2");
}

static void list_pmus(const char *root, char *buf, size_t len)
{
	struct pms_names l;
	struct pms_sbuf sb;
	size_t i;

	sbuf_init(&sb, buf, len);
	if (list_names(root, NULL, NULL, PMS_LIST_PMUS, &l)) {
		sbuf_item(&sb, "none readable");
		return;
	}
	for (i = 0; i < l.n; i++)
		sbuf_item(&sb, l.v[i]);
	if (!l.n)
		sbuf_item(&sb, "none");
	names_free(&l);
}

static int unknown_event(const char *root, const char *name, char *err, size_t errlen)
{
	char core[64], hw[PMS_LIST_LEN], sw[PMS_LIST_LEN];

	find_core_pmu(root, core, sizeof(core));
	pms_event_list_offered(root, core, hw, sizeof(hw));
	pms_event_list_offered(root, "software", sw, sizeof(sw));
	seterr(err, errlen, "unknown event '%s': %s offers %s, software offers %s, breakpoint",
	       name, core, hw, sw);
	return -ENOENT;
}

static int unknown_pmu(const char *root, const char *pmu, char *err, size_t errlen)
{
	char have[PMS_LIST_LEN];

	list_pmus(root, have, sizeof(have));
	seterr(err, errlen, "unknown PMU '%s' (have: %s)", pmu, have);
	return -ENOENT;
}

static int parse_modifiers(const char *mods, const char *spec, struct pms_modifiers *m,
			   char *err, size_t errlen)
{
	const char *c;

	memset(m, 0, sizeof(*m));
	if (!*mods) {
		seterr(err, errlen, "empty modifier in '%s' (have: " PMS_MODIFIERS ")", spec);
		return -EINVAL;
	}
	for (c = mods; *c; c++) {
		switch (*c) {
		case 'u':
			m->user = true;
			break;
		case 'k':
			m->kernel = true;
			break;
		case 'h':
			m->hv = true;
			break;
		case 'G':
			m->guest = true;
			break;
		case 'H':
			m->host = true;
			break;
		case 'I':
			m->idle = true;
			break;
		case 'D':
			m->pinned = true;
			break;
		case 'e':
			m->exclusive = true;
			break;
		case 'p':
			/* precise_ip is a 2-bit field. */
			if (++m->precise > 3) {
				seterr(err, errlen, "too many 'p' modifiers in '%s' (at most 3)",
				       spec);
				return -EINVAL;
			}
			break;
		default:
			seterr(err, errlen,
			       "unknown modifier '%c' in '%s' (have: " PMS_MODIFIERS ")", *c, spec);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * perf's meaning: naming any of u/k/h counts only the named levels, so
 * ":u" excludes kernel and hypervisor; G/H likewise pick guest or host.
 */
static void apply_modifiers(const struct pms_modifiers *m, struct perf_event_attr *attr)
{
	if (m->user || m->kernel || m->hv) {
		attr->exclude_user = !m->user;
		attr->exclude_kernel = !m->kernel;
		attr->exclude_hv = !m->hv;
	}
	if (m->guest || m->host) {
		attr->exclude_guest = !m->guest;
		attr->exclude_host = !m->host;
	}
	if (m->idle)
		attr->exclude_idle = 1;
	if (m->pinned)
		attr->pinned = 1;
	if (m->exclusive)
		attr->exclusive = 1;
	attr->precise_ip = m->precise;
}

/* "config1:0-15" or "config:0-7,32-35" or "config:21" */
static int parse_format(const char *fmt, int *field, __u64 *mask)
{
	const char *colon = strchr(fmt, ':'), *p;
	unsigned long lo, hi;
	size_t flen;
	char *end;

	if (!colon)
		return -EINVAL;
	flen = colon - fmt;
	if (flen == 6 && !strncmp(fmt, "config", 6))
		*field = 0;
	else if (flen == 7 && !strncmp(fmt, "config1", 7))
		*field = 1;
	else if (flen == 7 && !strncmp(fmt, "config2", 7))
		*field = 2;
	else
		return -EOPNOTSUPP;
	*mask = 0;
	p = colon + 1;
	for (;;) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			hi = strtoul(p, &end, 10);
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		if (hi - lo == 63)
			*mask = ~0ULL;
		else
			*mask |= ((1ULL << (hi - lo + 1)) - 1) << lo;
		if (!*end)
			break;
		if (*end != ',')
			return -EINVAL;
		p = end + 1;
	}
	return 0;
}

static __u64 *config_field(struct perf_event_attr *attr, int field)
{
	switch (field) {
	case 1:
		return &attr->config1;
	case 2:
		return &attr->config2;
	default:
		return &attr->config;
	}
}

/*
 * The value's bits go, lowest first, into the mask's set bits from the
 * lowest up.  Bits under the mask that the value leaves clear are cleared,
 * so a later term overrides what an event alias put there.
 */
static int place_bits(__u64 *dst, __u64 mask, __u64 value)
{
	int nbits = __builtin_popcountll(mask), bit, vbit = 0;

	if (nbits < 64 && (value >> nbits))
		return -ERANGE;
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (value & (1ULL << vbit))
			*dst |= 1ULL << bit;
		else
			*dst &= ~(1ULL << bit);
		vbit++;
	}
	return 0;
}

static int apply_terms(struct pms_term_ctx *c, char *terms, const char *alias);

static int apply_alias(struct pms_term_ctx *c, const char *name, const char *def)
{
	char buf[PMS_SYSFS_LINE];

	copy_str(buf, sizeof(buf), def);
	return apply_terms(c, buf, name);
}

/*
 * One term of a PMU spec or of an events/ alias (@alias names the alias).
 * @val is NULL for a bare term: an event alias, or a format bit set to 1.
 */
static int apply_term(struct pms_term_ctx *c, const char *name, const char *val,
		      const char *alias)
{
	char def[PMS_SYSFS_LINE], list[PMS_LIST_LEN];
	__u64 value = 1, mask;
	int field, ret;

	if (!valid_name(name)) {
		seterr(c->err, c->errlen, "bad term '%s' for PMU '%s'", name, c->pmu);
		return -EINVAL;
	}
	if (!strcmp(name, "config") || !strcmp(name, "config1") || !strcmp(name, "config2")) {
		if (!val || parse_u64(val, &value)) {
			seterr(c->err, c->errlen, "term '%s' needs a number, got '%s'",
			       name, val ? val : "");
			return -EINVAL;
		}
		*config_field(c->attr, name[6] ? name[6] - '0' : 0) = value;
		return 0;
	}
	/* The period is an option the scenario records, not part of the event. */
	if (!strcmp(name, "period") || !strcmp(name, "freq")) {
		seterr(c->err, c->errlen, "term '%s' is not taken in an event spec: use --period",
		       name);
		return -EINVAL;
	}
	if (!val && !alias) {
		ret = read_pmu_file(c->root, c->pmu, "events", name, def, sizeof(def));
		if (!ret)
			return apply_alias(c, name, def);
		if (ret != -ENOENT) {
			seterr(c->err, c->errlen, "cannot read event '%s' of PMU '%s': %s",
			       name, c->pmu, strerror(-ret));
			return ret;
		}
	}
	ret = read_pmu_file(c->root, c->pmu, "format", name, def, sizeof(def));
	if (ret == -ENOENT) {
		if (!val && !alias) {
			pms_event_list_offered(c->root, c->pmu, list, sizeof(list));
			seterr(c->err, c->errlen, "unknown event '%s' for PMU '%s': %s offers %s",
			       name, c->pmu, c->pmu, list);
			return -ENOENT;
		}
		list_formats(c->root, c->pmu, list, sizeof(list));
		seterr(c->err, c->errlen, "unknown term '%s' for PMU '%s' (terms: %s)",
		       name, c->pmu, list);
		return -EINVAL;
	}
	if (ret) {
		seterr(c->err, c->errlen, "cannot read format '%s' of PMU '%s': %s",
		       name, c->pmu, strerror(-ret));
		return ret;
	}
	ret = parse_format(def, &field, &mask);
	if (ret) {
		seterr(c->err, c->errlen, "format '%s' of PMU '%s' is '%s', which %s", name,
		       c->pmu, def, ret == -EOPNOTSUPP ? "uses a field this build does not know" :
		       "is not <field>:<bits>");
		return -EINVAL;
	}
	if (val && !strcmp(val, "?")) {
		/* sysfs writes '?' where the user must supply the value. */
		seterr(c->err, c->errlen, "event '%s' of PMU '%s' needs a value for '%s'",
		       alias ? alias : name, c->pmu, name);
		return -EINVAL;
	}
	if (val && parse_u64(val, &value)) {
		seterr(c->err, c->errlen, "term '%s' needs a number, got '%s'", name, val);
		return -EINVAL;
	}
	if (place_bits(config_field(c->attr, field), mask, value)) {
		seterr(c->err, c->errlen,
		       "value %#" PRIx64 " too wide for term '%s' of PMU '%s' (%s: %d bits)",
		       (uint64_t)value, name, c->pmu, def, __builtin_popcountll(mask));
		return -EINVAL;
	}
	return 0;
}

static int apply_terms(struct pms_term_ctx *c, char *terms, const char *alias)
{
	char *term = terms, *next, *val;
	int ret;

	for (;;) {
		next = strchr(term, ',');
		if (next)
			*next++ = '\0';
		val = strchr(term, '=');
		if (val) {
			*val++ = '\0';
			val = trim(val);
		}
		term = trim(term);
		if (!*term || (val && !*val)) {
			seterr(c->err, c->errlen, "empty term in %s '%s'",
			       alias ? "event" : "spec for PMU", alias ? alias : c->pmu);
			return -EINVAL;
		}
		ret = apply_term(c, term, val, alias);
		if (ret)
			return ret;
		if (!next)
			return 0;
		term = next;
	}
}

static void set_symbol(struct pms_event *ev, const struct pms_symbol *sym, const char *pmu)
{
	ev->attr.type = sym->tc.type;
	ev->attr.config = sym->tc.config;
	copy_str(ev->name, sizeof(ev->name), sym->name);
	copy_str(ev->pmu, sizeof(ev->pmu), pmu);
}

/* "pmu/terms/" with the slashes already cut out. */
static int parse_pmu_spec(const char *root, const char *pmu, const char *body,
			  struct pms_event *ev, char *err, size_t errlen)
{
	struct pms_term_ctx c = {
		.root = root, .pmu = pmu, .attr = &ev->attr, .err = err, .errlen = errlen,
	};
	char terms[sizeof(ev->spec)], def[PMS_SYSFS_LINE];
	const struct pms_symbol *sym = NULL;
	bool alias;
	int ret;

	if (!valid_name(pmu)) {
		seterr(err, errlen, "bad PMU name '%s'", pmu);
		return -EINVAL;
	}
	ret = read_pmu_type(root, pmu, &ev->attr.type);
	if (ret == -ENOENT)
		return unknown_pmu(root, pmu, err, errlen);
	if (ret) {
		seterr(err, errlen, "cannot read the type of PMU '%s': %s", pmu, strerror(-ret));
		return ret;
	}
	copy_str(ev->pmu, sizeof(ev->pmu), pmu);
	copy_str(terms, sizeof(terms), body);
	/* A lone event alias names the event; anything else keeps the spec. */
	alias = !strpbrk(terms, ",=") && valid_name(body) &&
		!read_pmu_file(root, pmu, "events", body, def, sizeof(def));

	/*
	 * "cpu/cycles/" names the generic event on that PMU when sysfs has
	 * no alias of the same name; an alias wins, as in current perf.
	 */
	if (!alias && valid_name(body)) {
		if (is_core_pmu(root, pmu))
			sym = sym_find(pms_hw_symbols, PMS_NSYMS(pms_hw_symbols), body);
		else if (!strcmp(pmu, "software"))
			sym = sym_find(pms_sw_symbols, PMS_NSYMS(pms_sw_symbols), body);
		if (sym) {
			set_symbol(ev, sym, pmu);
			return 0;
		}
	}
	ret = apply_terms(&c, terms, NULL);
	if (ret)
		return ret;
	if (alias)
		copy_str(ev->name, sizeof(ev->name), body);
	else if ((size_t)snprintf(ev->name, sizeof(ev->name), "%s/%s/", pmu, body) >=
		 sizeof(ev->name))
		memcpy(ev->name + sizeof(ev->name) - 4, "...", 4);
	return 0;
}

/* "r" followed by hex digits only, as perf's lexer takes it. */
static bool is_raw(const char *name)
{
	const char *p;

	if (name[0] != 'r' || !name[1])
		return false;
	for (p = name + 1; *p; p++) {
		if (!isxdigit((unsigned char)*p))
			return false;
	}
	return true;
}

static int parse_named(const char *root, const char *name, struct pms_event *ev,
		       char *err, size_t errlen)
{
	const struct pms_symbol *sym;
	char core[sizeof(ev->pmu)], def[PMS_SYSFS_LINE];
	size_t i;
	int ret;

	if (!strcmp(name, "breakpoint")) {
		ev->attr.type = PERF_TYPE_BREAKPOINT;
		ev->attr.bp_type = HW_BREAKPOINT_X;
		/* An execute breakpoint covers one instruction: the kernel wants long. */
		ev->attr.bp_len = sizeof(long);
		ev->breakpoint = true;
		copy_str(ev->name, sizeof(ev->name), "breakpoint");
		copy_str(ev->pmu, sizeof(ev->pmu), "breakpoint");
		return 0;
	}
	sym = sym_find(pms_hw_symbols, PMS_NSYMS(pms_hw_symbols), name);
	if (sym) {
		find_core_pmu(root, core, sizeof(core));
		set_symbol(ev, sym, core);
		return 0;
	}
	sym = sym_find(pms_sw_symbols, PMS_NSYMS(pms_sw_symbols), name);
	if (sym) {
		set_symbol(ev, sym, "software");
		return 0;
	}
	if (is_raw(name)) {
		__u64 v;
		char hex[sizeof(ev->spec)];

		if (snprintf(hex, sizeof(hex), "0x%s", name + 1) >= (int)sizeof(hex) ||
		    parse_u64(hex, &v)) {
			seterr(err, errlen, "raw event '%s' does not fit in 64 bits", name);
			return -EINVAL;
		}
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = v;
		for (i = 0; name[i] && i < sizeof(ev->name) - 1; i++)
			ev->name[i] = tolower((unsigned char)name[i]);
		ev->name[i] = '\0';
		find_core_pmu(root, core, sizeof(core));
		copy_str(ev->pmu, sizeof(ev->pmu), core);
		return 0;
	}
	if (!valid_name(name)) {
		seterr(err, errlen, "bad event name '%s'", name);
		return -EINVAL;
	}
	/* A name only the CPU's PMU knows, e.g. arm64's "br_retired". */
	if (find_core_pmu(root, core, sizeof(core)) &&
	    !read_pmu_file(root, core, "events", name, def, sizeof(def))) {
		struct pms_term_ctx c = {
			.root = root, .pmu = core, .attr = &ev->attr,
			.err = err, .errlen = errlen,
		};

		ret = read_pmu_type(root, core, &ev->attr.type);
		if (ret) {
			seterr(err, errlen, "cannot read the type of PMU '%s': %s", core,
			       strerror(-ret));
			return ret;
		}
		ret = apply_alias(&c, name, def);
		if (ret)
			return ret;
		copy_str(ev->name, sizeof(ev->name), name);
		copy_str(ev->pmu, sizeof(ev->pmu), core);
		return 0;
	}
	return unknown_event(root, name, err, errlen);
}

static enum pms_semantics semantics_for(const struct perf_event_attr *attr, const char *arch)
{
	switch (attr->type) {
	case PERF_TYPE_SOFTWARE:
		if (attr->config == PERF_COUNT_SW_CPU_CLOCK ||
		    attr->config == PERF_COUNT_SW_TASK_CLOCK)
			return PMS_SEM_TIMER;
		return PMS_SEM_RESTART_ON_ENABLE;
	case PERF_TYPE_BREAKPOINT:
		/*
		 * arm64 breakpoints fire before the instruction runs; when a
		 * signal is delivered, returning from it runs into the same
		 * breakpoint again, so each signal adds a count of its own.
		 */
		if (arch && (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64")))
			return PMS_SEM_BP_EXTRA_COUNT;
		return PMS_SEM_EXACT;
	default:
		return PMS_SEM_EXACT;
	}
}

/**
 * pms_event_parse - resolve a perf-style event spec into @ev
 * @spec: the spec, e.g. "cycles:u" or "cpu/event=0x3c,umask=0x0/u"
 * @sysfs_root: the event_source devices directory; NULL for the real one
 * @arch: machine name as uname(2) gives it, for the semantics
 * @ev: filled on success only; left untouched on failure
 * @err: one-line reason on failure
 * @errlen: size of @err
 *
 * Return: 0, -ENOENT for an unknown event or PMU, -EINVAL for a malformed
 * spec, term, modifier or value, or another -errno reading sysfs.
 */
int pms_event_parse(const char *spec, const char *sysfs_root, const char *arch,
		    struct pms_event *ev, char *err, size_t errlen)
{
	struct pms_modifiers mods = { 0 };
	struct pms_event tmp;
	char buf[sizeof(ev->spec)];
	char *slash, *last, *colon, *m = NULL;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!spec || !ev) {
		seterr(err, errlen, "no event spec");
		return -EINVAL;
	}
	if (!sysfs_root)
		sysfs_root = PMS_SYSFS_EVENT_SOURCE;
	if (strlen(spec) >= sizeof(tmp.spec)) {
		seterr(err, errlen, "event spec '%.32s...' is longer than %zu characters",
		       spec, sizeof(tmp.spec) - 1);
		return -EINVAL;
	}
	if (!*spec) {
		seterr(err, errlen, "empty event spec");
		return -EINVAL;
	}
	memset(&tmp, 0, sizeof(tmp));
	copy_str(tmp.spec, sizeof(tmp.spec), spec);
	tmp.attr.size = sizeof(tmp.attr);
	copy_str(buf, sizeof(buf), spec);

	slash = strchr(buf, '/');
	if (slash) {
		last = strrchr(buf, '/');
		if (last == slash) {
			seterr(err, errlen, "missing closing '/' in '%s'", spec);
			return -EINVAL;
		}
		*slash = '\0';
		*last = '\0';
		/* perf takes both "cpu/.../u" and "cpu/.../:u". */
		if (last[1])
			m = last[1] == ':' ? last + 2 : last + 1;
	} else {
		colon = strrchr(buf, ':');
		if (colon) {
			*colon = '\0';
			m = colon + 1;
		}
	}
	/* Modifiers are syntax: reject a typo before looking anything up. */
	if (m) {
		ret = parse_modifiers(m, spec, &mods, err, errlen);
		if (ret)
			return ret;
	}
	if (slash) {
		if (!slash[1]) {
			seterr(err, errlen, "no terms between the slashes in '%s'", spec);
			return -EINVAL;
		}
		ret = parse_pmu_spec(sysfs_root, buf, slash + 1, &tmp, err, errlen);
	} else {
		if (!*buf) {
			seterr(err, errlen, "no event name in '%s'", spec);
			return -EINVAL;
		}
		ret = parse_named(sysfs_root, buf, &tmp, err, errlen);
	}
	if (ret)
		return ret;
	apply_modifiers(&mods, &tmp.attr);
	tmp.sem = semantics_for(&tmp.attr, arch);
	*ev = tmp;
	return 0;
}

/**
 * pms_event_set_exclude - set the six exclude_* bits to exactly @list
 * @attr: attr to change; untouched on failure
 * @list: comma separated subset of user,kernel,hv,host,guest,idle, or "none"
 * @err: names the bad word on failure
 * @errlen: size of @err
 *
 * The bits not named are cleared, so the result does not depend on what
 * the event's modifiers set before.
 *
 * Return: 0 or -EINVAL.
 */
int pms_event_set_exclude(struct perf_event_attr *attr, const char *list,
			  char *err, size_t errlen)
{
	enum { X_USER = 1, X_KERNEL = 2, X_HV = 4, X_HOST = 8, X_GUEST = 16, X_IDLE = 32 };
	static const struct {
		const char *word;
		unsigned int bit;
	} words[] = {
		{ "user", X_USER }, { "kernel", X_KERNEL }, { "hv", X_HV },
		{ "host", X_HOST }, { "guest", X_GUEST }, { "idle", X_IDLE },
	};
	char buf[128], *w, *next;
	unsigned int set = 0;
	bool none = false;
	size_t i;

	if (err && errlen)
		err[0] = '\0';
	if (!attr || !list) {
		seterr(err, errlen, "no exclude list");
		return -EINVAL;
	}
	if (strlen(list) >= sizeof(buf)) {
		seterr(err, errlen, "exclude list too long (words: " PMS_EXCLUDE_ALL ", none)");
		return -EINVAL;
	}
	copy_str(buf, sizeof(buf), list);
	for (w = buf; w; w = next) {
		next = strchr(w, ',');
		if (next)
			*next++ = '\0';
		w = trim(w);
		if (!strcmp(w, "none")) {
			none = true;
			continue;
		}
		for (i = 0; i < PMS_NSYMS(words); i++) {
			if (!strcmp(w, words[i].word))
				break;
		}
		if (i == PMS_NSYMS(words)) {
			seterr(err, errlen, "unknown exclude word '%s' in '%s' (have: "
			       PMS_EXCLUDE_ALL ", none)", w, list);
			return -EINVAL;
		}
		set |= words[i].bit;
	}
	if (none && set) {
		seterr(err, errlen, "'none' cannot be combined with other words in '%s'", list);
		return -EINVAL;
	}
	attr->exclude_user = !!(set & X_USER);
	attr->exclude_kernel = !!(set & X_KERNEL);
	attr->exclude_hv = !!(set & X_HV);
	attr->exclude_host = !!(set & X_HOST);
	attr->exclude_guest = !!(set & X_GUEST);
	attr->exclude_idle = !!(set & X_IDLE);
	return 0;
}

/**
 * pms_semantics_name - the key results use for @sem
 * @sem: semantics
 *
 * Return: "exact", "bp_extra_count", "restart_on_enable", "timer", or
 * "unknown" for a value out of range.
 */
const char *pms_semantics_name(enum pms_semantics sem)
{
	switch (sem) {
	case PMS_SEM_EXACT:
		return "exact";
	case PMS_SEM_BP_EXTRA_COUNT:
		return "bp_extra_count";
	case PMS_SEM_RESTART_ON_ENABLE:
		return "restart_on_enable";
	case PMS_SEM_TIMER:
		return "timer";
	default:
		return "unknown";
	}
}

/**
 * pms_semantics_describe - one sentence on what an overflow of @sem means
 * @sem: semantics
 *
 * Return: a static string for human output.
 */
const char *pms_semantics_describe(enum pms_semantics sem)
{
	switch (sem) {
	case PMS_SEM_EXACT:
		return "exact event: every overflow is one period of counts, so a delta "
		       "of more than one period is a lost signal";
	case PMS_SEM_BP_EXTRA_COUNT:
		return "arm64 breakpoint: the breakpoint hits again on return from each "
		       "signal handler, so every signal adds one count of its own";
	case PMS_SEM_RESTART_ON_ENABLE:
		return "software event: exact, except that the period restarts from zero "
		       "at every PERF_EVENT_IOC_ENABLE";
	case PMS_SEM_TIMER:
		return "timer-based (hrtimer) event: deltas are in ns and not exact; "
		       "missing periods are reported, not judged as kernel losses";
	default:
		return "unknown semantics";
	}
}

static const char *type_name(__u32 type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
		return "hardware";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	case PERF_TYPE_HW_CACHE:
		return "hw_cache";
	case PERF_TYPE_RAW:
		return "raw";
	case PERF_TYPE_BREAKPOINT:
		return "breakpoint";
	default:
		return "dynamic";
	}
}

static int add(json_object *o, const char *key, json_object *v)
{
	if (!v)
		return -1;
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

/**
 * pms_attr_to_json - the perf_event_attr fields that matter to a result
 * @attr: attr as opened
 *
 * Key names are fixed: the result schema and the comparison code use them.
 *
 * Return: a new object, or NULL with errno ENOMEM.
 */
json_object *pms_attr_to_json(const struct perf_event_attr *attr)
{
	char addr[2 + 16 + 1];
	json_object *o;
	int bad = 0;

	if (!attr) {
		errno = EINVAL;
		return NULL;
	}
	o = json_object_new_object();
	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(addr, sizeof(addr), "0x%" PRIx64, (uint64_t)attr->bp_addr);

	bad |= add(o, "type", json_object_new_int64(attr->type));
	bad |= add(o, "type_name", json_object_new_string(type_name(attr->type)));
	bad |= add(o, "config", json_object_new_uint64(attr->config));
	bad |= add(o, "config1", json_object_new_uint64(attr->config1));
	bad |= add(o, "config2", json_object_new_uint64(attr->config2));
	bad |= add(o, "sample_period", json_object_new_uint64(attr->sample_period));
	bad |= add(o, "sample_type", json_object_new_uint64(attr->sample_type));
	bad |= add(o, "read_format", json_object_new_uint64(attr->read_format));
	bad |= add(o, "disabled", json_object_new_boolean(attr->disabled));
	bad |= add(o, "pinned", json_object_new_boolean(attr->pinned));
	bad |= add(o, "exclusive", json_object_new_boolean(attr->exclusive));
	bad |= add(o, "exclude_user", json_object_new_boolean(attr->exclude_user));
	bad |= add(o, "exclude_kernel", json_object_new_boolean(attr->exclude_kernel));
	bad |= add(o, "exclude_hv", json_object_new_boolean(attr->exclude_hv));
	bad |= add(o, "exclude_idle", json_object_new_boolean(attr->exclude_idle));
	bad |= add(o, "exclude_host", json_object_new_boolean(attr->exclude_host));
	bad |= add(o, "exclude_guest", json_object_new_boolean(attr->exclude_guest));
	bad |= add(o, "exclude_callchain_kernel",
		   json_object_new_boolean(attr->exclude_callchain_kernel));
	bad |= add(o, "exclude_callchain_user",
		   json_object_new_boolean(attr->exclude_callchain_user));
	bad |= add(o, "use_clockid", json_object_new_boolean(attr->use_clockid));
	bad |= add(o, "sigtrap", json_object_new_boolean(attr->sigtrap));
	bad |= add(o, "remove_on_exec", json_object_new_boolean(attr->remove_on_exec));
	bad |= add(o, "inherit", json_object_new_boolean(attr->inherit));
	bad |= add(o, "precise_ip", json_object_new_int(attr->precise_ip));
	bad |= add(o, "clockid", json_object_new_int(attr->clockid));
	bad |= add(o, "wakeup_events", json_object_new_int64(attr->wakeup_events));
	bad |= add(o, "bp_type", json_object_new_int64(attr->bp_type));
	bad |= add(o, "bp_addr", json_object_new_string(addr));
	bad |= add(o, "bp_len", json_object_new_uint64(attr->bp_len));
	bad |= add(o, "aux_action", json_object_new_int64(pms_attr_aux_action(attr)));
	if (bad) {
		json_object_put(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}
