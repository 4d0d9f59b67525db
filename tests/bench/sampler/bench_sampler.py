#!/usr/bin/env python3
"""What CPU-time sampling costs (issue 17): per sample, per run, per byte.

    python3 tests/bench/sampler/bench_sampler.py --build build [--runs 5]

1. Cost of one sample, perf events and CPU-time timer: smp_work runs a
   fixed amount of work at a fixed stack depth in trace mode with sampling
   off and on at a high rate; (CPU time on - CPU time off) / samples.
2. Overhead at the default rate on SPLASH programs (raytrace: call-heavy;
   water) and a context-switch-heavy one (bench_rt barrierheavy): wall
   time bare, traced with sampling off, auto, perf and timer, and online
   with a procedure found by sampling: configurations interleaved round
   by round, min and median of each.
3. Trace growth: bytes of SAMPLES blocks (headers included) per sample.

The machine is whatever runs this: on a shared one the figures are noisy,
so medians of interleaved rounds, and say so when quoting them.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time


def run(argv, env_extra, lib, tmp):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CPTHREAD_") and k != "LD_PRELOAD"}
    env["CPTHREAD_QUIET"] = "1"
    env["CPTHREAD_REPORT"] = os.path.join(tmp, "r.json")
    env["CPTHREAD_TRACE"] = os.path.join(tmp, "t.cpt")
    preload = env_extra.pop("preload", False) if env_extra else False
    env.update(env_extra or {})
    if preload:
        env["LD_PRELOAD"] = lib
    for f in ("r.json", "t.cpt"):
        try:
            os.unlink(os.path.join(tmp, f))
        except FileNotFoundError:
            pass
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f"{argv[0]} failed ({status})")
    rep = None
    try:
        with open(os.path.join(tmp, "r.json")) as f:
            rep = json.load(f)
    except (OSError, ValueError):
        pass
    return {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "report": rep,
            "trace": os.path.join(tmp, "t.cpt")}


def sample_bytes(path):
    """(bytes of SAMPLES blocks with their headers, samples) of a trace."""
    try:
        d = open(path, "rb").read()
    except OSError:
        return 0, 0
    if len(d) < 64:
        return 0, 0
    # version 1: 16-byte block headers; from version 2: 32 (seq, flags,
    # crc, reserved)
    version = struct.unpack_from("<I", d, 8)[0]
    hsize = 16 if version < 2 else 32
    i, nbytes, n = 64, 0, 0
    while i + hsize <= len(d):
        _, typ, _, size = struct.unpack_from("<IIII", d, i)
        if typ == 7 and i + hsize + 20 <= len(d):
            nbytes += hsize + size
            n += struct.unpack_from("<I", d, i + hsize + 16)[0]
        i += hsize + size
    return nbytes, n


def med(xs):
    return statistics.median(xs)


def per_sample(args, wl, lib, tmp):
    print("1. cost per sample (smp_work, trace mode, "
          f"{args.runs} interleaved rounds, medians)")
    for depth in (10, 40):
        argv = [wl, str(depth), str(args.millions)]
        cfgs = {"off": {"CPTHREAD_SAMPLING": "off"},
                "perf": {"CPTHREAD_SAMPLING": "perf",
                         "CPTHREAD_SAMPLING_HZ": "10000"},
                "timer": {"CPTHREAD_SAMPLING": "timer",
                          "CPTHREAD_SAMPLING_HZ": "10000"}}
        res = {k: [] for k in cfgs}
        for _ in range(args.runs):
            for k, e in cfgs.items():
                e = dict(e, preload=True, CPTHREAD_MODE="trace")
                r = run(argv, e, lib, tmp)
                s = r["report"]["sampling"]["samples"] if r["report"] else 0
                b, n = sample_bytes(r["trace"])
                res[k].append((r["cpu"], s, b, n))
        off = med([x[0] for x in res["off"]])
        for k in ("perf", "timer"):
            cpu = med([x[0] for x in res[k]])
            s = med([x[1] for x in res[k]])
            b = sum(x[2] for x in res[k]) / max(1, sum(x[3] for x in res[k]))
            print(f"  depth {depth + 4:3d} frames  {k:5s}  {s:7.0f} samples "
                  f"in {cpu:.3f} s CPU (off: {off:.3f} s)  "
                  f"{(cpu - off) / s * 1e9 if s else 0:7.0f} ns/sample  "
                  f"{b:5.1f} bytes/sample")


def overhead(args, bdir, lib, tmp):
    sb = os.path.join(bdir, "splash-bench")
    rt = os.path.join(bdir, "tests", "bench", "runtime", "bench_rt_plain")
    # (bare argv, argv linked with the runtime or None, sampled function)
    progs = {"raytrace": ([os.path.join(sb, "raytrace"), "-t", "2", "-n",
                           str(args.ray_n), "-q"],
                          [os.path.join(sb, "raytrace_rt")],
                          "intersect_scene"),
             "water": ([os.path.join(sb, "water"), "-t", "2", "-n",
                        str(args.water_n), "-q"],
                       [os.path.join(sb, "water_rt")], "compute_forces"),
             # context-switch heavy: a perf event costs at every switch
             "barrierheavy": ([rt, "barrierheavy"], None, None)}
    print(f"2. overhead at the default rate ({args.runs} interleaved rounds;"
          " wall and CPU s of the process, min / median; ratio of medians"
          " against bare)")
    hz = {"CPTHREAD_SAMPLING_HZ": str(args.hz)} if args.hz else {}
    for prog, (bare, linked, fn) in progs.items():
        trace = {"preload": True, "CPTHREAD_MODE": "trace"}
        cfgs = {
            "bare": (bare, {}),
            "trace, sampling off": (bare, dict(trace,
                                               CPTHREAD_SAMPLING="off")),
            "trace, sampling auto": (bare, dict(trace, **hz)),
            "trace, sampling perf": (bare, dict(
                trace, CPTHREAD_SAMPLING="perf", **hz)),
            "trace, sampling timer": (bare, dict(
                trace, CPTHREAD_SAMPLING="timer", **hz)),
        }
        if linked:
            argv = linked + bare[1:]
            cfgs["online, no funcs"] = (argv, {})
            cfgs[f"online, FUNCS={fn} (sampled)"] = (
                argv, {"CPTHREAD_FUNCS": fn, **hz})
        res = {k: [] for k in cfgs}
        nbytes = nsamp = 0
        for _ in range(args.runs):
            for k, (argv, e) in cfgs.items():
                r = run(argv, dict(e), lib, tmp)
                res[k].append((r["wall"], r["cpu"]))
                if k == "trace, sampling auto":
                    b, n = sample_bytes(r["trace"])
                    nbytes += b
                    nsamp += n
        wb = med([x[0] for x in res["bare"]])
        cb = med([x[1] for x in res["bare"]])
        print(f"  {prog} {' '.join(bare[1:])}")
        for k, v in res.items():
            w = [x[0] for x in v]
            c = [x[1] for x in v]
            print(f"    {k:36s} wall {min(w):6.3f} / {med(w):6.3f} "
                  f"x{med(w) / wb:.3f}   cpu {min(c):6.3f} / {med(c):6.3f} "
                  f"x{med(c) / cb:.3f}")
        if nsamp:
            print(f"    trace growth: {nbytes / nsamp:.1f} bytes/sample "
                  f"({nsamp // args.runs} samples a run)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--millions", type=int, default=600)
    ap.add_argument("--ray-n", type=int, default=600)
    ap.add_argument("--water-n", type=int, default=20000)
    ap.add_argument("--hz", type=int, default=0,
                    help="CPTHREAD_SAMPLING_HZ for part 2 (default: none)")
    ap.add_argument("--only", choices=("sample", "overhead"))
    args = ap.parse_args()
    bdir = os.path.abspath(args.build)
    lib = os.path.join(bdir, "lib", "libcpthread.so")
    wl = os.path.join(bdir, "tests", "workloads", "wl_smp_work_plain")
    with tempfile.TemporaryDirectory() as tmp:
        if args.only != "overhead":
            per_sample(args, wl, lib, tmp)
        if args.only != "sample":
            overhead(args, bdir, lib, tmp)


if __name__ == "__main__":
    main()
