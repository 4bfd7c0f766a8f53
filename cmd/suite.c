// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmustress run --suite NAME|FILE` and `pmustress run all`: many runs in
 * one command.  Each run is this binary again in a child process of its
 * own (its own process group, its own time limit, its output in
 * LABEL.log, its result in LABEL.json), so that one crash or hang costs
 * one run, never the suite.  The run directory's index.json says what
 * ran and how each run ended; it is rewritten (atomically) after every
 * run, so a suite killed half way still leaves a valid index, marked
 * "complete": false.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "export.h"
#include "pms-cpus.h"
#include "pms-plan.h"
#include "pms-probe.h"
#include "pms-sha256.h"
#include "pms-util.h"
#include "scenarios.h"

#define INDEX_SCHEMA_VERSION 1
/* A run's default time limit: twice its --duration and a minute for set-up and analysis. */
#define DEFAULT_GRACE_NS (60 * NS_PER_S)
/* After SIGTERM, how long a run has to write its partial result before SIGKILL. */
#define KILL_GRACE_NS (10 * NS_PER_S)
#define REASON_COLUMNS 60

struct suite {
	struct pms_plan plan;
	const char *plan_file;		/* NULL for `run all` */
	char plan_sha256[65];
	char dir[PATH_MAX];
	char exe[PATH_MAX];
	uint64_t default_timeout_ns;	/* --timeout; 0: per run, from its --duration */
	bool quiet;
	bool bisect;
	int interrupted;		/* the signal that stopped the suite, or 0 */
	sigset_t orig_mask;
	json_object *index, *runs;
	enum pms_bisect_class *cls;
	size_t done;
	/* run all: scenarios that cannot run here, with why (NULL: runs) */
	char **skip_reason;
};

/*
 * What a suite can print on stdout once it is done.  A machine format
 * (cmd/export.c) gets the finished index and the run directory, and the
 * human table moves to stderr.
 */
static int print_table(FILE *out, json_object *index, const char *dir);

static const struct suite_format {
	const char *name;
	int (*print)(FILE *out, json_object *index, const char *dir);
} formats[] = {
	{ "text", print_table },
	{ "ktap", pms_export_ktap },
	{ "junit", pms_export_junit },
};

static double secs(uint64_t ns)
{
	return (double)ns / NS_PER_S;
}

static json_object *jstr_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static const char *signal_name(int sig)
{
	static char buf[16];
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev) {
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
		return buf;
	}
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

/* ---- finding the plan, making the run directory */

static void exe_dir(const struct suite *s, char *buf, size_t len)
{
	char *slash;

	if (snprintf(buf, len, "%s", s->exe) >= (int)len)
		buf[0] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(buf, len, ".");
}

/*
 * A path (anything with a '/', or a file that exists), else a suite's
 * name looked up in $PMUSTRESS_SUITES (':'-separated), then beside the
 * binary: scripts/suites/ in the source tree, ../share/pmustress/suites/
 * once installed.
 */
static int find_plan(const struct suite *s, const char *arg, char *path, size_t len)
{
	char dirs[4][PATH_MAX + 32], looked[2048], here[PATH_MAX];
	const char *env = getenv("PMUSTRESS_SUITES");
	size_t pos = 0, nd = 0, i;
	struct stat st;

	if (strchr(arg, '/') || !stat(arg, &st)) {
		snprintf(path, len, "%s", arg);
		return 0;
	}
	if (env && *env) {
		char *copy = strdup(env), *save = NULL, *d;

		for (d = copy ? strtok_r(copy, ":", &save) : NULL; d && nd < 2;
		     d = strtok_r(NULL, ":", &save))
			snprintf(dirs[nd++], sizeof(dirs[0]), "%s", d);
		free(copy);
	}
	exe_dir(s, here, sizeof(here));
	snprintf(dirs[nd++], sizeof(dirs[0]), "%s/scripts/suites", here);
	snprintf(dirs[nd++], sizeof(dirs[0]), "%s/../share/pmustress/suites", here);
	looked[0] = '\0';
	for (i = 0; i < nd; i++) {
		if (snprintf(path, len, "%s/%s", dirs[i], arg) < (int)len &&
		    !stat(path, &st) && S_ISREG(st.st_mode))
			return 0;
		pms_append(looked, sizeof(looked), &pos, "%s%s", i ? ", " : "", dirs[i]);
	}
	pms_err("no suite '%s': not a file, and not in %s", arg, looked);
	return -ENOENT;
}

