#!/usr/bin/env bash
# The main job: install dependencies, build, run a SPLASH-style program
# (the ray tracer by default) under the tracer in trace mode, run its -pg
# build for gprof, and print the critical-path report next to gprof's flat
# profile (exclusive times, as gprof counts them).
#   scripts/demo.sh [--instrumented] [PROGRAM] [PROGRAM ARGS...]
# The program is an ordinary -O2 -g build: the procedures come from CPU-time
# samples of its call stacks.  --instrumented runs its -finstrument-functions
# build instead, whose procedure times are exact.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/build.sh" >&2

variant=_rt
if [ "${1:-}" = --instrumented ]; then
	variant=_cpt
	shift
fi
prog=${1:-raytrace}
shift || true
exe=$(find "$top/build/splash-bench" -type f -name "${prog}${variant}" |
      head -1)
if [ -z "$exe" ]; then
	echo "demo: no splash-bench program '$prog' in build/splash-bench" >&2
	exit 2
fi
out=$top/build/demo
mkdir -p "$out"
trace=$out/$prog.cpt
echo "== running ${prog}${variant} (2 threads) under cpthread, trace mode ==" >&2
( cd "$out" && CPTHREAD_MODE=trace CPTHREAD_TRACE="$trace" \
	CPTHREAD_REPORT="$out/$prog.json" "$exe" -t 2 "$@" )

# The same program built with -pg, for gprof's side of the table.
gprof_args=()
pg=${exe%${variant}}_pg
if [ -x "$pg" ] && command -v gprof >/dev/null; then
	echo "== running ${prog}_pg (2 threads) for gprof ==" >&2
	rm -f "$out/gmon.out"
	( cd "$out" && "$pg" -t 2 "$@" >/dev/null )
	[ -s "$out/gmon.out" ] &&
		gprof_args=(--gprof "$out/gmon.out" --exe "$pg" --exclusive)
fi
echo >&2
echo "== cpt report $trace ${gprof_args[*]} ==" >&2
"$top/build/tools/cpt" report "$trace" "${gprof_args[@]}"
