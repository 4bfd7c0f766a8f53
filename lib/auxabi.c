// SPDX-License-Identifier: GPL-2.0-only
/*
 * The aux_action word of perf_event_attr (Linux 6.13): reading and writing
 * it whatever the installed uapi header calls it, which era of the ABI a
 * kernel belongs to (by release, or by its BTF for backports), and a live
 * probe of whether the running kernel knows it.  Used by `probe` and by the
 * aux-pause scenario.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pms-auxabi.h"
#include "pms-perf.h"
#include "pms-util.h"

_Static_assert(offsetof(struct perf_event_attr, aux_sample_size) + sizeof(__u32) ==
	       PMS_AUX_ACTION_OFFSET, "aux_action follows aux_sample_size");

void pms_attr_set_aux_action(struct perf_event_attr *attr, uint32_t action)
{
	memcpy((char *)attr + PMS_AUX_ACTION_OFFSET, &action, sizeof(action));
}

uint32_t pms_attr_aux_action(const struct perf_event_attr *attr)
{
	uint32_t v;

	memcpy(&v, (const char *)attr + PMS_AUX_ACTION_OFFSET, sizeof(v));
	return v;
}

int pms_kernel_release(const char *release, unsigned int *major, unsigned int *minor)
{
	if (!release || sscanf(release, "%u.%u", major, minor) != 2)
		return -EINVAL;
	return 0;
}

static bool at_least(unsigned int major, unsigned int minor, unsigned int M, unsigned int m)
{
	return major > M || (major == M && minor >= m);
}

int pms_aux_era_of(const char *release, enum pms_aux_era *era)
{
	unsigned int major, minor;

	if (pms_kernel_release(release, &major, &minor))
		return -EINVAL;
	if (at_least(major, minor, 6, 13))
		*era = PMS_AUX_ERA_ACTION;
	else if (at_least(major, minor, 5, 5))
		*era = PMS_AUX_ERA_RESERVED;
	else
		*era = PMS_AUX_ERA_NO_FIELD;
	return 0;
}

const char *pms_aux_era_name(enum pms_aux_era era)
{
	switch (era) {
	case PMS_AUX_ERA_NO_FIELD:
		return "no_field";
	case PMS_AUX_ERA_RESERVED:
		return "reserved";
	case PMS_AUX_ERA_ACTION:
		return "aux_action";
	}
	return "?";
}

struct btf_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

int pms_btf_has_string(const void *buf, size_t len, const char *s)
{
	const char *str, *p, *end;
	struct btf_hdr h;
	size_t n = strlen(s);

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != 0xeb9f || h.hdr_len < sizeof(h) || h.hdr_len > len ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > len)
		return -EINVAL;
	str = (const char *)buf + h.hdr_len + h.str_off;
	end = str + h.str_len;
	for (p = str; p < end; p += strnlen(p, (size_t)(end - p)) + 1)
		if ((size_t)(end - p) > n && !memcmp(p, s, n + 1))
			return 1;
	return 0;
}

int pms_aux_btf_era(const char *btf_path, enum pms_aux_era *era)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	FILE *f = btf_path ? fopen(btf_path, "re") : NULL;
	int ret;

	if (!buf || !f) {
		ret = !buf ? -ENOMEM : btf_path ? -errno : -ENOENT;
		free(buf);
		if (f)
			fclose(f);
		return ret;
	}
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len, f);
		char *nb;

		len += got;
		if (len < cap)
			break;
		nb = realloc(buf, cap * 2);
		if (!nb) {
			free(buf);
			fclose(f);
			return -ENOMEM;
		}
		buf = nb;
		cap *= 2;
	}
	fclose(f);
	ret = pms_btf_has_string(buf, len, "aux_start_paused");
	free(buf);
	if (ret < 0)
		return ret;
	*era = ret ? PMS_AUX_ERA_ACTION : PMS_AUX_ERA_RESERVED;
	return 0;
}

int pms_auxabi_supported(char *detail, size_t len)
{
	struct perf_event_attr attr;
	int fd;

	pms_perf_attr_user(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	pms_attr_set_aux_action(&attr, PMS_AUX_START_PAUSED);
	fd = pms_perf_open_self(&attr, -1);
	if (fd >= 0) {
		close(fd);
		snprintf(detail, len, "aux_start_paused opened on a software event, which has no "
			 "pause capability: the kernel ignores the bit");
		return -1;
	}
	switch (-fd) {
	case EOPNOTSUPP:
		snprintf(detail, len, "aux_start_paused on task-clock: EOPNOTSUPP (the software "
			 "PMU cannot pause): the kernel knows aux_action (6.13+)");
		return 1;
	case EINVAL:
	case E2BIG:
		snprintf(detail, len, "aux_start_paused on task-clock: %s (reserved bits): the "
			 "kernel predates aux_action (6.13)", pms_errno_name(-fd));
		return 0;
	default:
		snprintf(detail, len, "aux_start_paused on task-clock: %s: cannot tell",
			 pms_errno_name(-fd));
		return -1;
	}
}
