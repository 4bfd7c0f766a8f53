// SPDX-License-Identifier: GPL-2.0-only
/* Scheduler trace of a run (see pms-trace.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include <event-parse.h>
#include <tracefs.h>

#include "pms-trace.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

#define INSTANCE_PREFIX "pmustress-"

/* Indexed like the switch in pms_trace_parse(). */
static const char *const sched_events[] = {
	"sched_migrate_task", "sched_switch", "sched_wakeup",
};
#define NR_SCHED_EVENTS (sizeof(sched_events) / sizeof(sched_events[0]))

/*
 * What a fatal-signal handler needs to remove the instance, prepared while
 * it is safe to format strings.  @emerg_pid keeps a forked child, whose
 * exit() runs the inherited atexit handlers, off its parent's instance.
 */
static char emerg_dir[PATH_MAX];
static char emerg_on[PATH_MAX];
static volatile sig_atomic_t emerg_armed;
static pid_t emerg_pid;

static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* Bytes read (NUL-terminated, at most @len - 1), or -errno. */
static int read_small(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			close(fd);
			return -err;
		}
		if (!r)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	return (int)got;
}

static int write_str(const char *path, const char *str)
{
	size_t n = strlen(str);
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, str, n);
	if (r < 0)
		err = -errno;
	else if ((size_t)r != n)
		err = -EIO;
	close(fd);
	return err;
}

