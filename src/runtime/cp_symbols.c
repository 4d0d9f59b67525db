
#include "cp_symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* One ELF file mapped read-only, and its chosen symbol table. */
struct elf_map {
	const uint8_t *map;
	size_t len;
	const Elf64_Sym *syms;
	size_t nsyms;
	const char *strtab;
	size_t strtab_len;
	uint64_t base;		/* run-time minus link-time address */
};

static char cp_exe[PATH_MAX];
static struct elf_map cp_exe_map;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;	/* the first object is the executable */
}

/* Pick the full symbol table, else the dynamic one. */
static int find_symtab(struct elf_map *m)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Shdr *sh;
	const Elf64_Shdr *best = NULL;

	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > m->len)
		return -ENOEXEC;
	sh = (const Elf64_Shdr *)(m->map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB)
			best = &sh[i];
		else if (sh[i].sh_type == SHT_DYNSYM && !best)
			best = &sh[i];
	}
	if (!best || best->sh_link >= eh->e_shnum)
		return -ENOENT;
	const Elf64_Shdr *str = &sh[best->sh_link];

	if (best->sh_offset + best->sh_size > m->len ||
	    str->sh_offset + str->sh_size > m->len)
		return -ENOEXEC;
	m->syms = (const Elf64_Sym *)(m->map + best->sh_offset);
	m->nsyms = best->sh_size / sizeof(Elf64_Sym);
	m->strtab = (const char *)(m->map + str->sh_offset);
	m->strtab_len = str->sh_size;
	return 0;
}

/* Map @path and find its symbols; 0 or -errno (then nothing is mapped).
 * Keeps errno. */
static int elf_open(struct elf_map *m, const char *path)
{
	struct stat st;
	int fd, rc, saved = errno;

	memset(m, 0, sizeof(*m));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		goto fail;
	}
	m->len = (size_t)st.st_size;
	m->map = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		goto fail;
	}
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		rc = -ENOEXEC;
	else
		rc = find_symtab(m);
	if (rc) {
		munmap((void *)m->map, m->len);
		memset(m, 0, sizeof(*m));
	}
	errno = saved;
	return rc;
fail:
	errno = saved;
	return -ENOENT;
}

int cp_symbols_load(void)
{
	ssize_t n;
	int rc;

	n = readlink("/proc/self/exe", cp_exe, sizeof(cp_exe) - 1);
	cp_exe[n > 0 ? n : 0] = '\0';
	rc = elf_open(&cp_exe_map, "/proc/self/exe");
	if (rc == 0 && ((const Elf64_Ehdr *)cp_exe_map.map)->e_type == ET_DYN)
		dl_iterate_phdr(first_object, &cp_exe_map.base);
	return rc;
}

static const char *sym_name(const struct elf_map *m, const Elf64_Sym *s)
{
	if (s->st_name >= m->strtab_len)
		return NULL;
	return m->strtab + s->st_name;
}

static int is_func(const Elf64_Sym *s)
{
	return ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_value != 0 &&
	       s->st_shndx != SHN_UNDEF;
}

uint64_t cp_symbols_lookup(const char *name)
{
	const struct elf_map *m = &cp_exe_map;

	for (size_t i = 0; i < m->nsyms; i++) {
		const char *n;

		if (!is_func(&m->syms[i]))
			continue;
		n = sym_name(m, &m->syms[i]);
		if (n && !strcmp(n, name))
			return m->syms[i].st_value + m->base;
	}
	return 0;
}

const char *cp_symbols_name_at(uint64_t addr)
{
	const struct elf_map *m = &cp_exe_map;

	for (size_t i = 0; i < m->nsyms; i++) {
		const Elf64_Sym *s = &m->syms[i];
		uint64_t a = s->st_value + m->base;

		if (is_func(s) && addr >= a && addr - a < s->st_size)
			return sym_name(m, s);
	}
	return NULL;
}

static void for_each(const struct elf_map *m,
		     void (*cb)(uint64_t addr, uint64_t size,
				const char *name, void *arg), void *arg)
{
	for (size_t i = 0; i < m->nsyms; i++) {
		const char *n;

		if (!is_func(&m->syms[i]))
			continue;
		n = sym_name(m, &m->syms[i]);
		if (n && *n)
			cb(m->syms[i].st_value + m->base, m->syms[i].st_size,
			   n, arg);
	}
}

void cp_symbols_for_each(void (*cb)(uint64_t addr, uint64_t size,
				    const char *name, void *arg), void *arg)
{
	for_each(&cp_exe_map, cb, arg);
}

/* The walk of cp_symbols_for_each_lib. */
struct lib_walk {
	void (*cb)(uint64_t addr, uint64_t size, const char *name, void *arg);
	void *arg;
	unsigned index;
};

static int each_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lib_walk *w = arg;
	struct elf_map m;

	(void)size;
	/* the executable first; the vDSO and the loader's own name have
	 * no file of that name */
	if (w->index++ == 0 || !info->dlpi_name || info->dlpi_name[0] != '/')
		return 0;
	if (elf_open(&m, info->dlpi_name))
		return 0;
	m.base = info->dlpi_addr;
	for_each(&m, w->cb, w->arg);
	munmap((void *)m.map, m.len);
	return 0;
}

void cp_symbols_for_each_lib(void (*cb)(uint64_t addr, uint64_t size,
					const char *name, void *arg),
			     void *arg)
{
	struct lib_walk w = { .cb = cb, .arg = arg };

	dl_iterate_phdr(each_lib, &w);
}

bool cp_symbols_imports(const char *name)
{
	const struct elf_map *m = &cp_exe_map;

	for (size_t i = 0; i < m->nsyms; i++) {
		const char *n;

		if (m->syms[i].st_shndx != SHN_UNDEF)
			continue;
		n = sym_name(m, &m->syms[i]);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

const char *cp_symbols_exe(void)
{
	return cp_exe;
}
