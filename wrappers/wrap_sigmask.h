/*
 * wrap_sigmask.h - the program's view of the sampler's signal in its masks
 * (wrap_sigmask.c), handed from a creating thread to the thread it creates.
 */
#ifndef WRAP_SIGMASK_H
#define WRAP_SIGMASK_H

#include <signal.h>
#include <stdbool.h>

/* Does the calling thread's program believe the sampler's signal blocked?
 * Any thread, its own view. */
bool cp_signal_held(void);

/* Start the calling (new) thread with its creator's view @held.  The new
 * thread, before it runs program code. */
void cp_signal_inherit(bool held);

/* Block every signal in the calling thread (the old mask into @old, if
 * not NULL).  Any thread. */
void cp_signal_block_all(sigset_t *old);

/* The calling thread is one of the tracer's own: every signal blocked,
 * now and whatever mask it asks for later.  The new thread, first. */
void cp_signal_internal(void);

#endif /* WRAP_SIGMASK_H */
