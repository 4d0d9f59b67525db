/*
 * cp_cpus.c - the processors a program may run on, and the note on
 * useful time spent waiting for one (cp_cpus.h).
 */
#include "cp_cpus.h"

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

/* Below this share of the useful time (1/20: 5 %), time waiting for a
 * processor goes without a note. */
#define CPUS_NOTE_SHARE 20

unsigned cp_cpus_count(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return (unsigned)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 0;
}

bool cp_cpus_note(char *buf, size_t len, uint64_t useful_ns,
		  uint64_t elapsed_ns, unsigned ncpu)
{
	uint64_t cap;

	if (!ncpu || elapsed_ns > UINT64_MAX / ncpu)
		return false;
	cap = elapsed_ns * ncpu;
	if (useful_ns <= cap || useful_ns - cap < useful_ns / CPUS_NOTE_SHARE)
		return false;
	snprintf(buf, len, "The threads were useful (running, or runnable and "
		 "waiting for a processor) for %.3f s in %.3f s, and the %u "
		 "processor%s the program could run on give%s %.3f s in that "
		 "time: at least %.3f s went waiting for a processor, which "
		 "the wall clock counts as useful time and as work on the "
		 "critical path (CPTHREAD_CLOCK=cpu measures the time each "
		 "thread ran instead).", (double)useful_ns / 1e9,
		 (double)elapsed_ns / 1e9, ncpu, ncpu == 1 ? "" : "s",
		 ncpu == 1 ? "s" : "",
		 (double)cap / 1e9, (double)(useful_ns - cap) / 1e9);
	return true;
}
