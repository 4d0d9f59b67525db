/*
 * cp_samples.c - decode and validate the SAMPLES and MODULES blocks.
 *
 * A SAMPLES block is a struct cp_samples_head and nsamples encoded samples
 * (cp_trace_format.h) of the thread its block header names (the header's
 * tid: the head has no thread field); every field is read through the
 * bounds-checked varint decoder, the depth is checked against
 * CP_SAMPLE_MAX_DEPTH before any PC is stored, and the block must end
 * exactly after its last sample.
 * A MODULES block is a sequence of module records; the union over all
 * blocks is kept, a (path, bias) seen twice being one module.  Payloads of
 * MODULES blocks are copied once and the records point into the copies.
 *
 * Cost: O(samples + PCs) time and 40 bytes per sample plus 8 per PC.
 */
#include "cp_samples.h"

#include "cp_perfmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_bigmem.h"
#include "cp_grow.h"
#include "cp_symbolize.h"
#include "cp_trace.h"
#include "cp_varint.h"

#define SHEAD_SIZE	24
#define MOD_FIXED	26	/* bias, lo, hi, flags, idlen */

_Static_assert(sizeof(struct cp_samples_head) == SHEAD_SIZE, "samples head");

static int bad(size_t *erroff, size_t off, char *why, size_t whylen,
	       const char *what)
{
	*erroff = off;
	snprintf(why, whylen, "%s", what);
	return -1;
}

static int samples_block(struct cp_samples *s, uint32_t tid,
			 const uint8_t *base, uint32_t size, size_t *erroff,
			 char *why, size_t whylen)
{
	const uint8_t *p = base + SHEAD_SIZE, *end = base + size;
	uint64_t wall, cpu;
	uint32_t n;

	if (size < SHEAD_SIZE)
		return bad(erroff, 0, why, whylen, "SAMPLES block too small");
	wall = cp_rd_u64(base);
	cpu = cp_rd_u64(base + 8);
	n = cp_rd_u32(base + 16);
	/* a sample takes at least five bytes */
	if (n > (size - SHEAD_SIZE) / 5)
		return bad(erroff, 16, why, whylen,
			   "SAMPLES block claims more samples than it holds");
	if (cp_grow((void **)&s->s, sizeof(*s->s), &s->cap, s->n + n))
		return bad(erroff, 0, why, whylen, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		size_t at = (size_t)(p - base);
		uint64_t dw, dc, weight, flags, depth, pc = 0;
		struct cp_sample *sm;

		if (cp_uv_get(&p, end, &dw) || cp_uv_get(&p, end, &dc) ||
		    cp_uv_get(&p, end, &weight) ||
		    cp_uv_get(&p, end, &flags) || cp_uv_get(&p, end, &depth))
			return bad(erroff, at, why, whylen,
				   "bad varint in a sample");
		if (wall + dw < wall || cpu + dc < cpu)
			return bad(erroff, at, why, whylen,
				   "sample timestamp overflows");
		if (flags & ~(uint64_t)(CP_SAMPLE_TRUNCATED |
					CP_SAMPLE_UNWIND_FAILED))
			return bad(erroff, at, why, whylen,
				   "unknown sample flags");
		if (depth > CP_SAMPLE_MAX_DEPTH) {
			*erroff = at;
			snprintf(why, whylen,
				 "sample of depth %" PRIu64 " (at most %d)",
				 depth, CP_SAMPLE_MAX_DEPTH);
			return -1;
		}
		if (cp_grow((void **)&s->pcs, sizeof(*s->pcs), &s->cap_pcs,
			    s->npcs + depth))
			return bad(erroff, at, why, whylen, "out of memory");
		for (uint64_t d = 0; d < depth; d++) {
			int64_t dpc;

			if (cp_sv_get(&p, end, &dpc))
				return bad(erroff, at, why, whylen,
					   "bad varint in a sample's stack");
			pc += (uint64_t)dpc;
			s->pcs[s->npcs + d] = pc;
		}
		wall += dw;
		cpu += dc;
		sm = &s->s[s->n++];
		memset(sm, 0, sizeof(*sm));
		sm->wall = wall;
		sm->cpu = cpu;
		sm->weight = weight;
		s->weight += weight;
		sm->pc_off = s->npcs;
		sm->tid = tid;
		sm->depth = (uint16_t)depth;
		sm->flags = (uint8_t)flags;
		s->npcs += depth;
		s->truncated += (flags & CP_SAMPLE_TRUNCATED) != 0;
		s->unwind_failed += (flags & CP_SAMPLE_UNWIND_FAILED) != 0;
	}
	s->decoded += n;
	if (p != end)
		return bad(erroff, (size_t)(p - base), why, whylen,
			   "stray bytes after the last sample of the block");
	return 0;
}

