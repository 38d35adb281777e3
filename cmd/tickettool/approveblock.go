package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/internal/escape"
	"github.com/tickettool/tickettool/token"
)

// blockFlag registers approve's --block N: the block whose approval to
// sign; -1 (its absence) signs every approval naming the key.
func blockFlag(fs *cmdFlags) *int {
	n := -1
	fs.Func("block", "sign only the approval of block `N` (0 is the first)", func(v string) error {
		b, err := strconv.Atoi(v)
		if err != nil || b < 0 {
			return errors.New("want a block number: 0, 1, …")
		}
		n = b
		return nil
	})
	return &n
}

// approvalOfBlock keeps, of the approvals naming the key, the one of
// block (all of them when block is -1); none is a refusal naming the
// blocks whose approvals do name it.
func approvalOfBlock(matched []token.UnverifiedApproval, block int, keyID string) ([]token.UnverifiedApproval, error) {
	if block < 0 {
		return matched, nil
	}
	var blocks []string
	for _, m := range matched {
		if m.Block == block {
			return []token.UnverifiedApproval{m}, nil
		}
		blocks = append(blocks, strconv.Itoa(m.Block))
	}
	in := "block " + blocks[0]
	if len(blocks) > 1 {
		in = "blocks " + strings.Join(blocks, ", ")
	}
	return nil, fail(exitRefused, fmt.Errorf("block %d has no approval caveat naming this key (%s): nothing was signed", block, escape.ASCII(keyID)),
		fmt.Sprintf("this key's approvals are in %s: pass one of them to --block, or leave --block out to sign them all", in))
}
