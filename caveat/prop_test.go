package caveat_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
	"pgregory.net/rapid"
)

// Narrowing soundness: whenever Scope accepts c after p, every request c
// allows is allowed by p, and every block c lets follow, p let follow.
func TestPropNarrowingSound(t *testing.T) {
	var accepted, allowed int
	rapid.Check(t, func(t *rapid.T) {
		k := draw(t, rapid.SampledFrom(knownKinds))
		p := genCaveat(t, k)
		c := genCaveat(t, k)
		if draw(t, rapid.IntRange(0, 3)) > 0 {
			c = derive(t, p)
		}
		b1 := draw(t, rapid.IntRange(0, 2))
		if k == caveat.Intent {
			b1 = 0
		}
		b2 := b1 + draw(t, rapid.IntRange(0, 2))
		var s caveat.Scope
		if err := s.Add(b1, p); err != nil {
			t.Fatalf("first caveat %s refused: %v", p, err)
		}
		before := s.Clone()
		if err := s.Add(b2, c); err != nil {
			if !errors.Is(err, caveat.ErrWiden) {
				t.Fatalf("Add: %v does not wrap ErrWiden", err)
			}
			return
		}
		accepted++
		// Approval and args form a conjunction: every one is checked, so
		// what the ticket allows is what both allow.
		conj := k == caveat.Approval || k == caveat.Args
		for i := 0; i < 8; i++ {
			r := genRequest(t, c)
			at, skew := genNow(t)
			if c.Evaluate(r, at, skew) != nil || conj && p.Evaluate(r, at, skew) != nil {
				continue
			}
			allowed++
			if err := p.Evaluate(r, at, skew); err != nil {
				t.Fatalf("%s (block %d) accepted after %s (block %d), allows %+v at %v, which the parent refuses: %v",
					c, b2, p, b1, *r, at, err)
			}
		}
		for next := 0; next < 10; next++ {
			if s.CanAppend(next) == nil && before.CanAppend(next) != nil {
				t.Fatalf("%s in block %d lets block %d follow, %s in block %d did not", c, b2, next, p, b1)
			}
		}
	})
	t.Logf("accepted %d, allowed %d", accepted, allowed)
	if accepted < 20 || allowed < 20 {
		t.Errorf("too few hits to mean anything: %d narrowings accepted, %d requests allowed", accepted, allowed)
	}
}

// A list that is a subset of the effective one, and a caveat equal to the
// effective one, are always accepted: the relation compares meaning.
func TestPropSubsetAccepted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := draw(t, rapid.SampledFrom(knownKinds))
		if k == caveat.Intent {
			return
		}
		p := genCaveat(t, k)
		var s caveat.Scope
		_ = s.Add(0, p)
		if err := s.Add(0, p); err != nil {
			t.Fatalf("%s refused after itself: %v", p, err)
		}
		if !isList(k) {
			return
		}
		sub := slices.Clone(p.List)
		for len(sub) > 1 && draw(t, rapid.Bool()) {
			i := draw(t, rapid.IntRange(0, len(sub)-1))
			sub = slices.Delete(sub, i, i+1)
		}
		c, err := newList(k, sub)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Add(0, c); err != nil {
			t.Fatalf("subset %s refused after %s: %v", c, p, err)
		}
	})
}

func genAnyCaveat(t *rapid.T) caveat.Caveat {
	return genCaveat(t, draw(t, rapid.SampledFrom(knownKinds)))
}

func TestPropTextRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genAnyCaveat(t)
		d, err := caveat.Parse(c.String(), now)
		if err != nil || !d.Equal(c) {
			t.Fatalf("Parse(%q) = %+v, %v; want %+v", c.String(), d, err, c)
		}
	})
}

func TestPropIntentRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := draw(t, rapid.String())
		c, err := caveat.NewIntent(s)
		if err != nil {
			return
		}
		d, err := caveat.Parse(c.String(), now)
		if err != nil || !d.Equal(c) {
			t.Fatalf("Parse(%q) = %+v, %v", c.String(), d, err)
		}
	})
}

func TestPropCBORRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := genAnyCaveat(t)
		raw, err := wire.EncodeCaveat(c)
		if err != nil {
			t.Fatalf("EncodeCaveat(%s): %v", c, err)
		}
		d, err := wire.DecodeCaveat(c.Kind, raw)
		if err != nil || !d.Equal(c) {
			t.Fatalf("DecodeCaveat(%x) = %+v, %v; want %+v", raw, d, err, c)
		}
		again, err := wire.EncodeCaveat(d)
		if err != nil || !bytes.Equal(again, raw) {
			t.Fatalf("re-encoding %x gave %x, %v", raw, again, err)
		}
	})
}
