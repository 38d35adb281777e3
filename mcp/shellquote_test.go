package mcp

import "testing"

// TestShellQuote: the same cases as cmd/tickettool's TestShellQuote (the
// two functions are kept equal): safe words as they are, anything else,
// and a word starting with '=' (zsh's =command expansion), in single
// quotes.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"@t.txt": "@t.txt", "lead.key": "lead.key", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$HOME": "'$HOME'",
		"=ls": "'=ls'", "=": "'='", "tools=post": "tools=post", "a=b": "a=b",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
