package main

import (
	"strings"
	"testing"
	"unicode"
)

// TestCheck: the cross-check refuses another version's file and one whose
// classes differ from the toolchain's (here: no folding at all).
func TestCheck(t *testing.T) {
	if unicode.Version != version {
		t.Skipf("toolchain Unicode %s", unicode.Version)
	}
	keys := toolchainKeys()
	if len(keys) != 1454 {
		t.Fatalf("%d code points with a smaller one in their class", len(keys))
	}
	for _, in := range []string{
		"# CaseFolding-16.0.0.txt\n",
		"# CaseFolding-15.0.0.txt\n0041; C; 0061; # LATIN CAPITAL LETTER A\n",
		"# CaseFolding-15.0.0.txt\n0041; Q; 0061\n",
	} {
		if err := check(strings.NewReader(in), keys); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
