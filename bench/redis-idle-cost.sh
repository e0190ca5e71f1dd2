#!/usr/bin/env bash
# Does Redis pay more per XADD when it is partly idle, with the same commands per read? Alternates
# redis-benchmark's pipelined XADD of the e2e entry at full speed (2 connections, -P 160: a full
# MULTI block's 160 commands per read) with PacedXaddClient (benchmarks module) sending the same
# pipeline of 160, 640 or 16 (a one-packet block, as on a host with many event loops) at a fixed
# fraction of the full rate just measured, from one connection. Redis's CPU per XADD from /proc over
# each point, and how often it went to sleep in epoll_wait and was woken (per 1,000 XADDs).
# Issue 34 item 1: how much of the open loop's higher cost per record is Redis's and this host's
# own, with neither the server nor the simulator running. Loopback only; about 2 minutes for 3 rounds.
#
# Usage: bench/redis-idle-cost.sh [rounds=3] [seconds per paced point=8]
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-3}
seconds=${2:-8}
host=127.0.0.1
redis_port=${REDIS_PORT:-16699}
bench_name=redis-idle-cost
source bench/lib.sh
bench_require_tools java redis-server redis-benchmark awk
bench_require_free_ports "$host" "$redis_port"
jar=benchmarks/target/benchmarks.jar
[[ -f $jar ]] || mvn -B -q -ntp -DskipTests package -pl benchmarks -am
out=$(mktemp -d /tmp/redis-idle-cost.XXXXXX)

echo "== redis idle cost $(date -u +%FT%TZ), $(nproc) cores, $(redis-server --version | cut -d' ' -f3), logs in $out"
bench_wait_for_quiet
bench_start_redis
hz=$(getconf CLK_TCK)
# point label command...: Redis's share of a core and its CPU per XADD while the command runs.
point() {
  local label=$1 before after t0 t1 sent w0 w1
  shift
  before=$(bench_process_ticks "$redis_pid"); t0=$(date +%s.%N); w0=$(bench_wakeups "$redis_pid")
  "$@" > "$out/last.log"
  after=$(bench_process_ticks "$redis_pid"); t1=$(date +%s.%N); w1=$(bench_wakeups "$redis_pid")
  # PacedXaddClient says how many it sent; redis-benchmark sends its -n.
  sent=$(awk '/^sent / {print $2}' "$out/last.log")
  LC_ALL=C awk -v label="$label" -v t=$((after - before)) -v hz="$hz" -v t0="$t0" -v t1="$t1" -v sent="${sent:-$n}" -v w=$((w1 - w0)) \
    "$(< bench/lib.awk)"$'\n''BEGIN { s = t1 - t0; printf "  %-34s %9s XADD/s  Redis %3.0f %% of a core, %.2f us per XADD, %5.1f wake-ups per 1,000\n", label, thousands(sprintf("%.0f", sent / s)), 100 * t / hz / s, 1e6 * t / hz / sent, 1000 * w / sent }'
}
paced() {  # fraction batch
  point "paced $1 of full, $2 per send" java -cp "$jar" org.fleetpipe.teltonika.benchmarks.PacedXaddClient \
    "$host" "$redis_port" "$(awk -v r="$full" -v f="$1" 'BEGIN { printf "%.0f", r * f }')" "$2" "$seconds" "${bench_entry[@]}"
}
for ((round = 1; round <= rounds; round++)); do
  echo "round $round"
  # Full speed for about as long as a paced point.
  n=$(( ${full:-200000} * seconds ))
  point "full speed (-c 2 -P 160)" redis-benchmark -h "$host" -p "$redis_port" -c 2 -P 160 -n "$n" --csv \
    XADD telemetry-bench MAXLEN '~' 1000000 '*' "${bench_entry[@]}"
  full=$(bench_csv_rps "$out/last.log"); full=${full%.*}
  paced 0.5 160
  paced 0.5 640
  paced 0.5 16
  paced 0.25 160
  redis-cli -h "$host" -p "$redis_port" DEL telemetry-bench > /dev/null
done
