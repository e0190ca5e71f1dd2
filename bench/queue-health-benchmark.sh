#!/usr/bin/env bash
# Queue health and purge: the Redis cost of one pass each at a fleet's scale (10,000 devices with queued commands).
# Usage: bench/queue-health-benchmark.sh [devices=10000] [passes=5]   (REDIS_URL: a Redis to flush and fill; else embedded)
set -euo pipefail
cd "$(dirname "$0")/.."
cp_file=$(mktemp)
# One reactor run, so the project's own modules resolve to their classes; benchmarks is the last module written.
mvn -B -q -ntp -pl benchmarks -am test-compile dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$cp_file" >/dev/null
cp="benchmarks/target/classes:$(cat "$cp_file")"
rm -f "$cp_file"
exec java -Xmx1g -cp "$cp" org.fleetpipe.teltonika.benchmarks.QueueHealthPurgeBenchmark "$@"
