#!/usr/bin/env bash
# Runs bench/e2e-runs.sh from this bundle (made by bench/bundle.sh): its Java runtime, Redis and
# curl stand-in first on the PATH. Usage: ./run.sh [runs=5] [e2e-benchmark arguments...]
# Logs go to a new folder per invocation under E2E_RUNS_OUT (default /tmp), printed at the end.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $(uname -m) == x86_64 ]] || { echo "run.sh: this bundle is for x86-64 Linux, this host is $(uname -s) $(uname -m)" >&2; exit 2; }
# What the bundle leaves to the host: a base system (bash runs this; the scripts' parsing and
# statistics are POSIX awk, their processes are read from /proc). No Python: JFR=1's summary is
# the one part that uses it, and is skipped without it.
for tool in awk sed grep cut tr date mktemp getconf nproc timeout uname; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found on the PATH (a base-system tool the scripts use: bash, coreutils, awk, sed, grep)" >&2; exit 2; }
done
export PATH="$here/bin:$PATH"
export JAVA_HOME="$here/runtime"
"$here/bin/java" -version >/dev/null 2>&1 || { echo "run.sh: the bundled java does not start on this host:" >&2; "$here/bin/java" -version; exit 2; }
exec bash "$here/repo/bench/e2e-runs.sh" "$@"
