package token_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/cryptotest"
	"time"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// bind0 is a fixed binding for tests that need no ticket.
var bind0 = [32]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}

func approve(t testing.TB, approver *key.Signing, bind [32]byte, texts ...string) *token.Discharge {
	t.Helper()
	cs := cavs(t, texts...)
	d, err := token.Approve(approver, bind, cs, fixedkey.ApprovedAt(cs))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDischargeGolden: with a fixed key and the ChaCha8 stream of
// SetGlobalRandom seed 1 (the nonce), Approve writes fixed bytes, which
// decode and re-encode to themselves. If it fails, the encoding changed:
// change the code, not the bytes.
func TestDischargeGolden(t *testing.T) {
	cryptotest.SetGlobalRandom(t, 1)
	d := approve(t, edKey(t, "lead"), bind0, "until=2026-11-30T12:10:00Z", "calls=1", "tools=post")
	if got := hex.EncodeToString(d.Encode()); got != goldenDischarge {
		t.Errorf("encoding changed:\n got %s\nwant %s", got, goldenDischarge)
	}
	if id := d.ID(); hex.EncodeToString(id[:]) != goldenDischargeID {
		t.Errorf("id changed: %x", id)
	}
	data, _ := hex.DecodeString(goldenDischarge)
	back, err := token.DecodeDischarge(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Encode(), data) || back.String() != d.String() || back.ID() != d.ID() {
		t.Error("golden bytes do not round trip")
	}
	if err := back.Verify(edKey(t, "lead").Verifying()); err != nil {
		t.Error(err)
	}
}

const (
	goldenDischarge   = "a3010102584da402646c65616403506ae6783f4fbde91b6eb88b73a48ed24704a3018164706f73740501061a6b0d67980758200102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20035840d12c3a1ed51ea61d6ec565d1e3f4c4c882284915a6eb61ac369b3bce825a48ef31ef97c6d39abe769b447d438e77a8b5ea1b3032529d4106f2272c4e09b1440a"
	goldenDischargeID = "abf585bcc7f21985c7194a9cc5b06a9c4de5e1ba69781348d3831e575c325793"
)

// TestDischargeRoundTrip: Approve → String → ParseDischarge and Encode →
// DecodeDischarge give the same discharge, which verifies and reports
// what was approved.
func TestDischargeRoundTrip(t *testing.T) {
	lead := edKey(t, "lead")
	for _, texts := range [][]string{
		{"until=2026-11-30T12:10:00Z"},
		{"until=2026-11-30T12:10:00Z", "calls=1"},
		{"tools=post", "paths=src/a/", "until=2026-11-30T12:10:00Z", "nbf=2026-11-30T12:00:00Z", "calls=1", "cost=0.50EUR", "aud=pricing"},
		{"until=2026-11-30T12:10:00Z", "holder=" + strings.Repeat("A", 43)},
	} {
		d := approve(t, lead, bind0, texts...)
		p, err := token.ParseDischarge(d.String())
		if err != nil {
			t.Fatalf("%v: %v", texts, err)
		}
		q, err := token.DecodeDischarge(d.Encode())
		if err != nil {
			t.Fatalf("%v: %v", texts, err)
		}
		for _, x := range []*token.Discharge{p, q} {
			switch {
			case x.String() != d.String(), !bytes.Equal(x.Encode(), d.Encode()), x.ID() != d.ID():
				t.Errorf("%v: round trip differs", texts)
			case x.UnverifiedKeyID() != "lead", x.UnverifiedBinding() != bind0:
				t.Errorf("%v: key id %q binding %x", texts, x.UnverifiedKeyID(), x.UnverifiedBinding())
			case !reflect.DeepEqual(x.UnverifiedCaveats(), d.UnverifiedCaveats()) || len(x.UnverifiedCaveats()) != len(texts):
				t.Errorf("%v: caveats %v", texts, x.UnverifiedCaveats())
			}
			if err := x.Verify(lead.Verifying()); err != nil {
				t.Errorf("%v: %v", texts, err)
			}
		}
	}
}

// TestDischargeNonce: two approvals of one binding with one caveat set are
// distinct discharges (the nonce), with distinct ids.
func TestDischargeNonce(t *testing.T) {
	a := approve(t, edKey(t, "lead"), bind0, "until=2026-11-30T12:10:00Z")
	b := approve(t, edKey(t, "lead"), bind0, "until=2026-11-30T12:10:00Z")
	if a.String() == b.String() || a.ID() == b.ID() {
		t.Error("two approvals are the same discharge")
	}
}

// TestApproveRefuses: Approve makes only discharges DecodeDischarge
// accepts, and refuses what the format forbids.
func TestApproveRefuses(t *testing.T) {
	lead := edKey(t, "lead")
	until := cavs(t, "until=2026-11-30T12:10:00Z")[0]
	appr := caveat.Caveat{Kind: approvalKind, Raw: approvalValue(t, lead, 1)}
	long := make([]string, 40) // 40 tools of 120 bytes: over 4096 bytes
	for i := range long {
		long[i] = fmt.Sprintf("%03d", i) + strings.Repeat("t", 117)
	}
	tools, err := caveat.NewTools(long...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		key  *key.Signing
		cavs []caveat.Caveat
		kind caveat.Kind
		want string
	}{
		{"hmac key", hmacKey(t, "lead"), []caveat.Caveat{until}, 0, "ed25519"},
		{"no key", nil, []caveat.Caveat{until}, 0, "ed25519"},
		{"no until", lead, cavs(t, "calls=1"), caveat.Until, "until"},
		{"no caveats", lead, nil, caveat.Until, "until"},
		{"approval", lead, []caveat.Caveat{until, appr}, approvalKind, "approval"},
		{"unknown kind", lead, []caveat.Caveat{until, {Kind: 99, Raw: []byte{0}}}, 99, "unknown"},
		{"twice", lead, []caveat.Caveat{until, until}, caveat.Until, "twice"},
		{"too large", lead, []caveat.Caveat{until, tools}, 0, "larger than 4096"},
	} {
		_, err := token.Approve(c.key, bind0, c.cavs, fixedkey.ApprovedAt([]caveat.Caveat{until}))
		var te *token.Error
		if !errors.Is(err, token.ErrApprove) || !errors.As(err, &te) || te.Kind != c.kind || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// An invalid caveat is caveat's own error, prefixed once.
	if _, err := token.Approve(lead, bind0, []caveat.Caveat{until, {Kind: caveat.Tools}}, fixedkey.ApprovedAt([]caveat.Caveat{until})); !errors.Is(err, caveat.ErrSyntax) {
		t.Errorf("invalid caveat: %v", err)
	}
	// Just under the limit is fine.
	tools, _ = caveat.NewTools(long[:30]...)
	if _, err := token.Approve(lead, bind0, []caveat.Caveat{until, tools}, fixedkey.ApprovedAt([]caveat.Caveat{until})); err != nil {
		t.Errorf("under the limit: %v", err)
	}
}

// TestDischargeVerify: only the approver's key, under the id the discharge
// names, verifies it; the key can be built from the approval caveat's
// inline public key and key id alone (offline, no keyring).
func TestDischargeVerify(t *testing.T) {
	lead := edKey(t, "lead")
	d := approve(t, lead, bind0, "until=2026-11-30T12:10:00Z")
	inline, err := key.NewEd25519Public("lead", approverPublic(t, lead))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Verify(inline); err != nil {
		t.Fatalf("the approver's key: %v", err)
	}
	other := edKey(t, "other")
	otherAsLead, err := key.NewEd25519Public("lead", approverPublic(t, other))
	if err != nil {
		t.Fatal(err)
	}
	leadAsOther, err := key.NewEd25519Public("other", approverPublic(t, lead))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		key  *key.Verifying
		want error
	}{
		{"another approver's key under the same id", otherAsLead, token.ErrChain},
		{"another approver's key", other.Verifying(), token.ErrKeyMismatch},
		{"the approver's key under another id", leadAsOther, token.ErrKeyMismatch},
		{"an hmac key of the same id", hmacKey(t, "lead").Verifying(), token.ErrKeyMismatch},
		{"no key", nil, token.ErrKeyMismatch},
	} {
		if err := d.Verify(c.key); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if err := new(token.Discharge).Verify(inline); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("zero discharge: %v", err)
	}
}

// resign returns d with its block signed by approver over label ‖ block.
func resign(t testing.TB, d *token.Discharge, approver *key.Signing, label string) *token.Discharge {
	t.Helper()
	var w wire.Discharge
	if err := wire.Unmarshal(d.Encode(), &w, wire.TicketLimits()); err != nil {
		t.Fatal(err)
	}
	sig, err := approver.Sign(append([]byte(label), w.Block...))
	if err != nil {
		t.Fatal(err)
	}
	w.Sig = sig
	out, err := token.DecodeDischarge(mustMarshal(t, w))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDischargeDomainSeparation: the approver's signature verifies only
// over the discharge label: a signature by the same key over the same
// block under a ticket's labels (or none) does not, so no other signature
// an approver's key makes can be passed off as a discharge.
func TestDischargeDomainSeparation(t *testing.T) {
	lead := edKey(t, "lead")
	d := approve(t, lead, bind0, "until=2026-11-30T12:10:00Z")
	if err := resign(t, d, lead, "tickettool/v1 discharge\x00").Verify(lead.Verifying()); err != nil {
		t.Fatalf("control: %v", err)
	}
	for _, label := range []string{
		"",
		"tickettool/v1 ed25519 block\x00",
		"tickettool/v1 ed25519 seal\x00",
		"tickettool/v1 hmac block\x00",
		"tickettool/v1 hmac key\x00",
		"tickettool/v1 block id\x00",
		"tickettool/v1 approval\x00",
		"tickettool/v1 discharge",
		"tickettool/v2 discharge\x00",
	} {
		if err := resign(t, d, lead, label).Verify(lead.Verifying()); !errors.Is(err, token.ErrChain) {
			t.Errorf("label %q: %v, want ErrChain", label, err)
		}
	}
}

// TestDischargeIsNotATicket: a ticket's text never parses as a discharge,
// nor a discharge's as a ticket (prefix); their bytes never decode as each
// other (envelope), even under the other's prefix.
func TestDischargeIsNotATicket(t *testing.T) {
	d := approve(t, edKey(t, "lead"), bind0, "until=2026-11-30T12:10:00Z")
	dBody := strings.TrimPrefix(d.String(), token.DischargePrefix)
	for mode, k := range bothKeys(t) {
		for _, tk := range []*token.Ticket{chainOf(t, k, scenario...), chainOf(t, k, []string{"until=2026-11-30T12:10:00Z"})} {
			tBody := strings.TrimPrefix(tk.String(), token.Prefix)
			if _, err := token.ParseDischarge(tk.String()); !errors.Is(err, token.ErrMalformed) || !strings.Contains(err.Error(), "does not start with dis1_") {
				t.Errorf("%s: ticket text as a discharge: %v", mode, err)
			}
			if _, err := token.ParseDischarge(token.DischargePrefix + tBody); !errors.Is(err, token.ErrMalformedDischarge) {
				t.Errorf("%s: ticket body under dis1_: %v", mode, err)
			}
			if _, err := token.DecodeDischarge(tk.Encode()); !errors.Is(err, token.ErrMalformedDischarge) {
				t.Errorf("%s: ticket bytes as a discharge: %v", mode, err)
			}
		}
	}
	if _, err := token.Parse(d.String()); !errors.Is(err, token.ErrMalformed) || !strings.Contains(err.Error(), "does not start with tkt1_") {
		t.Errorf("discharge text as a ticket: %v", err)
	}
	if _, err := token.Parse(token.Prefix + dBody); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("discharge body under tkt1_: %v", err)
	}
	if _, err := token.Decode(d.Encode()); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("discharge bytes as a ticket: %v", err)
	}
}

