/*
 * ocean - a wind-driven barotropic "ocean" on the unit square: each time
 * step evolves the vorticity zeta explicitly and solves the Poisson
 * equation lap(psi) = zeta for the stream function with a multigrid
 * solver.  Every phase is split by grid rows among the threads and ends at
 * a barrier: a few thousand barrier episodes per run.
 *
 * Per time step (all threads, SPMD):
 *   compute_forcing    the wind-stress curl F(x, y, t)           (trig)
 *   compute_jacobian   J(psi, zeta) by central differences
 *   update_vorticity   zeta += dt (F - J - r zeta + nu lap zeta)
 *   multigrid solve    V(2,2) cycles until |residual| <= 1e-8 |rhs|:
 *     smooth_red_black   red-black Gauss-Seidel sweeps
 *     compute_residual   r = f - A u, and its norm (partial sums)
 *     restrict_residual  full weighting onto the coarser grid
 *     solve_coarse       the levels of 32 x 32 cells and less, by
 *                        thread 0 alone (down to Gauss-Seidel on 4 x 4)
 *     prolong_correct    bilinear interpolation of the correction
 * Before the first step, the solver is checked on a manufactured problem
 * (psi = sin(pi x) sin(2 pi y)): the discrete solution must match it to
 * the discretization error.  At the end the residual of the last solve is
 * recomputed from scratch.
 *
 * -n SIZE is the number of cells per side, rounded up to a power of two
 * (default 1024).  Scalable procedures: compute_forcing (base 2) and
 * compute_jacobian (base 1).
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 16
#define STEPS 16		/* time steps */
#define TOL 1e-8		/* relative residual of each solve */
#define MAX_CYCLES 60
#define COARSE_M 32		/* levels this small: thread 0 alone */

struct level {
	int m;			/* cells per side; points 0..m */
	double h2;		/* grid spacing squared */
	double *u, *f, *r;	/* unknown, right-hand side, residual */
};

struct ocean {
	int threads;
	int nlevels;
	struct level lv[MAX_LEVELS];
	double *zeta[2];	/* vorticity, by step parity */
	double *forcing;
	double *sinx;		/* sin(pi j / m), j = 0..m, of the finest grid */
	double *jac;
	double *partial;	/* per-thread partial sums, 8 doubles apart */
	int cycles;		/* V-cycles of all solves (thread 0) */
	double manufactured_err;	/* max error of the first solve */
	pthread_barrier_t bar;
};

struct worker_arg {
	struct ocean *oc;
	int id;
};

static struct bench_knob knobs[] = {
	{ "compute_forcing", 2, 0 },
	{ "compute_jacobian", 1, 0 },
	{ NULL, 0, 0 },
};

#define K_FORCING (&knobs[0])
#define K_JACOBIAN (&knobs[1])

void compute_forcing(struct ocean *oc, int id, double t);
void compute_jacobian(struct ocean *oc, int id, const double *psi,
		      const double *z);
void update_vorticity(struct ocean *oc, int id, const double *z,
		      double *znew);
void smooth_red_black(struct ocean *oc, int id, int nt, int l, int sweeps);
double compute_residual(struct ocean *oc, int id, int nt, int l);
void restrict_residual(struct ocean *oc, int id, int nt, int l);
void solve_coarse(struct ocean *oc, int l);
void prolong_correct(struct ocean *oc, int id, int nt, int l);
int multigrid_solve(struct ocean *oc, int id);
void *ocean_worker(void *arg);

BENCH_HOT size_t at(int m, int i, int j)
{
	return (size_t)i * (size_t)(m + 1) + (size_t)j;
}

/*
 * Interior rows [*lo, *hi) of a grid with @m cells that member @id of a
 * team of @nt threads owns.  The team is every thread, or thread 0 alone
 * on the coarse levels.
 */
BENCH_HOT void rows(int id, int nt, int m, int *lo, int *hi)
{
	*lo = 1 + (int)((long)(m - 1) * id / nt);
	*hi = 1 + (int)((long)(m - 1) * (id + 1) / nt);
}

/* Wait for the team: a barrier for all threads, nothing for one. */
BENCH_HOT void sync_team(struct ocean *oc, int nt)
{
	if (nt > 1)
		pthread_barrier_wait(&oc->bar);
}

BENCH_HOT void barrier(struct ocean *oc)
{
	pthread_barrier_wait(&oc->bar);
}

