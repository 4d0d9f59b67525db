#!/usr/bin/env bash
# The test command: install dependencies, build, run every test under
# ctest, then the checking stages.  A failing stage fails the script; each
# stage prints one line when it starts and one when it ends.
#
# Stages, in order:
#   main   build/, RelWithDebInfo (gcc): the whole ctest suite.
#   asan   build-asan/, clang-14 with -DCPTHREAD_SANITIZE=ON (ASan+UBSan)
#          -DCPTHREAD_DEBUG=ON (invariant checks) -DCPTHREAD_FUZZ=ON: the
#          suite once more, sanitized and checking (see ASAN_EXCLUDE).
#   tsan   build-tsan/, clang-14 with -DCPTHREAD_TSAN=ON: the runtime
#          tests (ctest -L tsan), liburcu suppressed (tests/tsan.supp);
#          then workloads built with TSan run traced (tsan_traced).
#   fuzz   each libFuzzer target of tests/fuzz in build-asan/: 150,000
#          inputs from seed 1 (CPTHREAD_FUZZ_RUNS / CPTHREAD_FUZZ_SEED
#          change them; runs drift apart all the same, see
#          scripts/fuzz.sh, so a failure prints its input), or for
#          CPTHREAD_FUZZ_SECONDS seconds when that is set (scripts/fuzz.sh).
# On a 2-core machine the four take 35 to 45 minutes (README, Tests).
#
# Environment:
#   CPTHREAD_TEST_STAGES   the stages to run, default "main asan tsan
#                          fuzz"; CPTHREAD_TEST_STAGES=main is the quick
#                          developer run (about a minute once built).
#   CPTHREAD_FUZZ_SECONDS  seconds per fuzz target instead of the fixed
#                          inputs (a random campaign).
# Arguments go to the main stage's ctest (e.g. -R check_pag).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
stages=${CPTHREAD_TEST_STAGES:-main asan tsan fuzz}
jobs=$(nproc)

# The ASan stage runs every test but one: install_consumers builds its
# consumer programs with the system's cc, without ASan, and those cannot
# use the ASan-built libraries (libcpthread.a's objects lack their runtime
# at link time; libcpthread.so's constructors need it loaded first).  Cases that cannot hold in a clang sanitized build skip
# themselves out loud (tests/cpt_skip.h: OpenMP on LLVM's libomp, which
# the tracer does not model); the stage lists them at its end.  ASan's
# runtime is shared (cmake/CpBuildModes.cmake): a preloaded libcpthread.so
# loads before it, hence verify_asan_link_order=0.
ASAN_EXCLUDE='^install_consumers$'

stage_begin() {
	stage_t0=$(date +%s)
	echo "== stage $1: start ($(date -u +%H:%M:%S) UTC)"
}

stage_end() {
	echo "== stage $1: ok ($(( $(date +%s) - stage_t0 )) s)"
}

# Run a stage's body; on failure print its end line and stop.  The body
# runs as an if's condition, where set -e does not hold: each stage chains
# its steps with && so that a failed build fails the stage, and ctest is
# told that finding no test is a failure.
run_stage() {
	local name=$1
	shift
	stage_begin "$name"
	if ! "$@"; then
		echo "== stage $name: FAILED ($(( $(date +%s) - stage_t0 )) s)"
		exit 1
	fi
	stage_end "$name"
}

stage_main() {
	"$top/scripts/build.sh" &&
	(cd "$top/build" && ctest --no-tests=error --output-on-failure -j2 "$@")
}

configure_clang() {
	local dir=$1
	shift
	CC=clang-14 CXX=clang++-14 cmake -S "$top" -B "$top/$dir" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
}

stage_asan() {
	configure_clang build-asan -DCPTHREAD_SANITIZE=ON -DCPTHREAD_DEBUG=ON \
		-DCPTHREAD_FUZZ=ON &&
	cmake --build "$top/build-asan" -j"$jobs" >/dev/null &&
	# the tracer never frees its arena at exit, and the workloads end
	# with threads alive: leaks are checked by the fuzz stage instead
	# (libFuzzer reports the analyzer's)
	(cd "$top/build-asan" &&
	 ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
	 UBSAN_OPTIONS=print_stacktrace=1 \
	 ctest --no-tests=error --output-on-failure -j2 -E "$ASAN_EXCLUDE" &&
	 list_skipped)
}

