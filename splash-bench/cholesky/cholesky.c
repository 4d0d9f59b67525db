/*
 * cholesky - blocked dense Cholesky factorization A = L L^T driven by a
 * task queue with dependencies.
 *
 * Phases:
 *   touch_matrix  fault in the matrix's pages;                 sequential
 *   fill_matrix   build a symmetric, diagonally dominant (hence positive
 *                 definite) N x N matrix whose entries decay away from the
 *                 diagonal and oscillate (libm-heavy);          sequential
 *   build_blocks  copy its lower triangle into B x B blocks;   sequential
 *   build_tasks   create one task per (block row i, block column j, step k)
 *                 with its dependency count, and a lock per block that
 *                 guards the counts of the block's tasks;       sequential
 *   factor        worker threads run tasks from a queue:
 *                   factor_diag  (i = j = k)   L_kk = chol(A_kk)
 *                   solve_panel  (i > j = k)   L_ik = A_ik L_kk^-T
 *                   update_diag  (i = j > k)   A_ii -= L_ik L_ik^T
 *                   update_block (i > j > k)   A_ij -= L_ik L_jk^T
 *                 a finished task decrements the count of each successor
 *                 under the lock of the successor's block and queues it
 *                 at zero;
 *   verify        compare A x with L (L^T x) for a random x.
 *
 * The updates of one block run in order of k (each depends on the previous
 * one), so no block is written by two threads at once.  This is the shape
 * of the SPLASH-2 Cholesky kernel that [Hollingsworth98] (Fig. 13) profiles:
 * setup routines that run on one processor weigh far more on the critical path
 * than in a CPU profile.  The queue's items are tracked (cpthread_enqueue /
 * cpthread_dequeue) and its lock is untracked; the per-block locks carry the
 * dependencies between tasks.
 *
 * -n SIZE is N (default 4096, rounded up to a multiple of B = 64).
 * Scalable procedures: fill_matrix (base 2) and update_block (base 1: the
 * product L_ik L_jk^T is computed FACTOR times before it is subtracted).
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define B 64

enum task_kind { FACTOR_DIAG, SOLVE_PANEL, UPDATE_DIAG, UPDATE_BLOCK };

struct task {
	int deps;		/* unfinished predecessors, under the lock
				 * of the task's block */
	short i, j, k;		/* target block (i, j) at step k */
};

struct chol {
	int n, nb;		/* matrix order, blocks per side */
	double *a;		/* the original matrix, n x n, row-major */
	double **blk;		/* blk[i * nb + j], j <= i: B x B, row-major */
	pthread_mutex_t *blk_lock;	/* guards the deps of block's tasks */
	struct task *tasks;	/* indexed by task_index() */
	int ntasks;
	/* the ready queue */
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct task **ready;	/* ring of ntasks slots */
	int head, tail;		/* dequeue at head, enqueue at tail */
	int done;		/* tasks finished */
};

static struct bench_knob knobs[] = {
	{ "fill_matrix", 2, 0 },
	{ "update_block", 1, 0 },
	{ NULL, 0, 0 },
};

#define K_FILL (&knobs[0])
#define K_UPDATE (&knobs[1])

void touch_matrix(struct chol *c);
void fill_matrix(struct chol *c);
void build_blocks(struct chol *c);
void build_tasks(struct chol *c);
int factor_diag(double *l);
void solve_panel(const double *lkk, double *aik);
void update_diag(double *aii, const double *lik);
void update_block(double *aij, const double *lik, const double *ljk,
		  uint64_t unit);
void run_task(struct chol *c, struct task *t);
void *chol_worker(void *arg);
double verify_factor(const struct chol *c);

/* Tasks of block (i, j), j <= i, are numbered k = 0..j; blocks row-major. */
BENCH_HOT int task_index(int i, int j, int k)
{
	/* blocks before row i: sum over rows r < i of sum_{j'<=r} (j'+1) */
	long before = (long)i * (i + 1) * (i + 2) / 6;

	return (int)(before + (long)j * (j + 1) / 2 + k);
}

