# Functions shared by the bench scripts' awk programs (bench_awk in bench/lib.sh, bench/e2e-runs.sh).
# POSIX awk only (mawk, gawk, busybox awk), run with LC_ALL=C. They print what Python's formatting
# printed before these scripts dropped Python: printf's %.Nf rounds the same way as Python's f"{x:.Nf}".

# "1234567.89" -> "1,234,567.89": the integer digits of a number already formatted with %.Nf in
# groups of three (Python's "{:,.Nf}" is thousands(sprintf("%.Nf", x))).
function thousands(s,    sign, frac, dot, grouped) {
  sign = ""
  if (substr(s, 1, 1) == "-") { sign = "-"; s = substr(s, 2) }
  frac = ""
  dot = index(s, ".")
  if (dot) { frac = substr(s, dot); s = substr(s, 1, dot - 1) }
  grouped = ""
  while (length(s) > 3) {
    grouped = "," substr(s, length(s) - 2) grouped
    s = substr(s, 1, length(s) - 3)
  }
  return sign s grouped frac
}

# Python's round(x): to the nearest integer, halves to the even one.
function round_even(x,    f, d) {
  f = int(x)
  if (f > x) f--
  d = x - f
  if (d > 0.5 || (d == 0.5 && f % 2 != 0)) f++
  return f
}

# a / b, or the program stops (Python stopped on a ZeroDivisionError; awk would print inf or die).
function div(a, b) {
  if (b == 0) die("division by zero")
  return a / b
}

# Python's float(s) for the numbers the logs hold ("12", "1.5", ".5", "1.0E-4"), or the program stops.
function decimal(s) {
  if (s !~ /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/) die("not a number: '" s "'")
  return s + 0
}

# Stops the program with status 1 (a program with an END rule begins it with "if (died) exit 1").
function die(message) {
  printf "awk: %s\n", message > "/dev/stderr"
  died = 1
  exit 1
}
