#!/usr/bin/env python3
"""The analyzer's scaling benchmark on real traces (not a test).

Traces a real program (bench_scale_work) of one shape at several sizes,
then runs the cpt verbs on each trace as child processes and measures wall
time and peak RSS (wait4's ru_maxrss).  The shapes (--shape):

    locks     two threads, a lock-heavy loop (the default)
    objects   the same, each iteration also making, using twice and
              destroying a mutex of its own: millions of objects, as an
              OpenMP program's tasks make
    threads   a thread per iteration, four at a time: 10^5 threads and
              more, as a program that makes a thread per task

The verbs:

    cpt report            events/s and peak bytes per event
    cpt paths --k 100     the issue's k = 100 target (<= 3 s at 2*10^7)
    cpt whatif            --scale work=0.5 (<= 3 s at 2*10^7)
    cpt export            --format chrome: output bytes / trace bytes
    cpt report --stream   the out-of-core report: time and peak RSS
    cpt paths --stream    the out-of-core k = 100 paths: time and peak RSS

A size whose estimate is over the memory budget (cpt --memory, default 3/4
of RAM) is refused in one line by `cpt export`, which has no streaming
mode (the table says so); `cpt report`, `cpt paths` and `cpt whatif`
analyse it out of core.  Writes a CSV
and a log-log plot (SVG, written here: no plotting package needed) of time
and memory against events, and prints a text table.

usage: bench_scale.py --build BUILD [--events 1e6,1e7] [--dir DIR]
                      [--shape locks|objects|threads]
                      [--csv FILE] [--svg FILE] [--keep]
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import time

# events an iteration of bench_scale_work, by shape (measured: locks 2
# threads x 2; objects 2 x 7; threads: start, 2, exit, create and join)
ITER_EVENTS = {"locks": 4, "objects": 14, "threads": 7}


def run(argv, env=None, out=subprocess.DEVNULL):
    """Run @argv; returns (exit status, wall s, peak RSS bytes, stderr,
    CPU s: user + system, the figure to trust on a loaded machine)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return (p.returncode, wall, ru.ru_maxrss * 1024, err,
            ru.ru_utime + ru.ru_stime)


