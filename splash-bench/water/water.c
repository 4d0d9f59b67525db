/*
 * water - molecular dynamics of a Lennard-Jones fluid in a periodic box,
 * with cell lists, per-cell locks and barriers (the structure of SPLASH-2
 * Water-Spatial; the molecules here are single Lennard-Jones sites).
 *
 * Phases:
 *   init_lattice        particles on an FCC lattice, random velocities with
 *                       zero total momentum;                  sequential
 *   per time step (velocity Verlet, reduced units), all threads:
 *     advance_positions   half kick, drift, wrap into the box (own slice)
 *     build_cells         bin own particles privately, then append each
 *                         batch to the shared cell under the cell's lock
 *     compute_forces      own cells against themselves and 13 neighbour
 *                         cells (half shell, Newton's third law) into a
 *                         private force array, then merge_forces adds it
 *                         to the shared array cell by cell under the locks
 *     finish_step         second half kick; energies are summed into the
 *                         shared totals under a mutex
 *   barriers separate the phases.
 *
 * Checks: total energy drift below 1e-3 relative over the run; for at most
 * 2048 particles, the final positions against a sequential all-pairs
 * recomputation of the same trajectory.
 *
 * -n SIZE is the approximate particle count (default 23328 = 4 x 18^3).
 * Scalable procedure: compute_forces (base 1: the pair loop runs FACTOR
 * times into the private array).
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 100
#define DT 0.002
#define RCUT 2.5
#define DENSITY 0.8
#define CELL_CAP 96		/* particles a cell can hold */

struct cell {
	pthread_mutex_t lock;
	int count;
	int idx[CELL_CAP];
};

struct md {
	int threads;
	int n;			/* particles */
	double box;		/* side of the periodic box */
	int nc;			/* cells per side */
	double *pos, *vel, *force;	/* 3 n doubles each */
	struct cell *cells;	/* nc^3 */
	pthread_mutex_t energy_lock;
	double epot, ekin;	/* totals of the current step */
	double e_first, e_last;	/* total energy after steps 0 and STEPS-1 */
	int overflow;		/* a cell exceeded CELL_CAP */
	pthread_barrier_t bar;
};

struct worker_arg {
	struct md *md;
	int id;
	double *priv;		/* private force array, 3 n doubles */
	int *bins;		/* private binning: cell of each own particle */
	int *order;		/* own particles sorted by cell */
	int *start;		/* ncell + 1 batch offsets into order */
	int step;		/* the current time step */
};

static struct bench_knob knobs[] = {
	{ "compute_forces", 1, 0 },
	{ NULL, 0, 0 },
};

#define K_FORCES (&knobs[0])

void init_lattice(struct md *md, int k);
void advance_positions(struct md *md, int id);
void build_cells(struct md *md, struct worker_arg *wa);
double compute_forces(struct md *md, struct worker_arg *wa);
void merge_forces(struct md *md, struct worker_arg *wa);
void finish_step(struct md *md, int id, double epot, int kick);
void *md_worker(void *arg);
void reference_md(const struct md *md, double *pos, double *vel);

BENCH_HOT void range(int n, int id, int nt, int *lo, int *hi)
{
	*lo = (int)((long)n * id / nt);
	*hi = (int)((long)n * (id + 1) / nt);
}

/* The coordinates [*lo, *hi) of this thread's particles in a 3 n array. */
BENCH_HOT void own_coords(const struct md *md, int id, int *lo, int *hi)
{
	range(md->n, id, md->threads, lo, hi);
	*lo *= 3;
	*hi *= 3;
}

/* Minimum-image displacement along one axis. */
BENCH_HOT double wrap_delta(double d, double box)
{
	if (d > 0.5 * box)
		d -= box;
	else if (d < -0.5 * box)
		d += box;
	return d;
}

