package jcs

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestRFCExamples: the examples of RFC 8785 §3.2.2 (and §3.2.3, member
// sorting), golden bytes written from the RFC.
func TestRFCExamples(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		// The RFC writes 333333333.33333329, whose double JCS writes
		// 333333333.3333333: a number that changes its value, which the
		// args digest refuses (TestNumberKeepsValue, CAVEATS.md); the
		// number here is the one it stands for.
		{"§3.2.2 primitives",
			"{\n  \"numbers\": [333333333.3333333, 1E30, 4.50,\n              2e-3, 0.000000000000000000000000001],\n" +
				"  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n" +
				"  \"literals\": [null, true, false]\n}",
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		{"§3.2.3 sorting",
			"{\n  \"\\u20ac\": \"Euro Sign\",\n  \"\\r\": \"Carriage Return\",\n  \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\",\n" +
				"  \"1\": \"One\",\n  \"\\ud83d\\ude00\": \"Emoji: Grinning Face\",\n  \"\\u0080\": \"Control\",\n" +
				"  \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"\n}",
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\"," +
				"\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
		// §3.2.3: the sort is recursive, arrays keep their order.
		{"nested", `{"b":[{"z":1,"a":2},3],"a":{"d":{},"c":[]}}`, `{"a":{"c":[],"d":{}},"b":[{"a":2,"z":1},3]}`},
		{"bare values", " \t\r\n\"x\"\n", `"x"`},
		{"controls", `"\u0000\u0008\u0009\u000a\u000b\u000c\u000d\u001f\u007f\u2028"`,
			"\"\\u0000\\b\\t\\n\\u000b\\f\\r\\u001f\u007f\u2028\""},
		{"solidus unescaped", `"\/a/"`, `"/a/"`},
		{"raw utf-8 kept", `"é😀"`, `"é😀"`},
		{"minus zero", `-0.0e5`, `0`},
		{"integers", `[1.0, 100, 1E2, -5e0]`, `[1,100,100,-5]`},
	} {
		got, err := Canonical([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: Canonical = %q, %v\n want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestRFCNumbers: the number serialisation samples of RFC 8785 Appendix B,
// IEEE 754 bit patterns and the expected text.
func TestRFCNumbers(t *testing.T) {
	for _, tc := range []struct{ bits, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	} {
		b, _ := hex.DecodeString(tc.bits)
		f := math.Float64frombits(binary.BigEndian.Uint64(b))
		if got := string(appendNumber(nil, f)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.bits, got, tc.want)
		}
		// The same through Canonical, from Go's own shortest text.
		if got, err := Canonical(appendNumber(nil, f)); err != nil || string(got) != tc.want {
			t.Errorf("%s: Canonical = %s, %v", tc.bits, got, err)
		}
	}
	// NaN and the infinities (the table's last rows) cannot be JSON input.
	for _, in := range []string{"NaN", "Infinity", "-Infinity", "1e309", "-1e309", "1.8e308"} {
		if _, err := Canonical([]byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", in, err)
		}
	}
}

// TestRefused: every rule of strict input refuses, with ErrMalformed and
// an *Error.
func TestRefused(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	deepObj := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	for _, tc := range []struct{ name, in string }{
		{"empty", ""},
		{"only space", " \n"},
		{"two values", `1 2`},
		{"trailing comma", `[1,]`},
		{"trailing comma object", `{"a":1,}`},
		{"leading zero", `01`},
		{"bare dot", `1.`},
		{"plus sign", `+1`},
		{"hex", `0x10`},
		{"exponent without digits", `1e+`},
		{"overflow", `1e400`},
		{"single quotes", `'a'`},
		{"unterminated string", `"abc`},
		{"raw control", "\"a\tb\""},
		{"bad escape", `"\x"`},
		{"short escape", `"\u12"`},
		{"lone high surrogate", `"\ud83d"`},
		{"lone high surrogate then text", `"\ud83dx"`},
		{"high then high", `"\ud83d\ud83d"`},
		{"lone low surrogate", `"\ude00"`},
		{"invalid utf-8", "\"\xff\""},
		{"utf-8 surrogate", "\"\xed\xa0\x80\""},
		{"overlong utf-8", "\"\xc0\xaf\""},
		{"invalid utf-8 in a name", "{\"\xfe\":1}"},
		{"duplicate", `{"a":1,"a":2}`},
		{"duplicate after unescaping", `{"a":1,"\u0061":2}`},
		{"duplicate nested", `[{"x":{"b":1,"b":1}}]`},
		{"duplicate, not adjacent", `{"b":1,"a":0,"b":2}`},
		{"34 arrays: the innermost at depth 33", deep(MaxDepth + 2)},
		{"33 objects: the 1 at depth 33", deepObj(MaxDepth + 1)},
		{"too large", `"` + strings.Repeat("a", MaxInputBytes-1) + `"`},
		{"true prefix", `tru`},
		{"missing colon", `{"a" 1}`},
		{"name not a string", `{1:1}`},
		{"BOM", "\ufeff1"},
	} {
		_, err := Canonical([]byte(tc.in))
		var e *Error
		if !errors.Is(err, ErrMalformed) || !errors.As(err, &e) {
			t.Errorf("%s: err = %v, want *Error wrapping ErrMalformed", tc.name, err)
		}
	}
}

// TestLimitsBoundary: exactly at the limits is accepted.
func TestLimitsBoundary(t *testing.T) {
	// The top-level value is at depth 0: 33 arrays put the innermost at
	// depth 32, 32 objects put their 1 at depth 32.
	for _, in := range []string{
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
	} {
		if got, err := Canonical([]byte(in)); err != nil || string(got) != in {
			t.Errorf("depth %d: %q, %v", MaxDepth, got, err)
		}
	}
	big := `"` + strings.Repeat("a", MaxInputBytes-2) + `"`
	if got, err := Canonical([]byte(big)); err != nil || len(got) != MaxInputBytes {
		t.Errorf("input of %d bytes: %d bytes, %v", len(big), len(got), err)
	}
}

func TestErrorText(t *testing.T) {
	_, err := Canonical([]byte(`{"secret":1,"secret":2}`))
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.HasPrefix(err.Error(), "jcs: byte 22: ") {
		t.Errorf("error %q: want a byte offset and no quoted input", err)
	}
}

// TestCompareUTF16: the order of §3.2.3 where it differs from byte order.
func TestCompareUTF16(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int // sign
	}{
		{"\U0001F600", "\uFB33", -1}, // D83D DE00 < FB33, though U+1F600 > U+FB33
		{"\uE000", "\U00010000", 1},
		{"\U00010000", "\U00010001", -1},
		{"a", "ab", -1},
		{"", "", 0},
		{"\u00f6", "\u0080", 1},
	} {
		got := compareUTF16(tc.a, tc.b)
		if (got < 0) != (tc.want < 0) || (got > 0) != (tc.want > 0) {
			t.Errorf("compareUTF16(%q, %q) = %d, want sign %d", tc.a, tc.b, got, tc.want)
		}
	}
}
