/*
 * cp_emit.h - a small streaming JSON emitter shared by the runtime's
 * report and the cpt tool, so both spell the contract's keys one way.
 *
 * The emitter never allocates: output goes through a caller-supplied
 * write function (an fd writer in the runtime, a FILE * in tools).  Keys
 * are ignored inside arrays.  Not thread-safe: one emitter per writer.
 * The emitter reports no errors: the write function keeps its own (the
 * caller checks it after cp_emit_end()).  Strings, keys included, are
 * escaped as JSON requires and only read during the call; nesting deeper
 * than CP_EMIT_MAXDEPTH still writes valid JSON, without indentation
 * beyond that depth.  The keys of the report live in cp_report_keys.h.
 */
#ifndef CP_EMIT_H
#define CP_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CP_EMIT_MAXDEPTH 32

struct cp_emit {
	void (*write)(void *ctx, const char *buf, size_t len);
	void *ctx;
	int depth;			/* open containers */
	bool in_array[CP_EMIT_MAXDEPTH];
	bool nonempty[CP_EMIT_MAXDEPTH];
	bool pretty;			/* newline + indent per member */
	bool bare;			/* the next member writes no separator,
					 * indentation or key
					 * (cp_emit_init_value) */
};

/* Set up @e to write through @write(@ctx, ...). */
void cp_emit_init(struct cp_emit *e,
		  void (*write)(void *ctx, const char *buf, size_t len),
		  void *ctx, bool pretty);
/* Convenience writer for stdio: cp_emit_init(e, cp_emit_file_write, f, ..);
 * @f is written by one thread only (it takes no lock). */
void cp_emit_file_write(void *ctx, const char *buf, size_t len);

/*
 * The one JSON string escaper: how byte @c goes into a JSON string.
 * Returns 0 when it goes as it is, else the length (2 or 6) of its escape
 * written to @esc: \" \\ \n \t \r, \u00XX for the other control
 * bytes, and \u003c for '<' when @html (safe inside an HTML <script>).
 * Reentrant; no allocation.
 */
size_t cp_emit_escape(unsigned char c, bool html, char esc[6]);

/*
 * The length of the valid UTF-8 sequence at @s: 1 for an ASCII byte, 2 to
 * 4, or 0 when the bytes there are not one (a stray continuation byte, an
 * overlong form, a surrogate, past U+10FFFF, cut short).  A JSON string
 * takes an invalid byte as U+FFFD (\ufffd): thread names and symbols are
 * bytes the program chose, JSON text is UTF-8.
 */
size_t cp_emit_utf8_len(const unsigned char *s);

/* The escape of a byte that is no valid UTF-8, 6 bytes. */
#define CP_EMIT_BAD_UTF8	"\\ufffd"

/* Open or close an object or array; @key names it inside an object
 * (NULL at the top level and inside arrays).  Calls must pair. */
void cp_emit_obj_begin(struct cp_emit *e, const char *key);
void cp_emit_obj_end(struct cp_emit *e);
void cp_emit_arr_begin(struct cp_emit *e, const char *key);
void cp_emit_arr_end(struct cp_emit *e);
/* One member: @key (ignored inside an array) and its value. */
void cp_emit_u64(struct cp_emit *e, const char *key, uint64_t v);
void cp_emit_i64(struct cp_emit *e, const char *key, int64_t v);
/* Finite doubles with up to 6 significant decimals; NaN/inf as null. */
void cp_emit_f64(struct cp_emit *e, const char *key, double v);
/* @s escaped; NULL writes null. */
void cp_emit_str(struct cp_emit *e, const char *key, const char *s);
void cp_emit_bool(struct cp_emit *e, const char *key, bool v);
void cp_emit_null(struct cp_emit *e, const char *key);
/*
 * Set up @e to write one value, through @write(@ctx, ...), as it would
 * go into @at's document at @at's present place: indented for that
 * depth, without the separator, indentation and key before it.  Its text
 * goes into @at by cp_emit_raw() there (or at any place of the same
 * depth), as often as wanted: a value that many members repeat is
 * written out once.
 */
void cp_emit_init_value(struct cp_emit *e,
			void (*write)(void *ctx, const char *buf, size_t len),
			void *ctx, const struct cp_emit *at);
/* One member: @key and @json, written as it is (@len bytes): a value from
 * an emitter of cp_emit_init_value(), or other JSON that needs no
 * indentation. */
void cp_emit_raw(struct cp_emit *e, const char *key, const char *json,
		 size_t len);
/* Terminate the document with a newline. */
void cp_emit_end(struct cp_emit *e);

#endif /* CP_EMIT_H */
