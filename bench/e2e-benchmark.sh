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
# redis-tools) and a JDK's java, jcmd and jfr; its parsing and statistics are POSIX awk (bench/lib.awk),
# no Python (JFR=1's summary excepted). Whole run about 100 s. Everything it starts is stopped on exit.
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
# HALF_SEND_FROM=6s: no records before the logins are over (the simulator's --send-from). Not the
# default: on 2 cores the backlog came just the same, from 5,000 sessions' first packets (BENCHMARKS.md).
half_send_from=${HALF_SEND_FROM:-0s}
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
bench_require_tools redis-server redis-benchmark redis-cli curl java jcmd jfr awk
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
# Layout as the writer sends it (ingest.ScriptCalls; it may put several packets in one call, here one):
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
# Flags per packet (ingest.ScriptCalls): 1 = read the dedup sets first (the first packets after a
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
    "$(bench_awk "$eval_rps" "$records" <<< 'BEGIN { printf "%.17g", ARGV[1] * ARGV[2] }')" "$label" "$records" "$eval_n"
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
cpu_seconds=$(bench_awk "$cpu_started" "$(date +%s.%N)" <<< 'BEGIN { printf "%.17g", ARGV[2] - ARGV[1] }')
thread_ticks "$server_pid" > "$out/threads-after.txt"
records_after=$(stored_records)
jcmd "$server_pid" JFR.stop name=alloc filename="$out/alloc.jfr" > /dev/null
jfr print --json --events jdk.ThreadAllocationStatistics "$out/alloc.jfr" > "$out/alloc.json"
alloc_bytes=$(LC_ALL=C awk -f bench/jfr-allocated.awk "$out/alloc.json")
redis_after=$(bench_process_ticks "$redis_pid")
if ((ack_replicas > 0)); then replica_after=$(bench_process_ticks "${pids[1]}"); fi
whole_rate=$(awk '/^throughput/ {print $2}' "$out/closed.log")
sed -n -e 's/^/    /' -e '/^    \(packets\|records\|resends\|ack latency\|throughput\|steady\|result\)/p' "$out/closed.log"
# The simulator is a fresh JVM: its first seconds (JIT compiling on the same two cores) pull the
# whole-run average down. The steady rate is its summary's "steady" line (--warmup); (c) and (d) use it.
load_rate=$(awk '/^steady/ {print $6}' "$out/closed.log")
[[ $load_rate =~ ^[0-9.]+$ ]] || { echo "no steady rate: see $out/closed.log"; exit 1; }
bench_awk "$out/threads-before.txt" "$out/threads-after.txt" "$cpu_seconds" "$redis_before" "$redis_after" \
  "$(getconf CLK_TCK)" "$(cat "$out/simulator-cpu.txt")" "$whole_rate" <<'AWK'
