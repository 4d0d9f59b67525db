/*
 * wrap_chan.c - the channels through which threads wake each other:
 * pipes, eventfds and socket pairs, written to by one thread and waited
 * on by another, alone (read) or among other descriptors (poll, select,
 * epoll).  An event loop's thread (libuv's, libevent's, a server's own)
 * sleeps in epoll_wait until a worker's write to an eventfd or a pipe
 * says its work is done (uv_async_send), and a dispatcher hands a worker
 * a connection the same way.  Without these the loop's sleep counted as
 * useful work, and an idle loop thread could hold the critical path.
 *
 * The calls that make a channel (pipe, pipe2, eventfd, socketpair of
 * AF_UNIX) register its descriptors (cp_chan.h); close, close_range,
 * closefrom, dup2 and dup3 unregister them; epoll_ctl notes the channel
 * descriptors a set watches and under which data.  A write to a channel (write, writev, send,
 * eventfd_write) publishes the writer's path into the channel's signal
 * record, merged (many writers, one reader), before the real call.  A
 * wait (read, readv, eventfd_read on a channel; poll, ppoll, select,
 * pselect, epoll_wait, epoll_pwait on any set) that returns a channel
 * ready takes the writes made to it since the previous take: the wait
 * ends with an edge from them.  A wait that returns no channel with a
 * write since its previous take ended on something outside the process
 * (the network, a timer, another process's write, a child's output): the
 * tracer has no edge for it, and the time stays useful, standing for
 * that outside work on the thread's path, as a wait for a child process
 * does, and is counted apart (cp_unseen.h: "waiting outside the
 * process"), as is a readiness wait on no channel at all (a server's
 * sockets).  A poll with a zero timeout is no wait, nor is a read of a
 * non-blocking channel (an event loop draining its eventfd after the
 * wait that took the write); what they find is taken all the same.  A
 * read of any other descriptor costs one load on
 * the way to the real call.  Return values and errno are the real
 * calls'.
 */
#include "wrap_common.h"

#include <fcntl.h>

#include <linux/close_range.h>
#include <sys/socket.h>

#include "cp_chan.h"
#include "cp_unseen.h"

/* ---- making and closing --------------------------------------------- */

CP_EXPORT int pipe(int fd[2])
{
	int rc = CP_REAL(pipe)(fd);

	if (rc == 0)
		cp_chan_open(fd[0], fd[1]);
	return rc;
}

CP_EXPORT int pipe2(int fd[2], int flags)
{
	int rc = CP_REAL(pipe2)(fd, flags);

	if (rc == 0)
		cp_chan_open(fd[0], fd[1]);
	return rc;
}

CP_EXPORT int eventfd(unsigned count, int flags)
{
	int fd = CP_REAL(eventfd)(count, flags);

	if (fd >= 0)
		cp_chan_open(fd, -1);
	return fd;
}

CP_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
	int rc = CP_REAL(socketpair)(domain, type, protocol, sv);

	if (rc == 0 && domain == AF_UNIX)
		cp_chan_open(sv[0], sv[1]);
	return rc;
}

/*
 * A vfork child shares its parent's memory, the table of channels with
 * it, but not its descriptors: what it closes before its exec (Python's
 * subprocess closes every descriptor above 2) stays open in the parent,
 * and registered.
 */
static bool in_vfork_child(void)
{
	return getpid() != cp_rt.pid;
}

/* Descriptor @fd leaves its channel (before the real call that closes or
 * replaces it). */
static void unregister(int fd)
{
	struct cp_thread *t;

	if (!cp_chan_of(fd) || in_vfork_child())
		return;
	t = cp_enter();
	cp_chan_close(fd, t != NULL);
	if (t)
		cp_leave();
}

CP_EXPORT int close(int fd)
{
	unregister(fd);
	return CP_REAL(close)(fd);
}

/* Descriptors @first to @last leave their channels. */
static void unregister_range(unsigned first, unsigned last)
{
	struct cp_thread *t;

	if (in_vfork_child())
		return;
	t = cp_enter();
	cp_chan_close_range(first, last, t != NULL);
	if (t)
		cp_leave();
}

CP_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		unregister_range(first, last);
	return CP_REAL(close_range)(first, last, flags);
}

