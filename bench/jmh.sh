#!/usr/bin/env bash
# Codec JMH benchmarks (module benchmarks): AVL decode of Codec 8/8E/16 packets of 1, 10 and 50
# records from a pooled direct and an unpooled heap buffer, and the TCP framing loop over 100
# coalesced frames, and the server's encoding of a packet's records into XADD commands
# (EntryEncodeBenchmark). Short settings for a 2-core machine; -prof gc for allocation per operation.
# Usage: bench/jmh.sh [JMH options or benchmark regexp...]   e.g. bench/jmh.sh -p buffer=pooled Decode
# Prints JMH's own table, then one summary per benchmark: records/s, MB/s, B allocated per record.
set -euo pipefail
cd "$(dirname "$0")/.."
jar=benchmarks/target/benchmarks.jar
if [[ ! -f $jar || -n ${REBUILD:-} ]]; then
  mvn -B -q -ntp -pl benchmarks -am -DskipTests package
fi
out=${JMH_RESULT:-benchmarks/target/jmh-result.json}
echo "load before: $(uptime)"
# Override the run lengths with JMH_OPTS, e.g. JMH_OPTS="-f 1 -wi 1 -w 1s -i 1 -r 1s" for a smoke run.
# shellcheck disable=SC2086
java -jar "$jar" ${JMH_OPTS:--f 1 -wi 3 -w 2s -i 5 -r 2s} -prof gc -rf json -rff "$out" "$@"
echo "load after: $(uptime)"
python3 - "$out" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
def sec(r, name):
    m = r["secondaryMetrics"].get(name)
    return float(m["score"]) if m else None
print()
print("| benchmark | params | ops/s (± 99.9%) | records/s | MB/s | B alloc/op | B alloc/record |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    name = r["benchmark"].rsplit(".", 2)[-2] + "." + r["benchmark"].rsplit(".", 1)[-1]
    p = r.get("params", {})
    params = " ".join(f"{k}={v}" for k, v in p.items())
    ops, err = r["primaryMetric"]["score"], r["primaryMetric"]["scoreError"]
    err = err if isinstance(err, (int, float)) else float("nan")
    norm = sec(r, "gc.alloc.rate.norm")
    recs = int(p.get("records", 1))
    rec_s = sec(r, "records")
    by = sec(r, "bytes")
    if rec_s is None:                      # framer: one op is one frame of `records` records
        rec_s = ops * recs
    mb = f"{by / 1e6:,.0f}" if by is not None else "-"
    alloc = f"{norm:,.0f}" if norm is not None else "-"
    per_rec = f"{norm / recs:,.0f}" if norm is not None else "-"
    print(f"| {name} | {params} | {ops:,.0f} (± {err:,.0f}) | {rec_s:,.0f} | {mb} | {alloc} | {per_rec} |")
PY