BENCH_HOT double *block(const struct chol *c, int i, int j)
{
	return c->blk[i * c->nb + j];
}

/* Fault in the matrix's pages (zeroing it).  Main thread. */
BENCH_PROC void touch_matrix(struct chol *c)
{
	memset(c->a, 0, sizeof(double) * (size_t)c->n * c->n);
}

/*
 * The matrix: a_ij = exp(-|i-j| / (n/8)) cos(0.37 i + 0.61 j) sqrt(1 +
 * |sin(ij)|) off the diagonal, symmetric, and a diagonal that dominates
 * its row.  Each row (and its mirror column) is computed base x FACTOR
 * times.  Main thread; the matrix's pages are already touched.
 */
BENCH_PROC void fill_matrix(struct chol *c)
{
	int n = c->n, i, j;
	double *a = c->a;
	double scale = n / 8.0;

	for (i = 0; i < n; i++) {
		double started;
		unsigned r, reps = bench_unit_begin(K_FILL, (uint64_t)i,
						    &started);

		for (r = 0; r < reps; r++) {
			int row = i;

			BENCH_OPAQUE(row);
			for (j = 0; j < row; j++) {
				double d = (double)(row - j);
				double v = exp(-d / scale) *
					   cos(0.37 * row + 0.61 * j) *
					   sqrt(1 + fabs(sin((double)row * j)));

				a[(size_t)row * n + j] = v;
				a[(size_t)j * n + row] = v;
			}
			BENCH_CLOBBER();
		}
		bench_unit_end(K_FILL, started);
	}
	for (i = 0; i < n; i++) {
		double sum = 1.0;

		for (j = 0; j < n; j++)
			if (j != i)
				sum += fabs(a[(size_t)i * n + j]);
		a[(size_t)i * n + i] = sum;
	}
}

/* Copy the lower triangle of the matrix into blocks.  Main thread. */
BENCH_PROC void build_blocks(struct chol *c)
{
	int nb = c->nb, n = c->n, bi, bj, r;

	c->blk = bench_alloc(sizeof(double *) * (size_t)nb * nb);
	for (bi = 0; bi < nb; bi++) {
		for (bj = 0; bj <= bi; bj++) {
			double *p = aligned_alloc(64, sizeof(double) * B * B);

			if (!p)
				bench_fail("out of memory for block %d,%d",
					   bi, bj);
			for (r = 0; r < B; r++)
				memcpy(p + r * B,
				       c->a + (size_t)(bi * B + r) * n + bj * B,
				       sizeof(double) * B);
			c->blk[bi * nb + bj] = p;
		}
	}
}

/*
 * Create every task with its dependency count (see the header comment) and
 * the blocks' locks.  Main thread, before the workers start.
 */
BENCH_PROC void build_tasks(struct chol *c)
{
	int nb = c->nb, i, j, k;

	c->ntasks = task_index(nb, 0, 0);
	c->tasks = bench_alloc(sizeof(*c->tasks) * (size_t)c->ntasks);
	c->ready = bench_alloc(sizeof(*c->ready) * (size_t)c->ntasks);
	c->blk_lock = bench_alloc(sizeof(*c->blk_lock) * (size_t)nb * nb);
	for (i = 0; i < nb; i++) {
		for (j = 0; j <= i; j++) {
			bench_check_rc(pthread_mutex_init(
					       &c->blk_lock[i * nb + j], NULL),
				       "mutex");
			for (k = 0; k <= j; k++) {
				struct task *t =
					&c->tasks[task_index(i, j, k)];

				t->i = (short)i;
				t->j = (short)j;
				t->k = (short)k;
				t->deps = k > 0;
				if (k < j)
					t->deps += i == j ? 1 : 2;
				else if (i > j)
					t->deps += 1;
			}
		}
	}
}

