#!/usr/bin/env bash
# Installs the reference MCP server-everything, pinned by the package.json and
# package-lock.json next to this script (npm ci: exact versions, integrity
# checked), for mcp/e2e_http_test.go, which runs it in its Streamable HTTP mode.
#
# usage: install.sh [DIR]   (default: a new temporary directory)
#
# Prints the absolute path of the server's entry script on standard output
# (npm's output goes to standard error). Give it to the test:
#
#   TICKETTOOL_E2E_HTTP_SERVER=$(bash mcp/testdata/e2e-http/install.sh /tmp/e2e-http-node)
#   export TICKETTOOL_E2E_HTTP_SERVER
#   go test -race -count=1 -run '^TestE2EHTTP' -v ./mcp/
#
# Needs node (20 or later) and npm, and the npm registry reachable; fails
# with a message otherwise.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The one pinned installer every such test shares.
exec bash "$here/../../../internal/npmpin/install.sh" "$here" @modelcontextprotocol/server-everything tickettool-e2e-http-node node_modules/@modelcontextprotocol/server-everything/dist/index.js "$@"
