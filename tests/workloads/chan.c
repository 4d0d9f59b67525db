/*
 * chan.c - a thread that sleeps on a channel (a pipe, an eventfd, a socket
 * pair) until main writes to it once "a" is done, as an event loop sleeps
 * until a worker's write wakes it.  Times in ms; regions in quotes.
 *
 *   main: create T; wait R; "a" 100; write to the channel; "c" 10;
 *         join T
 *   T:    post R; wait on the channel (~100); "d" 20
 *
 * The argument names the channel, the wait and the write:
 *   pipe         a pipe; read; write
 *   eventfd      an eventfd; eventfd_read; eventfd_write
 *   socketpair   an AF_UNIX socket pair; readv; send
 *   poll         a pipe; poll (no timeout), then read; writev
 *   ppoll        an eventfd; ppoll (no timeout), then read; write
 *   select       a pipe; select (no timeout), then read; write
 *   pselect      an eventfd; pselect (no timeout), then read;
 *                eventfd_write
 *   epoll        an eventfd and a pipe in one epoll set under data of the
 *                program's own (not descriptors); epoll_wait; the
 *                eventfd written
 *   epoll_pwait  the same set; epoll_pwait; the pipe written
 *   nonblock     a non-blocking eventfd; poll (no timeout), then
 *                eventfd_read until it fails with EAGAIN, as an event
 *                loop drains its wake-up descriptor; eventfd_write.  The
 *                reads after the poll are no waits, nothing taken.
 *   vfork        a pipe, as "pipe", after main has run a vfork child
 *                that closes every descriptor above 2 (close, then
 *                closefrom) and exits: the parent's stay open, and
 *                channels
 * T's wake depends on main's write.
 *   Paths: a -> d = 120, a -> c = 110.  CP 120: a 100, d 20, c 0.
 *   Zeroing: a 100, d 10, c 0.  Useful: main 110, T 20.
 *
 *   outside      an eventfd nobody writes; poll with a 100 ms timeout
 *                (it ends on the timer, outside the program), after a
 *                select of a pipe's write end alone (writable at once,
 *                no read set); "a" is
 *                burnt all the same.  No edge: T's 100 ms of waiting
 *                stay useful time under the wall clock (nothing under the
 *                cpu clock), none of it waiting, all of it waiting
 *                outside the process.
 *   sleep        the same 100 ms slept: usleep 40, nanosleep 30,
 *                clock_nanosleep 20, and 10 in a select of no
 *                descriptor (a sleep of old).
 */
#include "wl.h"

#include <poll.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static sem_t ready;
static const char *mode;
static int efd = -1, pfd[2] = { -1, -1 }, sfd[2] = { -1, -1 }, epfd = -1;

static bool is(const char *m)
{
	return !strcmp(mode, m);
}

/* Read the 8 bytes of a write from @fd. */
static void drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		perror("chan: read");
		exit(1);
	}
}

