// SPDX-License-Identifier: GPL-2.0-only
/*
 * pidns's record parser, ring reader, tally and oracle rules on records
 * built here byte by byte, laid out as the kernel writes them with
 * sample_type TID | TIME | CPU and sample_id_all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "tap.h"
#include "records.h"
#include "rules.h"

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put32(struct buf *b, uint32_t v)
{
	memcpy(b->b + b->n, &v, 4);
	b->n += 4;
}

static void put64(struct buf *b, uint64_t v)
{
	memcpy(b->b + b->n, &v, 8);
	b->n += 8;
}

/* A record: header, @body of @blen bytes, then the TID | TIME | CPU trailer. */
static void rec(struct buf *b, uint32_t type, uint16_t misc, const void *body, size_t blen,
		uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { .type = type, .misc = misc,
				       .size = (uint16_t)(sizeof(h) + blen + PN_ID_BYTES) };

	memcpy(b->b + b->n, &h, sizeof(h));
	b->n += sizeof(h);
	if (blen)
		memcpy(b->b + b->n, body, blen);
	b->n += blen;
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put32(b, cpu);
	put32(b, 0);
}

static void sample(struct buf *b, uint32_t pid, uint32_t tid)
{
	rec(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, NULL, 0, pid, tid, 1000, 1);
}

static void fork_exit(struct buf *b, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint32_t ptid)
{
	uint32_t body[6] = { pid, ppid, tid, ptid, 7, 0 };	/* time 7 */

	rec(b, type, 0, body, sizeof(body), pid, tid, 7, 0);
}

static void comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name)
{
	uint8_t body[24] = { 0 };
	size_t n = 8 + ((strlen(name) + 1 + 7) & ~(size_t)7);

	memcpy(body, &pid, 4);
	memcpy(body + 4, &tid, 4);
	memcpy(body + 8, name, strlen(name));
	rec(b, PERF_RECORD_COMM, 0, body, n, pid, tid, 9, 0);
}

static void namespaces(struct buf *b, uint32_t pid, uint32_t tid, uint64_t dev, uint64_t ino)
{
	uint8_t body[16 + 16 * NR_NAMESPACES] = { 0 };
	uint64_t nr = NR_NAMESPACES;

	memcpy(body, &pid, 4);
	memcpy(body + 4, &tid, 4);
	memcpy(body + 8, &nr, 8);
	memcpy(body + 16 + 16 * PID_NS_INDEX, &dev, 8);
	memcpy(body + 16 + 16 * PID_NS_INDEX + 8, &ino, 8);
	rec(b, PERF_RECORD_NAMESPACES, 0, body, sizeof(body), pid, tid, 11, 0);
}

