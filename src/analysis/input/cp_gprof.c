/*
 * cp_gprof.c - run gprof and read its flat profile.
 *
 * `gprof -b -p -q EXE GMON` prints (binutils 2.40):
 *
 *	Flat profile:
 *
 *	Each sample counts as 0.01 seconds.
 *	  %   cumulative   self              self     total
 *	 time   seconds   seconds    calls  ms/call  ms/call  name
 *	 60.00      0.03     0.03        1    30.00    30.00  work_a
 *	 40.00      0.05     0.02                             helper
 *
 * A row is three numbers (% time, cumulative and self seconds), then, for
 * a function compiled with -pg, three more (calls, self and total per
 * call; "Ks/call" or "s/call" instead of "ms/call" changes only the
 * header), then the name, which runs to the end of the line and may hold
 * spaces (C++ with -C).  An empty profile says "no time accumulated".
 * Self seconds are the samples times the sample period, so they carry two
 * decimals: the reader keeps what gprof printed, in ns.
 *
 * The call graph (-q) follows; its primary lines give each function's
 * inclusive time, what gprof's "total" means:
 *
 *	index % time    self  children    called     name
 *	[3]     50.0    0.00    0.01       2         crit [3]
 *
 * (called may be "2+1" for recursion, or absent for <spontaneous> main).
 * A function of the call graph that the flat profile leaves out (no time,
 * no calls: main) is added with self time 0.  Cycles as a whole
 * ("<cycle 1 as a whole>") are skipped and a member's " <cycle 1>" tag is
 * dropped from its name.  gprof splits a callee's time among its callers
 * by call counts, not by where the time was spent: its totals are an
 * estimate of their own kind.
 *
 * gprof's profiling timer is one per process: on Linux every thread's CPU
 * time drives it, but a sample records the PC of whichever thread the
 * signal lands on, so with threads running at once gprof sees less time
 * than they used (historically, with per-thread timers, it saw the main
 * thread only).  The report says so where it matters (cp_compare.c).
 */
