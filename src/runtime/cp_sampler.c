/*
 * cp_sampler.c - per-thread CPU-time sampling (see cp_sampler.h).
 *
 * The handler does, in this order: check that the signal is its own
 * thread's (a perf fd or timer of this state), take the state (idle ->
 * busy), read the two clocks, unwind, count the selected procedures held,
 * encode the sample, release the state, re-arm a perf event.  It calls
 * only async-signal-safe functions (clock_gettime, write, ioctl) and
 * libgcc's unwinder; errno is saved and restored.
 *
 * Sample encoding: cp_trace_format.h, "Samples".  The buffer holds a
 * struct cp_samples_head then the samples; `pos` moves only after a whole
 * sample is encoded, so the exit and crash paths write complete samples.
 */
#include "cp_sampler.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#include "cp_alloc.h"
#include "cp_clock.h"
#include "cp_fds.h"
#include "cp_modules.h"
#include "cp_procs.h"
#include "cp_runtime.h"
#include "cp_symbols.h"
#include "cp_thread.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"
#include "cp_varint.h"

#define CP_SMP_BUF	(32 * 1024)	/* a thread's sample buffer */
/* Largest encoded sample: five varints, then the pc deltas. */
#define CP_SMP_ROOM	((5 + CP_SAMPLE_MAX_DEPTH) * CP_VARINT_MAX)
#define CP_SMP_SPINS	(1u << 24)	/* exit waits for a handler */
/* The scheduler tick of Debian's kernels (CONFIG_HZ=250 on amd64 and
 * arm64); the kernel does not tell user space its tick. */
#define CP_SMP_TICK_HZ	250u

enum { SMP_IDLE, SMP_BUSY, SMP_CLOSED };

struct cp_smp {
	atomic_int state;	/* SMP_*: handler busy, or closed for good */
	int fd;			/* perf event, -1 without */
	struct cp_fd_id fd_id;	/* what @fd refers to (cp_fds.h) */
	timer_t timer;
	bool has_timer;
	uint32_t tid;		/* trace thread id */
	/* handler (or whoever closed the state) */
	uint64_t prev_wall;	/* clocks at the previous sample */
	uint64_t prev_cpu;
	uint8_t *buf;		/* trace mode: head + samples, else NULL */
	uint8_t *pos;		/* end of the last complete sample */
	uint32_t nsamples;	/* in the buffer */
	atomic_ulong total;	/* samples taken */
	struct cp_smp_tally tally;	/* online */
	struct cp_smp *next;	/* list of every state, newest first */
};

static enum cp_sampler_kind cp_smp_kind;
static int cp_smp_sig;
static uint64_t cp_smp_period;	/* ns of CPU time */
static _Atomic(struct cp_smp *) cp_smp_all;
static __thread struct cp_smp *cp_smp_self
	__attribute__((tls_model("initial-exec")));

/*
 * The tracer's own frames are left out of the stacks: its code (the
 * executable segments of the object holding this file: libcpthread) is
 * skipped, the thread trampoline (cp_trampoline) ends a thread's stack, which
 * drops libc's start_thread and clone3 beyond it, and the executable's
 * main ends the first thread's (dropping __libc_start_main and _start).
 * Every thread has those frames: they would only hold 100 % of it.
 */
static uintptr_t cp_smp_own_lo, cp_smp_own_hi;
static uintptr_t cp_smp_main;

/*
 * What only the tracer calls from its frames: liburcu (its hash table of
 * objects, its RCU), libgcc's unwinder (the stacks of objects' first
 * uses), the dynamic loader (liburcu's thread-local variables), the vDSO,
 * a sanitizer's runtime when the tracer was built with one (its
 * instrumentation's calls), and the C library's functions it calls for
 * itself: clock_gettime (its clocks), writev (its trace buffers' flush:
 * the C library's, past the tracer's own wrapper of it), the memory
 * copies.  A run of frames below a tracer frame is the tracer at work
 * when the frame the tracer called is one of those, whatever that one
 * calls in turn (liburcu takes a libc mutex), and is left out with the
 * tracer's own.  Others stay: the real function a wrapper calls (the
 * program's own work), and the program's code the tracer calls back (an
 * OpenMP region's body, a signal handler).  A program that uses those
 * libraries itself keeps its calls, which no tracer frame is above.
 */
