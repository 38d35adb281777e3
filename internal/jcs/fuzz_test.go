package jcs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/tickettool/tickettool/internal/jcs"
)

// FuzzCanonical: Canonical never panics; it refuses what encoding/json
// refuses; whatever it accepts, its output is valid JSON without
// insignificant whitespace that encoding/json reads as the same value as
// the input, and is its own canonical form.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"literals":[null,true,false]}`,
		`{"\u20ac":"Euro","\r":"CR","\ufb33":"x","1":"One","\ud83d\ude00":"e","\u0080":"c","\u00f6":"o"}`,
		`"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/"`,
		`[1e400]`, `{"a":1,"a":2}`, `"\ud83d"`, "\"\xff\"", ` [ -0.0 , 1E-7, 1e21 ] `, `[[[[[]]]]]`,
		`{"path":"src/x","content":"line\nline","n":12.50,"flags":{"z":true,"a":null}}`, `01`, `1.`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := jcs.Canonical(in)
		if err != nil {
			if !errors.Is(err, jcs.ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		var vin, vout any
		if err := json.Unmarshal(in, &vin); err != nil {
			t.Fatalf("Canonical accepted %q, which encoding/json refuses: %v", in, err)
		}
		if err := json.Unmarshal(out, &vout); err != nil {
			t.Fatalf("Canonical(%q) = %q is not JSON: %v", in, out, err)
		}
		if !reflect.DeepEqual(vin, vout) {
			t.Fatalf("Canonical(%q) = %q reads as %v, the input as %v", in, out, vout, vin)
		}
		again, err := jcs.Canonical(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Canonical(%q) = %q, %v; not idempotent", out, again, err)
		}
		if i := insignificantSpace(out); i >= 0 {
			t.Fatalf("Canonical(%q) = %q has whitespace outside strings at byte %d", in, out, i)
		}
	})
}

// insignificantSpace returns the offset of the first JSON whitespace byte
// outside a string in b (which is valid JSON), or -1.
func insignificantSpace(b []byte) int {
	in, esc := false, false
	for i, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return i
		}
	}
	return -1
}
