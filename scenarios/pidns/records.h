/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pidns's view of a perf ring: the side-band records that name tasks
 * (SAMPLE, COMM, FORK, EXIT, NAMESPACES, SWITCH, SWITCH_CPU_WIDE, LOST), read
 * from the mmap ring in whole records and parsed from plain bytes, so that
 * an observer in another PID namespace can hand its bytes over a socket and
 * both views are parsed by the same code.  Also a bounded tally of records
 * by the task they name, for the high-rate kinds (samples, switches).
 */
#ifndef PIDNS_RECORDS_H
#define PIDNS_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every event pidns opens has sample_type TID | TIME | CPU and sample_id_all,
 * so a SAMPLE and every other record's trailer are the same 24 bytes.
 */
#define PN_SAMPLE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define PN_ID_BYTES 24

struct pn_ring {
	int fd;
	void *base;		/* control page, then the data area */
	size_t map_len;
	uint64_t data_size;
	uint64_t tail;
};

/*
 * pn_ring_map - map @fd's ring with @pages data pages (a power of two).
 * Return: 0 or -errno.
 */
int pn_ring_map(struct pn_ring *r, int fd, unsigned int pages);
void pn_ring_unmap(struct pn_ring *r);

/*
 * pn_ring_take - copy whole records from the ring's tail into @out, at most
 * @cap bytes (a record that does not fit stays for the next call), and hand
 * the room back to the kernel.  Return: bytes copied, or -EBADMSG for a
 * record the kernel could not have written (the ring is then unusable).
 */
long pn_ring_take(struct pn_ring *r, void *out, size_t cap);

/* One record, in the numbers of the observer that read it. */
struct pn_rec {
	uint32_t type;		/* PERF_RECORD_* */
	uint16_t misc;
	uint32_t pid, tid;	/* COMM, FORK, EXIT, NAMESPACES body; SAMPLE's TID */
	uint32_t ppid, ptid;	/* FORK, EXIT */
	uint32_t np_pid, np_tid;	/* SWITCH_CPU_WIDE: the task switched to or from */
	uint32_t id_pid, id_tid;	/* the sample_id trailer (SAMPLE: same as pid/tid) */
	uint32_t cpu;
	uint64_t time;
	uint64_t lost;		/* LOST */
	bool has_pidns;		/* NAMESPACES carried a PID namespace entry */
	uint64_t pidns_dev, pidns_ino;
	char comm[17];		/* COMM, NUL-terminated */
};

/*
 * pn_parse - parse the record at @buf + *@off (records laid end to end, as
 * pn_ring_take() gives them) and advance *@off past it.
 * Return: 1 with @rec filled, 0 at the end of @buf, -EBADMSG for a record
 * that is cut short, of size 0 or not a multiple of 8, or too small for its
 * type (*@off is left at it).
 */
int pn_parse(const void *buf, size_t len, size_t *off, struct pn_rec *rec);

/* A record kind's name ("sample", "switch_cpu_wide"...), for results. */
const char *pn_rec_name(uint32_t type);

/*
 * A bounded count of records by (kind, pid, tid): open addressing, no
 * allocation after pn_tally_init().  Keys that find no room are counted in
 * @dropped, never lost silently.
 */
struct pn_tally_ent {
	uint32_t kind, pid, tid;
	uint32_t used;
	uint64_t count;
};

struct pn_tally {
	struct pn_tally_ent *e;
	size_t cap;		/* a power of two */
	size_t used;
	uint64_t dropped;
};

int pn_tally_init(struct pn_tally *t, size_t cap);
void pn_tally_fini(struct pn_tally *t);
void pn_tally_add(struct pn_tally *t, uint32_t kind, uint32_t pid, uint32_t tid, uint64_t n);
uint64_t pn_tally_get(const struct pn_tally *t, uint32_t kind, uint32_t pid, uint32_t tid);

#endif