/*
 * In-place Cholesky of the B x B block @l (lower triangle used, upper
 * zeroed).  Returns 0, or -1 when a pivot is not positive.  Any thread.
 */
BENCH_PROC int factor_diag(double *l)
{
	int i, j, m;

	for (j = 0; j < B; j++) {
		double d = l[j * B + j];

		for (m = 0; m < j; m++)
			d -= l[j * B + m] * l[j * B + m];
		if (!(d > 0))
			return -1;
		d = sqrt(d);
		l[j * B + j] = d;
		for (i = j + 1; i < B; i++) {
			double s = l[i * B + j];

			for (m = 0; m < j; m++)
				s -= l[i * B + m] * l[j * B + m];
			l[i * B + j] = s / d;
		}
		for (i = 0; i < j; i++)
			l[i * B + j] = 0;
	}
	return 0;
}

/* A_ik := A_ik L_kk^-T, row by row by forward substitution.  Any thread. */
BENCH_PROC void solve_panel(const double *lkk, double *aik)
{
	int r, col, m;

	for (r = 0; r < B; r++) {
		double *x = aik + r * B;

		for (col = 0; col < B; col++) {
			double s = x[col];

			for (m = 0; m < col; m++)
				s -= x[m] * lkk[col * B + m];
			x[col] = s / lkk[col * B + col];
		}
	}
}

/* Two doubles in an SSE2 register (GCC vector extension). */
typedef double v2d __attribute__((vector_size(16)));

/*
 * C -= X Y^T for B x B blocks (64-byte aligned); @yt scratch.  The kernel
 * of the updates: each row of C is built sixteen columns at a time in
 * eight registers over the whole inner dimension and stored once (storing
 * into C on every step made the loads of the next step alias the pending
 * stores, at a cost that depended on the stack layout).
 */
BENCH_HOT void sub_product(double *restrict cblk, const double *restrict x,
			   const double *restrict y, double *restrict yt)
{
	int r, col, m;

	for (r = 0; r < B; r++)
		for (col = 0; col < B; col++)
			yt[col * B + r] = y[r * B + col];
	for (r = 0; r < B; r++) {
		const double *xrow = x + r * B;

		for (col = 0; col < B; col += 16) {
			v2d a0 = { 0, 0 }, a1 = a0, a2 = a0, a3 = a0;
			v2d a4 = a0, a5 = a0, a6 = a0, a7 = a0;
			v2d *c = (v2d *)(cblk + r * B + col);

			for (m = 0; m < B; m++) {
				const v2d *yv = (const v2d *)(yt + m * B + col);
				v2d xv = { xrow[m], xrow[m] };

				a0 += xv * yv[0];
				a1 += xv * yv[1];
				a2 += xv * yv[2];
				a3 += xv * yv[3];
				a4 += xv * yv[4];
				a5 += xv * yv[5];
				a6 += xv * yv[6];
				a7 += xv * yv[7];
			}
			c[0] -= a0;
			c[1] -= a1;
			c[2] -= a2;
			c[3] -= a3;
			c[4] -= a4;
			c[5] -= a5;
			c[6] -= a6;
			c[7] -= a7;
		}
	}
}

/* Scratch of the update kernels: the transposed operand, the product. */
struct scratch {
	double yt[B * B] __attribute__((aligned(64)));
	double p[B * B] __attribute__((aligned(64)));
};

/* A_ii -= L_ik L_ik^T (the whole block; only its lower part is used). */
BENCH_PROC void update_diag(double *aii, const double *lik)
{
	struct scratch s __attribute__((aligned(64)));
	int e;

	memset(s.p, 0, sizeof(s.p));
	sub_product(s.p, lik, lik, s.yt);
	for (e = 0; e < B * B; e++)
		aii[e] += s.p[e];
}

/*
 * A_ij -= L_ik L_jk^T.  The product is formed base x FACTOR times in a
 * scratch block (unit @unit picks the repetition count) and subtracted
 * once.  Any thread; the caller owns block (i, j).
 */
