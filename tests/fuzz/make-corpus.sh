#!/usr/bin/env bash
# Regenerate the seed traces of tests/fuzz/corpus/trace from the project's
# own workloads (run it after a change of the trace format, and commit
# the result).  The PAG and gprof seeds are small hand-checked files and
# gprof output (`gprof -b -p` of tests/workloads/funcs.c built with -pg).
#
# usage: tests/fuzz/make-corpus.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: make-corpus.sh BUILD_DIR}
out=$here/corpus/trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"	# the workloads leave their JSON reports here
for w in mutex spin rwlock barrier cond sem wq create funcs handover \
	 robust_detach features; do
	CPTHREAD_MODE=trace CPTHREAD_TRACE="$out/$w.cpt" \
		"$build/tests/workloads/wl_$w" >/dev/null 2>&1
done
for seed in 1 2 3; do
	CPTHREAD_MODE=trace CPTHREAD_TRACE="$out/stress$seed.cpt" \
		"$build/tests/stress/stress" "$seed" 1 >/dev/null 2>&1
done
du -sh "$out"
