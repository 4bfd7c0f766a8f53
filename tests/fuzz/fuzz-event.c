// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event specs (lib/event.c), as given to --event and --exclude.
 *
 * Input: one selector character, then the text.  'x': a spec against the
 * x86 fake sysfs tree (tests/fixtures/sysfs-x86) as x86_64; 'a': against
 * the arm64 tree as aarch64; 'e': an --exclude list; anything else: a spec
 * with no sysfs tree at all.  A parsed event is also turned into JSON, as a
 * result does.
 */
#include <stdio.h>
#include <linux/perf_event.h>

#include "fuzz.h"
#include "pms-event.h"

#define FIXTURES FUZZ_TOP "/tests/fixtures"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr = { 0 };
	const char *root, *arch;
	struct pms_event ev;
	char err[512], *text;
	json_object *j;

	if (!size)
		return 0;
	text = fuzz_str(data + 1, size - 1);
	switch (data[0]) {
	case 'x':
		root = FIXTURES "/sysfs-x86";
		arch = "x86_64";
		break;
	case 'a':
		root = FIXTURES "/sysfs-arm64";
		arch = "aarch64";
		break;
	case 'e':
		pms_event_set_exclude(&attr, text, err, sizeof(err));
		free(text);
		return 0;
	default:
		root = FIXTURES "/no-such-sysfs";
		arch = "x86_64";
		break;
	}
	memset(&ev, 0, sizeof(ev));
	if (!pms_event_parse(text, root, arch, &ev, err, sizeof(err))) {
		j = pms_attr_to_json(&ev.attr);
		if (j)
			json_object_to_json_string(j);
		json_object_put(j);
		pms_semantics_name(ev.sem);
	}
	free(text);
	return 0;
}
