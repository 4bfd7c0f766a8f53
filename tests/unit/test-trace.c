// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/trace.c without tracefs: real sched records captured on Linux 6.18
 * (tests/fixtures/trace/records.txt) parsed against that kernel's formats,
 * malformed and foreign records, an older kernel's layout, and the pure
 * helpers (filters, prev_state, stale instance names, JSON).  No root needed.
 *
 * Usage: test-trace [FIXTURES_DIR]; else $PMS_FIXTURES; else tests/fixtures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "pms-trace.h"
#include "tap.h"
#include "json-path.h"

#define MAX_TIDS 8

/* is_u64() for results that may be -errno. */
#define is_int(got, want, name) do {					\
	long long g_ = (got), w_ = (want);				\
	if (!ok(g_ == w_, "%s", name))					\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)

static char fixdir[512];

static char *slurp(const char *name, size_t *len)
{
	char path[1024], *buf;
	size_t n = 0, cap = 4096;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap + 1);
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* A tep from format texts, as tracefs_local_events_system() builds it from the kernel. */
static int add_format(struct tep_handle *tep, const char *text)
{
	struct tep_event *ev;

	return tep_parse_format(tep, &ev, text, strlen(text), "sched") ? -1 : 0;
}

static struct tep_handle *fixture_tep(void)
{
	static const char *const files[] = {
		"sched_migrate_task.format", "sched_switch.format", "sched_wakeup.format",
	};
	struct tep_handle *tep = tep_alloc();
	size_t len, i;
	char *buf;

	if (!tep)
		return NULL;
	buf = slurp("header_page", &len);
	ok(buf && !tep_parse_header_page(tep, buf, len, sizeof(long)), "header_page parses");
	free(buf);
	for (i = 0; i < 3; i++) {
		buf = slurp(files[i], &len);
		ok(buf && !add_format(tep, buf), "%s parses", files[i]);
		free(buf);
	}
	return tep;
}

/* Record bytes in a buffer of exactly @size bytes, so a sanitizer sees any overread. */
static struct tep_record *new_record(const unsigned char *data, int size, int cpu,
				     unsigned long long ts)
{
	struct tep_record *rec = calloc(1, sizeof(*rec));

	if (!rec)
		return NULL;
	rec->data = malloc(size > 0 ? (size_t)size : 1);
	if (!rec->data) {
		free(rec);
		return NULL;
	}
	memcpy(rec->data, data, size > 0 ? (size_t)size : 0);
	rec->size = size;
	rec->record_size = size;
	rec->cpu = cpu;
	rec->ts = ts;
	return rec;
}

static void free_record(struct tep_record *rec)
{
	if (rec)
		free(rec->data);
	free(rec);
}

static int unhex(const char *hex, unsigned char *out, size_t max)
{
	size_t n = strlen(hex), i;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(hex + 2 * i, "%2hhx", &out[i]) != 1)
			return -1;
	}
	return (int)(n / 2);
}

static enum pms_ev_kind kind_by_name(const char *s)
{
	int k;

	for (k = 0; k < PMS_EV_KIND_NR; k++) {
		if (!strcmp(s, pms_ev_kind_name(k)))
			return k;
	}
	return PMS_EV_KIND_NR;
}

struct seen {
	int kinds[PMS_EV_KIND_NR];
	int states[128];
	int records, doubles;
};

/* Kept for the tests after the fixture: one migrate and one switch record. */
static unsigned char mig_data[256], sw_data[256], wake_data[256];
static int mig_len, sw_len, wake_len;
static pid_t sw_prev;

static void check_record(struct tep_handle *tep, char *line, const pid_t *tids, size_t nr,
			 struct seen *seen)
{
	char *tok[64], *save = NULL, *p;
	struct pms_sched_ev out[PMS_TRACE_PARSE_MAX + 1];
	unsigned char data[256];
	struct tep_record *rec;
	int ntok = 0, len, want, got, i;
	unsigned long long ts;

