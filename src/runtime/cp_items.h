/*
 * cp_items.h - work-queue items in flight.
 *
 * The dequeue of item X depends on the latest enqueue of X ([Hollingsworth98]
 * Fig. 11, right).  An item needs a path record only between the two: the
 * enqueue publishes its path into a record, the dequeue takes that path
 * over and the record is done.  So an item's record lives only while the
 * item is in flight: made (or taken from a free list) at enqueue, found by
 * the item's address in a small open-addressing table, removed from the
 * table and put back on the free list at dequeue.  Items in flight are
 * bounded by the program's queue lengths, so the table and the records
 * stay small however many items pass through; the table doubles when it
 * is half full.  Item records never enter the object table of
 * cp_objrec.h and no thread's map names them (their tag stays 0).
 *
 * One cp_lock guards the table, the free list and the totals.  Enqueue and
 * dequeue of one queue are already serialized by the program's queue lock,
 * so it is taken by one thread at a time unless several queues are busy at
 * once; it is held for a probe, a path copy or merge (O(nsel)) and a few
 * stores.
 *
 * Each enqueue of an item not in flight gets a fresh object id from the
 * counter every record uses (cp_objrec_new_id) and publishes sequence 1;
 * a second enqueue while the item is still in flight keeps the id and
 * publishes the next sequence (the latest enqueue wins, as for any
 * record).  A trace thus names every (object, seq) once, and the analyzer
 * pairs each dequeue with its enqueue as it always did.  A finished item's
 * figures are folded into cp_objrec_retired[CP_OBJ_ITEM], and the item
 * joins a list of the heaviest finished items, for the report.
 *
 * Out of memory, an enqueue is not tracked: its dequeue then finds no
 * record and depends on nothing.
 */
#ifndef CP_ITEMS_H
#define CP_ITEMS_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_objrec.h"
#include "cp_thread.h"

/* What a trace records of one enqueue or dequeue. */
struct cp_item_ev {
	uint32_t id;		/* the in-flight instance's object id */
	uint64_t seq;		/* its publish sequence, from 1 */
	bool fresh;		/* enqueue: a new instance (define it) */
};

/* Forget every item in flight and every total: start-up, and a forked
 * child (the parent's table is left behind: its lock may be held by a
 * thread that does not exist here).  Single-threaded. */
void cp_items_init(void);

/*
 * Enqueue of @item: publish @t's path (already advanced) into the item's
 * record, made if the item is not in flight.  Fills @ev.  Returns 0, or
 * -ENOMEM (the item is not tracked).  Calling thread, guard raised.
 */
int cp_items_enqueue(struct cp_thread *t, const void *item,
		     struct cp_item_ev *ev);

/*
 * Dequeue of @item: merge the path of its latest enqueue into @t's path
 * (of generation @gen), take the item out of flight and recycle its
 * record.  Fills @ev.  Returns 0, or -ENOENT when the item is not in
 * flight (never enqueued, already dequeued, or not tracked): then @t's
 * path is unchanged.  Calling thread, guard raised.
 */
int cp_items_dequeue(struct cp_thread *t, const void *item, uint32_t gen,
		     struct cp_item_ev *ev);

/* Visit the record of every item in flight (report at exit), with the
 * items' lock held: @fn must not enqueue or dequeue.  Any thread. */
void cp_items_for_each(void (*fn)(struct cp_objrec *r, void *arg),
		       void *arg);

/* The heaviest finished items (CP_OBJSTAT_TOP at most), copied into @out;
 * returns how many.  Any thread. */
uint32_t cp_items_retired_top(struct cp_objstat *out);

/* Records ever made (in flight plus free): bounded by the most items in
 * flight at once.  For tests.  Any thread. */
uint32_t cp_items_records(void);

#endif /* CP_ITEMS_H */
