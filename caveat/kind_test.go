package caveat_test

import (
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

func TestKindNames(t *testing.T) {
	want := map[caveat.Kind]string{
		caveat.Tools: "tools", caveat.Ops: "ops", caveat.Paths: "paths", caveat.Hosts: "hosts",
		caveat.Calls: "calls", caveat.Until: "until", caveat.NotBefore: "nbf", caveat.Audience: "aud",
		caveat.Cost: "cost", caveat.Total: "total", caveat.Depth: "depth", caveat.Intent: "intent",
		caveat.Holder: "holder", caveat.Approval: "approval", caveat.Args: "args",
	}
	for k := caveat.Kind(0); k <= 20; k++ {
		name, known := want[k]
		if k.Known() != known {
			t.Errorf("Kind(%d).Known() = %v", k, k.Known())
		}
		if !known {
			continue
		}
		if k.String() != name {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), name)
		}
		if got, err := caveat.ParseKind(name); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", name, got, err)
		}
	}
	if got := caveat.Kind(42).String(); got != "kind(42)" {
		t.Errorf("Kind(42).String() = %q", got)
	}
	for _, s := range []string{"", "kind(42)", "TOOLS", "not_before", "audience", "tool"} {
		_, err := caveat.ParseKind(s)
		wantErr(t, "ParseKind("+s+")", err, caveat.ErrSyntax)
	}
}

func TestErrorText(t *testing.T) {
	e := &caveat.Error{Kind: caveat.Paths, Reason: "src/refund/x is not under src/discount/", Err: caveat.ErrRefused}
	if got, want := e.Error(), "caveat: paths: src/refund/x is not under src/discount/"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &caveat.Error{Kind: 42, Reason: "unknown caveat kind 42", Err: caveat.ErrRefused}
	if got, want := e.Error(), "caveat: unknown caveat kind 42"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if e.Unwrap() != caveat.ErrRefused {
		t.Error("Unwrap does not return the sentinel")
	}
}
