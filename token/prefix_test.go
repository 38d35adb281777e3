package token_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// TestMintCaveatErrorOnePrefix: a caveat that cannot be encoded is
// refused with caveat's own error, prefixed once ("caveat: ..."), not
// "token: mint: caveat: ...".
func TestMintCaveatErrorOnePrefix(t *testing.T) {
	for _, mode := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		root, err := key.Generate(mode, "root")
		if err != nil {
			t.Fatal(err)
		}
		_, err = token.Mint(root, []caveat.Caveat{{Kind: caveat.Tools}}, nil)
		if !errors.Is(err, caveat.ErrSyntax) || strings.Count(err.Error(), ": ") != 2 || !strings.HasPrefix(err.Error(), "caveat: ") {
			t.Errorf("%v: %v", mode, err)
		}
	}
}
