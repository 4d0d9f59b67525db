/*
 * cp_unseen.c - unexplained waiting and self-synchronizing libraries
 * (cp_unseen.h).  No stdio streams, no allocation: /proc is read with
 * open/read into a stack buffer.
 */
#include "cp_unseen.h"

#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cp_runtime.h"
#include "cp_trace_format.h"

int cp_unseen_schedstat(int ostid, uint64_t *cpu, uint64_t *runq)
{
	char path[64], buf[128], *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", ostid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*cpu = strtoull(buf, &end, 10);
	if (end == buf)
		return -1;
	*runq = strtoull(end, NULL, 10);
	return 0;
}

bool cp_unseen_running(int ostid)
{
	char path[64], buf[256];
	const char *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", ostid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	rp = strrchr(buf, ')');	/* the name may hold spaces and ')' */
	return rp && rp[1] == ' ' && rp[2] == 'R';
}

uint64_t cp_unseen_blocked(const struct cp_thread *t)
{
	uint64_t cpu, runq, life, blocked, seen;

	if (cp_rt.clock != CP_CLOCK_WALL ||
	    cp_unseen_schedstat(t->ostid, &cpu, &runq) != 0)
		return 0;
	cpu = cpu > t->sched_cpu0 ? cpu - t->sched_cpu0 : 0;
	runq = runq > t->sched_runq0 ? runq - t->sched_runq0 : 0;
	life = t->wall_now > t->start_wall ? t->wall_now - t->start_wall : 0;
	blocked = life > cpu + runq ? life - cpu - runq : 0;
	seen = t->wait_ns +
	       __atomic_load_n(&t->tracer_wait_ns, __ATOMIC_RELAXED);
	return blocked > seen ? blocked - seen : 0;
}

/* @t's blocked time beyond its wrapped waits, child waits included. */
static uint64_t blocked_of(const struct cp_thread *t)
{
	if (__atomic_load_n(&t->exited, __ATOMIC_ACQUIRE))
		return t->unseen_ns;
	return cp_unseen_blocked(t);
}

/* The part of blocked time @b of @t that its child waits explain. */
static uint64_t children_in(const struct cp_thread *t, uint64_t b)
{
	uint64_t c = __atomic_load_n(&t->child_wait_ns, __ATOMIC_RELAXED);

	/* a wait after the thread's last event is outside its blocked time */
	return c < b ? c : b;
}

/* The part of blocked time @b of @t that its waits for outside events
 * explain, after its child waits. */
static uint64_t outside_in(const struct cp_thread *t, uint64_t b)
{
	uint64_t o = __atomic_load_n(&t->outside_wait_ns, __ATOMIC_RELAXED);

	b -= children_in(t, b);
	return o < b ? o : b;
}

uint64_t cp_unseen_children_of(const struct cp_thread *t)
{
	return children_in(t, blocked_of(t));
}

uint64_t cp_unseen_outside_of(const struct cp_thread *t)
{
	return outside_in(t, blocked_of(t));
}

uint64_t cp_unseen_of(const struct cp_thread *t)
{
	uint64_t b = blocked_of(t);	/* one reading of /proc for all */

	return b - children_in(t, b) - outside_in(t, b);
}

void cp_unseen_outside_wait(struct cp_thread *t, uint64_t ns)
{
	__atomic_store_n(&t->outside_wait_ns,
			 __atomic_load_n(&t->outside_wait_ns,
					 __ATOMIC_RELAXED) + ns,
			 __ATOMIC_RELAXED);
}

void cp_unseen_child_wait(struct cp_thread *t, uint64_t ns)
{
	__atomic_store_n(&t->child_wait_ns,
			 __atomic_load_n(&t->child_wait_ns, __ATOMIC_RELAXED) +
			 ns, __ATOMIC_RELAXED);
}

void cp_unseen_yield(struct cp_thread *t)
{
	uint64_t now = cp_clock_wall(), cpu = cp_clock_cpu_raw();
	uint64_t pending = __atomic_load_n(&t->spin_pending, __ATOMIC_RELAXED);

	if (t->yield_last != t->last) {
		/* an event since the last yield: the spinning before it
		 * lies inside the thread's useful time */
		__atomic_store_n(&t->spin_ns, __atomic_load_n(&t->spin_ns,
				 __ATOMIC_RELAXED) + pending, __ATOMIC_RELAXED);
		pending = 0;
	} else if (t->yield_wall && cpu - t->yield_cpu < CP_UNSEEN_POLL_NS) {
		pending += cp_rt.clock == CP_CLOCK_CPU ? cpu - t->yield_cpu :
			   now - t->yield_wall;
	}
	__atomic_store_n(&t->spin_pending, pending, __ATOMIC_RELAXED);
	t->yield_wall = now;
	t->yield_cpu = cpu;
	__atomic_store_n(&t->yield_last, t->last, __ATOMIC_RELAXED);
}

uint64_t cp_unseen_spin_of(const struct cp_thread *t)
{
	uint64_t s = __atomic_load_n(&t->spin_ns, __ATOMIC_RELAXED);

	/* spinning since the last yield's event counts if an event came
	 * after it (a thread's exit, the process's), or the thread was
	 * still running at the end, where its useful time then ends */
	if (__atomic_load_n(&t->last, __ATOMIC_RELAXED) !=
	    __atomic_load_n(&t->yield_last, __ATOMIC_RELAXED) ||
	    (__atomic_load_n(&t->live_end, __ATOMIC_ACQUIRE) &&
	     !t->live_waiting))
		s += __atomic_load_n(&t->spin_pending, __ATOMIC_RELAXED);
	return s;
}

