/*
 * cp_symbolize.c - names, inline chains and lines of code addresses, by
 * elfutils' libdwfl (modules at their bias, debug files by build-id) and
 * libdw (DWARF scopes of an address).
 *
 * The inline chain of an address is the list of DW_TAG_inlined_subroutine
 * DIEs around it, innermost first, ended by the DW_TAG_subprogram that
 * holds them: the scopes around the address (scopes_of(): libdw's
 * dwarf_getscopes, or a search of the unit's namespaces where rustc puts
 * its functions).  The innermost
 * frame's line is the line table's; each outer frame's is the call site
 * its inner frame records (DW_AT_call_file, DW_AT_call_line).  Names follow
 * DW_AT_abstract_origin and DW_AT_specification (dwarf_attr_integrate), so
 * an out-of-line clone (foo.part.0) reads as its source function.
 *
 * Cache: address -> (first frame, count) in a hash map; the frames live
 * in one growing array, their strings in libdw's own tables (valid while
 * the Dwfl lives) or in a pool of formatted names.
 */
#define _GNU_SOURCE
#include "cp_symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cp_grow.h"
#include "cp_hash.h"

#define DEFAULT_DEBUG_ROOT "/usr/lib/debug"

struct cp_symbolizer {
	Dwfl *dwfl;
	Dwfl_Callbacks cb;
	char *debug_path;		/* owned copy, or NULL */
	const struct cp_module *mods;
	uint32_t nmods;
	uint8_t *nofile;		/* [nmods] 1: no usable file, 2: and
					 * an address fell in it */
	cp_symbolize_fallback fb;
	void *fb_ctx;

	struct cp_map2 cache;		/* (pc, 0) -> entry */
	struct ent { uint32_t off, n; } *ent;	/* an address's frames */
	uint32_t nent, cap_ent;
	struct cp_symframe *frames;
	uint32_t nframes, cap_frames;
	char **pool;			/* formatted names */
	uint32_t npool, cap_pool;
	struct cp_symbolize_stats st;
};

/*
 * Names are demangled by libiberty's cplus_demangle, the demangler of
 * binutils: gprof, c++filt and addr2line print names through it, and the
 * gprof comparison matches rows by name.  For C++ it is the same code as
 * libstdc++'s __cxa_demangle (on the 5,893 C++ symbols libstdc++.so
 * exports, the two print the same); it also reads Rust's two manglings,
 * the legacy one ("_ZN3std2io5Write9write_all17h<hash>E", printed without
 * the hash, as rustc's own tools print it) and v0 ("_RNv..."), which
 * __cxa_demangle does not.  Debian ships libiberty only as a static
 * archive (libiberty-dev); its demangler files carry a linking exception.
 * The options name the style (DMGL_AUTO), so no global is read: any
 * thread may call it.
 */
char *cp_symbolize_demangle(const char *name)
{
	/* (a name from a damaged trace may be anything: a bound on what
	 * the demangler's recursion gets) */
	if (!name || (strncmp(name, "_Z", 2) && strncmp(name, "_R", 2)) ||
	    strlen(name) > 4096)
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}

/* A formatted name kept for the symbolizer's life; NULL out of memory. */
static const char *keep(struct cp_symbolizer *sy, const char *s)
{
	char *c;

	if (cp_grow32((void **)&sy->pool, sizeof(*sy->pool), &sy->cap_pool,
		      sy->npool + 1))
		return NULL;
	c = strdup(s);
	if (c)
		sy->pool[sy->npool++] = c;
	return c;
}

/* The build-id of the ELF file @fd, into @id (at most 64 bytes). */
static ssize_t file_build_id(int fd, uint8_t *id)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *p;
	ssize_t n = -1;

	if (!elf)
		return -1;
	n = dwelf_elf_gnu_build_id(elf, &p);
	if (n > 0 && n <= 64)
		memcpy(id, p, (size_t)n);
	else
		n = -1;
	elf_end(elf);
	return n;
}

/* Open @path if it is the module's build (same build-id, or the module
 * recorded none); -1 otherwise. */
static int open_matching(const struct cp_module *m, const char *path)
{
	uint8_t id[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !m->idlen)
		return fd;
	n = file_build_id(fd, id);
	if (n == (ssize_t)m->idlen && !memcmp(id, m->build_id, m->idlen))
		return fd;
	close(fd);
	return -1;
}

/* The separate debug file of the module's build-id under a debuginfo
 * root: ROOT/.build-id/xx/yyyy.debug; -1 when none. */
