#!/usr/bin/env bash
# End-to-end benchmark, in one run, all on loopback:
#  (a) the sink's limit: redis-benchmark, pipelined (-P 16) XADD of one entry shaped like the
#      server's (same fields and sizes as TelemetryEntryMapper writes for a simulator record),
#      and, for comparison, EVALSHA of the server's own append-packets.lua with one packet of 10 such records,
#      deduplication off and on;
#  (b) the server jar against that same Redis and the simulator's closed-loop load mode:
#      acknowledged records/s;
#  (c) the ratio (b)/(a);
#  (d) an open-loop run offering about half of (b), reporting the ACK latency percentiles after a
#      10 s warm-up (the devices log in over its first 5 s) and over the whole run, and the CPU per
#      offered record of the server, Redis and the simulator after the warm-up (bench/ack-floor.sh
#      gives the floor the server's share cannot go under).
# Needs redis-server and redis-benchmark on the PATH (Debian: apt-get install redis-server
# redis-tools). Whole run about 100 s. Everything it starts is stopped on exit.
#
# Usage: bench/e2e-benchmark.sh [connections=200] [records=10] [duration=20s]
# Env:   JFR=1  record the server with JFR during (b) and (d) and print its hottest frames
#        SERVER_JAVA_OPTS="..."  extra JVM options for the server (experiments)
#        SIM_JAVA_OPTS="..."  extra JVM options for the simulator (e.g. a GC log: are its pauses in (d)'s tail?)
#        DEDUP_WINDOW=0s  run the server with deduplication off (default: on, 1h, as in production)
#        ACK_REPLICAS=1  start a replica of the Redis (port REDIS_PORT+1) before (a), so (a) measures
#                        the primary with its replica attached, and run the server with ACK_REPLICAS=1
#        BUSY_CORE=1  another process busy on one core for the whole run, started after the
#                     quiet wait: a server that shares its host (the norm in Kubernetes)
#        TELEMETRY_WRITE_PATH=script  the server with every packet through the script (A/B)
#        D_FRACTION=0.25  (d) at another share of (b) than half (diagnostics: is the tail the load?)
#        E2E_OUT=dir  keep logs there (default: a temporary directory, printed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."

connections=${1:-200}
records=${2:-10}
duration=${3:-20s}
half_duration=40s
half_spread=5s   # devices log in over this: about 1,000 logins/s, not a reconnect herd
half_warmup=10   # seconds; the target is read after this (logins, the simulator JVM's JIT)
if [[ ! $duration =~ ^([0-9]+)s$ ]] || (( ${BASH_REMATCH[1]} <= 5 )); then
  echo "e2e-benchmark: duration must be whole seconds over 5 s (the first 5 s are the simulator's warm-up), got $duration" >&2
  exit 2
fi

redis_port=${REDIS_PORT:-16399}
tcp_port=${TCP_PORT:-15127}
http_port=${HTTP_PORT:-18127}
host=127.0.0.1

bench_name=e2e-benchmark
source bench/lib.sh
bench_require_tools redis-server redis-benchmark redis-cli curl java python3
bench_require_free_ports "$host" "$redis_port" "$tcp_port" "$http_port"
entry=("${bench_entry[@]}")

bench_build_jars

out=${E2E_OUT:-$(mktemp -d /tmp/e2e-benchmark.XXXXXX)}
mkdir -p "$out"

echo "== e2e benchmark $(date -u +%FT%TZ), $(nproc) cores, logs in $out"

# ---------------------------------------------------------------- Redis
bench_start_redis --protected-mode yes
echo "redis        $(redis-server --version | cut -d' ' -f3) on $host:$redis_port"
ack_replicas=${ACK_REPLICAS:-0}
if ((ack_replicas > 0)); then
  replica_port=$((redis_port + 1))
  bench_require_free_ports "$host" "$replica_port"
  redis-server --bind "$host" --port "$replica_port" --save '' --appendonly no --protected-mode yes \
    --replicaof "$host" "$redis_port" --dir "$out" --logfile "$out/replica.log" --daemonize no &
  pids+=($!)
  for _ in $(seq 100); do
    [[ $(redis-cli -h "$host" -p "$replica_port" INFO replication | tr -d '\r' | grep master_link_status) == *up ]] && break
    sleep 0.1
  done
  echo "replica      $host:$replica_port ($(redis-cli -h "$host" -p "$replica_port" INFO replication | tr -d '\r' | grep master_link_status)); server runs with ACK_REPLICAS=$ack_replicas"
fi

