/*
 * tsp - master-worker branch and bound for the travelling salesperson
 * problem, in the manner of the TSP program of [Hollingsworth98] (Fig. 8): one
 * manager hands out subproblems and collects tours, the workers search.
 *
 * The manager (main thread, be_manager) keeps a best-first heap of
 * partial tours from city 0.  When a worker asks for work it pops nodes,
 * expands those shallower than the split depth (expand_node: a child per
 * unvisited city, each bounded by compute_bound, a Held-Karp 1-tree bound
 * with subgradient steps - the manager's expensive part) and sends the
 * first node at the split depth to the worker's mailbox.  Workers
 * (min_circuit) ask for a subproblem, search it depth-first with a cheap
 * bound (solve_subtree) and send every improved tour back; the manager
 * publishes the best length, which the workers read to prune.
 *
 * Messages go through the manager's inbox (mutex + condition variable)
 * and the workers' mailboxes (one mutex + condition variable each).  All
 * bookkeeping is the manager's, so it becomes the bottleneck as workers
 * are added: with -t THREADS workers there are THREADS + 1 threads.
 *
 * Checks: the tour visits every city once and its length is what was
 * reported; for at most 10 cities, the length equals a brute-force
 * optimum.
 *
 * -n SIZE is the number of cities (default 20).  Scalable procedure:
 * compute_bound (base 2: each bound is computed 2 x FACTOR times).
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 24
#define LEAF 13			/* cities left to place in a subproblem */
#define HK_STEPS 30		/* subgradient steps of compute_bound */
#define INBOX 4096

enum msg_kind { MSG_REQUEST, MSG_TOUR };

struct node {
	int depth;		/* cities on the path, path[0] = 0 */
	int len;		/* length of the path */
	double bound;		/* lower bound on any completion */
	unsigned char path[MAXN];
};

struct msg {
	int kind;
	int worker;
	int len;
	unsigned char path[MAXN];
};

struct mailbox {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int full;		/* a job waits in @job */
	int stop;		/* no more work: exit */
	struct node job;
};

struct tsp {
	int n, workers;
	int dist[MAXN][MAXN];
	int min_in[MAXN];	/* cheapest edge into each city */
	/* the manager's inbox */
	pthread_mutex_t inbox_lock;
	pthread_cond_t inbox_cond;	/* a message arrived */
	pthread_cond_t inbox_space;	/* a slot was freed */
	struct msg *inbox;
	int in_head, in_tail;
	struct mailbox *box;	/* one per worker */
	int best_len;		/* read by workers without the lock */
	unsigned char best_path[MAXN];
	/* manager-only state */
	struct node *heap;
	int heap_len, heap_cap;
	long expanded, handed_out, tours;
};

struct worker_arg {
	struct tsp *t;
	int id;
};

static struct bench_knob knobs[] = {
	{ "compute_bound", 2, 0 },
	{ NULL, 0, 0 },
};

#define K_BOUND (&knobs[0])

double compute_bound(const struct tsp *t, const struct node *nd);
void expand_node(struct tsp *t, const struct node *nd);
int next_subproblem(struct tsp *t, struct node *out);
void be_manager(struct tsp *t);
int solve_subtree(struct tsp *t, const struct node *nd,
		  unsigned char *best_path);
void *min_circuit(void *arg);
int brute_force(const struct tsp *t);

/* ---- messages -------------------------------------------------------- */

BENCH_HELPER void send_to_manager(struct tsp *t, const struct msg *m)
{
	pthread_mutex_lock(&t->inbox_lock);
	while (t->in_tail - t->in_head == INBOX)
		pthread_cond_wait(&t->inbox_space, &t->inbox_lock);
	t->inbox[t->in_tail++ % INBOX] = *m;
	pthread_cond_signal(&t->inbox_cond);
	pthread_mutex_unlock(&t->inbox_lock);
}

BENCH_HELPER void receive(struct tsp *t, struct msg *m)
{
	pthread_mutex_lock(&t->inbox_lock);
	while (t->in_head == t->in_tail)
		pthread_cond_wait(&t->inbox_cond, &t->inbox_lock);
	*m = t->inbox[t->in_head++ % INBOX];
	pthread_cond_signal(&t->inbox_space);
	pthread_mutex_unlock(&t->inbox_lock);
}

