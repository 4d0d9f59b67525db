
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

static char cp_exe[PATH_MAX];
static const uint8_t *cp_map;
static size_t cp_map_len;
static const Elf64_Sym *cp_syms;
static size_t cp_nsyms;
static const char *cp_strtab;
static size_t cp_strtab_len;
static uint64_t cp_base;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;	/* the first object is the executable */
}

/* Pick the full symbol table, else the dynamic one. */
static int find_symtab(const Elf64_Ehdr *eh)
{
	const Elf64_Shdr *sh;
	const Elf64_Shdr *best = NULL;

	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > cp_map_len)
		return -ENOEXEC;
	sh = (const Elf64_Shdr *)(cp_map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB)
			best = &sh[i];
		else if (sh[i].sh_type == SHT_DYNSYM && !best)
			best = &sh[i];
	}
	if (!best || best->sh_link >= eh->e_shnum)
		return -ENOENT;
	const Elf64_Shdr *str = &sh[best->sh_link];

	if (best->sh_offset + best->sh_size > cp_map_len ||
	    str->sh_offset + str->sh_size > cp_map_len)
		return -ENOEXEC;
	cp_syms = (const Elf64_Sym *)(cp_map + best->sh_offset);
	cp_nsyms = best->sh_size / sizeof(Elf64_Sym);
	cp_strtab = (const char *)(cp_map + str->sh_offset);
	cp_strtab_len = str->sh_size;
	return 0;
}

int cp_symbols_load(void)
{
	struct stat st;
	ssize_t n;
	int fd, rc, saved = errno;

	n = readlink("/proc/self/exe", cp_exe, sizeof(cp_exe) - 1);
	cp_exe[n > 0 ? n : 0] = '\0';
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		goto fail;
	}
	cp_map_len = (size_t)st.st_size;
	cp_map = mmap(NULL, cp_map_len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (cp_map == MAP_FAILED) {
		cp_map = NULL;
		goto fail;
	}
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)cp_map;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64) {
		rc = -ENOEXEC;
		goto out;
	}
	rc = find_symtab(eh);
	if (eh->e_type == ET_DYN)
		dl_iterate_phdr(first_object, &cp_base);
out:
	errno = saved;
	return rc;
fail:
	errno = saved;
	return -ENOENT;
}

static const char *sym_name(const Elf64_Sym *s)
{
	if (s->st_name >= cp_strtab_len)
		return NULL;
	return cp_strtab + s->st_name;
}

static int is_func(const Elf64_Sym *s)
{
	return ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_value != 0 &&
	       s->st_shndx != SHN_UNDEF;
}

uint64_t cp_symbols_lookup(const char *name)
{
	for (size_t i = 0; i < cp_nsyms; i++) {
		const char *n;

		if (!is_func(&cp_syms[i]))
			continue;
		n = sym_name(&cp_syms[i]);
		if (n && !strcmp(n, name))
			return cp_syms[i].st_value + cp_base;
	}
	return 0;
}

void cp_symbols_for_each(void (*cb)(uint64_t addr, uint64_t size,
				    const char *name, void *arg), void *arg)
{
	for (size_t i = 0; i < cp_nsyms; i++) {
		const char *n;

		if (!is_func(&cp_syms[i]))
			continue;
		n = sym_name(&cp_syms[i]);
		if (n && *n)
			cb(cp_syms[i].st_value + cp_base, cp_syms[i].st_size,
			   n, arg);
	}
}

bool cp_symbols_imports(const char *name)
{
	for (size_t i = 0; i < cp_nsyms; i++) {
		const char *n;

		if (cp_syms[i].st_shndx != SHN_UNDEF)
			continue;
		n = sym_name(&cp_syms[i]);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

const char *cp_symbols_exe(void)
{
	return cp_exe;
}
