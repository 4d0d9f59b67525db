/*
 * raytrace - a ray tracer with a sequential scene-reading phase and a
 * work queue of image tiles.
 *
 * Phases, in the order they run:
 *   generate_scene  write a scene file (a height-field terrain as an indexed
 *                   triangle mesh, spheres, materials, lights) in a fresh
 *                   temporary directory;                       sequential
 *   read_scene      parse that file back into memory;          sequential
 *   build_grid      bin every primitive into a uniform grid;   sequential
 *   render_tile     worker threads take 16x16 tiles from a queue under a
 *                   mutex; per pixel trace_ray follows the camera ray and
 *                   one mirror bounce, intersect_scene walks the grid
 *                   (3D-DDA) for every ray and shadow ray, shade evaluates
 *                   a Phong model with a procedural (value-noise) texture;
 *   verify          re-render every 61st tile on the main thread and compare
 *                   it byte for byte with the parallel image.
 *
 * This is the shape of SPLASH-2 Raytrace that [Hollingsworth98] (Fig. 12)
 * profiles: a sequential reader that a CPU profile ranks low and the critical
 * path ranks high.  The queue's tiles are tracked with cpthread_enqueue /
 * cpthread_dequeue and the queue's lock is untracked, so a tile's dequeue
 * depends on its enqueue only ([Hollingsworth98, Fig. 11]).
 *
 * -n SIZE is the image side in pixels (default 600); the terrain has
 * (SIZE/2)^2 quads.  Scalable procedures: read_scene (each record is parsed
 * base x FACTOR times, base 2) and shade (base 2).
 */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TILE 16
#define MAX_LIGHTS 4
#define OCTAVES 16		/* value-noise octaves of the texture */
#define EPS 1e-7
#define PRIMS_PER_CELL 20.0	/* grid density: primitives per cell */

struct vec {
	double x, y, z;
};

struct material {
	struct vec color;	/* diffuse albedo */
	double kd, ks, shine;	/* Phong coefficients */
	double reflect;		/* mirror fraction */
	int textured;		/* modulate the albedo with value noise */
};

struct light {
	struct vec pos;
	struct vec color;
};

/* A primitive: a triangle (v0, e1, e2 precomputed) or a sphere. */
struct prim {
	int kind;		/* PRIM_TRI or PRIM_SPHERE */
	int mat;
	struct vec a;		/* triangle v0, or sphere centre */
	struct vec e1, e2;	/* triangle edges; e1.x = radius for spheres */
	struct vec n;		/* triangle unit normal */
};

enum { PRIM_TRI, PRIM_SPHERE };

struct scene {
	struct vec eye, look;
	double fov;
	int nlights;
	struct light lights[MAX_LIGHTS];
	int nmats;
	struct material *mats;
	int nverts;
	struct vec *verts;
	int nprims;
	struct prim *prims;
	/* the uniform grid built by build_grid() */
	struct vec lo, hi, cell;
	int res[3];
	int *cell_start;	/* res^3 + 1 offsets into cell_items */
	int *cell_items;
};

struct ray {
	struct vec o, d;
};

struct hit {
	double t;
	int prim;
	struct vec p, n;
};

/* The tile queue: an array of tiles handed out under a mutex. */
struct tile {
	int x0, y0;
	int hits;		/* pixels whose camera ray hit geometry */
};

struct queue {
	pthread_mutex_t lock;
	struct tile *tiles;
	int head, count;
};

struct render_job {
	const struct scene *sc;
	struct queue *q;
	unsigned char *image;
	int size;
};

static struct bench_knob knobs[] = {
	{ "read_scene", 2, 0 },
	{ "shade", 2, 0 },
	{ NULL, 0, 0 },
};

#define K_READ (&knobs[0])
#define K_SHADE (&knobs[1])

void generate_scene(const char *path, int size);
void read_scene(const char *path, struct scene *sc);
void build_grid(struct scene *sc);
int render_tile(const struct scene *sc, int x0, int y0, int size,
		unsigned char *image);
int trace_ray(const struct scene *sc, const struct ray *r, struct vec *rgb);
int intersect_scene(const struct scene *sc, const struct ray *r,
		    double tmax, struct hit *h);
void shade(const struct scene *sc, const struct hit *h, const struct ray *r,
	   const double *lit, struct vec *rgb);
void *render_worker(void *arg);

BENCH_HOT struct vec v3(double x, double y, double z)
{
	struct vec v = { x, y, z };

	return v;
}

