#!/usr/bin/env bash
# A fresh replica in front of a reconnecting fleet (issue 45). Each run starts a fresh Redis and a new
# server process (production defaults of the limits against hostile hosts, as cutover-benchmark.sh);
# once it is ready, N devices from 10 source networks (127.0.40-49.0/24) log in over 5 s and send one
# packet of 5 records a second. Prints, per run: the time from the server's start to ready, the ACK
# p99 of every 10 s window (the first holds the logins and the JIT's first work), the reconnects,
# whether every record was acknowledged, and when the last device had its first ACK.
# Loopback only; each run is bounded to the duration plus about 45 s.
#
# Usage: bench/warm-start-benchmark.sh [runs=3] [devices=2000] [duration=60s]
# Env:   SERVER_JAR=path          another build of the server (before/after)
#        SERVER_JAVA_OPTS="..."   JVM options for the server (e.g. -XX:SharedArchiveFile=...)
#        SERVER_ENV="A=1 B=2"     more settings for the server (e.g. WARM_UP_PACKETS=0 for "before")
# Needs redis-server and redis-cli on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
devices=${2:-2000}
duration=${3:-60s}
(( runs >= 1 && runs <= 10 )) || { echo "warm-start-benchmark: runs must be 1..10, got $runs" >&2; exit 2; }
redis_port=${REDIS_PORT:-16396}
tcp_port=${TCP_PORT:-15133}
http_port=${HTTP_PORT:-18133}
host=127.0.0.1

bench_name=warm-start
source bench/lib.sh
bench_require_tools redis-server redis-cli curl java awk
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_open_files $((devices + 1000))
bench_build_jars

base=${WARM_START_OUT:-$(mktemp -d /tmp/warm-start.XXXXXX)}
mkdir -p "$base"
sources=$(seq -s, -f '127.0.%g.1' 40 49)
read -r -a server_env <<< "${SERVER_ENV:-}"
read -r -a java_opts <<< "${SERVER_JAVA_OPTS:-}"
echo "== warm start $(date -u +%FT%TZ): $runs runs; each a new server, then $devices devices from 10 networks" \
  "over 5 s, 5 records a second each for $duration; server $(basename "$server_jar") ${SERVER_ENV:-}" \
  "${SERVER_JAVA_OPTS:-}; logs in $base"

for ((run = 1; run <= runs; run++)); do
  out="$base/run-$run"
  mkdir -p "$out"
  bench_wait_for_quiet >/dev/null
  bench_start_redis
  started=$(date +%s%N)
  bench_start_server "warm-start-$run" MAX_CONNECTIONS=$((devices + 500)) \
    MAX_NEW_IMEIS_PER_ADDRESS_PER_MINUTE=100 MAX_NEW_IMEIS_BURST_PER_ADDRESS=10000 \
    MAX_PRE_LOGIN_CONNECTIONS_PER_ADDRESS=100 MAX_PRE_LOGIN_CONNECTIONS=5000 \
    MAX_ACCEPTS_PER_NETWORK_PER_SECOND=200 DEVICE_RECORDS_PER_SECOND=50 DEVICE_BYTES_PER_SECOND=32768 \
    TELEMETRY_FAIR_SHARE_FROM=0.8 "${server_env[@]}" -- "${java_opts[@]}"
  ready_ms=$(( ($(date +%s%N) - started) / 1000000 ))
  java -jar "$sim_jar" --host "$host" --port "$tcp_port" --devices "$devices" --interval 1s --records 5 \
    --duration "$duration" --start-spread 5s --progress 10s --source-addresses "$sources" \
    --imei-base 35209308600000 > "$out/simulator.log" 2>&1 || true
  echo "run $run: start to ready ${ready_ms} ms (polled every 100 ms)$(grep -o 'warm-up: .*' "$out/server.log" | head -1 | sed 's/^/; /')"
  LC_ALL=C awk '
    /^\[ *[0-9.]+s\] devices/ {
      match($0, /^\[ *[0-9.]+s\]/); t = substr($0, 2, RLENGTH - 3) + 0
      match($0, / p99 [0-9.]+ ms/); p = substr($0, RSTART + 5, RLENGTH - 8)
      windows = windows sprintf("%s%.0f s: %s ms", windows == "" ? "" : ", ", t, p)
    }
    /^(reconnects|records|first acks|result) / { summary = summary "\n  " $0 }
    END { print "  ACK p99 per 10 s window: " windows summary }' "$out/simulator.log"
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  pids=()
done
