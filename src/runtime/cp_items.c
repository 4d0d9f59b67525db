/*
 * cp_items.c - the table of work-queue items in flight (see cp_items.h).
 *
 * Linear probing on the item's key (address << 2 | CP_NS_ITEM, never 0,
 * so 0 marks an empty slot), at most half full.  Removal shifts the rest
 * of the probe run back (Knuth vol. 3, 6.4, Algorithm R), so there are no
 * tombstones and a probe always ends at the first empty slot.  The slot
 * holds the key beside the record, so a probe touches no record but the
 * one it finds.
 *
 * Invariants, under cp_items.lk: used < mask + 1 (an empty slot always
 * ends a probe); every record is either in exactly one slot (in flight,
 * seq >= 1) or on the free list; nrecs counts both.  Records are never
 * given back to the arena: their number is the most items ever in flight
 * at once.
 */
#include "cp_items.h"

#include <errno.h>
#include <string.h>

#include "cp_alloc.h"
#include "cp_debug.h"
#include "cp_die.h"
#include "cp_lock.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"

#define CP_ITEMS_MIN 64		/* slots of the first table */

struct cp_items_slot {
	uintptr_t key;		/* 0: empty */
	struct cp_objrec *rec;
};

static struct {
	_Alignas(CP_CACHE_LINE) struct cp_lock lk;
	struct cp_items_slot *slot;	/* mask + 1 slots, NULL until used */
	uint32_t mask;
	uint32_t used;			/* items in flight */
	uint32_t nrecs;			/* records made */
	struct cp_objrec *free;		/* recycled, via limbo_next */
	uint32_t ntop;
	struct cp_objstat top[CP_OBJSTAT_TOP];	/* heaviest finished */
} cp_items;

void cp_items_init(void)
{
	memset(&cp_items, 0, sizeof(cp_items));
}

static uint32_t home_of(uintptr_t key)
{
	return cp_cache_home(key) & cp_items.mask;
}

/* The slot holding @key, or the empty slot ending its probe.  Table
 * allocated. */
static struct cp_items_slot *probe(uintptr_t key)
{
	for (uint32_t i = home_of(key);; i = (i + 1) & cp_items.mask) {
		struct cp_items_slot *s = &cp_items.slot[i];

		if (s->key == key || !s->key)
			return s;
	}
}

static const bool cp_items_debug = CP_DEBUG;

/*
 * Debug builds: die unless the table keeps the invariants of the head
 * comment: an empty slot left, @used slots in use, each entry found by a
 * probe from its home and holding an in-flight record of its key, and
 * every record made either in the table or on the free list.  O(table),
 * so it runs when the table grows and when it is walked, not per item.
 * Items' lock held.
 */
static void cp_items_assert(void)
{
	uint32_t used = 0, nfree = 0;

	if (!cp_items_debug)
		return;
	for (struct cp_objrec *r = cp_items.free; r; r = r->limbo_next)
		nfree++;
	for (uint32_t i = 0; cp_items.slot && i <= cp_items.mask; i++) {
		struct cp_items_slot *s = &cp_items.slot[i];

		if (!s->key)
			continue;
		used++;
		if (probe(s->key) != s || s->rec->key != s->key ||
		    s->rec->seq == 0)
			cp_die("items: an entry is lost to its probe");
	}
	if (used != cp_items.used || used + nfree != cp_items.nrecs ||
	    (cp_items.slot && used > cp_items.mask))
		cp_die("items: counts disagree with the table");
}

/*
 * Debug builds: die unless the record @r just enqueued or dequeued under
 * @key is that key's, with a sequence number, and the counts leave an
 * empty slot; every 1024th operation checks the whole table too.  O(1)
 * amortised.  Items' lock held.
 */
static void cp_items_assert_op(const struct cp_objrec *r, uintptr_t key)
{
	static uint32_t ops;

	if (!cp_items_debug)
		return;
	if (r->key != key || r->seq == 0 || r->kind != CP_OBJ_ITEM)
		cp_die("items: a record is not its item's");
	if (cp_items.used > cp_items.mask || cp_items.used > cp_items.nrecs)
		cp_die("items: counts disagree with the table");
	if (++ops % 1024 == 0)
		cp_items_assert();
}

