/*
 * cp_objrec.h - per-object path records.
 *
 * A synchronization object gets a record the first time a wrapper sees
 * it: what a thread that comes to depend on the object must take over.
 * Records live in one liburcu lock-free hash table (cds_lfht, bulletproof
 * flavor: no thread registration), keyed by address and namespace.
 * Work-queue items use the same record type but live only while in
 * flight, outside the table (cp_items.h).
 *
 * The hot path does not go there: each thread keeps its own map from key
 * to record (cp_thread.h, open addressing, grown with the number of
 * objects the thread uses) and an entry is checked against the record
 * itself: a record's tag equals its key while the record is in the table
 * and is cleared when it leaves.  Destroying (or re-initialising) an
 * object deletes its record, clears the tag and, after an RCU grace
 * period, puts the memory on a free list from which only records are
 * made again (type-stable memory: a stale map entry always points at some
 * record, whose tag then differs).  An object re-created at the same
 * address thus starts fresh, and no other thread's map is flushed.  A
 * thread uses an entry only while its program uses the object, so the
 * record cannot leave under it unless the program destroys an object in
 * use.
 *
 * Who may touch what: a mutex's or spin lock's record is written only by
 * the thread holding that lock (the lock protects it).  Records written by
 * several threads at once (barrier arrivals, rwlock readers, condition
 * signals, semaphore posts) take the record's own cp_lock.  A thread's map
 * is read and written by that thread only.  An entry is a hint: its record
 * may have left the table (deleted by any thread) or been made again for
 * another key, so a map user reads the record's tag (and kind) before
 * anything else and uses the record only if the tag equals the key.  That
 * read is safe at any time because record memory is never given back to
 * the allocator: past its grace period a deleted record goes to the free
 * list, whose records are zeroed below the tag and get a non-zero tag only
 * once they are in the table again.  (An entry reaching a record made
 * again for the same key and kind finds the object's current record,
 * which is right.)  Lookups in the table itself take the RCU read side.
 */
#ifndef CP_OBJREC_H
#define CP_OBJREC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <urcu-bp.h>
#include <urcu/rculfhash.h>

#include "cp_lock.h"
#include "cp_path.h"
#include "cp_prefetch.h"
#include "cp_thread.h"
#include "cp_tracebuf.h"

enum cp_objns {
	CP_NS_SYNC = 0,		/* locks, barriers, conds, sems */
	CP_NS_ITEM = 1,		/* work-queue items (cp_items.h) */
	CP_NS_MODEL = 2,	/* objects the tracer's model makes up: OpenMP
				 * regions' fork and join, task completions */
	CP_NS_DEPEND = 3,	/* OpenMP task dependences, by the depend
				 * clause's address (wrap_gomp.c) */
};

struct cp_objrec {
	/* cold: lookup, statistics of waits, per-kind extras */
	struct cds_lfht_node node;
	uintptr_t key;		/* address << 2 | namespace */
	uint64_t contended;	/* operations that had to wait */
	uint64_t wait_ns;	/* waiting they caused */
	union {
		struct {
			uint32_t count;		/* threads per episode */
			uint64_t arrivals;	/* over the barrier's life */
			struct cp_path *slot[2];/* episodes by parity */
		} barrier;
		struct {
			uint64_t wseq;		/* seq of last write unlock */
			uint32_t writer;	/* tid holding it for write */
			struct cp_path *rpath;	/* read unlocks since */
		} rw;
		struct {
			uint64_t free_tokens;	/* initial value left */
			uint8_t *fifo;		/* posts: seq, then path */
			uint32_t head, count, cap;
		} sem;
		struct {
			uint64_t base;		/* seq last taken with reset */
		} signal;
	} u;
	struct cp_objrec *limbo_next;	/* limbo list, then a free list */
	/* trace mode: where the OBJ_DEF went (the creator's buffer and its
	 * block number; NULL: the creator had no buffer), so that a thread
	 * using the object before that block is written repeats it */
	struct cp_tracebuf *def_tb;
	uint64_t def_extra;		/* the OBJ_DEF's extra */
	uint32_t def_block;
	uint64_t site;			/* where the program first used it
					 * (cp_sites.h), 0: unknown */