static int open_debug_file(const struct cp_symbolizer *sy,
			   const struct cp_module *m)
{
	const char *roots = sy->debug_path ? sy->debug_path
					   : DEFAULT_DEBUG_ROOT;
	char path[4096], hex[2 * 255 + 1];

	if (!m->idlen)
		return -1;
	for (uint32_t i = 0; i < m->idlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", m->build_id[i]);
	while (*roots) {
		size_t l = strcspn(roots, ":");
		int fd;

		if (l && roots[0] == '/') {
			snprintf(path, sizeof(path),
				 "%.*s/.build-id/%.2s/%s.debug", (int)l, roots,
				 hex, hex + 2);
			fd = open_matching(m, path);
			if (fd >= 0)
				return fd;
		}
		roots += l + (roots[l] == ':');
	}
	return -1;
}

/* An fd holding the vDSO's image (an anonymous memory file). */
static int image_fd(const struct cp_module *m)
{
	int fd = memfd_create("cpt-vdso", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < m->image_size) {
		ssize_t w = write(fd, m->image + done, m->image_size - done);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	return fd;
}

/* Module @i has no usable file: its code goes by module+0x... names. */
static void no_file(struct cp_symbolizer *sy, uint32_t i)
{
	sy->st.no_file++;
	sy->nofile[i] = 1;
}

static void report(struct cp_symbolizer *sy, uint32_t i)
{
	const struct cp_module *m = &sy->mods[i];
	const char *base = strrchr(m->path, '/');
	Dwfl_Module *mod;
	int fd = -1;

	base = base ? base + 1 : m->path;
	if (m->image)
		fd = image_fd(m);
	else if (m->path[0] == '/')
		fd = open_matching(m, m->path);
	if (fd < 0)
		fd = open_debug_file(sy, m);
	if (fd < 0) {
		no_file(sy, i);
		return;
	}
	/* add_p_vaddr: the base is the bias, for ET_DYN; ET_EXEC ignores it */
	mod = dwfl_report_elf(sy->dwfl, base, m->path, fd, m->bias, true);
	if (!mod) {
		close(fd);
		no_file(sy, i);
		return;
	}
	sy->st.modules++;
}

/* dwfl_getmodules() callback: count the modules without DWARF. */
static int count_debug(Dwfl_Module *mod, void **user, const char *name,
		       Dwarf_Addr start, void *arg)
{
	struct cp_symbolizer *sy = arg;
	Dwarf_Addr bias;

	(void)user;
	(void)name;
	(void)start;
	if (!dwfl_module_getdwarf(mod, &bias))
		sy->st.no_debug++;
	return DWARF_CB_OK;
}

struct cp_symbolizer *cp_symbolize_open(const struct cp_module *mods,
					uint32_t n, const char *debug_path,
					cp_symbolize_fallback fb, void *fb_ctx,
					char *err, size_t errlen)
{
	struct cp_symbolizer *sy = calloc(1, sizeof(*sy));

	if (!sy)
		goto err_mem;
	elf_version(EV_CURRENT);
	sy->mods = mods;
	sy->nmods = n;
	sy->nofile = calloc(n ? n : 1, 1);
	if (!sy->nofile)
		goto err_mem;
	sy->fb = fb;
	sy->fb_ctx = fb_ctx;
	if (debug_path) {
		sy->debug_path = strdup(debug_path);
		if (!sy->debug_path)
			goto err_mem;
	}
	sy->cb.find_elf = dwfl_build_id_find_elf;
	sy->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	sy->cb.debuginfo_path = &sy->debug_path;
	sy->dwfl = dwfl_begin(&sy->cb);
	if (!sy->dwfl) {
		snprintf(err, errlen, "elfutils: %s", dwfl_errmsg(-1));
		cp_symbolize_close(sy);
		return NULL;
	}
	dwfl_report_begin(sy->dwfl);
	for (uint32_t i = 0; i < n; i++)
		report(sy, i);
	dwfl_report_end(sy->dwfl, NULL, NULL);
	dwfl_getmodules(sy->dwfl, count_debug, sy, 0);
	return sy;
err_mem:
	snprintf(err, errlen, "out of memory");
	cp_symbolize_close(sy);
	return NULL;
}

/* Name of a DWARF function scope, through its origins: the linkage name
 * where there is one (C++: qualified, demangled by add_frame; *@linkage
 * set), else the plain name. */
static const char *die_name(Dwarf_Die *d, bool *linkage)
{
	Dwarf_Attribute a;

	*linkage = dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
		   dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a);
	if (*linkage)
		return dwarf_formstring(&a);
	if (!dwarf_attr_integrate(d, DW_AT_name, &a))
		return NULL;
	return dwarf_formstring(&a);
}

/* Whether the demangled @full ("ns::C<int>::run(int) const") names a
 * function whose plain DWARF name is @plain ("run", or "get<0>"). */
static bool names_plain(const char *full, const char *plain)
{
	const char *base = full;
	int depth = 0;

	for (const char *p = full; *p; p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>')
			depth--;
		else if (depth == 0 && *p == ':' && p[1] == ':')
			base = p + 2;
		else if (depth == 0 && *p == '(')
			return (size_t)(p - base) == strlen(plain) &&
			       !strncmp(base, plain, (size_t)(p - base));
	}
	return false;
}


/* Call site (file, line) an inlined subroutine records. */
static void call_site(Dwarf_Die *inl, Dwarf_Files *files, size_t nfiles,
		      const char **file, uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(inl, DW_AT_call_line, &a) && !dwarf_formudata(&a, &w))
		*line = (uint32_t)w;
	if (files && dwarf_attr(inl, DW_AT_call_file, &a) &&
	    !dwarf_formudata(&a, &w) && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
}

/* Add a frame; a C++ name demangled (kept for the symbolizer's life). */
static int add_frame(struct cp_symbolizer *sy, const char *name,
		     const char *file, uint32_t line, bool inlined)
{
	char *d = cp_symbolize_demangle(name);

	if (d) {
		name = keep(sy, d);
		free(d);
	}
	if (!name || cp_grow32((void **)&sy->frames, sizeof(*sy->frames),
			       &sy->cap_frames, sy->nframes + 1))
		return -1;
	sy->frames[sy->nframes++] = (struct cp_symframe){
		.name = name, .file = file, .line = line, .inlined = inlined,
	};
	return 0;
}

static const char *elf_symbol(Dwfl_Module *mod, uint64_t pc);

/*
 * A C++ function of which DWARF gives only the plain name (GCC writes no
 * linkage name for functions of internal linkage): the ELF symbol that
 * holds @pc, demangled, when it names that very function; else @plain.
 * A clone's suffix (" [clone .cold]") is cut: it is the same function.
 */
static const char *qualified(struct cp_symbolizer *sy, Dwfl_Module *mod,
			     uint64_t pc, const char *plain)
{
	char *d = cp_symbolize_demangle(elf_symbol(mod, pc)), *clone;
	const char *name = plain;

	if (!d)
		return plain;
	clone = strstr(d, " [clone ");
	if (clone)
		*clone = '\0';
	if (names_plain(d, plain))
		name = keep(sy, d);
	free(d);
	return name;
}

/*
 * The compilation unit of @pc in @mod and its @bias.  libdw (0.188, as in
 * Debian 12) finds it only through .debug_aranges, which clang does not
 * emit unless asked (-gdwarf-aranges), and takes the unit whose table
 * entry starts last before @pc, so an address that no entry covers (a
 * unit without one, as rustc's and hand-written ones) gets its
 * neighbour's: unless the unit found holds @pc, every CU's ranges are
 * tried in turn.  NULL when no CU holds @pc.
 */
static Dwarf_Die *cu_of(Dwfl_Module *mod, uint64_t pc, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);

	if (cu && dwarf_haspc(cu, pc - *bias) > 0)
		return cu;
	cu = NULL;
	while ((cu = dwfl_module_nextcu(mod, cu, bias)))
		if (dwarf_haspc(cu, pc - *bias) > 0)
			return cu;
	return NULL;
}

