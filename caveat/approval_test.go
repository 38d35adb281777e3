package caveat_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
)

const nonce = "AAECAwQFBgcICQoLDA0ODw" // bytes 0..15

// approver returns a valid approver: key bytes 0..31, nonce bytes 0..15.
func approver() caveat.Approver {
	a := caveat.Approver{KeyID: "lead"}
	for i := range a.Key {
		a.Key[i] = byte(i)
	}
	for i := range a.Nonce {
		a.Nonce[i] = byte(i)
	}
	return a
}

func TestApprovalText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want caveat.Approver
	}{
		{"approval=lead:" + jkt + ":" + nonce, approver()},
		{"approval=a:b:" + jkt + ":" + nonce + ":https://x.example/ok?c=d:e",
			caveat.Approver{KeyID: "a:b", Key: approver().Key, Nonce: approver().Nonce, Location: "https://x.example/ok?c=d:e"}},
		// A location that itself looks like KEY:NONCE stays the location.
		{"approval=a:" + jkt + ":" + nonce + ":" + jkt + ":" + nonce,
			caveat.Approver{KeyID: "a", Key: approver().Key, Nonce: approver().Nonce, Location: jkt + ":" + nonce}},
		{"approval=" + strings.Repeat("k", 64) + ":" + jkt + ":" + nonce + ":ask the pricing lead, room 4",
			caveat.Approver{KeyID: strings.Repeat("k", 64), Key: approver().Key, Nonce: approver().Nonce, Location: "ask the pricing lead, room 4"}},
	} {
		c := mustParse(t, tc.in)
		if c.Kind != caveat.Approval || !c.Equal(caveat.Caveat{Kind: caveat.Approval, Approver: &tc.want}) {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, c.Approver, tc.want)
		}
		if c.String() != tc.in {
			t.Errorf("Parse(%q).String() = %q", tc.in, c.String())
		}
		if d, err := caveat.NewApproval(tc.want); err != nil || !d.Equal(c) {
			t.Errorf("NewApproval(%+v) = %+v, %v", tc.want, d, err)
		}
	}
	// A key id that is 62 bytes of ':'-joined base64url cannot swallow a
	// KEY:NONCE run (it would need 68 bytes), so the split stays right.
	id := strings.Repeat("A", 30) + ":" + strings.Repeat("B", 31)
	c := mustParse(t, "approval="+id+":"+jkt+":"+nonce)
	if c.Approver.KeyID != id || c.Approver.Location != "" {
		t.Errorf("key id %q parsed as %+v", id, c.Approver)
	}
}

func TestApprovalRefused(t *testing.T) {
	key0 := strings.Repeat("A", 43) // the all-zero key: small order
	for _, in := range []string{
		"approval=" + jkt + ":" + nonce,     // no key id
		"approval=:" + jkt + ":" + nonce,    // empty key id
		"approval=a b:" + jkt + ":" + nonce, // space in key id
		"approval=a+b:" + jkt + ":" + nonce, // '+' in key id
		"approval=é:" + jkt + ":" + nonce,   // non-ASCII key id
		"approval=" + strings.Repeat("k", 65) + ":" + jkt + ":" + nonce,
		"approval=k:" + jkt + ":" + nonce + ":",       // empty location after ':'
		"approval=k:" + jkt + ":" + nonce + ":a\tb",   // control character
		"approval=k:" + jkt + ":" + nonce + ":\u202e", // format character
		"approval=k:" + jkt + ":" + nonce + ":" + strings.Repeat("x", 257),
		"approval=k:" + jkt[:42] + "9:" + nonce,      // non-canonical key (unused bits)
		"approval=k:" + jkt + ":" + nonce[:21] + "x", // non-canonical nonce
		"approval=k:" + jkt + "A:" + nonce,           // 44-char key
		"approval=k:" + jkt + ":" + nonce + "A",      // 23-char nonce
		"approval=k:" + jkt,                          // no nonce
		"approval=k:" + key0 + ":" + nonce,           // small-order key
		"args=abc", "args=" + jkt + "A", "args=" + jkt[:42] + "9", "args=" + strings.ReplaceAll(jkt, "A", "+"),
	} {
		_, err := caveat.Parse(in, now)
		wantErr(t, "Parse("+in+")", err, caveat.ErrSyntax)
	}
}

// TestApprovalLocationBound: 256 bytes is the limit.
func TestApprovalLocationBound(t *testing.T) {
	a := approver()
	a.Location = strings.Repeat("é", 128)
	if _, err := caveat.NewApproval(a); err != nil {
		t.Errorf("256-byte location: %v", err)
	}
	a.Location += "x"
	_, err := caveat.NewApproval(a)
	wantErr(t, "257-byte location", err, caveat.ErrSyntax)
}

// smallOrderY are the y-coordinates of the Ed25519 points of small order
// (spec/FORMAT.md §4.2); with the sign bit clear or set they are the 14
// encodings an approver key must never be.
var smallOrderY = []string{
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0100000000000000000000000000000000000000000000000000000000000000",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
}

