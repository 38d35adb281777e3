package dpop

import (
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// divergence is a header on which go-jose and the spec part.
type divergence struct {
	name     string
	alg      jose.SignatureAlgorithm
	hdr, jwk string // extra header members, extra jwk members (each with a leading comma)
	want     Check  // "" when the spec accepts
}

func divergences() []divergence {
	return []divergence{
		// go-jose refuses, the spec accepts.
		{"kid a number", jose.ES256, `,"kid":5`, ``, ""},
		{"kid an object", jose.EdDSA, `,"kid":{"a":1}`, ``, ""},
		{"nonce a number", jose.ES256, `,"nonce":5`, ``, ""},
		{"x5c not base64", jose.EdDSA, `,"x5c":["!"]`, ``, ""},
		{"x5c not a certificate", jose.ES256, `,"x5c":["AAAA"]`, ``, ""},
		{"x5c a string", jose.ES256, `,"x5c":"AAAA"`, ``, ""},
		{"jwk kid a number", jose.ES256, ``, `,"kid":5`, ""},
		{"jwk use a number", jose.EdDSA, ``, `,"use":5`, ""},
		{"jwk key_ops and use", jose.EdDSA, ``, `,"key_ops":1,"use":[]`, ""},
		{"jwk x5c garbage", jose.ES256, ``, `,"x5c":["garbage"]`, ""},
		{"jwk x5u not a url", jose.ES256, ``, `,"x5u":"%zz"`, ""},
		{"jwk x5t wrong size", jose.EdDSA, ``, `,"x5t":"AAAA"`, ""},
		{"jwk x5t#S256 not base64", jose.EdDSA, ``, `,"x5t#S256":"!"`, ""},
		{"jwk n a number", jose.ES256, ``, `,"n":1`, ""},
		{"jwk e not base64", jose.ES256, ``, `,"e":"A=="`, ""},
		{"jwk pub not base64", jose.EdDSA, ``, `,"pub":"*"`, ""},
		{"OKP jwk y a number", jose.EdDSA, ``, `,"y":0`, ""},
		// go-jose accepts, the spec refuses.
		{"crit null", jose.ES256, `,"crit":null`, ``, CheckSyntax},
		{"b64 null", jose.EdDSA, `,"b64":null`, ``, CheckSyntax},
		{"jwk d null", jose.ES256, ``, `,"d":null`, CheckJWK},
		{"jwk priv null", jose.EdDSA, ``, `,"priv":null`, CheckJWK},
		{"jwk k null", jose.EdDSA, ``, `,"k":null`, CheckJWK},
		{"jwk oth", jose.ES256, ``, `,"oth":[]`, CheckJWK},
		{"jwk alg null", jose.EdDSA, ``, `,"alg":null`, CheckJWK},
		{"jwk alg empty", jose.ES256, ``, `,"alg":""`, CheckJWK},
	}
}

// TestGoJoseDiffers: on each header of divergences, verifyJWS goes the
// spec's way and go-jose the other, and goJoseDiffers names it (so that
// the fuzz target and the property excuse exactly these).
func TestGoJoseDiffers(t *testing.T) {
	keys := proofKeys(t)
	for _, d := range divergences() {
		t.Run(d.name, func(t *testing.T) {
			hdr := `{"typ":"dpop+jwt","alg":"` + string(d.alg) + `"` + d.hdr + `,"jwk":{` + publicMembers(keys[d.alg]) + d.jwk + `}}`
			proof := signProof(t, keys[d.alg], hdr, refPayload)
			st := &settings{algs: supportedAlgorithms[:]}
			_, _, e := verifyJWS(proof, st)
			_, _, re := referenceVerifyJWS(proof, st)
			more, less := goJoseDiffers(proof)
			if d.want == "" {
				if e != nil || re == nil || !more || less {
					t.Fatalf("verifyJWS %v, go-jose %v, go-jose refuses more %v, accepts more %v; want nil, refused, true, false", e, re, more, less)
				}
			} else if e == nil || e.Check != d.want || re != nil || more || !less {
				t.Fatalf("verifyJWS %v, go-jose %v, go-jose refuses more %v, accepts more %v; want %s, nil, false, true", e, re, more, less, d.want)
			}
			agreeJWS(t, proof, supportedAlgorithms[:])
		})
	}
}

// TestCoordinateNewline: an x holding a newline (escaped in the JSON) is
// refused by the spec (a character outside the alphabet) and accepted by
// go-jose, whose base64 decoder skips it.
func TestCoordinateNewline(t *testing.T) {
	h := proofKeys(t)[jose.EdDSA]
	members := publicMembers(h)
	i := strings.Index(members, `"x":"`) + len(`"x":"`) + 10
	hdr := `{"typ":"dpop+jwt","alg":"EdDSA","jwk":{` + members[:i] + `\n` + members[i:] + `}}`
	proof := signProof(t, h, hdr, refPayload)
	st := &settings{algs: supportedAlgorithms[:]}
	if _, _, e := verifyJWS(proof, st); e == nil || e.Check != CheckJWK {
		t.Fatalf("verifyJWS: %v", e)
	}
	if _, _, re := referenceVerifyJWS(proof, st); re != nil {
		t.Fatalf("go-jose refuses it now: %v", re)
	}
	agreeJWS(t, proof, supportedAlgorithms[:])
}
