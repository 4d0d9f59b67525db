/*
 * smp_noperf.c - a preloadable shim that refuses perf_event_open with
 * EACCES, as a stock Debian kernel does for users (perf_event_paranoid 3)
 * and many containers do for everyone: the sampler's fallback is tested
 * with it.  Every other syscall() goes to libc.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long n, ...);

long syscall(long n, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];

	if (n == SYS_perf_event_open) {
		errno = EACCES;
		return -1;
	}
	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
