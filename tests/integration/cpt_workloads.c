/*
 * cpt_workloads.c - the hand-derived answers of the workloads (see the
 * comment at the head of each tests/workloads/<prog>.c for derivations).
 * Times in ms.  Thread ids: 0 is main, then in order of creation.
 */
#include "cpt_workloads.h"

#include <math.h>
#include <stddef.h>

#include "cpt_harness.h"

#define END_THREADS { .tid = -1 }

const struct workload cpt_wl_mutex = {
	"mutex", NULL, "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_mutex_timed = {
	"mutex", "timed", "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_spin = {
	"spin", NULL, "a,b,c,d", 60, 2, 10,
	{ { "a", 25, 20, 25 }, { "b", 0, 0, 5 }, { "c", 0, 0, 25 },
	  { "d", 35, 10, 35 } },
	{ { 0, 60, 50 }, { 1, 60, 40 }, END_THREADS },
	{ { "spin", 2, 2 } },
};

const struct workload cpt_wl_rwlock = {
	"rwlock", NULL, "w0,r1,r2,w1", 75, 4, 15,
	{ { "w0", 20, 20, 20 }, { "r1", 30, 15, 30 }, { "r2", 0, 0, 15 },
	  { "w1", 25, 25, 25 } },
	{ { 0, 75, 20 }, { 1, 50, 30 }, { 2, 35, 15 }, { 3, 75, 25 },
	  END_THREADS },
	{ { "rwlock", 4, 4 }, { "sem", 4, 4 } },
};

const struct workload cpt_wl_barrier = {
	"barrier", NULL, "a,b,c", 70, 3, 10,
	{ { "a", 5, 5, 35 }, { "b", 30, 10, 40 }, { "c", 35, 15, 55 } },
	{ { 0, 70, 35 }, { 1, 65, 40 }, { 2, 65, 55 }, END_THREADS },
	{ { "barrier", 6, 6 } },
};

const struct workload cpt_wl_cond = {
	"cond", NULL, "m1,m2,t1,t1b,w2,w3", 115, 4, 10,
	{ { "m1", 30, 30, 30 }, { "m2", 20, 20, 20 }, { "t1", 25, 25, 25 },
	  { "t1b", 10, 10, 10 }, { "w2", 0, 0, 20 }, { "w3", 30, 10, 30 } },
	{ { 0, 115, 50 }, { 1, 85, 35 }, { 2, 105, 20 }, { 3, 115, 30 },
	  END_THREADS },
	/* waits (1 on C1, 2 on C2); M1 and M2 acquires, re-acquires
	 * included, more if a waiter was slow to reach its wait */
	{ { "cond", 1, 1 }, { "cond", 2, 2 }, { "mutex", 3, ANY },
	  { "mutex", 5, ANY } },
};

const struct workload cpt_wl_sem = {
	"sem", NULL, "m1,m2,p,c1,c2,c3,c4", 65, 3, 10,
	{ { "m1", 0, 0, 30 }, { "m2", 0, 0, 10 }, { "p", 50, 10, 50 },
	  { "c1", 0, 0, 10 }, { "c2", 0, 0, 10 }, { "c3", 0, 0, 10 },
	  { "c4", 15, 15, 15 } },
	{ { 0, 65, 40 }, { 1, 50, 50 }, { 2, 65, 45 }, END_THREADS },
	/* S: 2 posts + 3 waits; order: 1 post + 1 wait */
	{ { "sem", 2, 2 }, { "sem", 5, 5 } },
};

const struct workload cpt_wl_wq_lock = {
	"wq", "lock", "p1,p2,c0,work", 110, 4, 25,
	{ { "p1", 0, 0, 10 }, { "p2", 50, 25, 50 }, { "c0", 0, 0, 25 },
	  { "work", 60, 60, 60 } },
	{ { 0, 110, 0 }, { 1, 10, 10 }, { 2, 50, 50 }, { 3, 110, 85 },
	  END_THREADS },
	{ { "mutex", 4, 4 } },
};

