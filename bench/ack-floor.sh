#!/usr/bin/env bash
# The transport's floor: CPU per record of a server that only answers (AckOnlyServer in the
# benchmarks module: the login with 0x01, each AVL frame with its record count, at once, storing
# nothing), under the same simulator loads as bench/e2e-benchmark.sh's (b) and (d). No server that
# reads each packet from a TCP socket and writes its ACK back can spend less CPU per record on
# this machine than this, whatever its codec and writer do; compare it with e2e-benchmark's
# "CPU per acknowledged record: server". Loopback only; about 1 minute.
#
# FORWARD=1: the floor with the Redis leg too. A redis-server on REDIS_PORT, and each frame answered
# only once Redis answered a PUBLISH (to no subscriber, about an XADD's bytes) per record, sent per
# event-loop round on the loop's own connection: the real server's traffic to Redis without its work.
#
# Usage: [FORWARD=1] bench/ack-floor.sh [transport=epoll|io_uring] [devices for the open loop=5000]
set -euo pipefail
cd "$(dirname "$0")/.."

transport=${1:-epoll}
devices=${2:-5000}
host=127.0.0.1
port=${TCP_PORT:-15129}
bench_name=ack-floor
source bench/lib.sh
bench_require_tools java python3
redis_port=${REDIS_PORT:-16899}
bench_require_free_ports "$host" "$port"
[[ -z ${FORWARD:-} ]] || bench_require_free_ports "$host" "$redis_port"
bench_open_files $((devices + 1000))
floor_jar=benchmarks/target/benchmarks.jar
[[ -f $floor_jar ]] || mvn -B -q -ntp -DskipTests package -pl benchmarks -am
bench_build_jars
out=${FLOOR_OUT:-$(mktemp -d /tmp/ack-floor.XXXXXX)}
mkdir -p "$out"

echo "== ack floor $(date -u +%FT%TZ), $(nproc) cores, $transport${FORWARD:+, forwarding to Redis}, logs in $out"
bench_wait_for_quiet
forward=()
if [[ -n ${FORWARD:-} ]]; then
  bench_start_redis
  forward=("$redis_port")
fi
java -cp "$floor_jar" org.fleetpipe.teltonika.benchmarks.AckOnlyServer "$host" "$port" "$transport" "$(nproc)" \
  "${forward[@]}" > "$out/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 100); do (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && break; sleep 0.1; done

sim() {
  java -jar "$sim_jar" --host "$host" --port "$port" --records 10 --progress 0 "$@"
}
hz=$(getconf CLK_TCK)
ticks() { awk '{sub(/^[^)]*\) /, ""); print $12 + $13, $13}' "/proc/$1/stat"; }

# One load: the server's CPU over 10 s of its steady part (after the simulator's 5 s warm-up and 3 s more).
measure() {  # label simulator-args...
  local label=$1 t0 k0 t1 k1 start end rate
  shift
  sim "$@" --warmup 5s --imei-base 35209308300000 > "$out/$label.log" 2>&1 &
  local sim_pid=$!
  pids+=("$sim_pid")
  sleep 8
  read -r t0 k0 < <(ticks "$server_pid")
  start=$(date +%s.%N)
  sleep 10
  read -r t1 k1 < <(ticks "$server_pid")
  end=$(date +%s.%N)
  wait "$sim_pid" || { echo "simulator failed:"; tail -5 "$out/$label.log"; exit 1; }
  rate=$(awk '/^steady/ {print $6}' "$out/$label.log")
  python3 - "$label" "$rate" "$t0" "$k0" "$t1" "$k1" "$start" "$end" "$hz" <<'PY'
import sys
label, rate = sys.argv[1], float(sys.argv[2])
t0, k0, t1, k1 = (int(x) for x in sys.argv[3:7])
secs, hz = float(sys.argv[8]) - float(sys.argv[7]), int(sys.argv[9])
cpu, kernel = (t1 - t0) / hz / secs, (k1 - k0) / hz / secs
print(f"  {label}: {rate:,.0f} records/s acknowledged; floor server CPU {100 * cpu:.0f} % of a core "
      f"(kernel {100 * kernel:.0f} %) = {1e6 * cpu / rate:.2f} us per record ({1e6 * kernel / rate:.2f} us kernel)")
PY
  sed -n 's/^steady *after the first 5s: [^,]*, /    /p' "$out/$label.log"
}

# The JIT's first minutes would count otherwise.
sim --load --connections 200 --duration 5s --imei-base 35209308100000 > "$out/warmup.log" 2>&1 || true
measure "(b) closed loop, 200 connections x 10 records" --load --connections 200 --duration 20s
measure "open loop at about (b)'s real rate, 200 devices x 10 records every 10ms" --devices 200 --interval 10ms \
  --start-spread 1s --duration 20s
measure "(d) open loop, $devices devices x 10 records every 500ms" --devices "$devices" --interval 500ms \
  --start-spread 3s --duration 20s