/* Double the table (make the first one); -ENOMEM leaves it as it was. */
static int grow(void)
{
	uint32_t n = cp_items.slot ? cp_items.mask + 1 : 0;
	uint32_t nn = n ? 2 * n : CP_ITEMS_MIN;
	struct cp_items_slot *old = cp_items.slot;
	struct cp_items_slot *ns;

	if (nn <= n)
		return -ENOMEM;		/* 2^32 slots */
	ns = cp_zalloc_lines((size_t)nn * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	cp_items.slot = ns;
	cp_items.mask = nn - 1;
	for (uint32_t i = 0; i < n; i++)
		if (old[i].key)
			*probe(old[i].key) = old[i];
	cp_free(old);
	cp_items_assert();
	return 0;
}

/* Empty slot @i, moving back the entries of its probe run that would no
 * longer be found past the hole. */
static void unlink_slot(uint32_t i)
{
	uint32_t mask = cp_items.mask;

	for (uint32_t j = (i + 1) & mask; cp_items.slot[j].key;
	     j = (j + 1) & mask) {
		uint32_t h = home_of(cp_items.slot[j].key);

		/* an entry whose home lies in (i, j] stays where it is */
		if (((j - h) & mask) < ((j - i) & mask))
			continue;
		cp_items.slot[i] = cp_items.slot[j];
		i = j;
	}
	cp_items.slot[i].key = 0;
	cp_items.slot[i].rec = NULL;
}

/* A record for a new instance of the item @key, from the free list or the
 * arena; NULL out of memory.  Items' lock held. */
static struct cp_objrec *take_rec(uintptr_t key)
{
	struct cp_objrec *r = cp_items.free;

	if (r) {
		cp_items.free = r->limbo_next;
	} else {
		r = cp_zalloc_lines(sizeof(*r) +
				    2 * cp_rt.nsel * sizeof(uint64_t));
		if (!r)
			return NULL;
		cp_items.nrecs++;
	}
	r->limbo_next = NULL;
	r->key = key;
	r->kind = CP_OBJ_ITEM;
	r->id = cp_objrec_new_id();
	r->seq = 0;
	r->ops = 0;
	r->gain_ns = 0;
	r->contended = 0;
	r->wait_ns = 0;
	return r;		/* main is written by the enqueue */
}

int cp_items_enqueue(struct cp_thread *t, const void *item,
		     struct cp_item_ev *ev)
{
	uintptr_t key = cp_objrec_key(item, CP_NS_ITEM);
	struct cp_items_slot *s = NULL;
	struct cp_objrec *r;

	cp_lock_acquire(&cp_items.lk);
	if (cp_items.slot)
		s = probe(key);
	ev->fresh = !s || s->key != key;
	if (ev->fresh) {
		/* keep the table at most half full; past that, as long as
		 * an empty slot is left, fuller is better than untracked */
		if ((!s || 2 * (cp_items.used + 1) > cp_items.mask + 1) &&
		    grow() != 0 &&
		    (!s || cp_items.used + 2 > cp_items.mask + 1))
			goto nomem;
		r = take_rec(key);
		if (!r)
			goto nomem;
		s = probe(key);
		s->key = key;
		s->rec = r;
		cp_items.used++;
	} else {
		r = s->rec;	/* in flight: the latest enqueue wins */
	}
	r->ops++;
	ev->seq = ++r->seq;
	ev->id = r->id;
	cp_path_copy(&r->main, t->path, cp_rt.nsel);
	cp_items_assert_op(r, key);
	cp_lock_release(&cp_items.lk);
	if (t->tb && ev->fresh)
		cp_tb_obj_def(t->tb, ev->id, CP_OBJ_ITEM, (uintptr_t)item, 0);
	return 0;
nomem:
	cp_lock_release(&cp_items.lk);
	return -ENOMEM;
}

/* Fold a finished item into the per-kind totals and the list of the
 * heaviest; items' lock held.  Every item is a candidate, whatever its
 * weight, as when items kept their records for the whole run. */
static void fold_figures(const struct cp_objrec *r)
{
	struct cp_objstat st;

	cp_objrec_retired_add(r);	/* r->kind is CP_OBJ_ITEM */
	cp_objstat_of(r, &st);
	cp_objstat_insert(cp_items.top, &cp_items.ntop, &st);
}

int cp_items_dequeue(struct cp_thread *t, const void *item, uint32_t gen,
		     struct cp_item_ev *ev)
{
	uintptr_t key = cp_objrec_key(item, CP_NS_ITEM);
	struct cp_items_slot *s;
	struct cp_objrec *r;

	cp_lock_acquire(&cp_items.lk);
	s = cp_items.slot ? probe(key) : NULL;
	if (!s || !s->key) {
		cp_lock_release(&cp_items.lk);
		return -ENOENT;
	}
	r = s->rec;
	unlink_slot((uint32_t)(s - cp_items.slot));
	cp_items.used--;
	r->ops++;
	r->gain_ns += cp_path_merge(t->path, &r->main, cp_rt.nsel, gen);
	ev->id = r->id;
	ev->seq = r->seq;
	ev->fresh = false;
	fold_figures(r);
	r->limbo_next = cp_items.free;
	cp_items.free = r;
	cp_items_assert_op(r, key);
	cp_lock_release(&cp_items.lk);
	return 0;
}

void cp_items_for_each(void (*fn)(struct cp_objrec *r, void *arg),
		       void *arg)
{
	cp_lock_acquire(&cp_items.lk);
	cp_items_assert();
	for (uint32_t i = 0; cp_items.slot && i <= cp_items.mask; i++)
		if (cp_items.slot[i].key)
			fn(cp_items.slot[i].rec, arg);
	cp_lock_release(&cp_items.lk);
}

uint32_t cp_items_retired_top(struct cp_objstat *out)
{
	uint32_t n;

	cp_lock_acquire(&cp_items.lk);
	n = cp_items.ntop;
	memcpy(out, cp_items.top, n * sizeof(*out));
	cp_lock_release(&cp_items.lk);
	return n;
}

uint32_t cp_items_records(void)
{
	uint32_t n;

	cp_lock_acquire(&cp_items.lk);
	n = cp_items.nrecs;
	cp_lock_release(&cp_items.lk);
	return n;
}
