/*
 * cp_chan.h - channels: the descriptors through which the program's
 * threads wake each other (pipes, eventfds, socket pairs), and which of
 * them an epoll set watches under which data.
 *
 * An event loop (libuv, libevent, a server's own) sleeps in epoll_wait,
 * poll or select; another thread wakes it by writing to an eventfd or a
 * pipe (uv_async_send, a dispatcher handing a worker a connection).  The
 * wrappers (wrappers/wrap_chan.c) make such a write a release and the
 * wait's end a take of the channel's signal record; this module tells
 * them which descriptor is which channel.
 *
 * A channel is made by pipe, pipe2, eventfd or socketpair; both ends of a
 * pipe or socket pair are one channel.  Descriptors from
 * CP_CHAN_FDS up are not followed.  close() ends a descriptor's part, and
 * so do a dup2 or dup3 onto it, close_range and closefrom; a descriptor
 * closed behind the wrappers' back (a raw system call) keeps its channel
 * until its number is reused by another channel or closed.  Channel ids are
 * never reused; a channel's record is forgotten when its last end closes.
 *
 * Any thread; the epoll table takes a short lock (cp_chan_epoll_set,
 * _del, _find: the guard raised), the descriptor table none.
 */
#ifndef CP_CHAN_H
#define CP_CHAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cp_objrec.h"
#include "cp_thread.h"

#define CP_CHAN_FDS 4096

extern _Atomic uint32_t cp_chan_fd[CP_CHAN_FDS];

/* The channel of descriptor @fd, 0 for none.  One load. */
static inline uint32_t cp_chan_of(int fd)
{
	if ((unsigned)fd >= CP_CHAN_FDS)
		return 0;
	return atomic_load_explicit(&cp_chan_fd[fd], memory_order_relaxed);
}

/* A new channel whose ends are @fd0 and @fd1 (-1: one descriptor, an
 * eventfd). */
void cp_chan_open(int fd0, int fd1);

/* @fd no longer belongs to its channel (closed, or replaced by dup2).
 * With @forget (the guard raised by the caller: never inside the tracer,
 * whose short lock a signal handler's close could otherwise wait for)
 * the epoll sets forget it too, and the channel's record goes when it
 * was the last end; without, only its number is cleared. */
void cp_chan_close(int fd, bool forget);

/* Descriptors @first to @last closed together (close_range, closefrom);
 * @forget as for cp_chan_close. */
void cp_chan_close_range(unsigned first, unsigned last, bool forget);

/* @to is now a copy of @from (dup2, dup3): the same channel, or none. */
void cp_chan_dup(int from, int to);

/* The epoll set @epfd watches channel descriptor @fd under @data
 * (EPOLL_CTL_ADD, EPOLL_CTL_MOD); no longer (EPOLL_CTL_DEL, or
 * @fd closed: every set). */
void cp_chan_epoll_set(int epfd, int fd, uint64_t data);
void cp_chan_epoll_del(int epfd, int fd);

/* Whether set @epfd watches a channel descriptor (one load when no set
 * does). */
bool cp_chan_epoll_watches(int epfd);

/* The channel an event of set @epfd with @data reports on, 0 for none. */
uint32_t cp_chan_epoll_find(int epfd, uint64_t data);

/*
 * The signal record of channel @id (cp_online_signal, merged: many
 * writers, one taker), made at the program's call @ra (its site) when
 * new; NULL while the process has had one thread only (a write then
 * precedes every other thread's creation) or out of memory.  Calling
 * thread, guard raised.
 */
struct cp_objrec *cp_chan_rec(struct cp_thread *t, uint32_t id,
			      const void *ra);

#endif /* CP_CHAN_H */
