# Bytes a JVM's threads allocated over a JFR recording made with bench/alloc.jfc (POSIX awk).
#
#     jfr print --json --events jdk.ThreadAllocationStatistics rec.jfr > rec.json
#     LC_ALL=C awk -f bench/jfr-allocated.awk rec.json
#
# The recording holds every thread's count at its start and at its end. Prints the total of the
# differences; a thread born during the recording counts from zero. The JSON is read line by line as
# `jfr print --json` lays it out (one "name": value per line): the text output rounds the bytes.
# A thread is its (javaThreadId, osThreadId); times are taken to the microsecond.

function flush() {
  if (!in_event) return
  events++
  time[events] = when; allocated[events] = bytes; thread[events] = java_id SUBSEP os_id
  in_event = 0
}

function value(line) {  # the value of a `"name": value, ` line, quotes and trailing comma dropped
  sub(/^[ \t]*"[^"]*": */, "", line)
  sub(/,? *$/, "", line)
  gsub(/"/, "", line)
  return line
}

# Microseconds since 1970 of "2026-11-26T16:26:31.067749049Z" (the offset, if any, ignored).
function micros(stamp,    y, m, d, era, yoe, doy, days, frac) {
  if (stamp !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/) {
    printf "jfr-allocated: bad startTime '%s'\n", stamp > "/dev/stderr"
    failed = 1
    exit 1
  }
  y = substr(stamp, 1, 4) + 0; m = substr(stamp, 6, 2) + 0; d = substr(stamp, 9, 2) + 0
  # Days from 1970-01-01 (the proleptic Gregorian calendar's civil-from-days, inverted).
  y -= m <= 2
  era = int(y / 400); yoe = y - era * 400
  doy = int((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1
  days = era * 146097 + yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy - 719468
  frac = ""
  if (substr(stamp, 20, 1) == ".") { frac = substr(stamp, 21); sub(/[^0-9].*/, "", frac) }
  frac = substr(frac "000000", 1, 6)
  return ((days * 24 + substr(stamp, 12, 2)) * 60 + substr(stamp, 15, 2)) * 60e6 + substr(stamp, 18, 2) * 1e6 + frac
}

/^[ \t]*"type": / { flush() }
/^[ \t]*"type": "jdk.ThreadAllocationStatistics"/ { in_event = 1; when = ""; bytes = 0; java_id = os_id = "null" }
in_event && /^[ \t]*"startTime": / { when = micros(value($0)) }
in_event && /^[ \t]*"allocated": / { bytes = value($0) + 0 }
in_event && /^[ \t]*"javaThreadId": / { java_id = value($0) }
in_event && /^[ \t]*"osThreadId": / { os_id = value($0) }

END {
  if (failed) exit 1
  flush()
  if (!events) {
    print "no jdk.ThreadAllocationStatistics events" > "/dev/stderr"
    exit 1
  }
  start = time[1]
  for (i = 2; i <= events; i++) if (time[i] < start) start = time[i]
  for (i = 1; i <= events; i++) {
    key = thread[i]
    if (time[i] - start < 1e6) at_start[key] = allocated[i]
    else if (!(key in at_end) || allocated[i] > at_end[key]) at_end[key] = allocated[i] > 0 ? allocated[i] : 0
  }
  total = 0
  for (key in at_end) total += at_end[key] - (key in at_start ? at_start[key] : 0)
  printf "%.0f\n", total
}