static int inst_path(const struct pms_trace *t, const char *rel, char *buf, size_t len)
{
	int n;

	if (rel)
		n = snprintf(buf, len, "%s/instances/%s/%s", t->tracefs, t->name, rel);
	else
		n = snprintf(buf, len, "%s/instances/%s", t->tracefs, t->name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int inst_write(const struct pms_trace *t, const char *rel, const char *str)
{
	char path[PATH_MAX];
	int ret = inst_path(t, rel, path, sizeof(path));

	return ret ? ret : write_str(path, str);
}

static int inst_read(const struct pms_trace *t, const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret = inst_path(t, rel, path, sizeof(path));

	return ret ? ret : read_small(path, buf, len);
}

static bool fs_known(const char *fstype)
{
	char buf[4096], *line, *save = NULL, *tab;

	if (read_small("/proc/filesystems", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		tab = strrchr(line, '\t');
		if (!strcmp(tab ? tab + 1 : line, fstype))
			return true;
	}
	return false;
}

/*
 * Not tracefs_tracing_dir(), which mounts tracefs for good, nor
 * tracefs_tracing_dir_is_mounted(), which in libtracefs 1.6 leaks its
 * answer and offers debugfs/tracing when tracefs is not mounted at all.
 */
static int find_tracefs_mount(char *dir, size_t len)
{
	struct mntent ent, *m;
	char buf[4096];
	int ret = -ENOENT;
	FILE *f;

	f = setmntent("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	while ((m = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if (!strcmp(m->mnt_type, "tracefs")) {
			ret = snprintf(dir, len, "%s", m->mnt_dir) < (int)len ? 0 : -ENAMETOOLONG;
			break;
		}
	}
	endmntent(f);
	return ret;
}

/* The mount point in @dir: @tracefs, checked to be one, or where it is mounted. */
static int resolve_tracefs(const char *tracefs, char *dir, size_t len, char *why, size_t wlen)
{
	const char *path = tracefs;
	char found[256];
	struct statfs sfs;
	int n, err;

	if (!path && !find_tracefs_mount(found, sizeof(found)))
		path = found;
	if (!path) {
		if (fs_known("tracefs"))
			say(why, wlen, "tracefs is not mounted (mount -t tracefs nodev %s)",
			    "/sys/kernel/tracing");
		else
			say(why, wlen, "this kernel has no tracefs (CONFIG_TRACING is off)");
		return -ENOENT;
	}
	if (statfs(path, &sfs)) {
		err = errno;
		say(why, wlen, "tracefs at %s: %s", path, strerror(err));
		return -err;
	}
	if (sfs.f_type != TRACEFS_MAGIC) {
		say(why, wlen, "%s is not a tracefs mount", path);
		return -ENODEV;
	}
	n = snprintf(dir, len, "%s", path);
	if (n < 0 || (size_t)n >= len) {
		say(why, wlen, "tracefs path too long: %s", path);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Whether @list (trace_clock: "[local] global ... mono mono_raw") offers @clock. */
static bool clock_listed(char *list, const char *clock)
{
	char *tok, *save = NULL, *end;

	for (tok = strtok_r(list, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (*tok == '[')
			tok++;
		end = strchr(tok, ']');
		if (end)
			*end = '\0';
		if (!strcmp(tok, clock))
			return true;
	}
	return false;
}

/* The selected clock of a trace_clock listing, the bracketed one. */
static void clock_selected(const char *list, char *buf, size_t len)
{
	const char *open = strchr(list, '['), *close = open ? strchr(open, ']') : NULL;

	if (!open || !close)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
}

/* A capability from CapEff, without libcap. */
static bool have_cap(unsigned int cap)
{
	char buf[4096], *p;
	unsigned long long eff;

	if (read_small("/proc/self/status", buf, sizeof(buf)) < 0)
		return false;
	p = strstr(buf, "\nCapEff:");
	if (!p)
		return false;
	eff = strtoull(p + 8, NULL, 16);
	return cap < 64 && (eff >> cap) & 1;
}

/* Number of pids in the NSpid line: 1 in the initial PID namespace. */
static int pid_ns_depth(void)
{
	char buf[4096], *p, *end, *save = NULL;
	int n = 0;

	if (read_small("/proc/self/status", buf, sizeof(buf)) < 0)
		return 1;
	p = strstr(buf, "\nNSpid:");
	if (!p)
		return 1;	/* before 4.1: no nesting to be seen */
	p += 7;
	end = strchr(p, '\n');
	if (end)
		*end = '\0';
	for (p = strtok_r(p, " \t", &save); p; p = strtok_r(NULL, " \t", &save))
		n++;
	return n ? n : 1;
}

bool pms_trace_usable(const char *tracefs, char *why, size_t len)
{
	char dir[256], path[PATH_MAX], buf[512];
	size_t i;

	if (geteuid() != 0 && !have_cap(21 /* CAP_SYS_ADMIN */)) {
		say(why, len, "scheduler tracing needs root or CAP_SYS_ADMIN");
		return false;
	}
	/*
	 * Mainline puts tracefs under the confidentiality level (LOCKDOWN_TRACEFS);
	 * at "integrity" an EPERM from pms_trace_start() names lockdown as the
	 * likely cause.
	 */
	if (read_small("/sys/kernel/security/lockdown", buf, sizeof(buf)) > 0 &&
	    strstr(buf, "[confidentiality]")) {
		say(why, len, "kernel lockdown (confidentiality) forbids tracefs");
		return false;
	}
	if (resolve_tracefs(tracefs, dir, sizeof(dir), why, len))
		return false;
	if (pid_ns_depth() > 1) {
		say(why, len, "pmustress runs in a child PID namespace, so the trace's pids "
			      "are not its thread ids");
		return false;
	}
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS)) {
		say(why, len, "cannot create trace instances in %s: %s", path, strerror(errno));
		return false;
	}
	for (i = 0; i < NR_SCHED_EVENTS; i++) {
		snprintf(path, sizeof(path), "%s/events/sched/%s/format", dir, sched_events[i]);
		if (access(path, R_OK)) {
			say(why, len, "the kernel has no sched:%s tracepoint (%s)", sched_events[i],
			    strerror(errno));
			return false;
		}
	}
	snprintf(path, sizeof(path), "%s/trace_clock", dir);
	if (read_small(path, buf, sizeof(buf)) < 0 || !clock_listed(buf, "mono")) {
		say(why, len, "the kernel offers no \"mono\" trace clock to match CLOCK_MONOTONIC");
		return false;
	}
	return true;
}

static int pid_alive(pid_t pid)
{
	return !kill(pid, 0) || errno == EPERM;
}

bool pms_trace_instance_is_stale(const char *name, int (*alive)(pid_t pid))
{
	const size_t plen = sizeof(INSTANCE_PREFIX) - 1;
	long long pid = 0;
	const char *p;

	if (!name || strncmp(name, INSTANCE_PREFIX, plen))
		return false;
	p = name + plen;
	if (*p < '1' || *p > '9')
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		pid = pid * 10 + (*p - '0');
		if (pid > INT_MAX)
			return false;
	}
	return !(alive ? alive((pid_t)pid) : pid_alive((pid_t)pid));
}

int pms_trace_reap_stale(const char *tracefs)
{
	char dir[256], path[PATH_MAX];
	struct dirent *de;
	int removed = 0, ret, n;
	DIR *d;

	ret = resolve_tracefs(tracefs, dir, sizeof(dir), NULL, 0);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/instances", dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!pms_trace_instance_is_stale(de->d_name, NULL))
			continue;
		n = snprintf(path, sizeof(path), "%s/instances/%s/tracing_on", dir, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		write_str(path, "0");
		path[strlen(path) - strlen("/tracing_on")] = '\0';
		if (!rmdir(path))
			removed++;
	}
	closedir(d);
	return removed;
}

int pms_trace_filter_string(const char *event, const pid_t *tids, size_t nr_tids,
			    char *buf, size_t len)
{
	bool sw;
	size_t pos = 0, i;
	int n;

	if (!event || !tids || !nr_tids || !buf || !len)
		return -EINVAL;
	if (!strcmp(event, "sched_switch"))
		sw = true;
	else if (!strcmp(event, "sched_migrate_task") || !strcmp(event, "sched_wakeup"))
		sw = false;
	else
		return -EINVAL;
	for (i = 0; i < nr_tids; i++) {
		if (sw)
			n = snprintf(buf + pos, len - pos, "%sprev_pid==%d||next_pid==%d",
				     i ? "||" : "", (int)tids[i], (int)tids[i]);
		else
			n = snprintf(buf + pos, len - pos, "%spid==%d", i ? "||" : "",
				     (int)tids[i]);
		if (n < 0 || (size_t)n >= len - pos) {
			buf[0] = '\0';
			return -E2BIG;
		}
		pos += (size_t)n;
	}
	return (int)pos;
}

/*
 * mkdir the instance.  One that exists already carries our pid but is not
 * ours (emerg_armed says so): it was left by a dead process that had this
 * pid before, so it goes.
 */
static int make_instance(struct pms_trace *t, char *why, size_t len)
{
	int ret;

	if (inst_path(t, NULL, emerg_dir, sizeof(emerg_dir)) ||
	    inst_path(t, "tracing_on", emerg_on, sizeof(emerg_on))) {
		say(why, len, "tracefs path too long: %s", t->tracefs);
		return -ENAMETOOLONG;
	}
	emerg_pid = getpid();
	emerg_armed = 1;
	ret = mkdir(emerg_dir, 0750) ? -errno : 0;
	if (ret == -EEXIST) {
		write_str(emerg_on, "0");
		rmdir(emerg_dir);
		ret = mkdir(emerg_dir, 0750) ? -errno : 0;
	}
	if (ret) {
		emerg_armed = 0;
		say(why, len, "cannot create trace instance %s: %s%s", emerg_dir, strerror(-ret),
		    ret == -EPERM ? " (kernel lockdown?)" : "");
		return ret;
	}
	t->created = true;
	return 0;
}

static int set_mono_clock(struct pms_trace *t, char *why, size_t len)
{
	char buf[512];
	int ret;

	ret = inst_read(t, "trace_clock", buf, sizeof(buf));
	if (ret < 0) {
		say(why, len, "cannot read %s/trace_clock: %s", t->name, strerror(-ret));
		return ret;
	}
	if (!clock_listed(buf, "mono")) {
		say(why, len, "the kernel offers no \"mono\" trace clock to match CLOCK_MONOTONIC");
		return -ENOTSUP;
	}
	ret = inst_write(t, "trace_clock", "mono");
	if (ret) {
		say(why, len, "cannot set trace_clock to mono: %s", strerror(-ret));
		return ret;
	}
	ret = inst_read(t, "trace_clock", buf, sizeof(buf));
	if (ret < 0) {
		say(why, len, "cannot read %s/trace_clock: %s", t->name, strerror(-ret));
		return ret;
	}
	clock_selected(buf, t->clock, sizeof(t->clock));
	if (strcmp(t->clock, "mono")) {
		say(why, len, "trace_clock did not take \"mono\" (it is \"%s\")", t->clock);
		return -ENOTSUP;
	}
	return 0;
}

static int set_buffer(struct pms_trace *t, unsigned int kb, char *why, size_t len)
{
	char num[32];
	int ret;

	if (kb) {
		snprintf(num, sizeof(num), "%u", kb);
		ret = inst_write(t, "buffer_size_kb", num);
		if (ret) {
			say(why, len, "cannot set the trace buffer to %u KiB per CPU: %s", kb,
			    strerror(-ret));
			return ret;
		}
	}
	/* "1408", or "7 (expanded: 1408)" while the buffer is not allocated yet */
	ret = inst_read(t, "per_cpu/cpu0/buffer_size_kb", num, sizeof(num));
	if (ret < 0)
		ret = inst_read(t, "buffer_size_kb", num, sizeof(num));
	if (ret > 0)
		t->buffer_kb = (unsigned int)strtoul(num, NULL, 10);
	return 0;
}

static int set_filters(struct pms_trace *t, char *why, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t flen = page > 0 ? (size_t)page : 4096;
	char rel[128], *filter;
	size_t i;
	int ret = 0;

	/* The kernel refuses a filter of PAGE_SIZE bytes or more. */
	filter = malloc(flen);
	if (!filter) {
		say(why, len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < NR_SCHED_EVENTS && !ret; i++) {
		ret = pms_trace_filter_string(sched_events[i], t->tids, t->nr_tids, filter, flen);
		if (ret < 0) {
			say(why, len, "%zu threads do not fit in a sched:%s filter (%zu bytes)",
			    t->nr_tids, sched_events[i], flen - 1);
			break;
		}
		snprintf(rel, sizeof(rel), "events/sched/%s/filter", sched_events[i]);
		ret = inst_write(t, rel, filter);
		if (ret) {
			say(why, len, "cannot set the sched:%s filter: %s", sched_events[i],
			    strerror(-ret));
			break;
		}
		snprintf(rel, sizeof(rel), "events/sched/%s/enable", sched_events[i]);
		ret = inst_write(t, rel, "1");
		if (ret)
			say(why, len, "cannot enable sched:%s: %s", sched_events[i],
			    strerror(-ret));
	}
	free(filter);
	return ret;
}

int pms_trace_start(struct pms_trace *t, const struct pms_trace_cfg *cfg, char *why, size_t len)
{
	int ret;

	memset(t, 0, sizeof(*t));
	if (!cfg || !cfg->tids || !cfg->nr_tids) {
		say(why, len, "no threads to trace");
		return -EINVAL;
	}
	if (emerg_armed && emerg_pid == getpid()) {
		say(why, len, "this process has a scheduler trace already");
		return -EBUSY;
	}
	ret = resolve_tracefs(cfg->tracefs, t->tracefs, sizeof(t->tracefs), why, len);
	if (ret)
		return ret;
	t->tids = malloc(cfg->nr_tids * sizeof(*t->tids));
	if (!t->tids) {
		say(why, len, "out of memory");
		return -ENOMEM;
	}
	memcpy(t->tids, cfg->tids, cfg->nr_tids * sizeof(*t->tids));
	t->nr_tids = cfg->nr_tids;
	snprintf(t->name, sizeof(t->name), INSTANCE_PREFIX "%d", (int)getpid());

	ret = make_instance(t, why, len);
	if (ret)
		goto fail;
	/* A new instance records from birth; nothing until it is set up. */
	ret = inst_write(t, "tracing_on", "0");
	if (ret) {
		say(why, len, "cannot write %s/tracing_on: %s", t->name, strerror(-ret));
		goto fail;
	}
	t->inst = tracefs_instance_alloc(t->tracefs, t->name);
	if (!t->inst) {
		ret = errno ? -errno : -ENOMEM;
		say(why, len, "libtracefs cannot open instance %s: %s", t->name, strerror(-ret));
		goto fail;
	}
	/* Before the buffer is sized: changing the clock empties it. */
	ret = set_mono_clock(t, why, len);
	if (ret)
		goto fail;
	ret = set_buffer(t, cfg->buffer_kb, why, len);
	if (ret)
		goto fail;
	ret = set_filters(t, why, len);
	if (ret)
		goto fail;
	ret = inst_write(t, "tracing_on", "1");
	if (ret) {
		say(why, len, "cannot turn tracing on in %s: %s", t->name, strerror(-ret));
		goto fail;
	}
	t->running = true;
	return 0;
fail:
	pms_trace_destroy(t);
	return ret;
}

/* "overrun: N" and "dropped events: N" of one per_cpu/cpuN/stats. */
static int parse_stats(char *buf, uint64_t *overrun, uint64_t *dropped)
{
	char *line, *save = NULL;
	bool seen = false;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "overrun:", 8)) {
			*overrun += strtoull(line + 8, NULL, 10);
			seen = true;
		} else if (!strncmp(line, "dropped events:", 15)) {
			*dropped += strtoull(line + 15, NULL, 10);
		}
	}
	return seen ? 0 : -EPROTO;
}

