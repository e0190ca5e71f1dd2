#!/usr/bin/env bash
# Connection scale: N idle, logged-in device connections on one server instance. Reports the
# login rate, and the server's heap, direct memory and RSS per connection (each measured after a
# full GC, minus the same measure before any device connected).
#
# Each simulated device connects (spread over --start-spread), logs in, sends one packet of one
# record, and then stays idle (its next packet would be due after an hour). Connections come
# from several 127.0.0.x source addresses, so ephemeral ports never run out.
#
# The goal is 50,000 connections; a process can hold only as many as its open-file limit allows,
# and the script raises the soft limit to the hard one (the hard limit needs CAP_SYS_RESOURCE).
# The default N is what fits under that limit for the server and for the simulator.
#
# Usage: bench/connection-scale.sh [connections] [start-spread=10s]
# Env:   JFR=1  record the server with JFR while the devices log in and print its hottest frames
# Needs redis-server and redis-cli on the PATH. Bounded to about 3 minutes; stops what it started.
set -euo pipefail
cd "$(dirname "$0")/.."

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fd_limit=$(ulimit -n)
default_n=$(( fd_limit >= 52000 ? 50000 : fd_limit - 1000 ))
n=${1:-$default_n}
spread=${2:-10s}
if (( n + 500 > fd_limit )); then
  echo "connection-scale: $n connections need more than the open-file limit $fd_limit" >&2
  exit 2
fi

redis_port=${REDIS_PORT:-16398}
tcp_port=${TCP_PORT:-15128}
http_port=${HTTP_PORT:-18128}
host=127.0.0.1
sources=127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5

bench_name=connection-scale
source bench/lib.sh
bench_require_tools redis-server redis-cli curl java jcmd python3
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_build_jars

out=${SCALE_OUT:-$(mktemp -d /tmp/connection-scale.XXXXXX)}
mkdir -p "$out"

echo "== connection scale $(date -u +%FT%TZ): $n connections, open-file limit $fd_limit, logs in $out"
echo "   load: $(cut -d' ' -f1-3 /proc/loadavg)"

bench_start_redis --maxclients 1000
bench_start_server scale-bench MAX_CONNECTIONS=$((n + 100)) -- -XX:NativeMemoryTracking=summary

metric() {  # sum of a /metrics series whose line starts with $1
  curl -fs "http://$host:$http_port/metrics" | awk -v m="$1" 'index($0, m) == 1 {s += $NF} END {printf "%.0f", s}'
}
# Heap used after a full GC, direct memory, RSS (bytes). Netty allocates its direct buffers
# without the JDK's Cleaner, so the JVM's buffer-pool metric misses them; native memory
# tracking counts them under "Other" (Unsafe.allocateMemory).
measure() {
  jcmd "$server_pid" GC.run >/dev/null
  sleep 1
  local heap direct rss
  heap=$(metric 'jvm_memory_used_bytes{area="heap"')
  direct=$(jcmd "$server_pid" VM.native_memory summary | awk -F'committed=' '/- +Other \(/ {sub(/KB.*/, "", $2); print $2 * 1024}')
  rss=$(( $(awk '/^VmRSS/ {print $2}' "/proc/$server_pid/status") * 1024 ))
  echo "$heap ${direct:-0} $rss"
}
read -r heap0 direct0 rss0 < <(measure)
jcmd "$server_pid" GC.heap_info > "$out/heap-before.txt"

if [[ -n ${JFR:-} ]]; then
  jcmd "$server_pid" JFR.start name=logins settings=profile filename="$out/logins.jfr" >/dev/null
fi
overflows() { awk '/^TcpExt:/ {if (!h) {for (i = 1; i <= NF; i++) if ($i == "ListenOverflows") c = i; h = 1} else print $c}' /proc/net/netstat; }
overflows_before=$(overflows)
server_ticks0=$(bench_process_ticks "$server_pid")
redis_ticks0=$(bench_process_ticks "$redis_pid")
sim_duration=150s
java -Xss256k -jar "$sim_jar" --host "$host" --port "$tcp_port" --devices "$n" --interval 1h --records 1 \
  --duration "$sim_duration" --start-spread "$spread" --source-addresses "$sources" --ack-timeout 60s \
  --progress 5s --drain 0 --imei-base 35209308300000 > "$out/simulator.log" 2>&1 &