# "tid user system name" lines; a tid seen twice keeps its last values, in its first place.
function load(path, user, kernel, name, order,    line, f, fields, count) {
  count = 0
  while ((getline line < path) > 0) {
    fields = split(line, f)
    if (fields == 0) continue
    if (fields < 4) die(path ": not 'tid user system name': " line)
    if (!(f[1] in name)) order[++count] = f[1]
    user[f[1]] = f[2] + 0; kernel[f[1]] = f[3] + 0; name[f[1]] = f[4] ""
  }
  close(path)
  return count
}
function pct(ticks) { return div(div(100.0 * ticks, hz), secs) }
# Rows by (ticks, kernel ticks, name), the largest first.
function after_row(i, j) {
  if (t[i] != t[j]) return t[i] > t[j]
  if (s[i] != s[j]) return s[i] > s[j]
  return n[i] > n[j]
}
BEGIN {
  load(ARGV[1], u0, s0, n0, o0)
  rows = load(ARGV[2], u1, s1, n1, o1)
  secs = ARGV[3] + 0; hz = int(ARGV[6] + 0)
  total = kernel = 0
  for (i = 1; i <= rows; i++) {
    tid = o1[i]
    t[i] = u1[tid] - u0[tid] + s1[tid] - s0[tid]; s[i] = s1[tid] - s0[tid]; n[i] = n1[tid]
    total += t[i]; kernel += s[i]
    if (substr(n[i], 1, 3) == "io-") { loops += t[i]; loops_kernel += s[i] }
    if (index(n[i], "Compiler")) jit += t[i]
    if (substr(n[i], 1, 2) == "GC" || substr(n[i], 1, 2) == "G1") gc += t[i]
  }
  for (i = 1; i <= rows; i++) by[i] = i
  for (i = 2; i <= rows; i++)
    for (j = i; j > 1 && after_row(by[j], by[j - 1]); j--) { k = by[j]; by[j] = by[j - 1]; by[j - 1] = k }
  printf "    CPU during the run (%.1f s; 100 %% = one core):\n", secs
  busiest = ""
  for (i = 1; i <= rows && i <= 5; i++)
    busiest = busiest (i > 1 ? ", " : "") sprintf("%s %.0f %% (kernel %.0f)", n[by[i]], pct(t[by[i]]), pct(s[by[i]]))
  printf "      server total %5.1f %% (kernel %.1f %%); busiest threads: %s\n", pct(total), pct(kernel), busiest
  line = sprintf("      device event loops (io-*) %.1f %%, of it kernel %.1f %%;", pct(loops), pct(loops_kernel))
  printf "%s JIT compilers %.1f %%; GC %.1f %%\n", line, pct(jit), pct(gc)
  redis = ARGV[5] - ARGV[4]
  printf "      redis-server %5.1f %%\n", div(div(100.0 * redis, hz), secs)
  split(ARGV[7], times); sim = 0
  for (i = 1; i in times; i++) sim += decimal(times[i])
  printf "      simulator    %5.1f %%  (its JVM start included)\n", div(100.0 * sim, secs)
  rate = ARGV[8] + 0
  line = sprintf("      CPU per acknowledged record: server %.1f us ", div(div(div(1e6 * total, hz), secs), rate))
  line = line sprintf("(device event loops %.2f us), ", div(div(div(1e6 * loops, hz), secs), rate))
  printf "%sredis %.1f us, simulator %.1f us\n", line, div(div(div(1e6 * redis, hz), secs), rate), div(div(1e6 * sim, secs), rate)
}
AWK
bench_awk "$alloc_bytes" "$records_before" "$records_after" <<'AWK'
BEGIN {
  for (i = 1; i <= 3; i++) if (ARGV[i] !~ /^-?[0-9]+$/) die("not a whole number: '" ARGV[i] "'")
  a = ARGV[1] + 0; r = ARGV[3] - ARGV[2]
  printf "      allocation per stored record: %s B (%s MB by all server threads for %s records, ", \
    thousands(sprintf("%.0f", a / (r > 1 ? r : 1))), thousands(sprintf("%.1f", a / 1e6)), thousands(sprintf("%.0f", r))
  print "JFR thread allocation counts; issue 20 target <= 64 B)"
}
AWK
if ((ack_replicas > 0)); then
  bench_awk "$replica_before" "$replica_after" "$(getconf CLK_TCK)" "$cpu_seconds" \
    <<< 'BEGIN { printf "      replica      %5.1f %%\n", div(div(100.0 * (ARGV[2] - ARGV[1]), ARGV[3]), ARGV[4]) }'
fi

# ---------------------------------------------------------------- (c) ratio
echo
bench_awk "$load_rate" "$xadd_rps" "$whole_rate" <<'AWK'
BEGIN {
  b = decimal(ARGV[1]); a = decimal(ARGV[2]); whole = decimal(ARGV[3])
  ratio = sprintf("%.2f", div(b, a))
  printf "(c) ratio    %s / %s = %s   (steady end-to-end acknowledged records/s over pipelined XADD/s; issue 20's target >= 0.8 with dedup on, >= 0.9 off)\n", \
    thousands(sprintf("%.0f", b)), thousands(sprintf("%.0f", a)), ratio
  ratio = sprintf("%.2f", div(whole, a))
  printf "             whole run, warm-up included: %s / %s = %s\n", thousands(sprintf("%.0f", whole)), thousands(sprintf("%.0f", a)), ratio
}
AWK

