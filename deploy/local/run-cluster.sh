#!/usr/bin/env bash
# A cluster of N ingestion-server replicas on this machine, sharing one Redis, loopback only.
#
#   deploy/local/run-cluster.sh [--replicas N] [--redis-port P] [--redis-url URL] [--detach]
#   deploy/local/run-cluster.sh --stop
#
# Replica i (1..N) listens on TCP and UDP 5027+i-1, HTTP 8080+i-1 and its health port (HEALTH_PORT,
# /health/* and /metrics) 9080+i-1, with INSTANCE_ID=local-i, so replica 1 has the server's default
# device and HTTP ports (not its health port: 8081 is replica 2's HTTP port). All replicas use the same REDIS_URL and API_TOKEN.
# Without --redis-url a redis-server from the PATH is started on 127.0.0.1:--redis-port (6399).
# In the foreground (default) Ctrl-C stops everything; --detach returns once all are ready and
# --stop ends that run later (pid files in deploy/local/logs/pids). Logs: deploy/local/logs/.
#
# Environment: API_TOKEN (default: random per run), HEARTBEAT_TTL_MS (10000),
# HEARTBEAT_INTERVAL_MS (3000), JANITOR_INTERVAL_MS (5000) -- short, so a killed replica's
# registry entries go within seconds -- LOG_LEVEL (INFO), JAVA_OPTS (-Xmx256m), and any other
# setting of the README's table, passed through as is.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
LOGS="$HERE/logs"
PIDS="$LOGS/pids"
JAR="$REPO/ingestion-server/target/ingestion-server.jar"
SIMULATOR="$REPO/device-simulator/target/device-simulator.jar"

REPLICAS=3
REDIS_PORT=6399
REDIS_URL_ARG=""
DETACH=false
STOP=false
READY_TIMEOUT=90

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --replicas) REPLICAS="${2:?--replicas needs a number}"; shift 2 ;;
    --redis-port) REDIS_PORT="${2:?--redis-port needs a port}"; shift 2 ;;
    --redis-url) REDIS_URL_ARG="${2:?--redis-url needs a URL}"; shift 2 ;;
    --detach) DETACH=true; shift ;;
    --stop) STOP=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown argument: $1" >&2; usage >&2; exit 64 ;;
  esac
done
[[ "$REPLICAS" =~ ^[1-9][0-9]?$ ]] || { echo "--replicas must be 1..99" >&2; exit 64; }

# ---- stopping --------------------------------------------------------------------------------

