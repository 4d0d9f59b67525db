/*
 * cp_fds.c - the tracer's descriptors kept apart from the program's
 * (cp_fds.h).
 */
#include "cp_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The kernel's signal set size: the mask calls go to the kernel directly,
 * the program's pthread_sigmask and sigtimedwait being wrapped. */
#define KSIGSET (_NSIG / 8)

/* System call @nr with four arguments, given as the six that syscall()
 * reads (its variadic implementations, glibc's and any shim's, read six:
 * fewer would have them read the caller's stack). */
static long sys4(long nr, long a, long b, long c, long d)
{
	return syscall(nr, a, b, c, d, 0L, 0L);
}

/* What descriptor 2 was at start-up; written before any thread. */
static struct cp_fd_id stderr_at_start;

int cp_fd_out_of_way(int fd)
{
	int saved = errno, hi = fcntl(fd, F_DUPFD_CLOEXEC, CP_FD_MIN);

	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	errno = saved;
	return fd;
}

void cp_fd_id_of(int fd, struct cp_fd_id *id)
{
	struct stat st;
	int saved = errno;

	id->open = fd >= 0 && fstat(fd, &st) == 0;
	id->dev = id->open ? st.st_dev : 0;
	id->ino = id->open ? st.st_ino : 0;
	errno = saved;
}

bool cp_fd_is(int fd, const struct cp_fd_id *id)
{
	struct cp_fd_id now;

	if (!id->open)
		return false;
	cp_fd_id_of(fd, &now);
	return now.open && now.dev == id->dev && now.ino == id->ino;
}

int cp_fd_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	sigset_t quiet, old, before;
	int saved = errno, err = 0;

	sigemptyset(&quiet);
	sigaddset(&quiet, SIGPIPE);
	sigaddset(&quiet, SIGXFSZ);
	sys4(SYS_rt_sigpending, (long)&before, KSIGSET, 0, 0);
	sys4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&quiet, (long)&old, KSIGSET);
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	if (err == EPIPE || err == EFBIG) {
		int sig = err == EPIPE ? SIGPIPE : SIGXFSZ;
		struct timespec now = { 0, 0 };
		sigset_t one;

		sigemptyset(&one);
		sigaddset(&one, sig);
		if (!sigismember(&before, sig))	/* ours: taken back */
			sys4(SYS_rt_sigtimedwait, (long)&one, 0, (long)&now,
			     KSIGSET);
	}
	sys4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, KSIGSET);
	errno = saved;
	return err;
}

void cp_stderr_init(void)
{
	cp_fd_id_of(2, &stderr_at_start);
}

int cp_stderr_fd(void)
{
	return cp_fd_is(2, &stderr_at_start) ? 2 : -1;
}

void cp_stderr_write(const char *buf, size_t n)
{
	int fd = cp_stderr_fd();

	if (fd >= 0)
		(void)cp_fd_write_all(fd, buf, n);
}
