/*
 * cp_tracebuf.c - the trace writer (format: src/common/cp_trace_format.h).
 */
#include "cp_tracebuf.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cp_alloc.h"
#include "cp_crash.h"
#include "cp_crc32c.h"
#include "cp_digits.h"
#include "cp_fds.h"
#include "cp_lock.h"
#include "cp_outfile.h"
#include "cp_runtime.h"
#include "cp_sampler.h"
#include "cp_symbols.h"
#include "cp_thread.h"
#include "cp_unseen.h"

#define CP_TB_HEAD (sizeof(struct cp_block_header) + sizeof(struct cp_events_head))
/* A staged event encoded: kind, dt, object, seq and count (1 byte). */
#define CP_TB_STAGED_MAX (1 + CP_VARINT_MAX + 5 + CP_VARINT_MAX + 1)
/* Where the crash path encodes a buffer's staged events, after its
 * scratch tail. */
#define CP_TB_STAGED_OFF (CP_TB_SIZE + CP_TB_ROOM)
#define CP_TB_ALLOC (CP_TB_STAGED_OFF + CP_TB_HEAD + \
		     CP_TB_STAGE * CP_TB_STAGED_MAX)

/* Region names seen, in id order (ids from 1). */
#define CP_MAX_STRINGS 4096
static struct cp_lock cp_strings_lock;
static const char *cp_strings[CP_MAX_STRINGS];
static uint32_t cp_nstrings;

/* Every buffer ever made (the pool): pushed, never unlinked. */
static struct cp_tracebuf *cp_tb_all;
/* Events that reached the file, for the END block. */
static uint64_t cp_tb_written;
/* errno of the first failed write, 0 while the trace is whole. */
static int cp_trace_err;
__thread unsigned cp_tb_writing __attribute__((tls_model("initial-exec")));

/* Functions of cp_trace_at_crash. */
#define CP_MAX_AT_CRASH 8
static void (*cp_at_crash[CP_MAX_AT_CRASH])(void);
static unsigned cp_nat_crash;
/* 0: no crash flush yet; 1: one is running; 2: done. */
static int cp_crash_state;

/* The trace file as it was opened: the program may put a file of its
 * own on the trace's number (dup2, or closefrom and many opens), which
 * the tracer must then neither write, unlink nor close (cp_fds.h). */
static struct cp_fd_id cp_trace_id;

/* The trace's name made absolute when it was created, to open it again
 * by; "" when that could not be done. */
static char cp_trace_again[PATH_MAX];

/*
 * The program closed the trace's descriptor @old or put a file of its own
 * on its number (closefrom or close_range, as daemons do; dup2): the
 * trace is opened again by its name, appending, if the name still is
 * that file, and its new number replaces @old, which the tracer no longer
 * touches.  Threads that find it gone at once race: the first number
 * stored wins, the others close theirs.  The trace's descriptor, or -1.
 * Async-signal-safe.
 */
