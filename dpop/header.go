package dpop

import (
	"encoding/base64"
	"strings"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/strictjson"
)

// checkShape is the syntax check that precedes parsing: one compact JWS,
// three parts of canonical unpadded base64url. It refuses the JSON
// serializations (which may carry unprotected headers or several
// signatures), whitespace and padding.
func checkShape(proof string) *Error {
	if proof == "" {
		return refuse(CheckSyntax, "empty proof")
	}
	start, parts := 0, 0
	for i := 0; i <= len(proof); i++ {
		if i < len(proof) && proof[i] != '.' {
			if b64Values[proof[i]] == 0xff {
				return refuse(CheckSyntax, "not a compact jws")
			}
			continue
		}
		if parts == 3 || !canonicalB64Len(proof[start:i]) {
			return refuse(CheckSyntax, "not a compact jws")
		}
		parts++
		start = i + 1
	}
	if parts != 3 {
		return refuse(CheckSyntax, "not a compact jws with three parts")
	}
	return nil
}

// b64Values maps a base64url character to its value, others to 0xff.
var b64Values = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// canonicalB64Len reports whether s (already known to use the base64url
// alphabet) has a valid unpadded length and zero unused trailing bits, so
// that each byte string has exactly one accepted encoding.
func canonicalB64Len(s string) bool {
	switch len(s) % 4 {
	case 1:
		return false
	case 2:
		return b64Values[s[len(s)-1]]&0x0f == 0
	case 3:
		return b64Values[s[len(s)-1]]&0x03 == 0
	}
	return true
}

// header is what steps 2–5 of spec/FORMAT.md §4.5 read from a protected
// header: the texts of the values of "typ", "alg" and "jwk" (nil when
// absent), slices of the decoded header.
type header struct {
	typ, alg, jwk []byte
}

// checkHeader decodes the protected header enc (canonical base64url, by
// checkShape) into buf, or a larger buffer when it does not fit, holds it
// to the lexical rules of step 2 (decodeHeader), refuses "crit" and
// "b64" whatever their values, and runs the typ and alg checks (steps 3 and 4). Member names are
// compared after unescaping; other members are skipped, whatever their
// values (spec/FORMAT.md §4.5 names no others).
func checkHeader(enc string, buf []byte, allowed []jose.SignatureAlgorithm) (header, jose.SignatureAlgorithm, *Error) {
	var h header
	b, e := decodeHeader(enc, buf)
	if e != nil {
		return h, "", e
	}
	var forbidden []byte
	ok := strictjson.EachMember(b, func(name, v []byte) bool {
		switch string(name) {
		case "crit", "b64":
			forbidden = name
			return false
		case "typ":
			h.typ = v
		case "alg":
			h.alg = v
		case "jwk":
			h.jwk = v
		}
		return true
	})
	if forbidden != nil {
		return h, "", refuse(CheckSyntax, "header parameter "+string(forbidden)+" not supported")
	}
	if !ok { // not reached: decodeHeader
		return h, "", refuse(CheckSyntax, "header is not strict json")
	}
	if typ, ok := strictjson.StringValue(h.typ); !ok || string(typ) != typDPoP {
		return h, "", refuse(CheckTyp, "not dpop+jwt")
	}
	name, _ := strictjson.StringValue(h.alg)
	var alg jose.SignatureAlgorithm
	switch string(name) {
	case string(jose.ES256):
		alg = jose.ES256
	case string(jose.EdDSA):
		alg = jose.EdDSA
	case string(Ed25519):
		alg = Ed25519
	}
	if !algAllowed(alg, allowed) {
		return h, "", refuse(CheckAlg, "not on the allow-list")
	}
	return h, alg, nil
}

func algAllowed(alg jose.SignatureAlgorithm, allowed []jose.SignatureAlgorithm) bool {
	if neverAllowed(alg) {
		return false
	}
	for _, a := range allowed {
		if a == alg {
			return true
		}
	}
	return false
}

// neverAllowed reports algorithms refused whatever the caller says: none
// and the symmetric HMAC family (RFC 9449 §4.3 step 5).
func neverAllowed(alg jose.SignatureAlgorithm) bool {
	return alg == "" || strings.EqualFold(string(alg), "none") || strings.HasPrefix(strings.ToUpper(string(alg)), "HS")
}

// decodeHeader decodes the protected header enc (canonical base64url,
// by checkShape) into buf, or a new buffer when buf is too small, and
// holds the text to the lexical rules of spec/FORMAT.md §4.5 step 2
// (strictjson.Object): one JSON object in valid UTF-8, without lone
// surrogate escapes, no value nested deeper than maxJSONDepth, no object
// with two members named alike (compared after unescaping) at any depth.
func decodeHeader(enc string, buf []byte) ([]byte, *Error) {
	if m := base64.RawURLEncoding.DecodedLen(len(enc)); m > len(buf) {
		buf = make([]byte, m)
	}
	n, err := base64.RawURLEncoding.Decode(buf, []byte(enc))
	if err != nil {
		return nil, refuse(CheckSyntax, "malformed jws")
	}
	if !strictjson.Object(buf[:n]) {
		return nil, refuse(CheckSyntax, "header is not strict json")
	}
	return buf[:n], nil
}

// checkHeaderText is decodeHeader alone: the lexical rules of step 2.
func checkHeaderText(enc string) *Error {
	var small [512]byte
	_, e := decodeHeader(enc, small[:])
	return e
}
