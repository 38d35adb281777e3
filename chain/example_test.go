package chain_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/key"
)

// exampleKey is a fixed key so that the output is stable; real code uses
// key.Generate(key.Ed25519, name) and Signing.WriteFile once, then
// key.ReadSigningFile.
func exampleKey() *key.Signing {
	k, err := key.NewEd25519("example.com/receipts", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{42}, 32)))
	if err != nil {
		panic(err)
	}
	return k
}

const origin = "example.com/receipts/agent-1"

func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "receipts")
	defer os.RemoveAll(dir)

	log, err := chain.Open(filepath.Join(dir, "receipts.cbor"), exampleKey(), origin)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer log.Close()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	r, err := log.Append(chain.Record{
		Kind: chain.KindRefused, Tool: "read_file", Op: "invoke", Subjects: []string{"src/refund/x.go"},
		Check: "caveat", Caveat: "paths", Reason: "src/refund/ is not under src/discount/",
	}, now)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r)
	// Output:
	// #0 2025-06-01T12:00:00.000Z refused tool="read_file" op="invoke" subject="src/refund/x.go" check="caveat" caveat="paths" reason="src/refund/ is not under src/discount/"
}

func ExampleVerify() {
	dir, _ := os.MkdirTemp("", "receipts")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "receipts.cbor")
	sk := exampleKey()

	log, _ := chain.Open(path, sk, origin)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tool := range []string{"read_file", "write_file", "run_tests"} {
		log.Append(chain.Record{Kind: chain.KindAllowed, Tool: tool, Op: "invoke"}, now)
	}
	log.Close()

	// An auditor needs only the public key.
	sum, err := chain.Verify(path, sk.Verifying(), origin)
	fmt.Println(sum.Count, err)

	// Change one byte of the second record ("write_file" becomes "wrote_file").
	data, _ := os.ReadFile(path)
	i := bytes.Index(data, []byte("write_file"))
	data[i+2] = 'o'
	os.WriteFile(path, data, 0o600)
	_, err = chain.Verify(path, sk.Verifying(), origin)
	var be *chain.BreakError
	if errors.As(err, &be) {
		fmt.Printf("record %d at offset %d: %s\n", be.Index, be.Offset, be.Reason)
	}
	// Output:
	// 3 <nil>
	// record 1 at offset 138: signature does not verify
}

func ExampleMakeCheckpoint() {
	dir, _ := os.MkdirTemp("", "receipts")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "receipts.cbor")
	sk := exampleKey()

	log, _ := chain.Open(path, sk, origin)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	log.Append(chain.Record{Kind: chain.KindIntent, Note: "upgrade the pricing dependency"}, now)
	log.Append(chain.Record{Kind: chain.KindMinted, TicketID: []byte{1, 2, 3}, FamilyID: []byte{1, 2, 3}}, now)

	// The auditor keeps the signed checkpoint (a C2SP signed note).
	cp, err := chain.MakeCheckpoint(path, sk, origin)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join(strings.Split(string(cp), "\n")[:2], " | "))

	// Later the log has grown: it still matches the checkpoint.
	log.Append(chain.Record{Kind: chain.KindAllowed, Tool: "read_file"}, now.Add(time.Minute))
	log.Close()
	sum, err := chain.VerifyCheckpoint(path, cp, sk.Verifying(), origin)
	fmt.Println(sum.Count, err)

	// Truncated back to one record: the bare chain verifies, the checkpoint does not.
	data, _ := os.ReadFile(path)
	for e, err := range chain.Scan(bytes.NewReader(data)) {
		if err == nil {
			os.WriteFile(path, e.Bytes, 0o600) // keep the first record only
		}
		break
	}
	sum, err = chain.Verify(path, sk.Verifying(), origin)
	fmt.Println(sum.Count, err)
	_, err = chain.VerifyCheckpoint(path, cp, sk.Verifying(), origin)
	fmt.Println(errors.Is(err, chain.ErrTruncated))
	// Output:
	// example.com/receipts/agent-1 | 2
	// 3 <nil>
	// 1 <nil>
	// true
}
