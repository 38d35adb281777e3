package main

import (
	"bytes"
	"os"
	"strings"
	"time"

	"github.com/tickettool/tickettool/chain"
	guardpkg "github.com/tickettool/tickettool/guard"
)

// plainCall is a call of the family made without an operation key, as
// the receipt log tells it: its allowed record and its settlement.
type plainCall struct {
	request, tool string
	at            time.Time
	state         string // captured, released, or "" (no settlement recorded)
	seq           int64  // the latest of its records
}

// opReceipts verifies the receipt log at path under the key in keyPath and
// returns, for each operation of ops, the sequence number of the latest of
// its records (by index of ops; -1 when none): an allowed, refused or
// replayed record whose note names "operation KEY", or a settlement
// naming its request. With family (the 16-byte family id) it also returns
// the family's allowed calls without a key, oldest first. Only the
// records the verification covered are read.
func opReceipts(path, keyPath string, ops []guardpkg.Operation, family []byte) ([]int64, []plainCall, error) {
	k, err := readKey(keyPath, "--receipt-key")
	if err != nil {
		return nil, nil, err
	}
	s, err := chain.VerifyFile(path, k, receiptOrigin, chain.VerifyOptions{})
	if err != nil {
		return nil, nil, receiptError(err, path, keyPath, "")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, logFileErr(path, err)
	}
	defer f.Close()
	byKey := map[string]int{}
	byRequest := map[string]int{}
	for i := range ops {
		byKey[ops[i].Key] = i
		byRequest[ops[i].Request.String()] = i
	}
	out := make([]int64, len(ops))
	for i := range out {
		out[i] = -1
	}
	var plain []plainCall
	byPlain := map[string]int{}
	for ent, err := range chain.Scan(f) {
		if err != nil || ent.Index >= s.Count {
			break
		}
		r := &ent.Record
		request, keyed := "", false
		for part := range strings.SplitSeq(r.Note, "; ") {
			i, ok := -1, false
			if key, found := strings.CutPrefix(part, "operation "); found {
				key, _, _ = strings.Cut(key, " ")
				i, ok = byKey[key]
				keyed = true
			} else if id, found := strings.CutPrefix(part, "request "); found {
				i, ok = byRequest[id]
				request = id
			}
			if ok {
				out[i] = ent.Index
			}
		}
		if family == nil || keyed || request == "" || !bytes.Equal(r.FamilyID, family) {
			continue
		}
		if _, ok := byRequest[request]; ok {
			continue
		}
		switch r.Kind {
		case chain.KindAllowed:
			byPlain[request] = len(plain)
			plain = append(plain, plainCall{request: request, tool: r.Tool, at: r.Time, seq: ent.Index})
		case chain.KindCaptured, chain.KindReleased:
			if i, ok := byPlain[request]; ok {
				plain[i].state, plain[i].seq = r.Kind.String(), ent.Index
			}
		}
	}
	return out, plain, nil
}
