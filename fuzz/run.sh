#!/usr/bin/env bash
# Runs every fuzz target of the module in turn, each for FUZZTIME (default
# 10s), and prints one table row per target. Exits non-zero if any target
# fails (the failing input is then in that package's testdata/fuzz/), if a
# package's tests do not build, or if no fuzz target is found at all.
#
#   FUZZTIME=10m bash fuzz/run.sh            # every package
#   FUZZTIME=30s bash fuzz/run.sh ./token    # one package
#
# FUZZTARGETS (default: every target) is an extended regular expression;
# only targets whose names it matches run, e.g.
#   FUZZTARGETS='^Fuzz(ParseText|DecodeTicket)$' bash fuzz/run.sh ./fuzz
#
# FUZZPARALLEL (default 2) is passed to go test -parallel: the number of
# fuzzing worker processes. FUZZMINIMIZETIME (default 5s) is passed to
# -fuzzminimizetime: Go minimises every new interesting input for up to 60s
# by default, during which the target makes no progress at all (a 60s run
# of a target with large seeds spent most of its time there); crashers are
# minimised within the same budget and can be minimised further by hand.
#
# Go before 1.27 can end a clean duration-limited run with a bare "context
# deadline exceeded" failure (a race in its fuzzing coordinator,
# go.dev/issue/75804). Such a run is reported as "ok*", not as a failure,
# only if that line is the target's only failure output, no new input was
# written to its testdata/fuzz/, and replaying its corpus passes.
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
parallel=${FUZZPARALLEL:-2}
minimize=${FUZZMINIMIZETIME:-5s}
only=${FUZZTARGETS:-.}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

# deadline_flake LOG PKG TARGET BEFORE: whether the failed run in LOG is
# only go.dev/issue/75804 (see above). BEFORE lists the corpus files of
# TARGET before the run.
deadline_flake() {
  local log=$1 pkg=$2 t=$3 before=$4 dir out
  out=$(awk -v t="$t" '$0 ~ "^--- FAIL: "t" " {on=1; next} on && /^(FAIL|exit status)/ {exit} on {sub(/^[ \t]+/, ""); print}' "$log")
  [ "$out" = "context deadline exceeded" ] || return 1
  grep -q 'Failing input written' "$log" && return 1
  dir=$(go list -f '{{.Dir}}' "$pkg")/testdata/fuzz/$t
  [ "$(ls "$dir" 2>/dev/null)" = "$before" ] || return 1
  go test -count=1 -run="^${t}\$" "$pkg" >/dev/null 2>&1
}

failed=0
count=0
flakes=0
if ! pkglist=$(go list "${pkgs[@]}"); then
  echo "fuzz/run.sh: error: go list ${pkgs[*]} failed" >&2
  exit 1
fi
printf '%-28s %-24s %8s %14s %6s %s\n' package target time execs new result
for pkg in $pkglist; do
  short=${pkg#github.com/tickettool/tickettool/}
  # A package whose tests do not build must not be skipped silently.
  if ! listing=$(go test -list '^Fuzz' "$pkg" 2>&1); then
    printf '%-28s %-24s %8s %14s %6s %s\n' "$short" "(build)" - - - FAIL
    sed 's/^/    /' <<<"$listing" | tail -n 40
    failed=1
    continue
  fi
  targets=$(grep '^Fuzz' <<<"$listing" | grep -E -- "$only" || true)
  pkgdir=$(go list -f '{{.Dir}}' "$pkg")
  for t in $targets; do
    count=$((count + 1))
    log=$(mktemp)
    before=$(ls "$pkgdir/testdata/fuzz/$t" 2>/dev/null)
    if go test -run='^$' -fuzz="^${t}\$" -fuzztime="$fuzztime" -fuzzminimizetime="$minimize" -parallel="$parallel" "$pkg" >"$log" 2>&1; then
      result=ok
    elif deadline_flake "$log" "$pkg" "$t" "$before"; then
      result='ok*'
      flakes=$((flakes + 1))
    else
      result=FAIL
      failed=1
    fi
    last=$(grep -E 'fuzz: elapsed' "$log" | tail -n 1)
    execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
    new=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
    printf '%-28s %-24s %8s %14s %6s %s\n' "$short" "$t" "$fuzztime" "${execs:--}" "${new:--}" "$result"
    if [ "$result" = FAIL ]; then
      sed 's/^/    /' "$log" | tail -n 40
    fi
    rm -f "$log"
  done
done
if [ "$count" -eq 0 ]; then
  echo "fuzz/run.sh: error: no fuzz targets found" >&2
  exit 1
fi
if [ "$flakes" -gt 0 ]; then
  echo "ok*: the run ended in Go's spurious \"context deadline exceeded\" (go.dev/issue/75804, fixed in Go 1.27);"
  echo "     no failing input was written and the target's corpus replays clean."
fi
exit $failed
