/*
 * cp_config.h - the CPTHREAD_* environment, read once at start-up.
 *
 * Bad values never stop the program: each gets one line on stderr naming
 * the variable and what was done instead (default, or tracing off).
 */
#ifndef CP_CONFIG_H
#define CP_CONFIG_H

#include <limits.h>
#include <stdbool.h>

#define CP_MAX_FUNCS 64

/* CPTHREAD_SAMPLING: how CPU-time samples of call stacks are taken. */
enum cp_sampling {
	CP_SAMPLING_AUTO = 0,	/* the timer up to the tick rate, else perf */
	CP_SAMPLING_PERF = 1,	/* perf events only (else the timer, said) */
	CP_SAMPLING_TIMER = 2,	/* the CPU-time timer only */
	CP_SAMPLING_OFF = 3,
};

/* Samples per second of a thread's CPU time (CPTHREAD_SAMPLING_HZ). */
#define CP_SAMPLING_HZ_DEFAULT	250u
#define CP_SAMPLING_HZ_MAX	20000u

enum cp_mode {
	CP_MODE_OFF = 0,
	CP_MODE_ONLINE = 1,
	CP_MODE_TRACE = 2,
};

struct cp_config {
	enum cp_mode mode;
	unsigned clock;			/* enum cp_trace_clock */
	unsigned nfuncs;
	char funcs[CP_MAX_FUNCS][128];	/* selected procedure names */
	bool exclusive;			/* CPTHREAD_EXCLUSIVE=1 */
	char report_tmpl[PATH_MAX];	/* "" = cpthread.%p.json */
	char trace_tmpl[PATH_MAX];	/* "" = cpthread.%p.cpt */
	unsigned sample_ms;		/* 0 = off */
	enum cp_sampling sampling;	/* CPTHREAD_SAMPLING */
	unsigned sampling_hz;		/* CPTHREAD_SAMPLING_HZ */
	bool quiet;
	bool follow_symlinks;		/* CPTHREAD_FOLLOW_SYMLINKS=1: an
					 * explicit path may be a symlink */
	unsigned file_mode;		/* mode of the files the tracer
					 * creates: CPTHREAD_FILE_MODE (0600;
					 * "umask": 0666) less the umask the
					 * process started with */
	long root_pid;			/* CPTHREAD_ROOT_PID (cpt run sets
					 * it): the process it started; 0 =
					 * unset */
	char root_dir[PATH_MAX];	/* CPTHREAD_ROOT_DIR (cpt run): its
					 * working directory, or "" */
};

/* Parse the environment into @c; complaints go to stderr, one line each.
 * Call once, single-threaded (constructor or fork child). */
void cp_config_load(struct cp_config *c);

/*
 * Expand a path template for process @pid into @out: "%p" becomes the
 * pid; an empty template gives the default "cpthread.<pid>.<ext>".  When
 * @child is true and the template has no "%p", ".<pid>" is appended so a
 * forked child never overwrites its parent's file.  @out holds @outlen
 * bytes; a longer result is cut.  Any thread (reads only its arguments).
 */
void cp_config_path(const char *tmpl, const char *ext, long pid, bool child,
		    char *out, unsigned outlen);

/* Write "cpthread: " and the formatted message and "\n" to stderr in one
 * write(2), no allocation, no stdio.  Any thread, guard raised. */
void cp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CP_CONFIG_H */
