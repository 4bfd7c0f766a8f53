// SPDX-License-Identifier: GPL-2.0-only
/*
 * pidns SPE unit tests: the packet decoder, the record splitter and the
 * summary on hand-made AUX streams (scenarios/pidns/fixtures, hex text),
 * every cut of a whole record, reserved headers, random bytes, and every
 * class of the context judgement.  No PMU, no root.
 *
 * Usage: test-spe [FIXTURES_DIR]; else $PMS_SPE_FIXTURES; else
 * scenarios/pidns/fixtures (the suite runs from the repository's top).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "spe.h"

static const char *fixdir;

struct stream {
	uint8_t *buf;	/* exactly len bytes, so ASan sees any read past them */
	size_t len;
};

/*
 * A fixture: '#' starts a comment to the end of the line, the rest is hex
 * byte pairs with any white space.  Return: 0, or -1 (file missing or not
 * hex), reported as a failed test by the caller.
 */
static int load(const char *name, struct stream *st)
{
	char path[512];
	uint8_t tmp[4096];
	size_t n = 0;
	int c, hi = -1;
	FILE *f;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF) {
		int d;

		if (c == '#') {
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (isspace(c))
			continue;
		if (!isxdigit(c) || n == sizeof(tmp)) {
			fclose(f);
			return -1;
		}
		d = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
		if (hi < 0) {
			hi = d;
		} else {
			tmp[n++] = (uint8_t)(hi << 4 | d);
			hi = -1;
		}
	}
	fclose(f);
	if (hi >= 0)
		return -1;
	st->buf = malloc(n ? n : 1);
	if (!st->buf)
		return -1;
	memcpy(st->buf, tmp, n);
	st->len = n;
	return 0;
}

/* Load @name or fail a test saying so; the stream is empty then. */
static struct stream fixture(const char *name)
{
	struct stream st;

	if (load(name, &st))
		ok(0, "fixture %s/%s loads", fixdir, name);
	return st;
}

/* The only packet of a fixture that holds one packet then End. */
static int first_packet(const char *name, struct pidns_spe_pkt *p, uint8_t *len)
{
	struct stream st = fixture(name);
	size_t off = 0;
	int r = pidns_spe_next(st.buf, st.len, &off, p);

	*len = (uint8_t)off;
	free(st.buf);
	return r;
}

