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
# awk with bench/lib.awk's functions (as bench/lib.sh's bench_awk): the program from stdin.
bench_awk() { LC_ALL=C awk "$(< bench/lib.awk)"$'\n'"$(cat)" "$@"; }

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
  bench_awk "$out/e2e.log" <<'AWK'
# The first line where each number's pattern matches, as it appears ("?" when none does).
function after(text, prefix) { return substr(text, length(prefix) + 1) }
function num(v) { return v == "?" ? v : thousands(sprintf("%.0f", decimal(v))) }
BEGIN { when = xadd = steady = ratio = server = loops = redis = sim = alloc = offered = p99 = worst = "?"; machine = d_server = d_redis = d_sim = "?" }
when == "?" && /^== e2e benchmark / {
  # The time of the last "T<hh>:<mm>" in the word after the prefix (its date and time).
  word = after($0, "== e2e benchmark "); sub(/[ \t].*/, "", word)
  while (match(word, /T[0-9][0-9]:[0-9][0-9]/)) { found = substr(word, RSTART + 1, 5); word = substr(word, RSTART + 1) }
  if (found != "") when = found
}
xadd == "?" && match($0, /XADD[ \t]+[0-9]+ entries\/s/) {
  xadd = substr($0, RSTART + 4, RLENGTH - 4); sub(/^[ \t]*/, "", xadd); sub(/ .*/, "", xadd)
}
steady == "?" && match($0, /steady[ \t]+after the first 5s: [0-9.]+ records\/s/) {
  steady = substr($0, RSTART, RLENGTH); sub(/.*5s: /, "", steady); sub(/ .*/, "", steady)
}
ratio == "?" && /^\(c\) ratio / && match(after($0, "(c) ratio "), /= [0-9.]+/) {
  ratio = substr(after($0, "(c) ratio "), RSTART + 2, RLENGTH - 2)
}
server == "?" && match($0, /CPU per acknowledged record: server [0-9.]+ us \(device event loops [0-9.]+ us\), redis [0-9.]+ us, simulator [0-9.]+ us/) {
  m = after(substr($0, RSTART, RLENGTH), "CPU per acknowledged record: server ")
  gsub(/ us \(device event loops | us\), redis | us, simulator | us$/, " ", m)
  split(m, f, " "); server = f[1]; loops = f[2]; redis = f[3]; sim = f[4]
}
/server transport: NIO/ { nio = 1 }
alloc == "?" && match($0, /allocation per stored record: [0-9,]+ B/) {
  alloc = substr($0, RSTART + 30, RLENGTH - 32)
}
offered == "?" && match($0, /= [0-9.]+ records\/s offered/) {
  offered = substr($0, RSTART + 2, RLENGTH - 2); sub(/ .*/, "", offered)
}
p99 == "?" && match($0, /simulator: ACK p99 [0-9.]+ ms after the first [0-9]+ s .*worst 5 s interval p99 [0-9.]+ ms/) {
  m = substr($0, RSTART)
  p99 = after(m, "simulator: ACK p99 "); sub(/ .*/, "", p99)
  sub(/^simulator: ACK p99 [0-9.]+ ms after the first [0-9]+ s /, "", m)
  match(m, /worst 5 s interval p99 [0-9.]+ ms/)   # the first one after (the pattern's lazy .*?)
  worst = substr(m, RSTART + 23, RLENGTH - 26)
}
machine == "?" && match($0, /together [0-9]+ % of the machine's [0-9]+ %\); per offered record: server [0-9.]+ us, redis [0-9.]+ us, simulator [0-9.]+ us/) {
  m = after(substr($0, RSTART, RLENGTH), "together ")
  machine = m; sub(/ .*/, "", machine)
  sub(/^[0-9]+ % of the machine's [0-9]+ %\); per offered record: server /, "", m)
  gsub(/ us, redis | us, simulator | us$/, " ", m)
  split(m, f, " "); d_server = f[1]; d_redis = f[2]; d_sim = f[3]
}
END {
  if (died) exit 1
  if (nio) when = when " NIO, not epoll"
  printf "| %s | %s | %s | **%s** | %s (%s) / %s / %s us | %s B | %s/s | **%s ms** | %s ms | %s %%; %s / %s / %s us |\n", \
    when, num(xadd), num(steady), ratio, server, loops, redis, sim, alloc, num(offered), p99, worst, machine, d_server, d_redis, d_sim
}
AWK
done
echo "logs: $base"
