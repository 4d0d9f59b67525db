/*
 * cp_fds.h - the descriptors the tracer uses beside the program's.
 *
 * The program owns the descriptor table: it may close any descriptor
 * (its standard ones, or every one above 2 with closefrom), and its next
 * open() then reuses the lowest free number; dup2() silently replaces
 * whatever a number held.  So a number the tracer wrote to at start-up
 * may later be a file of the program's, and a line or a trace block
 * written there would land among the program's data.  Hence:
 *
 *   - the tracer's long-lived descriptors (the trace file, the sampler's
 *     perf events; the report, opened at exit) take numbers from
 *     CP_FD_MIN up, out of the way of a program that expects its next
 *     open() to return a low number or reopens 0-2 (cp_fd_out_of_way);
 *   - the tracer notes what each of them refers to (device and inode:
 *     struct cp_fd_id) and checks it is still that file before writing,
 *     closing or unlinking through it (cp_fd_is);
 *   - its lines (summary, warnings) go to the program's stderr as it was
 *     at start-up, and nowhere once descriptor 2 is another file or
 *     closed: a program that moved its stderr to a log or to /dev/null,
 *     or opened a file of its own on number 2, hears nothing from the
 *     tracer after that (cp_stderr_write);
 *   - its writes raise no signal in the program: a stderr that is a pipe
 *     nobody reads any more (`prog 2>&1 | head -1`) would otherwise kill
 *     the program with SIGPIPE at exit, a report over the file size limit
 *     with SIGXFSZ (cp_fd_write_all).
 *
 * Async-signal-safe (fcntl, fstat, write, close and the signal-mask
 * system calls only): the crash paths use all of it.
 */
#ifndef CP_FDS_H
#define CP_FDS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CP_FD_MIN 256

/* @fd moved to CP_FD_MIN or above, close-on-exec, its old number closed;
 * @fd itself where that fails (the descriptor limit is lower).  Errno is
 * preserved.  Any thread. */
int cp_fd_out_of_way(int fd);

/* What a descriptor refers to. */
struct cp_fd_id {
	bool open;
	dev_t dev;
	ino_t ino;
};

/* What @fd refers to now (id->open false: not an open descriptor).
 * Errno is preserved.  Any thread. */
void cp_fd_id_of(int fd, struct cp_fd_id *id);

/* Whether @fd still refers to the file of @id (false when @id was not
 * open).  Errno is preserved.  Any thread. */
bool cp_fd_is(int fd, const struct cp_fd_id *id);

/* Write @n bytes at @buf to @fd, continuing after short writes, with
 * SIGPIPE and SIGXFSZ held in the calling thread: one the write raises is
 * taken back (unless the program had one pending already), so the write
 * just fails with EPIPE or EFBIG.  0, or the errno of the failure.  Errno
 * is preserved.  Any thread. */
int cp_fd_write_all(int fd, const void *buf, size_t n);

/* Note what descriptor 2 is: at start-up, in the runtime's constructor
 * before any message (an exec starts afresh; a fork child keeps it). */
void cp_stderr_init(void);

/* Write @n bytes at @buf to the program's stderr while descriptor 2 is
 * the file it was at cp_stderr_init (short writes continued, errors
 * dropped: there is nowhere to say them).  Errno is preserved.  Any
 * thread. */
void cp_stderr_write(const char *buf, size_t n);

/* 2 while descriptor 2 is that file, else -1 (for a caller that writes
 * through a buffer of its own).  Any thread. */
int cp_stderr_fd(void);

#endif /* CP_FDS_H */
