/*
 * cp_stream_sched.c - the out-of-core pass's schedule (cp_stream.c):
 * which thread runs next, and the census of a damaged trace.
 *
 * The schedule.  Runnable threads wait in a heap by the wall clock of
 * their next vertex (then tid), so the pass follows the recorded order and
 * a consumer runs soon after its producer; a thread runs until it blocks
 * or passes the heap's top.  A blocked thread is looked at again when the
 * object or thread it waits for moves.  If every thread left is blocked,
 * the trace does not hold what they wait for (a cut or damaged trace: a
 * CONSUME whose PUBLISH was lost, a START nobody created): a census pass,
 * made then and only then, finds the sequences and creations the file
 * holds (a bit per sequence), and the vertices waiting for others depend
 * on nothing, as the reader's salvage makes them; if none is, the
 * dependencies form a cycle and the earliest blocked vertex goes.
 */
#include "cp_stream_int.h"

#include <stdlib.h>
#include <string.h>

#include "cp_bits.h"

/* ---- the schedule --------------------------------------------------- */

void cp_stream_heap_push(struct sp *p, uint32_t tid)
{
	uint32_t i = p->nheap++;

	while (i && cp_stream_before(p, tid, p->heap[(i - 1) / 2])) {
		p->heap[i] = p->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	p->heap[i] = tid;
}

uint32_t cp_stream_heap_pop(struct sp *p)
{
	uint32_t top = p->heap[0], last = p->heap[--p->nheap], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= p->nheap)
			break;
		if (c + 1 < p->nheap &&
		    cp_stream_before(p, p->heap[c + 1], p->heap[c]))
			c++;
		if (!cp_stream_before(p, p->heap[c], last))
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	if (p->nheap)
		p->heap[i] = last;
	return top;
}

/*
 * Have the dependencies of @t's next vertex been processed?  If not,
 * t->wait_obj says what will change that: the object, or NONE (a thread's
 * creation or end).
 */
bool cp_stream_ready(struct sp *p, struct sth *t)
{
	const struct cp_tev *v = &t->nx;
	uint32_t c;

	switch (cp_tev_kind(v)) {
	case CP_EV_CONSUME: {
		const struct sobj *o = v->obj < p->nobj ? &p->obj[v->obj] :
				       NULL;

		t->wait_obj = v->obj;
		/* all of 1..w published: at once (a barrier's n waiters
		 * would each look at its n arrivals) */
		if (o && v->arg + v->cnt - 1 <= o->w)
			return true;
		/* the last first: a range's sequences are published about
		 * in order, and a barrier's waiters look at each arrival */
		if (v->cnt > 1 && (!o || !cp_stream_seen(o, v->arg + v->cnt - 1)))
			return false;
		for (c = t->wait_c; c < v->cnt; c++) {
			if (!o || !cp_stream_seen(o, v->arg + c)) {
				t->wait_c = c;
				return false;
			}
		}
		return true;
	}
	case CP_EV_THREAD_START:
		t->wait_obj = NONE;
		return !v->arg || v->arg - 1 >= p->nt || t->created;
	case CP_EV_THREAD_JOIN:
		t->wait_obj = NONE;
		return v->arg >= p->nt || p->th[v->arg].state == ST_DONE ||
		       &p->th[v->arg] == t;
	default:
		return true;
	}
}

/*
 * Threads blocked on @obj (NONE: on a thread) whose vertex is now ready
 * go back to the heap.  A CONSUME has found the sequences of its range
 * below lo + wait_c (cp_stream_ready()), so only the publish (@seq) of
 * one of the others can make it ready: the rest are not looked at (200
 * threads at a barrier each looked at the other 199 at every arrival).
 */
void cp_stream_wake(struct sp *p, uint32_t obj, uint64_t seq)
{
	for (uint32_t i = 0; i < p->nblocked; i++) {
		uint32_t tid = p->blocked[i];
		struct sth *t = &p->th[tid];

		if (t->wait_obj != obj ||
		    (obj != NONE && cp_tev_kind(&t->nx) == CP_EV_CONSUME &&
		     (seq < t->nx.arg + t->wait_c ||
		      seq - t->nx.arg >= t->nx.cnt)) ||
		    !cp_stream_ready(p, t))
			continue;
		p->blocked[i--] = p->blocked[--p->nblocked];
		t->state = ST_READY;
		cp_stream_heap_push(p, tid);
	}
}

/* ---- the census (damaged traces only) ------------------------------ */

/*
 * Note that @obj's @seq is published in the file.  0, or -1 (memory).  A
 * sequence past the event count (a damaged trace's: the runtime numbers
 * an object's publishes 1, 2, ...) goes into a hash set instead, so that
 * the bits stay at most one a publish.
 */
