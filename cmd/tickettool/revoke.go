package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	guardpkg "github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

const revokeUsage = `
usage: tickettool revoke [--store LOCATION] [--key PATH] TARGET...

Revokes each TARGET in the store: from then on every verifier using that
store refuses it and every ticket attenuated from it. TARGET is either

  TICKET        a ticket's text, - for standard input, or @PATH. Its last block
                is revoked: this ticket and every ticket made from it are
                refused, not the ticket it was attenuated from. Needs --key,
                the root key as verify takes it (HMAC secret, Ed25519
                public or private key): block ids come from the verified
                chain, and in HMAC mode only the secret yields them.
  BLOCK0:BLOCK  two block ids (64 hex digits each) as 'tickettool verify
                --ids' prints them: block 0's id (the "block 0" line) and
                the id of the block to revoke. A store keeps revocations
                under block 0's id, so a block id alone is not enough.
                BLOCK0:BLOCK0 revokes every ticket attenuated from block 0.

The family id that 'tickettool inspect' and receipts show (32 hex digits)
is another id: random, public, the same in every ticket attenuated from
one minted ticket. It names the family but revokes nothing, since anyone
can read it; give the ticket with --key instead, or BLOCK0:BLOCK.

Prints "revoked BLOCK0:BLOCK" on standard output for each TARGET, the
target as it would be given again, followed by "(family FAMILYID)" for a
TICKET. A ticket's revocation is kept until 24h after its block 0's until
caveat (after that no ticket of the family can be admitted, by a verifier
whose --skew is at most 24h), or for ever when block 0 has none; a
BLOCK0:BLOCK revocation is kept for ever. Every TARGET is read before the
store is changed: a bad one changes nothing.

` + storeUsage + `
Example:
  tickettool revoke --key root.key --store ~/tickets/store.db "$SUBAGENT_TICKET"
  tickettool verify --key root.key --ids "$TICKET"     # block 0 ID, block 1 ID, ...
  tickettool revoke --store redis://guard.internal:6379/0 BLOCK0ID:BLOCKID
`

func runRevoke(e *env, args []string) error {
	fs := newFlags(e, "revoke", revokeUsage)
	location := storeFlag(fs)
	keyPath := fs.String("key", "", "`PATH` of the root key, needed for a TICKET target")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return fail(exitUsage, errors.New("revoke takes at least one TARGET: a ticket, or BLOCK0:BLOCK"),
			"run 'tickettool revoke -h' for usage")
	}
	var vk *key.Verifying
	revs := make([]revocation, 0, len(pos))
	for _, arg := range pos {
		r, err := e.revokeTarget(arg, *keyPath, &vk)
		if err != nil {
			return err
		}
		revs = append(revs, r)
	}
	ctx, cancel := storeContext()
	defer cancel()
	st, name, err := openStore(ctx, *location)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, r := range revs {
		if err := st.Revoke(ctx, r.Revocation, e.now); err != nil {
			return storeFailed(name, err, "the revocation was not recorded: run revoke again")
		}
		if r.familyID == "" {
			fmt.Fprintf(e.stdout, "revoked %s:%s\n", r.Family, r.Blocks[0])
		} else {
			fmt.Fprintf(e.stdout, "revoked %s:%s (family %s)\n", r.Family, r.Blocks[0], r.familyID)
		}
	}
	if name == "memory" {
		fmt.Fprintln(e.stderr, "tickettool: hint: the memory store ends with this process: nothing stays revoked; pass --store PATH or a redis:// URL")
	}
	return nil
}

// revocation is one TARGET read: what the store records, and the family
// id (hex) shown beside it, "" when the target gave only block ids.
type revocation struct {
	guardpkg.Revocation
	familyID string
}

// revokeTarget parses one TARGET into a revocation. A ticket's block ids
// come from its chain verified under the key in keyPath, read into *vk on
// first need. A family id (what inspect and receipts show) is refused
// with a hint: it is public, so it cannot name what to revoke.
func (e *env) revokeTarget(arg, keyPath string, vk **key.Verifying) (revocation, error) {
	if b0, b, ok := strings.Cut(arg, ":"); ok && !strings.HasPrefix(arg, token.Prefix) {
		if isFamilyID(b0) || isFamilyID(b) {
			return revocation{}, familyIDTarget(arg)
		}
		root, err1 := token.ParseBlockID(b0)
		block, err2 := token.ParseBlockID(b)
		if err1 != nil || err2 != nil {
			return revocation{}, usageErr("TARGET %q: BLOCK0:BLOCK takes two block ids of 64 lowercase hex digits", short(arg))
		}
		return revocation{Revocation: guardpkg.Revocation{Family: root, Blocks: []token.BlockID{block}}}, nil
	}
	if isFamilyID(arg) {
		return revocation{}, familyIDTarget(arg)
	}
	if _, err := token.ParseBlockID(arg); err == nil {
		return revocation{}, fail(exitUsage, errors.New("a block id alone is not a TARGET: the store keeps revocations under block 0's id"),
			"write BLOCK0:BLOCK, BLOCK0 being the \"block 0\" id 'tickettool verify --ids' prints (BLOCK0:BLOCK0 revokes the whole family)")
	}
	_, t, err := e.ticketArg(arg)
	if err != nil {
		return revocation{}, err
	}
	if *vk == nil {
		if keyPath == "" {
			return revocation{}, fail(exitUsage, errors.New("revoking a ticket needs --key PATH, the root key"),
				"or give the target as BLOCK0:BLOCK, the block ids 'tickettool verify --ids' prints")
		}
		if *vk, err = readKey(keyPath, "--key"); err != nil {
			return revocation{}, err
		}
	}
	c, err := t.VerifyChain(*vk)
	if err != nil {
		return revocation{}, fail(exitRefused, err,
			"revoke only tickets that verify under --key: their block ids are the ones verifiers see")
	}
	return revocation{
		Revocation: guardpkg.Revocation{Family: c.IDs[0], Blocks: []token.BlockID{c.TicketID()}, Expires: familyExpiry(&c)},
		familyID:   hex.EncodeToString(c.FamilyID),
	}, nil
}

// isFamilyID reports whether s has the form of a family id as inspect
// and receipts print it: 32 lowercase hex digits.
func isFamilyID(s string) bool {
	if len(s) != 2*token.TicketIDBytes {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// familyIDTarget is the usage error for a TARGET holding a family id.
func familyIDTarget(arg string) error {
	return fail(exitUsage, fmt.Errorf("TARGET %q holds a family id (32 hex digits, as inspect and receipts show it), not a block id", short(arg)),
		"a family id is public and revokes nothing: give the ticket with --key (tickettool revoke --key KEY TICKET), or BLOCK0:BLOCK, the ids 'tickettool verify --key KEY --ids TICKET' prints")
}

// familyExpiry returns when a revocation in the chain's family may be
// forgotten: block 0's until plus revokeMargin, or zero (never) when
// block 0 has no until.
func familyExpiry(c *token.Verified) time.Time {
	for _, cv := range c.Blocks[0].Caveats {
		if cv.Kind == caveat.Until {
			return time.Unix(cv.Time, 0).UTC().Add(revokeMargin)
		}
	}
	return time.Time{}
}

// short cuts s for an error message.
func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
