#!/usr/bin/env python3
"""Fine-grained locking benchmark of libcpthread (issue 19).

Runs the programs of bench_fine.c bare, online and in trace mode
(libcpthread preloaded; trace mode with its default CPU-time sampling and,
as trace-nosampling, with CPTHREAD_SAMPLING=off), interleaving the configurations round by round so
that machine noise hits them alike, and prints per program the min and
median elapsed time and the ratios to the bare run: of the minima, of the
medians, and the median of the per-round ratios.  onelock, manylocks and
hugelocks are reported as ns added per uncontended lock pair.  Every run
must pass its own result check (the program exits 1 otherwise, and so
does this script).

    python3 tests/bench/runtime/bench_fine.py --build build [--runs 5]
    python3 tests/bench/runtime/bench_fine.py --build build --quick

--quick: one round at tiny sizes (the ctest check that the programs run
and check their results under the tracer).  --against DIR adds the online
and trace configurations run with DIR/lib/libcpthread.so, named "B:...",
in the same rounds: an A/B of two versions of the runtime.
"""
import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile

# name -> arguments of bench_fine; full and quick sizes; WORK (the last
# argument of barnes and taskq) in ns, passed on as units.  fmm and
# radiosity are the same patterns at those SPLASH programs' sizes and lock
# rates: fmm a tree of 131,072 particles built with a lock per cell, then
# a lock pair every 250 ns of work (about 2/3 of barnes's rate: fmm's
# added cost in issue 19 is that fraction of barnes's); radiosity task
# queues with stealing and patch locks at 4 M tasks/s (taskq at 250 ns a
# task).
PROGS = {
    "barnes": (["barnes", "131072", "2000000", "120"],
               ["barnes", "4096", "20000", "120"]),
    "fmm": (["barnes", "131072", "1000000", "250"],
            ["barnes", "4096", "10000", "250"]),
    "taskq": (["taskq", "256", "7", "600"], ["taskq", "4", "5", "600"]),
    "radiosity": (["taskq", "256", "7", "250"], ["taskq", "4", "5", "250"]),
    "manylocks": (["manylocks", "10000", "10000000"],
                  ["manylocks", "10000", "100000"]),
    "onelock": (["manylocks", "1", "10000000"], ["manylocks", "1", "100000"]),
    # more mutexes than a thread's record map held until it could grow
    # past 2^15 slots (the map started over and every look-up missed);
    # the records and the map no longer fit the caches either
    "hugelocks": (["manylocks", "100000", "10000000"],
                  ["manylocks", "100000", "100000"]),
    # lockheavy's pattern on one thread, in its CPU time: 16 mutexes, 1 us
    # of work before each pair (the per-pair cost between work, not in a
    # tight loop)
    "worklocks": (["manylocks", "16", "1000000", "1000"],
                  ["manylocks", "16", "10000", "1000"]),
    "recreate": (["recreate", "200", "1024"], ["recreate", "20", "1024"]),
}

# reported as CPU ns per lock pair (or per iteration), not as ratios
PAIR_PROGS = ("onelock", "manylocks", "hugelocks", "worklocks")