#include "cp_gprof.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Skip blanks; returns the first other character. */
static const char *skip_blank(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* Seconds whose nanoseconds still fit in a signed 64-bit count. */
#define CP_GPROF_MAX_SEC 9e9

/*
 * A number token at @s (digits, one '.', no sign): *@v gets its value and
 * the return value points past it, or NULL if @s holds no number token
 * followed by a blank or the end.
 */
static const char *number(const char *s, const char *end, double *v)
{
	const char *p = s;
	double val = 0, scale = 0;
	bool digit = false;

	for (; p < end && ((*p >= '0' && *p <= '9') || *p == '.'); p++) {
		if (*p == '.') {
			if (scale)
				return NULL;
			scale = 1;
			continue;
		}
		digit = true;
		val = val * 10 + (*p - '0');
		if (scale)
			scale *= 10;
	}
	if (!digit || (p < end && *p != ' ' && *p != '\t'))
		return NULL;
	*v = scale ? val / scale : val;
	return p;
}

static int add_entry(struct cp_gprof *gp, uint32_t *cap, const char *name,
		     size_t nlen, double pct, double self, double calls,
		     bool has_calls)
{
	struct cp_gprof_entry *x;

	if (gp->n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 64;
		struct cp_gprof_entry *ne = realloc(gp->e, c * sizeof(*ne));

		if (!ne)
			return -1;
		gp->e = ne;
		*cap = c;
	}
	x = &gp->e[gp->n];
	x->name = strndup(name, nlen);
	if (!x->name)
		return -1;
	x->pct = pct;
	x->self_ns = (uint64_t)llround(self * 1e9);
	x->calls = has_calls ? (uint64_t)calls : 0;
	x->has_calls = has_calls;
	x->total_ns = 0;
	x->total_pct = 0;
	x->has_total = false;
	gp->total_ns += x->self_ns;
	gp->n++;
	return 0;
}

/*
 * One row of the table, [s, end) without the newline.  Returns 1 if it was
 * a row, 0 if it is not one (the table ended), -1 out of memory.
 */
static int row(struct cp_gprof *gp, uint32_t *cap, const char *s,
	       const char *end)
{
	double f[6];
	const char *p = s, *q, *name;
	int nf = 0;

	for (;;) {
		p = skip_blank(p, end);
		if (nf == 6 || !(q = number(p, end, &f[nf])))
			break;
		nf++;
		p = q;
	}
	if (nf < 3)
		return 0;
	/* a name that is a number would be read as a column: give back
	 * whatever does not make three or six */
	if (nf != 3 && nf != 6) {
		nf = 3;
		p = s;
		for (int i = 0; i < 3; i++)
			p = number(skip_blank(p, end), end, &f[i]);
		p = skip_blank(p, end);
	}
	name = p;
	while (end > name && (end[-1] == ' ' || end[-1] == '\t' ||
			      end[-1] == '\r'))
		end--;
	/* "name [12]" when the call graph index is printed */
	if (end > name && end[-1] == ']') {
		const char *b = end - 1;

		while (b > name && b[-1] >= '0' && b[-1] <= '9')
			b--;
		if (b > name && b[-1] == '[' && b - 1 > name &&
		    b[-2] == ' ') {
			end = b - 2;
			while (end > name && end[-1] == ' ')
				end--;
		}
	}
	if (end == name)
		return 0;
	/* seconds or calls past 64 bits (in ns) are no real profile's */
	if (f[2] >= CP_GPROF_MAX_SEC || (nf == 6 && f[3] >= 0x1p63))
		return 0;
	return add_entry(gp, cap, name, (size_t)(end - name), f[0], f[2],
			 nf == 6 ? f[3] : 0, nf == 6) ? -1 : 1;
}

/*
 * A primary line of the call graph, [s, end): "[N] pct self children
 * [called] name [N]".  Fills the name's extent and self + children;
 * false for any other line.
 */
static bool cg_primary(const char *s, const char *end, const char **name,
		       size_t *nlen, double *pct, double *total)
{
	double self, children;
	const char *p = skip_blank(s, end), *q;

	if (p >= end || *p != '[')
		return false;
	while (++p < end && *p >= '0' && *p <= '9')
		;
	if (p >= end || *p != ']')
		return false;
	p = skip_blank(p + 1, end);
	if (!(q = number(p, end, pct)))
		return false;
	if (!(p = number(skip_blank(q, end), end, &self)))
		return false;
	if (!(q = number(skip_blank(p, end), end, &children)))
		return false;
	p = skip_blank(q, end);
	/* called: digits, maybe "+digits" */
	q = p;
	while (q < end && ((*q >= '0' && *q <= '9') || *q == '+'))
		q++;
	if (q > p && (q == end || *q == ' ' || *q == '\t'))
		p = skip_blank(q, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r'))
		end--;
	/* drop the trailing " [N]" and a " <cycle N>" tag */
	if (end > p && end[-1] == ']') {
		q = end - 1;
		while (q > p && q[-1] != '[')
			q--;
		if (q > p)
			end = q - 1;
	}
	while (end > p && end[-1] == ' ')
		end--;
	if (end > p && end[-1] == '>') {
		q = end;
		while (q > p && q[-1] != '<')
			q--;
		if (q > p && end - q > 6 && !memcmp(q, "cycle ", 6))
			for (end = q - 1; end > p && end[-1] == ' '; end--)
				;
	}
	if (end == p || *p == '<')
		return false;	/* a cycle as a whole, <spontaneous> */
	*name = p;
	*nlen = (size_t)(end - p);
	*total = self + children;
	return true;
}

/* The call graph after the flat profile: totals, in [s, end). */
static int call_graph(struct cp_gprof *gp, uint32_t *cap, const char *s,
		      const char *end)
{
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end, *name;
		double pct, total;
		size_t nlen;

		if (cg_primary(s, le, &name, &nlen, &pct, &total)) {
			struct cp_gprof_entry *x = NULL;

			for (uint32_t i = 0; i < gp->n && !x; i++)
				if (strlen(gp->e[i].name) == nlen &&
				    !memcmp(gp->e[i].name, name, nlen))
					x = &gp->e[i];
			if (!x) {
				if (add_entry(gp, cap, name, nlen, 0, 0, 0,
					      false))
					return -1;
				x = &gp->e[gp->n - 1];
			}
			x->total_ns = (uint64_t)llround(total * 1e9);
			x->total_pct = pct;
			x->has_total = true;
		}
		s = nl ? nl + 1 : end;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct cp_gprof_entry *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int cp_gprof_parse(struct cp_gprof *gp, const char *text, size_t len,
		   const char *name, char *err, size_t errlen)
{
	const char *s = text, *end = text + len;
	bool header = false, flat = false;
	uint32_t cap = 0;
	int r;

	memset(gp, 0, sizeof(*gp));
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		const char *b = skip_blank(s, le);
		const char *te = le;

		while (b < le && *b == '\f')	/* gprof's page breaks */
			b = skip_blank(b + 1, le);

		while (te > b && (te[-1] == ' ' || te[-1] == '\t' ||
				  te[-1] == '\r'))
			te--;

		if (!flat) {
			flat = le - b >= 13 && !memcmp(b, "Flat profile:", 13);
		} else if (!header) {
			double v;
			const char *p;

			if ((size_t)(le - b) > 22 &&
			    !memcmp(b, "Each sample counts as ", 22) &&
			    (p = number(b + 22, le, &v)) &&
			    v < CP_GPROF_MAX_SEC)
				gp->sample_ns = (uint64_t)llround(v * 1e9);
			else if ((size_t)(te - b) >= 19 &&
				 !memcmp(b, "no time accumulated", 19))
				gp->no_time = true;
			else if (te - b >= 8 && !memcmp(b, "time", 4) &&
				 !memcmp(te - 4, "name", 4))
				header = true;
		} else if (b == te) {
			if (gp->n) {
				/* the blank line after the table */
				if (call_graph(gp, &cap, s, end))
					goto err_mem;
				break;
			}
		} else {
			r = row(gp, &cap, s, le);
			if (r < 0)
				goto err_mem;
			if (r == 0) {
				snprintf(err, errlen, "%s: unexpected line "
					 "in gprof's flat profile: '%.*s'",
					 name, (int)(le - b > 60 ? 60 : le - b),
					 b);
				goto err;
			}
		}
		s = nl ? nl + 1 : end;
	}
	if (!flat || !header) {
		snprintf(err, errlen, "%s: no flat profile in gprof's output%s",
			 name, flat ? " (no column header)" : "");
		goto err;
	}
	gp->by_name = malloc((gp->n ? gp->n : 1) * sizeof(*gp->by_name));
	if (!gp->by_name)
		goto err_mem;
	for (uint32_t i = 0; i < gp->n; i++)
		gp->by_name[i] = &gp->e[i];
	qsort(gp->by_name, gp->n, sizeof(*gp->by_name), cmp_name);
	return 0;
err_mem:
	snprintf(err, errlen, "%s: out of memory reading gprof's output",
		 name);
err:
	cp_gprof_free(gp);
	return -1;
}

/* Append what @fd gives to *@buf (size *@len, room *@cap); -1 on error. */
static int slurp(int fd, char **buf, size_t *len, size_t *cap, bool *eof)
{
	ssize_t r;

	if (*len + 4096 > *cap) {
		size_t c = *cap ? *cap * 2 : 65536;
		char *n = realloc(*buf, c);

		if (!n)
			return -1;
		*buf = n;
		*cap = c;
	}
	r = read(fd, *buf + *len, *cap - *len - 1);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	if (r == 0)
		*eof = true;
	*len += (size_t)r;
	(*buf)[*len] = '\0';
	return 0;
}

static bool readable_file(const char *path, char *err, size_t errlen)
{
	struct stat st;

	errno = 0;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, R_OK) == 0)
		return true;
	snprintf(err, errlen, "%s: %s", path,
		 errno ? strerror(errno) : "not a regular file");
	return false;
}