BENCH_HOT struct vec vadd(struct vec a, struct vec b)
{
	return v3(a.x + b.x, a.y + b.y, a.z + b.z);
}

BENCH_HOT struct vec vsub(struct vec a, struct vec b)
{
	return v3(a.x - b.x, a.y - b.y, a.z - b.z);
}

BENCH_HOT struct vec vmul(struct vec a, double s)
{
	return v3(a.x * s, a.y * s, a.z * s);
}

BENCH_HOT double vdot(struct vec a, struct vec b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

BENCH_HOT struct vec vcross(struct vec a, struct vec b)
{
	return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
		  a.x * b.y - a.y * b.x);
}

BENCH_HOT struct vec vnorm(struct vec a)
{
	double l = sqrt(vdot(a, a));

	return l > 0 ? vmul(a, 1.0 / l) : a;
}

BENCH_HOT double vcomp(struct vec a, int axis)
{
	return axis == 0 ? a.x : axis == 1 ? a.y : a.z;
}

/* ---- scene file ------------------------------------------------------ */

/* The terrain height at (x, z): a few octaves of sines. */
BENCH_HELPER double terrain_height(double x, double z)
{
	return 0.9 * sin(0.31 * x) * cos(0.27 * z) +
	       0.35 * sin(0.9 * x + 1.3) * sin(0.8 * z + 0.4) +
	       0.12 * cos(2.3 * x - 0.7 * z);
}

/*
 * Write the scene for an image of @size pixels to @path: a terrain of
 * (size/2)^2 quads over [-12, 12]^2, 48 spheres above it, 6 materials and
 * two lights.  Exits on an I/O error.  Main thread.
 */
BENCH_PROC void generate_scene(const char *path, int size)
{
	uint64_t rng = 20240601;
	int g = size < 4 ? 4 : size;
	FILE *f = fopen(path, "w");
	int i, j;

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "# raytrace scene: %d x %d terrain quads\n", g, g);
	fprintf(f, "camera 0 7.5 -17 0 0 1.5 50\n");
	fprintf(f, "light -8 14 -9 0.9 0.85 0.8\n");
	fprintf(f, "light 10 9 -4 0.35 0.4 0.5\n");
	fprintf(f, "material 0 0.45 0.6 0.3 0.9 0.1 8 0 1\n");
	fprintf(f, "material 1 0.9 0.2 0.2 0.7 0.5 40 0.3 0\n");
	fprintf(f, "material 2 0.2 0.8 0.3 0.7 0.4 30 0.2 1\n");
	fprintf(f, "material 3 0.9 0.9 0.95 0.2 0.9 90 0.7 0\n");
	fprintf(f, "material 4 0.25 0.3 0.9 0.8 0.3 20 0.1 1\n");
	fprintf(f, "material 5 0.95 0.75 0.2 0.6 0.6 60 0.4 0\n");
	for (i = 0; i <= g; i++) {
		for (j = 0; j <= g; j++) {
			double x = -12.0 + 24.0 * j / g;
			double z = -12.0 + 24.0 * i / g;

			fprintf(f, "vertex %.9g %.9g %.9g\n", x,
				terrain_height(x, z), z);
		}
	}
	for (i = 0; i < g; i++) {
		for (j = 0; j < g; j++) {
			int a = i * (g + 1) + j;

			fprintf(f, "tri %d %d %d 0\n", a, a + g + 1, a + 1);
			fprintf(f, "tri %d %d %d 0\n", a + 1, a + g + 1,
				a + g + 2);
		}
	}
	for (i = 0; i < 48; i++) {
		double x = -10 + 20 * bench_uniform(&rng);
		double z = -8 + 18 * bench_uniform(&rng);
		double r = 0.35 + 0.8 * bench_uniform(&rng);

		fprintf(f, "sphere %.9g %.9g %.9g %.9g %d\n", x,
			terrain_height(x, z) + r * 1.2, z, r,
			1 + (int)(bench_rand(&rng) % 5));
	}
	if (fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* Parse @n numbers from *@s into @out; 0 on success. */
BENCH_HELPER int parse_numbers(char **s, double *out, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char *end;

		out[i] = strtod(*s, &end);
		if (end == *s)
			return -1;
		*s = end;
	}
	return 0;
}

