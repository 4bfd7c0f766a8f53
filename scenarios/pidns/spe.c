// SPDX-License-Identifier: GPL-2.0-only
/*
 * Arm SPE AUX decoding and the judgement of its context packets: see spe.h
 * for the packet rules and what was verified in the kernel.
 */
#include <errno.h>
#include <string.h>

#include "spe.h"

#define HDR_PAD		0x00
#define HDR_END		0x01
#define HDR_TIMESTAMP	0x71
#define MASK_EV_DS	0xcf	/* events and data source: bits [5:4] are the size */
#define HDR_EVENTS	0x42
#define HDR_DATA_SOURCE	0x43
#define MASK_CTX_OP	0xfc	/* context and op type: bits [1:0] are the index */
#define HDR_CONTEXT	0x64
#define HDR_OP_TYPE	0x48
#define HDR_EXTENDED	0x20	/* with MASK_CTX_OP: bits [1:0] are index bits [4:3] */
#define MASK_ADDR_CNT	0xf8	/* address and counter: bits [2:0] are the index */
#define HDR_ADDRESS	0xb0
#define HDR_COUNTER	0x98

#define PC_ADDR_MASK	((1ull << 56) - 1)

static unsigned int payload_size(uint8_t hdr)
{
	return 1u << ((hdr >> 4) & 3);
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int pidns_spe_next(const uint8_t *buf, size_t len, size_t *off, struct pidns_spe_pkt *pkt)
{
	size_t o = *off, avail;
	unsigned int hlen = 1, plen = 0;
	uint8_t h;

	if (o > len)
		return -EINVAL;
	if (o == len)
		return 0;
	avail = len - o;
	h = buf[o];
	memset(pkt, 0, sizeof(*pkt));

	if (h == HDR_PAD) {
		pkt->kind = PIDNS_SPE_PAD;
	} else if (h == HDR_END) {
		pkt->kind = PIDNS_SPE_END;
	} else if (h == HDR_TIMESTAMP) {
		pkt->kind = PIDNS_SPE_TIMESTAMP;
		plen = payload_size(h);
	} else if ((h & MASK_EV_DS) == HDR_EVENTS || (h & MASK_EV_DS) == HDR_DATA_SOURCE) {
		pkt->kind = (h & MASK_EV_DS) == HDR_EVENTS ? PIDNS_SPE_EVENTS
							   : PIDNS_SPE_DATA_SOURCE;
		plen = payload_size(h);
	} else if ((h & MASK_CTX_OP) == HDR_CONTEXT) {
		pkt->kind = PIDNS_SPE_CONTEXT;
		pkt->index = h & 3;
		if (pkt->index > PIDNS_SPE_CTX_EL2)
			return -EBADMSG;
		plen = payload_size(h);
	} else if ((h & MASK_CTX_OP) == HDR_OP_TYPE) {
		pkt->kind = PIDNS_SPE_OP_TYPE;
		pkt->index = h & 3;
		plen = payload_size(h);
	} else {
		uint8_t h1 = h, hi = 0;

		if ((h & MASK_CTX_OP) == HDR_EXTENDED) {
			if (avail < 2)
				return -ENODATA;
			pkt->ext = true;
			hlen = 2;
			hi = (h & 3) << 3;
			h1 = buf[o + 1];
		}
		if ((h1 & MASK_ADDR_CNT) == HDR_ADDRESS)
			pkt->kind = PIDNS_SPE_ADDRESS;
		else if ((h1 & MASK_ADDR_CNT) == HDR_COUNTER)
			pkt->kind = PIDNS_SPE_COUNTER;
		else
			return -EBADMSG;
		pkt->index = hi | (h1 & 7);
		plen = payload_size(h1);
	}
	if (avail < hlen + plen)
		return -ENODATA;
	pkt->payload = get_le(buf + o + hlen, plen);
	pkt->len = hlen + plen;
	*off = o + hlen + plen;
	return 1;
}

int pidns_spe_record_next(const uint8_t *buf, size_t len, size_t *off,
			  struct pidns_spe_record *rec)
{
	struct pidns_spe_pkt p;
	size_t o = *off;
	int r;

	memset(rec, 0, sizeof(*rec));
	if (o > len)
		return -EINVAL;
	/* The driver's padding runs can be pages long: skip them bytewise. */
	while (o < len && buf[o] == HDR_PAD)
		o++;
	rec->pad_before = o - *off;
	rec->offset = o;
	if (o == len) {
		*off = o;
		return 0;
	}
	for (;;) {
		size_t at = o;

		r = pidns_spe_next(buf, len, &o, &p);
		if (r < 0) {
			*off = at;
			return r;
		}
		if (r == 0) {
			*off = len;
			return -ENODATA;
		}
		if (p.kind == PIDNS_SPE_PAD) {
			rec->pad_inside++;
			continue;
		}
		rec->packets++;
		rec->kinds[p.kind]++;
		switch (p.kind) {
		case PIDNS_SPE_TIMESTAMP:
			rec->has_ts = true;
			rec->ts = p.payload;
			rec->ended = PIDNS_SPE_BY_TIMESTAMP;
			goto done;
		case PIDNS_SPE_END:
			rec->ended = PIDNS_SPE_BY_END;
			goto done;
		case PIDNS_SPE_CONTEXT:
			if (p.index == PIDNS_SPE_CTX_EL1) {
				rec->has_el1 = true;
				rec->ctx_el1 = (uint32_t)p.payload;
			} else {
				rec->has_el2 = true;
				rec->ctx_el2 = (uint32_t)p.payload;
			}
			break;
		case PIDNS_SPE_ADDRESS:
			if (p.index == PIDNS_SPE_ADDR_PC) {
				rec->has_pc = true;
				rec->pc = p.payload & PC_ADDR_MASK;
				rec->pc_el = (p.payload >> 61) & 3;
				rec->pc_ns = p.payload >> 63;
			}
			break;
		default:
			break;
		}
	}
done:
	rec->len = o - rec->offset;
	*off = o;
	return 1;
}

static void add_ctx(struct pidns_spe_summary *s, uint32_t value, uint8_t els)
{
	size_t i;

	for (i = 0; i < s->nctx; i++) {
		if (s->ctx[i].value == value) {
			s->ctx[i].els |= els;
			s->ctx[i].records++;
			return;
		}
	}
	if (s->nctx == PIDNS_SPE_MAX_CTX) {
		s->ctx_overflow++;
		return;
	}
	s->ctx[s->nctx++] = (struct pidns_spe_ctxval){ .value = value, .els = els,
						       .records = 1 };
}

int pidns_spe_summarize(const uint8_t *buf, size_t len, struct pidns_spe_summary *s)
{
	struct pidns_spe_record rec;
	size_t off = 0;
	int r;

	memset(s, 0, sizeof(*s));
	for (;;) {
		r = pidns_spe_record_next(buf, len, &off, &rec);
		s->padding_bytes += rec.pad_before;
		if (r <= 0)
			break;
		s->records++;
		s->packets += rec.packets;
		s->padding_bytes += rec.pad_inside;
		s->records_ts += rec.ended == PIDNS_SPE_BY_TIMESTAMP;
		s->records_pc += rec.has_pc;
		s->records_ctx += rec.has_el1 || rec.has_el2;
		s->records_el1 += rec.has_el1;
		s->records_el2 += rec.has_el2;
		/* The same value in both registers counts once for the record. */
		if (rec.has_el1 && rec.has_el2 && rec.ctx_el1 == rec.ctx_el2) {
			add_ctx(s, rec.ctx_el1, 3);
		} else {
			if (rec.has_el1)
				add_ctx(s, rec.ctx_el1, 1);
			if (rec.has_el2)
				add_ctx(s, rec.ctx_el2, 2);
		}
	}
	if (r < 0) {
		s->error = r;
		s->error_off = off;
		s->error_rec_off = rec.offset;
	}
	return s->error;
}

static const char *const class_names[PIDNS_SPE_CLASS_NR] = {
	[PIDNS_SPE_CONTEXT_ROOT_PIDS] = "context-root-pids",
	[PIDNS_SPE_CONTEXT_ROOT_PIDS_IN_CHILD_NS] = "context-root-pids-in-child-ns",
	[PIDNS_SPE_CONTEXT_NS_PIDS] = "context-ns-pids",
	[PIDNS_SPE_CONTEXT_MIXED] = "context-mixed",
	[PIDNS_SPE_CONTEXT_FOREIGN] = "context-foreign",
	[PIDNS_SPE_CONTEXT_IDLE_ONLY] = "context-idle-only",
	[PIDNS_SPE_CONTEXT_ABSENT] = "context-absent",
	[PIDNS_SPE_NO_RECORDS] = "no-records",
	[PIDNS_SPE_MALFORMED] = "malformed",
};

const char *pidns_spe_class_name(enum pidns_spe_class cls)
{
	return (unsigned int)cls < PIDNS_SPE_CLASS_NR ? class_names[cls] : "?";
}

static const char *const kind_names[PIDNS_SPE_KIND_NR] = {
	[PIDNS_SPE_PAD] = "pad",
	[PIDNS_SPE_END] = "end",
	[PIDNS_SPE_TIMESTAMP] = "timestamp",
	[PIDNS_SPE_ADDRESS] = "address",
	[PIDNS_SPE_COUNTER] = "counter",
	[PIDNS_SPE_CONTEXT] = "context",
	[PIDNS_SPE_OP_TYPE] = "op-type",
	[PIDNS_SPE_EVENTS] = "events",
	[PIDNS_SPE_DATA_SOURCE] = "data-source",
};

const char *pidns_spe_kind_name(enum pidns_spe_kind kind)
{
	return (unsigned int)kind < PIDNS_SPE_KIND_NR ? kind_names[kind] : "?";
}

static bool in_set(const uint32_t *set, size_t n, uint32_t v)
{
	size_t i;

	for (i = 0; set && i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

/* The classes' explanations, one line each. */
static const char WHY_BADMSG[] =
	"the AUX stream does not decode: a reserved packet header at error_off";
static const char WHY_CUT[] =
	"the AUX stream does not decode: a packet or record cut by the end of the stream";
static const char WHY_NO_RECORDS[] =
	"no SPE record decoded (an empty or all-padding AUX stream): nothing to judge";
static const char WHY_ABSENT_NOCONFIG[] =
	"no context packets: expected, the kernel lacks CONFIG_PID_IN_CONTEXTIDR, "
	"so the driver never sets PMSCR.CX";
static const char WHY_ABSENT_NOCAP[] =
	"no context packets: expected, the opener is not perfmon-capable and the driver "
	"sets PMSCR.CX only for one";
static const char WHY_ABSENT_UNKNOWN[] =
	"no context packets: as a kernel without CONFIG_PID_IN_CONTEXTIDR behaves "
	"(its configuration is unknown)";
static const char WHY_ABSENT_CHILD[] =
	"no context packets for a child-namespace session: what the 2021 root-namespace-only "
	"proposals asked for, not what mainline does";
static const char WHY_ABSENT_ROOT[] =
	"no context packets although the kernel has CONFIG_PID_IN_CONTEXTIDR and the "
	"opener is perfmon-capable";
static const char WHY_ROOT[] =
	"context packets carry the workload's root-namespace pids: documented behaviour "
	"for a root-namespace session (CONTEXTIDR holds task_pid_nr(), the global pid)";
static const char WHY_ROOT_IN_CHILD[] =
	"a session inside a non-root pid namespace got root-namespace pids it cannot "
	"interpret: mainline writes the global pid into CONTEXTIDR whatever the namespace";
static const char WHY_NS[] =
	"context packets carry the workload's own-namespace pids: a kernel that virtualises "
	"CONTEXTIDR per pid namespace, which mainline does not";
static const char WHY_MIXED[] =
	"some records carry the workload's root-namespace pids, others its namespace-local "
	"pids: inconsistent attribution";
static const char WHY_FOREIGN[] =
	"context values that are none of the workload's pids in either namespace "
	"(0/idle excluded): samples attributed to a wrong task, a possible bug";
static const char WHY_IDLE_ONLY[] =
	"every context value is 0, the idle task's: no sample is attributed to the workload";

/* Inputs that mainline's behaviour contradicts. */
static const char ANOM_WANT_CX[] =
	"mainline sets PMSCR.CX for a perfmon-capable opener when CONFIG_PID_IN_CONTEXTIDR=y, "
	"whatever its pid namespace";
static const char ANOM_NO_CONFIG[] =
	"context packets although the kernel reports no CONFIG_PID_IN_CONTEXTIDR: the driver "
	"sets PMSCR.CX only with it";
static const char ANOM_NO_CAP[] =
	"context packets for an opener that is not perfmon-capable: before v6.0 (92f2b8bafa3d) "
	"the driver re-checked perfmon_capable() at each pmu start, in whatever task was current";

static void judge_absent(const struct pidns_spe_expect *e, struct pidns_spe_verdict *v)
{
	v->cls = PIDNS_SPE_CONTEXT_ABSENT;
	if (e->pid_in_contextidr == 0) {
		v->why = WHY_ABSENT_NOCONFIG;
	} else if (!e->perfmon_capable) {
		v->why = WHY_ABSENT_NOCAP;
	} else if (e->pid_in_contextidr < 0) {
		v->why = WHY_ABSENT_UNKNOWN;
	} else {
		v->why = e->opener_in_root_ns ? WHY_ABSENT_ROOT : WHY_ABSENT_CHILD;
		v->unexpected = true;
		v->anomaly = ANOM_WANT_CX;
	}
}

void pidns_spe_judge(const struct pidns_spe_summary *s, const struct pidns_spe_expect *e,
		     struct pidns_spe_verdict *v)
{
	bool have_foreign = false;
	size_t i;

	memset(v, 0, sizeof(*v));
	if (s->error) {
		v->cls = PIDNS_SPE_MALFORMED;
		v->why = s->error == -EBADMSG ? WHY_BADMSG : WHY_CUT;
		return;
	}
	if (!s->records) {
		v->cls = PIDNS_SPE_NO_RECORDS;
		v->why = WHY_NO_RECORDS;
		return;
	}
	if (!s->records_ctx) {
		judge_absent(e, v);
		return;
	}

	v->incomplete = s->ctx_overflow > 0;
	for (i = 0; i < s->nctx && i < PIDNS_SPE_MAX_CTX; i++) {
		uint32_t val = s->ctx[i].value;
		uint64_t n = s->ctx[i].records;
		bool r = in_set(e->root_pids, e->nr_root, val);
		bool ns = in_set(e->ns_pids, e->nr_ns, val);

		if (!val) {
			v->rec_idle += n;
		} else if (r && ns) {
			v->rec_both += n;
		} else if (r) {
			v->rec_root += n;
		} else if (ns) {
			v->rec_ns += n;
		} else {
			if (!have_foreign)
				v->first_foreign = val;
			have_foreign = true;
			v->rec_foreign += n;
		}
	}

	v->unexpected = true;
	if (have_foreign) {
		v->cls = PIDNS_SPE_CONTEXT_FOREIGN;
		v->why = WHY_FOREIGN;
	} else if (v->rec_root && v->rec_ns) {
		v->cls = PIDNS_SPE_CONTEXT_MIXED;
		v->why = WHY_MIXED;
	} else if (v->rec_ns) {
		v->cls = PIDNS_SPE_CONTEXT_NS_PIDS;
		v->why = WHY_NS;
	} else if (!v->rec_root && !v->rec_both) {
		v->cls = PIDNS_SPE_CONTEXT_IDLE_ONLY;
		v->why = WHY_IDLE_ONLY;
	} else {
		/* A value that is a workload pid in both views fits mainline too. */
		v->unexpected = false;
		if (e->opener_in_root_ns) {
			v->cls = PIDNS_SPE_CONTEXT_ROOT_PIDS;
			v->why = WHY_ROOT;
		} else {
			v->cls = PIDNS_SPE_CONTEXT_ROOT_PIDS_IN_CHILD_NS;
			v->why = WHY_ROOT_IN_CHILD;
		}
	}
	if (e->pid_in_contextidr == 0) {
		v->unexpected = true;
		v->anomaly = ANOM_NO_CONFIG;
	} else if (!e->perfmon_capable) {
		v->unexpected = true;
		v->anomaly = ANOM_NO_CAP;
	}
}
