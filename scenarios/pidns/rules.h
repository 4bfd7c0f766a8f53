/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pidns's oracle: who each record must name, in each observer's numbers.
 * Pure functions over the truth (every workload task with its root and
 * namespace numbers, as the kernel itself told them) and parsed records, so
 * that every rule is unit-tested on synthetic input.
 *
 * The kernel's rules being checked (kernel/events/core.c): a record's pid
 * and tid are the task's numbers in the PID namespace of the process that
 * opened the event (perf_event_pid/perf_event_tid: task_tgid_nr_ns and
 * task_pid_nr_ns against event->ns), 0 for a task that namespace cannot
 * see; FORK names the forking thread as ppid/ptid; EXIT names the real
 * parent (its pid, in both ppid and ptid); NAMESPACES names the task's PID
 * namespace by the nsfs inode, the same in every view.
 */
#ifndef PIDNS_RULES_H
#define PIDNS_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records.h"

enum pn_view { PN_ROOT, PN_INSIDE, PN_NR_VIEWS };

enum pn_role {
	PN_INIT,	/* the namespace's pid 1 (the inside observer) */
	PN_MAIN,	/* the workload process's main thread */
	PN_THREAD,	/* its second thread */
	PN_CHILD,	/* a short-lived child forked by the main thread */
};

struct pn_task {
	enum pn_role role;
	uint32_t pid[PN_NR_VIEWS], tid[PN_NR_VIEWS];
	uint32_t parent[PN_NR_VIEWS];	/* real parent's pid: EXIT's ppid and ptid */
	uint32_t fpid[PN_NR_VIEWS], ftid[PN_NR_VIEWS];	/* who forked it: FORK's ppid, ptid */
	char comm[17];		/* the name it gave itself (prctl) while watched: a COMM
				 * record is owed; "" for none */
	bool sideband;		/* created while the events were open: FORK and
				 * NAMESPACES are owed */
	bool exits;		/* its EXIT comes while watched: owed */
	uint32_t seen_fork[PN_NR_VIEWS], seen_exit[PN_NR_VIEWS];
	uint32_t seen_comm[PN_NR_VIEWS], seen_ns[PN_NR_VIEWS];
	uint64_t samples[PN_NR_VIEWS], switches[PN_NR_VIEWS];
	uint64_t cpu_switches[PN_NR_VIEWS];
	/* a busy thread's time on a CPU (schedstat) as the stop was sent */
	uint64_t cpu_ns;
	bool cpu_known;
};

struct pn_truth {
	struct pn_task *t;
	size_t n, cap;
	uint64_t ns_dev, ns_ino;	/* the workload's PID namespace (nsfs) */
	bool ns_known;
	bool ns_records[PN_NR_VIEWS];	/* the view asked for NAMESPACES records */
};

enum pn_class {
	PN_OK,
	PN_WRONG_NAMESPACE,	/* the task's numbers in the other view */
	PN_ABSENT,		/* 0: a task the observer's namespace cannot see */
	PN_UNKNOWN,		/* nobody of the workload */
	PN_WRONG_PARENT,	/* FORK/EXIT ppid or ptid */
	PN_WRONG_COMM,
	PN_WRONG_PIDNS,		/* NAMESPACES names another PID namespace */
	PN_MISSING,		/* an owed record never came */
	PN_DUPLICATE,
	PN_CROSS_VIEW,		/* the two observers counted one task's switches differently */
	PN_FOREIGN,		/* the inside CPU-wide view named a task outside the namespace */
	PN_NR_CLASSES,
};

const char *pn_class_name(enum pn_class c);
const char *pn_view_name(enum pn_view v);

struct pn_anomaly {
	enum pn_view view;
	uint32_t kind;		/* PERF_RECORD_* */
	enum pn_class cls;
	uint32_t pid, tid;	/* as the record gave them */
	int task;		/* the task it was about, -1 unknown */
	uint64_t count;		/* records of this kind and numbers */
	char detail[256];
};

#define PN_KEPT 64

struct pn_judgement {
	uint64_t cls[PN_NR_CLASSES][PN_NR_VIEWS];
	uint64_t records[PN_NR_VIEWS];	/* records judged */
	uint64_t released[PN_NR_VIEWS];	/* CPU-wide records naming a released task (-1) */
	uint64_t bad;			/* anomalies in all */
	struct pn_anomaly kept[PN_KEPT];
	size_t nkept;
};

int pn_truth_init(struct pn_truth *tr, size_t cap);
void pn_truth_fini(struct pn_truth *tr);
/* Append a task; Return: its index, or -ENOSPC. */
int pn_truth_add(struct pn_truth *tr, const struct pn_task *t);

/* The task that has (@pid, @tid) in @view; -1 for none. */
int pn_find(const struct pn_truth *tr, enum pn_view v, uint32_t pid, uint32_t tid);

/* Whether some task has process id @pid in @view. */
bool pn_find_pid(const struct pn_truth *tr, enum pn_view v, uint32_t pid);

/* Why (@pid, @tid) is nobody in @view: ABSENT, WRONG_NAMESPACE or UNKNOWN (OK if it is). */
enum pn_class pn_misattributed(const struct pn_truth *tr, enum pn_view v, uint32_t pid,
			       uint32_t tid);

/*
 * pn_judge_record - judge one side-band record (COMM, FORK, EXIT,
 * NAMESPACES) from @view's ring and count it against its task.  Samples and
 * switches are judged in bulk from tallies (pn_judge_tally).
 * Return: the class (also counted in @j, anomalies kept).
 */
enum pn_class pn_judge_record(struct pn_truth *tr, enum pn_view v, const struct pn_rec *rec,
			      struct pn_judgement *j);

/*
 * pn_judge_tally - judge per-task SAMPLE and SWITCH counts of @view: every
 * (pid, tid) must be a workload task; counts go to the tasks.
 */
void pn_judge_tally(struct pn_truth *tr, enum pn_view v, const struct pn_tally *t,
		    struct pn_judgement *j);

/*
 * pn_judge_cpu_tally - the CPU-wide switch records of @view, tallied by the
 * task switched (kind SWITCH_CPU_WIDE: the current task of the trailer;
 * kind 0: the next/prev task named in the body).  Workload tasks' counts
 * are kept; in the inside view every non-zero task must be of the namespace.
 */
void pn_judge_cpu_tally(struct pn_truth *tr, enum pn_view v, const struct pn_tally *t,
			struct pn_judgement *j);

/*
 * pn_judge_finish - what was owed and never came, came twice, or was seen
 * differently by the two views.  @exact[v]: view v lost no record (a
 * LOST record makes counts there a lower bound, so they are not judged);
 * @cpu_wide[v]: view v had CPU-wide switch events.
 */
void pn_judge_finish(struct pn_truth *tr, const bool exact[PN_NR_VIEWS],
		     const bool cpu_wide[PN_NR_VIEWS], const bool views[PN_NR_VIEWS],
		     struct pn_judgement *j);

/* The tally key kind for a CPU-wide switch's next/prev task (not a PERF_RECORD_*). */
#define PN_KIND_NEXT_PREV 0x10000u
/*
 * Or'ed into a switch record's kind when it came before the workload was
 * told to start: one observer opened before the other, so such records are
 * judged for who they name but not counted against the other view.
 */
#define PN_KIND_EARLY 0x20000u
/* The kernel's pid for a task whose pid was already released (exiting). */
#define PN_RELEASED 0xffffffffu

#endif
