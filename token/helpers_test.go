package token_test

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// t0 is the fixed "now" of these tests.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func hmacKey(t testing.TB, id string) *key.Signing {
	t.Helper()
	k, err := fixedkey.Signing(key.HMACSHA256, id, "hmac root "+id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func edKey(t testing.TB, id string) *key.Signing {
	t.Helper()
	k, err := fixedkey.Signing(key.Ed25519, id, "ed25519 root "+id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func cavs(t testing.TB, texts ...string) []caveat.Caveat {
	t.Helper()
	cs, err := caveat.ParseAll(texts, t0)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// chainOf mints a ticket with key and appends one block per element of
// blocks (each a list of caveat texts); blocks[0] is block 0.
func chainOf(t testing.TB, key *key.Signing, blocks ...[]string) *token.Ticket {
	t.Helper()
	tk, err := token.Mint(key, cavs(t, blocks[0]...), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks[1:] {
		if tk, err = tk.Attenuate(cavs(t, b...), nil); err != nil {
			t.Fatal(err)
		}
	}
	return tk
}

var scenario = [][]string{
	{"tools=read_file,write_file", "ops=delegate,invoke", "paths=src/", "until=2026-11-30T13:00:00Z", `intent=upgrade pricing deps`},
	{"tools=read_file", "paths=src/discount/"},
	{"until=2026-11-30T12:30:00Z", "ops=invoke"},
}

func bothKeys(t testing.TB) map[string]*key.Signing {
	return map[string]*key.Signing{"hmac": hmacKey(t, "root-h"), "ed25519": edKey(t, "root-e")}
}

var _ = ed25519.PublicKeySize

// unwire returns the envelope of tk (spec/FORMAT.md §2), so tests can
// build forgeries the package itself would never write.
func unwire(t testing.TB, tk *token.Ticket) wire.Ticket {
	t.Helper()
	var w wire.Ticket
	if err := wire.Unmarshal(tk.Encode(), &w, wire.TicketLimits()); err != nil {
		t.Fatal(err)
	}
	return w
}

// rebuild assembles a ticket from orig's tail with the given blocks; in
// Ed25519 mode each block keeps the signature it had in the ticket it came
// from (the attacker's best attempt). It returns nil when the result does not
// even decode.
func rebuild(t testing.TB, orig *token.Ticket, blocks [][]byte, donors ...*token.Ticket) *token.Ticket {
	t.Helper()
	w := unwire(t, orig)
	if len(w.Sigs) > 0 {
		sigOf := map[string][]byte{}
		for _, d := range append([]*token.Ticket{orig}, donors...) {
			dw := unwire(t, d)
			for i, b := range dw.Blocks {
				sigOf[string(b)] = dw.Sigs[i]
			}
		}
		w.Sigs = nil
		for _, b := range blocks {
			w.Sigs = append(w.Sigs, sigOf[string(b)])
		}
	}
	w.Blocks = blocks
	data, err := wire.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := token.Decode(data)
	if err != nil {
		return nil
	}
	return tk
}
