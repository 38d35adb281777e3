package vecgen

import (
	"crypto"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/detrand"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/token"
)

// The public APIs take no randomness (issue #17). Each key and ticket of
// the vectors is instead made while internal/randsrc is fixed to its own
// detrand stream, named by seed, so that it is the same on every run and
// does not shift when another vector is added.

// rootKey generates a token root key from the stream seed.
func rootKey(seed, id string, mode token.Mode) (*token.SigningKey, error) {
	defer randsrc.Fix(detrand.New(seed))()
	return token.GenerateKey(id, mode)
}

// holderKey generates a DPoP holder key from the stream seed.
func holderKey(seed, alg string) (crypto.Signer, error) {
	defer randsrc.Fix(detrand.New(seed))()
	return dpop.NewKey(alg)
}

// mintFixed mints a ticket whose id and next key come from the stream seed.
func mintFixed(seed string, key *token.SigningKey, cs []caveat.Caveat, opts *token.Options) (*token.Ticket, error) {
	defer randsrc.Fix(detrand.New(seed))()
	return token.Mint(key, cs, opts)
}

// attenuateFixed appends a block whose next key comes from the stream seed.
func attenuateFixed(seed string, t *token.Ticket, cs []caveat.Caveat, opts *token.Options) (*token.Ticket, error) {
	defer randsrc.Fix(detrand.New(seed))()
	return t.Attenuate(cs, opts)
}