static int read_overruns(struct pms_trace *t)
{
	char path[PATH_MAX], rel[64], buf[1024];
	uint64_t overrun = 0, dropped = 0;
	struct dirent *de;
	unsigned int cpu;
	int ret = 0, r;
	DIR *d;

	ret = inst_path(t, "per_cpu", path, sizeof(path));
	if (ret)
		return ret;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && !ret) {
		if (sscanf(de->d_name, "cpu%u", &cpu) != 1)
			continue;
		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", cpu);
		r = inst_read(t, rel, buf, sizeof(buf));
		ret = r < 0 ? r : parse_stats(buf, &overrun, &dropped);
	}
	closedir(d);
	if (ret)
		return ret;
	t->overrun = overrun;
	t->dropped = dropped;
	t->stats_valid = true;
	return 0;
}

int pms_trace_stop(struct pms_trace *t)
{
	char rel[128];
	size_t i;
	int ret;

	if (!t || !t->created)
		return -EINVAL;
	ret = inst_write(t, "tracing_on", "0");
	if (ret)
		return ret;
	t->running = false;
	/* The probes would still run on every context switch for nothing. */
	for (i = 0; i < NR_SCHED_EVENTS; i++) {
		snprintf(rel, sizeof(rel), "events/sched/%s/enable", sched_events[i]);
		inst_write(t, rel, "0");
	}
	t->stats_valid = false;
	return read_overruns(t);
}

