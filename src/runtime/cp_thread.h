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

#define CP_CACHE_MIN 64		/* slots of a thread's record map, first */
#define CP_CACHE_MAX (1u << 15)	/* and at most (then it starts over) */
#define CP_SHADOW_MAX 256

struct cp_objrec;
struct cp_tracebuf;
struct cp_smp;
struct cp_thread;

/* Share @d ns among the sampled procedures (cp_sampler.c). */
void cp_sampler_split(struct cp_thread *t, uint64_t d);

/* An entry of a thread's map from object to record (cp_objrec.h): open
 * addressing with linear probing, never more than half full; entries are
 * overwritten, never removed, so a probe ends at the first empty slot. */
struct cp_cache_slot {
	uintptr_t key;		/* address << 2 | namespace, 0: empty */
	struct cp_objrec *rec;	/* valid while rec->tag == key */
};

/* Home slot of @key, before masking (Fibonacci hashing: arrays of locks
 * with any stride spread over the map). */
static inline uint32_t cp_cache_home(uintptr_t key)
{
	return (uint32_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 32);
}

struct cp_thread {
	/* what every event touches first */
	struct cp_path *path;	/* current longest path (owner = tid) */
	uint64_t last;		/* clock at the latest event */
	uint32_t tid;
	uint32_t gen;		/* generation path belongs to */
	uint64_t useful_ns;	/* sum of advances */
	uint64_t wait_ns;	/* time inside waits */
	uint64_t wall_now;	/* wall clock of the latest cp_thread_now() */
	struct cp_cache_slot *cache;	/* record map, cache_mask + 1 slots */
	uint32_t cache_mask;
	uint32_t cache_used;	/* slots holding a key */
	struct cp_tracebuf *tb;	/* trace mode: event buffer */
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
	uint64_t start_wall, end_wall;
	uint64_t unseen_ns;	/* at exit: blocked outside wrapped waits
				 * (cp_unseen.h) */
	bool idle;		/* waiting where no call will end the wait (an
				 * OpenMP pool thread between regions): an exit
				 * ends it, the time is not useful */
	struct cp_thread *next;	/* registry list, newest first */
};

/* Allocate a thread state with @parent's path (NULL: empty); any thread. */
struct cp_thread *cp_thread_new(const struct cp_thread *parent);
/* Free a state that was never bound (its thread failed to start). */
void cp_thread_free(struct cp_thread *t);
/* Make @t the calling thread's state and start its clock. */
void cp_thread_bind(struct cp_thread *t);
/* The thread's last event: advance, publish the final path, flush; the
 * calling thread is untraced from then on.  Idempotent; owning thread. */
void cp_thread_exit(struct cp_thread *t);
/* Start over after cpthread_start(): empty path of the new generation. */
void cp_thread_restart(struct cp_thread *t, uint64_t now);
/* Head of the registry (all threads ever bound), for report walks. */
struct cp_thread *cp_thread_all(void);
/* Forget every thread but the caller (forked child). */
void cp_thread_reset_registry(struct cp_thread *keep);

/* The thread's clock now (wall or cpu); records wall_now too. */
static inline uint64_t cp_thread_now(struct cp_thread *t)
{
	uint64_t w = cp_clock_wall();

	t->wall_now = w;
	if (cp_rt.clock == 1 /* CP_CLOCK_CPU */)
		return cp_cpuclock_now(&t->cpuclk, w);
	return w;
}

/* Charge @d ns of useful time to the selected procedures whose hooks
 * say they run now (the thread's path has grown by @d already). */
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
 * fraction of the interval's samples that held it. */
static inline void cp_thread_advance_procs(struct cp_thread *t, uint64_t d)
{
	cp_thread_charge_active(t, d);
	if (t->nsampled)
		cp_sampler_split(t, d);
}

/* Fold the useful time since the last event into the path. */
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
}

/* End a wait (begun with an advance) at @now, @waited wall ns long: the
 * wait is not useful time. */
static inline void cp_thread_waited(struct cp_thread *t, uint64_t now,
				    uint64_t waited)
{
	t->wait_ns += waited;
	if (now > t->last)
		t->last = now;
}

#endif /* CP_THREAD_H */
