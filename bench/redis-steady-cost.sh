#!/usr/bin/env bash
# Redis's and the server's CPU per record in a steady window (from 25 s to 45 s of a 50 s load,
# after the login herd), with the commands Redis ran in it (INFO commandstats): records per EXEC,
# commands per record, records per read. Issue 34: what an open loop costs Redis against a closed
# one at the same device count, and what TELEMETRY_BLOCK_LINGER and deduplication change.
# Loopback only; about 80 s.
#
# Usage: bench/redis-steady-cost.sh <devices|closedN> [linger=0s] [dedup window=1h]
#   5000        the open loop: 5,000 devices x 10 records every 500 ms (100,000 records/s)
#   closed5000  the closed loop: 5,000 connections, each sending its next packet on the ACK
set -euo pipefail
cd "$(dirname "$0")/.."

load=${1:?usage: bench/redis-steady-cost.sh <devices|closedN> [linger] [dedup window]}
linger=${2:-0s}
dedup=${3:-1h}
host=127.0.0.1
redis_port=${REDIS_PORT:-16499}
tcp_port=${TCP_PORT:-15227}
http_port=${HTTP_PORT:-18227}
bench_name=redis-steady-cost
source bench/lib.sh
bench_require_tools java redis-server redis-cli awk
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_open_files $(( ${load#closed} + 1000 ))
bench_build_jars
out=$(mktemp -d /tmp/redis-steady-cost.XXXXXX)

echo "== redis steady cost $(date -u +%FT%TZ), $(nproc) cores, load $load, linger $linger, dedup $dedup${SERVER_ENV:+, $SERVER_ENV}, logs in $out"
bench_wait_for_quiet
bench_start_redis
# SERVER_ENV: more settings for the server, such as IO_THREADS=8 (many event loops on few cores).
# shellcheck disable=SC2086
bench_start_server steady-cost DEDUP_WINDOW="$dedup" TELEMETRY_BLOCK_LINGER="$linger" ${SERVER_ENV:-}
sim() { java -jar "$sim_jar" --host "$host" --port "$tcp_port" --records 10 --progress 0 "$@"; }
sim --load --connections 200 --duration 5s --imei-base 35209308100000 > "$out/warmup.log" 2>&1 || true
if [[ $load == closed* ]]; then
  sim --load --connections "${load#closed}" --duration 50s --warmup 25s --progress 5s \
    --imei-base 35209308200000 > "$out/load.log" 2>&1 &
else
  sim --devices "$load" --interval 500ms --duration 50s --start-spread 3s --warmup 25s --progress 5s \
    --imei-base 35209308200000 > "$out/load.log" 2>&1 &
fi
sim_pid=$!
pids+=("$sim_pid")
sleep 25
reading() {  # n: Redis's and the server's CPU ticks, Redis's counters, the time
  bench_process_ticks "$redis_pid" > "$out/redis-ticks-$1"
  bench_wakeups "$redis_pid" > "$out/redis-wakeups-$1"
  bench_preemptions "$redis_pid" > "$out/redis-preemptions-$1"
  bench_kernel_ticks "$redis_pid" > "$out/redis-kernel-$1"
  bench_page_faults "$redis_pid" > "$out/redis-faults-$1"
  redis-cli -h "$host" -p "$redis_port" INFO memory | awk -F: '/^used_memory:/ {print $2 + 0}' > "$out/redis-memory-$1"
  bench_process_ticks "$server_pid" > "$out/server-ticks-$1"
  redis-cli -h "$host" -p "$redis_port" INFO commandstats > "$out/commandstats-$1"
  redis-cli -h "$host" -p "$redis_port" INFO stats > "$out/stats-$1"
  date +%s.%N > "$out/time-$1"
}
reading 0
sleep 20
reading 1
wait "$sim_pid" || true
bench_awk "$out" "$(getconf CLK_TCK)" "$linger" "$load" <<'AWK'
function one(file,    line) { getline line < file; close(file); return line + 0 }
function count(file, pattern,    line, v) {  # the number after pattern in an INFO section, 0 if absent
  v = 0
  while ((getline line < file) > 0) {
    if (index(line, pattern) == 1) { line = substr(line, length(pattern) + 1); sub(/[^0-9].*/, "", line); v = line + 0 }
  }
  close(file); return v
}
function delta(name, pattern) { return count(dir "/" name "-1", pattern) - count(dir "/" name "-0", pattern) }
BEGIN {
  dir = ARGV[1]; hz = ARGV[2]
  seconds = one(dir "/time-1") - one(dir "/time-0")
  xadd = delta("commandstats", "cmdstat_xadd:calls=")
  exec_ = delta("commandstats", "cmdstat_exec:calls=")
  reads = delta("stats", "total_reads_processed:")
  commands = delta("stats", "total_commands_processed:")
  redis = (one(dir "/redis-ticks-1") - one(dir "/redis-ticks-0")) / hz
  wakeups = one(dir "/redis-wakeups-1") - one(dir "/redis-wakeups-0")
  kernel = (one(dir "/redis-kernel-1") - one(dir "/redis-kernel-0")) / hz
  faults = one(dir "/redis-faults-1") - one(dir "/redis-faults-0")
  grown = one(dir "/redis-memory-1") - one(dir "/redis-memory-0")
  preempted = one(dir "/redis-preemptions-1") - one(dir "/redis-preemptions-0")
  server = (one(dir "/server-ticks-1") - one(dir "/server-ticks-0")) / hz
  if (xadd <= 0) die("no XADD in the window: see " dir "/load.log and server.log")
  printf "load %s, linger %s: %s records/s stored; Redis %.0f %% of a core = %.2f us per record (kernel %.2f), server %.2f us; " \
    "records per EXEC %s, commands per record %.2f, records per read %.1f, Redis wake-ups per 1,000 records %.1f, preemptions %.1f, page faults %.1f; its memory grew %.0f B per record\n", ARGV[4], ARGV[3],
    thousands(sprintf("%.0f", xadd / seconds)), 100 * redis / seconds, 1e6 * redis / xadd, 1e6 * kernel / xadd, 1e6 * server / xadd,
    (exec_ > 0 ? sprintf("%.1f", xadd / exec_) : "-"), commands / xadd, (reads > 0 ? xadd / reads : 0), 1000 * wakeups / xadd, 1000 * preempted / xadd, 1000 * faults / xadd, grown / xadd
}
AWK
grep -E "^steady" "$out/load.log" || true
