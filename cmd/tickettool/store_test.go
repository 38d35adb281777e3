package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultStore(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"TICKETTOOL_STORE first", map[string]string{"TICKETTOOL_STORE": "redis://r:6379", "XDG_STATE_HOME": "/x", "HOME": "/h"}, "redis://r:6379"},
		{"TICKETTOOL_STORE memory", map[string]string{"TICKETTOOL_STORE": "memory"}, "memory"},
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/h"}, "/x/state/tickettool/store.db"},
		{"XDG_STATE_HOME relative is ignored", map[string]string{"XDG_STATE_HOME": "state", "HOME": "/h"}, "/h/.local/state/tickettool/store.db"},
		{"HOME", map[string]string{"HOME": "/h"}, "/h/.local/state/tickettool/store.db"},
		{"empty TICKETTOOL_STORE is unset", map[string]string{"TICKETTOOL_STORE": "", "HOME": "/h"}, "/h/.local/state/tickettool/store.db"},
		{"nothing", map[string]string{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := defaultStore(func(k string) string { return c.env[k] }); got != c.want {
				t.Errorf("defaultStore = %q, want %q", got, c.want)
			}
		})
	}
}

// exitOf returns the exit status err stands for.
func exitOf(err error) int {
	if err == nil {
		return exitOK
	}
	code, _ := classify(err)
	return code
}

func TestOpenStore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		location string
		code     int
		name     string // the name openStore returns, or a part of the error
	}{
		{"memory", exitOK, "memory"},
		{filepath.Join(dir, "a", "b", "s.db"), exitOK, filepath.Join(dir, "a", "b", "s.db")},
		{filepath.Join(dir, "a", "b", "..", "b", "s.db"), exitOK, filepath.Join(dir, "a", "b", "s.db")},
		{"", exitUsage, "no store location"},
		{"ftp://host/x", exitUsage, `unknown scheme "ftp"`},
		{"redis://alice:s3cr3tpw@[::1", exitUsage, "not a valid redis"},
		{"redis://alice:s3cr3tpw@host:6379/notanumber", exitUsage, "not a valid redis"},
		{"redis:s3cr3tpw", exitUsage, "not a valid redis"},
		{"redis://", exitUsage, "not a valid redis"},
		{"redis:///1", exitUsage, "not a valid redis"},
		{"redis://alice:s3cr3tpw@127.0.0.1:1/3", exitRefused, "store redis://127.0.0.1:1/3: redisstore: open: "},
		{"REDISS://:s3cr3tpw@127.0.0.1:1", exitRefused, "store rediss://127.0.0.1:1: redisstore: open: "},
		{filepath.Join(file, "s.db"), exitRefused, "cannot create its directory"},
		{file + "/x/s.db", exitRefused, "cannot create its directory"},
	} {
		t.Run(c.location, func(t *testing.T) {
			st, name, err := openStore(context.Background(), c.location)
			if code := exitOf(err); code != c.code {
				t.Fatalf("exit %d (%v), want %d", code, err, c.code)
			}
			if err != nil {
				msg := err.Error()
				for _, h := range hintsOf(err) {
					msg += "\n" + h
				}
				if !strings.Contains(msg, c.name) {
					t.Errorf("error %q lacks %q", msg, c.name)
				}
				if strings.Contains(msg, "s3cr3tpw") || strings.Contains(msg, "alice") {
					t.Errorf("error %q shows the URL's credentials", msg)
				}
				return
			}
			defer st.Close()
			if name != c.name {
				t.Errorf("name %q, want %q", name, c.name)
			}
		})
	}
}

func hintsOf(err error) []string {
	_, hints := classify(err)
	return hints
}

// TestOpenStoreModes: missing directories above a SQLite store are made
// 0700 (only the owner may add files beside it), the file 0600.
func TestOpenStoreModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "store.db")
	st, _, err := openStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for p, want := range map[string]os.FileMode{
		filepath.Join(dir, "a"): 0o700, filepath.Join(dir, "a", "b"): 0o700, path: 0o600,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&^want != 0 {
			t.Errorf("%s: mode %#o, want at most %#o", p, got, want)
		}
	}
}

// TestStoreFlagHidesPassword: -h shows the default store by name, never
// the user or password of a redis URL from TICKETTOOL_STORE.
func TestStoreFlagHidesPassword(t *testing.T) {
	t.Setenv(envStore, "rediss://alice:s3cr3tpw@cache.example:6380/2?client_name=x#f")
	var out strings.Builder
	fs := newFlags(&env{stdout: &out}, "x", "usage: x\n")
	loc := storeFlag(fs)
	if *loc != os.Getenv(envStore) {
		t.Errorf("default %q, want the whole URL", *loc)
	}
	fs.printUsage()
	if !strings.Contains(out.String(), "(default rediss://cache.example:6380/2)") {
		t.Errorf("usage lacks the default store's name:\n%s", out.String())
	}
	if strings.Contains(out.String(), "s3cr3tpw") || strings.Contains(out.String(), "alice") {
		t.Errorf("usage shows the URL's credentials:\n%s", out.String())
	}
}