static int read_plan(struct suite *s, const char *file)
{
	char err[1024], *text;
	size_t len = 0, cap = 65536;
	FILE *f;
	int ret;

	f = fopen(file, "re");
	if (!f) {
		pms_err("%s: cannot read the suite: %s", file, strerror(errno));
		return PMS_EXIT_PLAN;
	}
	text = malloc(cap);
	while (text) {
		size_t n = fread(text + len, 1, cap - len, f);

		len += n;
		if (len < cap || len > PMS_PLAN_MAX_BYTES)
			break;
		cap *= 2;
		text = realloc(text, cap);
	}
	if (!text || ferror(f)) {
		pms_err("%s: cannot read the suite: %s", file, text ? "read error" : "out of memory");
		fclose(f);
		free(text);
		return PMS_EXIT_PLAN;
	}
	fclose(f);
	pms_sha256_buf(text, len, s->plan_sha256);
	ret = pms_plan_parse(&s->plan, file, text, len, pms_scenarios, pms_nr_scenarios,
			     err, sizeof(err));
	free(text);
	if (!ret)
		return 0;
	pms_err("%s", err);
	return ret == -ENOENT ? PMS_EXIT_SCENARIO : ret == -EDOM ? PMS_EXIT_USAGE :
	       ret == -ENOMEM ? PMS_EXIT_SETUP : PMS_EXIT_PLAN;
}

/* Letters, digits, '.', '_' and '-' only: the host and release go into a file name. */
static void clean_name(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			*s = '_';
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

/*
 * --out DIR (created, or an empty directory), else
 * $PMUSTRESS_RESULTS (default results)/<UTC>-<host>-<release>/, with
 * -2, -3, ... when another suite took that name in the same second.
 */
static int make_run_dir(struct suite *s, const char *out, const char *release)
{
	char base[PATH_MAX], host[HOST_NAME_MAX + 1] = "", rel[256], utc[32];
	const char *env = getenv("PMUSTRESS_RESULTS");
	int i, ret;

	if (out) {
		snprintf(s->dir, sizeof(s->dir), "%s", out);
		ret = mkdir_p(s->dir);
		if (ret) {
			pms_err("cannot create '%s': %s", s->dir, strerror(-ret));
			return PMS_EXIT_OUTPUT;
		}
		if (!dir_empty(s->dir)) {
			pms_err("--out %s: not an empty directory (a run directory holds one suite)",
				s->dir);
			return PMS_EXIT_OUTPUT;
		}
	} else {
		snprintf(base, sizeof(base), "%s", env && *env ? env : "results");
		ret = mkdir_p(base);
		if (ret) {
			pms_err("cannot create the results directory '%s': %s", base, strerror(-ret));
			return PMS_EXIT_OUTPUT;
		}
		gethostname(host, sizeof(host) - 1);
		clean_name(host);
		snprintf(rel, sizeof(rel), "%s", release);
		clean_name(rel);
		pms_utc_string(utc, sizeof(utc), true);
		for (i = 1; i < 100; i++) {
			int n = i == 1 ? snprintf(s->dir, sizeof(s->dir), "%s/%s-%s-%s", base, utc,
						  host, rel) :
					 snprintf(s->dir, sizeof(s->dir), "%s/%s-%s-%s-%d", base,
						  utc, host, rel, i);

			if (n >= (int)sizeof(s->dir)) {
				pms_err("run directory name too long under '%s'", base);
				return PMS_EXIT_OUTPUT;
			}
			if (!mkdir(s->dir, 0755))
				break;
			if (errno != EEXIST) {
				pms_err("cannot create '%s': %s", s->dir, strerror(errno));
				return PMS_EXIT_OUTPUT;
			}
		}
		if (i == 100) {
			pms_err("cannot find a free run directory name in '%s'", base);
			return PMS_EXIT_OUTPUT;
		}
	}
	if (access(s->dir, W_OK)) {
		pms_err("cannot write into '%s': %s", s->dir, strerror(errno));
		return PMS_EXIT_OUTPUT;
	}
	return 0;
}

/* ---- the index */

static json_object *options_json(const struct pms_plan_run *r)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < r->argc; i++)
		json_object_array_add(a, json_object_new_string(r->argv[i]));
	return a;
}

static json_object *expect_json(unsigned int expect)
{
	json_object *a;
	int o;

	if (!expect)
		return NULL;
	a = json_object_new_array();
	for (o = 0; o < PMS_NR_OUTCOMES; o++)
		if (expect & (1u << o))
			json_object_array_add(a, json_object_new_string(pms_outcome_name(o)));
	return a;
}