/* Shifted LJ: adds the force on a from b to fa (and -f to fb), returns V. */
BENCH_HOT double pair(const double *pa, const double *pb, double box,
		      double *fa, double *fb)
{
	static const double rc2 = RCUT * RCUT;
	double dx = wrap_delta(pa[0] - pb[0], box);
	double dy = wrap_delta(pa[1] - pb[1], box);
	double dz = wrap_delta(pa[2] - pb[2], box);
	double r2 = dx * dx + dy * dy + dz * dz, ir2, ir6, f, vc;

	if (r2 >= rc2)
		return 0;
	ir2 = 1.0 / r2;
	ir6 = ir2 * ir2 * ir2;
	f = 24.0 * ir6 * (2.0 * ir6 - 1.0) * ir2;
	fa[0] += f * dx;
	fa[1] += f * dy;
	fa[2] += f * dz;
	fb[0] -= f * dx;
	fb[1] -= f * dy;
	fb[2] -= f * dz;
	vc = 4.0 * (pow(RCUT, -12) - pow(RCUT, -6));
	return 4.0 * ir6 * (ir6 - 1.0) - vc;
}

BENCH_HOT int cell_coord(double x, double box, int nc)
{
	int c = (int)(x / box * nc);

	return c < 0 ? 0 : c >= nc ? nc - 1 : c;
}

/*
 * Place 4 k^3 particles on an FCC lattice filling the box, with random
 * velocities scaled to temperature 1 and zero total momentum.  Main
 * thread.
 */
BENCH_PROC void init_lattice(struct md *md, int k)
{
	static const double basis[4][3] = {
		{ 0.25, 0.25, 0.25 }, { 0.75, 0.75, 0.25 },
		{ 0.75, 0.25, 0.75 }, { 0.25, 0.75, 0.75 },
	};
	double a = md->box / k, mom[3] = { 0, 0, 0 }, ek = 0, s;
	uint64_t rng = 42;
	int i = 0, x, y, z, b, d;

	for (x = 0; x < k; x++)
		for (y = 0; y < k; y++)
			for (z = 0; z < k; z++)
				for (b = 0; b < 4; b++, i++) {
					md->pos[3 * i] = (x + basis[b][0]) * a;
					md->pos[3 * i + 1] =
						(y + basis[b][1]) * a;
					md->pos[3 * i + 2] =
						(z + basis[b][2]) * a;
					for (d = 0; d < 3; d++) {
						double v = bench_uniform(&rng) -
							   0.5;

						md->vel[3 * i + d] = v;
						mom[d] += v;
					}
				}
	for (i = 0; i < md->n; i++)
		for (d = 0; d < 3; d++) {
			md->vel[3 * i + d] -= mom[d] / md->n;
			ek += md->vel[3 * i + d] * md->vel[3 * i + d];
		}
	s = sqrt(3.0 * md->n / ek);
	for (i = 0; i < 3 * md->n; i++)
		md->vel[i] *= s;
}

/* v += f dt / 2; x += v dt, wrapped; on this thread's particles. */
BENCH_PROC void advance_positions(struct md *md, int id)
{
	int lo, hi, i;

	own_coords(md, id, &lo, &hi);
	for (i = lo; i < hi; i++) {
		double x;

		md->vel[i] += 0.5 * DT * md->force[i];
		x = md->pos[i] + DT * md->vel[i];
		if (x >= md->box)
			x -= md->box;
		else if (x < 0)
			x += md->box;
		md->pos[i] = x;
	}
}

/*
 * Put this thread's particles into the cells: a private counting sort by
 * cell, then each non-empty batch is appended to its cell under the
 * cell's lock.  The cells were emptied before the preceding barrier.  All
 * threads.
 */
