// SPDX-License-Identifier: GPL-2.0-only
/*
 * An Arm SPE session on one thread, for the pidns scenario: the PMU from
 * sysfs, the event, its data ring and AUX area, the drain, the summary.
 * The ABI it follows is in spe-session.h; the decoder is spe.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pms-perf.h"
#include "pms-ring.h"
#include "pms-util.h"
#include "spe-session.h"

/* The longest a poll waits before the loop looks at the clock again. */
#define POLL_SLICE_NS	10000000ull

/* ---- sysfs */

/* A decimal number and nothing else.  Return: 0 or -EINVAL. */
static int parse_dec(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * "config:N" or "config:N-N": one bit of attr.config, as the driver's
 * GEN_PMU_FORMAT_ATTR writes every one-bit term.  Return: the bit, or
 * -EINVAL for anything else (another config word, a wider field).
 */
static int parse_bit(const char *fmt)
{
	uint64_t lo, hi;
	char num[24];
	const char *dash;

	if (strncmp(fmt, "config:", 7))
		return -EINVAL;
	fmt += 7;
	dash = strchr(fmt, '-');
	if (!dash)
		return parse_dec(fmt, 63, &lo) ? -EINVAL : (int)lo;
	if ((size_t)(dash - fmt) >= sizeof(num))
		return -EINVAL;
	memcpy(num, fmt, (size_t)(dash - fmt));
	num[dash - fmt] = '\0';
	if (parse_dec(num, 63, &lo) || parse_dec(dash + 1, 63, &hi) || lo != hi)
		return -EINVAL;
	return (int)lo;
}

/* Name order with a trailing number compared as a number: arm_spe_2 < arm_spe_10. */
static bool name_before(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la != lb)
		return la < lb;
	return strcmp(a, b) < 0;
}

/* One bit of config from format/@term: 1 set, 0 no such term, or -EINVAL. */
static int set_term(const char *devices, struct pidns_spe_cfg *cfg, const char *term,
		    char *note, size_t len)
{
	char path[PATH_MAX], line[128];
	int ret, bit;

	snprintf(path, sizeof(path), "%s/%s/format/%s", devices, cfg->pmu, term);
	ret = pms_read_line(path, line, sizeof(line));
	if (ret == -ENOENT) {
		size_t pos = strlen(note);

		pms_append(note, len, &pos, "%s%s", *note ? ", " : "", term);
		return 0;
	}
	if (ret) {
		snprintf(cfg->why, sizeof(cfg->why), "cannot read %s/format/%s: %s", cfg->pmu, term,
		    strerror(-ret));
		return -EINVAL;
	}
	bit = parse_bit(line);
	if (bit < 0) {
		snprintf(cfg->why, sizeof(cfg->why), "%s/format/%s is '%.40s', not one bit of config",
		    cfg->pmu, term, line);
		return -EINVAL;
	}
	cfg->config |= 1ull << bit;
	return 1;
}