#define CP_SMP_HELPER_RANGES 16
static const char *const cp_smp_helper_libs[] = {
	"liburcu", "libgcc_s.so", "ld-linux", "linux-vdso.so",
	"libclang_rt.", "libasan.so", "libubsan.so", "libtsan.so", NULL,
};
static uintptr_t cp_smp_helper[CP_SMP_HELPER_RANGES][2];
static unsigned cp_smp_nhelper;
#define CP_SMP_HELPER_FNS 5
static uintptr_t cp_smp_helper_fn[CP_SMP_HELPER_FNS];

/* Whether the frame at @ip, of the function starting at @fn, is one of
 * the tracer's helpers. */
static bool is_helper(uintptr_t ip, uintptr_t fn)
{
	for (unsigned i = 0; fn && i < CP_SMP_HELPER_FNS; i++)
		if (fn == cp_smp_helper_fn[i])
			return true;
	for (unsigned i = 0; i < cp_smp_nhelper; i++)
		if (ip >= cp_smp_helper[i][0] && ip < cp_smp_helper[i][1])
			return true;
	return false;
}

/* ---- the handler ----------------------------------------------------- */

struct unwind {
	uintptr_t *pc;
	unsigned n;
	uintptr_t sig_pc;	/* the interrupted instruction */
	bool found;		/* reached its frame */
	bool full;
	unsigned since;		/* frames kept before the last tracer frame */
	bool helper;		/* the last kept is_helper() */
	bool dropped;		/* some were left out as the tracer's */
};

static _Unwind_Reason_Code unwind_step(struct _Unwind_Context *ctx,
				       void *arg)
{
	struct unwind *u = arg;
	int before = 0;
	uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);
	uintptr_t fn = _Unwind_GetRegionStart(ctx);

	/* Skip the handler's own frames and the signal trampoline. */
	if (!u->found) {
		if (ip != u->sig_pc || !before)
			return _URC_NO_REASON;
		u->found = true;
	}
	if (ip == 0)		/* the outermost frame's "return address" */
		return _URC_END_OF_STACK;
	if (fn && fn == (uintptr_t)cp_trampoline)
		return _URC_END_OF_STACK;
	if (ip >= cp_smp_own_lo && ip < cp_smp_own_hi) {
		/* the tracer at work, and the helpers it called */
		if (u->n > u->since && u->helper) {
			u->n = u->since;
			u->dropped = true;
		}
		u->since = u->n;
		return _URC_NO_REASON;
	}
	if (u->n == CP_SAMPLE_MAX_DEPTH) {
		u->full = true;
		return _URC_END_OF_STACK;
	}
	/* pc[0] is an instruction: a return address (the tracer's frames
	 * inside it skipped) becomes its call's last byte */
	if (u->n == 0 && ip != u->sig_pc)
		ip--;
	u->helper = is_helper(ip, fn);
	u->pc[u->n++] = ip;
	if (fn && fn == cp_smp_main)
		return _URC_END_OF_STACK;
	return _URC_NO_REASON;
}

static _Unwind_Reason_Code unwind_nothing(struct _Unwind_Context *ctx,
					  void *arg)
{
	(void)ctx;
	(void)arg;
	return _URC_END_OF_STACK;
}

/*
 * Stack of the interrupted context @uc into @pc; returns the depth, 0 when
 * the thread was in the tracer's frames alone (a thread's first or last
 * moments in its trampoline, or start-up before main): no frame of the
 * program to charge.
 */