static bool has_tid(const pid_t *tids, size_t nr, long long tid)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (tids[i] == tid)
			return true;
	}
	return false;
}

/* A numeric field by name, bounds-checked against the record and sign-extended. */
static int field_num(struct tep_event *ev, const struct tep_record *rec, const char *name,
		     long long *val)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	unsigned long long v;

	if (!f || f->size <= 0 || f->size > 8 || f->offset < 0)
		return -EPROTO;
	if (f->offset + f->size > rec->size)
		return -EBADMSG;
	if (tep_read_number_field(f, rec->data, &v))
		return -EPROTO;
	if (!(f->flags & TEP_FIELD_IS_SIGNED))
		*val = (long long)v;
	else if (f->size == 1)
		*val = (int8_t)v;
	else if (f->size == 2)
		*val = (int16_t)v;
	else if (f->size == 4)
		*val = (int32_t)v;
	else
		*val = (long long)v;
	return 0;
}

/*
 * tep_data_type() reads common_type without knowing the record's size;
 * take its place from one of our formats.  1: @tep knows none of them.
 */
static int type_fits(struct tep_handle *tep, const struct tep_record *rec)
{
	struct tep_format_field *f;
	struct tep_event *ev;
	size_t i;

	for (i = 0; i < NR_SCHED_EVENTS; i++) {
		ev = tep_find_event_by_name(tep, "sched", sched_events[i]);
		f = ev ? tep_find_common_field(ev, "common_type") : NULL;
		if (f)
			return f->offset + f->size <= rec->size ? 0 : -EBADMSG;
	}
	return 1;
}

