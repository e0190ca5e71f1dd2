#!/usr/bin/env bash
# Redis Cluster benchmark (issue 33), in one run, all on loopback, for a cluster of 1 and of 3
# primaries in turn (no replicas: throughput), each a fresh LocalRedisCluster (test-kit, started by
# benchmarks' ClusterLauncher, Redis's default 15 s node timeout):
#  (a) the cluster's own limit: pipelined XADD of one server-shaped entry (bench/lib.sh's, as in
#      e2e-benchmark.sh's (a)) into the server's P partition streams bench:telemetry:{0..P-1}: one
#      plain redis-benchmark per partition (-P 16, 50 connections shared out, rounded up: 4 each)
#      connected to that partition's primary, all at once; the rate is every entry over the time
#      from the first entry's id to the last one's (Redis's clock: the clients' start and exit left
#      out; the wall-time rate is printed beside it), so each primary carries its share of the
#      partitions as the server would load it (16 land 6/6/4 on 3 primaries), the busiest one
#      setting the limit; each primary's own rate over its own entries beside it;
#  (b) the server jar on that cluster (REDIS_URL=redis-cluster://..., REDIS_NAMESPACE={bench}:,
#      TELEMETRY_PARTITIONS=P) under the simulator's closed-loop load: the steady acknowledged
#      records/s (after its 5 s warm-up), each primary's share and CPU, and where Redis's time
#      went (INFO commandstats of every primary: the server's script calls and what they hold);
#  (c) the ratio (b)/(a), (b) per primary, and CPU per stored record of Redis (all nodes), the server
#      and the simulator, from /proc; and the rest of the machine's busy time meanwhile ('others': other
#      processes, and the kernel's softirq time, which /proc charges to no process: the loopback
#      traffic's own, up to about 15 % of a core, is in it).
# Needs redis-benchmark and redis-cli on the PATH (Debian: apt-get install redis-tools); the nodes
# run redis-server from the PATH, else embedded-redis's 6.2 (as the tests). About 2.5 minutes, plus
# up to a minute per cluster size waiting for a quiet machine. Everything it starts is stopped on exit.
#
# Usage: bench/cluster-benchmark.sh [connections=200] [records=10] [duration=20s]
# Env:   PRIMARIES="1 3"  the cluster sizes, run in this order (a larger host: "1 3 6")
#        PARTITIONS=16  TELEMETRY_PARTITIONS of the server, and the streams of (a)
#        XADD_TOTAL=1000000  entries (a) writes, spread evenly over the partitions
#        XADD_CONNECTIONS=50  redis-benchmark connections in (a), spread over the partitions
#        REDIS_SERVER=/path/to/redis-server  the nodes' binary (default: the PATH's, else the embedded 6.2)
#        DEDUP_WINDOW=0s  run the server with deduplication off (default: on, 1h, as in production)
#        SERVER_JAVA_OPTS="..."  extra JVM options for the server
#        SIM_THREADS=8  the simulator's event loop threads (default 2; a larger host needs more)
#        TCP_PORT=9627 HTTP_PORT=9628  the server's ports (below the cluster nodes' 10000-32767)
#        CLUSTER_OUT=dir  keep logs there (default: a temporary directory, printed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."

connections=${1:-200}
records=${2:-10}
duration=${3:-20s}
if [[ ! $duration =~ ^([0-9]+)s$ ]] || (( ${BASH_REMATCH[1]} <= 5 )); then
  echo "cluster-benchmark: duration must be whole seconds over 5 s (the first 5 s are the simulator's warm-up), got $duration" >&2
  exit 2
fi
read -r -a sizes <<< "${PRIMARIES:-1 3}"
partitions=${PARTITIONS:-16}
xadd_total=${XADD_TOTAL:-1000000}
xadd_connections=${XADD_CONNECTIONS:-50}
# LocalRedisCluster takes node ports in 10000-22767 and their bus ports 10000 higher: the server stays below.
tcp_port=${TCP_PORT:-9627}
http_port=${HTTP_PORT:-9628}
host=127.0.0.1

