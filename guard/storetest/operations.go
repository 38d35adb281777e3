package storetest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

func opStore(t *testing.T, s guard.Store) guard.OperationStore {
	t.Helper()
	o, ok := s.(guard.OperationStore)
	if !ok {
		t.Fatalf("%T does not implement guard.OperationStore", s)
	}
	return o
}

// opStart returns a start of key for a request named by binding, held for
// a minute, its family expiring an hour after now.
func opStart(family token.BlockID, key, binding string, now time.Time) guard.OperationStart {
	return guard.OperationStart{Family: family, Key: key, Binding: sha256.Sum256([]byte(binding)),
		Request: guard.NewRequestID(), Tool: "fs.write", Now: now, HoldUntil: now.Add(time.Minute),
		Expires: now.Add(time.Hour)}
}

func wantClaim(t *testing.T, s guard.OperationStore, st guard.OperationStart, want guard.Claim) guard.Operation {
	t.Helper()
	c, o, err := s.StartOperation(ctx, st)
	if err != nil {
		t.Fatalf("start %q: %v", st.Key, err)
	}
	if c != want {
		t.Fatalf("start %q: claim %v, want %v", st.Key, c, want)
	}
	return o
}

func finish(t *testing.T, s guard.OperationStore, st guard.OperationStart, result []byte, now time.Time) bool {
	t.Helper()
	kept, err := s.FinishOperation(ctx, st.Family, st.Key, st.Request, result, now)
	if err != nil {
		t.Fatalf("finish %q: %v", st.Key, err)
	}
	return kept
}

