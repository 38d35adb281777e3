package vecgen

import (
	"crypto"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// The public APIs take no randomness. Each key and ticket of
// the vectors is instead made while internal/randsrc is fixed to its own
// detrand stream, named by seed, so that it is the same on every run and
// does not shift when another vector is added.

// rootKey generates a token root key from the stream seed.
func rootKey(seed, id string, mode key.Alg) (*key.Signing, error) {
	defer randsrc.Fix(detrand.New(seed))()
	return key.Generate(mode, id)
}

// holderKey generates a DPoP holder key from the stream seed, and returns
// its private key too, with which the generator signs as JWS does itself
// (deterministically: key.Holder's ES256 signatures are randomised).
func holderKey(seed string, alg key.Alg) (crypto.Signer, *key.Holder, error) {
	defer randsrc.Fix(detrand.New(seed))()
	h, err := key.GenerateHolder(alg)
	if err != nil {
		return nil, nil, err
	}
	k, err := fixedkey.HolderKey(alg, seed) // the same derivation, from the same stream
	if err != nil {
		return nil, nil, err
	}
	if p, err := holderOf(k); err != nil || p.Thumbprint() != h.Thumbprint() {
		return nil, nil, errorf("holder key derivation differs from key.GenerateHolder's")
	}
	return k, h, nil
}

// mintFixed mints a ticket whose id and next key come from the stream seed.
func mintFixed(seed string, key *key.Signing, cs []caveat.Caveat, opts *token.Options) (*token.Ticket, error) {
	defer randsrc.Fix(detrand.New(seed))()
	return token.Mint(key, cs, opts)
}

// attenuateFixed appends a block whose next key comes from the stream seed.
func attenuateFixed(seed string, t *token.Ticket, cs []caveat.Caveat, opts *token.Options) (*token.Ticket, error) {
	defer randsrc.Fix(detrand.New(seed))()
	return t.Attenuate(cs, opts)
}

// holderOf wraps a private key as a key.Holder, through its JWK.
func holderOf(k crypto.Signer) (*key.Holder, error) {
	b, err := jose.JSONWebKey{Key: k}.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return key.ParseHolder(b)
}
