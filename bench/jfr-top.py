#!/usr/bin/env python3
"""Aggregates `jfr print` output: where CPU samples and allocations go.

    jfr print --stack-depth 64 --events jdk.ExecutionSample,jdk.ObjectAllocationSample rec.jfr > rec.txt
    bench/jfr-top.py rec.txt [top=20] [threads=regex]

threads: only the events of the threads whose name matches (e.g. 'bridge-'), to split one
component's time from the rest of a JVM that also runs the load and the sink.

Prints, for jdk.ExecutionSample: the share of samples per thread group, per top frame (self
time) and per method anywhere on the stack (inclusive); for jdk.ObjectAllocationSample: the
sampled bytes (weight) per class and per allocating frame (first frame outside java.*/jdk.*).
"""
import collections
import re
import sys

path = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
only = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None

events = []
cur = None
in_stack = False
for line in open(path, encoding="utf-8", errors="replace"):
    s = line.strip()
    m = re.match(r"^(jdk\.\w+) \{$", s)
    if m:
        cur = {"type": m.group(1), "stack": []}
        events.append(cur)
        in_stack = False
        continue
    if cur is None:
        continue
    if s.startswith("stackTrace = ["):
        in_stack = True
        continue
    if in_stack:
        if s == "]" or s == "...":
            in_stack = s != "]" and in_stack
            if s == "]":
                in_stack = False
            continue
        frame = re.sub(r"\s+line: \d+.*$", "", s)
        frame = re.sub(r"\(.*\)$", "", frame)
        cur["stack"].append(frame)
        continue
    m = re.match(r'^sampledThread = "([^"]*)"', s) or re.match(r'^eventThread = "([^"]*)"', s)
    if m:
        cur["thread"] = m.group(1)
    m = re.match(r"^objectClass = (\S+)", s)
    if m:
        cur["class"] = m.group(1)
    m = re.match(r"^weight = ([\d.,]+) (bytes|kB|MB|GB)", s)
    if m:
        mult = {"bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}[m.group(2)]
        cur["weight"] = float(m.group(1).replace(",", "")) * mult


def thread_group(name):
    return re.sub(r"[-#]?\d+$", "", name or "?")


def show(title, counter, total, unit="%"):
    print(f"  {title}")
    for key, n in counter.most_common(top):
        print(f"    {100.0 * n / total:5.1f} %  {key}")


if only:
    events = [e for e in events if only.search(e.get("thread") or "")]
samples = [e for e in events if e["type"] == "jdk.ExecutionSample" and e["stack"]]
if samples:
    n = len(samples)
    print(f"jdk.ExecutionSample: {n} samples")
    show("by thread", collections.Counter(thread_group(e.get("thread")) for e in samples), n)
    show("top frame (self)", collections.Counter(e["stack"][0] for e in samples), n)
    incl = collections.Counter()
    for e in samples:
        for f in set(e["stack"]):
            incl[f] += 1
    show("on the stack (inclusive)", incl, n)

allocs = [e for e in events if e["type"] == "jdk.ObjectAllocationSample" and "weight" in e]
if allocs:
    total = sum(e["weight"] for e in allocs)
    print(f"jdk.ObjectAllocationSample: {len(allocs)} samples, {total / 1e6:,.0f} MB sampled weight")
    by_class = collections.Counter()
    by_site = collections.Counter()
    for e in allocs:
        by_class[e.get("class", "?")] += e["weight"]
        site = next((f for f in e["stack"] if not f.startswith(("java.", "jdk.", "sun."))),
                    e["stack"][0] if e["stack"] else "?")
        by_site[site] += e["weight"]
    show("by class", by_class, total)
    show("by allocating frame (first outside the JDK)", by_site, total)
