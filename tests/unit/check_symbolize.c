/*
 * check_symbolize.c - symbolization for real: this test program reports
 * itself as a module (dl_iterate_phdr gives its bias and range), then asks
 * for the names, inline chain and lines of its own functions; copies of
 * itself without debug information (stripped, with the debug part as a
 * separate build-id file, with a wrong build-id) check the fallbacks; the
 * process's libc its dynamic symbols; the vDSO its inline image.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cp_profile.h"
#include "cp_sampled.h"
#include "cp_symbolize.h"
#include "cp_tracepag.h"
#include "trace_synth.h"

/* ---- the functions looked up ---------------------------------------- */

static volatile int sink;
static int leaf_first_line, leaf_last_line, inl_line, call_line;

__attribute__((noinline)) int sym_leaf(int x);
__attribute__((noinline)) int sym_leaf(int x)
{
	leaf_first_line = __LINE__;
	sink = x * 7;
	sink += x;
	leaf_last_line = __LINE__;
	return sink;
}

static uint64_t inl_pc;

/* Inlined into sym_outer even at -O0; records the address of an
 * instruction of its own body. */
static inline __attribute__((always_inline)) int sym_inl(int x)
{
	uint64_t pc;

#if defined(__x86_64__)
	__asm__ volatile("lea 0(%%rip), %0" : "=r"(pc)); inl_line = __LINE__;
#elif defined(__aarch64__)
	__asm__ volatile("adr %0, ." : "=r"(pc)); inl_line = __LINE__;
#else
#error "check_symbolize: no way to read the PC on this architecture"
#endif
	inl_pc = pc - 1;	/* inside the asm instruction */
	sink = x + 3;
	return sink;
}

__attribute__((noinline)) int sym_outer(int x);
__attribute__((noinline)) int sym_outer(int x)
{
	int r;

	call_line = __LINE__ + 1;
	r = sym_inl(x);
	sink = r;
	return r * 2;
}

/* ---- the module map of this process --------------------------------- */

struct mod {
	struct cp_module m;
	uint8_t id[64];
	char path[4096];
};

struct want {
	const char *name;	/* "": the main program */
	struct mod *out;
	bool found;
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct want *w = arg;
	uint64_t lo = UINT64_MAX, hi = 0;

	(void)size;
	if (w->found || (w->name[0] ? !strstr(info->dlpi_name, w->name)
				    : info->dlpi_name[0] != 0))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	w->out->m.bias = info->dlpi_addr;
	w->out->m.lo = lo;
	w->out->m.hi = hi;
	if (w->name[0])
		snprintf(w->out->path, sizeof(w->out->path), "%s",
			 info->dlpi_name);
	w->found = true;
	return 0;
}

/* The build-id of file @path into @m (0 bytes if none). */
static void build_id_of(struct mod *m, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	const void *p;
	ssize_t n;

	ck_assert_msg(fd >= 0, "open %s", path);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf ? dwelf_elf_gnu_build_id(elf, &p) : -1;
	m->m.idlen = n > 0 ? (uint32_t)n : 0;
	if (n > 0)
		memcpy(m->id, p, (size_t)n);
	m->m.build_id = m->id;
	elf_end(elf);
	close(fd);
}

/* This program as a module; @path: the file to name (NULL: itself). */
static void self_module(struct mod *m, const char *path)
{
	struct want w = { .name = "", .out = m };
	ssize_t n;

	memset(m, 0, sizeof(*m));
	dl_iterate_phdr(phdr_cb, &w);
	ck_assert_msg(w.found, "dl_iterate_phdr: no main program");
	n = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);
	ck_assert_msg(n > 0, "readlink /proc/self/exe");
	m->path[n] = 0;
	build_id_of(m, m->path);
	ck_assert_msg(m->m.idlen > 0, "%s has no build-id", m->path);
	if (path)
		snprintf(m->path, sizeof(m->path), "%s", path);
	m->m.path = m->path;
}

