package hook

import (
	"path/filepath"
	"strings"

	"github.com/tickettool/tickettool/internal/argsubject"
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

// configDirs are the directories, in a project and in the home
// directory, where harnesses read hook configuration (Claude Code's
// settings and subagent definitions, Codex's hooks.json and config.toml,
// Gemini's settings, Cursor's hooks.json, Copilot's hook files). Every
// harness's are protected under every harness: VS Code reads Claude Code's
// settings, and an agent of one harness can edit another's.
var configDirs = []string{".claude", ".codex", ".gemini", ".cursor", ".copilot", ".github/hooks", ".vscode"}

// ConfigDirs returns the hook configuration directories for an event in
// cwd: those of cwd and of every directory above it (a project's root may
// be any of them), and those of home.
func ConfigDirs(cwd, home string) []Protected {
	var out []Protected
	add := func(base string) {
		for _, d := range configDirs {
			out = append(out, Protected{Path: filepath.Join(base, d), Dir: true})
		}
	}
	for d := cwd; d != "" && strings.HasPrefix(d, "/"); {
		add(d)
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	if home != "" && filepath.IsAbs(home) {
		add(home)
	}
	return out
}

// protectedHit returns the protected entry one of paths (absolute, as
// given and resolved) falls on, or nil. Names are compared under Unicode
// NFC and case folding, as a case-insensitive filesystem would, and a
// file's sidecars (store.db-wal, log.lock) count as the file.
func protectedHit(paths []string, prot []Protected, writes bool) *Protected {
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
				if covers(fold(f), fold(path), p.Dir) {
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

func fold(s string) string { return argsubject.FoldKey(norm.NFC.String(filepath.Clean(s))) }
