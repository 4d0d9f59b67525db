/*
 * cp_symbols.h - function symbols of the traced executable.
 *
 * The executable's ELF symbol table is mapped read-only from
 * /proc/self/exe and read in place: no allocation in the traced process.
 * Addresses are returned as they are at run time (load base added).
 *
 * Why a reader of our own rather than libelf or libdw: the runtime lives
 * inside the traced program, and those libraries allocate through the
 * program's malloc (changing what is measured, and unsafe from the hooks
 * that run inside it).  This one only maps the file.  The analyzer, which
 * runs in its own process, symbolizes with elfutils.
 *
 * The calls below other than cp_symbols_load() read the mapping only:
 * any thread, after cp_symbols_load(), which runs once at start-up.
 * Names point into the mapped file and live as long as the process.
 */
#ifndef CP_SYMBOLS_H
#define CP_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

/* Map the executable's symbols; 0 or -errno.  Start-up, single-threaded. */
int cp_symbols_load(void);
/* Run-time address of function @name, 0 when there is none. */
uint64_t cp_symbols_lookup(const char *name);
/*
 * Name of the executable's function holding run-time address @addr, or
 * NULL (an address in a library, or in no sized symbol).  As the symbol
 * table has it: a C++ name stays mangled (demangling would call the
 * program's malloc, at exit, perhaps from its signal handler).
 * O(symbols).
 */
const char *cp_symbols_name_at(uint64_t addr);
/* Call @cb for every function symbol (address, size, name). */
void cp_symbols_for_each(void (*cb)(uint64_t addr, uint64_t size,
				    const char *name, void *arg), void *arg);
/*
 * Call @cb for every function symbol of the shared objects loaded now,
 * the executable's excepted (each file's .symtab, else its .dynsym; each
 * file is mapped for the walk only).  Start-up, single-threaded: it holds
 * the loader's lock.
 */
void cp_symbols_for_each_lib(void (*cb)(uint64_t addr, uint64_t size,
					const char *name, void *arg),
			     void *arg);
/* Whether the executable uses @name without defining it (an import, such
 * as __cyg_profile_func_enter in a -finstrument-functions build). */
bool cp_symbols_imports(const char *name);
/* Path of the executable ("" when unknown). */
const char *cp_symbols_exe(void);

#endif /* CP_SYMBOLS_H */
