/*
 * cp_outfile.c - safe creation of the tracer's output files.
 */
#include "cp_outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_fds.h"
#include "cp_runtime.h"
#include "cp_trace_format.h"

#define CP_OUTFILE_TRIES 100

/* @path with ".@n" inserted before its extension (or appended). */
static void numbered(const char *path, unsigned n, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');

	if (!dot || (slash && dot < slash))
		snprintf(out, len, "%s.%u", path, n);
	else
		snprintf(out, len, "%.*s.%u%s", (int)(dot - path), path, n,
			 dot);
}

/* Does the file @fd of @size bytes end with an END block (a finished
 * trace)? */
static bool ends_finished(int fd, off_t size)
{
	struct {
		struct cp_block_header b;
		struct cp_trace_end e;
	} tail;

	return size >= (off_t)(CP_TRACE_HEADER_SIZE + sizeof(tail)) &&
	       pread(fd, &tail, sizeof(tail), size - (off_t)sizeof(tail)) ==
		       (ssize_t)sizeof(tail) &&
	       tail.b.magic == CP_BLOCK_MAGIC && tail.b.type == CP_BLOCK_END &&
	       tail.b.size == sizeof(tail.e);
}

/*
 * The default name is taken by a trace this very process wrote before it
 * called exec (a forked child that execs opened its trace at the fork):
 * a regular file of ours whose trace header names our pid and that the
 * image before did not finish (it stayed one thread:
 * cp_runtime_exec_begin).  Reopened truncated with @flags (no O_CREAT),
 * so the program that runs now owns its name, as it would without the
 * exec; else -1.
 */
static int reopen_own_trace(const char *path, int flags)
{
	struct cp_trace_header h;
	struct stat st;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	bool ours;

	if (fd < 0)
		return -1;
	ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() &&
	       pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	       !memcmp(h.magic, CP_TRACE_MAGIC, 8) &&
	       h.pid == (uint64_t)getpid() && !ends_finished(fd, st.st_size);
	close(fd);
	if (!ours)
		return -1;
	return open(path, (flags & ~O_CREAT) | O_TRUNC);
}

/*
 * Create @path, which must not exist (O_EXCL), with @flags and the
 * configured mode.  The mode is set again once the file is open: the
 * umask applied by open() is the program's, which may have changed since
 * start-up (a report is created at exit), and a program's umask(0777)
 * must not leave the user a report of mode 0000.
 */
static int create_new(const char *path, int flags)
{
	mode_t mode = (mode_t)cp_rt.cfg.file_mode;
	int fd = open(path, flags | O_EXCL, mode);

	if (fd >= 0)
		(void)fchmod(fd, mode);	/* a filesystem without modes:
					 * what open() made stays */
	return fd;
}

int cp_outfile_create(char *path, size_t len, bool is_default,
		      const char *what, int flags)
{
	int saved = errno, fd, err;
	char alt[PATH_MAX];

	flags |= O_WRONLY | O_CREAT | O_CLOEXEC;
	if (!is_default) {
		/* the system's own links (/dev/stderr, /proc/self/fd/N) are
		 * nobody's trap: followed */
		if (!cp_rt.cfg.follow_symlinks &&
		    strncmp(path, "/dev/", 5) && strncmp(path, "/proc/", 6))
			flags |= O_NOFOLLOW;
		/* a file that exists keeps its mode, as open() keeps it */
		fd = create_new(path, flags);
		if (fd < 0 && errno == EEXIST)
			fd = open(path, flags | O_TRUNC,
				  (mode_t)cp_rt.cfg.file_mode);
		err = errno;
		errno = saved;
		return fd >= 0 ? cp_fd_out_of_way(fd) : -err;
	}
	flags |= O_NOFOLLOW;
	fd = create_new(path, flags);
	if (fd < 0 && errno == EEXIST) {
		fd = reopen_own_trace(path, flags);
		if (fd < 0)
			errno = EEXIST;	/* taken: try the next names */
	}
	for (unsigned n = 1; fd < 0 && errno == EEXIST &&
	     n < CP_OUTFILE_TRIES; n++) {
		numbered(path, n, alt, sizeof(alt));
		fd = create_new(alt, flags);
		if (fd >= 0) {
			cp_warn("%s exists; writing the %s to %s", path, what,
				alt);
			snprintf(path, len, "%s", alt);
		}
	}
	err = errno;
	errno = saved;
	return fd >= 0 ? cp_fd_out_of_way(fd) : -err;
}
