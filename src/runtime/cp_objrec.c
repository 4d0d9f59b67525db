/*
 * cp_objrec.c - the table of object path records and the per-thread maps
 * in front of it (see cp_objrec.h).
 *
 * Deleted records wait in a limbo list; once a batch has gathered, one
 * synchronize_rcu() covers them all (no lookup in the table can still be
 * walking over them) and they go to the free list, from which new records
 * are taken before the arena is asked.  This keeps the tracer free of
 * helper threads (no call_rcu worker in the traced process) at the cost
 * of one grace period per batch of destroys, which blocks the destroying
 * thread (tens of microseconds with both cores busy, more when a reader
 * was preempted): the batch grows with the records retired so far, from
 * CP_LIMBO_MIN to CP_LIMBO_MAX, so a program that destroys objects by the
 * million waits for dozens of grace periods, not thousands, and one that
 * destroys a few holds few dead records.  The time a thread waits there
 * is the tracer's own (cp_thread.tracer_wait_ns), not the program's.
 */
#define _LGPL_SOURCE
#include "cp_objrec.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cp_alloc.h"
#include "cp_clock.h"
#include "cp_die.h"
#include "cp_runtime.h"
#include "cp_sites.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"
#include "cp_tsan.h"

#define CP_LIMBO_MIN 128
#define CP_LIMBO_MAX 8192

static struct cds_lfht *cp_objrec_table;
static atomic_uint cp_objrec_next_id;
static uint32_t cp_objrec_id0;	/* the next id at cp_objrec_init */
static struct cp_lock cp_objrec_limbo_lock;
static struct cp_objrec *cp_objrec_limbo;
static unsigned cp_objrec_limbo_n;
static uint64_t cp_objrec_limbo_total;	/* records retired so far */
static struct cp_objrec *cp_objrec_free;	/* past their grace period */

/*
 * New records are carved from slabs whose pages are faulted in at once:
 * a program with 50,000 locks (one per block of a matrix, say) would
 * otherwise take a page fault every twenty records.  Slabs double from
 * 16 kB to 1 MB, so a small program keeps a small footprint.  Under the
 * limbo lock.
 */
#define CP_SLAB_MIN (16u << 10)
#define CP_SLAB_MAX (1u << 20)
static char *cp_slab_pos, *cp_slab_end;
static size_t cp_slab_size = CP_SLAB_MIN;

/* Addresses given to cpthread_untrack(), consulted when a record is
 * created (the object may be untracked before its first use). */
#define CP_MAX_UNTRACKED 1024
static struct cp_lock cp_untracked_lock;
static uintptr_t cp_untracked[CP_MAX_UNTRACKED];
static atomic_uint cp_nuntracked;

struct cp_objrec_retired cp_objrec_retired[CP_OBJ_KIND_MAX + 1];
static struct cp_objstat cp_retired_top[CP_OBJSTAT_TOP];
static uint32_t cp_retired_ntop;

uint32_t cp_objrec_new_id(void)
{
	return atomic_fetch_add_explicit(&cp_objrec_next_id, 1,
					 memory_order_relaxed) + 1;
}

bool cp_objrec_none_made(void)
{
	return atomic_load_explicit(&cp_objrec_next_id,
				    memory_order_relaxed) == cp_objrec_id0;
}

static unsigned long hash_key(uintptr_t key)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;

	return (unsigned long)(h ^ (h >> 29));
}

/* The record of a node the table gave us: published by new_rec's
 * thread before cds_lfht_add_unique (cp_tsan.h). */
static struct cp_objrec *rec_of(struct cds_lfht_node *node)
{
	struct cp_objrec *r = caa_container_of(node, struct cp_objrec, node);

	cp_tsan_acquire(r);
	return r;
}

static int match_key(struct cds_lfht_node *node, const void *key)
{
	const struct cp_objrec *r = rec_of(node);

	return r->key == *(const uintptr_t *)key;
}

uintptr_t cp_objrec_hint_seal;

/* A fresh seal for the record hints of this process (never 0, so that
 * two zero words are no hint). */
static void new_hint_seal(void)
{
	uintptr_t s = 0;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s))
		s = (uintptr_t)cp_clock_wall() * 0x9e3779b97f4a7c15ull ^
		    (uintptr_t)getpid() << 32 ^ (uintptr_t)&s;
	cp_objrec_hint_seal = s | 1;
}

/*
 * 8192 buckets to begin with (128 kB, made as fast as 1024): liburcu
 * grows the table only at eight records a bucket, and a program with
 * tens of thousands of locks would walk long chains at every insert until
 * then.  (Work-queue items are not kept here: cp_items.h.)  A new seal
 * for the hints too: at start-up and in a forked child.
 */