CP_EXPORT void closefrom(int lowfd)
{
	if (lowfd >= 0)
		unregister_range((unsigned)lowfd, ~0u);
	CP_REAL(closefrom)(lowfd);
}

CP_EXPORT int dup2(int oldfd, int newfd)
{
	int rc;

	if (oldfd != newfd)
		unregister(newfd);
	rc = CP_REAL(dup2)(oldfd, newfd);
	if (rc >= 0 && oldfd != newfd)
		cp_chan_dup(oldfd, newfd);
	return rc;
}

CP_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	int rc;

	unregister(newfd);
	rc = CP_REAL(dup3)(oldfd, newfd, flags);
	if (rc >= 0)
		cp_chan_dup(oldfd, newfd);
	return rc;
}

CP_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	int rc = CP_REAL(epoll_ctl)(epfd, op, fd, ev);
	struct cp_thread *t;

	/* (the epoll table's lock is taken with the guard raised only, so
	 * that a signal handler's call never waits for it) */
	if (rc == 0 && cp_chan_of(fd) && (t = cp_enter())) {
		if (op == EPOLL_CTL_DEL)
			cp_chan_epoll_del(epfd, fd);
		else if (ev)
			cp_chan_epoll_set(epfd, fd, ev->data.u64);
		cp_leave();
	}
	return rc;
}

/* ---- writes: releases ------------------------------------------------ */

/* A write to channel @id, called from @ra. */
__attribute__((noinline)) static void woke(uint32_t id, const void *ra)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;

	if (!t)
		return;
	r = cp_chan_rec(t, id, ra);
	if (r)
		cp_online_signal(t, r, true);
	cp_leave();
}

/*
 * A write or a read: the fast path (no channel, the real functions
 * resolved) is a test and a jump to the real call, with no frame of its
 * own; the slow one is the function @slow (..., @ra) the caller names.
 */
#define CP_CHAN_FAST(name, fd, slow, ...)				\
	do {								\
		if (__builtin_expect(!cp_chan_of(fd) && cp_real.ready, 1)) \
			return cp_real.name(__VA_ARGS__);		\
		return slow(__VA_ARGS__, __builtin_return_address(0));	\
	} while (0)

/* The slow path of a write of @fd, called from @ra. */
#define CP_CHAN_WRITE_SLOW(fd, ra, real_call)				\
	do {								\
		uint32_t id_ = cp_chan_of(fd);				\
									\
		if (id_)						\
			woke(id_, ra);					\
		return real_call;					\
	} while (0)

__attribute__((noinline)) static ssize_t
write_slow(int fd, const void *buf, size_t n, const void *ra)
{
	CP_CHAN_WRITE_SLOW(fd, ra, CP_REAL(write)(fd, buf, n));
}

CP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	CP_CHAN_FAST(write, fd, write_slow, fd, buf, n);
}

__attribute__((noinline)) static ssize_t
writev_slow(int fd, const struct iovec *iov, int n, const void *ra)
{
	CP_CHAN_WRITE_SLOW(fd, ra, CP_REAL(writev)(fd, iov, n));
}

CP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	CP_CHAN_FAST(writev, fd, writev_slow, fd, iov, n);
}

__attribute__((noinline)) static ssize_t
send_slow(int fd, const void *buf, size_t n, int flags, const void *ra)
{
	CP_CHAN_WRITE_SLOW(fd, ra, CP_REAL(send)(fd, buf, n, flags));
}

CP_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	CP_CHAN_FAST(send, fd, send_slow, fd, buf, n, flags);
}

__attribute__((noinline)) static int
eventfd_write_slow(int fd, eventfd_t value, const void *ra)
{
	CP_CHAN_WRITE_SLOW(fd, ra, CP_REAL(eventfd_write)(fd, value));
}

CP_EXPORT int eventfd_write(int fd, eventfd_t value)
{
	CP_CHAN_FAST(eventfd_write, fd, eventfd_write_slow, fd, value);
}

/* ---- waits: takes ---------------------------------------------------- */

/* A wait on descriptors in progress. */
struct chan_wait {
	struct cp_thread *t;
	struct cp_wait w;
	struct cp_cancel cc;
	const void *ra;		/* the program's call */
	uint64_t t0;		/* wall clock at its start */
	bool blocking;		/* a wait, not a zero-timeout poll */
	bool chans;		/* on a channel: a wait of the graph */
	unsigned taken;		/* channels that brought writes */
};