/* Parse one record of the scene file into @sc (arrays already sized). */
BENCH_HELPER int parse_record(char *line, struct scene *sc, int *nv, int *np)
{
	double v[10];
	char *s = line;

	if (!strncmp(s, "vertex ", 7)) {
		s += 7;
		if (parse_numbers(&s, v, 3) || *nv >= sc->nverts)
			return -1;
		sc->verts[(*nv)++] = v3(v[0], v[1], v[2]);
	} else if (!strncmp(s, "tri ", 4)) {
		struct prim *p = &sc->prims[*np];
		struct vec a, b, c;
		int k;

		s += 4;
		if (parse_numbers(&s, v, 4) || *np >= sc->nprims)
			return -1;
		for (k = 0; k < 3; k++)
			if (v[k] < 0 || v[k] >= sc->nverts)
				return -1;
		a = sc->verts[(int)v[0]];
		b = sc->verts[(int)v[1]];
		c = sc->verts[(int)v[2]];
		p->kind = PRIM_TRI;
		p->mat = (int)v[3];
		p->a = a;
		p->e1 = vsub(b, a);
		p->e2 = vsub(c, a);
		p->n = vnorm(vcross(p->e1, p->e2));
		(*np)++;
	} else if (!strncmp(s, "sphere ", 7)) {
		struct prim *p = &sc->prims[*np];

		s += 7;
		if (parse_numbers(&s, v, 5) || *np >= sc->nprims)
			return -1;
		p->kind = PRIM_SPHERE;
		p->mat = (int)v[4];
		p->a = v3(v[0], v[1], v[2]);
		p->e1 = v3(v[3], 0, 0);
		(*np)++;
	} else if (!strncmp(s, "material ", 9)) {
		struct material *m;

		s += 9;
		if (parse_numbers(&s, v, 9) || v[0] < 0 || v[0] >= sc->nmats)
			return -1;
		m = &sc->mats[(int)v[0]];
		m->color = v3(v[1], v[2], v[3]);
		m->kd = v[4];
		m->ks = v[5];
		m->shine = v[6];
		m->reflect = v[7];
		m->textured = v[8] != 0;
	} else if (!strncmp(s, "light ", 6)) {
		s += 6;
		if (parse_numbers(&s, v, 6) || sc->nlights >= MAX_LIGHTS)
			return -1;
		sc->lights[sc->nlights].pos = v3(v[0], v[1], v[2]);
		sc->lights[sc->nlights].color = v3(v[3], v[4], v[5]);
		sc->nlights++;
	} else if (!strncmp(s, "camera ", 7)) {
		s += 7;
		if (parse_numbers(&s, v, 7))
			return -1;
		sc->eye = v3(v[0], v[1], v[2]);
		sc->look = v3(v[3], v[4], v[5]);
		sc->fov = v[6];
	} else if (*s != '#' && *s != '\0') {
		return -1;
	}
	return 0;
}

/*
 * One reading of the scene file at @path into @sc: a first pass counts
 * the records to size the arrays, a second parses them.  Exits with a
 * message naming the line on a malformed record.
 */
BENCH_HELPER void read_scene_once(const char *path, struct scene *sc)
{
	FILE *f = fopen(path, "r");
	char *text, *line, *next;
	long len;
	uint64_t lineno = 0;
	int nv = 0, np = 0;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(1);
	}
	text = bench_alloc((size_t)len + 1);
	if (fread(text, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	memset(sc, 0, sizeof(*sc));
	sc->nmats = 16;
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		if (!strncmp(line, "vertex ", 7))
			sc->nverts++;
		else if (!strncmp(line, "tri ", 4) ||
			 !strncmp(line, "sphere ", 7))
			sc->nprims++;
	}
	sc->verts = bench_alloc(sizeof(*sc->verts) * (size_t)sc->nverts);
	sc->prims = bench_alloc(sizeof(*sc->prims) * (size_t)sc->nprims);
	sc->mats = bench_alloc(sizeof(*sc->mats) * (size_t)sc->nmats);
	for (line = text; *line; line = next, lineno++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (parse_record(line, sc, &nv, &np)) {
			fprintf(stderr, "%s: %s:%llu: bad record\n",
				bench_prog, path,
				(unsigned long long)lineno + 1);
			exit(1);
		}
	}
	free(text);
	if (nv != sc->nverts || np != sc->nprims || sc->nlights < 1)
		bench_fail("scene %s: %d/%d vertices, %d/%d primitives, "
			   "%d lights", path, nv, sc->nverts, np, sc->nprims,
			   sc->nlights);
}

