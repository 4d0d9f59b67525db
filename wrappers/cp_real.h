/*
 * cp_real.h - the real pthread_* / sem_* / fork / exec functions,
 * resolved once with dlsym(RTLD_NEXT) (dlvsym where glibc versions the
 * name: the pthread_cond family has two versions on x86-64; a missing
 * version falls back to the default one, so other architectures work
 * too).
 *
 * Resolution happens in a constructor, and lazily for a call that comes
 * earlier (another library's constructor).
 */
#ifndef CP_REAL_H
#define CP_REAL_H

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#define CP_EXPORT __attribute__((visibility("default")))

/* X(return type, name, parameter list, symbol version or NULL) */
#define CP_REAL_FUNCS(X)						\
	X(int, pthread_create, (pthread_t *, const pthread_attr_t *,	\
				void *(*)(void *), void *), NULL)	\
	X(int, pthread_join, (pthread_t, void **), NULL)		\
	X(int, pthread_tryjoin_np, (pthread_t, void **), NULL)		\
	X(int, pthread_timedjoin_np, (pthread_t, void **,		\
				      const struct timespec *), NULL)	\
	X(void, pthread_exit, (void *), NULL)				\
	X(int, pthread_mutex_init, (pthread_mutex_t *,			\
				    const pthread_mutexattr_t *), NULL)	\
	X(int, pthread_mutex_destroy, (pthread_mutex_t *), NULL)	\
	X(int, pthread_mutex_lock, (pthread_mutex_t *), NULL)		\
	X(int, pthread_mutex_trylock, (pthread_mutex_t *), NULL)	\
	X(int, pthread_mutex_timedlock, (pthread_mutex_t *,		\
					 const struct timespec *), NULL) \
	X(int, pthread_mutex_clocklock, (pthread_mutex_t *, clockid_t,	\
					 const struct timespec *), NULL) \
	X(int, pthread_mutex_unlock, (pthread_mutex_t *), NULL)		\
	X(int, pthread_spin_init, (pthread_spinlock_t *, int), NULL)	\
	X(int, pthread_spin_destroy, (pthread_spinlock_t *), NULL)	\
	X(int, pthread_spin_lock, (pthread_spinlock_t *), NULL)		\
	X(int, pthread_spin_trylock, (pthread_spinlock_t *), NULL)	\
	X(int, pthread_spin_unlock, (pthread_spinlock_t *), NULL)	\
	X(int, pthread_rwlock_init, (pthread_rwlock_t *,		\
				     const pthread_rwlockattr_t *), NULL) \
	X(int, pthread_rwlock_destroy, (pthread_rwlock_t *), NULL)	\
	X(int, pthread_rwlock_rdlock, (pthread_rwlock_t *), NULL)	\
	X(int, pthread_rwlock_wrlock, (pthread_rwlock_t *), NULL)	\
	X(int, pthread_rwlock_tryrdlock, (pthread_rwlock_t *), NULL)	\
	X(int, pthread_rwlock_trywrlock, (pthread_rwlock_t *), NULL)	\
	X(int, pthread_rwlock_timedrdlock, (pthread_rwlock_t *,		\
					    const struct timespec *), NULL) \
	X(int, pthread_rwlock_timedwrlock, (pthread_rwlock_t *,		\
					    const struct timespec *), NULL) \
	X(int, pthread_rwlock_clockrdlock, (pthread_rwlock_t *, clockid_t, \
					    const struct timespec *), NULL) \
	X(int, pthread_rwlock_clockwrlock, (pthread_rwlock_t *, clockid_t, \
					    const struct timespec *), NULL) \
	X(int, pthread_rwlock_unlock, (pthread_rwlock_t *), NULL)	\
	X(int, pthread_barrier_init, (pthread_barrier_t *,		\
				      const pthread_barrierattr_t *,	\
				      unsigned), NULL)			\
	X(int, pthread_barrier_destroy, (pthread_barrier_t *), NULL)	\
	X(int, pthread_barrier_wait, (pthread_barrier_t *), NULL)	\
	X(int, pthread_cond_init, (pthread_cond_t *,			\
				   const pthread_condattr_t *), "GLIBC_2.3.2") \
	X(int, pthread_cond_destroy, (pthread_cond_t *), "GLIBC_2.3.2")	\
	X(int, pthread_cond_wait, (pthread_cond_t *, pthread_mutex_t *), \
	  "GLIBC_2.3.2")						\
	X(int, pthread_cond_timedwait, (pthread_cond_t *,		\
					pthread_mutex_t *,		\
					const struct timespec *),	\
	  "GLIBC_2.3.2")						\
	X(int, pthread_cond_clockwait, (pthread_cond_t *,		\
					pthread_mutex_t *, clockid_t,	\
					const struct timespec *), NULL)	\
	X(int, pthread_cond_signal, (pthread_cond_t *), "GLIBC_2.3.2")	\
	X(int, pthread_cond_broadcast, (pthread_cond_t *), "GLIBC_2.3.2") \
	X(int, sem_init, (sem_t *, int, unsigned), NULL)		\
	X(int, sem_destroy, (sem_t *), NULL)				\
	X(int, sem_wait, (sem_t *), NULL)				\
	X(int, sem_trywait, (sem_t *), NULL)				\
	X(int, sem_timedwait, (sem_t *, const struct timespec *), NULL)	\
	X(int, sem_clockwait, (sem_t *, clockid_t,			\
			       const struct timespec *), NULL)		\
	X(int, sem_post, (sem_t *), NULL)				\
	X(pid_t, fork, (void), NULL)					\
	X(int, pthread_sigmask, (int, const sigset_t *, sigset_t *), NULL) \
	X(int, sigprocmask, (int, const sigset_t *, sigset_t *), NULL)	\
	X(long, syscall, (long, ...), NULL)	\
	X(int, sched_yield, (void), NULL)				\
	X(int, sigaction, (int, const struct sigaction *,		\
			   struct sigaction *), NULL)			\
	X(sighandler_t, signal, (int, sighandler_t), NULL)		\
	X(sighandler_t, bsd_signal, (int, sighandler_t), NULL)		\
	X(sighandler_t, sysv_signal, (int, sighandler_t), NULL)		\
	X(sighandler_t, __sysv_signal, (int, sighandler_t), NULL)	\
	X(sighandler_t, sigset, (int, sighandler_t), NULL)		\
	X(int, sigignore, (int), NULL)					\
	X(void, _exit, (int), NULL)					\
	X(int, execve, (const char *, char *const[], char *const[]), NULL) \
	X(int, execv, (const char *, char *const[]), NULL)		\
	X(int, execvp, (const char *, char *const[]), NULL)		\
	X(int, execvpe, (const char *, char *const[], char *const[]), NULL) \
	X(int, fexecve, (int, char *const[], char *const[]), NULL)	\
	X(void, _Exit, (int), NULL)					\
	X(int, kill, (pid_t, int), NULL)				\
	X(int, raise, (int), NULL)					\
	X(int, pthread_kill, (pthread_t, int), NULL)			\
	X(int, sigqueue, (pid_t, int, const union sigval), NULL)	\
	X(int, pthread_sigqueue, (pthread_t, int, const union sigval), NULL) \
	X(int, sigwait, (const sigset_t *, int *), NULL)		\
	X(int, sigwaitinfo, (const sigset_t *, siginfo_t *), NULL)	\
	X(int, sigtimedwait, (const sigset_t *, siginfo_t *,		\
			      const struct timespec *), NULL)		\
	X(int, sigsuspend, (const sigset_t *), NULL)			\
	X(int, pause, (void), NULL)					\
	X(pid_t, wait, (int *), NULL)					\
	X(pid_t, waitpid, (pid_t, int *, int), NULL)			\
	X(pid_t, wait3, (int *, int, struct rusage *), NULL)		\
	X(pid_t, wait4, (pid_t, int *, int, struct rusage *), NULL)	\
	X(int, waitid, (idtype_t, id_t, siginfo_t *, int), NULL)	\
	X(int, dlclose, (void *), NULL)					\
	CP_REAL_CHAN_FUNCS(X)

