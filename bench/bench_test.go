package bench

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// The benchmarks are declared in the order go test runs them: those the
// targets compare come first, so that on a shared machine they run
// as close together in time as possible; the scale tables and mint follow.

// BenchmarkFullVerify measures, for every library, decoding the scenario's
// token from its serialized form and fully verifying it against the
// in-scope request, once per iteration. tickettool starts from its text
// form (token.Parse, base64url included); the peers start from their
// binary encoding. The "bytes" metric is the binary encoding's size.
func BenchmarkFullVerify(b *testing.B) {
	for _, lib := range libraries(b) {
		b.Run(lib.name(), func(b *testing.B) {
			enc := must(lib.mint())(b)
			run := lib.verifier(b, enc, inScope)
			if err := run(); err != nil {
				b.Fatal(err)
			}
			loop(b, run)
			b.ReportMetric(float64(lib.size(enc)), "bytes")
		})
	}
}

// loop runs f in b.Loop, failing b on f's first error, and reports
// allocations and cpu-ns/op: the process's CPU time (every thread,
// garbage collection included) per iteration. On a shared machine,
// waiting for a core inflates ns/op (wall time) but not cpu-ns/op.
func loop(b *testing.B, f func() error) {
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

type cpuTimer struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuTimer {
	d, ok := processCPU()
	return cpuTimer{d, ok}
}

// report reports the CPU time since startCPU per iteration; call it after
// the timed loop, since b.Loop's first call deletes reported metrics.
func (c cpuTimer) report(b *testing.B) {
	end, ok := processCPU()
	if c.ok && ok && b.N > 0 {
		b.ReportMetric(float64(end-c.start)/float64(b.N), "cpu-ns/op")
	}
}

// labelEdBlock has the length of the domain label tickettool's Ed25519
// chain signs before each block (token/hmac.go); only its length matters
// here, so that the floor signs messages of exactly tickettool's sizes.
const labelEdBlock = "tickettool/v1 ed25519 block\x00"

// BenchmarkFloor measures what a full verify cannot avoid.
//   - hmac: decode and chain only, with a minimal parser
//     (minimalHMACVerify: base64url, the heads that lead to the blocks, the
//     ticket id and the tail, then K, T_0 … T_n and the compare).
//   - ed25519-sigs: the 4 Ed25519 signature checks alone, over messages of
//     the sizes tickettool signs, plus deriving the tail's public key.
//   - gojose-es256: bare go-jose ParseSignedCompact + Verify of the DPoP
//     proof BenchmarkFullVerify/tickettool-hmac-dpop presents.
func BenchmarkFloor(b *testing.B) {
	b.Run("hmac", func(b *testing.B) { loop(b, hmacFloorOp(b)) })
	b.Run("ed25519-sigs", func(b *testing.B) { loop(b, edFloorOp(b)) })
	b.Run("gojose-es256", func(b *testing.B) { loop(b, joseOp(b)) })
}

// BenchmarkBreakdown splits the HMAC full verify of the scenario into its
// parts: parse (token.Parse: base64url, strict CBOR, every caveat decoded
// and checked), chain (VerifyChain of the parsed ticket: the HMACs and a
// block id per block) and verify (verify.Verify of the parsed ticket: the
// chain again, then narrowing, policy and every caveat against the
// request). verify − chain is the cost of the checks.
func BenchmarkBreakdown(b *testing.B) {
	tt := newTickettool(b, key.HMACSHA256, false)
	text := string(must(tt.mint())(b))
	key, _ := tt.keys.Lookup("root")
	tk := must(token.Parse(text))(b)
	r := &caveat.Request{Tool: inScope.Tool, Op: inScope.Op, Paths: []string{inScope.Path}}
	b.Run("parse", func(b *testing.B) {
		loop(b, func() error { _, err := token.Parse(text); return err })
	})
	b.Run("chain", func(b *testing.B) {
		loop(b, func() error { _, err := tk.VerifyChain(key); return err })
	})
	b.Run("verify", func(b *testing.B) {
		loop(b, func() error {
			d, err := verify.Verify(tk, r, tt.keys, inScope.Now, nil)
			if err != nil {
				return err
			}
			return d.Err()
		})
	})
}

// edFloor returns 4 signed messages of the sizes tickettool's Ed25519
// chain verifies for the scenario (label ‖ previous signature ‖ block),
// each under its own key, and a tail seed with its public key.
func edFloor(tb testing.TB) (pubs []ed25519.PublicKey, msgs, sigs [][]byte, seed []byte, tailPub ed25519.PublicKey) {
	tt := newTickettool(tb, key.Ed25519, false)
	t := must(token.Parse(string(must(tt.mint())(tb))))(tb)
	prevLen := 0
	for _, blk := range t.UnverifiedBlocks() {
		pub, priv := genKey(tb)
		msg := make([]byte, len(labelEdBlock)+prevLen+len(blk.Bytes()))
		must(rand.Read(msg))(tb)
		pubs, msgs, sigs = append(pubs, pub), append(msgs, msg), append(sigs, ed25519.Sign(priv, msg))
		prevLen = ed25519.SignatureSize
	}
	tailPub, tailPriv := genKey(tb)
	return pubs, msgs, sigs, tailPriv.Seed(), tailPub
}

func genKey(tb testing.TB) (ed25519.PublicKey, ed25519.PrivateKey) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return pub, priv
}

