package jcs

import (
	"errors"
	"strings"
	"testing"
)

// TestNumberKeepsValue holds Canonical to CAVEATS.md ("The args digest"):
// a number whose canonical form has another decimal value than the number
// as written is refused; one that keeps its value passes.
func TestNumberKeepsValue(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"1.0", "1"}, {"1E2", "100"}, {"0.1", "0.1"}, {"-0", "0"}, {"-0.0e-999999999999999999999", "0"},
		{"5e-324", "5e-324"}, {"1e21", "1e+21"}, {"1.5e-7", "1.5e-7"}, {"9007199254740992", "9007199254740992"},
		{"100000000000000000000", "100000000000000000000"}, {"0.000001", "0.000001"}, {"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"-12.50", "-12.5"}, {"00", ""}, // "00" is not JSON: refused by the grammar, not by this rule
	} {
		got, err := Canonical([]byte(c.in))
		if c.out == "" {
			if err == nil {
				t.Errorf("%s: accepted", c.in)
			}
			continue
		}
		if err != nil || string(got) != c.out {
			t.Errorf("%s: got %s, %v; want %s", c.in, got, err, c.out)
		}
	}
	for _, in := range []string{
		"1e400", "-1e400", "1e-400", "2e-324", "12345678901234567890", "0.10000000000000001",
		"9007199254740993", "4.94065645841246544177e-324", "1" + strings.Repeat("0", 30) + "1",
		"1e999999999999999999999", "333333333.33333329", "[1, 2, 12345678901234567891]", `{"a":{"b":0.30000000000000004441}}`,
	} {
		_, err := Canonical([]byte(in))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Reason, "value") && !strings.Contains(e.Reason, "range") {
			t.Errorf("%s: %v, want a refusal for the number's value", in, err)
		}
	}
}

// TestSpecDepth is CAVEATS.md's depth example: 32 arrays around nothing
// as a member's value pass; 32 around 1, or 33, do not.
func TestSpecDepth(t *testing.T) {
	nest := func(n int, inner string) string {
		return `{"x":` + strings.Repeat("[", n) + inner + strings.Repeat("]", n) + `}`
	}
	if _, err := Canonical([]byte(nest(32, ""))); err != nil {
		t.Errorf("32 arrays around nothing: %v", err)
	}
	for _, in := range []string{nest(32, "1"), nest(33, "")} {
		if _, err := Canonical([]byte(in)); err == nil {
			t.Errorf("%.60s…: accepted", in)
		}
	}
}