const struct workload cpt_wl_wq_items = {
	"wq", "items", "p1,p2,c0,work", 85, 4, 15,
	{ { "p1", 0, 0, 10 }, { "p2", 0, 0, 50 }, { "c0", 25, 15, 25 },
	  { "work", 60, 35, 60 } },
	{ { 0, 85, 0 }, { 1, 10, 10 }, { 2, 50, 50 }, { 3, 85, 85 },
	  END_THREADS },
	/* the queue's lock is untracked; X and Y: enqueue + dequeue */
	{ { "item", 2, 2 }, { "item", 2, 2 } },
};

/* Y's address enqueued and dequeued once before: every figure of "items";
 * each enqueue of an address not in flight is an object of its own. */
const struct workload cpt_wl_wq_reuse = {
	"wq", "reuse", "p1,p2,c0,work", 85, 4, 15,
	{ { "p1", 0, 0, 10 }, { "p2", 0, 0, 50 }, { "c0", 25, 15, 25 },
	  { "work", 60, 35, 60 } },
	{ { 0, 85, 0 }, { 1, 10, 10 }, { 2, 50, 50 }, { 3, 85, 85 },
	  END_THREADS },
	{ { "item", 2, 2 }, { "item", 2, 2 }, { "item", 2, 2 } },
};

