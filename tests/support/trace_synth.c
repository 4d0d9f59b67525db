/*
 * trace_synth.c - see trace_synth.h.
 */
#include "trace_synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_crc32c.h"
#include "cp_varint.h"

static void synth_oom(void)
{
	fprintf(stderr, "trace_synth: out of memory\n");
	abort();
}

uint64_t synth_rand(uint64_t *state, uint64_t n)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (*state >> 33) % n;
}

void synth_random_samples(struct synth *s, uint64_t *rng, uint32_t per,
			  uint32_t nproc)
{
	for (uint32_t tid = 0; tid < SYNTH_MAXT && s->t[tid].used; tid++) {
		uint64_t end = s->t[tid].now + 1000, x = synth_rand(rng, 1000);

		for (uint32_t k = 0; k < per; k++) {
			uint64_t pc[3];
			uint32_t depth = 1 + (uint32_t)synth_rand(rng, 3);

			x += 1 + synth_rand(rng, 2 * end / per + 1);
			for (uint32_t d = 0; d < depth; d++) {
				uint64_t i = synth_rand(rng, nproc);

				pc[d] = 0x1000 + 0x100 * i + (d ? 0x9 : 0x8);
			}
			synth_sample(s, tid, x, x, 1 + synth_rand(rng, 1000),
				     0, pc, depth);
		}
	}
}

void synth_init(struct synth *s)
{
	memset(s, 0, sizeof(*s));
	s->block_events = 1000;
	for (int i = 0; i < SYNTH_MAXT; i++)
		s->t[i].parent = UINT32_MAX;
}

void synth_free(struct synth *s)
{
	for (int i = 0; i < SYNTH_MAXT; i++)
		free(s->t[i].ev);
	free(s->syms);
	free(s->strs);
	free(s->smp);
	for (size_t i = 0; i < s->nraw; i++)
		free(s->raw[i].p);
	free(s->raw);
	memset(s, 0, sizeof(*s));
}

static struct synth_ev *synth_push(struct synth *s, uint32_t tid)
{
	struct synth_thread *t = &s->t[tid];

	if (tid >= SYNTH_MAXT)
		synth_oom();
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
		if (!t->ev)
			synth_oom();
	}
	t->used = true;
	memset(&t->ev[t->n], 0, sizeof(t->ev[0]));
	return &t->ev[t->n++];
}

void synth_vertex(struct synth *s, uint32_t tid, unsigned kind, bool wait,
		  uint64_t dt, uint64_t a, uint64_t b, uint64_t c)
{
	struct synth_ev *e = synth_push(s, tid);

	s->t[tid].now += dt;
	s->t[tid].wall += dt;
	e->op = (uint8_t)(kind | (wait ? CP_EVF_WAIT : 0));
	e->ts = s->t[tid].now;
	e->wall = s->t[tid].wall;
	e->a = a;
	e->b = b;
	e->c = c;
}

void synth_meta(struct synth *s, uint32_t tid, unsigned kind, uint64_t a,
		uint64_t b, uint64_t c, uint64_t d)
{
	struct synth_ev *e = synth_push(s, tid);

	e->op = (uint8_t)kind;
	e->a = a;
	e->b = b;
	e->c = c;
	e->ts = d;	/* OBJ_DEF's extra travels in ts */
}

void synth_start_late(struct synth *s, uint32_t tid, int parent,
		      uint64_t late)
{
	if (parent >= 0) {
		s->t[tid].parent = (uint32_t)parent;
		/* the child starts at the parent's clock (wall clock) */
		s->t[tid].now = s->t[parent].now;
		s->t[tid].wall = s->t[parent].wall;
	}
	synth_vertex(s, tid, CP_EV_THREAD_START, false, late,
		     parent >= 0 ? (uint64_t)parent + 1 : 0, 0, 0);
}

void synth_start(struct synth *s, uint32_t tid, int parent)
{
	synth_start_late(s, tid, parent, 0);
}

void synth_create(struct synth *s, uint32_t tid, uint64_t dt, uint32_t child)
{
	synth_vertex(s, tid, CP_EV_THREAD_CREATE, false, dt, child, 0, 0);
}

void synth_join(struct synth *s, uint32_t tid, uint64_t dt, bool wait,
		uint32_t child)
{
	synth_vertex(s, tid, CP_EV_THREAD_JOIN, wait, dt, child, 0, 0);
}

