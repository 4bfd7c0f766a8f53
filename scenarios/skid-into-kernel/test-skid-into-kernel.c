/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * skid-into-kernel unit tests, no PMU: the ring buffer parser on synthetic
 * rings (wraparound, a record split across the end, throttle and lost
 * records), every matching rule on synthetic sample and signal streams, and
 * the per-CPU skid allowance table.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "tap.h"
#include "rules.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define P 100ULL
#define TID 42u
#define UIP 0x0000555555554000ULL
#define KIP 0xffffffff81000000ULL

/* ---- a synthetic ring: records written at head modulo the size */

static void put(uint8_t *data, uint64_t size, uint64_t *head, const void *src, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		data[(*head + i) & (size - 1)] = ((const uint8_t *)src)[i];
	*head += len;
}

static void put_sample(uint8_t *d, uint64_t size, uint64_t *head, uint64_t ip, uint32_t tid,
		       uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 8 + 32 };
	uint32_t pidtid[2] = { 7, tid }, cpures[2] = { cpu, 0 };

	put(d, size, head, &h, sizeof(h));
	put(d, size, head, &ip, 8);
	put(d, size, head, pidtid, 8);
	put(d, size, head, &time, 8);
	put(d, size, head, cpures, 8);
}

static void put_words(uint8_t *d, uint64_t size, uint64_t *head, uint32_t type,
		      const uint64_t *w, size_t n)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)(8 + 8 * n) };

	put(d, size, head, &h, sizeof(h));
	put(d, size, head, w, 8 * n);
}

/* The records aux-pause reads: IDENTIFIER samples, AUX, THROTTLE ids, wrapped. */
static void test_ring_aux(void)
{
	uint8_t d[128];
	struct pms_ring_rec out[8];
	struct pms_ring_counts c = { 0 };
	const uint64_t aux[] = { 4096, 1200, PERF_AUX_FLAG_TRUNCATED };
	const uint64_t thr[] = { 555, 77, 77 };
	const uint64_t id1[] = { 76 }, id2[] = { 77 };
	uint64_t head = 96, tail = 96;	/* so the AUX record wraps */
	size_t n = 0;
	int64_t ret;

	put_words(d, sizeof(d), &head, PERF_RECORD_SAMPLE, id1, 1);
	put_words(d, sizeof(d), &head, PERF_RECORD_AUX, aux, 3);
	put_words(d, sizeof(d), &head, PERF_RECORD_THROTTLE, thr, 3);
	put_words(d, sizeof(d), &head, PERF_RECORD_SAMPLE, id2, 1);
	ret = pms_ring_parse(d, sizeof(d), tail, head, PERF_SAMPLE_IDENTIFIER, out, 8, &n, &c);
	is_u64((uint64_t)ret, head, "aux ring: parsed to head across the wrap");
	is_u64(n, 4, "aux ring: four records");
	ok(out[0].type == PERF_RECORD_SAMPLE && out[0].id == 76, "sample IDENTIFIER 76");
	ok(out[1].type == PERF_RECORD_AUX && out[1].aux_offset == 4096 && out[1].aux_size == 1200 &&
	   out[1].aux_flags == PERF_AUX_FLAG_TRUNCATED, "AUX record: offset, size, flags");
	ok(out[2].type == PERF_RECORD_THROTTLE && out[2].id == 77 && out[2].time_ns == 555,
	   "THROTTLE: time and the throttled event's id");
	ok(out[3].id == 77, "second sample's IDENTIFIER");
	ok(c.aux_records == 1 && c.aux_bytes == 1200 && c.samples == 2 && c.throttle == 1,
	   "counts: 1 AUX record of 1200 bytes, 2 samples, 1 throttle");
}

