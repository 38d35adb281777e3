#!/usr/bin/env bash
# Installs one npm package pinned by a package.json and package-lock.json
# (npm ci: exact versions, integrity checked, no lifecycle scripts), for a
# test that drives a real third-party program. Each test's own install.sh
# calls it with its folder; that folder's *.mjs files are copied beside
# node_modules.
#
# usage: install.sh SRC PKG NAME ENTRY [DIR]
#   SRC    the folder holding package.json and package-lock.json
#   PKG    the package whose pinned version must be the one installed
#   NAME   the temporary directory's prefix (when DIR is not given)
#   ENTRY  the file to print, relative to DIR
#   DIR    where to install (default: a new temporary directory)
#
# Prints the absolute path of ENTRY on standard output (npm's output goes
# to standard error). Needs node (20 or later) and npm, and the npm
# registry reachable; fails with a message otherwise.
set -euo pipefail

[ $# -ge 4 ] || { echo "usage: install.sh SRC PKG NAME ENTRY [DIR]" >&2; exit 2; }
src=$1 pkg=$2 name=$3 entry_rel=$4 dir=${5:-}

die() { echo "install.sh: $*" >&2; exit 1; }

command -v node >/dev/null || die "node is not installed (need Node.js 20 or later)"
command -v npm >/dev/null || die "npm is not installed"
major=$(node -p 'process.versions.node.split(".")[0]') || die "node does not run"
[ "$major" -ge 20 ] || die "node $(node --version) is too old: $pkg needs Node.js 20 or later"

if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd -P)

want=$(node -p "require(process.argv[1]).dependencies['$pkg']" "$src/package.json")
cp "$src/package.json" "$src/package-lock.json" "$dir/"
for f in "$src"/*.mjs; do
  [ -e "$f" ] && cp "$f" "$dir/"
done
# npm ci installs exactly the lockfile (and fails if it does not match
# package.json); no lifecycle scripts are needed, so none are run.
(cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=warn >&2) ||
  die "npm ci failed in $dir (is the npm registry reachable?)"

entry=$dir/$entry_rel
[ -f "$entry" ] || die "$entry is missing after npm ci"
got=$(node -p "require(process.argv[1]).version" "$dir/node_modules/$pkg/package.json")
[ "$got" = "$want" ] || die "installed $pkg@$got, want $want"
echo "install.sh: $pkg@$got in $dir" >&2
echo "$entry"