static bool is_bad(int outcome, unsigned int expect)
{
	if (expect)
		return !(expect & (1u << outcome));
	return outcome == PMS_OUTCOME_FAIL || outcome == PMS_OUTCOME_ERROR ||
	       outcome == PMS_OUTCOME_TIMEOUT || outcome == PMS_OUTCOME_CRASH;
}

/*
 * kselftest's statuses over the runs so far: 130 when interrupted, 1 when
 * a run failed or missed its expectation (an error, a timeout or a crash
 * without an expectation is a failure of the suite too), 4 when every
 * run skipped (skip or environment), else 0.
 */
static int suite_status(const struct suite *s)
{
	size_t i, n = json_object_array_length(s->runs), skipped = 0;
	bool bad = false;

	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(s->runs, i);
		int o = pms_outcome_parse(pms_json_get_str(r, "verdict"));

		bad |= is_bad(o, s->plan.runs[i].expect);
		skipped += o == PMS_OUTCOME_SKIP || o == PMS_OUTCOME_ENVIRONMENT;
	}
	if (s->interrupted)
		return PMS_EXIT_INTERRUPTED;
	if (bad)
		return PMS_EXIT_FAIL;
	if (n && skipped == n)
		return PMS_EXIT_SKIP;
	return PMS_EXIT_PASS;
}

static void update_summary(struct suite *s)
{
	static const char *const keys[] = { "pass", "fail", "skip", "error", "environment",
					    "timeout", "crash" };
	size_t i, k, n = json_object_array_length(s->runs);
	long count[PMS_NR_OUTCOMES] = { 0 }, unexpected = 0;
	json_object *sum = json_object_new_object();

	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(s->runs, i);
		int o = pms_outcome_parse(pms_json_get_str(r, "verdict"));
		json_object *ae = pms_json_get(r, "as_expected");

		if (o >= 0)
			count[o]++;
		unexpected += ae && !json_object_get_boolean(ae);
	}
	json_object_object_add(sum, "runs", json_object_new_int64((int64_t)n));
	for (k = 0; k < PMS_ARRAY_SIZE(keys); k++)
		json_object_object_add(sum, keys[k],
				       json_object_new_int64(count[pms_outcome_parse(keys[k])]));
	json_object_object_add(sum, "unexpected", json_object_new_int64(unexpected));
	json_object_object_add(s->index, "summary", sum);
}

/*
 * Rewrite index.json: after every run, and once more at the end (@final),
 * with the end time and the exit status.  "complete" says every planned
 * run ran: false in every index but the last, and in the last too when the
 * suite was interrupted.
 */
static int write_index(struct suite *s, bool final)
{
	char path[PATH_MAX + 16], end[32];
	bool complete = final && !s->interrupted && s->done == s->plan.nr_runs;
	int ret;

	update_summary(s);
	pms_utc_string(end, sizeof(end), false);
	json_object_object_add(s->index, "end_utc", final ? json_object_new_string(end) : NULL);
	json_object_object_add(s->index, "complete", json_object_new_boolean(complete));
	json_object_object_add(s->index, "interrupted", json_object_new_boolean(s->interrupted));
	json_object_object_add(s->index, "stop_signal", s->interrupted ?
			       json_object_new_string(signal_name(s->interrupted)) : NULL);
	json_object_object_add(s->index, "exit_code", final ?
			       json_object_new_int(suite_status(s)) : NULL);
	json_object_object_add(s->index, "bisect_exit_code", final && s->bisect ?
			       json_object_new_int(pms_bisect_suite(s->cls, s->done,
								    s->interrupted)) : NULL);
	snprintf(path, sizeof(path), "%s/index.json", s->dir);
	ret = pms_json_write_atomic(s->index, path);
	if (ret)
		pms_err("cannot write '%s': %s", path, strerror(-ret));
	return ret;
}

