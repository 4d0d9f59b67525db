#!/usr/bin/env bash
# The test command: install dependencies, build, run every test under ctest.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/build.sh"
cd "$top/build"
ctest --output-on-failure -j2 "$@"
