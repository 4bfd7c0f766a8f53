// SPDX-License-Identifier: GPL-2.0-only
/*
 * pidns: reading whole records from a perf mmap ring, parsing the ones that
 * name tasks, and counting them by task in bounded room.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pms-ring.h"
#include "records.h"

int pn_ring_map(struct pn_ring *r, int fd, unsigned int pages)
{
	long psz = sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	r->map_len = (size_t)(pages + 1) * (size_t)psz;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	r->data_size = (uint64_t)pages * (uint64_t)psz;
	return 0;
}

void pn_ring_unmap(struct pn_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
}

long pn_ring_take(struct pn_ring *r, void *out, size_t cap)
{
	struct perf_event_mmap_page *pg = r->base;
	const uint8_t *data;
	uint64_t head, tail = r->tail;
	size_t done = 0;

	if (!pg)
		return -EBADMSG;
	data = (const uint8_t *)r->base + (r->map_len - r->data_size);
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	if (head - tail > r->data_size)
		return -EBADMSG;
	while (tail < head) {
		struct perf_event_header h;

		if (head - tail < sizeof(h))
			return -EBADMSG;
		pms_ring_copy(data, r->data_size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - tail)
			return -EBADMSG;
		if (done + h.size > cap)
			break;
		pms_ring_copy(data, r->data_size, tail, (uint8_t *)out + done, h.size);
		done += h.size;
		tail += h.size;
	}
	r->tail = tail;
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return (long)done;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The TID | TIME | CPU block: a SAMPLE's body, every other record's trailer. */
static void id_block(const uint8_t *p, struct pn_rec *rec)
{
	rec->id_pid = u32_at(p);
	rec->id_tid = u32_at(p + 4);
	rec->time = u64_at(p + 8);
	rec->cpu = u32_at(p + 16);
}

int pn_parse(const void *buf, size_t len, size_t *off, struct pn_rec *rec)
{
	const uint8_t *p = (const uint8_t *)buf + *off;
	struct perf_event_header h;
	size_t body;		/* bytes between the header and the trailer */

	if (*off >= len)
		return 0;
	if (len - *off < sizeof(h))
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > len - *off)
		return -EBADMSG;
	memset(rec, 0, sizeof(*rec));
	rec->type = h.type;
	rec->misc = h.misc;
	p += sizeof(h);
	if (h.type == PERF_RECORD_SAMPLE) {
		if (h.size < sizeof(h) + PN_ID_BYTES)
			return -EBADMSG;
		id_block(p, rec);
		rec->pid = rec->id_pid;
		rec->tid = rec->id_tid;
		*off += h.size;
		return 1;
	}
	if (h.size < sizeof(h) + PN_ID_BYTES)
		return -EBADMSG;
	body = h.size - sizeof(h) - PN_ID_BYTES;
	id_block(p + body, rec);
	switch (h.type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body < 24)
			return -EBADMSG;
		rec->pid = u32_at(p);
		rec->ppid = u32_at(p + 4);
		rec->tid = u32_at(p + 8);
		rec->ptid = u32_at(p + 12);
		rec->time = u64_at(p + 16);
		break;
	case PERF_RECORD_COMM: {
		size_t n = body >= 8 ? body - 8 : 0;

		if (body < 8)
			return -EBADMSG;
		rec->pid = u32_at(p);
		rec->tid = u32_at(p + 4);
		if (n > sizeof(rec->comm) - 1)
			n = sizeof(rec->comm) - 1;
		memcpy(rec->comm, p + 8, n);
		rec->comm[n] = '\0';
		break;
	}
	case PERF_RECORD_NAMESPACES: {
		uint64_t nr;

		if (body < 16)
			return -EBADMSG;
		rec->pid = u32_at(p);
		rec->tid = u32_at(p + 4);
		nr = u64_at(p + 8);
		if (nr > (body - 16) / 16)
			return -EBADMSG;
		if (nr > PID_NS_INDEX) {
			rec->has_pidns = true;
			rec->pidns_dev = u64_at(p + 16 + 16 * PID_NS_INDEX);
			rec->pidns_ino = u64_at(p + 16 + 16 * PID_NS_INDEX + 8);
		}
		break;
	}
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (body < 8)
			return -EBADMSG;
		rec->np_pid = u32_at(p);
		rec->np_tid = u32_at(p + 4);
		break;
	case PERF_RECORD_LOST:
		if (body < 16)
			return -EBADMSG;
		rec->lost = u64_at(p + 8);
		break;
	default:
		break;
	}
	*off += h.size;
	return 1;
}

const char *pn_rec_name(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_SAMPLE: return "sample";
	case PERF_RECORD_COMM: return "comm";
	case PERF_RECORD_FORK: return "fork";
	case PERF_RECORD_EXIT: return "exit";
	case PERF_RECORD_NAMESPACES: return "namespaces";
	case PERF_RECORD_SWITCH: return "switch";
	case PERF_RECORD_SWITCH_CPU_WIDE: return "switch_cpu_wide";
	case PERF_RECORD_LOST: return "lost";
	case PERF_RECORD_THROTTLE: return "throttle";
	case PERF_RECORD_UNTHROTTLE: return "unthrottle";
	}
	return "other";
}

int pn_tally_init(struct pn_tally *t, size_t cap)
{
	memset(t, 0, sizeof(*t));
	if (!cap || (cap & (cap - 1)))
		return -EINVAL;
	t->e = calloc(cap, sizeof(*t->e));
	if (!t->e)
		return -ENOMEM;
	t->cap = cap;
	return 0;
}

void pn_tally_fini(struct pn_tally *t)
{
	free(t->e);
	t->e = NULL;
	t->cap = t->used = 0;
}

static size_t slot_of(uint32_t kind, uint32_t pid, uint32_t tid, size_t cap)
{
	uint64_t h = ((uint64_t)kind * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)pid << 32 | tid);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h & (cap - 1);
}

static struct pn_tally_ent *find(const struct pn_tally *t, uint32_t kind, uint32_t pid,
				 uint32_t tid)
{
	size_t i, s;

	if (!t->cap)
		return NULL;
	s = slot_of(kind, pid, tid, t->cap);
	for (i = 0; i < t->cap; i++) {
		struct pn_tally_ent *e = &t->e[(s + i) & (t->cap - 1)];

		if (!e->used || (e->kind == kind && e->pid == pid && e->tid == tid))
			return e;
	}
	return NULL;
}

void pn_tally_add(struct pn_tally *t, uint32_t kind, uint32_t pid, uint32_t tid, uint64_t n)
{
	struct pn_tally_ent *e = find(t, kind, pid, tid);

	if (e && !e->used) {
		/* Keep a quarter free so probing stays short. */
		if (t->used + 1 > t->cap - t->cap / 4)
			e = NULL;
		else {
			e->used = 1;
			e->kind = kind;
			e->pid = pid;
			e->tid = tid;
			t->used++;
		}
	}
	if (!e) {
		t->dropped += n;
		return;
	}
	e->count += n;
}

uint64_t pn_tally_get(const struct pn_tally *t, uint32_t kind, uint32_t pid, uint32_t tid)
{
	const struct pn_tally_ent *e = find(t, kind, pid, tid);

	return e && e->used ? e->count : 0;
}
