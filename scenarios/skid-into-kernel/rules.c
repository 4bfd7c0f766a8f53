// SPDX-License-Identifier: GPL-2.0-only
/*
 * skid-into-kernel: the rules that match each overflow's sample (parsed by
 * lib/ring.c) with its signal.  Seed: cc1582c231ea (4.12-rc)
 * dropped the interrupt of an exclude_kernel event whose skid carried it
 * into the kernel, so neither a sample nor a signal came; reverted by
 * 6a8a75f32357 (4.13-rc2).  Samples with a kernel IP on such an event are
 * the other symptom (a leak), and the ring tells them apart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/perf_event.h>

#include "rules.h"

static const char *const kind_names[PMS_SKID_NR] = {
	[PMS_SKID_KERNEL_IP] = "kernel_ip",
	[PMS_SKID_SAMPLE_NO_SIGNAL] = "sample_no_signal",
	[PMS_SKID_DROPPED] = "interrupt_dropped",
	[PMS_SKID_SIGNAL_NO_SAMPLE] = "signal_no_sample",
	[PMS_SKID_OVER_ALLOWANCE] = "skid_over_allowance",
	[PMS_SKID_AMBIGUOUS] = "ambiguous_jump",
	[PMS_SKID_LATE_SIGNAL] = "late_signal",
	[PMS_SKID_NO_ADVANCE] = "no_advance",
	[PMS_SKID_FOREIGN_TID] = "foreign_tid",
};

const char *pms_skid_kind_name(enum pms_skid_kind kind)
{
	return kind < PMS_SKID_NR ? kind_names[kind] : "?";
}

static void add(const struct pms_skid_cfg *cfg, struct pms_skid_result *res,
		const struct pms_skid_finding *f)
{
	res->by_kind[f->kind] += f->count;
	res->findings_total++;
	if (res->nr_findings < cfg->max_findings)
		res->findings[res->nr_findings++] = *f;
}

static unsigned int hist_bin(uint64_t skid)
{
	unsigned int b = 0;

	if (skid < 2)
		return (unsigned int)skid;
	while (skid > 1 && b < PMS_SKID_HIST_NR - 2) {
		skid >>= 1;
		b++;
	}
	return b + 1;
}

static void match(struct pms_skid_result *res, const struct pms_ring_rec *smp,
		  const struct pms_signal *s)
{
	uint64_t lat = s->time_ns - smp->time_ns;

	res->matched++;
	res->latency_sum_ns += lat;
	res->latency_min_ns = lat < res->latency_min_ns ? lat : res->latency_min_ns;
	res->latency_max_ns = lat > res->latency_max_ns ? lat : res->latency_max_ns;
}

static void flush(const struct pms_skid_cfg *cfg, struct pms_skid_result *res,
		  const struct pms_ring_rec **smp, const uint64_t *sidx, const size_t *pend,
		  size_t from, size_t to)
{
	for (; from < to; from++) {
		size_t j = pend[from];
		struct pms_skid_finding g = { .kind = PMS_SKID_SAMPLE_NO_SIGNAL,
					      .sample = j + 1, .index = sidx[j], .count = 1,
					      .ip = smp[j]->ip, .time_ns = smp[j]->time_ns,
					      .cpu = (int32_t)smp[j]->cpu };

		add(cfg, res, &g);
	}
}

int pms_skid_analyze(const struct pms_skid_cfg *cfg, const struct pms_signal *sig, size_t nsig,
		     const struct pms_ring_rec *rec, size_t nrec,
		     const struct pms_ring_counts *counts, struct pms_skid_result *res)
{
	const struct pms_ring_rec **smp = NULL;
	uint64_t *sidx = NULL, lost_before = 0, kprev = 0, vprev = 0, tail_samples = 0;
	size_t ns = 0, i, j = 0, *pend = NULL, npend = 0, p0 = 0;
	struct pms_skid_finding owed = { .count = 0 };	/* a jump not yet called a drop */
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (!cfg->period)
		return -EINVAL;
	if (counts)
		res->ring = *counts;
	res->findings = calloc(cfg->max_findings ? cfg->max_findings : 1, sizeof(*res->findings));
	smp = calloc(nrec ? nrec : 1, sizeof(*smp));
	sidx = calloc(nrec ? nrec : 1, sizeof(*sidx));
	pend = calloc(nrec ? nrec : 1, sizeof(*pend));
	if (!res->findings || !smp || !sidx || !pend)
		goto out;
	res->judged[PMS_SKID_KERNEL_IP] = cfg->judge_kernel_ip;
	res->judged[PMS_SKID_SAMPLE_NO_SIGNAL] = true;
	res->judged[PMS_SKID_DROPPED] = !cfg->timer;
	res->judged[PMS_SKID_OVER_ALLOWANCE] = !cfg->timer;
	/* A full ring explains a signal without a sample: only judge it when
	 * the kernel wrote every sample and we kept every record. */
	res->judged[PMS_SKID_SIGNAL_NO_SAMPLE] = !res->ring.lost_samples && !res->ring.not_stored;

	/* Number the samples by overflow; LOST records stand for samples too. */
	for (i = 0; i < nrec; i++) {
		if (rec[i].type == PERF_RECORD_LOST) {
			lost_before += rec[i].lost;
		} else if (rec[i].type == PERF_RECORD_SAMPLE) {
			struct pms_skid_finding f = { .sample = ns + 1, .count = 1,
						      .ip = rec[i].ip, .time_ns = rec[i].time_ns,
						      .cpu = (int32_t)rec[i].cpu };

			smp[ns] = &rec[i];
			sidx[ns] = ns + 1 + lost_before;
			f.index = sidx[ns];
			if (rec[i].ip & cfg->kernel_ip_mask) {
				f.kind = PMS_SKID_KERNEL_IP;
				add(cfg, res, &f);
			}
			if (cfg->tid && rec[i].tid != cfg->tid) {
				f.kind = PMS_SKID_FOREIGN_TID;
				add(cfg, res, &f);
			}
			ns++;
		}
	}
	res->samples = ns;
	res->signals = nsig;
	res->skid_min = UINT64_MAX;
	res->latency_min_ns = UINT64_MAX;
	vprev = cfg->base;

	for (i = 0; i < nsig; i++) {
		const struct pms_signal *s = &sig[i];
		uint64_t v = s->value - cfg->base, k = v / cfg->period, skid = v - k * cfg->period;
		uint64_t delta = s->value - vprev, skipped = 0, missing;
		struct pms_skid_finding f = { .signal = i + 1, .index = k, .count = 1,
					      .value = s->value, .time_ns = s->time_ns,
					      .cpu = s->cpu };

		if (k <= kprev) {
			if (p0 < npend) {
				/* The late signal of a sample passed over just before. */
				f.kind = PMS_SKID_LATE_SIGNAL;
				f.sample = pend[p0] + 1;
				f.index = sidx[pend[p0]];
				add(cfg, res, &f);
				match(res, smp[pend[p0++]], s);
			} else {
				/*
				 * Still one signal: it pairs with the next sample by
				 * order.  After a jump it is the late signal of the
				 * overflow the jump skipped, which then was no drop.
				 */
				f.kind = owed.count ? PMS_SKID_LATE_SIGNAL : PMS_SKID_NO_ADVANCE;
				if (owed.count)
					owed.count--;
				if (j < ns && smp[j]->time_ns <= s->time_ns) {
					f.sample = j + 1;
					match(res, smp[j++], s);
				}
				add(cfg, res, &f);
			}
			vprev = s->value;
			continue;
		}
		/* Passed-over samples and jumps not repaid by a late signal. */
		flush(cfg, res, smp, sidx, pend, p0, npend);
		p0 = npend = 0;
		if (owed.count)
			add(cfg, res, &owed);
		owed.count = 0;
		/*
		 * Samples of earlier overflows had no signal, but only when a
		 * later sample also came before this signal: otherwise this
		 * signal may be theirs with a skid above P.
		 */
		while (j < ns && sidx[j] < k && smp[j]->time_ns <= s->time_ns &&
		       j + 1 < ns && smp[j + 1]->time_ns <= s->time_ns) {
			pend[npend++] = j;
			skipped++;
			j++;
		}
		if (j < ns && smp[j]->time_ns <= s->time_ns) {
			match(res, smp[j++], s);
		} else {
			f.kind = PMS_SKID_SIGNAL_NO_SAMPLE;
			add(cfg, res, &f);
		}
		missing = k - kprev - 1;
		if (missing > skipped) {
			owed = f;
			owed.count = missing - skipped;
			owed.kind = delta > cfg->period + cfg->allowance ? PMS_SKID_DROPPED :
				    PMS_SKID_AMBIGUOUS;
		}
		res->skid_n++;
		res->skid_sum += skid;
		res->skid_min = skid < res->skid_min ? skid : res->skid_min;
		res->skid_max = skid > res->skid_max ? skid : res->skid_max;
		res->skid_hist[hist_bin(skid)]++;
		if (skid > cfg->allowance) {
			f.kind = PMS_SKID_OVER_ALLOWANCE;
			add(cfg, res, &f);
		}
		kprev = k;
		vprev = s->value;
	}

	flush(cfg, res, smp, sidx, pend, p0, npend);
	if (owed.count)
		add(cfg, res, &owed);
	if (cfg->final_valid) {
		uint64_t v = cfg->final_value - cfg->base, implied = v / cfg->period;
		bool unsettled = implied > kprev && v - implied * cfg->period <= cfg->allowance;

		res->overflows_implied = implied;
		res->unsettled_tail = unsettled;
		/* Overflows after the last signal: each had a sample or nothing. */
		for (; j < ns; j++) {
			struct pms_skid_finding g = { .kind = PMS_SKID_SAMPLE_NO_SIGNAL,
						      .sample = j + 1, .index = sidx[j], .count = 1,
						      .ip = smp[j]->ip, .time_ns = smp[j]->time_ns,
						      .cpu = (int32_t)smp[j]->cpu };

			if (unsettled && sidx[j] >= implied)
				continue;
			add(cfg, res, &g);
			tail_samples++;
		}
		if (implied > kprev + unsettled + tail_samples) {
			struct pms_skid_finding g = {
				.kind = PMS_SKID_DROPPED, .index = implied,
				.count = implied - kprev - unsettled - tail_samples,
				.value = cfg->final_value,
			};

			add(cfg, res, &g);
		}
	}
	if (!res->skid_n)
		res->skid_min = 0;
	if (!res->matched)
		res->latency_min_ns = 0;
	ret = 0;