int cp_objrec_init(void)
{
	new_hint_seal();
	cp_objrec_table = cds_lfht_new(8192, 1024, 0,
				       CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
				       NULL);
	cp_objrec_limbo = NULL;
	cp_objrec_limbo_n = 0;
	cp_objrec_limbo_total = 0;
	cp_objrec_free = NULL;
	cp_retired_ntop = 0;
	cp_objrec_id0 = atomic_load(&cp_objrec_next_id);
	memset(&cp_objrec_limbo_lock, 0, sizeof(cp_objrec_limbo_lock));
	return cp_objrec_table ? 0 : -ENOMEM;
}

void cp_objrec_thread_begin(void)
{
	urcu_bp_register_thread();
}

/* May the calling thread enter a read-side section (see the header)? */
static inline bool rcu_usable(void)
{
	return URCU_TLS(urcu_bp_reader) != NULL || cp_tls.self == NULL;
}

/* A record and its vectors, in whole cache lines. */
static size_t rec_size(void)
{
	size_t n = sizeof(struct cp_objrec) + 2 * cp_rt.nsel * sizeof(uint64_t);

	return (n + CP_CACHE_LINE - 1) & ~(size_t)(CP_CACHE_LINE - 1);
}

/* Free a record's extras and put it on the free list; its tag is 0.  No
 * lookup may still reach it (never inserted, or past a grace period). */
static void free_rec(struct cp_objrec *r)
{
	if (r->kind == CP_OBJ_BARRIER) {
		cp_free(r->u.barrier.slot[0]);
		cp_free(r->u.barrier.slot[1]);
	} else if (r->kind == CP_OBJ_RWLOCK) {
		cp_free(r->u.rw.rpath);
	} else if (r->kind == CP_OBJ_SEM) {
		cp_free(r->u.sem.fifo);	/* the paths are inside */
	}
	cp_lock_acquire(&cp_objrec_limbo_lock);
	r->limbo_next = cp_objrec_free;
	cp_objrec_free = r;
	cp_lock_release(&cp_objrec_limbo_lock);
}

/*
 * A zeroed record: from the free list, else from a slab.  A stale map
 * entry may read the tag of a reused record at any time: it stays 0 here
 * (it was cleared when the record left the table) and is set only once
 * the record is in the table.
 */
static struct cp_objrec *alloc_rec(void)
{
	size_t hot = offsetof(struct cp_objrec, seq), sz = rec_size();
	struct cp_objrec *r;

	cp_lock_acquire(&cp_objrec_limbo_lock);
	r = cp_objrec_free;
	if (r) {
		cp_objrec_free = r->limbo_next;
	} else {
		if (cp_slab_end - cp_slab_pos < (ptrdiff_t)sz) {
			size_t n = cp_slab_size > sz ? cp_slab_size : sz;

			cp_slab_pos = cp_zalloc_populated(n);
			cp_slab_end = cp_slab_pos ? cp_slab_pos + n : NULL;
			if (cp_slab_size < CP_SLAB_MAX)
				cp_slab_size *= 2;
		}
		r = (struct cp_objrec *)cp_slab_pos;	/* zeroed */
		if (r)
			cp_slab_pos += sz;
		cp_lock_release(&cp_objrec_limbo_lock);
		return r;
	}
	cp_lock_release(&cp_objrec_limbo_lock);
	memset(r, 0, offsetof(struct cp_objrec, tag));
	memset((char *)r + hot, 0, sz - hot);
	return r;
}

static struct cp_objrec *new_rec(uintptr_t key, unsigned kind, uint64_t extra)
{
	size_t psz = cp_path_size(cp_rt.nsel);
	struct cp_objrec *r = alloc_rec();

	if (!r)
		return NULL;
	r->key = key;
	r->kind = (uint8_t)kind;
	r->main.owner = CP_PATH_MIXED;
	switch (kind) {
	case CP_OBJ_BARRIER:
		r->u.barrier.count = extra ? (uint32_t)extra : 1;
		r->u.barrier.slot[0] = cp_zalloc_lines(psz);
		r->u.barrier.slot[1] = cp_zalloc_lines(psz);
		if (!r->u.barrier.slot[0] || !r->u.barrier.slot[1])
			goto fail;
		break;
	case CP_OBJ_RWLOCK:
		r->u.rw.writer = UINT32_MAX;
		r->u.rw.rpath = cp_zalloc_lines(psz);
		if (!r->u.rw.rpath)
			goto fail;
		break;
	case CP_OBJ_SEM:
		r->u.sem.free_tokens = extra;
		break;
	default:
		break;
	}
	return r;
fail:
	free_rec(r);
	return NULL;
}