BENCH_PROC void build_cells(struct md *md, struct worker_arg *wa)
{
	int nc = md->nc, ncell = nc * nc * nc, lo, hi, i, c;

	range(md->n, wa->id, md->threads, &lo, &hi);
	memset(wa->start, 0, sizeof(int) * ((size_t)ncell + 1));
	for (i = lo; i < hi; i++) {
		const double *p = md->pos + 3 * i;

		wa->bins[i] = (cell_coord(p[0], md->box, nc) * nc +
			       cell_coord(p[1], md->box, nc)) * nc +
			      cell_coord(p[2], md->box, nc);
		wa->start[wa->bins[i] + 1]++;
	}
	for (c = 0; c < ncell; c++)
		wa->start[c + 1] += wa->start[c];
	for (i = lo; i < hi; i++)
		wa->order[wa->start[wa->bins[i]]++] = i;
	/* start[c] now ends batch c; batch c begins where c - 1 ended */
	for (c = 0; c < ncell; c++) {
		struct cell *cl = &md->cells[c];
		int b = c ? wa->start[c - 1] : 0, e = wa->start[c];

		if (b == e)
			continue;
		pthread_mutex_lock(&cl->lock);
		for (i = b; i < e; i++) {
			if (cl->count < CELL_CAP)
				cl->idx[cl->count++] = wa->order[i];
			else
				md->overflow = 1;
		}
		pthread_mutex_unlock(&cl->lock);
	}
}

/*
 * Forces of this thread's cells (c = id, id + T, ...) against themselves
 * and their 13 forward neighbours, into the private array; returns this
 * thread's potential energy.  The pair loop runs base x FACTOR times.
 * All threads.
 */
BENCH_PROC double compute_forces(struct md *md, struct worker_arg *wa)
{
	static const int half[13][3] = {
		{ 1, 0, 0 }, { -1, 1, 0 }, { 0, 1, 0 }, { 1, 1, 0 },
		{ -1, -1, 1 }, { 0, -1, 1 }, { 1, -1, 1 }, { -1, 0, 1 },
		{ 0, 0, 1 }, { 1, 0, 1 }, { -1, 1, 1 }, { 0, 1, 1 },
		{ 1, 1, 1 },
	};
	int nc = md->nc, ncell = nc * nc * nc, c;
	/* by step, so that every thread repeats as often in a step */
	double started;
	unsigned r, reps = bench_unit_begin(K_FORCES, (uint64_t)wa->step,
					    &started);
	double epot = 0;

	for (r = 0; r < reps; r++) {
		const double *pos = md->pos;

		BENCH_OPAQUE(pos);
		memset(wa->priv, 0, sizeof(double) * 3 * (size_t)md->n);
		epot = 0;
		for (c = wa->id; c < ncell; c += md->threads) {
			const struct cell *a = &md->cells[c];
			int cx = c / (nc * nc), cy = c / nc % nc, cz = c % nc;
			int h, i, j;

			for (i = 0; i < a->count; i++)
				for (j = i + 1; j < a->count; j++)
					epot += pair(pos + 3 * a->idx[i],
						     pos + 3 * a->idx[j],
						     md->box,
						     wa->priv + 3 * a->idx[i],
						     wa->priv + 3 * a->idx[j]);
			for (h = 0; h < 13; h++) {
				int nx = (cx + half[h][0] + nc) % nc;
				int ny = (cy + half[h][1] + nc) % nc;
				int nz = (cz + half[h][2] + nc) % nc;
				const struct cell *b =
					&md->cells[(nx * nc + ny) * nc + nz];

				for (i = 0; i < a->count; i++) {
					int pa = a->idx[i];

					for (j = 0; j < b->count; j++) {
						int pb = b->idx[j];

						epot += pair(pos + 3 * pa,
							     pos + 3 * pb,
							     md->box,
							     wa->priv + 3 * pa,
							     wa->priv + 3 * pb);
					}
				}
			}
		}
		BENCH_CLOBBER();
	}
	bench_unit_end(K_FORCES, started);
	return epot;
}

/*
 * Add the private forces into the shared array, one cell at a time under
 * the cell's lock (the particles of a cell are contiguous in no array, so
 * the cell's index list says which to add).  All threads.
 */
