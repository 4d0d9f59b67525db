/*
 * cp_modules.c - the module map (format: cp_trace_format.h, "Module
 * records").
 */
#include "cp_modules.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>

#include "cp_alloc.h"
#include "cp_lock.h"
#include "cp_runtime.h"
#include "cp_symbols.h"
#include "cp_trace_format.h"
#include "cp_tracebuf.h"

#define CP_VDSO_IMAGE_MAX (1u << 20)	/* larger: not a vDSO we trust */

/* Objects this trace lists already, by (bias, start). */
struct cp_module_key {
	uint64_t bias, lo;
};

static struct cp_lock cp_modules_lock;
static struct cp_module_key *cp_seen;
static unsigned cp_nseen, cp_seen_cap;
static unsigned long long cp_last_adds;
static bool cp_listed;		/* a first block was written */

/* One walk of dl_iterate_phdr: the records of the objects not seen. */
struct walk {
	uint8_t *p;
	size_t n, cap;
	unsigned index;		/* callbacks so far (0: the executable) */
	unsigned long long adds;
	bool failed;		/* out of memory */
};

static void put(struct walk *w, const void *d, size_t n)
{
	if (w->failed)
		return;
	if (w->n + n > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		uint8_t *np;

		while (cap < w->n + n)
			cap *= 2;
		np = cp_realloc(w->p, cap);
		if (!np) {
			w->failed = true;
			return;
		}
		w->p = np;
		w->cap = cap;
	}
	memcpy(w->p + w->n, d, n);
	w->n += n;
}

static bool seen(uint64_t bias, uint64_t lo)
{
	for (unsigned i = 0; i < cp_nseen; i++)
		if (cp_seen[i].bias == bias && cp_seen[i].lo == lo)
			return true;
	return false;
}

static void remember(uint64_t bias, uint64_t lo)
{
	if (cp_nseen == cp_seen_cap) {
		unsigned cap = cp_seen_cap ? cp_seen_cap * 2 : 64;
		struct cp_module_key *ns = cp_realloc(cp_seen,
						      cap * sizeof(*ns));

		if (!ns)
			return;	/* listed again next time: harmless */
		cp_seen = ns;
		cp_seen_cap = cap;
	}
	cp_seen[cp_nseen].bias = bias;
	cp_seen[cp_nseen].lo = lo;
	cp_nseen++;
}

/* The GNU build-id in a PT_NOTE segment mapped at @p, @len bytes. */
static const uint8_t *build_id(const uint8_t *p, size_t len, unsigned *idlen)
{
	const uint8_t *end = p + len;

	while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
		const Elf64_Nhdr *nh = (const Elf64_Nhdr *)p;
		size_t name = (nh->n_namesz + 3u) & ~3u;
		size_t desc = (nh->n_descsz + 3u) & ~3u;
		const uint8_t *d = p + sizeof(*nh) + name;

		if (name + desc > (size_t)(end - p) - sizeof(*nh))
			break;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz <= 255) {
			*idlen = nh->n_descsz;
			return d;
		}
		p = d + desc;
	}
	return NULL;
}

/* Bytes of the vDSO's ELF image at @lo whose segments end at @hi. */
static uint32_t vdso_size(uint64_t lo, uint64_t hi)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(uintptr_t)lo;
	uint64_t n = hi - lo;
	uint64_t sh = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return 0;
	if (sh > n)
		n = sh;
	return n <= CP_VDSO_IMAGE_MAX ? (uint32_t)n : 0;
}

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *w = arg;
	uint64_t bias = info->dlpi_addr, lo = UINT64_MAX, hi = 0;
	const uint8_t *id = NULL;
	unsigned idlen = 0, index = w->index++;
	const char *path = info->dlpi_name ? info->dlpi_name : "";
	uint8_t flags = 0, len8;
	uint32_t image = 0;

	if (index == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs))
		w->adds = info->dlpi_adds;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD) {
			if (ph->p_vaddr < lo)
				lo = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > hi)
				hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !id) {
			const uint8_t *note = (const uint8_t *)(uintptr_t)
					      (bias + ph->p_vaddr);

			id = build_id(note, ph->p_filesz, &idlen);
		}
	}
	if (!hi)
		return 0;
	lo += bias;
	hi += bias;
	if (seen(bias, lo))
		return 0;
	if (lo == getauxval(AT_SYSINFO_EHDR)) {
		path = "[vdso]";
		image = vdso_size(lo, hi);
		flags = image ? CP_MODULE_IMAGE : 0;
	} else if (index == 0 && !*path) {
		path = cp_symbols_exe();
	}
	put(w, &bias, 8);
	put(w, &lo, 8);
	put(w, &hi, 8);
	put(w, &flags, 1);
	len8 = (uint8_t)idlen;
	put(w, &len8, 1);
	put(w, id, idlen);
	put(w, path, strlen(path) + 1);
	if (image) {
		put(w, &image, 4);
		put(w, (const void *)(uintptr_t)lo, image);
	}
	if (!w->failed)
		remember(bias, lo);
	return 0;
}

