// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigtrap's oracle rules.  Each thread's event is judged access by access:
 * the model says whether this access must, may or must not give a trap,
 * and what came is compared.  Nothing here reads a clock or the system.
 */
#include <stdio.h>
#include <string.h>

#include "rules.h"

void st_phase_init(struct st_phase *ph)
{
	ph->lo = ph->hi = 0;
}

enum st_want st_want(const struct st_model *m, const struct st_phase *ph, enum st_access s)
{
	switch (s) {
	case ST_OFF:
		return ST_WANT_NONE;
	case ST_ON:
		if (ph->lo + 1 >= m->period)
			return ST_WANT_ONE;
		return ph->hi + 1 >= m->period ? ST_WANT_MAYBE : ST_WANT_NONE;
	case ST_AMBIG:
		return ph->hi + 1 >= m->period ? ST_WANT_MAYBE : ST_WANT_NONE;
	}
	return ST_WANT_MAYBE;
}

/*
 * After an overflow that was signalled: the retrigger, if any, counted --
 * unless the signal was blocked, when the access completed without the
 * handler running in between and so without hitting again.
 */
static void resync(const struct st_model *m, struct st_phase *ph, bool masked, bool ambig)
{
	ph->hi = masked ? 0 : m->retrigger;
	/* A storm op during the handler decides whether the retrigger counted. */
	ph->lo = ambig ? 0 : ph->hi;
}

enum st_class st_judge(const struct st_model *m, struct st_phase *ph, enum st_access s,
		       unsigned int got, bool masked, unsigned int *extra)
{
	enum st_want w = st_want(m, ph, s);
	uint64_t top = m->period - 1;

	if (extra)
		*extra = got > 1 ? got - 1 : 0;
	if (got > 1) {
		resync(m, ph, masked, s == ST_AMBIG);
		return ST_DUPLICATE;
	}
	if (got == 1) {
		resync(m, ph, masked, s == ST_AMBIG);
		return w == ST_WANT_NONE ? ST_UNEXPECTED : ST_OK;
	}
	/* No trap. */
	switch (s) {
	case ST_OFF:
		return ST_OK;
	case ST_ON:
		if (w == ST_WANT_ONE) {
			/*
			 * The overflow happened and its signal did not come: the
			 * count restarted, with or without the retrigger (which
			 * only a delivered signal causes).
			 */
			ph->lo = 0;
			ph->hi = m->retrigger;
			return ST_LOST;
		}
		/* It counted, and did not reach the period. */
		ph->lo++;
		ph->hi = ph->hi + 1 > top ? top : ph->hi + 1;
		return ST_OK;
	case ST_AMBIG:
		/* Counted without reaching the period, or not counted. */
		ph->hi = ph->hi + 1 > top ? top : ph->hi + 1;
		return ST_OK;
	}
	return ST_OK;
}

uint64_t st_expected_traps(const struct st_model *m, uint64_t n)
{
	if (n < m->period)
		return 0;
	if (m->period <= m->retrigger)	/* every access after the first retriggers forever */
		return 1;
	return 1 + (n - m->period) / (m->period - m->retrigger);
}

enum st_outside st_outside(uint64_t unclaimed)
{
	return unclaimed ? ST_OUT_LATE : ST_OUT_WRONG_THREAD;
}

unsigned int st_fields_bad(const struct st_sig *got, const struct st_sig_want *want)
{
	unsigned int bad = 0;

	if (got->signo != 5)	/* SIGTRAP on every Linux architecture */
		bad |= ST_BAD_SIGNO;
	if (got->code != ST_TRAP_PERF)
		bad |= ST_BAD_CODE;
	if (got->err)
		bad |= ST_BAD_ERRNO;
	if (got->addr != want->addr)
		bad |= ST_BAD_ADDR;
	if (got->data != want->data)
		bad |= ST_BAD_DATA;
	if (got->type != want->type)
		bad |= ST_BAD_TYPE;
	if (want->flags_known &&
	    got->flags != (want->async ? ST_TRAP_PERF_FLAG_ASYNC : 0))
		bad |= ST_BAD_FLAGS;
	return bad;
}

const char *st_field_name(unsigned int bit)
{
	static const char *const names[ST_BAD_NR] = {
		"si_signo", "si_code", "si_errno", "si_addr", "si_perf_data", "si_perf_type",
		"si_perf_flags",
	};

	return bit < ST_BAD_NR ? names[bit] : "?";
}

unsigned int st_hist_bucket(uint64_t ns)
{
	unsigned int lg, sub;

	if (ns < 4)
		return (unsigned int)ns;
	lg = 63 - (unsigned int)__builtin_clzll(ns);
	sub = (unsigned int)(ns >> (lg - 2)) & 3;
	return lg * 4 + sub - 4;	/* ns 4 -> bucket 4 */
}

uint64_t st_hist_upper(unsigned int b)
{
	unsigned int lg, sub;

	if (b < 4)
		return b;
	lg = (b + 4) / 4;
	sub = (b + 4) % 4;
	if (lg >= 63)
		return UINT64_MAX;
	return ((4ull + sub + 1) << (lg - 2)) - 1;
}

uint64_t st_hist_quantile(const uint64_t *hist, uint64_t n, double q)
{
	uint64_t want, seen = 0;
	unsigned int b;

	if (!n)
		return 0;
	want = (uint64_t)((double)n * q);
	if ((double)want < (double)n * q)
		want++;
	if (want < 1)
		want = 1;
	if (want > n)
		want = n;
	for (b = 0; b < ST_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= want)
			return st_hist_upper(b);
	}
	return st_hist_upper(ST_HIST_BUCKETS - 1);
}

bool st_failed(const struct st_totals *t, char *why, size_t len)
{
	const struct { const char *name; uint64_t v; } cls[] = {
		{ "lost", t->lost }, { "duplicate", t->duplicate },
		{ "unexpected (trap while not watching)", t->unexpected },
		{ "wrong thread", t->wrong_thread }, { "wrong data", t->wrong_data },
		{ "late (asynchronous)", t->late },
		{ "spurious after exec", t->spurious_after_exec },
		{ "fork child miscounted", t->fork_mismatch },
	};
	size_t i, pos = 0;
	bool bad = t->watchdog;
	int n;

	if (len)
		why[0] = '\0';
	for (i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		if (!cls[i].v)
			continue;
		n = snprintf(why + pos, len > pos ? len - pos : 0, "%s%llu %s", bad ? ", " : "",
			     (unsigned long long)cls[i].v, cls[i].name);
		if (n > 0)
			pos += (size_t)n < len - pos ? (size_t)n : len - pos - 1;
		bad = true;
	}
	if (!bad)
		snprintf(why, len, "every one of %llu judged accesses gave exactly the traps "
			 "due (%llu traps; %llu accesses under a storm op not judged)",
			 (unsigned long long)t->judged, (unsigned long long)t->traps,
			 (unsigned long long)t->ambiguous);
	else if (t->watchdog && !pos)
		snprintf(why, len, "the watchdog ended the run");
	return bad;
}
