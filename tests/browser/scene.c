/*
 * scene.c - a small traced program for the HTML report's browser test,
 * shaped like [Hollingsworth98]'s Raytrace: main reads the scene alone (the
 * other threads wait), then NT workers shade tiles taken from a shared counter
 * under a mutex, meet at a barrier, and main writes the image.
 *
 *   main:    read_scene 30 ms; create workers; join; write_image 5 ms
 *   worker:  repeat { lock; take a tile; unlock; shade_tile 3 ms }
 *            until the 24 tiles are gone; barrier; 2 ms of reduce
 *
 * Built with -finstrument-functions (procedures) and linked with
 * libcpthread; also built with -pg for gprof (scene_pg).  Time is burned
 * on the monotonic clock, so the run takes ~60 ms however loaded the
 * machine is.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define NT	3
#define TILES	24

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t bar;
static int next_tile;
static volatile uint64_t sink;

/* inlined into the procedures, so both profilers charge them */
__attribute__((no_instrument_function, always_inline))
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((no_instrument_function, always_inline))
static inline void burn(unsigned us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000u;

	/* mostly arithmetic, so gprof's samples land in the program's
	 * text rather than in the clock's vDSO */
	do {
		for (unsigned i = 0; i < 20000; i++)
			sink += i;
	} while (now_ns() < end);
}

__attribute__((noinline)) void read_scene(void);
__attribute__((noinline)) void shade_tile(int tile);
__attribute__((noinline)) void reduce(void);
__attribute__((noinline)) void write_image(void);

__attribute__((noinline)) void read_scene(void)
{
	burn(30000);
}

__attribute__((noinline)) void shade_tile(int tile)
{
	burn(3000 + (unsigned)(tile % 3) * 200);
}

__attribute__((noinline)) void reduce(void)
{
	burn(2000);
}

__attribute__((noinline)) void write_image(void)
{
	burn(5000);
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		int t;

		pthread_mutex_lock(&lock);
		t = next_tile < TILES ? next_tile++ : -1;
		pthread_mutex_unlock(&lock);
		if (t < 0)
			break;
		shade_tile(t);
	}
	pthread_barrier_wait(&bar);
	reduce();
	return NULL;
}

int main(void)
{
	pthread_t th[NT];

	read_scene();
	pthread_barrier_init(&bar, NULL, NT);
	for (int i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < NT; i++)
		pthread_join(th[i], NULL);
	write_image();
	pthread_barrier_destroy(&bar);
	printf("scene: %d tiles\n", next_tile);
	return 0;
}
