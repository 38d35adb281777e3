package token_test

// Regression tests for a property violation found by the black-box fuzz
// suite (fuzz/, FuzzParseText and FuzzDecodeTicket on the seed
// limit-ok-65536-bytes): the package makes tickets its own decoder
// refuses. Mint, Attenuate and Seal do not enforce MaxTicketBytes, so a
// ticket near the limit (or a large block) yields a ticket that Decode and
// Parse refuse as "larger than the size limit": the caller holds a ticket
// nobody can use, and Attenuate does not refuse up front as documented.
// Every ticket these functions return must decode to itself; over the
// limit they must return an error instead.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// regressLongTools returns n server-qualified tool names of 257 bytes and,
// when last > 0, one more name of last bytes (1..128).
func regressLongTools(n, last int) []string {
	names := make([]string, 0, n+1)
	for i := range n {
		names = append(names, fmt.Sprintf("%04d", i)+strings.Repeat("s", 124)+"/"+strings.Repeat("n", 128))
	}
	if last > 0 {
		names = append(names, "z"+strings.Repeat("n", last-1))
	}
	return names
}

func regressKey(t *testing.T, mode key.Alg) *key.Signing {
	t.Helper()
	k, err := fixedkey.Signing(mode, "regress-"+mode.String(), "regress root "+mode.String())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func regressTools(t *testing.T, names []string) []caveat.Caveat {
	t.Helper()
	c, err := caveat.NewTools(names...)
	if err != nil {
		t.Fatal(err)
	}
	return []caveat.Caveat{c}
}

// regressDecodesToItself fails unless tk decodes and parses to itself.
func regressDecodesToItself(t *testing.T, what string, tk *token.Ticket) {
	t.Helper()
	data := tk.Encode()
	d, err := token.Decode(data)
	if err != nil || !bytes.Equal(d.Encode(), data) {
		t.Errorf("%s returned a ticket of %d bytes (limit %d) that Decode refuses: %v", what, len(data), token.MaxTicketBytes, err)
		return
	}
	if _, err := token.Parse(tk.String()); err != nil {
		t.Errorf("%s returned a ticket whose text (%d bytes) Parse refuses: %v", what, len(tk.String()), err)
	}
}

func TestRegressFuzzMintOverSizeLimit(t *testing.T) {
	for _, mode := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		// 300 names of 257 bytes: a block 0 of about 78 KB.
		tk, err := token.Mint(regressKey(t, mode), regressTools(t, regressLongTools(300, 0)), nil)
		if err == nil {
			regressDecodesToItself(t, "Mint ("+mode.String()+")", tk)
		}
		wantTooLarge(t, "Mint ("+mode.String()+")", err)
	}
}

func TestRegressFuzzAttenuateOverSizeLimit(t *testing.T) {
	for _, mode := range []key.Alg{key.HMACSHA256, key.Ed25519} {
		names := regressLongTools(200, 0) // about 52 KB: fits
		tk, err := token.Mint(regressKey(t, mode), regressTools(t, names), nil)
		if err != nil {
			t.Fatal(err)
		}
		regressDecodesToItself(t, "Mint", tk)
		// The same list again is an honest attenuation, but two copies do
		// not fit in one ticket.
		child, err := tk.Attenuate(regressTools(t, names), nil)
		if err == nil {
			regressDecodesToItself(t, "Attenuate ("+mode.String()+")", child)
		}
		wantTooLarge(t, "Attenuate ("+mode.String()+")", err)
	}
}

func TestRegressFuzzSealOverSizeLimit(t *testing.T) {
	// An unsealed Ed25519 ticket within 32 bytes of the limit: sealing
	// replaces its 32-byte tail with a 64-byte signature.
	key := regressKey(t, key.Ed25519)
	for last := 1; last <= 128; last++ {
		tk, err := token.Mint(key, regressTools(t, regressLongTools(251, last)), nil)
		if err != nil {
			t.Fatal(err)
		}
		n := len(tk.Encode())
		if n <= token.MaxTicketBytes-32 {
			continue
		}
		if n > token.MaxTicketBytes {
			break
		}
		regressDecodesToItself(t, "Mint", tk)
		sealed, err := tk.Seal()
		if err == nil {
			regressDecodesToItself(t, fmt.Sprintf("Seal of a %d-byte ticket", n), sealed)
		}
		wantTooLarge(t, fmt.Sprintf("Seal of a %d-byte ticket", n), err)
		return
	}
	t.Fatal("found no Ed25519 ticket within 32 bytes of the limit")
}

// TestTooLargeIsRefusedUpFront: over the limit, the error says so.
func TestTooLargeIsRefusedUpFront(t *testing.T) {
	_, err := token.Mint(regressKey(t, key.HMACSHA256), regressTools(t, regressLongTools(300, 0)), nil)
	var te *token.Error
	if !errors.Is(err, token.ErrTooLarge) || !errors.As(err, &te) || !strings.Contains(te.Reason, "over the limit of 65536") {
		t.Fatalf("mint over the size limit: %v", err)
	}
}

// wantTooLarge fails unless err is the refusal of a ticket over the size
// limit: the inputs above never fit, so success is a failure too.
func wantTooLarge(t *testing.T, what string, err error) {
	t.Helper()
	var te *token.Error
	if !errors.Is(err, token.ErrTooLarge) || !errors.As(err, &te) || !strings.Contains(te.Reason, "over the limit of 65536") {
		t.Errorf("%s over the size limit: %v, want ErrTooLarge naming the limit", what, err)
	}
}
