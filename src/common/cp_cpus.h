/*
 * cp_cpus.h - the processors a program may run on, and what the wall
 * clock's useful time says when its runnable threads outnumbered them.
 *
 * Under the wall clock a thread's useful time runs on while it is
 * runnable and waits for a processor, so the useful time of all threads
 * can exceed what the processors could give in the elapsed time; the part
 * beyond was spent waiting for one, and the critical path counts it as
 * work.  The runtime counts the processors at start (cp_rt.ncpus, and the
 * trace's INFO "cpus"); the online report and cpt's reports say the same
 * sentence from it.
 */
#ifndef CP_CPUS_H
#define CP_CPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Processors the calling process may run on (its affinity mask, else the
 * processors online); 0 when neither can be read. */
unsigned cp_cpus_count(void);

/*
 * When the useful time @useful_ns of a run under the wall clock exceeds
 * what @ncpu processors give in @elapsed_ns by at least a twentieth of
 * it, the sentence that says so into @buf (some 400 bytes); whether it
 * wrote one.  Nothing for @ncpu 0.
 */
bool cp_cpus_note(char *buf, size_t len, uint64_t useful_ns,
		  uint64_t elapsed_ns, unsigned ncpu);

#endif /* CP_CPUS_H */