# ---------------------------------------------------------------- (a) sink limit
echo
echo "(a) redis-benchmark: pipelined XADD MAXLEN ~ $bench_maxlen of one server-shaped entry"
bench_wait_for_quiet
if [[ -n ${BUSY_CORE:-} ]]; then
  # Bounded: the whole run takes about 3 minutes; the trap stops it sooner.
  timeout 600 bash -c 'while :; do :; done' &
  pids+=($!)
  echo "  BUSY_CORE: pid $! keeps one core busy for the whole run"
fi
bench_xadd_limit

# The server's own path: one EVALSHA of append-packets.lua per packet of $records records, with
# deduplication off and on (fresh random identities: __rand_int__ is redis-benchmark's placeholder).
# Layout as RedisTelemetryWriter sends it (the server may put several packets in one call; here one):
# device, codec, receive time and instance once per packet.
script=$(cat ingestion-server/src/main/resources/ingest/append-packets.lua)
names=() pattern='' packet_values=() record_values=()
for ((k = 0; k < ${#entry[@]}; k += 2)); do
  names+=("${entry[k]}")
  case ${entry[k]} in
    imei | codec | rx | instance | schema) pattern+=p packet_values+=("${entry[k + 1]}") ;;
    *) pattern+=r record_values+=("${entry[k + 1]}") ;;
  esac
done
sha=$(redis-cli -h "$host" -p "$redis_port" SCRIPT LOAD "$script")
eval_n=$((1000000 / records))
dedup_keys=(dedup:recent:352093081452251 dedup:previous:352093081452251)
# Flags per packet (RedisTelemetryWriter): 1 = read the dedup sets first (the first packets after a
# login, a repeat of the last packet, UDP), 2 = refresh device:info (at most every 10 s a connection).
for case in "0 2 dedup off" "3600000 3 dedup on, checked" "3600000 0 dedup on, steady"; do
  read -r window flags label <<< "$case"
  eval_args=(4 telemetry-bench device:info:352093081452251 "${dedup_keys[@]}" "$window" 128 604800000 1
    1763800000000 "$flags" "$records" "${#names[@]}" "$pattern" "${names[@]}" "${packet_values[@]}")
  if ((window > 0)); then
    for _ in $(seq "$records"); do eval_args+=(__rand_int__); done
  fi
  for _ in $(seq "$records"); do eval_args+=("${record_values[@]}"); done
  redis-benchmark -h "$host" -p "$redis_port" -c 50 -P 16 -n "$eval_n" -r 100000000000 --csv \
    EVALSHA "$sha" "${eval_args[@]}" > "$out/eval-$window-$flags.csv"
  eval_rps=$(bench_csv_rps "$out/eval-$window-$flags.csv")
  printf '    EVALSHA   %12.0f records/s   (append-packets.lua, %s, one packet of %d records per call, -c 50 -P 16 -n %d)\n' \
    "$(python3 -c "print($eval_rps * $records)")" "$label" "$records" "$eval_n"
  redis-cli -h "$host" -p "$redis_port" DEL telemetry-bench "${dedup_keys[@]}" >/dev/null
done

# ---------------------------------------------------------------- server
jvm_opts=()
if [[ -n ${JFR:-} ]]; then jvm_opts+=(-XX:+FlightRecorder); fi
# shellcheck disable=SC2206
if [[ -n ${SERVER_JAVA_OPTS:-} ]]; then jvm_opts+=($SERVER_JAVA_OPTS); fi
bench_start_server e2e-bench DEDUP_WINDOW="${DEDUP_WINDOW:-1h}" ACK_REPLICAS="$ack_replicas" \
  TELEMETRY_WRITE_PATH="${TELEMETRY_WRITE_PATH:-transaction}" -- "${jvm_opts[@]}"
echo
echo "server       pid $server_pid, tcp $host:$tcp_port, redis $host:$redis_port"

sim() {
  # shellcheck disable=SC2086
  java ${SIM_JAVA_OPTS:-} -jar "$sim_jar" --host "$host" --port "$tcp_port" "$@"
}
# CPU ticks per thread of a process: "tid user system name" lines (utime, stime from /proc).
thread_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    awk -v tid="${t##*/}" '{sub(/^[^)]*\) /, ""); print tid, $12, $13}' "$t/stat" 2>/dev/null \
      | while read -r tid user system; do
          printf '%s %s %s %s\n' "$tid" "$user" "$system" "$(tr ' ' '_' < "$t/comm")"
        done
  done
}

