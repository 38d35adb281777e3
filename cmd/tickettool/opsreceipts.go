package main

import (
	"os"
	"strings"

	"github.com/tickettool/tickettool/chain"
	guardpkg "github.com/tickettool/tickettool/guard"
)

// opReceipts verifies the receipt log at path under the key in keyPath and
// returns, for each operation of ops, the sequence number of the latest of
// its records (by index of ops; -1 when none): an allowed, refused or
// replayed record whose note names "operation KEY", or a settlement
// naming its request. Only the records the verification covered are read.
func opReceipts(path, keyPath string, ops []guardpkg.Operation) ([]int64, error) {
	k, err := readKey(keyPath, "--receipt-key")
	if err != nil {
		return nil, err
	}
	s, err := chain.VerifyFile(path, k, receiptOrigin, chain.VerifyOptions{})
	if err != nil {
		return nil, receiptError(err, path, keyPath, "")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, logFileErr(path, err)
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
	for ent, err := range chain.Scan(f) {
		if err != nil || ent.Index >= s.Count {
			break
		}
		for part := range strings.SplitSeq(ent.Record.Note, "; ") {
			i, ok := -1, false
			if key, found := strings.CutPrefix(part, "operation "); found {
				key, _, _ = strings.Cut(key, " ")
				i, ok = byKey[key]
			} else if id, found := strings.CutPrefix(part, "request "); found {
				i, ok = byRequest[id]
			}
			if ok {
				out[i] = ent.Index
			}
		}
	}
	return out, nil
}