	for (p = strtok_r(line, " \t\n", &save); p && ntok < 64; p = strtok_r(NULL, " \t\n", &save))
		tok[ntok++] = p;
	if (ntok < 5 || (want = atoi(tok[4]), ntok != 5 + 5 * want)) {
		ok(0, "fixture line for %s is well formed", ntok ? tok[0] : "?");
		return;
	}
	len = unhex(tok[3], data, sizeof(data));
	ts = strtoull(tok[2], NULL, 10);
	rec = len > 0 ? new_record(data, len, atoi(tok[1]), ts) : NULL;
	if (!ok(rec, "%s @%s: record bytes decode", tok[0], tok[2]))
		return;
	memset(out, 0x5a, sizeof(out));
	got = pms_trace_parse(tep, rec, tids, nr, out);
	is_int(got, want, "record gives the expected number of events");
	for (i = 0; i < want && i < got; i++) {
		const char **w = (const char **)&tok[5 + 5 * i];
		enum pms_ev_kind k = kind_by_name(w[0]);
		bool match = out[i].kind == k && out[i].tid == atoi(w[1]) &&
			     out[i].from_cpu == atoi(w[2]) && out[i].to_cpu == atoi(w[3]) &&
			     out[i].state == w[4][0] && out[i].time_ns == ts &&
			     out[i].cpu == atoi(tok[1]);

		if (!ok(match, "%s @%s: %s tid %s from %s to %s state %s", tok[0], tok[2], w[0],
			w[1], w[2], w[3], w[4]))
			printf("#   got %s tid %d from %d to %d state %c time %llu cpu %d\n",
			       pms_ev_kind_name(out[i].kind), out[i].tid, out[i].from_cpu,
			       out[i].to_cpu, out[i].state, (unsigned long long)out[i].time_ns,
			       out[i].cpu);
		if (k < PMS_EV_KIND_NR)
			seen->kinds[k]++;
		if (k == PMS_EV_SWITCH_OUT)
			seen->states[(unsigned char)w[4][0] & 127]++;
	}
	seen->records++;
	seen->doubles += want == 2;

	/* The same record for threads that are not ours. */
	{
		const pid_t others[] = { 1, 2 };

		is_u64(pms_trace_parse(tep, rec, others, 2, out), 0,
		       "the same record concerns none of pids 1, 2");
	}

	if (!strcmp(tok[0], "sched_migrate_task") && !mig_len) {
		memcpy(mig_data, data, len);
		mig_len = len;
	}
	if (!strcmp(tok[0], "sched_wakeup") && !wake_len) {
		memcpy(wake_data, data, len);
		wake_len = len;
	}
	if (!strcmp(tok[0], "sched_switch") && want == 2 && !sw_len) {
		memcpy(sw_data, data, len);
		sw_len = len;
		sw_prev = atoi(tok[6]);
	}
	free_record(rec);
}

static void test_fixture(struct tep_handle *tep)
{
	pid_t tids[MAX_TIDS];
	size_t nr = 0, len;
	char *buf = slurp("records.txt", &len), *line, *save = NULL, *p, *s2;
	struct seen seen;

	memset(&seen, 0, sizeof(seen));
	if (!ok(buf, "records.txt is readable"))
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!*line || *line == '#')
			continue;
		if (!strncmp(line, "tids ", 5)) {
			nr = 0;
			for (p = strtok_r(line + 5, " ", &s2); p && nr < MAX_TIDS;
			     p = strtok_r(NULL, " ", &s2))
				tids[nr++] = atoi(p);
			continue;
		}
		check_record(tep, line, tids, nr, &seen);
	}
	free(buf);

	/* A fixture that lost its interesting records would pass vacuously. */
	ok(seen.records >= 10, "the fixture has real records (%d)", seen.records);
	ok(seen.kinds[PMS_EV_MIGRATE] >= 2 && seen.kinds[PMS_EV_SWITCH_OUT] >= 4 &&
	   seen.kinds[PMS_EV_SWITCH_IN] >= 2 && seen.kinds[PMS_EV_WAKEUP] >= 2,
	   "it covers every kind");
	ok(seen.states['R'] >= 2 && seen.states['S'] && seen.states['D'] && seen.states['?'],
	   "and switch-outs in states R (0 and preempted), S, D and other");
	ok(seen.doubles >= 2, "and records where both threads are ours");
}

