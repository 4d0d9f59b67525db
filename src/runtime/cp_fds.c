/*
 * cp_fds.c - the tracer's descriptors kept apart from the program's
 * (cp_fds.h).
 */
#include "cp_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
	int saved = errno, fd = cp_stderr_fd();

	while (fd >= 0 && n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		buf += w;
		n -= (size_t)w;
	}
	errno = saved;
}