# ---------------------------------------------------------------- (b) closed loop
echo
echo "(b) closed-loop load: $connections connections x $records records, $duration (after a 5 s warm-up)"
sim --load --connections "$connections" --records "$records" --duration 5s --progress 0 \
  --imei-base 35209308100000 > "$out/warmup.log" 2>&1 || true
echo "  load: $(cut -d' ' -f1-3 /proc/loadavg) (includes this run's own warm-up)"
jfr_start() {
  [[ -n ${JFR:-} ]] || return 0
  jcmd "$server_pid" JFR.start name="$1" settings=profile duration="$2" filename="$out/$1.jfr" >/dev/null
}
jfr_start closed 20s
# Exact allocation: every server thread's allocated bytes at the start and end of a recording of
# nothing else (bench/alloc.jfc), and the records stored meanwhile.
stored_records() {
  curl -fs "http://$host:$http_port/metrics" | awk '/^teltonika_records_(written|duplicate)_total/ {r += $2} END {printf "%.0f\n", r}'
}
jcmd "$server_pid" JFR.start name=alloc settings="$PWD/bench/alloc.jfc" > /dev/null
records_before=$(stored_records)
thread_ticks "$server_pid" > "$out/threads-before.txt"
redis_before=$(bench_process_ticks "$redis_pid")
if ((ack_replicas > 0)); then replica_before=$(bench_process_ticks "${pids[1]}"); fi
cpu_started=$(date +%s.%N)
TIMEFORMAT='%U %S'
{ time sim --load --connections "$connections" --records "$records" --duration "$duration" --warmup 5s --progress 5s \
  > "$out/closed.log" 2>&1; } 2> "$out/simulator-cpu.txt" \
  || { echo "simulator failed:"; tail -15 "$out/closed.log"; exit 1; }
cpu_seconds=$(python3 -c "import time; print(time.time() - $cpu_started)")
thread_ticks "$server_pid" > "$out/threads-after.txt"
records_after=$(stored_records)
jcmd "$server_pid" JFR.stop name=alloc filename="$out/alloc.jfr" > /dev/null
jfr print --json --events jdk.ThreadAllocationStatistics "$out/alloc.jfr" > "$out/alloc.json"
alloc_bytes=$(python3 bench/jfr-allocated.py "$out/alloc.json")
redis_after=$(bench_process_ticks "$redis_pid")
if ((ack_replicas > 0)); then replica_after=$(bench_process_ticks "${pids[1]}"); fi
whole_rate=$(awk '/^throughput/ {print $2}' "$out/closed.log")
sed -n -e 's/^/    /' -e '/^    \(packets\|records\|resends\|ack latency\|throughput\|steady\|result\)/p' "$out/closed.log"
# The simulator is a fresh JVM: its first seconds (JIT compiling on the same two cores) pull the
# whole-run average down. The steady rate is its summary's "steady" line (--warmup); (c) and (d) use it.
load_rate=$(awk '/^steady/ {print $6}' "$out/closed.log")
[[ $load_rate =~ ^[0-9.]+$ ]] || { echo "no steady rate: see $out/closed.log"; exit 1; }
python3 - "$out/threads-before.txt" "$out/threads-after.txt" "$cpu_seconds" "$redis_before" "$redis_after" \
  "$(getconf CLK_TCK)" "$(cat "$out/simulator-cpu.txt")" "$whole_rate" <<'PY'
import collections, sys
def load(p):
    return {l.split()[0]: (int(l.split()[1]), int(l.split()[2]), l.split()[3]) for l in open(p) if l.strip()}
before, after = load(sys.argv[1]), load(sys.argv[2])
secs, hz = float(sys.argv[3]), int(sys.argv[6])
rows = []
for tid, (user, system, name) in after.items():
    u0, s0, _ = before.get(tid, (0, 0, name))
    rows.append((user - u0 + system - s0, system - s0, name))
total = sum(t for t, _, _ in rows)
pct = lambda ticks: 100.0 * ticks / hz / secs
print(f"    CPU during the run ({secs:.1f} s; 100 % = one core):")
print(f"      server total {pct(total):5.1f} % (kernel {pct(sum(s for _, s, _ in rows)):.1f} %); busiest threads:",
      ", ".join(f"{n} {pct(t):.0f} % (kernel {pct(s):.0f})" for t, s, n in sorted(rows, reverse=True)[:5]))
loops = [(t, s) for t, s, n in rows if n.startswith("io-")]
print(f"      device event loops (io-*) {pct(sum(t for t, _ in loops)):.1f} %, of it kernel {pct(sum(s for _, s in loops)):.1f} %;"
      f" JIT compilers {pct(sum(t for t, _, n in rows if 'Compiler' in n)):.1f} %; GC {pct(sum(t for t, _, n in rows if n.startswith(('GC', 'G1')))):.1f} %")
