# Shared by the load scripts: preconditions, the jars, and stopping what a script started.
# Source it after `cd` to the project root; `bench_name` names the script in error messages.

bench_require_tools() {  # every tool named must be on the PATH
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$bench_name: $tool not found on the PATH" >&2; exit 2; }
  done
}

bench_require_free_ports() {  # host port...: none may be taken
  local host=$1 port
  shift
  for port in "$@"; do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
      echo "$bench_name: port $port on $host is taken; set REDIS_PORT/TCP_PORT/HTTP_PORT" >&2
      exit 2
    fi
  done
}

# SERVER_JAR=path: another build of the server (a before/after comparison); built here only when unset.
server_jar=${SERVER_JAR:-ingestion-server/target/ingestion-server.jar}
sim_jar=device-simulator/target/device-simulator.jar
bench_build_jars() {
  if [[ ! -f $server_jar || ! -f $sim_jar ]]; then
    mvn -B -q -ntp -DskipTests package -pl ingestion-server,device-simulator -am
  fi
}

bench_open_files() {  # n: raise the soft open-file limit to the hard one; exit 2 if n do not fit
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  if (( $1 > $(ulimit -n) )); then
    echo "$bench_name: $1 open files needed, more than the open-file limit $(ulimit -n)" >&2
    exit 2
  fi
}

# The two below use the script's host, redis_port, tcp_port, http_port and out (its log directory).
bench_start_redis() {  # [redis-server options...]: Redis on $host:$redis_port, up and answering; sets redis_pid
  redis-server --bind "$host" --port "$redis_port" --save '' --appendonly no --dir "$out" \
    --logfile "$out/redis.log" --daemonize no "$@" &
  redis_pid=$!
  pids+=("$redis_pid")
  for _ in $(seq 50); do redis-cli -h "$host" -p "$redis_port" PING >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "$bench_name: redis-server did not answer on $host:$redis_port; see $out/redis.log" >&2
  exit 1
}

