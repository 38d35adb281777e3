package mcp

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestKeyOf(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `1e0`, `10e-1`, `0.1e1`, `1.000E+0`},
		{`0`, `-0`, `0.0`, `0e5`},
		{`-12`, `-1.2e1`, `-120e-1`},
		{`"1"`, `"\u0031"`},
		{`123456789012345678901234567890`, `1.23456789012345678901234567890e29`},
	}
	seen := map[idKey]string{}
	for _, group := range same {
		k0, ok := keyOf(json.RawMessage(group[0]))
		if !ok {
			t.Fatalf("%s: no key", group[0])
		}
		for _, s := range group[1:] {
			if k, ok := keyOf(json.RawMessage(s)); !ok || k != k0 {
				t.Errorf("%s and %s: keys %q and %q", group[0], s, k0, k)
			}
		}
		if other, dup := seen[k0]; dup {
			t.Errorf("%s and %s share key %q", group[0], other, k0)
		}
		seen[k0] = group[0]
	}
	for _, bad := range []string{`null`, `true`, `{}`, `[1]`, `1e99999999999`, ``} {
		if _, ok := keyOf(json.RawMessage(bad)); ok {
			t.Errorf("%s has a key", bad)
		}
	}
}

func TestStrictObject(t *testing.T) {
	for _, bad := range []string{
		`{"a":1,"a":2}`, `{"name":1,"NAME":2}`, `{"k":1,"\u212a":2}`, `{"s":1,"\u017f":2}`,
		`[]`, `{"a":1} x`, `{"a":`, `"x"`,
	} {
		if _, err := strictObject([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	m, err := strictObject([]byte(` {"a":[1, 2],"b":{"a":1,"a":2}} `))
	if err != nil || string(m["a"]) != "[1, 2]" {
		t.Fatalf("%v %q", err, m)
	}
}

func TestLineReader(t *testing.T) {
	in := "one\r\n" + strings.Repeat("x", 100) + "\n\n{\"id\":1,\"method\":\"m\"" + strings.Repeat(" ", 50) + "}\nlast"
	lr := newLineReader(strings.NewReader(in), 60)
	type got struct {
		line    string
		tooLong bool
	}
	var all []got
	for {
		l, tl, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got{string(l), tl})
	}
	want := []got{{"one\r", false}, {strings.Repeat("x", 100), true}, {"", false}, {`{"id":1,"method":"m"` + strings.Repeat(" ", 50) + "}", true}, {"last", false}}
	if !slices.Equal(all, want) {
		t.Fatalf("got %+v\nwant %+v", all, want)
	}
	id, ok := sniff([]byte(want[3].line[:30]))
	if !ok || string(id) != "1" {
		t.Fatalf("sniff: %s %v", id, ok)
	}
}

func TestWithResolved(t *testing.T) {
	dir, out := realTempDir(t), realTempDir(t)
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o700)
	os.Symlink(out, filepath.Join(dir, "abs"))
	os.Symlink("../..", filepath.Join(dir, "a", "b", "up"))
	os.Symlink("loop", filepath.Join(dir, "loop"))
	os.Symlink(filepath.Join(out, "nothing", "yet"), filepath.Join(dir, "dangling"))
	os.Symlink("a/b", filepath.Join(dir, "rel"))
	for _, tc := range []struct {
		in   []string
		dir  string
		want []string
	}{
		{[]string{dir + "/a/b/c"}, "", []string{dir + "/a/b/c"}},
		{[]string{dir + "/abs/x/y"}, "", []string{dir + "/abs/x/y", out + "/x/y"}},
		{[]string{dir + "/a/b/up/abs"}, "", []string{dir + "/a/b/up/abs", out}},
		{[]string{dir + "/dangling"}, "", []string{dir + "/dangling", out + "/nothing/yet"}},
		{[]string{dir + "/loop/x"}, "", []string{dir + "/loop/x"}},
		{[]string{"rel/c", "abs/z", "a/b/c"}, dir, []string{"rel/c", "a/b/c", "abs/z", out + "/z"}},
		{[]string{dir + "/a/", dir + "/a/"}, "", []string{dir + "/a/"}},
	} {
		if got, err := withResolved(tc.in, tc.dir); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("withResolved(%q, %q) = %q, want %q", tc.in, tc.dir, got, tc.want)
		}
	}
}

func TestFilesystemProfile(t *testing.T) {
	p := Filesystem()
	if len(p.Tools) != 14 {
		t.Fatalf("%d tools", len(p.Tools))
	}
	args := func(s string) map[string]json.RawMessage {
		m, err := strictObject([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	paths, _, err := p.subjects("move_file", args(`{"source":"/a","destination":"/b"}`))
	if err != nil || !slices.Equal(paths, []string{"/a", "/b"}) {
		t.Fatalf("%q %v", paths, err)
	}
	paths, _, err = p.subjects("read_multiple_files", args(`{"paths":["/a","/b"]}`))
	if err != nil || !slices.Equal(paths, []string{"/a", "/b"}) {
		t.Fatalf("%q %v", paths, err)
	}
	for _, bad := range []string{`{"paths":"/a"}`, `{"paths":["/a",1]}`} {
		if _, _, err := p.subjects("read_multiple_files", args(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if _, _, err := p.subjects("read_file", args(`{"path":{"x":1}}`)); err == nil {
		t.Error("an object path accepted")
	}
}
