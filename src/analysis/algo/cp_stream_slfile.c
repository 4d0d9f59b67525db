/*
 * cp_stream_slfile.c - the records pass's side of the streamed Slack:
 * each vertex's in-edges, their weights and the followed procedures'
 * shares of its thread segment, written to a scratch file (cp_spill.h) in
 * the pass's order, in the format cp_stream_slfile.h describes, for the
 * walks back of cp_stream_slack.c.  The pass (cp_stream.c) calls these
 * around each vertex it processes: begin, the pieces of its segment, the
 * records and thread ends that merge into it, the records made from it,
 * end_step; hubs between vertices.
 */
#include "cp_stream_int.h"

#include <errno.h>
#include <stdlib.h>

#include "cp_grow.h"
#include "cp_spill.h"
#include "cp_stream_slfile.h"
#include "cp_varint.h"

/* An in-edge of the vertex written: a slot's record, or a thread's path
 * (a JOIN's end, a group member's PUBLISH). */
struct sl_in {
	uint32_t id;
	bool thread;
	uint64_t et, f;
};

/* A virtual vertex waiting for the vertex it follows to be written. */
struct sl_virt {
	uint64_t f, et;
	uint32_t slot;
	uint8_t win;
	struct sl_in in[2];
};

/*
 * Is there room for the file in its directory?  A file that fills the
 * disk up would make the programs beside it fail too (and one in a tmpfs
 * is memory), so the room free must cover sp.sl_event_bytes an event; if
 * not, no Slack (ENOSPC), with what it needed and found.  A directory
 * that cannot be looked at is tried all the same.
 */
static bool room_for_file(struct sp *p)
{
	struct cp_stream *s = p->s;
	uint64_t need, avail;

	if (__builtin_mul_overflow(p->ix->t.nevents, p->sl_event_bytes,
				   &need))
		need = UINT64_MAX;
	s->slack_dir = cp_spill_dir();
	if (cp_spill_where(s->slack_dir, &s->slack_in_memory, &avail) ||
	    need <= avail)
		return true;
	s->slack_err = ENOSPC;
	s->slack_need = need;
	s->slack_avail = avail;
	return false;
}

int cp_stream_sl_start(struct sp *p)
{
	struct cp_stream_sl *sl;
	uint32_t nt = p->nt ? p->nt : 1;

	if (!room_for_file(p))
		return 0;	/* no Slack, said so; the rest goes on */
	sl = calloc(1, sizeof(*sl));
	if (!sl)
		return -1;
	sl->sp.fd = -1;
	sl->lastf = calloc(nt, sizeof(*sl->lastf));
	sl->endet = calloc(nt, sizeof(*sl->endet));
	sl->endmask = calloc(nt, sizeof(*sl->endmask));
	sl->endwall = calloc(nt, sizeof(*sl->endwall));
	sl->iv.fd = -1;
	p->sl = sl;
	if (!sl->lastf || !sl->endet || !sl->endmask || !sl->endwall)
		return -1;
	if (cp_spill_open(&sl->sp)) {
		p->s->slack_err = errno ? errno : ENOMEM;
		cp_stream_sl_free(p);
		return 0;	/* no Slack, said so; the rest goes on */
	}
	return 0;
}

/* The mask of @t's open followed procedures (the lanes of its segment). */
static uint64_t act_mask(const struct sth *t)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < t->k->nact; i++)
		m |= (uint64_t)1 << t->k->act[i];
	return m;
}

void cp_stream_sl_begin(struct sp *p, uint32_t tid, const struct sth *t)
{
	struct cp_stream_sl *sl = p->sl;

	sl->f = sl->nsteps++;
	sl->tid = tid;
	sl->first = !t->any;
	sl->etprev = t->len;
	sl->wd = t->any ? t->key - t->last_wall : 0;
	sl->mask0 = act_mask(t);
	sl->npc = sl->nin = sl->npub = sl->nvirt = 0;
}

void cp_stream_sl_piece(struct sp *p, const struct sth *t, uint64_t dt)
{
	struct cp_stream_sl *sl = p->sl;
	uint64_t m = act_mask(t);

	if (sl->npc && sl->pmask[sl->npc - 1] == m) {
		sl->pdt[sl->npc - 1] += dt;
		return;
	}
	if (sl->npc == sl->cap_pc) {
		uint32_t c1 = sl->cap_pc, c2 = sl->cap_pc;

		if (cp_grow32((void **)&sl->pmask, 8, &c1, sl->npc + 1) ||
		    cp_grow32((void **)&sl->pdt, 8, &c2, sl->npc + 1)) {
			p->nomem = true;
			return;
		}
		sl->cap_pc = c1 < c2 ? c1 : c2;
	}
	sl->pmask[sl->npc] = m;
	sl->pdt[sl->npc++] = dt;
}