int pidns_spe_find(const char *devices, struct pidns_spe_cfg *cfg)
{
	char path[PATH_MAX], line[64], note[96] = "";
	uint64_t v, min_interval = 0;
	unsigned int found = 0;
	struct dirent *d;
	bool ts, jitter;
	size_t pos = 0;
	DIR *dir;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	dir = opendir(devices);
	if (!dir) {
		snprintf(cfg->why, sizeof(cfg->why), "no arm_spe PMU: cannot read %s: %s", devices,
		    strerror(errno));
		return -ENOENT;
	}
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "arm_spe", 7) || strlen(d->d_name) >= sizeof(cfg->pmu))
			continue;
		found++;
		if (!cfg->pmu[0] || name_before(d->d_name, cfg->pmu))
			snprintf(cfg->pmu, sizeof(cfg->pmu), "%s", d->d_name);
	}
	closedir(dir);
	if (!found) {
		snprintf(cfg->why, sizeof(cfg->why), "no arm_spe PMU under %s", devices);
		return -ENOENT;
	}

	snprintf(path, sizeof(path), "%s/%s/type", devices, cfg->pmu);
	ret = pms_read_line(path, line, sizeof(line));
	if (ret || parse_dec(line, UINT32_MAX, &v)) {
		snprintf(cfg->why, sizeof(cfg->why), "%s/type: %s", cfg->pmu,
		    ret ? strerror(-ret) : "not a number");
		return -EINVAL;
	}
	cfg->type = (uint32_t)v;

	/* pa_enable and pct_enable stay 0: physical addresses and the physical
	 * timestamp need CAP_PERFMON (-EACCES otherwise) and say nothing of pids. */
	ret = set_term(devices, cfg, "ts_enable", note, sizeof(note));
	if (ret < 0)
		return ret;
	ts = ret;
	ret = set_term(devices, cfg, "jitter", note, sizeof(note));
	if (ret < 0)
		return ret;
	jitter = ret;

	snprintf(path, sizeof(path), "%s/%s/caps/min_interval", devices, cfg->pmu);
	ret = pms_read_line(path, line, sizeof(line));
	if (ret && ret != -ENOENT) {
		snprintf(cfg->why, sizeof(cfg->why), "cannot read %s/caps/min_interval: %s", cfg->pmu,
		    strerror(-ret));
		return -EINVAL;
	}
	if (!ret && (parse_dec(line, UINT32_MAX, &min_interval) || !min_interval)) {
		snprintf(cfg->why, sizeof(cfg->why), "%s/caps/min_interval is '%.40s', not a period",
		    cfg->pmu, line);
		return -EINVAL;
	}
	cfg->period = min_interval > PIDNS_SPE_MIN_PERIOD ? min_interval : PIDNS_SPE_MIN_PERIOD;
	cfg->aux_bytes = PIDNS_SPE_AUX_DEFAULT;

	pms_append(cfg->why, sizeof(cfg->why), &pos, "%s (type %" PRIu32 ", %u arm_spe PMU%s): "
		   "config 0x%" PRIx64 " (%s), period %" PRIu64, cfg->pmu, cfg->type, found,
		   found > 1 ? "s" : "", cfg->config, ts && jitter ? "ts_enable, jitter" :
		   ts ? "ts_enable" : jitter ? "jitter" : "no term", cfg->period);
	if (min_interval)
		pms_append(cfg->why, sizeof(cfg->why), &pos, " (min_interval %" PRIu64 ")",
			   min_interval);
	else
		pms_append(cfg->why, sizeof(cfg->why), &pos, " (no caps/min_interval)");
	if (*note)
		pms_append(cfg->why, sizeof(cfg->why), &pos, "; not in format/, left out: %s",
			   note);
	return 0;
}

/* ---- the pure parts */

