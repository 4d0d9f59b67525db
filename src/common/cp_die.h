/*
 * cp_die.h - the one exit for failures that cannot happen.
 */
#ifndef CP_DIE_H
#define CP_DIE_H

/*
 * Print "cpthread: FILE:FUNC@LINE: MSG" on stderr without allocating and
 * abort.  For broken invariants only (a tracer-private lock failing, a
 * debug check of cp_debug.h); never for a user's bad input.  Any thread,
 * signal handlers included (write(2) and abort() only); @msg a string
 * that outlives the call.
 */
#define cp_die(msg) cp_die_at(__FILE__, __func__, __LINE__, (msg))

__attribute__((noreturn, visibility("hidden")))
void cp_die_at(const char *file, const char *func, int line, const char *msg);

#endif /* CP_DIE_H */
