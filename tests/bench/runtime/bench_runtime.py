#!/usr/bin/env python3
"""Runtime overhead benchmark of libcpthread (issue 2, section 6).

Runs the workloads of bench_rt_work.c bare and under the tracer, in one
invocation, interleaving the configurations round by round so that machine
noise hits them alike; reports min and median over the runs, and the added
cost per operation / the slowdown as ratios inside this one run (of the
minima, of the medians, and the median of the per-round ratios).

The lock programs calibrate their work first: lockheavy does about a
million lock acquisitions per second per thread in the bare run (the
issue's target), lockheavy-hot four million.

    python3 tests/bench/runtime/bench_runtime.py --build build \\
        [--runs 5] [--futex]

--futex counts each lock program's futex system calls with perf stat (the
collisions that went to the kernel: how often a thread found its lock taken
and slept, or woke a sleeper).

--against DIR adds the instrumented configurations run with another build's
library (DIR/lib first on LD_LIBRARY_PATH; the binaries find their own
library through RUNPATH, which LD_LIBRARY_PATH overrides), named "B:...", in
the same rounds: an A/B of two versions of the runtime on one binary.
"""
import argparse
import datetime
import os
import statistics
import subprocess
import sys
import tempfile

from bench_fine import cpu_model

FUNCS8 = "work_a,work_b,work_c,work_d,work_e,work_f,work_g,work_h"
# lock programs: name -> time per iteration (work + lock pair) in the bare
# run; 1000 ns is the target's "a million lock operations per second per
# thread", 250 ns a harsher variant
LOCK_PROGS = {"lockheavy": 1000.0, "lockheavy-hot": 250.0}
LOCK_PAIR_NS = 60.0	# a bare lock pair shared by two threads, roughly


