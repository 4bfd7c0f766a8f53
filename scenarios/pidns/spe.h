/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PMS_PIDNS_SPE_H
#define PMS_PIDNS_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The pidns scenario's own Arm SPE (Statistical Profiling Extension) AUX
 * decoder, and the judgement of the context packets in it: which pid does
 * the hardware put in front of a sample taken of a workload that runs in a
 * pid namespace?  Pure functions on a byte stream: no allocation, nothing
 * printed, every read bounded by the stream's length.
 *
 * Packet rules (header byte(s), then a little-endian payload whose size is
 * 1 << the header's bits [5:4]), as the kernel's perf decoder
 * (tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.[ch]) applies them:
 *   0000 0000  padding, no payload
 *   0000 0001  end of record, no payload
 *   0111 0001  timestamp, 8 bytes; also ends a record
 *   01ss 0010  events, 1 << ss bytes
 *   01ss 0011  data source, 1 << ss bytes
 *   0110 01ii  context, 4 bytes: ii 0 CONTEXTIDR_EL1, 1 CONTEXTIDR_EL2
 *   0100 10cc  operation type, 1 byte, cc its class
 *   1011 0iii  address, 8 bytes, index iii (0 PC, 1 branch target,
 *              2 data VA, 3 data PA, 4 previous branch target)
 *   1001 1iii  counter, 2 bytes, index iii (0 total, 1 issue, 2 translation)
 *   0010 00hh  extended header: the next byte is an address or counter
 *              header and hh are bits [4:3] of its index
 * Anything else is reserved and reported as malformed, as are context
 * indexes 2 and 3 (only the two CONTEXTIDR registers exist).  perf also
 * accepts an extended header followed by 0x00 as an "alignment" pad whose
 * length depends on the buffer's address; we could not confirm that packet
 * in what the kernel documents of the architecture and the driver pads
 * with 0x00 bytes only (ARM_SPE_BUF_PAD_BYTE), so it is malformed here
 * rather than guessed at.
 *
 * The PC (address index 0) keeps the virtual address in bits [55:0], the
 * exception level in [62:61] and the non-secure bit in [63]; perf's
 * arm_spe_calc_ip() fills the top byte with 0xff for a non-secure EL1 or
 * EL2 PC.  A record is the packets up to and including an End or a
 * Timestamp packet.  The driver fills the AUX buffer's gaps (alignment,
 * the end of the buffer, a truncated session) with 0x00 padding.
 *
 * What puts a pid in a context packet (verified in torvalds/linux):
 *  - arch/arm64/include/asm/mmu_context.h, contextidr_thread_switch():
 *    with CONFIG_PID_IN_CONTEXTIDR=y every context switch writes
 *    task_pid_nr(next) to CONTEXTIDR_EL1: the global pid (the thread id as
 *    the ROOT pid namespace numbers it), whatever namespace the task is
 *    in; without the option nothing is written.  The idle task writes 0.
 *    A kernel running at EL2 (VHE) has its CONTEXTIDR_EL1 accesses
 *    redirected to CONTEXTIDR_EL2, and its PMSCR_EL1 writes to PMSCR_EL2,
 *    so on such hosts the pid comes in the EL2 context packet (header
 *    0x65), as the 2021 list traces of perf report -D show: both indexes
 *    are judged alike here.
 *  - drivers/perf/arm_spe_pmu.c: PMSCR_EL1.CX (context packets on) is set
 *    in arm_spe_event_to_pmscr() only when CONFIG_PID_IN_CONTEXTIDR is on
 *    and the opener may see it:
 *      v4.15 (d5d9696b0380, the driver): capable(CAP_SYS_ADMIN);
 *      v5.8 (cea7d0d4a59b, CAP_PERFMON): perfmon_capable(), but evaluated
 *        again at every pmu start, in whatever task was current then;
 *      v6.0 (92f2b8bafa3d, applied 2022-07-19, marked for stable): decided
 *        once at event_init in the opener's context
 *        (set_spe_event_has_cx(), cached in event->hw.flags); a
 *        non-capable opener silently gets no context packets (no -EACCES).
 *    The newest mainline copy read (with inv_event_filter, config3) still
 *    tests perfmon_capable() and nothing about pid namespaces; a 2024
 *    patch to use perf_allow_kernel() instead was posted, not seen merged.
 *  - The proposals of 2021 (Leo Yan's "perf arm-spe" threads with Namhyung
 *    Kim, Sept 2021, and the RFC "perf: arm_spe: Dynamically switch PID
 *    tracing to contextidr", Oct 2021, following James Clark's Jan 2021
 *    perf tool series that reads pids from context packets) asked to set
 *    CX only for an opener in the root pid namespace
 *    (task_active_pid_ns(current) == &init_pid_ns), because a child
 *    namespace cannot interpret global pids.  Not in mainline.
 */

