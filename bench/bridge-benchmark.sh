#!/usr/bin/env bash
# Records per second through each bridge against the sink's own limit, measured in the same run
# (issue 32 item 7): the same payloads sent by a bare client first (a Kafka producer with the
# bridge's settings; HTTP POSTs of 500 JSON lines from 4 threads), then by a bridge reading them
# from the stream, delivering and acknowledging. Kafka is a real broker in the same JVM (KRaft),
# HTTP a JDK server that counts lines; Redis is REDIS_URL or a local redis-server started here.
# postgres: a real PostgreSQL started from embedded-postgres' binaries (the test dependency, from
# ~/.m2; as root run in a user namespace), the bare client one JDBC connection per lane writing
# the sink's own statement (a batch as one jsonb array, ON CONFLICT DO NOTHING) into its own table.
# Everything on loopback. About a minute for 200,000 records.
#
# The bridge measured is the one of the tree the script is in (built here, run in this JVM, no jar):
# for a before/after comparison, run it in a worktree of each commit (git worktree add), in turns.
#
# Before the listed sinks, WARMUP (default 3) runs of the bridge with the `none` sink, printed as
# warm-up rows: the first runs in a JVM spend up to half their CPU compiling (JIT: 47 % of the
# first, still 27 % of the third, per-thread CPU from /proc), paid once per process; the rows after
# them are the warm ones the targets speak of. WARMUP=0: none.
#
# After the rows, for the `none` and `http` sinks when listed: the delivery delay (issue 41 item 5),
# records written at half the bridge's best rate for that sink (rx = the time of writing) for
# DELAY_SECONDS (default 10; 0: not measured), the p50 and p99 of the bridge's
# teltonika_bridge_delivery_delay histogram after the first 2 s (bucket bounds: "at most").
#
# Usage: bench/bridge-benchmark.sh [records=200000] [sinks=kafka,http] (sinks: kafka, http, postgres, none)
set -euo pipefail
cd "$(dirname "$0")/.."
records=${1:-200000}
sinks=${2:-kafka,http}
# One reactor run: the modules' own classes resolve to their target/ folders.
mvn -B -q -ntp -DskipTests -pl bridge -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/bridge-bench.classpath
classpath="bridge/target/test-classes:bridge/target/classes:$(cat bridge/target/bridge-bench.classpath)"
exec java -Xmx2g -Dwarmup="${WARMUP:-3}" -DdelaySeconds="${DELAY_SECONDS:-10}" -cp "$classpath" org.fleetpipe.teltonika.bridge.BridgeBenchmark "$records" "$sinks"
