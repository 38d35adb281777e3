#!/usr/bin/env bash
# Measures every pair bench/README.md and the top README report (TestPairs,
# "Measure as pairs"): builds the bench module's test binary and
# runs it once with -pairs. In-process pairs alternate A B B A in batches
# of ≈25 ms, 9 groups each; the process pairs build tickettool (go build
# ./cmd/tickettool, static as README.md says, and dynamically linked as the
# toolchain's default) and a static hello world first and
# alternate their launches the same way. The report (markdown) goes to
# results.md and stdout; a progress line per pair goes to stderr. Extra
# arguments go to the test binary, e.g. -pairs.groups 15 or
# -pairs.only 'RunParallel|hello'.
#
#   bash run.sh        # about 3 minutes on the 2-core machine
set -euo pipefail
cd "$(dirname "$0")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/bench.test" .
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk -v l="$load" 'BEGIN { exit !(l > 1.5) }'; then
  echo "bench/run.sh: load average $load: other work shares the 2 cores; ratios of wall time (RunParallel, processes, fsync) will mostly measure it" >&2
fi
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
"$dir/bench.test" -test.run '^TestPairs$' -test.timeout 30m \
  -pairs -pairs.commit "$commit" -pairs.out results.md "$@"
cat results.md
