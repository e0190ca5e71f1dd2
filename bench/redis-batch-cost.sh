#!/usr/bin/env bash
# What Redis pays per XADD as a function of how many commands arrive per read: redis-benchmark's
# pipelined XADD of the entry e2e-benchmark writes (bench_entry), for 2 and 16 connections and
# -P 12..192 (a MULTI block of 16 packets x 10 records is about 160 commands). Redis's own CPU
# (from /proc) over the XADDs sent. Issue 34: whether larger blocks alone would close the gap
# between the closed loop (b) and the open loop (d). Loopback only; about 1 minute.
#
# Usage: bench/redis-batch-cost.sh [xadds per point=400000]
set -euo pipefail
cd "$(dirname "$0")/.."

n=${1:-400000}
host=127.0.0.1
redis_port=${REDIS_PORT:-16599}
bench_name=redis-batch-cost
source bench/lib.sh
bench_require_tools redis-server redis-benchmark awk
bench_require_free_ports "$host" "$redis_port"
out=$(mktemp -d /tmp/redis-batch-cost.XXXXXX)

echo "== redis batch cost $(date -u +%FT%TZ), $(nproc) cores, $(redis-server --version | cut -d' ' -f3), logs in $out"
bench_wait_for_quiet
bench_start_redis
hz=$(getconf CLK_TCK)
for c in 2 16; do
  for P in 12 24 48 96 192; do
    before=$(bench_process_ticks "$redis_pid")
    redis-benchmark -h "$host" -p "$redis_port" -c "$c" -P "$P" -n "$n" --csv \
      XADD telemetry-bench MAXLEN '~' 1000000 '*' "${bench_entry[@]}" > "$out/c$c-P$P.csv"
    after=$(bench_process_ticks "$redis_pid")
    bench_awk -v c="$c" -v P="$P" -v n="$n" -v t=$((after - before)) -v hz="$hz" \
      -v rps="$(bench_csv_rps "$out/c$c-P$P.csv")" <<'AWK'
BEGIN { printf "c=%-3d P=%-4d %9s XADD/s   Redis %.2f us CPU per XADD\n", c, P, thousands(rps), 1e6 * t / hz / n }
AWK
  done
done