/*
 * Sum the per-thread partial values after a barrier, in thread order so
 * every thread gets the same bits.  Call between two barriers.
 */
BENCH_HOT double sum_partials(const struct ocean *oc)
{
	double s = 0;
	int t;

	for (t = 0; t < oc->threads; t++)
		s += oc->partial[8 * t];
	return s;
}

/* F = wind-stress curl at time @t on this thread's rows.  All threads. */
BENCH_PROC void compute_forcing(struct ocean *oc, int id, double t)
{
	int m = oc->lv[0].m, lo, hi, i, j;
	double *f = oc->forcing;
	double amp = 40.0 * (1 + 0.5 * sin(30.0 * t));

	rows(id, oc->threads, m, &lo, &hi);
	for (i = lo; i < hi; i++) {
		double started;
		unsigned r, reps = bench_unit_begin(K_FORCING, (uint64_t)i,
						    &started);

		for (r = 0; r < reps; r++) {
			double y = (double)i / m, sy, s2y;

			BENCH_OPAQUE(y);
			sy = amp * sin(M_PI * y);
			s2y = 0.2 * sin(2 * M_PI * y);
			for (j = 1; j < m; j++) {
				double x = (double)j / m;

				f[at(m, i, j)] = sy * (oc->sinx[j] + s2y *
					cos(3 * M_PI * x + 7 * t));
			}
			BENCH_CLOBBER();
		}
		bench_unit_end(K_FORCING, started);
	}
}

/* jac = J(psi, zeta) with central differences.  All threads. */
BENCH_PROC void compute_jacobian(struct ocean *oc, int id, const double *psi,
				 const double *z)
{
	int m = oc->lv[0].m, lo, hi, i, j;
	double inv4h2 = 0.25 * m * m;

	rows(id, oc->threads, m, &lo, &hi);
	for (i = lo; i < hi; i++) {
		double started;
		unsigned r, reps = bench_unit_begin(K_JACOBIAN, (uint64_t)i,
						    &started);

		for (r = 0; r < reps; r++) {
			const double *p = psi;

			BENCH_OPAQUE(p);
			for (j = 1; j < m; j++) {
				double px = p[at(m, i, j + 1)] -
					    p[at(m, i, j - 1)];
				double py = p[at(m, i + 1, j)] -
					    p[at(m, i - 1, j)];
				double zx = z[at(m, i, j + 1)] -
					    z[at(m, i, j - 1)];
				double zy = z[at(m, i + 1, j)] -
					    z[at(m, i - 1, j)];

				oc->jac[at(m, i, j)] = (px * zy - py * zx) *
						       inv4h2;
			}
			BENCH_CLOBBER();
		}
		bench_unit_end(K_JACOBIAN, started);
	}
}

/* znew = z + dt (F - J - r z + nu lap z) on this thread's rows. */
BENCH_PROC void update_vorticity(struct ocean *oc, int id, const double *z,
				 double *znew)
{
	const double dt = 2e-5, drag = 0.5, nu = 1e-3;
	int m = oc->lv[0].m, lo, hi, i, j;
	double inv_h2 = (double)m * m;

	rows(id, oc->threads, m, &lo, &hi);
	for (i = lo; i < hi; i++)
		for (j = 1; j < m; j++) {
			size_t c = at(m, i, j);
			double lap = (z[c - 1] + z[c + 1] + z[c - m - 1] +
				      z[c + m + 1] - 4 * z[c]) * inv_h2;

			znew[c] = z[c] + dt * (oc->forcing[c] - oc->jac[c] -
					       drag * z[c] + nu * lap);
		}
}

/* @sweeps red-black Gauss-Seidel sweeps on level @l.  The team. */
BENCH_PROC void smooth_red_black(struct ocean *oc, int id, int nt, int l,
				 int sweeps)
{
	struct level *v = &oc->lv[l];
	int m = v->m, lo, hi, i, j, s, color;

	rows(id, nt, m, &lo, &hi);
	for (s = 0; s < sweeps; s++) {
		for (color = 0; color < 2; color++) {
			for (i = lo; i < hi; i++) {
				for (j = 1 + ((i + 1 + color) & 1); j < m;
				     j += 2) {
					size_t c = at(m, i, j);

					v->u[c] = 0.25 * (v->u[c - 1] +
							  v->u[c + 1] +
							  v->u[c - m - 1] +
							  v->u[c + m + 1] +
							  v->h2 * v->f[c]);
				}
			}
			sync_team(oc, nt);
		}
	}
}