static struct cp_symbolizer *open1(struct mod *m, const char *dbg)
{
	char err[256] = "";
	struct cp_symbolizer *sy = cp_symbolize_open(&m->m, 1, dbg, NULL,
						     NULL, err, sizeof(err));

	ck_assert_msg(sy, "open: %s", err);
	return sy;
}

static const char *base(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;

	return b ? b + 1 : p;
}

static void check_leaf_full(struct cp_symbolizer *sy)
{
	const struct cp_symframe *f;
	uint32_t n;

	sym_leaf(1);	/* sets its line markers */
	n = cp_symbolize(sy, (uint64_t)(uintptr_t)sym_leaf + 4, &f);

	ck_assert_msg(n == 1 && !strcmp(f[0].name, "sym_leaf") &&
		      !f[0].inlined, "leaf: %u frames, '%s'", n,
		      n ? f[0].name : "");
	ck_assert_msg(f[0].file && !strcmp(base(f[0].file),
					   "check_symbolize.c") &&
		      f[0].line >= (uint32_t)leaf_first_line - 2 &&
		      f[0].line <= (uint32_t)leaf_last_line + 2,
		      "leaf at %s:%u, want check_symbolize.c:%d..%d",
		      f[0].file ? f[0].file : "?", f[0].line,
		      leaf_first_line - 2, leaf_last_line + 2);
}

/* ---- tests ------------------------------------------------------------ */

START_TEST(test_symbolize_self_names_lines)
{
	struct mod m;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f, *f2;

	sym_leaf(1);
	self_module(&m, NULL);
	sy = open1(&m, NULL);
	check_leaf_full(sy);
	/* cached: the same frames again */
	ck_assert(cp_symbolize(sy, (uint64_t)(uintptr_t)sym_leaf + 4, &f2));
	cp_symbolize(sy, (uint64_t)(uintptr_t)sym_leaf + 4, &f);
	ck_assert_msg(f == f2 && cp_symbolize_stats(sy)->lookups == 1,
		      "not cached: %" PRIu64 " lookups",
		      cp_symbolize_stats(sy)->lookups);
	cp_symbolize_close(sy);
}
END_TEST

START_TEST(test_symbolize_inline_chain)
{
	struct mod m;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	uint32_t n;

	sym_outer(2);
	self_module(&m, NULL);
	sy = open1(&m, NULL);
	n = cp_symbolize(sy, inl_pc, &f);
	ck_assert_msg(n == 2, "inline chain of %u frames ('%s')", n,
		      n ? f[0].name : "");
	ck_assert_msg(!strcmp(f[0].name, "sym_inl") && f[0].inlined &&
		      !strcmp(f[1].name, "sym_outer") && !f[1].inlined,
		      "chain %s%s < %s%s", f[0].name,
		      f[0].inlined ? "(inlined)" : "", f[1].name,
		      f[1].inlined ? "(inlined)" : "");
	ck_assert_msg(f[0].line == (uint32_t)inl_line &&
		      !strcmp(base(f[0].file), "check_symbolize.c"),
		      "inlined at %s:%u, want line %d", f[0].file, f[0].line,
		      inl_line);
	ck_assert_msg(f[1].line == (uint32_t)call_line && f[1].file &&
		      !strcmp(base(f[1].file), "check_symbolize.c"),
		      "call site %s:%u, want line %d",
		      f[1].file ? f[1].file : "?", f[1].line, call_line);
	cp_symbolize_close(sy);
}
END_TEST

static void run(const char *cmd)
{
	int r = system(cmd);

	ck_assert_msg(r == 0, "'%s' exited %d", cmd, r);
}

/*
 * A stripped copy: no name for a function the dynamic symbol table does
 * not hold, only module+0xOFFSET of the function's start, from its FDE
 * (never the name of a neighbour); then the
 * same copy with the debug part as a separate file found by build-id.
 */