char pms_trace_state_char(long long prev_state)
{
	unsigned long long s = (unsigned long long)prev_state;

	if (!s)
		return 'R';
	if (s & 1)
		return 'S';
	if (s & 2)
		return 'D';
	/* Above the report states (0x7f) and TASK_REPORT_IDLE (0x80), alone. */
	if (s >= 0x100 && !(s & (s - 1)))
		return 'R';
	return '?';
}

static void ev_init(struct pms_sched_ev *e, const struct tep_record *rec, enum pms_ev_kind kind,
		    long long tid)
{
	e->time_ns = rec->ts;
	e->cpu = rec->cpu;
	e->tid = (int32_t)tid;
	e->from_cpu = -1;
	e->to_cpu = -1;
	e->state = PMS_EV_NO_STATE;
	e->kind = kind;
}

int pms_trace_parse(struct tep_handle *tep, struct tep_record *rec, const pid_t *tids,
		    size_t nr_tids, struct pms_sched_ev *out)
{
	long long a, b, c;
	struct tep_event *ev;
	size_t i;
	int ret, n = 0;

	if (!tep || !rec || !out || (!tids && nr_tids))
		return -EINVAL;
	if (!rec->data || rec->size <= 0)
		return -EBADMSG;
	ret = type_fits(tep, rec);
	if (ret)
		return ret < 0 ? ret : 0;
	ev = tep_find_event(tep, tep_data_type(tep, rec));
	if (!ev || !ev->system || strcmp(ev->system, "sched"))
		return 0;
	for (i = 0; i < NR_SCHED_EVENTS; i++) {
		if (!strcmp(ev->name, sched_events[i]))
			break;
	}
	switch (i) {
	case 0:	/* sched_migrate_task */
		ret = field_num(ev, rec, "pid", &a);
		ret = ret ? ret : field_num(ev, rec, "orig_cpu", &b);
		ret = ret ? ret : field_num(ev, rec, "dest_cpu", &c);
		if (ret)
			return ret;
		if (has_tid(tids, nr_tids, a)) {
			ev_init(&out[n], rec, PMS_EV_MIGRATE, a);
			out[n].from_cpu = (int32_t)b;
			out[n++].to_cpu = (int32_t)c;
		}
		return n;
	case 1:	/* sched_switch */
		ret = field_num(ev, rec, "prev_pid", &a);
		ret = ret ? ret : field_num(ev, rec, "next_pid", &b);
		ret = ret ? ret : field_num(ev, rec, "prev_state", &c);
		if (ret)
			return ret;
		if (has_tid(tids, nr_tids, a)) {
			ev_init(&out[n], rec, PMS_EV_SWITCH_OUT, a);
			out[n++].state = pms_trace_state_char(c);
		}
		if (has_tid(tids, nr_tids, b))
			ev_init(&out[n++], rec, PMS_EV_SWITCH_IN, b);
		return n;
	case 2:	/* sched_wakeup */
		ret = field_num(ev, rec, "pid", &a);
		ret = ret ? ret : field_num(ev, rec, "target_cpu", &b);
		if (ret)
			return ret;
		if (has_tid(tids, nr_tids, a)) {
			ev_init(&out[n], rec, PMS_EV_WAKEUP, a);
			out[n++].to_cpu = (int32_t)b;
		}
		return n;
	default:
		return 0;
	}
}

