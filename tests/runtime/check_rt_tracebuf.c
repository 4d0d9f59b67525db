/*
 * check_rt_tracebuf.c - the trace writer's blocks: each checksummed and
 * numbered, flushed when a buffer's first vertex is CP_TRACE_FLUSH_NS old,
 * written whole by cp_trace_write_block, closed by the crash path (which
 * runs the cp_trace_at_crash functions once), and write errors recorded.
 * The tracer itself is off (CPTHREAD_MODE=off): the writer is driven by
 * hand with synthetic timestamps.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_alloc.h"
#include "cp_crc32c.h"
#include "cp_runtime.h"
#include "cp_tracebuf.h"

/* One block read back from the file. */
struct rblock {
	struct cp_block_header h;
	const uint8_t *payload;
};

static char path[64];
static uint8_t *file;
static size_t file_len;

static void open_trace(void)
{
	int fd;

	strcpy(path, "/tmp/check_rt_tracebuf_XXXXXX");
	fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	ck_assert(cp_alloc_init() == 0);
	memset(&cp_rt.cfg, 0, sizeof(cp_rt.cfg));
	strcpy(cp_rt.cfg.trace_tmpl, path);	/* explicit: truncated */
	cp_rt.cfg.file_mode = 0600;
	cp_rt.cfg.quiet = true;
	strcpy(cp_rt.trace_path, path);
	cp_rt.clock = CP_CLOCK_WALL;
	ck_assert_int_eq(cp_trace_open(), 0);
}

/* Read the file and split it into blocks, checking each checksum. */
static size_t read_blocks(struct rblock *out, size_t max)
{
	struct stat st;
	size_t off = CP_TRACE_HEADER_SIZE, n = 0;
	int fd = open(path, O_RDONLY);

	ck_assert(fd >= 0 && fstat(fd, &st) == 0);
	free(file);
	file_len = (size_t)st.st_size;
	file = malloc(file_len + 1);
	ck_assert(read(fd, file, file_len) == (ssize_t)file_len);
	close(fd);
	while (off < file_len && n < max) {
		struct rblock *b = &out[n++];

		ck_assert_msg(file_len - off >= sizeof(b->h), "torn header at "
			      "%zu of %zu", off, file_len);
		memcpy(&b->h, file + off, sizeof(b->h));
		b->payload = file + off + sizeof(b->h);
		ck_assert_msg(b->h.magic == CP_BLOCK_MAGIC &&
			      b->h.size <= file_len - off - sizeof(b->h),
			      "bad block at %zu", off);
		ck_assert_msg(b->h.crc == cp_block_crc(&b->h, b->payload),
			      "checksum of block %zu (type %u) is %08x, want "
			      "%08x", n - 1, b->h.type, b->h.crc,
			      cp_block_crc(&b->h, b->payload));
		off += sizeof(b->h) + b->h.size;
	}
	return n;
}

/* The @k-th block of type @type and thread @tid, or NULL. */
static struct rblock *nth(struct rblock *b, size_t n, uint32_t type,
			  uint32_t tid, unsigned k)
{
	for (size_t i = 0; i < n; i++)
		if (b[i].h.type == type && b[i].h.tid == tid && k-- == 0)
			return &b[i];
	return NULL;
}

static uint32_t nevents(const struct rblock *b)
{
	struct cp_events_head eh;

	memcpy(&eh, b->payload, sizeof(eh));
	return eh.nevents;
}

static void vertex(struct cp_tracebuf *tb, uint64_t ts)
{
	cp_tb_commit(tb, cp_tb_vertex(tb, CP_EV_CP_START, ts, UINT64_MAX));
}

static unsigned crash_calls;

static void crash_fn(void)
{
	static const char msg[] = "sampler";

	crash_calls++;
	ck_assert_int_eq(cp_trace_write_block(CP_BLOCK_SAMPLES, 3, msg,
					      sizeof(msg)), 0);
}