/* A note on threads' blocked time: its words, the figure it is about,
 * and its text once made (at exit). */
struct thread_note {
	const char *head, *verb, *tail;
	uint64_t (*of)(const struct cp_thread *t);
	char text[768];
	bool done;
};

/*
 * @n's text, made at the first call: its head, then each thread whose
 * figure passes the floors (CP_UNSEEN_MIN_NS and CP_UNSEEN_MIN_SHARE of
 * its useful time) with its milliseconds, at most four, then its tail;
 * "" when none passes.
 */
static const char *thread_note(struct thread_note *nt)
{
	size_t n = 0, len = sizeof(nt->text);
	unsigned shown = 0, more = 0;
	char *buf = nt->text;

	if (nt->done)
		return buf;
	nt->done = true;
	buf[0] = '\0';
	for (struct cp_thread *t = cp_thread_all(); t; t = t->next) {
		uint64_t u = nt->of(t), useful = cp_thread_useful_end(t);

		if (u < CP_UNSEEN_MIN_NS ||
		    (double)u < CP_UNSEEN_MIN_SHARE * (double)useful)
			continue;
		if (shown == 4 || n >= len - 160) {
			more++;
			continue;
		}
		n += (size_t)snprintf(buf + n, len - n,
				      "%sthread %u %s %.1f ms (%.0f%% of its "
				      "useful time)", shown ? ", " : nt->head,
				      t->tid, nt->verb, (double)u / 1e6,
				      useful ? 100.0 * (double)u /
				      (double)useful : 0.0);
		shown++;
	}
	if (!shown)
		return buf;
	if (more)
		n += (size_t)snprintf(buf + n, len - n, " and %u more "
				      "threads", more);
	snprintf(buf + n, len - n, "%s", nt->tail);
	return buf;
}

static struct thread_note unexplained_note = {
	.head = "Unexplained waiting: ",
	.verb = "was blocked",
	.tail = " outside any traced call; that time counts as useful work, "
		"so the critical path may be overstated (likely cause: "
		"synchronization the tracer cannot see, such as raw futex "
		"calls, a lock or barrier of the program's own, a sleep, or "
		"blocking I/O).",
	.of = cp_unseen_of,
};

static struct thread_note children_note = {
	.head = "Waiting for child processes: ",
	.verb = "waited",
	.tail = " in wait, waitpid or the like; that time counts as useful "
		"work, standing for the children's run on this process's "
		"critical path (cpt run traces each child into a file of its "
		"own).",
	.of = cp_unseen_children_of,
};

static struct thread_note outside_note = {
	.head = "Waiting outside the process: ",
	.verb = "waited",
	.tail = " in a sleep, or in poll, select, epoll or a read for "
		"something no thread of this process sent (a socket to another "
		"process, a timer, a child's output); that time counts as "
		"useful work, standing for what it waited for on the critical "
		"path.",
	.of = cp_unseen_outside_of,
};

static struct thread_note spin_note = {
	.head = "Spinning: ",
	.verb = "spun",
	.tail = " between sched_yield calls outside any traced call; that "
		"time counts as useful work, so the critical path may run "
		"through threads that were only waiting (likely cause: a "
		"spin-wait the tracer cannot see, such as a loop around "
		"sched_yield or std::this_thread::yield until a flag is "
		"set).",
	.of = cp_unseen_spin_of,
};

const char *cp_unseen_spin_note(void)
{
	return thread_note(&spin_note);
}

const char *cp_unseen_blocked_note(void)
{
	return thread_note(&unexplained_note);
}

const char *cp_unseen_children_note(void)
{
	return thread_note(&children_note);
}

const char *cp_unseen_outside_note(void)
{
	return thread_note(&outside_note);
}

/* Loaded objects whose waits no wrapper sees. */
static const struct {
	const char *file;	/* how the object's path ends */
	const char *what;
} foreign[] = {
	{ "/libomp.so", "LLVM's OpenMP runtime (libomp, clang -fopenmp)" },
	{ "/libomp.so.5", "LLVM's OpenMP runtime (libomp, clang -fopenmp)" },
	{ "/libiomp5.so", "Intel's OpenMP runtime (libiomp5)" },
	{ "/libtbb.so.12", "oneTBB (libtbb)" },
	{ "/libtbb.so.2", "TBB (libtbb)" },
};

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

static int foreign_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	int *found = arg;

	(void)size;
	for (size_t i = 0; info->dlpi_name &&
	     i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		if (ends_with(info->dlpi_name, foreign[i].file)) {
			*found = (int)i;
			return 1;
		}
	}
	return 0;
}

static char library_note[256];
static bool library_done;

const char *cp_unseen_library_note(void)
{
	int found = -1;

	if (library_done)
		return library_note;
	library_done = true;
	dl_iterate_phdr(foreign_cb, &found);
	if (found >= 0)
		snprintf(library_note, sizeof(library_note), "%s is loaded and "
			 "is not traced: the waits in its barriers, locks and "
			 "tasks count as useful time, so the critical path may "
			 "be overstated.", foreign[found].what);
	return library_note;
}
