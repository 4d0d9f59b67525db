/*
 * life_names.c - threads the program names.
 *
 * T1 names itself "worker-a" with pthread_setname_np and ends; T2 names
 * itself "worker-b" with prctl(PR_SET_NAME) and ends; T3 keeps the
 * process's name and ends; T4 names itself "q\"\x01\xff" (a quote, a
 * control byte and a byte that is no UTF-8) and is still blocked on a
 * semaphore when main returns, so its name is read for the report while
 * it lives.  main keeps the process's name.  The reports name each
 * thread as the program did ("main" for the first; nothing for T3), the
 * JSON as valid UTF-8, and cpt's reader shows T4's odd bytes as '?'.
 */
#include "wl.h"

#include <sys/prctl.h>

static sem_t done, never;

static void *named(void *arg)
{
	const char *how = arg;

	if (!strcmp(how, "setname"))
		WL_OK(pthread_setname_np(pthread_self(), "worker-a"));
	else if (!strcmp(how, "prctl"))
		WL_OK(prctl(PR_SET_NAME, "worker-b", 0, 0, 0));
	else if (!strcmp(how, "odd"))
		WL_OK(pthread_setname_np(pthread_self(), "q\"\x01\xff"));
	wl_burn(2);
	WL_OK(sem_post(&done));
	if (!strcmp(how, "odd"))
		wl_sem_wait(&never);
	return NULL;
}

int main(void)
{
	static char *const how[] = { "setname", "prctl", "keep", "odd" };
	pthread_t t[4];

	wl_init();
	WL_OK(sem_init(&done, 0, 0));
	WL_OK(sem_init(&never, 0, 0));
	for (int i = 0; i < 4; i++) {
		WL_OK(pthread_create(&t[i], NULL, named, how[i]));
		wl_sem_wait(&done);	/* one at a time: tids 1 to 4 */
		if (i < 3)
			WL_OK(pthread_join(t[i], NULL));
	}
	printf("named\n");
	return 0;
}
