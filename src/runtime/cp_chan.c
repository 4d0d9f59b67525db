/*
 * cp_chan.c - which descriptors are channels between the program's
 * threads, and under which data epoll sets report them (cp_chan.h).
 *
 * Descriptors: an array of channel ids by descriptor number, written by
 * the calls that make and close descriptors, read with one relaxed load
 * by every write and wait (a stale id costs an edge, never a crash).
 * Epoll: a small table of (set, descriptor, data) for the channel
 * descriptors some set watches, changed and searched under a short lock
 * taken with the tracer's guard raised (never by a signal handler that
 * interrupted a holder), its sets read without it; event loops put one
 * or two in each set.  A record's key is a made-up address below any
 * mapping (id * 16 in the model namespace), so it meets no object of the
 * program's.
 */
#include "cp_chan.h"

#include "cp_lock.h"
#include "cp_runtime.h"

_Atomic uint32_t cp_chan_fd[CP_CHAN_FDS];
static _Atomic uint32_t cp_chan_next = 1;

/* Channel descriptors in epoll sets: more are not followed. */
#define CP_CHAN_WATCHED 256

/* (epfd is read without the lock, by cp_chan_epoll_watches) */
struct watched {
	_Atomic int epfd;
	int fd;
	uint64_t data;
	uint32_t id;
};

static struct cp_lock cp_chan_lk;
static struct watched cp_chan_w[CP_CHAN_WATCHED];
static _Atomic unsigned cp_chan_nw;

static const void *key_of(uint32_t id)
{
	return (const void *)((uintptr_t)id << 4);
}

void cp_chan_open(int fd0, int fd1)
{
	uint32_t id = atomic_fetch_add_explicit(&cp_chan_next, 1,
						memory_order_relaxed);

	if ((unsigned)fd0 < CP_CHAN_FDS)
		atomic_store_explicit(&cp_chan_fd[fd0], id,
				      memory_order_relaxed);
	if ((unsigned)fd1 < CP_CHAN_FDS)
		atomic_store_explicit(&cp_chan_fd[fd1], id,
				      memory_order_relaxed);
}

void cp_chan_close(int fd, bool forget)
{
	uint32_t id = cp_chan_of(fd);
	bool last = true;

	if (!id)
		return;
	atomic_store_explicit(&cp_chan_fd[fd], 0, memory_order_relaxed);
	if (!forget)
		return;
	cp_chan_epoll_del(-1, fd);
	for (unsigned i = 0; i < CP_CHAN_FDS && last; i++)
		last = atomic_load_explicit(&cp_chan_fd[i],
					    memory_order_relaxed) != id;
	if (last)
		cp_objrec_forget(key_of(id), CP_NS_MODEL);
}

void cp_chan_close_range(unsigned first, unsigned last, bool forget)
{
	for (unsigned fd = first; fd <= last && fd < CP_CHAN_FDS; fd++)
		cp_chan_close((int)fd, forget);
}

void cp_chan_dup(int from, int to)
{
	if ((unsigned)to < CP_CHAN_FDS)
		atomic_store_explicit(&cp_chan_fd[to], cp_chan_of(from),
				      memory_order_relaxed);
}

static int epfd_of(unsigned i)
{
	return atomic_load_explicit(&cp_chan_w[i].epfd, memory_order_relaxed);
}

/* Entry @i := (@epfd, @fd, @data, @id); the lock held. */
static void put(unsigned i, int epfd, int fd, uint64_t data, uint32_t id)
{
	cp_chan_w[i].fd = fd;
	cp_chan_w[i].data = data;
	cp_chan_w[i].id = id;
	atomic_store_explicit(&cp_chan_w[i].epfd, epfd, memory_order_relaxed);
}

void cp_chan_epoll_set(int epfd, int fd, uint64_t data)
{
	uint32_t id = cp_chan_of(fd);
	unsigned n, i;

	if (!id)
		return;
	cp_lock_acquire(&cp_chan_lk);
	n = atomic_load_explicit(&cp_chan_nw, memory_order_relaxed);
	for (i = 0; i < n; i++)
		if (epfd_of(i) == epfd && cp_chan_w[i].fd == fd)
			break;
	if (i < CP_CHAN_WATCHED) {
		put(i, epfd, fd, data, id);
		if (i == n)
			atomic_store_explicit(&cp_chan_nw, n + 1,
					      memory_order_release);
	}
	cp_lock_release(&cp_chan_lk);
}

void cp_chan_epoll_del(int epfd, int fd)
{
	unsigned n;

	if (!atomic_load_explicit(&cp_chan_nw, memory_order_relaxed))
		return;
	cp_lock_acquire(&cp_chan_lk);
	n = atomic_load_explicit(&cp_chan_nw, memory_order_relaxed);
	for (unsigned i = 0; i < n;) {
		if ((epfd < 0 || epfd_of(i) == epfd) &&
		    cp_chan_w[i].fd == fd) {
			n--;
			put(i, epfd_of(n), cp_chan_w[n].fd, cp_chan_w[n].data,
			    cp_chan_w[n].id);
		} else {
			i++;
		}
	}
	atomic_store_explicit(&cp_chan_nw, n, memory_order_release);
	cp_lock_release(&cp_chan_lk);
}

/* No lock: a set's entry moved by a deletion meanwhile may be missed,
 * and that wait is then taken as one on no channel. */
bool cp_chan_epoll_watches(int epfd)
{
	unsigned n = atomic_load_explicit(&cp_chan_nw, memory_order_acquire);

	for (unsigned i = 0; i < n; i++)
		if (epfd_of(i) == epfd)
			return true;
	return false;
}

uint32_t cp_chan_epoll_find(int epfd, uint64_t data)
{
	uint32_t id = 0;
	unsigned n;

	cp_lock_acquire(&cp_chan_lk);
	n = atomic_load_explicit(&cp_chan_nw, memory_order_relaxed);
	for (unsigned i = 0; i < n && !id; i++)
		if (epfd_of(i) == epfd && cp_chan_w[i].data == data)
			id = cp_chan_w[i].id;
	cp_lock_release(&cp_chan_lk);
	return id;
}

struct cp_objrec *cp_chan_rec(struct cp_thread *t, uint32_t id,
			      const void *ra)
{
	if (!id || cp_runtime_alone())
		return NULL;
	return cp_objrec_get_at(t, key_of(id), CP_NS_MODEL, CP_OBJ_CHAN, 0,
				ra);
}
