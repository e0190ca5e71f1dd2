#!/usr/bin/env bash
# Runs bench/e2e-benchmark.sh several times in a row and prints one Markdown table row per run:
# the numbers issue 20's targets are about, for BENCHMARKS.md. Same env as e2e-benchmark.sh
# (BUSY_CORE=1, DEDUP_WINDOW=0s, TELEMETRY_WRITE_PATH=script, ...); each invocation's logs go to
# a new folder (under E2E_RUNS_OUT when set, else /tmp), never an earlier one's; a failed run's
# row and stderr say why.
#
# Usage: bench/e2e-runs.sh [runs=5] [e2e-benchmark arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
shift || true
(( runs >= 1 && runs <= 20 )) || { echo "e2e-runs: runs must be 1..20, got $runs" >&2; exit 2; }
# Every invocation gets a folder of its own, also under a given E2E_RUNS_OUT: a run never writes
# into an earlier one's logs (a reused folder once failed a run on a 16-core host).
if [[ -n ${E2E_RUNS_OUT:-} ]]; then
  mkdir -p "$E2E_RUNS_OUT"
  base=$(mktemp -d "$E2E_RUNS_OUT/e2e-runs.$(date -u +%Y%m%dT%H%M%S).XXXXXX")
else
  base=$(mktemp -d /tmp/e2e-runs.XXXXXX)
fi
echo "| run (UTC) | (a) XADD/s | (b) steady records/s | (c) | CPU per record: server (its device event loops) / Redis / simulator | server alloc per record | (d) offered | (d) ACK p99 after 10 s | (d) worst 5 s interval p99 | (d) machine CPU; per record server / Redis / simulator |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for ((i = 1; i <= runs; i++)); do
  out="$base/run-$i"
  mkdir "$out"
  if ! E2E_OUT="$out" bash bench/e2e-benchmark.sh "$@" > "$out/e2e.log" 2>&1; then
    # Why, in the table itself: the benchmark's last words (a missing tool, a port taken, a timeout).
    why=$(grep -v '^\s*$' "$out/e2e.log" | tail -n 3 | tr '\n|' '  ' | cut -c1-300)
    echo "| run $i failed: ${why:-no output} (log: $out/e2e.log) | | | | | | | | | |"
    echo "e2e-runs: run $i failed; last lines of $out/e2e.log:" >&2
    tail -n 15 "$out/e2e.log" >&2
    continue
  fi
  python3 - "$out/e2e.log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def find(pattern, default="?"):
    m = re.search(pattern, text, re.M)
    return m.groups() if m else (default,) * re.compile(pattern).groups
(when,) = find(r"^== e2e benchmark \S*T(\d\d:\d\d)")
(xadd,) = find(r"XADD\s+(\d+) entries/s")
(steady,) = find(r"steady\s+after the first 5s: ([\d.]+) records/s")
(ratio,) = find(r"^\(c\) ratio .*?= ([\d.]+)")
server, loops, redis, sim = find(r"CPU per acknowledged record: server ([\d.]+) us \(device event loops ([\d.]+) us\), "
                                r"redis ([\d.]+) us, simulator ([\d.]+) us")
(alloc,) = find(r"allocation per stored record: ([\d,]+) B")
(offered,) = find(r"= ([\d.]+) records/s offered")
p99, worst = find(r"simulator: ACK p99 ([\d.]+) ms after the first \d+ s .*?worst 5 s interval p99 ([\d.]+) ms")
machine, d_server, d_redis, d_sim = find(r"together (\d+) % of the machine's \d+ %\); per offered record: server ([\d.]+) us, "
                                        r"redis ([\d.]+) us, simulator ([\d.]+) us")
num = lambda v: f"{float(v):,.0f}" if v != "?" else v
print(f"| {when} | {num(xadd)} | {num(steady)} | **{ratio}** | {server} ({loops}) / {redis} / {sim} us | {alloc} B | {num(offered)}/s | **{p99} ms** | {worst} ms | {machine} %; {d_server} / {d_redis} / {d_sim} us |")
PY
done
echo "logs: $base"
