package token

import (
	"cmp"
	"crypto/ed25519"
	"fmt"
	"io"
	"slices"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/key"
)

// Options are the knobs of [Mint] and Attenuate.
type Options struct {
	// Holder is the current holder's key. Attenuate needs it to append a
	// holder caveat to a ticket that is already bound (rebinding); it is
	// ignored otherwise.
	Holder *key.Holder
}

// Mint makes a new ticket under root key with the given caveats as block 0.
// Caveats are validated (package caveat's rules for block 0, at most one per
// kind) and stored in kind order. The ticket id and, in Ed25519 mode, the
// next key come from crypto/rand.
func Mint(root *key.Signing, caveats []caveat.Caveat, opts *Options) (*Ticket, error) {
	if wireMode(root.Alg()) == 0 {
		return nil, fmt.Errorf("token: mint: no hmac or ed25519 root key")
	}
	var scope caveat.Scope
	cs, err := addBlock(&scope, 0, caveats)
	if err != nil {
		return nil, err
	}
	r := randsrc.Reader()
	b := Block{Alg: root.Alg(), KeyID: root.ID(), TicketID: make([]byte, TicketIDBytes), Caveats: cs}
	if _, err := io.ReadFull(r, b.TicketID); err != nil {
		return nil, fmt.Errorf("token: mint: reading randomness: %w", err)
	}
	t := &Ticket{}
	switch root.Alg() {
	case key.HMACSHA256:
		if err := encodeBlock(&b); err != nil {
			return nil, err
		}
		k, err := root.Sign(append([]byte(labelHMACKey), b.TicketID...))
		if err != nil {
			return nil, fmt.Errorf("token: mint: %w", err)
		}
		tag := hmacAppend(k, b.raw)
		t.tail = tag[:]
	case key.Ed25519:
		seed, err := newNextKey(r, &b)
		if err != nil {
			return nil, err
		}
		sig, err := root.Sign(edBlockMessage(nil, b.raw))
		if err != nil {
			return nil, fmt.Errorf("token: mint: %w", err)
		}
		t.sigs, t.tail = [][]byte{sig}, seed
	}
	t.blocks = []Block{b}
	return finish(t)
}

// newNextKey draws a fresh Ed25519 key, sets it as b's next key, encodes b
// and returns the seed the ticket carries.
func newNextKey(r io.Reader, b *Block) ([]byte, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(r, seed); err != nil {
		return nil, fmt.Errorf("token: reading randomness: %w", err)
	}
	b.NextKey = ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if err := encodeBlock(b); err != nil {
		return nil, err
	}
	return seed, nil
}

func edBlockMessage(prev, raw []byte) []byte {
	return append(append(append(make([]byte, 0, len(labelEdBlock)+len(prev)+len(raw)), labelEdBlock...), prev...), raw...)
}

// addBlock checks and records the caveats of block i in scope and returns
// them sorted by kind.
func addBlock(scope *caveat.Scope, i int, caveats []caveat.Caveat) ([]caveat.Caveat, error) {
	if len(caveats) > MaxCaveatsPerBlock {
		return nil, &Error{Block: i, Reason: fmt.Sprintf("more than %d caveats", MaxCaveatsPerBlock), Err: ErrWiden}
	}
	cs := slices.Clone(caveats)
	slices.SortStableFunc(cs, func(a, b caveat.Caveat) int { return cmp.Compare(a.Kind, b.Kind) })
	for j, c := range cs {
		if j > 0 && cs[j-1].Kind == c.Kind {
			return nil, &Error{Block: i, Kind: c.Kind, Reason: "appears twice in one block", Err: ErrWiden}
		}
		if !c.Kind.Known() {
			return nil, &Error{Block: i, Kind: c.Kind, Reason: "unknown kind cannot be minted", Err: ErrWiden}
		}
		if err := scope.Add(i, c); err != nil {
			return nil, fromCaveat(i, err, ErrWiden)
		}
	}
	return cs, nil
}

// UnverifiedScope replays the ticket's blocks into a caveat scope, as a verifier would
// (without checking the chain): the effective constraint after the last
// block. It fails if a block does not narrow what came before.
func (t *Ticket) UnverifiedScope() (caveat.Scope, error) {
	var s caveat.Scope
	for i := range t.blocks {
		if i > 0 {
			if err := s.CanAppend(i); err != nil {
				return s, fromCaveat(i, err, ErrWiden)
			}
		}
		for _, c := range t.blocks[i].Caveats {
			if err := s.Add(i, c); err != nil {
				return s, fromCaveat(i, err, ErrWiden)
			}
		}
	}
	return s, nil
}