/*
 * r = f - A u on level @l; this thread's share of |r|^2 goes to its
 * partial sum.  Returns |r| after the closing barrier.  The team.
 */
BENCH_PROC double compute_residual(struct ocean *oc, int id, int nt, int l)
{
	struct level *v = &oc->lv[l];
	int m = v->m, lo, hi, i, j;
	double inv_h2 = 1.0 / v->h2, sum = 0, norm;

	rows(id, nt, m, &lo, &hi);
	for (i = lo; i < hi; i++)
		for (j = 1; j < m; j++) {
			size_t c = at(m, i, j);
			double res = v->f[c] - (4 * v->u[c] - v->u[c - 1] -
						v->u[c + 1] - v->u[c - m - 1] -
						v->u[c + m + 1]) * inv_h2;

			v->r[c] = res;
			sum += res * res;
		}
	if (nt == 1)
		return sqrt(sum / ((double)(m - 1) * (m - 1)));
	oc->partial[8 * id] = sum;
	barrier(oc);
	norm = sqrt(sum_partials(oc) / ((double)(m - 1) * (m - 1)));
	return norm;
}

/* Full weighting of level @l's residual into level l+1's rhs; u = 0. */
BENCH_PROC void restrict_residual(struct ocean *oc, int id, int nt, int l)
{
	struct level *fine = &oc->lv[l], *co = &oc->lv[l + 1];
	int mf = fine->m, mc = co->m, lo, hi, i, j;

	rows(id, nt, mc, &lo, &hi);
	if (id == 0)
		lo = 0;
	if (id == nt - 1)
		hi = mc + 1;
	for (i = lo; i < hi; i++)
		for (j = 0; j <= mc; j++) {
			size_t c = at(mf, 2 * i, 2 * j);
			const double *r = fine->r;

			co->u[at(mc, i, j)] = 0;
			if (i == 0 || j == 0 || i == mc || j == mc) {
				co->f[at(mc, i, j)] = 0;
				continue;
			}
			co->f[at(mc, i, j)] =
				(4 * r[c] +
				 2 * (r[c - 1] + r[c + 1] + r[c - mf - 1] +
				      r[c + mf + 1]) +
				 r[c - mf - 2] + r[c - mf] + r[c + mf] +
				 r[c + mf + 2]) / 16.0;
		}
}

/* Gauss-Seidel to convergence on the coarsest level. */
static void relax_coarsest(struct ocean *oc, int l)
{
	struct level *v = &oc->lv[l];
	int m = v->m, i, j, s;

	for (s = 0; s < 100; s++)
		for (i = 1; i < m; i++)
			for (j = 1; j < m; j++) {
				size_t c = at(m, i, j);

				v->u[c] = 0.25 * (v->u[c - 1] + v->u[c + 1] +
						  v->u[c - m - 1] +
						  v->u[c + m + 1] +
						  v->h2 * v->f[c]);
			}
}

/* u(l) += bilinear interpolation of u(l+1).  The team. */
BENCH_PROC void prolong_correct(struct ocean *oc, int id, int nt, int l)
{
	struct level *fine = &oc->lv[l], *co = &oc->lv[l + 1];
	int mf = fine->m, mc = co->m, lo, hi, i, j;

	rows(id, nt, mf, &lo, &hi);
	for (i = lo; i < hi; i++) {
		int ic = i / 2;

		for (j = 1; j < mf; j++) {
			int jc = j / 2;
			const double *uc = co->u;
			double e;

			if (i % 2 == 0 && j % 2 == 0)
				e = uc[at(mc, ic, jc)];
			else if (i % 2 == 0)
				e = 0.5 * (uc[at(mc, ic, jc)] +
					   uc[at(mc, ic, jc + 1)]);
			else if (j % 2 == 0)
				e = 0.5 * (uc[at(mc, ic, jc)] +
					   uc[at(mc, ic + 1, jc)]);
			else
				e = 0.25 * (uc[at(mc, ic, jc)] +
					    uc[at(mc, ic, jc + 1)] +
					    uc[at(mc, ic + 1, jc)] +
					    uc[at(mc, ic + 1, jc + 1)]);
			fine->u[at(mf, i, j)] += e;
		}
	}
}

