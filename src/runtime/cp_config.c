#include "cp_config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cp_fds.h"
#include "cp_trace_format.h"

void cp_warn(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "cpthread: ");
	va_list ap;

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	cp_stderr_write(buf, (size_t)n);
}

static bool name_char(int c)
{
	return isalnum(c) || c == '_' || c == ':' || c == '.' || c == '$' ||
	       c == '~' || c == '<' || c == '>' || c == '-';
}

/* Parse "a,b,c"; on a malformed list select nothing and say so. */
static void load_funcs(struct cp_config *c, const char *v)
{
	const char *p = v;

	c->nfuncs = 0;
	while (*p) {
		const char *s = p;
		size_t n;

		while (*p && *p != ',')
			p++;
		n = (size_t)(p - s);
		for (size_t i = 0; i < n; i++) {
			if (!name_char((unsigned char)s[i])) {
				n = 0;
				break;
			}
		}
		if (n == 0 || n >= sizeof(c->funcs[0])) {
			cp_warn("CPTHREAD_FUNCS='%s' is malformed (expected "
				"comma-separated procedure names); no procedures "
				"selected", v);
			c->nfuncs = 0;
			return;
		}
		if (c->nfuncs == CP_MAX_FUNCS) {
			cp_warn("CPTHREAD_FUNCS names more than %d procedures; "
				"only the first %d are profiled", CP_MAX_FUNCS,
				CP_MAX_FUNCS);
			return;
		}
		memcpy(c->funcs[c->nfuncs], s, n);
		c->funcs[c->nfuncs][n] = '\0';
		c->nfuncs++;
		if (*p == ',')
			p++;
		if (*p == '\0' && p[-1] == ',') {
			cp_warn("CPTHREAD_FUNCS='%s' is malformed (trailing "
				"comma); no procedures selected", v);
			c->nfuncs = 0;
			return;
		}
	}
}

static void load_path(const char *var, char *dst, size_t len)
{
	const char *v = getenv(var);

	dst[0] = '\0';
	if (!v || !*v)
		return;
	if (strlen(v) >= len - 16) {
		cp_warn("%s is too long; using the default path", var);
		return;
	}
	strcpy(dst, v);
}

static void load_sampling(struct cp_config *c)
{
	static const char *const names[] = { "auto", "perf", "timer", "off" };
	const char *v = getenv("CPTHREAD_SAMPLING");

	c->sampling = CP_SAMPLING_AUTO;
	if (v && *v) {
		unsigned i;

		for (i = 0; i < 4 && strcmp(v, names[i]); i++)
			;
		if (i < 4)
			c->sampling = (enum cp_sampling)i;
		else
			cp_warn("CPTHREAD_SAMPLING='%s' is not auto, perf, timer "
				"or off; using auto", v);
	}
	c->sampling_hz = CP_SAMPLING_HZ_DEFAULT;
	v = getenv("CPTHREAD_SAMPLING_HZ");
	if (v && *v) {
		char *end;
		long hz = strtol(v, &end, 10);

		if (*end || hz <= 0 || hz > (long)CP_SAMPLING_HZ_MAX)
			cp_warn("CPTHREAD_SAMPLING_HZ='%s' is not a rate in "
				"samples per CPU second (1..%u); using %u", v,
				CP_SAMPLING_HZ_MAX, CP_SAMPLING_HZ_DEFAULT);
		else
			c->sampling_hz = (unsigned)hz;
	}
}

void cp_config_load(struct cp_config *c)
{
	const char *v;
	mode_t um;

	memset(c, 0, sizeof(*c));
	c->mode = CP_MODE_ONLINE;
	c->clock = CP_CLOCK_WALL;

	v = getenv("CPTHREAD_MODE");
	if (v && *v) {
		if (!strcmp(v, "online"))
			c->mode = CP_MODE_ONLINE;
		else if (!strcmp(v, "trace"))
			c->mode = CP_MODE_TRACE;
		else if (!strcmp(v, "off"))
			c->mode = CP_MODE_OFF;
		else {
			cp_warn("CPTHREAD_MODE='%s' is not online, trace or off; "
				"tracing is off for this run", v);
			c->mode = CP_MODE_OFF;
		}
	}
	v = getenv("CPTHREAD_CLOCK");
	if (v && *v) {
		if (!strcmp(v, "wall"))
			c->clock = CP_CLOCK_WALL;
		else if (!strcmp(v, "cpu"))
			c->clock = CP_CLOCK_CPU;
		else
			cp_warn("CPTHREAD_CLOCK='%s' is not wall or cpu; using "
				"wall", v);
	}
	v = getenv("CPTHREAD_FUNCS");
	if (v && *v)
		load_funcs(c, v);
	v = getenv("CPTHREAD_EXCLUSIVE");
	c->exclusive = v && !strcmp(v, "1");
	load_path("CPTHREAD_REPORT", c->report_tmpl, sizeof(c->report_tmpl));
	load_path("CPTHREAD_TRACE", c->trace_tmpl, sizeof(c->trace_tmpl));
	v = getenv("CPTHREAD_SAMPLE_MS");
	if (v && *v) {
		char *end;
		long ms = strtol(v, &end, 10);

		if (*end || ms <= 0 || ms > 3600000)
			cp_warn("CPTHREAD_SAMPLE_MS='%s' is not a period in "
				"milliseconds (1..3600000); sampling is off", v);
		else
			c->sample_ms = (unsigned)ms;
	}
	load_sampling(c);
	v = getenv("CPTHREAD_QUIET");
	c->quiet = v && !strcmp(v, "1");
	v = getenv("CPTHREAD_ROOT_PID");
	c->root_pid = v ? strtol(v, NULL, 10) : 0;
	v = getenv("CPTHREAD_ROOT_DIR");
	snprintf(c->root_dir, sizeof(c->root_dir), "%s",
		 v && v[0] == '/' ? v : "");
	v = getenv("CPTHREAD_FOLLOW_SYMLINKS");
	c->follow_symlinks = v && !strcmp(v, "1");
	c->file_mode = 0600;
	v = getenv("CPTHREAD_FILE_MODE");
	if (v && *v) {
		char *end;
		long m = strtol(v, &end, 8);

		if (!strcmp(v, "umask"))
			c->file_mode = 0666;	/* the umask applies */
		else if (*end || m < 0 || m > 0777)
			cp_warn("CPTHREAD_FILE_MODE='%s' is not 'umask' or an "
				"octal mode (0..0777); using 0600", v);
		else
			c->file_mode = (unsigned)m;
	}
	/* the umask now, at start-up, is the user's: the program may set
	 * another before its report is created at exit */
	um = umask(0);
	umask(um);
	c->file_mode &= ~(unsigned)um;
}

void cp_config_path(const char *tmpl, const char *ext, long pid, bool child,
		    char *out, unsigned outlen)
{
	const char *p;
	unsigned n = 0;
	bool has_pid = false;

	if (!tmpl[0]) {
		snprintf(out, outlen, "cpthread.%ld.%s", pid, ext);
		return;
	}
	for (p = tmpl; *p && n + 24 < outlen; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			n += (unsigned)snprintf(out + n, outlen - n, "%ld", pid);
			has_pid = true;
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	if (child && !has_pid)
		snprintf(out + n, outlen - n, ".%ld", pid);
}
