/*
 * wq.c - [Hollingsworth98]'s Fig. 11: a work queue seen through its lock or
 * through its items (doc/examples.md section 5, scaled).
 *
 * Producer P1 enqueues item Y with its path at 10; producer P2 enqueues
 * item X with its path at 50; the consumer C, its path at 25, dequeues Y
 * after X was enqueued (FIFO: Y comes out first) and works 60.  The
 * order P1, P2, C at the queue is fixed by silent (untracked) semaphores,
 * which create no edges.  main only creates, joins, and drains X.
 *
 *   P1: "p1" 10; lock Q; put Y; unlock Q; post u1
 *   P2: "p2" 50; wait u1; lock Q; put X; unlock Q; post ready
 *   C:  "c0" 25; wait ready; lock Q; take Y; unlock Q; "work" 60
 *
 * Argument "lock": no annotations, the queue's lock is tracked.  C's
 * acquire of Q follows P2's release (path 50): C ends at 50 + 60.
 *   Critical path 110.  CP share: p2 50, work 60, p1 0, c0 0.
 *   Zeroing: p2 -> max(c0 work, p1 work) = 85: 25;  work -> 50: 60;
 *            p1, c0 -> 110: 0.
 * Argument "items": cpthread_untrack(Q), cpthread_enqueue/dequeue.  The
 * dequeue of Y depends only on the enqueue of Y (10): C ends at 25 + 60.
 *   Critical path 85.  CP share: c0 25, work 60, p1 0, p2 0.
 *   Zeroing: c0 -> p1 work = 70: 15;  work -> p2 = 50: 35;
 *            p1, p2 -> 85: 0.
 * Useful: main 0, P1 10, P2 50, C 85.
 *
 * Argument "reuse": as "items", but Y's address is used twice.  P2, its
 * path at 50, first puts Y and takes it back itself (no edge: its own
 * path); P1 waits for that (silent u2) before it puts Y.  So the dequeue
 * by C must follow the second enqueue of Y (10), not the first (50):
 * every figure is that of "items".  In trace mode the two instances of Y
 * are two objects whose publishes the analyzer must not confuse.
 */
#include "wl.h"

struct item {
	const char *name;
};

static struct item item_x = { "X" }, item_y = { "Y" };
static struct item *fifo[4];
static unsigned head, tail;
static pthread_mutex_t q = PTHREAD_MUTEX_INITIALIZER;
static sem_t u1, u2, ready;
static int track_items, reuse;

static void put(struct item *it)
{
	WL_OK(pthread_mutex_lock(&q));
	fifo[tail++ % 4] = it;
	if (track_items)
		WL_ANNOTATE(cpthread_enqueue, &q, it);
	WL_OK(pthread_mutex_unlock(&q));
}

static struct item *take(void)
{
	struct item *it;

	WL_OK(pthread_mutex_lock(&q));
	if (head == tail) {
		fprintf(stderr, "wq: queue empty\n");
		abort();
	}
	it = fifo[head++ % 4];
	if (track_items)
		WL_ANNOTATE(cpthread_dequeue, &q, it);
	WL_OK(pthread_mutex_unlock(&q));
	return it;
}

static void *producer_1(void *arg)
{
	(void)arg;
	wl_region("p1", 10);
	if (reuse)
		wl_sem_wait(&u2);
	put(&item_y);
	WL_OK(sem_post(&u1));
	return NULL;
}

static void *producer_2(void *arg)
{
	(void)arg;
	wl_region("p2", 50);
	if (reuse) {
		put(&item_y);
		if (take() != &item_y) {
			fprintf(stderr, "wq: P2 did not take Y back\n");
			abort();
		}
		WL_OK(sem_post(&u2));
	}
	wl_sem_wait(&u1);
	put(&item_x);
	WL_OK(sem_post(&ready));
	return NULL;
}

static void *consumer(void *arg)
{
	struct item *it;

	(void)arg;
	wl_region("c0", 25);
	wl_sem_wait(&ready);
	it = take();
	if (it != &item_y) {
		fprintf(stderr, "wq: took %s, not Y\n", it->name);
		abort();
	}
	wl_region("work", 60);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t p1, p2, c;

	wl_init();
	if (argc < 2 || (strcmp(argv[1], "lock") != 0 &&
			 strcmp(argv[1], "items") != 0 &&
			 strcmp(argv[1], "reuse") != 0)) {
		fprintf(stderr, "usage: wq lock|items|reuse\n");
		return 2;
	}
	track_items = strcmp(argv[1], "lock") != 0;
	reuse = strcmp(argv[1], "reuse") == 0;
	if (track_items)
		WL_ANNOTATE(cpthread_untrack, &q);
	wl_silent_init(&u1);
	wl_silent_init(&u2);
	wl_silent_init(&ready);
	WL_OK(pthread_create(&p1, NULL, producer_1, NULL));
	WL_OK(pthread_create(&p2, NULL, producer_2, NULL));
	WL_OK(pthread_create(&c, NULL, consumer, NULL));
	WL_OK(pthread_join(p1, NULL));
	WL_OK(pthread_join(p2, NULL));
	WL_OK(pthread_join(c, NULL));
	if (take() != &item_x)
		return 1;
	printf("wq %s done\n", argv[1]);
	return 0;
}