START_TEST(test_symbolize_stripped_and_debug_file)
{
	char dir[] = "/tmp/cpt-symXXXXXX", cmd[16384], path[4200], dbg[4300];
	char want[128], hex[129];
	struct mod m, self;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	uint64_t pc = (uint64_t)(uintptr_t)sym_leaf + 4;
	uint32_t n;

	ck_assert(mkdtemp(dir));
	self_module(&self, NULL);
	snprintf(path, sizeof(path), "%s/stripped", dir);
	snprintf(cmd, sizeof(cmd), "strip -s -o '%s' '%s'", path, self.path);
	run(cmd);
	self_module(&m, path);
	sy = open1(&m, dir);	/* no debug files there yet */
	n = cp_symbolize(sy, pc, &f);
	/* the offset of the function's start (its FDE), not of pc */
	snprintf(want, sizeof(want), "stripped+0x%" PRIx64,
		 (uint64_t)(uintptr_t)sym_leaf - m.m.bias);
	ck_assert_msg(n == 1 && !strcmp(f[0].name, want) && !f[0].file,
		      "stripped: '%s', want '%s'", n ? f[0].name : "", want);
	ck_assert_msg(cp_symbolize_stats(sy)->no_debug == 1, "no_debug %u",
		      cp_symbolize_stats(sy)->no_debug);
	cp_symbolize_close(sy);

	for (uint32_t i = 0; i < m.m.idlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", m.id[i]);
	snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s", dir, hex);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && objcopy "
		 "--only-keep-debug '%s' '%s/%s.debug'", dbg, self.path, dbg,
		 hex + 2);
	run(cmd);
	sy = open1(&m, dir);
	check_leaf_full(sy);
	cp_symbolize_close(sy);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	run(cmd);
}
END_TEST

/*
 * A copy without .debug_aranges (clang's default): libdw cannot find the
 * compilation unit by address, the symbolizer still gives the name, the
 * file and line, and the inline chain.
 */
START_TEST(test_symbolize_no_aranges)
{
	char dir[] = "/tmp/cpt-symXXXXXX", cmd[16384], path[4200];
	struct mod m, self;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	uint32_t n;

	sym_outer(2);
	ck_assert(mkdtemp(dir));
	self_module(&self, NULL);
	snprintf(path, sizeof(path), "%s/noaranges", dir);
	snprintf(cmd, sizeof(cmd), "objcopy --remove-section=.debug_aranges "
		 "'%s' '%s'", self.path, path);
	run(cmd);
	snprintf(cmd, sizeof(cmd), "! readelf -S '%s' | grep -q "
		 "debug_aranges", path);
	run(cmd);
	self_module(&m, path);
	sy = open1(&m, NULL);
	check_leaf_full(sy);
	n = cp_symbolize(sy, inl_pc, &f);
	ck_assert_msg(n == 2 && !strcmp(f[0].name, "sym_inl") &&
		      f[0].line == (uint32_t)inl_line &&
		      !strcmp(f[1].name, "sym_outer"),
		      "inline chain of %u frames ('%s':%u)", n,
		      n ? f[0].name : "", n ? f[0].line : 0);
	cp_symbolize_close(sy);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	run(cmd);
}
END_TEST

/* A file that is not the recorded build: not used, so no wrong name. */
START_TEST(test_symbolize_changed_file_not_used)
{
	struct mod m;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	uint64_t pc = (uint64_t)(uintptr_t)sym_leaf + 4;
	char want[4200];
	uint32_t n;

	self_module(&m, NULL);
	m.id[0] ^= 0xff;
	sy = open1(&m, "/nonexistent");
	ck_assert_uint_eq(cp_symbolize_stats(sy)->no_file_used, 0);
	n = cp_symbolize(sy, pc, &f);
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, base(m.path),
		 pc - m.m.bias);
	ck_assert_msg(n == 1 && !strcmp(f[0].name, want),
		      "changed file: '%s', want '%s'", n ? f[0].name : "",
		      want);
	ck_assert_msg(cp_symbolize_stats(sy)->no_file == 1, "no_file %u",
		      cp_symbolize_stats(sy)->no_file);
	/* the warning's figures: the module an address fell in, once */
	(void)cp_symbolize(sy, pc + 1, &f);
	ck_assert_uint_eq(cp_symbolize_stats(sy)->no_file_used, 1);
	ck_assert_str_eq(cp_symbolize_stats(sy)->first_no_file, m.path);
	/* an address in no module: "0x..." */
	n = cp_symbolize(sy, 0x10, &f);
	ck_assert_msg(n == 1 && !strcmp(f[0].name, "0x10"), "'%s'",
		      f[0].name);
	cp_symbolize_close(sy);
}
END_TEST

