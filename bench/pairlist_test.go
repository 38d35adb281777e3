package bench

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"strconv"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// The pairs bench/README.md and the top README report, in the order they
// run and print. Groups: the targets first, then the peers, scale and
// mint.

const (
	groupTargets = "Targets"
	groupPeers   = "Full verify: every library ÷ tickettool-hmac"
	groupScale   = "Scale: HMAC full verify ÷ the same with one block or one list entry"
	groupMint    = "Mint (mint + 3 attenuations + encode): every library ÷ tickettool-hmac"
	groupLaunch  = "Command line: where a launch goes (static builds, processes)"
)

// verifySides returns, by library name, the serial side of every library's
// full verify of the scenario, and their encoded sizes.
func verifySides(tb testing.TB) (map[string]side, map[string]int) {
	sides, sizes := map[string]side{}, map[string]int{}
	for _, lib := range libraries(tb) {
		enc := must(lib.mint())(tb)
		f := lib.verifier(tb, enc, inScope)
		if err := f(); err != nil {
			tb.Fatalf("%s: %v", lib.name(), err)
		}
		sides[lib.name()], sizes[lib.name()] = serial(lib.name(), f), lib.size(enc)
	}
	return sides, sizes
}

// hmacFloorOp is BenchmarkFloor/hmac's operation: minimalHMACVerify of the
// scenario's HMAC ticket.
func hmacFloorOp(tb testing.TB) func() error {
	tt := newTickettool(tb, key.HMACSHA256, false)
	text := string(must(tt.mint())(tb))
	root := fixedBytes(key.HMACBytes, 1)
	return func() error { return minimalHMACVerify(text, root) }
}

// edFloorOp is BenchmarkFloor/ed25519-sigs's operation: the 4 signature
// checks over messages of tickettool's sizes and deriving the tail's
// public key from its seed.
func edFloorOp(tb testing.TB) func() error {
	pubs, msgs, sigs, seed, tailPub := edFloor(tb)
	return func() error {
		for i := range msgs {
			if !ed25519.Verify(pubs[i], msgs[i], sigs[i]) {
				return errors.New("signature does not verify")
			}
		}
		if !ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey).Equal(tailPub) {
			return errors.New("tail key does not match")
		}
		return nil
	}
}

// joseOp is BenchmarkFloor/gojose-es256's operation: go-jose's bare
// ParseSignedCompact + Verify of the proof the DPoP-bound verify presents.
func joseOp(tb testing.TB) func() error {
	tt := newTickettool(tb, key.HMACSHA256, true)
	proof := tt.proof(tb, string(must(tt.mint())(tb)), inScope)
	algs := []jose.SignatureAlgorithm{jose.ES256}
	return func() error {
		jws, err := jose.ParseSignedCompact(proof, algs)
		if err != nil {
			return err
		}
		_, err = jws.Verify(jws.Signatures[0].Protected.JSONWebKey)
		return err
	}
}

// targetPairs returns the pairs of the targets that run in process.
// The DPoP target (B ≤ H + 1.05 J, for the HMAC verify H and go-jose's
// check J) is judged as B ÷ (H + J) ≤ 1 + 0.05 J ÷ (H + J), with J's
// share of H + J measured beside the pairs (dpopLimit).
func targetPairs(tb testing.TB, h *harness, v map[string]side) []pair {
	hmac, ed, dpopSide := v["tickettool-hmac"], v["tickettool-ed25519"], v["tickettool-hmac-dpop"]
	hmacOp, jose := hmac.op(), joseOp(tb)
	budget := serial("tickettool-hmac + go-jose ParseSignedCompact+Verify", func() error {
		if err := hmacOp(); err != nil {
			return err
		}
		return jose()
	})
	return []pair{
		{group: groupTargets, name: "HMAC full verify ÷ macaroon.v2", a: v["macaroon.v2"], b: hmac,
			target: &target{text: "≤ 0.5×", limit: 0.5}},
		{group: groupTargets, name: "HMAC full verify ÷ the minimal floor", a: serial("floor-hmac", hmacFloorOp(tb)), b: hmac,
			target: &target{text: "≤ 1.8×", limit: 1.8}},
		{group: groupTargets, name: "HMAC full verify with block ids (as the guard asks) ÷ the minimal floor",
			a: serial("floor-hmac", hmacFloorOp(tb)), b: serial("tickettool-hmac with block ids", hmacWithIDs(tb))},
		{group: groupTargets, name: "Ed25519 full verify ÷ its floor (4 signature checks + the tail's public key)",
			a: serial("floor-ed25519", edFloorOp(tb)), b: ed,
			target: &target{text: "≤ 1.05×", limit: 1.05}},
		{group: groupTargets, name: "DPoP-bound verify ÷ (HMAC verify + go-jose's bare proof check)", a: budget, b: dpopSide,
			target: &target{text: "≤ HMAC + 1.05 × go-jose", limit: dpopLimit(tb, h, hmac, serial("go-jose", jose))}},
		{group: groupTargets, name: "RunParallel throughput ÷ one goroutine (HMAC full verify)",
			a: hmac, b: parallel("tickettool-hmac RunParallel", hmacOp), wall: true, speedup: true,
			target: &target{text: "≥ 1.9×", limit: 1.9, atLeast: true}},
	}
}