/* The channels between threads (wrap_chan.c): their making and closing,
 * the writes that wake, the reads and readiness waits that wake up; and
 * the sleeps (wrap_sleep.c). */
#define CP_REAL_CHAN_FUNCS(X)						\
	X(int, pipe, (int[2]), NULL)					\
	X(int, pipe2, (int[2], int), NULL)				\
	X(int, eventfd, (unsigned, int), NULL)				\
	X(int, socketpair, (int, int, int, int[2]), NULL)		\
	X(int, close, (int), NULL)					\
	X(int, dup2, (int, int), NULL)					\
	X(int, dup3, (int, int, int), NULL)				\
	X(ssize_t, write, (int, const void *, size_t), NULL)		\
	X(ssize_t, writev, (int, const struct iovec *, int), NULL)	\
	X(ssize_t, send, (int, const void *, size_t, int), NULL)	\
	X(int, eventfd_write, (int, eventfd_t), NULL)			\
	X(ssize_t, read, (int, void *, size_t), NULL)			\
	X(ssize_t, readv, (int, const struct iovec *, int), NULL)	\
	X(int, eventfd_read, (int, eventfd_t *), NULL)			\
	X(int, poll, (struct pollfd *, nfds_t, int), NULL)		\
	X(int, ppoll, (struct pollfd *, nfds_t, const struct timespec *, \
		       const sigset_t *), NULL)				\
	X(int, select, (int, fd_set *, fd_set *, fd_set *,		\
			struct timeval *), NULL)			\
	X(int, pselect, (int, fd_set *, fd_set *, fd_set *,		\
			 const struct timespec *, const sigset_t *), NULL) \
	X(int, epoll_ctl, (int, int, int, struct epoll_event *), NULL)	\
	X(int, epoll_wait, (int, struct epoll_event *, int, int), NULL)	\
	X(int, epoll_pwait, (int, struct epoll_event *, int, int,	\
			     const sigset_t *), NULL)			\
	X(unsigned, sleep, (unsigned), NULL)				\
	X(int, usleep, (useconds_t), NULL)				\
	X(int, nanosleep, (const struct timespec *, struct timespec *),	\
	  NULL)								\
	X(int, clock_nanosleep, (clockid_t, int, const struct timespec *, \
				 struct timespec *), NULL)