/* libc without its debug files: the dynamic symbol table names getpid. */
START_TEST(test_symbolize_dynamic_symbols)
{
	struct mod m;
	struct want w = { .name = "libc.so", .out = &m };
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	uint64_t pc = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid") + 1;
	size_t l;
	uint32_t n;

	memset(&m, 0, sizeof(m));
	dl_iterate_phdr(phdr_cb, &w);
	ck_assert_msg(w.found, "no libc.so in this process");
	build_id_of(&m, m.path);
	m.m.path = m.path;
	sy = open1(&m, "/nonexistent");
	n = cp_symbolize(sy, pc, &f);
	l = n ? strlen(f[0].name) : 0;
	ck_assert_msg(n == 1 && l >= 6 && !strcmp(f[0].name + l - 6, "getpid"),
		      "libc getpid: '%s'", n ? f[0].name : "");
	cp_symbolize_close(sy);
}
END_TEST

/*
 * A PLT stub of this program is "NAME@plt", as objdump names it (the
 * stub has no symbol; the .plt's FDE would otherwise lump every stub
 * under the .plt's start).
 */
START_TEST(test_symbolize_plt_stub)
{
	char cmd[4200], line[512], name[256], want[300];
	struct mod m;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	unsigned long long at = 0;
	bool found = false;
	uint32_t n;
	FILE *p;

	self_module(&m, NULL);
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec '%s'",
		 m.path);
	p = popen(cmd, "r");
	ck_assert(p);
	while (!found && fgets(line, sizeof(line), p))
		found = strstr(line, "@plt>:\n") &&
			sscanf(line, "%llx <%255[^@]@plt>:", &at, name) == 2;
	pclose(p);
	ck_assert_msg(found, "no NAME@plt stub in objdump's listing");
	sy = open1(&m, NULL);
	n = cp_symbolize(sy, m.m.bias + at + 4, &f);
	snprintf(want, sizeof(want), "%s@plt", name);
	ck_assert_msg(n == 1 && !strcmp(f[0].name, want), "stub at 0x%llx: "
		      "'%s', want '%s'", at, n ? f[0].name : "", want);
	cp_symbolize_close(sy);
}
END_TEST

/* The vDSO from its image alone (it exists in no file). */
START_TEST(test_symbolize_vdso_image)
{
	const uint8_t *img = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
	const ElfW(Phdr) *ph;
	struct mod m;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t vaddr = UINT64_MAX, value = 0, size;
	uint32_t n;
	size_t l;

	ck_assert_msg(img, "no vDSO in this process");
	size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	ph = (const ElfW(Phdr) *)(img + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < vaddr)
			vaddr = ph[i].p_vaddr;
	/* the symbol's link-time value, read from the image with libelf */
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)img, size);
	ck_assert(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *nm;

			gelf_getsym(d, (int)i, &s);
			nm = elf_strptr(elf, sh.sh_link, s.st_name);
			if (nm && !strcmp(nm, "__vdso_clock_gettime"))
				value = s.st_value;
		}
	}
	elf_end(elf);
	ck_assert_msg(value, "no __vdso_clock_gettime in the vDSO");
	memset(&m, 0, sizeof(m));
	m.m.bias = (uint64_t)(uintptr_t)img - vaddr;
	m.m.lo = (uint64_t)(uintptr_t)img;
	m.m.hi = m.m.lo + size;
	m.m.path = "[vdso]";
	m.m.image = img;
	m.m.image_size = (uint32_t)size;
	sy = open1(&m, "/nonexistent");
	n = cp_symbolize(sy, m.m.bias + value + 1, &f);
	l = n ? strlen(f[0].name) : 0;
	ck_assert_msg(n == 1 && l >= 13 &&
		      !strcmp(f[0].name + l - 13, "clock_gettime"),
		      "vdso: '%s'", n ? f[0].name : "");
	cp_symbolize_close(sy);
}
END_TEST