/* In the child: gprof -b -p -q EXE GMON, its output on the pipes. */
static void run_child(const char *gprof, const char *exe, const char *gmon,
		      const int out[2], const int er[2])
{
	char *argv[] = { (char *)gprof, "-b", "-p", "-q", (char *)exe,
			 (char *)gmon, NULL };

	dup2(out[1], STDOUT_FILENO);
	dup2(er[1], STDERR_FILENO);
	close(out[0]);
	close(out[1]);
	close(er[0]);
	close(er[1]);
	execvp(gprof, argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s%s\n", gprof,
		strerror(errno), errno == ENOENT ? " (install binutils)" : "");
	_exit(127);
}

/* What one pipe gave. */
struct capture {
	char *buf;
	size_t len, cap;
	bool eof;
};

/* Read @ofd and @efd to their ends into @o and @e; false on an error. */
static bool read_both(int ofd, int efd, struct capture *o, struct capture *e)
{
	while (!o->eof || !e->eof) {
		struct pollfd pf[2] = { { ofd, POLLIN, 0 },
					{ efd, POLLIN, 0 } };

		if (o->eof)
			pf[0].fd = -1;
		if (e->eof)
			pf[1].fd = -1;
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[0].revents &&
		    slurp(ofd, &o->buf, &o->len, &o->cap, &o->eof))
			break;
		if (pf[1].revents &&
		    slurp(efd, &e->buf, &e->len, &e->cap, &e->eof))
			break;
	}
	return o->eof && e->eof;
}

