#!/usr/bin/env bash
# A cutover behind one carrier NAT pool: N devices new to the fleet (a migration from another
# server: none of them is known) log in from one /24 (127.0.7.1-250, in turn) within the given
# spread and send 5 records a second each, against a server with the production defaults of the
# limits against hostile hosts (the new-IMEI budget, accept and pre-login shares per network, the
# per-device rate budgets, the fair shares of the stream). Prints the time until all of them are
# connected, the reconnects (refused logins, closed accepts), and the ACK p50/p99 over the run.
# Loopback only; bounded to the duration plus about 30 s.
#
# Usage: bench/cutover-benchmark.sh [devices=10000] [start-spread=10s] [duration=60s]
# Env:   CONSUMER=1  a consumer group (the reference consumer, group "soak", from the stream's start)
#                    reads everything meanwhile; prints what it delivered against what was acknowledged
#        SERVER_JAR=path  another build of the server (before/after)
# Needs redis-server and redis-cli on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

devices=${1:-10000}
spread=${2:-10s}
duration=${3:-60s}
redis_port=${REDIS_PORT:-16397}
tcp_port=${TCP_PORT:-15131}
http_port=${HTTP_PORT:-18131}
host=127.0.0.1

bench_name=cutover
source bench/lib.sh
bench_require_tools redis-server redis-cli curl java python3
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_open_files $((devices + 1000))
bench_build_jars
consumer_jar=reference-consumer/target/reference-consumer.jar
if [[ ${CONSUMER:-0} == 1 && ! -f $consumer_jar ]]; then
  mvn -B -q -ntp -DskipTests package -pl reference-consumer -am
fi

out=${CUTOVER_OUT:-$(mktemp -d /tmp/cutover.XXXXXX)}
mkdir -p "$out"
echo "== cutover $(date -u +%FT%TZ): $devices new devices from 127.0.7.0/24 over $spread, 5 records/s each" \
  "for $duration; logs in $out"
echo "   load: $(cut -d' ' -f1-3 /proc/loadavg)"

bench_start_redis
# lib.sh turns the limits against one host off for load tests; a cutover is what they must let
# through, so they are back at reference.conf's defaults here.
bench_start_server cutover MAX_CONNECTIONS=$((devices + 500)) \
  MAX_NEW_IMEIS_PER_ADDRESS_PER_MINUTE=100 MAX_NEW_IMEIS_BURST_PER_ADDRESS=10000 \
  MAX_PRE_LOGIN_CONNECTIONS_PER_ADDRESS=100 MAX_PRE_LOGIN_CONNECTIONS=5000 \
  MAX_ACCEPTS_PER_NETWORK_PER_SECOND=200 DEVICE_RECORDS_PER_SECOND=50 DEVICE_BYTES_PER_SECOND=32768 \
  TELEMETRY_FAIR_SHARE_FROM=0.8

if [[ ${CONSUMER:-0} == 1 ]]; then
  # Stops once nothing new arrived for 15 s, after the devices' last records.
  java -jar "$consumer_jar" --redis-url "redis://$host:$redis_port" --group soak --from 0 --count 1000 \
    --block 1s --progress 10s --until-idle 15s > "$out/consumer.log" 2>&1 &
  consumer_pid=$!
  pids+=("$consumer_pid")
fi

sources=$(seq -s, -f '127.0.7.%g' 1 250)
java -jar "$sim_jar" --host "$host" --port "$tcp_port" --devices "$devices" --interval 1s --records 5 \
  --duration "$duration" --start-spread "$spread" --progress 500ms --source-addresses "$sources" \
  --imei-base 35209308900000 > "$out/simulator.log" 2>&1 || true

python3 - "$out/simulator.log" "$devices" <<'PY'
import re, sys
log, devices = sys.argv[1], int(sys.argv[2])
all_in = None
for line in open(log):
    m = re.match(r"^\[\s*([\d.]+)s\] devices (\d+) connected (\d+)", line)
    if m and all_in is None and int(m.group(3)) >= devices:
        all_in = float(m.group(1))
summary = {}
for line in open(log):
    m = re.match(r"^(reconnects|ack latency|records|result)\s+(.*)$", line.rstrip())
    if m:
        summary[m.group(1)] = m.group(2)
print(f"all {devices} connected after: " + (f"{all_in:.1f} s" if all_in is not None else "never (see the log)"))
print("reconnects:   " + summary.get("reconnects", "? (no summary; see the log)"))
print("ack latency:  " + summary.get("ack latency", "?"))
print("records:      " + summary.get("records", "?"))
print("result:       " + summary.get("result", "?"))
PY
echo "server: logins refused for new-imei-limit:" \
  "$(curl -fs "http://$host:$http_port/metrics" | awk '/^teltonika_logins_total\{.*new-imei-limit/ {s += $NF} END {print s + 0}')"
if [[ ${CONSUMER:-0} == 1 ]]; then
  for _ in $(seq 120); do kill -0 "$consumer_pid" 2>/dev/null || break; sleep 1; done
  echo "consumer group soak: $(grep '^done:' "$out/consumer.log" | sed 's/^done: //' || echo 'no done line; see the log')"
  echo "  group: $(redis-cli -h "$host" -p "$redis_port" XINFO GROUPS telemetry | paste -sd' ' | cut -c1-200)"
fi
