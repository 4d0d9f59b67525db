#!/usr/bin/env bash
# Install the build into a temporary prefix and use it the three ways a
# user would: pkg-config, find_package(cpthread), and the static library.
# Also check that libcpthread exports only its API and the wrapped names
# (its private jemalloc stays private).  Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libcpthread.so' | head -1)")
test -f "$prefix/include/cpthread.h"
test -f "$libdir/libcpthread.a"
test -f "$libdir/pkgconfig/cpthread.pc"
test -f "$libdir/cmake/cpthread/cpthreadConfig.cmake"

# Exports: nothing of jemalloc (malloc, mallocx...) or of the runtime;
# the wrapped families are pthread, semaphores, C11 threads, libgomp and
# syscall (futexes) and sched_yield (spin-waits), the signal calls and _exit the crash path needs, the
# signal masks (the sampler's signal stays open), the signals sent and
# waited for within the process, the waits for child processes, and the
# exec family (a process's report is finished before its image goes), and
# the channels between threads (pipes, eventfds, socket pairs: their
# writes, reads and readiness waits), and the sleeps.
bad=$(nm -D --defined-only "$libdir/libcpthread.so" | awk '{print $3}' |
      grep -Ev '^(cpthread_|pthread_|sem_|fork$|__cyg_profile_func_)' |
      grep -Ev '^(thrd_|mtx_|cnd_|call_once$|GOMP_|omp_|syscall$)' |
      grep -Ev '^sched_yield$' |
      grep -Ev '^(sigaction|signal|bsd_signal|sysv_signal|__sysv_signal)$' |
      grep -Ev '^(sigset|sigignore|_exit|_Exit|sigprocmask)$' |
      grep -Ev '^(kill|raise|sigqueue|sigwait|sigwaitinfo|sigtimedwait)$' |
      grep -Ev '^(sigsuspend|pause)$' |
      grep -Ev '^(wait|waitpid|wait3|wait4|waitid)$' |
      grep -Ev '^(execve|execv|execvp|execvpe|execl|execlp|execle)$' |
      grep -Ev '^fexecve$' |
      grep -Ev '^(pipe|pipe2|eventfd|socketpair|close|close_range|closefrom)$' |
      grep -Ev '^(dup2|dup3)$' |
      grep -Ev '^(write|writev|send|eventfd_write|read|readv|eventfd_read)$' |
      grep -Ev '^(poll|ppoll|select|pselect|epoll_ctl|epoll_wait|epoll_pwait)$' |
      grep -Ev '^(sleep|usleep|nanosleep|clock_nanosleep|dlclose)$' || true)
if [ -n "$bad" ]; then
	echo "libcpthread.so exports unexpected symbols: $bad" >&2
	exit 1
fi

run() {	# run a consumer with a report in $tmp and check its output
	local exe=$1 report=$tmp/report.$RANDOM.json
	out=$(CPTHREAD_QUIET=1 CPTHREAD_FUNCS=count CPTHREAD_REPORT=$report \
	      LD_LIBRARY_PATH=$libdir "$exe")
	[ "$out" = "counter=2000" ] || { echo "$exe printed '$out'" >&2; exit 1; }
	grep -q '"length_ns"' "$report" || { echo "$exe wrote no report" >&2; exit 1; }
	grep -q '"name": "count"' "$report" || { echo "$exe: region missing" >&2; exit 1; }
}

# 1. pkg-config
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -o "$tmp/pc" "$src/consumer/main.c" $(pkg-config --cflags --libs cpthread)
run "$tmp/pc"

# 2. find_package(cpthread)
cmake -S "$src/consumer" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
run "$tmp/cm/consumer"

# 3. static library
cc -o "$tmp/st" "$src/consumer/main.c" -I"$prefix/include" \
	"$libdir/libcpthread.a" $(pkg-config --libs liburcu-bp liburcu-cds) \
	-lpthread -ldl -lm
run "$tmp/st"
# the static program keeps glibc's malloc: no jemalloc symbol exported
if nm -D --defined-only "$tmp/st" | grep -qw malloc; then
	echo "static consumer exports malloc" >&2
	exit 1
fi
echo "install test: pkg-config, find_package and static use all passed"