static void test_ring(void)
{
	uint8_t d[256];
	struct pms_ring_rec out[16];
	struct pms_ring_counts c = { 0 };
	uint64_t head, tail, w[3];
	size_t n = 0;
	int64_t ret;

	/* Plain: two samples, a throttle pair, a lost record, a COMM skipped. */
	memset(d, 0, sizeof(d));
	head = 0;
	put_sample(d, sizeof(d), &head, UIP, TID, 1000, 1);
	w[0] = 1500; w[1] = 9; w[2] = 9;
	put_words(d, sizeof(d), &head, PERF_RECORD_THROTTLE, w, 3);
	w[0] = 1600;
	put_words(d, sizeof(d), &head, PERF_RECORD_UNTHROTTLE, w, 3);
	w[0] = 9; w[1] = 5;
	put_words(d, sizeof(d), &head, PERF_RECORD_LOST, w, 2);
	w[0] = 0x6d6f6300; w[1] = 0;
	put_words(d, sizeof(d), &head, PERF_RECORD_COMM, w, 2);
	put_sample(d, sizeof(d), &head, KIP, TID, 2000, 0);
	ret = pms_ring_parse(d, sizeof(d), 0, head, ST, out, 16, &n, &c);
	is_u64((uint64_t)ret, head, "ring: tail advances to head");
	is_u64(n, 5, "ring: five records kept (COMM skipped)");
	is_u64(c.samples, 2, "ring: two samples");
	is_u64(c.throttle, 1, "ring: one THROTTLE counted");
	is_u64(c.unthrottle, 1, "ring: one UNTHROTTLE counted");
	is_u64(c.lost_records, 1, "ring: one LOST record");
	is_u64(c.lost_samples, 5, "ring: its five lost samples counted");
	is_u64(c.other, 1, "ring: the COMM record counted as other");
	ok(out[0].type == PERF_RECORD_SAMPLE && out[0].ip == UIP && out[0].pid == 7 &&
	   out[0].tid == TID && out[0].time_ns == 1000 && out[0].cpu == 1,
	   "ring: sample fields IP, pid, tid, time, cpu in kernel order");
	ok(out[1].type == PERF_RECORD_THROTTLE && out[1].time_ns == 1500,
	   "ring: throttle time read");
	ok(out[4].ip == KIP && out[4].cpu == 0, "ring: second sample has the kernel IP");

	/* Wraparound: positions past 2^32 and several laps, a record split
	 * across the end of the data area (header and body both split). */
	memset(d, 0, sizeof(d));
	tail = head = 7ull * 256 + 256 - 44;	/* 44 bytes before the end */
	put_sample(d, sizeof(d), &head, UIP + 1, TID, 3000, 1);	/* 40: ends 4 bytes early */
	put_sample(d, sizeof(d), &head, UIP + 2, TID, 3001, 1);	/* header split 4/4 */
	put_sample(d, sizeof(d), &head, UIP + 3, TID, 3002, 0);
	memset(&c, 0, sizeof(c));
	n = 0;
	ret = pms_ring_parse(d, sizeof(d), tail, head, ST, out, 16, &n, &c);
	is_u64((uint64_t)ret, head, "wrap: tail advances to head past the end of the area");
	ok(n == 3 && out[1].ip == UIP + 2 && out[1].time_ns == 3001 && out[1].tid == TID &&
	   out[2].ip == UIP + 3 && out[2].time_ns == 3002,
	   "wrap: a record whose header straddles the end is put back together");

	memset(d, 0, sizeof(d));
	tail = head = 0x100000000ull * 3 + 256 - 24;	/* body split 16/24 */
	put_sample(d, sizeof(d), &head, UIP + 4, TID, 4000, 1);
	n = 0;
	ret = pms_ring_parse(d, sizeof(d), tail, head, ST, out, 16, &n, &c);
	ok(ret == (int64_t)head && n == 1 && out[0].ip == UIP + 4 && out[0].time_ns == 4000 &&
	   out[0].cpu == 1, "wrap: a body split across the end, at a position past 2^32");

	/* A partial drain: parse up to a head, resume from the returned tail. */
	memset(d, 0, sizeof(d));
	head = 0;
	put_sample(d, sizeof(d), &head, UIP, TID, 1, 0);
	tail = head;
	put_sample(d, sizeof(d), &head, UIP, TID, 2, 0);
	n = 0;
	ret = pms_ring_parse(d, sizeof(d), 0, tail, ST, out, 16, &n, &c);
	ret = pms_ring_parse(d, sizeof(d), (uint64_t)ret, head, ST, out, 16, &n, &c);
	ok(ret == (int64_t)head && n == 2 && out[1].time_ns == 2, "resume from the returned tail");

	/* Full output: counted, never hidden, the tail still advances. */
	memset(&c, 0, sizeof(c));
	n = 0;
	ret = pms_ring_parse(d, sizeof(d), 0, head, ST, out, 1, &n, &c);
	ok(ret == (int64_t)head && n == 1 && c.not_stored == 1 && c.samples == 2,
	   "full output: one kept, one counted in not_stored");

	/* Malformed and unsupported input. */
	n = 0;
	ok(pms_ring_parse(d, 200, 0, head, ST, out, 16, &n, &c) == -EINVAL,
	   "a size that is not a power of two is -EINVAL");
	ok(pms_ring_parse(d, sizeof(d), 0, head, ST | PERF_SAMPLE_CALLCHAIN, out, 16, &n, &c) ==
	   -EINVAL, "an unsupported sample_type is -EINVAL");
	ok(pms_ring_parse(d, sizeof(d), 0, head - 8, ST, out, 16, &n, &c) == -EBADMSG,
	   "a record that runs past head is -EBADMSG");
	memset(d, 0, sizeof(d));
	ok(pms_ring_parse(d, sizeof(d), 0, 16, ST, out, 16, &n, &c) == -EBADMSG,
	   "a record of size 0 is -EBADMSG (no endless loop)");
}

