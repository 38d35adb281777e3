package vecgen

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
)

// Labels of spec/FORMAT.md §4, written out again here on purpose.
const (
	lKey    = "tickettool/v1 hmac key\x00"
	lHBlock = "tickettool/v1 hmac block\x00"
	lHSeal  = "tickettool/v1 hmac seal\x00"
	lEBlock = "tickettool/v1 ed25519 block\x00"
	lESeal  = "tickettool/v1 ed25519 seal\x00"
	lID     = "tickettool/v1 block id\x00"
	lRebind = "tickettool/v1 rebind\x00"
)

var enc, _ = cbor.CoreDetEncOptions().EncMode()

func mac(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

func sha(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func hexAll(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = hex.EncodeToString(b)
	}
	return out
}

// intermediate recomputes the chain of data (a valid ticket's CBOR) from
// the spec alone and returns its intermediate values. It fails when the
// ticket's own tags or signatures differ from the recomputation.
func intermediate(data []byte, k *key.Signing) (*Intermediate, error) {
	var w wire.Ticket
	if err := cbor.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	var wb wire.Block
	if err := cbor.Unmarshal(w.Blocks[0], &wb); err != nil {
		return nil, err
	}
	im := &Intermediate{Blocks: hexAll(w.Blocks)}
	var ids [][]byte
	if k.Alg() == key.HMACSHA256 {
		kk := mac(fixedkey.Secret(k), []byte(lKey), wb.ID)
		im.DerivedKey = hex.EncodeToString(kk)
		var tags [][]byte
		t := kk
		for _, b := range w.Blocks {
			t = mac(t, []byte(lHBlock), b)
			tags = append(tags, t)
			ids = append(ids, sha([]byte(lID), t))
		}
		im.Tags = hexAll(tags)
		switch {
		case w.Seal != nil:
			s := mac(t, []byte(lHSeal))
			if !bytes.Equal(s, w.Seal) {
				return nil, fmt.Errorf("vecgen: seal tag differs from the spec")
			}
			im.Seal = hex.EncodeToString(s)
		case !bytes.Equal(t, w.Tail):
			return nil, fmt.Errorf("vecgen: tail tag differs from the spec")
		}
	} else {
		pub := fixedkey.Public(k.Verifying())
		var prev []byte
		for i, b := range w.Blocks {
			msg := append(append([]byte(lEBlock), prev...), b...)
			if !ed25519.Verify(pub, msg, w.Sigs[i]) {
				return nil, fmt.Errorf("vecgen: signature %d does not verify per the spec", i)
			}
			var bw wire.Block
			if err := cbor.Unmarshal(b, &bw); err != nil {
				return nil, err
			}
			ids = append(ids, sha([]byte(lID), w.Sigs[i]))
			prev, pub = w.Sigs[i], bw.Next
		}
		im.Signatures = hexAll(w.Sigs)
		if w.Seal != nil {
			if !ed25519.Verify(pub, append([]byte(lESeal), prev...), w.Seal) {
				return nil, fmt.Errorf("vecgen: seal does not verify per the spec")
			}
			im.Seal = hex.EncodeToString(w.Seal)
		} else if !bytes.Equal(ed25519.NewKeyFromSeed(w.Tail).Public().(ed25519.PublicKey), pub) {
			return nil, fmt.Errorf("vecgen: tail seed does not match the last next key")
		}
	}
	im.BlockIDs = hexAll(ids)
	return im, nil
}
