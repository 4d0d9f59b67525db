/*
 * cp_modules.h - the module map of a trace: every object loaded in the
 * process (the executable, shared libraries, dlopen'ed ones, the vDSO),
 * written as CP_BLOCK_MODULES records (cp_trace_format.h) so the analyzer
 * can symbolize sampled addresses offline.
 *
 * Objects come from dl_iterate_phdr: path, load bias, the range of the
 * loaded segments and the GNU build-id read from the object's notes in
 * memory.  The vDSO exists in no file, so its ELF image goes inline.  An
 * object is written once per trace; a new block appears only when the
 * loader reports objects added since the last look (dlpi_adds).
 */
#ifndef CP_MODULES_H
#define CP_MODULES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Write a MODULES block with the objects loaded now that this trace does
 * not list yet (nothing when the loader added none since the last call).
 * Returns 0 or -errno.  Any thread outside signal handlers (it takes the
 * loader's lock through dl_iterate_phdr), guard raised.
 */
int cp_modules_update(void);

/* Forget what was written: a forked child starts its own trace.  Fork
 * child, single-threaded. */
void cp_modules_reset(void);

/*
 * The run-time range [*@lo, *@hi) of the tracer's own code, for unwinders
 * that skip its frames: the executable segments of the shared object that
 * holds it.  False when the tracer is linked into the executable (the
 * static library), whose range would hold the program's code too.  Any
 * thread outside signal handlers (dl_iterate_phdr).
 */
bool cp_modules_own_text(uintptr_t *lo, uintptr_t *hi);

/*
 * The run-time ranges of the executable segments of the objects loaded now
 * whose file name begins with one of @prefixes (NULL-terminated; the vDSO
 * is "linux-vdso.so"), at most @max, into @ranges; how many.  Any thread
 * outside signal handlers (dl_iterate_phdr).
 */
unsigned cp_modules_text_of(const char *const *prefixes,
			    uintptr_t (*ranges)[2], unsigned max);

/*
 * The object loaded now that holds run-time address @addr (the executable
 * or a shared library): its path into *@path (the executable's is
 * cp_symbols_exe()) and the address's link-time address in it into
 * *@off, what addr2line and a disassembly of the file name it by.  False
 * when no loaded segment holds @addr.  Any thread outside signal handlers
 * (dl_iterate_phdr); *@path lives while the object stays loaded.
 */
bool cp_modules_locate(uint64_t addr, const char **path, uint64_t *off);

#endif /* CP_MODULES_H */
