/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_RING_H
#define PMS_RING_H

#include <stddef.h>
#include <stdint.h>

/* The perf mmap ring buffer parser (lib/ring.c). */

/* One record of the perf ring buffer that the analysis uses. */
struct pms_ring_rec {
	uint32_t type;		/* PERF_RECORD_SAMPLE, _THROTTLE, _UNTHROTTLE, _LOST, _AUX */
	uint32_t cpu;		/* SAMPLE: PERF_SAMPLE_CPU */
	uint32_t pid, tid;	/* SAMPLE: PERF_SAMPLE_TID */
	uint64_t ip;		/* SAMPLE: PERF_SAMPLE_IP */
	uint64_t time_ns;	/* SAMPLE: PERF_SAMPLE_TIME; THROTTLE/UNTHROTTLE: time */
	uint64_t lost;		/* LOST: samples the kernel could not write */
	uint64_t id;		/* SAMPLE: IDENTIFIER or ID; THROTTLE, LOST: the event's id */
	uint64_t aux_offset, aux_size, aux_flags;	/* AUX: data the PMU wrote */
};

struct pms_ring_counts {
	uint64_t samples, throttle, unthrottle, lost_records, lost_samples;
	uint64_t aux_records, aux_bytes;	/* PERF_RECORD_AUX and the sizes they give */
	uint64_t other;		/* records of other types (MMAP, COMM, ...): skipped */
	uint64_t not_stored;	/* records counted but no room left in @out */
	uint64_t bytes;
};

/*
 * pms_ring_copy - @len bytes (at most @size) at offset @off of a ring of
 * @size bytes (a power of two) into @dst; the offset is taken modulo @size
 * and the bytes may wrap past the end (perf's data and AUX areas).
 */
void pms_ring_copy(const void *ring, uint64_t size, uint64_t off, void *dst, size_t len);

/**
 * pms_ring_parse - parse the records between @tail and @head of a perf ring
 * buffer's data area.
 * @data: the data area (the page after the control page)
 * @size: its size in bytes, a power of two, at least 8 (a record header)
 * @tail: the data_tail the reader had; @head: data_head, read with acquire
 * @sample_type: attr.sample_type; only fixed-size u64 fields are supported
 *	(IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD)
 * @out, @cap, @n: records appended at out[*n], *n updated; full is counted in
 *	@cnt->not_stored, never hidden
 * @cnt: counts by type, added to
 *
 * Both the ring's wraparound (offsets are taken modulo @size) and a record
 * split across the end of the data area (copied out in two pieces) are
 * handled.  The caller stores the returned position into data_tail with
 * release semantics.
 *
 * Return: the new tail (@head when everything parsed), or -EINVAL for a bad
 * @size or an unsupported @sample_type, -EBADMSG when @head is more than
 * @size past @tail (nothing is parsed) or for a record whose size is 0, not
 * a multiple of 8, or runs past @head (nothing after it is parsed).
 */
int64_t pms_ring_parse(const void *data, uint64_t size, uint64_t tail, uint64_t head,
		       uint64_t sample_type, struct pms_ring_rec *out, size_t cap, size_t *n,
		       struct pms_ring_counts *cnt);

/*
 * pms_ring_parse_kept - the same, but only records whose type bit is set in
 * @keep (1 << PERF_RECORD_THROTTLE, ...) are stored in @out; the others are
 * still counted in @cnt.
 */
int64_t pms_ring_parse_kept(const void *data, uint64_t size, uint64_t tail, uint64_t head,
			    uint64_t sample_type, uint64_t keep, struct pms_ring_rec *out,
			    size_t cap, size_t *n, struct pms_ring_counts *cnt);

#endif
