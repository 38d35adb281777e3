package dpop

import (
	"os"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// RFC 7638 §3.1: the RSA example key (alg and kid are not hashed) through
// joseThumbprint, the reference the fast thumbprint is held to.
func TestRFC7638Thumbprint(t *testing.T) {
	b, err := os.ReadFile("testdata/rfc7638/rsa_jwk.json")
	if err != nil {
		t.Fatal(err)
	}
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	got, err := joseThumbprint(&k)
	if want := "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"; err != nil || got != want {
		t.Fatalf("thumbprint = %q, %v; want %q", got, err, want)
	}
}