struct collect_ctx {
	struct pms_trace *t;
	struct tep_handle *tep;
	struct pms_sched_ev *evs;
	size_t n, cap;
	int err;
	/* streaming: each event handed over, nothing kept */
	void (*each)(void *arg, const struct pms_sched_ev *ev);
	void *each_arg;
};

static int collect_one(struct tep_event *event, struct tep_record *rec, int cpu, void *arg)
{
	struct pms_sched_ev ev[PMS_TRACE_PARSE_MAX], *grown;
	struct collect_ctx *c = arg;
	int i, r;

	/* -1: pages were lost but the kernel could not say how many events */
	if (rec->missed_events)
		c->t->missed += rec->missed_events > 0 ? (uint64_t)rec->missed_events : 1;
	r = pms_trace_parse(c->tep, rec, c->t->tids, c->t->nr_tids, ev);
	if (r < 0) {
		c->t->malformed++;
		return 0;
	}
	if (c->each) {
		for (i = 0; i < r; i++) {
			c->t->count[ev[i].kind]++;
			c->each(c->each_arg, &ev[i]);
		}
		return 0;
	}
	if (c->n + (size_t)r > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;

		grown = realloc(c->evs, cap * sizeof(*grown));
		if (!grown) {
			c->err = -ENOMEM;
			return 1;
		}
		c->evs = grown;
		c->cap = cap;
	}
	for (i = 0; i < r; i++) {
		c->t->count[ev[i].kind]++;
		c->evs[c->n++] = ev[i];
	}
	return 0;
}

