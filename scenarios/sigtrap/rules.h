/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sigtrap's oracle rules: pure functions over what one thread saw, with no
 * system access, so that every rule is unit-tested on synthetic input.
 */
#ifndef SIGTRAP_RULES_H
#define SIGTRAP_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How one thread's (inherited) event counts.  @retrigger is 1 where the
 * breakpoint hits again when the handler returns (arm64: the debug
 * exception comes before the access, and signal delivery skips the step
 * over it), so every trap adds one count of its own; 0 on x86.
 */
struct st_model {
	uint64_t period;
	uint64_t retrigger;
};

/*
 * Counts since the last overflow, as an interval: exact ([c, c]) until an
 * access whose effect is unknown (a storm op ran during it) widens it, and
 * exact again at the next trap.
 */
struct st_phase {
	uint64_t lo, hi;
};

/* What the event was during one access, from the storm's seqlock. */
enum st_access {
	ST_OFF,		/* disabled, or watching the other address, the whole access */
	ST_ON,		/* enabled and watching this address the whole access */
	ST_AMBIG,	/* a storm op was in flight: counted or not, unknown */
};

enum st_want {
	ST_WANT_NONE,	/* no trap may come */
	ST_WANT_ONE,	/* exactly one trap must come */
	ST_WANT_MAYBE,	/* zero or one (the phase is not known exactly) */
};

enum st_class {
	ST_OK,
	ST_LOST,	/* a trap was due and none came (yet: it may come late) */
	ST_DUPLICATE,	/* more than one trap for one access */
	ST_UNEXPECTED,	/* a trap for an access the event did not watch */
};

/* Phase of a fresh (just inherited or opened) event. */
void st_phase_init(struct st_phase *ph);

/* What one access in state @s must give, before it is judged. */
enum st_want st_want(const struct st_model *m, const struct st_phase *ph, enum st_access s);

/**
 * st_judge - judge one access that got @got traps (synchronously, or at the
 * unblock of a masking window) and move the phase on.
 * @masked: SIGTRAP was blocked during the access, so no handler ran before
 *          the access completed and there was no retrigger
 * @extra: receives the traps beyond one (duplicates), may be NULL
 * Return: the access's class; ST_DUPLICATE wins over ST_UNEXPECTED.
 */
enum st_class st_judge(const struct st_model *m, struct st_phase *ph, enum st_access s,
		       unsigned int got, bool masked, unsigned int *extra);

/* Traps @n accesses give with the event on throughout, from a fresh phase. */
uint64_t st_expected_traps(const struct st_model *m, uint64_t n);

/*
 * A trap that came while its thread was not inside an access: late when
 * the thread still has a due trap that did not come (@unclaimed > 0; the
 * caller then decrements it), else it was meant for another thread or for
 * nothing at all.
 */
enum st_outside { ST_OUT_LATE, ST_OUT_WRONG_THREAD };
enum st_outside st_outside(uint64_t unclaimed);

/* The siginfo fields of one SIGTRAP, read at the kernel's offsets. */
struct st_sig {
	int32_t signo, code, err;
	uint64_t addr, data;
	uint32_t type, flags;
};

/* What they must be. */
struct st_sig_want {
	uint64_t addr, data;
	uint32_t type;
	bool flags_known;	/* the kernel has si_perf_flags (5.18+) */
	bool async;		/* delivered at the unblock of a masking window */
};

enum {
	ST_BAD_SIGNO = 1 << 0,
	ST_BAD_CODE = 1 << 1,
	ST_BAD_ERRNO = 1 << 2,
	ST_BAD_ADDR = 1 << 3,
	ST_BAD_DATA = 1 << 4,
	ST_BAD_TYPE = 1 << 5,
	ST_BAD_FLAGS = 1 << 6,
	ST_BAD_NR = 7,
};

#define ST_TRAP_PERF 6			/* si_code: perf event with sigtrap=1 */
#define ST_TRAP_PERF_FLAG_ASYNC 1u	/* si_perf_flags: sent while blocked */

/* Bitmask of ST_BAD_* for the fields of @got that differ from @want. */
unsigned int st_fields_bad(const struct st_sig *got, const struct st_sig_want *want);

/* "si_code", "si_addr", ... for one ST_BAD_* bit's index. */
const char *st_field_name(unsigned int bit);

/*
 * Latency histogram: 4 buckets per power of two of nanoseconds, so a
 * percentile is known to within 19%, in a fixed 256 counters per thread.
 */
#define ST_HIST_BUCKETS 256

unsigned int st_hist_bucket(uint64_t ns);
/* The largest ns value bucket @b holds. */
uint64_t st_hist_upper(unsigned int b);
/* The bucket upper bound at or below which fraction @q of @n samples lie; 0 for none. */
uint64_t st_hist_quantile(const uint64_t *hist, uint64_t n, double q);

/* Every judged finding of a run. */
struct st_totals {
	uint64_t accesses, judged, ambiguous, traps;
	uint64_t lost, duplicate, unexpected, wrong_thread, wrong_data, late;
	uint64_t spurious_after_exec, fork_mismatch;
	bool watchdog;
};

/**
 * st_failed - whether the run reproduced a bug, and why in @why (one
 * sentence listing each non-zero class, or what passed).
 */
bool st_failed(const struct st_totals *t, char *why, size_t len);

#endif
