/*
 * wrap_sigwait.c - signals one thread sends and another waits for: kill,
 * raise, pthread_kill, sigqueue and pthread_sigqueue aimed at this process
 * publish; sigwait, sigwaitinfo, sigtimedwait, sigsuspend and pause are
 * waits that end on them.  lbzip2's main thread, for one, sleeps in
 * sigsuspend until a worker's kill(getpid(), SIGUSR2) says the work is
 * done, and a server's signal thread sits in sigwait all run long: without
 * these the blocked time counted as useful work.
 *
 * The records are signal records (cp_online_signal, merged: many sends,
 * one taker) of the model namespace, one per signal number and one for
 * any signal.  A send publishes the sender's path into both, before the
 * real call (the receiver may wake before it returns).  A wait that
 * returns a signal (the sigwait family) takes its number's record; with
 * siginfo at hand, only a signal sent by a thread of this process
 * (SI_USER, SI_QUEUE, SI_TKILL from our pid) gives an edge: a timer's, the
 * kernel's or another process's ends the wait without one.  sigsuspend
 * and pause do not say which signal woke them: they take the any-signal
 * record when a send came during the wait or a signal the wait lets
 * through was already pending when it began, else nothing.  A take
 * starts the record's collection anew.  So a wait depends on every send
 * since the previous take of its record: exact when each send is waited
 * for (the usual pattern: the signals blocked, one thread waiting), an
 * overstatement when a send handled elsewhere (by a handler outside any
 * wait) stays in the collection.  Return values and errno are the real
 * calls'.
 */
#include "wrap_common.h"

#include <string.h>

/* Keys of the records: one byte's address per signal number, [0] for any
 * signal. */
static const char sig_keys[NSIG];

/*
 * The record of signal @sig (0: any); NULL while the process has had one
 * thread only: a send then precedes every other thread's creation, whose
 * edge carries it, and a wait can only end on its own thread's sends or
 * on ones from outside.  So a single-threaded program makes no record.
 */
static struct cp_objrec *sig_rec(struct cp_thread *t, int sig)
{
	if (cp_runtime_alone())
		return NULL;
	return cp_objrec_get(t, &sig_keys[sig], CP_NS_MODEL, CP_OBJ_COND, 0);
}

/* A send of @sig to this process (guard not raised). */
static void sent(int sig)
{
	struct cp_thread *t;
	struct cp_objrec *r;

	if (sig <= 0 || sig >= NSIG)
		return;		/* 0 only checks; others fail */
	t = cp_enter();
	if (!t)
		return;
	r = sig_rec(t, sig);
	if (r)
		cp_online_signal(t, r, true);
	r = sig_rec(t, 0);
	if (r)
		cp_online_signal(t, r, true);
	cp_leave();
}

CP_EXPORT int kill(pid_t pid, int sig)
{
	if (pid == getpid())
		sent(sig);
	return CP_REAL(kill)(pid, sig);
}

CP_EXPORT int raise(int sig)
{
	sent(sig);
	return CP_REAL(raise)(sig);
}

CP_EXPORT int pthread_kill(pthread_t th, int sig)
{
	sent(sig);
	return CP_REAL(pthread_kill)(th, sig);
}

CP_EXPORT int sigqueue(pid_t pid, int sig, const union sigval value)
{
	if (pid == getpid())
		sent(sig);
	return CP_REAL(sigqueue)(pid, sig, value);
}

CP_EXPORT int pthread_sigqueue(pthread_t th, int sig,
			       const union sigval value)
{
	sent(sig);
	return CP_REAL(pthread_sigqueue)(th, sig, value);
}

/* The end of wait @w on signal @sig (0: unknown, any; <0: none came, or
 * not from this process). */
static void wait_end(struct cp_thread *t, struct cp_wait *w, int sig)
{
	struct cp_objrec *r = sig >= 0 && sig < NSIG ? sig_rec(t, sig) : NULL;

	if (r)
		cp_online_signal_take(t, r, w, true);
	else
		cp_online_failed(t, NULL, w);
}