# ---------------------------------------------------------------- (d) half load, open loop
interval_ms=500
# As many devices as send the share of (b), at least one; offered printed as Python printed a float.
read -r devices offered < <(bench_awk "$load_rate" "${D_FRACTION:-0.5}" "$interval_ms" "$records" <<'AWK'
BEGIN {
  rate = ARGV[1] * ARGV[2]
  d = round_even(div(div(rate * ARGV[3], 1000), ARGV[4]))
  if (d < 1) d = 1
  o = div(d * ARGV[4] * 1000, ARGV[3])
  printf "%.0f %s\n", d, (o == int(o) && o < 1e16 && o > -1e16) ? sprintf("%.1f", o) : sprintf("%.17g", o)
}
AWK
)
echo
echo "(d) open loop at ~$(bench_awk "${D_FRACTION:-0.5}" <<< 'BEGIN { printf "%.0f", round_even(100 * ARGV[1]) }') % of (b): $devices devices x $records records every ${interval_ms}ms = $offered records/s offered, $half_duration"
echo "    (devices log in over $half_spread${HALF_SEND_FROM:+, records from $half_send_from on}; the steady line and the target leave out the first ${half_warmup} s)"
echo "  load: $(cut -d' ' -f1-3 /proc/loadavg) (includes this run's own step (b))"
jfr_start half "${half_warmup}s"   # the warm-up: logins and the first packets
# The server's own teltonika_ack_latency_seconds histogram (frame in -> ACK written), read at the
# start, after the warm-up and at the end.
buckets() { curl -fs "http://$host:$http_port/metrics" | grep '^teltonika_ack_latency_seconds_bucket' > "$1"; }
buckets "$out/buckets-0.txt"
overflows() { awk '/^TcpExt:/ {if (!h) {for (i = 1; i <= NF; i++) if ($i == "ListenOverflows") c = i; h = 1} else print $c}' /proc/net/netstat; }
overflows_0=$(overflows)
sim --devices "$devices" --interval "${interval_ms}ms" --records "$records" --duration "$half_duration" \
  --start-spread "$half_spread" --send-from "$half_send_from" --warmup "${half_warmup}s" --progress 5s \
  --imei-base 35209308200000 \
  > "$out/half.log" 2>&1 &
