package chain

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/tickettool/tickettool/key"
)

// TestFormatVectors recomputes testdata/receipt_vectors.json, the worked
// example of FORMAT.md: fixed keys, one record, its signing input, bytes
// and hash, and the signed checkpoint of the one-record log.
func TestFormatVectors(t *testing.T) {
	var v struct {
		Origin     string `json:"origin"`
		OriginHash string `json:"origin_hash"`
		Record     struct {
			Seq                   uint64
			TimeMS                int64 `json:"time_ms"`
			Kind                  Kind
			TicketID              string `json:"ticket_id"`
			FamilyID              string `json:"family_id"`
			Block                 int
			Tool, Op              string
			Subjects              []string
			Check, Caveat, Reason string
		}
		Cases []struct {
			Alg          string
			KeySeedHex   string `json:"key_seed_hex"`
			KeySecretHex string `json:"key_secret_hex"`
			SKey, VKey   string
			SigningInput string `json:"signing_input"`
			Record       string
			RecordHash   string `json:"record_hash"`
			Checkpoint   string
		}
	}
	b, err := os.ReadFile("testdata/receipt_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	oh := OriginHash(v.Origin)
	if hex.EncodeToString(oh[:]) != v.OriginHash {
		t.Fatalf("origin hash %x", oh)
	}
	vr := v.Record
	tid, _ := hex.DecodeString(vr.TicketID)
	fid, _ := hex.DecodeString(vr.FamilyID)
	want := Record{Seq: vr.Seq, Time: time.UnixMilli(vr.TimeMS).UTC(), Kind: vr.Kind, TicketID: tid, FamilyID: fid,
		Block: vr.Block, Tool: vr.Tool, Op: vr.Op, Subjects: vr.Subjects, Check: vr.Check, Caveat: vr.Caveat, Reason: vr.Reason, Prev: oh}
	for _, c := range v.Cases {
		var sk *key.Signing
		if c.Alg == "ed25519" {
			seed, _ := hex.DecodeString(c.KeySeedHex)
			sk, err = key.NewEd25519("example.com/receipts", ed25519.NewKeyFromSeed(seed))
		} else {
			secret, _ := hex.DecodeString(c.KeySecretHex)
			sk, err = key.NewHMAC("example.com/receipts", secret)
		}
		if err != nil {
			t.Fatal(err)
		}
		if s := sk.SecretText(); s != c.SKey+"\n" {
			t.Fatalf("%s: key text %q", c.Alg, s)
		}
		if c.VKey != "" {
			if s := sk.Verifying().String(); s != c.VKey {
				t.Fatalf("%s: verifier key text %q", c.Alg, s)
			}
		}
		r := want
		r.Alg = sk.Alg()
		in, _ := r.SigningInput()
		if hex.EncodeToString(in) != c.SigningInput {
			t.Fatalf("%s: signing input %x", c.Alg, in)
		}
		rec := seal(t, sk, r)
		h := Hash(rec)
		if hex.EncodeToString(rec) != c.Record || hex.EncodeToString(h[:]) != c.RecordHash {
			t.Fatalf("%s: record %x hash %x", c.Alg, rec, h)
		}
		got, err := VerifyRecord(rec, sk.Verifying())
		r.Sig = got.Sig
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Fatalf("%s: decoded %+v %v", c.Alg, got, err)
		}
		sum, err := VerifyBytes(rec, sk.Verifying(), v.Origin)
		if err != nil {
			t.Fatal(err)
		}
		cp, _ := SignCheckpoint(sum.Checkpoint(), sk)
		if !bytes.Equal(cp, []byte(c.Checkpoint)) {
			t.Fatalf("%s: checkpoint\n%s", c.Alg, cp)
		}
	}
}