static void test_malformed(struct tep_handle *tep)
{
	const pid_t tids[] = { 13118, 13119 };
	struct pms_sched_ev out[PMS_TRACE_PARSE_MAX];
	struct tep_record *rec;
	unsigned char buf[256];
	static const int mig_cuts[] = { 0, 1, 3, 8, 20, 27 };
	size_t i;

	if (!ok(mig_len == 36 && sw_len == 64 && wake_len == 36,
		"fixture records kept for the malformed cases"))
		return;
	for (i = 0; i < sizeof(mig_cuts) / sizeof(mig_cuts[0]); i++) {
		rec = new_record(mig_data, mig_cuts[i], 0, 1);
		is_int(pms_trace_parse(tep, rec, tids, 2, out), -EBADMSG,
		       "a sched_migrate_task record cut short: EBADMSG");
		free_record(rec);
	}
	/* dest_cpu ends at 28; comm (__data_loc) is never read. */
	rec = new_record(mig_data, 28, 0, 1);
	is_u64(pms_trace_parse(tep, rec, tids, 2, out), 1, "cut after dest_cpu: still parses");
	free_record(rec);

	rec = new_record(sw_data, 40, 0, 1);
	is_int(pms_trace_parse(tep, rec, tids, 2, out), -EBADMSG,
	       "a sched_switch record without next_pid: EBADMSG");
	free_record(rec);

	rec = new_record(sw_data, sw_len, 0, 1);
	rec->size = 0;
	is_int(pms_trace_parse(tep, rec, tids, 2, out), -EBADMSG, "size 0: EBADMSG");
	free_record(rec);

	memcpy(buf, wake_data, wake_len);
	buf[0] = 0xfe;
	buf[1] = 0xff;
	rec = new_record(buf, wake_len, 0, 1);
	is_u64(pms_trace_parse(tep, rec, tids, 2, out), 0, "an event id tep does not know: 0");
	free_record(rec);

	rec = new_record(wake_data, wake_len, 0, 1);
	is_int(pms_trace_parse(NULL, rec, tids, 2, out), -EINVAL, "no tep: EINVAL");
	is_int(pms_trace_parse(tep, rec, tids, 2, NULL), -EINVAL, "no output: EINVAL");
	is_u64(pms_trace_parse(tep, rec, NULL, 0, out), 0, "no tids: nothing is ours");
	{
		struct tep_handle *empty = tep_alloc();

		is_u64(pms_trace_parse(empty, rec, tids, 2, out), 0,
		       "a tep without the sched formats: not ours");
		tep_free(empty);
	}
	free_record(rec);
}

/* A format that lacks a field: EPROTO, not a guess. */
static void test_missing_field(void)
{
	const pid_t tids[] = { 13119 };
	struct pms_sched_ev out[PMS_TRACE_PARSE_MAX];
	struct tep_handle *tep = tep_alloc();
	struct tep_record *rec;
	size_t len;
	char *fmt = slurp("sched_wakeup.format", &len), *p;

	if (!ok(fmt && tep, "sched_wakeup.format for the edited copy"))
		goto out;
	p = strstr(fmt, "int target_cpu;");
	if (!ok(p, "it has target_cpu"))
		goto out;
	memcpy(p, "int target_xpu;", 15);
	ok(!add_format(tep, fmt), "the edited format parses");
	rec = new_record(wake_data, wake_len, 0, 1);
	is_int(pms_trace_parse(tep, rec, tids, 1, out),
	       -EPROTO, "no target_cpu field: EPROTO");
	free_record(rec);
out:
	free(fmt);
	tep_free(tep);
}