// BenchmarkVerifyParallel runs the HMAC full verify serially and with
// RunParallel (GOMAXPROCS goroutines); on a 2-core machine the parallel
// ns/op should be about half the serial one.
func BenchmarkVerifyParallel(b *testing.B) {
	tt := newTickettool(b, key.HMACSHA256, false)
	enc := must(tt.mint())(b)
	run := tt.verifier(b, enc, inScope)
	b.Run("serial", func(b *testing.B) { loop(b, run) })
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		cpu := startCPU()
		defer cpu.report(b)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := run(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// scaleBlocks is the number of blocks BenchmarkScaleBlocks measures.
var scaleBlocks = []int{1, 2, 4, 8, 16, 32}

// scaleLists is the list sizes BenchmarkScaleList measures.
var scaleLists = []int{1, 10, 100, 1000}

// BenchmarkScaleBlocks measures the HMAC full verify against the number of
// blocks, up to token.MaxBlocks. Block 0 holds the tools; block i >= 1 holds,
// in turn, the expiry, the operations, the path prefix (so 4 blocks is the
// scenario).
func BenchmarkScaleBlocks(b *testing.B) {
	for _, n := range scaleBlocks {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			text, keys := scaleBlocksTicket(b, n)
			benchTickettool(b, text, keys, ttRequest(inScope))
		})
	}
}

// BenchmarkScaleList measures the HMAC full verify of the scenario with a
// list of n tools (or n path prefixes) in block 0, for a request that
// matches the list's last entry.
func BenchmarkScaleList(b *testing.B) {
	for _, kind := range []string{"tools", "paths"} {
		for _, n := range scaleLists {
			b.Run(kind+"/"+strconv.Itoa(n), func(b *testing.B) {
				text, keys, req := scaleListTicket(b, kind, n)
				benchTickettool(b, text, keys, ttRequest(req))
			})
		}
	}
}

func ttRequest(req request) *caveat.Request {
	return &caveat.Request{Tool: req.Tool, Op: req.Op, Paths: []string{req.Path}}
}

func benchTickettool(b *testing.B, text string, keys *token.Keyring, r *caveat.Request) {
	run := ttVerifier(text, r, keys, t0)
	if err := run(); err != nil {
		b.Fatal(err)
	}
	loop(b, run)
	t := must(token.Parse(text))(b)
	b.ReportMetric(float64(len(t.Encode())), "bytes")
}

// scaleBlocksTicket returns an HMAC ticket of n blocks (see
// BenchmarkScaleBlocks) and its keyring.
func scaleBlocksTicket(tb testing.TB, n int) (string, *token.Keyring) {
	tt := newTickettool(tb, key.HMACSHA256, false)
	t := must(token.Mint(tt.key, tt.block0, nil))(tb)
	for i := 1; i < n; i++ {
		t = must(t.Attenuate(tt.attenua[(i-1)%len(tt.attenua)], nil))(tb)
	}
	return t.String(), tt.keys
}

// scaleListTicket returns the scenario's HMAC ticket with n tools (kind
// "tools") or n path prefixes (kind "paths", beside the scenario's tools)
// in block 0, and a request matching the list's last entry. For paths,
// the last block narrows to that last prefix.
func scaleListTicket(tb testing.TB, kind string, n int) (string, *token.Keyring, request) {
	tt := newTickettool(tb, key.HMACSHA256, false)
	entries := make([]string, n)
	for i := range entries {
		entries[i] = fmt.Sprintf("e%04d", i) // zero-padded: the last entry sorts last
	}
	req := inScope
	switch kind {
	case "tools":
		tt.block0 = []caveat.Caveat{must(caveat.NewTools(entries...))(tb)}
		req.Tool = entries[n-1]
	case "paths":
		for i := range entries {
			entries[i] = "src/" + entries[i] + "/"
		}
		tt.block0 = append(tt.block0, must(caveat.NewPaths(entries...))(tb))
		tt.attenua[2] = []caveat.Caveat{must(caveat.NewPaths(entries[n-1]))(tb)}
		req.Path = entries[n-1] + "rules.go"
	}
	return string(must(tt.mint())(tb)), tt.keys, req
}

// BenchmarkMint measures minting the root token, the three attenuations
// and the encoding into the serialized form.
func BenchmarkMint(b *testing.B) {
	for _, lib := range libraries(b) {
		b.Run(lib.name(), func(b *testing.B) {
			var enc []byte
			loop(b, func() (err error) { enc, err = lib.mint(); return err })
			b.ReportMetric(float64(lib.size(enc)), "bytes")
		})
	}
}
