/*
 * cp_out.c - what the text and JSON outputs share (cp_out.h).
 */
#include "cp_out.h"

#include <stdlib.h>
#include <string.h>

#include "cp_wbuf.h"

void cp_out_salvage_print(FILE *f, const struct cp_input *in)
{
	const struct cp_trace *t = &in->t;

	if (!in->is_trace)
		return;
	if (t->partial)
		fprintf(f, "  PARTIAL: %s\n\n", t->partial_why);
	if (t->nrepairs) {
		char line[400];

		cp_input_repairs_line(line, sizeof(line), t);
		fprintf(f, "  REPAIRED: %s\n\n", line);
	}
}

void cp_out_salvage_emit(struct cp_emit *e, const struct cp_input *in)
{
	const struct cp_trace *t = &in->t;

	cp_emit_bool(e, "partial", in->is_trace && t->partial);
	if (in->is_trace && t->partial)
		cp_emit_str(e, "partial_reason", t->partial_why);
	else
		cp_emit_null(e, "partial_reason");
	cp_emit_u64(e, "repairs", in->is_trace ? t->nrepairs : 0);
	if (in->is_trace && t->nrepairs)
		cp_emit_str(e, "first_repair", t->repair_why);
}

/* Whether byte @c continues a UTF-8 character. */
static int utf8_cont(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

const char *cp_out_fit(char *buf, size_t len, const char *name, int w)
{
	size_t n = strlen(name), head, tail;

	if (w < 8)
		w = 8;
	if ((size_t)w >= len)
		w = (int)len - 1;
	if (n <= (size_t)w) {
		memcpy(buf, name, n + 1);
		return buf;
	}
	head = ((size_t)w - 3) * 9 / 20;
	tail = (size_t)w - 3 - head;
	while (head && utf8_cont(name[head]))
		head--;
	while (tail && utf8_cont(name[n - tail]))
		tail--;
	memcpy(buf, name, head);
	memcpy(buf + head, "...", 3);
	memcpy(buf + head + 3, name + n - tail, tail + 1);
	return buf;
}

/* The emitter's writer on a buffer of its own (a report of a million
 * objects or threads is millions of tokens, and stdio's call per token
 * was a sixth of its time). */
static void wbuf_write(void *ctx, const char *buf, size_t len)
{
	cp_wbuf_mem(ctx, buf, len);
}

void cp_out_json_begin(struct cp_emit *e, FILE *f)
{
	struct cp_wbuf *w = malloc(sizeof(*w));

	if (!w) {	/* unbuffered, then */
		cp_emit_init(e, cp_emit_file_write, f, true);
		return;
	}
	cp_wbuf_init(w, f);
	cp_emit_init(e, wbuf_write, w, true);
}

void cp_out_json_end(struct cp_emit *e)
{
	cp_emit_end(e);
	if (e->write == wbuf_write) {
		cp_wbuf_close(e->ctx);	/* a failed write shows in ferror */
		free(e->ctx);
		e->ctx = NULL;
	}
}