static void test_parse(void)
{
	struct buf b = { .n = 0 };
	uint32_t np[2] = { 55, 56 };
	uint64_t lost[2] = { 3, 42 };
	struct pn_rec r;
	size_t off = 0;

	sample(&b, 100, 101);
	fork_exit(&b, PERF_RECORD_FORK, 200, 100, 200, 101);
	comm(&b, 200, 200, "pidns-c7");
	namespaces(&b, 200, 200, 4, 4026532000ull);
	rec(&b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, NULL, 0, 100, 101, 13, 1);
	rec(&b, PERF_RECORD_SWITCH_CPU_WIDE, 0, np, sizeof(np), 100, 101, 14, 1);
	rec(&b, PERF_RECORD_LOST, 0, lost, sizeof(lost), 0, 0, 15, 1);

	ok(pn_parse(b.b, b.n, &off, &r) == 1 && r.type == PERF_RECORD_SAMPLE && r.pid == 100 &&
	   r.tid == 101 && r.cpu == 1 && r.time == 1000, "sample: pid, tid, time, cpu");
	ok(pn_parse(b.b, b.n, &off, &r) == 1 && r.type == PERF_RECORD_FORK && r.pid == 200 &&
	   r.ppid == 100 && r.tid == 200 && r.ptid == 101, "fork: pid, ppid, tid, ptid");
	ok(pn_parse(b.b, b.n, &off, &r) == 1 && r.type == PERF_RECORD_COMM &&
	   !strcmp(r.comm, "pidns-c7") && r.pid == 200, "comm: the name and its task");
	ok(pn_parse(b.b, b.n, &off, &r) == 1 && r.type == PERF_RECORD_NAMESPACES &&
	   r.has_pidns && r.pidns_dev == 4 && r.pidns_ino == 4026532000ull,
	   "namespaces: the PID namespace entry");
	ok(pn_parse(b.b, b.n, &off, &r) == 1 && r.type == PERF_RECORD_SWITCH &&
	   (r.misc & PERF_RECORD_MISC_SWITCH_OUT) && r.id_pid == 100 && r.id_tid == 101,
	   "switch: the task from the trailer");
	ok(pn_parse(b.b, b.n, &off, &r) == 1 && r.type == PERF_RECORD_SWITCH_CPU_WIDE &&
	   r.np_pid == 55 && r.np_tid == 56 && r.id_tid == 101, "switch_cpu_wide: next/prev "
	   "and current");
	ok(pn_parse(b.b, b.n, &off, &r) == 1 && r.type == PERF_RECORD_LOST && r.lost == 42,
	   "lost: the count");
	ok(pn_parse(b.b, b.n, &off, &r) == 0, "end of the bytes");
	is_str(pn_rec_name(PERF_RECORD_SWITCH_CPU_WIDE), "switch_cpu_wide", "record names");

	/* Malformed: cut short, size 0, size not a multiple of 8, too small for its type. */
	off = 0;
	ok(pn_parse(b.b, 20, &off, &r) == -EBADMSG && off == 0, "a record cut short is refused");
	{
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 0 };
		uint8_t z[64] = { 0 };

		memcpy(z, &h, sizeof(h));
		off = 0;
		ok(pn_parse(z, sizeof(z), &off, &r) == -EBADMSG, "size 0 is refused");
		h.size = 12;
		memcpy(z, &h, sizeof(h));
		off = 0;
		ok(pn_parse(z, sizeof(z), &off, &r) == -EBADMSG, "size not a multiple of 8");
		h.size = 16;
		memcpy(z, &h, sizeof(h));
		off = 0;
		ok(pn_parse(z, sizeof(z), &off, &r) == -EBADMSG, "a sample without its fields");
		h.type = PERF_RECORD_FORK;
		h.size = 8 + 8 + PN_ID_BYTES;
		memcpy(z, &h, sizeof(h));
		off = 0;
		ok(pn_parse(z, sizeof(z), &off, &r) == -EBADMSG, "a fork without its body");
	}
	{
		/* NAMESPACES claiming more entries than it holds. */
		struct buf c = { .n = 0 };
		uint64_t many = 1000;

		namespaces(&c, 1, 1, 4, 5);
		memcpy(c.b + 8 + 8, &many, 8);
		off = 0;
		ok(pn_parse(c.b, c.n, &off, &r) == -EBADMSG, "namespaces: a count past its size");
	}
}

/* A fake mapped ring: control page, then 256 data bytes. */
static void test_ring(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint8_t *mem = calloc(1, (size_t)psz + 256);
	struct perf_event_mmap_page *pg = (void *)mem;
	struct pn_ring r = { .fd = -1, .base = mem, .map_len = (size_t)psz + 256,
			     .data_size = 256 };
	struct buf b = { .n = 0 }, out = { .n = 0 };
	struct pn_rec rr;
	size_t off = 0, i;
	long n;

	/* Two samples of 32 bytes written from offset 224: the second wraps. */
	sample(&b, 1, 2);
	sample(&b, 3, 4);
	for (i = 0; i < b.n; i++)
		mem[psz + (224 + i) % 256] = b.b[i];
	r.tail = 224;
	pg->data_tail = 224;
	pg->data_head = 224 + b.n;
	n = pn_ring_take(&r, out.b, 40);
	ok(n == 32 && r.tail == 256, "take: a whole record that fits, not the next");
	n = pn_ring_take(&r, out.b + 32, sizeof(out.b) - 32);
	ok(n == 32 && r.tail == 288 && pg->data_tail == 288, "take: the record across the end");
	ok(pn_parse(out.b, 64, &off, &rr) == 1 && rr.pid == 1 && pn_parse(out.b, 64, &off, &rr) == 1 &&
	   rr.pid == 3 && rr.tid == 4, "both records come out whole");
	pg->data_head = 288 + 300;
	ok(pn_ring_take(&r, out.b, sizeof(out.b)) == -EBADMSG, "a head past the ring's size");
	pg->data_head = 288 + 8;
	memset(mem + psz + 32, 0, 8);
	ok(pn_ring_take(&r, out.b, sizeof(out.b)) == -EBADMSG, "a zero-size record");
	free(mem);
}