static int trace_reopen(int old)
{
	int fd, cur = old;

	if (!cp_trace_again[0] ||
	    (fd = open(cp_trace_again, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0)
		return -1;
	fd = cp_fd_out_of_way(fd);
	if (!cp_fd_is(fd, &cp_trace_id)) {
		close(fd);	/* another file has the name now */
		return -1;
	}
	if (!__atomic_compare_exchange_n(&cp_rt.trace_fd, &cur, fd, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(fd);	/* another thread's was stored first */
		return cur;
	}
	return fd;
}

/* Whether cp_rt.trace_fd is the trace file, opened again if the program
 * took its descriptor.  Errno is preserved.  Async-signal-safe. */
static bool trace_fd_ours(void)
{
	int fd = __atomic_load_n(&cp_rt.trace_fd, __ATOMIC_ACQUIRE), saved;
	bool ok;

	if (fd < 0 || cp_fd_is(fd, &cp_trace_id))
		return fd >= 0;
	saved = errno;
	ok = trace_reopen(fd) >= 0;
	errno = saved;
	return ok;
}

int cp_trace_error(void)
{
	return __atomic_load_n(&cp_trace_err, __ATOMIC_ACQUIRE);
}

/* What write error @err means, for the messages. */
static const char *trace_err_text(int err)
{
	return err == EBADF ? "the program closed its descriptor" :
			      strerror(err);
}

/*
 * Record write error @err; the first one is said on stderr unless
 * @quiet (a signal handler).  Any thread.
 */
static void trace_failed(int err, bool quiet)
{
	int none = 0;

	if (!__atomic_compare_exchange_n(&cp_trace_err, &none, err, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	if (!quiet)
		cp_warn("cannot write the trace %s: %s; the rest of the run is "
			"not traced", cp_rt.trace_path, trace_err_text(err));
}

/*
 * Append @iov (@n parts) to the trace with one writev, continuing after a
 * short write.  0 or -errno.  Async-signal-safe.
 *
 * writev() is a cancellation point, and the tracer writes from inside the
 * program's lock and unlock calls, which are not: a thread cancelled there
 * would leave its mutex held.  The tracer's writes do not act on a
 * cancellation request.
 */
static int append(struct iovec *iov, int n)
{
	int fd = __atomic_load_n(&cp_rt.trace_fd, __ATOMIC_ACQUIRE), cancel;
	int rc = 0;

	if (fd < 0)
		return -EBADF;
	if (cp_trace_error())
		return -cp_trace_error();
	if (!trace_fd_ours())
		return -EBADF;
	fd = __atomic_load_n(&cp_rt.trace_fd, __ATOMIC_ACQUIRE);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	while (n > 0) {
		ssize_t w;

		cp_tb_writing++;
		w = writev(fd, iov, n);
		cp_tb_writing--;
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			break;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	pthread_setcancelstate(cancel, NULL);
	return rc;
}

/* Fill in @bh's magic, size and checksum for @payload and append both.
 * 0 or -errno (the error is recorded).  Async-signal-safe. */
static int put_block(struct cp_block_header *bh, const void *payload,
		     size_t n, bool quiet)
{
	struct iovec iov[2];
	int cnt = 1, ret;

	bh->magic = CP_BLOCK_MAGIC;
	bh->size = (uint32_t)n;
	bh->reserved = 0;
	bh->crc = cp_block_crc(bh, payload);
	iov[0].iov_base = bh;
	iov[0].iov_len = sizeof(*bh);
	if ((const uint8_t *)payload == (const uint8_t *)(bh + 1)) {
		iov[0].iov_len += n;	/* one piece already */
	} else if (n) {
		iov[1].iov_base = (void *)payload;
		iov[1].iov_len = n;
		cnt = 2;
	}
	ret = append(iov, cnt);
	if (ret && ret != -EBADF)
		trace_failed(-ret, quiet);
	return ret;
}

int cp_trace_write_block(uint32_t type, uint32_t tid, const void *payload,
			 size_t n)
{
	struct cp_block_header bh = { .type = type, .tid = tid };
	int saved = errno, ret;

	if (n > UINT32_MAX)
		return -EFBIG;
	ret = put_block(&bh, payload, n, __atomic_load_n(&cp_crash_state,
							 __ATOMIC_ACQUIRE));
	errno = saved;
	return ret;
}

static void write_run_blocks(void);

int cp_trace_open(void)
{
	struct cp_trace_header h;
	int fd, saved = errno;

	cp_crc32c_init();
	fd = cp_outfile_create(cp_rt.trace_path, sizeof(cp_rt.trace_path),
			       !cp_rt.cfg.trace_tmpl[0], "trace", O_APPEND);
	if (fd < 0)
		return fd;
	cp_fd_id_of(fd, &cp_trace_id);
	if (!cp_runtime_absolute(cp_rt.trace_path, cp_trace_again,
				 sizeof(cp_trace_again)))
		cp_trace_again[0] = '\0';
	/* a fork child starts a new file: the parent's buffers are not its */
	for (struct cp_tracebuf *tb = cp_tb_all; tb; tb = tb->all_next)
		__atomic_store_n(&tb->state, CP_TB_FREE, __ATOMIC_RELEASE);
	cp_tb_written = 0;
	cp_trace_err = 0;
	cp_crash_state = 0;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CP_TRACE_MAGIC, 8);
	h.version = CP_TRACE_VERSION;
	h.header_size = CP_TRACE_HEADER_SIZE;
	h.clock = cp_rt.clock;
	h.flags = cp_rt.clock == CP_CLOCK_CPU ? CP_TRACE_HAS_WALL : 0;
	h.pid = (uint64_t)cp_rt.pid;
	h.start_realtime_ns = cp_rt.start_realtime;
	h.start_wall_ns = cp_rt.start_wall;
	cp_rt.trace_fd = fd;
	cp_nstrings = 0;
	{
		struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
		int ret = append(&iov, 1);

		if (ret)
			trace_failed(-ret, false);
	}
	write_run_blocks();
	cp_crash_arm();
	errno = saved;
	return 0;
}

static void block_reset(struct cp_tracebuf *tb)
{
	struct cp_events_head *eh = (struct cp_events_head *)
		(tb->buf + sizeof(struct cp_block_header));

	eh->ts_base = tb->prev_ts;
	eh->wall_base = tb->prev_wall;
	tb->pos = tb->buf + CP_TB_HEAD;
	tb->nevents = 0;
	tb->prev_fn = 0;
	tb->deadline = UINT64_MAX;
}

/* A buffer of the pool nobody owns, claimed (held as CP_TB_FLUSHING, so
 * that no crash path reads it half set up); or NULL. */
static struct cp_tracebuf *tb_reuse(void)
{
	struct cp_tracebuf *tb;

	for (tb = __atomic_load_n(&cp_tb_all, __ATOMIC_ACQUIRE); tb;
	     tb = tb->all_next) {
		int st = CP_TB_FREE;

		if (__atomic_load_n(&tb->state, __ATOMIC_RELAXED) == st &&
		    __atomic_compare_exchange_n(&tb->state, &st,
						CP_TB_FLUSHING,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return tb;
	}
	return NULL;
}

struct cp_tracebuf *cp_tb_new(uint32_t tid, uint64_t ts, uint64_t wall)
{
	struct cp_tracebuf *tb = tb_reuse();

	if (!tb) {
		/* lines of its own: the owner writes pos and nevents at
		 * every event, and another thread's buffer sharing a line
		 * would make each of those a cache miss */
		tb = cp_zalloc_lines(sizeof(*tb));
		if (!tb)
			return NULL;
		tb->buf = cp_zalloc(CP_TB_ALLOC);
		if (!tb->buf) {
			cp_free(tb);
			return NULL;
		}
		tb->end = tb->buf + CP_TB_SIZE - CP_TB_ROOM;
		tb->state = CP_TB_FLUSHING;	/* until set up */
		tb->all_next = __atomic_load_n(&cp_tb_all, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&cp_tb_all, &tb->all_next,
						    tb, true, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	tb->tid = tid;
	tb->seq = 0;
	tb->total = 0;
	tb->st_head = 0;
	tb->st_done = 0;
	tb->st_gen = 0;
	tb->prev_ts = ts;
	tb->prev_wall = wall;
	tb->flush_now = false;
	block_reset(tb);
	__atomic_store_n(&tb->state, CP_TB_IDLE, __ATOMIC_RELEASE);
	return tb;
}

/* Staged event @e encoded at @p after the dt of its timestamp, @dt, as
 * cp_tb_publish / cp_tb_consume lay it out (test_rt_tracebuf_staged
 * compares them); returns the end.  Its fields are read first: the byte
 * stores may alias anything.  Async-signal-safe. */
static inline __attribute__((always_inline)) uint8_t *
staged_encode(uint8_t *p, const struct cp_tb_staged *e, uint64_t dt)
{
	uint64_t word = e->word, seq = e->seq;

	*p++ = (uint8_t)word;
	p = cp_uv_put_short(p, dt);
	p = cp_uv_put_short(p, (uint32_t)(word >> 8));
	p = cp_uv_put_short(p, seq);
	if ((word & CP_EV_KIND_MASK) == CP_EV_CONSUME)
		*p++ = seq != 0;
	return p;
}

/*
 * Encode staged events @i, @i + 1, ... before @head at *@pp, after a
 * vertex at *@prevp, while the block has room (up to @end) and their
 * times are before @deadline; returns the index of the first one left,
 * *@pp and *@prevp advanced.  Async-signal-safe.
 */
static inline __attribute__((always_inline)) uint32_t
encode_staged(const struct cp_tracebuf *tb, uint32_t i, uint32_t head,
	      uint8_t **pp, const uint8_t *end, uint64_t deadline,
	      uint64_t *prevp)
{
	uint8_t *p = *pp;
	uint64_t prev = *prevp;

	for (; i != head && p <= end; i++) {
		const struct cp_tb_staged *e = &tb->st[i % CP_TB_STAGE];
		uint64_t ts = e->ts;

		if (ts >= deadline)
			break;
		p = staged_encode(p, e, ts > prev ? ts - prev : 0);
		prev = ts > prev ? ts : prev;
	}
	*pp = p;
	*prevp = prev;
	return i;
}

void cp_tb_drain(struct cp_tracebuf *tb)
{
	uint32_t i = tb->st_done, head = tb->st_head;

	while (i != head) {
		uint8_t *p = tb->pos;
		uint64_t prev = tb->prev_ts;
		uint32_t first = i, n;

		if (tb->deadline == UINT64_MAX)
			tb->deadline = tb->st[i % CP_TB_STAGE].ts +
				       CP_TRACE_FLUSH_NS;
		/* as many as the block has room and time for */
		i = encode_staged(tb, i, head, &p, tb->end, tb->deadline,
				  &prev);
		n = i - first;
		/* commit them and count them done at once for the crash
		 * path */
		__atomic_store_n(&tb->st_gen, tb->st_gen + 1,
				 __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&tb->prev_ts, prev, __ATOMIC_RELAXED);
		__atomic_store_n(&tb->pos, p, __ATOMIC_RELEASE);
		__atomic_store_n(&tb->nevents, tb->nevents + n,
				 __ATOMIC_RELEASE);
		tb->total += n;
		__atomic_store_n(&tb->st_done, i, __ATOMIC_RELAXED);
		__atomic_store_n(&tb->st_gen, tb->st_gen + 1,
				 __ATOMIC_RELEASE);
		if (i == head)
			break;
		cp_tb_write_out(tb);	/* full, or late */
		if (tb->pos > tb->end) {
			/* closed by the crash path: the rest is dropped */
			tb->st_done = head;
			break;
		}
	}
}

/* Append EVENTS block number tb->seq of @tb holding the @nev events at
 * @eh (its header in front of it, the payload up to @end).  Async-signal-
 * safe. */
static void put_events(struct cp_tracebuf *tb, struct cp_events_head *eh,
		       uint32_t nev, const uint8_t *end, bool crash)
{
	struct cp_block_header *bh = (struct cp_block_header *)eh - 1;

	bh->type = CP_BLOCK_EVENTS;
	bh->tid = tb->tid;
	bh->seq = tb->seq;
	bh->flags = crash ? CP_BLOCKF_CLOSED : 0;
	eh->nevents = nev;
	eh->reserved = 0;
	if (!put_block(bh, eh, (size_t)(end - (const uint8_t *)eh), crash)) {
		__atomic_store_n(&tb->seq, tb->seq + 1, __ATOMIC_RELEASE);
		__atomic_fetch_add(&cp_tb_written, nev, __ATOMIC_RELAXED);
	}
}

/*
 * The crash path's view of another thread's buffer: the committed events
 * (*@nev of them, up to *@pos) and, encoded as a block of their own after
 * the scratch tail (up to *@staged_end), the staged events they do not
 * hold yet, the last of them at *@staged_ts; returns their number.  A drain's commit under way is waited
 * for, briefly: one of the caller's own, interrupted, never ends, and
 * its staged events are then left out, never written twice.
 * Async-signal-safe.
 */
static uint32_t snapshot(struct cp_tracebuf *tb, uint32_t *nev,
			 uint8_t **pos, uint8_t **staged_end,
			 uint64_t *staged_ts)
{
	struct cp_events_head *eh = (struct cp_events_head *)
		(tb->buf + CP_TB_STAGED_OFF + sizeof(struct cp_block_header));

	for (int tries = 0; tries < 100; tries++) {
		uint32_t g = __atomic_load_n(&tb->st_gen, __ATOMIC_ACQUIRE);
		/* the staged range first: an event committed before the
		 * last one staged is then among the committed */
		uint32_t done = __atomic_load_n(&tb->st_done, __ATOMIC_ACQUIRE);
		uint32_t head = __atomic_load_n(&tb->st_head, __ATOMIC_ACQUIRE);
		uint32_t n = head - done;
		uint8_t *p = (uint8_t *)(eh + 1);
		uint64_t prev;

		*nev = __atomic_load_n(&tb->nevents, __ATOMIC_ACQUIRE);
		*pos = __atomic_load_n(&tb->pos, __ATOMIC_ACQUIRE);
		if (g & 1) {
			sched_yield();
			continue;
		}
		if (n > CP_TB_STAGE)
			continue;	/* read across a drain */
		prev = n ? tb->st[done % CP_TB_STAGE].ts : 0;
		eh->ts_base = prev;
		eh->wall_base = 0;
		/* room for all of them: CP_TB_ALLOC */
		encode_staged(tb, done, head, &p, tb->buf + CP_TB_ALLOC,
			      UINT64_MAX, &prev);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&tb->st_gen, __ATOMIC_RELAXED) == g) {
			*staged_end = p;
			*staged_ts = prev;
			return n;
		}
	}
	return 0;
}

/*
 * Write the committed events of @tb as one EVENTS block: its owner's
 * (@closing false), or (@closing) what close_all() took of it, from
 * another thread, which may race with the owner's next event: the events
 * committed then, and the staged ones as another block.  The caller holds
 * the buffer (CP_TB_FLUSHING).  Async-signal-safe.
 */
static void tb_write(struct cp_tracebuf *tb, bool closing)
{
	struct cp_events_head *eh = (struct cp_events_head *)
		(tb->buf + sizeof(struct cp_block_header));
	uint32_t nev, nstaged = 0;
	uint8_t *pos, *staged_end = NULL;

	if (closing) {
		nev = tb->cl_nev;
		pos = tb->cl_pos;
		nstaged = tb->cl_nstaged;
		staged_end = tb->cl_staged_end;
	} else {
		nev = __atomic_load_n(&tb->nevents, __ATOMIC_ACQUIRE);
		pos = __atomic_load_n(&tb->pos, __ATOMIC_ACQUIRE);
	}
	if (nev)
		put_events(tb, eh, nev, pos, closing);
	if (nstaged) {
		eh = (struct cp_events_head *)(tb->buf + CP_TB_STAGED_OFF +
					       sizeof(struct cp_block_header));
		put_events(tb, eh, nstaged, staged_end, closing);
	}
}

void cp_tb_flush(struct cp_tracebuf *tb)
{
	if (cp_tb_has_staged(tb))
		cp_tb_drain(tb);
	cp_tb_write_out(tb);
}

/* The buffer this thread is writing out now (close_all must not wait for
 * it: a crash that interrupted the write runs on this thread). */
static __thread struct cp_tracebuf *cp_tb_own_write
	__attribute__((tls_model("initial-exec")));

void cp_tb_write_out(struct cp_tracebuf *tb)
{
	int st = CP_TB_IDLE, saved = errno;

	if (__atomic_compare_exchange_n(&tb->state, &st, CP_TB_FLUSHING,
					false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		cp_tb_own_write = tb;
		tb_write(tb, false);
		cp_tb_own_write = NULL;
		block_reset(tb);
		__atomic_store_n(&tb->state, CP_TB_IDLE, __ATOMIC_RELEASE);
	} else {
		/*
		 * Closed by the crash or exit path, which may still be
		 * writing the block out: drop this and every later event
		 * into the scratch tail, past what that block covers.
		 */
		tb->pos = tb->buf + CP_TB_SIZE;
		tb->deadline = UINT64_MAX;
	}
	errno = saved;
}

/*
 * Claim @tb from any thread for close_all() and take what it will write
 * (tb->cl_*): CLAIM_BUSY if its owner is writing it right now (its block
 * is on the way), CLAIM_NONE if it needs nothing (free, or closed).
 * Async-signal-safe.
 */
enum { CLAIM_DONE, CLAIM_NONE, CLAIM_BUSY };

static int tb_claim(struct cp_tracebuf *tb)
{
	int st = CP_TB_IDLE;
	uint64_t staged_ts = 0;

	if (!__atomic_compare_exchange_n(&tb->state, &st, CP_TB_FLUSHING,
					 false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return st == CP_TB_FLUSHING ? CLAIM_BUSY : CLAIM_NONE;

	tb->cl_nstaged = snapshot(tb, &tb->cl_nev, &tb->cl_pos,
				  &tb->cl_staged_end, &staged_ts);
	/* read after the snapshot: at or past its last committed vertex */
	tb->cl_last_ts = __atomic_load_n(&tb->prev_ts, __ATOMIC_RELAXED);
	tb->cl_last_wall = __atomic_load_n(&tb->prev_wall, __ATOMIC_RELAXED);
	if (tb->cl_nstaged && staged_ts > tb->cl_last_ts)
		tb->cl_last_ts = staged_ts;
	return CLAIM_DONE;
}

/*
 * Write out every buffer and leave them closed.  Every buffer is claimed
 * and its events taken first, then all are written: the owners run on
 * meanwhile, and a consumer's event taken after its publisher's buffer
 * was would depend on a publish the trace lacks.  Taking them all before
 * any write (no system call between) keeps that window to microseconds
 * rather than the writes' milliseconds (check_crash saw such a CONSUME
 * once under load).  An owner writing its buffer right now is waited for,
 * 2 s at most (not this thread's own write, which a crash interrupted):
 * its block is lost if the process ends first.  (The wait was 1000
 * sched_yield calls, half a millisecond on an idle core: a thread
 * preempted in its write, or slowed by a sanitizer, lost a whole block,
 * and check_crash saw 671 repairs once.)  Async-signal-safe.
 */
static void close_all(void)
{
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 50000 };
	struct cp_tracebuf *all = __atomic_load_n(&cp_tb_all,
						  __ATOMIC_ACQUIRE);

	for (struct cp_tracebuf *tb = all; tb; tb = tb->all_next) {
		int c = tb_claim(tb);

		for (int i = 0; i < 40000 && c == CLAIM_BUSY &&
				tb != cp_tb_own_write; i++) {
			nanosleep(&nap, NULL);
			c = tb_claim(tb);
		}
		tb->cl_claimed = c == CLAIM_DONE;
	}
	for (struct cp_tracebuf *tb = all; tb; tb = tb->all_next) {
		if (!tb->cl_claimed)
			continue;
		tb_write(tb, true);
		__atomic_store_n(&tb->state, CP_TB_CLOSED, __ATOMIC_RELEASE);
	}
}

void cp_trace_at_crash(void (*flush)(void))
{
	unsigned i = __atomic_load_n(&cp_nat_crash, __ATOMIC_ACQUIRE);

	do {
		if (i >= CP_MAX_AT_CRASH)
			return;
	} while (!__atomic_compare_exchange_n(&cp_nat_crash, &i, i + 1, true,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	__atomic_store_n(&cp_at_crash[i], flush, __ATOMIC_RELEASE);
}

void cp_trace_crash_flush(void)
{
	int st = 0, saved = errno;

	if (cp_rt.trace_fd < 0)
		return;
	if (!__atomic_compare_exchange_n(&cp_crash_state, &st, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		/* another thread is flushing: let it finish (2 s at most) */
		struct timespec ms = { 0, 1000000 };

		for (int i = 0; i < 2000 &&
		     __atomic_load_n(&cp_crash_state, __ATOMIC_ACQUIRE) == 1;
		     i++)
			nanosleep(&ms, NULL);
		errno = saved;
		return;
	}
	cp_tls.guard++;
	close_all();
	for (unsigned i = 0; i < __atomic_load_n(&cp_nat_crash,
						 __ATOMIC_ACQUIRE); i++) {
		void (*f)(void) = __atomic_load_n(&cp_at_crash[i],
						  __ATOMIC_ACQUIRE);

		if (f)
			f();
	}
	cp_tls.guard--;
	__atomic_store_n(&cp_crash_state, 2, __ATOMIC_RELEASE);
	errno = saved;
}

void cp_tb_free(struct cp_tracebuf *tb)
{
	int st = CP_TB_IDLE;

	if (!tb)
		return;
	/* a closed buffer stays out of the pool: the process is ending */
	__atomic_compare_exchange_n(&tb->state, &st, CP_TB_FREE, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

void cp_tb_obj_def(struct cp_tracebuf *tb, uint32_t id, unsigned kind,
		   uint64_t addr, uint64_t extra)
{
	uint8_t *p = cp_tb_meta(tb, CP_EV_OBJ_DEF);

	p = cp_uv_put(p, id);
	*p++ = (uint8_t)kind;
	p = cp_uv_put(p, addr);
	p = cp_uv_put(p, extra);
	cp_tb_commit(tb, p);
}

uint32_t cp_trace_string_id(const char *name)
{
	uint32_t i, id = 0;

	cp_lock_acquire(&cp_strings_lock);
	for (i = 0; i < cp_nstrings; i++) {
		if (cp_strings[i] == name || !strcmp(cp_strings[i], name)) {
			id = i + 1;
			break;
		}
	}
	if (!id && cp_nstrings < CP_MAX_STRINGS) {
		size_t len = strlen(name) + 1;
		uint8_t *rec = cp_zalloc(4 + len);

		cp_strings[cp_nstrings++] = name;
		id = cp_nstrings;
		/* its own STRINGS block now: a partial trace keeps the name */
		if (rec) {
			memcpy(rec, &id, 4);
			memcpy(rec + 4, name, len);
			cp_trace_write_block(CP_BLOCK_STRINGS, 0, rec, 4 + len);
			cp_free(rec);
		}
	}
	cp_lock_release(&cp_strings_lock);
	return id;
}

/* A growable byte buffer in the private arena, for trailing blocks. */
struct blob {
	uint8_t *p;
	size_t n, cap;
};

static int blob_put(struct blob *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *np;

		while (cap < b->n + n)
			cap *= 2;
		np = cp_realloc(b->p, cap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
	return 0;
}

static void write_block(uint32_t type, uint32_t tid, const void *d, size_t n)
{
	cp_trace_write_block(type, tid, d, n);
}

static void sym_cb(uint64_t addr, uint64_t size, const char *name, void *arg)
{
	struct blob *b = arg;

	blob_put(b, &addr, 8);
	blob_put(b, &size, 8);
	blob_put(b, name, strlen(name) + 1);
}

static void info_put(struct blob *b, const char *k, const char *v)
{
	blob_put(b, k, strlen(k) + 1);
	blob_put(b, v, strlen(v) + 1);
}

/*
 * What the run is, written when the trace opens so that a trace cut short
 * has it: the executable's symbols and the INFO pairs.  Start-up.
 */
static void write_run_blocks(void)
{
	struct blob b = { 0 };
	char funcs[CP_MAX_FUNCS * 130] = "";
	size_t n = 0;

	cp_symbols_for_each(sym_cb, &b);
	write_block(CP_BLOCK_SYMBOLS, 0, b.p, b.n);
	b.n = 0;
	info_put(&b, "exe", cp_symbols_exe());
	info_put(&b, "clock", cp_rt.clock == CP_CLOCK_CPU ? "cpu" : "wall");
	if (cp_rt.ncpus) {	/* for the note on waiting for a processor */
		char num[16];

		snprintf(num, sizeof(num), "%u", cp_rt.ncpus);
		info_put(&b, "cpus", num);
	}
	for (unsigned i = 0; i < cp_rt.cfg.nfuncs; i++) {
		size_t l = strlen(cp_rt.cfg.funcs[i]);

		if (i)
			funcs[n++] = ',';
		memcpy(funcs + n, cp_rt.cfg.funcs[i], l);
		n += l;
	}
	funcs[n] = '\0';
	info_put(&b, "funcs", funcs);
	write_block(CP_BLOCK_INFO, 0, b.p, b.n);
	cp_free(b.p);
}

void cp_trace_discard(void)
{
	char link[40], path[PATH_MAX];
	int saved = errno;
	ssize_t n;

	if (cp_rt.trace_fd < 0)
		return;
	close_all();	/* no buffer writes to the descriptor after this */
	if (!trace_fd_ours()) {
		cp_rt.trace_fd = -1;
		errno = saved;
		return;
	}
	/* the file by its descriptor: a relative name may point elsewhere
	 * now that the program changed directory */
	{	/* "/proc/self/fd/N" without stdio: _exit may be in a handler */
		static const char dir[] = "/proc/self/fd/";
		char digits[CP_DIGITS_MAX];
		char *end = digits + sizeof(digits);
		char *d = cp_u64_digits((unsigned)cp_rt.trace_fd, end);

		memcpy(link, dir, sizeof(dir) - 1);
		memcpy(link + sizeof(dir) - 1, d, (size_t)(end - d));
		link[sizeof(dir) - 1 + (end - d)] = '\0';
	}
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0 && path[0] == '/') {
		path[n] = '\0';
		unlink(path);
	}
	close(cp_rt.trace_fd);
	cp_rt.trace_fd = -1;
	errno = saved;
}

/*
 * The end of @t, a thread still running when the process ended
 * (cp_thread_end_live), as its last vertex: a PROCESS_EXIT (waiting if it
 * was blocked then), in a block of its own numbered after its buffer's
 * last one, which close_all() wrote (its owner's later events are
 * dropped).  Not before that block's last vertex: a call the owner was
 * already in when the runtime stopped can commit a vertex after its end
 * was taken (check_crash's quick_exit case saw one 136 us later, and the
 * trace's time ran backwards).
 */
static void live_end_block(struct cp_thread *t)
{
	struct cp_tracebuf *tb = t->tb, *nb;
	bool cpu = cp_rt.clock == CP_CLOCK_CPU;
	uint64_t ts, wall;

	if (!tb || !__atomic_load_n(&t->live_end, __ATOMIC_ACQUIRE))
		return;
	/* what close_all() wrote of the buffer ends no later than this */
	ts = t->live_ts > tb->cl_last_ts ? t->live_ts : tb->cl_last_ts;
	wall = t->live_wall > tb->cl_last_wall ? t->live_wall :
						  tb->cl_last_wall;
	nb = cp_tb_new(t->tid, ts, cpu ? wall : 0);
	if (!nb)
		return;
	cp_tb_commit(nb, cp_tb_vertex(nb, CP_EV_PROCESS_EXIT |
				      (t->live_waiting ? CP_EVF_WAIT : 0),
				      ts, cpu ? wall : UINT64_MAX));
	nb->seq = __atomic_load_n(&tb->seq, __ATOMIC_ACQUIRE);
	cp_tb_write_out(nb);
	cp_tb_free(nb);
}

void cp_trace_finish(struct cp_thread *all, uint64_t online_len)
{
	struct cp_trace_end end = { 0 };
	struct blob b = { 0 };
	int saved = errno;

	if (cp_rt.trace_fd < 0)
		return;
	close_all();
	for (struct cp_thread *t = all; t; t = t->next)
		live_end_block(t);
	for (struct cp_thread *t = all; t; t = t->next) {
		struct cp_thread_info ti = {
			.tid = t->tid, .parent_tid = t->parent,
			.pthread_id = (uint64_t)t->self,
			.useful_ns = cp_thread_useful_end(t),
			.wait_ns = cp_thread_wait_end(t),
			.len_ns = cp_thread_len_end(t),
		};
		char name[16];

		end.nthreads++;
		b.n = 0;
		blob_put(&b, &ti, sizeof(ti));
		cp_thread_name(t, name);
		blob_put(&b, name, strlen(name) + 1);
		cp_trace_write_block(CP_BLOCK_THREAD, t->tid, b.p, b.n);
	}
	/* What is only known at the end: the notes on unseen waiting. */
	b.n = 0;
	if (*cp_unseen_blocked_note())
		info_put(&b, "note.unexplained", cp_unseen_blocked_note());
	if (*cp_unseen_children_note())
		info_put(&b, "note.children", cp_unseen_children_note());
	if (*cp_unseen_outside_note())
		info_put(&b, "note.outside", cp_unseen_outside_note());
	if (*cp_unseen_spin_note())
		info_put(&b, "note.spin", cp_unseen_spin_note());
	if (*cp_unseen_library_note())
		info_put(&b, "note.library", cp_unseen_library_note());
	{
		static const char *const kinds[] = { "off", "perf", "timer" };
		char hz[16];

		info_put(&b, "sampling", kinds[cp_sampler_kind()]);
		snprintf(hz, sizeof(hz), "%u", cp_sampler_kind() ?
			 cp_rt.cfg.sampling_hz : 0);
		info_put(&b, "sampling_hz", hz);
	}
	if (b.n)
		write_block(CP_BLOCK_INFO, 0, b.p, b.n);
	cp_free(b.p);
	end.online_len_ns = online_len;
	end.nevents = __atomic_load_n(&cp_tb_written, __ATOMIC_ACQUIRE);
	write_block(CP_BLOCK_END, 0, &end, sizeof(end));
	if (!trace_fd_ours())
		trace_failed(EBADF, false);
	else if (close(cp_rt.trace_fd) && errno != EINTR)
		trace_failed(errno, false);
	cp_rt.trace_fd = -1;
	if (cp_trace_error())
		cp_warn("the trace %s is incomplete (%s): cpt report reads it "
			"up to its last complete block", cp_rt.trace_path,
			trace_err_text(cp_trace_error()));
	else if (!cp_rt.cfg.quiet)
		cp_warn("trace written to %s (cpt report %s)",
			cp_rt.trace_path, cp_rt.trace_path);
	errno = saved;
}