def make_trace(build, shape, events, path):
    """Trace bench_scale_work of @shape with about @events events into
    @path."""
    env = dict(os.environ, CPTHREAD_MODE="trace", CPTHREAD_TRACE=path,
               CPTHREAD_QUIET="1",
               LD_PRELOAD=os.path.join(build, "lib", "libcpthread.so"))
    if events < 1e7:
        # a run of 10^6 events lasts about 0.1 s: at the default 250 Hz
        # some 30 samples, and now and then none in work(), which the
        # what-if scales (the verb then says there is no such procedure)
        env["CPTHREAD_SAMPLING_HZ"] = "1000"
    work = os.path.join(build, "tests", "bench", "analysis",
                        "bench_scale_work")
    iters = max(1, int(events) // ITER_EVENTS[shape])
    st, wall, _, err, _ = run(["nice", work, "--shape", shape, str(iters)],
                              env=env)
    if st != 0:
        sys.exit("bench_scale: tracing failed: " + err.strip())
    return wall


def measure(cpt, path, outdir):
    """Every verb on @path: a dict of figures (None: refused/failed)."""
    verbs = {
        "report": ["report", path],
        "paths": ["paths", path, "--k", "100"],
        "whatif": ["whatif", path, "--scale", "work=0.5"],
        "export": ["export", path, "--format", "chrome", "-o",
                   os.path.join(outdir, "export.json")],
        "stream": ["report", "--stream", path],
        "spaths": ["paths", "--stream", path, "--k", "100"],
    }
    r = {"events": None}
    for name, args in verbs.items():
        with open(os.path.join(outdir, "out.txt"), "w") as out:
            st, wall, rss, err, cpu = run(["nice", cpt] + args, out=out)
        if name == "report" and st == 0:
            # "cpthread report: PATH  (clock wall, 3 threads, N events)"
            with open(os.path.join(outdir, "out.txt")) as f:
                m = re.search(r"(\d+) events[,)]", f.readline())
            r["events"] = int(m.group(1)) if m else None
        r[name + "_s"] = wall if st == 0 else None
        r[name + "_cpu"] = cpu if st == 0 else None
        r[name + "_rss"] = rss if st == 0 else None
        if st != 0:
            r[name + "_err"] = err.strip().splitlines()[-1] if err else ""
        if name == "export" and st == 0:
            r["export_bytes"] = os.path.getsize(
                os.path.join(outdir, "export.json"))
            os.unlink(os.path.join(outdir, "export.json"))
    return r


def svg_plot(rows, path):
    """Log-log plot of report time (s) and peak RSS (MB) against events."""
    pts = [(r["events"], r["report_s"], r["report_rss"] / 2**20)
           for r in rows if r.get("report_s")]
    if len(pts) < 2:
        return
    w, h, m = 640, 400, 60
    xs = [math.log10(p[0]) for p in pts]
    ys = [math.log10(v) for p in pts for v in (p[1], p[2])]
    x0, x1 = math.floor(min(xs)), math.ceil(max(xs))
    y0, y1 = math.floor(min(ys)), math.ceil(max(ys))
    x1 += x1 == x0
    y1 += y1 == y0

    def px(x, y):
        return (m + (x - x0) / (x1 - x0) * (w - 2 * m),
                h - m - (y - y0) / (y1 - y0) * (h - 2 * m))

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>']
    for d in range(x0, x1 + 1):
        a, b = px(d, y0), px(d, y1)
        out.append('<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" '
                   'stroke="#ddd"/>' % (a[0], a[1], b[0], b[1]))
        out.append('<text x="%.0f" y="%d" text-anchor="middle">1e%d</text>'
                   % (a[0], h - m + 18, d))
    for d in range(y0, y1 + 1):
        a, b = px(x0, d), px(x1, d)
        out.append('<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" '
                   'stroke="#ddd"/>' % (a[0], a[1], b[0], b[1]))
        out.append('<text x="%d" y="%.0f" text-anchor="end">1e%d</text>'
                   % (m - 6, a[1] + 4, d))
    for i, (name, colour) in enumerate((("cpt report time (s)", "#c33"),
                                        ("peak RSS (MB)", "#36c"))):
        line = " ".join("%.1f,%.1f" % px(math.log10(p[0]),
                                          math.log10(p[1 + i]))
                        for p in pts)
        out.append('<polyline points="%s" fill="none" stroke="%s" '
                   'stroke-width="2"/>' % (line, colour))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>'
                   % (m + 10, m - 30 + 16 * i, colour, name))
    out.append('<text x="%d" y="%d" text-anchor="middle">events in the '
               'trace</text></svg>' % (w // 2, h - 16))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def fmt(v, spec):
    return "-" if v is None else spec % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--events", default="1e6,1e7")
    ap.add_argument("--dir", default="/tmp/cpt-bench-scale")
    ap.add_argument("--shape", default="locks", choices=sorted(ITER_EVENTS))
    ap.add_argument("--csv")
    ap.add_argument("--svg")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    cpt = os.path.join(a.build, "tools", "cpt")
    os.makedirs(a.dir, exist_ok=True)
    rows = []
    for n in (float(x) for x in a.events.split(",")):
        path = os.path.join(a.dir, "scale-%s-%.0e.cpt" % (a.shape, n))
        trace_s = make_trace(a.build, a.shape, n, path)
        r = {"target": n, "trace_s": trace_s,
             "trace_bytes": os.path.getsize(path)}
        r.update(measure(cpt, path, a.dir))
        r["events"] = r["events"] or int(n)
        rows.append(r)
        if not a.keep:
            os.unlink(path)
        print_row(r)
    if a.csv:
        keys = sorted({k for r in rows for k in r})
        with open(a.csv, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=keys)
            wr.writeheader()
            wr.writerows(rows)
    if a.svg:
        svg_plot(rows, a.svg)


HEAD_PRINTED = []


def print_row(r):
    if not HEAD_PRINTED:
        print("wall s (CPU s), nice'd; Mev/s by wall (by CPU)")
        print("%11s %9s %14s %12s %8s %14s %14s %14s %9s %14s %9s %14s "
              "%9s" % (
                  "events", "trace MB", "report s", "Mev/s", "B/event",
                  "paths s", "whatif s", "export s", "export/tr",
                  "stream s", "stream MB", "spaths s", "spaths MB"))
        HEAD_PRINTED.append(1)
    ev = r["events"]
    def both(v):
        return (fmt(r[v + "_s"], "%.2f") + " (" + fmt(r[v + "_cpu"], "%.2f")
                + ")") if r[v + "_s"] else "-"
    rate = "-"
    if r["report_s"]:
        rate = "%.2f (%.2f)" % (ev / r["report_s"] / 1e6,
                                ev / r["report_cpu"] / 1e6)
    print("%11d %9.1f %14s %12s %8s %14s %14s %14s %9s %14s %9s %14s %9s" % (
        ev, r["trace_bytes"] / 1e6, both("report"), rate,
        fmt(r["report_rss"] and r["report_rss"] / ev, "%.0f"),
        both("paths"), both("whatif"), both("export"),
        fmt(r.get("export_bytes") and r["export_bytes"] / r["trace_bytes"],
            "%.3f"), both("stream"),
        fmt(r["stream_rss"] and r["stream_rss"] / 2**20, "%.0f"),
        both("spaths"),
        fmt(r["spaths_rss"] and r["spaths_rss"] / 2**20, "%.0f")))
    for k in ("report_err", "paths_err", "whatif_err", "export_err",
              "stream_err", "spaths_err"):
        if k in r:
            print("    %s: %s" % (k[:-4], r[k]))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
