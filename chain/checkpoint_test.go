package chain

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/tickettool/tickettool/key"
)

func TestCheckpointTruncationRollbackFork(t *testing.T) {
	for name, sk := range testKeys(t) {
		recs := makeRecords(t, sk, testOrigin, 8)
		p := writeLog(t, join(recs[:5]))
		cp5, err := MakeCheckpoint(p, sk, testOrigin)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(cp5, []byte(testOrigin+"\n5\n")) {
			t.Fatalf("%s: checkpoint\n%s", name, cp5)
		}
		if _, err := VerifyCheckpoint(p, cp5, sk.Verifying(), testOrigin); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// The log grows: the old checkpoint still holds.
		grown := join(recs)
		if sum, err := VerifyCheckpointBytes(grown, cp5, sk.Verifying(), testOrigin); err != nil || sum.Count != 8 {
			t.Fatalf("%s: grown: %v", name, err)
		}
		cp8, _ := SignCheckpoint(mustVerify(t, grown, sk).Checkpoint(), sk)
		// Truncated: a bare chain verifies, the checkpoint does not.
		for n := range 5 {
			short := join(recs[:n])
			if _, err := VerifyBytes(short, sk.Verifying(), testOrigin); err != nil {
				t.Fatal(err)
			}
			_, err := VerifyCheckpointBytes(short, cp5, sk.Verifying(), testOrigin)
			var ce *CheckpointError
			if !errors.Is(err, ErrTruncated) || !errors.As(err, &ce) || ce.LogSize != int64(n) || ce.CheckpointSize != 5 {
				t.Fatalf("%s: truncated to %d: %v", name, n, err)
			}
		}
		// Rollback: the old 5-record copy against the newer checkpoint.
		if _, err := VerifyCheckpoint(p, cp8, sk.Verifying(), testOrigin); !errors.Is(err, ErrTruncated) {
			t.Fatalf("%s: rollback: %v", name, err)
		}
		// Fork: the first 3 records, then 5 others properly signed.
		fork := makeForkRecords(t, sk, recs[:3], 5)
		if _, err := VerifyBytes(fork, sk.Verifying(), testOrigin); err != nil {
			t.Fatal(err)
		}
		if _, err := VerifyCheckpointBytes(fork, cp5, sk.Verifying(), testOrigin); !errors.Is(err, ErrForked) {
			t.Fatalf("%s: fork: %v", name, err)
		}
		// A broken log is a break, whatever the checkpoint.
		bad := bytes.Clone(grown)
		bad[len(bad)-1] ^= 1
		if _, err := VerifyCheckpointBytes(bad, cp5, sk.Verifying(), testOrigin); !errors.Is(err, ErrBroken) {
			t.Fatalf("%s: broken: %v", name, err)
		}
	}
}

