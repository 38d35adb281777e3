package token_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"regexp"
	"testing"
	"testing/cryptotest"

	"github.com/tickettool/tickettool/token"
)

// bindingOf is the design's formula written out independently of the
// package: SHA-256(L_BIND ‖ SHA-256(for k in 0..j: uint64be(len B_k) ‖ B_k)).
func bindingOf(tk *token.Ticket, j int) [32]byte {
	h := sha256.New()
	for k := 0; k <= j; k++ {
		b := tk.UnverifiedBlocks()[k].Bytes()
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
		h.Write(b)
	}
	return sha256.Sum256(append([]byte("tickettool/v1 approval\x00"), h.Sum(nil)...))
}

// TestBindingGolden: a fixed ticket (fixed keys, the ChaCha8 stream of
// SetGlobalRandom seed 1, an approval caveat in block 1) has a fixed
// binding. If it fails, the binding changed: every discharge issued so far
// would stop matching. Change the code, not the bytes.
func TestBindingGolden(t *testing.T) {
	for _, c := range []struct {
		mode string
		want string
		code string
	}{
		{"hmac", goldenBindHMAC, goldenCodeHMAC},
		{"ed25519", goldenBindEd25519, goldenCodeEd25519},
	} {
		cryptotest.SetGlobalRandom(t, 1)
		tk := chainOf(t, bothKeys(t)[c.mode], []string{"tools=read_file,post", "until=2026-11-30T13:00:00Z"},
			[]string{"tools=post"}, []string{"paths=src/"})
		tk = withApproval(t, tk, 1, approvalValue(t, edKey(t, "lead"), 7))
		got, err := tk.Binding(1)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(got[:]) != c.want {
			t.Errorf("%s binding changed:\n got %x\nwant %s", c.mode, got, c.want)
		}
		if got != bindingOf(tk, 1) {
			t.Errorf("%s: binding differs from the design's formula", c.mode)
		}
		if code := token.BindingCode(got); code != c.code {
			t.Errorf("%s: code %s, want %s", c.mode, code, c.code)
		}
	}
}

const (
	goldenBindHMAC    = "5215e43f299b1a876d3aa48723449b289083d12e8cf254eaa191d5900a61359e"
	goldenCodeHMAC    = "KIK6I-PZJTM"
	goldenBindEd25519 = "4217207c9276d684c3f199665c823b1e518afbd0efe467ec944d037054276549"
	goldenCodeEd25519 = "IILSA-7ESO3"
)

// TestBindingSibling: a sibling ticket (same caveats, another random
// ticket id) with the same approval caveat, byte for byte, binds to
// something else, and so does a ticket the caveat is copied into.
func TestBindingSibling(t *testing.T) {
	v := approvalValue(t, edKey(t, "lead"), 7)
	for mode, k := range bothKeys(t) {
		a := withApproval(t, chainOf(t, k, scenario...), 1, v)
		b := withApproval(t, chainOf(t, k, scenario...), 1, v)
		ba, err1 := a.Binding(1)
		bb, err2 := b.Binding(1)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if ba == bb {
			t.Errorf("%s: sibling tickets share a binding", mode)
		}
		// The same caveat in block 2 of the same ticket: another prefix.
		c := withApproval(t, a, 2, v)
		if bc, _ := c.Binding(2); bc == ba {
			t.Errorf("%s: a caveat copied to a later block keeps the binding", mode)
		}
	}
}

// TestBindingAttenuated: appending blocks after the approval's block, or
// sealing, keeps its binding; a ticket cut before it has none.
func TestBindingAttenuated(t *testing.T) {
	v := approvalValue(t, edKey(t, "lead"), 7)
	for mode, k := range bothKeys(t) {
		tk := withApproval(t, chainOf(t, k, scenario[:2]...), 1, v)
		want, err := tk.Binding(1)
		if err != nil {
			t.Fatal(err)
		}
		more, err := tk.Attenuate(cavs(t, "paths=src/discount/x/", "ops=invoke"), nil)
		if err != nil {
			t.Fatal(err)
		}
		sealed, err := more.Seal()
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []*token.Ticket{more, sealed} {
			if got, err := x.Binding(1); err != nil || got != want {
				t.Errorf("%s: attenuated binding %x, %v; want %x", mode, got, err, want)
			}
		}
	}
}

// TestBindingFromText: in both modes the binding needs only the ticket's
// text (no key): a parsed copy binds like the original.
func TestBindingFromText(t *testing.T) {
	v := approvalValue(t, edKey(t, "lead"), 7)
	for mode, k := range bothKeys(t) {
		tk := withApproval(t, chainOf(t, k, scenario...), 0, v)
		want, err := tk.Binding(0)
		if err != nil {
			t.Fatal(err)
		}
		back, err := token.Parse(tk.String())
		if err != nil {
			t.Fatal(err)
		}
		if got, err := back.Binding(0); err != nil || got != want {
			t.Errorf("%s: binding from text %x, %v; want %x", mode, got, err, want)
		}
	}
}

// TestBindingErrors: no block, or a block without an approval caveat,
// has no binding.
func TestBindingErrors(t *testing.T) {
	tk := withApproval(t, chainOf(t, hmacKey(t, "root-h"), scenario...), 1, approvalValue(t, edKey(t, "lead"), 7))
	for _, j := range []int{-1, 0, 2, 3, 1 << 40} {
		if _, err := tk.Binding(j); !errors.Is(err, token.ErrApproval) {
			t.Errorf("Binding(%d): %v, want ErrApproval", j, err)
		}
	}
	if _, err := new(token.Ticket).Binding(0); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("zero ticket: %v", err)
	}
}

func TestBindingCode(t *testing.T) {
	var b [32]byte
	if got := token.BindingCode(b); got != "AAAAA-AAAAA" {
		t.Errorf("zero: %s", got)
	}
	for i := range b {
		b[i] = byte(i)
	}
	// base32(00 01 02 03 04 05 06 ...) = AAAQEAYEAUDAO...
	if got := token.BindingCode(b); got != "AAAQE-AYEAU" {
		t.Errorf("0..31: %s", got)
	}
	b = sha256.Sum256([]byte("x"))
	if !regexp.MustCompile(`^[A-Z2-7]{5}-[A-Z2-7]{5}$`).MatchString(token.BindingCode(b)) {
		t.Errorf("code %s is not XXXXX-XXXXX in base32", token.BindingCode(b))
	}
}
