#!/usr/bin/env python3
"""Bytes a JVM's threads allocated over a JFR recording made with bench/alloc.jfc.

    jfr print --json --events jdk.ThreadAllocationStatistics rec.jfr > rec.json
    bench/jfr-allocated.py rec.json

The recording holds every thread's count at its start and at its end. Prints the total of the
differences; a thread born during the recording counts from zero.
"""
import datetime
import json
import sys


def when(event):
    return datetime.datetime.fromisoformat(event["values"]["startTime"].replace("Z", "+00:00")[:26])


events = json.load(open(sys.argv[1]))["recording"]["events"]
if not events:
    sys.exit("no jdk.ThreadAllocationStatistics events")
start = min(when(e) for e in events)
at_start, at_end = {}, {}
for e in events:
    thread = e["values"]["thread"] or {}
    key = (thread.get("javaThreadId"), thread.get("osThreadId"))
    allocated = int(e["values"]["allocated"])
    if (when(e) - start).total_seconds() < 1:
        at_start[key] = allocated
    else:
        at_end[key] = max(allocated, at_end.get(key, 0))
print(sum(end - at_start.get(key, 0) for key, end in at_end.items()))