static void start_index(struct suite *s, int argc, char **argv, json_object *host,
			const struct utsname *u)
{
	char start[32], cfg[65], src[PATH_MAX];
	json_object *o, *a;
	int i;

	s->index = json_object_new_object();
	json_object_object_add(s->index, "schema_version", json_object_new_int(INDEX_SCHEMA_VERSION));
	json_object_object_add(s->index, "kind", json_object_new_string("pmustress-suite-run"));
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(s->plan.name));
	json_object_object_add(o, "file", jstr_or_null(s->plan_file));
	json_object_object_add(o, "version", json_object_new_int((int)s->plan.version));
	json_object_object_add(o, "sha256", s->plan_file ? json_object_new_string(s->plan_sha256) :
				NULL);
	json_object_object_add(o, "runs_planned", json_object_new_int64((int64_t)s->plan.nr_runs));
	json_object_object_add(s->index, "suite", o);
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string("pmustress"));
	json_object_object_add(o, "version", json_object_new_string(PMS_VERSION));
	json_object_object_add(s->index, "tool", o);
	a = json_object_new_array();
	for (i = -1; i < argc; i++)
		json_object_array_add(a, json_object_new_string(i < 0 ? "pmustress" : argv[i]));
	json_object_object_add(s->index, "argv", a);
	json_object_object_add(s->index, "host", host);
	o = json_object_new_object();
	json_object_object_add(o, "release", json_object_new_string(u->release));
	json_object_object_add(o, "version", json_object_new_string(u->version));
	json_object_object_add(o, "arch", json_object_new_string(u->machine));
	json_object_object_add(s->index, "kernel", o);
	if (!pms_kconfig_sha256(cfg, src, sizeof(src))) {
		char tagged[80];

		snprintf(tagged, sizeof(tagged), "sha256:%s", cfg);
		json_object_object_add(s->index, "config_hash", json_object_new_string(tagged));
		json_object_object_add(s->index, "config_source", json_object_new_string(src));
	} else {
		json_object_object_add(s->index, "config_hash", NULL);
		json_object_object_add(s->index, "config_source", NULL);
	}
	pms_utc_string(start, sizeof(start), false);
	json_object_object_add(s->index, "start_utc", json_object_new_string(start));
	json_object_object_add(s->index, "bisect", json_object_new_boolean(s->bisect));
	s->runs = json_object_new_array();
	json_object_object_add(s->index, "runs", s->runs);
}

/* ---- one run in a child process */

/*
 * The last non-empty line of @path (a run's log), cut to @len, for the
 * reason when there is no result: usually the run's one-line error.
 */
static void last_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;

	buf[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0])
			snprintf(buf, len, "%s", line);
	}
	free(line);
	fclose(f);
}

/* SIGINT/SIGTERM that reached the suite; waits up to @ns. */
static int wait_signal(struct suite *s, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S) };
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sig = sigtimedwait(&set, NULL, &ts);
	if ((sig == SIGINT || sig == SIGTERM) && !s->interrupted)
		s->interrupted = sig;
	return sig;
}

static pid_t spawn(struct suite *s, const struct pms_plan_run *r, const char *json,
		   const char *log)
{
	char **argv = calloc((size_t)r->argc + 8, sizeof(char *));
	pid_t parent = getpid(), pid;
	int fd, i, n = 0;

	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (!argv || fd < 0) {
		free(argv);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	argv[n++] = s->exe;
	argv[n++] = "run";
	argv[n++] = (char *)r->sc->name;
	for (i = 0; i < r->argc; i++)
		argv[n++] = r->argv[i];
	argv[n++] = "--json";
	argv[n++] = (char *)json;
	argv[n++] = "--quiet";
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		/* Its own group: the timeout stops the run and whatever it started. */
		setpgid(0, 0);
		/* A suite killed outright still stops its run. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &s->orig_mask, NULL);
		execv(s->exe, argv);
		dprintf(STDERR_FILENO, "pmustress: cannot run %s: %s\n", s->exe, strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);	/* both sides, so neither has to win a race */
	close(fd);
	free(argv);
	return pid;
}

/*
 * Wait for the run @pid until it exits; at its time limit (or when the
 * suite is interrupted) SIGTERM its process group, and SIGKILL it
 * KILL_GRACE_NS later.  Orphans it left in its group are killed and
 * reaped (the suite is their subreaper): *@strays counts them.
 */
static int wait_run(struct suite *s, pid_t pid, uint64_t deadline, bool *timed_out,
		    bool *killed, int *strays)
{
	uint64_t kill_at = 0, now, next;
	int status = 0, st;
	pid_t w;

	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		now = pms_now_ns();
		if (!kill_at && (s->interrupted || now >= deadline)) {
			*timed_out = !s->interrupted;
			kill(-pid, SIGTERM);
			kill_at = now + KILL_GRACE_NS;
		} else if (kill_at && !*killed && now >= kill_at) {
			kill(-pid, SIGKILL);
			*killed = true;
		}
		next = kill_at ? (*killed ? now + NS_PER_S : kill_at) : deadline;
		wait_signal(s, next > now ? (next - now < NS_PER_S ? next - now : NS_PER_S) : 0);
	}
	*strays = 0;
	if (kill(-pid, 0) == 0) {
		kill(-pid, SIGKILL);
		while ((w = waitpid(-pid, &st, 0)) > 0)
			*strays += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
	}
	/* Anything else it left (another group, a daemon): reaped, never left behind. */
	while (waitpid(-1, &st, WNOHANG) > 0)
		;
	return status;
}

