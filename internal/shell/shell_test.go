package shell

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"@t.txt": "@t.txt", "lead.key": "lead.key", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$HOME": "'$HOME'",
		"=ls": "'=ls'", "=": "'='", "tools=post": "tools=post", "a=b": "a=b", "`id`": "'`id`'", "a\nb": "'a\nb'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestQuoteRoundTrip: sh reads each quoted word back as the word itself.
func TestQuoteRoundTrip(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, w := range []string{"a b", "it's", "$(id)", "`id`", "\\", "a\nb", "=ls", "*", "'", `"`, "{a,b}", "~"} {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("sh read %q as %q (%v)", w, out, err)
		}
	}
}