/* gprof's exit @status as the error, with the first line it wrote on
 * stderr (@e); false if it succeeded. */
static bool gprof_failed(int status, const struct capture *e,
			 const char *gprof, const char *exe, const char *gmon,
			 char *err, size_t errlen)
{
	const char *m = e->buf ? e->buf : "";
	size_t ml = strcspn(m, "\n");

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return false;
	if (WIFEXITED(status))
		snprintf(err, errlen, "%s -b -p -q %s %s failed (exit %d)%s%.*s",
			 gprof, exe, gmon, WEXITSTATUS(status),
			 ml ? ": " : "", (int)(ml > 200 ? 200 : ml), m);
	else
		snprintf(err, errlen, "%s -b -p -q %s %s died (signal %d)",
			 gprof, exe, gmon, WTERMSIG(status));
	return true;
}

int cp_gprof_run(struct cp_gprof *gp, const char *gprof, const char *exe,
		 const char *gmon, char *err, size_t errlen)
{
	int out[2] = { -1, -1 }, er[2] = { -1, -1 }, status;
	struct capture o = { .buf = NULL }, e = { .buf = NULL };
	pid_t pid;
	int ret = -1;

	memset(gp, 0, sizeof(*gp));
	if (!gprof)
		gprof = "gprof";
	if (!readable_file(exe, err, errlen) ||
	    !readable_file(gmon, err, errlen))
		return -1;
	if (pipe(out) || pipe(er)) {
		snprintf(err, errlen, "cannot run %s: %s", gprof,
			 strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot run %s: %s", gprof,
			 strerror(errno));
		goto out;
	}
	if (pid == 0)
		run_child(gprof, exe, gmon, out, er);
	close(out[1]);
	close(er[1]);
	out[1] = er[1] = -1;
	if (!read_both(out[0], er[0], &o, &e)) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(err, errlen, "reading %s's output: %s", gprof,
			 strerror(errno ? errno : ENOMEM));
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (gprof_failed(status, &e, gprof, exe, gmon, err, errlen))
		goto out;
	if (cp_gprof_parse(gp, o.buf ? o.buf : "", o.len, gmon, err, errlen))
		goto out;
	gp->exe = strdup(exe);
	gp->gmon = strdup(gmon);
	if (!gp->exe || !gp->gmon) {
		cp_gprof_free(gp);
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (er[i] >= 0)
			close(er[i]);
	}
	free(o.buf);
	free(e.buf);
	return ret;
}

const struct cp_gprof_entry *cp_gprof_find(const struct cp_gprof *gp,
					   const char *name)
{
	uint32_t lo = 0, hi = gp->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(gp->by_name[mid]->name, name);

		if (!c)
			return gp->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void cp_gprof_free(struct cp_gprof *gp)
{
	for (uint32_t i = 0; i < gp->n; i++)
		free(gp->e[i].name);
	free(gp->e);
	free(gp->by_name);
	free(gp->exe);
	free(gp->gmon);
	memset(gp, 0, sizeof(*gp));
}

bool cp_gprof_has_totals(const struct cp_gprof *gp)
{
	for (uint32_t i = 0; i < gp->n; i++)
		if (gp->e[i].has_total)
			return true;
	return false;
}
