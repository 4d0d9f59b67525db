#!/usr/bin/env python3
"""OpenMP overhead benchmark of libcpthread (issue 20, section 5).

Runs the programs of bench_omp_work.c (a team of two) bare and with
libcpthread.so preloaded (online mode; --modes online,trace adds trace
mode), interleaving the configurations round by round so that machine
noise hits them alike, and reports per program the median elapsed time
and the median process CPU time (user + system) of each, and the medians
of the per-round ratios (traced / bare).  On a machine shared with other
work the elapsed times of barrier-heavy programs depend on when the
threads get a processor; the CPU times much less so.  --passive sets
OMP_WAIT_POLICY=passive (libgomp sleeps at once instead of spinning), so
that the CPU time is the work and the synchronization, not the spinning.
Not a test: the figures depend on the machine.

    python3 tests/bench/omp/bench_omp.py --build build [--runs 7] [--passive]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

PROGRAMS = ("stencil", "tasks", "dynamic")


def run(binary, prog, lib, mode, passive):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CPTHREAD_") and k != "LD_PRELOAD"}
    env["OMP_NUM_THREADS"] = "2"
    if passive:
        env["OMP_WAIT_POLICY"] = "passive"
    if mode != "bare":
        env["LD_PRELOAD"] = lib
        env["CPTHREAD_MODE"] = mode
        env["CPTHREAD_QUIET"] = "1"
        env["CPTHREAD_REPORT"] = os.path.join(tempfile.gettempdir(),
                                              f"bench_omp.{os.getpid()}.json")
        env["CPTHREAD_TRACE"] = os.path.join(tempfile.gettempdir(),
                                             f"bench_omp.{os.getpid()}.cpt")
    p = subprocess.Popen([binary, prog], env=env, text=True,
                         stdout=subprocess.PIPE)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{binary} {prog} failed ({mode})")
    for line in out.splitlines():
        k, v = line.split()
        if k == "elapsed_s":
            return float(v), ru.ru_utime + ru.ru_stime
    sys.exit(f"{binary} {prog}: no elapsed_s line")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the CMake build tree")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--modes", default="online",
                    help="traced modes, comma-separated (online,trace)")
    ap.add_argument("--passive", action="store_true",
                    help="OMP_WAIT_POLICY=passive")
    a = ap.parse_args()
    binary = os.path.join(a.build, "tests/bench/omp/bench_omp_work")
    lib = os.path.abspath(os.path.join(a.build, "lib/libcpthread.so"))
    modes = ["bare"] + a.modes.split(",")
    print(f"# {a.runs} rounds, team of 2, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}{', passive' if a.passive else ''}; "
          "medians of elapsed and CPU seconds and of per-round ratios")
    for prog in PROGRAMS:
        t = {m: [] for m in modes}
        for _ in range(a.runs):
            for m in modes:
                t[m].append(run(binary, prog, lib, m, a.passive))
        for i, what in ((0, "elapsed"), (1, "cpu")):
            base = [x[i] for x in t["bare"]]
            line = (f"{prog:8s} {what:7s} bare {statistics.median(base):.3f}"
                    " s")
            for m in modes[1:]:
                v = [x[i] for x in t[m]]
                ratios = [x / b for x, b in zip(v, base)]
                line += (f"   {m} {statistics.median(v):.3f} s "
                         f"(x{statistics.median(ratios):.3f})")
            print(line, flush=True)


if __name__ == "__main__":
    main()