out:
	free(smp);
	free(sidx);
	free(pend);
	if (ret)
		pms_skid_result_free(res);
	return ret;
}

void pms_skid_result_free(struct pms_skid_result *res)
{
	free(res->findings);
	res->findings = NULL;
	res->nr_findings = 0;
}

bool pms_skid_failed(const struct pms_skid_cfg *cfg, const struct pms_skid_result *res,
		     char *reason, size_t len)
{
	size_t off = 0;
	bool failed = false;
	int k;

	reason[0] = '\0';
	for (k = 0; k < PMS_SKID_NR; k++) {
		if (!res->judged[k] || !res->by_kind[k])
			continue;
		off += (size_t)snprintf(reason + off, off < len ? len - off : 0, "%s%s %llu",
					failed ? ", " : "", kind_names[k],
					(unsigned long long)res->by_kind[k]);
		failed = true;
	}
	if (failed) {
		if (off < len)
			snprintf(reason + off, len - off, " (of %llu signals, %llu samples; "
				 "allowance %llu)", (unsigned long long)res->signals,
				 (unsigned long long)res->samples,
				 (unsigned long long)cfg->allowance);
	} else {
		bool other = false;

		for (k = 0; k < PMS_SKID_NR; k++)
			other |= res->by_kind[k] != 0;
		off = (size_t)snprintf(reason, len, "%s (%llu signals, %llu samples, %llu "
				       "matched), %s, max skid %llu (allowance %llu)",
				       other ? "no judged finding" :
				       "every overflow had its sample and its signal",
				       (unsigned long long)res->signals,
				       (unsigned long long)res->samples,
				       (unsigned long long)res->matched,
				       res->by_kind[PMS_SKID_KERNEL_IP] ? "kernel IPs as skid into "
				       "the kernel gives them since 4.13" : "no kernel IP",
				       (unsigned long long)res->skid_max,
				       (unsigned long long)cfg->allowance);
		for (k = 0; k < PMS_SKID_NR && other; k++) {
			off = strlen(reason);
			if (res->by_kind[k] && off < len)
				snprintf(reason + off, len - off, "; reported, not judged: %s %llu",
					 kind_names[k], (unsigned long long)res->by_kind[k]);
		}
	}
	off = strlen(reason);
	/* Throttling is what users mistake for a kernel bug: name it. */
	if (res->ring.throttle && off < len)
		snprintf(reason + off, len - off, "; throttled %llu times "
			 "(perf_event_max_sample_rate), not counted as a loss",
			 (unsigned long long)res->ring.throttle);
	off = strlen(reason);
	if (res->ring.lost_samples && off < len)
		snprintf(reason + off, len - off, "; the ring lost %llu samples (full): those "
			 "overflows are judged by their signals alone",
			 (unsigned long long)res->ring.lost_samples);
	return failed;
}

