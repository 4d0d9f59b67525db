/*
 * cp_wbuf.h - a buffered writer for the exporters (Chrome trace, folded
 * stacks, dot, HTML): a million-event trace turns into tens of megabytes
 * of text, so numbers are formatted by hand and written in large blocks
 * instead of one stdio call per field.
 *
 * Errors are sticky: after a failed write every call is a no-op and
 * cp_wbuf_close() returns -1.  One writer per thread.
 */
#ifndef CP_WBUF_H
#define CP_WBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CP_WBUF_SIZE (1u << 16)

struct cp_wbuf {
	FILE *f;
	size_t len;
	bool failed;
	char buf[CP_WBUF_SIZE];
};

void cp_wbuf_init(struct cp_wbuf *w, FILE *f);
/* Flush what is buffered; returns 0, or -1 if any write failed. */
int cp_wbuf_close(struct cp_wbuf *w);

/* Write out what is buffered (errors are remembered, see above). */
void cp_wbuf_flush(struct cp_wbuf *w);
/* Append @n bytes, a C string, a decimal integer. */
void cp_wbuf_mem(struct cp_wbuf *w, const void *p, size_t n);
void cp_wbuf_str(struct cp_wbuf *w, const char *s);
void cp_wbuf_u64(struct cp_wbuf *w, uint64_t v);
void cp_wbuf_i64(struct cp_wbuf *w, int64_t v);
/* @ns as microseconds with three decimals ("12.345"). */
void cp_wbuf_us(struct cp_wbuf *w, uint64_t ns);
/* @v with @prec decimals (finite values; else 0). */
void cp_wbuf_f64(struct cp_wbuf *w, double v, int prec);
/* printf-style, for the rare long formatted piece. */
void cp_wbuf_printf(struct cp_wbuf *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* @s as a JSON string, quotes included. */
void cp_wbuf_json(struct cp_wbuf *w, const char *s);
/* A malloc'd copy of @s as a JSON string, quotes included; NULL when
 * memory runs out. */
char *cp_json_quote(const char *s);
/* @s escaped for HTML text and attribute values (& < > " '). */
void cp_wbuf_html(struct cp_wbuf *w, const char *s);

/* "40 ns", "1.50 us", "12.30 ms", "1.234 s" into @buf; returns @buf.
 * Reentrant.  The one nanosecond formatter of cpt's outputs. */
const char *cp_fmt_ns(char *buf, size_t len, uint64_t ns);
/* The same with @micro as the microsecond unit ("µs" in HTML). */
const char *cp_fmt_ns_as(char *buf, size_t len, uint64_t ns,
			 const char *micro);
/* "12.5%" into @buf; returns @buf.  Reentrant. */
const char *cp_fmt_pct(char *buf, size_t len, double pct);

static inline void cp_wbuf_c(struct cp_wbuf *w, char c)
{
	if (w->len == CP_WBUF_SIZE)
		cp_wbuf_flush(w);
	w->buf[w->len++] = c;
}

#endif /* CP_WBUF_H */
