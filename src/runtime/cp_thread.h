/*
 * cp_thread.h - per-thread state of the online algorithm.
 *
 * Invariants (owning thread only, except where noted):
 *   path->len  the longest path ending at this thread's latest event;
 *   last       the thread's clock at that event;
 *   so the thread's current path length is path->len + (now - last), and
 *   advancing folds that interval in.  Waiting inside a synchronization
 *   call is not useful time: a wait begins with an advance and ends by
 *   setting last to the clock after the wait, the difference going to
 *   wait_ns.  active[] lists the selected procedures running now (nesting
 *   counted in depth[]); only they gain share, z and cpu while advancing.
 *
 * Other threads read a thread's state only in the registry walks of the
 * exit report and of samples (racy reads of a live thread, documented
 * there).
 */
#ifndef CP_THREAD_H
#define CP_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cp_clock.h"
#include "cp_config.h"
#include "cp_path.h"
#include "cp_runtime.h"

/*
 * Slots of a thread's record map: CP_CACHE_MIN first, doubling up to
 * CP_CACHE_MAX (2 MiB: 196,608 objects at three quarters' load), past
 * which it starts over empty.  Its 11 to 22 bytes per object a thread
 * uses stay below the object's own record, and the cap bounds what many
 * threads using many objects cost (64 threads: 128 MiB at most).  A map that starts over
 * sends each look-up down the slow path until it has filled again: at
 * the earlier cap of 2^15 slots a thread cycling through 30,000 mutexes
 * paid 240-690 ns a lock pair online, against 33-62 ns with this one
 * (bench_fine manylocks); past 10^5 objects the records' cache misses
 * cost as much as the slow path.
 */
#define CP_CACHE_MIN 64
#define CP_CACHE_MAX (1u << 18)
#define CP_SHADOW_MAX 256

struct cp_objrec;
struct cp_sites_buf;
struct cp_tracebuf;
struct cp_smp;
struct cp_thread;

/* Share @d ns among the sampled procedures (cp_sampler.c). */
void cp_sampler_split(struct cp_thread *t, uint64_t d);

/*
 * A slot of a thread's map from object to record (cp_objrec.h), 0 when
 * empty: the record's address in the low 48 bits (the tracer's records
 * lie below 2^48; one that does not is never put in a map) and a
 * fingerprint of the key in the 16 above (cp_map_fp: bit 63 set, so a
 * used slot is never 0).  The key itself is the record's tag while the
 * entry is valid, so 8 bytes a slot do.  Open addressing with linear
 * probing, never more than three quarters full (cp_map_over); slots are
 * overwritten, never emptied, so a probe ends at the first empty one.
 * A thread cycling through 10,000 mutexes keeps a 128 KiB map in its
 * caches beside the records: with 16-byte slots at half load (512 KiB) a
 * lock pair cost about 3 ns more (doc/measurements/, map slots); the
 * keys a fuller map puts off their home slot take the general wrapper's
 * look-up, which costs less than the cache misses saved.
 */
typedef uint64_t cp_map_slot;

/* Whether @used slots are more than a map of @mask + 1 slots holds. */
static inline bool cp_map_over(uint32_t used, uint32_t mask)
{
	return 4 * (uint64_t)used > 3 * ((uint64_t)mask + 1);
}

#define CP_MAP_REC 0x0000ffffffffffffull	/* the record's bits */

/* Fibonacci hashing of a key: arrays of locks with any stride spread
 * over the map. */
static inline uint64_t cp_cache_hash(uintptr_t key)
{
	return (uint64_t)key * 0x9e3779b97f4a7c15ull;
}

/* Home slot of @key, before masking (the hash's bits 32 and up). */
static inline uint32_t cp_cache_home(uintptr_t key)
{
	return (uint32_t)(cp_cache_hash(key) >> 32);
}

/* The fingerprint bits of @key's slots: the hash's top 15 bits, which
 * choose no home slot below 2^17 slots, and bit 63. */
static inline uint64_t cp_map_fp(uintptr_t key)
{
	return ((cp_cache_hash(key) >> 1) | 1ull << 63) & ~CP_MAP_REC;
}

/* Whether slot value @w may be @key's (its fingerprint is; the record's
 * tag decides). */
