/*
 * cp_trd_event.h - one event of an EVENTS block decoded, and its payload
 * checked: the innermost loop of every trace reader (cp_tracedec.c's
 * pass 2, cp_tracechk.c's check, cp_tcursor.c's cursors), inline so that
 * each of those loops keeps the event in registers.  Internal to the
 * readers, as cp_trace_rd.h.
 *
 * An event is an op byte and at most five LEB128 values (dt, dwall and
 * three payload values; an OBJ_DEF has three and a byte), so one that
 * starts CP_TRD_EV_MAX bytes or more before its block's end cannot run
 * past it: the decoder then reads the values without a bound check, the
 * one- and two-byte values (the usual time deltas, ids and sequences)
 * without a loop.  Any other event takes the checked path; both accept
 * and refuse exactly the same bytes.
 *
 * Pure: reads its arguments only; any thread.
 */
#ifndef CP_TRD_EVENT_H
#define CP_TRD_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_trace.h"
#include "cp_trace_format.h"
#include "cp_varint.h"

/* One decoded event. */
struct cp_trd_ev {
	uint8_t op;
	uint64_t dt, dwall;
	uint64_t a, b, c;	/* payload values in order */
	int64_t sv;		/* ENTER delta */
};

/* The most bytes an event can take: the op and five values. */
#define CP_TRD_EV_MAX (1 + 5 * CP_VARINT_MAX)

/* Payload values (uvarints) of each vertex kind from 1 to CP_EV_SAMPLE;
 * ENTER's one svarint is decoded apart. */
static const uint8_t cp_trd_nvalues[CP_EV_SAMPLE + 1] = {
	[CP_EV_THREAD_START] = 1, [CP_EV_THREAD_CREATE] = 1,
	[CP_EV_THREAD_JOIN] = 1, [CP_EV_REQUEST] = 1, [CP_EV_FAIL] = 1,
	[CP_EV_REGION_BEGIN] = 1, [CP_EV_REGION_END] = 1,
	[CP_EV_PUBLISH] = 2, [CP_EV_CONSUME] = 3,
};

/*
 * One value at *@pp into *@out, *@pp advanced: 0, or -1 when it is longer
 * than CP_VARINT_MAX bytes or (@checked) runs past @end.  Unchecked, at
 * least CP_VARINT_MAX bytes must remain.
 */
static inline __attribute__((always_inline)) int
cp_trd_uv(const uint8_t **pp, const uint8_t *end, bool checked,
	  uint64_t *out)
{
	const uint8_t *p = *pp;

	if (!checked) {
		if (p[0] < 0x80) {
			*out = p[0];
			*pp = p + 1;
			return 0;
		}
		if (p[1] < 0x80) {
			*out = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			*pp = p + 2;
			return 0;
		}
	}
	return cp_uv_get(pp, end, out);
}

/* The decoder, @checked or not (see above); cp_trd_decode_event's
 * contract. */
static inline __attribute__((always_inline)) const char *
cp_trd_decode_body(const uint8_t **pp, const uint8_t *end, bool hasw,
		   bool checked, struct cp_trd_ev *ev)
{
	const uint8_t *p = *pp;
	unsigned k, n;

	if (checked && p >= end)
		return "event runs past the end of its block";
	ev->op = *p++;
	k = ev->op & CP_EV_KIND_MASK;
	if ((ev->op & CP_EVF_SHARED) && k != CP_EV_CONSUME)
		return "SHARED flag (bit 7) on an event that is not a CONSUME";
	if (k >= CP_EV_META_FIRST) {
		if (ev->op & CP_EVF_WAIT)
			return "WAIT flag on a metadata event";
		if (k == CP_EV_OBJ_DEF) {
			if (cp_trd_uv(&p, end, checked, &ev->a))
				return "bad varint in OBJ_DEF";
			if (checked && p >= end)
				return "OBJ_DEF runs past the end of its block";
			ev->b = *p++;
			if (cp_trd_uv(&p, end, checked, &ev->c) ||
			    cp_trd_uv(&p, end, checked, &ev->dt))
				return "bad varint in OBJ_DEF";
		} else if (k == CP_EV_OBJ_UNTRACK) {
			if (cp_trd_uv(&p, end, checked, &ev->a))
				return "bad varint in OBJ_UNTRACK";
		} else {
			return "unknown metadata event kind";
		}
		*pp = p;
		return NULL;
	}
	if (k == 0 || k > CP_EV_SAMPLE)
		return "unknown event kind";
	n = cp_trd_nvalues[k];
	if (cp_trd_uv(&p, end, checked, &ev->dt))
		return "bad varint (dt)";
	ev->dwall = 0;
	if (hasw && cp_trd_uv(&p, end, checked, &ev->dwall))
		return "bad varint (dwall)";
	if (k == CP_EV_ENTER) {
		uint64_t u;

		if (cp_trd_uv(&p, end, checked, &u))
			return "bad varint in ENTER";
		ev->sv = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	}
	/*
	 * Straight into the fields, each by itself: decoded into an array
	 * and copied out, the copy was one 16-byte load over two 8-byte
	 * stores just made, which the processor cannot forward, and the
	 * stall was two thirds of the decoder's time.
	 */
	ev->a = ev->b = ev->c = 0;
	if ((n > 0 && cp_trd_uv(&p, end, checked, &ev->a)) ||
	    (n > 1 && cp_trd_uv(&p, end, checked, &ev->b)) ||
	    (n > 2 && cp_trd_uv(&p, end, checked, &ev->c)))
		return "bad varint in event payload";
	*pp = p;
	return NULL;
}

