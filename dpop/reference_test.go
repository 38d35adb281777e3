package dpop

import (
	"bytes"
	"encoding/base64"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	josejson "github.com/go-jose/go-jose/v4/json"
)

// The reference decoder: go-jose's JSON package does the decoding, and a
// lexical scan (refLexical) adds the rules go-jose lacks. decodeClaims and
// checkHeaderText must agree with it on every input (FuzzClaimsReference,
// FuzzHeaderReference, TestClaimsReferenceProperty); they are kept because
// they are faster (TestPairs).

// refDecodeClaims decodes a payload as decodeClaims does, by go-jose.
func refDecodeClaims(payload []byte) (*claims, int64, *Error) {
	bad := func(reason string) (*claims, int64, *Error) { return nil, 0, refuse(CheckClaims, reason) }
	m, ok := refObject(payload)
	if !ok {
		return bad("payload is not strict json")
	}
	var c claims
	for _, s := range [...]struct {
		name string
		dst  *string
	}{{"jti", &c.JTI}, {"htm", &c.HTM}, {"htu", &c.HTU}} {
		v, ok := m[s.name]
		if !ok {
			return bad(s.name + " missing")
		}
		if *s.dst, ok = v.(string); !ok {
			return bad(s.name + " is not a json string")
		}
	}
	lit, ok := m["iat"].(josejson.Number)
	if !ok {
		return bad("iat missing or not a json number")
	}
	if c.iat, ok = parseIAT([]byte(lit)); !ok {
		return bad("iat is not an integer number of seconds in range")
	}
	if c.JTI == "" || len(c.JTI) > MaxJTIBytes {
		return bad("jti empty or too long")
	}
	if v, ok := m["nonce"]; ok {
		if c.Nonce, c.hasNonce = v.(string); !c.hasNonce {
			return bad("nonce is not a json string")
		}
	}
	if v, ok := m["ath"]; ok {
		if c.ATH, c.hasATH = v.(string); !c.hasATH {
			return bad("ath is not a json string")
		}
	}
	return &c, c.iat, nil
}

// refHeaderText is checkHeaderText by go-jose.
func refHeaderText(enc string) *Error {
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return refuse(CheckSyntax, "malformed jws")
	}
	if _, ok := refObject(raw); !ok {
		return refuse(CheckSyntax, "header is not strict json")
	}
	return nil
}

// refObject decodes b, which must be exactly one JSON object held to
// spec/FORMAT.md §4.5 step 2, into generic values, numbers kept as their
// literals. go-jose refuses bad grammar and, decoding into generic values,
// two members of one object named alike at any depth (decoding into a
// struct, or a RawMessage, it would skip unknown members unchecked).
func refObject(b []byte) (map[string]any, bool) {
	if !refLexical(b) {
		return nil, false
	}
	dec := josejson.NewDecoder(bytes.NewReader(b))
	dec.SetNumberType(josejson.UnmarshalJSONNumber)
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	if dec.Decode(new(any)) != io.EOF {
		return nil, false
	}
	return m, true
}

// refLexical checks the rules of spec/FORMAT.md §4.5 step 2 that go-jose's
// decoder does not: valid UTF-8 (go-jose substitutes U+FFFD), no lone
// surrogate escape (substituted too), and no value nested deeper than
// maxJSONDepth, the top-level value being depth 0 (go-jose has no bound),
// so a container at depth maxJSONDepth must be empty. It need only be right
// on texts go-jose accepts, where brackets outside strings are the nesting.
func refLexical(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	open := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			if open++; open > maxJSONDepth {
				j := i + 1
				for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
					j++
				}
				if j == len(b) || b[j] != b[i]+2 { // '}' or ']'
					return false
				}
			}
		case '}', ']':
			open--
		case '"':
			end, ok := refString(b, i+1)
			if !ok {
				return false
			}
			i = end
		}
	}
	return true
}

// refString returns the index of the quote that closes the string whose
// contents start at b[i], refusing a malformed or lone surrogate \u escape.
func refString(b []byte, i int) (int, bool) {
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i, true
		case '\\':
			if i+1 < len(b) && b[i+1] != 'u' {
				i++
				continue
			}
			r, ok := refHex4(b, i+2)
			if !ok {
				return i, false
			}
			i += 5
			if !utf16.IsSurrogate(r) {
				continue
			}
			if r >= 0xdc00 || i+2 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
				return i, false
			}
			if lo, ok := refHex4(b, i+3); !ok || lo < 0xdc00 || lo > 0xdfff {
				return i, false
			}
			i += 6
		}
	}
	return i, false
}

func refHex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		v, ok := unhex(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}