static int modules_block(struct cp_samples *s, const uint8_t *payload,
			 uint32_t size, size_t *erroff, char *why,
			 size_t whylen)
{
	uint8_t *copy = malloc(size ? size : 1);
	const uint8_t *p, *end;
	uint64_t cap;

	if (!copy)
		return bad(erroff, 0, why, whylen, "out of memory");
	memcpy(copy, payload, size);
	cap = s->cap_chunks;
	if (cp_grow((void **)&s->chunks, sizeof(*s->chunks), &cap,
		    (uint64_t)s->nchunks + 1)) {
		free(copy);
		return bad(erroff, 0, why, whylen, "out of memory");
	}
	s->cap_chunks = (uint32_t)cap;
	s->chunks[s->nchunks++] = copy;
	p = copy;
	end = copy + size;
	while (p < end) {
		size_t at = (size_t)(p - copy);
		struct cp_module m = { .bias = 0 };
		const uint8_t *z;
		uint8_t flags;
		bool dup = false;

		if ((size_t)(end - p) < MOD_FIXED)
			return bad(erroff, at, why, whylen,
				   "truncated module record");
		m.bias = cp_rd_u64(p);
		m.lo = cp_rd_u64(p + 8);
		m.hi = cp_rd_u64(p + 16);
		flags = p[24];
		m.idlen = p[25];
		p += MOD_FIXED;
		if (m.lo >= m.hi)
			return bad(erroff, at, why, whylen,
				   "module record with an empty range");
		if (flags & ~CP_MODULE_IMAGE)
			return bad(erroff, at, why, whylen,
				   "unknown module flags");
		if ((size_t)(end - p) < m.idlen)
			return bad(erroff, at, why, whylen,
				   "truncated module build-id");
		m.build_id = m.idlen ? p : NULL;
		p += m.idlen;
		z = memchr(p, 0, (size_t)(end - p));
		if (!z)
			return bad(erroff, at, why, whylen,
				   "module path not terminated");
		m.path = (const char *)p;
		p = z + 1;
		if (flags & CP_MODULE_IMAGE) {
			if (end - p < 4 ||
			    cp_rd_u32(p) > (size_t)(end - p) - 4)
				return bad(erroff, at, why, whylen,
					   "module image runs past the block");
			m.image_size = cp_rd_u32(p);
			m.image = p + 4;
			p += 4 + m.image_size;
		}
		for (uint32_t i = 0; i < s->nmods && !dup; i++)
			dup = s->mods[i].bias == m.bias &&
			      !strcmp(s->mods[i].path, m.path);
		if (dup)
			continue;
		cap = s->cap_mods;
		if (cp_grow((void **)&s->mods, sizeof(*s->mods), &cap,
			    (uint64_t)s->nmods + 1))
			return bad(erroff, at, why, whylen, "out of memory");
		s->cap_mods = (uint32_t)cap;
		s->mods[s->nmods++] = m;
	}
	return 0;
}

int cp_samples_add_block(struct cp_samples **sp, uint32_t type, uint32_t tid,
			 const uint8_t *payload, uint32_t size, size_t *erroff,
			 char *why, size_t whylen)
{
	if (!*sp) {
		*sp = calloc(1, sizeof(**sp));
		if (!*sp)
			return bad(erroff, 0, why, whylen, "out of memory");
	}
	if (type == CP_BLOCK_SAMPLES)
		return samples_block(*sp, tid, payload, size, erroff, why,
				     whylen);
	return modules_block(*sp, payload, size, erroff, why, whylen);
}

int cp_samples_finish(struct cp_samples *s, const struct cp_trace *t)
{
	struct cp_sample *by;
	uint64_t *at, k = 0, alloc = s->n ? s->n : 1;

	s->nthreads = t->nthreads;
	s->thr_off = calloc((size_t)t->nthreads + 1, sizeof(*s->thr_off));
	at = calloc((size_t)t->nthreads + 1, sizeof(*at));
	by = cp_big_malloc(alloc * sizeof(*by));
	if (!s->thr_off || !at || !by) {
		free(at);
		free(by);
		return -1;
	}
	/* samples of a thread with no events: nowhere to put them */
	for (uint64_t i = 0; i < s->n; i++) {
		uint32_t tid = s->s[i].tid;

		if (tid >= t->nthreads || !t->threads[tid].nv)
			s->unknown_thread++;
		else
			at[tid + 1]++;
	}
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		at[tid + 1] += at[tid];
	/* a stable counting sort by thread keeps each thread's file order */
	for (uint64_t i = 0; i < s->n; i++) {
		uint32_t tid = s->s[i].tid;

		if (tid < t->nthreads && t->threads[tid].nv)
			by[at[tid]++] = s->s[i];
	}
	s->n -= s->unknown_thread;
	/* within a thread, neither clock may run backwards */
	for (uint64_t i = 0; i < s->n; i++) {
		const struct cp_sample *sm = &by[i];
		const struct cp_sample *prev = k ? &by[k - 1] : NULL;

		if (prev && prev->tid == sm->tid &&
		    (sm->wall < prev->wall || sm->cpu < prev->cpu)) {
			s->backwards++;
			continue;
		}
		by[k++] = *sm;
	}
	s->n = k;
	for (uint64_t i = 0; i < s->n; i++)
		s->thr_off[by[i].tid + 1]++;
	for (uint32_t tid = 0; tid < t->nthreads; tid++)
		s->thr_off[tid + 1] += s->thr_off[tid];
	free(at);
	free(s->s);
	s->s = by;
	s->cap = alloc;
	return 0;
}

const struct cp_module *cp_samples_module(const struct cp_samples *s,
					  uint64_t addr)
{
	for (uint32_t i = 0; i < s->nmods; i++)
		if (addr >= s->mods[i].lo && addr < s->mods[i].hi)
			return &s->mods[i];
	return NULL;
}

void cp_samples_free(struct cp_samples *s)
{
	if (!s)
		return;
	free(s->s);
	free(s->pcs);
	free(s->thr_off);
	free(s->mods);
	for (uint32_t i = 0; i < s->nchunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	for (uint32_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->stk);
	free(s->stk_off);
	free(s->hot);
	cp_symbolize_close(s->sym);
	cp_perfmap_free(s->jit);
	free(s);
}
