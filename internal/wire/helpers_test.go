package wire_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

// now is the fixed clock of the tests: ten minutes before 2026-11-30T03:20:00Z.
var now = time.Date(2026, 11, 30, 3, 10, 0, 0, time.UTC)

const (
	jkt   = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8" // bytes 0..31
	nonce = "AAECAwQFBgcICQoLDA0ODw"                      // bytes 0..15
)

func mustParse(t testing.TB, s string) caveat.Caveat {
	t.Helper()
	c, err := caveat.Parse(s, now)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return c
}

// wantErr fails unless err wraps sentinel and is a *caveat.Error.
func wantErr(t testing.TB, what string, err, sentinel error) *caveat.Error {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("%s: err = %v, want %v", what, err, sentinel)
	}
	var ce *caveat.Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s: err %T is not *caveat.Error", what, err)
	}
	return ce
}