// TestDischargeTamper: changing any byte of a discharge makes it
// malformed or makes Verify fail; never a different valid discharge.
func TestDischargeTamper(t *testing.T) {
	lead := edKey(t, "lead")
	d := approve(t, lead, bind0, "until=2026-11-30T12:10:00Z", "tools=post", "calls=1")
	data := d.Encode()
	for i := range data {
		for _, x := range []byte{0x01, 0x02, 0x10, 0x80, 0xff} {
			m := bytes.Clone(data)
			m[i] ^= x
			got, err := token.DecodeDischarge(m)
			if err != nil {
				if !errors.Is(err, token.ErrMalformedDischarge) {
					t.Fatalf("byte %d ^ %#x: error %v is not ErrMalformedDischarge", i, x, err)
				}
				continue
			}
			if err := got.Verify(lead.Verifying()); err == nil {
				t.Fatalf("byte %d ^ %#x: tampered discharge verifies", i, x)
			}
		}
	}
	text := d.String()
	for i := range len(text) {
		for _, c := range []byte{'A', 'B', '-', '_', 'z', '=', ' '} {
			if text[i] == c {
				continue
			}
			m := text[:i] + string(c) + text[i+1:]
			if got, err := token.ParseDischarge(m); err == nil && got.Verify(lead.Verifying()) == nil {
				t.Fatalf("char %d -> %c: tampered text verifies", i, c)
			}
		}
	}
}