# Every simulated device comes from one address, which the per-address limits against hostile hosts
# would take for one host spraying IMEIs and holding logins open; they are off here (a script's own
# settings come after, so it may turn them on), and the pre-login cap is out of the way (the
# connection cap still bounds those connections). One simulated device sends far more than a tracker,
# so the per-device rate budgets and stream share are off too (TELEMETRY_FAIR_SHARE_FROM=0.8 in the
# environment turns the shares on: they cost something only while a consumer group lags near the cap).
bench_start_server() {  # instance-id [VAR=value...] [-- java options...]: the server jar, ready; sets server_pid
  local id=$1 settings=()
  shift
  while (( $# )) && [[ $1 != -- ]]; do settings+=("$1"); shift; done
  [[ ${1:-} == -- ]] && shift
  env REDIS_URL="redis://$host:$redis_port" BIND_ADDRESS="$host" TCP_PORT="$tcp_port" UDP_PORT=0 \
    HTTP_PORT="$http_port" HEALTH_PORT=0 API_TOKEN="bench-$bench_name-0123456789abcdef0123456789abcdef" INSTANCE_ID="$id" LOG_LEVEL=WARN \
    MAX_NEW_IMEIS_PER_ADDRESS_PER_MINUTE=0 MAX_PRE_LOGIN_CONNECTIONS_PER_ADDRESS=0 \
    DEVICE_RECORDS_PER_SECOND=0 DEVICE_BYTES_PER_SECOND=0 TELEMETRY_FAIR_SHARE_FROM="${TELEMETRY_FAIR_SHARE_FROM:-1}" \
    MAX_ACCEPTS_PER_NETWORK_PER_SECOND=0 MAX_PRE_LOGIN_CONNECTIONS=1000000 "${settings[@]}" \
    java "$@" -jar "$server_jar" > "$out/server.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  bench_wait_ready "$host" "$http_port" "$server_pid" "$out/server.log"
  if grep -q "running on NIO" "$out/server.log"; then  # the server warns: native epoll did not load
    local nio="$bench_name: server transport: NIO, not epoll ($(grep -o "NIO (.*" "$out/server.log" | head -1)); its numbers are not comparable"
    echo "$nio"; echo "$nio" >&2
  fi
}

bench_wait_ready() {  # host http-port pid log: the server's /health/ready within 30 s, or exit
  local host=$1 port=$2 pid=$3 log=$4
  for _ in $(seq 300); do
    curl -fs "http://$host:$port/health/ready" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { echo "$bench_name: server exited:"; tail -20 "$log"; exit 1; }
    sleep 0.1
  done
  echo "$bench_name: server not ready in 30 s; see $log"
  exit 1
}

# Other builds on the machine distort every number: wait (at most 2 min) for a quiet box.
bench_wait_for_quiet() {
  local load
  for _ in $(seq 24); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    LC_ALL=C awk -v load="$load" 'BEGIN { exit !(load + 0 <= 1.5) }' && break
    echo "  (1-min load $load > 1.5, waiting 5 s)"
    sleep 5
  done
  echo "  load: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# One entry as the server writes it for a simulator Codec 8 record (TelemetryEntryMapper's
# fields and order; IO as the simulator sends: 239, 240, 21, 66, 67, 16, 11), about 300 bytes.
bench_entry=(imei 352093081452251 codec 8 ts 1763800000000 rx 1763800000214 priority 0
  lat 54.6871555 lon 25.2796514 alt 112 angle 245 sat 14 speed 47 event 0
  io '{"239":1,"240":1,"21":5,"66":13903,"67":3946,"16":45325566,"11":8937060100001234567}' valid 1
  instance "$(uname -n)-1" schema 2)
bench_maxlen=1000000

bench_csv_rps() {  # requests/s from redis-benchmark --csv: 7th field from the end (the test name holds quotes and commas)
  tail -1 "$1" | awk -F'","' '{print $(NF-6)}'
}

bench_xadd_limit() {  # (a): pipelined XADD of bench_entry into telemetry-bench; prints it, sets xadd_rps
  local n=1000000
  redis-benchmark -h "$host" -p "$redis_port" -c 50 -P 16 -n "$n" --csv \
    XADD telemetry-bench MAXLEN '~' "$bench_maxlen" '*' "${bench_entry[@]}" > "$out/xadd.csv"
  xadd_rps=$(bench_csv_rps "$out/xadd.csv")
  printf '    XADD      %12.0f entries/s   (-c 50 -P 16 -n %d)\n' "$xadd_rps" "$n"
  redis-cli -h "$host" -p "$redis_port" DEL telemetry-bench >/dev/null
}

bench_child_pid() {  # pid name: the first child of pid whose name holds name, or nothing (pgrep -P pid name, without procps)
  local stat line after name ppid
  for stat in /proc/[0-9]*/stat; do
    { IFS= read -r line < "$stat"; } 2>/dev/null || continue   # gone meanwhile
    # "pid (name) state ppid ...": the name may hold spaces and parentheses, so split at its last ") ".
    after=${line##*") "} name=${line%") "*}
    read -r _ ppid _ <<< "$after"
    [[ $ppid == "$1" && ${name#*"("} == *"$2"* ]] && { echo "${stat//[!0-9]/}"; return 0; }
  done
  return 1
}

# pid n: field n of /proc/<pid>/stat as proc(5) numbers them (the name in parentheses may hold spaces).
bench_stat_field() { awk -v n="$2" '{sub(/^[^)]*\) /, ""); print $(n - 2)}' "/proc/$1/stat"; }
bench_kernel_ticks() { bench_stat_field "$1" 15; }  # pid: its CPU ticks in the kernel so far (stime)
bench_page_faults() { bench_stat_field "$1" 10; }   # pid: minor page faults so far (first touches of memory)
# pid: times its main thread slept and was woken so far (voluntary context switches: for Redis, an
# epoll_wait that found nothing ready and waited).
bench_wakeups() { awk '/^voluntary_ctxt_switches:/ {print $2}' "/proc/$1/status"; }
# pid: times its main thread was taken off its CPU while it could still run (another thread's turn).
bench_preemptions() { awk '/^nonvoluntary_ctxt_switches:/ {print $2}' "/proc/$1/status"; }
bench_process_ticks() { awk '{sub(/^[^)]*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }  # pid: CPU ticks so far

# awk with the functions of bench/lib.awk (thousands, round_even, div, decimal, die), in the C locale:
# the program comes from stdin (a heredoc), its arguments are ARGV[1]..; a BEGIN-only program reads
# no input, another reads the files named (or getline from them).
bench_awk() { LC_ALL=C awk "$(< bench/lib.awk)"$'\n'"$(cat)" "$@"; }

# Every process started goes into pids; on exit each gets SIGTERM, then SIGKILL after 20 s.
pids=()
bench_cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM
