/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PIDNS_SPE_SESSION_H
#define PIDNS_SPE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spe.h"

/*
 * Running an Arm SPE session on one thread: find the PMU in sysfs, open
 * it, map a data ring and an AUX area, let it sample, copy out what the
 * kernel reported and summarize it with spe.c's decoder.
 *
 * The ABI this follows (read in torvalds/linux, not run here: no machine
 * this was written on has SPE, nor has QEMU's emulated arm64 CPU):
 *  - drivers/perf/arm_spe_pmu.c, arm_spe_pmu_event_init(): a type that is
 *    not the PMU's, or a CPU outside its cpumask, is -ENOENT; exclude_idle
 *    -EOPNOTSUPP; attr.freq -EINVAL (a period is required); pa_enable or
 *    pct_enable without CAP_PERFMON -EACCES.  Formats ts_enable config:0,
 *    pa_enable config:1, pct_enable config:2, jitter config:16; caps/
 *    min_interval is the smallest period, and arm_spe_event_sanitise_period()
 *    raises a smaller one to it.  The PMU is PERF_PMU_CAP_EXCLUSIVE |
 *    PERF_PMU_CAP_ITRACE on the software task context: a per-task event
 *    must be opened disabled and enabled once its AUX area is mapped, and
 *    core.c's exclusive_event_init() refuses (-EBUSY) to mix per-task and
 *    per-CPU events of the PMU.  arm_spe_pmu_setup_aux() wants 2+ pages.
 *  - kernel/events/core.c, the AUX mmap: aux_offset and aux_size are set
 *    in the control page first; aux_offset page-aligned, at or past the
 *    data ring's end; aux_size a power-of-two number of pages, the
 *    mapping's size.  A writable mapping is the normal (not snapshot)
 *    mode, where the kernel never writes over bytes before aux_tail.
 *    perf_mmap refuses an inherited per-task event.
 *  - kernel/events/ring_buffer.c: perf_aux_output_end() posts one
 *    PERF_RECORD_AUX { aux_offset, aux_size, flags } per chunk, aux_offset
 *    the free-running AUX head (modulo the area's size for the place),
 *    then publishes aux_head; perf_aux_output_skip() (the driver's padding
 *    to its alignment and to the end of the area) advances aux_head with
 *    no record, so records can have gaps between them.  A TRUNCATED chunk
 *    disables the event (perf_event_disable_inatomic()), as does an AUX
 *    area with no room left at perf_aux_output_begin().
 *  - arm_spe_pmu_buf_get_fault_act(): lost data sets TRUNCATED | PARTIAL
 *    (the chunk's last record is corrupt), a collision COLLISION.
 */

/* What is mapped unless the caller says otherwise. */
#define PIDNS_SPE_AUX_DEFAULT	(256u << 10)	/* AUX area bytes */
#define PIDNS_SPE_DATA_PAGES	8u		/* data ring pages: only AUX/LOST records */
#define PIDNS_SPE_MIN_PERIOD	1024u		/* sample_period floor */

struct pidns_spe_cfg {		/* resolved from sysfs, before any open */
	char pmu[64];		/* "arm_spe_0" */
	uint32_t type;		/* <devices>/<pmu>/type */
	uint64_t config;	/* ts_enable=1, jitter=1 where the format exists; pa/pct off */
	uint64_t period;	/* sample_period: caps/min_interval, at least 1024 */
	/*
	 * AUX area to map, rounded down to a power-of-two number of pages and
	 * up to 2 pages; 0: PIDNS_SPE_AUX_DEFAULT.  It counts against
	 * perf_event_mlock_kb (per CPU) and then RLIMIT_MEMLOCK.
	 */
	uint64_t aux_bytes;
	char why[200];		/* what was chosen, or why it cannot be */
};

/**
 * pidns_spe_find - the first arm_spe* PMU under @devices, its type, and the
 * config bits built from its format/ files ("config:0" style; a term
 * missing from format/ is left out and said in why).
 * @devices: the event_source devices directory (tests pass a fake tree)
 *
 * "First" is the lowest name counting its digits as a number (arm_spe_2
 * before arm_spe_10); a heterogeneous machine has one PMU per cluster and
 * a per-task event samples only on its PMU's CPUs: why says how many.
 * The period is caps/min_interval, at least PIDNS_SPE_MIN_PERIOD;
 * PIDNS_SPE_MIN_PERIOD when the file is missing (the driver raises it).
 *
 * Return: 0, -ENOENT when there is none (why says so), -EINVAL for a
 * format, type or caps file it cannot read or that is not what the driver
 * writes (a term the session sets must be one bit of config).
 */
int pidns_spe_find(const char *devices, struct pidns_spe_cfg *cfg);

enum pidns_spe_stop {
	PIDNS_SPE_STOP_NONE,		/* never enabled */
	PIDNS_SPE_STOP_TIME,		/* @ns passed */
	PIDNS_SPE_STOP_FULL,		/* the caller's buffer had no room for a chunk */
	PIDNS_SPE_STOP_TRUNCATED,	/* the kernel truncated a chunk and disabled the event */
	PIDNS_SPE_STOP_HUP,		/* poll said POLLHUP/POLLERR: the target exited */
	PIDNS_SPE_STOP_RING,		/* a data ring record the kernel could not have written */
	PIDNS_SPE_STOP_NR
};

/*
 * Plain data, no pointers: the inside observer (another process, in
 * another pid namespace) sends it whole over a unix socket.
 */
struct pidns_spe_session {
	int err;		/* 0 or -errno of the step that failed */
	char step[32];		/* "args", "open", "mmap", "aux mmap", "enable", "ring", "disable" */
	char why[160];		/* the failure in a sentence, or how the session ended */
	uint32_t stop;		/* enum pidns_spe_stop */
	uint64_t ns;		/* enabled for, as this process's clock saw it */
	uint64_t aux_len;	/* bytes of AUX area mapped */
	uint64_t aux_bytes;	/* bytes copied out of the AUX area */
	uint64_t aux_records, truncated, partial, collision, lost;  /* from PERF_RECORD_AUX / LOST */
	uint64_t lost_records;	/* PERF_RECORD_LOST records; @lost sums what they count */
	uint64_t other_records;	/* ITRACE_START and the like: counted, not used */
	uint64_t aux_gap;	/* bytes between chunks: driver padding, or a lost record's chunk */
	uint64_t aux_dropped;	/* bytes reported but not copied: no room, or after a PARTIAL chunk */
	uint64_t aux_bad;	/* AUX records whose range cannot be in the area: skipped */
	uint64_t cut_bytes;	/* a PARTIAL chunk's corrupt tail, left out of @sum */
	int sum_ret;		/* pidns_spe_summarize()'s return */
	struct pidns_spe_summary sum;	/* pidns_spe_summarize() over the bytes */
};

/**
 * pidns_spe_session_run - open @cfg's SPE event on thread @tid (a tid in
 * the CALLER's pid namespace; cpu -1, exclude_kernel=1, disabled then
 * enabled), with a data ring and an AUX area, let it sample for @ns while
 * the target runs, disable, copy out the AUX bytes the kernel reported
 * (from the PERF_RECORD_AUX records of the data ring, across the AUX
 * ring's wrap), summarize them, unmap and close.
 *
 * The AUX area is drained while the event runs (the kernel wakes the
 * poll every quarter of it), so a session may produce more than the
 * area holds; it ends early when @buf has no room for the next chunk,
 * when the kernel truncates (and so disables) the event, or when the
 * target exits.  Never blocks longer than @ns plus 100 ms.  No allocation
 * beyond @buf (@cap bytes) and the mmaps.
 *
 * Return: 0, or -errno with @out->err and @out->step set (@out->why
 * names the cause).  A failure after the event was enabled ("ring",
 * "disable") still returns what was copied and summarized.
 */
int pidns_spe_session_run(const struct pidns_spe_cfg *cfg, pid_t tid, uint64_t ns,
			  uint8_t *buf, size_t cap, struct pidns_spe_session *out);

/* "time", "buffer-full", ...; "?" out of range. */
const char *pidns_spe_stop_name(uint32_t stop);

/*
 * The pure parts of a session, apart so that they are tested without the
 * hardware.
 */

/**
 * pidns_spe_aux_copy - copy the free-running range [@from, @to) out of an
 * AUX area of @ring_len bytes (a power of two), across its wrap.
 *
 * Return: the bytes copied (@to - @from), or -EINVAL for a @ring_len that
 * is not a power of two, @to before @from, or more than @ring_len bytes,
 * -ENOSPC when @cap is smaller (nothing copied).
 */
long pidns_spe_aux_copy(const uint8_t *ring, uint64_t ring_len, uint64_t from, uint64_t to,
			uint8_t *dst, size_t cap);

/* Where a session's copy stands. */
struct pidns_spe_aux_pos {
	uint64_t tail;		/* AUX bytes consumed (free-running): what aux_tail gets */
	size_t used;		/* bytes in the caller's buffer */
	size_t partial_at;	/* the buffer offset where the PARTIAL chunk starts */
	bool partial_seen;	/* a PARTIAL chunk was copied: nothing after it is */
	bool full;		/* a chunk found no room: nothing after it is copied */
	bool truncated;		/* a TRUNCATED record came: the kernel disabled the event */
};

/**
 * pidns_spe_aux_take - account one PERF_RECORD_AUX { @off, @size, @flags }
 * and copy its chunk of @ring into @buf at @pos->used.
 *
 * Chunks come in order: one that starts before @pos->tail, or that ends
 * more than @ring_len past it, cannot be in the area and is counted in
 * @out->aux_bad.  Bytes between @pos->tail and @off are @out->aux_gap.
 *
 * Return: 0 (copied, or nothing to copy), -ENOSPC when @buf had no room or
 * a PARTIAL chunk came before (counted in @out->aux_dropped), -EBADMSG for
 * a bad range.
 */
int pidns_spe_aux_take(struct pidns_spe_aux_pos *pos, struct pidns_spe_session *out,
		       const uint8_t *ring, uint64_t ring_len, uint64_t off, uint64_t size,
		       uint64_t flags, uint8_t *buf, size_t cap);

/**
 * pidns_spe_consume - walk the data ring's records in [*@data_tail,
 * @data_head): PERF_RECORD_AUX through pidns_spe_aux_take(), LOST counted,
 * others counted and skipped.  The event has sample_type 0 and no
 * sample_id_all, so an AUX record's body is its 24 bytes.
 * @data, @data_size: the data area, a power of two
 * @data_tail: advanced past what was consumed (the caller then stores it
 *	into data_tail with release semantics, and @pos->tail into aux_tail)
 *
 * Return: 0, -EINVAL for a bad @data_size, -EBADMSG for @data_head more
 * than @data_size past the tail or a record that is too short, not a
 * multiple of 8 bytes or past @data_head (*@data_tail stays at it).
 */
int pidns_spe_consume(const uint8_t *data, uint64_t data_size, uint64_t *data_tail,
		      uint64_t data_head, const uint8_t *aux, uint64_t aux_len,
		      struct pidns_spe_aux_pos *pos, uint8_t *buf, size_t cap,
		      struct pidns_spe_session *out);

/**
 * pidns_spe_session_summarize - @out->sum over @buf's @pos->used bytes.
 * When a PARTIAL chunk was copied (it is then the last) and decoding fails
 * inside it, the stream is summarized again up to the start of the record
 * that failed, and the bytes left out are @out->cut_bytes.
 * Return: @out->sum_ret.
 */
int pidns_spe_session_summarize(const uint8_t *buf, const struct pidns_spe_aux_pos *pos,
				struct pidns_spe_session *out);

#endif