static inline bool cp_map_may_hold(cp_map_slot w, uintptr_t key)
{
	return (w & ~CP_MAP_REC) == cp_map_fp(key);
}

static inline struct cp_objrec *cp_map_rec(cp_map_slot w)
{
	return (struct cp_objrec *)(uintptr_t)(w & CP_MAP_REC);
}

/* The record the thread's latest lean acquire took (cp_objrec_hold). */
struct cp_held {
	uintptr_t key;		/* address << 2 | namespace, 0: none */
	struct cp_objrec *rec;	/* valid while rec->tag == key */
};

struct cp_thread {
	/* what every event touches first */
	struct cp_path *path;	/* current longest path (owner = tid) */
	uint64_t last;		/* clock at the latest event */
	uint32_t tid;
	uint32_t gen;		/* generation path belongs to */
	uint64_t useful_ns;	/* sum of advances */
	uint64_t wait_ns;	/* time inside waits */
	uint64_t wall_now;	/* wall clock of the latest cp_thread_now() */
	cp_map_slot *cache;	/* record map, cache_mask + 1 slots */
	uint32_t cache_mask;
	uint32_t cache_used;	/* slots holding a key */
	struct cp_held held;	/* the latest lean acquire's record
				 * (cp_objrec_hold), a hint */
	struct cp_tracebuf *tb;	/* trace mode: event buffer */
	struct cp_sites_buf *sites;	/* trace mode: the sites of the
					 * records it made (cp_sites.c) */
	int ostid;		/* kernel thread id (gettid) */
	union {
		struct {
			uint16_t nactive;	/* entries of active[] */
			uint16_t nsampled;	/* selected, found by samples */
		};
		uint32_t procs_on;	/* nonzero: advances charge them */
	};
	struct cp_smp *smp;	/* CPU-time sampler state, NULL when off */
	struct cp_cpuclock cpuclk;
	uint64_t *proc_cpu;	/* [nsel] useful time per selected procedure */
	uint8_t active[CP_MAX_FUNCS];	/* running selected procedures */
	uint32_t depth[CP_MAX_FUNCS];	/* nesting per selected procedure */
	int16_t shadow[CP_SHADOW_MAX];	/* exclusive mode: call stack */
	uint32_t shadow_n;
	uint64_t traced;	/* events written by buffers already freed */
	uint32_t parent;	/* creating thread, UINT32_MAX for the first */
	pthread_t self;
	bool exited;		/* path is final */
	uint64_t start_wall, end_wall;	/* start_wall: when the thread's
				 * kernel counters (schedstat) began to count
				 * for the tracer: its creation, set by the
				 * creator, or its binding */
	uint64_t sched_cpu0, sched_runq0; /* those counters at start_wall for
				 * a thread the kernel ran before the tracer
				 * saw it (the first thread, adopted ones),
				 * wall clock only; else 0 */
	uint64_t unseen_ns;	/* at exit: blocked outside wrapped waits
				 * (cp_unseen.h) */
	uint64_t child_wait_ns;	/* in wait, waitpid and the like for child
				 * processes (cp_unseen_child_wait): written
				 * by the thread, read by the report */
	uint64_t outside_wait_ns; /* in poll, select, epoll or a channel's
				 * read, ended from outside the process
				 * (cp_unseen_outside_wait): the same */
	uint64_t tracer_wait_ns; /* blocked inside the tracer on its own
				 * account (a grace period before records
				 * are reused, cp_objrec.c): written by the
				 * thread, read by the report */
	char name[16];		/* at exit: the name it set itself
				 * (cp_thread_name), else "" */
	uint64_t spin_ns;	/* between sched_yield calls with no event
				 * between them (cp_unseen_yield), before
				 * its latest event: written by the thread,
				 * read by the report */
	uint64_t spin_pending;	/* the same since its latest event: spin_ns
				 * once one follows; the same */
	uint64_t yield_wall;	/* wall clock of its latest sched_yield, */
	uint64_t yield_cpu;	/* its CPU time then */
	uint64_t yield_last;	/* and its ->last then */
	/* a thread still running when the process ends: its end, set by
	 * the finishing thread (cp_thread_end_live) before the report */
	bool live_end;		/* set */
	bool live_waiting;	/* it was blocked then: the time since its
				 * latest event is waiting, else useful */
	uint64_t live_ts;	/* its clock then (cp_rt.clock) */
	uint64_t live_wall;	/* the wall clock then */
	uint64_t live_useful;	/* useful time since its latest event */
	uint64_t live_wait;	/* waiting since then */
	bool idle;		/* waiting where no call will end the wait (an
				 * OpenMP pool thread between regions): an exit
				 * ends it, the time is not useful */
	/* registry lock: */
	struct cp_thread *next;	/* registry list, newest first */
	bool published;		/* in the registry */
	bool detached;		/* created detached: not in the id table */
	bool in_ids;		/* in the id table under id */
	pthread_t id;		/* its pthread_t, for the id table */
	struct cp_thread *id_next;	/* id table chain */
	/* debug builds (cp_thread_assert), owning thread: */
	uint64_t dbg_len;	/* path length at the last check */
	uint32_t dbg_gen;	/* its generation */
};