static void add_in(struct sp *p, struct sl_in in)
{
	struct cp_stream_sl *sl = p->sl;

	if (sl->nin == sl->cap_in && cp_grow32((void **)&sl->in, sizeof(*sl->in), &sl->cap_in,
		      sl->nin + 1)) {
		p->nomem = true;
		return;
	}
	sl->in[sl->nin++] = in;
}

void cp_stream_sl_in_rec(struct sp *p, uint32_t r)
{
	add_in(p, (struct sl_in){ r, false, p->rlen[r], p->sl->rpos[r] });
}

void cp_stream_sl_in_join(struct sp *p, uint32_t c)
{
	add_in(p, (struct sl_in){ c, true, p->th[c].len, p->sl->lastf[c] });
}

/* Room for slot @r's position.  0, or -1 (memory). */
static int rpos_room(struct cp_stream_sl *sl, uint32_t r)
{
	return r < sl->cap_rpos ? 0 :
	       cp_grow32((void **)&sl->rpos, 8, &sl->cap_rpos, (uint64_t)r + 1);
}

int cp_stream_sl_rec(struct sp *p, uint32_t r)
{
	struct cp_stream_sl *sl = p->sl;

	if (rpos_room(sl, r) ||
	    (sl->npub == sl->cap_pub &&
	     cp_grow32((void **)&sl->pub, 4, &sl->cap_pub, sl->npub + 1)))
		return -1;
	sl->rpos[r] = sl->f;
	sl->pub[sl->npub++] = r;
	return 0;
}

/* A virtual vertex: slot @a's record merges in @b (before the merge). */
static void virt(struct sp *p, uint32_t a, struct sl_in b)
{
	struct cp_stream_sl *sl = p->sl;
	struct sl_virt *v;

	if (cp_grow32((void **)&sl->virt, sizeof(*sl->virt), &sl->cap_virt,
		      sl->nvirt + 1)) {
		p->nomem = true;
		return;
	}
	v = &sl->virt[sl->nvirt++];
	v->f = sl->nsteps++;
	v->slot = a;
	v->in[0] = (struct sl_in){ a, false, p->rlen[a], sl->rpos[a] };
	v->in[1] = b;
	/* the record keeps its own path on a tie (cp_stream_merge_into) */
	v->win = b.et > p->rlen[a] ? 2 : 1;
	v->et = b.et > p->rlen[a] ? b.et : p->rlen[a];
	sl->rpos[a] = v->f;
}

void cp_stream_sl_group_thread(struct sp *p, uint32_t a, uint32_t tid)
{
	virt(p, a, (struct sl_in){ tid, true, p->th[tid].len, p->sl->f });
}

void cp_stream_sl_group_rec(struct sp *p, uint32_t a, uint32_t r)
{
	virt(p, a, (struct sl_in){ r, false, p->rlen[r], p->sl->rpos[r] });
}

/* Room for a record of @n inputs, @pc pieces, @pub slots, its length
 * after it included. */
static size_t rec_max(uint32_t n, uint32_t pc, uint32_t pub)
{
	return 13 * CP_VARINT_MAX + 3 * CP_VARINT_MAX * (size_t)n +
	       2 * CP_VARINT_MAX * (size_t)pc + CP_VARINT_MAX * (size_t)pub;
}

/* The record whose body is [@body, @e), @body cp_spill_room()'s
 * pointer: its length after it, the bytes of its LEB128 last first, so
 * that the walk reads it from the record's end. */
static void seal(struct cp_spill *sp, uint8_t *body, uint8_t *e)
{
	uint8_t len[CP_VARINT_MAX];
	size_t ll = (size_t)(cp_uv_put(len, (uint64_t)(e - body)) - len);

	for (size_t i = 0; i < ll; i++)
		e[i] = len[ll - 1 - i];
	cp_spill_done(sp, e + ll);
}

static uint8_t *put_in(uint8_t *q, const struct sl_in *in, uint64_t et,
		       uint64_t f)
{
	q = cp_uv_put(q, (uint64_t)in->id << 1 | in->thread);
	q = cp_uv_put(q, et - in->et);
	return cp_uv_put(q, f - in->f);
}

/* A virtual vertex's record at @q: slot @slot's version of et @et,
 * its winner @win and @n inputs to come. */
static uint8_t *virt_head(uint8_t *q, uint32_t slot, uint64_t et,
			  uint32_t win, uint32_t n)
{
	*q++ = F_VIRT;
	q = cp_uv_put(q, slot);
	q = cp_uv_put(q, et);
	q = cp_uv_put(q, win);
	return cp_uv_put(q, n);
}

