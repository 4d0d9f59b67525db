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

int main(void)
{
	if (!setlocale(LC_ALL, ""))
		return 2;
	printf("1.5 in its locale: %.1f\n", 1.5);
	printf("count %lu\n", wl_two_threads(20000));
	return 0;
}
