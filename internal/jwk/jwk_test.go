package jwk

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/internal/strictjson"
)

var b64 = base64.RawURLEncoding

// smallOrder are the 14 small-order Ed25519 encodings of spec/FORMAT.md
// §4.2, written out here rather than taken from internal/smallorder, so
// that the test does not share the list it checks.
var smallOrder = []string{
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000080",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
}

func okp(x string, extra string) string {
	return `{"kty":"OKP","crv":"Ed25519","x":"` + x + `"` + extra + `}`
}

// parse is what both callers do: the lexical pass of §4.5 step 2 over the
// text, then Parse.
func parse(s string) (*Key, error) {
	if !strictjson.Object([]byte(s)) {
		return nil, ErrNotObject
	}
	return Parse([]byte(s))
}

// TestParse holds Parse to §4.4 directly (dpop's and key's tests reach it
// through their own checks, which can hide a missing rule here).
func TestParse(t *testing.T) {
	edPub := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
	ed := b64.EncodeToString(edPub)
	ecKey, err := ecdh.P256().NewPrivateKey(append(make([]byte, 31), 7))
	if err != nil {
		t.Fatal(err)
	}
	raw := ecKey.PublicKey().Bytes() // 0x04 ‖ x ‖ y
	x, y := b64.EncodeToString(raw[1:33]), b64.EncodeToString(raw[33:])
	ec := func(extra string) string {
		return `{"kty":"EC","crv":"P-256","x":"` + x + `","y":"` + y + `"` + extra + `}`
	}
	accepted := []string{
		okp(ed, ""), okp(ed, `,"alg":"EdDSA"`), okp(ed, `,"alg":"Ed25519"`), okp(ed, `,"kid":5,"use":[1]`),
		ec(""), ec(`,"alg":"ES256"`), ec(`,"x5c":"not a chain"`),
		" " + okp(ed, "") + "\n", // whitespace around the object, as §4.5 step 2 allows
	}
	refused := []string{
		okp(ed, `,"alg":"ES256"`), okp(ed, `,"alg":null`), okp(ed, `,"d":null`), okp(ed, `,"priv":"x"`),
		okp(ed, `,"oth":[]`), okp(ed, `,"x":"`+ed+`"`), okp(ed+"=", ""), okp(ed[:42], ""),
		okp(ed, `,"crv":"Ed25519"`), `{"kty":"OKP","crv":"Ed448","x":"` + ed + `"}`,
		ec(`,"alg":"EdDSA"`), ec(`,"alg":"Ed25519"`), okp(ed, `,"alg":"ed25519"`), okp(ed, `,"alg":"Ed448"`), ec(`,"k":"AA"`), `{"kty":"EC","crv":"P-384","x":"` + x + `","y":"` + y + `"}`,
		`{"kty":"EC","crv":"P-256","x":"` + x + `"}`, `{"kty":"EC","crv":"P-256","x":"` + x + `","y":"` + x + `"}`,
		`[]`, `{}`, "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"" + ed + "\",\"n\":\"\xff\"}",
	}
	for _, s := range accepted {
		if _, err := parse(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range refused {
		if _, err := parse(s); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
	for _, h := range smallOrder {
		b, _ := hex.DecodeString(h)
		if _, err := parse(okp(b64.EncodeToString(b), "")); err == nil {
			t.Errorf("small-order key %s: accepted", h)
		}
	}
}

// Signs: which JWS algorithms a key may check (RFC 9864 §2.2 beside RFC
// 8037): its type's, and its "alg" member's alone when it has one.
func TestSigns(t *testing.T) {
	var seed [32]byte
	ed := b64.EncodeToString(ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey))
	ecKey, err := ecdh.P256().NewPrivateKey(append(make([]byte, 31), 1))
	if err != nil {
		t.Fatal(err)
	}
	raw := ecKey.PublicKey().Bytes()
	ec := `{"kty":"EC","crv":"P-256","x":"` + b64.EncodeToString(raw[1:33]) + `","y":"` + b64.EncodeToString(raw[33:]) + `"}`
	for _, c := range []struct {
		jwk  string
		algs string // the algorithms it signs, of ES256 EdDSA Ed25519 none
	}{
		{okp(ed, ""), "EdDSA Ed25519"},
		{okp(ed, `,"alg":"EdDSA"`), "EdDSA"},
		{okp(ed, `,"alg":"Ed25519"`), "Ed25519"},
		{ec, "ES256"},
	} {
		k, err := parse(c.jwk)
		if err != nil {
			t.Fatalf("%s: %v", c.jwk, err)
		}
		var got []string
		for _, a := range []string{"ES256", "EdDSA", "Ed25519", "none", "ed25519", ""} {
			if k.Signs(a) {
				got = append(got, a)
			}
		}
		if strings.Join(got, " ") != c.algs {
			t.Errorf("%s signs %q, want %q", c.jwk, got, c.algs)
		}
	}
}