static void test_packet_kinds(void)
{
	struct pidns_spe_pkt p;
	struct stream st;
	size_t off;
	uint8_t n;
	int r;

	st = fixture("pad-end.hex");
	off = 0;
	r = pidns_spe_next(st.buf, st.len, &off, &p);
	ok(r == 1 && p.kind == PIDNS_SPE_PAD && p.len == 1 && off == 1,
	   "0x00 is a one-byte padding packet");
	off = 5;
	r = pidns_spe_next(st.buf, st.len, &off, &p);
	ok(r == 1 && p.kind == PIDNS_SPE_END && p.len == 1 && off == 6, "0x01 is End");
	off = st.len;
	ok(pidns_spe_next(st.buf, st.len, &off, &p) == 0, "at the end of the buffer: 0");
	off = st.len + 1;
	ok(pidns_spe_next(st.buf, st.len, &off, &p) == -EINVAL, "past the end: -EINVAL");
	free(st.buf);

	r = first_packet("timestamp.hex", &p, &n);
	ok(r == 1 && p.kind == PIDNS_SPE_TIMESTAMP && n == 9 &&
	   p.payload == 0x0123456789abcdefull, "timestamp: 0x71 and 8 bytes little-endian");

	r = first_packet("context-el1.hex", &p, &n);
	ok(r == 1 && p.kind == PIDNS_SPE_CONTEXT && p.index == PIDNS_SPE_CTX_EL1 && n == 5 &&
	   p.payload == 4242, "context 0x64: CONTEXTIDR_EL1, 4 bytes");
	r = first_packet("context-el2.hex", &p, &n);
	ok(r == 1 && p.kind == PIDNS_SPE_CONTEXT && p.index == PIDNS_SPE_CTX_EL2 && n == 5 &&
	   p.payload == 420, "context 0x65: CONTEXTIDR_EL2, 4 bytes");

	r = first_packet("address-pc.hex", &p, &n);
	ok(r == 1 && p.kind == PIDNS_SPE_ADDRESS && p.index == 0 && !p.ext && n == 9 &&
	   p.payload == 0x8000aaaabbbbccccull, "address 0xb0: index 0 (PC), 8 bytes");
	r = first_packet("address-ext.hex", &p, &n);
	ok(r == 1 && p.kind == PIDNS_SPE_ADDRESS && p.ext && p.index == 10 && n == 10 &&
	   p.payload == 0x1122334455667788ull,
	   "extended 0x21 0xb2: address index (1 << 3) | 2, 10 bytes");

	r = first_packet("counter-ext.hex", &p, &n);
	ok(r == 1 && p.kind == PIDNS_SPE_COUNTER && p.ext && p.index == 29 && n == 4 &&
	   p.payload == 0xbeef, "extended 0x23 0x9d: counter index (3 << 3) | 5, 4 bytes");

	st = fixture("counter.hex");
	off = 0;
	{
		static const uint64_t want[] = { 0x123, 0x10, 2 };
		int i, good = 1;

		for (i = 0; i < 3; i++) {
			r = pidns_spe_next(st.buf, st.len, &off, &p);
			good &= r == 1 && p.kind == PIDNS_SPE_COUNTER && p.index == i &&
				p.len == 3 && p.payload == want[i];
		}
		ok(good && off == 9, "counters 0x98 0x99 0x9a: indexes 0 1 2, 2 bytes each");
	}
	free(st.buf);

	st = fixture("events.hex");
	off = 0;
	{
		static const uint64_t want[] = { 0x02, 0x106, 0x2000a, 0x0807060504030201ull };
		int i, good = 1;

		for (i = 0; i < 4; i++) {
			r = pidns_spe_next(st.buf, st.len, &off, &p);
			good &= r == 1 && p.kind == PIDNS_SPE_EVENTS &&
				p.len == 1 + (1 << i) && p.payload == want[i];
		}
		ok(good, "events 0x42 0x52 0x62 0x72: payloads of 1, 2, 4 and 8 bytes");
	}
	free(st.buf);

	st = fixture("data-source.hex");
	off = 0;
	{
		static const uint64_t want[] = { 0x05, 0x1234, 0x12345678, 0x0102030405060708ull };
		int i, good = 1;

		for (i = 0; i < 4; i++) {
			r = pidns_spe_next(st.buf, st.len, &off, &p);
			good &= r == 1 && p.kind == PIDNS_SPE_DATA_SOURCE &&
				p.len == 1 + (1 << i) && p.payload == want[i];
		}
		ok(good, "data source 0x43 0x53 0x63 0x73: payloads of 1, 2, 4 and 8 bytes");
	}
	free(st.buf);

	st = fixture("op-type.hex");
	off = 0;
	{
		static const uint64_t want[] = { 0, 1, 1 };
		int i, good = 1;

		for (i = 0; i < 3; i++) {
			r = pidns_spe_next(st.buf, st.len, &off, &p);
			good &= r == 1 && p.kind == PIDNS_SPE_OP_TYPE && p.index == i &&
				p.len == 2 && p.payload == want[i];
		}
		r = pidns_spe_next(st.buf, st.len, &off, &p);
		ok(good && r == 1 && p.kind == PIDNS_SPE_END,
		   "op type 0x48 0x49 0x4a: classes 0 1 2, 1 byte, then End");
	}
	free(st.buf);
}

