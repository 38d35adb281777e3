#!/usr/bin/env bash
# Runs every fuzz target of the module in turn, each for FUZZTIME (default
# 10s), and prints one table row per target. Exits non-zero if any target
# fails; the failing input is then in that package's testdata/fuzz/.
#
#   FUZZTIME=10m bash fuzz/run.sh            # every package
#   FUZZTIME=30s bash fuzz/run.sh ./token    # one package
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

failed=0
count=0
printf '%-28s %-24s %8s %14s %6s %s\n' package target time execs new result
for pkg in $(go list "${pkgs[@]}"); do
  targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
  for t in $targets; do
    count=$((count + 1))
    log=$(mktemp)
    if go test -run='^$' -fuzz="^${t}\$" -fuzztime="$fuzztime" -parallel=2 "$pkg" >"$log" 2>&1; then
      result=ok
    else
      result=FAIL
      failed=1
    fi
    last=$(grep -E 'fuzz: elapsed' "$log" | tail -n 1)
    execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
    new=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
    printf '%-28s %-24s %8s %14s %6s %s\n' "${pkg#github.com/tickettool/tickettool/}" "$t" "$fuzztime" "${execs:--}" "${new:--}" "$result"
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
exit $failed