/*
 * sched_migrate_task before comm became __data_loc (Linux < 6.x): other
 * offsets, same names.  Hand-made, the layout from older kernels' format.
 */
static void test_old_layout(void)
{
	static const char fmt[] =
		"name: sched_migrate_task\n"
		"ID: 294\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
		"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
		"\tfield:int orig_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
		"\tfield:int dest_cpu;\toffset:36;\tsize:4;\tsigned:1;\n"
		"\n"
		"print fmt: \"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", REC->comm, "
		"REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu\n";
	unsigned char data[40] = { 0 };
	int32_t v;
	const pid_t tids[] = { 4242 };
	struct pms_sched_ev out[PMS_TRACE_PARSE_MAX];
	struct tep_handle *tep = tep_alloc();
	struct tep_record *rec;
	uint16_t type = 294;

	ok(tep && !add_format(tep, fmt), "an older sched_migrate_task format parses");
	memcpy(data, &type, 2);
	memcpy(data + 8, "worker", 6);
	v = 4242;
	memcpy(data + 24, &v, 4);
	v = 120;
	memcpy(data + 28, &v, 4);
	v = 3;
	memcpy(data + 32, &v, 4);
	v = 1;
	memcpy(data + 36, &v, 4);
	rec = new_record(data, sizeof(data), 3, 777);
	is_u64(pms_trace_parse(tep, rec, tids, 1, out), 1, "older layout: one event");
	ok(out[0].kind == PMS_EV_MIGRATE && out[0].tid == 4242 && out[0].from_cpu == 3 &&
	   out[0].to_cpu == 1 && out[0].cpu == 3 && out[0].time_ns == 777,
	   "older layout: fields found by name (tid 4242, CPU 3 -> 1)");
	free_record(rec);
	tep_free(tep);
}

static void test_state_char(void)
{
	static const struct {
		long long v;
		char want;
	} cases[] = {
		{ 0, 'R' }, { 0x1, 'S' }, { 0x2, 'D' }, { 0x100, 'R' }, { 0x4, '?' },
		{ 0x10, '?' }, { 0x20, '?' }, { 0x80, '?' }, { 0x800, 'R' }, { 0x300, '?' },
		{ 0x101, 'S' }, { -1, 'S' },
	};
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got = pms_trace_state_char(cases[i].v);

		snprintf(name, sizeof(name), "prev_state %#llx is '%c'", cases[i].v, cases[i].want);
		if (!ok(got == cases[i].want, "%s", name))
			printf("#   got '%c'\n", got);
	}
}

static int fake_alive(pid_t pid)
{
	return pid == 1 || pid == 4242;
}

