package main

import (
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
  FAMILY:BLOCK  two block ids as 'tickettool verify --ids' prints them:
                FAMILY is block 0's id (the "block 0" line), BLOCK the id
                of the block to revoke. A store keeps revocations per
                family, so a block id alone is not enough.
                FAMILY:FAMILY revokes every ticket of the family.

Prints "revoked BLOCK (family FAMILY)" on standard output for each TARGET.
A ticket's revocation is kept until 24h after its block 0's until caveat
(after that no ticket of the family can be admitted, by a verifier whose
--skew is at most 24h), or for ever when block 0 has none; a FAMILY:BLOCK
revocation is kept for ever. Every TARGET is read before the store is
changed: a bad one changes nothing.

` + storeUsage + `
Example:
  tickettool revoke --key root.key --store ~/tickets/store.db "$SUBAGENT_TICKET"
  tickettool verify --key root.key --ids "$TICKET"     # block 0 ID, block 1 ID, ...
  tickettool revoke --store redis://guard.internal:6379/0 FAMILYID:BLOCKID
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
		return fail(exitUsage, errors.New("revoke takes at least one TARGET: a ticket, or FAMILY:BLOCK"),
			"run 'tickettool revoke -h' for usage")
	}
	var vk *key.Verifying
	revs := make([]guardpkg.Revocation, 0, len(pos))
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
		if err := st.Revoke(ctx, r, e.now); err != nil {
			return storeFailed(name, err, "the revocation was not recorded: run revoke again")
		}
		fmt.Fprintf(e.stdout, "revoked %s (family %s)\n", r.Blocks[0], r.Family)
	}
	if name == "memory" {
		fmt.Fprintln(e.stderr, "tickettool: hint: the memory store ends with this process: nothing stays revoked; pass --store PATH or a redis:// URL")
	}
	return nil
}

// revokeTarget parses one TARGET into a revocation. A ticket's block ids
// come from its chain verified under the key in keyPath, read into *vk on
// first need.
func (e *env) revokeTarget(arg, keyPath string, vk **key.Verifying) (guardpkg.Revocation, error) {
	if f, b, ok := strings.Cut(arg, ":"); ok && !strings.HasPrefix(arg, token.Prefix) {
		family, err1 := token.ParseBlockID(f)
		block, err2 := token.ParseBlockID(b)
		if err1 != nil || err2 != nil {
			return guardpkg.Revocation{}, usageErr("TARGET %q: FAMILY:BLOCK takes two block ids of 64 lowercase hex digits", short(arg))
		}
		return guardpkg.Revocation{Family: family, Blocks: []token.BlockID{block}}, nil
	}
	if _, err := token.ParseBlockID(arg); err == nil {
		return guardpkg.Revocation{}, fail(exitUsage, errors.New("a block id alone does not say its family"),
			"write FAMILY:BLOCK, FAMILY being the \"block 0\" id 'tickettool verify --ids' prints (FAMILY:FAMILY revokes the whole family)")
	}
	_, t, err := e.ticketArg(arg)
	if err != nil {
		return guardpkg.Revocation{}, err
	}
	if *vk == nil {
		if keyPath == "" {
			return guardpkg.Revocation{}, fail(exitUsage, errors.New("revoking a ticket needs --key PATH, the root key"),
				"or give the target as FAMILY:BLOCK, the block ids 'tickettool verify --ids' prints")
		}
		if *vk, err = readKey(keyPath, "--key"); err != nil {
			return guardpkg.Revocation{}, err
		}
	}
	c, err := t.VerifyChain(*vk)
	if err != nil {
		return guardpkg.Revocation{}, fail(exitRefused, err,
			"revoke only tickets that verify under --key: their block ids are the ones verifiers see")
	}
	return guardpkg.Revocation{Family: c.IDs[0], Blocks: []token.BlockID{c.TicketID()}, Expires: familyExpiry(&c)}, nil
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
