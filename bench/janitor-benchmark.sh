#!/usr/bin/env bash
# Janitor benchmark: one pass over 1,000,000 registry entries of 200 instances, half dead.
# Usage: bench/janitor-benchmark.sh [entries] [instances] [hscan-count]
set -euo pipefail
cd "$(dirname "$0")/.."
cp_file=$(mktemp)
# One reactor run, so the janitor's own modules (codec, redis-launcher, test-kit, redis, registry) resolve to their
# classes; the last module written, janitor, leaves its test classpath in the file.
mvn -B -q -ntp -pl janitor -am test-compile dependency:build-classpath -DskipTests \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >/dev/null
cp="janitor/target/test-classes:janitor/target/classes:registry/target/classes:$(cat "$cp_file")"
rm -f "$cp_file"
exec java -Xmx2g -cp "$cp" org.fleetpipe.teltonika.janitor.bench.JanitorBenchmark "$@"