static int ev_cmp(const void *pa, const void *pb)
{
	const struct pms_sched_ev *a = pa, *b = pb;

	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return (int)a->kind - (int)b->kind;
}

static bool ev_sorted(const struct pms_sched_ev *evs, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++) {
		if (evs[i].time_ns < evs[i - 1].time_ns)
			return false;
	}
	return true;
}

/*
 * The formats of the three sched events and the ring-buffer page header,
 * and nothing else: libtracefs's tracefs_local_events_system() also loads
 * every event format of the system, /proc/kallsyms and the printk formats,
 * which cost about 15 MiB resident and, under ASan, seconds, for fields
 * this reader never prints.
 */
static struct tep_handle *sched_tep(const char *tracefs, int *err)
{
	struct tep_handle *tep = tep_alloc();
	char path[PATH_MAX], *buf = malloc(65536);
	size_t i;
	int r;

	*err = -ENOMEM;
	if (!tep || !buf)
		goto fail;
	tep_set_file_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, (int)sizeof(long));
	tep_set_page_size(tep, (int)sysconf(_SC_PAGESIZE));
	snprintf(path, sizeof(path), "%s/events/header_page", tracefs);
	r = read_small(path, buf, 65536);
	if (r < 0 || tep_parse_header_page(tep, buf, (unsigned long)r, (int)sizeof(long))) {
		*err = r < 0 ? r : -EINVAL;
		goto fail;
	}
	for (i = 0; i < NR_SCHED_EVENTS; i++) {
		snprintf(path, sizeof(path), "%s/events/sched/%s/format", tracefs, sched_events[i]);
		r = read_small(path, buf, 65536);
		if (r < 0 || tep_parse_event(tep, buf, (unsigned long)r, "sched")) {
			*err = r < 0 ? r : -EINVAL;
			goto fail;
		}
	}
	free(buf);
	*err = 0;
	return tep;
fail:
	free(buf);
	if (tep)
		tep_free(tep);
	return NULL;
}

/*
 * Read what the instance recorded since the last read (consumed).  Formats
 * live in the top events/ only; instances share them, and they are parsed
 * once: a streaming run reads every 100 ms.
 */
static int read_instance(struct pms_trace *t, struct collect_ctx *c)
{
	int ret = 0;

	if (!t || !t->created || !t->inst)
		return -EINVAL;
	if (!t->tep) {
		int err;

		t->tep = sched_tep(t->tracefs, &err);
		if (!t->tep)
			return err;
	}
	c->t = t;
	c->tep = t->tep;
	errno = 0;
	if (tracefs_iterate_raw_events(c->tep, t->inst, NULL, 0, collect_one, c))
		ret = errno ? -errno : -EIO;
	if (c->err)
		ret = c->err;
	return ret;
}

int pms_trace_collect_each(struct pms_trace *t,
			   void (*each)(void *arg, const struct pms_sched_ev *ev), void *arg)
{
	struct collect_ctx c = { .each = each, .each_arg = arg };

	return read_instance(t, &c);
}

