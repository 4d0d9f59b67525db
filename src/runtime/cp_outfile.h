/*
 * cp_outfile.h - creating the files the tracer writes (trace, report).
 *
 * A default name (cpthread.<pid>.cpt, .json) is predictable, so it is
 * created with O_EXCL | O_NOFOLLOW: an existing file or symlink of that
 * name is never opened; the next free name cpthread.<pid>.N.<ext> is taken
 * instead and stderr says which.  The one exception is a trace that this
 * process itself wrote under that name before an exec (a forked child that
 * execs): the program now running takes the name over.  A name the user gave (CPTHREAD_TRACE,
 * CPTHREAD_REPORT) is truncated if it exists, but a symlink there is only
 * followed with CPTHREAD_FOLLOW_SYMLINKS=1 (or under /dev/ and /proc/,
 * whose links the system made: /dev/stderr).  A file created gets mode
 * CPTHREAD_FILE_MODE (0600 unless asked otherwise) less the umask the
 * process started with, whatever umask the program has set since; a file
 * that existed keeps its mode.
 *
 * The trace is written under its final name, not as NAME.partial renamed
 * at a clean end: a trace cut short says so itself (no END block, and cpt
 * reports it as partial), and a name that changed exactly when the run
 * crashed would break `cpt run --trace F ...; cpt report F` on the run the
 * user most wants explained.
 */
#ifndef CP_OUTFILE_H
#define CP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Create the output file @path (@len bytes of room) for writing, with
 * extra open flags @flags (O_APPEND...).  @is_default: @path is the
 * default name, which may be changed to the next free one (@what names the
 * file in that message: "trace", "report").  Returns the descriptor (moved
 * out of the program's way: cp_fds.h), or -errno (-ELOOP: an
 * explicit path is a symlink not to be followed).  Errno is preserved.
 * Any thread; start-up or exit.
 */
int cp_outfile_create(char *path, size_t len, bool is_default,
		      const char *what, int flags);

#endif /* CP_OUTFILE_H */