# Is $1 still the process we started (and not a recycled pid)? $2: a word of its command line.
is_ours() {
  local pid="$1" word="$2"
  [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$word"
}

# SIGTERM the replicas (they drain and release their registry entries), then Redis.
stop_all() {
  local f pid deadline any=false
  shopt -s nullglob
  for f in "$PIDS"/replica-*.pid; do
    pid="$(cat "$f")"
    if is_ours "$pid" ingestion-server.jar; then
      kill -TERM "$pid" 2>/dev/null || true
      any=true
    fi
  done
  if $any; then
    echo "stopping replicas (SIGTERM, up to 30 s)..."
    deadline=$((SECONDS + 30))
    for f in "$PIDS"/replica-*.pid; do
      pid="$(cat "$f")"
      while is_ours "$pid" ingestion-server.jar && ((SECONDS < deadline)); do sleep 0.2; done
      if is_ours "$pid" ingestion-server.jar; then
        echo "replica pid $pid did not stop in time: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
      fi
    done
  fi
  rm -f "$PIDS"/replica-*.pid
  if [[ -f "$PIDS/redis.pid" ]]; then
    pid="$(cat "$PIDS/redis.pid")"
    if is_ours "$pid" redis-server; then
      echo "stopping redis-server (pid $pid)..."
      kill -TERM "$pid" 2>/dev/null || true
      deadline=$((SECONDS + 10))
      while is_ours "$pid" redis-server && ((SECONDS < deadline)); do sleep 0.2; done
      is_ours "$pid" redis-server && kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$PIDS/redis.pid"
  fi
  shopt -u nullglob
}

if $STOP; then
  if [[ ! -d "$PIDS" ]] || [[ -z "$(ls -A "$PIDS" 2>/dev/null)" ]]; then
    echo "no run to stop (no pid files in $PIDS)"
    exit 0
  fi
  stop_all
  echo "stopped."
  exit 0
fi

# ---- starting --------------------------------------------------------------------------------

if [[ ! -f "$JAR" ]]; then
  echo "missing $JAR; build it first:  (cd $REPO && mvn -B -ntp -DskipTests package)" >&2
  exit 1
fi
command -v java >/dev/null || { echo "java (17+) is not on the PATH" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is not on the PATH" >&2; exit 1; }
mkdir -p "$PIDS"
if [[ -n "$(ls -A "$PIDS" 2>/dev/null)" ]]; then
  echo "pid files of an earlier run are in $PIDS: run '$0 --stop' first" >&2
  exit 1
fi

port_busy() {  # TCP port on 127.0.0.1 accepting connections?
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

for ((i = 1; i <= REPLICAS; i++)); do
  for p in $((5027 + i - 1)) $((8080 + i - 1)) $((9080 + i - 1)); do
    if port_busy "$p"; then
      echo "port $p on 127.0.0.1 is taken (replica $i needs it); stop what uses it or use fewer replicas" >&2
      exit 1
    fi
  done
done

rm -f "$LOGS"/replica-*.log "$LOGS"/redis.log   # logs of the previous run

cleanup_on_exit=true
on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  if $cleanup_on_exit; then
    stop_all
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Children run in their own session (setsid), so a Ctrl-C reaches only this script, which then
# stops the replicas before Redis: they can still release their registry entries on the way out.
# Called as `detach cmd ... &`: exec replaces the background subshell, so $! is the command's pid.
detach() { if command -v setsid >/dev/null; then exec setsid "$@"; else exec "$@"; fi; }

if [[ -n "$REDIS_URL_ARG" ]]; then
  REDIS_URL="$REDIS_URL_ARG"
  echo "using the Redis at $REDIS_URL (not started here)"
else
  if ! command -v redis-server >/dev/null; then
    cat >&2 <<EOF
redis-server is not on the PATH. Install it (Debian/Ubuntu):
  sudo apt-get update && sudo apt-get install -y redis-server
or point the replicas at a Redis you run: $0 --redis-url redis://127.0.0.1:6379
(The server's own embedded Redis is per process, so it cannot be shared by replicas.)
EOF
    cleanup_on_exit=false
    exit 1
  fi
  if port_busy "$REDIS_PORT"; then
    echo "port $REDIS_PORT is taken; choose another with --redis-port, or use it with --redis-url" >&2
    exit 1
  fi
  detach redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no \
      --dir "$LOGS" --protected-mode yes >"$LOGS/redis.log" 2>&1 &
  echo $! >"$PIDS/redis.pid"
  for _ in $(seq 1 50); do port_busy "$REDIS_PORT" && break; sleep 0.1; done
  port_busy "$REDIS_PORT" || { echo "redis-server did not start; see $LOGS/redis.log" >&2; exit 1; }
  REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
  echo "redis-server on $REDIS_URL (pid $(cat "$PIDS/redis.pid"), log $LOGS/redis.log)"
fi

API_TOKEN="${API_TOKEN:-local-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}"
export REDIS_URL API_TOKEN
export HEARTBEAT_TTL_MS="${HEARTBEAT_TTL_MS:-10000}"
export HEARTBEAT_INTERVAL_MS="${HEARTBEAT_INTERVAL_MS:-3000}"
export JANITOR_INTERVAL_MS="${JANITOR_INTERVAL_MS:-5000}"
export LOG_LEVEL="${LOG_LEVEL:-INFO}"
export BIND_ADDRESS=127.0.0.1
read -r -a JVM_OPTS <<<"${JAVA_OPTS:--Xmx256m}"

for ((i = 1; i <= REPLICAS; i++)); do
  log="$LOGS/replica-$i.log"
  INSTANCE_ID="local-$i" TCP_PORT=$((5027 + i - 1)) UDP_PORT=$((5027 + i - 1)) HTTP_PORT=$((8080 + i - 1)) \
    HEALTH_PORT=$((9080 + i - 1)) \
    detach java "${JVM_OPTS[@]}" -jar "$JAR" >"$log" 2>&1 &
  echo $! >"$PIDS/replica-$i.pid"
done

# Wait for each replica's "ready:" line (or its death).
declare -A INSTANCE
for ((i = 1; i <= REPLICAS; i++)); do
  log="$LOGS/replica-$i.log"
  pid="$(cat "$PIDS/replica-$i.pid")"
  deadline=$((SECONDS + READY_TIMEOUT))
  until grep -q ' ready: ' "$log" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "replica $i exited before it was ready; the end of $log:" >&2
      tail -n 20 "$log" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "replica $i not ready after ${READY_TIMEOUT}s; see $log" >&2
      exit 1
    fi
    sleep 0.3
  done
  INSTANCE[$i]="$(grep -m1 ' ready: ' "$log" | sed -n 's/.* ready: instance=\([^ ]*\).*/\1/p')"
done

# From here on a detached run stays up even if this script dies (e.g. its output pipe closes).
if $DETACH; then cleanup_on_exit=false; fi

echo
printf '%-8s %-14s %-8s %-16s %-16s %-16s %-16s %s\n' replica instance pid tcp udp http health log
for ((i = 1; i <= REPLICAS; i++)); do
  printf '%-8s %-14s %-8s %-16s %-16s %-16s %-16s %s\n' "$i" "${INSTANCE[$i]}" "$(cat "$PIDS/replica-$i.pid")" \
    "127.0.0.1:$((5027 + i - 1))" "127.0.0.1:$((5027 + i - 1))" "127.0.0.1:$((8080 + i - 1))" \
    "127.0.0.1:$((9080 + i - 1))" \
    "${LOGS#"$REPO"/}/replica-$i.log"
done
cat <<EOF

REDIS_URL=$REDIS_URL  API_TOKEN=$API_TOKEN
HEARTBEAT_TTL_MS=$HEARTBEAT_TTL_MS  HEARTBEAT_INTERVAL_MS=$HEARTBEAT_INTERVAL_MS  JANITOR_INTERVAL_MS=$JANITOR_INTERVAL_MS

Try:
  curl -s -H 'Authorization: Bearer $API_TOKEN' http://127.0.0.1:8080/api/v1/instances
  java -jar ${SIMULATOR#"$REPO"/} --host 127.0.0.1 --port 5027 --devices 5 --interval 1s --duration 30s
  curl -s http://127.0.0.1:9080/health/ready    # replica 1's health port (also on 8080)
  redis-cli -p ${REDIS_PORT} HGETALL connections:registry
  kill -9 <pid of a replica>    # its registry entries go within HEARTBEAT_TTL_MS + JANITOR_INTERVAL_MS
EOF

if $DETACH; then
  echo
  echo "detached; stop with: $0 --stop"
  exit 0
fi

echo
echo "Ctrl-C stops the replicas and Redis."
declare -A REPORTED
while true; do
  for ((i = 1; i <= REPLICAS; i++)); do
    pid="$(cat "$PIDS/replica-$i.pid" 2>/dev/null || true)"
    if [[ -n "$pid" && -z "${REPORTED[$i]:-}" ]] && ! kill -0 "$pid" 2>/dev/null; then
      echo "$(date -u +%H:%M:%S) replica $i (${INSTANCE[$i]}, pid $pid) is gone; the others keep running"
      REPORTED[$i]=1
    fi
  done
  sleep 1
done