// forge encodes a discharge from a block map (field → value) and a
// signature, so tests can write what Approve never would.
func forge(t testing.TB, block map[uint64]any, sig []byte) []byte {
	t.Helper()
	return mustMarshal(t, wire.Discharge{Version: 1, Block: mustMarshal(t, block), Sig: sig})
}

// TestDischargeStrict: the decoding rules, one by one. Each input breaks
// one rule of spec/FORMAT.md §4.6 and is refused naming it.
func TestDischargeStrict(t *testing.T) {
	lead := edKey(t, "lead")
	until := mustMarshal(t, uint64(1800000000))
	nonce, sig := bytes.Repeat([]byte{1}, 16), bytes.Repeat([]byte{3}, 64)
	good := func() map[uint64]any {
		return map[uint64]any{2: "lead", 3: nonce, 4: map[uint64]cbor.RawMessage{6: until}, 7: bind0[:]}
	}
	with := func(k uint64, v any) map[uint64]any { m := good(); m[k] = v; return m }
	if _, err := token.DecodeDischarge(forge(t, good(), sig)); err != nil {
		t.Fatalf("control: %v", err)
	}
	big := make([]byte, token.MaxDischargeBytes)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"version 2", mustMarshal(t, wire.Discharge{Version: 2, Block: mustMarshal(t, good()), Sig: sig}), "version"},
		{"short signature", forge(t, good(), sig[:63]), "signature must be 64 bytes"},
		{"long signature", forge(t, good(), append(sig, 0)), "signature must be 64 bytes"},
		{"short nonce", forge(t, with(3, nonce[:15]), sig), "nonce must be 16 bytes"},
		{"long nonce", forge(t, with(3, append(nonce, 0)), sig), "nonce must be 16 bytes"},
		{"short binding", forge(t, with(7, bind0[:31]), sig), "binding must be 32 bytes"},
		{"long binding", forge(t, with(7, append(bind0[:], 0)), sig), "binding must be 32 bytes"},
		{"key id with '+'", forge(t, with(2, "le+ad"), sig), "'+'"},
		{"key id with a space", forge(t, with(2, "le ad"), sig), "printable"},
		{"key id too long", forge(t, with(2, strings.Repeat("k", 65)), sig), "1 to 64"},
		{"no until", forge(t, with(4, map[uint64]cbor.RawMessage{5: mustMarshal(t, 1)}), sig), "until"},
		{"no caveats", forge(t, with(4, map[uint64]cbor.RawMessage{}), sig), "until"},
		{"approval", forge(t, with(4, map[uint64]cbor.RawMessage{6: until, 14: approvalValue(t, lead, 1)}), sig), "approval"},
		{"ticket's mode field", forge(t, with(1, 2), sig), "unknown field 1"},
		{"ticket's next key field", forge(t, with(5, bind0[:]), sig), "unknown field 5"},
		{"bad caveat value", forge(t, with(4, map[uint64]cbor.RawMessage{6: mustMarshal(t, "x")}), sig), "until"},
		{"too large", forge(t, with(3, big), sig), "size limit"},
		{"empty", nil, "unexpected end"},
		{"trailing byte", append(forge(t, good(), sig), 0), "trailing"},
	} {
		_, err := token.DecodeDischarge(c.data)
		if !errors.Is(err, token.ErrMalformed) || !errors.Is(err, token.ErrMalformedDischarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want malformed naming %q", c.name, err, c.want)
		}
	}
}

