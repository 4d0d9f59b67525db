/*
 * wrap_fork.c - fork(): the child starts over with its own report.
 */
#include "wrap_common.h"

CP_EXPORT pid_t fork(void)
{
	pid_t pid;
	int err;

	if (!cp_rt.tracing || cp_guard)
		return CP_REAL(fork)();
	cp_guard++;
	cp_runtime_prefork();
	pid = CP_REAL(fork)();
	err = errno;
	if (pid == 0)
		cp_runtime_postfork_child();
	else
		cp_runtime_postfork_parent();
	cp_guard--;
	errno = err;
	return pid;
}
