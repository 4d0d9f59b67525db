/*
 * cp_thread.c - thread states: creation, binding, exit, the registry.
 *
 * The registry keeps every thread state ever published, newest first,
 * until the process exits: the exit report lists them and folds them into
 * the final critical path (program end depends on every thread's last
 * event).  A state is small (its trace buffer is freed at thread exit), so a
 * program creating thousands of threads keeps a few hundred kB.
 *
 * A thread enters the registry when it is created (or, for a thread the
 * tracer did not create, when it is first seen), not when it starts: a
 * thread that never ran before the program exited is still listed, so
 * the trace names every thread a THREAD_CREATE names.
 *
 * The id table maps a joinable thread's pthread_t to its state, for
 * pthread_join.  glibc reuses a pthread_t as soon as the thread is joined
 * (or has ended detached), so a join looks its thread up before the real
 * join, while the id can only name that thread, and afterwards removes
 * that very state, not whatever the id names by then.  States are never
 * freed, so a pointer taken from the table stays valid.
 */

#include "cp_thread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cp_alloc.h"
#include "cp_lock.h"
#include "cp_objrec.h"
#include "cp_sampler.h"
#include "cp_sites.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"
#include "cp_unseen.h"

#define CP_ID_BUCKETS 1024

static struct cp_lock cp_registry_lock;
static struct cp_thread *cp_registry;
static struct cp_thread *cp_ids[CP_ID_BUCKETS];	/* chained by id_next */

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
	cp_tls.self = t;
	cp_objrec_thread_begin();
	t->self = pthread_self();
	t->ostid = gettid();
	if (cp_rt.clock == CP_CLOCK_CPU)
		cp_cpuclock_start(&t->cpuclk);
	t->last = cp_thread_now(t);
	if (t->parent == UINT32_MAX) {
		/* its kernel counters began before the tracer saw it (after
		 * an exec, the image's too): the unseen time counts from now */
		t->start_wall = t->wall_now;
		if (cp_rt.clock == CP_CLOCK_WALL &&
		    cp_unseen_schedstat(t->ostid, &t->sched_cpu0,
					&t->sched_runq0) != 0)
			t->sched_cpu0 = t->sched_runq0 = 0;
	}
	if (cp_rt.trace && cp_rt.trace_fd >= 0)
		t->tb = cp_tb_new(t->tid, t->last,
				  cp_rt.clock == CP_CLOCK_CPU ? t->wall_now : 0);
	cp_thread_publish(t, t->self);
	cp_sampler_thread_start(t);
}

static struct cp_thread **id_bucket(pthread_t id)
{
	return &cp_ids[cp_cache_home((uintptr_t)id) % CP_ID_BUCKETS];
}

/* Unlink @t from its chain; registry lock held, t->in_ids. */
static void id_unlink_locked(struct cp_thread *t)
{
	struct cp_thread **pp = id_bucket(t->id);

	while (*pp != t)
		pp = &(*pp)->id_next;
	*pp = t->id_next;
	t->id_next = NULL;
	t->in_ids = false;
}

void cp_thread_publish(struct cp_thread *t, pthread_t id)
{
	struct cp_thread **pp;

	cp_lock_acquire(&cp_registry_lock);
	if (t->published) {
		cp_lock_release(&cp_registry_lock);
		return;
	}
	t->published = true;
	t->next = cp_registry;
	cp_registry = t;
	t->id = id;
	if (!t->detached) {
		pp = id_bucket(id);
		for (struct cp_thread *o = *pp; o; o = o->id_next) {
			if (pthread_equal(o->id, id)) {
				id_unlink_locked(o);
				break;
			}
		}
		t->id_next = *pp;
		*pp = t;
		t->in_ids = true;
	}
	cp_lock_release(&cp_registry_lock);
}

struct cp_thread *cp_thread_by_id(pthread_t id)
{
	struct cp_thread *t;

	cp_lock_acquire(&cp_registry_lock);
	for (t = *id_bucket(id); t; t = t->id_next)
		if (pthread_equal(t->id, id))
			break;
	cp_lock_release(&cp_registry_lock);
	return t;
}

void cp_thread_unlink_id(struct cp_thread *t)
{
	cp_lock_acquire(&cp_registry_lock);
	if (t->in_ids)
		id_unlink_locked(t);
	cp_lock_release(&cp_registry_lock);
}

void cp_thread_restart(struct cp_thread *t, uint64_t now)
{
	t->gen = atomic_load(&cp_rt.gen);
	/* a path of the new generation was taken at the end of a wait that
	 * spanned cpthread_start(): keep that dependency */
	if (t->path->gen != t->gen)
		cp_path_clear(t->path, cp_rt.nsel, t->gen, t->tid);
	if (now > t->last)
		t->last = now;
}

void cp_thread_comm(int ostid, char *buf)
{
	char path[64];
	ssize_t n = -1;
	int fd, saved = errno;

	if (ostid == gettid()) {	/* one system call, no file */
		if (prctl(PR_GET_NAME, buf, 0, 0, 0) != 0)
			buf[0] = '\0';
		buf[15] = '\0';
		errno = saved;
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", ostid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, 15);
		close(fd);
	}
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	errno = saved;
}

const char *cp_thread_name(const struct cp_thread *t, char *buf)
{
	if (__atomic_load_n(&t->exited, __ATOMIC_ACQUIRE))
		memcpy(buf, t->name, sizeof(t->name));
	else
		cp_thread_comm(t->ostid, buf);
	if (!strcmp(buf, cp_rt.comm0))
		strcpy(buf, t->tid == 0 ? "main" : "");
	return buf;
}

void cp_thread_end_live(struct cp_thread *t)
{
	uint64_t wall = cp_clock_wall(), ts = wall;
	uint64_t last = __atomic_load_n(&t->last, __ATOMIC_RELAXED);
	uint64_t wall_last = __atomic_load_n(&t->wall_now, __ATOMIC_RELAXED);
	uint64_t runq;
	bool running = !t->idle;

	/* not started yet (published by its creator only), ended, or of
	 * an old generation */
	if (!t->ostid || __atomic_load_n(&t->exited, __ATOMIC_ACQUIRE) ||
	    t->gen != atomic_load(&cp_rt.gen))
		return;
	if (cp_rt.clock == CP_CLOCK_CPU) {
		/* /proc, not its pthread_t: the thread may be ending */
		if (cp_unseen_schedstat(t->ostid, &ts, &runq))
			return;
	} else {
		running = running && cp_unseen_running(t->ostid);
	}
	if (ts < last)
		ts = last;
	t->live_ts = ts;
	t->live_wall = wall;
	t->live_waiting = !running;
	if (running)
		t->live_useful = ts - last;
	else
		t->live_wait = wall > wall_last ? wall - wall_last : 0;
	__atomic_store_n(&t->live_end, true, __ATOMIC_RELEASE);
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
	cp_thread_comm(t->ostid, t->name);
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
	if (cp_tls.self == t)
		cp_tls.guard++;
	if (t->tb) {
		struct cp_tracebuf *tb = t->tb;

		t->traced = tb->total;
		t->tb = NULL;
		cp_tb_free(tb);
	}
	cp_sites_thread_end(t);
}

struct cp_thread *cp_thread_all(void)
{
	struct cp_thread *head;

	cp_lock_acquire(&cp_registry_lock);
	head = cp_registry;
	cp_lock_release(&cp_registry_lock);
	return head;
}

void cp_thread_reset_registry(void)
{
	memset(&cp_registry_lock, 0, sizeof(cp_registry_lock));
	memset(cp_ids, 0, sizeof(cp_ids));
	cp_registry = NULL;
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
