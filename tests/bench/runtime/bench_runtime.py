#!/usr/bin/env python3
"""Runtime overhead benchmark of libcpthread (issue 2, section 6).

Runs the workloads of bench_rt_work.c bare and under the tracer, in one
invocation, interleaving the configurations round by round so that machine
noise hits them alike; reports min and median over the runs, and the added
cost per operation / the slowdown as ratios inside this one run.

    python3 tests/bench/runtime/bench_runtime.py --build build [--runs 5]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

FUNCS8 = "work_a,work_b,work_c,work_d,work_e,work_f,work_g,work_h"


def run(binary, mode, env_extra, lib):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("CPTHREAD_") or k == "LD_PRELOAD":
            del env[k]
    env["CPTHREAD_QUIET"] = "1"
    env.update(env_extra)
    if env_extra.get("preload"):
        del env["preload"]
        env["LD_PRELOAD"] = lib
    out = subprocess.run([binary, mode], env=env, check=True,
                         capture_output=True, text=True).stdout
    vals = {}
    for line in out.splitlines():
        k, v = line.split()
        vals[k] = float(v)
    return vals


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
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
        ("instr-off", instr, {"CPTHREAD_MODE": "off"}),
        ("instr-online-0", instr, dict(online_env)),
        ("instr-online-8", instr, dict(online_env, CPTHREAD_FUNCS=FUNCS8)),
        ("instr-trace-8", instr, dict(trace_env, CPTHREAD_FUNCS=FUNCS8)),
    ]
    res = {}
    for r in range(args.runs):
        print(f"round {r + 1}/{args.runs}", file=sys.stderr)
        for name, binary, env in micro_cfgs:
            for k, v in run(binary, "micro", env, lib).items():
                res.setdefault(("micro", name, k), []).append(v)
        for prog in ("lockheavy", "barrierheavy"):
            for name, binary, env in prog_cfgs:
                v = run(binary, prog, env, lib)["elapsed_s"]
                res.setdefault((prog, name, "elapsed_s"), []).append(v)

    def mm(key):
        v = res[key]
        return min(v), statistics.median(v)

    print("# cpthread runtime overhead (min / median of %d runs)" % args.runs)
    print("# command: python3 tests/bench/runtime/bench_runtime.py --build %s --runs %d"
          % (args.build, args.runs))
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
    print("| program | configuration | elapsed s min / median | slowdown vs baseline (min / median) |")
    print("|---|---|---|---|")
    for prog in ("lockheavy", "barrierheavy"):
        for name, _, _ in prog_cfgs:
            base = "instr-off" if name.startswith("instr-") and name != "instr-off" else "bare"
            cmin, cmed = mm((prog, name, "elapsed_s"))
            bmin, bmed = mm((prog, base, "elapsed_s"))
            slow = "baseline" if name in ("bare", "instr-off") else \
                f"{(cmin / bmin - 1) * 100:+.1f}% / {(cmed / bmed - 1) * 100:+.1f}% (vs {base})"
            print(f"| {prog} | {name} | {cmin:.3f} / {cmed:.3f} | {slow} |")
    print()
    print("bare: no tracer; online-0/trace-0: libcpthread preloaded, no procedure selected;")
    print("instr-*: the same program built with -finstrument-functions and linked with")
    print("libcpthread; instr-off is that binary with CPTHREAD_MODE=off (the cost of the")
    print("instrumentation hooks alone); -8: eight procedures selected (CPTHREAD_FUNCS).")


if __name__ == "__main__":
    main()
