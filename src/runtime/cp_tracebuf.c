/*
 * cp_tracebuf.c - the trace writer (format: src/common/cp_trace_format.h).
 */
#include "cp_tracebuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cp_alloc.h"
#include "cp_lock.h"
#include "cp_runtime.h"
#include "cp_sampler.h"
#include "cp_symbols.h"
#include "cp_thread.h"
#include "cp_unseen.h"

#define CP_TB_HEAD (sizeof(struct cp_block_header) + sizeof(struct cp_events_head))

/* Region names seen, in id order (ids from 1). */
#define CP_MAX_STRINGS 4096
static struct cp_lock cp_strings_lock;
static const char *cp_strings[CP_MAX_STRINGS];
static uint32_t cp_nstrings;

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int cp_trace_open(void)
{
	struct cp_trace_header h;
	int fd, saved = errno;

	fd = open(cp_rt.trace_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
		  O_CLOEXEC, 0644);
	if (fd < 0) {
		int err = errno;

		errno = saved;
		return -err;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CP_TRACE_MAGIC, 8);
	h.version = CP_TRACE_VERSION;
	h.header_size = CP_TRACE_HEADER_SIZE;
	h.clock = cp_rt.clock;
	h.flags = cp_rt.clock == CP_CLOCK_CPU ? CP_TRACE_HAS_WALL : 0;
	h.pid = (uint64_t)cp_rt.pid;
	h.start_realtime_ns = cp_rt.start_realtime;
	h.start_wall_ns = cp_rt.start_wall;
	if (write_all(fd, &h, sizeof(h))) {
		close(fd);
		errno = saved;
		return -EIO;
	}
	cp_rt.trace_fd = fd;
	cp_nstrings = 0;
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
}

struct cp_tracebuf *cp_tb_new(uint32_t tid, uint64_t ts, uint64_t wall)
{
	struct cp_tracebuf *tb = cp_zalloc(sizeof(*tb));

	if (!tb)
		return NULL;
	tb->buf = cp_zalloc(CP_TB_SIZE);
	if (!tb->buf) {
		cp_free(tb);
		return NULL;
	}
	tb->tid = tid;
	tb->end = tb->buf + CP_TB_SIZE - CP_TB_ROOM;
	tb->prev_ts = ts;
	tb->prev_wall = wall;
	block_reset(tb);
	return tb;
}

void cp_tb_flush(struct cp_tracebuf *tb)
{
	struct cp_block_header *bh = (struct cp_block_header *)tb->buf;
	struct cp_events_head *eh = (struct cp_events_head *)(bh + 1);
	size_t n = (size_t)(tb->pos - tb->buf);
	int saved = errno;

	if (tb->nevents && cp_rt.trace_fd >= 0) {
		bh->magic = CP_BLOCK_MAGIC;
		bh->type = CP_BLOCK_EVENTS;
		bh->tid = tb->tid;
		bh->size = (uint32_t)(n - sizeof(*bh));
		eh->nevents = tb->nevents;
		eh->reserved = 0;
		if (write_all(cp_rt.trace_fd, tb->buf, n))
			cp_rt.trace_fd = -1;	/* disk full: stop tracing */
	}
	block_reset(tb);
	errno = saved;
}

void cp_tb_free(struct cp_tracebuf *tb)
{
	if (!tb)
		return;
	cp_free(tb->buf);
	cp_free(tb);
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
		cp_strings[cp_nstrings++] = name;
		id = cp_nstrings;
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

int cp_trace_write_block(uint32_t type, uint32_t tid, const void *payload,
			 size_t n)
{
	struct cp_block_header bh = {
		.magic = CP_BLOCK_MAGIC, .type = type, .tid = tid,
		.size = (uint32_t)n,
	};
	struct iovec iov[2] = {
		{ .iov_base = &bh, .iov_len = sizeof(bh) },
		{ .iov_base = (void *)payload, .iov_len = n },
	};
	size_t left = sizeof(bh) + n;
	int fd = cp_rt.trace_fd, saved = errno, err = 0;

	if (fd < 0)
		return -EBADF;
	while (left > 0) {
		ssize_t w = writev(fd, iov, 2);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? -errno : -EIO;
			cp_rt.trace_fd = -1;	/* disk full: stop */
			break;
		}
		left -= (size_t)w;
		for (int i = 0; i < 2 && w > 0; i++) {
			size_t k = (size_t)w < iov[i].iov_len ?
				   (size_t)w : iov[i].iov_len;

			iov[i].iov_base = (uint8_t *)iov[i].iov_base + k;
			iov[i].iov_len -= k;
			w -= (ssize_t)k;
		}
	}
	errno = saved;
	return err;
}