void synth_exit(struct synth *s, uint32_t tid, uint64_t dt)
{
	synth_vertex(s, tid, CP_EV_THREAD_EXIT, false, dt, 0, 0, 0);
}

uint32_t synth_obj(struct synth *s, uint32_t tid, unsigned kind,
		   uint64_t extra)
{
	uint32_t id = ++s->nobj;

	if (id >= SYNTH_MAXO)
		synth_oom();
	s->o[id].kind = (uint8_t)kind;
	s->o[id].extra = extra;
	synth_meta(s, tid, CP_EV_OBJ_DEF, id, kind, 0x1000 + 64 * id, extra);
	return id;
}

uint64_t synth_publish(struct synth *s, uint32_t tid, uint64_t dt,
		       uint32_t obj)
{
	uint64_t seq = ++s->o[obj].nseq;

	synth_vertex(s, tid, CP_EV_PUBLISH, false, dt, obj, seq, 0);
	s->o[obj].last_pub = seq;
	return seq;
}

void synth_consume(struct synth *s, uint32_t tid, uint64_t dt, bool wait,
		   uint32_t obj, uint64_t lo, uint64_t cnt)
{
	synth_vertex(s, tid, CP_EV_CONSUME, wait, dt, obj, lo, cnt);
}

void synth_request(struct synth *s, uint32_t tid, uint64_t dt, uint32_t obj)
{
	synth_vertex(s, tid, CP_EV_REQUEST, false, dt, obj, 0, 0);
}

void synth_lock(struct synth *s, uint32_t tid, uint64_t dt, uint64_t wait_ns,
		uint32_t obj)
{
	uint64_t last = s->o[obj].last_pub;

	if (wait_ns) {
		synth_request(s, tid, dt, obj);
		synth_consume(s, tid, wait_ns, true, obj, last ? last : 0,
			      last ? 1 : 0);
	} else {
		synth_consume(s, tid, dt, false, obj, last ? last : 0,
			      last ? 1 : 0);
	}
}

void synth_unlock(struct synth *s, uint32_t tid, uint64_t dt, uint32_t obj)
{
	synth_publish(s, tid, dt, obj);
}

static void rw_consume(struct synth *s, uint32_t tid, uint64_t dt,
		       uint64_t wait_ns, uint32_t obj, unsigned op,
		       uint64_t lo, uint64_t cnt)
{
	if (wait_ns) {
		synth_request(s, tid, dt, obj);
		synth_vertex(s, tid, op, true, wait_ns, obj, cnt ? lo : 0,
			     cnt);
	} else {
		synth_vertex(s, tid, op, false, dt, obj, cnt ? lo : 0, cnt);
	}
}

void synth_rdlock(struct synth *s, uint32_t tid, uint64_t dt,
		  uint64_t wait_ns, uint32_t obj)
{
	uint64_t w = s->o[obj].wseq;

	rw_consume(s, tid, dt, wait_ns, obj, CP_EV_CONSUME |
		   (s->no_shared ? 0 : CP_EVF_SHARED), w, w != 0);
}

void synth_wrlock(struct synth *s, uint32_t tid, uint64_t dt,
		  uint64_t wait_ns, uint32_t obj)
{
	struct synth_obj *o = &s->o[obj];
	uint64_t lo = o->wseq ? o->wseq : 1;

	rw_consume(s, tid, dt, wait_ns, obj, CP_EV_CONSUME, lo,
		   o->nseq >= lo ? o->nseq - lo + 1 : 0);
	o->writer = tid + 1;
}

void synth_rwunlock(struct synth *s, uint32_t tid, uint64_t dt, uint32_t obj)
{
	struct synth_obj *o = &s->o[obj];
	uint64_t seq = synth_publish(s, tid, dt, obj);

	if (o->writer == tid + 1) {
		o->wseq = seq;
		o->writer = 0;
	}
}

void synth_barrier(struct synth *s, uint32_t tid, uint64_t dt,
		   uint64_t wait_ns, uint32_t obj)
{
	struct synth_obj *o = &s->o[obj];
	uint64_t k = ++o->arrivals;
	uint64_t ep = (k - 1) / o->extra;

	synth_publish(s, tid, dt, obj);
	synth_consume(s, tid, wait_ns, true, obj, ep * o->extra + 1, o->extra);
}

void synth_enter(struct synth *s, uint32_t tid, uint64_t dt, uint64_t addr)
{
	synth_vertex(s, tid, CP_EV_ENTER, false, dt, addr, 0, 0);
}