/*
 * Read the scene: the whole reading (file, counting pass, parsing) runs
 * base x FACTOR times (bench.h), every time from scratch, so that the
 * knob scales all of the procedure's work and -s read_scene=0.5 halves
 * it.  Main thread.
 */
BENCH_PROC void read_scene(const char *path, struct scene *sc)
{
	double started;
	unsigned r, reps = bench_unit_begin(K_READ, 0, &started);

	for (r = 0; r < reps; r++) {
		if (r) {
			free(sc->verts);
			free(sc->prims);
			free(sc->mats);
		}
		read_scene_once(path, sc);
		BENCH_CLOBBER();
	}
	bench_unit_end(K_READ, started);
}

/* ---- uniform grid ---------------------------------------------------- */

BENCH_HELPER void prim_bounds(const struct prim *p, struct vec *lo,
			      struct vec *hi)
{
	if (p->kind == PRIM_SPHERE) {
		double r = p->e1.x;

		*lo = vsub(p->a, v3(r, r, r));
		*hi = vadd(p->a, v3(r, r, r));
	} else {
		struct vec b = vadd(p->a, p->e1), c = vadd(p->a, p->e2);

		*lo = v3(fmin(p->a.x, fmin(b.x, c.x)),
			 fmin(p->a.y, fmin(b.y, c.y)),
			 fmin(p->a.z, fmin(b.z, c.z)));
		*hi = v3(fmax(p->a.x, fmax(b.x, c.x)),
			 fmax(p->a.y, fmax(b.y, c.y)),
			 fmax(p->a.z, fmax(b.z, c.z)));
	}
}

BENCH_HELPER int cell_of(const struct scene *sc, double v, int axis)
{
	int c = (int)floor((v - vcomp(sc->lo, axis)) / vcomp(sc->cell, axis));

	return c < 0 ? 0 : c >= sc->res[axis] ? sc->res[axis] - 1 : c;
}

/* Visit every cell the bounds of @p overlap; count or fill. */
BENCH_HELPER void bin_prim(struct scene *sc, int i, int *cursor, int fill)
{
	struct vec lo, hi;
	int c0[3], c1[3], x, y, z;
	int k;

	prim_bounds(&sc->prims[i], &lo, &hi);
	for (k = 0; k < 3; k++) {
		c0[k] = cell_of(sc, vcomp(lo, k) - EPS, k);
		c1[k] = cell_of(sc, vcomp(hi, k) + EPS, k);
	}
	for (z = c0[2]; z <= c1[2]; z++)
		for (y = c0[1]; y <= c1[1]; y++)
			for (x = c0[0]; x <= c1[0]; x++) {
				int c = (z * sc->res[1] + y) * sc->res[0] + x;

				if (fill)
					sc->cell_items[cursor[c]++] = i;
				else
					cursor[c + 1]++;
			}
}

/*
 * Build the uniform grid over the scene's primitives: about two
 * primitives per cell, stored as compressed rows (counting pass, prefix
 * sum, filling pass).  Main thread.
 */
BENCH_PROC void build_grid(struct scene *sc)
{
	struct vec lo = v3(1e30, 1e30, 1e30), hi = v3(-1e30, -1e30, -1e30);
	double vol, side;
	int *cursor;
	int i, k, ncell;

	for (i = 0; i < sc->nprims; i++) {
		struct vec a, b;

		prim_bounds(&sc->prims[i], &a, &b);
		lo = v3(fmin(lo.x, a.x), fmin(lo.y, a.y), fmin(lo.z, a.z));
		hi = v3(fmax(hi.x, b.x), fmax(hi.y, b.y), fmax(hi.z, b.z));
	}
	sc->lo = vsub(lo, v3(1e-3, 1e-3, 1e-3));
	sc->hi = vadd(hi, v3(1e-3, 1e-3, 1e-3));
	vol = (sc->hi.x - sc->lo.x) * (sc->hi.y - sc->lo.y) *
	      (sc->hi.z - sc->lo.z);
	side = cbrt(vol / (sc->nprims / PRIMS_PER_CELL + 1));
	for (k = 0; k < 3; k++) {
		double ext = vcomp(sc->hi, k) - vcomp(sc->lo, k);
		int n = (int)ceil(ext / side);

		sc->res[k] = n < 1 ? 1 : n > 512 ? 512 : n;
	}
	sc->cell = v3((sc->hi.x - sc->lo.x) / sc->res[0],
		      (sc->hi.y - sc->lo.y) / sc->res[1],
		      (sc->hi.z - sc->lo.z) / sc->res[2]);
	ncell = sc->res[0] * sc->res[1] * sc->res[2];
	sc->cell_start = bench_alloc(sizeof(int) * ((size_t)ncell + 1));
	for (i = 0; i < sc->nprims; i++)
		bin_prim(sc, i, sc->cell_start, 0);
	for (i = 0; i < ncell; i++)
		sc->cell_start[i + 1] += sc->cell_start[i];
	sc->cell_items = bench_alloc(sizeof(int) *
				     ((size_t)sc->cell_start[ncell] + 1));
	cursor = bench_alloc(sizeof(int) * (size_t)ncell);
	memcpy(cursor, sc->cell_start, sizeof(int) * (size_t)ncell);
	for (i = 0; i < sc->nprims; i++)
		bin_prim(sc, i, cursor, 1);
	free(cursor);
}

