/*
 * cp_spill.h - a scratch file written forward and read back from its end:
 * what a forward pass leaves for a backward one that does not fit in
 * memory (the streamed Slack, cp_stream_slfile.c and cp_stream_slack.c).
 *
 * The writer appends records, each whole inside one chunk of about
 * CP_SPILL_CHUNK bytes (a larger record makes a chunk of its own, the
 * buffer grown to hold it); the reader takes
 * the chunks last first and walks a chunk's records itself (their format
 * is the caller's).  The file is made in cp_spill_dir() and unlinked at
 * once, so that nothing is left behind whatever happens to the process;
 * its name is kept for the messages.  The chunks' places are kept in
 * memory: 24 bytes a chunk.
 *
 * The writes: a thread of the spill's own (made when the first chunk is
 * full) writes the chunks out while the writer fills the next, up to
 * CP_SPILL_QUEUE of them queued.  The copy into the kernel's page cache
 * took a fifth of the streamed records pass's time on a trace of 10^8
 * events, whose scratch file is 1.3 GB of pages the kernel must first
 * clear, and the second core has room then.  Where that thread cannot
 * be made, the writes are the writer's own.
 *
 * Concurrency: one thread at a time, but for cp_spill_read(); the
 * writing thread is the spill's own business.
 */
#ifndef CP_SPILL_H
#define CP_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CP_SPILL_CHUNK		(1u << 20)
#define CP_SPILL_QUEUE		4	/* chunks queued for the writing thread */

struct cp_spill_wr;	/* the writing thread (cp_spill.c) */

struct cp_spill_chunk {
	uint64_t off;		/* in the file */
	uint32_t len;		/* bytes */
	uint32_t nrec;		/* records */
};

struct cp_spill {
	int fd;			/* -1: not open */
	char path[256];		/* the file's name (unlinked) */
	int err;		/* the first errno of a write, or 0 */
	uint8_t *buf;		/* the chunk being written */
	size_t cap_buf;
	uint32_t used;		/* bytes in buf */
	uint32_t nrec;		/* records in buf */
	uint64_t off;		/* where the chunk being written goes */
	uint64_t nrecs;		/* records written in all */
	struct cp_spill_wr *wr;	/* the writing thread, or NULL */
	bool wr_off;		/* none could be made: writes in place */
	struct cp_spill_chunk *chunk;	/* [nchunk] written */
	uint32_t nchunk, cap;
};

/*
 * The directory scratch files go to: $TMPDIR when set; else /var/tmp when
 * /tmp is held in memory (tmpfs, as many distributions mount it) and
 * /var/tmp is a directory on a disk that can be written, as the FHS and
 * systemd say large temporary files should; else /tmp.  A file of
 * gigabytes in a tmpfs is memory, and runs out at half of it.
 */
const char *cp_spill_dir(void);

/* cp_spill_dir()'s choice from what it found: @env ($TMPDIR, or NULL),
 * whether /tmp is in memory and /var/tmp on a disk and writable. */
const char *cp_spill_pick(const char *env, bool tmp_in_memory,
			  bool var_tmp_ok);

/* Whether directory @dir is held in memory (tmpfs, ramfs), and the bytes
 * free there (*@avail).  0, or -1 with errno set. */
int cp_spill_where(const char *dir, bool *in_memory, uint64_t *avail);

/* Make the scratch file.  0, or -1 with errno set (@sp->path says
 * where). */
int cp_spill_open(struct cp_spill *sp);

/* Room for a record of at most @max bytes: where to write it, or NULL
 * when a write failed or memory ran out (sp->err). */
uint8_t *cp_spill_room(struct cp_spill *sp, size_t max);

/* The record written at cp_spill_room()'s pointer ends at @end. */
static inline void cp_spill_done(struct cp_spill *sp, const uint8_t *end)
{
	sp->used = (uint32_t)(end - sp->buf);
	sp->nrec++;
	sp->nrecs++;
}

/* Write out the last chunk, and wait until every chunk is written.  0,
 * or -1 (sp->err). */
int cp_spill_flush(struct cp_spill *sp);

/* Read chunk @i (of sp->chunk[i].len bytes) into *@buf, of *@cap bytes,
 * grown to hold it.  0, or -1 with errno set (ENOMEM: no room for it).
 * Once the writing is done, any number of threads at once, each with its
 * own buffer. */
int cp_spill_read(const struct cp_spill *sp, uint32_t i, uint8_t **buf,
		  size_t *cap);

/* Close and free; the spill is all zeros but fd -1 again. */
void cp_spill_close(struct cp_spill *sp);

#endif /* CP_SPILL_H */