/*
 * Functions of libraries a program may not load: a missing one stays NULL
 * (its wrapper is then never reached, or resolves it late with
 * cp_real_late).  C11 threads live in libc since glibc 2.34 (2.28 in
 * libpthread before); libgomp is GCC's OpenMP runtime.  libgomp versions
 * the omp_*_lock family (OMP_1.0 and OMP_3.0 nest locks differ); programs
 * built today bind OMP_3.0.
 */
#define CP_REAL_OPT_FUNCS(X)						\
	X(int, thrd_create, (thrd_t *, thrd_start_t, void *), "GLIBC_2.34") \
	X(int, thrd_join, (thrd_t, int *), "GLIBC_2.34")		\
	X(int, thrd_detach, (thrd_t), "GLIBC_2.34")			\
	X(int, mtx_init, (mtx_t *, int), "GLIBC_2.34")			\
	X(void, mtx_destroy, (mtx_t *), "GLIBC_2.34")			\
	X(int, mtx_lock, (mtx_t *), "GLIBC_2.34")			\
	X(int, mtx_timedlock, (mtx_t *restrict,				\
			       const struct timespec *restrict), "GLIBC_2.34") \
	X(int, mtx_trylock, (mtx_t *), "GLIBC_2.34")			\
	X(int, mtx_unlock, (mtx_t *), "GLIBC_2.34")			\
	X(int, cnd_init, (cnd_t *), "GLIBC_2.34")			\
	X(void, cnd_destroy, (cnd_t *), "GLIBC_2.34")			\
	X(int, cnd_signal, (cnd_t *), "GLIBC_2.34")			\
	X(int, cnd_broadcast, (cnd_t *), "GLIBC_2.34")			\
	X(int, cnd_wait, (cnd_t *, mtx_t *), "GLIBC_2.34")		\
	X(int, cnd_timedwait, (cnd_t *restrict, mtx_t *restrict,	\
			       const struct timespec *restrict), "GLIBC_2.34") \
	X(void, call_once, (once_flag *, void (*)(void)), "GLIBC_2.34")	\
	X(int, close_range, (unsigned, unsigned, int), "GLIBC_2.34")	\
	X(void, closefrom, (int), "GLIBC_2.34")				\
	CP_REAL_GOMP_FUNCS(X)