// Attenuate returns a new ticket with one more block holding caveats. It
// refuses up front (ErrWiden, naming the block and caveat) anything that is
// not at least as strict as the ticket's effective constraint, and any
// append after a block whose ops lack delegate or past a depth limit; it
// refuses a sealed ticket (ErrSealed). t is unchanged. In Ed25519 mode the
// new block's next key comes from crypto/rand.
func (t *Ticket) Attenuate(caveats []caveat.Caveat, opts *Options) (*Ticket, error) {
	if len(t.blocks) == 0 {
		return nil, errEmpty()
	}
	if t.seal != nil {
		return nil, &Error{Block: -1, Reason: "cannot append", Err: ErrSealed}
	}
	n := len(t.blocks)
	if n >= MaxBlocks {
		return nil, &Error{Block: n, Reason: fmt.Sprintf("a ticket has at most %d blocks", MaxBlocks), Err: ErrWiden}
	}
	scope, err := t.UnverifiedScope()
	if err != nil {
		return nil, err
	}
	if err := scope.CanAppend(n); err != nil {
		return nil, fromCaveat(n, err, ErrWiden)
	}
	current := scope.Holder()
	cs, err := addBlock(&scope, n, caveats)
	if err != nil {
		return nil, err
	}
	b := Block{Caveats: cs}
	if current != nil && hasKind(cs, caveat.Holder) {
		var signer *key.Holder
		if opts != nil {
			signer = opts.Holder
		}
		// In Ed25519 mode the next key is part of the block; draw it first.
		var seed []byte
		if t.blocks[0].Alg == key.Ed25519 {
			if seed, err = newNextKey(randsrc.Reader(), &b); err != nil {
				return nil, err
			}
		}
		if b.RebindSig, err = signRebind(t, n, current, &b, signer); err != nil {
			return nil, err
		}
		return t.appendBlock(b, seed)
	}
	var seed []byte
	if t.blocks[0].Alg == key.Ed25519 {
		if seed, err = newNextKey(randsrc.Reader(), &b); err != nil {
			return nil, err
		}
	} else if err := encodeBlock(&b); err != nil {
		return nil, err
	}
	return t.appendBlock(b, seed)
}

// appendBlock chains the encoded block b after t: an HMAC tag, or an
// Ed25519 signature by the current next key (seed is the new next key's).
func (t *Ticket) appendBlock(b Block, seed []byte) (*Ticket, error) {
	n := len(t.blocks)
	nt := &Ticket{blocks: append(slices.Clip(t.blocks), b)}
	switch t.blocks[0].Alg {
	case key.HMACSHA256:
		tag := hmacAppend(t.tail, b.raw)
		nt.tail = tag[:]
	case key.Ed25519:
		cur := ed25519.NewKeyFromSeed(t.tail)
		sig := ed25519.Sign(cur, edBlockMessage(t.sigs[n-1], b.raw))
		nt.sigs, nt.tail = append(slices.Clip(t.sigs), sig), seed
	}
	return finish(nt)
}

// Seal returns a sealed copy of t: the appending secret is replaced by a
// final tag (HMAC) or signature (Ed25519), so nothing more can be appended
// by anyone. Sealing a sealed ticket is [ErrSealed].
func (t *Ticket) Seal() (*Ticket, error) {
	if len(t.blocks) == 0 {
		return nil, errEmpty()
	}
	if t.seal != nil {
		return nil, &Error{Block: -1, Reason: "already sealed", Err: ErrSealed}
	}
	nt := &Ticket{blocks: t.blocks, sigs: t.sigs}
	switch t.blocks[0].Alg {
	case key.HMACSHA256:
		s := hmacSeal(t.tail)
		nt.seal = s[:]
	case key.Ed25519:
		cur := ed25519.NewKeyFromSeed(t.tail)
		msg := append([]byte(labelEdSeal), t.sigs[len(t.sigs)-1]...)
		nt.seal = ed25519.Sign(cur, msg)
	}
	return finish(nt)
}

// finish checks that t fits the format's size limit (so that every ticket
// this package makes decodes to itself) and fills in its text form.
func finish(t *Ticket) (*Ticket, error) {
	if n := len(t.blocks); t.approvals(n) > MaxApprovals {
		return nil, &Error{Block: n - 1, Kind: caveat.Approval, Err: ErrTooLarge,
			Reason: fmt.Sprintf("the ticket would carry more than %d approval caveats", MaxApprovals)}
	}
	data := t.Encode()
	if len(data) > MaxTicketBytes {
		return nil, &Error{Block: len(t.blocks) - 1, Err: ErrTooLarge,
			Reason: fmt.Sprintf("the ticket would be %d bytes, over the limit of %d", len(data), MaxTicketBytes)}
	}
	t.text = Prefix + b64.EncodeToString(data)
	return t, nil
}