/* ---- the per-thread map ----------------------------------------------- */

/* Double the map, keeping the entries still valid; at the largest size
 * (or out of memory) start over empty instead.  A valid entry's key is
 * its record's tag. */
static void map_grow(struct cp_thread *t)
{
	uint32_t n = t->cache_mask + 1;
	cp_map_slot *old = t->cache;
	cp_map_slot *nc = NULL;

	if (n < CP_CACHE_MAX)
		nc = cp_zalloc_lines(2 * (size_t)n * sizeof(*nc));
	if (!nc) {
		memset(old, 0, n * sizeof(*old));
		t->cache_used = 0;
		return;
	}
	t->cache = nc;
	t->cache_mask = 2 * n - 1;
	t->cache_used = 0;
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t tag;
		cp_map_slot *s;

		if (!old[i])
			continue;
		tag = atomic_load_explicit(&cp_map_rec(old[i])->tag,
					   memory_order_relaxed);
		if (!tag || !cp_map_may_hold(old[i], tag))
			continue;
		s = cp_objrec_map_slot(t, tag);
		if (!*s)
			t->cache_used++;
		*s = old[i];
	}
	cp_free(old);
}

struct cp_objrec *cp_objrec_map_probe(const struct cp_thread *t,
				      uintptr_t key)
{
	for (uint32_t i = cp_cache_home(key) + 1;; i++) {
		cp_map_slot w = t->cache[i & t->cache_mask];

		if (!w)
			return NULL;
		/* a slot of another key with the fingerprint: go on */
		if (cp_map_may_hold(w, key) &&
		    atomic_load_explicit(&cp_map_rec(w)->tag,
					 memory_order_relaxed) == key)
			return cp_map_rec(w);
	}
}

/* Remember @r as @key's record in @t's map (not one the slot's 48 bits
 * cannot hold). */
static void map_put(struct cp_thread *t, uintptr_t key, struct cp_objrec *r)
{
	cp_map_slot *s;

	if ((uintptr_t)r & ~CP_MAP_REC)
		return;
	s = cp_objrec_map_slot(t, key);
	if (!*s) {
		if (cp_map_over(t->cache_used + 1, t->cache_mask)) {
			map_grow(t);
			s = cp_objrec_map_slot(t, key);
		}
		t->cache_used++;
	}
	*s = (uintptr_t)r | cp_map_fp(key);
}

struct cp_objrec *cp_objrec_find(const void *addr, unsigned ns)
{
	uintptr_t key = cp_objrec_key(addr, ns);
	struct cds_lfht_iter it;
	struct cds_lfht_node *node;
	struct cp_objrec *r = NULL;

	if (!rcu_usable())
		return NULL;
	rcu_read_lock();
	cds_lfht_lookup(cp_objrec_table, hash_key(key), match_key, &key, &it);
	node = cds_lfht_iter_get_node(&it);
	if (node)
		r = rec_of(node);
	rcu_read_unlock();
	return r;
}

void cp_objstat_of(const struct cp_objrec *r, struct cp_objstat *out)
{
	out->addr = r->key >> 2;
	out->id = r->id;
	out->kind = r->kind;
	out->untracked = atomic_load(&r->untracked);
	out->ops = r->ops;
	out->contended = r->contended;
	out->wait_ns = r->wait_ns;
	out->gain_ns = r->gain_ns;
	out->site = r->site;
}

bool cp_objstat_insert(struct cp_objstat *top, uint32_t *n,
		       const struct cp_objstat *s)
{
	uint64_t w = cp_objstat_weight(s);
	uint32_t i;

	if (*n == CP_OBJSTAT_TOP && cp_objstat_weight(&top[*n - 1]) >= w)
		return false;
	if (*n < CP_OBJSTAT_TOP)
		(*n)++;
	for (i = *n - 1; i > 0 && cp_objstat_weight(&top[i - 1]) < w; i--)
		top[i] = top[i - 1];
	top[i] = *s;
	return true;
}

uint32_t cp_objrec_retired_top(struct cp_objstat *out)
{
	uint32_t n;

	cp_lock_acquire(&cp_objrec_limbo_lock);
	n = cp_retired_ntop;
	memcpy(out, cp_retired_top, n * sizeof(*out));
	cp_lock_release(&cp_objrec_limbo_lock);
	return n;
}