static unsigned unwind(const ucontext_t *uc, uintptr_t *pc, unsigned *flags)
{
	struct unwind u = { .pc = pc };

#if defined(__x86_64__)
	u.sig_pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	u.sig_pc = (uintptr_t)uc->uc_mcontext.pc;
#endif
	_Unwind_Backtrace(unwind_step, &u);
	if (u.n == 0) {		/* nothing kept, or the unwind failed */
		if ((u.sig_pc >= cp_smp_own_lo && u.sig_pc < cp_smp_own_hi) ||
		    u.dropped)
			return 0;
		pc[0] = u.sig_pc;
		if (!u.found)
			*flags |= CP_SAMPLE_UNWIND_FAILED;
		return 1;
	}
	if (u.full)
		*flags |= CP_SAMPLE_TRUNCATED;
	return u.n;
}

/* Count the sample, of @weight CPU ns, for every selected procedure its
 * stack holds. */
static void count_hits(struct cp_smp *s, const uintptr_t *pc, unsigned depth,
		       uint64_t weight)
{
	uint64_t mask = 0;

	for (unsigned k = 0; k < depth; k++) {
		/* a return address may lie just past its function */
		uintptr_t a = k ? pc[k] - 1 : pc[k];

		for (unsigned r = 0; r < cp_procs_nranges; r++)
			if (a >= cp_procs_ranges[r].lo &&
			    a < cp_procs_ranges[r].hi)
				mask |= 1ull << cp_procs_ranges[r].idx;
	}
	cp_smp_tally_add(&s->tally, mask, weight);
}

void cp_smp_tally_add(struct cp_smp_tally *ta, uint64_t mask,
		      uint64_t weight)
{
	if (!weight)
		weight = 1;
	while (mask) {
		unsigned i = (unsigned)__builtin_ctzll(mask);

		atomic_fetch_add_explicit(&ta->hits[i], 1,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&ta->hw[i], weight,
					  memory_order_relaxed);
		mask &= mask - 1;
	}
	/* last: the owner's snapshot is whole when w did not move */
	atomic_signal_fence(memory_order_release);
	atomic_fetch_add_explicit(&ta->w, weight, memory_order_relaxed);
}

static void buf_reset(struct cp_smp *s)
{
	struct cp_samples_head *h = (struct cp_samples_head *)s->buf;

	h->wall_base = s->prev_wall;
	h->cpu_base = s->prev_cpu;
	h->nsamples = 0;
	h->reserved = 0;
	s->pos = s->buf + sizeof(*h);
	s->nsamples = 0;
}

/* Write the buffer's complete samples as one block.  Async-signal-safe;
 * the caller holds the state (busy, or just closed by it). */
static void buf_flush(struct cp_smp *s)
{
	struct cp_samples_head *h = (struct cp_samples_head *)s->buf;

	if (!s->buf || !s->nsamples)
		return;
	h->nsamples = s->nsamples;
	cp_trace_write_block(CP_BLOCK_SAMPLES, s->tid, s->buf,
			     (size_t)(s->pos - s->buf));
	buf_reset(s);
}

static void encode(struct cp_smp *s, uint64_t wall, uint64_t cpu,
		   const uintptr_t *pc, unsigned depth, unsigned flags)
{
	uint8_t *p;
	uintptr_t prev = 0;

	if (s->pos + CP_SMP_ROOM > s->buf + CP_SMP_BUF)
		buf_flush(s);
	p = s->pos;
	p = cp_uv_put(p, wall > s->prev_wall ? wall - s->prev_wall : 0);
	p = cp_uv_put(p, cpu > s->prev_cpu ? cpu - s->prev_cpu : 0);
	p = cp_uv_put(p, cpu > s->prev_cpu ? cpu - s->prev_cpu : 0);
	p = cp_uv_put(p, flags);
	p = cp_uv_put(p, depth);
	for (unsigned k = 0; k < depth; k++) {
		p = cp_sv_put(p, (int64_t)(pc[k] - prev));
		prev = pc[k];
	}
	s->pos = p;
	s->nsamples++;
}