	/*
	 * hot: one cache line with the main path record (without selected
	 * procedures) and the lock of multi-writer kinds, so a lock handed
	 * from thread to thread moves one line of tracer state besides the
	 * lock itself.
	 */
	_Alignas(64) atomic_uintptr_t tag;	/* key while in the table, else 0 */
	uint64_t seq;		/* publishes so far */
	uint64_t ops;		/* acquires / waits / posts ... */
	uint64_t gain_ns;	/* path length gained through its edges */
	uint32_t id;		/* trace object id, from 1 */
	union {
		struct {
			uint8_t kind;		/* enum cp_obj_kind */
			atomic_bool untracked;	/* cpthread_untrack(): no
						 * edges */
		};
		uint16_t kind_word;	/* both, for the lean paths' one
					 * compare (cp_objrec_check) */
	};
	atomic_bool def_out;	/* trace mode: the block with the OBJ_DEF
				 * is known written (cp_objrec_defined_for) */
	struct cp_lock lk;	/* multi-writer kinds */
	struct cp_path main;	/* must be last: vectors follow */
};

_Static_assert(offsetof(struct cp_objrec, main.v) ==
	       offsetof(struct cp_objrec, tag) + 64,
	       "a lock's hot fields and main path fill one cache line");

/* Create the table; 0 or -ENOMEM.  Start-up and forked child. */
int cp_objrec_init(void);

/*
 * Register the calling thread with liburcu-bp now, as the tracer starts
 * following it.  A followed thread that is no longer registered is ending
 * (liburcu-bp's thread-exit destructor unregistered it, and may still hold
 * its own mutexes, which registering again would wait for): the lookups
 * below then find nothing, and the wrapper calls the real function.
 * Calling thread, guard raised.
 */
void cp_objrec_thread_begin(void);

enum {
	CP_REC_REMEMBER = 1,	/* enter the record in the thread's map */
	CP_REC_NEW = 2,		/* likely new: try to insert first */
};

/* The record of @key (see cp_objrec_get) when the thread's map has no
 * valid entry for it: table lookup or creation; @how: CP_REC_* flags;
 * @ra: the return address of the function the lookup was inlined into,
 * the program's call site when that is a wrapper (cp_sites.h).  Calling
 * thread, guard raised. */
struct cp_objrec *cp_objrec_lookup_slow(struct cp_thread *t, uintptr_t key,
					unsigned kind, uint64_t extra,
					unsigned how, const void *ra);

static inline uintptr_t cp_objrec_key(const void *addr, unsigned ns)
{
	return ((uintptr_t)addr << 2) | ns;
}

/* The address @key was made of (user-space addresses keep their top two
 * bits clear). */
static inline void *cp_objrec_key_addr(uintptr_t key)
{
	return (void *)(key >> 2);
}

/* The home slot of @key in @t's map. */
static inline cp_map_slot *cp_objrec_map_home(const struct cp_thread *t,
					      uintptr_t key)
{
	return &t->cache[cp_cache_home(key) & t->cache_mask];
}

/*
 * The slot of @t's map to hold @key: the one holding it, or one that
 * held it and whose record has left (or has the tag of another key than
 * its fingerprint's, rarely: such a slot is overwritten, which loses
 * nothing), or the empty slot ending its probe (the map is never full).
 * A slot of another key with the same fingerprint is passed.
 */
static inline cp_map_slot *cp_objrec_map_slot(struct cp_thread *t,
					      uintptr_t key)
{
	for (uint32_t i = cp_cache_home(key);; i++) {
		cp_map_slot *s = &t->cache[i & t->cache_mask];
		uintptr_t tag;

		if (!*s)
			return s;
		if (!cp_map_may_hold(*s, key))
			continue;
		tag = atomic_load_explicit(&cp_map_rec(*s)->tag,
					   memory_order_relaxed);
		if (tag == key || !cp_map_may_hold(*s, tag))
			return s;
	}
}

/*
 * The record of @addr in namespace @ns, created on first sight with kind
 * @kind (@extra: barrier count, semaphore initial value) and, in a trace,
 * the site @ra (a return address into the program, cp_sites.h).  Never
 * NULL except out of memory.  Calling thread with the guard raised; the
 * result stays valid until the object is destroyed.
 */
static inline struct cp_objrec *cp_objrec_get_at(struct cp_thread *t,
						 const void *addr,
						 unsigned ns, unsigned kind,
						 uint64_t extra,
						 const void *ra)
{
	uintptr_t key = cp_objrec_key(addr, ns);
	cp_map_slot w = *cp_objrec_map_slot(t, key);
	struct cp_objrec *r = cp_map_rec(w);

	if (__builtin_expect(w && atomic_load_explicit(&r->tag,
				memory_order_acquire) == key &&
			     r->kind == kind, 1))
		return r;
	return cp_objrec_lookup_slow(t, key, kind, extra, CP_REC_REMEMBER,
				     ra);
}