/* The file and line of @pc in @cu (*@file NULL if none). */
static void src_line(Dwfl_Module *mod, Dwarf_Die *cu, uint64_t pc,
		     Dwarf_Addr bias, const char **file, uint32_t *line)
{
	Dwfl_Line *dl = dwfl_module_getsrc(mod, pc);
	Dwarf_Line *l;
	int n = 0;

	if (dl) {
		*file = dwfl_lineinfo(dl, NULL, &n, NULL, NULL, NULL);
	} else if ((l = dwarf_getsrc_die(cu, pc - bias))) {
		/* no aranges: dwfl's lookup failed, the CU's table has it */
		*file = dwarf_linesrc(l, NULL, NULL);
		if (dwarf_lineno(l, &n))
			n = 0;
	}
	*line = n > 0 ? (uint32_t)n : 0;
}

/* Whether a DIE of tag @tag may hold code, itself or below it. */
static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		return true;
	default:
		return false;
	}
}

/*
 * The scopes around @pc below @parent, outermost first, appended to
 * @chain (@n of @cap used); whether one holds @pc.  A scope with an
 * address range is entered only when the range holds @pc; one without
 * (a namespace, a type) is searched, as it may hold functions.
 */
static int scope_walk(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die **chain,
		      uint32_t *n, uint32_t *cap, unsigned depth)
{
	Dwarf_Die c;
	int r;

	if (depth > 64 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		bool ranged;

		if (!may_hold_code(tag))
			continue;
		ranged = dwarf_hasattr(&c, DW_AT_low_pc) ||
			 dwarf_hasattr(&c, DW_AT_ranges);
		if (ranged ? dwarf_haspc(&c, pc) <= 0 :
		    tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine
		    || tag == DW_TAG_lexical_block)
			continue;
		if (cp_grow32((void **)chain, sizeof(**chain), cap, *n + 1))
			return -1;
		(*chain)[(*n)++] = c;
		r = scope_walk(&c, pc, chain, n, cap, depth + 1);
		if (r || ranged)
			return r < 0 ? r : 1;
		(*n)--;		/* a namespace without it */
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/*
 * The scopes around @pc in @cu, innermost first, ending with @cu, into
 * *@out (malloc'd); their count, or <= 0.  dwarf_getscopes finds them
 * where functions sit at the unit's top level (C, C++ from GCC), but
 * enters no namespace, where rustc puts every function: then they are
 * searched for here.  getscopes also follows an inlined instance into its
 * abstract definition; the concrete nesting (who it was inlined into) is
 * the innermost scope's chain of parents (dwarf_getscopes_die).
 */
static int scopes_of(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **out)
{
	Dwarf_Die *chain = NULL, *scopes = NULL, inner;
	uint32_t n = 0, cap = 0;
	int ns = dwarf_getscopes(cu, pc, &scopes);

	if (ns > 0) {
		inner = scopes[0];
		free(scopes);
		ns = dwarf_getscopes_die(&inner, out);
		if (ns > 0)
			return ns;
	} else {
		free(scopes);
	}
	if (scope_walk(cu, pc, &chain, &n, &cap, 0) <= 0 ||
	    cp_grow32((void **)&chain, sizeof(*chain), &cap, n + 1)) {
		free(chain);
		return 0;
	}
	chain[n++] = *cu;
	for (uint32_t i = 0; i < n / 2; i++) {
		inner = chain[i];
		chain[i] = chain[n - 1 - i];
		chain[n - 1 - i] = inner;
	}
	*out = chain;
	return (int)n;
}

/* The DWARF frames of @pc in @mod; how many were added (0: none). */
static uint32_t dwarf_frames(struct cp_symbolizer *sy, Dwfl_Module *mod,
			     uint64_t pc)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = cu_of(mod, pc, &bias);
	Dwarf_Die *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	const char *file = NULL;
	uint32_t line = 0, n0 = sy->nframes;
	int ns, lang;
	bool cxx;

	if (!cu)
		return 0;
	ns = scopes_of(cu, pc - bias, &scopes);
	if (ns <= 0)
		return 0;
	if (dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	lang = dwarf_srclang(cu);
	cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	      lang == DW_LANG_C_plus_plus_11 ||
	      lang == DW_LANG_C_plus_plus_14;
	src_line(mod, cu, pc, bias, &file, &line);
	for (int i = 0; i < ns; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name;
		bool linkage;

		if (tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_subprogram)
			continue;
		name = die_name(&scopes[i], &linkage);
		if (!name)
			break;
		if (!linkage && cxx && tag == DW_TAG_subprogram)
			name = qualified(sy, mod, pc, name);
		if (add_frame(sy, name, file, line,
			      tag == DW_TAG_inlined_subroutine))
			break;
		if (tag == DW_TAG_subprogram)
			break;
		/* the caller's line: where this one was inlined */
		call_site(&scopes[i], files, nfiles, &file, &line);
	}
	free(scopes);
	/* an inline chain must end in its subprogram, or it is not used */
	if (sy->nframes > n0 && sy->frames[sy->nframes - 1].inlined)
		sy->nframes = n0;
	return sy->nframes - n0;
}

/* The ELF (or dynamic) symbol whose extent holds @pc, or NULL. */
static const char *elf_symbol(Dwfl_Module *mod, uint64_t pc)
{
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL,
						NULL, NULL);

	if (!name || !name[0])
		return NULL;
	if (sym.st_size ? off >= sym.st_size : off != 0)
		return NULL;
	return name;
}

/* Section @want of @elf with contents in the file, its header in @sh;
 * or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/* Section @want of @elf: its link-time address and contents, or NULL. */
static Elf_Data *section(Elf *elf, const char *want, GElf_Addr *addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, want, &sh);

	if (!scn)
		return NULL;
	*addr = sh.sh_addr;
	return elf_getdata(scn, NULL);
}