/* Cancelled inside the wait: a channel wait ends as a failed one. */
static void chan_cancelled(const struct cp_cancel *c)
{
	if (c->a)
		cp_online_failed(c->t, NULL, c->w);
}

/* Begin a wait (@blocking) or a poll, on channels (@chans) or not; false
 * when the thread is not traced or there is nothing to follow (a poll of
 * no channel). */
static bool wait_begin(struct chan_wait *cw, bool blocking, bool chans,
		       const void *ra)
{
	if (!blocking && !chans)
		return false;
	cw->t = cp_enter();
	if (!cw->t)
		return false;
	cw->ra = ra;
	cw->blocking = blocking;
	cw->chans = chans;
	cw->taken = 0;
	cw->t0 = blocking ? cp_clock_wall() : 0;
	if (blocking && chans)
		cp_online_wait_begin(cw->t, NULL, &cw->w);
	cw->cc = (struct cp_cancel){ .end = chan_cancelled, .t = cw->t,
				     .w = &cw->w,
				     .a = blocking && chans ? (void *)cw
							    : NULL };
	return true;
}

/* Channel @id came back ready: take its writes since the last take. */
static void wait_take(struct chan_wait *cw, uint32_t id)
{
	struct cp_objrec *r;

	if (!id)
		return;
	r = cp_chan_rec(cw->t, id, cw->ra);
	if (!r || !cp_online_signal_pending(r))
		return;
	cp_online_signal_take(cw->t, r,
			      cw->blocking && !cw->taken ? &cw->w : NULL, true);
	cw->taken++;
}

/* The end of the wait: without a write taken, it ended on something
 * outside the process, and its time stays useful, said apart. */
static void wait_end(struct chan_wait *cw)
{
	if (cw->blocking && !cw->taken) {
		uint64_t t1 = cp_clock_wall();

		if (cw->chans)
			cp_online_failed(cw->t, NULL, NULL);
		cp_unseen_outside_wait(cw->t, t1 > cw->t0 ? t1 - cw->t0 : 0);
	}
	cp_leave();
}

/* Whether a read of @fd returns at once rather than block (O_NONBLOCK:
 * an event loop drains its wake-up descriptor so after its readiness
 * wait); errno kept. */
static bool chan_nonblocking(int fd)
{
	int saved = errno, fl = fcntl(fd, F_GETFL);

	errno = saved;
	return fl >= 0 && (fl & O_NONBLOCK);
}

/* The slow path of a read-like call on descriptor @fd, called from @ra:
 * a wait for its channel's writes when it is one (and returned data; a
 * non-blocking one is no wait, only the take), else only the real
 * call. */
#define CP_CHAN_READ_SLOW(type, fd, ra, real_call, ok)			\
	do {								\
		uint32_t id_ = cp_chan_of(fd);				\
		struct chan_wait cw;					\
		type rc;						\
		int err;						\
									\
		if (!id_ || !wait_begin(&cw, !chan_nonblocking(fd), true,	\
					ra))				\
			return real_call;				\
		CP_CANCELLABLE(&cw.cc, rc = real_call, err = errno);	\
		if (ok)							\
			wait_take(&cw, id_);				\
		wait_end(&cw);						\
		errno = err;						\
		return rc;						\
	} while (0)

__attribute__((noinline)) static ssize_t
read_slow(int fd, void *buf, size_t n, const void *ra)
{
	CP_CHAN_READ_SLOW(ssize_t, fd, ra, CP_REAL(read)(fd, buf, n), rc > 0);
}

CP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	CP_CHAN_FAST(read, fd, read_slow, fd, buf, n);
}

__attribute__((noinline)) static ssize_t
readv_slow(int fd, const struct iovec *iov, int n, const void *ra)
{
	CP_CHAN_READ_SLOW(ssize_t, fd, ra, CP_REAL(readv)(fd, iov, n),
			  rc > 0);
}

CP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	CP_CHAN_FAST(readv, fd, readv_slow, fd, iov, n);
}

__attribute__((noinline)) static int
eventfd_read_slow(int fd, eventfd_t *value, const void *ra)
{
	CP_CHAN_READ_SLOW(int, fd, ra, CP_REAL(eventfd_read)(fd, value),
			  rc == 0);
}

