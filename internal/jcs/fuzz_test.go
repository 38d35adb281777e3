package jcs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/internal/jcs"
)

// FuzzCanonical: Canonical never panics; it refuses what encoding/json
// refuses; whatever it accepts, its output is valid JSON without
// insignificant whitespace that encoding/json reads as the same value as
// the input, and is its own canonical form, and no object of it holds two
// names strings.EqualFold matches.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"literals":[null,true,false]}`,
		`{"\u20ac":"Euro","\r":"CR","\ufb33":"x","1":"One","\ud83d\ude00":"e","\u0080":"c","\u00f6":"o"}`,
		`"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/"`,
		`[1e400]`, `{"a":1,"a":2}`, `"\ud83d"`, "\"\xff\"", ` [ -0.0 , 1E-7, 1e21 ] `, `[[[[[]]]]]`,
		`{"path":"src/x","content":"line\nline","n":12.50,"flags":{"z":true,"a":null}}`, `01`, `1.`, ``,
		`{"x":[{"link":1,"lin\u212a":2}]}`, `{"s":{"\u017f":1,"ss":2,"\u00df":3}}`, `{"\u0130":1,"i":2,"\u0131":3}`,
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
		if foldCollides(out) {
			t.Fatalf("Canonical accepted %q, which has two names equal under case folding", in)
		}
	})
}

// foldCollides reports whether an object of b (valid JSON) holds two
// member names that strings.EqualFold matches.
func foldCollides(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj, name bool // an object; its next token is a name
		names     []string
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].name {
			if s, ok := tok.(string); ok {
				for _, prev := range stack[n-1].names {
					if strings.EqualFold(prev, s) {
						return true
					}
				}
				stack[n-1].names = append(stack[n-1].names, s)
				stack[n-1].name = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].name = true
			}
			stack = append(stack, frame{obj: tok == json.Delim('{'), name: true})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if n := len(stack); n > 0 && stack[n-1].obj {
				stack[n-1].name = true
			}
		}
	}
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
