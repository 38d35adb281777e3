package caveat_test

import (
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

// TestValid: Valid accepts what the constructors and Parse return and
// refuses, with ErrSyntax, every hand-made caveat that breaks a rule of
// its kind. For a kind this package does not know it checks the shape
// only (the bytes of Raw are the wire layer's to check).
func TestValid(t *testing.T) {
	for _, text := range []string{"tools=read_file", "paths=src/", "hosts=*.example.org", "calls=1", "depth=0",
		"until=2026-11-30T03:20:00Z", "cost=0.50USD", "intent=x", "holder=" + jkt, "args=" + jkt,
		"approval=k:" + jkt + ":" + nonce, "approval=k:" + jkt + ":" + nonce + ":at the desk"} {
		if err := mustParse(t, text).Valid(); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
	if err := (caveat.Caveat{Kind: 42, Raw: []byte{0x18}}).Valid(); err != nil {
		t.Errorf("unknown kind with Raw: %v", err)
	}
	for name, c := range map[string]caveat.Caveat{
		"unsorted":            {Kind: caveat.Tools, List: []string{"b", "a"}},
		"empty list":          {Kind: caveat.Tools},
		"stray field":         {Kind: caveat.Tools, List: []string{"a"}, N: 1},
		"stray raw":           {Kind: caveat.Calls, N: 1, Raw: []byte{1}},
		"path no slash":       {Kind: caveat.Paths, List: []string{"src"}},
		"upper host":          {Kind: caveat.Hosts, List: []string{"A.com"}},
		"calls 0":             {Kind: caveat.Calls},
		"time past":           {Kind: caveat.Until, Time: 253402300800},
		"bad currency":        {Kind: caveat.Cost, Amount: caveat.Amount{Micros: 1, Currency: "US"}},
		"short holder":        {Kind: caveat.Holder, Bytes: make([]byte, 31)},
		"unknown, text":       {Kind: 42, Text: "x"},
		"short args":          {Kind: caveat.Args, Bytes: make([]byte, 31)},
		"args, text":          {Kind: caveat.Args, Bytes: make([]byte, 32), Text: "x"},
		"approval zero":       {Kind: caveat.Approval},
		"approval, no key id": {Kind: caveat.Approval, Approver: &caveat.Approver{Key: [32]byte{9}}},
		"approver on holder":  {Kind: caveat.Holder, Bytes: make([]byte, 32), Approver: &caveat.Approver{KeyID: "k", Key: [32]byte{9}}},
		"approval, bytes":     {Kind: caveat.Approval, Bytes: []byte{1}, Approver: &caveat.Approver{KeyID: "k", Key: [32]byte{9}}},
	} {
		wantErr(t, name, c.Valid(), caveat.ErrSyntax)
	}
}
