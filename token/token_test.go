package token_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

func TestMintAttenuateSealVerifyChain(t *testing.T) {
	for name, key := range bothKeys(t) {
		t.Run(name, func(t *testing.T) {
			tk := chainOf(t, key, scenario...)
			if tk.Len() != 3 || tk.Sealed() {
				t.Fatalf("len %d sealed %v", tk.Len(), tk.Sealed())
			}
			c, err := tk.VerifyChain(key.Verifying())
			if err != nil {
				t.Fatalf("VerifyChain: %v", err)
			}
			if len(c.IDs) != 3 || !bytes.Equal(c.FamilyID, tk.UnverifiedBlocks()[0].TicketID) {
				t.Fatalf("chain ids %d family %x", len(c.IDs), c.FamilyID)
			}
			// The text round-trips and verifies the same.
			back, err := token.Parse(tk.String())
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if back.String() != tk.String() || !bytes.Equal(back.Encode(), tk.Encode()) {
				t.Fatal("text round trip changed the ticket")
			}
			c2, err := back.VerifyChain(key.Verifying())
			if err != nil || c2.IDs[2] != c.IDs[2] {
				t.Fatalf("parsed ticket: %v", err)
			}
			sealed, err := back.Seal()
			if err != nil {
				t.Fatal(err)
			}
			if !sealed.Sealed() {
				t.Fatal("not sealed")
			}
			sc, err := sealed.VerifyChain(key.Verifying())
			if err != nil {
				t.Fatalf("sealed VerifyChain: %v", err)
			}
			if sc.IDs[2] != c.IDs[2] {
				t.Fatal("sealing changed a block id")
			}
			if _, err := sealed.Attenuate(nil, nil); !errors.Is(err, token.ErrSealed) {
				t.Fatalf("attenuate sealed: %v, want ErrSealed", err)
			}
			if _, err := sealed.Seal(); !errors.Is(err, token.ErrSealed) {
				t.Fatalf("seal sealed: %v, want ErrSealed", err)
			}
			// The sealed text carries no appending secret.
			if _, err := token.Parse(sealed.String()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestFlipAnyByte: changing any single byte of a valid ticket's encoding
// makes it undecodable or makes its chain fail, in both modes, sealed or
// not, including the tail (the HMAC tag, or the Ed25519 next private key,
// which must match the last block's next key).
func TestFlipAnyByte(t *testing.T) {
	for name, key := range bothKeys(t) {
		tk := chainOf(t, key, scenario...)
		sealed, err := tk.Seal()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []*token.Ticket{tk, sealed} {
			data := v.Encode()
			for i := range data {
				for _, x := range []byte{0x01, 0x80, 0xff} {
					mut := bytes.Clone(data)
					mut[i] ^= x
					d, err := token.Decode(mut)
					if err != nil {
						if !errors.Is(err, token.ErrMalformed) {
							t.Fatalf("%s: byte %d: error %v is not ErrMalformed", name, i, err)
						}
						continue
					}
					if _, err := d.VerifyChain(key.Verifying()); err == nil {
						t.Fatalf("%s sealed=%v: flipping byte %d with %#x still verifies", name, v.Sealed(), i, x)
					}
				}
			}
		}
	}
}

func TestWrongKey(t *testing.T) {
	keys := bothKeys(t)
	h, e := keys["hmac"], keys["ed25519"]
	th := chainOf(t, h, scenario...)
	te := chainOf(t, e, scenario...)
	otherH, _ := key.NewHMAC("root-h", bytes.Repeat([]byte{7}, 32))
	otherEsameID, _ := key.NewEd25519("root-e", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32)))
	cases := []struct {
		name string
		tk   *token.Ticket
		key  *key.Verifying
		want error
	}{
		{"hmac other secret", th, otherH.Verifying(), token.ErrChain},
		{"ed25519 other key same id", te, otherEsameID.Verifying(), token.ErrChain},
		{"hmac ticket, ed25519 key of its id", th, mustEdPub(t, "root-h", e), token.ErrKeyMismatch},
		{"ed25519 ticket, hmac key of its id", te, mustHMAC(t, "root-e"), token.ErrKeyMismatch},
		{"other key id", th, e.Verifying(), token.ErrKeyMismatch},
	}
	for _, c := range cases {
		if _, err := c.tk.VerifyChain(c.key); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

func mustEdPub(t *testing.T, id string, k *key.Signing) *key.Verifying {
	v, err := key.NewEd25519Public(id, fixedkey.Public(k.Verifying()))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mustHMAC(t *testing.T, id string) *key.Verifying {
	k, err := key.NewHMAC(id, bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k.Verifying()
}

// TestEd25519PublicKeyIsNeverAnHMACSecret is the "RS256 to HS256" attack: an
// attacker who knows an Ed25519 root public key mints an HMAC-mode ticket
// keyed by those public bytes under the same key id. The keyring's key is
// typed Ed25519, so the ticket is refused for its mode, whatever its tag.
func TestEd25519PublicKeyIsNeverAnHMACSecret(t *testing.T) {
	e := edKey(t, "root-e")
	forger, err := key.NewHMAC("root-e", fixedkey.Public(e.Verifying()))
	if err != nil {
		t.Fatal(err)
	}
	forged := chainOf(t, forger, scenario[0])
	_, err = forged.VerifyChain(e.Verifying())
	var te *token.Error
	if !errors.Is(err, token.ErrKeyMismatch) || !errors.As(err, &te) || te.Block != 0 {
		t.Fatalf("forged hmac ticket under ed25519 key: %v", err)
	}
}

func TestBlockSurgery(t *testing.T) {
	for name, key := range bothKeys(t) {
		t.Run(name, func(t *testing.T) {
			a := chainOf(t, key, scenario...)
			b := chainOf(t, key, scenario[0], []string{"paths=src/refund/"})
			blocksA := rawBlocks(a)
			blocksB := rawBlocks(b)
			cases := map[string][][]byte{
				"drop middle": {blocksA[0], blocksA[2]},
				"drop last":   {blocksA[0], blocksA[1]},
				"reorder":     {blocksA[0], blocksA[2], blocksA[1]},
				"duplicate":   {blocksA[0], blocksA[1], blocksA[1], blocksA[2]},
				"splice":      {blocksA[0], blocksB[1], blocksA[2]},
				"splice tail": {blocksA[0], blocksA[1], blocksB[1]},
			}
			for cname, blocks := range cases {
				forged := rebuild(t, a, blocks, b)
				if forged == nil {
					continue // not even decodable: refused
				}
				if _, err := forged.VerifyChain(key.Verifying()); !errors.Is(err, token.ErrChain) {
					t.Errorf("%s: got %v, want ErrChain", cname, err)
				}
			}
		})
	}
}

func rawBlocks(t *token.Ticket) [][]byte {
	var out [][]byte
	for _, b := range t.UnverifiedBlocks() {
		out = append(out, b.Bytes())
	}
	return out
}

func TestAttenuateRefusesUpFront(t *testing.T) {
	for name, key := range bothKeys(t) {
		t.Run(name, func(t *testing.T) {
			base := chainOf(t, key, scenario[0], scenario[1])
			cases := []struct {
				caveats []string
				kind    caveat.Kind
			}{
				{[]string{"tools=read_file,write_file"}, caveat.Tools},
				{[]string{"paths=src/"}, caveat.Paths},
				{[]string{"paths=src/discount-other/"}, caveat.Paths},
				{[]string{"until=2026-11-30T14:00:00Z"}, caveat.Until},
				{[]string{"intent=another reason"}, caveat.Intent},
			}
			for _, c := range cases {
				_, err := base.Attenuate(cavs(t, c.caveats...), nil)
				var te *token.Error
				if !errors.Is(err, token.ErrWiden) || !errors.As(err, &te) || te.Kind != c.kind || te.Block != 2 {
					t.Errorf("%v: got %v, want ErrWiden naming block 2 caveat %v", c.caveats, err, c.kind)
				}
			}
			// Honest narrowing by meaning, not bytes.
			if _, err := base.Attenuate(cavs(t, "tools=read_file", "paths=src/discount/x/"), nil); err != nil {
				t.Errorf("honest attenuation refused: %v", err)
			}
			// Duplicate kinds in one block.
			c3, _ := caveat.NewCalls(3)
			c2, _ := caveat.NewCalls(2)
			if _, err := base.Attenuate([]caveat.Caveat{c3, c2}, nil); !errors.Is(err, token.ErrWiden) {
				t.Errorf("duplicate kind: %v", err)
			}
			// No delegate: nothing may follow.
			nd, err := base.Attenuate(cavs(t, "ops=invoke"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := nd.Attenuate(nil, nil); !errors.Is(err, token.ErrWiden) {
				t.Errorf("append after ops without delegate: %v", err)
			}
			// Depth.
			d1, err := base.Attenuate(cavs(t, "depth=1"), nil)
			if err != nil {
				t.Fatal(err)
			}
			d2, err := d1.Attenuate(nil, nil)
			if err != nil {
				t.Fatalf("first block within depth=1: %v", err)
			}
			if _, err := d2.Attenuate(nil, nil); !errors.Is(err, token.ErrWiden) {
				t.Errorf("append past depth: %v", err)
			}
		})
	}
}

func TestMaxBlocks(t *testing.T) {
	key := hmacKey(t, "k")
	tk := chainOf(t, key, []string{"calls=10"})
	var err error
	for tk.Len() < token.MaxBlocks {
		if tk, err = tk.Attenuate(nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tk.Attenuate(nil, nil); !errors.Is(err, token.ErrWiden) {
		t.Fatalf("block %d: %v", token.MaxBlocks+1, err)
	}
	if _, err := tk.VerifyChain(key.Verifying()); err != nil {
		t.Fatal(err)
	}
}