const struct workload cpt_wl_create = {
	"create", NULL, "m1,m2,m3,a,a2,b", 80, 3, 15,
	{ { "m1", 20, 20, 20 }, { "m2", 0, 0, 15 }, { "m3", 5, 5, 5 },
	  { "a", 30, 30, 30 }, { "a2", 0, 0, 10 }, { "b", 25, 15, 25 } },
	{ { 0, 80, 40 }, { 1, 75, 40 }, { 2, 75, 25 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_funcs = {
	"funcs", NULL, "work_a,work_b,work_c,work_d,phase", 50, 2, 10,
	{ { "work_a", 35, 10, 35 }, { "work_b", 30, 25, 30 },
	  { "work_c", 0, 0, 25 }, { "work_d", 0, 0, 5 },
	  { "phase", 35, 10, 35 } },
	{ { 0, 50, 40 }, { 1, 50, 40 }, END_THREADS },
	{ { "sem", 2, 2 } },
};

const struct workload cpt_wl_handover_mutex = {
	"handover", "mutex", "a,b,c,d", 60, 2, 15,
	{ { "a", 25, 20, 25 }, { "b", 0, 0, 5 }, { "c", 0, 0, 20 },
	  { "d", 35, 15, 35 } },
	{ { 0, 60, 45 }, { 1, 60, 40 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_handover_trylock = {
	"handover", "trylock", "a,b,c,d", 60, 2, 15,
	{ { "a", 25, 20, 25 }, { "b", 0, 0, 5 }, { "c", 0, 0, 20 },
	  { "d", 35, 15, 35 } },
	{ { 0, 60, 45 }, { 1, 60, 40 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_handover_inner = {
	"handover", "inner", "a,b,c,d", 60, 2, 15,
	{ { "a", 25, 20, 25 }, { "b", 0, 0, 5 }, { "c", 0, 0, 20 },
	  { "d", 35, 15, 35 } },
	{ { 0, 60, 45 }, { 1, 60, 40 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_handover_copy = {
	"handover", "copy", "a,b,c,d", 60, 2, 15,
	{ { "a", 25, 20, 25 }, { "b", 0, 0, 5 }, { "c", 0, 0, 20 },
	  { "d", 35, 15, 35 } },
	{ { 0, 60, 45 }, { 1, 60, 40 }, END_THREADS },
	{ { "mutex", 2, 2 }, { "mutex", 3, 3 } },
};

const struct workload cpt_wl_handover_spin = {
	"handover", "spin", "a,b,c,d", 60, 2, 15,
	{ { "a", 25, 20, 25 }, { "b", 0, 0, 5 }, { "c", 0, 0, 20 },
	  { "d", 35, 15, 35 } },
	{ { 0, 60, 45 }, { 1, 60, 40 }, END_THREADS },
	{ { "spin", 2, 2 } },
};

const struct workload cpt_wl_handover_rwlock = {
	"handover", "rwlock", "a,b,c,d", 60, 2, 15,
	{ { "a", 25, 20, 25 }, { "b", 0, 0, 5 }, { "c", 0, 0, 20 },
	  { "d", 35, 15, 35 } },
	{ { 0, 60, 45 }, { 1, 60, 40 }, END_THREADS },
	{ { "rwlock", 2, 2 } },
};

const struct workload cpt_wl_c11 = {
	"c11", NULL, "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_c11_timed = {
	"c11", "timed", "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_c11_recursive = {
	"c11", "recursive", "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { "mutex", 3, 3 } },
};

const struct workload cpt_wl_c11_cond = {
	"c11", "cond", "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_omp_region = {
	"omp", "region", "p,a,b,c", 60, 2, 20,
	{ { "p", 10, 10, 10 }, { "a", 0, 0, 20 }, { "b", 40, 20, 40 },
	  { "c", 10, 10, 10 } },
	{ { 0, 60, 40 }, { 1, 50, 40 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_omp_critical = {
	"omp", "critical", "a,b,c,d,e", 60, 2, 10,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 10 },
	  { "d", 20, 10, 20 }, { "e", 10, 10, 10 } },
	{ { 0, 60, 50 }, { 1, 50, 30 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_omp_tasks = {
	"omp", "tasks", "p,q,r,t", 50, 2, 10,
	{ { "p", 10, 10, 10 }, { "q", 0, 0, 20 }, { "r", 10, 10, 10 },
	  { "t", 30, 10, 30 } },
	{ { 0, 50, 40 }, { 1, 40, 30 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_omp_depend = {
	"omp", "depend", "p,a,q,b,r", 60, 2, 10,
	{ { "p", 10, 10, 10 }, { "a", 30, 10, 30 }, { "q", 0, 0, 20 },
	  { "b", 10, 10, 10 }, { "r", 10, 10, 10 } },
	{ { 0, 60, 50 }, { 1, 40, 30 }, END_THREADS },
	{ { "rwlock", 2, 2 } },
};

const struct workload cpt_wl_omp_waitdep = {
	"omp", "waitdep", "p,a,q,r", 50, 2, 10,
	{ { "p", 10, 10, 10 }, { "a", 30, 10, 30 }, { "q", 0, 0, 20 },
	  { "r", 10, 10, 10 } },
	{ { 0, 50, 40 }, { 1, 40, 30 }, END_THREADS },
	{ { "rwlock", 2, 2 } },
};

const struct workload cpt_wl_omp_nested = {
	"omp", "nested", "p,w,c,v,q,r,s", 60, 2, 20,
	{ { "p", 10, 10, 10 }, { "w", 20, 20, 20 }, { "c", 5, 5, 5 },
	  { "v", 10, 10, 10 }, { "q", 0, 0, 15 }, { "r", 10, 10, 10 },
	  { "s", 5, 5, 5 } },
	{ { 0, 60, 40 }, { 1, 45, 35 }, END_THREADS },
	{ { "rwlock", 3, 3 } },
};

const struct workload cpt_wl_omp_taskloop = {
	"omp", "taskloop", "p,a,b,r", 50, 2, 20,
	{ { "p", 10, 10, 10 }, { "a", 30, 20, 30 }, { "b", 0, 0, 10 },
	  { "r", 10, 10, 10 } },
	{ { 0, 50, 30 }, { 1, 40, 30 }, END_THREADS },
	{ { "barrier", 2, 2 } },
};

const struct workload cpt_wl_omp_shrink = {
	"omp", "shrink", "p,a,b,x,c,d,e,f", 80, 3, 5,
	{ { "p", 10, 10, 10 }, { "a", 0, 0, 5 }, { "b", 10, 5, 10 },
	  { "x", 0, 0, 3 }, { "c", 30, 30, 30 }, { "d", 10, 5, 10 },
	  { "e", 0, 0, 5 }, { "f", 20, 20, 20 } },
	{ { 0, 80, 75 }, { 1, 55, 15 }, { 2, 13, 3 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_omp_ordered = {
	"omp", "ordered", "o0,o1,o2,o3,b", 50, 2, 15,
	{ { "o0", 20, 15, 20 }, { "o1", 10, 10, 10 }, { "o2", 10, 10, 10 },
	  { "o3", 10, 10, 10 }, { "b", 0, 0, 5 } },
	{ { 0, 50, 30 }, { 1, 50, 25 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_cxx_mutex = {
	"cxx", "mutex", "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { "mutex", 2, 2 } },
};

const struct workload cpt_wl_cxx_shared = {
	"cxx", "shared", "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { "rwlock", 2, 2 } },
};

const struct workload cpt_wl_cxx_cond = {
	"cxx", "cond", "a,b,c,d", 70, 2, 20,
	{ { "a", 30, 20, 30 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 70, 50 }, { 1, 70, 50 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_cxx_latch = {
	"cxx", "latch", "a,b,c,d", 140, 2, 20,
	{ { "a", 100, 90, 100 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 140, 120 }, { 1, 140, 50 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_cxx_barrier = {
	"cxx", "barrier", "a,b,c,d", 140, 2, 20,
	{ { "a", 100, 90, 100 }, { "b", 0, 0, 10 }, { "c", 0, 0, 20 },
	  { "d", 40, 20, 40 } },
	{ { 0, 140, 120 }, { 1, 140, 50 }, END_THREADS },
	{ { NULL } },
};

const struct workload cpt_wl_futex_libc = {
	"futex", "libc", "a,c,d", 120, 2, 10,
	{ { "a", 100, 100, 100 }, { "c", 0, 0, 10 }, { "d", 20, 10, 20 } },
	{ { 0, 120, 110 }, { 1, 120, 20 }, END_THREADS },
	{ { NULL } },
};

/* sigwait.c: the futex case's numbers, the wake a signal. */
#define CPT_WL_SIGWAIT(mode)						\
	{ "sigwait", mode, "a,c,d", 120, 2, 10,				\
	  { { "a", 100, 100, 100 }, { "c", 0, 0, 10 },			\
	    { "d", 20, 10, 20 } },					\
	  { { 0, 120, 110 }, { 1, 120, 20 }, END_THREADS },		\
	  { { NULL } } }

const struct workload cpt_wl_sigwait = CPT_WL_SIGWAIT("sigwait");
const struct workload cpt_wl_sigwaitinfo = CPT_WL_SIGWAIT("sigwaitinfo");
const struct workload cpt_wl_sigtimedwait = CPT_WL_SIGWAIT("sigtimedwait");
const struct workload cpt_wl_sigsuspend = CPT_WL_SIGWAIT("sigsuspend");

/* chan.c: the futex case's numbers, the wake a write to a channel. */
#define CPT_WL_CHAN(mode)						\
	{ "chan", mode, "a,c,d", 120, 2, 10,				\
	  { { "a", 100, 100, 100 }, { "c", 0, 0, 10 },			\
	    { "d", 20, 10, 20 } },					\
	  { { 0, 120, 110 }, { 1, 120, 20 }, END_THREADS },		\
	  { { NULL } } }

const struct workload cpt_wl_chan[CPT_WL_NCHAN] = {
	CPT_WL_CHAN("pipe"), CPT_WL_CHAN("eventfd"),
	CPT_WL_CHAN("socketpair"), CPT_WL_CHAN("poll"),
	CPT_WL_CHAN("ppoll"), CPT_WL_CHAN("select"),
	CPT_WL_CHAN("pselect"), CPT_WL_CHAN("epoll"),
	CPT_WL_CHAN("epoll_pwait"), CPT_WL_CHAN("vfork"),
	CPT_WL_CHAN("nonblock"),
};

const struct workload *const cpt_wl_all[] = {
	&cpt_wl_c11,
	&cpt_wl_c11_timed,
	&cpt_wl_c11_recursive,
	&cpt_wl_c11_cond,
	&cpt_wl_omp_region,
	&cpt_wl_omp_critical,
	&cpt_wl_omp_tasks,
	&cpt_wl_omp_depend,
	&cpt_wl_omp_waitdep,
	&cpt_wl_omp_nested,
	&cpt_wl_omp_taskloop,
	&cpt_wl_omp_shrink,
	&cpt_wl_omp_ordered,
	&cpt_wl_cxx_mutex,
	&cpt_wl_cxx_shared,
	&cpt_wl_cxx_cond,
	&cpt_wl_cxx_latch,
	&cpt_wl_cxx_barrier,
	&cpt_wl_futex_libc,
	&cpt_wl_sigwait,
	&cpt_wl_sigwaitinfo,
	&cpt_wl_sigtimedwait,
	&cpt_wl_sigsuspend,
	&cpt_wl_chan[0],
	&cpt_wl_chan[1],
	&cpt_wl_chan[2],
	&cpt_wl_chan[3],
	&cpt_wl_chan[4],
	&cpt_wl_chan[5],
	&cpt_wl_chan[6],
	&cpt_wl_chan[7],
	&cpt_wl_chan[8],
	&cpt_wl_chan[9],
	&cpt_wl_chan[10],
	&cpt_wl_mutex,
	&cpt_wl_mutex_timed,
	&cpt_wl_spin,
	&cpt_wl_rwlock,
	&cpt_wl_barrier,
	&cpt_wl_cond,
	&cpt_wl_sem,
	&cpt_wl_wq_lock,
	&cpt_wl_wq_items,
	&cpt_wl_wq_reuse,
	&cpt_wl_create,
	&cpt_wl_funcs,
	&cpt_wl_handover_mutex,
	&cpt_wl_handover_trylock,
	&cpt_wl_handover_inner,
	&cpt_wl_handover_copy,
	&cpt_wl_handover_spin,
	&cpt_wl_handover_rwlock,
};

const unsigned cpt_wl_count = sizeof(cpt_wl_all) / sizeof(cpt_wl_all[0]);

double cpt_wl_useful_total(const struct workload *w)
{
	double sum = 0;

	for (int i = 0; i < MAX_THREADS && w->thr[i].tid >= 0; i++)
		sum += w->thr[i].useful;
	return sum;
}

double cpt_disturbance(json_t *report, double useful_ms)
{
	double useful = cpt_json_ms(report, "cpu_ns");

	if (isnan(useful))
		return 0;
	return fmax(0, useful - useful_ms);
}

double cpt_cpu_dist_limit(unsigned threads, double useful_ms)
{
	return CPT_WL_CPU_DIST_SCALE *
	       fmax(CPT_WL_CPU_DIST_PER_THREAD * threads,
		    CPT_WL_CPU_DIST_SHARE * useful_ms);
}

double cpt_wl_disturbance(const struct workload *w, json_t *report)
{
	return cpt_disturbance(report, cpt_wl_useful_total(w));
}

/* A workload runs for a fraction of a second: a minute is a hang. */
#define WL_TIMEOUT_S 60

static bool run_failed(const struct cpt_run *r)
{
	return !r->report || cpt_run_exit_code(r) != 0;
}

int cpt_wl_least_disturbed(struct cpt_run *best, const struct workload *w,
			   enum cpt_variant v, const char *const *env,
			   int tries, double calm_ms)
{
	const char *args[] = { w->arg, NULL };
	bool held = best->dir[0] != '\0';
	double best_dist = held ? cpt_wl_disturbance(w, best->report) :
			   INFINITY;
	int k;

	for (k = 0; k < tries; k++) {
		struct cpt_run r;
		double dist;

		if (held && (run_failed(best) || best_dist <= calm_ms))
			break;
		if (cpt_run_workload(&r, w->prog, v, args, env,
				     WL_TIMEOUT_S) != 0) {
			cpt_run_free(&r);
			return -1;
		}
		dist = cpt_wl_disturbance(w, r.report);
		/* a failed run is kept however disturbed: a retry must not
		 * hide it */
		if (held && !run_failed(&r) && dist >= best_dist) {
			cpt_run_free(&r);
			continue;
		}
		if (held)
			cpt_run_free(best);
		*best = r;
		best_dist = dist;
		held = true;
	}
	return k;
}

double cpt_wl_cpu_dist_limit(const struct workload *w)
{
	return cpt_cpu_dist_limit(w->threads, cpt_wl_useful_total(w));
}