sim_pid=$!
pids+=("$sim_pid")

# Login rate: poll the server's active connection count until all are in (at most 120 s).
start=$(date +%s.%N)
first="" last=""
for _ in $(seq 1200); do
  active=$(metric 'teltonika_connections_active')
  now=$(date +%s.%N)
  [[ -z $first && $active -gt 0 ]] && first=$now
  if (( active >= n )); then last=$now; break; fi
  kill -0 "$sim_pid" 2>/dev/null || { echo "simulator exited:"; tail -15 "$out/simulator.log"; exit 1; }
  sleep 0.1
done
if [[ -z $last ]]; then
  echo "only $active of $n connections after 120 s"; tail -5 "$out/simulator.log"; exit 1
fi
if [[ -n ${JFR:-} ]]; then
  jcmd "$server_pid" JFR.stop name=logins >/dev/null
fi
overflows_after=$(overflows)
server_ticks1=$(bench_process_ticks "$server_pid")
redis_ticks1=$(bench_process_ticks "$redis_pid")
sleep 3   # let the last first packets be acknowledged
records=$(metric 'teltonika_records_written_total')
read -r heap1 direct1 rss1 < <(measure)
jcmd "$server_pid" GC.heap_info > "$out/heap-after.txt"
jcmd "$server_pid" GC.class_histogram > "$out/histogram.txt" 2>/dev/null || true

python3 - "$n" "$spread" "$start" "$first" "$last" "$heap0" "$heap1" "$direct0" "$direct1" "$rss0" "$rss1" "$records" \
  "$((server_ticks1 - server_ticks0))" "$((redis_ticks1 - redis_ticks0))" "$(getconf CLK_TCK)" <<'PY'
import sys
n = int(sys.argv[1]); spread = sys.argv[2]
start, first, last = map(float, sys.argv[3:6])
heap0, heap1, d0, d1, r0, r1 = map(int, sys.argv[6:12])
print(f"connections   {n:,} logged in and idle (one record each; records written: {int(sys.argv[12]):,})")
print(f"login rate    {n / (last - first):,.0f} /s   ({last - first:.1f} s from the first to the last login; offered over {spread})")
hz = int(sys.argv[15])
print(f"CPU per login server {1e6 * int(sys.argv[13]) / hz / n:.0f} us, redis {1e6 * int(sys.argv[14]) / hz / n:.0f} us"
      " (user + system, simulator start to last login, with this script's /metrics polling every 100 ms;"
      " in a fresh server most of it is the JIT compiling the login path: bench/login-waves.sh splits it)")
print(f"heap          {heap0 / 2**20:,.1f} MiB -> {heap1 / 2**20:,.1f} MiB after a full GC: {(heap1 - heap0) / n / 1024:.2f} KiB per connection (target < 10 KiB)")
print(f"direct (NMT Other) {d0 / 2**20:,.1f} MiB -> {d1 / 2**20:,.1f} MiB: {(d1 - d0) / n / 1024:.2f} KiB per connection")
print(f"RSS           {r0 / 2**20:,.0f} MiB -> {r1 / 2**20:,.0f} MiB: {(r1 - r0) / n / 1024:.1f} KiB per connection (heap not returned to the OS counts here)")
PY
echo "listen queue overflows while logging in: $((overflows_after - overflows_before)) (TcpExtListenOverflows, whole machine; each dropped SYN is retried after 1 s)"
echo "top of the heap histogram (after):"
sed -n '3,15p' "$out/histogram.txt"
echo "   load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -n ${JFR:-} && -f $out/logins.jfr ]]; then
  echo "JFR while the devices logged in: $out/logins.jfr"
  jfr print --stack-depth 64 --events jdk.ExecutionSample,jdk.ObjectAllocationSample "$out/logins.jfr" \
    > "$out/logins.samples.txt"
  python3 bench/jfr-top.py "$out/logins.samples.txt" 15
fi
