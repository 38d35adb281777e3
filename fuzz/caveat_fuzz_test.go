package fuzz

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

// FuzzParseCaveat fuzzes caveat.Parse on KEY=VALUE text at the fixed
// clock. Properties:
//   - a refusal is a *caveat.Error matching ErrSyntax;
//   - Parse is deterministic;
//   - parse → print → parse is stable: Parse(c.String()) equals c and
//     prints the same text, also at another clock (relative times are
//     resolved when parsed, so the printed form is absolute);
//   - the key before "=" names the caveat's kind (ParseKind);
//   - the CBOR value round-trips: wire.DecodeCaveat(wire.EncodeCaveat(c))
//     equals c and re-encodes to the same bytes;
//   - checkCaveatSemantics;
//   - allocation stays within the stated bound (sampled).
func FuzzParseCaveat(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		sampleAllocs(t, "caveat.Parse", len(s), func() { caveat.Parse(s, now) })
		c, err := caveat.Parse(s, now)
		if err != nil {
			var ce *caveat.Error
			if !errors.Is(err, caveat.ErrSyntax) || !errors.As(err, &ce) {
				t.Fatalf("Parse error %v (%T) is not a *caveat.Error matching ErrSyntax", err, err)
			}
			return
		}
		if c2, err := caveat.Parse(s, now); err != nil || !c2.Equal(c) {
			t.Fatalf("Parse is not deterministic: %v / %v, %v", c, c2, err)
		}
		if !c.Kind.Known() {
			t.Fatalf("Parse(%q) returned unknown kind %v", s, c.Kind)
		}
		key, _, _ := strings.Cut(s, "=")
		if k, err := caveat.ParseKind(key); err != nil || k != c.Kind {
			t.Fatalf("Parse(%q) has kind %v, its key %q names %v, %v", s, c.Kind, key, k, err)
		}
		text := c.String()
		for _, at := range []time.Time{now, now.Add(48 * time.Hour)} {
			d, err := caveat.Parse(text, at)
			if err != nil || !d.Equal(c) || d.String() != text {
				t.Fatalf("Parse(%q) = %+v prints %q, which parses (at %v) to %+v, %v", s, c, text, at, d, err)
			}
		}
		raw, err := wire.EncodeCaveat(c)
		if err != nil {
			t.Fatalf("EncodeCaveat(%s): %v", text, err)
		}
		d, err := wire.DecodeCaveat(c.Kind, raw)
		if err != nil || !d.Equal(c) {
			t.Fatalf("%s: value %x decodes to %+v, %v", text, raw, d, err)
		}
		if again, err := wire.EncodeCaveat(d); err != nil || !bytes.Equal(again, raw) {
			t.Fatalf("%s: value %x re-marshals to %x, %v", text, raw, again, err)
		}
		checkCaveatSemantics(t, c)
	})
}

// FuzzDecodeCaveatValue fuzzes wire.DecodeCaveat(kind, raw). Properties:
//   - a refusal is a *caveat.Error matching ErrSyntax;
//   - accepted: the caveat has the kind asked for, EncodeCaveat(c) == raw,
//     and the result does not alias raw (scribbling over the input after
//     decoding changes nothing);
//   - a known kind's text parses back to an equal caveat; an unknown kind
//     keeps raw as Raw and prints as "kind(N)=...";
//   - checkCaveatSemantics;
//   - allocation stays within the stated bound (sampled).
func FuzzDecodeCaveatValue(f *testing.F) {
	f.Fuzz(func(t *testing.T, kind uint64, raw []byte) {
		k := caveat.Kind(kind)
		sampleAllocs(t, "wire.DecodeCaveat", len(raw), func() { wire.DecodeCaveat(k, raw) })
		in := append([]byte(nil), raw...)
		c, err := wire.DecodeCaveat(k, in)
		if err != nil {
			var ce *caveat.Error
			if !errors.Is(err, caveat.ErrSyntax) || !errors.As(err, &ce) {
				t.Fatalf("DecodeCaveat error %v (%T) is not a *caveat.Error matching ErrSyntax", err, err)
			}
			return
		}
		for i := range in {
			in[i] ^= 0xff
		}
		if c.Kind != k {
			t.Fatalf("DecodeCaveat(%d, %x) has kind %d", kind, raw, c.Kind)
		}
		again, err := wire.EncodeCaveat(c)
		if err != nil || !bytes.Equal(again, raw) {
			t.Fatalf("DecodeCaveat(%d, %x) = %+v re-encodes to %x, %v (or aliases its input)", kind, raw, c, again, err)
		}
		if fresh, err := wire.DecodeCaveat(k, raw); err != nil || !fresh.Equal(c) {
			t.Fatalf("DecodeCaveat(%d, %x): result changed when its input was overwritten: %+v vs %+v", kind, raw, c, fresh)
		}
		if k.Known() {
			if d, err := caveat.Parse(c.String(), now); err != nil || !d.Equal(c) {
				t.Fatalf("DecodeCaveat(%d, %x): text %q parses to %+v, %v", kind, raw, c.String(), d, err)
			}
		} else if !bytes.Equal(c.Raw, raw) || !strings.HasPrefix(c.String(), "kind(") {
			t.Fatalf("unknown kind %d: Raw %x, String %q", kind, c.Raw, c.String())
		}
		checkCaveatSemantics(t, c)
	})
}