/* libgomp's entry points (wrap_gomp.c); void * stands for its types. */
#define CP_REAL_GOMP_FUNCS(X)						\
	X(void, GOMP_parallel, (void (*)(void *), void *, unsigned,	\
				unsigned), NULL)			\
	X(void, GOMP_parallel_loop_static, (void (*)(void *), void *,	\
		unsigned, long, long, long, long, unsigned), NULL)	\
	X(void, GOMP_parallel_loop_dynamic, (void (*)(void *), void *,	\
		unsigned, long, long, long, long, unsigned), NULL)	\
	X(void, GOMP_parallel_loop_guided, (void (*)(void *), void *,	\
		unsigned, long, long, long, long, unsigned), NULL)	\
	X(void, GOMP_parallel_loop_runtime, (void (*)(void *), void *,	\
		unsigned, long, long, long, unsigned), NULL)		\
	X(void, GOMP_parallel_loop_nonmonotonic_dynamic,		\
	  (void (*)(void *), void *, unsigned, long, long, long, long,	\
	   unsigned), NULL)						\
	X(void, GOMP_parallel_loop_nonmonotonic_guided,			\
	  (void (*)(void *), void *, unsigned, long, long, long, long,	\
	   unsigned), NULL)						\
	X(void, GOMP_parallel_loop_nonmonotonic_runtime,		\
	  (void (*)(void *), void *, unsigned, long, long, long,	\
	   unsigned), NULL)						\
	X(void, GOMP_parallel_loop_maybe_nonmonotonic_runtime,		\
	  (void (*)(void *), void *, unsigned, long, long, long,	\
	   unsigned), NULL)						\
	X(void, GOMP_parallel_sections, (void (*)(void *), void *,	\
		unsigned, unsigned, unsigned), NULL)			\
	X(void, GOMP_barrier, (void), NULL)				\
	X(bool, GOMP_barrier_cancel, (void), NULL)			\
	X(void, GOMP_loop_end, (void), NULL)				\
	X(bool, GOMP_loop_end_cancel, (void), NULL)			\
	X(void, GOMP_sections_end, (void), NULL)			\
	X(bool, GOMP_sections_end_cancel, (void), NULL)			\
	X(void *, GOMP_single_copy_start, (void), NULL)			\
	X(void, GOMP_single_copy_end, (void *), NULL)			\
	X(void, GOMP_critical_start, (void), NULL)			\
	X(void, GOMP_critical_end, (void), NULL)			\
	X(void, GOMP_critical_name_start, (void **), NULL)		\
	X(void, GOMP_critical_name_end, (void **), NULL)		\
	X(void, GOMP_ordered_start, (void), NULL)			\
	X(void, GOMP_ordered_end, (void), NULL)				\
	X(void, GOMP_atomic_start, (void), NULL)			\
	X(void, GOMP_atomic_end, (void), NULL)				\
	X(void, GOMP_task, (void (*)(void *), void *,			\
			    void (*)(void *, void *), long, long, bool,	\
			    unsigned, void **, int, void *), NULL)	\
	X(void, GOMP_taskloop, (void (*)(void *), void *,		\
				void (*)(void *, void *), long, long,	\
				unsigned, unsigned long, int, long,	\
				long, long), NULL)			\
	X(void, GOMP_taskloop_ull, (void (*)(void *), void *,		\
				    void (*)(void *, void *), long,	\
				    long, unsigned, unsigned long, int,	\
				    unsigned long long,			\
				    unsigned long long,			\
				    unsigned long long), NULL)		\
	X(void, GOMP_taskwait, (void), NULL)				\
	X(void, GOMP_taskwait_depend, (void **), NULL)			\
	X(void, GOMP_taskgroup_start, (void), NULL)			\
	X(void, GOMP_taskgroup_end, (void), NULL)			\
	X(int, omp_get_num_threads, (void), NULL)			\
	X(void, omp_set_lock, (void *), "OMP_3.0")			\
	X(void, omp_unset_lock, (void *), "OMP_3.0")			\
	X(int, omp_test_lock, (void *), "OMP_3.0")			\
	X(void, omp_set_nest_lock, (void *), "OMP_3.0")			\
	X(void, omp_unset_nest_lock, (void *), "OMP_3.0")		\
	X(int, omp_test_nest_lock, (void *), "OMP_3.0")

struct cp_real {
#define CP_REAL_SLOT(ret, name, args, ver) ret (*name) args;
	CP_REAL_FUNCS(CP_REAL_SLOT)
	CP_REAL_OPT_FUNCS(CP_REAL_SLOT)
#undef CP_REAL_SLOT
	int ready;
};

extern struct cp_real cp_real;

/* Resolve every slot; idempotent, any thread; nothing when called back
 * from inside itself (through the program's allocator). */
void cp_real_init(void);

/* Resolve the one slot @slot of function @name (a nested call from inside
 * cp_real_init); its value. */
void *cp_real_one(void **slot, const char *name);

/*
 * Resolve an optional slot that was missing at start-up (its library
 * loaded later, with dlopen); dies when it is still missing, since its
 * wrapper was called.  Any thread.
 */
void cp_real_late(void **slot, const char *name, const char *version);

/* The real optional @name (CP_REAL_OPT_FUNCS), resolving it late if
 * needed. */
#define CP_REAL_OPT(name)						\
	(__builtin_expect(CP_REAL(name) != NULL, 1) ? cp_real.name :	\
	 (cp_real_late((void **)&cp_real.name, #name,			\
		       cp_real_version_##name), cp_real.name))

#define CP_REAL_VERSION(ret, name, args, ver)				\
	static const char *const cp_real_version_##name			\
		__attribute__((unused)) = ver;
CP_REAL_OPT_FUNCS(CP_REAL_VERSION)
#undef CP_REAL_VERSION

/* The real @name, resolving the table first if needed. */
#define CP_REAL(name)							\
	(__builtin_expect(cp_real.ready, 1) ? cp_real.name :		\
	 (cp_real_init(), cp_real.name ? cp_real.name :			\
	  (__typeof__(cp_real.name))cp_real_one((void **)&cp_real.name,	\
						 #name)))

#endif /* CP_REAL_H */
