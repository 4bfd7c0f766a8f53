// SPDX-License-Identifier: GPL-2.0-only
/*
 * pidns's oracle rules (see rules.h): attribution of every record to a
 * workload task in the observer's numbers, owed side-band records, and the
 * two views against each other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "rules.h"

static const char *const class_names[PN_NR_CLASSES] = {
	[PN_OK] = "ok",
	[PN_WRONG_NAMESPACE] = "wrong_namespace",
	[PN_ABSENT] = "absent",
	[PN_UNKNOWN] = "unknown",
	[PN_WRONG_PARENT] = "wrong_parent",
	[PN_WRONG_COMM] = "wrong_comm",
	[PN_WRONG_PIDNS] = "wrong_pidns",
	[PN_MISSING] = "missing",
	[PN_DUPLICATE] = "duplicate",
	[PN_CROSS_VIEW] = "cross_view",
	[PN_FOREIGN] = "foreign",
};

const char *pn_class_name(enum pn_class c)
{
	return c < PN_NR_CLASSES ? class_names[c] : "?";
}

const char *pn_view_name(enum pn_view v)
{
	return v == PN_ROOT ? "root" : v == PN_INSIDE ? "inside" : "?";
}

int pn_truth_init(struct pn_truth *tr, size_t cap)
{
	memset(tr, 0, sizeof(*tr));
	tr->t = calloc(cap, sizeof(*tr->t));
	if (!tr->t)
		return -ENOMEM;
	tr->cap = cap;
	return 0;
}

void pn_truth_fini(struct pn_truth *tr)
{
	free(tr->t);
	memset(tr, 0, sizeof(*tr));
}

int pn_truth_add(struct pn_truth *tr, const struct pn_task *t)
{
	if (tr->n >= tr->cap)
		return -ENOSPC;
	tr->t[tr->n] = *t;
	return (int)tr->n++;
}

int pn_find(const struct pn_truth *tr, enum pn_view v, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i].pid[v] == pid && tr->t[i].tid[v] == tid)
			return (int)i;
	return -1;
}

bool pn_find_pid(const struct pn_truth *tr, enum pn_view v, uint32_t pid)
{
	size_t i;

	for (i = 0; i < tr->n; i++)
		if (tr->t[i].pid[v] == pid)
			return true;
	return false;
}

enum pn_class pn_misattributed(const struct pn_truth *tr, enum pn_view v, uint32_t pid,
			       uint32_t tid)
{
	if (pn_find(tr, v, pid, tid) >= 0)
		return PN_OK;
	if (!pid || !tid)
		return PN_ABSENT;
	if (pn_find(tr, v == PN_ROOT ? PN_INSIDE : PN_ROOT, pid, tid) >= 0)
		return PN_WRONG_NAMESPACE;
	return PN_UNKNOWN;
}

static void note(struct pn_judgement *j, enum pn_view v, uint32_t kind, enum pn_class c,
		 uint32_t pid, uint32_t tid, int task, uint64_t count, const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));

static void note(struct pn_judgement *j, enum pn_view v, uint32_t kind, enum pn_class c,
		 uint32_t pid, uint32_t tid, int task, uint64_t count, const char *fmt, ...)
{
	struct pn_anomaly *a;
	va_list ap;

	j->cls[c][v] += count;
	if (c == PN_OK)
		return;
	j->bad += count;
	if (j->nkept >= PN_KEPT)
		return;
	a = &j->kept[j->nkept++];
	a->view = v;
	a->kind = kind;
	a->cls = c;
	a->pid = pid;
	a->tid = tid;
	a->task = task;
	a->count = count;
	va_start(ap, fmt);
	vsnprintf(a->detail, sizeof(a->detail), fmt, ap);
	va_end(ap);
}

static const char *role_name(enum pn_role r)
{
	switch (r) {
	case PN_INIT: return "namespace init";
	case PN_MAIN: return "workload main thread";
	case PN_THREAD: return "workload second thread";
	case PN_CHILD: return "workload child";
	}
	return "?";
}

enum pn_class pn_judge_record(struct pn_truth *tr, enum pn_view v, const struct pn_rec *rec,
			      struct pn_judgement *j)
{
	enum pn_class c;
	struct pn_task *t;
	int i;

	j->records[v]++;
	i = pn_find(tr, v, rec->pid, rec->tid);
	if (i < 0) {
		c = pn_misattributed(tr, v, rec->pid, rec->tid);
		note(j, v, rec->type, c, rec->pid, rec->tid, -1, 1, "%s record names pid %u tid "
		     "%u: %s", pn_rec_name(rec->type), rec->pid, rec->tid,
		     c == PN_ABSENT ? "a task this observer cannot see" :
		     c == PN_WRONG_NAMESPACE ? "a workload task's numbers in the other namespace" :
		     "no task of the workload");
		return c;
	}
	t = &tr->t[i];
	c = PN_OK;
	switch (rec->type) {
	case PERF_RECORD_FORK:
		t->seen_fork[v]++;
		if (rec->ppid != t->fpid[v] || rec->ptid != t->ftid[v]) {
			c = PN_WRONG_PARENT;
			note(j, v, rec->type, c, rec->pid, rec->tid, i, 1, "fork of the %s names "
			     "parent %u/%u, expected the forking thread %u/%u", role_name(t->role),
			     rec->ppid, rec->ptid, t->fpid[v], t->ftid[v]);
			return c;
		}
		break;
	case PERF_RECORD_EXIT:
		t->seen_exit[v]++;
		if (rec->ppid != t->parent[v] || rec->ptid != t->parent[v]) {
			c = PN_WRONG_PARENT;
			note(j, v, rec->type, c, rec->pid, rec->tid, i, 1, "exit of the %s names "
			     "parent %u/%u, expected its real parent %u", role_name(t->role),
			     rec->ppid, rec->ptid, t->parent[v]);
			return c;
		}
		break;
	case PERF_RECORD_COMM:
		t->seen_comm[v]++;
		if (t->comm[0] && strcmp(rec->comm, t->comm)) {
			c = PN_WRONG_COMM;
			note(j, v, rec->type, c, rec->pid, rec->tid, i, 1, "comm of the %s is "
			     "\"%s\", it named itself \"%s\"", role_name(t->role), rec->comm,
			     t->comm);
			return c;
		}
		break;
	case PERF_RECORD_NAMESPACES:
		t->seen_ns[v]++;
		if (tr->ns_known && (!rec->has_pidns || rec->pidns_dev != tr->ns_dev ||
				     rec->pidns_ino != tr->ns_ino)) {
			c = PN_WRONG_PIDNS;
			note(j, v, rec->type, c, rec->pid, rec->tid, i, 1, "namespaces of the %s "
			     "name PID namespace dev %#" PRIx64 " inode %" PRIu64 ", expected "
			     "%#" PRIx64 " %" PRIu64, role_name(t->role), rec->pidns_dev,
			     rec->pidns_ino, tr->ns_dev, tr->ns_ino);
			return c;
		}
		break;
	default:
		break;
	}
	note(j, v, rec->type, PN_OK, rec->pid, rec->tid, i, 1, "%s", "");
	return PN_OK;
}

void pn_judge_tally(struct pn_truth *tr, enum pn_view v, const struct pn_tally *t,
		    struct pn_judgement *j)
{
	size_t k;

	for (k = 0; k < t->cap; k++) {
		const struct pn_tally_ent *e = &t->e[k];
		enum pn_class c;
		int i;

		if (!e->used)
			continue;
		uint32_t kind = e->kind & ~PN_KIND_EARLY;

		j->records[v] += e->count;
		i = pn_find(tr, v, e->pid, e->tid);
		if (i >= 0) {
			if (kind == PERF_RECORD_SAMPLE)
				tr->t[i].samples[v] += e->count;
			else if (!(e->kind & PN_KIND_EARLY))
				tr->t[i].switches[v] += e->count;
			note(j, v, kind, PN_OK, e->pid, e->tid, i, e->count, "%s", "");
			continue;
		}
		c = pn_misattributed(tr, v, e->pid, e->tid);
		note(j, v, kind, c, e->pid, e->tid, -1, e->count, "%" PRIu64 " %s record(s) "
		     "of the workload's own event name pid %u tid %u: %s", e->count,
		     pn_rec_name(kind), e->pid, e->tid,
		     c == PN_ABSENT ? "a task this observer cannot see" :
		     c == PN_WRONG_NAMESPACE ? "a workload task's numbers in the other namespace" :
		     "no task of the workload");
	}
}

void pn_judge_cpu_tally(struct pn_truth *tr, enum pn_view v, const struct pn_tally *t,
			struct pn_judgement *j)
{
	size_t k;

	for (k = 0; k < t->cap; k++) {
		const struct pn_tally_ent *e = &t->e[k];
		int i;

		if (!e->used)
			continue;
		i = pn_find(tr, v, e->pid, e->tid);
		if (e->kind == PERF_RECORD_SWITCH_CPU_WIDE && i >= 0)
			tr->t[i].cpu_switches[v] += e->count;
		/*
		 * A task switched out for the last time after its parent reaped it
		 * (or, for a thread, after its own release) has no pid left: the
		 * kernel gives -1.  Its process id, where still there, is judged.
		 */
		if (e->tid == PN_RELEASED && (e->kind & ~PN_KIND_EARLY) != PN_KIND_NEXT_PREV)
			j->released[v] += e->count;
		if (e->tid == PN_RELEASED && (e->pid == PN_RELEASED || !e->pid ||
					       v != PN_INSIDE || pn_find_pid(tr, v, e->pid)))
			continue;
		/*
		 * The root namespace sees every task; only the inside view is
		 * closed.  A thread of a process of the namespace (pid 1 runs
		 * helper threads) is of the namespace.
		 */
		if (v != PN_INSIDE || !e->pid || i >= 0 || pn_find_pid(tr, v, e->pid))
			continue;
		note(j, v, PERF_RECORD_SWITCH_CPU_WIDE, PN_FOREIGN, e->pid, e->tid, -1, e->count,
		     "%" PRIu64 " CPU-wide switch record(s) seen from inside the namespace name "
		     "%s pid %u tid %u, which is no task of the namespace%s", e->count,
		     (e->kind & ~PN_KIND_EARLY) == PN_KIND_NEXT_PREV ? "as next/prev" :
		     "as current", e->pid,
		     e->tid, pn_find(tr, PN_ROOT, e->pid, e->tid) >= 0 ?
		     " (it is a workload task's root-namespace number)" : "");
	}
}

