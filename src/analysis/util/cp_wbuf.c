/*
 * cp_wbuf.c - buffered text output for the exporters.
 */
#include "cp_wbuf.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cp_digits.h"
#include "cp_emit.h"

void cp_wbuf_init(struct cp_wbuf *w, FILE *f)
{
	w->f = f;
	w->len = 0;
	w->failed = false;
}

void cp_wbuf_flush(struct cp_wbuf *w)
{
	if (w->len && !w->failed &&
	    fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->failed = true;
	w->len = 0;
}

int cp_wbuf_close(struct cp_wbuf *w)
{
	cp_wbuf_flush(w);
	if (!w->failed && (fflush(w->f) || ferror(w->f)))
		w->failed = true;
	return w->failed ? -1 : 0;
}

void cp_wbuf_mem(struct cp_wbuf *w, const void *p, size_t n)
{
	if (n > CP_WBUF_SIZE - w->len) {
		cp_wbuf_flush(w);
		if (n > CP_WBUF_SIZE) {
			if (!w->failed && fwrite(p, 1, n, w->f) != n)
				w->failed = true;
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void cp_wbuf_str(struct cp_wbuf *w, const char *s)
{
	cp_wbuf_mem(w, s, strlen(s));
}

void cp_wbuf_u64(struct cp_wbuf *w, uint64_t v)
{
	char b[CP_DIGITS_MAX], *p = cp_u64_digits(v, b + sizeof(b));

	cp_wbuf_mem(w, p, (size_t)(b + sizeof(b) - p));
}

void cp_wbuf_i64(struct cp_wbuf *w, int64_t v)
{
	if (v < 0) {
		cp_wbuf_c(w, '-');
		cp_wbuf_u64(w, (uint64_t)0 - (uint64_t)v);
	} else {
		cp_wbuf_u64(w, (uint64_t)v);
	}
}

void cp_wbuf_us(struct cp_wbuf *w, uint64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);

	cp_wbuf_u64(w, ns / 1000);
	cp_wbuf_c(w, '.');
	cp_wbuf_c(w, (char)('0' + frac / 100));
	cp_wbuf_c(w, (char)('0' + frac / 10 % 10));
	cp_wbuf_c(w, (char)('0' + frac % 10));
}

void cp_wbuf_f64(struct cp_wbuf *w, double v, int prec)
{
	char b[64];

	if (!isfinite(v))
		v = 0;
	snprintf(b, sizeof(b), "%.*f", prec, v);
	cp_wbuf_str(w, b);
}

void cp_wbuf_printf(struct cp_wbuf *w, const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(b)) {
		cp_wbuf_mem(w, b, (size_t)n);
		return;
	}
	cp_wbuf_flush(w);
	va_start(ap, fmt);
	if (!w->failed && vfprintf(w->f, fmt, ap) < 0)
		w->failed = true;
	va_end(ap);
}

/* Escape @s as JSON string contents, safe inside an HTML <script>, into
 * @out (room for 6 bytes per input byte); returns the length written. */
static size_t json_escape(char *out, const char *s)
{
	char *o = out;

	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t u = cp_emit_utf8_len(p), n;
		char esc[6];

		if (u > 1) {
			memcpy(o, p, u);
			o += u;
			p += u;
			continue;
		}
		if (u)
			n = cp_emit_escape(*p, true, esc);
		else
			memcpy(esc, CP_EMIT_BAD_UTF8, n = 6);
		if (n) {
			memcpy(o, esc, n);
			o += n;
		} else {
			*o++ = (char)*p;
		}
		p++;
	}
	return (size_t)(o - out);
}

void cp_wbuf_json(struct cp_wbuf *w, const char *s)
{
	char small[256];
	size_t len = strlen(s);
	char *buf = len <= sizeof(small) / 6 ? small : malloc(len * 6 + 1);

	cp_wbuf_c(w, '"');
	if (buf) {
		cp_wbuf_mem(w, buf, json_escape(buf, s));
		if (buf != small)
			free(buf);
	} else {
		w->failed = true;
	}
	cp_wbuf_c(w, '"');
}

char *cp_json_quote(const char *s)
{
	char *q = malloc(strlen(s) * 6 + 3);
	size_t n;

	if (!q)
		return NULL;
	q[0] = '"';
	n = json_escape(q + 1, s);
	q[n + 1] = '"';
	q[n + 2] = '\0';
	return q;
}

void cp_wbuf_html(struct cp_wbuf *w, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			cp_wbuf_str(w, "&amp;");
			break;
		case '<':
			cp_wbuf_str(w, "&lt;");
			break;
		case '>':
			cp_wbuf_str(w, "&gt;");
			break;
		case '"':
			cp_wbuf_str(w, "&quot;");
			break;
		case '\'':
			cp_wbuf_str(w, "&#39;");
			break;
		default:
			cp_wbuf_c(w, *s);
		}
	}
}

const char *cp_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	return cp_fmt_ns_as(buf, len, ns, "us");
}

const char *cp_fmt_ns_as(char *buf, size_t len, uint64_t ns,
			 const char *micro)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f %s", (double)ns / 1e3, micro);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	return buf;
}

const char *cp_fmt_pct(char *buf, size_t len, double pct)
{
	snprintf(buf, len, "%.1f%%", pct);
	return buf;
}