/* ---- the matching rules */

static struct pms_signal sig[64];
static struct pms_ring_rec rec[64];
static size_t nsig, nrec;
static struct pms_ring_counts counts;

static void reset(void)
{
	memset(sig, 0, sizeof(sig));
	memset(rec, 0, sizeof(rec));
	memset(&counts, 0, sizeof(counts));
	nsig = nrec = 0;
}

static void sample(uint64_t t, uint64_t ip)
{
	rec[nrec].type = PERF_RECORD_SAMPLE;
	rec[nrec].time_ns = t;
	rec[nrec].ip = ip;
	rec[nrec].tid = TID;
	nrec++;
	counts.samples++;
}

static void signal_at(uint64_t t, uint64_t value)
{
	sig[nsig].time_ns = t;
	sig[nsig].value = value;
	sig[nsig].si_code = POLL_IN;
	nsig++;
}

/* n overflows, each a sample at 1000k and a signal at 1000k + 10, skid s. */
static void clean(unsigned int n, uint64_t s)
{
	unsigned int k;

	for (k = 1; k <= n; k++) {
		sample(1000 * k, UIP);
		signal_at(1000 * k + 10, k * P + s);
	}
}

static struct pms_skid_cfg cfg(uint64_t allow, uint64_t final)
{
	struct pms_skid_cfg c = {
		.period = P, .allowance = allow, .final_value = final, .final_valid = true,
		.tid = TID, .kernel_ip_mask = 1ull << 63, .max_findings = 32,
	};
	return c;
}

static void analyze(const struct pms_skid_cfg *c, struct pms_skid_result *r)
{
	ok(!pms_skid_analyze(c, sig, nsig, rec, nrec, &counts, r), "analyze returns 0");
}