void synth_leave(struct synth *s, uint32_t tid, uint64_t dt)
{
	synth_vertex(s, tid, CP_EV_LEAVE, false, dt, 0, 0, 0);
}

void synth_call(struct synth *s, uint32_t tid, uint64_t addr, uint64_t dt)
{
	synth_enter(s, tid, 0, addr);
	synth_leave(s, tid, dt);
}

void synth_region_begin(struct synth *s, uint32_t tid, uint64_t dt,
			uint32_t id)
{
	synth_vertex(s, tid, CP_EV_REGION_BEGIN, false, dt, id, 0, 0);
}

void synth_region_end(struct synth *s, uint32_t tid, uint64_t dt,
		      uint32_t id)
{
	synth_vertex(s, tid, CP_EV_REGION_END, false, dt, id, 0, 0);
}

static void synth_append(char **buf, size_t *len, const void *p, size_t n)
{
	*buf = realloc(*buf, *len + n);
	if (!*buf)
		synth_oom();
	memcpy(*buf + *len, p, n);
	*len += n;
}

void synth_symbol(struct synth *s, uint64_t addr, uint64_t size,
		  const char *name)
{
	synth_append(&s->syms, &s->syms_len, &addr, 8);
	synth_append(&s->syms, &s->syms_len, &size, 8);
	synth_append(&s->syms, &s->syms_len, name, strlen(name) + 1);
}

void synth_string(struct synth *s, uint32_t id, const char *text)
{
	synth_append(&s->strs, &s->strs_len, &id, 4);
	synth_append(&s->strs, &s->strs_len, text, strlen(text) + 1);
}

/* Output buffer. */
struct synth_out {
	uint8_t *p;
	size_t len, cap;
};