static void test_tally(void)
{
	struct pn_tally t;
	uint32_t i;

	ok(pn_tally_init(&t, 3) == -EINVAL, "tally: room must be a power of two");
	ok(!pn_tally_init(&t, 8), "tally: init");
	pn_tally_add(&t, 9, 1, 2, 5);
	pn_tally_add(&t, 9, 1, 2, 1);
	pn_tally_add(&t, 14, 1, 2, 1);
	is_u64(pn_tally_get(&t, 9, 1, 2), 6, "tally: counts add up per key");
	is_u64(pn_tally_get(&t, 14, 1, 2), 1, "tally: the kind is part of the key");
	is_u64(pn_tally_get(&t, 9, 2, 1), 0, "tally: an absent key is 0");
	for (i = 10; i < 20; i++)
		pn_tally_add(&t, 9, i, i, 1);
	ok(t.used == 6 && t.dropped == 6, "tally: past three quarters full, counts are dropped "
	   "and said (%zu used, %llu dropped)", t.used, (unsigned long long)t.dropped);
	pn_tally_fini(&t);
}

/* init 1000/1, main 1001/2, thread 1001:1002/2:3, child 1003/4. */
static void make_truth(struct pn_truth *tr)
{
	struct pn_task t;

	pn_truth_init(tr, 8);
	tr->ns_known = true;
	tr->ns_records[PN_ROOT] = tr->ns_records[PN_INSIDE] = true;
	tr->ns_dev = 4;
	tr->ns_ino = 4026532000ull;
	memset(&t, 0, sizeof(t));
	t.role = PN_INIT;
	t.pid[PN_ROOT] = t.tid[PN_ROOT] = 1000;
	t.pid[PN_INSIDE] = t.tid[PN_INSIDE] = 1;
	pn_truth_add(tr, &t);
	memset(&t, 0, sizeof(t));
	t.role = PN_MAIN;
	t.pid[PN_ROOT] = t.tid[PN_ROOT] = 1001;
	t.pid[PN_INSIDE] = t.tid[PN_INSIDE] = 2;
	t.parent[PN_ROOT] = 1000;
	t.parent[PN_INSIDE] = 1;
	strcpy(t.comm, "pidns-main");
	t.exits = true;
	pn_truth_add(tr, &t);
	memset(&t, 0, sizeof(t));
	t.role = PN_THREAD;
	t.pid[PN_ROOT] = 1001;
	t.tid[PN_ROOT] = 1002;
	t.pid[PN_INSIDE] = 2;
	t.tid[PN_INSIDE] = 3;
	t.parent[PN_ROOT] = 1000;
	t.parent[PN_INSIDE] = 1;
	t.fpid[PN_ROOT] = t.ftid[PN_ROOT] = 1001;
	t.fpid[PN_INSIDE] = t.ftid[PN_INSIDE] = 2;
	strcpy(t.comm, "pidns-thread");
	t.sideband = t.exits = true;
	pn_truth_add(tr, &t);
	memset(&t, 0, sizeof(t));
	t.role = PN_CHILD;
	t.pid[PN_ROOT] = t.tid[PN_ROOT] = 1003;
	t.pid[PN_INSIDE] = t.tid[PN_INSIDE] = 4;
	t.parent[PN_ROOT] = t.fpid[PN_ROOT] = t.ftid[PN_ROOT] = 1001;
	t.parent[PN_INSIDE] = t.fpid[PN_INSIDE] = t.ftid[PN_INSIDE] = 2;
	strcpy(t.comm, "pidns-c0");
	t.sideband = t.exits = true;
	pn_truth_add(tr, &t);
}

static enum pn_class judge1(struct pn_truth *tr, enum pn_view v, uint32_t type, uint32_t pid,
			    uint32_t tid, uint32_t ppid, uint32_t ptid, const char *name,
			    uint64_t ino, struct pn_judgement *j)
{
	struct pn_rec r;

	memset(&r, 0, sizeof(r));
	r.type = type;
	r.pid = pid;
	r.tid = tid;
	r.ppid = ppid;
	r.ptid = ptid;
	if (name)
		snprintf(r.comm, sizeof(r.comm), "%s", name);
	r.has_pidns = type == PERF_RECORD_NAMESPACES;
	r.pidns_dev = 4;
	r.pidns_ino = ino;
	return pn_judge_record(tr, v, &r, j);
}