static void test_rules(void)
{
	struct pms_skid_cfg c;
	struct pms_skid_result r;
	char why[512];
	json_object *j, *v;
	int k;

	/* Clean: every overflow has both; the breakpoint case (skid 0). */
	reset();
	clean(10, 0);
	c = cfg(0, 10 * P + 5);
	analyze(&c, &r);
	ok(r.matched == 10 && r.samples == 10 && r.signals == 10 && r.findings_total == 0,
	   "clean: 10 matched, no finding");
	ok(!pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "every overflow"),
	   "clean: passes, and says so (%s)", why);
	is_u64(r.overflows_implied, 10, "clean: final count implies 10 overflows");
	ok(r.skid_max == 0 && r.skid_hist[0] == 10, "clean: skid 0 in bin 0");
	ok(r.latency_min_ns == 10 && r.latency_max_ns == 10, "clean: sample-to-signal 10 ns");
	pms_skid_result_free(&r);

	/* Skid distribution: 37 counts each, allowance 125 (Intel). */
	reset();
	clean(5, 37);
	c = cfg(125, 5 * P + 40);
	analyze(&c, &r);
	ok(r.skid_min == 37 && r.skid_max == 37 && r.skid_sum == 5 * 37 && r.skid_hist[6] == 5,
	   "skid 37 counted in [32,64)");
	ok(!r.by_kind[PMS_SKID_OVER_ALLOWANCE], "skid 37 within allowance 125");
	pms_skid_result_free(&r);

	/* Over the allowance: rr's "outside expected interrupt period". */
	reset();
	clean(3, 60);
	c = cfg(50, 3 * P + 60);
	analyze(&c, &r);
	is_u64(r.by_kind[PMS_SKID_OVER_ALLOWANCE], 3, "skid 60 over allowance 50: 3 findings");
	ok(pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "skid_over_allowance 3"),
	   "over allowance fails and is named (%s)", why);
	pms_skid_result_free(&r);

	/* A kernel IP on a user-only event: the leak symptom. */
	reset();
	clean(4, 0);
	rec[2].ip = KIP;
	c = cfg(0, 4 * P);
	analyze(&c, &r);
	is_u64(r.by_kind[PMS_SKID_KERNEL_IP], 1, "kernel IP: one finding");
	ok(r.nr_findings == 1 && r.findings[0].sample == 3 && r.findings[0].ip == KIP,
	   "kernel IP: names sample #3 and its IP");
	ok(r.matched == 4, "kernel IP: the sample is still matched with its signal");
	ok(!r.judged[PMS_SKID_KERNEL_IP] && !pms_skid_failed(&c, &r, why, sizeof(why)) &&
	   strstr(why, "not judged: kernel_ip 1"),
	   "kernel IP reported, not judged by default: the kernel's design since 4.13 (%s)", why);
	pms_skid_result_free(&r);
	c.judge_kernel_ip = true;
	analyze(&c, &r);
	ok(pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "kernel_ip 1"),
	   "kernel IP fails with --judge-kernel-ip (%s)", why);
	c.kernel_ip_mask = 0;
	pms_skid_result_free(&r);
	analyze(&c, &r);
	ok(!r.by_kind[PMS_SKID_KERNEL_IP], "kernel IP: no mask, no finding");
	pms_skid_result_free(&r);

	/* Sample but no signal: the signal path lost overflow 3. */
	reset();
	clean(6, 0);
	memmove(&sig[2], &sig[3], 3 * sizeof(sig[0]));
	nsig = 5;
	c = cfg(0, 6 * P);
	analyze(&c, &r);
	is_u64(r.by_kind[PMS_SKID_SAMPLE_NO_SIGNAL], 1, "signal lost: one sample_no_signal");
	ok(r.nr_findings == 1 && r.findings[0].sample == 3 && r.findings[0].index == 3,
	   "signal lost: it is sample #3, overflow 3");
	ok(!r.by_kind[PMS_SKID_DROPPED] && r.matched == 5,
	   "signal lost: not also counted as a dropped interrupt; the rest matched");
	ok(pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "sample_no_signal 1"),
	   "signal lost fails (%s)", why);
	pms_skid_result_free(&r);

	/* A signal more than P late (the emulated 6.1 guest's case): samples
	 * 3 and 4 are both written before signal 3's handler, which reads
	 * 4P + 475; the queued signal 4 reads 4P + 600.  Nothing is lost. */
	reset();
	clean(6, 0);
	rec[3].time_ns = 3005;
	sig[2].time_ns = 3500;
	sig[2].value = 4 * P + 47;
	sig[3].time_ns = 3600;
	sig[3].value = 4 * P + 60;
	c = cfg(125, 6 * P);
	analyze(&c, &r);
	ok(!r.by_kind[PMS_SKID_SAMPLE_NO_SIGNAL] && !r.by_kind[PMS_SKID_NO_ADVANCE] &&
	   r.by_kind[PMS_SKID_LATE_SIGNAL] == 1 && r.matched == 6,
	   "late signal: repays the sample passed over, nothing lost, all 6 matched");
	ok(r.nr_findings == 1 && r.findings[0].sample == 3 && r.findings[0].signal == 4,
	   "late signal: names sample #3 and signal #4");
	ok(!pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "late_signal 1"),
	   "late signal: does not fail, reported (%s)", why);
	pms_skid_result_free(&r);

	/* A skid above P with the next sample written after the handler read
	 * (the emulated 6.12 guest's case): the jump is repaid by the next,
	 * non-advancing signal, so it is not a drop. */
	reset();
	clean(6, 0);
	sig[2].value = 4 * P + 14;	/* signal 3 reads past overflow 4 */
	sig[3].value = 4 * P + 30;	/* signal 4 does not advance */
	c = cfg(10, 6 * P);
	analyze(&c, &r);
	ok(!r.by_kind[PMS_SKID_DROPPED] && r.by_kind[PMS_SKID_LATE_SIGNAL] == 1 &&
	   r.matched == 6 && !r.by_kind[PMS_SKID_SAMPLE_NO_SIGNAL],
	   "skid above P, sample after: late signal repays the jump, no drop, all matched");
	pms_skid_result_free(&r);

	/* The last signal lost: found from the tail of the ring. */
	reset();
	clean(4, 0);
	nsig = 3;
	c = cfg(0, 4 * P + 50);
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_SAMPLE_NO_SIGNAL] == 1 && !r.by_kind[PMS_SKID_DROPPED],
	   "last signal lost: one sample_no_signal at the tail, no drop");
	pms_skid_result_free(&r);

	/* Interrupt dropped: overflow 3 has neither sample nor signal. */
	reset();
	clean(6, 5);
	memmove(&sig[2], &sig[3], 3 * sizeof(sig[0]));
	memmove(&rec[2], &rec[3], 3 * sizeof(rec[0]));
	nsig = nrec = 5;
	c = cfg(10, 6 * P + 5);
	analyze(&c, &r);
	is_u64(r.by_kind[PMS_SKID_DROPPED], 1, "dropped: delta 200 > P + 10, one drop");
	ok(!r.by_kind[PMS_SKID_SAMPLE_NO_SIGNAL] && !r.by_kind[PMS_SKID_SIGNAL_NO_SAMPLE],
	   "dropped: samples and signals otherwise pair up");
	ok(pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "interrupt_dropped 1"),
	   "dropped fails (%s)", why);
	pms_skid_result_free(&r);

	/* Two in a row dropped: one finding worth two. */
	reset();
	clean(6, 0);
	memmove(&sig[1], &sig[3], 3 * sizeof(sig[0]));
	memmove(&rec[1], &rec[3], 3 * sizeof(rec[0]));
	nsig = nrec = 4;
	c = cfg(0, 6 * P);
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_DROPPED] == 2 && r.findings_total == 1 && r.findings[0].count == 2,
	   "two dropped in a row: one finding, count 2");
	pms_skid_result_free(&r);

	/* Timer events: the same drop is reported but not judged. */
	reset();
	clean(6, 5);
	memmove(&sig[2], &sig[3], 3 * sizeof(sig[0]));
	memmove(&rec[2], &rec[3], 3 * sizeof(rec[0]));
	nsig = nrec = 5;
	c = cfg(10, 6 * P + 5);
	c.timer = true;
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_DROPPED] == 1 && !r.judged[PMS_SKID_DROPPED] &&
	   !r.judged[PMS_SKID_OVER_ALLOWANCE] && r.judged[PMS_SKID_SAMPLE_NO_SIGNAL],
	   "timer: drop reported, count rules not judged, sample_no_signal still judged");
	ok(!pms_skid_failed(&c, &r, why, sizeof(why)) &&
	   strstr(why, "not judged: interrupt_dropped 1") && !strstr(why, "every overflow"),
	   "timer: a drop does not fail, and is named (%s)", why);
	pms_skid_result_free(&r);

	/* The same jump within P + allowance is ambiguous, not judged. */
	reset();
	sample(1000, UIP);
	signal_at(1010, P + 0);
	sample(3000, UIP);
	signal_at(3010, 3 * P + 10);
	c = cfg(125, 3 * P + 10);
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_AMBIGUOUS] == 1 && !r.by_kind[PMS_SKID_DROPPED],
	   "jump with delta 210 <= P + 125: ambiguous_jump, not a drop");
	ok(!pms_skid_failed(&c, &r, why, sizeof(why)), "ambiguous jump does not fail");
	pms_skid_result_free(&r);

	/* Overflows after the last signal with no sample: dropped at the tail. */
	reset();
	clean(3, 0);
	c = cfg(10, 5 * P + 50);
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_DROPPED] == 2 && !r.unsettled_tail,
	   "tail: 2 overflows implied after the last signal, neither came");
	pms_skid_result_free(&r);
	c = cfg(10, 5 * P + 5);
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_DROPPED] == 1 && r.unsettled_tail == 1,
	   "tail: the count ended within the allowance of overflow 5: unsettled, not judged");
	pms_skid_result_free(&r);

	/* A large skid (> P) is not taken for a lost signal: the signal of
	 * overflow 2 reads 3P + 30 before sample 3 exists. */
	reset();
	sample(1000, UIP);
	signal_at(1010, P);
	sample(2000, UIP);
	signal_at(2500, 3 * P + 30);
	sample(3000, UIP);
	signal_at(3010, 3 * P + 40);
	c = cfg(10000, 3 * P + 40);
	analyze(&c, &r);
	ok(!r.by_kind[PMS_SKID_SAMPLE_NO_SIGNAL] && r.matched == 3 &&
	   r.by_kind[PMS_SKID_LATE_SIGNAL] == 1 && !r.by_kind[PMS_SKID_AMBIGUOUS],
	   "skid above P: no sample_no_signal invented");
	pms_skid_result_free(&r);

	/* A signal with no sample before it: judged only when the ring lost nothing. */
	reset();
	clean(3, 0);
	rec[1].time_ns = 2500;	/* written after the signal came: impossible, so no match */
	c = cfg(0, 3 * P);
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_SIGNAL_NO_SAMPLE] >= 1 && r.judged[PMS_SKID_SIGNAL_NO_SAMPLE],
	   "signal without a sample: counted and judged");
	pms_skid_result_free(&r);
	reset();
	clean(3, 0);
	rec[1] = (struct pms_ring_rec){ .type = PERF_RECORD_LOST, .lost = 1 };
	counts.samples = 2;
	counts.lost_records = 1;
	counts.lost_samples = 1;
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_SIGNAL_NO_SAMPLE] == 1 && !r.judged[PMS_SKID_SIGNAL_NO_SAMPLE],
	   "ring LOST: the signal without its sample is reported, not judged");
	ok(r.matched == 2 && !r.by_kind[PMS_SKID_SAMPLE_NO_SIGNAL],
	   "ring LOST: the samples after it keep their overflow numbers");
	ok(!pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "lost 1 samples"),
	   "ring LOST: attributed in the reason (%s)", why);
	pms_skid_result_free(&r);

	/* Throttling is attributed, not a loss. */
	reset();
	clean(3, 0);
	counts.throttle = 1;
	counts.unthrottle = 1;
	c = cfg(0, 3 * P);
	analyze(&c, &r);
	ok(!pms_skid_failed(&c, &r, why, sizeof(why)) && strstr(why, "throttled 1 times") &&
	   strstr(why, "not counted as a loss"), "throttle: named, not a loss (%s)", why);
	pms_skid_result_free(&r);

	/* Another thread's sample, and a signal that does not advance. */
	reset();
	clean(3, 0);
	rec[0].tid = TID + 1;
	signal_at(5000, 3 * P + 1);
	analyze(&c, &r);
	ok(r.by_kind[PMS_SKID_FOREIGN_TID] == 1 && r.by_kind[PMS_SKID_NO_ADVANCE] == 1 &&
	   !r.judged[PMS_SKID_FOREIGN_TID] && !r.judged[PMS_SKID_NO_ADVANCE],
	   "foreign tid and no-advance signal: reported, not judged");

	/* JSON: every kind and the skid histogram. */
	j = pms_skid_to_json(&c, &r);
	ok(json_object_object_get_ex(j, "findings", &v) &&
	   json_object_object_length(v) == PMS_SKID_NR, "JSON: every finding kind present");
	for (k = 0; k < PMS_SKID_NR; k++)
		ok(json_object_object_get_ex(v, pms_skid_kind_name((enum pms_skid_kind)k), NULL),
		   "JSON: findings.%s", pms_skid_kind_name((enum pms_skid_kind)k));
	ok(json_object_object_get_ex(j, "skid", &v) &&
	   json_object_object_get_ex(v, "histogram", &v) && json_object_array_length(v) == 1,
	   "JSON: skid histogram has its one non-empty bin");
	json_object_put(j);
	pms_skid_result_free(&r);

	c.period = 0;
	ok(pms_skid_analyze(&c, sig, nsig, rec, nrec, &counts, &r) == -EINVAL,
	   "period 0 is -EINVAL");
}

