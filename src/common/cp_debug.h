/*
 * cp_debug.h - the one switch of the invariant checks.
 *
 * Every stateful module has a cp_<module>_assert() (or _check()) that
 * verifies its invariants and is turned on by a `static const bool
 * cp_<module>_debug = CP_DEBUG;` rather than #ifdef, so the checks are
 * compiled, type-checked and optimised away in every build.  CMake's
 * CPTHREAD_DEBUG option sets CP_DEBUG to 1 for the whole tree (the CI's
 * sanitizer stage builds that way); a check that fails calls cp_die() in
 * the runtime, abort() in the analyzer.
 */
#ifndef CP_DEBUG_H
#define CP_DEBUG_H

#ifndef CP_DEBUG
#define CP_DEBUG 0
#endif

#endif /* CP_DEBUG_H */
