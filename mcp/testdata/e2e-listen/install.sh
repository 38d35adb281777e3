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
pkg=@modelcontextprotocol/sdk

die() { echo "install.sh: $*" >&2; exit 1; }

command -v node >/dev/null || die "node is not installed (need Node.js 20 or later)"
command -v npm >/dev/null || die "npm is not installed"
major=$(node -p 'process.versions.node.split(".")[0]') || die "node does not run"
[ "$major" -ge 20 ] || die "node $(node --version) is too old: $pkg needs Node.js 20 or later"

dir=${1:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/tickettool-e2e-listen-node.XXXXXX")
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)

want=$(node -p "require(process.argv[1]).dependencies['$pkg']" "$here/package.json")
cp "$here/package.json" "$here/package-lock.json" "$here/client.mjs" "$dir/"
# npm ci installs exactly the lockfile (and fails if it does not match
# package.json); no lifecycle scripts are needed, so none are run.
(cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=warn >&2) ||
  die "npm ci failed in $dir (is the npm registry reachable?)"

entry=$dir/client.mjs
[ -f "$dir/node_modules/$pkg/dist/esm/client/streamableHttp.js" ] || die "$pkg is missing after npm ci"
[ -f "$entry" ] || die "$entry is missing after npm ci"
got=$(node -p "require(process.argv[1]).version" "$dir/node_modules/$pkg/package.json")
[ "$got" = "$want" ] || die "installed $pkg@$got, want $want"
echo "install.sh: $pkg@$got in $dir" >&2
echo "$entry"