/* Whether siginfo @si tells of a signal sent by a thread of this process
 * (the others' senders are not traced). */
static bool from_us(const siginfo_t *si)
{
	return (si->si_code == SI_USER || si->si_code == SI_QUEUE ||
		si->si_code == SI_TKILL) && si->si_pid == getpid();
}

CP_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	struct cp_thread *t = cp_enter();
	struct cp_wait w;
	struct cp_cancel cc;
	int rc;

	if (!t)
		return CP_REAL(sigwait)(set, sig);
	cp_online_wait_begin(t, NULL, &w);
	cc = (struct cp_cancel){ .end = cp_cancel_failed, .t = t, .w = &w };
	CP_CANCELLABLE(&cc, rc = CP_REAL(sigwait)(set, sig));
	wait_end(t, &w, rc == 0 ? *sig : -1);
	cp_leave();
	return rc;
}

/* sigwaitinfo (@ts NULL) or sigtimedwait: the program's siginfo, or ours
 * when it passed none, tells who sent the signal. */
static int timed_wait(const sigset_t *set, siginfo_t *info,
		      const struct timespec *ts, bool timed)
{
	struct cp_thread *t = cp_enter();
	siginfo_t own;
	struct cp_wait w;
	struct cp_cancel cc;
	int rc, err;

	if (!t)
		return timed ? CP_REAL(sigtimedwait)(set, info, ts) :
			       CP_REAL(sigwaitinfo)(set, info);
	if (!info) {
		memset(&own, 0, sizeof(own));
		info = &own;
	}
	cp_online_wait_begin(t, NULL, &w);
	cc = (struct cp_cancel){ .end = cp_cancel_failed, .t = t, .w = &w };
	CP_CANCELLABLE(&cc, rc = timed ? CP_REAL(sigtimedwait)(set, info, ts) :
					 CP_REAL(sigwaitinfo)(set, info),
		       err = errno);
	wait_end(t, &w, rc > 0 && from_us(info) ? rc : -1);
	cp_leave();
	errno = err;
	return rc;
}

CP_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return timed_wait(set, info, NULL, false);
}

CP_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info,
			   const struct timespec *ts)
{
	return timed_wait(set, info, ts, true);
}

/*
 * A wait that ends when a handler ran (sigsuspend with @mask, pause with
 * the thread's own mask: @mask NULL).  It takes the any-signal record if
 * a send came while it waited, or a signal it lets through was pending
 * when it began.
 */
static int handler_wait(const sigset_t *mask)
{
	struct cp_thread *t = cp_enter();
	struct cp_objrec *r;
	struct cp_wait w;
	struct cp_cancel cc;
	sigset_t pending, blocked;
	uint64_t seq0;
	bool came = false;
	int rc, err;

	if (!t)
		return mask ? CP_REAL(sigsuspend)(mask) : CP_REAL(pause)();
	r = sig_rec(t, 0);
	seq0 = r ? __atomic_load_n(&r->seq, __ATOMIC_RELAXED) : 0;
	if (r && sigpending(&pending) == 0 &&
	    (mask || CP_REAL(pthread_sigmask)(SIG_BLOCK, NULL, &blocked) == 0)) {
		for (int s = 1; s < NSIG && !came; s++)
			came = sigismember(&pending, s) == 1 &&
			       sigismember(mask ? mask : &blocked, s) == 0;
	}
	cp_online_wait_begin(t, NULL, &w);
	cc = (struct cp_cancel){ .end = cp_cancel_failed, .t = t, .w = &w };
	CP_CANCELLABLE(&cc, rc = mask ? CP_REAL(sigsuspend)(mask) :
					CP_REAL(pause)(),
		       err = errno);
	came = came || (r && __atomic_load_n(&r->seq, __ATOMIC_RELAXED) != seq0);
	wait_end(t, &w, came ? 0 : -1);
	cp_leave();
	errno = err;
	return rc;
}

CP_EXPORT int sigsuspend(const sigset_t *mask)
{
	return handler_wait(mask);
}

CP_EXPORT int pause(void)
{
	return handler_wait(NULL);
}