/* cp_objrec_get_at with the site a new record gets: where the function
 * this is inlined into returns to (the program, from a wrapper). */
#define cp_objrec_get(t, addr, ns, kind, extra)				\
	cp_objrec_get_at(t, addr, ns, kind, extra,			\
			 __builtin_return_address(0))

/* The record of the first slot past @key's home slot in @t's map that
 * holds @key (its fingerprint, and the record's tag read once: the caller
 * checks the record again, cp_objrec_check), or NULL.  Calling thread. */
struct cp_objrec *cp_objrec_map_probe(const struct cp_thread *t,
				      uintptr_t key);

/*
 * Start fetching the slot of @t's map where @key's look-up begins.  The
 * map is the thread's own, so unlike the record this moves no line away
 * from another thread: a spin lock's acquire issues it before the try,
 * whose atomic orders every later load behind the lock's own line, so
 * that the two misses overlap instead of following each other (a plain
 * mutex names its record itself: cp_objrec_peek_hint).
 */
static inline void cp_objrec_prefetch_home(const struct cp_thread *t,
					   uintptr_t key)
{
	cp_prefetch_read(cp_objrec_map_home(t, key));
}

/* A record's kind_word when it is of @kind and not untracked. */
static inline uint16_t cp_objrec_tracked_word(unsigned kind)
{
	const struct cp_objrec w = { .kind = (uint8_t)kind };

	return w.kind_word;
}

/*
 * @r if it is not NULL and still @key's record, of kind @kind (and, when
 * @tracked, not untracked: one compare of both bytes); else NULL.  Its
 * hot line is fetched for writing before its tag is read: every caller
 * (the lean paths, cp_online.h) writes the record next, and a line that
 * comes from another core then moves once, rather than being read and
 * then upgraded.
 */
static inline struct cp_objrec *cp_objrec_check(struct cp_objrec *r,
						uintptr_t key, unsigned kind,
						bool tracked)
{
	if (!r)
		return NULL;
	cp_prefetch_write(&r->tag);
	if (atomic_load_explicit(&r->tag, memory_order_acquire) != key ||
	    (tracked ? __atomic_load_n(&r->kind_word, __ATOMIC_RELAXED) !=
		       cp_objrec_tracked_word(kind) : r->kind != kind))
		return NULL;
	if (!r)		/* it was read through: says so to the compiler, */
		__builtin_unreachable();	/* which drops callers' tests */
	return r;
}

/*
 * The record of @key when @t's map holds it in its home slot and it is
 * still @key's record of kind @kind, not untracked; else NULL (see
 * cp_objrec_peek).  No probing, no creation: the few loads a lean wrapper
 * can afford inline.  Calling thread, guard raised.
 */
static inline struct cp_objrec *cp_objrec_peek_home_key(
	const struct cp_thread *t, uintptr_t key, unsigned kind)
{
	cp_map_slot w = *cp_objrec_map_home(t, key);

	return cp_objrec_check(cp_map_may_hold(w, key) ? cp_map_rec(w) : NULL,
			       key, kind, true);
}

/* The same for @addr in namespace @ns. */
static inline struct cp_objrec *cp_objrec_peek_home(const struct cp_thread *t,
						    const void *addr,
						    unsigned ns, unsigned kind)
{
	return cp_objrec_peek_home_key(t, cp_objrec_key(addr, ns), kind);
}

/*
 * The record of @addr in namespace @ns when @t's map holds it, wherever
 * its probe put it, and it is still @addr's record of kind @kind; else
 * NULL (look it up with cp_objrec_get).  One probe of the map (the slots
 * of a probe mostly share a cache line; a slot of another key with the
 * same fingerprint costs a look at its record's tag), no creation, no
 * table.  Calling thread, guard raised.
 */
static inline struct cp_objrec *cp_objrec_peek(const struct cp_thread *t,
					       const void *addr, unsigned ns,
					       unsigned kind)
{
	uintptr_t key = cp_objrec_key(addr, ns);
	cp_map_slot w = *cp_objrec_map_home(t, key);
	struct cp_objrec *r;

	if (cp_map_may_hold(w, key)) {
		r = cp_objrec_check(cp_map_rec(w), key, kind, false);
		if (r)
			return r;
	}
	/* not at home, or the home slot is another key's with the same
	 * fingerprint (or a record that left the table) */
	return cp_objrec_check(cp_objrec_map_probe(t, key), key, kind,
			       false);
}

