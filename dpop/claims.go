package dpop

import "github.com/tickettool/tickettool/internal/strictjson"

// claims are the DPoP proof claims of RFC 9449 §4.2 that Verify reads.
type claims struct {
	JTI, HTM, HTU, Nonce, ATH string
	hasNonce, hasATH          bool
	iat                       int64
}

// Member bits, for duplicate and presence tracking.
const (
	mJTI = 1 << iota
	mHTM
	mHTU
	mIAT
	mNonce
	mATH
	mRequired = mJTI | mHTM | mHTU | mIAT
)

// decodeClaims decodes the verified payload (spec/FORMAT.md §4.5 step 7)
// with a small strict JSON parser (RFC 8259), written for this one flat
// object. The payload must be exactly one JSON object, optionally
// surrounded by whitespace, in valid UTF-8. Member names are compared after
// unescaping and case-sensitively; two top-level members with the same name
// are refused (so "jti" and "\u006ati" collide). jti, htm, htu, nonce and
// ath must be JSON strings (null is not a string); iat must be a JSON
// integer literal (digits only: no sign, fraction or exponent) no larger
// than year 9999. Unknown members are skipped after a syntax check, no
// value nested deeper than maxJSONDepth, with no two members of one object
// named alike at any depth. Lone UTF-16 surrogates in escapes are refused.
//
// go-jose's JSON package is the reference (refDecodeClaims in the tests):
// FuzzDecodeClaims and TestClaimsReferenceProperty hold this parser to it,
// the same claims from every payload both accept, the same payloads
// refused. It is not the decoder here because, measured as interleaved
// pairs (TestPairs), it takes about 10x as long (about 6 µs
// against 0.6 µs, 35 allocations against 6): 5-7% of a whole Verify, which
// the target holds to 1.05x go-jose's bare parse and verify. (So go-jose's
// decoder does not save time; nor does it cost more than the rest of Verify:
// this parser is under 1% of Verify, go-jose's would be about 6%.)
func decodeClaims(payload []byte) (*claims, int64, *Error) {
	p := strictjson.Scanner{B: payload, Dups: true}
	var c claims
	var seen int
	var others strictjson.MemberSet
	bad := func(reason string) (*claims, int64, *Error) { return nil, 0, refuse(CheckClaims, reason) }
	p.WS()
	if !p.Eat('{') {
		return bad("payload is not a json object")
	}
	p.WS()
	if !p.Eat('}') {
		for {
			p.WS()
			key, ok := p.Str()
			if !ok {
				return bad("malformed json")
			}
			p.WS()
			if !p.Eat(':') {
				return bad("malformed json")
			}
			p.WS()
			bit, dst := c.member(string(key)) // no allocation for the switch
			if bit != 0 {
				if seen&bit != 0 {
					return bad("duplicate member " + quote(string(key)))
				}
				seen |= bit
				if bit == mIAT {
					raw, ok := p.Number()
					if !ok {
						return bad("iat is not a json number")
					}
					if c.iat, ok = parseIAT(raw); !ok {
						return bad("iat is not an integer number of seconds in range")
					}
				} else {
					v, ok := p.Str()
					if !ok {
						return bad(string(key) + " is not a json string")
					}
					*dst = string(v)
				}
			} else {
				if !others.Add(string(key)) {
					return bad("duplicate member")
				}
				if !p.Skip(1) {
					return bad("malformed json")
				}
			}
			p.WS()
			if p.Eat(',') {
				continue
			}
			if p.Eat('}') {
				break
			}
			return bad("malformed json")
		}
	}
	p.WS()
	if p.I != len(p.B) {
		return bad("data after the claims object")
	}
	if reason := c.complete(seen); reason != "" {
		return bad(reason)
	}
	return &c, c.iat, nil
}

// complete records which optional claims were seen and returns why the
// claims are incomplete, or "".
func (c *claims) complete(seen int) string {
	switch missing := mRequired &^ seen; {
	case missing&mJTI != 0:
		return "jti missing"
	case missing&mHTM != 0:
		return "htm missing"
	case missing&mHTU != 0:
		return "htu missing"
	case missing&mIAT != 0:
		return "iat missing"
	case c.JTI == "":
		return "jti empty"
	case len(c.JTI) > MaxJTIBytes:
		return "jti too long"
	}
	c.hasNonce, c.hasATH = seen&mNonce != 0, seen&mATH != 0
	return ""
}

// member maps a claim name to its bit and, for strings, its field.
func (c *claims) member(name string) (int, *string) {
	switch name {
	case "jti":
		return mJTI, &c.JTI
	case "htm":
		return mHTM, &c.HTM
	case "htu":
		return mHTU, &c.HTU
	case "iat":
		return mIAT, nil
	case "nonce":
		return mNonce, &c.Nonce
	case "ath":
		return mATH, &c.ATH
	}
	return 0, nil
}

// parseIAT accepts a JSON integer literal in [0, maxIssuedAt].
func parseIAT(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > maxIssuedAtDigits || (raw[0] == '0' && len(raw) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, n <= maxIssuedAt
}