BENCH_PROC void update_block(double *aij, const double *lik,
			     const double *ljk, uint64_t unit)
{
	struct scratch s __attribute__((aligned(64)));
	double started;
	unsigned r, reps = bench_unit_begin(K_UPDATE, unit, &started);
	int e;

	for (r = 0; r < reps; r++) {
		memset(s.p, 0, sizeof(s.p));
		BENCH_OPAQUE(lik);
		sub_product(s.p, lik, ljk, s.yt);
		BENCH_CLOBBER();
	}
	for (e = 0; e < B * B; e++)
		aij[e] += s.p[e];
	bench_unit_end(K_UPDATE, started);
}

/* Queue @t (its dependencies are met).  Any thread. */
BENCH_HELPER void push_ready(struct chol *c, struct task *t)
{
	pthread_mutex_lock(&c->qlock);
	cpthread_enqueue(c, t);
	c->ready[c->tail++ % c->ntasks] = t;
	pthread_cond_signal(&c->qcond);
	pthread_mutex_unlock(&c->qlock);
}

/* One predecessor of task (i, j, k) finished. */
BENCH_HELPER void release(struct chol *c, int i, int j, int k)
{
	struct task *t = &c->tasks[task_index(i, j, k)];
	pthread_mutex_t *lock = &c->blk_lock[i * c->nb + j];
	int left;

	pthread_mutex_lock(lock);
	left = --t->deps;
	pthread_mutex_unlock(lock);
	if (left == 0)
		push_ready(c, t);
	else if (left < 0)
		bench_fail("task (%d,%d,%d) released too often", i, j, k);
}

/*
 * Run task @t and release its successors: the next update of the same
 * block, and, for a finished block (k == j), every task that reads it.
 * Any thread.
 */
BENCH_PROC void run_task(struct chol *c, struct task *t)
{
	int i = t->i, j = t->j, k = t->k, nb = c->nb, r;

	if (k < j) {
		if (i == j)
			update_diag(block(c, i, i), block(c, i, k));
		else
			update_block(block(c, i, j), block(c, i, k),
				     block(c, j, k),
				     (uint64_t)task_index(i, j, k));
		release(c, i, j, k + 1);
		return;
	}
	if (i == j) {
		if (factor_diag(block(c, i, i)))
			bench_fail("diagonal block %d is not positive "
				   "definite", i);
		for (r = i + 1; r < nb; r++)
			release(c, r, i, i);
		return;
	}
	solve_panel(block(c, j, j), block(c, i, j));
	/* L_ij (column j) feeds updates at step j of row i and column i */
	for (r = j + 1; r <= i; r++)
		release(c, i, r, j);
	for (r = i + 1; r < nb; r++)
		release(c, r, i, j);
}

/* Worker: run ready tasks until every task is done.  Thread entry point. */
BENCH_PROC void *chol_worker(void *arg)
{
	struct chol *c = arg;

	struct task *t = NULL;

	for (;;) {
		/* count the task just run and take the next, in one visit */
		pthread_mutex_lock(&c->qlock);
		if (t && ++c->done == c->ntasks)
			pthread_cond_broadcast(&c->qcond);
		t = NULL;
		while (c->head == c->tail && c->done < c->ntasks)
			pthread_cond_wait(&c->qcond, &c->qlock);
		if (c->head < c->tail) {
			t = c->ready[c->head++ % c->ntasks];
			cpthread_dequeue(c, t);
		}
		pthread_mutex_unlock(&c->qlock);
		if (!t)
			break;
		run_task(c, t);
	}
	return NULL;
}

/*
 * Relative difference between A x and L (L^T x) for a pseudo-random x.
 * Main thread, after the factorization.
 */