static int census_pub(struct sp *p, uint32_t obj, uint64_t seq)
{
	struct sobj *o = cp_stream_obj_at(p, obj);
	uint64_t w = seq >> 6, n;
	uint64_t *b;

	if (!o)
		return -1;
	if (seq > p->ix->t.nevents)
		return cp_map2_put(&p->far, obj, seq, 1);
	if (w >= o->nbits) {
		for (n = o->nbits ? o->nbits : 1; n <= w; n *= 2)
			;
		b = realloc(o->bits, n * sizeof(*b));
		if (!b)
			return -1;
		memset(b + o->nbits, 0, (n - o->nbits) * sizeof(*b));
		o->bits = b;
		o->nbits = n;
	}
	cp_bit_set(o->bits, seq);
	return 0;
}

/* Does the file publish @obj's @seq (census)? */
static bool census_has(const struct sp *p, uint32_t obj, uint64_t seq)
{
	const struct sobj *o = obj < p->nobj ? &p->obj[obj] : NULL;

	if (seq > p->ix->t.nevents)
		return cp_map2_get(&p->far, obj, seq) != CP_HASH_NONE;
	return o && (seq >> 6) < o->nbits && cp_bit_get(o->bits, seq);
}

/*
 * The census: which sequences and thread creations the whole file holds,
 * read in a pass of its own the first time every thread left is blocked
 * (a damaged or cut trace; a whole one never blocks for good).  A bit per
 * sequence up to each object's highest, a flag per thread.  0, or -1.
 */
static int census(struct sp *p)
{
	struct cp_tcursor c;
	struct cp_tev v;
	uint64_t wall;

	p->made = calloc(p->nt ? p->nt : 1, sizeof(*p->made));
	if (!p->made)
		return -1;
	for (uint32_t tid = 0; tid < p->nt; tid++) {
		cp_tcursor_init(&c, p->ix, tid, false);
		while (cp_tcursor_next(&c, &v, &wall)) {
			unsigned k = cp_tev_kind(&v);

			if (k == CP_EV_PUBLISH && census_pub(p, v.obj, v.arg)) {
				cp_tcursor_fini(&c);
				return -1;
			}
			if (k == CP_EV_THREAD_CREATE && v.arg < p->nt)
				p->made[v.arg] = true;
		}
		cp_tcursor_fini(&c);
	}
	return 0;
}

/* Does @tid's next vertex wait for what the file does not hold? */
static bool missing(const struct sp *p, uint32_t tid)
{
	const struct cp_tev *v = &p->th[tid].nx;

	switch (cp_tev_kind(v)) {
	case CP_EV_CONSUME:
		for (uint32_t c = 0; c < v->cnt; c++)
			if (!census_has(p, v->obj, v->arg + c))
				return true;
		return false;
	case CP_EV_THREAD_START:
		return !p->made[tid];
	default:
		return false;
	}
}

/* Blocked thread @i (index in p->blocked) goes on with its vertex made to
 * depend on nothing, counted once: a CONSUME consumes nothing (as the
 * reader's salvage makes it), anything else is inert (cp_trd_inert). */
static void force(struct sp *p, uint32_t i)
{
	uint32_t tid = p->blocked[i];
	struct cp_tev *v = &p->th[tid].nx;

	p->blocked[i] = p->blocked[--p->nblocked];
	if (cp_tev_kind(v) == CP_EV_CONSUME)
		v->cnt = 0;
	else
		cp_trd_inert_ev(v);
	p->th[tid].state = ST_READY;
	cp_stream_heap_push(p, tid);
	if (!p->records)
		p->s->nrepairs++;
}

/*
 * Every thread left is blocked: the trace does not hold what they wait
 * for (the reader's salvage: a CONSUME whose PUBLISH was lost, a START
 * nobody created, depends on nothing), found by the census; or its
 * dependencies form a cycle, and the earliest blocked vertex goes.  The
 * same in both passes.  0, or -1 (memory).
 */
int cp_stream_unstick(struct sp *p)
{
	uint32_t best = 0, n = p->nblocked;

	if (!p->made && census(p))
		return -1;
	for (uint32_t i = 0; i < p->nblocked; i++)
		if (missing(p, p->blocked[i]))
			force(p, i--);
	if (p->nblocked < n)
		return 0;
	for (uint32_t i = 1; i < p->nblocked; i++)
		if (cp_stream_before(p, p->blocked[i], p->blocked[best]))
			best = i;
	force(p, best);
	return 0;
}