int pms_trace_collect(struct pms_trace *t, struct pms_sched_ev **evs, size_t *n)
{
	struct collect_ctx c = { 0 };
	int ret;

	if (!evs || !n)
		return -EINVAL;
	*evs = NULL;
	*n = 0;
	ret = read_instance(t, &c);
	if (ret) {
		free(c.evs);
		return ret;
	}
	/* The iterator merges the CPUs by time already; this is for the odd tie. */
	if (!ev_sorted(c.evs, c.n))
		qsort(c.evs, c.n, sizeof(*c.evs), ev_cmp);
	*evs = c.evs;
	*n = c.n;
	return 0;
}

void pms_trace_destroy(struct pms_trace *t)
{
	char path[PATH_MAX];
	int ret = 0;

	if (!t)
		return;
	if (t->created) {
		inst_write(t, "tracing_on", "0");
		errno = 0;
		if (t->inst)
			ret = tracefs_instance_destroy(t->inst);
		else if (!inst_path(t, NULL, path, sizeof(path)))
			ret = rmdir(path);
		/* Left in place, another destroy or the emergency path tries again. */
		if (!ret || errno == ENOENT) {
			t->created = false;
			if (emerg_pid == getpid())
				emerg_armed = 0;
		}
	}
	if (t->inst) {
		tracefs_instance_free(t->inst);
		t->inst = NULL;
	}
	if (t->tep) {
		tep_free(t->tep);
		t->tep = NULL;
	}
	free(t->tids);
	t->tids = NULL;
	t->nr_tids = 0;
	t->running = false;
}

void pms_trace_emergency_cleanup(void)
{
	int saved = errno, fd;

	if (!emerg_armed || emerg_pid != getpid())
		return;
	fd = open(emerg_on, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0) {
			/* nothing to do about it in a signal handler */
		}
		close(fd);
	}
	if (!rmdir(emerg_dir) || errno == ENOENT)
		emerg_armed = 0;
	errno = saved;
}

bool pms_trace_incomplete(const struct pms_trace *t)
{
	return !t->stats_valid || t->overrun || t->dropped || t->missed || t->malformed;
}

/* Takes @val, NULL being a failed allocation. */
static int jadd(json_object *o, const char *key, json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(o, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

json_object *pms_trace_to_json(const struct pms_trace *t)
{
	json_object *o = json_object_new_object(), *ev = json_object_new_object();
	int err = 0, k;

	if (!o || !ev) {
		json_object_put(o);
		json_object_put(ev);
		errno = ENOMEM;
		return NULL;
	}
	for (k = 0; k < PMS_EV_KIND_NR; k++)
		err |= jadd(ev, pms_ev_kind_name(k), json_object_new_uint64(t->count[k]));
	err |= jadd(o, "instance", json_object_new_string(t->name));
	err |= jadd(o, "clock", json_object_new_string(t->clock));
	err |= jadd(o, "buffer_kb", json_object_new_uint64(t->buffer_kb));
	err |= jadd(o, "events", ev);
	err |= jadd(o, "overrun", json_object_new_uint64(t->overrun));
	err |= jadd(o, "dropped", json_object_new_uint64(t->dropped));
	err |= jadd(o, "stats_valid", json_object_new_boolean(t->stats_valid));
	err |= jadd(o, "missed", json_object_new_uint64(t->missed));
	err |= jadd(o, "malformed", json_object_new_uint64(t->malformed));
	err |= jadd(o, "incomplete", json_object_new_boolean(pms_trace_incomplete(t)));
	if (err) {
		json_object_put(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}

const char *pms_ev_kind_name(enum pms_ev_kind k)
{
	static const char *const names[PMS_EV_KIND_NR] = {
		[PMS_EV_MIGRATE] = "migrate",
		[PMS_EV_SWITCH_OUT] = "switch_out",
		[PMS_EV_SWITCH_IN] = "switch_in",
		[PMS_EV_WAKEUP] = "wakeup",
	};

	return (unsigned int)k < PMS_EV_KIND_NR ? names[k] : "?";
}
