/*
 * cp_symbols.h - function symbols of the traced executable.
 *
 * The executable's ELF symbol table is mapped read-only from
 * /proc/self/exe and read in place: no allocation in the traced process.
 * Addresses are returned as they are at run time (load base added).
 */
#ifndef CP_SYMBOLS_H
#define CP_SYMBOLS_H

#include <stdint.h>

/* Map the executable's symbols; 0 or -errno.  Start-up, single-threaded. */
int cp_symbols_load(void);
/* Run-time address of function @name, 0 when there is none. */
uint64_t cp_symbols_lookup(const char *name);
/* Call @cb for every function symbol (address, size, name). */
void cp_symbols_for_each(void (*cb)(uint64_t addr, uint64_t size,
				    const char *name, void *arg), void *arg);
/* Path of the executable ("" when unknown). */
const char *cp_symbols_exe(void);

#endif /* CP_SYMBOLS_H */