static json_object *run_one(struct suite *s, const struct pms_plan_run *r, size_t idx,
			    int *outcome)
{
	char json[PATH_MAX + 80], log[PATH_MAX + 80], start[32], reason[1536], err[512], tail[400];
	uint64_t timeout = r->timeout_ns ? r->timeout_ns : s->default_timeout_ns, t0 = 0, t1 = 0;
	bool timed_out = false, killed = false, interrupted_run = false;
	json_object *e = json_object_new_object(), *res = NULL;
	int status = 0, strays = 0, o;
	const char *verdict;
	pid_t pid;

	if (!timeout)
		timeout = 2 * r->duration_ns + DEFAULT_GRACE_NS;
	snprintf(json, sizeof(json), "%s/%s.json", s->dir, r->label);
	snprintf(log, sizeof(log), "%s/%s.log", s->dir, r->label);
	pms_utc_string(start, sizeof(start), false);
	json_object_object_add(e, "label", json_object_new_string(r->label));
	json_object_object_add(e, "scenario", json_object_new_string(r->sc->name));
	json_object_object_add(e, "options", options_json(r));
	json_object_object_add(e, "expect", expect_json(r->expect));
	json_object_object_add(e, "start_utc", json_object_new_string(start));
	if (r->line)
		json_object_object_add(e, "line", json_object_new_int((int)r->line));

	if (s->skip_reason && s->skip_reason[idx]) {
		/* run all: this scenario cannot run here; said, not run. */
		o = PMS_OUTCOME_SKIP;
		snprintf(reason, sizeof(reason), "%s", s->skip_reason[idx]);
		json_object_object_add(e, "exit_code", NULL);
		json_object_object_add(e, "signal", NULL);
		json_object_object_add(e, "result", NULL);
		json_object_object_add(e, "log", NULL);
		json_object_object_add(e, "duration_s", json_object_new_double(0));
		json_object_object_add(e, "timeout_s", NULL);
		goto done;
	}
	if (!s->quiet) {
		fprintf(stderr, "[%zu/%zu] %s: %s", idx + 1, s->plan.nr_runs, r->label, r->sc->name);
		for (int i = 0; i < r->argc; i++)
			fprintf(stderr, " %s", r->argv[i]);
		fprintf(stderr, " (time limit %.0f s)\n", secs(timeout));
	}
	t0 = pms_now_ns();
	pid = spawn(s, r, json, log);
	if (pid < 0) {
		o = PMS_OUTCOME_ERROR;
		snprintf(reason, sizeof(reason), "could not start the run: %s", strerror(errno));
		status = -1;
	} else {
		status = wait_run(s, pid, t0 + timeout, &timed_out, &killed, &strays);
		interrupted_run = s->interrupted != 0;
	}
	t1 = pms_now_ns();

	res = access(json, F_OK) ? NULL : pms_json_read_file(json, err, sizeof(err));
	verdict = pms_json_get_str(res, "verdict");
	if (res && (!verdict || pms_outcome_parse(verdict) < 0 ||
		    pms_outcome_parse(verdict) > PMS_OUTCOME_ENVIRONMENT))
		verdict = NULL;
	last_line(log, tail, sizeof(tail));
	if (pid < 0) {
		/* reason set above */
	} else if (timed_out) {
		o = PMS_OUTCOME_TIMEOUT;
		snprintf(reason, sizeof(reason), "timeout: still running after %.0f s; stopped with "
			 "SIGTERM%s", secs(timeout), killed ? ", then SIGKILL 10 s later" : "");
	} else if (WIFSIGNALED(status) && !(interrupted_run && killed)) {
		o = PMS_OUTCOME_CRASH;
		snprintf(reason, sizeof(reason), "crashed: killed by %s%s%s",
			 signal_name(WTERMSIG(status)), tail[0] ? "; last words: " : "", tail);
	} else if (verdict) {
		o = pms_outcome_parse(verdict);
		snprintf(reason, sizeof(reason), "%s%s", interrupted_run ?
			 "interrupted with the suite: " : "", pms_json_get_str(res, "reason") ?
			 pms_json_get_str(res, "reason") : "");
	} else {
		o = PMS_OUTCOME_ERROR;
		if (WIFSIGNALED(status))
			snprintf(reason, sizeof(reason), "the suite was interrupted and the run did "
				 "not stop within 10 s: SIGKILL");
		else
			snprintf(reason, sizeof(reason), "exited with status %d and %s%s%s",
				 WEXITSTATUS(status), res ? "an unusable result" :
				 "wrote no result", tail[0] ? ": " : "", tail);
	}
	if (strays)
		pms_append(reason, sizeof(reason), &(size_t){ strlen(reason) },
			   "; %d process(es) it left behind were killed", strays);
	json_object_object_add(e, "exit_code", pid > 0 && WIFEXITED(status) ?
			       json_object_new_int(WEXITSTATUS(status)) : NULL);
	json_object_object_add(e, "signal", pid > 0 && WIFSIGNALED(status) ?
			       json_object_new_int(WTERMSIG(status)) : NULL);
	json_object_object_add(e, "result", res ? json_object_new_string(json + strlen(s->dir) + 1) :
			       NULL);
	json_object_object_add(e, "log", json_object_new_string(log + strlen(s->dir) + 1));
	json_object_object_add(e, "duration_s", json_object_new_double(secs(t1 - t0)));
	json_object_object_add(e, "timeout_s", json_object_new_double(secs(timeout)));
	json_object_object_add(e, "interrupted", json_object_new_boolean(interrupted_run));
	json_object_object_add(e, "stray_processes_killed", json_object_new_int(strays));
	json_object_put(res);
done:
	json_object_object_add(e, "verdict", json_object_new_string(pms_outcome_name(o)));
	json_object_object_add(e, "reason", json_object_new_string(reason));
	json_object_object_add(e, "as_expected", r->expect ?
			       json_object_new_boolean(!!(r->expect & (1u << o))) : NULL);
	*outcome = o;
	if (!s->quiet && !(s->skip_reason && s->skip_reason[idx]))
		fprintf(stderr, "[%zu/%zu] %s: %s in %.1f s\n", idx + 1, s->plan.nr_runs, r->label,
			pms_outcome_name(o), secs(t1 - t0));
	return e;
}