const char *pidns_spe_stop_name(uint32_t stop)
{
	static const char *const names[PIDNS_SPE_STOP_NR] = {
		[PIDNS_SPE_STOP_NONE] = "none",
		[PIDNS_SPE_STOP_TIME] = "time",
		[PIDNS_SPE_STOP_FULL] = "buffer-full",
		[PIDNS_SPE_STOP_TRUNCATED] = "truncated",
		[PIDNS_SPE_STOP_HUP] = "hangup",
		[PIDNS_SPE_STOP_RING] = "bad-ring",
	};

	return stop < PIDNS_SPE_STOP_NR ? names[stop] : "?";
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

long pidns_spe_aux_copy(const uint8_t *ring, uint64_t ring_len, uint64_t from, uint64_t to,
			uint8_t *dst, size_t cap)
{
	uint64_t len = to - from;

	if (!pow2(ring_len) || to < from || len > ring_len || len > LONG_MAX)
		return -EINVAL;
	if (len > cap)
		return -ENOSPC;
	pms_ring_copy(ring, ring_len, from, dst, (size_t)len);
	return (long)len;
}

int pidns_spe_aux_take(struct pidns_spe_aux_pos *pos, struct pidns_spe_session *out,
		       const uint8_t *ring, uint64_t ring_len, uint64_t off, uint64_t size,
		       uint64_t flags, uint8_t *buf, size_t cap)
{
	long n;

	out->aux_records++;
	if (flags & PERF_AUX_FLAG_TRUNCATED) {
		out->truncated++;
		pos->truncated = true;
	}
	if (flags & PERF_AUX_FLAG_PARTIAL)
		out->partial++;
	if (flags & PERF_AUX_FLAG_COLLISION)
		out->collision++;
	if (!size)
		return 0;
	/* Chunks come in aux_head order, and never more than the area past the tail. */
	if (off < pos->tail || size > ring_len || off + size < off ||
	    off + size - pos->tail > ring_len) {
		out->aux_bad++;
		return -EBADMSG;
	}
	out->aux_gap += off - pos->tail;
	pos->tail = off + size;
	/*
	 * After a chunk with a corrupt last record, a later chunk cannot be
	 * told apart from that record's remains: keep the stream decodable.
	 * After one that did not fit, the stream stays the session's first
	 * bytes, not a sample of them.
	 */
	if (pos->partial_seen || pos->full || size > cap - pos->used) {
		if (size > cap - pos->used)
			pos->full = true;
		out->aux_dropped += size;
		return -ENOSPC;
	}
	n = pidns_spe_aux_copy(ring, ring_len, off, off + size, buf + pos->used, cap - pos->used);
	if (n < 0) {		/* excluded above; kept an error, not a crash */
		out->aux_bad++;
		return (int)n;
	}
	if (flags & PERF_AUX_FLAG_PARTIAL) {
		pos->partial_seen = true;
		pos->partial_at = pos->used;
	}
	pos->used += (size_t)n;
	out->aux_bytes += (uint64_t)n;
	return 0;
}

/* @len bytes at ring offset @at (modulo @size, a power of two) into @dst. */
static void ring_read(const uint8_t *data, uint64_t size, uint64_t at, void *dst, size_t len)
{
	uint64_t pos = at & (size - 1);
	size_t first = size - pos < len ? (size_t)(size - pos) : len;

	memcpy(dst, data + pos, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, data, len - first);
}

int pidns_spe_consume(const uint8_t *data, uint64_t data_size, uint64_t *data_tail,
		      uint64_t data_head, const uint8_t *aux, uint64_t aux_len,
		      struct pidns_spe_aux_pos *pos, uint8_t *buf, size_t cap,
		      struct pidns_spe_session *out)
{
	uint64_t tail = *data_tail;

	if (!pow2(data_size) || data_size < sizeof(struct perf_event_header))
		return -EINVAL;
	/* A writable ring is never written past its tail: further is not a ring. */
	if (data_head < tail || data_head - tail > data_size)
		return -EBADMSG;
	while (tail < data_head) {
		struct perf_event_header h;
		uint64_t body[3] = { 0 };

		if (data_head - tail < sizeof(h))
			return -EBADMSG;
		ring_read(data, data_size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > data_head - tail)
			return -EBADMSG;
		switch (h.type) {
		case PERF_RECORD_AUX:
			/* { u64 aux_offset, aux_size, flags } */
			if (h.size < sizeof(h) + sizeof(body))
				return -EBADMSG;
			ring_read(data, data_size, tail + sizeof(h), body, sizeof(body));
			pidns_spe_aux_take(pos, out, aux, aux_len, body[0], body[1], body[2], buf,
					   cap);
			break;
		case PERF_RECORD_LOST:
			/* { u64 id, lost } */
			if (h.size < sizeof(h) + 2 * sizeof(uint64_t))
				return -EBADMSG;
			ring_read(data, data_size, tail + sizeof(h), body, 2 * sizeof(uint64_t));
			out->lost_records++;
			out->lost += body[1];
			break;
		default:
			out->other_records++;
			break;
		}
		tail += h.size;
		*data_tail = tail;
	}
	return 0;
}

int pidns_spe_session_summarize(const uint8_t *buf, const struct pidns_spe_aux_pos *pos,
				struct pidns_spe_session *out)
{
	int ret = pidns_spe_summarize(buf, pos->used, &out->sum);

	out->cut_bytes = 0;
	if (ret && pos->partial_seen && out->sum.error_rec_off >= pos->partial_at &&
	    out->sum.error_rec_off < pos->used) {
		size_t keep = out->sum.error_rec_off;

		out->cut_bytes = pos->used - keep;
		ret = pidns_spe_summarize(buf, keep, &out->sum);
	}
	out->sum_ret = ret;
	return ret;
}

/* ---- the session */

struct session {
	int fd;
	long page;
	uint8_t *ring;		/* control page, then the data area */
	size_t ring_len;
	uint64_t data_size;
	uint8_t *aux;
	uint64_t aux_len;
	uint64_t data_tail;
	struct pidns_spe_aux_pos pos;
};

static int fail(struct pidns_spe_session *out, int err, const char *step, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct pidns_spe_session *out, int err, const char *step, const char *fmt, ...)
{
	va_list ap;

	/* The first failure is the one to report; later steps only add to it. */
	if (out->err)
		return out->err;
	out->err = err;
	snprintf(out->step, sizeof(out->step), "%s", step);
	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
	return err;
}

/* What perf_event_open's errno means for this event, after arm_spe_pmu_event_init(). */
static const char *open_cause(int err)
{
	switch (err) {
	case ENOENT:
		return "no PMU of that type here (or the thread's CPU is not one of its CPUs)";
	case EBUSY:
		return "SPE is exclusive: a per-CPU SPE event is open (per-task and per-CPU do not mix)";
	case EACCES:
	case EPERM:
		return "not allowed: perf_event_paranoid, CAP_PERFMON, or ptrace access to the thread";
	case EOPNOTSUPP:
		return "the PMU refuses the attr (exclude_idle, a filter it lacks)";
	case EINVAL:
		return "the kernel rejects the attr (a frequency, a bad config)";
	case ESRCH:
		return "no such thread in this pid namespace";
	default:
		return strerror(err);
	}
}

static void attr_init(struct perf_event_attr *a, const struct pidns_spe_cfg *cfg,
		      uint64_t aux_len)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = cfg->type;
	a->config = cfg->config;
	/* A period, never freq: arm_spe_pmu_event_init() refuses attr.freq. */
	a->sample_period = cfg->period;
	/* Disabled until the AUX area exists, as the driver's task-context note asks. */
	a->disabled = 1;
	a->exclude_kernel = 1;
	/* Woken every quarter of the area, so it is drained long before it fills. */
	a->aux_watermark = (uint32_t)(aux_len / 4);
}