START_TEST(test_rt_tracebuf_blocks)
{
	struct rblock b[32];
	struct rblock *ev;
	struct cp_tracebuf *tb, *other;
	static const char payload[] = "module records";
	size_t n;

	open_trace();
	tb = cp_tb_new(0, 1000, 0);
	ck_assert(tb != NULL);
	/* three vertices within the age bound: one block, at the flush */
	vertex(tb, 1000);
	vertex(tb, 2000);
	vertex(tb, 1000 + CP_TRACE_FLUSH_NS - 1);
	n = read_blocks(b, 32);
	ck_assert_msg(!nth(b, n, CP_BLOCK_EVENTS, 0, 0), "flushed too early");
	/* the first vertex is CP_TRACE_FLUSH_NS old at this one */
	vertex(tb, 1000 + CP_TRACE_FLUSH_NS);
	n = read_blocks(b, 32);
	ev = nth(b, n, CP_BLOCK_EVENTS, 0, 0);
	ck_assert_msg(ev && nevents(ev) == 3 && ev->h.seq == 0 &&
		      ev->h.tid == 0 && !ev->h.flags,
		      "age flush: block %p, %u events", (void *)ev,
		      ev ? nevents(ev) : 0);
	/* a block of another type, whole */
	ck_assert_int_eq(cp_trace_write_block(CP_BLOCK_MODULES, 0, payload,
					      sizeof(payload)), 0);
	n = read_blocks(b, 32);
	ev = nth(b, n, CP_BLOCK_MODULES, 0, 0);
	ck_assert(ev && ev->h.size == sizeof(payload) &&
		  !memcmp(ev->payload, payload, sizeof(payload)));
	/* the crash path: every buffer, closed; the registered flusher once */
	other = cp_tb_new(1, 5, 0);
	vertex(other, 5);
	cp_trace_at_crash(crash_fn);
	cp_trace_crash_flush();
	cp_trace_crash_flush();
	ck_assert_uint_eq(crash_calls, 1);
	n = read_blocks(b, 32);
	ev = nth(b, n, CP_BLOCK_EVENTS, 0, 1);
	ck_assert_msg(ev && ev->h.seq == 1 && nevents(ev) == 1 &&
		      (ev->h.flags & CP_BLOCKF_CLOSED), "crash block of 0");
	ev = nth(b, n, CP_BLOCK_EVENTS, 1, 0);
	ck_assert_msg(ev && ev->h.seq == 0 && nevents(ev) == 1 &&
		      (ev->h.flags & CP_BLOCKF_CLOSED), "crash block of 1");
	ev = nth(b, n, CP_BLOCK_SAMPLES, 3, 0);
	ck_assert(ev && !strcmp((const char *)ev->payload, "sampler"));
	/* a closed buffer drops what its owner records afterwards */
	vertex(tb, 2 * CP_TRACE_FLUSH_NS);
	cp_tb_flush(tb);
	ck_assert_uint_eq(read_blocks(b, 32), n);
	ck_assert_int_eq(cp_trace_error(), 0);
	cp_tb_free(tb);
	cp_tb_free(other);
	unlink(path);
}
END_TEST

static void request(struct cp_tracebuf *tb, uint64_t ts)
{
	cp_tb_commit(tb, cp_uv_put(cp_tb_vertex(tb, CP_EV_REQUEST, ts,
						UINT64_MAX), 0));
}

/*
 * A blocking wait that begins with events CP_TRACE_WAIT_NS old in the
 * buffer writes them out, the REQUEST included; a younger buffer waits.
 */
START_TEST(test_rt_tracebuf_wait_flush)
{
	struct rblock b[8], *ev;
	struct cp_tracebuf *tb;
	size_t n;

	open_trace();
	tb = cp_tb_new(0, 0, 0);
	vertex(tb, 100);
	request(tb, 100 + CP_TRACE_WAIT_NS - 1);
	vertex(tb, 100 + CP_TRACE_WAIT_NS);
	n = read_blocks(b, 8);
	ck_assert_msg(!nth(b, n, CP_BLOCK_EVENTS, 0, 0), "flushed too early");
	request(tb, 100 + CP_TRACE_WAIT_NS);
	n = read_blocks(b, 8);
	ev = nth(b, n, CP_BLOCK_EVENTS, 0, 0);
	ck_assert_msg(ev && nevents(ev) == 4 && tb->nevents == 0,
		      "wait flush: block %p, %u events, %u left", (void *)ev,
		      ev ? nevents(ev) : 0, tb->nevents);
	cp_tb_free(tb);
	unlink(path);
}
END_TEST

/* One event of a block, decoded (the kinds the tests below write). */
struct rev {
	unsigned op;
	uint64_t ts;
	uint64_t a[3];		/* PUBLISH obj, seq; CONSUME obj, lo, n;
				 * REQUEST obj */
};

/* Decode the events of EVENTS block @b into @out (at most @max, which
 * must hold them all); returns their number. */
static size_t decode(const struct rblock *b, struct rev *out, size_t max)
{
	struct cp_events_head eh;
	const uint8_t *p = b->payload + sizeof(eh);
	const uint8_t *end = b->payload + b->h.size;
	uint64_t ts;

	memcpy(&eh, b->payload, sizeof(eh));
	ts = eh.ts_base;
	ck_assert_uint_le(eh.nevents, max);
	for (uint32_t i = 0; i < eh.nevents; i++) {
		struct rev *e = &out[i];
		unsigned na;
		uint64_t dt;

		memset(e, 0, sizeof(*e));
		ck_assert(p < end);
		e->op = *p++;
		ck_assert_int_eq(cp_uv_get(&p, end, &dt), 0);
		e->ts = ts += dt;
		na = e->op == CP_EV_PUBLISH ? 2 : e->op == CP_EV_CONSUME ? 3 :
		     e->op == CP_EV_REQUEST ? 1 : 0;
		for (unsigned k = 0; k < na; k++)
			ck_assert_int_eq(cp_uv_get(&p, end, &e->a[k]), 0);
	}
	ck_assert_msg(p == end, "%td stray bytes", end - p);
	return eh.nevents;
}