enum pidns_spe_kind {
	PIDNS_SPE_PAD,
	PIDNS_SPE_END,
	PIDNS_SPE_TIMESTAMP,
	PIDNS_SPE_ADDRESS,
	PIDNS_SPE_COUNTER,
	PIDNS_SPE_CONTEXT,
	PIDNS_SPE_OP_TYPE,
	PIDNS_SPE_EVENTS,
	PIDNS_SPE_DATA_SOURCE,
	PIDNS_SPE_KIND_NR
};

/* Address packet indexes, and the context packet's registers. */
#define PIDNS_SPE_ADDR_PC	0
#define PIDNS_SPE_CTX_EL1	0
#define PIDNS_SPE_CTX_EL2	1

struct pidns_spe_pkt {
	enum pidns_spe_kind kind;
	uint8_t index;		/* address, counter (0..31), context, op type class */
	uint8_t len;		/* bytes of the packet, header(s) included */
	bool ext;		/* it had an extended header */
	uint64_t payload;	/* 0 for padding and end */
};

/**
 * pidns_spe_next - decode the packet at *@off of @buf.
 * @buf, @len: the AUX bytes
 * @off: where to decode; advanced past the packet on success, left at the
 *	packet's first byte on error (the error's offset)
 * @pkt: the packet
 *
 * Return: 1 for a packet, 0 at the end of the buffer (*@off == @len),
 * -EBADMSG for a reserved header, -ENODATA for a packet cut by the end of
 * the buffer, -EINVAL for *@off past @len.
 */
int pidns_spe_next(const uint8_t *buf, size_t len, size_t *off, struct pidns_spe_pkt *pkt);

enum pidns_spe_ended { PIDNS_SPE_BY_END, PIDNS_SPE_BY_TIMESTAMP };

struct pidns_spe_record {
	size_t pad_before;	/* padding bytes skipped before the record */
	size_t offset;		/* of its first packet */
	size_t len;		/* its bytes, padding inside it included */
	enum pidns_spe_ended ended;
	bool has_ts;
	uint64_t ts;
	bool has_el1, has_el2;	/* context packets (the last of each counts) */
	uint32_t ctx_el1, ctx_el2;
	bool has_pc;
	uint64_t pc;		/* bits [55:0] of the address packet, index 0 */
	uint8_t pc_el;		/* its exception level, bits [62:61] */
	bool pc_ns;		/* its non-secure bit, bit 63 */
	uint32_t pad_inside;	/* padding bytes between its packets */
	uint32_t packets;	/* its packets, padding not counted */
	uint32_t kinds[PIDNS_SPE_KIND_NR];	/* its packets by kind */
};

/**
 * pidns_spe_record_next - the record at *@off: padding skipped, packets up
 * to and including an End or Timestamp packet.
 * @rec: the record; @rec->pad_before is set on every return
 *
 * Return: 1 for a record (*@off after it), 0 when only padding is left
 * (*@off == @len), -EBADMSG or -ENODATA as pidns_spe_next() with *@off at
 * the bad or cut packet, -ENODATA with *@off == @len for packets that the
 * buffer ends before any End or Timestamp; @rec->offset is then the
 * start of the unfinished record.
 */
int pidns_spe_record_next(const uint8_t *buf, size_t len, size_t *off,
			  struct pidns_spe_record *rec);

/* Distinct context values kept by a summary; more are counted, not kept. */
#define PIDNS_SPE_MAX_CTX	128

struct pidns_spe_ctxval {
	uint32_t value;
	uint8_t els;		/* bit 0: seen as CONTEXTIDR_EL1, bit 1: as EL2 */
	uint64_t records;	/* records that carry it */
};

