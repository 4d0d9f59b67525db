/*
 * cp_spill.c - a scratch file written forward and read back from its end
 * (cp_spill.h).
 */
#include "cp_spill.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cp_grow.h"

/* statfs(2)'s f_type of the file systems held in memory */
#define TMPFS_MAGIC_	0x01021994
#define RAMFS_MAGIC_	0x858458f6

const char *cp_spill_pick(const char *env, bool tmp_in_memory,
			  bool var_tmp_ok)
{
	if (env && *env)
		return env;
	return tmp_in_memory && var_tmp_ok ? "/var/tmp" : "/tmp";
}

int cp_spill_where(const char *dir, bool *in_memory, uint64_t *avail)
{
	struct statfs fs;
	struct statvfs vfs;

	if (statfs(dir, &fs) || statvfs(dir, &vfs))
		return -1;
	*in_memory = fs.f_type == TMPFS_MAGIC_ || fs.f_type == RAMFS_MAGIC_;
	*avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	return 0;
}

const char *cp_spill_dir(void)
{
	const char *env = getenv("TMPDIR");
	bool tmp_mem = false, var_mem = true, var_ok = false;
	uint64_t avail;

	/* (the file systems are looked at only when $TMPDIR is unset) */
	if ((!env || !*env) && !cp_spill_where("/tmp", &tmp_mem, &avail) &&
	    tmp_mem)
		var_ok = !cp_spill_where("/var/tmp", &var_mem, &avail) &&
			 !var_mem && !access("/var/tmp", W_OK | X_OK);
	return cp_spill_pick(env, tmp_mem, var_ok);
}

int cp_spill_open(struct cp_spill *sp)
{
	const char *dir = cp_spill_dir();

	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
	snprintf(sp->path, sizeof(sp->path), "%s/cpt-spill-XXXXXX", dir);
	sp->cap_buf = CP_SPILL_CHUNK / 16;	/* grown as records come */
	sp->buf = malloc(sp->cap_buf);
	if (!sp->buf)
		return -1;
	sp->fd = mkstemp(sp->path);
	if (sp->fd < 0) {
		int e = errno;

		free(sp->buf);
		sp->buf = NULL;
		errno = e;
		return -1;
	}
	unlink(sp->path);
	return 0;
}

/* Write (@wr) or read all of @n bytes at @off, through EINTR and short
 * transfers.  0, or -1 with errno set (ENOSPC: a write made no progress;
 * EIO: the file ended before). */
static int transfer(int fd, bool wr, uint8_t *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t k = wr ? pwrite(fd, p, n, (off_t)off) :
				 pread(fd, p, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!k)
				errno = wr ? ENOSPC : EIO;
			return -1;
		}
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int cp_spill_flush(struct cp_spill *sp)
{
	if (sp->err)
		return -1;
	if (!sp->used)
		return 0;
	if (cp_grow32((void **)&sp->chunk, sizeof(*sp->chunk), &sp->cap,
		      sp->nchunk + 1)) {
		sp->err = ENOMEM;
		return -1;
	}
	if (transfer(sp->fd, true, sp->buf, sp->used, sp->off)) {
		sp->err = errno;
		return -1;
	}
	sp->chunk[sp->nchunk++] = (struct cp_spill_chunk){
		.off = sp->off, .len = sp->used, .nrec = sp->nrec };
	sp->off += sp->used;
	sp->used = sp->nrec = 0;
	return 0;
}

/* *@buf, of *@cap bytes, holding at least @n.  0, or -1 (memory). */
static int buf_room(uint8_t **buf, size_t *cap, size_t n)
{
	uint8_t *b;

	if (n <= *cap)
		return 0;
	if (n < 2 * *cap)
		n = 2 * *cap;
	b = realloc(*buf, n);
	if (!b)
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

uint8_t *cp_spill_room(struct cp_spill *sp, size_t max)
{
	if (sp->used && sp->used + max > CP_SPILL_CHUNK && cp_spill_flush(sp))
		return NULL;
	if (!sp->err && buf_room(&sp->buf, &sp->cap_buf, sp->used + max))
		sp->err = ENOMEM;
	return sp->err ? NULL : sp->buf + sp->used;
}

int cp_spill_read(const struct cp_spill *sp, uint32_t i, uint8_t **buf,
		  size_t *cap)
{
	uint64_t off = sp->chunk[i].off;
	size_t n = sp->chunk[i].len;

	if (buf_room(buf, cap, n)) {
		errno = ENOMEM;
		return -1;
	}
	return transfer(sp->fd, false, *buf, n, off);
}

void cp_spill_close(struct cp_spill *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->buf);
	free(sp->chunk);
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
}
