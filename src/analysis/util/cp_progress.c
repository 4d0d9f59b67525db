/*
 * cp_progress.c - the progress line (see cp_progress.h).
 */
#include "cp_progress.h"

#include <time.h>
#include <unistd.h>

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cp_progress_init_clock(struct cp_progress *p, FILE *f, bool tty,
			    double (*now)(void))
{
	p->f = tty ? f : NULL;
	p->now = now;
	p->t0 = now();
	p->last = 0.0;
	p->shown = false;
}

void cp_progress_init(struct cp_progress *p, FILE *f)
{
	cp_progress_init_clock(p, f, f && isatty(fileno(f)), mono_now);
}

void cp_progress_set(struct cp_progress *p, const char *phase, double frac)
{
	double t;

	if (!p || !p->f)
		return;
	t = p->now();
	if (t - p->t0 < CP_PROGRESS_DELAY_S ||
	    (p->shown && t - p->last < CP_PROGRESS_PERIOD_S))
		return;
	if (frac > 0.0)
		fprintf(p->f, "\r\033[Kcpt: %s %3.0f%% (%.1f s)", phase,
			frac > 1.0 ? 100.0 : 100.0 * frac, t - p->t0);
	else
		fprintf(p->f, "\r\033[Kcpt: %s ... (%.1f s)", phase,
			t - p->t0);
	fflush(p->f);
	p->last = t;
	p->shown = true;
}

void cp_progress_clear(struct cp_progress *p)
{
	if (!p || !p->shown)
		return;
	fprintf(p->f, "\r\033[K");
	fflush(p->f);
	p->shown = false;
}

void cp_progress_cb(void *ctx, const char *phase, double frac)
{
	cp_progress_set(ctx, phase, frac);
}