/* Does section @want hold link-time address @pc?  Its header in @sh. */
static bool in_section(Elf *elf, const char *want, uint64_t pc,
		       GElf_Shdr *sh)
{
	return find_section(elf, want, sh) && pc >= sh->sh_addr &&
	       pc - sh->sh_addr < sh->sh_size && sh->sh_entsize;
}

/*
 * "NAME@plt" for link-time address @pc in a PLT stub, as binutils names
 * them: stub k of .plt.sec, or stub k + 1 of .plt (whose first entry is
 * the lazy resolver's), jumps through .rela.plt's entry k, whose symbol
 * the dynamic symbol table names.  NULL elsewhere (and for IRELATIVE
 * entries, which name no symbol).
 */
static const char *plt_name(struct cp_symbolizer *sy, Dwfl_Module *mod,
			    uint64_t pc)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Shdr sh, rsh, ssh;
	Elf_Scn *rela, *syms;
	Elf_Data *rd, *sd;
	GElf_Rela r;
	GElf_Sym sym;
	const char *name;
	uint64_t k;
	char buf[512];

	if (!elf)
		return NULL;
	if (in_section(elf, ".plt.sec", pc, &sh)) {
		k = (pc - sh.sh_addr) / sh.sh_entsize;
	} else if (in_section(elf, ".plt", pc, &sh)) {
		k = (pc - sh.sh_addr) / sh.sh_entsize;
		if (k-- == 0)
			return NULL;
	} else {
		return NULL;
	}
	rela = find_section(elf, ".rela.plt", &rsh);
	if (!rela || !(rd = elf_getdata(rela, NULL)) ||
	    !gelf_getrela(rd, (int)k, &r) || !GELF_R_SYM(r.r_info) ||
	    !(syms = elf_getscn(elf, rsh.sh_link)) ||
	    !gelf_getshdr(syms, &ssh) || !(sd = elf_getdata(syms, NULL)) ||
	    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
		return NULL;
	name = elf_strptr(elf, ssh.sh_link, sym.st_name);
	if (!name || !name[0])
		return NULL;
	snprintf(buf, sizeof(buf), "%s@plt", name);
	return keep(sy, buf);
}

