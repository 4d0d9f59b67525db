#include "cp_emit.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cp_digits.h"

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
	/* a token at a time: the stream's lock for each was a fifth of the
	 * time of a JSON report that lists 200,000 threads */
	fwrite_unlocked(buf, 1, len, (FILE *)ctx);
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

size_t cp_emit_utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;	/* continuation, 0xc0/0xc1, past 0xf4 */
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also the NUL that ends it */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Whether byte @c goes into a JSON string as it is with no check of a
 * sequence: printable ASCII other than the quote and the backslash. */
static inline bool plain_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

static void put_string(struct cp_emit *e, const char *s)
{
	const char *run = s;

	put(e, "\"", 1);
	while (*s) {
		size_t u, n;
		char esc[6];

		if (plain_byte((unsigned char)*s)) {
			s++;
			continue;
		}
		u = cp_emit_utf8_len((const unsigned char *)s);
		if (u > 1) {
			s += u;
			continue;
		}
		if (u)
			n = cp_emit_escape((unsigned char)*s, false, esc);
		else
			memcpy(esc, CP_EMIT_BAD_UTF8, n = 6);
		if (!n) {
			s++;
			continue;
		}
		put(e, run, (size_t)(s - run));
		put(e, esc, n);
		run = ++s;
	}
	put(e, run, (size_t)(s - run));
	put(e, "\"", 1);
}

/* A newline and the indentation of depth @depth, in one write. */
static void newline(struct cp_emit *e, int depth)
{
	static const char spaces[] = "\n"
		"                                                                ";
	size_t n = 1 + 2 * (size_t)depth;

	if (n <= sizeof(spaces) - 1) {
		put(e, spaces, n);
		return;
	}
	put(e, "\n", 1);
	for (int i = 0; i < depth; i++)
		put(e, "  ", 2);
}

/* Separator, indentation and key before a member (nothing before the
 * value of an emitter from cp_emit_init_value). */
static void member(struct cp_emit *e, const char *key)
{
	if (e->bare) {
		e->bare = false;
		return;
	}
	if (e->depth > 0) {
		if (e->nonempty[e->depth - 1])
			put(e, ",", 1);
		e->nonempty[e->depth - 1] = true;
		if (e->pretty)
			newline(e, e->depth);
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
	if (e->pretty && e->depth < CP_EMIT_MAXDEPTH && e->nonempty[e->depth])
		newline(e, e->depth);
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
	char buf[CP_DIGITS_MAX], *p = cp_u64_digits(v, buf + sizeof(buf));

	member(e, key);
	put(e, p, (size_t)(buf + sizeof(buf) - p));
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

void cp_emit_init_value(struct cp_emit *e,
			void (*write)(void *ctx, const char *buf, size_t len),
			void *ctx, const struct cp_emit *at)
{
	cp_emit_init(e, write, ctx, at->pretty);
	e->depth = at->depth;
	e->bare = true;
}

void cp_emit_raw(struct cp_emit *e, const char *key, const char *json,
		 size_t len)
{
	member(e, key);
	put(e, json, len);
}

void cp_emit_end(struct cp_emit *e)
{
	put(e, "\n", 1);
}
