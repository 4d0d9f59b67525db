/*
 * cp_symbolize.h - code addresses of a traced run to function names,
 * inline chains and source lines, offline, with elfutils (libdwfl, libdw).
 *
 * Every module of the run is reported at its recorded bias (executables,
 * PIE, shared libraries); the vDSO from the ELF image the trace carries.
 * A file whose build-id differs from the recorded one (rebuilt since the
 * run) is not used; the separate debug file of that build-id is taken
 * instead when present.  Debug information comes from the file or from
 * its separate debug file, found by build-id under the debuginfo path
 * (default: /usr/lib/debug, i.e. /usr/lib/debug/.build-id/xx/yyyy.debug).
 *
 * What a name rests on, best first: DWARF (the subprogram and every
 * inlined subroutine around the address, with file:line); the ELF symbol
 * table, or the dynamic one when the file is stripped, but only a symbol
 * whose extent holds the address; else "module+0xOFFSET" (OFFSET: the
 * start of the function holding the address as the module's .eh_frame
 * records it, so that one function is one name; the address itself when
 * no FDE covers it; both minus the module's bias, as addr2line takes
 * them).  Never a name
 * that merely precedes the address.  Addresses in no module go to the
 * caller's fallback, else print as "0xADDR".
 *
 * Lookups are cached per address.  Not thread-safe: one user at a time.
 */
#ifndef CP_SYMBOLIZE_H
#define CP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cp_samples.h"

/* One frame of an address's (possibly inlined) call chain. */
struct cp_symframe {
	const char *name;	/* function, or "module+0x..." / "0x..." */
	const char *file;	/* source file, or NULL */
	uint32_t line;		/* 0: unknown */
	bool inlined;		/* inlined into the next frame */
};

/* Name of an address in no module (e.g. from the trace's SYMBOLS); may
 * return @buf or a string that outlives the symbolizer, NULL for none. */
typedef const char *(*cp_symbolize_fallback)(void *ctx, uint64_t addr,
					     char *buf, size_t len);

struct cp_symbolize_stats {
	uint32_t modules;	/* reported */
	uint32_t no_file;	/* module file missing or changed, no debug
				 * file either: module+0x... names */
	uint32_t no_file_used;	/* those an address looked up fell in */
	const char *first_no_file;	/* the first of those: its path */
	uint32_t no_debug;	/* usable file but no DWARF: no inline
				 * frames, no lines */
	uint64_t lookups;	/* distinct addresses resolved */
};

struct cp_symbolizer;

/*
 * Report @n modules (which must outlive the symbolizer).  @debug_path:
 * colon-separated debuginfo roots, NULL for the default.  @fb/@fb_ctx:
 * the fallback for addresses in no module, or NULL.  Returns NULL only
 * when out of memory or when elfutils cannot start (reason in @err).
 */
struct cp_symbolizer *cp_symbolize_open(const struct cp_module *mods,
					uint32_t n, const char *debug_path,
					cp_symbolize_fallback fb, void *fb_ctx,
					char *err, size_t errlen);

/*
 * The frames of code address @pc (for a return address, pass it minus
 * one), innermost first: *@out points at the returned number (>= 1) of
 * frames, owned by @sy and valid until it is closed.  0 only when out of
 * memory.
 */
uint32_t cp_symbolize(struct cp_symbolizer *sy, uint64_t pc,
		      const struct cp_symframe **out);

/* What the symbolizer found so far. */
const struct cp_symbolize_stats *cp_symbolize_stats(
	const struct cp_symbolizer *sy);

void cp_symbolize_close(struct cp_symbolizer *sy);

/*
 * The demangled form of the C++ (Itanium ABI) symbol name @name, as g++'s
 * tools print it ("ns::C<int>::run(unsigned int)"); NULL when @name is
 * not a mangled name or cannot be demangled.  The caller frees the
 * result.  Any thread.
 */
char *cp_symbolize_demangle(const char *name);

#endif /* CP_SYMBOLIZE_H */