func mustVerify(t *testing.T, data []byte, sk *key.Signing) *Summary {
	t.Helper()
	sum, err := VerifyBytes(data, sk.Verifying(), testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// makeForkRecords continues prefix with n records that differ from
// makeRecords' (another note), validly signed.
func makeForkRecords(t *testing.T, sk *key.Signing, prefix [][]byte, n int) []byte {
	prev := Hash(prefix[len(prefix)-1])
	out := join(prefix)
	for i := len(prefix); i < len(prefix)+n; i++ {
		r := fullRecord(i)
		r.Note = "forked"
		r.Seq, r.Time, r.Prev = uint64(i), t0.Add(1e12), prev
		b := seal(t, sk, r)
		out, prev = append(out, b...), Hash(b)
	}
	return out
}

func TestInclusionAndConsistency(t *testing.T) {
	for name, sk := range testKeys(t) {
		recs := makeRecords(t, sk, testOrigin, 9)
		vk := sk.Verifying()
		var cps [][]byte
		for n := 0; n <= len(recs); n++ {
			cp, err := SignCheckpoint(mustVerify(t, join(recs[:n]), sk).Checkpoint(), sk)
			if err != nil {
				t.Fatal(err)
			}
			cps = append(cps, cp)
		}
		full := mustVerify(t, join(recs), sk)
		for i := range recs {
			proof, err := full.ProveInclusion(int64(i))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := CheckInclusion(cps[9], int64(i), recs[i], proof, vk, testOrigin); err != nil {
				t.Fatalf("%s: inclusion %d: %v", name, i, err)
			}
			// The wrong record, index or checkpoint fails.
			if _, err := CheckInclusion(cps[9], int64(i), recs[(i+1)%9], proof, vk, testOrigin); err == nil {
				t.Fatalf("%s: wrong record accepted", name)
			}
			if _, err := CheckInclusion(cps[8], int64(i), recs[i], proof, vk, testOrigin); err == nil {
				t.Fatalf("%s: wrong checkpoint accepted", name)
			}
		}
		if _, err := full.ProveInclusion(9); err == nil {
			t.Fatal("proof of a missing record")
		}
		var sums []*Summary
		for n := 0; n <= 9; n++ {
			sums = append(sums, mustVerify(t, join(recs[:n]), sk))
		}
		for older := 0; older <= 9; older++ {
			for newer := older; newer <= 9; newer++ {
				proof, err := sums[newer].ProveConsistency(int64(older))
				if err != nil {
					t.Fatal(err)
				}
				if err := CheckConsistency(cps[older], cps[newer], proof, vk, testOrigin); err != nil {
					t.Fatalf("%s: consistency %d→%d: %v", name, older, newer, err)
				}
				if older > 0 && newer > older {
					if err := CheckConsistency(cps[newer], cps[older], proof, vk, testOrigin); !errors.Is(err, ErrTruncated) {
						t.Fatalf("%s: reversed %d→%d: %v", name, older, newer, err)
					}
				}
			}
		}
		// A fork is not consistent with the original.
		fork := mustVerify(t, makeForkRecords(t, sk, recs[:3], 5), sk)
		forkCP, _ := SignCheckpoint(fork.Checkpoint(), sk)
		proof, _ := fork.ProveConsistency(5)
		if err := CheckConsistency(cps[5], forkCP, proof, vk, testOrigin); !errors.Is(err, ErrForked) {
			t.Fatalf("%s: fork: %v", name, err)
		}
		proof, _ = fork.ProveConsistency(8)
		if err := CheckConsistency(cps[8], forkCP, proof, vk, testOrigin); !errors.Is(err, ErrForked) {
			t.Fatalf("%s: same-size fork: %v", name, err)
		}
	}
}

func TestCheckpointRefused(t *testing.T) {
	k := seedKey(t, "test-key", 1)
	data := join(makeRecords(t, k, testOrigin, 3))
	sum := mustVerify(t, data, k)
	cp, _ := SignCheckpoint(sum.Checkpoint(), k)
	others := []*key.Signing{seedKey(t, "test-key", 2), seedKey(t, "other-name", 1), hmacKey(t, "test-key", 1)}
	for _, other := range others {
		_, err := OpenCheckpoint(cp, other.Verifying(), testOrigin)
		if !errors.Is(err, ErrCheckpoint) {
			t.Fatalf("verified with %v: %v", other, err)
		}
		// The refusal names both keys: the checkpoint's signer and the one given.
		signer, given := keyName(k.Verifying()), keyName(other.Verifying())
		if !strings.Contains(err.Error(), signer) || !strings.Contains(err.Error(), "not by key "+given) {
			t.Errorf("verified with %v: %v", other, err)
		}
		forged, _ := SignCheckpoint(sum.Checkpoint(), other)
		if _, err := VerifyCheckpointBytes(data, forged, k.Verifying(), testOrigin); !errors.Is(err, ErrCheckpoint) {
			t.Fatalf("signed by %v: %v", other, err)
		}
	}
	if _, err := OpenCheckpoint(cp, k.Verifying(), "example.com/other"); !errors.Is(err, ErrCheckpoint) {
		t.Fatalf("other origin: %v", err)
	}
	// Any change to the text breaks the signature.
	for i := range bytes.IndexByte(cp, 0xe2) { // up to the signature line
		bad := bytes.Clone(cp)
		bad[i] ^= 1
		if _, err := OpenCheckpoint(bad, k.Verifying(), testOrigin); err == nil {
			t.Fatalf("flip at %d accepted", i)
		}
	}
	// Well-signed but malformed bodies are refused.
	for _, body := range []string{
		testOrigin + "\n3\n" + sum.Root.String() + "\n",
		testOrigin + "\n03\n" + sum.Root.String() + "\nhead " + sum.Root.String() + "\n",
		testOrigin + "\n-1\n" + sum.Root.String() + "\nhead " + sum.Root.String() + "\n",
		testOrigin + "\n3\n" + sum.Root.String() + "\nhead " + sum.Root.String() + "\nextra\n",
		testOrigin + "\n3\n" + sum.Root.String() + "\nhead  " + sum.Root.String() + "\n",
		testOrigin + "\n3\n" + sum.Root.String()[:43] + "\nhead " + sum.Root.String() + "\n",
	} {
		s, _ := k.NoteSigner()
		msg, err := note.Sign(&note.Note{Text: body}, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := OpenCheckpoint(msg, k.Verifying(), testOrigin); !errors.Is(err, ErrCheckpoint) {
			t.Fatalf("body %q: %v", body, err)
		}
	}
	if _, err := OpenCheckpoint(bytes.Repeat([]byte("a"), MaxCheckpointBytes+1), k.Verifying(), testOrigin); !errors.Is(err, ErrCheckpoint) {
		t.Fatal("oversize checkpoint accepted")
	}
}

func TestCheckpointInterop(t *testing.T) {
	// An Ed25519 checkpoint verifies with note's own verifier from the
	// public key string: any signed-note tool can check it.
	sk := seedKey(t, "example.com/receipts", 1)
	sum := mustVerify(t, join(makeRecords(t, sk, testOrigin, 2)), sk)
	cp, _ := SignCheckpoint(sum.Checkpoint(), sk)
	v, err := note.NewVerifier(sk.Verifying().String())
	if err != nil {
		t.Fatal(err)
	}
	n, err := note.Open(cp, note.VerifierList(v))
	if err != nil || n.Text != sum.Checkpoint().Text() {
		t.Fatalf("%v", err)
	}
	// An HMAC checkpoint is opaque to a verifier without the secret.
	mac := hmacKey(t, "example.com/receipts", 1)
	cp, _ = SignCheckpoint(mustVerify(t, join(makeRecords(t, mac, testOrigin, 2)), mac).Checkpoint(), mac)
	if _, err := note.Open(cp, note.VerifierList(v)); err == nil {
		t.Fatal("hmac checkpoint verified by an ed25519 key")
	}
}

// TestVectorsRFC6962 checks tlog against the RFC 6962 test tree
// (testdata/merkle_roots.json, from transparency-dev/merkle).
func TestVectorsRFC6962(t *testing.T) {
	var v struct {
		Leaves  []string          `json:"leaf_inputs_hex"`
		Empty   string            `json:"empty_root"`
		Roots   map[string]string `json:"roots_by_size"`
		Lengths map[string]int    `json:"rfc9162_example_proof_lengths"`
	}
	b, err := os.ReadFile("testdata/merkle_roots.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var stored hashStore
	for i, h := range v.Leaves {
		leaf, _ := hex.DecodeString(h)
		hs, err := tlog.StoredHashes(int64(i), leaf, stored)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, hs...)
		root, _ := tlog.TreeHash(int64(i+1), stored)
		if hex.EncodeToString(root[:]) != v.Roots[strconv.Itoa(i+1)] {
			t.Fatalf("root of %d leaves %x", i+1, root)
		}
	}
	if root, _ := tlog.TreeHash(0, stored); hex.EncodeToString(root[:]) != v.Empty {
		t.Fatal("empty root")
	}
	for name, want := range v.Lengths {
		var a, b int64
		var got int
		if _, err := fmt.Sscanf(name, "consistency(%d,%d)", &a, &b); err == nil {
			p, _ := tlog.ProveTree(b, a, stored)
			got = len(p)
		} else if _, err := fmt.Sscanf(name, "inclusion(%d,%d)", &a, &b); err == nil {
			p, _ := tlog.ProveRecord(b, a, stored)
			got = len(p)
		}
		if got != want {
			t.Fatalf("%s: proof of %d hashes, want %d", name, got, want)
		}
	}
}

// TestVectorsSignedNote checks the c2sp.org/signed-note examples
// (testdata/signed_note_examples.json) with note and with our key parser.
func TestVectorsSignedNote(t *testing.T) {
	var v struct {
		Examples []struct{ VKey, SKey, Note string }
	}
	b, err := os.ReadFile("testdata/signed_note_examples.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
}