/* Allocate a thread state with @parent's path (NULL: empty); any thread. */
struct cp_thread *cp_thread_new(const struct cp_thread *parent);
/* Free a state that was never bound (its thread failed to start). */
void cp_thread_free(struct cp_thread *t);
/* Make @t the calling thread's state and start its clock; publishes it
 * (cp_thread_publish) unless its creator did.  Calling thread. */
void cp_thread_bind(struct cp_thread *t);
/*
 * Enter @t, the state of the thread whose pthread_t is @id, in the
 * registry (the exit report and the trace list it even if it never runs)
 * and, unless t->detached, in the id table that pthread_join consults; an
 * older entry of @id (a detached thread gone) is replaced.  Only the first
 * call for @t counts, so the creator (after the real pthread_create) and
 * the thread itself (at its start) may race: whichever comes first
 * publishes, before the program can know @id.  Any thread.
 */
void cp_thread_publish(struct cp_thread *t, pthread_t id);
/* The state of the joinable thread @id, or NULL.  Call before the real
 * join or detach, while @id cannot name another thread.  Any thread. */
struct cp_thread *cp_thread_by_id(pthread_t id);
/* Remove @t from the id table (joined or detached); an entry of its id
 * that is no longer @t (the id already reused) stays.  Any thread. */
void cp_thread_unlink_id(struct cp_thread *t);
/* The kernel's name (comm) of thread @ostid of this process into @buf
 * (16 bytes), "" when it cannot be read; errno kept.  Any thread. */
void cp_thread_comm(int ostid, char *buf);

/*
 * @t's name as the program set it (pthread_setname_np, prctl) into @buf
 * (16 bytes): what it was at the thread's exit, or for a live thread now;
 * when the thread kept the process's name, "main" for the first thread
 * and "" for the others.  Any thread.
 */
const char *cp_thread_name(const struct cp_thread *t, char *buf);

/* The thread's last event: advance, publish the final path, flush; the
 * calling thread is untraced from then on.  Idempotent; owning thread. */
void cp_thread_exit(struct cp_thread *t);
/* Start over after cpthread_start(): empty path of the new generation
 * (unless the path already is of it, taken from a record at the end of a
 * wait), clock @now (ns of cp_rt.clock).  Owning thread. */
void cp_thread_restart(struct cp_thread *t, uint64_t now);
/* Head of the registry (all threads ever published, newest first), for
 * report walks.  Any thread: entries are only ever added at the head, so
 * a walk sees a consistent list; fields of live threads read racily. */
struct cp_thread *cp_thread_all(void);
/* Forget every thread (forked child, before it binds its own).  Single-
 * threaded. */
void cp_thread_reset_registry(void);

/* The thread's clock now (ns of cp_rt.clock, wall or cpu); records
 * wall_now too.  Owning thread. */
static inline uint64_t cp_thread_now(struct cp_thread *t)
{
	uint64_t w = cp_clock_wall();

	t->wall_now = w;
	if (cp_rt.clock == 1 /* CP_CLOCK_CPU */)
		return cp_cpuclock_now(&t->cpuclk, w);
	return w;
}

