package verify_test

import (
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// benchTicket is the performance issue's scenario: a root ticket with one
// caveat (a resource), attenuated with three more blocks (an expiry, an
// operations list, a path prefix).
func benchTicket(b testing.TB, mode key.Alg) (*token.Ticket, *token.Keyring) {
	key, err := fixedkey.Signing(mode, "root", "bench")
	if err != nil {
		b.Fatal(err)
	}
	keys, _ := token.NewKeyring(key.Verifying())
	tk, err := token.Mint(key, parse(b, "tools=read_file,write_file"), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []string{"until=2026-11-30T13:00:00Z", "ops=delegate,invoke", "paths=src/discount/"} {
		if tk, err = tk.Attenuate(parse(b, c), nil); err != nil {
			b.Fatal(err)
		}
	}
	return tk, keys
}

var benchReq = &caveat.Request{Tool: "read_file", Op: "invoke", Paths: []string{"src/discount/rules.go"}}

func benchVerify(b *testing.B, mode key.Alg) {
	tk, keys := benchTicket(b, mode)
	text := tk.String()
	b.ReportAllocs()
	b.ReportMetric(float64(len(tk.Encode())), "bytes")
	for b.Loop() {
		t, err := token.Parse(text)
		if err != nil {
			b.Fatal(err)
		}
		d, err := verify.Verify(t, benchReq, keys, t0, nil)
		if err != nil || !d.Allowed {
			b.Fatal(err, d.Refusals)
		}
	}
}

func BenchmarkVerifyHMAC(b *testing.B)    { benchVerify(b, key.HMACSHA256) }
func BenchmarkVerifyEd25519(b *testing.B) { benchVerify(b, key.Ed25519) }

// BenchmarkVerifyParallel shows Verify scales across cores: no shared lock
// on the hot path.
func BenchmarkVerifyParallelHMAC(b *testing.B) {
	tk, keys := benchTicket(b, key.HMACSHA256)
	text := tk.String()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			t, _ := token.Parse(text)
			if d, _ := verify.Verify(t, benchReq, keys, t0, nil); !d.Allowed {
				b.Fatal(d.Refusals)
			}
		}
	})
}

// BenchmarkFloorHMAC is decode plus chain only, the floor a full verify is
// measured against.
func BenchmarkFloorHMAC(b *testing.B) {
	tk, keys := benchTicket(b, key.HMACSHA256)
	text := tk.String()
	key, _ := keys.Lookup("root")
	b.ReportAllocs()
	for b.Loop() {
		t, _ := token.Parse(text)
		if _, err := t.VerifyChain(key); err != nil {
			b.Fatal(err)
		}
	}
}

func benchVerifyText(b *testing.B, mode key.Alg) {
	tk, keys := benchTicket(b, mode)
	text := tk.String()
	var d verify.Decision
	b.ReportAllocs()
	for b.Loop() {
		if err := verify.VerifyText(&d, text, benchReq, keys, t0, nil); err != nil || !d.Allowed {
			b.Fatal(err, d.Refusals)
		}
	}
}

func BenchmarkVerifyTextHMAC(b *testing.B)    { benchVerifyText(b, key.HMACSHA256) }
func BenchmarkVerifyTextEd25519(b *testing.B) { benchVerifyText(b, key.Ed25519) }

func BenchmarkVerifyTextParallelHMAC(b *testing.B) {
	tk, keys := benchTicket(b, key.HMACSHA256)
	text := tk.String()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var d verify.Decision
		for pb.Next() {
			if err := verify.VerifyText(&d, text, benchReq, keys, t0, nil); err != nil || !d.Allowed {
				b.Fatal(err, d.Refusals)
			}
		}
	})
}