# The cases the last ctest run skipped (tests/cpt_skip.h), one a line.
list_skipped() {
	local log=Testing/Temporary/LastTest.log n

	n=$(grep -c '^SKIPPED ' "$log" || true)
	echo "== $n cases skipped in this build:"
	grep -h '^SKIPPED ' "$log" | sed 's/^/==   /' || true
}

stage_tsan() {
	configure_clang build-tsan -DCPTHREAD_TSAN=ON \
		-DCPTHREAD_BUILD_SPLASH=OFF &&
	cmake --build "$top/build-tsan" -j"$jobs" --target cp_rt_tests \
		$(printf 'wl_%s_plain ' $TSAN_TRACED) >/dev/null &&
	(cd "$top/build-tsan" &&
	 ctest --no-tests=error --output-on-failure -j2 -L tsan) &&
	tsan_traced
}

# Workloads built with TSan that run traced: the main build's
# libcpthread.so, not instrumented, preloaded.  (An instrumented one
# cannot: TSan's pthread_create interceptor comes first and starts the new
# thread in our trampoline, whose instrumented code then runs before TSan
# has set the thread up.)  Each must exit and print as it does untraced,
# with no TSan report, and leave a report and a trace cpt reads.
TSAN_TRACED='mutex cond create barrier sem rwlock life_detach'

tsan_traced() {
	local tmp w exe b t bad=0

	if [ ! -f "$top/build/CMakeCache.txt" ]; then
		"$top/scripts/build.sh" || return 1
	fi
	cmake --build "$top/build" -j"$jobs" --target cpthread cpt \
		>/dev/null || return 1
	tmp=$(mktemp -d)
	for w in $TSAN_TRACED; do
		exe=$top/build-tsan/tests/workloads/wl_${w}_plain
		b=0 t=0
		"$exe" >"$tmp/bare" 2>"$tmp/bare.err" || b=$?
		rm -f "$tmp/t.cpt" "$tmp/t.json"
		CPTHREAD_MODE=trace CPTHREAD_TRACE="$tmp/t.cpt" \
		CPTHREAD_REPORT="$tmp/t.json" CPTHREAD_QUIET=1 \
		LD_PRELOAD="$top/build/lib/libcpthread.so" \
			"$exe" >"$tmp/out" 2>"$tmp/err" || t=$?
		if [ $b -ne 0 ] || [ $t -ne 0 ] ||
		   ! cmp -s "$tmp/bare" "$tmp/out" ||
		   grep -q ThreadSanitizer "$tmp/bare.err" "$tmp/err" ||
		   [ ! -s "$tmp/t.json" ] ||
		   ! "$top/build/tools/cpt" report "$tmp/t.cpt" >/dev/null
		then
			echo "tsan: wl_$w traced: exit $t (bare $b):"
			head -20 "$tmp/err"
			bad=1
		fi
	done
	rm -rf "$tmp"
	[ $bad -eq 0 ] && echo "tsan: $(echo $TSAN_TRACED | wc -w) workloads" \
		"ran traced under TSan"
}

stage_fuzz() {
	if [ ! -x "$top/build-asan/tests/fuzz/fuzz_trace" ]; then
		configure_clang build-asan -DCPTHREAD_SANITIZE=ON \
			-DCPTHREAD_DEBUG=ON -DCPTHREAD_FUZZ=ON &&
		cmake --build "$top/build-asan" -j"$jobs" --target fuzz_trace \
			fuzz_pag fuzz_gprof >/dev/null || return 1
	fi
	# a fixed count from a fixed seed, unless a time is asked for
	if [ -z "${CPTHREAD_FUZZ_SECONDS:-}" ]; then
		CPTHREAD_FUZZ_RUNS=${CPTHREAD_FUZZ_RUNS:-150000} \
		CPTHREAD_FUZZ_SEED=${CPTHREAD_FUZZ_SEED:-1} \
			"$top/scripts/fuzz.sh" "$top/build-asan"
	else
		"$top/scripts/fuzz.sh" "$top/build-asan" "$CPTHREAD_FUZZ_SECONDS"
	fi
}

for s in $stages; do
	case $s in
	main) run_stage main stage_main "$@" ;;
	asan) run_stage asan stage_asan ;;
	tsan) run_stage tsan stage_tsan ;;
	fuzz) run_stage fuzz stage_fuzz ;;
	*) echo "test.sh: unknown stage '$s' (main asan tsan fuzz)" >&2
	   exit 2 ;;
	esac
done