/*
 * The whole path: a trace whose MODULES block records this program and
 * whose samples stop in sym_leaf (called from sym_outer's caller chain)
 * and in the inlined sym_inl: the procedures are the real functions, the
 * inlined one nested in sym_outer, and the hot lines name this file.
 */
START_TEST(test_symbolize_trace_samples)
{
	struct cp_sampled_opts so = { .src = CP_PROCS_AUTO };
	struct cp_profile_opts po = { .exclusive = true };
	const struct cp_hotline *hl;
	struct cp_tracepag tp;
	struct cp_profile p;
	struct cp_trace t;
	struct synth s;
	struct mod m;
	char err[256] = "";
	uint8_t *buf;
	size_t len;
	uint64_t leaf[2], inl[2];
	bool in_outer = false;
	uint32_t nh;

	sym_outer(3);
	sym_leaf(1);
	self_module(&m, NULL);
	/* leaf and inlined code, "called" from sym_outer's first byte + 1 */
	leaf[0] = (uint64_t)(uintptr_t)sym_leaf + 4;
	leaf[1] = (uint64_t)(uintptr_t)sym_outer + 1;
	inl[0] = inl_pc;
	inl[1] = (uint64_t)(uintptr_t)sym_outer + 1;
	synth_init(&s);
	synth_start(&s, 0, -1);
	synth_exit(&s, 0, 4000);
	for (int i = 0; i < 4; i++)
		synth_sample(&s, 0, 500 + 1000 * (uint64_t)i,
			     500 + 1000 * (uint64_t)i, 1000, 0,
			     i < 2 ? leaf : inl, i < 2 ? 2 : 1);
	synth_module(&s, m.m.bias, m.m.lo, m.m.hi, m.id, (uint8_t)m.m.idlen,
		     m.path, NULL, 0);
	len = synth_encode(&s, &buf);
	ck_assert_msg(cp_trace_parse(&t, "self.cpt", buf, len, err,
				     sizeof(err)) == 0, "parse: %s", err);
	free(buf);
	ck_assert_msg(cp_sampled_apply(&t, &so, err, sizeof(err)) == 1,
		      "apply: %s", err);
	ck_assert(cp_tracepag_build(&tp, &t, err, sizeof(err)) == 0);
	ck_assert(cp_profile_compute(&p, &tp, &po, err, sizeof(err)) == 0);
	/* exclusive: sym_leaf [0, 2000), sym_inl [2000, 4000] */
	for (uint32_t i = 0; i < p.nprocs; i++) {
		const struct cp_proc_prof *pp = &p.procs[i];

		if (!strcmp(pp->name, "sym_leaf"))
			ck_assert_msg(pp->cpu_ns == 2000 && pp->samples == 2,
				      "sym_leaf %" PRIu64 " ns, %" PRIu64
				      " samples", pp->cpu_ns, pp->samples);
		else if (!strcmp(pp->name, "sym_inl"))
			ck_assert_msg(pp->cpu_ns == 2000 && pp->samples == 2,
				      "sym_inl %" PRIu64 " ns", pp->cpu_ns);
		else
			ck_assert_msg(!strcmp(pp->name, "sym_outer") &&
				      pp->cpu_ns == 0, "procedure '%s' %"
				      PRIu64 " ns", pp->name, pp->cpu_ns);
	}
	ck_assert_msg(p.nprocs == 3, "%u procedures", p.nprocs);
	/* sym_inl's calling context: inside sym_outer */
	for (uint32_t n = 1; n < tp.ncct; n++)
		if (!strcmp(tp.procs[tp.cct[n].proc], "sym_inl"))
			in_outer = !strcmp(tp.procs[tp.cct[tp.cct[n].parent]
						    .proc], "sym_outer");
	ck_assert_msg(in_outer, "sym_inl not under sym_outer");
	nh = cp_sampled_hotlines(&t, 10, &hl);
	ck_assert_msg(nh == 2 && hl[0].samples == 2 && hl[0].file &&
		      !strcmp(base(hl[0].file), "check_symbolize.c") &&
		      hl[0].line > 0, "hot lines: %u, first %s:%u", nh,
		      nh && hl[0].file ? hl[0].file : "?", nh ? hl[0].line : 0);
	cp_profile_free(&p);
	cp_tracepag_free(&tp);
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

/*
 * An instrumented trace with a module map: an ENTER address the runtime's
 * SYMBOLS do not hold is named by the symbolizer; one they hold keeps the
 * runtime's name.
 */
START_TEST(test_symbolize_enter_names)
{
	struct cp_sampled_opts so = { .src = CP_PROCS_AUTO };
	struct cp_tracepag tp;
	struct cp_trace t;
	struct synth s;
	struct mod m;
	char err[256] = "";
	uint8_t *buf;
	size_t len;
	bool leaf = false, named = false;

	self_module(&m, NULL);
	synth_init(&s);
	synth_symbol(&s, 0x1000, 0x10, "from_symbols");
	synth_start(&s, 0, -1);
	synth_enter(&s, 0, 1, (uint64_t)(uintptr_t)sym_leaf);
	synth_leave(&s, 0, 10);
	synth_enter(&s, 0, 1, 0x1000);
	synth_leave(&s, 0, 10);
	synth_exit(&s, 0, 1);
	synth_module(&s, m.m.bias, m.m.lo, m.m.hi, m.id, (uint8_t)m.m.idlen,
		     m.path, NULL, 0);
	len = synth_encode(&s, &buf);
	ck_assert_msg(cp_trace_parse(&t, "enter.cpt", buf, len, err,
				     sizeof(err)) == 0, "parse: %s", err);
	free(buf);
	ck_assert_msg(cp_sampled_apply(&t, &so, err, sizeof(err)) == 0,
		      "apply: %s", err);
	ck_assert(cp_tracepag_build(&tp, &t, err, sizeof(err)) == 0);
	for (uint32_t i = 0; i < tp.nprocs; i++) {
		leaf |= !strcmp(tp.procs[i], "sym_leaf");
		named |= !strcmp(tp.procs[i], "from_symbols");
	}
	ck_assert_msg(leaf && named && tp.nprocs == 2, "%u procedures: %s, %s",
		      tp.nprocs, tp.nprocs ? tp.procs[0] : "",
		      tp.nprocs > 1 ? tp.procs[1] : "");
	cp_tracepag_free(&tp);
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

/* C++ and Rust names read as binutils' tools print them; anything else
 * is left alone (NULL), a malformed mangling included. */
START_TEST(test_symbolize_demangle)
{
	static const char *const cases[][2] = {
		{ "_ZN4work5scaleEdj", "work::scale(double, unsigned int)" },
		{ "_ZN4work5MixerIiE5blendEj",
		  "work::Mixer<int>::blend(unsigned int)" },
		{ "_ZN4workL4spinEj", "work::spin(unsigned int)" },
		{ "_Z1fv.part.0", "f() [clone .part.0]" },
		/* Rust: legacy (its hash left out) and v0 */
		{ "_ZN3std2io5Write9write_all17hc053a3c75bd725d8E",
		  "std::io::Write::write_all" },
		{ "_RNvMs0_NtNtCsjrHSEGnQ3l9_3std4sync7barrierNtB5_7Barrier4wait",
		  "<std::sync::barrier::Barrier>::wait" },
		{ "_RNvCs1234_6cpttst5outer", "cpttst::outer" },
		{ "_R", NULL }, { "_RNv", NULL },
		{ "main", NULL }, { "_Z", NULL }, { "_ZN4work", NULL },
		{ "", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = cp_symbolize_demangle(cases[i][0]);

		ck_assert_msg(cases[i][1] ? d && !strcmp(d, cases[i][1]) : !d,
			      "%s: \"%s\", expected \"%s\"", cases[i][0],
			      d ? d : "(null)",
			      cases[i][1] ? cases[i][1] : "(null)");
		free(d);
	}
	ck_assert(!cp_symbolize_demangle(NULL));
}
END_TEST

/* sym_namespace.S: its function's DWARF as rustc writes it */
extern const uintptr_t sym_ns_addrs[2];

/*
 * A function whose code DWARF places inside a namespace (rustc does so
 * for every function; libdw's dwarf_getscopes looks only at the unit's
 * top level): its name, and the inline chain inside it, come from DWARF,
 * demangled, not from the ELF symbol.
 */
START_TEST(test_symbolize_namespace_scopes)
{
	struct mod m;
	struct cp_symbolizer *sy;
	const struct cp_symframe *f;
	uint32_t n;

	self_module(&m, NULL);
	sy = open1(&m, NULL);
	n = cp_symbolize(sy, sym_ns_addrs[0], &f);
	ck_assert_msg(n == 1 && !strcmp(f[0].name, "cpttst::outer") &&
		      !f[0].inlined, "outer: %u frames, '%s'", n,
		      n ? f[0].name : "");
	n = cp_symbolize(sy, sym_ns_addrs[1] + 1, &f);
	ck_assert_msg(n == 2 && !strcmp(f[0].name, "cpttst::inner") &&
		      f[0].inlined && !strcmp(f[1].name, "cpttst::outer") &&
		      !f[1].inlined, "inline chain: %u frames, '%s', '%s'", n,
		      n ? f[0].name : "", n > 1 ? f[1].name : "");
	cp_symbolize_close(sy);
}
END_TEST

/* An instrumented procedure named by a mangled symbol of the runtime's
 * SYMBOLS reads demangled in the procedure table. */
START_TEST(test_symbolize_enter_demangled)
{
	struct cp_tracepag tp;
	struct cp_trace t;
	struct synth s;
	char err[256] = "";
	uint8_t *buf;
	size_t len;

	synth_init(&s);
	synth_symbol(&s, 0x1000, 0x10, "_ZN4work5scaleEdj");
	synth_start(&s, 0, -1);
	synth_enter(&s, 0, 1, 0x1000);
	synth_leave(&s, 0, 10);
	synth_exit(&s, 0, 1);
	len = synth_encode(&s, &buf);
	ck_assert_msg(cp_trace_parse(&t, "cxx.cpt", buf, len, err,
				     sizeof(err)) == 0, "parse: %s", err);
	free(buf);
	ck_assert(cp_tracepag_build(&tp, &t, err, sizeof(err)) == 0);
	ck_assert_msg(tp.nprocs == 1 &&
		      !strcmp(tp.procs[0], "work::scale(double, unsigned int)"),
		      "%u procedures: %s", tp.nprocs,
		      tp.nprocs ? tp.procs[0] : "");
	cp_tracepag_free(&tp);
	cp_trace_free(&t);
	synth_free(&s);
}
END_TEST

static Suite *symbolize_suite(void)
{
	Suite *s = suite_create("symbolize");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_symbolize_self_names_lines);
	tcase_add_test(tc, test_symbolize_inline_chain);
	tcase_add_test(tc, test_symbolize_stripped_and_debug_file);
	tcase_add_test(tc, test_symbolize_no_aranges);
	tcase_add_test(tc, test_symbolize_changed_file_not_used);
	tcase_add_test(tc, test_symbolize_dynamic_symbols);
	tcase_add_test(tc, test_symbolize_plt_stub);
	tcase_add_test(tc, test_symbolize_vdso_image);
	tcase_add_test(tc, test_symbolize_trace_samples);
	tcase_add_test(tc, test_symbolize_enter_names);
	tcase_add_test(tc, test_symbolize_demangle);
	tcase_add_test(tc, test_symbolize_namespace_scopes);
	tcase_add_test(tc, test_symbolize_enter_demangled);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	/* no debuginfod server: what is found must be found here */
	unsetenv("DEBUGINFOD_URLS");
	sr = srunner_create(symbolize_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
