#!/usr/bin/env bash
# Installs panva's dpop, an independent DPoP (RFC 9449) client, pinned by
# the package.json and package-lock.json next to this script (npm ci: exact
# versions, integrity checked), with client.mjs, for cmd/tickettool's
# interop test of tickettool proxy.
#
# usage: install.sh [DIR]   (default: a new temporary directory)
#
# Prints the absolute path of client.mjs on standard output (npm's output
# goes to standard error). Give it to the test:
#
#   TICKETTOOL_DPOP_JS=$(bash cmd/tickettool/testdata/dpopjs/install.sh)
#   export TICKETTOOL_DPOP_JS
#   go test -run '^TestProxyDPoPJS' -v ./cmd/tickettool
#
# Needs node (20 or later: WebCrypto and fetch) and npm, and the npm
# registry reachable; fails with a message otherwise.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The one pinned installer every such test shares.
exec bash "$here/../../../../internal/npmpin/install.sh" "$here" dpop tickettool-dpop-js client.mjs "$@"