static int32_t get_s32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The link-time start of the function holding link-time address @pc, by
 * the .eh_frame_hdr search table and the FDE it points at.  Only the
 * layout every x86-64 toolchain emits is read (table of datarel sdata4
 * pairs, FDE addresses pcrel sdata4); anything else, or an address in no
 * FDE's range, is false.
 */
static bool fde_start(Dwfl_Module *mod, uint64_t pc, uint64_t *start)
{
	GElf_Addr bias, hdr_at, frame_at;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Data *hdr, *frame;
	const uint8_t *h, *t, *f;
	uint32_t count, lo = 0, hi, range;
	uint64_t fde_at, begin;

	if (!elf || !(hdr = section(elf, ".eh_frame_hdr", &hdr_at)) ||
	    !(frame = section(elf, ".eh_frame", &frame_at)))
		return false;
	h = hdr->d_buf;
	/* version 1; eh_frame_ptr 4 bytes; fde_count udata4; datarel sdata4 */
	if (hdr->d_size < 12 || h[0] != 1 || (h[1] & 0x0f) != 0x0b ||
	    h[2] != 0x03 || h[3] != 0x3b)
		return false;
	memcpy(&count, h + 8, sizeof(count));
	if (count == 0 || (hdr->d_size - 12) / 8 < count)
		return false;
	t = h + 12;
	if (pc < hdr_at + (int64_t)get_s32(t))
		return false;
	/* the last entry starting at or below pc */
	hi = count;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (hdr_at + (int64_t)get_s32(t + 8 * mid) <= pc)
			lo = mid;
		else
			hi = mid;
	}
	begin = hdr_at + (int64_t)get_s32(t + 8 * lo);
	fde_at = hdr_at + (int64_t)get_s32(t + 8 * lo + 4);
	if (fde_at < frame_at || fde_at - frame_at + 16 > frame->d_size)
		return false;
	f = (const uint8_t *)frame->d_buf + (fde_at - frame_at);
	/* length, CIE pointer, pc_begin (pcrel sdata4), pc_range */
	if (get_s32(f) == -1 || fde_at + 8 + (int64_t)get_s32(f + 8) != begin)
		return false;
	memcpy(&range, f + 12, sizeof(range));
	if (pc >= begin + range)
		return false;
	*start = begin;
	return true;
}

