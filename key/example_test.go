package key_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// A root key is generated once and written to a secret file (mode 0600)
// and, for Ed25519, a public file beside it (0644), as
// "tickettool keygen --alg ed25519 --out root.key" does. The minter loads
// the secret file, a verifier the public one.
func ExampleReadSigningFile() {
	dir, _ := os.MkdirTemp("", "keys")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "root.key")

	root, err := key.Generate(key.Ed25519, "root-2026")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := root.WriteFile(path); err != nil {
		fmt.Println(err)
		return
	}
	root.Verifying().WriteFile(path + ".pub")

	// The minter...
	sk, err := key.ReadSigningFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cs, _ := caveat.ParseAll([]string{"tools=read_file", "until=1h"}, now)
	ticket, _ := token.Mint(sk, cs, nil)

	// ...and a verifier, with the public key only.
	vk, err := key.ReadVerifyingFile(path + ".pub")
	if err != nil {
		fmt.Println(err)
		return
	}
	keys, _ := token.NewKeyring(vk)
	d, _ := verify.Validate(ticket, keys, now, nil)

	fmt.Println(sk)
	fmt.Println(vk.ID(), vk.Alg(), d.Allowed)

	// A secret key file others can read is refused.
	os.Chmod(path, 0o644)
	_, err = key.ReadSigningFile(path)
	fmt.Println(errors.Is(err, key.ErrFileMode))
	// Output:
	// key.Signing{id:root-2026, alg:ed25519, REDACTED}
	// root-2026 ed25519 true
	// true
}

// RFC 8037 Appendix A.3: the thumbprint of the example Ed25519 key, the
// jkt a holder caveat names.
func ExampleHolderPublic_Thumbprint() {
	pub, err := key.ParseHolderPublic([]byte(`{"kty":"OKP","crv":"Ed25519",
		"x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(pub.Thumbprint())
	// Output: kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k
}