static void take_sample(struct cp_smp *s, const ucontext_t *uc)
{
	uintptr_t pc[CP_SAMPLE_MAX_DEPTH];
	unsigned flags = 0, depth;
	uint64_t wall = cp_clock_wall(), cpu = cp_clock_cpu_raw();

	depth = unwind(uc, pc, &flags);
	/* not written: the next sample's weight and times take the interval
	 * (they are counted from the last sample written) */
	if (!depth)
		return;
	if (cp_procs_nranges)
		count_hits(s, pc, depth, cpu > s->prev_cpu ?
			   cpu - s->prev_cpu : 0);
	if (s->buf)
		encode(s, wall, cpu, pc, depth, flags);
	if (wall > s->prev_wall)
		s->prev_wall = wall;
	if (cpu > s->prev_cpu)
		s->prev_cpu = cpu;
	atomic_fetch_add_explicit(&s->total, 1, memory_order_relaxed);
}

static bool is_ours(const struct cp_smp *s, const siginfo_t *si)
{
	if (s->fd >= 0)
		return si->si_code >= POLL_IN && si->si_code <= POLL_HUP &&
		       si->si_fd == s->fd;
	return si->si_code == SI_TIMER && si->si_value.sival_ptr == s;
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	struct cp_smp *s = cp_smp_self;
	int saved = errno, idle = SMP_IDLE;

	(void)sig;
	if (!s || !is_ours(s, si))
		goto out;
	if (!atomic_compare_exchange_strong(&s->state, &idle, SMP_BUSY))
		goto out;	/* closed: stay quiet, do not re-arm */
	/* Should the unwinder lock (frames registered at run time, by a
	 * JIT), the lock goes straight to the real function. */
	cp_tls.guard++;
	take_sample(s, ucv);
	cp_tls.guard--;
	atomic_store(&s->state, SMP_IDLE);
	if (s->fd >= 0)
		ioctl(s->fd, PERF_EVENT_IOC_REFRESH, 1);
out:
	errno = saved;
}

/* ---- arming ---------------------------------------------------------- */

static int perf_open(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = cp_smp_period;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* before O_ASYNC: si_fd is this number */
	return cp_fd_out_of_way(fd);
}

static int arm_perf(struct cp_smp *s)
{
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = gettid() };
	int fd = perf_open(), err;

	if (fd < 0)
		return fd;
	if (fcntl(fd, F_SETOWN_EX, &own) || fcntl(fd, F_SETSIG, cp_smp_sig) ||
	    fcntl(fd, F_SETFL, O_ASYNC)) {
		err = -errno;
		close(fd);
		return err;
	}
	s->fd = fd;
	cp_fd_id_of(fd, &s->fd_id);
	if (ioctl(fd, PERF_EVENT_IOC_REFRESH, 1)) {
		err = -errno;
		s->fd = -1;
		close(fd);
		return err;
	}
	return 0;
}

static int arm_timer(struct cp_smp *s)
{
	struct sigevent ev;
	struct itimerspec its;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = cp_smp_sig;
	ev.sigev_value.sival_ptr = s;
	ev._sigev_un._tid = gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &s->timer))
		return -errno;
	s->has_timer = true;
	its.it_value.tv_sec = (time_t)(cp_smp_period / 1000000000u);
	its.it_value.tv_nsec = (long)(cp_smp_period % 1000000000u);
	its.it_interval = its.it_value;
	if (timer_settime(s->timer, 0, &its, NULL)) {
		int err = -errno;

		timer_delete(s->timer);
		s->has_timer = false;
		return err;
	}
	return 0;
}

static void disarm(struct cp_smp *s)
{
	/* not a file the program put on the event's number */
	if (s->fd >= 0 && cp_fd_is(s->fd, &s->fd_id)) {
		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
		close(s->fd);
	}
	s->fd = -1;
	if (s->has_timer) {
		timer_delete(s->timer);
		s->has_timer = false;
	}
}

/* Take state @s over from its handler: idle -> closed.  False when it was
 * closed already or its handler stayed busy for @spins tries. */