#define CP_CRASH_FNS 8
static void (*cp_crash_fns[CP_CRASH_FNS])(void);
static unsigned cp_ncrash_fns;

int cp_trace_at_crash(void (*fn)(void))
{
	for (unsigned i = 0; i < cp_ncrash_fns; i++)
		if (cp_crash_fns[i] == fn)
			return 0;
	if (cp_ncrash_fns == CP_CRASH_FNS)
		return -ENOSPC;
	cp_crash_fns[cp_ncrash_fns++] = fn;
	return 0;
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

void cp_trace_finish(struct cp_thread *all, uint64_t online_len)
{
	struct cp_trace_end end = { 0 };
	struct blob b = { 0 };
	int saved = errno;

	if (cp_rt.trace_fd < 0)
		return;
	for (struct cp_thread *t = all; t; t = t->next) {
		struct cp_thread_info ti = {
			.tid = t->tid, .parent_tid = t->parent,
			.pthread_id = (uint64_t)t->self,
			.useful_ns = t->useful_ns, .wait_ns = t->wait_ns,
			.len_ns = t->path->len,
		};

		end.nevents += t->traced;
		if (t->tb) {
			cp_tb_flush(t->tb);
			end.nevents += t->tb->total;
		}
		end.nthreads++;
		b.n = 0;
		blob_put(&b, &ti, sizeof(ti));
		blob_put(&b, t->tid == 0 ? "main" : "", t->tid == 0 ? 5 : 1);
		cp_trace_write_block(CP_BLOCK_THREAD, t->tid, b.p, b.n);
	}
	b.n = 0;
	cp_symbols_for_each(sym_cb, &b);
	cp_trace_write_block(CP_BLOCK_SYMBOLS, 0, b.p, b.n);
	b.n = 0;
	for (uint32_t i = 0; i < cp_nstrings; i++) {
		uint32_t id = i + 1;

		blob_put(&b, &id, 4);
		blob_put(&b, cp_strings[i], strlen(cp_strings[i]) + 1);
	}
	cp_trace_write_block(CP_BLOCK_STRINGS, 0, b.p, b.n);
	b.n = 0;
	info_put(&b, "exe", cp_symbols_exe());
	info_put(&b, "clock", cp_rt.clock == CP_CLOCK_CPU ? "cpu" : "wall");
	{
		static const char *const kinds[] = { "off", "perf", "timer" };
		char hz[16];

		info_put(&b, "sampling", kinds[cp_sampler_kind()]);
		snprintf(hz, sizeof(hz), "%u", cp_sampler_kind() ?
			 cp_rt.cfg.sampling_hz : 0);
		info_put(&b, "sampling_hz", hz);
	}
	{
		char funcs[CP_MAX_FUNCS * 130] = "";
		size_t n = 0;

		for (unsigned i = 0; i < cp_rt.cfg.nfuncs; i++) {
			size_t l = strlen(cp_rt.cfg.funcs[i]);

			if (i)
				funcs[n++] = ',';
			memcpy(funcs + n, cp_rt.cfg.funcs[i], l);
			n += l;
		}
		funcs[n] = '\0';
		info_put(&b, "funcs", funcs);
	}
	if (*cp_unseen_blocked_note())
		info_put(&b, "note.unexplained", cp_unseen_blocked_note());
	if (*cp_unseen_library_note())
		info_put(&b, "note.library", cp_unseen_library_note());
	cp_trace_write_block(CP_BLOCK_INFO, 0, b.p, b.n);
	cp_free(b.p);
	end.online_len_ns = online_len;
	cp_trace_write_block(CP_BLOCK_END, 0, &end, sizeof(end));
	close(cp_rt.trace_fd);
	cp_rt.trace_fd = -1;
	errno = saved;
}
