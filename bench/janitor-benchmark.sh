#!/usr/bin/env bash
# Janitor benchmark: one pass over 1,000,000 registry entries of 200 instances, half dead.
# Usage: bench/janitor-benchmark.sh [entries] [instances] [hscan-count]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -ntp -pl janitor -am test-compile -DskipTests
cp_file=$(mktemp)
mvn -B -q -ntp -pl janitor dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test >/dev/null
cp="janitor/target/test-classes:janitor/target/classes:registry/target/classes:codec/target/classes:$(cat "$cp_file")"
rm -f "$cp_file"
exec java -Xmx2g -cp "$cp" org.fleetpipe.teltonika.janitor.bench.JanitorBenchmark "$@"
