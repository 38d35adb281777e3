package jcs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/internal/jcs"
)

// A JSON value as encoding/json decodes it into any: nil, bool, float64,
// string, []any, map[string]any.

var runes = []rune("aAz0kKs \"\\/\x00\x1f\x7f\u0080\u00e9\u00df\u0131\u017f\u2028\u212a\ufb33\uffff\U0001F600\U00010000\U00010400\U00010428")

func genString(t *rapid.T) string {
	return rapid.StringOfN(rapid.SampledFrom(runes), 0, 6, -1).Draw(t, "s")
}

func genNumber(t *rapid.T) float64 {
	switch rapid.IntRange(0, 3).Draw(t, "numkind") {
	case 0:
		return float64(rapid.Int64Range(-1e6, 1e6).Draw(t, "int"))
	case 1:
		return math.Float64frombits(rapid.Uint64().Draw(t, "bits"))
	}
	return rapid.Float64().Draw(t, "f")
}

func genValue(t *rapid.T, depth int) any {
	max := 6
	if depth >= 3 {
		max = 3
	}
	switch rapid.IntRange(0, max).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "b")
	case 2:
		if f := genNumber(t); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
		return 0.0
	case 3:
		return genString(t)
	case 4, 5:
		n := rapid.IntRange(0, 4).Draw(t, "n")
		a := make([]any, n)
		for i := range a {
			a[i] = genValue(t, depth+1)
		}
		return a
	}
	m := map[string]any{}
	for n := rapid.IntRange(0, 4).Draw(t, "n"); n > 0; n-- {
		m[genName(t, m)] = genValue(t, depth+1)
	}
	return m
}

// genName draws a member name for m: none of m's names equal under case
// folding (strings.EqualFold), which Canonical refuses
// (TestPropFoldCollision).
func genName(t *rapid.T, m map[string]any) string {
next:
	for {
		s := genString(t)
		for k := range m {
			if strings.EqualFold(k, s) {
				continue next
			}
		}
		return s
	}
}

// render writes v as JSON in one of many equivalent ways: members in a
// drawn order, drawn whitespace, characters escaped or not, numbers in
// several notations.
func render(t *rapid.T, b *bytes.Buffer, v any) {
	ws := func() { b.WriteString(rapid.SampledFrom([]string{"", "", " ", "\n\t", "\r\n  "}).Draw(t, "ws")) }
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case float64:
		fmtc := rapid.SampledFrom([]byte{'e', 'E', 'g', 'f'}).Draw(t, "fmt")
		s := strconv.FormatFloat(v, fmtc, -1, 64)
		if fmtc == 'g' && rapid.Bool().Draw(t, "pad") {
			// More digits than needed, the same decimal value: the
			// shortest digits with trailing zeros. (Digits that change
			// the value are refused: TestNumberKeepsValue.)
			m, e, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
			if !strings.Contains(m, ".") {
				m += "."
			}
			s = m + "000e" + e
		}
		b.WriteString(s)
	case string:
		b.WriteByte('"')
		for _, r := range v {
			switch {
			case r == '"' || r == '\\':
				b.WriteString(`\` + string(r))
			case r < 0x20 || rapid.IntRange(0, 3).Draw(t, "esc") == 0:
				for _, u := range utf16.Encode([]rune{r}) {
					f := rapid.SampledFrom([]string{`\u%04x`, `\u%04X`}).Draw(t, "hex")
					fmt.Fprintf(b, f, u)
				}
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			render(t, b, e)
			ws()
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		keys = rapid.Permutation(keys).Draw(t, "order")
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			render(t, b, k)
			ws()
			b.WriteByte(':')
			ws()
			render(t, b, v[k])
		}
		b.WriteByte('}')
	}
}

// TestPropCanonical: any two renderings of one value have the same
// canonical form, which decodes to that value.
func TestPropCanonical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := genValue(t, 0)
		var b1, b2 bytes.Buffer
		render(t, &b1, v)
		render(t, &b2, v)
		c1, err1 := jcs.Canonical(b1.Bytes())
		c2, err2 := jcs.Canonical(b2.Bytes())
		if err1 != nil || err2 != nil {
			t.Fatalf("Canonical refused a rendering: %v, %v\n%s\n%s", err1, err2, b1.Bytes(), b2.Bytes())
		}
		if !bytes.Equal(c1, c2) {
			t.Fatalf("two renderings, two forms:\n%s -> %s\n%s -> %s", b1.Bytes(), c1, b2.Bytes(), c2)
		}
		var got any
		if err := json.Unmarshal(c1, &got); err != nil || !reflect.DeepEqual(got, v) {
			t.Fatalf("%s reads as %#v, %v; want %#v", c1, got, err, v)
		}
	})
}

// TestPropFoldCollision: an object, anywhere in a value, holding a name
// and another spelling of it under case folding (each character swapped
// for one of its SimpleFold orbit, as encoding/json matches names) is
// refused with ErrFoldCollision, in either order.
func TestPropFoldCollision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genString(t)
		var b []rune
		for _, r := range a {
			for n := rapid.IntRange(0, 3).Draw(t, "fold"); n > 0; n-- {
				r = unicode.SimpleFold(r)
			}
			b = append(b, r)
		}
		if string(b) == a {
			t.Skip("the same spelling")
		}
		obj := map[string]any{a: genValue(t, 2)}
		for n := rapid.IntRange(0, 10).Draw(t, "others"); n > 0; n-- {
			obj[genName(t, obj)] = 0.0
		}
		var inner bytes.Buffer
		render(t, &inner, obj)
		var v bytes.Buffer
		render(t, &v, string(b))
		pair := inner.String()[:inner.Len()-1] + "," + v.String() + ":" + "1}"
		if rapid.Bool().Draw(t, "swap") {
			pair = "{" + v.String() + ":1," + inner.String()[1:]
		}
		in := pair
		for d := rapid.IntRange(0, 3).Draw(t, "depth"); d > 0; d-- {
			if rapid.Bool().Draw(t, "array") {
				in = "[0," + in + "]"
			} else {
				in = `{"x":` + in + "}"
			}
		}
		if _, err := jcs.Canonical([]byte(in)); !errors.Is(err, jcs.ErrFoldCollision) {
			t.Fatalf("%s: err = %v, want ErrFoldCollision", in, err)
		}
	})
}