// dpopLimit returns 1 + 0.05 J ÷ (H + J) (see targetPairs), with H and J
// the CPU time per operation of the sides hmac and jose, each the median
// of three batches.
func dpopLimit(tb testing.TB, h *harness, hmac, jose side) float64 {
	per := func(s side) float64 {
		n := must(h.calibrate(s, h.batch))(tb)
		var xs []float64
		for range 3 {
			t, _, err := h.batchOf(s, n)
			if err != nil {
				tb.Fatal(err)
			}
			_, cpu := t.perOp(n)
			xs = append(xs, cpu)
		}
		return median(xs)
	}
	hv, jv := per(hmac), per(jose)
	return 1 + 0.05*jv/(hv+jv)
}

// op returns a serial side's single operation.
func (s side) op() func() error { return func() error { return s.run(1) } }

// peerPairs compares every library's full verify with tickettool-hmac's.
func peerPairs(v map[string]side, names []string) []pair {
	var ps []pair
	for _, n := range names[1:] {
		ps = append(ps, pair{group: groupPeers, name: n + " ÷ tickettool-hmac", a: v[names[0]], b: v[n]})
	}
	return ps
}

// scalePairs compares the HMAC full verify of n blocks, or of a list of n
// tools or path prefixes, with the same for 1.
func scalePairs(tb testing.TB) []pair {
	var ps []pair
	ttSide := func(name, text string, keys *token.Keyring, req request) side {
		f := ttVerifier(text, ttRequest(req), keys, t0)
		if err := f(); err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		return serial(name, f)
	}
	text, keys := scaleBlocksTicket(tb, 1)
	one := ttSide("blocks/1", text, keys, inScope)
	for _, n := range scaleBlocks[1:] {
		text, keys := scaleBlocksTicket(tb, n)
		name := "blocks/" + strconv.Itoa(n)
		ps = append(ps, pair{group: groupScale, name: name + " ÷ blocks/1", a: one, b: ttSide(name, text, keys, inScope)})
	}
	for _, kind := range []string{"tools", "paths"} {
		text, keys, req := scaleListTicket(tb, kind, 1)
		one := ttSide(kind+"/1", text, keys, req)
		for _, n := range scaleLists[1:] {
			text, keys, req := scaleListTicket(tb, kind, n)
			name := kind + "/" + strconv.Itoa(n)
			ps = append(ps, pair{group: groupScale, name: name + " ÷ " + kind + "/1", a: one, b: ttSide(name, text, keys, req)})
		}
	}
	return ps
}

// mintPairs compares every library's mint with tickettool-hmac's.
func mintPairs(tb testing.TB) []pair {
	var sides []side
	for _, lib := range libraries(tb) {
		sides = append(sides, serial(lib.name(), func() error { _, err := lib.mint(); return err }))
	}
	var ps []pair
	for _, s := range sides[1:] {
		ps = append(ps, pair{group: groupMint, name: s.name + " ÷ tickettool-hmac", a: sides[0], b: s})
	}
	return ps
}

// processPairs are the CLI targets: tickettool verify, as a whole process,
// against the static hello world, built as README.md's install line says
// (static) and with the toolchain's defaults (dynamic where cgo is on).
func processPairs(tb testing.TB, bs *binaries) []pair {
	hello := launches("hello world", bs.hello)
	var ps []pair
	argsOf := map[string][]string{}
	for _, m := range []struct {
		mode  string
		limit float64
	}{{"hmac", 1.5}, {"ed25519", 2.5}} {
		args := cliVerify(tb, bs, m.mode)
		argsOf[m.mode] = args
		for _, b := range []struct{ build, path string }{{"static", bs.static}, {linking(bs.tickettool), bs.tickettool}} {
			verify := launches("tickettool verify ("+m.mode+", "+b.build+")", b.path, args...)
			ps = append(ps, pair{group: groupTargets, name: fmt.Sprintf("`tickettool verify` (%s, %s build) ÷ static hello world, processes", m.mode, b.build),
				a: hello, b: verify, wall: true, batch: processBatch,
				target: &target{text: fmt.Sprintf("≤ %g×", m.limit), limit: m.limit}})
		}
	}
	return append(append(ps, launchPairs(bs, hello, argsOf)...), hookPairs(tb, bs)...)
}

// launchPairs split a launch of tickettool verify in two: starting the
// binary at all (tickettool version, which reads nothing and prints one
// line, ÷ the hello world) and the verify itself (tickettool verify ÷
// tickettool version). On a host where a page fault is dear, the first
// is most of a launch: it grows with the code that package
// initialisation touches (SQLite, Redis, JOSE and their dependencies),
// not with anything verify does.
func launchPairs(bs *binaries, hello side, argsOf map[string][]string) []pair {
	version := launches("tickettool version (static)", bs.static, "version")
	ps := []pair{{group: groupLaunch, name: "`tickettool version` ÷ static hello world", a: hello, b: version, wall: true, batch: processBatch}}
	for _, mode := range []string{"hmac", "ed25519"} {
		verify := launches("tickettool verify ("+mode+", static)", bs.static, argsOf[mode]...)
		ps = append(ps, pair{group: groupLaunch, name: fmt.Sprintf("`tickettool verify` (%s) ÷ `tickettool version`", mode),
			a: version, b: verify, wall: true, batch: processBatch})
	}
	return ps
}

// hmacWithIDs is the tickettool-hmac side's verify with the block ids
// computed (verify.Options without NoBlockIDs), as the guard asks.
func hmacWithIDs(tb testing.TB) func() error {
	tt := newTickettool(tb, key.HMACSHA256, false)
	text := string(must(tt.mint())(tb))
	f := ttVerifierWithIDs(text, &caveat.Request{Tool: inScope.Tool, Op: inScope.Op, Paths: []string{inScope.Path}}, tt.keys, inScope.Now)
	if err := f(); err != nil {
		tb.Fatal(err)
	}
	return f
}