/* @want rounded down to a power-of-two number of pages, at least 2 (setup_aux). */
static uint64_t aux_len_for(uint64_t want, long page)
{
	uint64_t pages = (want ? want : PIDNS_SPE_AUX_DEFAULT) / (uint64_t)page, p = 2;

	while (p * 2 <= pages && p < (1ull << 20))
		p *= 2;
	return p * (uint64_t)page;
}

/* Consume what the rings hold and hand the room back.  Return: 0 or -EBADMSG. */
static int drain(struct session *s, uint8_t *buf, size_t cap, struct pidns_spe_session *out)
{
	struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)s->ring;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	int ret;

	ret = pidns_spe_consume(s->ring + s->page, s->data_size, &s->data_tail, head, s->aux,
				s->aux_len, &s->pos, buf, cap, out);
	/* The AUX bytes were read before the kernel may write over them. */
	__atomic_store_n(&pg->aux_tail, s->pos.tail, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->data_tail, s->data_tail, __ATOMIC_RELEASE);
	return ret;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Sample until @ns passed or something ends the session early. */
static void sample(struct session *s, uint64_t ns, uint8_t *buf, size_t cap,
		   struct pidns_spe_session *out)
{
	uint64_t start = pms_now_ns(), now = start;
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	out->stop = PIDNS_SPE_STOP_TIME;
	while (now - start < ns) {
		uint64_t left = ns - (now - start), wait = left < POLL_SLICE_NS ? left : POLL_SLICE_NS;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)wait };
		uint64_t before = out->aux_records + out->other_records + out->lost_records;
		int n = ppoll(&pfd, 1, &ts, NULL);

		if (n < 0 && errno != EINTR) {
			int e = errno;

			fail(out, -e, "poll", "ppoll on the SPE event: %s", strerror(e));
			break;
		}
		if (drain(s, buf, cap, out)) {
			out->stop = PIDNS_SPE_STOP_RING;
			break;
		}
		if (s->pos.full) {
			out->stop = PIDNS_SPE_STOP_FULL;
			break;
		}
		if (s->pos.truncated) {
			out->stop = PIDNS_SPE_STOP_TRUNCATED;
			break;
		}
		if (n > 0 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))) {
			out->stop = PIDNS_SPE_STOP_HUP;
			break;
		}
		now = pms_now_ns();
		/* A wakeup that brought nothing must not turn the loop into a spin. */
		if (n > 0 && before == out->aux_records + out->other_records + out->lost_records &&
		    now - start < ns) {
			left = ns - (now - start);
			nap(left < 1000000ull ? left : 1000000ull);
			now = pms_now_ns();
		}
	}
	out->ns = pms_now_ns() - start;
}