/*
 * Debug builds (CP_DEBUG): die unless @t's state keeps its invariants: at
 * most nsel procedures active, each a selected one (and, counting
 * nesting, entered at least once), the record map not over-full, the
 * path a path value (cp_path_assert) no shorter than at the last check of
 * the same generation (advances and merges only lengthen a path; only a
 * new generation starts it over).  O(nsel).  Owning thread.
 */
static inline void cp_thread_assert(struct cp_thread *t)
{
	unsigned nsel = cp_rt.nsel;

	if (!CP_DEBUG)
		return;
	if (t->path->gen == t->dbg_gen && t->path->len < t->dbg_len)
		cp_die("thread: its path got shorter");
	t->dbg_len = t->path->len;
	t->dbg_gen = t->path->gen;
	if (t->nactive > nsel)
		cp_die("thread: more procedures active than selected");
	for (uint32_t k = 0; k < t->nactive; k++)
		if (t->active[k] >= nsel ||
		    (!cp_rt.cfg.exclusive && t->depth[t->active[k]] == 0))
			cp_die("thread: an active procedure is not entered");
	if (t->cache && cp_map_over(t->cache_used, t->cache_mask))
		cp_die("thread: record map over-full");
	cp_path_assert(t->path, nsel);
}

/* Charge @d ns of useful time to the selected procedures whose hooks
 * say they run now (the thread's path has grown by @d already).  Owning
 * thread. */
static inline void cp_thread_charge_active(struct cp_thread *t, uint64_t d)
{
	unsigned nsel = cp_rt.nsel;
	uint64_t *share = t->path->v, *z = t->path->v + nsel;

	for (uint32_t k = 0; k < t->nactive; k++) {
		unsigned i = t->active[k];

		share[i] += d;
		z[i] += d;
		t->proc_cpu[i] += d;
	}
}

/* The same, and a part of @d to each procedure found by sampling: the
 * fraction of the interval's samples that held it.  Owning thread. */
static inline void cp_thread_advance_procs(struct cp_thread *t, uint64_t d)
{
	cp_thread_charge_active(t, d);
	if (t->nsampled)
		cp_sampler_split(t, d);
}

/* Fold the useful time since the last event (@now, ns of cp_rt.clock)
 * into the path; a new generation restarts it instead.  Owning thread. */
static inline void cp_thread_advance(struct cp_thread *t, uint64_t now)
{
	uint64_t d = now > t->last ? now - t->last : 0;

	if (__builtin_expect(t->gen != atomic_load_explicit(&cp_rt.gen,
				memory_order_relaxed), 0)) {
		cp_thread_restart(t, now);
		return;
	}
	t->last = now;
	t->path->len += d;
	t->useful_ns += d;
	if (t->procs_on)
		cp_thread_advance_procs(t, d);
	cp_thread_assert(t);
}

/* End a wait (begun with an advance) at @now, @waited wall ns long: the
 * wait is not useful time.  Owning thread. */
static inline void cp_thread_waited(struct cp_thread *t, uint64_t now,
				    uint64_t waited)
{
	t->wait_ns += waited;
	if (now > t->last)
		t->last = now;
}

/* @t's useful time, waiting and longest path at the end of the run:
 * with the time since its latest event when it was still running then
 * (cp_thread_end_live).  The report's. */
static inline uint64_t cp_thread_useful_end(const struct cp_thread *t)
{
	return t->useful_ns + t->live_useful;
}

static inline uint64_t cp_thread_wait_end(const struct cp_thread *t)
{
	return t->wait_ns + t->live_wait;
}

static inline uint64_t cp_thread_len_end(const struct cp_thread *t)
{
	return t->path->len + t->live_useful;
}

/*
 * At the process's end (cp_runtime_finish), on the finishing thread: end
 * @t, another thread still running, where the process ends.  The time
 * since its latest event is useful when it was running or runnable then
 * (spinning, or computing a job nothing waited for: a pool's workers), or
 * under the cpu clock the processor time it took since; waiting when it
 * was blocked (in a traced wait, or one the unexplained-waiting note
 * counts).  Sets @t's live_* fields, read by the report and the trace
 * writer; nothing of @t's own state changes.
 */
void cp_thread_end_live(struct cp_thread *t);

#endif /* CP_THREAD_H */
