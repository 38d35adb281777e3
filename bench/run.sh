#!/usr/bin/env bash
# Runs every benchmark of the bench module ROUNDS times (default 6) from one
# test binary, in interleaved rounds: round 1 runs every benchmark once,
# then round 2, and so on. A slow spell of a shared machine then touches
# every benchmark a little rather than a few benchmarks a lot, which is what
# -count N (every run of one benchmark back to back) does. Writes the
# results to stdout; a progress line per round goes to stderr.
#
#   bash run.sh > results.txt
#   go run ./cmd/benchtable -unit cpu-ns/op results.txt
set -euo pipefail
cd "$(dirname "$0")"
rounds=${ROUNDS:-6}
bin=$(mktemp -d)/bench.test
go test -c -o "$bin" .
for i in $(seq "$rounds"); do
  echo "bench/run.sh: round $i of $rounds, $(date -u +%H:%M:%S)" >&2
  if [ "$i" -eq 1 ]; then
    "$bin" -test.run '^$' -test.bench . -test.benchmem
  else
    "$bin" -test.run '^$' -test.bench . -test.benchmem | grep '^Benchmark'
  fi
done
rm -f "$bin"
