/*
 * robust_locale.c - a program in the locale its environment names
 * (setlocale(LC_ALL, "")): under the test's de_DE.UTF-8, whose decimal
 * point is a comma, it prints "1.5 in its locale: 1,5", then runs two
 * threads over a mutex and exits 0.  The tracer's report and summary,
 * written in the same process, must still write their numbers with a
 * point: a JSON number with a comma is no JSON.
 */
#include "wl.h"

#include <locale.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static unsigned long count;

static void *worker(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		WL_OK(pthread_mutex_lock(&m));
		count++;
		WL_OK(pthread_mutex_unlock(&m));
	}
	return arg;
}

int main(void)
{
	pthread_t t[2];

	if (!setlocale(LC_ALL, ""))
		return 2;
	printf("1.5 in its locale: %.1f\n", 1.5);
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_create(&t[i], NULL, worker, NULL));
	for (int i = 0; i < 2; i++)
		WL_OK(pthread_join(t[i], NULL));
	printf("count %lu\n", count);
	return 0;
}
