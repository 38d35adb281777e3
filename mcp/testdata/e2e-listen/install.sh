#!/usr/bin/env bash
# Installs the official MCP TypeScript SDK, pinned by the package.json and
# package-lock.json next to this script (npm ci: exact versions, integrity
# checked), with client.mjs beside it, for mcp/e2e_listen_test.go, which drives its
# Streamable HTTP client against tickettool mcp --listen.
#
# usage: install.sh [DIR]   (default: a new temporary directory)
#
# Prints the absolute path of client.mjs on standard output
# (npm's output goes to standard error). Give it to the test:
#
#   TICKETTOOL_E2E_LISTEN_CLIENT=$(bash mcp/testdata/e2e-listen/install.sh /tmp/e2e-listen-node)
#   export TICKETTOOL_E2E_LISTEN_CLIENT
#   go test -race -count=1 -run '^TestE2EListen' -v ./mcp/
#
# Needs node (20 or later) and npm, and the npm registry reachable; fails
# with a message otherwise.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The one pinned installer every such test shares.
exec bash "$here/../../../internal/npmpin/install.sh" "$here" @modelcontextprotocol/sdk tickettool-e2e-listen-node client.mjs "$@"
