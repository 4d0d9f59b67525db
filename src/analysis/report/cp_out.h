/*
 * cp_out.h - pieces every text and JSON output of cpt shares: what salvage
 * did to a trace, said the same way in the report, the paths and the
 * what-if.
 *
 * Concurrency: the input is only read; one writer per FILE.
 */
#ifndef CP_OUT_H
#define CP_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "cp_emit.h"
#include "cp_input.h"

/*
 * What salvage did to a trace input (cp_trace.h) as report lines on @f:
 * "  PARTIAL: ...", "  REPAIRED: ...", each followed by a blank line;
 * nothing for a whole trace or a PAG.
 */
void cp_out_salvage_print(FILE *f, const struct cp_input *in);
/*
 * The same as JSON members of the open object: "partial",
 * "partial_reason", "repairs", "first_repair" (only when there were).
 */
void cp_out_salvage_emit(struct cp_emit *e, const struct cp_input *in);

/*
 * @name fitted to @w columns (at least 8) for a table, into @buf of
 * @len: as it is when it fits, else its head and its tail around "...",
 * the tail the longer (a C++ or Rust name ends in what tells its
 * overloads and closures apart); cut between UTF-8 characters.  Returns
 * @buf.
 */
const char *cp_out_fit(char *buf, size_t len, const char *name, int w);

/* A JSON emitter on @f, pretty-printed, through a buffer: end its
 * document with cp_out_json_end(), and write nothing else to @f in
 * between. */
void cp_out_json_begin(struct cp_emit *e, FILE *f);
/* End the document of cp_out_json_begin() (its final newline) and write
 * out what is buffered; a write that failed shows in ferror() of the
 * file. */
void cp_out_json_end(struct cp_emit *e);

#endif /* CP_OUT_H */