struct pidns_spe_summary {
	uint64_t records;
	uint64_t records_ctx;	/* with at least one context packet */
	uint64_t records_el1, records_el2;
	uint64_t records_ts;	/* ended by a timestamp (others by End) */
	uint64_t records_pc;
	uint64_t packets;	/* padding not counted */
	uint64_t padding_bytes;	/* between and inside records, and trailing */
	size_t nctx;
	struct pidns_spe_ctxval ctx[PIDNS_SPE_MAX_CTX];
	uint64_t ctx_overflow;	/* context values (per record and EL) not kept */
	int error;		/* 0, or the first -EBADMSG / -ENODATA */
	size_t error_off;	/* the bad or cut packet (or @len) */
	size_t error_rec_off;	/* the start of the record it is in */
};

/**
 * pidns_spe_summarize - decode a whole AUX stream into @s.
 *
 * Decoding stops at the first error; everything before the record it is in
 * stays counted.  A caller that knows the stream's tail was cut
 * (PERF_AUX_FLAG_PARTIAL) may summarize again up to @s->error_rec_off.
 *
 * Return: 0, or @s->error.
 */
int pidns_spe_summarize(const uint8_t *buf, size_t len, struct pidns_spe_summary *s);

/*
 * The judgement.  The context values are compared with the workload's
 * thread ids (task_pid_nr() is per thread) as the root pid namespace
 * numbers them and as the workload's own namespace does.  0 is the idle
 * task (and never a pid of either view).  The judgement assumes a session
 * that samples the workload's threads only (a per-task event): a per-CPU
 * session would rightly see other tasks' pids.
 */
enum pidns_spe_class {
	PIDNS_SPE_CONTEXT_ROOT_PIDS,	/* root-ns pids, root-ns opener */
	PIDNS_SPE_CONTEXT_ROOT_PIDS_IN_CHILD_NS, /* root-ns pids, child-ns opener */
	PIDNS_SPE_CONTEXT_NS_PIDS,	/* the workload's own-namespace pids */
	PIDNS_SPE_CONTEXT_MIXED,	/* some of each view */
	PIDNS_SPE_CONTEXT_FOREIGN,	/* values that are neither (0 excluded) */
	PIDNS_SPE_CONTEXT_IDLE_ONLY,	/* every context value is 0 */
	PIDNS_SPE_CONTEXT_ABSENT,	/* records, but no context packet */
	PIDNS_SPE_NO_RECORDS,
	PIDNS_SPE_MALFORMED,
	PIDNS_SPE_CLASS_NR
};

struct pidns_spe_expect {
	const uint32_t *root_pids;	/* the workload's tids in the root ns */
	size_t nr_root;
	const uint32_t *ns_pids;	/* the same threads in their own ns */
	size_t nr_ns;
	bool opener_in_root_ns;		/* the perf_event_open() caller's */
	int pid_in_contextidr;		/* CONFIG_PID_IN_CONTEXTIDR: 1, 0, -1 unknown */
	bool perfmon_capable;		/* the opener's (CAP_PERFMON or CAP_SYS_ADMIN) */
};

struct pidns_spe_verdict {
	enum pidns_spe_class cls;
	const char *why;	/* one line on the class; static */
	/*
	 * Whether mainline, given the expectation's kernel and opener, would
	 * not produce this (ROOT_PIDS_IN_CHILD_NS is mainline's documented
	 * behaviour, so it is not unexpected, only unfortunate); @anomaly says
	 * which input it contradicts when that is the reason, else NULL.
	 */
	bool unexpected;
	const char *anomaly;
	uint64_t rec_root;	/* records by what their context values are */
	uint64_t rec_ns;
	uint64_t rec_both;	/* a pid of the workload in both views */
	uint64_t rec_idle;
	uint64_t rec_foreign;
	uint32_t first_foreign;	/* the first foreign value kept, if any */
	bool incomplete;	/* values beyond PIDNS_SPE_MAX_CTX went unjudged */
};

/* Classify @s against @e.  Pure; @v is filled in. */
void pidns_spe_judge(const struct pidns_spe_summary *s, const struct pidns_spe_expect *e,
		     struct pidns_spe_verdict *v);

/* "context-root-pids", ...; "?" out of range. */
const char *pidns_spe_class_name(enum pidns_spe_class cls);
const char *pidns_spe_kind_name(enum pidns_spe_kind kind);

#endif
