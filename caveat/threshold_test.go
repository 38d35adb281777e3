package caveat_test

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/caveat"
)

// members are four approvers with distinct key ids and keys.
func members() []caveat.Member {
	var out []caveat.Member
	for i, id := range []string{"alice", "bob", "carol", "dave"} {
		m := caveat.Member{KeyID: id, Key: approver().Key}
		m.Key[31] ^= byte(i + 1)
		out = append(out, m)
	}
	return out
}

func newThreshold(t testing.TB, need int, nonce byte, ms ...caveat.Member) caveat.Caveat {
	t.Helper()
	c, err := caveat.NewThreshold(need, ms, [16]byte{nonce}, "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestThresholdValid: the rules of a threshold approval (spec/FORMAT.md
// §5): 2 to 8 approvers, distinct key ids and keys, 1 ≤ k ≤ n, one
// approver only in the single form.
func TestThresholdValid(t *testing.T) {
	m := members()
	twin := m[1]
	twin.Key = m[0].Key
	nine := make([]caveat.Member, 9)
	for i := range nine {
		nine[i] = caveat.Member{KeyID: "a" + string(rune('1'+i)), Key: approver().Key}
		nine[i].Key[0] ^= byte(i + 1)
	}
	for _, tc := range []struct {
		name string
		a    caveat.Approver
		ok   bool
	}{
		{"2 of 3", caveat.Approver{Members: m[:3], Need: 2}, true},
		{"3 of 3", caveat.Approver{Members: m[:3], Need: 3}, true},
		{"8 approvers", caveat.Approver{Members: nine[:8], Need: 8}, true},
		{"0 of 3", caveat.Approver{Members: m[:3], Need: 0}, false},
		{"4 of 3", caveat.Approver{Members: m[:3], Need: 4}, false},
		{"one member", caveat.Approver{Members: m[:1], Need: 1}, false},
		{"9 approvers", caveat.Approver{Members: nine, Need: 1}, false},
		{"unsorted", caveat.Approver{Members: []caveat.Member{m[1], m[0]}, Need: 1}, false},
		{"duplicate id", caveat.Approver{Members: []caveat.Member{m[0], m[0]}, Need: 1}, false},
		{"duplicate key", caveat.Approver{Members: []caveat.Member{m[0], twin}, Need: 1}, false},
		{"both forms", caveat.Approver{KeyID: "x", Key: m[0].Key, Members: m[:2], Need: 1}, false},
		{"need without members", caveat.Approver{KeyID: "x", Key: m[0].Key, Need: 1}, false},
	} {
		_, err := caveat.NewApproval(tc.a)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	if c, err := caveat.NewThreshold(1, m[:1], [16]byte{}, ""); err != nil || c.Approver.Members != nil {
		t.Errorf("NewThreshold of one approver: %v, %+v; want the single form", err, c.Approver)
	}
}

// TestThresholdText: the text form round-trips and refuses what it must.
func TestThresholdText(t *testing.T) {
	m := members()
	for _, loc := range []string{"", "https://approve.example.com/", "ask one of us: room 4"} {
		c, err := caveat.NewThreshold(2, m[:3], [16]byte{9}, loc)
		if err != nil {
			t.Fatal(err)
		}
		s := c.String()
		if !strings.HasPrefix(s, "approval=2 of alice:") {
			t.Errorf("text %q", s)
		}
		if got := mustParse(t, s); !got.Equal(c) {
			t.Errorf("Parse(%q) = %+v, want %+v", s, got.Approver, c.Approver)
		}
	}
	single := caveat.Approver{KeyID: "lead", Key: m[0].Key, Location: "one of us"}
	sc, _ := caveat.NewApproval(single)
	if got := mustParse(t, sc.String()); !got.Equal(sc) {
		t.Errorf("a single approver whose location holds \" of \" parses as %+v", got.Approver)
	}
	good := must(caveat.NewThreshold(2, m[:3], [16]byte{9}, "")).String()
	for _, bad := range []string{
		strings.Replace(good, "2 of", "0 of", 1),
		strings.Replace(good, "2 of", "4 of", 1),
		strings.Replace(good, "2 of", "02 of", 1),
		strings.Replace(good, " bob:", "  bob:", 1),
		"approval=1 of " + good[len("approval=2 of "):strings.Index(good, " bob:")] + ":" + good[len(good)-22:], // one approver
		swapFirstTwo(good),
	} {
		if _, err := caveat.Parse(bad, now); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

func swapFirstTwo(s string) string {
	body := strings.TrimPrefix(s, "approval=2 of ")
	f := strings.SplitN(body, " ", 3)
	return "approval=2 of " + f[1] + " " + f[0] + " " + f[2]
}

// TestRestateNarrowing is the narrowing of an approval restated with its
// nonce (spec/CAVEATS.md "Narrowing"), case by case.
func TestRestateNarrowing(t *testing.T) {
	m := members()
	base := newThreshold(t, 2, 1, m[:3]...)
	other := m[1]
	other.Key[0] ^= 0xff
	for _, tc := range []struct {
		name string
		c    caveat.Caveat
		ok   bool
	}{
		{"same", base, true},
		{"raised", newThreshold(t, 3, 1, m[:3]...), true},
		{"removed", newThreshold(t, 2, 1, m[0], m[2]), true},
		{"lowered", newThreshold(t, 1, 1, m[:3]...), false},
		{"removed to one", newThreshold(t, 1, 1, m[0]), false},
		{"added", newThreshold(t, 2, 1, m...), false},
		{"other key", newThreshold(t, 2, 1, m[0], other, m[2]), false},
		{"new nonce, lower", newThreshold(t, 1, 2, m[:3]...), true},
	} {
		var s caveat.Scope
		if err := s.Add(1, base); err != nil {
			t.Fatal(err)
		}
		err := s.Add(2, tc.c)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, caveat.ErrWiden) {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestRestateNarrowingProperty: a restatement Add accepts never lets a
// set of approvers through that the approval it restates refused; and Add
// accepts exactly the subsets of approvers with a threshold no lower.
func TestRestateNarrowingProperty(t *testing.T) {
	all := members()
	subset := func(t *rapid.T, label string) []caveat.Member {
		mask := rapid.IntRange(1, 15).Draw(t, label)
		var out []caveat.Member
		for i, m := range all {
			if mask&(1<<i) != 0 {
				out = append(out, m)
			}
		}
		return out
	}
	mk := func(t *rapid.T, ms []caveat.Member, label string) caveat.Caveat {
		need := rapid.IntRange(1, len(ms)).Draw(t, label)
		c, err := caveat.NewThreshold(need, ms, [16]byte{7}, "")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	rapid.Check(t, func(t *rapid.T) {
		ps, as := subset(t, "p"), subset(t, "a")
		p, a := mk(t, ps, "pk"), mk(t, as, "ak")
		var s caveat.Scope
		if err := s.Add(0, p); err != nil {
			t.Fatal(err)
		}
		err := s.Add(1, a)
		sub := true
		for _, m := range as {
			if !contains(ps, m) {
				sub = false
			}
		}
		if want := sub && a.Approver.Threshold() >= p.Approver.Threshold(); (err == nil) != want {
			t.Fatalf("Add: %v, want ok %v", err, want)
		}
		if err != nil {
			return
		}
		for mask := range 16 { // every set of approvers that signed
			if satisfied(a.Approver, mask) && !satisfied(p.Approver, mask) {
				t.Fatalf("signers %b satisfy the restatement %v but not %v", mask, a, p)
			}
		}
	})
}

func contains(ms []caveat.Member, m caveat.Member) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// satisfied reports whether the approvers of members() in mask meet a.
func satisfied(a *caveat.Approver, mask int) bool {
	n := 0
	for i, m := range members() {
		if mask&(1<<i) != 0 && contains(a.Set(), m) {
			n++
		}
	}
	return n >= a.Threshold()
}