/*
 * The lean acquire of @addr in namespace @ns took record @r (checked):
 * remember it in @t's held slot, so that the release, which mostly
 * follows before another acquire, finds it without the map (a hint like
 * a map entry: the release checks it the same way).  Calling thread.
 */
static inline void cp_objrec_hold(struct cp_thread *t, const void *addr,
				  unsigned ns, struct cp_objrec *r)
{
	t->held.key = cp_objrec_key(addr, ns);
	t->held.rec = r;
}

/* The record the thread's latest lean acquire remembered
 * (cp_objrec_hold) when that was of @key and is still @key's, of kind
 * @kind and tracked; else NULL.  Calling thread, guard raised. */
static inline struct cp_objrec *cp_objrec_peek_held_only(
	const struct cp_thread *t, uintptr_t key, unsigned kind)
{
	return t->held.key == key ?
	       cp_objrec_check(t->held.rec, key, kind, true) : NULL;
}

/*
 * Whether @t's events on record @r, which it found without its map (a
 * mutex's hint), can go without a copy of the record's OBJ_DEF: always
 * online; in trace mode when the definition is already written or in
 * @t's own buffer.  Otherwise the map's look-up (cp_objrec_lookup_slow)
 * defines it again in @t's buffer, since a SIGKILL would lose the
 * creator's unwritten one.  Once the block is seen written, def_out says
 * so in the record's hot line, and the creator's buffer (which its owner
 * writes at every event) is not read again.  Calling thread.
 */
static inline bool cp_objrec_defined_for(const struct cp_thread *t,
					 struct cp_objrec *r)
{
	if (!t->tb ||
	    atomic_load_explicit(&r->def_out, memory_order_relaxed))
		return true;
	if (r->def_tb && cp_tb_written_past(r->def_tb, r->def_block)) {
		atomic_store_explicit(&r->def_out, true,
				      memory_order_relaxed);
		return true;
	}
	return r->def_tb == t->tb;
}

/*
 * A record hint: two words in the object itself where the wrapper keeps
 * the address of its record (a plain mutex's, wrap_common.h), read and
 * written by the thread holding the object.  The first word is the
 * address, the second the address xor'ed with cp_objrec_hint_seal, a
 * random value every process draws anew (cp_objrec_init, forked children
 * included).  Only a sealed address is ever dereferenced: bytes the
 * tracer did not write (a mutex read from a file, or shared with another
 * process), and the hints a forked child inherits, whose records belong
 * to its parent's table, are not taken for a record.
 */
extern uintptr_t cp_objrec_hint_seal;

/* The address @hint holds when it is sealed, else NULL. */
static inline struct cp_objrec *cp_objrec_hint_read(const uintptr_t *hint)
{
	uintptr_t a = __atomic_load_n(&hint[0], __ATOMIC_RELAXED);
	uintptr_t b = __atomic_load_n(&hint[1], __ATOMIC_RELAXED);

	return (a ^ b) == cp_objrec_hint_seal ? (struct cp_objrec *)a : NULL;
}

/* Make @hint name @r (unless it does already). */
static inline void cp_objrec_hint_write(uintptr_t *hint,
					const struct cp_objrec *r)
{
	uintptr_t a = (uintptr_t)r;

	if (cp_objrec_hint_read(hint) == r)
		return;
	__atomic_store_n(&hint[0], a, __ATOMIC_RELAXED);
	__atomic_store_n(&hint[1], a ^ cp_objrec_hint_seal, __ATOMIC_RELAXED);
}

/*
 * The record @hint names (NULL: no hint).  Like a map slot it may be
 * stale or another object's (a copied mutex): the record counts only
 * when it is still @key's, of kind @kind and tracked (cp_objrec_check),
 * and when @t may use it without its map (cp_objrec_defined_for); NULL
 * otherwise.  Records are never given back to the allocator, so a
 * sealed address is safe to read.  Calling thread, guard raised.
 */
static inline struct cp_objrec *cp_objrec_peek_hint(
	const struct cp_thread *t, const uintptr_t *hint, uintptr_t key,
	unsigned kind)
{
	struct cp_objrec *r;

	if (!hint)
		return NULL;
	r = cp_objrec_check(cp_objrec_hint_read(hint), key, kind, true);
	return r && cp_objrec_defined_for(t, r) ? r : NULL;
}

/* The record @hint names (NULL: none), else the one in @key's home slot
 * (cp_objrec_peek_home_key).  Calling thread, guard raised. */
static inline struct cp_objrec *cp_objrec_peek_hint_home(
	const struct cp_thread *t, const uintptr_t *hint, uintptr_t key,
	unsigned kind)
{
	struct cp_objrec *r = cp_objrec_peek_hint(t, hint, key, kind);

	return r ? r : cp_objrec_peek_home_key(t, key, kind);
}

