package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEveryVersion runs each scenario with the official Go SDK as client
// and as server, connected through the proxy, once per protocol version the
// SDK speaks.
func TestEveryVersion(t *testing.T) {
	versions := sdk.SupportedProtocolVersions()
	if len(versions) < 5 {
		t.Fatalf("SDK speaks %v", versions)
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) { sc.run(t, v) })
			}
		})
	}
}

// TestEveryVersionOverHTTP runs the same scenarios with the SDK's server
// behind its Streamable HTTP handler and the proxy as its HTTP client
// (ServeUpstream), for each revision the proxy speaks over HTTP.
func TestEveryVersionOverHTTP(t *testing.T) {
	for _, v := range []string{ProtocolSessions, ProtocolStateless} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) { sc.run(t, "http:"+v) })
			}
		})
	}
}

var scenarios = []struct {
	name string
	run  func(t *testing.T, version string)
}{
	{"allowed", testAllowed},
	{"tool not in ticket", testToolNotInTicket},
	{"path outside prefix", testPathOutside},
	{"dotdot and symlink escapes", testEscapes},
	{"read_multiple_files one bad", testMultipleOneBad},
	{"move_file bad destination", testMoveBadDestination},
	{"host outside hosts", testHosts},
	{"budget exhausted", testBudget},
	{"expired", testExpired},
	{"tools list filtered", testToolsList},
	{"roots widening", testRoots},
	{"elicitation passes through", testElicitation},
	{"unprofiled tool fails closed", testUnprofiled},
}

// refused checks that a call was refused for the named caveat and never
// reached the server.
func refused(t *testing.T, s *setup, tool string, args map[string]any, want ...string) {
	t.Helper()
	before := len(s.rec.seen())
	txt, isErr := s.call(t, tool, args)
	if !isErr || !strings.HasPrefix(txt, RefusalPrefix) {
		t.Fatalf("%s: got %q (isError %v), want a refusal", tool, txt, isErr)
	}
	for _, w := range want {
		if !strings.Contains(txt, w) {
			t.Errorf("%s: refusal %q does not contain %q", tool, txt, w)
		}
	}
	if after := s.rec.seen(); len(after) != before {
		t.Errorf("%s: the server saw the refused call: %q", tool, after[before:])
	}
}

func testAllowed(t *testing.T, v string) {
	s := start(t, options{version: v, caveats: []string{"tools=read_file,write_file", "ops=invoke"}})
	f := filepath.Join(s.dir, "a.txt")
	if txt, isErr := s.call(t, "write_file", map[string]any{"path": f, "content": "hello"}); isErr {
		t.Fatalf("write_file: %s", txt)
	}
	if txt, isErr := s.call(t, "read_file", map[string]any{"path": f}); isErr || txt != "hello" {
		t.Fatalf("read_file: %q %v", txt, isErr)
	}
	if got := s.rec.seen(); !slices.Equal(got, []string{"write_file " + f, "read_file " + f}) {
		t.Fatalf("server saw %q", got)
	}
}

func testToolNotInTicket(t *testing.T, v string) {
	s := start(t, options{version: v, caveats: []string{"tools=read_file"}})
	refused(t, s, "write_file", map[string]any{"path": filepath.Join(s.dir, "x"), "content": "x"}, "block 0 caveat tools")
}

func testPathOutside(t *testing.T, v string) {
	s := start(t, options{version: v})
	refused(t, s, "read_file", map[string]any{"path": filepath.Join(s.out, "secret")}, "block 0 caveat paths", "is not under")
	// A sibling prefix is not under the prefix.
	refused(t, s, "read_file", map[string]any{"path": s.dir + "-other/x"}, "caveat paths")
}

