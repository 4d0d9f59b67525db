/*
 * fuzz.h - what the fuzz targets of tests/fuzz share.
 *
 * Each target (fuzz_trace.c, fuzz_pag.c, fuzz_gprof.c) defines libFuzzer's
 * entry point LLVMFuzzerTestOneInput: it feeds one input to a reader of
 * the analyzer and, when the reader accepts it, runs the layers that
 * `cpt report` runs on it.  The same object links either with libFuzzer
 * (-DCPTHREAD_FUZZ=ON) or with fuzz_replay.c, a plain main that replays
 * files and directories (the seed corpus and the regression inputs, under
 * ctest in every build).
 *
 * A target aborts (a crash to libFuzzer, a failed test to ctest) when an
 * input breaks the analyzer's contract: a memory error or undefined
 * behaviour (the sanitizers), or a rejection that is not one line naming
 * the input.  One thread; nothing here is thread-safe.
 */
#ifndef CP_FUZZ_H
#define CP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The name the targets give their input in messages. */
#define CP_FUZZ_NAME "fuzz-input"

/* libFuzzer's entry points, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * Check a reader's rejection message @err: not empty, one line, starting
 * with "@name" and naming the problem after it.  Aborts with the message
 * quoted otherwise.
 */
void cp_fuzz_check_err(const char *err, const char *name);

/* A stream that discards what is written (/dev/null); aborts if it cannot
 * be opened.  Opened once, never closed. */
FILE *cp_fuzz_sink(void);

#endif /* CP_FUZZ_H */