// An operation key claimed by one request: the same request again is in
// flight until it finishes or its hold ends (then its outcome is unknown),
// another request under the key is refused, and once finished every
// repeat gets the first result back byte for byte, on any handle, counted;
// the key is the family's alone; a dropped (released) key is free again
// and listed as released until it is taken.
func testOperations(t *testing.T, f Factory) {
	open := f(t)
	s, s2 := opStore(t, open(t)), opStore(t, open(t))
	fam, other, now := Chain("ops", 1)[0], Chain("other", 1)[0], Base()
	first := opStart(fam, "k1", "write a", now)
	wantClaim(t, s, first, guard.ClaimNew)
	again := first
	again.Request = guard.NewRequestID()
	wantClaim(t, s2, again, guard.ClaimInFlight)
	again.Now = now.Add(time.Minute)
	wantClaim(t, s2, again, guard.ClaimInFlight)
	changed := opStart(fam, "k1", "write b", now)
	wantClaim(t, s2, changed, guard.ClaimMismatch)
	wantClaim(t, s, opStart(other, "k1", "write b", now), guard.ClaimNew)
	if _, err := s.FinishOperation(ctx, fam, "k1", again.Request, []byte("x"), now); err != guard.ErrNoOperation {
		t.Fatalf("finish by another request: %v, want ErrNoOperation", err)
	}
	result := []byte("{\"content\":[{\"type\":\"text\",\"text\":\"ok \\u00e9\"}]}\x00\xff")
	if !finish(t, s, first, result, now.Add(time.Second)) {
		t.Fatal("a small result was not kept")
	}
	if _, err := s.FinishOperation(ctx, fam, "k1", first.Request, []byte("y"), now); err != guard.ErrNoOperation {
		t.Fatalf("finish twice: %v, want ErrNoOperation", err)
	}
	for i, h := range []guard.OperationStore{s, s2} {
		again.Now = now.Add(time.Duration(i+2) * time.Minute)
		o := wantClaim(t, h, again, guard.ClaimReplay)
		if !bytes.Equal(o.Result, result) || o.Request != first.Request || !o.Kept {
			t.Fatalf("replay %d: %q of request %v, want %q of %v", i, o.Result, o.Request, result, first.Request)
		}
	}
	wantClaim(t, s2, changed, guard.ClaimMismatch)

	// Dropped: the key is free again.
	d := opStart(fam, "k2", "read", now)
	wantClaim(t, s, d, guard.ClaimNew)
	if err := s2.DropOperation(ctx, fam, "k2", guard.NewRequestID(), guard.OperationReleased); err != guard.ErrNoOperation {
		t.Fatalf("drop by another request: %v", err)
	}
	if err := s2.DropOperation(ctx, fam, "k2", d.Request, guard.OperationReleased); err != nil {
		t.Fatal(err)
	}
	wantClaim(t, s, opStart(fam, "k2", "read other", now), guard.ClaimNew)
	w0 := opStart(fam, "k7", "waited", now)
	wantClaim(t, s, w0, guard.ClaimNew)
	if err := s.DropOperation(ctx, fam, "k7", w0.Request, guard.OperationWaiting); err != nil {
		t.Fatal(err)
	}
	wantClaim(t, s2, opStart(fam, "k7", "waited", now), guard.ClaimNew)

	// Never finished: in flight through its hold, then unknown.
	u := opStart(fam, "k3", "run", now)
	wantClaim(t, s, u, guard.ClaimNew)
	u.Now = u.HoldUntil
	wantClaim(t, s2, u, guard.ClaimInFlight)
	u.Now = u.HoldUntil.Add(time.Millisecond)
	wantClaim(t, s2, u, guard.ClaimUnknown)

	// An outcome without a result is kept as an empty one.
	e := opStart(fam, "k4", "verify", now)
	wantClaim(t, s, e, guard.ClaimNew)
	finish(t, s, e, nil, now)
	if o := wantClaim(t, s2, e, guard.ClaimReplay); len(o.Result) != 0 || !o.Kept {
		t.Fatalf("replay of an outcome: %+v", o)
	}

	// A released operation stays listed as released.
	rel := opStart(fam, "k5", "released", now.Add(time.Second))
	wantClaim(t, s, rel, guard.ClaimNew)
	if err := s.DropOperation(ctx, fam, "k5", rel.Request, guard.OperationReleased); err != nil {
		t.Fatal(err)
	}
	if err := s.DropOperation(ctx, fam, "k5", rel.Request, guard.OperationReleased); err != guard.ErrNoOperation {
		t.Fatalf("drop twice: %v", err)
	}

	// Waiting for an approval: listed so, and free for the approved retry.
	w := opStart(fam, "k6", "approve me", now.Add(2*time.Second))
	wantClaim(t, s, w, guard.ClaimNew)
	if err := s.DropOperation(ctx, fam, "k6", w.Request, guard.OperationRunning); !errors.Is(err, guard.ErrInvalid) {
		t.Fatalf("drop as running: %v", err)
	}
	if err := s.DropOperation(ctx, fam, "k6", w.Request, guard.OperationWaiting); err != nil {
		t.Fatal(err)
	}

	ops, err := s2.Operations(ctx, fam, now.Add(5*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range ops {
		keys = append(keys, o.Key)
		if o.Result != nil {
			t.Fatalf("listing holds the result of %q", o.Key)
		}
	}
	if got := join(keys); got != "k1 k2 k3 k4 k7 k5 k6" {
		t.Fatalf("operations %s, want k1 k2 k3 k4 k7 k5 k6", got)
	}
	if ops[0].Replays != 2 || ops[0].State != guard.OperationFinished || !ops[0].Replay.Equal(now.Add(3*time.Minute)) ||
		ops[0].Tool != "fs.write" || ops[2].State != guard.OperationRunning || !ops[2].HoldUntil.Equal(now.Add(time.Minute)) ||
		ops[5].State != guard.OperationReleased || ops[6].State != guard.OperationWaiting {
		t.Fatalf("operations %+v", ops)
	}
}

func join(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

// Kept results are bounded: one over MaxOperationResult, or one that would
// take the family's kept bytes over MaxFamilyResults, is not kept, and a
// repeat of its key says so; keys expire with their family, and a
// malformed key is refused.
func testOperationLimits(t *testing.T, f Factory) {
	s := opStore(t, f(t)(t))
	fam, now := Chain("limits", 1)[0], Base()
	big := opStart(fam, "big", "big", now)
	wantClaim(t, s, big, guard.ClaimNew)
	if finish(t, s, big, make([]byte, guard.MaxOperationResult+1), now) {
		t.Fatal("a result over MaxOperationResult was kept")
	}
	wantClaim(t, s, big, guard.ClaimNotKept)
	full := make([]byte, guard.MaxOperationResult)
	for i := range guard.MaxFamilyResults / guard.MaxOperationResult {
		st := opStart(fam, "fill"+string(rune('a'+i)), "fill", now)
		wantClaim(t, s, st, guard.ClaimNew)
		if !finish(t, s, st, full, now) {
			t.Fatalf("result %d within MaxFamilyResults was not kept", i)
		}
	}
	last := opStart(fam, "last", "last", now)
	wantClaim(t, s, last, guard.ClaimNew)
	if finish(t, s, last, []byte("1"), now) {
		t.Fatal("a result over MaxFamilyResults was kept")
	}
	wantClaim(t, s, last, guard.ClaimNotKept)

	x := Chain("expiry", 1)[0]
	st := opStart(x, "k", "a", now)
	wantClaim(t, s, st, guard.ClaimNew)
	finish(t, s, st, []byte("r"), now)
	later := opStart(x, "k", "b", st.Expires.Add(time.Millisecond))
	later.Expires = later.Now.Add(time.Hour)
	wantClaim(t, s, later, guard.ClaimNew)

	for _, key := range []string{"", "a b", "é", string(make([]byte, guard.MaxOperationKey+1))} {
		bad := opStart(x, key, "a", now)
		if _, _, err := s.StartOperation(ctx, bad); !errors.Is(err, guard.ErrInvalid) {
			t.Fatalf("key %q: %v, want ErrInvalid", key, err)
		}
	}
}

// A family holds at most MaxFamilyOperations live keys: a new key beyond
// them is refused (ClaimFull), an existing key still answers, and another
// family is not concerned.
func testOperationFull(t *testing.T, f Factory) {
	s := opStore(t, f(t)(t))
	fam, now := Chain("full", 1)[0], Base()
	var first guard.OperationStart
	for i := range guard.MaxFamilyOperations {
		st := opStart(fam, fmt.Sprintf("k%d", i), "a", now)
		if i == 0 {
			first = st
		}
		wantClaim(t, s, st, guard.ClaimNew)
	}
	wantClaim(t, s, opStart(fam, "one-more", "a", now), guard.ClaimFull)
	wantClaim(t, s, first, guard.ClaimInFlight)
	wantClaim(t, s, opStart(Chain("full other", 1)[0], "one-more", "a", now), guard.ClaimNew)
}