// TestParseDischargeText: one discharge has one text.
func TestParseDischargeText(t *testing.T) {
	d := approve(t, edKey(t, "lead"), bind0, "until=2026-11-30T12:10:00Z")
	if len(d.Encode())%3 == 0 {
		d = approve(t, edKey(t, "lead"), bind0, "until=2026-11-30T12:10:00Z", "calls=1")
	}
	s := d.String()
	body := strings.TrimPrefix(s, token.DischargePrefix)
	// The last character carries unused bits (the encoding's length is not
	// a multiple of 3); flipping one of them is a second text.
	if len(d.Encode())%3 == 0 {
		t.Fatal("test needs an encoding whose length is not a multiple of 3")
	}
	last := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", body[len(body)-1])
	stray := body[:len(body)-1] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[last^1])
	for _, c := range []struct {
		name, text, want string
	}{
		{"padding", s + "=", "outside base64url"},
		{"newline", s + "\n", "outside base64url"},
		{"inner CR", s[:10] + "\r" + s[10:], "outside base64url"},
		{"space", s[:10] + " " + s[10:], "outside base64url"},
		{"standard alphabet", strings.ReplaceAll(strings.ReplaceAll(s, "-", "+"), "_", "/"), ""},
		{"stray bits", token.DischargePrefix + stray, "not canonical"},
		{"upper-case prefix", "DIS1_" + body, "does not start with"},
		{"no prefix", body, "does not start with"},
		{"prefix only", token.DischargePrefix, "unexpected end"},
		{"too long", token.DischargePrefix + strings.Repeat("A", token.MaxDischargeTextBytes), "longer than"},
		{"just over the byte limit", token.DischargePrefix + strings.Repeat("A", (token.MaxDischargeBytes+1)*4/3+1), "size limit"},
	} {
		if c.text == s {
			continue // the alphabet swap changed nothing
		}
		_, err := token.ParseDischarge(c.text)
		if !errors.Is(err, token.ErrMalformedDischarge) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want malformed naming %q", c.name, err, c.want)
		}
	}
}

// TestApproveLifetime: Approve makes no discharge a verifier at its now
// would refuse for its until: expired (until ≤ now) or living longer than
// MaxDischargeLifetime; exactly that long is made.
func TestApproveLifetime(t *testing.T) {
	lead := edKey(t, "lead")
	for _, c := range []struct {
		until time.Duration // after t0
		ok    bool
	}{
		{-time.Second, false}, {0, false}, {time.Second, true},
		{token.MaxDischargeLifetime, true}, {token.MaxDischargeLifetime + time.Second, false},
	} {
		until, err := caveat.NewUntil(t0.Add(c.until))
		if err != nil {
			t.Fatal(err)
		}
		_, err = token.Approve(lead, bind0, []caveat.Caveat{until}, t0)
		var te *token.Error
		if c.ok != (err == nil) || !c.ok && (!errors.Is(err, token.ErrApprove) || !errors.As(err, &te) || te.Kind != caveat.Until) {
			t.Errorf("until now%+v: %v, want ok=%v (or ErrApprove naming until)", c.until, err, c.ok)
		}
	}
}
