/*
 * cp_hash.h - two small open-addressing hash maps for the analyzer:
 * (u64, u64) -> u32 and string -> u32.  Linear probing, power-of-two
 * tables kept at most half full, no deletion.  Single-threaded.
 */
#ifndef CP_HASH_H
#define CP_HASH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cp_strhash.h"

#define CP_HASH_NONE UINT32_MAX

struct cp_map2_ent {
	uint64_t a, b;
	uint32_t val;		/* CP_HASH_NONE: empty */
};

struct cp_map2 {
	struct cp_map2_ent *ent;
	uint64_t mask;
	uint64_t count;
};

static inline uint64_t cp_hash_mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL);

	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

static inline void cp_map2_init(struct cp_map2 *m)
{
	memset(m, 0, sizeof(*m));
}

static inline void cp_map2_free(struct cp_map2 *m)
{
	free(m->ent);
	cp_map2_init(m);
}

static inline int cp_map2_grow(struct cp_map2 *m)
{
	uint64_t ncap = m->ent ? (m->mask + 1) * 2 : 64;
	struct cp_map2_ent *ne = malloc(ncap * sizeof(*ne));

	if (!ne)
		return -1;
	for (uint64_t i = 0; i < ncap; i++)
		ne[i].val = CP_HASH_NONE;
	if (m->ent) {
		for (uint64_t i = 0; i <= m->mask; i++) {
			uint64_t p;

			if (m->ent[i].val == CP_HASH_NONE)
				continue;
			p = cp_hash_mix(m->ent[i].a, m->ent[i].b) & (ncap - 1);
			while (ne[p].val != CP_HASH_NONE)
				p = (p + 1) & (ncap - 1);
			ne[p] = m->ent[i];
		}
		free(m->ent);
	}
	m->ent = ne;
	m->mask = ncap - 1;
	return 0;
}

/* Value of (@a, @b), or CP_HASH_NONE. */
static inline uint32_t cp_map2_get(const struct cp_map2 *m, uint64_t a,
				   uint64_t b)
{
	uint64_t p;

	if (!m->ent)
		return CP_HASH_NONE;
	p = cp_hash_mix(a, b) & m->mask;
	for (;;) {
		const struct cp_map2_ent *e = &m->ent[p];

		if (e->val == CP_HASH_NONE)
			return CP_HASH_NONE;
		if (e->a == a && e->b == b)
			return e->val;
		p = (p + 1) & m->mask;
	}
}

/* Set (@a, @b) to @val (not CP_HASH_NONE); returns 0 or -1 (memory). */
static inline int cp_map2_put(struct cp_map2 *m, uint64_t a, uint64_t b,
			      uint32_t val)
{
	uint64_t p;

	if ((!m->ent || (m->count + 1) * 2 > m->mask + 1) && cp_map2_grow(m))
		return -1;
	p = cp_hash_mix(a, b) & m->mask;
	for (;;) {
		struct cp_map2_ent *e = &m->ent[p];

		if (e->val == CP_HASH_NONE) {
			e->a = a;
			e->b = b;
			e->val = val;
			m->count++;
			return 0;
		}
		if (e->a == a && e->b == b) {
			e->val = val;
			return 0;
		}
		p = (p + 1) & m->mask;
	}
}

/* String map: the key strings are owned by the caller's array @strs. */
struct cp_smap {
	uint32_t *slot;		/* index into the caller's strings */
	uint64_t mask;
	uint64_t count;
};

static inline void cp_smap_free(struct cp_smap *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/* Index of @s among @strs, or CP_HASH_NONE. */
static inline uint32_t cp_smap_get(const struct cp_smap *m, char *const *strs,
				   const char *s)
{
	uint64_t p;

	if (!m->slot)
		return CP_HASH_NONE;
	p = cp_hash_str(s) & m->mask;
	for (;;) {
		uint32_t id = m->slot[p];

		if (id == CP_HASH_NONE || !strcmp(strs[id], s))
			return id;
		p = (p + 1) & m->mask;
	}
}

/* Record that strs[@id] is present; the caller checked it is new. */
static inline int cp_smap_add(struct cp_smap *m, char *const *strs,
			      uint32_t id)
{
	uint64_t p;

	if (!m->slot || (m->count + 1) * 2 > m->mask + 1) {
		uint64_t ncap = m->slot ? (m->mask + 1) * 2 : 64;
		uint32_t *ns = malloc(ncap * sizeof(*ns));

		if (!ns)
			return -1;
		memset(ns, 0xff, ncap * sizeof(*ns));
		for (uint64_t i = 0; m->slot && i <= m->mask; i++) {
			if (m->slot[i] == CP_HASH_NONE)
				continue;
			p = cp_hash_str(strs[m->slot[i]]) & (ncap - 1);
			while (ns[p] != CP_HASH_NONE)
				p = (p + 1) & (ncap - 1);
			ns[p] = m->slot[i];
		}
		free(m->slot);
		m->slot = ns;
		m->mask = ncap - 1;
	}
	p = cp_hash_str(strs[id]) & m->mask;
	while (m->slot[p] != CP_HASH_NONE)
		p = (p + 1) & m->mask;
	m->slot[p] = id;
	m->count++;
	return 0;
}

#endif /* CP_HASH_H */