func TestApprovalRefusesSmallOrderKeys(t *testing.T) {
	n := 0
	for _, h := range smallOrderY {
		y, _ := hex.DecodeString(h)
		for _, sign := range []byte{0, 0x80} {
			a := approver()
			copy(a.Key[:], y)
			a.Key[31] |= sign
			_, err := caveat.NewApproval(a)
			wantErr(t, "small-order key "+hex.EncodeToString(a.Key[:]), err, caveat.ErrSyntax)
			c := caveat.Caveat{Kind: caveat.Approval, Approver: &a}
			wantErr(t, "Valid", c.Valid(), caveat.ErrSyntax)
			n++
		}
	}
	if n != 14 {
		t.Fatalf("%d encodings, want 14", n)
	}
}

func TestArgs(t *testing.T) {
	d1, err := caveat.ArgsDigest([]byte(`{"b": 2, "a": [1.0, "x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	d2, err := caveat.ArgsDigest([]byte(`{"a":[1,"\u0078"],"b":2}`))
	if err != nil || !bytes.Equal(d1, d2) {
		t.Fatalf("equal arguments, digests %x and %x (%v)", d1, d2, err)
	}
	// SHA-256 of the canonical text {"a":[1,"x"],"b":2}.
	if got := hex.EncodeToString(d1); got != sha256Hex(`{"a":[1,"x"],"b":2}`) {
		t.Errorf("digest %s", got)
	}
	for _, in := range []string{``, `{"a":1,"a":1}`, `"\ud800"`, "\"\xff\"", `1e999`, strings.Repeat("[", 34) + strings.Repeat("]", 34), `12345678901234567890`, `{`, `NaN`} {
		_, err := caveat.ArgsDigest([]byte(in))
		wantErr(t, "ArgsDigest("+in+")", err, caveat.ErrSyntax)
	}
	c, err := caveat.NewArgs(d1)
	if err != nil {
		t.Fatal(err)
	}
	d1[0] ^= 1 // NewArgs copies
	if bytes.Equal(c.Bytes, d1) {
		t.Error("NewArgs kept the caller's slice")
	}
	d1[0] ^= 1
	if got := mustParse(t, c.String()); !got.Equal(c) {
		t.Errorf("Parse(%q) = %+v", c.String(), got)
	}
	for _, n := range []int{0, 31, 33} {
		_, err := caveat.NewArgs(make([]byte, n))
		wantErr(t, "NewArgs of "+itoa(n)+" bytes", err, caveat.ErrSyntax)
	}
	if err := c.Evaluate(&caveat.Request{Args: d1}, now, 0); err != nil {
		t.Errorf("the same digest refused: %v", err)
	}
	e := wantErr(t, "other digest", c.Evaluate(&caveat.Request{Args: d1[:31]}, now, 0), caveat.ErrRefused)
	if e.Kind != caveat.Args || e.Reason != "arguments differ from the approved ones" {
		t.Errorf("refusal %+v", e)
	}
	e = wantErr(t, "no digest", c.Evaluate(&caveat.Request{}, now, 0), caveat.ErrRefused)
	if e.Reason != "the request carries no arguments digest" {
		t.Errorf("refusal %+v", e)
	}
	wantErr(t, "nil request", c.Evaluate(nil, now, 0), caveat.ErrRefused)
}

// TestApprovalHolds: an approval caveat holds in the caveat check (the
// verifier checks discharges in its own step), whatever the request.
func TestApprovalHolds(t *testing.T) {
	c, err := caveat.NewApproval(approver())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*caveat.Request{nil, {}, {Tool: "x", Args: make([]byte, 32), Discharges: []string{"dis1_x"}}} {
		if err := c.Evaluate(r, now, 0); err != nil {
			t.Errorf("Evaluate(%+v) = %v", r, err)
		}
	}
}

// TestConjunctionKinds: approvals and args are always accepted by Scope,
// after anything, in any block, and Effective lists neither.
func TestConjunctionKinds(t *testing.T) {
	a1 := mustParse(t, "approval=lead:"+jkt+":"+nonce)
	a2 := mustParse(t, "approval=lead:"+jkt+":"+strings.Repeat("A", 22)+":elsewhere")
	g1, _ := caveat.NewArgs(make([]byte, 32))
	g2, _ := caveat.NewArgs(bytes.Repeat([]byte{1}, 32))
	var s caveat.Scope
	for i, c := range []caveat.Caveat{a1, g1, a2, g2, a1, g1, mustParse(t, "calls=1")} {
		if err := s.Add(i, c); err != nil {
			t.Fatalf("Add(%d, %s): %v", i, c, err)
		}
	}
	eff := s.Effective()
	if len(eff) != 1 || eff[0].Kind != caveat.Calls {
		t.Errorf("Effective() = %v, want only calls", eff)
	}
}

func sha256Hex(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}
