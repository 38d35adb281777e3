package chain

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

const testOrigin = "example.com/receipts/test"

var t0 = time.UnixMilli(1_750_000_000_000).UTC()

func seedKey(t testing.TB, name string, seed byte) *key.Signing {
	t.Helper()
	k, err := key.NewEd25519(name, ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func hmacKey(t testing.TB, name string, fill byte) *key.Signing {
	t.Helper()
	k, err := key.NewHMAC(name, bytes.Repeat([]byte{fill}, key.HMACBytes))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// testKeys returns one Ed25519 and one HMAC signing key.
func testKeys(t testing.TB) map[string]*key.Signing {
	return map[string]*key.Signing{"ed25519": seedKey(t, "test-key", 7), "hmac": hmacKey(t, "test-key", 7)}
}

// fullRecord has every optional field set.
func fullRecord(i int) Record {
	return Record{
		Kind: KindRefused, TicketID: []byte{0xaa, 0xbb, byte(i)}, FamilyID: []byte{0xf0, 0x0d},
		Block: 2, Tool: "workspace/read_file", Op: "invoke", Subjects: []string{"src/refund/x.go", "https://api.example.com/"},
		Check: "caveat", Caveat: "paths", Reason: "src/refund/ is not under src/discount/", Note: "note " + string(rune('a'+i%26)),
	}
}

// seal signs r (whose Seq, Time and Prev are set) with key and encodes it.
func seal(t testing.TB, sk *key.Signing, r Record) []byte {
	t.Helper()
	r.Alg = sk.Alg()
	in, err := r.SigningInput()
	if err != nil {
		t.Fatal(err)
	}
	if r.Sig, err = sk.Sign(in); err != nil {
		t.Fatal(err)
	}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// makeRecords builds a valid chain of n records in memory.
func makeRecords(t testing.TB, sk *key.Signing, origin string, n int) [][]byte {
	t.Helper()
	prev := OriginHash(origin)
	out := make([][]byte, n)
	for i := range out {
		r := fullRecord(i)
		r.Seq, r.Time, r.Prev = uint64(i), t0.Add(time.Duration(i)*time.Second), prev
		out[i] = seal(t, sk, r)
		prev = Hash(out[i])
	}
	return out
}

func join(recs [][]byte) []byte { return bytes.Join(recs, nil) }

// writeLog writes data to a new file in a temp dir and returns its path.
func writeLog(t testing.TB, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "receipts.cbor")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// openTemp opens a new log in a temp dir.
func openTemp(t testing.TB, sk *key.Signing) (*Log, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "receipts.cbor")
	l, err := Open(p, sk, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, p
}

// wantBreak checks err is a *BreakError at index (torn or not).
func wantBreak(t testing.TB, err error, index int64, torn bool) *BreakError {
	t.Helper()
	be, ok := err.(*BreakError)
	if !ok {
		t.Fatalf("error %v (%T), want *BreakError", err, err)
	}
	if be.Index != index || be.Torn != torn {
		t.Fatalf("break %+v, want index %d torn %v", be, index, torn)
	}
	return be
}