// checkCaveatSemantics asserts the documented meaning of a valid caveat:
//   - Check with an empty (or nil) request: tools, ops, paths, hosts, aud,
//     cost, total and unknown kinds refuse (a missing subject fails the
//     caveat that needs one; unknown kinds fail closed); calls, depth,
//     intent and holder hold; until holds iff now < until; nbf iff now >=
//     nbf; every refusal is a *caveat.Error matching ErrRefused;
//   - Check admits each listed entry: the tool, op and audience named, the
//     path prefix itself, a URL on the host (or on a subdomain of a "*."
//     pattern), a cost equal to the limit;
//   - narrowing is reflexive: a scope accepts the caveat in block 0, and
//     again in block 1 for every kind but intent (block 0 only), depth
//     (the limit moves) and ops without delegate (no block may follow).
func checkCaveatSemantics(t *testing.T, c caveat.Caveat) {
	t.Helper()
	errEmpty := c.Evaluate(&caveat.Request{}, now, 0)
	if errNil := c.Evaluate(nil, now, 0); (errNil == nil) != (errEmpty == nil) {
		t.Fatalf("%s: Check(nil) = %v, Check(empty) = %v", c, errNil, errEmpty)
	}
	if errEmpty != nil {
		var ce *caveat.Error
		if !errors.Is(errEmpty, caveat.ErrRefused) || !errors.As(errEmpty, &ce) {
			t.Fatalf("%s: Check error %v is not a *caveat.Error matching ErrRefused", c, errEmpty)
		}
	}
	var wantHold bool
	switch c.Kind {
	case caveat.Calls, caveat.Depth, caveat.Intent, caveat.Holder, caveat.Approval:
		wantHold = true
	case caveat.Until:
		wantHold = now.Unix() < c.Time
	case caveat.NotBefore:
		wantHold = now.Unix() >= c.Time
	}
	if (errEmpty == nil) != wantHold {
		t.Fatalf("%s: Check(empty request) = %v, want hold=%v", c, errEmpty, wantHold)
	}

	for _, e := range c.List {
		var r caveat.Request
		switch c.Kind {
		case caveat.Tools:
			r.Tool = e
		case caveat.Ops:
			r.Op = e
		case caveat.Audience:
			r.Audience = e
		case caveat.Paths:
			r.Paths = []string{e}
		case caveat.Hosts:
			h, wild := strings.CutPrefix(e, "*.")
			if wild {
				h = "sub." + h
			}
			r.URLs = []string{"https://" + h + "/"}
		}
		if err := c.Evaluate(&r, now, 0); err != nil {
			t.Fatalf("%s does not admit its own entry %q: %v", c, e, err)
		}
	}
	if c.Kind == caveat.Cost || c.Kind == caveat.Total {
		a := c.Amount
		if err := c.Evaluate(&caveat.Request{Cost: &a}, now, 0); err != nil {
			t.Fatalf("%s does not admit a cost equal to its limit: %v", c, err)
		}
	}

	var s caveat.Scope
	if err := s.Add(0, c); err != nil {
		t.Fatalf("%s: refused in block 0: %v", c, err)
	}
	switch {
	case c.Kind == caveat.Intent || c.Kind == caveat.Depth:
		return
	case c.Kind == caveat.Ops && !containsString(c.List, "delegate"):
		if s.CanAppend(1) == nil {
			t.Fatalf("%s: a block may follow ops without delegate", c)
		}
		return
	}
	if err := s.Add(1, c); err != nil {
		t.Fatalf("%s: not at least as strict as itself: %v", c, err)
	}
}

func containsString(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}
