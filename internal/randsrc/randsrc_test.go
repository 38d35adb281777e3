package randsrc

import (
	"bytes"
	"crypto/rand"
	"io"
	"strings"
	"testing"
	"testing/cryptotest"
)

func read(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := io.ReadFull(Reader(), b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReaderFollowsCryptoRand: Reader reads crypto/rand.Reader at each
// call, so testing/cryptotest.SetGlobalRandom makes it reproducible.
func TestReaderFollowsCryptoRand(t *testing.T) {
	cryptotest.SetGlobalRandom(t, 7)
	a := read(t, 32)
	cryptotest.SetGlobalRandom(t, 7)
	want := make([]byte, 32)
	rand.Read(want)
	if !bytes.Equal(a, want) {
		t.Fatal("Reader does not read crypto/rand.Reader as set by SetGlobalRandom")
	}
	if Fixed() != nil {
		t.Fatal("a source is fixed without Fix")
	}
}

// TestFix: Fix replaces the source until restored, and nests.
func TestFix(t *testing.T) {
	restore := Fix(strings.NewReader("aaaa"))
	if got := read(t, 2); string(got) != "aa" {
		t.Fatalf("fixed source gave %q", got)
	}
	inner := Fix(strings.NewReader("bb"))
	if got := read(t, 2); string(got) != "bb" {
		t.Fatalf("nested source gave %q", got)
	}
	inner()
	if got := read(t, 2); string(got) != "aa" {
		t.Fatalf("restored source gave %q", got)
	}
	restore()
	if Fixed() != nil || Reader() != rand.Reader {
		t.Fatal("Fix not undone")
	}
}