/* ---- the summary table */

static int print_table(FILE *out, json_object *index, const char *dir)
{
	json_object *runs = pms_json_get(index, "runs"), *sum = pms_json_get(index, "summary");
	size_t i, n = runs ? json_object_array_length(runs) : 0;
	int wl = 5, ws = 8;

	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(runs, i);
		int l = (int)strlen(pms_json_get_str(r, "label")),
		    sl = (int)strlen(pms_json_get_str(r, "scenario"));

		wl = l > wl ? l : wl;
		ws = sl > ws ? sl : ws;
	}
	fprintf(out, "%-*s  %-*s  %-12s %8s  %s\n", wl, "LABEL", ws, "SCENARIO", "VERDICT", "TIME",
		"REASON");
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(runs, i), *ae = pms_json_get(r, "as_expected");
		const char *reason = pms_json_get_str(r, "reason");
		char verdict[32];
		int rl = (int)strlen(reason);

		snprintf(verdict, sizeof(verdict), "%s%s", pms_json_get_str(r, "verdict"),
			 ae && !json_object_get_boolean(ae) ? "!" : "");
		fprintf(out, "%-*s  %-*s  %-12s %7.1fs  %.*s%s\n", wl, pms_json_get_str(r, "label"), ws,
			pms_json_get_str(r, "scenario"), verdict,
			json_object_get_double(pms_json_get(r, "duration_s")),
			rl > REASON_COLUMNS ? REASON_COLUMNS - 3 : rl, reason,
			rl > REASON_COLUMNS ? "..." : "");
	}
	fprintf(out, "%ld runs: %ld pass, %ld fail, %ld skip, %ld environment, %ld error, "
		"%ld timeout, %ld crash; %ld not as expected (!)%s\n",
		(long)json_object_get_int64(pms_json_get(sum, "runs")),
		(long)json_object_get_int64(pms_json_get(sum, "pass")),
		(long)json_object_get_int64(pms_json_get(sum, "fail")),
		(long)json_object_get_int64(pms_json_get(sum, "skip")),
		(long)json_object_get_int64(pms_json_get(sum, "environment")),
		(long)json_object_get_int64(pms_json_get(sum, "error")),
		(long)json_object_get_int64(pms_json_get(sum, "timeout")),
		(long)json_object_get_int64(pms_json_get(sum, "crash")),
		(long)json_object_get_int64(pms_json_get(sum, "unexpected")),
		json_object_get_boolean(pms_json_get(index, "complete")) ? "" : "; INCOMPLETE (interrupted)");
	fprintf(out, "run directory: %s\n", dir);
	return 0;
}

/* ---- run all */

static bool has_opt(const struct pms_scenario *sc, const char *name)
{
	size_t i;

	for (i = 0; i < sc->nr_opts; i++)
		if (!strcmp(sc->opts[i].name, name))
			return true;
	return false;
}