/*
 * Decode one event at *@pp (bounded by @end; @hasw: dwall present) into
 * @ev.  Returns NULL, or a static reason; *@pp is advanced on success.
 */
static inline const char *cp_trd_decode_event(const uint8_t **pp,
					      const uint8_t *end, bool hasw,
					      struct cp_trd_ev *ev)
{
	if (end - *pp >= CP_TRD_EV_MAX)
		return cp_trd_decode_body(pp, end, hasw, false, ev);
	return cp_trd_decode_body(pp, end, hasw, true, ev);
}

/*
 * Why the payload of an event of kind @k decoded as @ev makes no sense,
 * into @why (cp_trd_payload's slow path, out of line).  Returns @why.
 */
const char *cp_trd_payload_why(unsigned k, const struct cp_trd_ev *ev,
			       char *why, size_t whylen);

/*
 * Check the payload of vertex @v (kind @k, decoded as @ev) and store it in
 * @v (arg, obj, cnt; @prev_addr: the block's previous ENTER address, kept
 * up to date).  Returns NULL, or why it is bad in @why.
 */
static inline const char *cp_trd_payload(struct cp_tev *v, unsigned k,
					 const struct cp_trd_ev *ev,
					 uint64_t *prev_addr, char *why,
					 size_t whylen)
{
	switch (k) {
	case CP_EV_THREAD_START:
	case CP_EV_THREAD_CREATE:
	case CP_EV_THREAD_JOIN:
	case CP_EV_REGION_BEGIN:
	case CP_EV_REGION_END:
		if (ev->a > UINT32_MAX)
			break;
		v->arg = ev->a;
		return NULL;
	case CP_EV_REQUEST:
	case CP_EV_FAIL:
		/* object 0: none (a join's REQUEST) */
		if (ev->a >= UINT32_MAX)
			break;
		v->obj = (uint32_t)ev->a;
		return NULL;
	case CP_EV_PUBLISH:
		if (ev->a >= UINT32_MAX || ev->a == 0 || ev->b == 0)
			break;
		v->obj = (uint32_t)ev->a;
		v->arg = ev->b;
		return NULL;
	case CP_EV_CONSUME:
		/* object 0 and no range: a dequeue of an item never
		 * enqueued, which consumes nothing */
		if (ev->a >= UINT32_MAX || ev->c > UINT32_MAX ||
		    (ev->c && (ev->a == 0 || ev->b == 0 ||
			       ev->b + ev->c < ev->b)))
			break;
		v->obj = (uint32_t)ev->a;
		v->arg = ev->b;
		v->cnt = (uint32_t)ev->c;
		return NULL;
	case CP_EV_ENTER:
		*prev_addr += (uint64_t)ev->sv;
		v->arg = *prev_addr;
		return NULL;
	default:
		return NULL;
	}
	return cp_trd_payload_why(k, ev, why, whylen);
}

#endif /* CP_TRD_EVENT_H */
