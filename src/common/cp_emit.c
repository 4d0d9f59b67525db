#include "cp_emit.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void cp_emit_init(struct cp_emit *e,
		  void (*write)(void *ctx, const char *buf, size_t len),
		  void *ctx, bool pretty)
{
	memset(e, 0, sizeof(*e));
	e->write = write;
	e->ctx = ctx;
	e->pretty = pretty;
}

void cp_emit_file_write(void *ctx, const char *buf, size_t len)
{
	fwrite(buf, 1, len, (FILE *)ctx);
}

static void put(struct cp_emit *e, const char *s, size_t n)
{
	e->write(e->ctx, s, n);
}

static void puts_(struct cp_emit *e, const char *s)
{
	put(e, s, strlen(s));
}

size_t cp_emit_escape(unsigned char c, bool html, char esc[6])
{
	static const char hex[] = "0123456789abcdef";

	esc[0] = '\\';
	switch (c) {
	case '"':
	case '\\':
		esc[1] = (char)c;
		return 2;
	case '\n':
		esc[1] = 'n';
		return 2;
	case '\t':
		esc[1] = 't';
		return 2;
	case '\r':
		esc[1] = 'r';
		return 2;
	default:
		if (c >= 0x20 && (c != '<' || !html))
			return 0;
		esc[1] = 'u';
		esc[2] = '0';
		esc[3] = '0';
		esc[4] = hex[c >> 4];
		esc[5] = hex[c & 15];
		return 6;
	}
}

static void put_string(struct cp_emit *e, const char *s)
{
	const char *run = s;

	put(e, "\"", 1);
	for (; *s; s++) {
		char esc[6];
		size_t n = cp_emit_escape((unsigned char)*s, false, esc);

		if (!n)
			continue;
		put(e, run, (size_t)(s - run));
		run = s + 1;
		put(e, esc, n);
	}
	put(e, run, (size_t)(s - run));
	put(e, "\"", 1);
}

/* Separator, indentation and key before a member. */
static void member(struct cp_emit *e, const char *key)
{
	if (e->depth > 0) {
		if (e->nonempty[e->depth - 1])
			put(e, ",", 1);
		e->nonempty[e->depth - 1] = true;
		if (e->pretty) {
			put(e, "\n", 1);
			for (int i = 0; i < e->depth; i++)
				put(e, "  ", 2);
		}
		if (!e->in_array[e->depth - 1] && key) {
			put_string(e, key);
			put(e, e->pretty ? ": " : ":", e->pretty ? 2 : 1);
		}
	}
}

static void open_(struct cp_emit *e, const char *key, const char *tok,
		  bool array)
{
	member(e, key);
	puts_(e, tok);
	if (e->depth < CP_EMIT_MAXDEPTH) {
		e->in_array[e->depth] = array;
		e->nonempty[e->depth] = false;
	}
	e->depth++;
}

static void close_(struct cp_emit *e, const char *tok)
{
	e->depth--;
	if (e->pretty && e->depth < CP_EMIT_MAXDEPTH && e->nonempty[e->depth]) {
		put(e, "\n", 1);
		for (int i = 0; i < e->depth; i++)
			put(e, "  ", 2);
	}
	puts_(e, tok);
}

void cp_emit_obj_begin(struct cp_emit *e, const char *key)
{
	open_(e, key, "{", false);
}

void cp_emit_obj_end(struct cp_emit *e)
{
	close_(e, "}");
}

void cp_emit_arr_begin(struct cp_emit *e, const char *key)
{
	open_(e, key, "[", true);
}

void cp_emit_arr_end(struct cp_emit *e)
{
	close_(e, "]");
}

void cp_emit_u64(struct cp_emit *e, const char *key, uint64_t v)
{
	char buf[24];

	member(e, key);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	puts_(e, buf);
}

void cp_emit_i64(struct cp_emit *e, const char *key, int64_t v)
{
	char buf[24];

	member(e, key);
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	puts_(e, buf);
}

void cp_emit_f64(struct cp_emit *e, const char *key, double v)
{
	char buf[40];

	member(e, key);
	if (!isfinite(v)) {
		puts_(e, "null");
		return;
	}
	snprintf(buf, sizeof(buf), "%.6g", v);
	puts_(e, buf);
}

void cp_emit_str(struct cp_emit *e, const char *key, const char *s)
{
	member(e, key);
	if (s)
		put_string(e, s);
	else
		puts_(e, "null");
}

void cp_emit_bool(struct cp_emit *e, const char *key, bool v)
{
	member(e, key);
	puts_(e, v ? "true" : "false");
}

void cp_emit_null(struct cp_emit *e, const char *key)
{
	member(e, key);
	puts_(e, "null");
}

void cp_emit_end(struct cp_emit *e)
{
	put(e, "\n", 1);
}