/* Every event of thread @tid's EVENTS blocks, in order, into @out;
 * returns their number and the count of blocks in *@nblocks. */
static size_t events_of(uint32_t tid, struct rev *out, size_t max,
			unsigned *nblocks)
{
	static struct rblock b[64];
	size_t n = read_blocks(b, 64), got = 0;
	struct rblock *ev;

	for (*nblocks = 0; (ev = nth(b, n, CP_BLOCK_EVENTS, tid, *nblocks));
	     (*nblocks)++) {
		ck_assert_uint_eq(ev->h.seq, *nblocks);
		got += decode(ev, out + got, max - got);
	}
	return got;
}

/*
 * The lean paths' staged events (cp_tb_stage) reach the file as the
 * direct encoders would have written them, in order with the other
 * events, the deadline splitting the blocks in the same place: buffer 0
 * stages, buffer 1 encodes at once the same events.
 */
#define NPAIR (3 * CP_TB_STAGE + 7)

START_TEST(test_rt_tracebuf_staged)
{
	static struct rev got[8 * CP_TB_STAGE], want[8 * CP_TB_STAGE];
	struct cp_tracebuf *tb, *ref;
	uint64_t ts = 1000;
	unsigned ngot, nwant;
	size_t n;

	open_trace();
	tb = cp_tb_new(0, 1000, 0);
	ref = cp_tb_new(1, 1000, 0);
	/* lock pairs past a full ring, seq 0 and a long id among them, a
	 * REQUEST in the middle and a pair past the deadline */
	for (uint64_t i = 0; i < NPAIR; i++) {
		uint32_t obj = i % 3 ? 5 : 300000;

		ts += 10 + i * i;
		if (i == CP_TB_STAGE / 2) {
			request(tb, ts);
			request(ref, ts);
		}
		if (i == 2 * CP_TB_STAGE)
			ts += CP_TRACE_FLUSH_NS;
		cp_tb_stage(tb, CP_EV_CONSUME, ts, obj, i);
		cp_tb_consume(ref, 0, ts, UINT64_MAX, obj, i, i != 0);
		cp_tb_stage(tb, CP_EV_PUBLISH, ts + 5, obj, i + 1);
		cp_tb_publish(ref, ts + 5, UINT64_MAX, obj, i + 1);
	}
	ck_assert(cp_tb_has_staged(tb));
	cp_tb_flush(tb);
	cp_tb_flush(ref);
	n = events_of(0, got, 8 * CP_TB_STAGE, &ngot);
	ck_assert_uint_eq(n, 2 * NPAIR + 1);
	ck_assert_uint_eq(events_of(1, want, 8 * CP_TB_STAGE, &nwant), n);
	ck_assert_uint_eq(ngot, 2);
	ck_assert_uint_eq(nwant, 2);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(!memcmp(&got[i], &want[i], sizeof(got[i])),
			      "event %zu: op %u ts %" PRIu64 " (%" PRIu64
			      ", %" PRIu64 ", %" PRIu64 ") against op %u ts %"
			      PRIu64, i, got[i].op, got[i].ts, got[i].a[0],
			      got[i].a[1], got[i].a[2], want[i].op,
			      want[i].ts);
	ck_assert_uint_eq(tb->total, ref->total);
	cp_tb_free(tb);
	cp_tb_free(ref);
	unlink(path);
}
END_TEST

/*
 * The crash path writes another thread's staged events as a block of
 * their own after its committed ones; a drain's commit under way (its
 * count odd, as when the crash interrupts the owner there) leaves them
 * out instead of writing any event twice.
 */
