#!/usr/bin/env bash
# Run every libFuzzer target of tests/fuzz for a bounded time.
#
# usage: scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET]
#   BUILD_DIR  a build configured with -DCPTHREAD_FUZZ=ON (clang-14), the
#              targets built (cmake --build BUILD_DIR --target fuzz_trace
#              fuzz_pag fuzz_gprof)
#   SECONDS    per target; default $CPTHREAD_FUZZ_SECONDS, else 60
# Environment: CPTHREAD_FUZZ_TARGETS (default "trace pag gprof"),
#   CPTHREAD_FUZZ_WORK (where new inputs and crash files go; default a
#   fresh directory under /tmp, kept when something was found),
#   CPTHREAD_FUZZ_RUNS and CPTHREAD_FUZZ_SEED: with both set, each target
#   runs exactly that many inputs from that seed instead of for SECONDS
#   (what CI does: a random campaign belongs on a developer's machine, and
#   what it finds, fixed, under tests/fuzz/regress/).  Two such runs start
#   alike but drift apart after a few hundred inputs: libFuzzer's
#   comparison dictionary takes in operands that differ from run to run
#   (heap addresses compared with input-derived pointers), so a failure
#   prints its input to reproduce it (report_crash below).
#
# Each target starts from the seed corpus tests/fuzz/corpus/<target> (never
# written to).  An input that crashes, trips a sanitizer, runs over 10 s
# or asks for more than 512 MB at once (inputs are at most 64 kB) stops
# the run: the script then names the file that reproduces it and exits 1.
# Put a reduced copy under tests/fuzz/regress/<target>/ once it is fixed.
# Prints one line per target: inputs executed, and the outcome.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: scripts/fuzz.sh BUILD_DIR [SECONDS]}
secs=${2:-${CPTHREAD_FUZZ_SECONDS:-60}}
targets=${CPTHREAD_FUZZ_TARGETS:-trace pag gprof}
# the ASan runtime is a shared library (cmake/CpBuildModes.cmake) that
# libFuzzer's libstdc++ precedes in the load order
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
work=${CPTHREAD_FUZZ_WORK:-$(mktemp -d /tmp/cpthread-fuzz.XXXXXX)}
status=0

# What a failure prints, so that a run whose machine is gone (CI's) can
# still be reproduced: the lines the target wrote before the sanitizer's
# or libFuzzer's report (an abort's own message), the report's first
# frames, and the input itself in base64 when it is small (decode it with
# `base64 -d > crash.bin`, then run the target or fuzz_replay_<t> on it).
report_crash() {
	local log=$1 art=$2 first

	first=$(grep -n -m1 -E '^==[0-9]+==|runtime error|^fuzz: ' "$log" |
		cut -d: -f1)
	if [ -n "$first" ]; then
		sed -n "$(( first > 5 ? first - 5 : 1 )),$(( first + 30 ))p" \
			"$log" | grep -v -E '^(#[0-9]+\s+(NEW|REDUCE|pulse|INITED)|INFO:)' |
			sed 's/^/fuzz:   /'
	fi
	if [ -n "$art" ] && [ "$(stat -c %s "$art")" -le 8192 ]; then
		echo "fuzz:   the input, base64:"
		base64 -w 76 "$art" | sed 's/^/fuzz:   /'
	fi
}

for t in $targets; do
	exe=$build/tests/fuzz/fuzz_$t
	if [ ! -x "$exe" ]; then
		echo "fuzz: $exe not built (configure with -DCPTHREAD_FUZZ=ON)"
		exit 2
	fi
	mkdir -p "$work/$t"
	log=$work/$t.log
	bound=(-max_total_time="$secs")
	if [ -n "${CPTHREAD_FUZZ_RUNS:-}" ] && [ -n "${CPTHREAD_FUZZ_SEED:-}" ]
	then
		bound=(-runs="$CPTHREAD_FUZZ_RUNS" -seed="$CPTHREAD_FUZZ_SEED")
	fi
	"$exe" "${bound[@]}" -timeout=10 -rss_limit_mb=1024 \
		-malloc_limit_mb=512 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$work/$t-" "$work/$t" \
		"$top/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc -eq 0 ]; then
		echo "fuzz: $t: ${execs:-?} inputs, nothing found"
	else
		status=1
		art=$(ls "$work/$t"-* 2>/dev/null | head -1)
		echo "fuzz: $t: FAILED after ${execs:-?} inputs (exit $rc):" \
			"${art:-no reproducer written}; log $log"
		report_crash "$log" "$art"
	fi
done
[ $status -eq 0 ] && [ -z "${CPTHREAD_FUZZ_WORK:-}" ] && rm -rf "$work"
exit $status