static int first_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs))
		*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

int cp_modules_update(void)
{
	struct walk w = { 0 };
	unsigned long long adds = 0;
	int rc = 0;

	if (cp_rt.trace_fd < 0)
		return -EBADF;
	cp_lock_acquire(&cp_modules_lock);
	dl_iterate_phdr(first_adds, &adds);
	if (cp_listed && adds == cp_last_adds)
		goto out;
	dl_iterate_phdr(collect, &w);
	if (w.failed) {
		rc = -ENOMEM;
		goto out;
	}
	cp_last_adds = w.adds;
	cp_listed = true;
	if (w.n)
		rc = cp_trace_write_block(CP_BLOCK_MODULES, 0, w.p, w.n);
out:
	cp_lock_release(&cp_modules_lock);
	cp_free(w.p);
	return rc;
}

void cp_modules_reset(void)
{
	memset(&cp_modules_lock, 0, sizeof(cp_modules_lock));
	cp_nseen = 0;
	cp_listed = false;
}

/* dl_iterate_phdr callback: the executable segments of the object that
 * holds this function, if @info is it (@arg: uintptr_t[2], left 0 when
 * that object is the executable). */
static int find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t self = (uintptr_t)find_own, lo = UINTPTR_MAX, hi = 0;
	uintptr_t *range = arg;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (self < lo || self >= hi)
		return 0;
	if (info->dlpi_name[0]) {
		range[0] = lo;
		range[1] = hi;
	}
	return 1;
}

bool cp_modules_own_text(uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t range[2] = { 0, 0 };

	dl_iterate_phdr(find_own, range);
	*lo = range[0];
	*hi = range[1];
	return range[1] > range[0];
}

/* The objects looked for (find_named), and the text ranges found. */
struct named {
	const char *const *prefixes;
	uintptr_t (*ranges)[2];
	unsigned n, max;
};

/* dl_iterate_phdr callback: the executable segments of @info, if its
 * file name begins with one of @arg's prefixes. */
static int find_named(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct named *w = arg;
	const char *base = strrchr(info->dlpi_name, '/');
	bool match = false;

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	for (const char *const *p = w->prefixes; *p && !match; p++)
		match = !strncmp(base, *p, strlen(*p));
	if (!match || !base[0])
		return 0;
	for (unsigned i = 0; i < info->dlpi_phnum && w->n < w->max; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		w->ranges[w->n][0] = info->dlpi_addr + ph->p_vaddr;
		w->ranges[w->n][1] = w->ranges[w->n][0] + ph->p_memsz;
		w->n++;
	}
	return 0;
}

unsigned cp_modules_text_of(const char *const *prefixes,
			    uintptr_t (*ranges)[2], unsigned max)
{
	struct named w = { .prefixes = prefixes, .ranges = ranges,
			   .max = max };

	dl_iterate_phdr(find_named, &w);
	return w.n;
}

/* An address looked for (find_holder), and the object found holding it. */
struct locate {
	uintptr_t addr;
	const char *path;	/* the executable: "" */
	uintptr_t bias;
};

/* dl_iterate_phdr callback: whether @info loads @arg's address; then its
 * path and load bias into @arg. */
static int find_holder(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct locate *l = arg;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD &&
		    l->addr - info->dlpi_addr >= ph->p_vaddr &&
		    l->addr - info->dlpi_addr - ph->p_vaddr < ph->p_memsz) {
			l->path = info->dlpi_name;
			l->bias = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

bool cp_modules_locate(uint64_t addr, const char **path, uint64_t *off)
{
	struct locate l = { .addr = (uintptr_t)addr };

	if (!dl_iterate_phdr(find_holder, &l))
		return false;
	*path = l.path[0] ? l.path : cp_symbols_exe();
	*off = addr - l.bias;
	return true;
}