void cp_objrec_retired_add(const struct cp_objrec *r)
{
	unsigned k = r->kind <= CP_OBJ_KIND_MAX ? r->kind : 0;
	struct cp_objrec_retired *s = &cp_objrec_retired[k];

	s->objects++;
	s->ops += r->ops;
	s->contended += r->contended;
	s->wait_ns += r->wait_ns;
	s->gain_ns += r->gain_ns;
}

/* Call with the limbo lock held. */
static void retire_stats(const struct cp_objrec *r)
{
	struct cp_objstat st;

	cp_objrec_retired_add(r);
	cp_objstat_of(r, &st);
	if (cp_objstat_weight(&st))
		cp_objstat_insert(cp_retired_top, &cp_retired_ntop, &st);
}

/* Records a limbo list gathers before its grace period, having retired
 * @total: an eighth of them, within the bounds.  Under the limbo lock. */
static unsigned limbo_batch(uint64_t total)
{
	uint64_t b = total / 8;

	return b < CP_LIMBO_MIN ? CP_LIMBO_MIN :
	       b > CP_LIMBO_MAX ? CP_LIMBO_MAX : (unsigned)b;
}

/* Wait until no reader can hold a record retired so far, and count the
 * wait as the calling thread's time inside the tracer. */
static void grace_period(void)
{
	struct cp_thread *t = cp_tls.self;
	uint64_t t0 = cp_clock_wall();

	synchronize_rcu();
	if (t)
		__atomic_fetch_add(&t->tracer_wait_ns, cp_clock_wall() - t0,
				   __ATOMIC_RELAXED);
}

/* Unlink @r (RCU read side held by the caller) and queue it for freeing. */
static void retire(struct cp_objrec *r)
{
	struct cp_objrec *batch = NULL;

	if (cds_lfht_del(cp_objrec_table, &r->node) != 0)
		return;		/* someone else deleted it */
	atomic_store_explicit(&r->tag, 0, memory_order_release);
	cp_lock_acquire(&cp_objrec_limbo_lock);
	retire_stats(r);
	r->limbo_next = cp_objrec_limbo;
	cp_objrec_limbo = r;
	cp_objrec_limbo_total++;
	if (++cp_objrec_limbo_n >= limbo_batch(cp_objrec_limbo_total)) {
		batch = cp_objrec_limbo;
		cp_objrec_limbo = NULL;
		cp_objrec_limbo_n = 0;
	}
	cp_lock_release(&cp_objrec_limbo_lock);
	if (batch) {
		rcu_read_unlock();
		grace_period();
		rcu_read_lock();
		while (batch) {
			struct cp_objrec *next = batch->limbo_next;

			free_rec(batch);
			batch = next;
		}
	}
}

static bool is_untracked(uintptr_t key)
{
	bool found = false;

	cp_lock_acquire(&cp_untracked_lock);
	for (unsigned i = 0; i < atomic_load(&cp_nuntracked); i++)
		if (cp_untracked[i] == key)
			found = true;
	cp_lock_release(&cp_untracked_lock);
	return found;
}

static void mark_untracked(struct cp_thread *t, struct cp_objrec *r)
{
	atomic_store(&r->untracked, true);
	if (t->tb) {
		uint8_t *p = cp_tb_meta(t->tb, CP_EV_OBJ_UNTRACK);

		cp_tb_commit(t->tb, cp_uv_put(p, r->id));
	}
}

void cp_objrec_untrack(struct cp_thread *t, const void *addr)
{
	uintptr_t key = cp_objrec_key(addr, CP_NS_SYNC);
	struct cp_objrec *r;

	if (!is_untracked(key)) {
		cp_lock_acquire(&cp_untracked_lock);
		if (atomic_load(&cp_nuntracked) < CP_MAX_UNTRACKED) {
			cp_untracked[atomic_load(&cp_nuntracked)] = key;
			atomic_fetch_add(&cp_nuntracked, 1);
		}
		cp_lock_release(&cp_untracked_lock);
	}
	r = cp_objrec_find(addr, CP_NS_SYNC);
	if (r && !atomic_load(&r->untracked))
		mark_untracked(t, r);
}

/*
 * Trace mode, @t found record @r of @key made by another thread: unless
 * the block holding its OBJ_DEF was written, define it again in @t's
 * buffer, before @t's first event on it.  A SIGKILL loses each thread's
 * unwritten buffer; without the copy the object's definition could go
 * with its creator's while another thread's events on it reached the
 * file, and those would be unusable (the reader makes events of an
 * undefined object inert).  The copies agree, which the reader accepts.
 * A record still being made (tag not yet set) is its creator's to define.
 */