/* One V(2,2) cycle from level @l down, run by a team of @nt threads. */
static void vcycle(struct ocean *oc, int id, int nt, int l)
{
	if (l == oc->nlevels - 1) {
		relax_coarsest(oc, l);
		return;
	}
	smooth_red_black(oc, id, nt, l, 2);
	compute_residual(oc, id, nt, l);
	restrict_residual(oc, id, nt, l);
	sync_team(oc, nt);
	if (nt > 1 && oc->lv[l + 1].m <= COARSE_M) {
		if (id == 0)
			solve_coarse(oc, l + 1);
		barrier(oc);
	} else {
		vcycle(oc, id, nt, l + 1);
	}
	prolong_correct(oc, id, nt, l);
	sync_team(oc, nt);
	smooth_red_black(oc, id, nt, l, 2);
}

/*
 * The coarse levels, from @l (at most COARSE_M cells per side) down: too
 * little work per barrier to share, so thread 0 runs the rest of the
 * V-cycle alone while the others wait.  Thread 0.
 */
BENCH_PROC void solve_coarse(struct ocean *oc, int l)
{
	vcycle(oc, 0, 1, l);
}

/*
 * Solve A u = f on the finest level from the current u, by V-cycles until
 * the residual is below TOL relative to |f| (all threads see the same
 * norms, so all leave together).  Returns the cycles used.  All threads.
 */
BENCH_PROC int multigrid_solve(struct ocean *oc, int id)
{
	struct level *v = &oc->lv[0];
	int m = v->m, lo, hi, i, j, cycles;
	double fsum = 0, fnorm;

	rows(id, oc->threads, m, &lo, &hi);
	for (i = lo; i < hi; i++)
		for (j = 1; j < m; j++)
			fsum += v->f[at(m, i, j)] * v->f[at(m, i, j)];
	oc->partial[8 * id] = fsum;
	barrier(oc);
	fnorm = sqrt(sum_partials(oc) / ((double)(m - 1) * (m - 1)));
	barrier(oc);
	for (cycles = 0; cycles < MAX_CYCLES; cycles++) {
		double rn = compute_residual(oc, id, oc->threads, 0);

		barrier(oc);
		if (rn <= TOL * fnorm)
			break;
		vcycle(oc, id, oc->threads, 0);
	}
	return cycles;
}

/* Max |u - sin(pi x) sin(2 pi y)| relative to the solution's peak. */
static double manufactured_error(const struct ocean *oc)
{
	const struct level *v = &oc->lv[0];
	int m = v->m, i, j;
	double err = 0;

	for (i = 0; i <= m; i++)
		for (j = 0; j <= m; j++) {
			double exact = sin(M_PI * j / m) *
				       sin(2 * M_PI * i / m);

			err = fmax(err, fabs(v->u[at(m, i, j)] - exact));
		}
	return err;
}