redis = int(sys.argv[5]) - int(sys.argv[4])
print(f"      redis-server {100.0 * redis / hz / secs:5.1f} %")
sim = sum(float(x) for x in sys.argv[7].split())
print(f"      simulator    {100.0 * sim / secs:5.1f} %  (its JVM start included)")
rate = float(sys.argv[8])
print(f"      CPU per acknowledged record: server {1e6 * total / hz / secs / rate:.1f} us "
      f"(device event loops {1e6 * sum(t for t, _ in loops) / hz / secs / rate:.2f} us), "
      f"redis {1e6 * redis / hz / secs / rate:.1f} us, simulator {1e6 * sim / secs / rate:.1f} us")
PY
python3 -c "
a, r = $alloc_bytes, $records_after - $records_before
print(f'      allocation per stored record: {a / max(r, 1):,.0f} B ({a / 1e6:,.1f} MB by all server threads for {r:,} records, '
      'JFR thread allocation counts; issue 20 target <= 64 B)')"
if ((ack_replicas > 0)); then
  python3 -c "print(f'      replica      {100.0 * ($replica_after - $replica_before) / $(getconf CLK_TCK) / $cpu_seconds:5.1f} %')"
fi

# ---------------------------------------------------------------- (c) ratio
echo
python3 - "$load_rate" "$xadd_rps" "$whole_rate" <<'PY'
import sys
b, a, whole = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"(c) ratio    {b:,.0f} / {a:,.0f} = {b / a:.2f}   (steady end-to-end acknowledged records/s over pipelined XADD/s; issue 20's target >= 0.8 with dedup on, >= 0.9 off)")
print(f"             whole run, warm-up included: {whole:,.0f} / {a:,.0f} = {whole / a:.2f}")
PY

