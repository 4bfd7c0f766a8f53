// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU lists (pms_cpus_parse() in lib/cpus.c), as given to --cpus, checked
 * against this machine's topology.
 *
 * Input: the list text.  A parsed set is formatted back, as the result
 * records it.
 */
#include <hwloc.h>

#include "fuzz.h"
#include "pms-cpus.h"

static hwloc_topology_t topo;
static hwloc_bitmap_t set;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo))
		abort();
	set = hwloc_bitmap_alloc();
	if (!set)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_str(data, size), err[512], buf[256];

	hwloc_bitmap_zero(set);
	if (!pms_cpus_parse(topo, text, set, err, sizeof(err))) {
		pms_cpus_format(set, buf, sizeof(buf));
		pms_cpus_kind_of(topo, set);
	}
	free(text);
	return 0;
}
