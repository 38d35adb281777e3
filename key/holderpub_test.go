package key_test

import (
	"strings"
	"testing"

	"github.com/tickettool/tickettool/key"
)

// TestHolderPublicJWKRules: ParseHolderPublic holds a JWK to
// spec/FORMAT.md §4.4 and nothing more: members the spec ignores are
// ignored whatever their values (go-jose, the parser before, refused
// these), and the members it names refuse the key whatever their values
// (go-jose took a null for absent, and skipped "oth"). The thumbprint
// stays the RFC 8037 key's.
func TestHolderPublicJWKRules(t *testing.T) {
	const members = `"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"`
	for _, c := range []struct {
		extra string
		ok    bool
	}{
		{``, true},
		{`,"kid":5`, true},
		{`,"use":5`, true},
		{`,"key_ops":1`, true},
		{`,"x5c":["garbage"]`, true},
		{`,"x5u":"%zz"`, true},
		{`,"x5t":"AAAA"`, true},
		{`,"n":1,"e":"A=="`, true},
		{`,"y":0`, true},
		{`,"alg":"EdDSA"`, true},
		{`,"alg":"Ed25519"`, true}, // RFC 9864 §2.2
		{`,"alg":"ed25519"`, false},
		{`,"alg":"Ed448"`, false},
		{`,"ext":{"a":[1,{"b":null}]}`, true},
		{`,"alg":"ES256"`, false},
		{`,"alg":null`, false},
		{`,"d":null`, false},
		{`,"priv":null`, false},
		{`,"oth":[]`, false},
		{`,"k":"AA"`, false},
		{`,"kty":"OKP"`, false},            // a duplicate member
		{`,"ext":{"a":1,"a":2}`, false},    // a duplicate at depth
		{`,"ext":"` + "\xff" + `"`, false}, // invalid UTF-8
		{`,"ext":"\ud800"`, false},         // a lone surrogate escape
		{`,"ext":` + strings.Repeat("[", 33) + strings.Repeat("]", 33), false}, // too deep
	} {
		p, err := key.ParseHolderPublic([]byte(`{` + members + c.extra + `}`))
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want accepted %v", c.extra, err, c.ok)
		}
		if err == nil && p.Thumbprint() != rfc8037JKT {
			t.Errorf("%s: thumbprint %s", c.extra, p.Thumbprint())
		}
	}
	// x with a newline (JSON-escaped) in it: a character outside the
	// alphabet, which go-jose's base64 decoder skipped.
	if _, err := key.ParseHolderPublic([]byte(`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaP\ncHURo"}`)); err == nil {
		t.Error("x with a newline accepted")
	}
}
