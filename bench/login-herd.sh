#!/usr/bin/env bash
# What a login herd does to the devices already connected: 3,000 devices send 10 records every
# 500 ms (60,000 records/s) for 35 s; 15 s in, a herd of H more devices logs in within the given
# spread (each sends one record, then stays idle), and 12 s later the herd disconnects all at
# once. Prints the steady devices' ACK p99 second by second, with the herd's arrival and
# departure marked. The server is warmed first (a closed loop, and one login wave of H devices).
# Loopback only; bounded to about 90 s.
#
# Usage: bench/login-herd.sh [herd devices=5000] [herd start-spread=500ms]
# Needs redis-server and redis-cli on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

herd=${1:-5000}
spread=${2:-500ms}
redis_port=${REDIS_PORT:-16396}
tcp_port=${TCP_PORT:-15130}
http_port=${HTTP_PORT:-18130}
host=127.0.0.1

bench_name=login-herd
source bench/lib.sh
bench_require_tools redis-server redis-cli curl java python3
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
bench_open_files $((herd + 3500))
bench_build_jars

out=${HERD_OUT:-$(mktemp -d /tmp/login-herd.XXXXXX)}
mkdir -p "$out"
echo "== login herd $(date -u +%FT%TZ): 3,000 steady devices, a herd of $herd over $spread, logs in $out"
echo "   load: $(cut -d' ' -f1-3 /proc/loadavg)"

bench_start_redis
bench_start_server login-herd MAX_CONNECTIONS=$((herd + 3500))

sim() {
  java -jar "$sim_jar" --host "$host" --port "$tcp_port" "$@"
}
# Warm-up: the telemetry path, then the login and disconnect paths.
sim --load --connections 200 --records 10 --duration 8s --progress 0 --imei-base 35209308100000 \
  > "$out/warmup-load.log" 2>&1 || true
sim --devices "$herd" --interval 1h --records 1 --duration 6s --start-spread 2s --progress 0 --drain 0 \
  --source-addresses 127.0.0.2,127.0.0.3 --imei-base 35209308600000 > "$out/warmup-logins.log" 2>&1 || true
sleep 2

sim --devices 3000 --interval 500ms --records 10 --duration 35s --start-spread 3s --progress 1s \
  --imei-base 35209308700000 > "$out/steady.log" 2>&1 &
steady_pid=$!
pids+=("$steady_pid")
sleep 15
sim --devices "$herd" --interval 1h --records 1 --duration 12s --start-spread "$spread" --progress 0 --drain 0 \
  --source-addresses 127.0.0.4,127.0.0.5 --imei-base 35209308800000 > "$out/herd.log" 2>&1 &
herd_pid=$!
pids+=("$herd_pid")
wait "$steady_pid" || { echo "steady devices failed:"; tail -5 "$out/steady.log"; exit 1; }
wait "$herd_pid" || true

python3 - "$out/steady.log" <<'PY'
import re, sys
rows = []
for line in open(sys.argv[1]):
    m = re.match(r"^\[\s*([\d.]+)s\].* p99 ([\d.]+) ms", line)
    if m:
        rows.append((float(m.group(1)), float(m.group(2))))
def mark(t):
    if 15 <= t < 16.5:
        return "  <- the herd starts logging in"
    if 27 <= t < 28.5:
        return "  <- the herd disconnects"
    return ""
print("steady devices' ACK p99 per second:")
for t, p99 in rows:
    print(f"  {t:5.1f} s  {p99:8.2f} ms{mark(t)}")
print(next((l.rstrip() for l in open(sys.argv[1]) if l.startswith("ack latency")), ""))
PY