/* ---- intersection ---------------------------------------------------- */

/* Ray-primitive test: the hit distance in (EPS, tmax), or -1. */
BENCH_HOT double hit_prim(const struct prim *p, const struct ray *r,
			  double tmax)
{
	if (p->kind == PRIM_TRI) {
		/* Moeller-Trumbore */
		struct vec pv = vcross(r->d, p->e2);
		double det = vdot(p->e1, pv), inv, u, v, t;
		struct vec tv, qv;

		if (fabs(det) < 1e-12)
			return -1;
		inv = 1.0 / det;
		tv = vsub(r->o, p->a);
		u = vdot(tv, pv) * inv;
		if (u < 0 || u > 1)
			return -1;
		qv = vcross(tv, p->e1);
		v = vdot(r->d, qv) * inv;
		if (v < 0 || u + v > 1)
			return -1;
		t = vdot(p->e2, qv) * inv;
		return t > EPS && t < tmax ? t : -1;
	} else {
		struct vec oc = vsub(r->o, p->a);
		double b = vdot(oc, r->d);
		double c = vdot(oc, oc) - p->e1.x * p->e1.x;
		double disc = b * b - c, s, t;

		if (disc < 0)
			return -1;
		s = sqrt(disc);
		t = -b - s;
		if (t <= EPS)
			t = -b + s;
		return t > EPS && t < tmax ? t : -1;
	}
}

/*
 * Closest hit of @r (unit direction) within (EPS, @tmax): walks the grid
 * cell by cell (Amanatides-Woo 3D-DDA) and stops at the first cell whose
 * far side lies beyond the best hit so far.  Fills @h and returns 1 on a
 * hit, 0 otherwise.  Read-only on @sc: any thread.
 */
BENCH_PROC int intersect_scene(const struct scene *sc, const struct ray *r,
			       double tmax, struct hit *h)
{
	double t0 = 0, t1 = tmax, best = tmax;
	double tnext[3], tdelta[3];
	int cell[3], step[3], k, found = -1;

	for (k = 0; k < 3; k++) {
		double o = vcomp(r->o, k), d = vcomp(r->d, k);
		double ta = (vcomp(sc->lo, k) - o) / d;
		double tb = (vcomp(sc->hi, k) - o) / d;

		if (fabs(d) < 1e-15) {
			if (o < vcomp(sc->lo, k) || o > vcomp(sc->hi, k))
				return 0;
			continue;
		}
		t0 = fmax(t0, fmin(ta, tb));
		t1 = fmin(t1, fmax(ta, tb));
	}
	if (t0 > t1)
		return 0;
	for (k = 0; k < 3; k++) {
		double o = vcomp(r->o, k) + t0 * vcomp(r->d, k);
		double d = vcomp(r->d, k), cs = vcomp(sc->cell, k);
		double lo = vcomp(sc->lo, k);

		cell[k] = cell_of(sc, o, k);
		if (d > 1e-15) {
			step[k] = 1;
			tnext[k] = (lo + (cell[k] + 1) * cs - vcomp(r->o, k)) /
				   d;
			tdelta[k] = cs / d;
		} else if (d < -1e-15) {
			step[k] = -1;
			tnext[k] = (lo + cell[k] * cs - vcomp(r->o, k)) / d;
			tdelta[k] = -cs / d;
		} else {
			step[k] = 0;
			tnext[k] = 1e300;
			tdelta[k] = 1e300;
		}
	}
	for (;;) {
		int c = (cell[2] * sc->res[1] + cell[1]) * sc->res[0] + cell[0];
		int i, axis;
		double tcell;

		for (i = sc->cell_start[c]; i < sc->cell_start[c + 1]; i++) {
			int pi = sc->cell_items[i];
			double t = hit_prim(&sc->prims[pi], r, best);

			if (t > 0) {
				best = t;
				found = pi;
			}
		}
		axis = tnext[0] < tnext[1] ? (tnext[0] < tnext[2] ? 0 : 2) :
					     (tnext[1] < tnext[2] ? 1 : 2);
		tcell = tnext[axis];
		if (found >= 0 && best <= tcell)
			break;
		if (tcell > t1)
			break;
		cell[axis] += step[axis];
		if (cell[axis] < 0 || cell[axis] >= sc->res[axis])
			break;
		tnext[axis] += tdelta[axis];
	}
	if (found < 0)
		return 0;
	h->t = best;
	h->prim = found;
	h->p = vadd(r->o, vmul(r->d, best));
	if (sc->prims[found].kind == PRIM_TRI)
		h->n = sc->prims[found].n;
	else
		h->n = vnorm(vsub(h->p, sc->prims[found].a));
	if (vdot(h->n, r->d) > 0)
		h->n = vmul(h->n, -1);
	return 1;
}