START_TEST(test_rt_tracebuf_staged_crash)
{
	static struct rev got[16];
	struct cp_tracebuf *tb, *mid;
	unsigned nb;
	size_t n;

	open_trace();
	tb = cp_tb_new(0, 100, 0);
	mid = cp_tb_new(1, 100, 0);
	request(tb, 110);
	cp_tb_stage(tb, CP_EV_CONSUME, 120, 7, 3);
	cp_tb_stage(tb, CP_EV_PUBLISH, 130, 7, 4);
	request(mid, 110);
	cp_tb_stage(mid, CP_EV_CONSUME, 120, 7, 5);
	mid->st_gen = 1;
	cp_trace_crash_flush();
	n = events_of(0, got, 16, &nb);
	ck_assert_uint_eq(nb, 2);
	ck_assert_uint_eq(n, 3);
	ck_assert(got[0].op == CP_EV_REQUEST && got[0].ts == 110);
	ck_assert(got[1].op == CP_EV_CONSUME && got[1].ts == 120 &&
		  got[1].a[0] == 7 && got[1].a[1] == 3 && got[1].a[2] == 1);
	ck_assert(got[2].op == CP_EV_PUBLISH && got[2].ts == 130 &&
		  got[2].a[0] == 7 && got[2].a[1] == 4);
	n = events_of(1, got, 16, &nb);
	ck_assert_uint_eq(nb, 1);
	ck_assert_uint_eq(n, 1);
	ck_assert(got[0].op == CP_EV_REQUEST);
	/* the owner of a closed buffer goes on: more than a buffer's worth
	 * of staged events, dropped (and no drain waits for room) */
	for (uint64_t i = 0; i < CP_TB_SIZE; i++)
		cp_tb_stage(tb, CP_EV_PUBLISH, 200 + i, 7, 5 + i);
	cp_tb_flush(tb);
	events_of(0, got, 16, &nb);
	ck_assert_uint_eq(nb, 2);
	cp_tb_free(tb);
	cp_tb_free(mid);
	unlink(path);
}
END_TEST

/* The unrolled encoder writes what the loop writes, at every length. */
START_TEST(test_rt_tracebuf_varint_short)
{
	for (unsigned bits = 0; bits <= 64; bits++) {
		uint64_t base = bits ? (uint64_t)1 << (bits - 1) : 0;

		for (int d = -2; d <= 2; d++) {
			uint64_t v = base + (uint64_t)(int64_t)d;
			uint8_t a[CP_VARINT_MAX], b[CP_VARINT_MAX];
			size_t na = (size_t)(cp_uv_put(a, v) - a);
			size_t nb = (size_t)(cp_uv_put_short(b, v) - b);

			ck_assert_msg(na == nb && !memcmp(a, b, na),
				      "%" PRIu64 ": %zu bytes against %zu", v,
				      nb, na);
		}
	}
}
END_TEST

/* A full disk: recorded once, every later write refused with it. */
START_TEST(test_rt_tracebuf_write_error)
{
	ck_assert(cp_alloc_init() == 0);
	memset(&cp_rt.cfg, 0, sizeof(cp_rt.cfg));
	strcpy(cp_rt.cfg.trace_tmpl, "/dev/full");
	strcpy(cp_rt.trace_path, "/dev/full");
	cp_rt.cfg.quiet = true;
	ck_assert_int_eq(cp_trace_open(), 0);
	ck_assert_int_eq(cp_trace_error(), ENOSPC);
	ck_assert_int_eq(cp_trace_write_block(CP_BLOCK_SAMPLES, 0, "x", 1),
			 -ENOSPC);
	close(cp_rt.trace_fd);
	cp_rt.trace_fd = -1;
	ck_assert_int_eq(cp_trace_write_block(CP_BLOCK_SAMPLES, 0, "x", 1),
			 -EBADF);
}
END_TEST

/* CRC-32C of "123456789" is 0xE3069283 (the check value). */
START_TEST(test_rt_tracebuf_crc)
{
	cp_crc32c_init();
	ck_assert_uint_eq(cp_crc32c(0, "123456789", 9), 0xe3069283u);
	ck_assert_uint_eq(cp_crc32c(cp_crc32c(0, "1234", 4), "56789", 5),
			  0xe3069283u);
	ck_assert_uint_eq(cp_crc32c_portable(0, "123456789", 9), 0xe3069283u);
	/* both ways agree on every length and alignment */
	{
		uint8_t buf[300];
		unsigned seed = 7;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)rand_r(&seed);
		for (size_t off = 0; off < 8; off++)
			for (size_t n = 0; n + off <= sizeof(buf); n += 7)
				ck_assert_uint_eq(cp_crc32c(5, buf + off, n),
					cp_crc32c_portable(5, buf + off, n));
	}
}
END_TEST

static Suite *tracebuf_suite(void)
{
	Suite *s = suite_create("tracebuf");
	TCase *tc = tcase_create("writer");

	tcase_add_test(tc, test_rt_tracebuf_crc);
	tcase_add_test(tc, test_rt_tracebuf_blocks);
	tcase_add_test(tc, test_rt_tracebuf_wait_flush);
	tcase_add_test(tc, test_rt_tracebuf_staged);
	tcase_add_test(tc, test_rt_tracebuf_staged_crash);
	tcase_add_test(tc, test_rt_tracebuf_varint_short);
	tcase_add_test(tc, test_rt_tracebuf_write_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(tracebuf_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
