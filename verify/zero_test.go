package verify_test

import (
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestZeroTicketIsAnError: a nil or zero Ticket is a malformed call, an
// error and a zero Decision, never a panic nor an allowed decision.
func TestZeroTicketIsAnError(t *testing.T) {
	k, err := key.NewHMAC("k", make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(k.Verifying())
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range []*token.Ticket{nil, new(token.Ticket)} {
		d, err := verify.Verify(tk, &caveat.Request{}, keys, time.Unix(0, 0), nil)
		if err == nil || d.Allowed || d.Refusals != nil || d.BlockIDs != nil {
			t.Errorf("Verify(%v) = %+v, %v; want an error and a zero Decision", tk, d, err)
		}
		d, err = verify.Validate(tk, keys, time.Unix(0, 0), nil)
		if err == nil || d.Allowed {
			t.Errorf("Validate(%v) = %+v, %v; want an error", tk, d, err)
		}
	}
}