static void test_allowance(void)
{
	char why[512];

	is_u64(pms_skid_default_allowance("GenuineIntel", "Intel(R) Xeon(R)", NULL, why,
					  sizeof(why)), 125, "Intel: 125");
	ok(strstr(why, "Intel") && strstr(why, "100-125"), "Intel: says why (%s)", why);
	is_u64(pms_skid_default_allowance("AuthenticAMD", "AMD EPYC 7B13", NULL, why, sizeof(why)),
	       10000, "AMD (Zen): 10000");
	is_u64(pms_skid_default_allowance("ARM", "Neoverse-N1", "0x00000000413fd0c1", why,
					  sizeof(why)), 1000, "Neoverse N1 by MIDR: 1000");
	ok(strstr(why, "Neoverse-N1") && strstr(why, "MIDR"), "N1: names part and MIDR (%s)", why);
	is_u64(pms_skid_default_allowance("ARM", NULL, "0x00000000410fd401", why, sizeof(why)),
	       1000, "Neoverse V1 by MIDR: 1000");
	is_u64(pms_skid_default_allowance("ARM", NULL, "0x00000000410fd490", why, sizeof(why)),
	       1000, "Neoverse N2 by MIDR: 1000");
	is_u64(pms_skid_default_allowance("ARM", NULL, "0x00000000414fd0b1", why, sizeof(why)),
	       10000, "Cortex-A76 by MIDR: 10000");
	is_u64(pms_skid_default_allowance("ARM", NULL, "0x00000000411fd440", why, sizeof(why)),
	       10000, "Cortex-X1 by MIDR: 10000");
	is_u64(pms_skid_default_allowance("ARM", "Neoverse-V1", NULL, why, sizeof(why)), 1000,
	       "Neoverse V1 by model name when there is no MIDR: 1000");
	is_u64(pms_skid_default_allowance("ARM", "Cortex-A72", "0x00000000410fd083", why,
					  sizeof(why)), 10000, "QEMU Cortex-A72: 10000");
	ok(strstr(why, "no skid figure") && strstr(why, "Cortex-A72"),
	   "Cortex-A72: says no figure is known and why 10000 (%s)", why);
	is_u64(pms_skid_default_allowance(NULL, NULL, NULL, why, sizeof(why)), 10000,
	       "unknown CPU: 10000");
	ok(strstr(why, "unknown") != NULL, "unknown CPU: says so (%s)", why);
}

int main(void)
{
	test_ring();
	test_ring_aux();
	test_rules();
	test_allowance();
	return tap_done();
}
