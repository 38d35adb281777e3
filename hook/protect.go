package hook

import (
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/internal/jcs"
	"github.com/tickettool/tickettool/internal/pathcheck"
	"golang.org/x/text/unicode/norm"
)

// Protected is a file or directory no call may write, whatever the ticket
// says: the hook's own ticket, key, store and receipt log, and every
// harness's hook configuration (an agent that can edit its settings can
// turn its hook off). Secret ones (a secret key) may not be read either.
type Protected struct {
	Path   string
	Dir    bool // everything under Path too
	Secret bool // reads are refused as well as writes
}

// configNames are where harnesses, and the tools the person runs after
// them, read configuration that runs a command or turns a hook off: the
// directories of Claude Code's settings and subagent definitions, Codex's
// hooks.json and config.toml, Gemini's settings, Cursor's hooks.json,
// Copilot's and VS Code's hook files (in a project, in the home
// directory, and VS Code's user settings); the files that start MCP
// servers (Claude Code's .mcp.json and ~/.claude.json); and git's hooks
// and config (core.hooksPath, core.fsmonitor), which run commands at the
// person's next git command, outside any hook. A write to any path with
// such a name in it is refused, wherever it lies: the harness's idea of
// the project root can be any directory above the cwd, and every
// harness's are protected under every harness, since VS Code reads Claude
// Code's settings and an agent of one harness can edit another's.
var configNames = [][]string{
	{".claude"}, {".codex"}, {".gemini"}, {".cursor"}, {".copilot"}, {".vscode"}, {".github", "hooks"},
	{".mcp.json"}, {".claude.json"}, {".git", "hooks"}, {".git", "config"},
	{"Code", "User"}, {"Code - Insiders", "User"},
}

// configHit returns the hook configuration directory a path (absolute)
// runs through, or "".
func configHit(path string) string {
	segs := strings.Split(fold(path), "/")
	for i := range segs {
		for _, n := range configNames {
			if i+len(n) > len(segs) {
				continue
			}
			match := true
			for k, s := range n {
				if segs[i+k] != fold(s) {
					match = false
					break
				}
			}
			if match {
				return strings.Join(strings.Split(filepath.Clean(path), "/")[:i+len(n)], "/")
			}
		}
	}
	return ""
}

// protectedHit returns the protected entry one of paths (absolute, as
// given and resolved) falls on, or nil. Names are compared under Unicode
// NFC and case folding, as a case-insensitive filesystem would, and a
// file's sidecars (store.db-wal, log.lock) count as the file.
func protectedHit(paths []string, prot []Protected, writes bool) *Protected {
	if writes {
		for _, path := range paths {
			if dir := configHit(path); dir != "" {
				return &Protected{Path: dir, Dir: true}
			}
		}
	}
	for i := range prot {
		p := &prot[i]
		if !writes && !p.Secret {
			continue
		}
		forms := []string{p.Path}
		if r, err := pathcheck.Resolve(p.Path); err == nil && r != "" && r != p.Path {
			forms = append(forms, r)
		}
		for _, path := range paths {
			for _, f := range forms {
				// A secret is read by a directory tool (Grep, Glob, LS)
				// given a directory above it as well.
				if covers(fold(f), fold(path), p.Dir) || p.Secret && above(fold(path), fold(f)) {
					return p
				}
			}
		}
	}
	return nil
}

func covers(prot, path string, dir bool) bool {
	if path == prot || strings.HasPrefix(path, prot+"/") {
		return true
	}
	return !dir && (strings.HasPrefix(path, prot+"-") || strings.HasPrefix(path, prot+"."))
}

// above reports whether dir is path or a directory above it.
func above(dir, path string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, dir+"/")
}

func fold(s string) string { return jcs.FoldName(norm.NFC.String(filepath.Clean(s))) }
