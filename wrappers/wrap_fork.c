/*
 * wrap_fork.c - fork(): the child starts over with its own report.
 */
#include "wrap_common.h"

CP_EXPORT pid_t fork(void)
{
	pid_t pid;
	int err;

	if (!cp_rt.tracing || cp_tls.guard)
		return CP_REAL(fork)();
	cp_tls.guard++;
	cp_runtime_prefork();
	pid = CP_REAL(fork)();
	err = errno;
	if (pid == 0)
		cp_runtime_postfork_child();
	else
		cp_runtime_postfork_parent();
	cp_tls.guard--;
	errno = err;
	return pid;
}