static void out_put(struct synth_out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2 + 4096;
		o->p = realloc(o->p, o->cap);
		if (!o->p)
			synth_oom();
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

static void out_block(struct synth_out *o, uint32_t type, uint32_t tid,
		      uint32_t seq, const void *payload, size_t size)
{
	struct cp_block_header h = {
		.magic = CP_BLOCK_MAGIC, .type = type, .tid = tid,
		.size = (uint32_t)size, .seq = seq,
	};

	cp_crc32c_init();
	h.crc = cp_block_crc(&h, payload);
	out_put(o, &h, sizeof(h));
	out_put(o, payload, size);
}

/* Encode events [i, j) of thread @tid as one EVENTS block. */
static void out_events(struct synth *s, struct synth_out *o, uint32_t tid,
		       size_t i, size_t j, uint64_t base, uint64_t wbase)
{
	struct synth_thread *t = &s->t[tid];
	uint8_t *pl = malloc(sizeof(struct cp_events_head) + (j - i) * 64);
	uint8_t *p;
	struct cp_events_head h = {
		.ts_base = base, .wall_base = s->hasw ? wbase : 0,
		.nevents = (uint32_t)(j - i),
	};
	uint64_t prev = base, prevw = wbase, prev_addr = 0;

	if (!pl)
		synth_oom();
	memcpy(pl, &h, sizeof(h));
	p = pl + sizeof(h);
	for (size_t k = i; k < j; k++) {
		const struct synth_ev *e = &t->ev[k];
		unsigned kind = e->op & CP_EV_KIND_MASK;

		*p++ = e->op;
		if (kind == CP_EV_OBJ_DEF) {
			p = cp_uv_put(p, e->a);
			*p++ = (uint8_t)e->b;
			p = cp_uv_put(p, e->c);
			p = cp_uv_put(p, e->ts);
			continue;
		}
		if (kind == CP_EV_OBJ_UNTRACK) {
			p = cp_uv_put(p, e->a);
			continue;
		}
		p = cp_uv_put(p, e->ts - prev);
		prev = e->ts;
		if (s->hasw) {
			p = cp_uv_put(p, e->wall - prevw);
			prevw = e->wall;
		}
		switch (kind) {
		case CP_EV_ENTER:
			p = cp_sv_put(p, (int64_t)(e->a - prev_addr));
			prev_addr = e->a;
			break;
		case CP_EV_PUBLISH:
			p = cp_uv_put(p, e->a);
			p = cp_uv_put(p, e->b);
			break;
		case CP_EV_CONSUME:
			p = cp_uv_put(p, e->a);
			p = cp_uv_put(p, e->b);
			p = cp_uv_put(p, e->c);
			break;
		case CP_EV_THREAD_START:
		case CP_EV_THREAD_CREATE:
		case CP_EV_THREAD_JOIN:
		case CP_EV_REQUEST:
		case CP_EV_FAIL:
		case CP_EV_REGION_BEGIN:
		case CP_EV_REGION_END:
			p = cp_uv_put(p, e->a);
			break;
		default:
			break;
		}
	}
	out_block(o, CP_BLOCK_EVENTS, tid, t->nblocks++, pl,
		  (size_t)(p - pl));
	free(pl);
}

void synth_sample(struct synth *s, uint32_t tid, uint64_t wall, uint64_t cpu,
		  uint64_t weight, uint32_t flags, const uint64_t *pc,
		  uint32_t depth)
{
	struct synth_smp *m;

	if (depth > CP_SAMPLE_MAX_DEPTH)
		synth_oom();
	if (s->nsmp == s->cap_smp) {
		s->cap_smp = s->cap_smp ? s->cap_smp * 2 : 64;
		s->smp = realloc(s->smp, s->cap_smp * sizeof(*s->smp));
		if (!s->smp)
			synth_oom();
	}
	m = &s->smp[s->nsmp++];
	m->tid = tid;
	m->wall = wall;
	m->cpu = cpu;
	m->weight = weight;
	m->flags = flags;
	m->depth = depth;
	memcpy(m->pc, pc, depth * sizeof(*pc));
}

void synth_raw_block(struct synth *s, uint32_t type, uint32_t tid,
		     const void *payload, size_t len)
{
	struct synth_raw *r;

	if (s->nraw == s->cap_raw) {
		s->cap_raw = s->cap_raw ? s->cap_raw * 2 : 8;
		s->raw = realloc(s->raw, s->cap_raw * sizeof(*s->raw));
		if (!s->raw)
			synth_oom();
	}
	r = &s->raw[s->nraw++];
	r->type = type;
	r->tid = tid;
	r->len = len;
	r->p = malloc(len ? len : 1);
	if (!r->p)
		synth_oom();
	memcpy(r->p, payload, len);
}

void synth_module(struct synth *s, uint64_t bias, uint64_t lo, uint64_t hi,
		  const void *build_id, uint8_t idlen, const char *path,
		  const void *image, uint32_t image_size)
{
	size_t pl = strlen(path) + 1;
	size_t len = 26 + idlen + pl + (image ? 4 + image_size : 0);
	uint8_t *b = malloc(len), *p = b;

	if (!b)
		synth_oom();
	memcpy(p, &bias, 8);
	memcpy(p + 8, &lo, 8);
	memcpy(p + 16, &hi, 8);
	p[24] = image ? CP_MODULE_IMAGE : 0;
	p[25] = idlen;
	p += 26;
	if (idlen)
		memcpy(p, build_id, idlen);
	p += idlen;
	memcpy(p, path, pl);
	p += pl;
	if (image) {
		memcpy(p, &image_size, 4);
		memcpy(p + 4, image, image_size);
	}
	synth_raw_block(s, CP_BLOCK_MODULES, 0, b, len);
	free(b);
}

/* One SAMPLES block of @tid: samples [i, j) of its list @idx. */
static void out_sample_block(struct synth *s, struct synth_out *o,
			     uint32_t tid, const size_t *idx, size_t i,
			     size_t j)
{
	size_t cap = 24 + (j - i) * (5 * 10 + CP_SAMPLE_MAX_DEPTH * 10);
	uint8_t *b = malloc(cap), *p = b + 24;
	struct cp_samples_head h = {
		.wall_base = s->smp[idx[i]].wall,
		.cpu_base = s->smp[idx[i]].cpu,
		.nsamples = (uint32_t)(j - i),
	};
	uint64_t wall = h.wall_base, cpu = h.cpu_base;

	if (!b)
		synth_oom();
	memcpy(b, &h, sizeof(h));
	for (size_t k = i; k < j; k++) {
		const struct synth_smp *m = &s->smp[idx[k]];
		uint64_t pc = 0;

		p = cp_uv_put(p, m->wall - wall);
		p = cp_uv_put(p, m->cpu - cpu);
		p = cp_uv_put(p, m->weight);
		p = cp_uv_put(p, m->flags);
		p = cp_uv_put(p, m->depth);
		for (uint32_t d = 0; d < m->depth; d++) {
			p = cp_sv_put(p, (int64_t)(m->pc[d] - pc));
			pc = m->pc[d];
		}
		wall = m->wall;
		cpu = m->cpu;
	}
	out_block(o, CP_BLOCK_SAMPLES, tid, 0, b, (size_t)(p - b));
	free(b);
}

/* Every thread's samples, split into blocks as synth_sample() says. */
static void out_samples(struct synth *s, struct synth_out *o)
{
	size_t *idx = malloc((s->nsmp + 1) * sizeof(*idx));

	if (!idx)
		synth_oom();
	for (uint32_t tid = 0; tid < SYNTH_MAXT; tid++) {
		size_t n = 0, i = 0;

		for (size_t k = 0; k < s->nsmp; k++)
			if (s->smp[k].tid == tid)
				idx[n++] = k;
		for (size_t k = 1; k <= n; k++) {
			const struct synth_smp *a = k < n ? &s->smp[idx[k]]
							  : NULL;
			const struct synth_smp *b = &s->smp[idx[k - 1]];

			if (k < n && k - i < s->block_events &&
			    a->wall >= b->wall && a->cpu >= b->cpu)
				continue;
			out_sample_block(s, o, tid, idx, i, k);
			i = k;
		}
	}
	free(idx);
}

size_t synth_encode(struct synth *s, uint8_t **outp)
{
	struct synth_out o = { 0 };
	struct cp_trace_header h;
	struct cp_trace_end end = { 0 };
	uint32_t nthreads = 0;
	static const char info[] = "exe\0synthetic\0clock\0test";

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CP_TRACE_MAGIC, 8);
	h.version = CP_TRACE_VERSION;
	h.header_size = CP_TRACE_HEADER_SIZE;
	h.clock = s->clock;
	h.flags = s->hasw ? CP_TRACE_HAS_WALL : 0;
	h.pid = s->pid ? s->pid : 4242;
	h.start_realtime_ns = s->start_realtime_ns;
	out_put(&o, &h, sizeof(h));
	for (uint32_t tid = 0; tid < SYNTH_MAXT; tid++) {
		s->t[tid].nblocks = 0;
		if (s->t[tid].used)
			nthreads = tid + 1;
	}
	/* interleave threads' blocks round-robin, as a real writer would */
	{
		size_t pos[SYNTH_MAXT] = { 0 };
		uint64_t base[SYNTH_MAXT] = { 0 }, wbase[SYNTH_MAXT] = { 0 };
		bool more = true;

		for (uint32_t tid = 0; tid < nthreads; tid++) {
			/* the first dt counts from the first vertex's clock
			 * minus nothing: base it at the thread's start */
			struct synth_thread *t = &s->t[tid];

			for (size_t k = 0; k < t->n; k++)
				if ((t->ev[k].op & CP_EV_KIND_MASK) <
				    CP_EV_META_FIRST) {
					base[tid] = t->ev[k].ts;
					wbase[tid] = t->ev[k].wall;
					break;
				}
		}
		while (more) {
			more = false;
			for (uint32_t tid = 0; tid < nthreads; tid++) {
				struct synth_thread *t = &s->t[tid];
				size_t i = pos[tid], j;

				if (i >= t->n)
					continue;
				j = i + s->block_events;
				if (j > t->n)
					j = t->n;
				out_events(s, &o, tid, i, j, base[tid],
					   wbase[tid]);
				for (size_t k = i; k < j; k++)
					if ((t->ev[k].op & CP_EV_KIND_MASK) <
					    CP_EV_META_FIRST) {
						base[tid] = t->ev[k].ts;
						wbase[tid] = t->ev[k].wall;
					}
				end.nevents += j - i;
				pos[tid] = j;
				more = more || j < t->n;
			}
		}
	}
	for (uint32_t tid = 0; tid < nthreads; tid++) {
		uint8_t buf[sizeof(struct cp_thread_info) + 16];
		struct cp_thread_info ti = {
			.tid = tid, .parent_tid = s->t[tid].parent,
			.pthread_id = 0x7f00 + tid,
		};
		int n = snprintf((char *)buf + sizeof(ti), 16, "t%u", tid);

		memcpy(buf, &ti, sizeof(ti));
		out_block(&o, CP_BLOCK_THREAD, tid, 0, buf,
			  sizeof(ti) + (size_t)n + 1);
	}
	out_samples(s, &o);
	for (size_t i = 0; i < s->nraw; i++)
		out_block(&o, s->raw[i].type, s->raw[i].tid, 0, s->raw[i].p,
			  s->raw[i].len);
	if (s->syms_len)
		out_block(&o, CP_BLOCK_SYMBOLS, 0, 0, s->syms, s->syms_len);
	if (s->strs_len)
		out_block(&o, CP_BLOCK_STRINGS, 0, 0, s->strs, s->strs_len);
	out_block(&o, CP_BLOCK_INFO, 0, 0, info, sizeof(info));
	end.online_len_ns = s->online_len;
	end.nthreads = nthreads;
	out_block(&o, CP_BLOCK_END, 0, 0, &end, sizeof(end));
	*outp = o.p;
	return o.len;
}