/*
 * Every scenario, as `pmustress list` sees this machine: one that cannot
 * run here is in the index as a skip with its reason; without two CPUs to
 * move between, a scenario with --no-mover runs as its control.
 */
static int plan_all(struct suite *s, const char *duration)
{
	struct pms_run run = { 0 };
	char why[256], pair_why[256], err[1024];
	hwloc_bitmap_t set;
	bool pair;
	size_t i;
	int ret = 0;

	snprintf(s->plan.name, sizeof(s->plan.name), "all");
	s->plan.version = PMS_PLAN_VERSION;
	s->skip_reason = calloc(pms_nr_scenarios, sizeof(char *));
	if (!s->skip_reason)
		return PMS_EXIT_SETUP;
	run.devices = getenv("PMUSTRESS_SYSFS_DEVICES");
	if (!run.devices)
		run.devices = PMS_DEVICES;
	hwloc_topology_init(&run.topo);
	hwloc_topology_load(run.topo);
	set = hwloc_bitmap_alloc();
	pair = !pms_cpus_default_pair(run.topo, set, pair_why, sizeof(pair_why));
	for (i = 0; i < pms_nr_scenarios && !ret; i++) {
		const struct pms_scenario *sc = pms_scenarios[i];
		char *argv[4];
		int argc = 0;

		if (duration) {
			argv[argc++] = "--duration";
			argv[argc++] = (char *)duration;
		}
		if (!pair && has_opt(sc, "no-mover"))
			argv[argc++] = "--no-mover";
		argv[argc] = NULL;
		ret = pms_plan_add_run(&s->plan, "run all", 0, sc->name, sc, argc, argv, err,
				       sizeof(err));
		if (ret) {
			pms_err("%s", err);
			ret = ret == -EDOM ? PMS_EXIT_USAGE : PMS_EXIT_SETUP;
			break;
		}
		if (sc->unsupported && sc->unsupported(&run, why, sizeof(why)))
			s->skip_reason[i] = strdup(why);
	}
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(run.topo);
	return ret;
}

/* ---- the command */

static int check_plan(const struct suite *s)
{
	size_t i;
	int a, o;

	printf("%s: suite %s, format version %u, %zu runs\n", s->plan_file ? s->plan_file : "all",
	       s->plan.name, s->plan.version, s->plan.nr_runs);
	for (i = 0; i < s->plan.nr_runs; i++) {
		const struct pms_plan_run *r = &s->plan.runs[i];

		printf("  %s: %s", r->label, r->sc->name);
		for (a = 0; a < r->argc; a++)
			printf(" %s", r->argv[a]);
		if (r->expect) {
			printf(" expect=");
			for (o = 0, a = 0; o < PMS_NR_OUTCOMES; o++)
				if (r->expect & (1u << o))
					printf("%s%s", a++ ? "," : "", pms_outcome_name(o));
		}
		printf(" (time limit %.0f s)\n", secs(r->timeout_ns ? r->timeout_ns :
			s->default_timeout_ns ? s->default_timeout_ns :
			2 * r->duration_ns + DEFAULT_GRACE_NS));
	}
	return 0;
}

static const char *take_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 >= argc) {
		pms_err("%s needs a value", name);
		return NULL;
	}
	return argv[++*i];
}

