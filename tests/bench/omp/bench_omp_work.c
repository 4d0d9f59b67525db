/*
 * bench_omp_work.c - OpenMP programs for the tracer's overhead benchmark
 * (bench_omp.py), a team of two.  One argument picks the program; it
 * prints "elapsed_s X" and a checksum line, nothing else.
 *
 *   stencil  a 1-D Jacobi sweep per step, one worksharing loop (and its
 *            implicit barrier) per step; a step lasts about 100 us
 *   tasks    a task-parallel Fibonacci recursion with taskwait, serial
 *            below a cutoff (tasks of some tens of microseconds)
 *   dynamic  a loop of uneven iterations under schedule(dynamic)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STENCIL_N 200000
#define STENCIL_STEPS 5000
#define FIB_N 44
#define FIB_CUTOFF 24
#define DYN_ITERS 1000000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double stencil(void)
{
	double *a = calloc(STENCIL_N, sizeof(*a));
	double *b = calloc(STENCIL_N, sizeof(*b));
	double sum = 0;

	if (!a || !b)
		exit(1);
	a[STENCIL_N / 2] = b[STENCIL_N / 2] = 1e6;
#pragma omp parallel num_threads(2)
	{
		double *src = a, *dst = b, *tmp;

		for (int s = 0; s < STENCIL_STEPS; s++) {
#pragma omp for schedule(static)
			for (int i = 1; i < STENCIL_N - 1; i++)
				dst[i] = (src[i - 1] + src[i] + src[i + 1]) /
					 3.0;
			tmp = src;
			src = dst;
			dst = tmp;
		}
	}
	for (int i = 0; i < STENCIL_N; i++)
		sum += a[i];
	free(a);
	free(b);
	return sum;
}

static long fib_serial(int n)
{
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long fib(int n)
{
	long x, y;

	if (n < FIB_CUTOFF)
		return fib_serial(n);
#pragma omp task shared(x)
	x = fib(n - 1);
#pragma omp task shared(y)
	y = fib(n - 2);
#pragma omp taskwait
	return x + y;
}

static double tasks(void)
{
	long r = 0;

#pragma omp parallel num_threads(2)
#pragma omp single
	r = fib(FIB_N);
	return (double)r;
}

static double dynamic(void)
{
	double sum = 0;

#pragma omp parallel for schedule(dynamic) num_threads(2) reduction(+:sum)
	for (int i = 0; i < DYN_ITERS; i++) {
		double x = 0;

		for (int k = 0; k < 500 + (i % 7) * 300; k++)
			x += (double)((i ^ k) & 15);
		sum += x;
	}
	return sum;
}

int main(int argc, char **argv)
{
	const char *v = argc > 1 ? argv[1] : "";
	double t0, r;

	t0 = now_s();
	if (strcmp(v, "stencil") == 0)
		r = stencil();
	else if (strcmp(v, "tasks") == 0)
		r = tasks();
	else if (strcmp(v, "dynamic") == 0)
		r = dynamic();
	else
		return 2;
	printf("elapsed_s %.6f\nresult %.6g\n", now_s() - t0, r);
	return 0;
}