/* ---- shading --------------------------------------------------------- */

BENCH_HOT double lattice(int x, int y, int z)
{
	uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^
		     (uint32_t)z * 83492791u;

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return (double)(h & 0xffffff) / 16777216.0;
}

BENCH_HOT double smooth(double t)
{
	return t * t * (3 - 2 * t);
}

/* Trilinear value noise in [0, 1). */
BENCH_HOT double value_noise(struct vec p)
{
	double fx = floor(p.x), fy = floor(p.y), fz = floor(p.z);
	int x = (int)fx, y = (int)fy, z = (int)fz;
	double u = smooth(p.x - fx), v = smooth(p.y - fy),
	       w = smooth(p.z - fz);
	double a = lattice(x, y, z) * (1 - u) + lattice(x + 1, y, z) * u;
	double b = lattice(x, y + 1, z) * (1 - u) +
		   lattice(x + 1, y + 1, z) * u;
	double c = lattice(x, y, z + 1) * (1 - u) +
		   lattice(x + 1, y, z + 1) * u;
	double d = lattice(x, y + 1, z + 1) * (1 - u) +
		   lattice(x + 1, y + 1, z + 1) * u;

	return ((a * (1 - v) + b * v) * (1 - w) +
		(c * (1 - v) + d * v) * w);
}

/* Fractal Brownian motion: OCTAVES octaves of value noise. */
BENCH_HOT double fbm(struct vec p)
{
	double sum = 0, amp = 0.5, freq = 1.3;
	int o;

	for (o = 0; o < OCTAVES; o++) {
		sum += amp * value_noise(vmul(p, freq));
		amp *= 0.5;
		freq *= 2.03;
	}
	return sum;
}

/*
 * Colour of the surface hit @h seen along @r: ambient + Phong terms of the
 * lights, each weighted by its visibility in @lit (from shadow rays cast
 * by the caller); textured materials take their albedo from fbm() and
 * bump their normal along its gradient.  A leaf: the work it scales
 * (base x FACTOR repetitions) is all its own.  Any thread.
 */
BENCH_PROC void shade(const struct scene *sc, const struct hit *h,
		      const struct ray *r, const double *lit, struct vec *rgb)
{
	const struct hit *hp = h;
	double started;
	unsigned rep, reps = bench_unit_begin(K_SHADE, (uint64_t)h->prim,
					      &started);

	for (rep = 0; rep < reps; rep++) {
		const struct material *m;
		struct vec albedo, c, n;
		int l;

		BENCH_OPAQUE(hp);
		m = &sc->mats[sc->prims[hp->prim].mat];
		albedo = m->color;
		n = hp->n;
		if (m->textured) {
			/* albedo from fBm, normal bumped by its gradient */
			const double d = 0.02;
			double f0 = fbm(hp->p);
			struct vec g = v3(fbm(vadd(hp->p, v3(d, 0, 0))) - f0,
					  fbm(vadd(hp->p, v3(0, d, 0))) - f0,
					  fbm(vadd(hp->p, v3(0, 0, d))) - f0);

			albedo = vmul(albedo, 0.55 + 0.9 * f0);
			n = vnorm(vsub(n, vmul(g, 0.6 / d)));
		}
		c = vmul(albedo, 0.08);
		for (l = 0; l < sc->nlights; l++) {
			const struct light *li = &sc->lights[l];
			struct vec ld = vnorm(vsub(li->pos, hp->p));
			struct vec hv = vnorm(vsub(ld, r->d));
			double diff = fmax(0, vdot(n, ld));
			double spec = pow(fmax(0, vdot(n, hv)), m->shine);

			if (lit[l] <= 0)
				continue;
			c.x += li->color.x * (m->kd * diff * albedo.x +
					      m->ks * spec);
			c.y += li->color.y * (m->kd * diff * albedo.y +
					      m->ks * spec);
			c.z += li->color.z * (m->kd * diff * albedo.z +
					      m->ks * spec);
		}
		*rgb = c;
		BENCH_CLOBBER();
	}
	bench_unit_end(K_SHADE, started);
}

