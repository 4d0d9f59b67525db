#!/usr/bin/env bash
# Install what cpthread needs to build, test and run its benchmarks on a
# Debian 12 machine (run as root; a no-op when everything is present).
set -euo pipefail

# chromium: the HTML report's browser test (tests/browser) opens the report
# headless; that test is skipped without it.  libomp-dev: LLVM's OpenMP
# runtime, which a test loads into a traced program to check that the
# report names it as untraced.  libdw-dev, libelf-dev: symbols and DWARF
# for the sampled profiles.  libiberty-dev: binutils' demangler, for C++
# and Rust names.  clang-14, libclang-rt-14-dev: the sanitizer
# and fuzzing stages of scripts/test.sh (ASan, UBSan, TSan, libFuzzer).
# locales: the locale sources from which check_preserve compiles de_DE (a
# decimal comma) for a traced program, whose report must stay JSON.
pkgs=(build-essential cmake pkg-config liburcu-dev libjemalloc-dev check
      libjansson-dev libdw-dev libelf-dev libiberty-dev binutils python3 chromium
      libomp-dev clang-14 libclang-rt-14-dev xz-utils zstd pigz locales)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
		|| missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup-deps: installing ${missing[*]}" >&2
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup-deps: need root to install packages" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