CP_EXPORT int eventfd_read(int fd, eventfd_t *value)
{
	CP_CHAN_FAST(eventfd_read, fd, eventfd_read_slow, fd, value);
}

/*
 * A readiness wait: @call run with the guard lowered, then @takes (the
 * channels it returned ready) when it watched one, when the thread is
 * traced and the wait blocks or watches a channel; else @call alone.
 */
#define CP_CHAN_READY(call, blocking, watched, takes)			\
	do {								\
		struct chan_wait cw;					\
		int rc, err;						\
									\
		if (!wait_begin(&cw, blocking, watched,			\
				__builtin_return_address(0)))		\
			return call;					\
		CP_CANCELLABLE(&cw.cc, rc = call, err = errno);		\
		if (cw.chans && rc > 0)					\
			takes;						\
		wait_end(&cw);						\
		errno = err;						\
		return rc;						\
	} while (0)

/* Whether @fds holds a channel descriptor. */
static bool poll_has_chan(const struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		if (cp_chan_of(fds[i].fd))
			return true;
	return false;
}

/* After a poll: take every channel that came back readable. */
static void poll_takes(struct chan_wait *cw, const struct pollfd *fds,
		       nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		if (fds[i].revents & (POLLIN | POLLHUP))
			wait_take(cw, cp_chan_of(fds[i].fd));
}

CP_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	CP_CHAN_READY(CP_REAL(poll)(fds, n, timeout), timeout != 0,
		      poll_has_chan(fds, n), poll_takes(&cw, fds, n));
}

CP_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		    const sigset_t *mask)
{
	CP_CHAN_READY(CP_REAL(ppoll)(fds, n, ts, mask),
		      !ts || ts->tv_sec || ts->tv_nsec,
		      poll_has_chan(fds, n), poll_takes(&cw, fds, n));
}

/* Whether read set @rd of @nfds descriptors holds a channel. */
static bool select_has_chan(int nfds, const fd_set *rd)
{
	if (!rd)
		return false;
	for (int fd = 0; fd < nfds && fd < FD_SETSIZE; fd++)
		if (FD_ISSET(fd, rd) && cp_chan_of(fd))
			return true;
	return false;
}

/* After a select whose read set @rd holds a channel: take the channels
 * it returned readable. */
static void select_takes(struct chan_wait *cw, int nfds, const fd_set *rd)
{
	for (int fd = 0; fd < nfds && fd < FD_SETSIZE; fd++)
		if (FD_ISSET(fd, rd))
			wait_take(cw, cp_chan_of(fd));
}

CP_EXPORT int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
		     struct timeval *tv)
{
	CP_CHAN_READY(CP_REAL(select)(nfds, rd, wr, ex, tv),
		      !tv || tv->tv_sec || tv->tv_usec,
		      select_has_chan(nfds, rd), select_takes(&cw, nfds, rd));
}

CP_EXPORT int pselect(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
		      const struct timespec *ts, const sigset_t *mask)
{
	CP_CHAN_READY(CP_REAL(pselect)(nfds, rd, wr, ex, ts, mask),
		      !ts || ts->tv_sec || ts->tv_nsec,
		      select_has_chan(nfds, rd), select_takes(&cw, nfds, rd));
}

/* After an epoll wait of set @epfd, which watches a channel: take the
 * channels among the @n events. */
static void epoll_takes(struct chan_wait *cw, int epfd,
			const struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++)
		if (ev[i].events & (EPOLLIN | EPOLLHUP))
			wait_take(cw, cp_chan_epoll_find(epfd,
							 ev[i].data.u64));
}

CP_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max,
			 int timeout)
{
	CP_CHAN_READY(CP_REAL(epoll_wait)(epfd, ev, max, timeout),
		      timeout != 0, cp_chan_epoll_watches(epfd),
		      epoll_takes(&cw, epfd, ev, rc));
}

CP_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max,
			  int timeout, const sigset_t *mask)
{
	CP_CHAN_READY(CP_REAL(epoll_pwait)(epfd, ev, max, timeout, mask),
		      timeout != 0, cp_chan_epoll_watches(epfd),
		      epoll_takes(&cw, epfd, ev, rc));
}
