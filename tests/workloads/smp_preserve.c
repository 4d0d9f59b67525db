/*
 * smp_preserve.c - what the sampler must not change, one mode per run.
 * Built like smp_cp (-O2 -g, no instrumentation, no frame pointers).  The
 * program checks itself: exit 0 when it saw what it would see without a
 * tracer, else a line on stderr and exit 1.
 *
 *   sigprof  its own SIGPROF handler and ITIMER_PROF timer (10 ms) while
 *            a thread burns 300 ms of CPU: the handler and the timer's
 *            interval are still its own, signals came, and none comes once
 *            the timer is off (50 ms more of CPU).  Prints "sigprof COUNT
 *            CPU_MS INPROG": INPROG of the COUNT signals found the thread
 *            in the program's own code (the burn loop), as gprof's
 *            histogram needs; a tracer's handler running when the signal
 *            came would be where the handler found it.  (How many come is
 *            the kernel's business: bare, on a loaded virtual machine,
 *            300 ms of CPU gave 16 to 39.)
 *   eintr    a thread burns 5 ms of CPU then blocks in poll() (which the
 *            kernel never restarts after a handler: a sampling signal
 *            delivered there would give EINTR) and read() on a pipe, 20
 *            times, while another thread burns 20 ms before each write.
 *   fork     main burns 20 ms, forks; the child runs f() for 200 ms and
 *            exits normally; the parent burns 20 ms more and reaps it.
 *            Prints the child's pid.
 *   dlopen PATH  burns 10 ms, then dlopen()s the shared object PATH
 *            (smp_plugin.c) and burns 200 ms in its plugin_burn().
 *   dlclose PATH  the same, then dlclose()s it and burns 10 ms more:
 *            the object is gone before the program ends.
 *   exec     burns 20 ms, then execs itself in mode "execd" without the
 *            tracer (LD_PRELOAD and CPTHREAD_* removed).
 *   holds    burns 20 ms (the sampler is set up), then reads the kernel's
 *            own record of each real-time signal's handler (the system
 *            call, past any wrapper) and prints "holds N" for every one
 *            with a handler: N of SIGPROF, SIGALRM, SIGVTALRM, SIGUSR1
 *            and SIGCHLD it holds while it runs, and "faults N": how many
 *            of SIGSEGV and SIGBUS it holds.
 *   execd    checks that nothing of the tracer survived the exec: no signal
 *            pending, every real-time signal's disposition the default;
 *            prints "fds N" (how many fds above 2 are open, for the test
 *            to compare with a bare run: a leaked fd would be one more).
 */
#include "wl.h"

#include <stdbool.h>

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define NOINL __attribute__((noinline, noclone))

/* Not static: the tests find them by name in the symbol table. */
void f(unsigned ms);

static volatile unsigned sink;
static volatile sig_atomic_t prof_count, prof_inprog;
/* The executable's code, where its SIGPROF counts a hit (mode_sigprof). */
static uintptr_t text_lo, text_hi;

static NOINL void spin(unsigned ms)
{
	uint64_t end = wl_now(CLOCK_THREAD_CPUTIME_ID) +
		       (uint64_t)ms * 1000000u;

	do {
		for (unsigned i = 0; i < 20000; i++)
			sink += i;
	} while (wl_now(CLOCK_THREAD_CPUTIME_ID) < end);
}

NOINL void f(unsigned ms)
{
	spin(ms);
	sink++;
}

static void fail(const char *what)
{
	fprintf(stderr, "smp_preserve: %s\n", what);
	exit(1);
}

/* ---- sigprof ---- */

/* The executable's first executable segment into text_lo..text_hi. */
static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text_lo = info->dlpi_addr + ph->p_vaddr;
			text_hi = text_lo + ph->p_memsz;
			return 1;
		}
	}
	return 1;	/* the first object is the executable */
}

/* Where the signal found the thread, as gprof's handler reads it. */
static uintptr_t interrupted_pc(const void *ctx)
{
	const ucontext_t *uc = ctx;

#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return text_lo;
#endif
}

static void on_prof(int sig, siginfo_t *si, void *ctx)
{
	uintptr_t pc = interrupted_pc(ctx);

	(void)sig;
	(void)si;
	prof_count++;
	prof_inprog += pc >= text_lo && pc < text_hi;
}

static void *burn_300(void *arg)
{
	(void)arg;
	spin(300);
	return NULL;
}

static int mode_sigprof(void)
{
	struct sigaction sa, now;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	struct itimerval cur;
	struct rusage ru;
	pthread_t t;
	double cpu_ms;
	int after;

	dl_iterate_phdr(find_text, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &it, NULL))
		fail("cannot set up SIGPROF");
	WL_OK(pthread_create(&t, NULL, burn_300, NULL));
	WL_OK(pthread_join(t, NULL));
	if (getitimer(ITIMER_PROF, &cur) || cur.it_interval.tv_usec != 10000)
		fail("the ITIMER_PROF interval changed");
	setitimer(ITIMER_PROF, &off, NULL);
	getrusage(RUSAGE_SELF, &ru);
	cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	if (sigaction(SIGPROF, NULL, &now) || now.sa_sigaction != on_prof)
		fail("the SIGPROF handler is no longer the program's");
	printf("sigprof %d %.1f %d\n", (int)prof_count, cpu_ms,
	       (int)prof_inprog);
	if (prof_count == 0)
		fail("no SIGPROF came");
	after = prof_count;
	spin(50);
	if (prof_count != after)
		fail("a SIGPROF came with the program's timer off");
	return 0;
}