BENCH_PROC void merge_forces(struct md *md, struct worker_arg *wa)
{
	int nc = md->nc, ncell = nc * nc * nc, k, c;

	for (k = 0; k < ncell; k++) {
		/* start at a different cell in each thread */
		struct cell *cl;
		int i;

		c = (k + wa->id * ncell / md->threads) % ncell;
		cl = &md->cells[c];
		pthread_mutex_lock(&cl->lock);
		for (i = 0; i < cl->count; i++) {
			int p = cl->idx[i];

			md->force[3 * p] += wa->priv[3 * p];
			md->force[3 * p + 1] += wa->priv[3 * p + 1];
			md->force[3 * p + 2] += wa->priv[3 * p + 2];
		}
		pthread_mutex_unlock(&cl->lock);
	}
}

/*
 * v += f dt / 2 on this thread's particles (unless @kick is 0: the
 * initial step); add this thread's energies to the totals.
 */
BENCH_PROC void finish_step(struct md *md, int id, double epot, int kick)
{
	int lo, hi, i;
	double ek = 0;

	own_coords(md, id, &lo, &hi);
	for (i = lo; i < hi; i++) {
		if (kick)
			md->vel[i] += 0.5 * DT * md->force[i];
		ek += 0.5 * md->vel[i] * md->vel[i];
	}
	pthread_mutex_lock(&md->energy_lock);
	md->epot += epot;
	md->ekin += ek;
	pthread_mutex_unlock(&md->energy_lock);
}

/* The time steps of one thread.  Thread entry point. */
BENCH_PROC void *md_worker(void *arg)
{
	struct worker_arg *wa = arg;
	struct md *md = wa->md;
	int nc = md->nc, ncell = nc * nc * nc, lo, hi, step, c;
	int flo, fhi;

	range(ncell, wa->id, md->threads, &lo, &hi);
	own_coords(md, wa->id, &flo, &fhi);
	for (step = 0; step <= STEPS; step++) {
		double epot;

		wa->step = step;
		/* step 0 only computes the initial forces */
		if (step > 0)
			advance_positions(md, wa->id);
		for (c = lo; c < hi; c++)
			md->cells[c].count = 0;
		memset(md->force + flo, 0, sizeof(double) *
		       (size_t)(fhi - flo));
		if (wa->id == 0)
			md->epot = md->ekin = 0;
		pthread_barrier_wait(&md->bar);
		build_cells(md, wa);
		pthread_barrier_wait(&md->bar);
		epot = compute_forces(md, wa);
		merge_forces(md, wa);
		pthread_barrier_wait(&md->bar);
		finish_step(md, wa->id, epot, step > 0);
		pthread_barrier_wait(&md->bar);
		if (wa->id == 0 && step == 0)
			md->e_first = md->epot + md->ekin;
		if (wa->id == 0 && step == STEPS)
			md->e_last = md->epot + md->ekin;
	}
	return NULL;
}

/*
 * The same trajectory computed sequentially with all pairs (no cells):
 * fills @pos and @vel (3 n doubles each).  Main thread; small n only.
 */
