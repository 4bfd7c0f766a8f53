// SPDX-License-Identifier: GPL-2.0-only
/*
 * Result files as `pmustress compare` reads them (pms_cmp_load() in
 * lib/compare.c), then compared with themselves, so that whatever the
 * loader lets through also meets the comparison.
 *
 * Input: the file's bytes; they reach the loader as a named file (a memfd
 * through /proc/self/fd), the way a result given on the command line does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "pms-compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pms_cmp_side side;
	char path[64], err[1024];
	json_object *rep;
	int fd;

	fd = memfd_create("result.json", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!pms_cmp_load(path, &side, err, sizeof(err))) {
		rep = pms_cmp_compare(&side, &side, 0.05);
		if (rep)
			json_object_to_json_string(rep);
		json_object_put(rep);
	}
	pms_cmp_side_free(&side);
	close(fd);
	return 0;
}