/* ---- eintr ---- */

static int pipefd[2];

static void *reader(void *arg)
{
	char c;

	(void)arg;
	for (int i = 0; i < 20; i++) {
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		int rc;

		spin(5);
		rc = poll(&p, 1, -1);
		if (rc < 0 && errno == EINTR)
			fail("poll() was interrupted (EINTR)");
		if (rc != 1)
			fail("poll() failed");
		if (read(pipefd[0], &c, 1) != 1)
			fail("read() on the pipe failed or was interrupted");
	}
	return NULL;
}

static int mode_eintr(void)
{
	pthread_t r;

	if (pipe(pipefd))
		fail("pipe");
	WL_OK(pthread_create(&r, NULL, reader, NULL));
	for (int i = 0; i < 20; i++) {
		spin(20);
		if (write(pipefd[1], "x", 1) != 1)
			fail("write");
	}
	WL_OK(pthread_join(r, NULL));
	return 0;
}

/* ---- fork ---- */

static int mode_fork(void)
{
	pid_t pid;
	int st;

	spin(20);
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		f(200);
		exit(0);
	}
	spin(20);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		fail("the child did not exit 0");
	printf("child %ld\n", (long)pid);
	return 0;
}

/* ---- dlopen ---- */

/* Inlined into main, so that main is the frame that calls the plugin
 * (the test finds main outermost), not a caller main tail-called. */
static inline __attribute__((always_inline)) int
mode_dlopen(const char *path, bool unload)
{
	void (*burn)(unsigned);
	void *h;

	spin(10);
	h = dlopen(path, RTLD_NOW);
	if (!h)
		fail(dlerror());
	*(void **)&burn = dlsym(h, "plugin_burn");
	if (!burn)
		fail("no plugin_burn");
	burn(200);
	if (unload) {
		if (dlclose(h))
			fail(dlerror());
		spin(10);
	}
	return 0;
}

/* ---- exec ---- */

extern char **environ;

static int mode_exec(const char *self)
{
	char *args[] = { (char *)self, (char *)"execd", NULL };
	char *env[64];
	int n = 0;

	spin(20);
	for (char **e = environ; *e && n < 63; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) &&
		    strncmp(*e, "CPTHREAD_", 9))
			env[n++] = *e;
	env[n] = NULL;
	execve("/proc/self/exe", args, env);
	fail("execve");
	return 1;
}

static int mode_execd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	sigset_t pend;
	int nfds = 0;

	if (!d)
		fail("opendir /proc/self/fd");
	while ((de = readdir(d))) {
		int fd = atoi(de->d_name);

		if (de->d_name[0] != '.' && fd > 2 && fd != dirfd(d))
			nfds++;
	}
	printf("fds %d\n", nfds);
	closedir(d);
	spin(20);
	if (sigpending(&pend))
		fail("sigpending");
	for (int sig = 1; sig < SIGRTMAX; sig++) {
		struct sigaction sa;

		if (sigismember(&pend, sig) == 1)
			fail("a signal is pending after the exec");
		if (sig >= SIGRTMIN && (sigaction(sig, NULL, &sa) ||
					sa.sa_handler != SIG_DFL))
			fail("a real-time signal has a handler after the exec");
	}
	return 0;
}

/* ---- holds ---- */

/* The kernel's struct sigaction (rt_sigaction), on x86-64 and arm64. */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static int mode_holds(void)
{
	static const int held[] = { SIGPROF, SIGALRM, SIGVTALRM, SIGUSR1,
				    SIGCHLD };

	spin(20);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		struct ksigaction ka;
		int n = 0;

		if (syscall(SYS_rt_sigaction, sig, NULL, &ka, 8) ||
		    ka.handler == (void *)SIG_DFL ||
		    ka.handler == (void *)SIG_IGN)
			continue;
		for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
			n += (ka.mask >> (held[i] - 1)) & 1;
		printf("holds %d faults %d\n", n,
		       (int)((ka.mask >> (SIGSEGV - 1)) & 1) +
		       (int)((ka.mask >> (SIGBUS - 1)) & 1));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	wl_init();
	if (!strcmp(mode, "sigprof"))
		return mode_sigprof();
	if (!strcmp(mode, "eintr"))
		return mode_eintr();
	if (!strcmp(mode, "fork"))
		return mode_fork();
	if (!strcmp(mode, "dlopen") && argc > 2)
		return mode_dlopen(argv[2], false);
	if (!strcmp(mode, "dlclose") && argc > 2)
		return mode_dlopen(argv[2], true);
	if (!strcmp(mode, "exec"))
		return mode_exec(argv[0]);
	if (!strcmp(mode, "execd"))
		return mode_execd();
	if (!strcmp(mode, "holds"))
		return mode_holds();
	fprintf(stderr, "usage: %s sigprof|eintr|fork|dlopen PATH|"
		"dlclose PATH|exec|holds\n",
		argv[0]);
	return 2;
}