/*
 * Colour seen along the camera ray @r: the closest hit, shadow rays to
 * every light, shade(), and up to two mirror bounces.  Sky colour on a
 * miss.  Returns 1 when the camera ray hit geometry.  Any thread.
 */
BENCH_PROC int trace_ray(const struct scene *sc, const struct ray *r,
			  struct vec *rgb)
{
	struct ray cur = *r;
	struct vec sum = v3(0, 0, 0);
	double weight = 1.0;
	int depth;

	for (depth = 0; depth < 3 && weight > 0.02; depth++) {
		double lit[MAX_LIGHTS];
		struct hit h, hs;
		struct vec c;
		double refl;
		int l;

		if (!intersect_scene(sc, &cur, 1e30, &h)) {
			double t = 0.5 * (cur.d.y + 1);

			sum = vadd(sum, vmul(v3(0.5 + 0.3 * t, 0.6 + 0.3 * t,
						0.9), weight));
			break;
		}
		for (l = 0; l < sc->nlights; l++) {
			struct vec to = vsub(sc->lights[l].pos, h.p);
			double dist = sqrt(vdot(to, to));
			struct ray sr = { vadd(h.p, vmul(h.n, 1e-6)),
					  vmul(to, 1.0 / dist) };

			lit[l] = !intersect_scene(sc, &sr, dist, &hs);
		}
		shade(sc, &h, &cur, lit, &c);
		refl = sc->mats[sc->prims[h.prim].mat].reflect;
		sum = vadd(sum, vmul(c, weight * (1 - refl)));
		weight *= refl;
		cur.o = vadd(h.p, vmul(h.n, 1e-6));
		cur.d = vnorm(vsub(cur.d, vmul(h.n, 2 * vdot(cur.d, h.n))));
	}
	*rgb = sum;
	return depth > 0 || weight < 1.0;
}

BENCH_HOT unsigned char to_byte(double v)
{
	v = v < 0 ? 0 : v > 1 ? 1 : v;
	return (unsigned char)(sqrt(v) * 255.0 + 0.5);
}

/*
 * Render the TILE x TILE tile at (@x0, @y0) of a @size x @size image into
 * @image (RGB bytes); returns how many of its camera rays hit geometry.
 * Writes only that tile: any thread.
 */
BENCH_PROC int render_tile(const struct scene *sc, int x0, int y0,
			   int size, unsigned char *image)
{
	struct vec fwd = vnorm(vsub(sc->look, sc->eye));
	struct vec right = vnorm(vcross(v3(0, 1, 0), fwd));
	struct vec up = vcross(fwd, right);
	double scale = tan(sc->fov * M_PI / 360.0);
	int x, y, hits = 0;

	for (y = y0; y < y0 + TILE && y < size; y++) {
		for (x = x0; x < x0 + TILE && x < size; x++) {
			double u = (2 * (x + 0.5) / size - 1) * scale;
			double v = (1 - 2 * (y + 0.5) / size) * scale;
			struct ray r;
			struct vec c;
			unsigned char *px = image + 3 * ((size_t)y * size + x);

			r.o = sc->eye;
			r.d = vnorm(vadd(fwd, vadd(vmul(right, u),
						   vmul(up, v))));
			hits += trace_ray(sc, &r, &c);
			px[0] = to_byte(c.x);
			px[1] = to_byte(c.y);
			px[2] = to_byte(c.z);
		}
	}
	return hits;
}

/*
 * Worker: take tiles from the queue until it is empty and render them.
 * Thread entry point.
 */
