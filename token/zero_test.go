package token_test

import (
	"errors"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// TestZeroTicketFailsClosed: a zero Ticket (the only kind a caller can make
// by hand) is refused as malformed by every operation that needs a block,
// and nothing panics.
func TestZeroTicketFailsClosed(t *testing.T) {
	k, err := key.NewHMAC("k", make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	zero := new(token.Ticket)
	if c, err := zero.VerifyChain(k.Verifying()); !errors.Is(err, token.ErrMalformed) || c.IDs != nil || c.Blocks != nil {
		t.Errorf("VerifyChain = %+v, %v; want a zero Verified and ErrMalformed", c, err)
	}
	if _, err := zero.Attenuate([]caveat.Caveat{}, nil); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("Attenuate: %v, want ErrMalformed", err)
	}
	if _, err := zero.Seal(); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("Seal: %v, want ErrMalformed", err)
	}
	if zero.UnverifiedAlg() != 0 || zero.UnverifiedKeyID() != "" || zero.Len() != 0 || zero.UnverifiedBlocks() != nil {
		t.Error("a zero Ticket reports blocks")
	}
	if _, ok := zero.UnverifiedLastID(); ok {
		t.Error("a zero Ticket has a last id")
	}
	if _, err := zero.UnverifiedScope(); err != nil {
		t.Logf("UnverifiedScope: %v", err)
	}
	if _, err := token.Parse(zero.String()); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("the zero Ticket's text parses: %v", err)
	}
	var c token.Verified
	if c.TicketID() != (token.BlockID{}) {
		t.Error("a zero Verified has a ticket id")
	}
}

// TestVerifyChainErrorReturnsZeroChain: a chain that does not verify comes
// back as the zero Verified, so no caller can use its ids by mistake.
func TestVerifyChainErrorReturnsZeroChain(t *testing.T) {
	k, _ := key.NewHMAC("k", make([]byte, 32))
	other, _ := key.NewHMAC("k", append(make([]byte, 31), 1))
	tk, err := token.Mint(k, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tk.VerifyChain(other.Verifying())
	if !errors.Is(err, token.ErrChain) {
		t.Fatalf("err = %v, want ErrChain", err)
	}
	if c.IDs != nil || c.Blocks != nil || c.FamilyID != nil {
		t.Errorf("chain %+v returned beside an error", c)
	}
}

// TestZeroKeysFailClosed: a nil or zero key.Signing or key.Verifying
// (made by hand) mints nothing, enters no keyring and verifies nothing;
// nothing panics.
func TestZeroKeysFailClosed(t *testing.T) {
	cs := []caveat.Caveat{}
	for _, k := range []*key.Signing{nil, {}} {
		if _, err := token.Mint(k, cs, nil); err == nil {
			t.Errorf("Mint with %v succeeded", k)
		}
	}
	for _, v := range []*key.Verifying{nil, {}} {
		if _, err := token.NewKeyring(v); err == nil {
			t.Errorf("NewKeyring(%v) succeeded", v)
		}
	}
	h, _ := key.Generate(key.HMACSHA256, "")
	if h != nil {
		t.Fatal("a key with an empty id")
	}
	hk, _ := key.Generate(key.HMACSHA256, "k")
	tk, err := token.Mint(hk, cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []*key.Verifying{nil, {}} {
		if _, err := tk.VerifyChain(v); !errors.Is(err, token.ErrKeyMismatch) {
			t.Errorf("VerifyChain(%v) = %v, want ErrKeyMismatch", v, err)
		}
	}
}
