/*
 * cp_spill.c - a scratch file written forward and read back from its end
 * (cp_spill.h).
 */
#include "cp_spill.h"

#include <errno.h>
#include <pthread.h>
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

/* A chunk to write, or a buffer to fill. */
struct wr_buf {
	uint8_t *p;
	size_t cap;		/* bytes at p */
	uint32_t len;		/* (queued) bytes to write */
	uint64_t off;		/* (queued) where */
};

/*
 * The writing thread: it writes the queued chunks in order, and hands
 * their buffers back for the writer to fill again.  Under @mu: the queue,
 * the spare buffers, @busy, @stop and @err; @cv wakes either side.
 */
struct cp_spill_wr {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	struct wr_buf q[CP_SPILL_QUEUE];	/* from head, n of them */
	unsigned head, n;
	struct wr_buf spare[CP_SPILL_QUEUE];	/* nspare of them */
	unsigned nspare;
	bool busy;		/* a chunk is being written */
	bool stop;		/* return once the queue is empty */
	int err;		/* the first errno of a write, or 0 */
};

static void *wr_run(void *arg)
{
	struct cp_spill_wr *wr = arg;

	pthread_mutex_lock(&wr->mu);
	for (;;) {
		struct wr_buf b;
		int e = 0;

		while (!wr->n && !wr->stop)
			pthread_cond_wait(&wr->cv, &wr->mu);
		if (!wr->n)
			break;
		b = wr->q[wr->head];
		wr->busy = true;
		pthread_mutex_unlock(&wr->mu);
		/* after a failed write the others are dropped: the spill is
		 * lost (its owner reads the error) */
		if (!wr->err && transfer(wr->fd, true, b.p, b.len, b.off))
			e = errno;
		pthread_mutex_lock(&wr->mu);
		if (e && !wr->err)
			wr->err = e;
		wr->head = (wr->head + 1) % CP_SPILL_QUEUE;
		wr->n--;
		wr->busy = false;
		if (wr->nspare < CP_SPILL_QUEUE)
			wr->spare[wr->nspare++] = b;
		else
			free(b.p);
		pthread_cond_broadcast(&wr->cv);
	}
	pthread_mutex_unlock(&wr->mu);
	return NULL;
}

/* The writing thread of @sp, made at its first use; NULL when it cannot
 * be (sp->wr_off: the writes are then in place). */
static struct cp_spill_wr *wr_get(struct cp_spill *sp)
{
	struct cp_spill_wr *wr;

	if (sp->wr || sp->wr_off)
		return sp->wr;
	wr = calloc(1, sizeof(*wr));
	sp->wr_off = true;
	if (!wr)
		return NULL;
	wr->fd = sp->fd;
	if (pthread_mutex_init(&wr->mu, NULL)) {
		free(wr);
		return NULL;
	}
	if (pthread_cond_init(&wr->cv, NULL)) {
		pthread_mutex_destroy(&wr->mu);
		free(wr);
		return NULL;
	}
	if (pthread_create(&wr->th, NULL, wr_run, wr)) {
		pthread_cond_destroy(&wr->cv);
		pthread_mutex_destroy(&wr->mu);
		free(wr);
		return NULL;
	}
	sp->wr_off = false;
	sp->wr = wr;
	return wr;
}

/*
 * Hand sp->buf's chunk to the writing thread and take a spare buffer (or
 * none: buf_room makes one as records come), waiting while the queue is
 * full.  0, or -1 with the thread's first error (its writes failed).
 */
static int wr_queue(struct cp_spill *sp, struct cp_spill_wr *wr)
{
	struct wr_buf b = { .p = NULL };

	pthread_mutex_lock(&wr->mu);
	while (wr->n == CP_SPILL_QUEUE && !wr->err)
		pthread_cond_wait(&wr->cv, &wr->mu);
	if (wr->err) {
		sp->err = wr->err;
		pthread_mutex_unlock(&wr->mu);
		return -1;
	}
	wr->q[(wr->head + wr->n++) % CP_SPILL_QUEUE] = (struct wr_buf){
		.p = sp->buf, .cap = sp->cap_buf, .len = sp->used,
		.off = sp->off };
	if (wr->nspare)
		b = wr->spare[--wr->nspare];
	pthread_cond_broadcast(&wr->cv);
	pthread_mutex_unlock(&wr->mu);
	sp->buf = b.p;
	sp->cap_buf = b.cap;
	return 0;
}

/* Wait until @wr has written every chunk queued; its first error into
 * sp->err.  0, or -1. */
static int wr_drain(struct cp_spill *sp, struct cp_spill_wr *wr)
{
	pthread_mutex_lock(&wr->mu);
	while ((wr->n || wr->busy) && !wr->err)
		pthread_cond_wait(&wr->cv, &wr->mu);
	if (wr->err && !sp->err)
		sp->err = wr->err;
	pthread_mutex_unlock(&wr->mu);
	return sp->err ? -1 : 0;
}

/* Stop and free the writing thread of @sp, its buffers with it. */
static void wr_free(struct cp_spill *sp)
{
	struct cp_spill_wr *wr = sp->wr;

	if (!wr)
		return;
	pthread_mutex_lock(&wr->mu);
	wr->stop = true;
	pthread_cond_broadcast(&wr->cv);
	pthread_mutex_unlock(&wr->mu);
	pthread_join(wr->th, NULL);
	for (unsigned i = 0; i < wr->nspare; i++)
		free(wr->spare[i].p);
	pthread_cond_destroy(&wr->cv);
	pthread_mutex_destroy(&wr->mu);
	free(wr);
	sp->wr = NULL;
}

/* The chunk in sp->buf goes to the file: queued for the writing thread,
 * or written in place.  0, or -1 (sp->err). */
static int chunk_out(struct cp_spill *sp)
{
	struct cp_spill_wr *wr;

	if (sp->err)
		return -1;
	if (!sp->used)
		return 0;
	if (cp_grow32((void **)&sp->chunk, sizeof(*sp->chunk), &sp->cap,
		      sp->nchunk + 1)) {
		sp->err = ENOMEM;
		return -1;
	}
	if ((wr = wr_get(sp))) {
		if (wr_queue(sp, wr))
			return -1;
	} else if (transfer(sp->fd, true, sp->buf, sp->used, sp->off)) {
		sp->err = errno;
		return -1;
	}
	sp->chunk[sp->nchunk++] = (struct cp_spill_chunk){
		.off = sp->off, .len = sp->used, .nrec = sp->nrec };
	sp->off += sp->used;
	sp->used = sp->nrec = 0;
	return 0;
}

int cp_spill_flush(struct cp_spill *sp)
{
	if (chunk_out(sp))
		return -1;
	return sp->wr ? wr_drain(sp, sp->wr) : 0;
}

/* *@buf, of *@cap bytes (0: none yet), holding at least @n.  0, or -1
 * (memory). */
static int buf_room(uint8_t **buf, size_t *cap, size_t n)
{
	uint8_t *b;

	if (n <= *cap)
		return 0;
	if (n < 2 * *cap)
		n = 2 * *cap;
	if (n < CP_SPILL_CHUNK / 16)
		n = CP_SPILL_CHUNK / 16;
	b = realloc(*buf, n);
	if (!b)
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

uint8_t *cp_spill_room(struct cp_spill *sp, size_t max)
{
	if (sp->used && sp->used + max > CP_SPILL_CHUNK && chunk_out(sp))
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
	wr_free(sp);
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->buf);
	free(sp->chunk);
	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
}