bench_name=cluster-benchmark
source bench/lib.sh
bench_require_tools redis-benchmark redis-cli curl java python3
bench_require_free_ports "$host" "$tcp_port" "$http_port"

bench_build_jars
launcher_jar=benchmarks/target/benchmarks.jar
launcher_class=org.fleetpipe.teltonika.benchmarks.ClusterLauncher
if [[ ! -f $launcher_jar ]] || ! python3 -c "import sys, zipfile; sys.exit(0 if '${launcher_class//.//}.class' in zipfile.ZipFile('$launcher_jar').namelist() else 1)"; then
  mvn -B -q -ntp -DskipTests package -pl benchmarks -am
fi

out=${CLUSTER_OUT:-$(mktemp -d /tmp/cluster-benchmark.XXXXXX)}
mkdir -p "$out"
echo "== cluster benchmark $(date -u +%FT%TZ), $(nproc) cores, logs in $out"
echo "   primaries: ${sizes[*]}; $partitions partitions; (b): $connections connections x $records records, $duration"

hz=$(getconf CLK_TCK)
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }  # busy ticks, all cores, irq and softirq included
ticks_of() { local pid sum=0; for pid in "$@"; do sum=$((sum + $(bench_process_ticks "$pid"))); done; echo "$sum"; }
now() { date +%s.%N; }

# Like bench_wait_for_quiet, but by the CPU the machine uses now rather than the 1-minute load, which
# after the previous cluster size's run stays high for a minute whatever runs: wait (at most 60 s)
# until all processes together use at most a third of a core over 2 s.
wait_for_idle() {
  local before after busy=0
  for _ in $(seq 30); do
    before=$(machine_ticks); sleep 2; after=$(machine_ticks)
    busy=$(( 100 * (after - before) / hz / 2 ))
    ((busy <= 33)) && break
    echo "  (the machine used $busy % of a core over 2 s, waiting)"
  done
  echo "  machine: $busy % of a core busy over the last 2 s; load $(cut -d' ' -f1-3 /proc/loadavg)"
}

stop_pids() {  # pid...: SIGTERM, then SIGKILL after 20 s; dropped from the exit trap's list
  local pid kept=() p
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  for p in "${pids[@]}"; do [[ " $* " == *" $p "* ]] || kept+=("$p"); done
  pids=("${kept[@]}")
}