static int resolve(struct cp_symbolizer *sy, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(sy->dwfl, pc);
	const struct cp_module *m = NULL;
	const char *name = NULL, *base;
	uint64_t off;
	char buf[512];

	if (mod && dwarf_frames(sy, mod, pc))
		return 0;
	if (mod)
		name = elf_symbol(mod, pc);
	if (name) {
		/* no subprogram DIE holds @pc, but the line table may: an
		 * OpenMP region's outlined function is nested in the
		 * abstract instance of an inlined function, which
		 * dwarf_getscopes does not descend into */
		const char *file = NULL;
		uint32_t line = 0;
		Dwarf_Addr bias;
		Dwarf_Die *cu = cu_of(mod, pc, &bias);

		if (cu)
			src_line(mod, cu, pc, bias, &file, &line);
		return add_frame(sy, name, file, line, false);
	}
	for (uint32_t i = 0; i < sy->nmods && !m; i++)
		if (pc >= sy->mods[i].lo && pc < sy->mods[i].hi)
			m = &sy->mods[i];
	if (m && mod && (name = plt_name(sy, mod, pc - m->bias)))
		return add_frame(sy, name, NULL, 0, false);
	if (m) {
		uint8_t *nf = &sy->nofile[m - sy->mods];

		if (*nf == 1) {		/* the first address in it */
			*nf = 2;
			if (!sy->st.no_file_used++)
				sy->st.first_no_file = m->path;
		}
		base = strrchr(m->path, '/');
		off = pc - m->bias;
		/* one name for all of a function's addresses */
		if (mod && !fde_start(mod, off, &off))
			off = pc - m->bias;
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64,
			 base ? base + 1 : m->path, off);
		return add_frame(sy, keep(sy, buf), NULL, 0, false);
	}
	if (sy->fb) {
		name = sy->fb(sy->fb_ctx, pc, buf, sizeof(buf));
		if (name == buf)
			name = keep(sy, buf);
		if (name)
			return add_frame(sy, name, NULL, 0, false);
	}
	snprintf(buf, sizeof(buf), "0x%" PRIx64, pc);
	return add_frame(sy, keep(sy, buf), NULL, 0, false);
}

uint32_t cp_symbolize(struct cp_symbolizer *sy, uint64_t pc,
		      const struct cp_symframe **out)
{
	uint32_t e = cp_map2_get(&sy->cache, pc, 0), n0;

	if (e == CP_HASH_NONE) {
		if (cp_grow32((void **)&sy->ent, sizeof(*sy->ent), &sy->cap_ent,
			      sy->nent + 1))
			return 0;
		n0 = sy->nframes;
		if (resolve(sy, pc) || sy->nframes == n0)
			return 0;
		e = sy->nent++;
		sy->ent[e].off = n0;
		sy->ent[e].n = sy->nframes - n0;
		if (cp_map2_put(&sy->cache, pc, 0, e))
			return 0;
		sy->st.lookups++;
	}
	*out = sy->frames + sy->ent[e].off;
	return sy->ent[e].n;
}

const struct cp_symbolize_stats *cp_symbolize_stats(
	const struct cp_symbolizer *sy)
{
	return &sy->st;
}

void cp_symbolize_close(struct cp_symbolizer *sy)
{
	if (!sy)
		return;
	if (sy->dwfl)
		dwfl_end(sy->dwfl);
	cp_map2_free(&sy->cache);
	free(sy->ent);
	free(sy->frames);
	for (uint32_t i = 0; i < sy->npool; i++)
		free(sy->pool[i]);
	free(sy->pool);
	free(sy->debug_path);
	free(sy->nofile);
	free(sy);
}