/*
 * cp_objrec_peek_home() for a release: the record the thread's latest
 * lean acquire remembered (cp_objrec_hold) when that was of @addr, else
 * cp_objrec_peek_hint_home().  Calling thread, guard raised.
 */
static inline struct cp_objrec *cp_objrec_peek_held(
	const struct cp_thread *t, const void *addr, unsigned ns,
	unsigned kind, const uintptr_t *hint)
{
	uintptr_t key = cp_objrec_key(addr, ns);
	struct cp_objrec *r = cp_objrec_peek_held_only(t, key, kind);

	return r ? r : cp_objrec_peek_hint_home(t, hint, key, kind);
}

/*
 * Start fetching, for writing, the record a thread's map names for @addr
 * in its home slot (unchecked: it may be stale, which is harmless for a
 * prefetch).  The general acquire calls this once its try succeeded and
 * before cp_objrec_get() reads the record, so that a record coming from
 * another core moves once, rather than being read and then upgraded
 * when the acquire writes it.
 */
static inline void cp_objrec_prefetch(struct cp_thread *t, const void *addr,
				      unsigned ns)
{
	uintptr_t key = cp_objrec_key(addr, ns);
	cp_map_slot w = *cp_objrec_map_home(t, key);

	if (cp_map_may_hold(w, key))
		cp_prefetch_write(&cp_map_rec(w)->tag);
}

/* A fresh object id (from 1), as every record gets one: for the trace and
 * the report.  Any thread. */
uint32_t cp_objrec_new_id(void);

/* Whether this process (a fork child: since it started over) has made no
 * record at all, work-queue items included.  Any thread; async-signal-safe
 * (one load). */
bool cp_objrec_none_made(void);

/* The record of @addr if one exists (no creation), else NULL.  Any
 * thread, guard raised. */
struct cp_objrec *cp_objrec_find(const void *addr, unsigned ns);

/*
 * The object at @addr is destroyed (or initialised anew): delete its
 * record, fold its statistics into the retired totals, free it after a
 * grace period.  Any thread with the guard raised.
 */
void cp_objrec_forget(const void *addr, unsigned ns);

/* cpthread_untrack(@addr): no dependency edges through it from now on
 * (also for a record created later at that address).  Guard raised. */
void cp_objrec_untrack(struct cp_thread *t, const void *addr);

/* Statistics of records already deleted, per kind, for the report (for
 * items: of the instances already dequeued, folded in by cp_items.c). */
struct cp_objrec_retired {
	uint64_t objects, ops, contended, wait_ns, gain_ns;
};
extern struct cp_objrec_retired cp_objrec_retired[CP_OBJ_KIND_MAX + 1];

/* Add @r's figures to the totals of its kind, with the lock that guards
 * them held: the limbo lock (cp_objrec.c), the items' lock for items. */
void cp_objrec_retired_add(const struct cp_objrec *r);

/* One object's figures, kept when its record goes (the report lists the
 * objects that mattered most even if the program destroyed them). */
struct cp_objstat {
	uintptr_t addr;
	uint32_t id;
	uint8_t kind;
	bool untracked;
	uint64_t ops, contended, wait_ns, gain_ns;
	uint64_t site;		/* the record's site, 0: unknown */
};

#define CP_OBJSTAT_TOP 64

/* Waiting caused plus path gained: how much an object mattered. */
static inline uint64_t cp_objstat_weight(const struct cp_objstat *s)
{
	return s->wait_ns + s->gain_ns;
}

/* The figures of a live record into @out (read racily: the counters of
 * a record in use may move meanwhile).  Any thread, guard raised. */
void cp_objstat_of(const struct cp_objrec *r, struct cp_objstat *out);
/* Insert @s into @top (sorted by weight, at most CP_OBJSTAT_TOP, *n
 * entries); returns false when it did not make the list.  No lock: the
 * caller owns @top and @n. */
bool cp_objstat_insert(struct cp_objstat *top, uint32_t *n,
		       const struct cp_objstat *s);
/* The heaviest destroyed objects, copied into @out (room for
 * CP_OBJSTAT_TOP) under the table's lock; returns how many.  Any thread. */
uint32_t cp_objrec_retired_top(struct cp_objstat *out);

/* Visit every live record (report at exit).  RCU read side taken here. */
void cp_objrec_for_each(void (*fn)(struct cp_objrec *r, void *arg), void *arg);

#endif /* CP_OBJREC_H */
