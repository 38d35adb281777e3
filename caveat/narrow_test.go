package caveat_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

// step is one caveat added in one block.
type step struct {
	block int
	text  string
}

func TestScopeNarrowing(t *testing.T) {
	for _, tc := range []struct {
		steps  []step
		refuse string // "" = every step accepted; else the last step is refused with this substring
	}{
		{[]step{{0, "tools=a,b"}, {1, "tools=b"}}, ""},
		{[]step{{0, "tools=a,b"}, {1, "tools=a,b"}}, ""},
		{[]step{{0, "tools=a,b"}, {1, "tools=b,c"}}, "tool c is not admitted by tools=a,b"},
		{[]step{{0, "tools=read_file"}, {1, "tools=workspace/read_file"}}, ""},
		{[]step{{0, "tools=workspace/read_file"}, {1, "tools=read_file"}}, "tool read_file is not admitted"},
		{[]step{{0, "tools=workspace/read_file"}, {1, "tools=other/read_file"}}, "not admitted"},
		{[]step{{0, "tools=a"}, {0, "tools=b"}}, "not admitted"}, // same block, still a meet
		{[]step{{0, "ops=invoke,delegate"}, {1, "ops=invoke"}}, ""},
		{[]step{{0, "ops=invoke,delegate"}, {1, "ops=write"}}, "write is not in ops=delegate,invoke"},
		{[]step{{0, "aud=a,b"}, {1, "aud=b"}}, ""},
		{[]step{{0, "aud=a"}, {1, "aud=a,b"}}, "b is not in aud=a"},
		{[]step{{0, "paths=src/"}, {1, "paths=src/discount/"}}, ""},
		{[]step{{0, "paths=src/"}, {1, "paths=src/"}}, ""},
		{[]step{{0, "paths=src/discount/"}, {1, "paths=src/"}}, "src/ is not under src/discount/"},
		{[]step{{0, "paths=src/discount/"}, {1, "paths=src/discount-other/"}}, "not under"},
		{[]step{{0, "paths=/"}, {1, "paths=/srv/app/"}}, ""},
		{[]step{{0, "paths=/"}, {1, "paths=srv/"}}, "not under"},
		{[]step{{0, "paths=a/,b/"}, {1, "paths=a/x/,b/"}}, ""},
		{[]step{{0, "paths=a/,b/"}, {1, "paths=a/x/,c/"}}, "c/ is not under any of paths=a/,b/"},
		{[]step{{0, "hosts=*.example.org"}, {1, "hosts=a.example.org"}}, ""},
		{[]step{{0, "hosts=*.example.org"}, {1, "hosts=*.a.example.org"}}, ""},
		{[]step{{0, "hosts=*.example.org"}, {1, "hosts=*.example.org"}}, ""},
		{[]step{{0, "hosts=a.example.org"}, {1, "hosts=*.example.org"}}, "*.example.org is not covered by hosts=a.example.org"},
		{[]step{{0, "hosts=*.example.org"}, {1, "hosts=example.org"}}, "not covered"},
		{[]step{{0, "hosts=*.a.example.org"}, {1, "hosts=*.example.org"}}, "not covered"},
		{[]step{{0, "hosts=*.example.org"}, {1, "hosts=badexample.org"}}, "not covered"},
		{[]step{{0, "calls=5"}, {1, "calls=5"}}, ""},
		{[]step{{0, "calls=5"}, {1, "calls=6"}}, "calls=6 is more than calls=5"},
		{[]step{{0, "cost=1USD"}, {1, "cost=0.5USD"}}, ""},
		{[]step{{0, "cost=1USD"}, {1, "cost=1.000001USD"}}, "more than"},
		{[]step{{0, "cost=1USD"}, {1, "cost=0.1EUR"}}, "0.1EUR is not in USD"},
		{[]step{{0, "total=5USD"}, {1, "total=1EUR"}}, "not in USD"},
		{[]step{{0, "total=5USD"}, {1, "total=5USD"}}, ""},
		{[]step{{0, "until=2026-11-30T03:20:00Z"}, {1, "until=2026-11-30T03:19:59Z"}}, ""},
		{[]step{{0, "until=2026-11-30T03:20:00Z"}, {1, "until=2026-11-30T03:20:01Z"}}, "2026-11-30T03:20:01Z is later than 2026-11-30T03:20:00Z"},
		{[]step{{0, "nbf=2026-11-30T03:20:00Z"}, {1, "nbf=2026-11-30T03:20:01Z"}}, ""},
		{[]step{{0, "nbf=2026-11-30T03:20:00Z"}, {1, "nbf=2026-11-30T03:19:59Z"}}, "earlier than"},
		{[]step{{0, "depth=2"}, {1, "depth=1"}}, ""},
		{[]step{{0, "depth=2"}, {2, "depth=0"}}, ""},
		{[]step{{0, "depth=2"}, {1, "depth=2"}}, "allows blocks up to 3, beyond the limit 2"},
		{[]step{{0, "depth=18446744073709551615"}, {1, "depth=18446744073709551615"}}, ""}, // saturates
		{[]step{{0, "depth=18446744073709551614"}, {1, "depth=18446744073709551615"}}, "beyond"},
		{[]step{{0, "intent=why"}}, ""},
		{[]step{{1, "intent=why"}}, "intent may only appear in block 0"},
		{[]step{{0, "intent=why"}, {1, "intent=why"}}, "block 0"},
		{[]step{{0, "intent=why"}, {0, "intent=why"}}, "only once"},
		{[]step{{0, "holder=" + jkt}, {1, "holder=" + strings.Repeat("B", 42) + "A"}}, ""},
		// CanAppend, enforced by Add when a new block starts.
		{[]step{{0, "ops=invoke"}, {0, "tools=a"}}, ""},
		{[]step{{0, "ops=invoke"}, {1, "tools=a"}}, "no delegate, so no block may follow block 0"},
		{[]step{{0, "ops=invoke,delegate"}, {1, "ops=invoke"}, {2, "tools=a"}}, "no delegate"},
		{[]step{{0, "depth=0"}, {1, "tools=a"}}, "depth=0 in block 0 allows no block after block 0"},
		{[]step{{0, "depth=1"}, {1, "tools=a"}, {2, "tools=a"}}, "allows no block after block 1"},
		{[]step{{0, "tools=a"}, {2, "tools=a"}, {1, "tools=a"}}, "block 1 added after block 2"},
		{[]step{{-1, "tools=a"}}, "negative"},
	} {
		var s caveat.Scope
		for i, st := range tc.steps {
			err := s.Add(st.block, mustParse(t, st.text))
			last := i == len(tc.steps)-1
			if !last || tc.refuse == "" {
				if err != nil {
					t.Errorf("%v: step %d refused: %v", tc.steps, i, err)
				}
				continue
			}
			ce := wantErr(t, st.text, err, caveat.ErrWiden)
			if !strings.Contains(ce.Reason, tc.refuse) {
				t.Errorf("%v: %v, want reason containing %q", tc.steps, err, tc.refuse)
			}
		}
	}
}