half_pid=$!
pids+=("$half_pid")
sleep "$half_warmup"
# The simulator's JVM (a child of the backgrounded function's shell), found before the readings
# below: the walk over /proc takes some tens of ms, which would stand between ticks and clock.
half_sim_pid=$(bench_child_pid "$half_pid" java || echo "$half_pid")
buckets "$out/buckets-10.txt"
overflows_10=$(overflows)
half_server_10=$(bench_process_ticks "$server_pid") half_redis_10=$(bench_process_ticks "$redis_pid")
half_wakeups_10=$(bench_wakeups "$redis_pid") half_preemptions_10=$(bench_preemptions "$redis_pid")
half_sim_10=$([[ -n $half_sim_pid ]] && bench_process_ticks "$half_sim_pid" || echo 0)
half_10=$(date +%s.%N)
# Read just before the simulator's own end (its duration less a second), while it still runs.
sleep $(( ${half_duration%s} - half_warmup - 1 ))
half_server_end=$(bench_process_ticks "$server_pid") half_redis_end=$(bench_process_ticks "$redis_pid")
half_wakeups_end=$(bench_wakeups "$redis_pid") half_preemptions_end=$(bench_preemptions "$redis_pid")
half_sim_end=$([[ -n $half_sim_pid ]] && bench_process_ticks "$half_sim_pid" 2>/dev/null || echo 0)
half_end=$(date +%s.%N)
wait "$half_pid" || { echo "simulator failed:"; tail -15 "$out/half.log"; exit 1; }
buckets "$out/buckets-end.txt"
sed -n -e 's/^/    /' -e '/^    \(\[\|packets\|records\|resends\|ack latency\|throughput\|steady\|result\)/p' "$out/half.log"
bench_awk "$out/half.log" "$half_warmup" <<'AWK'
function p99(line) {  # the first "p99 <n> ms" of a line
  if (!match(line, /p99 [0-9.]+ ms/)) die("no 'p99 <n> ms' in: " line)
  return decimal(substr(line, RSTART + 4, RLENGTH - 7))
}
BEGIN {
  warmup = decimal(ARGV[2])
  count = 0
  while ((getline line < ARGV[1]) > 0) {
    if (!seen_whole && substr(line, 1, 11) == "ack latency") { whole = p99(line); seen_whole = 1 }
    if (!seen_steady && substr(line, 1, 6) == "steady") { steady = p99(line); seen_steady = 1 }
    # Progress lines each cover the 5 s before them; keep those that began after the warm-up.
    if (substr(line, 1, 1) == "[" && index(line, "p99 ")) {
      if (!match(line, /^\[[ \t]*[0-9.]+s\]/)) die("no '[ <n>s]' at the start of: " line)
      at = substr(line, 2, RLENGTH - 3); sub(/^[ \t]*/, "", at)
      if (decimal(at) >= warmup + 4.5) {
        p = p99(line)
        if (!count++ || p > worst) worst = p
      }
    }
  }
  if (!seen_whole) die(ARGV[1] ": no 'ack latency' line")
  if (!seen_steady) die(ARGV[1] ": no 'steady' line")
  verdict = steady < 10 && (!count || worst < 20) ? "met" : "MISSED"
  printf "    simulator: ACK p99 %.2f ms after the first %.0f s (target < 10 ms, worst 5 s < 20 ms: %s)%s;", \
    steady, warmup, verdict, count ? sprintf("; its worst 5 s interval p99 %.2f ms", worst) : ""
  printf " %.2f ms over the whole run, logins included\n", whole
}
AWK
bench_awk "$half_10" "$half_end" "$(getconf CLK_TCK)" "$offered" \
  "$half_server_10" "$half_server_end" "$half_redis_10" "$half_redis_end" "$half_sim_10" "$half_sim_end" "$(nproc)" <<'AWK'
BEGIN {
  secs = ARGV[2] - ARGV[1]; hz = int(ARGV[3] + 0); rate = ARGV[4] + 0
  server = div(div(ARGV[6] - ARGV[5], hz), secs)
  redis = div(div(ARGV[8] - ARGV[7], hz), secs)
  sim = div(div(ARGV[10] - ARGV[9], hz), secs)
  printf "    CPU after the warm-up: server %.0f %%, redis %.0f %%, simulator %.0f %% ", 100 * server, 100 * redis, 100 * sim
  printf "of a core (together %.0f %% of the machine's %.0f %%); ", 100 * (server + redis + sim), 100 * int(ARGV[11] + 0)
  printf "per offered record: server %.1f us, redis %.1f us, ", div(1e6 * server, rate), div(1e6 * redis, rate)
  printf "simulator %.1f us (bench/ack-floor.sh: the transport's own floor)\n", div(1e6 * sim, rate)
}
AWK
# What makes Redis's records dearer at part load (issue 34, bench/redis-idle-cost.sh): each time it
# sleeps and is woken, and each time another thread takes its core.
bench_awk "$half_10" "$half_end" "$offered" "$((half_wakeups_end - half_wakeups_10))" \
  "$((half_preemptions_end - half_preemptions_10))" <<'AWK'
