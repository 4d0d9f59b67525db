/*
 * wrap_exec.c - the exec family: a process with something to report
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

/* How many arguments follow @arg in @ap up to the NULL, which counts. */
static size_t count_args(const char *arg, va_list ap)
{
	size_t n = 1;

	while (arg) {
		arg = va_arg(ap, const char *);
		n++;
	}
	return n;
}

/* @argv (@n slots) filled from @arg and @ap, NULL last. */
static void fill_args(char **argv, size_t n, const char *arg, va_list ap)
{
	argv[0] = (char *)arg;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(ap, char *);
}

CP_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(arg, ap);
	va_end(ap);
	char *argv[n];

	va_start(ap, arg);
	fill_args(argv, n, arg, ap);
	va_end(ap);
	return execv(path, argv);
}

CP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(arg, ap);
	va_end(ap);
	char *argv[n];

	va_start(ap, arg);
	fill_args(argv, n, arg, ap);
	va_end(ap);
	return execvp(file, argv);
}

/* execle: the environment follows the NULL that ends the arguments. */
CP_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	va_list ap;
	size_t n;

	va_start(ap, arg);
	n = count_args(arg, ap);
	va_end(ap);
	char *argv[n];

	va_start(ap, arg);
	fill_args(argv, n, arg, ap);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, argv, envp);
}