void cp_stream_sl_end_step(struct sp *p, const struct sth *t)
{
	struct cp_stream_sl *sl = p->sl;
	uint64_t et = t->len, mask1 = act_mask(t), own = sl->etprev, w = 0;
	uint32_t win = 0;
	bool pieces = false;
	uint8_t *b, *q;

	if (p->nomem)
		return;
	for (uint32_t i = 0; i < sl->npc; i++) {
		w += sl->pdt[i];
		pieces |= sl->pmask[i] != sl->mask0;
	}
	pieces |= mask1 != sl->mask0;
	own += w;
	/* the tree's in-edge: the thread's own unless an input is longer
	 * (the first of the longest: cp_stream_merge_into's ties) */
	for (uint32_t j = 0; j < sl->nin; j++)
		if (sl->in[j].et > own) {
			own = sl->in[j].et;
			win = j + 1;
		}
	b = q = cp_spill_room(&sl->sp, rec_max(sl->nin, sl->npc, sl->npub));
	if (!b)
		goto virtuals;
	*q++ = (uint8_t)((sl->first ? F_FIRST : 0) | (pieces ? F_PIECES : 0));
	q = cp_uv_put(q, sl->tid);
	if (pieces)
		q = cp_uv_put(q, sl->mask0);
	q = cp_uv_put(q, sl->npub);
	for (uint32_t i = 0; i < sl->npub; i++)
		q = cp_uv_put(q, sl->pub[i]);
	if (!sl->first) {
		q = cp_uv_put(q, w);
		q = cp_uv_put(q, et - sl->etprev - w);
		q = cp_uv_put(q, sl->f - sl->lastf[sl->tid]);
		q = cp_uv_put(q, sl->wd);
	}
	if (pieces) {
		q = cp_uv_put(q, sl->npc);
		for (uint32_t i = 0; i < sl->npc; i++) {
			q = cp_uv_put(q, sl->pmask[i]);
			q = cp_uv_put(q, sl->pdt[i]);
		}
	}
	q = cp_uv_put(q, win);
	q = cp_uv_put(q, sl->nin);
	for (uint32_t j = 0; j < sl->nin; j++)
		q = put_in(q, &sl->in[j], et, sl->f);
	seal(&sl->sp, b, q);
virtuals:
	sl->lastf[sl->tid] = sl->f;
	sl->endet[sl->tid] = et;
	sl->endmask[sl->tid] = mask1;
	sl->endwall[sl->tid] = t->key;
	for (uint32_t i = 0; i < sl->nvirt; i++) {
		const struct sl_virt *v = &sl->virt[i];

		b = cp_spill_room(&sl->sp, rec_max(2, 0, 0));
		if (!b)
			return;
		q = virt_head(b, v->slot, v->et, v->win, 2);
		q = put_in(q, &v->in[0], v->et, v->f);
		q = put_in(q, &v->in[1], v->et, v->f);
		seal(&sl->sp, b, q);
	}
}

void cp_stream_sl_hub(struct sp *p, uint32_t h, const uint32_t *m,
		      uint32_t n)
{
	struct cp_stream_sl *sl = p->sl;
	uint64_t f = sl->nsteps++, et = 0;
	uint32_t win = 0;
	uint8_t *b, *q;

	if (p->nomem)
		return;
	if (rpos_room(sl, h)) {
		p->nomem = true;
		return;
	}
	for (uint32_t j = 0; j < n; j++)
		if (!win || p->rlen[m[j]] > et) {
			et = p->rlen[m[j]];
			win = j + 1;
		}
	b = cp_spill_room(&sl->sp, rec_max(n, 0, 0));
	if (b) {
		q = virt_head(b, h, et, win, n);
		for (uint32_t j = 0; j < n; j++)
			q = put_in(q, &(struct sl_in){ m[j], false,
				   p->rlen[m[j]], sl->rpos[m[j]] }, et, f);
		seal(&sl->sp, b, q);
	}
	sl->rpos[h] = f;
}

struct cp_spill *cp_stream_sl_segments(struct sp *p)
{
	return &p->sl->iv;
}

void cp_stream_sl_free(struct sp *p)
{
	struct cp_stream_sl *sl = p->sl;

	if (!sl)
		return;
	cp_spill_close(&sl->sp);
	free(sl->pmask);
	free(sl->pdt);
	free(sl->in);
	free(sl->pub);
	free(sl->virt);
	free(sl->rpos);
	free(sl->lastf);
	free(sl->endet);
	free(sl->endmask);
	free(sl->endwall);
	cp_spill_close(&sl->iv);
	free(sl);
	p->sl = NULL;
}
