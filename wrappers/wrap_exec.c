/*
 * wrap_exec.c - the exec family: a process that has run threads
 * finishes its report and trace before its image is replaced
 * (cp_runtime_exec_begin); the exec itself is the real one, with the
 * program's arguments and environment as given.  glibc's execl* and
 * execvp reach execve inside libc, past any interposer, so every name is
 * wrapped.  The execl* forms gather their arguments as glibc's do.
 */
#include "wrap_common.h"

#include <stdarg.h>

/* After the real exec returned (it failed): errno as it set it. */
static int exec_failed(bool finished)
{
	if (finished)
		cp_runtime_exec_failed(errno);
	return -1;
}

CP_EXPORT int execve(const char *path, char *const argv[],
		     char *const envp[])
{
	bool finished = cp_runtime_exec_begin();

	CP_REAL(execve)(path, argv, envp);
	return exec_failed(finished);
}

CP_EXPORT int execv(const char *path, char *const argv[])
{
	bool finished = cp_runtime_exec_begin();

	CP_REAL(execv)(path, argv);
	return exec_failed(finished);
}

CP_EXPORT int execvp(const char *file, char *const argv[])
{
	bool finished = cp_runtime_exec_begin();

	CP_REAL(execvp)(file, argv);
	return exec_failed(finished);
}

CP_EXPORT int execvpe(const char *file, char *const argv[],
		      char *const envp[])
{
	bool finished = cp_runtime_exec_begin();

	CP_REAL(execvpe)(file, argv, envp);
	return exec_failed(finished);
}

CP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	bool finished = cp_runtime_exec_begin();

	CP_REAL(fexecve)(fd, argv, envp);
	return exec_failed(finished);
}

/* How an execl* form goes on: the execv* form it stands for. */
enum exec_via { VIA_EXECV, VIA_EXECVP, VIA_EXECVE };

/*
 * The execl* forms: their arguments from @arg up to the NULL gathered
 * into an array on the stack, as glibc's do (execle's environment after
 * the NULL), then the execv* form @via with @path.
 */
static int exec_list(enum exec_via via, const char *path, const char *arg,
		     va_list ap)
{
	va_list count;
	size_t n = 1;	/* the NULL */

	va_copy(count, ap);
	for (const char *a = arg; a; a = va_arg(count, const char *))
		n++;
	va_end(count);
	char *argv[n];

	argv[0] = (char *)arg;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(ap, char *);
	if (via == VIA_EXECVE)
		return execve(path, argv, va_arg(ap, char *const *));
	return via == VIA_EXECVP ? execvp(path, argv) : execv(path, argv);
}

/* An execl* entry point: its arguments gathered, then the execv* form
 * @via. */
#define EXEC_LIST_FORM(name, via)					\
	CP_EXPORT int name(const char *path, const char *arg, ...)	\
	{								\
		va_list ap;						\
		int ret;						\
									\
		va_start(ap, arg);					\
		ret = exec_list(via, path, arg, ap);			\
		va_end(ap);						\
		return ret;						\
	}

EXEC_LIST_FORM(execl, VIA_EXECV)
EXEC_LIST_FORM(execlp, VIA_EXECVP)
EXEC_LIST_FORM(execle, VIA_EXECVE)
