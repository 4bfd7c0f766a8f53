// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pidns scenario's Arm SPE decoder and judgement
 * (scenarios/pidns/spe.c): an AUX stream as the hardware, the driver's
 * padding or a bug of either left it.
 *
 * Input: a 20-byte header, then the AUX stream.  Header: u8 flags (bit 0
 * opener in the root namespace, bit 1 perfmon-capable), u8
 * CONFIG_PID_IN_CONTEXTIDR (mod 3, minus 1: -1, 0, 1), u8 how many of the
 * pids below are root-namespace pids (mod 5; the rest are namespace-local),
 * u8 unused, then 4 u32 pids.
 *
 * Besides the sanitizers, the harness checks the decoder's contract and
 * aborts when it is broken: errors are -EBADMSG or -ENODATA at an offset
 * inside the stream (or at its end) that fails again when decoded alone,
 * packet lengths add up to the offset reached, records do not overlap.
 */
#include <errno.h>

#include "fuzz.h"
#include "pidns/spe.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		uint8_t flags, config, nroot, unused;
		uint32_t pids[4];
	} c;
	struct pidns_spe_summary s;
	struct pidns_spe_verdict v;
	struct pidns_spe_expect e;
	struct pidns_spe_record rec;
	struct pidns_spe_pkt p;
	size_t off = 0, sum = 0, last = 0;
	int r;

	fuzz_take(&data, &size, &c, sizeof(c));

	r = pidns_spe_summarize(data, size, &s);
	check(r == s.error);
	if (r) {
		size_t eo = s.error_off;

		check(r == -EBADMSG || r == -ENODATA);
		check(eo <= size && s.error_rec_off <= eo);
		if (eo < size)
			check(pidns_spe_next(data, size, &eo, &p) == r);
		else
			check(r == -ENODATA);
	}
	check(s.nctx <= PIDNS_SPE_MAX_CTX && s.records_ctx <= s.records &&
	      s.records_ts <= s.records && s.padding_bytes <= size);

	while ((r = pidns_spe_next(data, size, &off, &p)) == 1) {
		check(p.len >= 1 && p.len <= 10 && (unsigned int)p.kind < PIDNS_SPE_KIND_NR);
		sum += p.len;
	}
	check(sum == off && off <= size && (r != 0 || off == size));

	off = 0;
	while ((r = pidns_spe_record_next(data, size, &off, &rec)) == 1) {
		check(rec.offset >= last && rec.offset + rec.len == off && off <= size);
		last = off;
	}
	check(off <= size);

	c.nroot %= 5;
	e = (struct pidns_spe_expect){
		.root_pids = c.pids, .nr_root = c.nroot,
		.ns_pids = c.pids + c.nroot, .nr_ns = 4 - c.nroot,
		.opener_in_root_ns = c.flags & 1, .perfmon_capable = c.flags & 2,
		.pid_in_contextidr = c.config % 3 - 1,
	};
	pidns_spe_judge(&s, &e, &v);
	check((unsigned int)v.cls < PIDNS_SPE_CLASS_NR && v.why);
	check(strcmp(pidns_spe_class_name(v.cls), "?"));
	return 0;
}