int pidns_spe_session_run(const struct pidns_spe_cfg *cfg, pid_t tid, uint64_t ns,
			  uint8_t *buf, size_t cap, struct pidns_spe_session *out)
{
	struct session s = { .fd = -1 };
	struct perf_event_mmap_page *pg;
	struct perf_event_attr attr;
	int ret;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!cfg || !buf || !cap || tid < 0 || !cfg->period)
		return fail(out, -EINVAL, "args", "%s", !cfg ? "no configuration" :
			    !buf || !cap ? "no buffer" : tid < 0 ? "a negative tid" :
			    "a period of 0");
	s.page = sysconf(_SC_PAGESIZE);
	if (s.page <= 0)
		return fail(out, -EINVAL, "args", "no page size");
	s.aux_len = aux_len_for(cfg->aux_bytes, s.page);
	s.data_size = (uint64_t)PIDNS_SPE_DATA_PAGES * (uint64_t)s.page;
	s.ring_len = (size_t)s.page + (size_t)s.data_size;
	out->aux_len = s.aux_len;

	attr_init(&attr, cfg, s.aux_len);
	ret = pms_perf_open(&attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (ret < 0)
		return fail(out, ret, "open", "%s (type %" PRIu32 ", config 0x%" PRIx64 ") on tid %d: "
			    "%s: %s", cfg->pmu[0] ? cfg->pmu : "SPE", cfg->type, cfg->config,
			    (int)tid, pms_errno_name(-ret), open_cause(-ret));
	s.fd = ret;

	s.ring = mmap(NULL, s.ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd, 0);
	if (s.ring == MAP_FAILED) {
		int e = errno;

		s.ring = NULL;
		ret = fail(out, -e, "mmap", "the data ring (%zu bytes): %s", s.ring_len,
			   strerror(e));
		goto out_close;
	}
	pg = (struct perf_event_mmap_page *)s.ring;
	/* The AUX mmap takes its place and size from here, so both come first. */
	pg->aux_offset = s.ring_len;
	pg->aux_size = s.aux_len;
	/* Writable: the normal mode, where nothing before aux_tail is written over. */
	s.aux = mmap(NULL, (size_t)s.aux_len, PROT_READ | PROT_WRITE, MAP_SHARED, s.fd,
		     (off_t)s.ring_len);
	if (s.aux == MAP_FAILED) {
		int e = errno;

		s.aux = NULL;
		ret = fail(out, -e, "aux mmap", "the AUX area (%" PRIu64 " bytes): %s%s",
			   s.aux_len, strerror(e), e == EPERM ?
			   " (over perf_event_mlock_kb and RLIMIT_MEMLOCK)" : "");
		goto out_unmap;
	}
	s.pos.tail = __atomic_load_n(&pg->aux_tail, __ATOMIC_ACQUIRE);
	s.data_tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);

	if (ioctl(s.fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = errno;

		ret = fail(out, -e, "enable", "PERF_EVENT_IOC_ENABLE: %s", strerror(e));
		goto out_unmap;
	}
	sample(&s, ns, buf, cap, out);
	/*
	 * Disabling stops the PMU on the thread's CPU (or found it stopped at
	 * its last switch), and the stop ends the AUX transaction: the last
	 * chunk's record is in the data ring when the ioctl returns.
	 */
	if (ioctl(s.fd, PERF_EVENT_IOC_DISABLE, 0)) {
		int e = errno;

		fail(out, -e, "disable", "PERF_EVENT_IOC_DISABLE: %s", strerror(e));
	}
	if (drain(&s, buf, cap, out)) {
		out->stop = PIDNS_SPE_STOP_RING;
		fail(out, -EBADMSG, "ring", "a data ring record at %" PRIu64
		     " the kernel could not have written", s.data_tail);
	} else if (out->stop == PIDNS_SPE_STOP_RING) {
		fail(out, -EBADMSG, "ring", "a data ring record the kernel could not have written");
	}
	pidns_spe_session_summarize(buf, &s.pos, out);
	if (!out->err)
		snprintf(out->why, sizeof(out->why), "%s: %" PRIu64 " ms, %" PRIu64 " AUX records, %"
		    PRIu64 " bytes copied, %" PRIu64 " dropped, %" PRIu64 " SPE records",
		    pidns_spe_stop_name(out->stop), out->ns / 1000000, out->aux_records,
		    out->aux_bytes, out->aux_dropped, out->sum.records);
	ret = out->err;

out_unmap:
	if (s.aux)
		munmap(s.aux, (size_t)s.aux_len);
	if (s.ring)
		munmap(s.ring, s.ring_len);
out_close:
	close(s.fd);
	return ret;
}