BENCH_PROC void reference_md(const struct md *md, double *pos, double *vel)
{
	double *f = bench_alloc(sizeof(double) * 3 * (size_t)md->n);
	int n = md->n, step, i, j;

	for (step = 0; step <= STEPS; step++) {
		if (step > 0)
			for (i = 0; i < 3 * n; i++) {
				double x;

				vel[i] += 0.5 * DT * f[i];
				x = pos[i] + DT * vel[i];
				if (x >= md->box)
					x -= md->box;
				else if (x < 0)
					x += md->box;
				pos[i] = x;
			}
		memset(f, 0, sizeof(double) * 3 * (size_t)n);
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				pair(pos + 3 * i, pos + 3 * j, md->box,
				     f + 3 * i, f + 3 * j);
		if (step > 0)
			for (i = 0; i < 3 * n; i++)
				vel[i] += 0.5 * DT * f[i];
	}
	free(f);
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .threads = 2, .size = 23328 };
	struct md md;
	struct worker_arg *args;
	pthread_t *tids;
	double *ref_pos = NULL, *ref_vel = NULL, drift, t0 = bench_now();
	int k, i, ncell;

	bench_init(argc, argv, &o, knobs, "particles, rounded to 4 k^3 "
		   "(23328)");
	k = (int)lround(cbrt(o.size / 4.0));
	if (k < 5)
		k = 5;
	memset(&md, 0, sizeof(md));
	md.threads = o.threads;
	md.n = 4 * k * k * k;
	md.box = cbrt(md.n / DENSITY);
	md.nc = (int)(md.box / RCUT);
	ncell = md.nc * md.nc * md.nc;
	md.pos = bench_alloc(sizeof(double) * 3 * (size_t)md.n);
	md.vel = bench_alloc(sizeof(double) * 3 * (size_t)md.n);
	md.force = bench_alloc(sizeof(double) * 3 * (size_t)md.n);
	md.cells = bench_alloc(sizeof(struct cell) * (size_t)ncell);
	for (i = 0; i < ncell; i++)
		bench_check_rc(pthread_mutex_init(&md.cells[i].lock, NULL),
			       "mutex");
	bench_check_rc(pthread_mutex_init(&md.energy_lock, NULL), "mutex");
	bench_check_rc(pthread_barrier_init(&md.bar, NULL,
					    (unsigned)o.threads), "barrier");
	init_lattice(&md, k);
	if (md.n <= 2048) {
		ref_pos = bench_alloc(sizeof(double) * 3 * (size_t)md.n);
		ref_vel = bench_alloc(sizeof(double) * 3 * (size_t)md.n);
		memcpy(ref_pos, md.pos, sizeof(double) * 3 * (size_t)md.n);
		memcpy(ref_vel, md.vel, sizeof(double) * 3 * (size_t)md.n);
	}
	bench_phase("init_lattice");
	tids = bench_alloc(sizeof(*tids) * (size_t)o.threads);
	args = bench_alloc(sizeof(*args) * (size_t)o.threads);
	for (i = 0; i < o.threads; i++) {
		args[i].md = &md;
		args[i].id = i;
		args[i].priv = bench_alloc(sizeof(double) * 3 * (size_t)md.n);
		args[i].bins = bench_alloc(sizeof(int) * (size_t)md.n);
		args[i].order = bench_alloc(sizeof(int) * (size_t)md.n);
		args[i].start = bench_alloc(sizeof(int) * ((size_t)ncell + 1));
		bench_check_rc(pthread_create(&tids[i], NULL, md_worker,
					      &args[i]), "pthread_create");
	}
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_join(tids[i], NULL), "pthread_join");
	bench_phase("simulate");
	if (md.overflow)
		bench_fail("a cell held more than %d particles", CELL_CAP);
	drift = fabs(md.e_last - md.e_first) / fabs(md.e_first);
	if (!(drift < 1e-3))
		bench_fail("energy drift %.3g: %.9g -> %.9g", drift,
			   md.e_first, md.e_last);
	if (ref_pos) {
		double worst = 0;

		reference_md(&md, ref_pos, ref_vel);
		for (i = 0; i < 3 * md.n; i++)
			worst = fmax(worst,
				     fabs(wrap_delta(ref_pos[i] - md.pos[i],
						     md.box)));
		if (!(worst < 1e-6))
			bench_fail("positions differ from the sequential "
				   "recomputation by up to %.3g", worst);
		bench_phase("reference_md");
	}
	if (!o.quiet)
		printf("water: %d particles, %d cells, %d steps, %d threads, "
		       "energy %.9g -> %.9g (drift %.1e), %.3f s\n", md.n,
		       ncell, STEPS, o.threads, md.e_first, md.e_last, drift,
		       bench_now() - t0);
	for (i = 0; i < o.threads; i++) {
		free(args[i].priv);
		free(args[i].bins);
		free(args[i].order);
		free(args[i].start);
	}
	for (i = 0; i < ncell; i++)
		pthread_mutex_destroy(&md.cells[i].lock);
	pthread_mutex_destroy(&md.energy_lock);
	pthread_barrier_destroy(&md.bar);
	free(md.pos);
	free(md.vel);
	free(md.force);
	free(md.cells);
	free(ref_pos);
	free(ref_vel);
	free(tids);
	free(args);
	return 0;
}