void pn_judge_finish(struct pn_truth *tr, const bool exact[PN_NR_VIEWS],
		     const bool cpu_wide[PN_NR_VIEWS], const bool views[PN_NR_VIEWS],
		     struct pn_judgement *j)
{
	static const char *const what[4] = { "fork", "namespaces", "comm", "exit" };
	static const uint32_t kinds[4] = { PERF_RECORD_FORK, PERF_RECORD_NAMESPACES,
					   PERF_RECORD_COMM, PERF_RECORD_EXIT };
	size_t i;
	int v, w;

	for (i = 0; i < tr->n; i++) {
		struct pn_task *t = &tr->t[i];

		for (v = 0; v < PN_NR_VIEWS; v++) {
			uint32_t seen[4] = { t->seen_fork[v], t->seen_ns[v], t->seen_comm[v],
					     t->seen_exit[v] };
			bool owed[4] = { t->sideband, t->sideband && tr->ns_records[v],
					 t->comm[0] != '\0', t->exits };

			if (!views[v])
				continue;
			for (w = 0; w < 4; w++) {
				if (seen[w] > 1)
					note(j, (enum pn_view)v, kinds[w], PN_DUPLICATE, t->pid[v],
					     t->tid[v], (int)i, seen[w] - 1, "%u %s records for the "
					     "%s %u/%u", seen[w], what[w], role_name(t->role),
					     t->pid[v], t->tid[v]);
				else if (!seen[w] && owed[w] && exact[v])
					note(j, (enum pn_view)v, kinds[w], PN_MISSING, t->pid[v],
					     t->tid[v], (int)i, 1, "no %s record for the %s %u/%u",
					     what[w], role_name(t->role), t->pid[v], t->tid[v]);
			}
		}
		if (!views[PN_ROOT] || !views[PN_INSIDE] || !exact[PN_ROOT] || !exact[PN_INSIDE])
			continue;
		if (t->role != PN_INIT && t->switches[PN_ROOT] != t->switches[PN_INSIDE])
			note(j, PN_INSIDE, PERF_RECORD_SWITCH, PN_CROSS_VIEW, t->pid[PN_INSIDE],
			     t->tid[PN_INSIDE], (int)i, 1, "the %s switched %" PRIu64 " times seen "
			     "from the root namespace (as %u/%u) and %" PRIu64 " times from inside "
			     "(as %u/%u)", role_name(t->role), t->switches[PN_ROOT],
			     t->pid[PN_ROOT], t->tid[PN_ROOT], t->switches[PN_INSIDE],
			     t->pid[PN_INSIDE], t->tid[PN_INSIDE]);
		if (cpu_wide[PN_ROOT] && cpu_wide[PN_INSIDE] && t->role != PN_INIT &&
		    t->cpu_switches[PN_ROOT] != t->cpu_switches[PN_INSIDE])
			note(j, PN_INSIDE, PERF_RECORD_SWITCH_CPU_WIDE, PN_CROSS_VIEW,
			     t->pid[PN_INSIDE], t->tid[PN_INSIDE], (int)i, 1, "CPU-wide: the %s "
			     "switched %" PRIu64 " times seen from the root namespace and %"
			     PRIu64 " times from inside", role_name(t->role),
			     t->cpu_switches[PN_ROOT], t->cpu_switches[PN_INSIDE]);
	}
}