def cpu_model():
    """The first CPU's model name, with its family and model numbers: a
    VM may call every generation "AMD EPYC", and the costs differ between
    them (family 25 is Zen 3/4, family 26 Zen 5)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = info.get("model name") or platform.processor() or "unknown"
    if "cpu family" in info and "model" in info:
        name += f" (family {info['cpu family']}, model {info['model']})"
    return name


def run(binary, pargs, env_extra, lib):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CPTHREAD_") and k != "LD_PRELOAD"}
    env["CPTHREAD_QUIET"] = "1"
    if env_extra is not None:
        env.update(env_extra)
        env["LD_PRELOAD"] = env.pop("lib", lib)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([binary, *pargs], env=env, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{binary} {' '.join(pargs)} exited {p.returncode}: "
                 f"{p.stderr.strip()}")
    vals = {k: float(v) for k, v in (line.split() for line in
                                     p.stdout.splitlines())}
    vals["cpu_s"] = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    return vals


def check_recreate(binary, lib, cfgs, tmp):
    """Mutexes destroyed and re-created at the same address while other
    threads' record maps name them: the report must count a fresh object
    for every (round, mutex) locked, and every operation."""
    for name, env in cfgs:
        if env is None:
            continue
        report = os.path.join(tmp, "recreate.json")
        vals = run(binary, PROGS["recreate"][1],
                   dict(env, CPTHREAD_REPORT=report), lib)
        with open(report) as f:
            gone = [o for o in json.load(f)["objects_destroyed"]
                    if o["kind"] == "mutex"]
        got = (gone[0]["objects"], gone[0]["ops"]) if gone else (0, 0)
        want = (int(vals["objects"]), int(vals["pairs"]))
        if got != want:
            sys.exit(f"bench_fine recreate, {name}: the report counts "
                     f"{got[0]} mutexes with {got[1]} operations, the "
                     f"program {want[0]} with {want[1]}")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--against", metavar="DIR",
                    help="also run online and trace with "
                         "DIR/lib/libcpthread.so")
    args = ap.parse_args()
    b = os.path.abspath(args.build)
    binary = os.path.join(b, "tests/bench/runtime/bench_fine")
    lib = os.path.join(b, "lib/libcpthread.so")
    tmp = tempfile.mkdtemp(prefix="cpt-fine-")
    cfgs = [
        ("bare", None),
        ("online", {"CPTHREAD_REPORT": os.path.join(tmp, "r.json")}),
        ("trace", {"CPTHREAD_MODE": "trace",
                   "CPTHREAD_TRACE": os.path.join(tmp, "t.cpt"),
                   "CPTHREAD_REPORT": os.path.join(tmp, "r.json")}),
    ]
    cfgs.append(("trace-nosampling", dict(cfgs[-1][1],
                                          CPTHREAD_SAMPLING="off")))
    if args.against:
        other = os.path.join(os.path.abspath(args.against),
                             "lib/libcpthread.so")
        if not os.path.exists(other):
            sys.exit(f"--against: no {other}")
        cfgs += [("B:" + name, dict(env, lib=other))
                 for name, env in cfgs if env is not None]
    progs = [p for p in PROGS if not args.only or p in args.only.split(",")]
    runs = 1 if args.quick else args.runs
    load0 = os.getloadavg()
    unit = min(run(binary, ["calibrate"], None, lib)["unit_ns"]
               for _ in range(3))

    def units(pargs):
        if pargs[0] in ("barnes", "taskq") or len(pargs) > 3:
            return pargs[:-1] + [str(-max(1, round(float(pargs[-1]) /
                                                   unit)))]
        return pargs
    res = {}
    for r in range(runs):
        print(f"round {r + 1}/{runs}", file=sys.stderr)
        for prog in progs:
            pargs = units(PROGS[prog][1 if args.quick else 0])
            for name, env in cfgs:
                for k, v in run(binary, pargs, env, lib).items():
                    res.setdefault((prog, name, k), []).append(v)
    if args.quick:
        check_recreate(binary, lib, cfgs, tmp)
        print("bench_fine: every program checked its result in every mode")
        return
    if args.against:
        print(f"# B: the configuration with {args.against}'s library")
    load1 = os.getloadavg()

    def mm(key):
        return min(res[key]), statistics.median(res[key])

    print(f"# cpthread fine-grained locking (min / median of {runs} "
          "interleaved runs)")
    print(f"# CPU: {cpu_model()}, {os.cpu_count()} CPUs")
    cmd = f"python3 tests/bench/runtime/bench_fine.py --build {args.build} " \
          f"--runs {runs}" + (f" --only {args.only}" if args.only else "") \
          + (f" --against {args.against}" if args.against else "")
    print(f"# command: {cmd}")
    print(f"# work unit {unit:.3f} ns; barnes {PROGS['barnes'][0][3]} and "
          f"fmm {PROGS['fmm'][0][3]} ns of work a lock pair, taskq "
          f"{PROGS['taskq'][0][3]} and radiosity "
          f"{PROGS['radiosity'][0][3]} ns a task")
    print("# finished %s UTC; load average %.2f at the start, %.2f at the end"
          % (datetime.datetime.now(datetime.timezone.utc)
             .strftime("%Y-%m-%d %H:%M"), load0[0], load1[0]))
    print()
    print("| program | mode | elapsed s min / median | lock pairs/s (best) "
          "| ratio min / median / median of rounds | CPU s min / median "
          "| CPU ratio min / median |")
    print("|---|---|---|---|---|---|---|")
    for prog in progs:
        if prog in PAIR_PROGS:
            continue
        bmin, bmed = mm((prog, "bare", "elapsed_s"))
        for name, _ in cfgs:
            emin, emed = mm((prog, name, "elapsed_s"))
            rate = res[(prog, name, "pairs")][0] / emin
            if name == "bare":
                ratio = "baseline"
            else:
                rounds = statistics.median(
                    c / b for c, b in zip(res[(prog, name, "elapsed_s")],
                                          res[(prog, "bare", "elapsed_s")]))
                ratio = f"{emin / bmin:.3f} / {emed / bmed:.3f} / {rounds:.3f}"
            cmin, cmed = mm((prog, name, "cpu_s"))
            cbmin, cbmed = mm((prog, "bare", "cpu_s"))
            cratio = "baseline" if name == "bare" else \
                f"{cmin / cbmin:.3f} / {cmed / cbmed:.3f}"
            print(f"| {prog} | {name} | {emin:.3f} / {emed:.3f} | "
                  f"{rate / 1e6:.1f} M | {ratio} | {cmin:.3f} / {cmed:.3f} "
                  f"| {cratio} |")
    for prog in PAIR_PROGS:
        if prog not in progs:
            continue
        print()
        n = PROGS[prog][0][1]
        bmin, bmed = mm((prog, "bare", "pair_ns"))
        cells = []
        for name, _ in cfgs[1:]:
            cmin, cmed = mm((prog, name, "pair_ns"))
            cells.append(f"{name} {cmin:.1f} / {cmed:.1f} "
                         f"(+{cmin - bmin:.1f} / +{cmed - bmed:.1f})")
        if prog == "worklocks":
            head = (f"{prog}: {PROGS[prog][0][3]} ns of work (nominal), then "
                    f"a lock+unlock of one of {n} mutexes in random order, "
                    "one thread, CPU ns per iteration")
        else:
            head = (f"{prog}: uncontended lock+unlock over {n} mutex(es) in "
                    "random order, one thread, CPU ns per pair")
        print(f"{head}: bare {bmin:.1f} / {bmed:.1f}, " + ", ".join(cells))


if __name__ == "__main__":
    main()