static bool close_state(struct cp_smp *s, unsigned spins)
{
	for (;;) {
		int idle = SMP_IDLE;

		if (atomic_compare_exchange_strong(&s->state, &idle,
						   SMP_CLOSED))
			return true;
		if (idle == SMP_CLOSED || spins-- == 0)
			return false;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

/* ---- start-up -------------------------------------------------------- */

/* A real-time signal nobody handles: from SIGRTMAX - 3 down. */
static int pick_signal(void)
{
	for (int sig = SIGRTMAX - 3; sig >= SIGRTMIN + 3; sig--) {
		struct sigaction old;

		if (sigaction(sig, NULL, &old) == 0 &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			return sig;
	}
	return -1;
}

/* Perf events, or the reason they are refused (a note, which
 * CPTHREAD_QUIET=1 silences unless perf was asked for by name: they are
 * refused to users on stock Debian). */
static bool perf_usable(enum cp_sampling want)
{
	int rc = perf_open();

	if (rc >= 0) {
		close(rc);
		return true;
	}
	if (!cp_rt.cfg.quiet || want == CP_SAMPLING_PERF)
		cp_warn("%sperf events refused (%s%s); sampling with a "
			"CPU-time timer instead",
			want == CP_SAMPLING_PERF ? "CPTHREAD_SAMPLING=perf: " :
			"", strerror(-rc), rc == -EACCES || rc == -EPERM ?
			": see /proc/sys/kernel/perf_event_paranoid" : "");
	return false;
}

/* Whether a CPU-time timer can be armed: 0 or -errno. */
static int timer_probe(void)
{
	struct cp_smp probe = { .fd = -1 };
	int rc = arm_timer(&probe);

	if (!rc)
		disarm(&probe);
	return rc;
}

/*
 * The mechanism.  `auto` takes the CPU-time timer up to the tick rate and
 * perf events above it.  A CPU-time timer is checked at the scheduler
 * tick, so it cannot fire faster than the tick, but it costs nothing
 * between its signals; a perf event costs at every context switch of its
 * thread (the kernel stops and restarts it), which on switch-heavy code
 * (barrierheavy, bench_sampler.py) was 15-20 % of the run at 250 Hz
 * against 0-2 % for the timer, for the same accuracy.
 */
static enum cp_sampler_kind choose(void)
{
	enum cp_sampling want = cp_rt.cfg.sampling;
	bool timer_first = want == CP_SAMPLING_TIMER ||
		(want == CP_SAMPLING_AUTO &&
		 cp_rt.cfg.sampling_hz <= CP_SMP_TICK_HZ);
	int rc = 0;

	if (timer_first && !(rc = timer_probe()))
		return CP_SAMPLER_TIMER;
	if (want != CP_SAMPLING_TIMER && perf_usable(want))
		return CP_SAMPLER_PERF;
	if (!timer_first && !(rc = timer_probe()))
		return CP_SAMPLER_TIMER;
	cp_warn("cannot create a CPU-time timer (%s); no sampling: sampled "
		"procedures get no time", strerror(-rc));
	return CP_SAMPLER_NONE;
}

static void crash_flush(void);

enum cp_sampler_kind cp_sampler_init(void)
{
	/* signals a fault in the handler raises (synchronous) */
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				      SIGTRAP, SIGSYS, SIGABRT };
	struct sigaction sa;

	cp_smp_kind = CP_SAMPLER_NONE;
	if (cp_rt.trace)
		cp_modules_update();
	if (cp_rt.cfg.sampling == CP_SAMPLING_OFF ||
	    (!cp_rt.trace && !cp_procs_nsampled))
		return CP_SAMPLER_NONE;
	cp_smp_period = 1000000000u / cp_rt.cfg.sampling_hz;
	cp_smp_sig = pick_signal();
	if (cp_smp_sig < 0) {
		cp_warn("no free real-time signal; no sampling");
		return CP_SAMPLER_NONE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	/* Every signal of the program waits until the handler is done, so
	 * that the program's handlers find the program where it was, never
	 * in this one: a CPU-time timer of the program's (gprof's SIGPROF)
	 * fires at the same tick as the sampler's, and the thread's own
	 * signal is delivered first, then the process's on top of it.  A
	 * fault raised in the handler stays deliverable: the crash paths
	 * see it (blocked, the kernel would kill without them). */
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&sa.sa_mask, faults[i]);
	if (sigaction(cp_smp_sig, &sa, NULL)) {
		cp_warn("cannot install the sampler's handler (%s); no "
			"sampling", strerror(errno));
		return CP_SAMPLER_NONE;
	}
	/* Whose frames are the tracer's; where the first thread's end. */
	cp_modules_own_text(&cp_smp_own_lo, &cp_smp_own_hi);
	cp_smp_nhelper = cp_modules_text_of(cp_smp_helper_libs, cp_smp_helper,
					    CP_SMP_HELPER_RANGES);
	cp_smp_helper_fn[0] = (uintptr_t)clock_gettime;
	cp_smp_helper_fn[1] = (uintptr_t)dlsym(RTLD_NEXT, "writev");
	cp_smp_helper_fn[2] = (uintptr_t)memcpy;
	cp_smp_helper_fn[3] = (uintptr_t)memset;
	cp_smp_helper_fn[4] = (uintptr_t)memmove;
	cp_smp_main = (uintptr_t)cp_symbols_lookup("main");
	/* The unwinder's one-time set-up (pthread_once) runs here, not in
	 * the handler. */
	_Unwind_Backtrace(unwind_nothing, NULL);
	cp_smp_kind = choose();
	if (cp_smp_kind != CP_SAMPLER_NONE)
		cp_trace_at_crash(crash_flush);
	return cp_smp_kind;
}

enum cp_sampler_kind cp_sampler_kind(void)
{
	return cp_smp_kind;
}

int cp_sampler_signal(void)
{
	return cp_smp_kind != CP_SAMPLER_NONE ? cp_smp_sig : 0;
}

/* ---- threads --------------------------------------------------------- */

void cp_sampler_thread_start(struct cp_thread *t)
{
	struct cp_smp *s;
	int rc;

	if (cp_smp_kind == CP_SAMPLER_NONE || t->smp)
		return;
	s = cp_zalloc_lines(sizeof(*s));
	if (!s)
		return;
	s->fd = -1;
	s->tid = t->tid;
	s->prev_wall = cp_clock_wall();
	s->prev_cpu = cp_clock_cpu_raw();
	if (cp_rt.trace) {
		s->buf = cp_zalloc(CP_SMP_BUF);
		if (!s->buf) {
			cp_free(s);
			return;
		}
		buf_reset(s);
	}
	atomic_init(&s->state, SMP_IDLE);
	s->next = atomic_load(&cp_smp_all);
	while (!atomic_compare_exchange_weak(&cp_smp_all, &s->next, s))
		;
	t->smp = s;
	t->nsampled = (uint16_t)cp_procs_nsampled;
	cp_smp_self = s;
	rc = cp_smp_kind == CP_SAMPLER_PERF ? arm_perf(s) : arm_timer(s);
	if (rc) {
		static atomic_bool said;

		atomic_store(&s->state, SMP_CLOSED);
		if (!atomic_exchange(&said, true))
			cp_warn("cannot sample thread %u (%s); it and others "
				"that fail so go unsampled", t->tid,
				strerror(-rc));
	}
}

void cp_sampler_thread_stop(struct cp_thread *t)
{
	struct cp_smp *s = t->smp;

	if (!s)
		return;
	disarm(s);
	if (close_state(s, CP_SMP_SPINS)) {
		buf_flush(s);
		cp_free(s->buf);
		s->buf = NULL;
	}
	if (cp_rt.trace)
		cp_modules_update();
}

/* Close and write out every state; @spins bounds the wait for a busy
 * handler of another thread. */
static void flush_all(unsigned spins)
{
	for (struct cp_smp *s = atomic_load(&cp_smp_all); s; s = s->next)
		if (close_state(s, spins))
			buf_flush(s);
}

void cp_sampler_finish(void)
{
	if (cp_smp_kind == CP_SAMPLER_NONE)
		return;
	flush_all(CP_SMP_SPINS);
	if (cp_rt.trace)
		cp_modules_update();
}

static void crash_flush(void)
{
	flush_all(1u << 16);
}

void cp_sampler_postfork_child(void)
{
	/* The parent's events are its threads'; its buffers its samples. */
	for (struct cp_smp *s = atomic_load(&cp_smp_all); s; s = s->next) {
		atomic_store(&s->state, SMP_CLOSED);
		if (s->fd >= 0 && cp_fd_is(s->fd, &s->fd_id))
			close(s->fd);
		s->fd = -1;
		s->has_timer = false;	/* timers are not inherited */
	}
	atomic_store(&cp_smp_all, NULL);
	cp_smp_self = NULL;
	cp_modules_reset();
	if (cp_rt.trace)
		cp_modules_update();
}

/* ---- online attribution ---------------------------------------------- */

/* Move the samples counted since the last look into held[]; keep held[]
 * when there are none. */
static void take_counts(struct cp_smp_tally *ta, unsigned nsel)
{
	uint64_t now[CP_MAX_FUNCS];

	for (;;) {
		uint64_t w = atomic_load_explicit(&ta->w,
						  memory_order_relaxed);

		if (w == ta->seen_w)
			return;
		atomic_signal_fence(memory_order_acquire);
		for (unsigned i = 0; i < nsel; i++)
			now[i] = atomic_load_explicit(&ta->hw[i],
						      memory_order_relaxed);
		atomic_signal_fence(memory_order_acquire);
		if (atomic_load_explicit(&ta->w, memory_order_relaxed) != w)
			continue;	/* a sample came in between */
		ta->held_w = w - ta->seen_w;
		ta->seen_w = w;
		for (unsigned i = 0; i < nsel; i++) {
			ta->held[i] = now[i] - ta->seen_hw[i];
			ta->seen_hw[i] = now[i];
		}
		return;
	}
}

bool cp_smp_tally_split(struct cp_smp_tally *ta, unsigned nsel, uint64_t d,
			uint64_t *part)
{
	take_counts(ta, nsel);
	if (!ta->held_w)
		return false;
	for (unsigned i = 0; i < nsel; i++)
		part[i] += (uint64_t)((unsigned __int128)d * ta->held[i] /
				      ta->held_w);
	return true;
}

void cp_sampler_split(struct cp_thread *t, uint64_t d)
{
	struct cp_smp *s = t->smp;
	unsigned nsel = cp_rt.nsel;
	uint64_t *share = t->path->v, *z = t->path->v + nsel;
	uint64_t part[CP_MAX_FUNCS];
	bool hooks;

	memset(part, 0, nsel * sizeof(*part));
	if (!s || !cp_smp_tally_split(&s->tally, nsel, d, part))
		return;
	/* Once the executable's hooks run, they are exact for its
	 * functions (cp_procs.h): samples stand down for those. */
	hooks = atomic_load_explicit(&cp_procs_hooks_seen,
				     memory_order_relaxed);
	for (unsigned i = 0; i < nsel; i++) {
		if (!part[i] || (hooks && cp_procs_has_symbol(i)))
			continue;
		share[i] += part[i];
		z[i] += part[i];
		t->proc_cpu[i] += part[i];
	}
}

uint64_t cp_sampler_samples(void)
{
	uint64_t n = 0;

	for (struct cp_smp *s = atomic_load(&cp_smp_all); s; s = s->next)
		n += atomic_load_explicit(&s->total, memory_order_relaxed);
	return n;
}

uint64_t cp_sampler_proc_samples(unsigned i)
{
	uint64_t n = 0;

	if (i >= CP_MAX_FUNCS)
		return 0;
	for (struct cp_smp *s = atomic_load(&cp_smp_all); s; s = s->next)
		n += atomic_load_explicit(&s->tally.hits[i],
					  memory_order_relaxed);
	return n;
}