def run(binary, mode, env_extra, lib, args=(), futex=None):
    """One run; with @futex (a scratch file name), under perf stat counting
    the program's futex system calls (vals["futex"])."""
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("CPTHREAD_") or k == "LD_PRELOAD":
            del env[k]
    env["CPTHREAD_QUIET"] = "1"
    env.update(env_extra)
    if env_extra.get("preload"):
        del env["preload"]
        env["LD_PRELOAD"] = lib
    cmd = [binary, mode, *args]
    if futex:
        cmd = ["perf", "stat", "-x,", "-o", futex,
               "-e", "syscalls:sys_enter_futex", *cmd]
    p = subprocess.Popen(cmd, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{binary} {mode} exited {p.returncode}")
    vals = {"cpu_s": ru.ru_utime + ru.ru_stime}
    for line in out.splitlines():
        k, v = line.split()
        vals[k] = float(v)
    if futex:
        with open(futex) as f:
            vals["futex"] = float(next(line for line in f if
                                       line.strip() and line[0] != "#")
                                  .split(",")[0])
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--against", metavar="DIR",
                    help="also run the instrumented configurations with "
                         "DIR/lib/libcpthread.so")
    ap.add_argument("--futex", action="store_true",
                    help="count the lock programs' futex system calls "
                         "(perf stat, needs the syscalls tracepoints)")
    args = ap.parse_args()
    b = os.path.abspath(args.build)
    plain = os.path.join(b, "tests/bench/runtime/bench_rt_plain")
    instr = os.path.join(b, "tests/bench/runtime/bench_rt_instr")
    lib = os.path.join(b, "lib/libcpthread.so")
    tmp = tempfile.mkdtemp(prefix="cpt-bench-")
    trace_env = {"CPTHREAD_MODE": "trace",
                 "CPTHREAD_TRACE": os.path.join(tmp, "t.cpt"),
                 "CPTHREAD_REPORT": os.path.join(tmp, "r.json")}
    online_env = {"CPTHREAD_REPORT": os.path.join(tmp, "r.json")}

    micro_cfgs = [
        ("bare", plain, {}),
        ("online", plain, dict(online_env, preload="1")),
        ("online-cpu", plain, dict(online_env, preload="1", CPTHREAD_CLOCK="cpu")),
        ("trace", plain, dict(trace_env, preload="1")),
    ]
    prog_cfgs = [
        ("bare", plain, {}),
        ("online-0", plain, dict(online_env, preload="1")),
        ("trace-0", plain, dict(trace_env, preload="1")),
        ("trace-0-nosampling", plain, dict(trace_env, preload="1",
                                           CPTHREAD_SAMPLING="off")),
        ("instr-off", instr, {"CPTHREAD_MODE": "off"}),
        ("instr-online-0", instr, dict(online_env)),
        ("instr-online-8", instr, dict(online_env, CPTHREAD_FUNCS=FUNCS8)),
        ("instr-trace-8", instr, dict(trace_env, CPTHREAD_FUNCS=FUNCS8)),
    ]
    if args.against:
        other = os.path.join(os.path.abspath(args.against), "lib")
        if not os.path.exists(os.path.join(other, "libcpthread.so")):
            sys.exit(f"--against: no libcpthread.so in {other}")
        prog_cfgs += [("B:" + name, binary, dict(env, LD_LIBRARY_PATH=other))
                      for name, binary, env in prog_cfgs
                      if name.startswith("instr-") and name != "instr-off"]
    # work units between locks, from the work's speed on one thread
    unit_ns = min(run(plain, "calibrate", {}, lib)["unit_ns"] for _ in range(3))
    progs = {name: ("lockheavy", [str(max(1, round((period - LOCK_PAIR_NS) /
                                                  unit_ns)))])
             for name, period in LOCK_PROGS.items()}
    progs["barrierheavy"] = ("barrierheavy", [])
    load0 = os.getloadavg()
    res = {}
    for r in range(args.runs):
        print(f"round {r + 1}/{args.runs}", file=sys.stderr)
        for name, binary, env in micro_cfgs:
            for k, v in run(binary, "micro", env, lib).items():
                if k != "cpu_s":
                    res.setdefault(("micro", name, k), []).append(v)
        for prog, (mode, pargs) in progs.items():
            for name, binary, env in prog_cfgs:
                fx = (os.path.join(tmp, "futex.txt")
                      if args.futex and mode == "lockheavy" else None)
                for k, v in run(binary, mode, env, lib, pargs, fx).items():
                    res.setdefault((prog, name, k), []).append(v)

    def mm(key):
        v = res[key]
        return min(v), statistics.median(v)

    load1 = os.getloadavg()
    print("# cpthread runtime overhead (min / median of %d runs)" % args.runs)
    print(f"# CPU: {cpu_model()}, {os.cpu_count()} CPUs")
    print("# command: python3 tests/bench/runtime/bench_runtime.py --build %s --runs %d%s%s"
          % (args.build, args.runs,
             " --against " + args.against if args.against else "",
             " --futex" if args.futex else ""))
    print("# finished %s UTC; load average %.2f at the start, %.2f at the end"
          % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
             load0[0], load1[0]))
    print()
    print("| operation | bare ns | online ns (added) | online cpu-clock ns (added) | trace ns (added) |")
    print("|---|---|---|---|---|")
    keys = sorted({k for (w, _, k) in res if w == "micro"},
                  key=lambda k: ["mutex_pair_ns", "spin_pair_ns", "rwlock_pair_ns",
                                 "mutex_contended_pair_ns", "barrier_wait_ns",
                                 "cond_roundtrip_ns", "sem_roundtrip_ns"].index(k))
    for k in keys:
        bmin, bmed = mm(("micro", "bare", k))
        cells = [f"{bmin:.1f} / {bmed:.1f}"]
        for cfg in ("online", "online-cpu", "trace"):
            cmin, cmed = mm(("micro", cfg, k))
            cells.append(f"{cmin:.1f} / {cmed:.1f} (+{cmin - bmin:.1f} / +{cmed - bmed:.1f})")
        print(f"| {k[:-3]} | " + " | ".join(cells) + " |")
    print()
    print(f"Work unit {unit_ns:.3f} ns; lock programs: 1,000,000 iterations a thread.")
    for prog, (mode, pargs) in progs.items():
        if mode != "lockheavy":
            continue
        bmin, bmed = mm((prog, "bare", "elapsed_s"))
        print(f"{prog}: {pargs[0]} units between locks, bare {1 / bmin:.2f} / "
              f"{1 / bmed:.2f} million lock pairs per second per thread "
              "(best / median run)")
    print()
    fxcol = args.futex
    print("| program | configuration | elapsed s min / median | slowdown (min / median / median of rounds) | CPU s min / median | CPU added (min / median) |"
          + (" futex calls min / median |" if fxcol else ""))
    print("|---|---|---|---|---|---|" + ("---|" if fxcol else ""))

    def ratios(prog, name, base, k):
        cmin, cmed = mm((prog, name, k))
        bmin, bmed = mm((prog, base, k))
        rounds = statistics.median(
            c / b for c, b in zip(res[(prog, name, k)], res[(prog, base, k)]))
        return (cmin, cmed, (cmin / bmin - 1) * 100, (cmed / bmed - 1) * 100,
                (rounds - 1) * 100)

    for prog in progs:
        for name, _, _ in prog_cfgs:
            instr_cfg = name.startswith(("instr-", "B:instr-"))
            base = "instr-off" if instr_cfg and name != "instr-off" else "bare"
            emin, emed, e1, e2, e3 = ratios(prog, name, base, "elapsed_s")
            cmin, cmed, c1, c2, _ = ratios(prog, name, base, "cpu_s")
            if name in ("bare", "instr-off"):
                slow = cpu = "baseline"
            else:
                slow = f"{e1:+.1f}% / {e2:+.1f}% / {e3:+.1f}% (vs {base})"
                cpu = f"{c1:+.1f}% / {c2:+.1f}%"
            fx = ""
            if fxcol:
                fx = (" %.0f / %.0f |" % mm((prog, name, "futex"))
                      if (prog, name, "futex") in res else " |")
            print(f"| {prog} | {name} | {emin:.3f} / {emed:.3f} | {slow} | "
                  f"{cmin:.3f} / {cmed:.3f} | {cpu} |{fx}")
    print()
    print("bare: no tracer; online-0/trace-0: libcpthread preloaded, no procedure selected;")
    print("trace-0 samples CPU time (on by default in trace mode), trace-0-nosampling")
    print("is trace mode with CPTHREAD_SAMPLING=off: the events alone.")
    if args.against:
        print(f"B:*: the configuration with {args.against}'s library.")
    print("instr-*: the same program built with -finstrument-functions and linked with")
    print("libcpthread; instr-off is that binary with CPTHREAD_MODE=off (the cost of the")
    print("instrumentation hooks alone); -8: eight procedures selected (CPTHREAD_FUNCS).")
    if fxcol:
        print("futex calls: the program's futex system calls in a run (lock")
        print("waits and the unlocks that wake them); with --futex every")
        print("lock-program run goes through perf stat, whose own CPU time")
        print("then counts in the CPU columns.")
    print("CPU: user + system time of the process, which another tenant's load on the")
    print("machine changes less than the elapsed time (a run whose two threads had to")
    print("share one CPU takes twice as long but about as much CPU).")


if __name__ == "__main__":
    main()
