// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf mmap ring buffer parser: turns the records between data_tail and
 * data_head into fixed-size structs (samples, THROTTLE/UNTHROTTLE, LOST,
 * AUX).  Pure: no syscalls, so it is tested on synthetic rings.  Used by
 * every scenario that maps a ring (skid-into-kernel's samples, aux-pause's
 * AUX records, the counting scenarios' throttle evidence).
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>

#include "pms-ring.h"

#define SUPPORTED_SAMPLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			  PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

void pms_ring_copy(const void *ring, uint64_t size, uint64_t off, void *dst, size_t len)
{
	const uint8_t *data = ring;
	uint64_t pos = off & (size - 1);
	size_t first = len;

	if (pos + len > size)
		first = (size_t)(size - pos);
	memcpy(dst, data + pos, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, data, len - first);
}

static void parse_sample(const uint64_t *w, size_t nw, uint64_t st, struct pms_ring_rec *r)
{
	size_t i = 0;

#define NEXT() (i < nw ? w[i++] : 0)
	if (st & PERF_SAMPLE_IDENTIFIER)
		r->id = NEXT();
	if (st & PERF_SAMPLE_IP)
		r->ip = NEXT();
	if (st & PERF_SAMPLE_TID) {
		uint64_t v = NEXT();

		/* Two u32 in memory order: pid first. */
		memcpy(&r->pid, &v, 4);
		memcpy(&r->tid, (uint8_t *)&v + 4, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		r->time_ns = NEXT();
	if (st & PERF_SAMPLE_ADDR)
		(void)NEXT();
	if (st & PERF_SAMPLE_ID) {
		uint64_t v = NEXT();

		if (!(st & PERF_SAMPLE_IDENTIFIER))
			r->id = v;
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		(void)NEXT();
	if (st & PERF_SAMPLE_CPU) {
		uint64_t v = NEXT();

		memcpy(&r->cpu, &v, 4);
	}
#undef NEXT
}

int64_t pms_ring_parse(const void *data, uint64_t size, uint64_t tail, uint64_t head,
		       uint64_t sample_type, struct pms_ring_rec *out, size_t cap, size_t *n,
		       struct pms_ring_counts *cnt)
{
	return pms_ring_parse_kept(data, size, tail, head, sample_type, ~0ull, out, cap, n, cnt);
}

int64_t pms_ring_parse_kept(const void *data, uint64_t size, uint64_t tail, uint64_t head,
			    uint64_t sample_type, uint64_t keep, struct pms_ring_rec *out,
			    size_t cap, size_t *n, struct pms_ring_counts *cnt)
{
	/* A record is at most 64 KiB (u16 size); ours are far smaller. */
	uint64_t buf[8192];

	/* A ring smaller than a record header would have pms_ring_copy() read past it. */
	if (size < sizeof(struct perf_event_header) || (size & (size - 1)) ||
	    (sample_type & ~(uint64_t)SUPPORTED_SAMPLE))
		return -EINVAL;
	/*
	 * The rings are mapped writable, so the kernel never writes over
	 * unread data and head is at most @size past tail.  Further means the
	 * records are not all there; reading them anyway would take
	 * pms_ring_copy() past the data area.
	 */
	if (tail < head && head - tail > size)
		return -EBADMSG;
	while (tail < head) {
		struct perf_event_header h;
		struct pms_ring_rec r = { 0 };
		size_t body;

		if (head - tail < sizeof(h))
			return -EBADMSG;
		pms_ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - tail)
			return -EBADMSG;
		body = h.size - sizeof(h);
		pms_ring_copy(data, size, tail + sizeof(h), buf, body);
		r.type = h.type;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			parse_sample(buf, body / 8, sample_type, &r);
			cnt->samples++;
			break;
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			/* { u64 time, id, stream_id } */
			r.time_ns = body >= 8 ? buf[0] : 0;
			r.id = body >= 16 ? buf[1] : 0;
			if (h.type == PERF_RECORD_THROTTLE)
				cnt->throttle++;
			else
				cnt->unthrottle++;
			break;
		case PERF_RECORD_LOST:
			/* { u64 id, lost } */
			r.id = body >= 8 ? buf[0] : 0;
			r.lost = body >= 16 ? buf[1] : 0;
			cnt->lost_records++;
			cnt->lost_samples += r.lost;
			break;
		case PERF_RECORD_AUX:
			/* { u64 aux_offset, aux_size, flags } */
			r.aux_offset = body >= 8 ? buf[0] : 0;
			r.aux_size = body >= 16 ? buf[1] : 0;
			r.aux_flags = body >= 24 ? buf[2] : 0;
			cnt->aux_records++;
			cnt->aux_bytes += r.aux_size;
			break;
		default:
			cnt->other++;
			tail += h.size;
			cnt->bytes += h.size;
			continue;
		}
		if (h.type >= 64 || !(keep & (1ull << h.type)))
			;	/* counted, not wanted */
		else if (*n < cap)
			out[(*n)++] = r;
		else
			cnt->not_stored++;
		tail += h.size;
		cnt->bytes += h.size;
	}
	return (int64_t)tail;
}
