#!/usr/bin/env bash
# What the load generator itself costs: CPU of the device simulator per acknowledged record, in its
# closed-loop load mode and in the open-loop mode that e2e-benchmark.sh's (d) uses, against the
# server jar and a redis-server on loopback. The simulator shares the cores with both, so whatever
# it burns is taken from what it measures.
#
# Prints, per phase, the simulator's CPU per acknowledged record over the whole run (its JVM start
# included, as e2e-benchmark.sh counts it) and over the steady part only (sampled from /proc after
# the warm-up and at the end of sending).
#
# Usage: bench/simulator-cost.sh [connections=200] [records=10] [open-devices=6000]
# Env:   SIM_JAR=path  the simulator jar to measure (default device-simulator/target/device-simulator.jar),
#                      to compare two builds back to back against the same server
#        E2E_OUT=dir   keep logs there (default: a temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."

connections=${1:-200}
records=${2:-10}
open_devices=${3:-6000}
closed_seconds=20 closed_warmup=5
open_seconds=30 open_warmup=10 open_interval_ms=500

redis_port=${REDIS_PORT:-16409}
tcp_port=${TCP_PORT:-15137}
http_port=${HTTP_PORT:-18137}
host=127.0.0.1

bench_name=simulator-cost
source bench/lib.sh
bench_require_tools redis-server redis-cli curl java python3
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_build_jars
sim_jar=${SIM_JAR:-$sim_jar}
bench_open_files $((open_devices * 2 + 1000))

out=${E2E_OUT:-$(mktemp -d /tmp/simulator-cost.XXXXXX)}
mkdir -p "$out"
echo "== simulator cost $(date -u +%FT%TZ), $(nproc) cores, simulator $sim_jar, logs in $out"

bench_start_redis --protected-mode yes
bench_start_server sim-cost DEDUP_WINDOW=1h
bench_wait_for_quiet

hz=$(getconf CLK_TCK)
# phase name seconds warmup simulator-options...: runs the simulator, prints its CPU per record.
phase() {
  local name=$1 seconds=$2 warmup=$3
  shift 3
  java -jar "$sim_jar" --host "$host" --port "$tcp_port" --duration "${seconds}s" --warmup "${warmup}s" \
    --progress 0 "$@" > "$out/$name.log" 2>&1 &
  local pid=$! started ticks_warm ticks_end ticks_last
  pids+=("$pid")
  started=$(date +%s.%N)
  sleep "$warmup"
  ticks_warm=$(bench_process_ticks "$pid")
  sleep $((seconds - warmup))
  ticks_end=$(bench_process_ticks "$pid")
  # The whole process's CPU, up to its exit: the last sample before /proc/<pid> goes away.
  ticks_last=$ticks_end
  while t=$(bench_process_ticks "$pid" 2>/dev/null); do ticks_last=$t; sleep 0.05; done
  wait "$pid" || { echo "simulator failed:"; tail -15 "$out/$name.log"; exit 1; }
  sed -n -e 's/^/    /' -e '/^    \(records\|resends\|ack latency\|steady\|result\)/p' "$out/$name.log"
  python3 - "$out/$name.log" "$hz" "$ticks_warm" "$ticks_end" "$ticks_last" "$((seconds - warmup))" "$name" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
hz, warm, end, last, steady_secs, name = int(sys.argv[2]), *map(int, sys.argv[3:7]), sys.argv[7]
acked = int(re.search(r"^records .* acknowledged (\d+),", log, re.M).group(1))
rate = float(re.search(r"^steady .*: ([\d.]+) records/s", log, re.M).group(1))
whole = 1e6 * last / hz / acked
steady = 1e6 * (end - warm) / hz / (rate * steady_secs)
print(f"  {name}: simulator CPU per acknowledged record {whole:.2f} us over the whole run "
      f"({last / hz:.1f} s CPU, {acked} records), {steady:.2f} us steady "
      f"({100.0 * (end - warm) / hz / steady_secs:.0f} % of a core at {rate:,.0f} records/s)")
PY
}

echo
echo "closed loop: $connections connections x $records records, ${closed_seconds}s, warm-up ${closed_warmup}s"
echo "  load: $(cut -d' ' -f1-3 /proc/loadavg)"
phase closed "$closed_seconds" "$closed_warmup" --load --connections "$connections" --records "$records" \
  --imei-base 35209308300000
echo
echo "open loop: $open_devices devices x $records records every ${open_interval_ms}ms," \
  "$((open_devices * records * 1000 / open_interval_ms)) records/s offered, ${open_seconds}s, warm-up ${open_warmup}s"
echo "  load: $(cut -d' ' -f1-3 /proc/loadavg)"
phase open "$open_seconds" "$open_warmup" --devices "$open_devices" --interval "${open_interval_ms}ms" \
  --records "$records" --start-spread 5s --imei-base 35209308400000
