// SPDX-License-Identifier: GPL-2.0-only
/*
 * The aux-pause window oracle (scenarios/aux-pause/window.c): windows as
 * the scenario measured them from the AUX buffer and the triggers.
 *
 * Input: a 32-byte configuration, then windows of 8 + 18 * 8 bytes each (at
 * most 256).  Configuration: u64 paused_allowance; u8 nmi_action (mod 4: 3
 * is invalid); u8 log2 of aux_size; u8 flags (bit 0 overwrite, bit 1
 * running_measured); u8 max_findings (mod 32); u32 unused; u64 aux_size
 * as is, used when the log2 is 64 or more (so not always a power of two);
 * u64 unused.  Window: u8 kind (mod 3: 2 is invalid), 7 bytes unused, then
 * every u64 field of struct pms_auxwin in its order.
 */
#include <stdio.h>

#include "fuzz.h"
#include "aux-pause/window.h"

#define WIN_U64 18

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct {
		uint64_t allowance;
		uint8_t nmi, order, flags, max;
		uint32_t unused;
		uint64_t aux_size, unused2;
	} c;
	struct pms_auxwin_cfg cfg = { 0 };
	struct pms_auxwin_result res;
	struct pms_auxwin *w;
	char reason[2048];
	size_t n, i;
	json_object *j;

	fuzz_take(&data, &size, &c, sizeof(c));
	cfg.paused_allowance = c.allowance;
	cfg.nmi_action = (enum pms_auxwin_nmi)(c.nmi % 4);
	cfg.aux_size = c.order < 64 ? 1ull << c.order : c.aux_size;
	cfg.overwrite = c.flags & 1;
	cfg.running_measured = c.flags & 2;
	cfg.max_findings = c.max % 32;

	n = size / (8 + WIN_U64 * 8);
	if (n > 256)
		n = 256;
	w = calloc(n ? n : 1, sizeof(*w));
	if (!w)
		abort();
	for (i = 0; i < n; i++) {
		uint64_t v[WIN_U64];
		uint8_t kind[8];

		fuzz_take(&data, &size, kind, sizeof(kind));
		fuzz_take(&data, &size, v, sizeof(v));
		w[i] = (struct pms_auxwin){
			.kind = (enum pms_auxwin_kind)(kind[0] % 3),
			.start_ns = v[0], .end_ns = v[1],
			.head_before = v[2], .head_after = v[3],
			.rec_bytes = v[4], .rec_flags = v[5],
			.resume_req = v[6], .pause_req = v[7],
			.resume_hits = v[8], .pause_hits = v[9],
			.resume_samples = v[10], .pause_samples = v[11],
			.nmi_samples = v[12], .throttled = v[13], .unthrottled = v[14],
			.lost = v[15], .padding = v[16], .running_ns = v[17],
		};
	}
	if (!pms_auxwin_judge(&cfg, n ? w : NULL, n, &res)) {
		pms_auxwin_failed(&res, reason, sizeof(reason));
		j = pms_auxwin_to_json(&cfg, &res);
		if (j)
			json_object_to_json_string(j);
		json_object_put(j);
		pms_auxwin_result_free(&res);
	}
	free(w);
	return 0;
}