func TestScopeUnchangedOnError(t *testing.T) {
	var s caveat.Scope
	if err := s.Add(0, mustParse(t, "tools=a,b")); err != nil {
		t.Fatal(err)
	}
	before := s.Clone()
	if err := s.Add(1, mustParse(t, "tools=c")); err == nil {
		t.Fatal("widening accepted")
	}
	if !reflect.DeepEqual(s, before) {
		t.Error("a refused Add changed the scope")
	}
	if err := s.Add(1, mustParse(t, "tools=a")); err != nil {
		t.Fatal(err)
	}
	if got := before.Effective()[0].String(); got != "tools=a,b" {
		t.Errorf("the clone changed: %s", got)
	}
}

func TestScopeCanAppend(t *testing.T) {
	var s caveat.Scope
	for next := 0; next < 100; next++ {
		if err := s.CanAppend(next); err != nil {
			t.Fatalf("zero scope refuses block %d: %v", next, err)
		}
	}
	wantErr(t, "negative", s.CanAppend(-1), caveat.ErrWiden)
	_ = s.Add(0, mustParse(t, "ops=delegate,invoke"))
	_ = s.Add(0, mustParse(t, "depth=2"))
	for next, ok := range []bool{true, true, true, false, false} {
		if err := s.CanAppend(next); (err == nil) != ok {
			t.Errorf("CanAppend(%d) = %v", next, err)
		} else if err != nil {
			ce := wantErr(t, "CanAppend", err, caveat.ErrWiden)
			if ce.Kind != caveat.Depth {
				t.Errorf("CanAppend(%d) kind %v", next, ce.Kind)
			}
		}
	}
	if err := s.Add(1, mustParse(t, "ops=invoke")); err != nil {
		t.Fatal(err)
	}
	ce := wantErr(t, "CanAppend(2)", s.CanAppend(2), caveat.ErrWiden)
	if ce.Kind != caveat.Ops {
		t.Errorf("kind %v", ce.Kind)
	}
	if err := s.CanAppend(1); err != nil {
		t.Errorf("CanAppend(1) after ops in block 1: %v", err)
	}
}

func TestScopeEffective(t *testing.T) {
	var s caveat.Scope
	for _, st := range []step{
		{0, "intent=why"}, {0, "tools=a,b"}, {0, "depth=5"}, {0, "ops=delegate,invoke"},
		{0, "holder=" + jkt}, {1, "tools=b"}, {1, "depth=1"},
	} {
		if err := s.Add(st.block, mustParse(t, st.text)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(1, caveat.Caveat{Kind: 99, Raw: []byte{0}}); err != nil {
		t.Fatalf("unknown kind: %v", err)
	}
	var got []string
	for _, c := range s.Effective() {
		got = append(got, c.String())
	}
	want := "tools=b ops=delegate,invoke depth=2 intent=\"why\" holder=" + jkt
	if strings.Join(got, " ") != want {
		t.Errorf("Effective = %q\nwant %q", strings.Join(got, " "), want)
	}
	if h := s.Holder(); len(h) != 32 || h[31] != 31 {
		t.Errorf("Holder = %x", h)
	}
	var zero caveat.Scope
	if zero.Holder() != nil || zero.Effective() != nil {
		t.Error("zero scope is not empty")
	}
}
