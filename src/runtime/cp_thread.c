/*
 * cp_thread.c - thread states: creation, binding, exit, the registry.
 *
 * The registry keeps every thread state ever bound, newest first, until
 * the process exits: the exit report lists them and folds them into the
 * final critical path (program end depends on every thread's last event).
 * A state is small (its trace buffer is freed at thread exit), so a
 * program creating thousands of threads keeps a few hundred kB.
 */

#include "cp_thread.h"

#include <string.h>
#include <unistd.h>

#include "cp_alloc.h"
#include "cp_lock.h"
#include "cp_sampler.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"
#include "cp_unseen.h"

static struct cp_lock cp_registry_lock;
static struct cp_thread *cp_registry;

/*
 * A thread's state, its path and its record map each sit on cache lines of
 * their own: the owner writes them at every event, and a neighbour in the
 * arena written by another thread would make every event a miss.
 */
struct cp_thread *cp_thread_new(const struct cp_thread *parent)
{
	unsigned nsel = cp_rt.nsel;
	struct cp_thread *t = cp_zalloc_lines(sizeof(*t));

	if (!t)
		return NULL;
	t->path = cp_zalloc_lines(cp_path_size(nsel));
	t->proc_cpu = cp_zalloc_lines((nsel ? nsel : 1) * sizeof(uint64_t));
	t->cache = cp_zalloc_lines(CP_CACHE_MIN * sizeof(*t->cache));
	if (!t->path || !t->proc_cpu || !t->cache) {
		cp_thread_free(t);
		return NULL;
	}
	t->cache_mask = CP_CACHE_MIN - 1;
	t->tid = atomic_fetch_add(&cp_rt.next_tid, 1);
	t->gen = atomic_load(&cp_rt.gen);
	if (parent) {
		cp_path_copy(t->path, parent->path, nsel);
		t->parent = parent->tid;
		t->gen = parent->gen;
	} else {
		cp_path_clear(t->path, nsel, t->gen, t->tid);
		t->parent = UINT32_MAX;
	}
	t->path->owner = t->tid;
	return t;
}

void cp_thread_bind(struct cp_thread *t)
{
	cp_self = t;
	t->self = pthread_self();
	t->ostid = gettid();
	if (cp_rt.clock == CP_CLOCK_CPU)
		cp_cpuclock_start(&t->cpuclk);
	t->last = cp_thread_now(t);
	t->start_wall = t->wall_now;
	if (cp_rt.trace && cp_rt.trace_fd >= 0)
		t->tb = cp_tb_new(t->tid, t->last,
				  cp_rt.clock == CP_CLOCK_CPU ? t->wall_now : 0);
	cp_lock_acquire(&cp_registry_lock);
	t->next = cp_registry;
	cp_registry = t;
	cp_lock_release(&cp_registry_lock);
	cp_sampler_thread_start(t);
}

void cp_thread_restart(struct cp_thread *t, uint64_t now)
{
	t->gen = atomic_load(&cp_rt.gen);
	cp_path_clear(t->path, cp_rt.nsel, t->gen, t->tid);
	if (now > t->last)
		t->last = now;
}

void cp_thread_exit(struct cp_thread *t)
{
	uint64_t now, wall_last = t->wall_now;

	if (t->exited)
		return;
	now = cp_thread_now(t);
	if (t->idle)
		cp_thread_waited(t, now, t->wall_now - wall_last);
	else
		cp_thread_advance(t, now);
	cp_sampler_thread_stop(t);
	t->end_wall = t->wall_now;
	t->unseen_ns = cp_unseen_blocked(t);
	if (t->tb) {
		cp_tb_commit(t->tb, cp_tb_vertex(t->tb, CP_EV_THREAD_EXIT |
			(t->idle ? CP_EVF_WAIT : 0), now,
			cp_rt.clock == CP_CLOCK_CPU ? t->wall_now : UINT64_MAX));
		cp_tb_flush(t->tb);
	}
	/* Publish before freeing: the exit report may run concurrently. */
	__atomic_store_n(&t->exited, true, __ATOMIC_RELEASE);
	/*
	 * The thread's path is final.  What it still runs (thread-specific
	 * data destructors of other libraries, which may lock) is not part
	 * of the program: raise the guard for the rest of its life.
	 */
	if (cp_self == t)
		cp_guard++;
	if (t->tb) {
		struct cp_tracebuf *tb = t->tb;

		t->traced = tb->total;
		t->tb = NULL;
		cp_tb_free(tb);
	}
}

struct cp_thread *cp_thread_all(void)
{
	struct cp_thread *head;

	cp_lock_acquire(&cp_registry_lock);
	head = cp_registry;
	cp_lock_release(&cp_registry_lock);
	return head;
}

void cp_thread_reset_registry(struct cp_thread *keep)
{
	memset(&cp_registry_lock, 0, sizeof(cp_registry_lock));
	cp_registry = keep;
	if (keep)
		keep->next = NULL;
}

void cp_thread_free(struct cp_thread *t)
{
	if (!t)
		return;
	cp_free(t->path);
	cp_free(t->proc_cpu);
	cp_free(t->cache);
	cp_free(t);
}
