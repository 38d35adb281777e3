//go:build unix

package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNFCVersionSkewPinned: the guard matches look-alike names with
// golang.org/x/text's NFC (Unicode 15.0.0); node 20's ICU is Unicode 17,
// which composes characters added in 16.0 (here TULU-TIGALARI: U+113C2
// U+113C2 is U+113C5). The guard finds no entry for the decomposed name
// and would check the path as given while the server finds the composed
// link; it is refused only because caveat paths refuse every rune Go's
// tables do not know ("non-printing"). This pins that.
func TestNFCVersionSkewPinned(t *testing.T) {
	e := e2eFromEnv(t)
	if err := os.Symlink(e.outside, filepath.Join(e.allowed, "\U000113C5")); err != nil {
		t.Fatal(err)
	}
	r := e.startRaw(t, e.mint(t, "tools=read_text_file", "paths="+e.allowed+"/", "until=10m"))
	r.send(t, rawCall(`"n"`, "read_text_file", map[string]any{"path": filepath.Join(e.allowed, "\U000113C2\U000113C2", "secret")}))
	got := r.wait(t, `"n"`)
	t.Logf("answer: %s", got)
	if strings.Contains(got, "s3cret") {
		t.Errorf("read outside/secret through a name NFC-equal under Unicode 16: %s", got)
	}
}