BEGIN {
  records = (ARGV[2] - ARGV[1]) * ARGV[3]
  printf "    Redis after the warm-up: %.1f wake-ups and %.1f preemptions per 1,000 offered records\n",
    div(1000 * ARGV[4], records), div(1000 * ARGV[5], records)
}
AWK
echo "    listen queue overflows (TcpExtListenOverflows, whole machine): $((overflows_10 - overflows_0)) in the first ${half_warmup} s, $(( $(overflows) - overflows_10 )) after"
bench_awk "$out"/buckets-{0,10,end}.txt "$half_warmup" <<'AWK'
# Cumulative counts by bucket bound (le, the same bound of several series summed): count[key],
# bound[key] its value (le="+Inf": inf[key] set); returns how many bounds, keys[1..] in ascending order.
function load(path, count, bound, inf, keys,    line, le, v, key, n, i, j, k) {
  n = 0
  while ((getline line < path) > 0) {
    if (!match(line, /le="[^"]+"\} [^ \t]+/)) continue
    le = substr(line, RSTART + 4, RLENGTH - 4)
    v = le; sub(/^[^"]*"\} /, "", v); sub(/".*/, "", le)
    key = le == "+Inf" ? le : sprintf("%.17g", decimal(le))
    if (!(key in count)) {
      keys[++n] = key; count[key] = 0
      if (le == "+Inf") inf[key] = 1; else bound[key] = le + 0
    }
    count[key] += decimal(v)
  }
  close(path)
  for (i = 2; i <= n; i++)
    for (j = i; j > 1 && below(keys[j], keys[j - 1], bound, inf); j--) { k = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = k }
  return n
}
function below(x, y, bound, inf) { return !(x in inf) && ((y in inf) || bound[x] < bound[y]) }
# The smallest bound with q of the ACKs between a and b at or under it, in ms ("inf" for +Inf); total: their count.
function quantile(a, b, bound, inf, keys, n, q,    last, i, key) {
  if (n == 0) die("no teltonika_ack_latency_seconds buckets")
  last = keys[n]
  total = b[last] - (last in a ? a[last] : 0)
  for (i = 1; i <= n; i++) {
    key = keys[i]
    if (b[key] - (key in a ? a[key] : 0) >= q * total) return key in inf ? "inf" : sprintf("%.1f", bound[key] * 1000)
  }
  return "inf"
}
BEGIN {
  load(ARGV[1], c0, bound0, inf0, keys0)
  load(ARGV[2], c10, bound10, inf10, keys10)
  n = load(ARGV[3], cend, bound, inf, keys)
  for (run = 1; run <= 2; run++) {
    label = run == 1 ? "whole run" : "after the first " ARGV[4] " s"
    if (run == 1) { p50 = quantile(c0, cend, bound, inf, keys, n, 0.50); p99 = quantile(c0, cend, bound, inf, keys, n, 0.99) }
    else { p50 = quantile(c10, cend, bound, inf, keys, n, 0.50); p99 = quantile(c10, cend, bound, inf, keys, n, 0.99) }
    printf "    server (teltonika_ack_latency_seconds, bucket bounds), %s: p50 <= %s ms, p99 <= %s ms (%.0f ACKs)\n", label, p50, p99, total
  }
}
AWK

if [[ -n ${JFR:-} ]]; then
  sleep 1
  for rec in closed half; do
    jcmd "$server_pid" JFR.stop name="$rec" >/dev/null 2>&1 || true
    [[ -f $out/$rec.jfr ]] || continue
    echo
    echo "JFR ($rec): $out/$rec.jfr"
    jfr print --stack-depth 64 --events jdk.ExecutionSample,jdk.ObjectAllocationSample "$out/$rec.jfr" \
      > "$out/$rec.samples.txt"
    # The summary is the one part of the run that needs Python: an extra, skipped without it.
    if command -v python3 >/dev/null; then
      python3 bench/jfr-top.py "$out/$rec.samples.txt" 15
    else
      echo "  (no summary: python3 not found, which bench/jfr-top.py needs; the samples are in $out/$rec.samples.txt)"
    fi
  done
fi

echo
echo "server counted $(curl -fs "http://$host:$http_port/metrics" | awk '/^teltonika_records_written_total/ {s += $2} END {printf "%.0f", s}') records written; logs in $out"