func testEscapes(t *testing.T, v string) {
	s := start(t, options{version: v})
	if err := os.WriteFile(filepath.Join(s.out, "secret"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, s, "read_file", map[string]any{"path": s.dir + "/../" + filepath.Base(s.out) + "/secret"}, "caveat paths", "..")
	if err := os.Symlink(s.out, filepath.Join(s.dir, "link")); err != nil {
		t.Fatal(err)
	}
	refused(t, s, "read_file", map[string]any{"path": filepath.Join(s.dir, "link", "secret")}, "caveat paths", s.out)
	// A link to a file that does not exist yet: a write would create it outside.
	if err := os.Symlink(filepath.Join(s.out, "planted"), filepath.Join(s.dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	refused(t, s, "write_file", map[string]any{"path": filepath.Join(s.dir, "dangling"), "content": "x"}, "caveat paths")
	if _, err := os.Stat(filepath.Join(s.out, "planted")); err == nil {
		t.Fatal("the write reached outside the ticket's paths")
	}
	// A link that stays inside is fine.
	os.Mkdir(filepath.Join(s.dir, "sub"), 0o700)
	os.WriteFile(filepath.Join(s.dir, "sub", "f"), []byte("in"), 0o600)
	os.Symlink(filepath.Join(s.dir, "sub"), filepath.Join(s.dir, "inside"))
	if txt, isErr := s.call(t, "read_file", map[string]any{"path": filepath.Join(s.dir, "inside", "f")}); isErr || txt != "in" {
		t.Fatalf("link inside: %q %v", txt, isErr)
	}
}

func testMultipleOneBad(t *testing.T, v string) {
	s := start(t, options{version: v})
	good := filepath.Join(s.dir, "a")
	refused(t, s, "read_multiple_files", map[string]any{"paths": []string{good, "/etc/passwd", filepath.Join(s.dir, "b")}}, "/etc/passwd")
	if txt, isErr := s.call(t, "read_multiple_files", map[string]any{"paths": []string{good}}); isErr {
		t.Fatalf("one good path: %s", txt)
	}
}

func testMoveBadDestination(t *testing.T, v string) {
	s := start(t, options{version: v})
	src := filepath.Join(s.dir, "a")
	os.WriteFile(src, []byte("a"), 0o600)
	refused(t, s, "move_file", map[string]any{"source": src, "destination": filepath.Join(s.out, "a")}, "caveat paths", s.out)
	if _, err := os.Stat(src); err != nil {
		t.Fatal("the refused move happened")
	}
	if txt, isErr := s.call(t, "move_file", map[string]any{"source": src, "destination": filepath.Join(s.dir, "b")}); isErr {
		t.Fatalf("move inside: %s", txt)
	}
}

// testProfile adds the test server's fetch tool to the filesystem profile.
func testProfile() *Profile {
	p := Filesystem()
	p.Tools["fetch"] = ToolArgs{URLs: []string{"url"}}
	p.Tools["list_roots"] = ToolArgs{Paths: []string{"path"}}
	p.Tools["ask"] = ToolArgs{Paths: []string{"path"}}
	return p
}

func testHosts(t *testing.T, v string) {
	s := start(t, options{version: v, noPaths: true, caveats: []string{"hosts=api.example.com"}, profile: testProfile()})
	refused(t, s, "fetch", map[string]any{"url": "https://evil.example.net/x"}, "block 0 caveat hosts")
	if txt, isErr := s.call(t, "fetch", map[string]any{"url": "https://api.example.com/v1"}); isErr {
		t.Fatalf("allowed host: %s", txt)
	}
}

func testBudget(t *testing.T, v string) {
	s := start(t, options{version: v, caveats: []string{"calls=2"}})
	f := filepath.Join(s.dir, "a")
	os.WriteFile(f, []byte("a"), 0o600)
	for i := range 2 {
		if txt, isErr := s.call(t, "read_file", map[string]any{"path": f}); isErr {
			t.Fatalf("call %d: %s", i+1, txt)
		}
	}
	refused(t, s, "read_file", map[string]any{"path": f}, "caveat calls", "budget of 2 calls is spent")
}

// testExpired: a ticket that expires while the proxy serves refuses the
// calls from then on (an expired ticket does not start: TestStartError).
func testExpired(t *testing.T, v string) {
	var later atomic.Bool
	now := func() time.Time {
		if later.Load() {
			return t0.Add(time.Hour)
		}
		return t0
	}
	s := start(t, options{version: v, caveats: []string{"until=10m"}, now: now})
	later.Store(true)
	refused(t, s, "read_file", map[string]any{"path": filepath.Join(s.dir, "a")}, "block 0 caveat until")
}

func testToolsList(t *testing.T, v string) {
	s := start(t, options{version: v, caveats: []string{"tools=read_file,move_file"}})
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"move_file", "read_file"}) {
		t.Fatalf("tools/list shows %v", names)
	}
}

func testRoots(t *testing.T, v string) {
	var inside string
	//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
	s := start(t, options{version: v, profile: testProfile(), roots: func(s *setup) []*sdk.Root {
		inside = "file://" + s.dir + "/project"
		//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
		return []*sdk.Root{
			{URI: inside, Name: "project"},
			{URI: "file://" + s.out, Name: "outside"},
			{URI: "file:///"},
			{URI: "file://" + s.dir + "/../" + filepath.Base(s.out)},
			{URI: "https://example.com/"},
		}
	}})
	if txt, isErr := s.call(t, "list_roots", map[string]any{"path": s.dir}); isErr {
		t.Fatalf("list_roots: %s", txt)
	}
	got := s.rec.rootsSeen()
	if len(got) != 1 || !slices.Equal(got[0], []string{inside}) {
		t.Fatalf("the server saw roots %q, want only %q", got, inside)
	}
}

func testElicitation(t *testing.T, v string) {
	var seen *sdk.ElicitParams
	client := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		seen = req.Params
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}}
	s := start(t, options{version: v, profile: testProfile(), client: client})
	txt, isErr := s.call(t, "ask", map[string]any{"path": s.dir})
	if isErr || txt != "action=accept" {
		t.Fatalf("ask: %q %v", txt, isErr)
	}
	if seen == nil || seen.Message != "Proceed? (with \"quotes\" & <html>)" {
		t.Fatalf("the client saw %+v", seen)
	}
}

func testUnprofiled(t *testing.T, v string) {
	// list_roots is not in the filesystem profile: it carries no path,
	// and a paths caveat refuses a call without one.
	s := start(t, options{version: v})
	refused(t, s, "list_roots", nil, "caveat paths", "no path")
	// Without a paths or hosts caveat it is only the tools caveat's.
	s = start(t, options{version: v, noPaths: true, caveats: []string{"tools=list_roots"}})
	if txt, isErr := s.call(t, "list_roots", nil); isErr {
		t.Fatalf("list_roots: %s", txt)
	}
}