static void test_stale(void)
{
	static const struct {
		const char *name;
		bool stale;
	} cases[] = {
		{ "pmustress-1", false },		/* alive */
		{ "pmustress-4242", false },
		{ "pmustress-4243", true },
		{ "pmustress-999999999", true },
		{ "pmustress-12x", false },
		{ "other-5", false },
		{ "pmustress-", false },
		{ "pmustress-0", false },
		{ "pmustress-012", false },
		{ "pmustress--5", false },
		{ "pmustress-+5", false },
		{ "pmustress- 5", false },
		{ "pmustress-99999999999", false },	/* not a pid */
		{ "PMUSTRESS-5", false },
		{ "xpmustress-5", false },
		{ "pmustress-5/", false },
	};
	char mine[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(pms_trace_instance_is_stale(cases[i].name, fake_alive) == cases[i].stale,
		   "\"%s\" is %sstale", cases[i].name, cases[i].stale ? "" : "not ");
	ok(!pms_trace_instance_is_stale(NULL, fake_alive), "NULL is not stale");
	snprintf(mine, sizeof(mine), "pmustress-%d", (int)getpid());
	ok(!pms_trace_instance_is_stale(mine, NULL), "kill(2): our own instance is not stale");
	ok(!pms_trace_instance_is_stale("pmustress-1", NULL),
	   "kill(2): init is alive (EPERM counts)");
	ok(pms_trace_instance_is_stale("pmustress-999999999", NULL),
	   "kill(2): pid 999999999 is gone");
}

static void test_filters(void)
{
	const pid_t two[] = { 12, 345 };
	char buf[128], small[20];
	int n, fit;
	long page = sysconf(_SC_PAGESIZE);
	char *big;
	pid_t *many;

	n = pms_trace_filter_string("sched_migrate_task", two, 2, buf, sizeof(buf));
	is_str(buf, "pid==12||pid==345", "migrate filter on the event's own pid");
	is_u64(n, strlen(buf), "returns its length");
	pms_trace_filter_string("sched_wakeup", two, 1, buf, sizeof(buf));
	is_str(buf, "pid==12", "wakeup filter");
	pms_trace_filter_string("sched_switch", two, 2, buf, sizeof(buf));
	is_str(buf, "prev_pid==12||next_pid==12||prev_pid==345||next_pid==345",
	       "switch filter on prev_pid and next_pid");
	is_int(pms_trace_filter_string("sched_waking", two, 2, buf, sizeof(buf)), -EINVAL,
	       "another event: EINVAL");
	is_int(pms_trace_filter_string("sched_switch", two, 0, buf, sizeof(buf)), -EINVAL,
	       "no tids: EINVAL");
	is_int(pms_trace_filter_string("sched_switch", two, 2, small, sizeof(small)), -E2BIG,
	       "too small: E2BIG");
	is_str(small, "", "and no half filter left in the buffer");

	/* How many 7-digit tids a one-page filter holds, for the record. */
	many = malloc(1000 * sizeof(*many));
	big = malloc((size_t)page);
	if (many && big) {
		for (n = 0; n < 1000; n++)
			many[n] = 4000000 + n;
		for (fit = 1; fit < 1000; fit++) {
			if (pms_trace_filter_string("sched_switch", many, fit + 1, big,
						    (size_t)page) < 0)
				break;
		}
		ok(fit >= 60, "a %ld-byte sched_switch filter holds %d 7-digit tids", page, fit);
	}
	free(many);
	free(big);
}

static void test_lifecycle_without_tracefs(void)
{
	struct pms_trace t;
	struct pms_trace_cfg cfg = { 0 };
	struct pms_sched_ev *evs = (void *)1;
	size_t n = 99;
	char why[256] = "";
	pid_t tid = getpid();

	memset(&t, 0, sizeof(t));
	pms_trace_destroy(&t);
	pms_trace_destroy(&t);
	pms_trace_destroy(NULL);
	ok(1, "destroy on a zeroed trace, twice, and on NULL");
	pms_trace_emergency_cleanup();
	ok(1, "emergency cleanup with no instance is a no-op");

	is_int(pms_trace_start(&t, &cfg, why, sizeof(why)), -EINVAL,
	       "start without threads: EINVAL");
	ok(why[0], "with a reason (%s)", why);
	pms_trace_destroy(&t);
	ok(!t.created && !t.inst && !t.tids, "destroy after a failed start");

	cfg.tids = &tid;
	cfg.nr_tids = 1;
	cfg.tracefs = "/tmp";
	why[0] = '\0';
	ok(pms_trace_start(&t, &cfg, why, sizeof(why)) < 0,
	   "start on a directory that is not tracefs fails");
	ok(strstr(why, "not a tracefs mount") != NULL, "saying so (%s)", why);
	pms_trace_destroy(&t);
	is_int(pms_trace_reap_stale("/tmp"), -ENODEV,
	       "reap_stale refuses a directory that is not tracefs");
	why[0] = '\0';
	ok(!pms_trace_usable("/tmp", why, sizeof(why)) && why[0],
	   "/tmp is not usable for tracing (%s)", why);

	is_int(pms_trace_stop(&t), -EINVAL, "stop before start: EINVAL");
	is_int(pms_trace_collect(&t, &evs, &n), -EINVAL, "collect before start: EINVAL");
	ok(!evs && !n, "with no events handed out");
}

static void test_json(void)
{
	struct pms_trace t;
	json_object *o;

	memset(&t, 0, sizeof(t));
	snprintf(t.name, sizeof(t.name), "pmustress-77");
	snprintf(t.clock, sizeof(t.clock), "mono");
	t.buffer_kb = 1410;
	t.count[PMS_EV_MIGRATE] = 6;
	t.count[PMS_EV_SWITCH_OUT] = 30;
	t.count[PMS_EV_SWITCH_IN] = 31;
	t.count[PMS_EV_WAKEUP] = 9;
	t.stats_valid = true;
	ok(!pms_trace_incomplete(&t), "no overrun, drop or miss: complete");
	o = pms_trace_to_json(&t);
	if (ok(o, "to_json")) {
		is_str(json_object_get_string(jget(o, "instance")), "pmustress-77", "instance");
		is_str(json_object_get_string(jget(o, "clock")), "mono", "clock");
		is_u64(json_object_get_uint64(jget(o, "buffer_kb")), 1410, "buffer_kb");
		is_u64(json_object_get_uint64(jget(o, "events.migrate")), 6, "events.migrate");
		is_u64(json_object_get_uint64(jget(o, "events.switch_out")), 30,
		       "events.switch_out");
		is_u64(json_object_get_uint64(jget(o, "events.switch_in")), 31, "events.switch_in");
		is_u64(json_object_get_uint64(jget(o, "events.wakeup")), 9, "events.wakeup");
		ok(jget(o, "overrun") && jget(o, "dropped") && jget(o, "missed"),
		   "overrun, dropped, missed");
		ok(!json_object_get_boolean(jget(o, "incomplete")), "incomplete: false");
		json_object_put(o);
	}
	t.overrun = 3;
	ok(pms_trace_incomplete(&t), "an overrun makes it incomplete");
	o = pms_trace_to_json(&t);
	ok(o && json_object_get_boolean(jget(o, "incomplete")) &&
	   json_object_get_uint64(jget(o, "overrun")) == 3, "and the JSON says so");
	json_object_put(o);
	t.overrun = 0;
	t.stats_valid = false;
	ok(pms_trace_incomplete(&t), "unread counts make it incomplete too");
}

static void test_names(void)
{
	is_str(pms_ev_kind_name(PMS_EV_MIGRATE), "migrate", "kind name migrate");
	is_str(pms_ev_kind_name(PMS_EV_SWITCH_OUT), "switch_out", "kind name switch_out");
	is_str(pms_ev_kind_name(PMS_EV_SWITCH_IN), "switch_in", "kind name switch_in");
	is_str(pms_ev_kind_name(PMS_EV_WAKEUP), "wakeup", "kind name wakeup");
	is_str(pms_ev_kind_name(PMS_EV_KIND_NR), "?", "out of range");
	is_str(pms_ev_kind_name((enum pms_ev_kind)-1), "?", "negative");
}

int main(int argc, char **argv)
{
	const char *base = argc > 1 ? argv[1] : getenv("PMS_FIXTURES");
	struct tep_handle *tep;

	snprintf(fixdir, sizeof(fixdir), "%s/trace", base ? base : "tests/fixtures");
	tep = fixture_tep();
	if (ok(tep, "a tep from %s", fixdir)) {
		test_fixture(tep);
		test_malformed(tep);
		tep_free(tep);
	}
	test_missing_field();
	test_old_layout();
	test_state_char();
	test_stale();
	test_filters();
	test_lifecycle_without_tracefs();
	test_json();
	test_names();
	return tap_done();
}