# ---------------------------------------------------------------- (d) half load, open loop
interval_ms=500
read -r devices offered < <(python3 -c "
rate = $load_rate * ${D_FRACTION:-0.5}
d = max(1, round(rate * $interval_ms / 1000 / $records))
print(d, d * $records * 1000 / $interval_ms)")
echo
echo "(d) open loop at ~$(python3 -c "print(round(100 * ${D_FRACTION:-0.5}))") % of (b): $devices devices x $records records every ${interval_ms}ms = $offered records/s offered, $half_duration"
echo "    (devices log in over $half_spread; the steady line and the target leave out the first ${half_warmup} s)"
echo "  load: $(cut -d' ' -f1-3 /proc/loadavg) (includes this run's own step (b))"
jfr_start half "${half_warmup}s"   # the warm-up: logins and the first packets
# The server's own teltonika_ack_latency_seconds histogram (frame in -> ACK written), read at the
# start, after the warm-up and at the end.
buckets() { curl -fs "http://$host:$http_port/metrics" | grep '^teltonika_ack_latency_seconds_bucket' > "$1"; }
buckets "$out/buckets-0.txt"
overflows() { awk '/^TcpExt:/ {if (!h) {for (i = 1; i <= NF; i++) if ($i == "ListenOverflows") c = i; h = 1} else print $c}' /proc/net/netstat; }
overflows_0=$(overflows)
sim --devices "$devices" --interval "${interval_ms}ms" --records "$records" --duration "$half_duration" \
  --start-spread "$half_spread" --warmup "${half_warmup}s" --progress 5s --imei-base 35209308200000 \
  > "$out/half.log" 2>&1 &
half_pid=$!
pids+=("$half_pid")
sleep "$half_warmup"
buckets "$out/buckets-10.txt"
overflows_10=$(overflows)
half_server_10=$(bench_process_ticks "$server_pid") half_redis_10=$(bench_process_ticks "$redis_pid")
half_sim_pid=$(pgrep -P "$half_pid" java || echo "$half_pid")
half_sim_10=$([[ -n $half_sim_pid ]] && bench_process_ticks "$half_sim_pid" || echo 0)
half_10=$(date +%s.%N)
# Read just before the simulator's own end (its duration less a second), while it still runs.
sleep $(( ${half_duration%s} - half_warmup - 1 ))
half_server_end=$(bench_process_ticks "$server_pid") half_redis_end=$(bench_process_ticks "$redis_pid")
half_sim_end=$([[ -n $half_sim_pid ]] && bench_process_ticks "$half_sim_pid" 2>/dev/null || echo 0)
half_end=$(date +%s.%N)
wait "$half_pid" || { echo "simulator failed:"; tail -15 "$out/half.log"; exit 1; }
buckets "$out/buckets-end.txt"
sed -n -e 's/^/    /' -e '/^    \(\[\|packets\|records\|resends\|ack latency\|throughput\|steady\|result\)/p' "$out/half.log"
python3 - "$out/half.log" "$half_warmup" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
warmup = float(sys.argv[2])
def p99(line):
    return float(re.search(r"p99 ([\d.]+) ms", line).group(1))
whole = p99(next(l for l in lines if l.startswith("ack latency")))
steady = p99(next(l for l in lines if l.startswith("steady")))
# Progress lines each cover the 5 s before them; keep those that began after the warm-up.
intervals = [p99(l) for l in lines if l.startswith("[") and "p99 " in l
             and float(re.match(r"\[\s*([\d.]+)s\]", l).group(1)) >= warmup + 4.5]
worst = f"; its worst 5 s interval p99 {max(intervals):.2f} ms" if intervals else ""
verdict = "met" if steady < 10 and (not intervals or max(intervals) < 20) else "MISSED"
print(f"    simulator: ACK p99 {steady:.2f} ms after the first {warmup:.0f} s (target < 10 ms, worst 5 s < 20 ms: {verdict}){worst};"
      f" {whole:.2f} ms over the whole run, logins included")
PY
python3 - "$half_10" "$half_end" "$(getconf CLK_TCK)" "$offered" \
  "$half_server_10" "$half_server_end" "$half_redis_10" "$half_redis_end" "$half_sim_10" "$half_sim_end" "$(nproc)" <<'PY'
import sys
secs, hz, rate = float(sys.argv[2]) - float(sys.argv[1]), int(sys.argv[3]), float(sys.argv[4])
server, redis, sim = ((int(sys.argv[i + 1]) - int(sys.argv[i])) / hz / secs for i in (5, 7, 9))
print(f"    CPU after the warm-up: server {100 * server:.0f} %, redis {100 * redis:.0f} %, simulator {100 * sim:.0f} % "
      f"of a core (together {100 * (server + redis + sim):.0f} % of the machine's {100 * int(sys.argv[11])} %); per offered record: server {1e6 * server / rate:.1f} us, redis {1e6 * redis / rate:.1f} us, "
      f"simulator {1e6 * sim / rate:.1f} us (bench/ack-floor.sh: the transport's own floor)")
PY
echo "    listen queue overflows (TcpExtListenOverflows, whole machine): $((overflows_10 - overflows_0)) in the first ${half_warmup} s, $(( $(overflows) - overflows_10 )) after"
python3 - "$out"/buckets-{0,10,end}.txt "$half_warmup" <<'PY'
import re, sys
def load(p):
    b = {}
    for l in open(p):
        m = re.search(r'le="([^"]+)"\} (\S+)', l)
        if m:
            le = float("inf") if m.group(1) == "+Inf" else float(m.group(1))
            b[le] = b.get(le, 0) + float(m.group(2))
    return b
def pct(a, b, q):
    les = sorted(b)
    total = b[les[-1]] - a.get(les[-1], 0)
    for le in les:
        if b[le] - a.get(le, 0) >= q * total:
            return le * 1000, total
    return float("inf"), total
b0, b10, bend = (load(p) for p in sys.argv[1:4])
for label, a, b in (("whole run", b0, bend), (f"after the first {sys.argv[4]} s", b10, bend)):
    p50, n = pct(a, b, 0.50)
    p99, _ = pct(a, b, 0.99)
    print(f"    server (teltonika_ack_latency_seconds, bucket bounds), {label}: p50 <= {p50:.1f} ms, p99 <= {p99:.1f} ms ({n:.0f} ACKs)")
PY

if [[ -n ${JFR:-} ]]; then
  sleep 1
  for rec in closed half; do
    jcmd "$server_pid" JFR.stop name="$rec" >/dev/null 2>&1 || true
    [[ -f $out/$rec.jfr ]] || continue
    echo
    echo "JFR ($rec): $out/$rec.jfr"
    jfr print --stack-depth 64 --events jdk.ExecutionSample,jdk.ObjectAllocationSample "$out/$rec.jfr" \
      > "$out/$rec.samples.txt"
    python3 bench/jfr-top.py "$out/$rec.samples.txt" 15
  done
fi

echo
echo "server counted $(curl -fs "http://$host:$http_port/metrics" | awk '/^teltonika_records_written_total/ {s += $2} END {printf "%.0f", s}') records written; logs in $out"