static void repeat_def(struct cp_thread *t, struct cp_objrec *r,
		       uintptr_t key)
{
	if (atomic_load_explicit(&r->tag, memory_order_acquire) != key ||
	    cp_objrec_defined_for(t, r))
		return;
	cp_tb_obj_def(t->tb, r->id, r->kind, key >> 2, r->def_extra);
}

struct cp_objrec *cp_objrec_lookup_slow(struct cp_thread *t, uintptr_t key,
					unsigned kind, uint64_t extra,
					unsigned how, const void *ra)
{
	struct cds_lfht_iter it;
	struct cds_lfht_node *node;
	struct cp_objrec *r, *mine;
	bool lookup = !(how & CP_REC_NEW);
	uint64_t stack[CP_SITE_DEPTH] = { cp_sites_at(ra) };
	unsigned nstack = stack[0] != 0, n = 0;
	/* unwind for the site (@ra was the tracer's own code) or for its
	 * callers (a synchronization object in trace mode), once the table
	 * has no record: a look-up of an existing one stays cheap */
	bool callers = (key & 3) == CP_NS_SYNC && cp_sites_stacks_left();
	bool sited = !cp_sites_enabled() || (nstack && !callers);

	if (!rcu_usable())
		return NULL;
	rcu_read_lock();
	for (;;) {
		if (lookup) {
			cds_lfht_lookup(cp_objrec_table, hash_key(key),
					match_key, &key, &it);
			node = cds_lfht_iter_get_node(&it);
			if (node) {
				r = rec_of(node);
				if (r->kind == kind) {
					if (t->tb)
						repeat_def(t, r, key);
					break;
				}
				/* memory reused for another kind of object */
				retire(r);
				continue;
			}
		}
		if (!sited) {
			/* The unwinder takes the loader's lock: not on the
			 * read side, which a thread in the loader may wait
			 * for; then look again */
			rcu_read_unlock();
			if (callers && cp_sites_take_stack())
				n = cp_sites_stack(stack, CP_SITE_DEPTH);
			else if (!nstack)
				n = cp_sites_stack(stack, 1);
			if (n)
				nstack = n;
			rcu_read_lock();
			sited = lookup = true;
			continue;
		}
		mine = new_rec(key, kind, extra);
		if (!mine) {
			r = NULL;
			break;
		}
		/* what a thread that finds it reads, before it can: a
		 * thread that lost the race to make it finds it at once,
		 * and wrote its events with id 0 when the id came after
		 * (a lost race leaves a gap in the ids, which the reader
		 * takes as an object never used) */
		mine->id = cp_objrec_new_id();
		mine->def_extra = extra;
		mine->site = nstack ? stack[0] : 0;
		cp_tsan_release(mine);
		node = cds_lfht_add_unique(cp_objrec_table, hash_key(key),
					   match_key, &key, &mine->node);
		if (node != &mine->node) {
			free_rec(mine);	/* it exists: another thread won */
			lookup = true;
			continue;
		}
		r = mine;
		if (t->tb) {
			cp_tb_obj_def(t->tb, r->id, kind, key >> 2, extra);
			r->def_tb = t->tb;
			r->def_block = cp_tb_block(t->tb);
			cp_sites_add(t, r->id, stack, nstack);
		}
		/* only synchronization objects can be untracked */
		if ((key & 3) == CP_NS_SYNC && atomic_load(&cp_nuntracked) &&
		    is_untracked(key))
			mark_untracked(t, r);
		atomic_store_explicit(&r->tag, key, memory_order_release);
		break;
	}
	rcu_read_unlock();
	if (r && (how & CP_REC_REMEMBER))
		map_put(t, key, r);
	return r;
}

void cp_objrec_forget(const void *addr, unsigned ns)
{
	uintptr_t key = cp_objrec_key(addr, ns);
	struct cds_lfht_iter it;
	struct cds_lfht_node *node;

	if (!rcu_usable())
		return;
	rcu_read_lock();
	cds_lfht_lookup(cp_objrec_table, hash_key(key), match_key, &key, &it);
	node = cds_lfht_iter_get_node(&it);
	if (node)
		retire(rec_of(node));
	rcu_read_unlock();
}

void cp_objrec_for_each(void (*fn)(struct cp_objrec *r, void *arg), void *arg)
{
	struct cds_lfht_iter it;
	struct cds_lfht_node *node;

	rcu_read_lock();
	cds_lfht_first(cp_objrec_table, &it);
	while ((node = cds_lfht_iter_get_node(&it)) != NULL) {
		fn(rec_of(node), arg);
		cds_lfht_next(cp_objrec_table, &it);
	}
	rcu_read_unlock();
}