int synth_write(struct synth *s, const char *path)
{
	uint8_t *buf;
	size_t len = synth_encode(s, &buf);
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f || fwrite(buf, 1, len, f) != len)
		ret = -1;
	if (f && fclose(f))
		ret = -1;
	free(buf);
	return ret;
}

void synth_spawn(struct synth *s, uint32_t n)
{
	for (uint32_t i = 1; i <= n; i++) {
		synth_create(s, 0, 0, i);
		synth_start(s, i, 0);
	}
}

void synth_join_all(struct synth *s, uint32_t n, uint64_t dt)
{
	for (uint32_t i = 1; i <= n; i++)
		synth_join(s, 0, i == 1 ? dt : 0, true, i);
	synth_exit(s, 0, 0);
}

/* One thread of the lock example: work, take L, crit, release, exit. */
static void lock_example_thread(struct synth *s,
				const struct synth_lock_example *ex,
				uint32_t tid, uint64_t work_addr,
				uint64_t crit_addr, uint64_t work,
				uint64_t wait, uint32_t l)
{
	bool rw = ex->kind == CP_OBJ_RWLOCK;

	synth_call(s, tid, work_addr, work);
	if (rw)
		synth_wrlock(s, tid, 0, wait, l);
	else
		synth_lock(s, tid, 0, wait, l);
	synth_call(s, tid, crit_addr, 10 * (ex->unit ? ex->unit : 1));
	if (rw)
		synth_rwunlock(s, tid, 0, l);
	else
		synth_unlock(s, tid, 0, l);
	synth_exit(s, tid, 0);
}