static bool is_opt(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

int cmd_suite(int argc, char **argv)
{
	struct pms_probe_cfg pcfg = { "/sys", "/proc", true };
	const char *suite = NULL, *out = NULL, *duration = NULL, *format = "text", *timeout = NULL;
	const struct suite_format *fmt = NULL;
	struct suite s = { 0 };
	char plan_path[PATH_MAX];
	bool all = !strcmp(argv[1], "all"), check = false;
	json_object *host;
	struct utsname u;
	sigset_t block;
	ssize_t n;
	size_t i;
	int code, o;

	n = readlink("/proc/self/exe", s.exe, sizeof(s.exe) - 1);
	if (n <= 0)
		snprintf(s.exe, sizeof(s.exe), "%s", "pmustress");
	for (int a = all ? 2 : 1; a < argc; a++) {
		const char *arg = argv[a];

		if (is_opt(arg, "--suite") && !all) {
			if (!(suite = take_value(argc, argv, &a, "--suite")))
				return PMS_EXIT_USAGE;
		} else if (is_opt(arg, "--out")) {
			if (!(out = take_value(argc, argv, &a, "--out")))
				return PMS_EXIT_USAGE;
		} else if (is_opt(arg, "--timeout")) {
			if (!(timeout = take_value(argc, argv, &a, "--timeout")))
				return PMS_EXIT_USAGE;
		} else if (is_opt(arg, "--duration") && all) {
			if (!(duration = take_value(argc, argv, &a, "--duration")))
				return PMS_EXIT_USAGE;
		} else if (is_opt(arg, "--format")) {
			if (!(format = take_value(argc, argv, &a, "--format")))
				return PMS_EXIT_USAGE;
		} else if (!strcmp(arg, "--bisect")) {
			s.bisect = true;
		} else if (!strcmp(arg, "--quiet")) {
			s.quiet = true;
		} else if (!strcmp(arg, "--check")) {
			check = true;
		} else if (is_opt(arg, "--duration")) {
			pms_err("--duration: a suite's runs each say theirs in the plan (only `run all` "
				"takes one for all)");
			return PMS_EXIT_USAGE;
		} else {
			pms_err("unknown %s option '%s' (have: %s--out DIR, --timeout TIME, "
				"--format text, --bisect, --quiet, --check)", all ? "run all" :
				"run --suite", arg, all ? "--duration TIME, " : "");
			return PMS_EXIT_USAGE;
		}
	}
	if (!all && !suite) {
		pms_err("--suite needs a suite name or file");
		return PMS_EXIT_USAGE;
	}
	for (i = 0; i < PMS_ARRAY_SIZE(formats); i++)
		if (!strcmp(format, formats[i].name))
			fmt = &formats[i];
	if (!fmt) {
		pms_err("unknown --format '%s' (have: text, ktap, junit)", format);
		return PMS_EXIT_USAGE;
	}
	if (timeout && (pms_parse_duration_ns(timeout, NS_PER_S, &s.default_timeout_ns) ||
			!s.default_timeout_ns)) {
		pms_err("bad --timeout '%s' (a duration above 0: 90s, 10m, 1h)", timeout);
		return PMS_EXIT_USAGE;
	}

	if (all) {
		code = plan_all(&s, duration);
	} else if (find_plan(&s, suite, plan_path, sizeof(plan_path))) {
		code = PMS_EXIT_PLAN;
	} else {
		s.plan_file = plan_path;
		code = read_plan(&s, plan_path);
	}
	if (code)
		goto out_plan;
	if (check) {
		code = check_plan(&s);
		goto out_plan;
	}

	uname(&u);
	code = make_run_dir(&s, out, u.release);
	if (code)
		goto out_plan;
	s.cls = calloc(s.plan.nr_runs, sizeof(*s.cls));
	host = pms_probe_host(&pcfg);
	if (!s.cls || !host) {
		pms_err("out of memory");
		json_object_put(host);
		code = PMS_EXIT_SETUP;
		goto out_plan;
	}
	start_index(&s, argc, argv, host, &u);

	/*
	 * SIGINT/SIGTERM stop the current run (SIGTERM to its group) and the
	 * suite after it; they and SIGCHLD are taken with sigtimedwait().
	 * The suite adopts what its runs orphan, so nothing outlives it.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &s.orig_mask);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	write_index(&s, false);
	for (i = 0; i < s.plan.nr_runs; i++) {
		json_object *e;

		wait_signal(&s, 0);
		if (s.interrupted)
			break;
		e = run_one(&s, &s.plan.runs[i], i, &o);
		json_object_array_add(s.runs, e);
		s.cls[i] = pms_bisect_class(o, s.plan.runs[i].expect);
		s.done = i + 1;
		if (i + 1 < s.plan.nr_runs)
			write_index(&s, false);
	}
	code = write_index(&s, true) ? PMS_EXIT_OUTPUT : suite_status(&s);
	if (s.bisect && code != PMS_EXIT_OUTPUT)
		code = pms_bisect_suite(s.cls, s.done, s.interrupted);
	if (!s.quiet || fmt->print != print_table)
		fmt->print(stdout, s.index, s.dir);
	if (fmt->print != print_table && !s.quiet)
		print_table(stderr, s.index, s.dir);
	if (s.quiet && fmt->print == print_table)
		printf("run directory: %s\n", s.dir);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	sigprocmask(SIG_SETMASK, &s.orig_mask, NULL);
	json_object_put(s.index);
out_plan:
	if (s.skip_reason)
		for (i = 0; i < s.plan.nr_runs; i++)
			free(s.skip_reason[i]);
	free(s.skip_reason);
	free(s.cls);
	pms_plan_free(&s.plan);
	/* Bad input under --bisect: 128, so that git aborts rather than call every commit bad. */
	return s.bisect && !check ? pms_bisect_status(code) : code;
}