BENCH_PROC double verify_factor(const struct chol *c)
{
	int n = c->n, nb = c->nb, i, j, bi, bj, r, col;
	double *x = bench_alloc(sizeof(double) * (size_t)n);
	double *y = bench_alloc(sizeof(double) * (size_t)n);
	double *z = bench_alloc(sizeof(double) * (size_t)n);
	double *w = bench_alloc(sizeof(double) * (size_t)n);
	double num = 0, den = 0;
	uint64_t rng = 7;

	for (i = 0; i < n; i++)
		x[i] = bench_uniform(&rng) - 0.5;
	for (i = 0; i < n; i++) {
		double s = 0;

		for (j = 0; j < n; j++)
			s += c->a[(size_t)i * n + j] * x[j];
		y[i] = s;
	}
	/* w = L^T x: w_col += L_{row,col} x_row */
	for (bi = 0; bi < nb; bi++)
		for (bj = 0; bj <= bi; bj++) {
			const double *l = block(c, bi, bj);

			for (r = 0; r < B; r++)
				for (col = 0; col < B; col++) {
					if (bi == bj && col > r)
						break;
					w[bj * B + col] += l[r * B + col] *
							   x[bi * B + r];
				}
		}
	/* z = L w */
	for (bi = 0; bi < nb; bi++)
		for (bj = 0; bj <= bi; bj++) {
			const double *l = block(c, bi, bj);

			for (r = 0; r < B; r++)
				for (col = 0; col < B; col++) {
					if (bi == bj && col > r)
						break;
					z[bi * B + r] += l[r * B + col] *
							 w[bj * B + col];
				}
		}
	for (i = 0; i < n; i++) {
		num += (y[i] - z[i]) * (y[i] - z[i]);
		den += y[i] * y[i];
	}
	free(x);
	free(y);
	free(z);
	free(w);
	return sqrt(num / den);
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .threads = 2, .size = 4096 };
	struct chol c;
	pthread_t *tids;
	double t0 = bench_now(), err;
	int i;

	bench_init(argc, argv, &o, knobs, "matrix order (4096)");
	memset(&c, 0, sizeof(c));
	c.nb = (int)((o.size + B - 1) / B);
	if (c.nb > 256)
		c.nb = 256;
	c.n = c.nb * B;
	c.a = bench_alloc(sizeof(double) * (size_t)c.n * c.n);
	touch_matrix(&c);
	bench_phase("touch_matrix");
	fill_matrix(&c);
	bench_phase("fill_matrix");
	build_blocks(&c);
	bench_phase("build_blocks");
	build_tasks(&c);
	bench_phase("build_tasks");

	bench_check_rc(pthread_mutex_init(&c.qlock, NULL), "mutex");
	bench_check_rc(pthread_cond_init(&c.qcond, NULL), "cond");
	cpthread_untrack(&c.qlock);
	push_ready(&c, &c.tasks[0]);	/* factor_diag of block (0, 0) */
	tids = bench_alloc(sizeof(*tids) * (size_t)o.threads);
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_create(&tids[i], NULL, chol_worker, &c),
			       "pthread_create");
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_join(tids[i], NULL), "pthread_join");
	bench_phase("factor");
	if (c.done != c.ntasks)
		bench_fail("%d of %d tasks ran", c.done, c.ntasks);
	err = verify_factor(&c);
	bench_phase("verify");
	if (!(err < 1e-10))
		bench_fail("|A x - L L^T x| / |A x| = %.3g", err);
	if (!o.quiet)
		printf("cholesky: n=%d, %d blocks, %d tasks, %d threads, "
		       "residual %.2e, %.3f s\n", c.n, c.nb, c.ntasks,
		       o.threads, err, bench_now() - t0);
	for (i = 0; i < c.nb * c.nb; i++) {
		if (c.blk[i])
			pthread_mutex_destroy(&c.blk_lock[i]);
		free(c.blk[i]);
	}
	free(c.blk_lock);
	pthread_mutex_destroy(&c.qlock);
	pthread_cond_destroy(&c.qcond);
	free(c.blk);
	free(c.tasks);
	free(c.ready);
	free(c.a);
	free(tids);
	return 0;
}