start_cluster() {  # primaries: sets cluster_pid, cluster_uri, node_pids, and port_of (partition -> its primary's port)
  local log=$out/cluster-$1.log
  java -cp "$launcher_jar" "$launcher_class" "$1" 0 15000 ${REDIS_SERVER:+"$REDIS_SERVER"} > "$log" 2>&1 &
  cluster_pid=$!
  pids+=("$cluster_pid")
  for _ in $(seq 600); do
    grep -q '^cluster ' "$log" && break
    kill -0 "$cluster_pid" 2>/dev/null || { echo "$bench_name: the cluster launcher exited:"; tail -20 "$log"; exit 1; }
    sleep 0.1
  done
  grep -q '^cluster ' "$log" || { echo "$bench_name: no cluster in 60 s; see $log"; exit 1; }
  cluster_uri=$(awk '/^cluster / {print $2}' "$log")
  # The nodes are the launcher's children; stopped by it, and by the trap should it die first.
  mapfile -t node_pids < <(pgrep -P "$cluster_pid")
  pids+=("${node_pids[@]}")
  local seed=${cluster_uri#redis-cluster://} p slot
  seed=${seed%%,*}
  seed_port=${seed##*:}
  port_of=()
  for ((p = 0; p < partitions; p++)); do
    slot=$(redis-cli -h "$host" -p "$seed_port" CLUSTER KEYSLOT "bench:telemetry:{$p}")
    port_of[p]=$(redis-cli -h "$host" -p "$seed_port" CLUSTER NODES | awk -v slot="$slot" '
      /master/ { for (i = 9; i <= NF; i++) { split($i, r, "-"); if (r[2] == "") r[2] = r[1];
                 if (slot >= r[1] && slot <= r[2]) { split($2, a, "[:@]"); print a[2]; exit } } }')
  done
  primary_ports=()
  mapfile -t primary_ports < <(awk '/^primary / {split($2, a, ":"); print a[2]}' "$log")
}

node_pid_of() {  # port: the node's pid (its command line ends in 127.0.0.1:port [cluster])
  local pid
  for pid in "${node_pids[@]}"; do
    tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q ":$1 " && { echo "$pid"; return; }
  done
}

xlen_of() {  # port partition...: entries in those partitions' streams
  local port=$1 sum=0 p
  shift
  for p in "$@"; do sum=$((sum + $(redis-cli -h "$host" -p "$port" XLEN "bench:telemetry:{$p}"))); done
  echo "$sum"
}

partitions_on() {  # port: the partitions whose primary it is
  local p list=()
  for ((p = 0; p < partitions; p++)); do [[ ${port_of[p]} == "$1" ]] && list+=("$p"); done
  echo "${list[*]}"
}

per_primary_line() {  # label seconds before-ticks-file after-ticks-file: each primary's partitions, share of the entries, CPU
  local label=$1 secs=$2 port list
  for port in "${primary_ports[@]}"; do
    list=$(partitions_on "$port")
    # shellcheck disable=SC2086
    echo "$port $(echo $list | wc -w) $(xlen_of "$port" $list)"
  done | python3 -c '
import sys
label, secs, hz = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
before = dict(l.split() for l in open(sys.argv[4])); after = dict(l.split() for l in open(sys.argv[5]))
rows = [l.split() for l in sys.stdin if l.strip()]
total = sum(int(n) for _, _, n in rows)
for port, k, n in rows:
    cpu = (int(after[port]) - int(before[port])) / hz / secs
    print(f"    {label} :{port} {int(k):2d} partitions, {100 * int(n) / max(total, 1):5.1f} % of the entries, CPU {100 * cpu:5.1f} % of a core")
' "$label" "$secs" "$hz" "$3" "$4"
}

stream_window() {  # partition...: "first-ms last-ms" of the entries in those streams (their ids are Redis's clock)
  local p first=0 last=0 f l
  for p in "$@"; do
    f=$(redis-cli -h "$host" -p "${port_of[p]}" XRANGE "bench:telemetry:{$p}" - + COUNT 1 | head -1)
    l=$(redis-cli -h "$host" -p "${port_of[p]}" XREVRANGE "bench:telemetry:{$p}" + - COUNT 1 | head -1)
    f=${f%-*} l=${l%-*}
    ((first == 0 || f < first)) && first=$f
    ((l > last)) && last=$l
  done
  echo "$first $last"
}

node_ticks_file() {  # file: "port ticks" per primary
  local port
  for port in "${primary_ports[@]}"; do echo "$port $(bench_process_ticks "$(node_pid_of "$port")")"; done > "$1"
}

sim() { java -jar "$sim_jar" --host "$host" --port "$tcp_port" ${SIM_THREADS:+--threads "$SIM_THREADS"} "$@"; }
stored_records() {  # records the server stored (written or found duplicate) so far
  curl -fs "http://$host:$http_port/metrics" | awk '/^teltonika_records_(written|duplicate)_total/ {r += $2} END {printf "%.0f\n", r}'
}

results=()
for primaries in "${sizes[@]}"; do
  echo
  echo "== $primaries primar$( ((primaries == 1)) && echo y || echo ies), no replicas"
  start_cluster "$primaries"
  redis_version=$(redis-cli -h "$host" -p "$seed_port" INFO server | tr -d '\r' | awk -F: '/^redis_version/ {print $2}')
  spread=$(for port in "${primary_ports[@]}"; do partitions_on "$port" | wc -w; done | paste -sd/)
  echo "cluster      $cluster_uri (redis $redis_version, launcher pid $cluster_pid); partitions per primary $spread"

  # -------------------------------------------------------------- (a) the cluster's limit
  per=$((xadd_total / partitions))
  clients=$(( (xadd_connections + partitions - 1) / partitions ))
  echo
  echo "(a) redis-benchmark: pipelined XADD MAXLEN ~ $bench_maxlen of one server-shaped entry into $partitions partition streams,"
  echo "    one redis-benchmark per partition on its primary (-c $clients -P 16 -n $per each), all at once"
  wait_for_idle
  node_ticks_file "$out/a-$primaries-before.txt"
  machine_a0=$(machine_ticks)
  a_started=$(now)
  TIMEFORMAT='%U %S'
  { time (
      for ((p = 0; p < partitions; p++)); do
        redis-benchmark -h "$host" -p "${port_of[p]}" -c "$clients" -P 16 -n "$per" --csv \
          XADD "bench:telemetry:{$p}" MAXLEN '~' "$bench_maxlen" '*' "${bench_entry[@]}" \
          > "$out/xadd-$primaries-$p.csv" 2> "$out/xadd-$primaries-$p.err" &
      done
      wait
    ); } 2> "$out/xadd-$primaries-cpu.txt"
  a_secs=$(python3 -c "import time; print(time.time() - $a_started)")
  machine_a1=$(machine_ticks)
  node_ticks_file "$out/a-$primaries-after.txt"
  stored=0
  for port in "${primary_ports[@]}"; do
    # shellcheck disable=SC2046
    stored=$((stored + $(xlen_of "$port" $(partitions_on "$port"))))
  done
  # redis-benchmark may send a few more than -n: the last pipelines of its connections run over.
  if ((stored < per * partitions)); then
    echo "$bench_name: (a) stored $stored entries of $((per * partitions)); see $out/xadd-$primaries-*.err" >&2
    exit 1
  fi
  per_primary_line "(a)" "$a_secs" "$out/a-$primaries-before.txt" "$out/a-$primaries-after.txt"
  # The rate is taken over the time Redis was writing: from the first entry's id to the last one's,
  # which leaves out the 16 clients' start and exit (on a busy machine, seconds of the wall time).
  read -r a_first a_last < <(stream_window $(seq 0 $((partitions - 1))))
  a_window=$(python3 -c "print(max($a_last - $a_first, 1) / 1000)")
  for port in "${primary_ports[@]}"; do
    # shellcheck disable=SC2046
    read -r f l < <(stream_window $(partitions_on "$port"))
    # shellcheck disable=SC2046
    n=$(xlen_of "$port" $(partitions_on "$port"))
    python3 -c "print(f'    (a) :$port alone: {$n / (max($l - $f, 1) / 1000):12,.0f} entries/s over its own {($l - $f) / 1000:.1f} s')"
  done
  read -r xadd_rps a_redis a_client a_others < <(python3 - "$out/a-$primaries-before.txt" "$out/a-$primaries-after.txt" \
    "$a_secs" "$hz" "$stored" "$(cat "$out/xadd-$primaries-cpu.txt")" "$machine_a0" "$machine_a1" "$a_window" <<'PY'
import sys
b = dict(l.split() for l in open(sys.argv[1])); a = dict(l.split() for l in open(sys.argv[2]))
secs, hz, n = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
redis = sum(int(a[k]) - int(b[k]) for k in a) / hz
client = sum(float(x) for x in sys.argv[6].split())
machine = (int(sys.argv[8]) - int(sys.argv[7])) / hz
print(n / float(sys.argv[9]), redis / secs, client / secs, max(0.0, machine - redis - client) / secs)
PY
  )
  python3 -c "
print(f'    XADD      {$xadd_rps:12,.0f} entries/s   ({$stored:,} entries between the first and the last id, {$a_window:.1f} s; '
      f'{$stored / $a_secs:,.0f}/s over the wall time {$a_secs:.1f} s, the clients starting and exiting included)')
print(f'    CPU: redis (all nodes) {100 * $a_redis:.0f} %, redis-benchmark {100 * $a_client:.0f} %, others {100 * $a_others:.0f} % of a core (other processes, softirq)')"
  for ((p = 0; p < partitions; p++)); do redis-cli -h "$host" -p "${port_of[p]}" DEL "bench:telemetry:{$p}" >/dev/null; done

  # -------------------------------------------------------------- (b) the server on the cluster
  jvm_opts=()
  # shellcheck disable=SC2206
  if [[ -n ${SERVER_JAVA_OPTS:-} ]]; then jvm_opts+=($SERVER_JAVA_OPTS); fi
  redis_port=$seed_port  # bench_start_server's default REDIS_URL, overridden below
  bench_start_server "cluster-bench-$primaries" REDIS_URL="$cluster_uri" REDIS_NAMESPACE='{bench}:' \
    TELEMETRY_PARTITIONS="$partitions" DEDUP_WINDOW="${DEDUP_WINDOW:-1h}" -- "${jvm_opts[@]}"
  echo
  echo "server       pid $server_pid, tcp $host:$tcp_port, $cluster_uri, $partitions partitions"
  echo
  echo "(b) closed-loop load: $connections connections x $records records, $duration (after a 5 s warm-up)"
  sim --load --connections "$connections" --records "$records" --duration 5s --progress 0 \
    --imei-base 35209308100000 > "$out/warmup-$primaries.log" 2>&1 || true
  echo "  load: $(cut -d' ' -f1-3 /proc/loadavg) (includes this run's own warm-up)"
  for port in "${primary_ports[@]}"; do redis-cli -h "$host" -p "$port" CONFIG RESETSTAT >/dev/null; done
  records_before=$(stored_records)
  node_ticks_file "$out/b-$primaries-before.txt"
  server_before=$(bench_process_ticks "$server_pid")
  machine_b0=$(machine_ticks)
  b_started=$(now)
  TIMEFORMAT='%U %S'
  { time sim --load --connections "$connections" --records "$records" --duration "$duration" --warmup 5s --progress 5s \
    > "$out/closed-$primaries.log" 2>&1; } 2> "$out/simulator-cpu-$primaries.txt" \
    || { echo "simulator failed:"; tail -15 "$out/closed-$primaries.log"; exit 1; }
  b_secs=$(python3 -c "import time; print(time.time() - $b_started)")
  machine_b1=$(machine_ticks)
  server_after=$(bench_process_ticks "$server_pid")
  node_ticks_file "$out/b-$primaries-after.txt"
  records_after=$(stored_records)
  sed -n -e 's/^/    /' -e '/^    \(packets\|records\|resends\|ack latency\|throughput\|steady\|result\)/p' "$out/closed-$primaries.log"
  load_rate=$(awk '/^steady/ {print $6}' "$out/closed-$primaries.log")
  [[ $load_rate =~ ^[0-9.]+$ ]] || { echo "no steady rate: see $out/closed-$primaries.log"; exit 1; }
  per_primary_line "(b)" "$b_secs" "$out/b-$primaries-before.txt" "$out/b-$primaries-after.txt"
  read -r b_redis b_server b_sim b_others redis_us server_us sim_us b_stored < <(python3 - \
    "$out/b-$primaries-before.txt" "$out/b-$primaries-after.txt" "$b_secs" "$hz" \
    "$server_before" "$server_after" "$(cat "$out/simulator-cpu-$primaries.txt")" "$machine_b0" "$machine_b1" \
    "$records_before" "$records_after" <<'PY'
import sys
b = dict(l.split() for l in open(sys.argv[1])); a = dict(l.split() for l in open(sys.argv[2]))
secs, hz = float(sys.argv[3]), int(sys.argv[4])
redis = sum(int(a[k]) - int(b[k]) for k in a) / hz
server = (int(sys.argv[6]) - int(sys.argv[5])) / hz
sim = sum(float(x) for x in sys.argv[7].split())
machine = (int(sys.argv[9]) - int(sys.argv[8])) / hz
n = float(sys.argv[11]) - float(sys.argv[10])
us = lambda s: 1e6 * s / max(n, 1)
print(redis / secs, server / secs, sim / secs, max(0.0, machine - redis - server - sim) / secs,
      us(redis), us(server), us(sim), int(n))
PY
  )
  python3 -c "
print(f'    CPU during the run ({$b_secs:.1f} s; 100 % = one core): redis (all nodes) {100 * $b_redis:.0f} %, server {100 * $b_server:.0f} %, '
      f'simulator {100 * $b_sim:.0f} % (its JVM start included), others {100 * $b_others:.0f} % (other processes, softirq)')
print(f'    CPU per stored record ({$b_stored:,} stored meanwhile): redis {$redis_us:.1f} us, server {$server_us:.1f} us, simulator {$sim_us:.1f} us')"

  # Where Redis's time went (INFO commandstats of every primary, reset at the start of the run; a
  # script's own commands are counted too, inside its EVALSHA's time).
  for port in "${primary_ports[@]}"; do redis-cli -h "$host" -p "$port" INFO commandstats; done | tr -d '\r' \
    | python3 -c '
import collections, re, sys
calls, usec = collections.Counter(), collections.Counter()
for line in sys.stdin:
    m = re.match(r"cmdstat_([a-z|]+):calls=(\d+),usec=(\d+)", line)
    if m:
        calls[m.group(1)] += int(m.group(2)); usec[m.group(1)] += int(m.group(3))
stored = max(int(sys.argv[1]), 1)
top = ", ".join(f"{c} {calls[c]:,} calls {usec[c] / max(calls[c], 1):.1f} us each" for c, _ in usec.most_common(4))
per_call = stored / max(calls["evalsha"], 1)
print(f"    redis commandstats (all primaries): {top}; {per_call:.1f} records per EVALSHA")
' "$b_stored"

  # -------------------------------------------------------------- (c)
  echo
  python3 - "$load_rate" "$xadd_rps" "$primaries" <<'PY'
import sys
b, a, p = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"(c) ratio    {b:,.0f} / {a:,.0f} = {b / a:.2f}   (steady end-to-end acknowledged records/s over the cluster's pipelined XADD/s)")
print(f"    per primary: (b) {b / p:,.0f} records/s, (a) {a / p:,.0f} entries/s")
PY
  results+=("$primaries $spread $xadd_rps $load_rate $redis_us $server_us $sim_us $a_others $b_others")

  stop_pids "$server_pid"
  mv "$out/server.log" "$out/server-$primaries.log"
  problems=$(grep -c -E '(WARN|ERROR)' "$out/server-$primaries.log" || true)
  ((problems == 0)) || echo "    the server logged $problems WARN/ERROR lines: $out/server-$primaries.log"
  stop_pids "$cluster_pid" "${node_pids[@]}"
done

# ---------------------------------------------------------------- summary
echo
echo "== summary ($(nproc) cores; CPU per stored record in (b); 'others' = the rest of the machine's busy time in (a) / (b): other processes and softirq, % of a core)"
python3 - "${results[@]}" <<'PY'
import sys
print("| primaries | partitions per primary | (a) XADD/s | (a) per primary | (b) records/s | (b) per primary | (c) (b)/(a) | CPU/record redis / server / sim | others (a) / (b) |")
print("|---|---|---|---|---|---|---|---|---|")
rows = [r.split() for r in sys.argv[1:]]
for p, spread, a, b, r_us, s_us, m_us, oa, ob in rows:
    p, a, b = int(p), float(a), float(b)
    print(f"| {p} | {spread} | {a:,.0f} | {a / p:,.0f} | {b:,.0f} | {b / p:,.0f} | {b / a:.2f} | "
          f"{float(r_us):.1f} / {float(s_us):.1f} / {float(m_us):.1f} us | {100 * float(oa):.0f} % / {100 * float(ob):.0f} % |")
if len(rows) > 1:
    base_a, base_b = float(rows[0][2]), float(rows[0][3])
    for r in rows[1:]:
        print(f"{r[0]} primaries against {rows[0][0]}: (a) x{float(r[2]) / base_a:.2f}, (b) x{float(r[3]) / base_b:.2f}")
PY
echo
echo "logs in $out"