/* The time-stepping loop of one thread.  Thread entry point. */
BENCH_PROC void *ocean_worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct ocean *oc = wa->oc;
	struct level *v = &oc->lv[0];
	int id = wa->id, m = v->m, lo, hi, i, j, step, cyc;

	/* manufactured problem: -lap u = 5 pi^2 sin(pi x) sin(2 pi y) */
	rows(id, oc->threads, m, &lo, &hi);
	for (i = lo; i < hi; i++)
		for (j = 1; j < m; j++)
			v->f[at(m, i, j)] = 5 * M_PI * M_PI *
					    sin(M_PI * j / m) *
					    sin(2 * M_PI * i / m);
	barrier(oc);
	cyc = multigrid_solve(oc, id);
	if (id == 0) {
		oc->cycles += cyc;
		oc->manufactured_err = manufactured_error(oc);
		memset(v->u, 0, sizeof(double) * (size_t)(m + 1) * (m + 1));
	}
	barrier(oc);

	for (step = 0; step < STEPS; step++) {
		const double *z = oc->zeta[step % 2];
		double *znew = oc->zeta[(step + 1) % 2];

		compute_forcing(oc, id, step * 1e-3);
		compute_jacobian(oc, id, v->u, z);
		barrier(oc);
		update_vorticity(oc, id, z, znew);
		/* lap psi = zeta: -lap psi = -zeta, warm start from psi */
		for (i = lo; i < hi; i++)
			for (j = 1; j < m; j++)
				v->f[at(m, i, j)] = -znew[at(m, i, j)];
		barrier(oc);
		cyc = multigrid_solve(oc, id);
		if (id == 0)
			oc->cycles += cyc;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .threads = 2, .size = 1024 };
	struct ocean oc;
	struct worker_arg *args;
	pthread_t *tids;
	double t0 = bench_now(), res, fnorm = 0, zmax = 0, sum = 0, tol;
	int n = 8, l, i, m;
	size_t pts;

	bench_init(argc, argv, &o, knobs, "cells per side, a power of two "
		   "(1024)");
	while (n < o.size && n < (1 << 14))
		n *= 2;
	memset(&oc, 0, sizeof(oc));
	oc.threads = o.threads;
	for (m = n; m >= 4 && oc.nlevels < MAX_LEVELS; m /= 2) {
		struct level *v = &oc.lv[oc.nlevels++];

		pts = (size_t)(m + 1) * (m + 1);
		v->m = m;
		v->h2 = 1.0 / ((double)m * m);
		v->u = bench_alloc(sizeof(double) * pts);
		v->f = bench_alloc(sizeof(double) * pts);
		v->r = bench_alloc(sizeof(double) * pts);
	}
	pts = (size_t)(n + 1) * (n + 1);
	oc.zeta[0] = bench_alloc(sizeof(double) * pts);
	oc.zeta[1] = bench_alloc(sizeof(double) * pts);
	oc.forcing = bench_alloc(sizeof(double) * pts);
	oc.sinx = bench_alloc(sizeof(double) * ((size_t)n + 1));
	for (i = 0; i <= n; i++)
		oc.sinx[i] = sin(M_PI * i / n);
	oc.jac = bench_alloc(sizeof(double) * pts);
	oc.partial = bench_alloc(sizeof(double) * 8 * (size_t)o.threads);
	bench_check_rc(pthread_barrier_init(&oc.bar, NULL,
					    (unsigned)o.threads), "barrier");
	tids = bench_alloc(sizeof(*tids) * (size_t)o.threads);
	args = bench_alloc(sizeof(*args) * (size_t)o.threads);
	for (i = 0; i < o.threads; i++) {
		args[i].oc = &oc;
		args[i].id = i;
		bench_check_rc(pthread_create(&tids[i], NULL, ocean_worker,
					      &args[i]), "pthread_create");
	}
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_join(tids[i], NULL), "pthread_join");
	bench_phase("solve");

	/* the solver on the manufactured problem: discretization error */
	tol = 5.0 / ((double)n * n) + 1e-6;
	if (!(oc.manufactured_err < tol))
		bench_fail("manufactured solution off by %.3g (limit %.3g)",
			   oc.manufactured_err, tol);
	/* the last solve, checked from scratch: |f - A u| <= 2 TOL |f| */
	m = n;
	res = 0;
	for (i = 1; i < m; i++) {
		int j;

		for (j = 1; j < m; j++) {
			struct level *v = &oc.lv[0];
			size_t c = at(m, i, j);
			double r = v->f[c] - (4 * v->u[c] - v->u[c - 1] -
					      v->u[c + 1] - v->u[c - m - 1] -
					      v->u[c + m + 1]) * m * m;

			res += r * r;
			fnorm += v->f[c] * v->f[c];
			zmax = fmax(zmax, fabs(oc.zeta[STEPS % 2][c]));
			sum += v->u[c];
		}
	}
	res = sqrt(res / fnorm);
	if (!(res <= 2 * TOL) || !(fnorm > 0))
		bench_fail("final residual %.3g (limit %.3g), |f|^2 %.3g",
			   res, 2 * TOL, fnorm);
	if (!(zmax < 1e3))
		bench_fail("vorticity blew up: max |zeta| = %.3g", zmax);
	if (!o.quiet)
		printf("ocean: %dx%d grid, %d levels, %d steps, %d V-cycles, "
		       "%d threads, residual %.2e, psi sum %.9e, %.3f s\n",
		       n, n, oc.nlevels, STEPS, oc.cycles, o.threads, res,
		       sum, bench_now() - t0);
	for (l = 0; l < oc.nlevels; l++) {
		free(oc.lv[l].u);
		free(oc.lv[l].f);
		free(oc.lv[l].r);
	}
	free(oc.zeta[0]);
	free(oc.zeta[1]);
	free(oc.forcing);
	free(oc.sinx);
	free(oc.jac);
	free(oc.partial);
	free(tids);
	free(args);
	pthread_barrier_destroy(&oc.bar);
	return 0;
}