static void test_rules(void)
{
	struct pn_truth tr;
	struct pn_judgement *j = calloc(1, sizeof(*j));
	bool exact[PN_NR_VIEWS] = { true, true }, cw[PN_NR_VIEWS] = { true, true };
	bool views[PN_NR_VIEWS] = { true, true };
	struct pn_tally t;

	make_truth(&tr);
	ok(pn_find(&tr, PN_INSIDE, 2, 3) == 2 && pn_find(&tr, PN_ROOT, 1001, 1002) == 2,
	   "find: one task by its numbers in either view");
	ok(pn_misattributed(&tr, PN_ROOT, 2, 3) == PN_WRONG_NAMESPACE, "the inside numbers "
	   "in the root view: wrong namespace");
	ok(pn_misattributed(&tr, PN_INSIDE, 1001, 1002) == PN_WRONG_NAMESPACE, "and the other "
	   "way round");
	ok(pn_misattributed(&tr, PN_INSIDE, 0, 0) == PN_ABSENT, "0: a task the observer cannot "
	   "see");
	ok(pn_misattributed(&tr, PN_ROOT, 77, 78) == PN_UNKNOWN, "numbers of nobody");
	ok(pn_misattributed(&tr, PN_ROOT, 1001, 1001) == PN_OK, "the right numbers");

	/* Side-band records, inside view: right, then each way of being wrong. */
	ok(judge1(&tr, PN_INSIDE, PERF_RECORD_FORK, 4, 4, 2, 2, NULL, 0, j) == PN_OK,
	   "fork of a child names the forking thread");
	ok(judge1(&tr, PN_INSIDE, PERF_RECORD_FORK, 2, 3, 2, 3, NULL, 0, j) == PN_WRONG_PARENT,
	   "fork of the thread naming itself as the forker: wrong parent");
	ok(judge1(&tr, PN_INSIDE, PERF_RECORD_EXIT, 2, 3, 1, 1, NULL, 0, j) == PN_OK,
	   "exit of the thread names its process's parent (pid 1), as the kernel's real_parent");
	ok(judge1(&tr, PN_ROOT, PERF_RECORD_EXIT, 1003, 1003, 1001, 1001, NULL, 0, j) == PN_OK,
	   "exit of a child in the root view");
	ok(judge1(&tr, PN_ROOT, PERF_RECORD_EXIT, 1003, 1003, 2, 2, NULL, 0, j) ==
	   PN_WRONG_PARENT, "exit naming the parent by its namespace pid in the root view");
	ok(judge1(&tr, PN_INSIDE, PERF_RECORD_COMM, 4, 4, 0, 0, "pidns-c0", 0, j) == PN_OK,
	   "comm: the name it gave itself");
	ok(judge1(&tr, PN_INSIDE, PERF_RECORD_COMM, 4, 4, 0, 0, "pmustress", 0, j) ==
	   PN_WRONG_COMM, "comm: another name");
	ok(judge1(&tr, PN_INSIDE, PERF_RECORD_NAMESPACES, 4, 4, 0, 0, NULL, 4026532000ull, j) ==
	   PN_OK, "namespaces: the workload's PID namespace");
	ok(judge1(&tr, PN_ROOT, PERF_RECORD_NAMESPACES, 1003, 1003, 0, 0, NULL, 4026531836ull,
		  j) == PN_WRONG_PIDNS, "namespaces: the root's PID namespace for a task inside");
	ok(judge1(&tr, PN_ROOT, PERF_RECORD_COMM, 4, 4, 0, 0, "pidns-c0", 0, j) ==
	   PN_WRONG_NAMESPACE, "a root-view record with the namespace's numbers");
	is_u64(j->cls[PN_WRONG_NAMESPACE][PN_ROOT], 1, "counted in its view and class");
	ok(j->nkept >= 5 && strstr(j->kept[0].detail, "forking thread"), "anomalies kept with "
	   "a sentence: %s", j->nkept ? j->kept[0].detail : "");

	/* Owed records: the child got fork, comm, namespaces in the inside view, and exit. */
	free(j);
	j = calloc(1, sizeof(*j));
	pn_truth_fini(&tr);
	make_truth(&tr);
	judge1(&tr, PN_INSIDE, PERF_RECORD_FORK, 4, 4, 2, 2, NULL, 0, j);
	judge1(&tr, PN_INSIDE, PERF_RECORD_FORK, 4, 4, 2, 2, NULL, 0, j);
	judge1(&tr, PN_INSIDE, PERF_RECORD_COMM, 4, 4, 0, 0, "pidns-c0", 0, j);
	judge1(&tr, PN_INSIDE, PERF_RECORD_NAMESPACES, 4, 4, 0, 0, NULL, 4026532000ull, j);
	judge1(&tr, PN_INSIDE, PERF_RECORD_EXIT, 4, 4, 2, 2, NULL, 0, j);
	views[PN_ROOT] = false;
	pn_judge_finish(&tr, exact, cw, views, j);
	is_u64(j->cls[PN_DUPLICATE][PN_INSIDE], 1, "a second fork of one child: duplicate");
	/* The thread: nothing came; main: its comm and exit are owed, never its fork. */
	is_u64(j->cls[PN_MISSING][PN_INSIDE], 6, "missing: the thread's four, the main "
	       "thread's comm and exit");
	exact[PN_INSIDE] = false;
	free(j);
	j = calloc(1, sizeof(*j));
	pn_judge_finish(&tr, exact, cw, views, j);
	is_u64(j->cls[PN_MISSING][PN_INSIDE], 0, "a view that lost records owes nothing");
	exact[PN_INSIDE] = true;
	views[PN_ROOT] = true;

	/* Tallies: samples and switches by task; cross-view switch counts. */
	free(j);
	j = calloc(1, sizeof(*j));
	pn_tally_init(&t, 64);
	pn_tally_add(&t, PERF_RECORD_SAMPLE, 1001, 1002, 10);
	pn_tally_add(&t, PERF_RECORD_SWITCH, 1001, 1002, 7);
	pn_tally_add(&t, PERF_RECORD_SWITCH | PN_KIND_EARLY, 1001, 1001, 2);
	pn_tally_add(&t, PERF_RECORD_SAMPLE, 2, 3, 1);
	pn_judge_tally(&tr, PN_ROOT, &t, j);
	pn_tally_fini(&t);
	is_u64(tr.t[2].samples[PN_ROOT], 10, "samples go to their task");
	is_u64(j->cls[PN_WRONG_NAMESPACE][PN_ROOT], 1, "a root-view sample with the inside "
	       "numbers: wrong namespace");
	is_u64(tr.t[1].switches[PN_ROOT], 0, "switches before the start are not counted");
	pn_tally_init(&t, 64);
	pn_tally_add(&t, PERF_RECORD_SWITCH, 2, 3, 8);
	pn_judge_tally(&tr, PN_INSIDE, &t, j);
	pn_tally_fini(&t);
	pn_judge_finish(&tr, exact, cw, views, j);
	ok(j->cls[PN_CROSS_VIEW][PN_INSIDE] == 1, "7 switches seen from the root, 8 from "
	   "inside: cross-view");

	/* CPU-wide, inside: only tasks of the namespace, 0 and released tasks. */
	free(j);
	j = calloc(1, sizeof(*j));
	pn_tally_init(&t, 64);
	pn_tally_add(&t, PERF_RECORD_SWITCH_CPU_WIDE, 0, 0, 100);
	pn_tally_add(&t, PERF_RECORD_SWITCH_CPU_WIDE, 2, 3, 5);
	pn_tally_add(&t, PERF_RECORD_SWITCH_CPU_WIDE, 2, PN_RELEASED, 1);
	pn_tally_add(&t, PN_KIND_NEXT_PREV, PN_RELEASED, PN_RELEASED, 1);
	pn_tally_add(&t, PERF_RECORD_SWITCH_CPU_WIDE, 1, 5, 2);
	pn_judge_cpu_tally(&tr, PN_INSIDE, &t, j);
	is_u64(j->bad, 0, "idle, a namespace task, another thread of pid 1 and released tasks "
	       "are no anomaly");
	is_u64(j->released[PN_INSIDE], 1, "a released task is counted apart");
	pn_tally_add(&t, PN_KIND_NEXT_PREV, 1001, 1002, 3);
	pn_tally_add(&t, PERF_RECORD_SWITCH_CPU_WIDE, 99, PN_RELEASED, 1);
	pn_judge_cpu_tally(&tr, PN_INSIDE, &t, j);
	is_u64(j->cls[PN_FOREIGN][PN_INSIDE], 4, "root numbers, and a released task of another "
	       "process, seen from inside: foreign");
	ok(strstr(j->kept[0].detail, "root-namespace number") != NULL, "the sentence says whose "
	   "numbers they are: %s", j->kept[0].detail);
	pn_tally_fini(&t);
	pn_truth_fini(&tr);
	free(j);
}

int main(void)
{
	test_parse();
	test_ring();
	test_tally();
	test_rules();
	return tap_done();
}
