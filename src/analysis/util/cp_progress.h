/*
 * cp_progress.h - a progress line on a terminal for long analyses.
 *
 * An analysis that runs longer than a second tells the user what it is
 * doing: "cpt: writing 45% (3.2 s)" on one line of stderr, redrawn at most
 * ten times a second and cleared when done.  Nothing is written when the
 * stream is not a terminal (a pipe, a file, a test harness), nor during
 * the first second.  Long loops report through cp_progress_set() every
 * few thousand items; the call is cheap (a clock read) and does nothing
 * on a quiet meter.
 *
 * Concurrency: one meter per analysis, used from one thread.
 */
#ifndef CP_PROGRESS_H
#define CP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

/* Quiet for analyses shorter than this, and the redraw period. */
#define CP_PROGRESS_DELAY_S 1.0
#define CP_PROGRESS_PERIOD_S 0.1

struct cp_progress {
	FILE *f;		/* where the line goes; NULL: quiet */
	double (*now)(void);	/* monotonic seconds */
	double t0;		/* when the meter started */
	double last;		/* when the line was last drawn */
	bool shown;		/* a line is on the terminal */
};

/*
 * Start a meter on @f, which speaks only if @f is a terminal.  The clock is
 * CLOCK_MONOTONIC.
 */
void cp_progress_init(struct cp_progress *p, FILE *f);

/*
 * Start a meter on @f that speaks if @tty, on the clock @now (tests drive
 * it).
 */
void cp_progress_init_clock(struct cp_progress *p, FILE *f, bool tty,
			    double (*now)(void));

/*
 * Now in @phase, @frac of it done (0..1; 0 or less: not known, the
 * line then shows no percentage).  Draws the
 * line if the meter speaks, the analysis has run CP_PROGRESS_DELAY_S and
 * the line is older than CP_PROGRESS_PERIOD_S.
 */
void cp_progress_set(struct cp_progress *p, const char *phase, double frac);

/* Clear the line, if one was drawn (before the result is printed). */
void cp_progress_clear(struct cp_progress *p);

/*
 * A cp_progress_set() with the signature of the analysis' progress
 * callbacks (cp_profile_opts, cp_chrome_opts): @ctx is the meter.
 */
void cp_progress_cb(void *ctx, const char *phase, double frac);

#endif /* CP_PROGRESS_H */
