#!/usr/bin/env bash
# The many-IMEI attack on the stream's room: one host (127.0.0.1) sprays records under many IMEIs while
# a consumer group has stalled, against a server with the production defaults of the limits against
# hostile hosts and the fair shares of the stream (TELEMETRY_FAIR_SHARE_FROM 0.8) and a small
# TELEMETRY_MAX_UNREAD, so the cap is reached within seconds. A few steady devices, each from a
# network of its own, send 5 records a second meanwhile. Prints the steady devices' slowest ACK and
# ACK percentiles, whether every steady record was acknowledged, and what the attacker got stored.
# Loopback only; bounded to the duration plus about 30 s.
#
# Usage: bench/many-imei-attack.sh [attacker-imeis=120] [max-unread=20000] [duration=40s]
# Env:   SERVER_JAR=path  another build of the server (before/after)
# Needs redis-server and redis-cli on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

imeis=${1:-120}
max_unread=${2:-20000}
duration=${3:-40s}
[[ $duration =~ ^([0-9]+)s$ ]] && (( ${BASH_REMATCH[1]} >= 20 )) || {
  echo "many-imei-attack: duration must be whole seconds, at least 20s, got $duration" >&2; exit 2; }
steady_secs=$(( ${BASH_REMATCH[1]} - 10 ))
redis_port=${REDIS_PORT:-16398}
tcp_port=${TCP_PORT:-15132}
http_port=${HTTP_PORT:-18132}
host=127.0.0.1

bench_name=many-imei-attack
source bench/lib.sh
bench_require_tools redis-server redis-cli curl java awk
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_build_jars

out=${ATTACK_OUT:-$(mktemp -d /tmp/many-imei-attack.XXXXXX)}
mkdir -p "$out"
echo "== many-IMEI attack $(date -u +%FT%TZ): $imeis IMEIs from 127.0.0.1, 10 records every 100 ms each," \
  "against TELEMETRY_MAX_UNREAD=$max_unread with a stalled group; 5 steady devices from 5 other networks;" \
  "server $(basename "$server_jar"); logs in $out"
echo "   load: $(cut -d' ' -f1-3 /proc/loadavg)"

bench_start_redis
# The stalled group: it never reads, so everything stored counts against the cap.
redis-cli -h "$host" -p "$redis_port" XGROUP CREATE telemetry stalled '$' MKSTREAM >/dev/null
# lib.sh turns the limits against one host off for load tests; here they are the defaults again.
bench_start_server attack TELEMETRY_MAX_UNREAD="$max_unread" \
  MAX_NEW_IMEIS_PER_ADDRESS_PER_MINUTE=100 MAX_NEW_IMEIS_BURST_PER_ADDRESS=10000 \
  MAX_PRE_LOGIN_CONNECTIONS_PER_ADDRESS=100 MAX_PRE_LOGIN_CONNECTIONS=5000 \
  MAX_ACCEPTS_PER_NETWORK_PER_SECOND=200 DEVICE_RECORDS_PER_SECOND=50 DEVICE_BYTES_PER_SECOND=32768 \
  TELEMETRY_FAIR_SHARE_FROM=0.8

java -jar "$sim_jar" --host "$host" --port "$tcp_port" --devices "$imeis" --interval 100ms --records 10 \
  --duration "$duration" --start-spread 1s --progress 5s --source-addresses 127.0.0.1 --drain 1s \
  --imei-base 35209308800000 > "$out/attacker.log" 2>&1 &
attacker=$!
pids+=("$attacker")
# The steady devices start once the attack has filled the room up to the cap.
for _ in $(seq 100); do
  (( $(redis-cli -h "$host" -p "$redis_port" XLEN telemetry) >= max_unread * 8 / 10 )) && break
  sleep 0.1
done
echo "   stream at $(redis-cli -h "$host" -p "$redis_port" XLEN telemetry) entries when the steady devices start"
java -jar "$sim_jar" --host "$host" --port "$tcp_port" --devices 5 --interval 1s --records 5 \
  --duration "${steady_secs}s" --start-spread 1s --progress 0 --drain 10s \
  --source-addresses 127.0.2.1,127.0.3.1,127.0.4.1,127.0.5.1,127.0.6.1 \
  --imei-base 35209308700000 > "$out/steady.log" 2>&1 || true
wait "$attacker" || true

echo "steady devices (5, from 5 other networks):"
grep -E '^(ack latency|records|reconnects|result) ' "$out/steady.log" | sed 's/^/  /'
echo "attacker ($imeis IMEIs from 127.0.0.1):"
grep -E '^(records|reconnects) ' "$out/attacker.log" | sed 's/^/  /'
echo "stream: $(redis-cli -h "$host" -p "$redis_port" XLEN telemetry) entries (cap $max_unread)"
echo "server: packets held by reason:" \
  "$(curl -fs "http://$host:$http_port/metrics" | awk '/^teltonika_telemetry_held_reason_total\{/ {
      match($0, /reason="[^"]*"/); printf "%s=%d ", substr($0, RSTART + 8, RLENGTH - 9), $NF } END { print "" }')"
