//go:build unix

package mcp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tickettool/tickettool/mcp"
)

// TestE2EEscapes drives the real reference filesystem server through the
// built `tickettool mcp` with the escapes an adversarial review found: each
// case reads or writes outside the ticket's paths unless the guard stops it.
// The server is given the whole workspace, so only the guard stands between
// the agent and outside/secret.
func TestE2EEscapes(t *testing.T) {
	e := e2eFromEnv(t)
	// Links inside the ticket's folder, each named so that the server
	// reaches it through a spelling that does not exist byte for byte:
	// the server compares NFC forms of every missing component.
	lookalikes := map[string]string{
		"lin\u212a":   "linK",      // KELVIN SIGN: NFC is K
		"q\u037e":     "q;",        // GREEK QUESTION MARK: NFC is ;
		"v\u1fef":     "v`",        // GREEK VARIA: NFC is `
		"r\u00e9s":    "re\u0301s", // composed é, asked for decomposed
		"cafe\u0301":  "caf\u00e9", // decomposed é, asked for composed
		"\u212bngstr": "\u00c5ngstr",
	}
	for link := range lookalikes {
		if err := os.Symlink(e.outside, filepath.Join(e.allowed, link)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	// ANGSTROM SIGN, A + COMBINING RING and Å are one name in NFC: with two
	// of them present, the third spelling is ambiguous (the server refuses
	// it too).
	if err := os.Mkdir(filepath.Join(e.allowed, "A\u030angstr"), 0o700); err != nil {
		t.Fatal(err)
	}
	sess := e.start(t, e.mint(t, "tools=read_text_file,write_file,move_file,list_allowed_directories",
		"paths="+e.allowed+"/", "until=10m"), nil)

	t.Run("look-alike names", func(t *testing.T) {
		for link, asked := range lookalikes {
			if link == "\u212bngstr" {
				continue
			}
			p := filepath.Join(e.allowed, asked, "secret")
			sess.refused(t, "read_text_file", map[string]any{"path": p}, "paths", "block 0 caveat paths", e.outside)
			w := filepath.Join(e.allowed, asked, "planted")
			sess.refused(t, "write_file", map[string]any{"path": w, "content": "x"}, "paths", "block 0 caveat paths", e.outside)
			e.absent(t, filepath.Join(e.outside, "planted"))
		}
		sess.refused(t, "read_text_file", map[string]any{"path": filepath.Join(e.allowed, "\u00c5ngstr", "secret")},
			"request", "more than one entry")
		sess.refused(t, "write_file", map[string]any{"path": filepath.Join(e.allowed, "\u00c5ngstr", "planted"), "content": "x"},
			"request", "more than one entry")
		e.absent(t, filepath.Join(e.outside, "planted"))
		// A name that does not exist in any spelling is written inside.
		sess.ok(t, "write_file", map[string]any{"path": filepath.Join(e.allowed, "linQ"), "content": "new"})
		e.holds(t, filepath.Join(e.allowed, "linQ"), "new")
	})

	t.Run("list allowed directories", func(t *testing.T) {
		// The server's directory is the workspace; the agent learns only the
		// ticket's folder inside it.
		if txt := sess.ok(t, "list_allowed_directories", map[string]any{}); txt != "Allowed directories:\n"+e.allowed {
			t.Errorf("list_allowed_directories: %q", txt)
		}
	})

	t.Run("a move races the reads", func(t *testing.T) {
		// allowed/dN holds a link to outside; move_file renames it to
		// allowed/eN, and reads of allowed/eN/l/secret follow at once.
		// Checked before the move ran, a read passes (eN does not exist);
		// run after it, it would leak. The guard holds every call back
		// while the move is in flight, then sees the link.
		leaks := 0
		for run := range 20 {
			src, dst := filepath.Join(e.allowed, fmt.Sprintf("d%d", run)), filepath.Join(e.allowed, fmt.Sprintf("e%d", run))
			if err := os.Mkdir(src, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(e.outside, filepath.Join(src, "l")); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			wg.Go(func() {
				if _, err := sess.cs.CallTool(e2eCtx(t), &sdk.CallToolParams{Name: "move_file",
					Arguments: map[string]any{"source": src, "destination": dst}}); err != nil {
					t.Errorf("move_file: %v", err)
				}
			})
			time.Sleep(time.Millisecond)
			for range 40 {
				wg.Go(func() {
					res, err := sess.cs.CallTool(e2eCtx(t), &sdk.CallToolParams{Name: "read_text_file",
						Arguments: map[string]any{"path": filepath.Join(dst, "l", "secret")}})
					if err != nil {
						t.Errorf("read_text_file: %v", err)
						return
					}
					if tc, ok := res.Content[0].(*sdk.TextContent); ok && strings.Contains(tc.Text, "s3cret") {
						mu.Lock()
						leaks++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
		}
		if leaks != 0 {
			t.Errorf("%d reads leaked outside/secret", leaks)
		}
	})

	t.Run("message limits", func(t *testing.T) {
		// The largest message the guard forwards reaches the server intact;
		// one byte more is answered by the guard, and the server (whose SDK
		// would close its transport on it) goes on serving.
		f := filepath.Join(e.allowed, "big.txt")
		overhead := len(fmt.Sprintf(`{"jsonrpc":"2.0","id":1000,"method":"tools/call","params":{"name":"write_file","arguments":{"content":"","path":%q}}}`, f))
		fits := mcp.DefaultMaxMessageBytes - 1 - overhead - 64 // the SDK's id and member order may differ a little
		sess.ok(t, "write_file", map[string]any{"path": f, "content": strings.Repeat("a", fits)})
		if st, err := os.Stat(f); err != nil || st.Size() != int64(fits) {
			t.Fatalf("big write: %v %v", st, err)
		}
		sess.invalid(t, "write_file", map[string]any{"path": f, "content": strings.Repeat("b", mcp.DefaultMaxMessageBytes)}, "longer than")
		sess.ok(t, "read_text_file", map[string]any{"path": filepath.Join(e.allowed, "a.txt")})
	})
	sess.close(t)

	t.Run("relative paths from another folder", func(t *testing.T) {
		// ws/rel links to outside. The server would resolve "rel/secret"
		// against its allowed directory, the workspace; a guard running in
		// another folder, where rel/ does not exist, saw nothing wrong.
		if err := os.Symlink(e.outside, filepath.Join(e.ws, "rel")); err != nil {
			t.Fatal(err)
		}
		e.guardDir = e.keys
		defer func() { e.guardDir = "" }()
		s := e.start(t, e.mint(t, "tools=read_text_file", "paths=rel/", "until=10m"), nil)
		defer s.close(t)
		s.refused(t, "read_text_file", map[string]any{"path": "rel/secret"}, "request", "is relative")
		s.refused(t, "read_text_file", map[string]any{"path": "~/secret"}, "request", "is relative")
	})
}

// e2eFromEnv returns a workspace for the real filesystem server, or skips
// (fails with CI=true) as TestE2EFilesystemServer does.
func e2eFromEnv(t *testing.T) *e2e {
	entry := os.Getenv(e2eServerEnv)
	if entry == "" {
		msg := e2eServerEnv + " is not set: run mcp/testdata/e2e/install.sh and set it to the path it prints"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the filesystem server needs node: %v", err)
	}
	return newE2E(t, node, entry)
}