void synth_lock_example(struct synth *s, const struct synth_lock_example *ex)
{
	uint64_t u = ex->unit ? ex->unit : 1;
	uint64_t t1 = ex->t1_work ? ex->t1_work : 30;
	uint64_t w1 = ex->one_work ? 0x1000 : 0x100;
	uint64_t w2 = ex->one_work ? 0x1000 : 0x200;
	uint64_t crit = ex->one_work ? 0x2000 : 0x300;
	uint32_t l;

	synth_init(s);
	if (ex->one_work) {
		synth_symbol(s, 0x1000, 0x10, "work");
		synth_symbol(s, 0x2000, 0x10, "crit");
	} else {
		synth_symbol(s, 0x100, 0x10, "work1");
		synth_symbol(s, 0x200, 0x10, "work2");
		synth_symbol(s, 0x300, 0x10, "crit");
	}
	synth_start(s, 0, -1);
	l = synth_obj(s, 0, ex->kind, 0);
	synth_spawn(s, 2);
	/* T2 first: its unlock is the lock's sequence 1 */
	lock_example_thread(s, ex, 2, w2, crit, 20 * u, 0, l);
	lock_example_thread(s, ex, 1, w1, crit, t1 * u,
			    t1 < 30 ? (30 - t1) * u : 0, l);
	synth_join_all(s, 2, 40 * u);
}

void synth_barrier_example(struct synth *s, bool procs)
{
	uint32_t b;

	synth_init(s);
	if (procs) {
		synth_symbol(s, 0x100, 0x10, "slow");
		synth_symbol(s, 0x200, 0x10, "tail");
	}
	synth_start(s, 0, -1);
	b = synth_obj(s, 0, CP_OBJ_BARRIER, 3);
	synth_spawn(s, 2);
	synth_barrier(s, 0, 10, 20, b);
	if (procs) {
		synth_call(s, 1, 0x100, 30);
		synth_barrier(s, 1, 0, 0, b);
	} else {
		synth_barrier(s, 1, 30, 0, b);
	}
	synth_barrier(s, 2, 20, 10, b);
	synth_exit(s, 1, 1);
	if (procs) {
		synth_call(s, 2, 0x200, 50);
		synth_exit(s, 2, 0);
	} else {
		synth_exit(s, 2, 50);
	}
	synth_join(s, 0, 5, true, 1);
	synth_join(s, 0, 45, true, 2);
	synth_exit(s, 0, 0);
}
