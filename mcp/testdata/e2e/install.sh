#!/usr/bin/env bash
# Installs the reference MCP filesystem server, pinned by the package.json and
# package-lock.json next to this script (npm ci: exact versions, integrity
# checked), for mcp/e2e_test.go.
#
# usage: install.sh [DIR]   (default: a new temporary directory)
#
# Prints the absolute path of the server's entry script on standard output
# (npm's output goes to standard error). Give it to the test:
#
#   TICKETTOOL_E2E_FS_SERVER=$(bash mcp/testdata/e2e/install.sh /tmp/e2e-node)
#   export TICKETTOOL_E2E_FS_SERVER
#   go test -race -count=1 -run '^TestE2E' -v ./mcp/
#
# Needs node (20 or later) and npm, and the npm registry reachable; fails
# with a message otherwise.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The one pinned installer every such test shares.
exec bash "$here/../../../internal/npmpin/install.sh" "$here" @modelcontextprotocol/server-filesystem tickettool-e2e-node node_modules/@modelcontextprotocol/server-filesystem/dist/index.js "$@"