static void wait_chan(void)
{
	struct pollfd p = { .events = POLLIN };
	struct epoll_event ev[4];
	eventfd_t v;
	fd_set rd;
	int n = 1;

	if (is("pipe") || is("vfork")) {
		drain(pfd[0]);
	} else if (is("eventfd")) {
		WL_OK(eventfd_read(efd, &v));
	} else if (is("socketpair")) {
		struct iovec iov = { &v, sizeof(v) };

		n = readv(sfd[1], &iov, 1) == (ssize_t)sizeof(v);
	} else if (is("poll") || is("ppoll")) {
		p.fd = is("poll") ? pfd[0] : efd;
		n = is("poll") ? poll(&p, 1, -1) : ppoll(&p, 1, NULL, NULL);
		drain(p.fd);
	} else if (is("select") || is("pselect")) {
		int fd = is("select") ? pfd[0] : efd;

		FD_ZERO(&rd);
		FD_SET(fd, &rd);
		n = is("select") ? select(fd + 1, &rd, NULL, NULL, NULL)
				 : pselect(fd + 1, &rd, NULL, NULL, NULL,
					   NULL);
		drain(fd);
	} else if (is("epoll") || is("epoll_pwait")) {
		n = is("epoll") ? epoll_wait(epfd, ev, 4, -1)
				: epoll_pwait(epfd, ev, 4, -1, NULL);
		drain(ev[0].data.u64 == 0xe5 ? efd : pfd[0]);
	} else if (is("nonblock")) {
		p.fd = efd;
		n = poll(&p, 1, -1);
		WL_OK(eventfd_read(efd, &v));
		if (eventfd_read(efd, &v) != -1 || errno != EAGAIN) {
			fprintf(stderr, "chan: nonblock: a second read\n");
			exit(1);
		}
	} else if (is("sleep")) {
		struct timespec ts = { 0, 30000000 }, ts2 = { 0, 20000000 };
		struct timeval tv = { 0, 10000 };

		n = !usleep(40000) && !nanosleep(&ts, NULL) &&
		    !clock_nanosleep(CLOCK_MONOTONIC, 0, &ts2, NULL) &&
		    !select(0, NULL, NULL, NULL, &tv);
	} else {		/* outside */
		fd_set wr;

		FD_ZERO(&wr);
		FD_SET(pfd[1], &wr);
		p.fd = efd;
		n = select(pfd[1] + 1, NULL, &wr, NULL, NULL) == 1 &&
		    poll(&p, 1, 100) == 0;
	}
	if (n != 1) {
		fprintf(stderr, "chan: %s: the wait returned %d\n", mode, n);
		exit(1);
	}
}

static void write_chan(void)
{
	uint64_t one = 1;
	struct iovec iov = { &one, sizeof(one) };
	ssize_t n = sizeof(one);

	if (is("pipe") || is("select") || is("vfork"))
		n = write(pfd[1], &one, sizeof(one));
	else if (is("poll"))
		n = writev(pfd[1], &iov, 1);
	else if (is("eventfd") || is("pselect") || is("nonblock"))
		WL_OK(eventfd_write(efd, 1));
	else if (is("socketpair"))
		n = send(sfd[0], &one, sizeof(one), 0);
	else if (is("ppoll") || is("epoll"))
		n = write(efd, &one, sizeof(one));
	else if (is("epoll_pwait"))
		n = write(pfd[1], &one, sizeof(one));
	if (n != (ssize_t)sizeof(one)) {
		perror("chan: write");
		exit(1);
	}
}

static void *thread_t(void *arg)
{
	(void)arg;
	WL_OK(sem_post(&ready));
	wait_chan();
	wl_region("d", 20);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
		"pipe", "eventfd", "socketpair", "poll", "ppoll", "select",
		"pselect", "epoll", "epoll_pwait", "vfork", "nonblock",
		"outside", "sleep",
	};
	struct epoll_event ev = { .events = EPOLLIN };
	bool known = false;
	pthread_t t;

	wl_init();
	mode = argc > 1 ? argv[1] : "";
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		known = known || is(modes[i]);
	if (!known)
		return 2;
	if (pipe(pfd) ||
	    (efd = eventfd(0, is("nonblock") ? EFD_NONBLOCK : 0)) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sfd) ||
	    (epfd = epoll_create1(0)) < 0) {
		perror("chan: making the channels");
		return 1;
	}
	ev.data.u64 = 0xe5;
	WL_OK(epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev));
	ev.data.u64 = 0xf7;
	WL_OK(epoll_ctl(epfd, EPOLL_CTL_ADD, pfd[0], &ev));
	if (is("vfork")) {
		pid_t pid = vfork();
		int st;

		if (pid == 0) {
			close(pfd[0]);
			close(pfd[1]);
			closefrom(3);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st) {
			perror("chan: vfork");
			return 1;
		}
	}
	WL_OK(sem_init(&ready, 0, 0));
	WL_OK(pthread_create(&t, NULL, thread_t, NULL));
	WL_OK(sem_wait(&ready));
	wl_region("a", 100);
	if (!is("outside") && !is("sleep"))
		write_chan();
	wl_region("c", 10);
	WL_OK(pthread_join(t, NULL));
	close(epfd);
	close(efd);
	close(pfd[0]);
	close(pfd[1]);
	close(sfd[0]);
	close(sfd[1]);
	printf("chan %s done\n", mode);
	return 0;
}