/* Every header byte: each decodes to what the rule table in spe.h says. */
static void test_header_table(void)
{
	unsigned int h, bad = 0, reserved = 0;

	for (h = 0; h < 256; h++) {
		uint8_t b[2 + 8] = { (uint8_t)h, 0xb0 };
		struct pidns_spe_pkt p;
		size_t off = 0;
		int r = pidns_spe_next(b, sizeof(b), &off, &p);
		int want_kind = -1;
		unsigned int want_len = 0;

		if (h == 0x00)
			want_kind = PIDNS_SPE_PAD, want_len = 1;
		else if (h == 0x01)
			want_kind = PIDNS_SPE_END, want_len = 1;
		else if (h == 0x71)
			want_kind = PIDNS_SPE_TIMESTAMP, want_len = 9;
		else if ((h & 0xcf) == 0x42)
			want_kind = PIDNS_SPE_EVENTS, want_len = 1 + (1u << (h >> 4 & 3));
		else if ((h & 0xcf) == 0x43)
			want_kind = PIDNS_SPE_DATA_SOURCE, want_len = 1 + (1u << (h >> 4 & 3));
		else if (h == 0x64 || h == 0x65)
			want_kind = PIDNS_SPE_CONTEXT, want_len = 5;
		else if ((h & 0xfc) == 0x48)
			want_kind = PIDNS_SPE_OP_TYPE, want_len = 2;
		else if ((h & 0xf8) == 0xb0)
			want_kind = PIDNS_SPE_ADDRESS, want_len = 9;
		else if ((h & 0xf8) == 0x98)
			want_kind = PIDNS_SPE_COUNTER, want_len = 3;
		else if ((h & 0xfc) == 0x20)	/* followed by 0xb0 here */
			want_kind = PIDNS_SPE_ADDRESS, want_len = 10;

		if (want_kind < 0) {
			reserved++;
			bad += r != -EBADMSG || off != 0;
		} else {
			bad += r != 1 || (int)p.kind != want_kind || p.len != want_len ||
			       off != want_len;
		}
	}
	is_u64(bad, 0, "all 256 header bytes decode by the rule table");
	/* pad, end, timestamp, 4 + 4 sizes, 2 contexts, 4 op classes, 8 + 8 indexes, 4 ext */
	is_u64(reserved, 256 - 37, "and the other 219 are reserved (-EBADMSG at their offset)");
}

static void test_records(void)
{
	struct pidns_spe_record rec;
	struct stream st;
	size_t off = 0;
	int r;

	st = fixture("record-full.hex");
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == 1 && off == 48 && rec.offset == 0 && rec.len == 48 && rec.pad_before == 0,
	   "a whole load record: 48 bytes, one record");
	ok(rec.ended == PIDNS_SPE_BY_TIMESTAMP && rec.has_ts && rec.ts == 10000000000ull,
	   "ended by its Timestamp, 10000000000");
	ok(rec.has_el1 && rec.ctx_el1 == 1000 && !rec.has_el2, "its context: EL1, pid 1000");
	ok(rec.has_pc && rec.pc == 0xaa0000401234ull && rec.pc_el == 0 && rec.pc_ns,
	   "its PC 0xaa0000401234, EL0, non-secure");
	is_u64(rec.packets, 10, "10 packets");
	ok(rec.kinds[PIDNS_SPE_ADDRESS] == 2 && rec.kinds[PIDNS_SPE_COUNTER] == 3 &&
	   rec.kinds[PIDNS_SPE_EVENTS] == 1 && rec.kinds[PIDNS_SPE_OP_TYPE] == 1 &&
	   rec.kinds[PIDNS_SPE_DATA_SOURCE] == 1 && rec.kinds[PIDNS_SPE_CONTEXT] == 1 &&
	   rec.kinds[PIDNS_SPE_TIMESTAMP] == 1, "counted by kind");
	ok(pidns_spe_record_next(st.buf, st.len, &off, &rec) == 0 && off == 48,
	   "then the end: 0");
	free(st.buf);

	st = fixture("address-pc-el1.hex");
	off = 0;
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == 1 && rec.has_pc && rec.pc == 0xff800008001234ull && rec.pc_el == 1 &&
	   rec.pc_ns && rec.ts == 7, "a kernel PC: bits [55:0], EL1 from [62:61], NS from 63");
	free(st.buf);

	st = fixture("pad-end.hex");
	off = 0;
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == 1 && rec.pad_before == 5 && rec.offset == 5 && rec.len == 1 &&
	   rec.ended == PIDNS_SPE_BY_END && rec.packets == 1 && !rec.has_ts,
	   "a padding run is skipped, a lone End is a record");
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == 0 && rec.pad_before == 3 && off == st.len, "trailing padding: 0, counted");
	free(st.buf);

	st = fixture("records-mixed.hex");
	off = 0;
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == 1 && rec.ended == PIDNS_SPE_BY_END && rec.ctx_el1 == 1000 && rec.len == 15,
	   "mixed: the first record ends by End");
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == 1 && rec.pad_before == 7 && rec.offset == 22 &&
	   rec.ended == PIDNS_SPE_BY_TIMESTAMP && rec.ts == 5 && rec.ctx_el1 == 1001,
	   "the second, after 7 padding bytes, by a Timestamp");
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == 1 && rec.ended == PIDNS_SPE_BY_END && rec.pad_inside == 2 && rec.packets == 2 &&
	   !rec.has_el1 && !rec.has_pc, "the third has padding inside it, no context, no PC");
	free(st.buf);
}

