// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf ring buffer record parser (lib/ring.c): the data area of a
 * mapped ring, as the kernel (or a bug of it) left it.
 *
 * Input: a 16-byte header, then the data area.  Header: u8 log2 of the ring
 * size (mod 17: 1 B to 64 KiB), u8 output capacity (mod 8), u16 sample_type
 * bits (bit i selects the i-th supported field; bit 15 adds an unsupported
 * one), u32 tail, u32 head - tail, u32 the kept-type mask's low bits.  The
 * data area is the rest of the input, zero-padded to the ring size.  Like
 * data_head and data_tail in the control page, tail and head are free
 * running: only their difference is bounded, by nothing but what the kernel
 * wrote.
 */
#include <linux/perf_event.h>

#include "fuzz.h"
#include "pms-ring.h"

static const uint64_t fields[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
	PERF_SAMPLE_PERIOD,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		uint8_t order, cap;
		uint16_t st;
		uint32_t tail, len, keep;
	} h;
	struct pms_ring_counts cnt = { 0 };
	struct pms_ring_rec out[8];
	uint64_t st = 0, ring;
	uint8_t *area;
	size_t n = 0, i;

	fuzz_take(&data, &size, &h, sizeof(h));
	ring = 1ull << (h.order % 17);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (h.st & (1u << i))
			st |= fields[i];
	if (h.st & 0x8000)
		st |= PERF_SAMPLE_CALLCHAIN;
	/* The ring's own allocation, so that ASan sees any access past it. */
	area = calloc(1, ring);
	if (!area)
		abort();
	memcpy(area, data, size < ring ? size : ring);
	pms_ring_parse_kept(area, ring, h.tail, (uint64_t)h.tail + h.len, st,
			    h.keep | (uint64_t)h.keep << 32, out, h.cap % 8, &n, &cnt);
	if (n > h.cap % 8)
		abort();
	free(area);
	return 0;
}
