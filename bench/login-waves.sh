#!/usr/bin/env bash
# What a login costs, cold and warm: waves of N devices log in to one server (each sends one
# record and stays idle until the wave ends), and for each wave the script prints how long the
# logins took and the CPU per login of each server thread group (io, Lettuce, accept, the JIT's
# compiler threads, GC) and of Redis. The first waves include the JIT compiling the login path;
# the last one is the warm cost.
#
# Completion is read from Redis (HLEN connections:registry), not from the server's /metrics, so
# the scrapes do not count as server CPU. Loopback only; bounded to about a minute per wave.
#
# Usage: bench/login-waves.sh [devices per wave=5000] [waves=4] [start-spread=1s]
# Env:   SERVER_JAVA_OPTS="..."  extra JVM options for the server
# Needs redis-server and redis-cli on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

n=${1:-5000}
waves=${2:-4}
spread=${3:-1s}
redis_port=${REDIS_PORT:-16397}
tcp_port=${TCP_PORT:-15129}
http_port=${HTTP_PORT:-18129}
host=127.0.0.1
sources=127.0.0.2,127.0.0.3

bench_name=login-waves
source bench/lib.sh
bench_require_tools redis-server redis-cli curl java python3
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_open_files $((n + 500))
bench_build_jars

out=${WAVES_OUT:-$(mktemp -d /tmp/login-waves.XXXXXX)}
mkdir -p "$out"
echo "== login waves $(date -u +%FT%TZ): $waves x $n devices over $spread, logs in $out"
echo "   load: $(cut -d' ' -f1-3 /proc/loadavg)"

bench_start_redis
# shellcheck disable=SC2086
bench_start_server login-waves MAX_CONNECTIONS=$((n + 100)) -- ${SERVER_JAVA_OPTS:-}

# CPU ticks (user + system) per thread group: names without their trailing numbers.
thread_groups() {
  local t
  for t in /proc/"$server_pid"/task/*; do
    printf '%s %s\n' "$(tr ' ' '_' < "$t/comm" | sed 's/[-#_]*[0-9]*$//')" \
      "$(awk '{sub(/^[^)]*\) /, ""); print $12 + $13}' "$t/stat" 2>/dev/null || echo 0)"
  done | awk '{s[$1] += $2} END {for (k in s) print k, s[k]}' | sort
}
ticks() { awk '{sub(/^[^)]*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
registered() { redis-cli -h "$host" -p "$redis_port" HLEN connections:registry || echo 0; }

for wave in $(seq "$waves"); do
  thread_groups > "$out/threads-$wave-before.txt"
  server0=$(ticks "$server_pid")
  redis0=$(ticks "$redis_pid")
  started=$(date +%s.%N)
  java -jar "$sim_jar" --host "$host" --port "$tcp_port" --devices "$n" --interval 1h --records 1 \
    --duration 10s --start-spread "$spread" --source-addresses "$sources" --progress 0 --drain 0 \
    --imei-base $((35209308500000 + wave * 100000)) > "$out/simulator-$wave.log" 2>&1 &
  sim_pid=$!
  pids+=("$sim_pid")
  count=0
  for _ in $(seq 600); do
    count=$(registered)
    (( count >= n )) && break
    sleep 0.1
  done
  ended=$(date +%s.%N)
  thread_groups > "$out/threads-$wave-after.txt"
  server1=$(ticks "$server_pid")
  redis1=$(ticks "$redis_pid")
  python3 - "$wave" "$n" "$count" "$started" "$ended" "$((server1 - server0))" "$((redis1 - redis0))" \
    "$(getconf CLK_TCK)" "$out/threads-$wave-before.txt" "$out/threads-$wave-after.txt" <<'PY'
import sys
wave, n, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
secs, server, redis, hz = float(sys.argv[5]) - float(sys.argv[4]), int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
def load(p):
    return {l.split()[0]: int(l.split()[1]) for l in open(p) if l.strip()}
before, after = load(sys.argv[9]), load(sys.argv[10])
per = lambda t: 1e6 * t / hz / n
# The process total keeps the time of threads that ended (the JVM stops idle compiler threads);
# per group only live threads count, so the groups are approximate.
groups = sorted(((after[k] - before.get(k, 0), k) for k in after), reverse=True)
print(f"wave {wave}: {count:,} of {n:,} registered in {secs:.1f} s; CPU per login: server {per(server):.0f} us ("
      + ", ".join(f"{k} {per(t):.0f}" for t, k in groups if per(t) >= 1) + f"), redis {per(redis):.0f} us")
PY
  wait "$sim_pid" || true
  # The next wave counts from an empty registry: the devices' releases must be done.
  for _ in $(seq 100); do (( $(registered) == 0 )) && break; sleep 0.1; done
  if (( $(registered) != 0 )); then
    echo "login-waves: $(registered) registry entries left 10 s after wave $wave ended; stopping" >&2
    exit 1
  fi
done
