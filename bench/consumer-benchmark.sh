#!/usr/bin/env bash
# What a consumer group reading at full speed costs the end-to-end rate, all on loopback:
#  (a) the sink's limit: pipelined XADD of one server-shaped entry (as in e2e-benchmark.sh);
#  (b) the closed-loop end-to-end rate with no consumer group (the stream trimmed by count);
#  (b') the same run with one consumer group whose reference consumer reads and acknowledges
#      everything as it arrives (the stream trimmed to the group's position once a second);
#  and for each: the ratio to (a), Redis's and the server's CPU, the stream's largest length, and
#  what the retention passes cost Redis (INFO commandstats of the commands trim-stream.lua calls).
# Needs redis-server, redis-benchmark and redis-cli on the PATH. About 90 s.
#
# Usage: bench/consumer-benchmark.sh [connections=200] [records=10] [duration=20s]
set -euo pipefail
cd "$(dirname "$0")/.."

connections=${1:-200}
records=${2:-10}
duration=${3:-20s}
redis_port=${REDIS_PORT:-16399}
tcp_port=${TCP_PORT:-15127}
http_port=${HTTP_PORT:-18127}
host=127.0.0.1

bench_name=consumer-benchmark
source bench/lib.sh
bench_require_tools redis-server redis-benchmark redis-cli curl java python3
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
consumer_jar=reference-consumer/target/reference-consumer.jar
bench_build_jars
[[ -f $consumer_jar ]] || mvn -B -q -ntp -DskipTests package -pl reference-consumer -am

out=${E2E_OUT:-$(mktemp -d /tmp/consumer-benchmark.XXXXXX)}
mkdir -p "$out"
echo "== consumer benchmark $(date -u +%FT%TZ), $(nproc) cores, logs in $out"

bench_start_redis --protected-mode yes
echo "redis        $(redis-server --version | cut -d' ' -f3) on $host:$redis_port"
rcli() { redis-cli -h "$host" -p "$redis_port" "$@"; }

echo
echo "(a) redis-benchmark: pipelined XADD MAXLEN ~ $bench_maxlen of one server-shaped entry"
bench_wait_for_quiet
bench_xadd_limit

bench_start_server consumer-bench
echo
echo "server       pid $server_pid, tcp $host:$tcp_port; warm-up 5 s"
sim() { java -jar "$sim_jar" --host "$host" --port "$tcp_port" "$@"; }
sim --load --connections "$connections" --records "$records" --duration 5s --progress 0 \
  --imei-base 35209308100000 > "$out/warmup.log" 2>&1 || true

# Redis's own accounting of the commands the retention script calls (scripts' inner commands are
# counted too), and of the consumer's.
stats() {
  rcli INFO commandstats | tr -d '\r' | python3 -c "
import re, sys
want = ('xtrim', 'xinfo', 'xpending', 'xrange', 'xrevrange', 'xlen', 'exists', 'evalsha', 'xreadgroup', 'xack', 'xautoclaim')
for line in sys.stdin:
    m = re.match(r'cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)', line)
    if m and m.group(1).split('|')[0] in want:
        print(m.group(1), m.group(2), m.group(3))"
}

run() {  # label [consumer-pid]: one closed-loop run, with what it cost
  local label=$1 consumer=${2:-} log=$out/$1.log secs started redis0 server0 consumer0=0 consumer_ticks=0
  rcli CONFIG RESETSTAT >/dev/null
  ( while sleep 0.5; do rcli XLEN telemetry; done ) > "$out/$label.xlen" 2>/dev/null &
  local sampler=$!
  redis0=$(bench_process_ticks "$redis_pid")
  server0=$(bench_process_ticks "$server_pid")
  [[ -z $consumer ]] || consumer0=$(bench_process_ticks "$consumer")
  started=$(date +%s.%N)
  sim --load --connections "$connections" --records "$records" --duration "$duration" --warmup 5s --progress 0 \
    > "$log" 2>&1 || { echo "simulator failed:"; tail -15 "$log"; exit 1; }
  secs=$(python3 -c "import time; print(time.time() - $started)")
  kill "$sampler" 2>/dev/null || true
  [[ -z $consumer ]] || consumer_ticks=$(( $(bench_process_ticks "$consumer") - consumer0 ))
  stats > "$out/$label.stats"
  python3 - "$label" "$(awk '/^steady/ {print $6}' "$log")" "$xadd_rps" "$secs" \
    "$(( $(bench_process_ticks "$redis_pid") - redis0 ))" "$(( $(bench_process_ticks "$server_pid") - server0 ))" \
    "$(getconf CLK_TCK)" "$out/$label.xlen" "$out/$label.stats" "$consumer_ticks" <<'PY'
import sys
label, rate, xadd, secs, redis, server, hz = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), \
    float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
consumer = int(sys.argv[10])
lengths = [int(l) for l in open(sys.argv[8]) if l.strip().isdigit()]
print(f"    {label:10s} steady {rate:10,.0f} records/s   ratio to XADD {rate / xadd:.2f}   "
      f"redis {100.0 * redis / hz / secs:4.0f} %  server {100.0 * server / hz / secs:4.0f} %"
      + (f"  consumer {100.0 * consumer / hz / secs:4.0f} %" if consumer else "") + " of a core   "
      f"stream length max {max(lengths or [0]):,}")
stats = {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in open(sys.argv[9]) if l.strip()}
retention = [c for c in stats if c.split('|')[0] in ('xtrim', 'xinfo', 'xpending', 'xrange', 'xrevrange', 'xlen', 'exists')]
usec = sum(stats[c][1] for c in retention)
print(f"               retention passes' commands: {usec / 1000 / secs:.2f} ms of Redis per second "
      f"({100.0 * usec / 1e6 / secs:.2f} % of its core): " + ", ".join(f"{c} {stats[c][0]}x {stats[c][1] / 1000:.0f} ms" for c in sorted(retention)))
consumer = [c for c in stats if c.split('|')[0] in ('xreadgroup', 'xack', 'xautoclaim')]
if consumer:
    print("               consumer's commands: " + ", ".join(f"{c} {stats[c][0]}x {stats[c][1] / 1000:.0f} ms" for c in sorted(consumer)))
if 'evalsha' in stats:
    print(f"               append-packets.lua (EVALSHA): {stats['evalsha'][1] / 1000 / secs:.0f} ms of Redis per second")
PY
}

echo
echo "(b) closed loop, $connections connections x $records records, $duration each"
run no-group
rcli XGROUP CREATE telemetry bench '$' MKSTREAM >/dev/null
java -jar "$consumer_jar" --redis-url "redis://$host:$redis_port" --group bench --count 1000 --block 1s \
  --progress 5s > "$out/consumer.log" 2>&1 &
consumer_pid=$!
pids+=("$consumer_pid")
run one-group "$consumer_pid"
kill "$consumer_pid"; wait "$consumer_pid" 2>/dev/null || true
echo "    consumer: $(grep '^done:' "$out/consumer.log" | sed 's/^done: //')"
echo "    group after the run: $(rcli XINFO GROUPS telemetry | tr '\n' ' ')"
echo
echo "logs in $out"