static json_object *finding_json(const struct pms_skid_finding *f)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(kind_names[f->kind]));
	json_object_object_add(o, "signal", f->signal ? json_object_new_uint64(f->signal) : NULL);
	json_object_object_add(o, "sample", f->sample ? json_object_new_uint64(f->sample) : NULL);
	json_object_object_add(o, "index", json_object_new_uint64(f->index));
	json_object_object_add(o, "count", json_object_new_uint64(f->count));
	json_object_object_add(o, "value", f->signal || f->kind == PMS_SKID_DROPPED ?
			       json_object_new_uint64(f->value) : NULL);
	if (f->sample) {
		char ip[24];

		snprintf(ip, sizeof(ip), "0x%llx", (unsigned long long)f->ip);
		json_object_object_add(o, "ip", json_object_new_string(ip));
	} else {
		json_object_object_add(o, "ip", NULL);
	}
	json_object_object_add(o, "time_ns", json_object_new_uint64(f->time_ns));
	json_object_object_add(o, "cpu", json_object_new_int(f->cpu));
	return o;
}

json_object *pms_skid_to_json(const struct pms_skid_cfg *cfg, const struct pms_skid_result *res)
{
	json_object *o = json_object_new_object(), *x, *list;
	size_t i;
	int k;

	json_object_object_add(o, "signals", json_object_new_uint64(res->signals));
	json_object_object_add(o, "samples", json_object_new_uint64(res->samples));
	json_object_object_add(o, "matched", json_object_new_uint64(res->matched));
	json_object_object_add(o, "overflows_implied", cfg->final_valid ?
			       json_object_new_uint64(res->overflows_implied) : NULL);
	json_object_object_add(o, "unsettled_tail", json_object_new_uint64(res->unsettled_tail));
	x = json_object_new_object();
	for (k = 0; k < PMS_SKID_NR; k++)
		json_object_object_add(x, kind_names[k], json_object_new_uint64(res->by_kind[k]));
	json_object_object_add(o, "findings", x);
	x = json_object_new_object();
	for (k = 0; k < PMS_SKID_NR; k++)
		json_object_object_add(x, kind_names[k], json_object_new_boolean(res->judged[k]));
	json_object_object_add(o, "judged", x);

	x = json_object_new_object();
	json_object_object_add(x, "n", json_object_new_uint64(res->skid_n));
	json_object_object_add(x, "min", json_object_new_uint64(res->skid_min));
	json_object_object_add(x, "max", json_object_new_uint64(res->skid_max));
	json_object_object_add(x, "mean", res->skid_n ? json_object_new_double(
		(double)res->skid_sum / (double)res->skid_n) : NULL);
	json_object_object_add(x, "rule", json_object_new_string(
		"skid = value - base - k*P with k = floor((value - base) / P), per signal"));
	list = json_object_new_array();
	for (k = 0; k < PMS_SKID_HIST_NR; k++) {
		json_object *b;
		uint64_t lo = k < 2 ? (uint64_t)k : 1ull << (k - 1);

		if (!res->skid_hist[k])
			continue;
		b = json_object_new_object();
		json_object_object_add(b, "lo", json_object_new_uint64(lo));
		json_object_object_add(b, "hi", k < 2 ? json_object_new_uint64(lo) :
				       k == PMS_SKID_HIST_NR - 1 ? NULL :
				       json_object_new_uint64((1ull << k) - 1));
		json_object_object_add(b, "count", json_object_new_uint64(res->skid_hist[k]));
		json_object_array_add(list, b);
	}
	json_object_object_add(x, "histogram", list);
	json_object_object_add(o, "skid", x);

	x = json_object_new_object();
	json_object_object_add(x, "min", res->matched ?
			       json_object_new_uint64(res->latency_min_ns) : NULL);
	json_object_object_add(x, "max", res->matched ?
			       json_object_new_uint64(res->latency_max_ns) : NULL);
	json_object_object_add(x, "mean", res->matched ? json_object_new_double(
		(double)res->latency_sum_ns / (double)res->matched) : NULL);
	json_object_object_add(o, "sample_to_signal_ns", x);

	x = json_object_new_object();
	json_object_object_add(x, "samples", json_object_new_uint64(res->ring.samples));
	json_object_object_add(x, "throttle", json_object_new_uint64(res->ring.throttle));
	json_object_object_add(x, "unthrottle", json_object_new_uint64(res->ring.unthrottle));
	json_object_object_add(x, "lost_records", json_object_new_uint64(res->ring.lost_records));
	json_object_object_add(x, "lost_samples", json_object_new_uint64(res->ring.lost_samples));
	json_object_object_add(x, "other_records", json_object_new_uint64(res->ring.other));
	json_object_object_add(x, "not_stored", json_object_new_uint64(res->ring.not_stored));
	json_object_object_add(x, "bytes", json_object_new_uint64(res->ring.bytes));
	json_object_object_add(o, "ring", x);

	list = json_object_new_array();
	for (i = 0; i < res->nr_findings; i++)
		json_object_array_add(list, finding_json(&res->findings[i]));
	x = json_object_new_object();
	json_object_object_add(x, "total", json_object_new_uint64(res->findings_total));
	json_object_object_add(x, "list", list);
	json_object_object_add(o, "finding_list", x);
	return o;
}
