package key_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/tickettool/tickettool/key"
)

// A holder JWK may name Ed25519's algorithm "Ed25519" (RFC 9864 §2.2) as
// well as "EdDSA", for an Ed25519 key only; the key read is the same.
func TestHolderJWKAlgEd25519(t *testing.T) {
	for _, c := range []struct {
		alg  key.Alg
		name string
		ok   bool
	}{
		{key.Ed25519, "EdDSA", true},
		{key.Ed25519, "Ed25519", true},
		{key.Ed25519, "ed25519", false},
		{key.Ed25519, "ES256", false},
		{key.ES256, "ES256", true},
		{key.ES256, "Ed25519", false},
		{key.ES256, "EdDSA", false},
	} {
		priv := privateMap(t, c.alg)
		priv["alg"] = c.name
		pub := map[string]any{}
		for k, v := range priv {
			if k != "d" {
				pub[k] = v
			}
		}
		h, err := key.ParseHolder(toJSON(t, priv))
		if (err == nil) != c.ok || err != nil && !errors.Is(err, key.ErrMalformed) {
			t.Errorf("ParseHolder %v alg %s: %v, want accepted %v", c.alg, c.name, err, c.ok)
		}
		p, perr := key.ParseHolderPublic(toJSON(t, pub))
		if (perr == nil) != c.ok {
			t.Errorf("ParseHolderPublic %v alg %s: %v, want accepted %v", c.alg, c.name, perr, c.ok)
		}
		if err != nil || perr != nil {
			continue
		}
		if h.Thumbprint() != p.Thumbprint() || h.Alg() != c.alg {
			t.Errorf("%v alg %s: another key", c.alg, c.name)
		}
		var m map[string]any
		if err := json.Unmarshal(p.JWK(), &m); err != nil || m["alg"] != map[key.Alg]string{key.ES256: "ES256", key.Ed25519: "EdDSA"}[c.alg] {
			t.Errorf("%v alg %s: JWK %s", c.alg, c.name, p.JWK())
		}
	}
}
