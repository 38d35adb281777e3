package token_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// approvalKind is the approval caveat's kind. The helpers below write
// its CBOR value by hand, independently of package caveat's codec, so the
// binding's golden bytes do not follow a change of that codec silently.
const approvalKind = caveat.Approval

// approvalValue is the CBOR value of an approval caveat naming approver's
// public key, with a nonce of 16 bytes n (the design's "Caveat kinds").
func approvalValue(t testing.TB, approver *key.Signing, n byte) []byte {
	t.Helper()
	pub := approverPublic(t, approver)
	return mustMarshal(t, map[uint64]any{1: approver.ID(), 2: []byte(pub), 3: bytes.Repeat([]byte{n}, 16)})
}

// approverPublic returns the Ed25519 public key of approver, as an approval
// caveat carries it inline.
func approverPublic(t testing.TB, approver *key.Signing) ed25519.PublicKey {
	t.Helper()
	pub := fixedkey.Public(approver.Verifying())
	if len(pub) != ed25519.PublicKeySize {
		t.Fatal("approver is not an ed25519 key")
	}
	return pub
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := wire.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withApproval returns tk with an approval caveat (kind 14, value v)
// added to block j, re-encoded as a ticket that decodes. Its chain no
// longer verifies, which nothing here needs: a binding is computed from the
// bytes alone.
func withApproval(t testing.TB, tk *token.Ticket, j int, v []byte) *token.Ticket {
	t.Helper()
	w := unwire(t, tk)
	var b wire.Block
	if err := wire.Unmarshal(w.Blocks[j], &b, wire.TicketLimits()); err != nil {
		t.Fatal(err)
	}
	if b.Caveats == nil {
		b.Caveats = map[uint64]cbor.RawMessage{}
	}
	b.Caveats[uint64(approvalKind)] = v
	w.Blocks[j] = mustMarshal(t, b)
	out, err := token.Decode(mustMarshal(t, w))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