/* Decoding errors: the kind and the offset. */
static void test_malformed(void)
{
	struct pidns_spe_summary s;
	struct pidns_spe_record rec;
	struct stream st;
	size_t off;
	int r;

	st = fixture("reserved-header.hex");
	r = pidns_spe_summarize(st.buf, st.len, &s);
	ok(r == -EBADMSG && s.error == -EBADMSG && s.error_off == 6 && s.error_rec_off == 6 &&
	   s.records == 1, "reserved header 0x02: -EBADMSG at 6, the record before it kept");
	free(st.buf);

	st = fixture("reserved-context-index.hex");
	off = 0;
	r = pidns_spe_record_next(st.buf, st.len, &off, &rec);
	ok(r == -EBADMSG && off == 0, "context index 2: -EBADMSG at 0");
	free(st.buf);

	st = fixture("extended-alignment.hex");
	r = pidns_spe_summarize(st.buf, st.len, &s);
	ok(r == -EBADMSG && s.error_off == 3 && s.records == 1 && s.padding_bytes == 2,
	   "extended header then 0x00: -EBADMSG at 3");
	free(st.buf);

	st = fixture("truncated-timestamp.hex");
	r = pidns_spe_summarize(st.buf, st.len, &s);
	ok(r == -ENODATA && s.error_off == 5 && s.error_rec_off == 0 && s.records == 0,
	   "a Timestamp cut after 3 bytes: -ENODATA at 5, in the record at 0");
	free(st.buf);

	st = fixture("unterminated.hex");
	r = pidns_spe_summarize(st.buf, st.len, &s);
	ok(r == -ENODATA && s.error_off == 20 && s.error_rec_off == 6 && s.records == 1,
	   "a record the stream ends in: -ENODATA at the end, the record from 6");
	r = pidns_spe_summarize(st.buf, s.error_rec_off, &s);
	ok(r == 0 && s.records == 1, "summarized again up to that record: clean");
	free(st.buf);

	{
		uint8_t ext = 0x21;

		off = 0;
		ok(pidns_spe_record_next(&ext, 1, &off, &rec) == -ENODATA && off == 0,
		   "an extended header alone: -ENODATA at 0");
	}
}