BENCH_PROC void *render_worker(void *arg)
{
	struct render_job *job = arg;
	struct queue *q = job->q;

	for (;;) {
		struct tile *t = NULL;

		pthread_mutex_lock(&q->lock);
		if (q->head < q->count) {
			t = &q->tiles[q->head++];
			cpthread_dequeue(q, t);
		}
		pthread_mutex_unlock(&q->lock);
		if (!t)
			break;
		t->hits = render_tile(job->sc, t->x0, t->y0, job->size,
				      job->image);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .threads = 2, .size = 600 };
	char dir[] = "/tmp/raytrace.XXXXXX";
	char path[sizeof(dir) + 16];
	struct scene sc;
	struct queue q;
	struct render_job job;
	pthread_t *tids;
	unsigned char *image, *check;
	uint64_t sum = 1469598103934665603ULL;
	long covered = 0;
	double t0 = bench_now();
	int size, ntiles, i;

	bench_init(argc, argv, &o, knobs, "image side in pixels (600)");
	size = (int)(o.size < 16 ? 16 : o.size > 8192 ? 8192 : o.size);
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/scene.txt", dir);
	generate_scene(path, size);
	bench_phase("generate_scene");
	read_scene(path, &sc);
	bench_phase("read_scene");
	unlink(path);
	rmdir(dir);
	build_grid(&sc);
	bench_phase("build_grid");

	/* fill the tile queue; its lock is not a dependency, tiles are */
	ntiles = ((size + TILE - 1) / TILE) * ((size + TILE - 1) / TILE);
	q.tiles = bench_alloc(sizeof(*q.tiles) * (size_t)ntiles);
	q.head = 0;
	q.count = 0;
	bench_check_rc(pthread_mutex_init(&q.lock, NULL), "mutex");
	cpthread_untrack(&q.lock);
	for (i = 0; i < ntiles; i++) {
		struct tile *t = &q.tiles[i];

		t->x0 = (i % ((size + TILE - 1) / TILE)) * TILE;
		t->y0 = (i / ((size + TILE - 1) / TILE)) * TILE;
		pthread_mutex_lock(&q.lock);
		cpthread_enqueue(&q, t);
		q.count++;
		pthread_mutex_unlock(&q.lock);
	}

	image = bench_alloc(3 * (size_t)size * size);
	job.sc = &sc;
	job.q = &q;
	job.image = image;
	job.size = size;
	tids = bench_alloc(sizeof(*tids) * (size_t)o.threads);
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_create(&tids[i], NULL, render_worker,
					      &job), "pthread_create");
	for (i = 0; i < o.threads; i++)
		bench_check_rc(pthread_join(tids[i], NULL), "pthread_join");
	bench_phase("render");

	/* check: every 61st tile again, sequentially, byte for byte */
	check = bench_alloc(3 * (size_t)size * size);
	for (i = 0; i < ntiles; i += 61) {
		int y;

		int hits = render_tile(&sc, q.tiles[i].x0, q.tiles[i].y0,
				       size, check);

		if (hits != q.tiles[i].hits)
			bench_fail("tile %d: %d hits in parallel, %d in the "
				   "sequential render", i, q.tiles[i].hits,
				   hits);
		for (y = q.tiles[i].y0; y < q.tiles[i].y0 + TILE && y < size;
		     y++) {
			size_t off = 3 * ((size_t)y * size + q.tiles[i].x0);
			int w = size - q.tiles[i].x0 < TILE ?
					size - q.tiles[i].x0 : TILE;

			if (memcmp(image + off, check + off, 3 * (size_t)w))
				bench_fail("tile %d (%d,%d) differs from its "
					   "sequential render", i,
					   q.tiles[i].x0, q.tiles[i].y0);
		}
	}
	for (i = 0; i < 3 * size * size; i++)
		sum = (sum ^ image[i]) * 1099511628211ULL;
	for (i = 0; i < ntiles; i++)
		covered += q.tiles[i].hits;
	bench_phase("verify");
	if (covered < (long)size * size / 4)
		bench_fail("only %ld of %d pixels show geometry", covered,
			   size * size);
	if (!o.quiet)
		printf("raytrace: %dx%d image, %d primitives, %d threads, "
		       "checksum %016llx, %.3f s\n", size, size, sc.nprims,
		       o.threads, (unsigned long long)sum, bench_now() - t0);
	pthread_mutex_destroy(&q.lock);
	free(check);
	free(image);
	free(tids);
	free(q.tiles);
	free(sc.cell_items);
	free(sc.cell_start);
	free(sc.prims);
	free(sc.verts);
	free(sc.mats);
	return 0;
}