BENCH_HELPER void post_job(struct mailbox *b, const struct node *job)
{
	pthread_mutex_lock(&b->lock);
	if (job)
		b->job = *job;
	else
		b->stop = 1;
	b->full = 1;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* ---- the manager's heap ---------------------------------------------- */

BENCH_HELPER void heap_push(struct tsp *t, const struct node *nd)
{
	int i;

	if (t->heap_len == t->heap_cap) {
		t->heap_cap *= 2;
		t->heap = realloc(t->heap, sizeof(*t->heap) *
					   (size_t)t->heap_cap);
		if (!t->heap)
			bench_fail("out of memory for %d nodes", t->heap_cap);
	}
	i = t->heap_len++;
	while (i > 0 && t->heap[(i - 1) / 2].bound > nd->bound) {
		t->heap[i] = t->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	t->heap[i] = *nd;
}

BENCH_HELPER void heap_pop(struct tsp *t, struct node *out)
{
	struct node last;
	int i = 0;

	*out = t->heap[0];
	last = t->heap[--t->heap_len];
	for (;;) {
		int c = 2 * i + 1;

		if (c >= t->heap_len)
			break;
		if (c + 1 < t->heap_len &&
		    t->heap[c + 1].bound < t->heap[c].bound)
			c++;
		if (t->heap[c].bound >= last.bound)
			break;
		t->heap[i] = t->heap[c];
		i = c;
	}
	if (t->heap_len)
		t->heap[i] = last;
}

/* ---- bounds ----------------------------------------------------------- */

/*
 * Held-Karp bound on a Hamiltonian path through the @m cities @v whose
 * end cities have target degree 1 and the others 2: the best of HK_STEPS
 * subgradient steps, each a minimum spanning tree (Prim) on the weights
 * d(u, v) + pi_u + pi_v, less the penalties.
 */
BENCH_HELPER double held_karp(const struct tsp *t, const int *v,
			      const int *target, int m)
{
	double pi[MAXN], key[MAXN], stepsize = 0, best = -1e300;
	int parent[MAXN], deg[MAXN], in_tree[MAXN], i, k, r;

	for (i = 0; i < m; i++)
		pi[i] = 0;
	for (k = 0; k < HK_STEPS; k++) {
		double w = 0, norm = 0;

		for (i = 0; i < m; i++) {
			key[i] = 1e300;
			in_tree[i] = 0;
			deg[i] = 0;
		}
		key[0] = 0;
		parent[0] = -1;
		for (r = 0; r < m; r++) {
			int u = -1, x;

			for (x = 0; x < m; x++)
				if (!in_tree[x] && (u < 0 || key[x] < key[u]))
					u = x;
			in_tree[u] = 1;
			w += key[u];
			if (parent[u] >= 0) {
				deg[u]++;
				deg[parent[u]]++;
			}
			for (x = 0; x < m; x++) {
				double c;

				if (in_tree[x])
					continue;
				c = t->dist[v[u]][v[x]] + pi[u] + pi[x];
				if (c < key[x]) {
					key[x] = c;
					parent[x] = u;
				}
			}
		}
		for (i = 0; i < m; i++) {
			w -= target[i] * pi[i];
			norm += (double)(deg[i] - target[i]) *
				(deg[i] - target[i]);
		}
		if (w > best)
			best = w;
		if (norm == 0)
			break;	/* the tree is a path: the bound is exact */
		if (k == 0)
			stepsize = 0.05 * w / m;
		for (i = 0; i < m; i++)
			pi[i] += stepsize * (deg[i] - target[i]) / sqrt(norm);
		stepsize *= 0.9;
	}
	return best;
}

/*
 * Lower bound on the length of any tour that starts with the path of
 * @nd: its length plus the Held-Karp bound on a Hamiltonian path from its
 * last city through the unvisited ones back to city 0.  The bound is
 * computed base x FACTOR times (the same value each time).  Manager.
 */
BENCH_PROC double compute_bound(const struct tsp *t, const struct node *nd)
{
	int v[MAXN], target[MAXN], m = 0, i;
	unsigned visited = 0;
	double started;
	unsigned r, reps = bench_unit_begin(K_BOUND, (uint64_t)nd->depth *
					    MAXN + nd->path[nd->depth - 1],
					    &started);
	double best = 0;

	for (i = 0; i < nd->depth; i++)
		visited |= 1u << nd->path[i];
	v[m] = nd->path[nd->depth - 1];
	target[m++] = 1;
	for (i = 0; i < t->n; i++)
		if (!(visited & (1u << i))) {
			v[m] = i;
			target[m++] = 2;
		}
	v[m] = 0;
	target[m++] = 1;
	if (m == 2) {
		bench_unit_end(K_BOUND, started);
		return nd->len + t->dist[v[0]][0];
	}
	for (r = 0; r < reps; r++) {
		const int *vv = v;

		BENCH_OPAQUE(vv);
		best = held_karp(t, vv, target, m);
		BENCH_CLOBBER();
	}
	bench_unit_end(K_BOUND, started);
	return nd->len + best;
}

/* Push every child of @nd whose bound beats the best tour.  Manager. */
BENCH_PROC void expand_node(struct tsp *t, const struct node *nd)
{
	unsigned visited = 0;
	int i, c;

	t->expanded++;
	for (i = 0; i < nd->depth; i++)
		visited |= 1u << nd->path[i];
	for (c = 1; c < t->n; c++) {
		struct node ch;

		if (visited & (1u << c))
			continue;
		ch = *nd;
		ch.path[ch.depth++] = (unsigned char)c;
		ch.len += t->dist[nd->path[nd->depth - 1]][c];
		ch.bound = compute_bound(t, &ch);
		if (ch.bound < t->best_len - 1e-6)
			heap_push(t, &ch);
	}
}

/*
 * Pop nodes best-first, expanding those above the split depth, until one
 * at the split depth (or a leaf-level node) is found: 1 and *@out, or 0
 * when the heap holds nothing worth searching.  Manager.
 */
BENCH_PROC int next_subproblem(struct tsp *t, struct node *out)
{
	int split = t->n - LEAF < 2 ? 2 : t->n - LEAF;

	while (t->heap_len) {
		struct node nd;

		heap_pop(t, &nd);
		if (nd.bound >= t->best_len - 1e-6)
			continue;
		if (nd.depth >= split) {
			*out = nd;
			return 1;
		}
		expand_node(t, &nd);
	}
	return 0;
}

/*
 * The manager: answer work requests and collect tours until the heap is
 * empty and every worker waits, then stop the workers.  Main thread.
 */
BENCH_PROC void be_manager(struct tsp *t)
{
	int *waiting = bench_alloc(sizeof(int) * (size_t)t->workers);
	int nwaiting = 0, busy = t->workers, i;
	struct node root;

	memset(&root, 0, sizeof(root));
	root.depth = 1;
	root.bound = 0;
	heap_push(t, &root);
	for (;;) {
		struct msg m;
		struct node job;

		receive(t, &m);
		if (m.kind == MSG_TOUR) {
			t->tours++;
			if (m.len < t->best_len) {
				__atomic_store_n(&t->best_len, m.len,
						 __ATOMIC_RELAXED);
				memcpy(t->best_path, m.path, MAXN);
			}
			continue;
		}
		busy--;
		if (next_subproblem(t, &job)) {
			t->handed_out++;
			busy++;
			post_job(&t->box[m.worker], &job);
			/* serve the workers that waited for work */
			while (nwaiting && next_subproblem(t, &job)) {
				t->handed_out++;
				busy++;
				post_job(&t->box[waiting[--nwaiting]], &job);
			}
			continue;
		}
		waiting[nwaiting++] = m.worker;
		if (busy == 0)
			break;
	}
	for (i = 0; i < t->workers; i++)
		post_job(&t->box[i], NULL);
	free(waiting);
}

/* ---- workers ----------------------------------------------------------- */

struct search {
	const struct tsp *t;
	int *best;		/* this worker's best length */
	unsigned char path[MAXN];
	unsigned char *best_path;
	int found;
};

/*
 * Extend the path at @depth: @len so far, cities @visited, @rest the sum
 * of min_in over the unvisited cities and city 0 (a lower bound on what
 * the rest of the tour costs).  @rest is an argument, not a field: a
 * field updated around every recursive call is a store that the next
 * loads of t->min_in must be checked against, and whether those checks
 * stall (4K aliasing) depended on where the worker's stack fell, so the
 * -finstrument-functions build ran this loop 16 % slower than the plain
 * one.
 */
BENCH_HELPER void dfs(struct search *s, int depth, int len, unsigned visited,
		      int rest)
{
	const struct tsp *t = s->t;
	int last = s->path[depth - 1], c;
	int shared = __atomic_load_n(&t->best_len, __ATOMIC_RELAXED);

	if (shared < *s->best)
		*s->best = shared;
	if (depth == t->n) {
		len += t->dist[last][0];
		if (len < *s->best) {
			*s->best = len;
			memcpy(s->best_path, s->path, MAXN);
			s->found = 1;
		}
		return;
	}
	for (c = 1; c < t->n; c++) {
		int nl;

		if (visited & (1u << c))
			continue;
		nl = len + t->dist[last][c];
		if (nl + rest - t->min_in[c] >= *s->best)
			continue;
		s->path[depth] = (unsigned char)c;
		dfs(s, depth + 1, nl, visited | (1u << c), rest - t->min_in[c]);
	}
}

/*
 * Depth-first branch and bound below @nd; returns 1 and fills
 * @best_path when a tour shorter than the best known was found.  Any
 * worker.
 */
BENCH_PROC int solve_subtree(struct tsp *t, const struct node *nd,
			     unsigned char *best_path)
{
	struct search s;
	unsigned visited = 0;
	int best = __atomic_load_n(&t->best_len, __ATOMIC_RELAXED), rest, i;

	memset(&s, 0, sizeof(s));
	s.t = t;
	s.best = &best;
	s.best_path = best_path;
	memcpy(s.path, nd->path, MAXN);
	for (i = 0; i < nd->depth; i++)
		visited |= 1u << nd->path[i];
	rest = t->min_in[0];
	for (i = 1; i < t->n; i++)
		if (!(visited & (1u << i)))
			rest += t->min_in[i];
	dfs(&s, nd->depth, nd->len, visited, rest);
	return s.found ? best : -1;
}

/* A worker: ask, search, report, until told to stop.  Thread entry. */
BENCH_PROC void *min_circuit(void *arg)
{
	struct worker_arg *wa = arg;
	struct tsp *t = wa->t;
	struct mailbox *b = &t->box[wa->id];

	for (;;) {
		struct msg m;
		struct node job;
		int len, stop;

		memset(&m, 0, sizeof(m));
		m.kind = MSG_REQUEST;
		m.worker = wa->id;
		send_to_manager(t, &m);
		pthread_mutex_lock(&b->lock);
		while (!b->full)
			pthread_cond_wait(&b->cond, &b->lock);
		b->full = 0;
		job = b->job;
		stop = b->stop;
		pthread_mutex_unlock(&b->lock);
		if (stop)
			break;
		len = solve_subtree(t, &job, m.path);
		if (len >= 0) {
			m.kind = MSG_TOUR;
			m.len = len;
			send_to_manager(t, &m);
		}
	}
	return NULL;
}

/* ---- setup and checks ------------------------------------------------- */

BENCH_HELPER void permute(const struct tsp *t, int *p, int k, int len,
			  int *best)
{
	int i;

	if (len >= *best)
		return;
	if (k == t->n) {
		len += t->dist[p[k - 1]][0];
		if (len < *best)
			*best = len;
		return;
	}
	for (i = k; i < t->n; i++) {
		int s = p[k];

		p[k] = p[i];
		p[i] = s;
		permute(t, p, k + 1, len + t->dist[p[k - 1]][p[k]], best);
		p[i] = p[k];
		p[k] = s;
	}
}

/* The optimum by enumerating every tour (pruned by length only). */
BENCH_PROC int brute_force(const struct tsp *t)
{
	int p[MAXN], best = 1 << 30, i;

	for (i = 0; i < t->n; i++)
		p[i] = i;
	permute(t, p, 1, 0, &best);
	return best;
}

/* Nearest-neighbour tour: the first best length.  Main thread. */
static void initial_tour(struct tsp *t)
{
	unsigned visited = 1;
	int cur = 0, len = 0, i;

	t->best_path[0] = 0;
	for (i = 1; i < t->n; i++) {
		int c, next = -1;

		for (c = 1; c < t->n; c++)
			if (!(visited & (1u << c)) &&
			    (next < 0 || t->dist[cur][c] < t->dist[cur][next]))
				next = c;
		visited |= 1u << next;
		len += t->dist[cur][next];
		t->best_path[i] = (unsigned char)next;
		cur = next;
	}
	t->best_len = len + t->dist[cur][0];
}

int main(int argc, char **argv)
{
	struct bench_opts o = { .threads = 2, .size = 20 };
	struct tsp t;
	struct worker_arg *args;
	pthread_t *tids;
	double x[MAXN], y[MAXN], t0 = bench_now();
	uint64_t rng = 2002;
	unsigned seen = 0;
	int i, j, len;

	bench_init(argc, argv, &o, knobs, "cities, 4..24 (20)");
	memset(&t, 0, sizeof(t));
	t.n = (int)(o.size < 4 ? 4 : o.size > MAXN ? MAXN : o.size);
	t.workers = o.threads;
	for (i = 0; i < t.n; i++) {
		x[i] = 1000 * bench_uniform(&rng);
		y[i] = 1000 * bench_uniform(&rng);
	}
	for (i = 0; i < t.n; i++) {
		t.min_in[i] = 1 << 30;
		for (j = 0; j < t.n; j++) {
			t.dist[i][j] = (int)lround(hypot(x[i] - x[j],
							 y[i] - y[j]));
			if (i != j && t.dist[i][j] < t.min_in[i])
				t.min_in[i] = t.dist[i][j];
		}
	}
	initial_tour(&t);
	t.inbox = bench_alloc(sizeof(*t.inbox) * INBOX);
	t.box = bench_alloc(sizeof(*t.box) * (size_t)t.workers);
	t.heap_cap = 1024;
	t.heap = bench_alloc(sizeof(*t.heap) * (size_t)t.heap_cap);
	bench_check_rc(pthread_mutex_init(&t.inbox_lock, NULL), "mutex");
	bench_check_rc(pthread_cond_init(&t.inbox_cond, NULL), "cond");
	bench_check_rc(pthread_cond_init(&t.inbox_space, NULL), "cond");
	tids = bench_alloc(sizeof(*tids) * (size_t)t.workers);
	args = bench_alloc(sizeof(*args) * (size_t)t.workers);
	for (i = 0; i < t.workers; i++) {
		bench_check_rc(pthread_mutex_init(&t.box[i].lock, NULL),
			       "mutex");
		bench_check_rc(pthread_cond_init(&t.box[i].cond, NULL),
			       "cond");
		args[i].t = &t;
		args[i].id = i;
		bench_check_rc(pthread_create(&tids[i], NULL, min_circuit,
					      &args[i]), "pthread_create");
	}
	be_manager(&t);
	for (i = 0; i < t.workers; i++)
		bench_check_rc(pthread_join(tids[i], NULL), "pthread_join");
	bench_phase("search");

	len = 0;
	for (i = 0; i < t.n; i++) {
		int c = t.best_path[i];

		if (c >= t.n || (seen & (1u << c)))
			bench_fail("tour visits city %d twice", c);
		seen |= 1u << c;
		len += t.dist[c][t.best_path[(i + 1) % t.n]];
	}
	if (len != t.best_len)
		bench_fail("tour length %d, reported %d", len, t.best_len);
	if (t.n <= 10) {
		int opt = brute_force(&t);

		if (opt != t.best_len)
			bench_fail("found %d, brute force says %d",
				   t.best_len, opt);
		bench_phase("brute_force");
	}
	if (!o.quiet)
		printf("tsp: %d cities, %d workers, tour %d, %ld expanded, "
		       "%ld subproblems, %ld tours, %.3f s\n", t.n, t.workers,
		       t.best_len, t.expanded, t.handed_out, t.tours,
		       bench_now() - t0);
	for (i = 0; i < t.workers; i++) {
		pthread_mutex_destroy(&t.box[i].lock);
		pthread_cond_destroy(&t.box[i].cond);
	}
	pthread_mutex_destroy(&t.inbox_lock);
	pthread_cond_destroy(&t.inbox_cond);
	pthread_cond_destroy(&t.inbox_space);
	free(t.inbox);
	free(t.box);
	free(t.heap);
	free(tids);
	free(args);
	return 0;
}