/* Every cut of a whole record is -ENODATA, never a misread or a crash. */
static void test_every_cut(void)
{
	struct stream st = fixture("record-full.hex");
	struct pidns_spe_summary s;
	unsigned int bad = 0;
	size_t cut;

	for (cut = 1; cut < st.len; cut++) {
		uint8_t *b = malloc(cut);	/* exact size: ASan catches any over-read */
		int r;

		if (!b)
			abort();
		memcpy(b, st.buf, cut);
		r = pidns_spe_summarize(b, cut, &s);
		if (r != -ENODATA || s.records || s.error_rec_off != 0 || s.error_off > cut) {
			printf("#   cut at %zu: %d, off %zu\n", cut, r, s.error_off);
			bad++;
		}
		free(b);
	}
	is_u64(bad, 0, "all 47 cuts of the 48-byte record: -ENODATA, no record");
	ok(pidns_spe_summarize(st.buf, st.len, &s) == 0 && s.records == 1, "uncut: one record");
	free(st.buf);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/*
 * Random bytes: no crash, errors only -EBADMSG or -ENODATA with an offset
 * inside the buffer (or at its end), the failing packet failing again
 * when decoded alone there, and the packets' lengths adding up.
 */
static void test_random(void)
{
	unsigned int i, bad = 0, errs = 0, clean = 0;

	for (i = 0; i < 20000; i++) {
		size_t len = next_rand() % 300, j, off = 0, sum = 0;
		struct pidns_spe_summary s;
		struct pidns_spe_pkt p;
		uint8_t *b = malloc(len ? len : 1);
		int r;

		if (!b)
			abort();
		/* Bias towards the valid headers some of the time. */
		for (j = 0; j < len; j++) {
			static const uint8_t common[] = { 0x00, 0x01, 0x71, 0x64, 0x65, 0xb0, 0x98,
							  0x42, 0x49, 0x21, 0x20 };

			b[j] = (i & 1) ? common[next_rand() % sizeof(common)] : (uint8_t)next_rand();
		}
		r = pidns_spe_summarize(b, len, &s);
		if (r) {
			struct pidns_spe_pkt q;
			size_t eo = s.error_off;

			errs++;
			if ((r != -EBADMSG && r != -ENODATA) || eo > len || s.error_rec_off > eo)
				bad++;
			else if (eo < len && pidns_spe_next(b, len, &eo, &q) != r)
				bad++;
		} else {
			clean++;
		}
		while ((r = pidns_spe_next(b, len, &off, &p)) == 1)
			sum += p.len;
		if (sum != off || off > len || (r == 0 && off != len))
			bad++;
		free(b);
	}
	is_u64(bad, 0, "20000 random streams: bounded, errors with their offsets");
	ok(errs > 1000 && clean > 100, "and both clean and broken ones were met (%u, %u)",
	   clean, errs);
}

static void test_summary(void)
{
	struct pidns_spe_summary s;
	struct stream st = fixture("records-mixed.hex");
	int r = pidns_spe_summarize(st.buf, st.len, &s);

	ok(r == 0 && s.error == 0, "mixed: decodes cleanly");
	is_u64(s.records, 3, "3 records");
	is_u64(s.records_ctx, 2, "2 with a context packet");
	is_u64(s.records_ts, 1, "1 ended by a Timestamp");
	is_u64(s.records_pc, 2, "2 with a PC");
	is_u64(s.padding_bytes, 25, "25 padding bytes (between, inside, trailing)");
	is_u64(s.packets, 8, "8 packets, padding not counted");
	ok(s.nctx == 2 && s.ctx[0].value == 1000 && s.ctx[1].value == 1001 &&
	   s.ctx[0].els == 1 && s.ctx[0].records == 1, "distinct context values 1000, 1001 (EL1)");
	free(st.buf);

	st = fixture("ctx-root-pids.hex");
	pidns_spe_summarize(st.buf, st.len, &s);
	ok(s.records == 6 && s.records_el1 == 6 && s.nctx == 2 && s.ctx[0].records == 3 &&
	   s.ctx[1].records == 3, "6 records, 2 distinct values, 3 records each");
	free(st.buf);

	st = fixture("ctx-idle.hex");
	pidns_spe_summarize(st.buf, st.len, &s);
	ok(s.records_el2 == 3 && s.records_el1 == 0 && s.nctx == 1 && s.ctx[0].els == 2,
	   "EL2 context packets are counted as EL2");
	free(st.buf);

	st = fixture("pad-end.hex");
	pidns_spe_summarize(st.buf, st.len, &s);
	ok(s.records == 1 && s.padding_bytes == 8 && s.records_ctx == 0,
	   "pad-end: 1 record, 8 padding bytes");
	free(st.buf);

	/* More distinct values than kept: counted, never silently lost. */
	{
		size_t n = PIDNS_SPE_MAX_CTX + 2, i;
		uint8_t *b = malloc(n * 6);

		if (!b)
			abort();
		for (i = 0; i < n; i++) {
			uint32_t v = 5000 + (uint32_t)i;

			b[i * 6] = 0x64;
			memcpy(b + i * 6 + 1, &(uint8_t[4]){ v, v >> 8, v >> 16, v >> 24 }, 4);
			b[i * 6 + 5] = 0x01;
		}
		pidns_spe_summarize(b, n * 6, &s);
		ok(s.records == n && s.nctx == PIDNS_SPE_MAX_CTX && s.ctx_overflow == 2,
		   "%zu distinct values: %d kept, 2 counted as overflow", n, PIDNS_SPE_MAX_CTX);
		free(b);
	}
	ok(pidns_spe_summarize(NULL, 0, &s) == 0 && s.records == 0, "an empty stream: 0 records");
}

static const uint32_t root_pids[] = { 4001, 4002 };
static const uint32_t ns_pids[] = { 1, 2 };

static struct pidns_spe_expect expect(bool root_opener, int config, bool cap)
{
	return (struct pidns_spe_expect){
		.root_pids = root_pids, .nr_root = 2, .ns_pids = ns_pids, .nr_ns = 2,
		.opener_in_root_ns = root_opener, .pid_in_contextidr = config,
		.perfmon_capable = cap,
	};
}

static struct pidns_spe_verdict judge(const char *name, struct pidns_spe_expect e)
{
	struct stream st = fixture(name);
	struct pidns_spe_summary s;
	struct pidns_spe_verdict v;

	pidns_spe_summarize(st.buf, st.len, &s);
	pidns_spe_judge(&s, &e, &v);
	free(st.buf);
	return v;
}

#define has(str, word) ((str) && strstr((str), (word)))

static void test_judgement(void)
{
	struct pidns_spe_verdict v;

	v = judge("ctx-root-pids.hex", expect(true, 1, true));
	is_str(pidns_spe_class_name(v.cls), "context-root-pids", "root opener, root pids");
	ok(!v.unexpected && !v.anomaly && v.rec_root == 6 && has(v.why, "documented"),
	   "documented, expected: %s", v.why);

	v = judge("ctx-root-pids.hex", expect(false, 1, true));
	is_str(pidns_spe_class_name(v.cls), "context-root-pids-in-child-ns",
	       "child-namespace opener, root pids");
	ok(!v.unexpected && has(v.why, "cannot interpret"),
	   "mainline's known behaviour, not unexpected: %s", v.why);

	v = judge("ctx-ns-pids.hex", expect(false, 1, true));
	is_str(pidns_spe_class_name(v.cls), "context-ns-pids", "namespace-local pids");
	ok(v.unexpected && v.rec_ns == 4, "unexpected on mainline");

	v = judge("ctx-mixed.hex", expect(false, 1, true));
	is_str(pidns_spe_class_name(v.cls), "context-mixed", "root and local pids mixed");
	ok(v.unexpected && v.rec_root == 2 && v.rec_ns == 2, "unexpected, 2 and 2");

	v = judge("ctx-foreign.hex", expect(true, 1, true));
	is_str(pidns_spe_class_name(v.cls), "context-foreign", "a value of neither view");
	ok(v.unexpected && v.first_foreign == 777 && v.rec_foreign == 1 && v.rec_idle == 1 &&
	   v.rec_root == 3 && has(v.why, "0/idle excluded"), "777 is foreign, 0 is idle");

	v = judge("ctx-idle.hex", expect(true, 1, true));
	is_str(pidns_spe_class_name(v.cls), "context-idle-only", "only 0, the idle task");
	ok(v.unexpected && v.rec_idle == 3, "unexpected for a per-task session");

	v = judge("address-pc.hex", expect(true, 0, true));
	is_str(pidns_spe_class_name(v.cls), "context-absent", "no context packet");
	ok(!v.unexpected && has(v.why, "lacks CONFIG_PID_IN_CONTEXTIDR"),
	   "without CONFIG_PID_IN_CONTEXTIDR: expected");
	v = judge("address-pc.hex", expect(true, 1, false));
	ok(v.cls == PIDNS_SPE_CONTEXT_ABSENT && !v.unexpected && has(v.why, "perfmon-capable"),
	   "absent for an opener that is not perfmon-capable: expected");
	v = judge("address-pc.hex", expect(true, -1, true));
	ok(v.cls == PIDNS_SPE_CONTEXT_ABSENT && !v.unexpected && has(v.why, "unknown"),
	   "absent, configuration unknown: not judged unexpected");
	v = judge("address-pc.hex", expect(false, 1, true));
	ok(v.cls == PIDNS_SPE_CONTEXT_ABSENT && v.unexpected && has(v.why, "2021") &&
	   has(v.anomaly, "whatever its pid namespace"),
	   "absent for a capable child-namespace opener: the proposals' behaviour, not mainline's");
	v = judge("address-pc.hex", expect(true, 1, true));
	ok(v.cls == PIDNS_SPE_CONTEXT_ABSENT && v.unexpected && v.anomaly,
	   "absent for a capable root opener with the option: unexpected");

	v = judge("pad-end.hex", expect(true, 1, true));
	ok(v.cls == PIDNS_SPE_CONTEXT_ABSENT, "an End-only record counts as a record");
	{
		struct pidns_spe_summary s;
		struct pidns_spe_expect e = expect(true, 1, true);
		uint8_t pad[64] = { 0 };

		pidns_spe_summarize(pad, sizeof(pad), &s);
		pidns_spe_judge(&s, &e, &v);
		is_str(pidns_spe_class_name(v.cls), "no-records", "all padding: no records");
		ok(has(v.why, "nothing to judge"), "cannot judge");
	}

	v = judge("reserved-header.hex", expect(true, 1, true));
	is_str(pidns_spe_class_name(v.cls), "malformed", "a reserved header: malformed");
	ok(has(v.why, "reserved"), "says reserved header");
	v = judge("truncated-timestamp.hex", expect(true, 1, true));
	ok(v.cls == PIDNS_SPE_MALFORMED && has(v.why, "cut"), "a cut packet: malformed, says cut");

	v = judge("ctx-root-pids.hex", expect(true, 0, true));
	ok(v.cls == PIDNS_SPE_CONTEXT_ROOT_PIDS && v.unexpected &&
	   has(v.anomaly, "no CONFIG_PID_IN_CONTEXTIDR"),
	   "context packets with the option reported off: an anomaly");
	v = judge("ctx-root-pids.hex", expect(true, 1, false));
	ok(v.unexpected && has(v.anomaly, "92f2b8bafa3d"),
	   "context packets for a non-capable opener: an anomaly naming the v6.0 fix");

	{
		/* A workload thread whose root pid equals another's local pid. */
		static const uint32_t r2[] = { 2, 4001 };
		struct pidns_spe_expect e = expect(false, 1, true);

		e.root_pids = r2;
		v = judge("ctx-ns-pids.hex", e);
		ok(v.cls == PIDNS_SPE_CONTEXT_NS_PIDS && v.rec_both == 2 && v.rec_ns == 2,
		   "a value in both views counts as both, the rest decide");
	}
	ok(!strcmp(pidns_spe_class_name(PIDNS_SPE_CLASS_NR), "?") &&
	   !strcmp(pidns_spe_kind_name(PIDNS_SPE_CONTEXT), "context"), "names");
}

int main(int argc, char **argv)
{
	fixdir = argc > 1 ? argv[1] : getenv("PMS_SPE_FIXTURES");
	if (!fixdir)
		fixdir = "scenarios/pidns/fixtures";

	test_packet_kinds();
	test_header_table();
	test_records();
	test_malformed();
	test_every_cut();
	test_random();
	test_summary();
	test_judgement();
	return tap_done();
}
