package token_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// Pieces of goldenHMAC (spec/FORMAT.md §2, §3), for building variants.
const (
	gB0  = "a401010266726f6f742d6803506ae6783f4fbde91b6eb88b73a48ed24704a2018169726561645f66696c65061a6b0d7350"
	gB1  = "a104a10381647372632f"
	gID  = "6ae6783f4fbde91b6eb88b73a48ed247"
	gTag = "33fc3e02f4fb6cfa4a045ed0a0c9dbb3b34bd812698cd9d8147c0f5e0f736a00"
)

// bstr wraps hex-encoded bytes in a CBOR byte string head.
func bstr(h string) string {
	n := len(h) / 2
	switch {
	case n < 24:
		return fmt.Sprintf("%02x", 0x40+n) + h
	case n < 256:
		return fmt.Sprintf("58%02x", n) + h
	}
	return fmt.Sprintf("59%04x", n) + h
}

func env(blocks ...string) string {
	s := fmt.Sprintf("a3010102%02x", 0x80+len(blocks))
	for _, b := range blocks {
		s += bstr(b)
	}
	return s + "045820" + gTag
}

// TestStrictDecoding: every class of non-canonical or unknown input that
// spec/FORMAT.md §1 names is refused with ErrMalformed, at the envelope and
// inside a block.
func TestStrictDecoding(t *testing.T) {
	valid := env(gB0, gB1)
	if valid != goldenHMAC {
		t.Fatalf("test pieces out of date:\n%s\n%s", valid, goldenHMAC)
	}
	if _, err := token.Decode(mustHex(t, valid)); err != nil {
		t.Fatalf("valid: %v", err)
	}
	rest := strings.TrimPrefix(valid, "a3010102")
	cases := map[string]string{
		"trailing byte":                   valid + "00",
		"non-shortest version":            "a301180102" + rest,
		"indefinite blocks array":         "a30101029f" + bstr(gB0) + bstr(gB1) + "ff045820" + gTag,
		"unsorted envelope keys":          "a30282" + bstr(gB0) + bstr(gB1) + "0101045820" + gTag,
		"duplicate envelope key":          "a401010101" + strings.TrimPrefix(valid, "a30101"),
		"tagged block":                    "a3010102 82 d818" + bstr(gB0) + bstr(gB1) + "045820" + gTag,
		"float version":                   "a301f93c0002" + rest,
		"unknown envelope field":          "a4" + strings.TrimPrefix(valid, "a3") + "0600",
		"missing version":                 "a202" + strings.TrimPrefix(rest, ""),
		"version 2":                       "a3010202" + rest,
		"empty tail":                      "a3010102" + strings.TrimSuffix(rest, "5820"+gTag) + "40",
		"tail and seal":                   "a4" + strings.TrimPrefix(valid, "a3") + "055820" + gTag,
		"signatures in hmac mode":         "a4010102" + strings.TrimSuffix(rest, "045820"+gTag) + "0381" + bstr(strings.Repeat("00", 64)) + "045820" + gTag,
		"no blocks":                       "a301010280045820" + gTag,
		"block: non-shortest mode":        env("a40118010266"+strings.TrimPrefix(gB0, "a401010266"), gB1),
		"block: unknown field":            env(gB0, "a204a10381647372632f0600"),
		"block: unsorted caveat keys":     env("a401010266726f6f742d6803506ae6783f4fbde91b6eb88b73a48ed24704a2061a6b0d7350018169726561645f66696c65", gB1),
		"block: kind 0":                   env(gB0, "a104a10081647372632f"),
		"block: unsorted list":            env(gB0, "a104a103826473726b2f647372632f"),
		"block: mode in block 1":          env(gB0, "a20101"+strings.TrimPrefix(gB1, "a1")),
		"block: missing caveat map":       env(gB0, "a0"),
		"block: path without slash":       env(gB0, "a104a1038163737263"),
		"block: uppercase host":           env(gB0, "a104a104816b4558414d504c452e434f4d"),
		"block: short ticket id":          env(strings.Replace(gB0, "0350"+gID, "034f"+gID[:30], 1), gB1),
		"block: ed25519 next key in hmac": env(gB0, "a204a10381647372632f05"+bstr(strings.Repeat("00", 32))),
		"block 0 without key id":          env("a30101035"+strings.TrimPrefix(gB0, "a401010266726f6f742d68035"), gB1),
		"block: unsorted fields":          env("a4010103506ae6783f4fbde91b6eb88b73a48ed2470266726f6f742d68"+strings.TrimPrefix(gB0, "a401010266726f6f742d6803506ae6783f4fbde91b6eb88b73a48ed247"), gB1),
		"block: duplicate field":          env(gB0, "a204a10381647372632f04a10381647372632f"),
		"block: duplicate caveat kind":    env(gB0, "a104a20381647372632f0381647372632f"),
		"block: text caveat kind":         env(gB0, "a104a1616100"),
		"block: unknown caveat too deep":  env(gB0, "a104a20381647372632f186381818100"),
		"block: unknown caveat not UTF-8": env(gB0, "a104a20381647372632f18636261ff"),
		"block: trailing byte":            env(gB0, gB1+"00"),
	}
	for name, h := range cases {
		_, err := token.Decode(mustHex(t, strings.ReplaceAll(h, " ", "")))
		var te *token.Error
		t.Logf("%s: %v", name, err)
		if !errors.Is(err, token.ErrMalformed) || !errors.As(err, &te) {
			t.Errorf("%s: got %v, want ErrMalformed", name, err)
		}
	}
}

// TestStrictDecodingAtLimits: inputs at the edge of rules that
// TestStrictDecoding breaks decode. (Every text field a ticket defines is
// also checked for its own alphabet, so the reader's UTF-8 rule shows at
// this level only in values of unknown kinds; internal/wire tests it
// directly.)
func TestStrictDecodingAtLimits(t *testing.T) {
	for name, h := range map[string]string{
		"unknown caveat nested to depth 4":    env(gB0, "a104a20381647372632f1863818100"),
		"unknown caveat with multibyte UTF-8": env(gB0, "a104a20381647372632f186362c3a9"),
	} {
		if _, err := token.Decode(mustHex(t, h)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// newHolder makes an Ed25519 holder key.
func newHolder(t *testing.T) *key.Holder {
	t.Helper()
	h, err := key.GenerateHolder(key.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func holderCaveat(t *testing.T, h *key.Holder) caveat.Caveat {
	c, err := caveat.NewHolder(h.Thumbprint())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStrictHolderSignatures: the holder signatures of a twice rebound
// ticket (field 6) must come in block order; swapped, the ticket is
// refused.
func TestStrictHolderSignatures(t *testing.T) {
	hs := []*key.Holder{newHolder(t), newHolder(t), newHolder(t)}
	tk, err := token.Mint(hmacKey(t, "root-h"), []caveat.Caveat{holderCaveat(t, hs[0])}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(hs); i++ {
		if tk, err = tk.Attenuate([]caveat.Caveat{holderCaveat(t, hs[i])}, &token.Options{Holder: hs[i-1]}); err != nil {
			t.Fatal(err)
		}
	}
	data := tk.Encode()
	if _, err := token.Decode(data); err != nil {
		t.Fatalf("rebound ticket: %v", err)
	}
	blocks := tk.UnverifiedBlocks()
	sig := func(i int) string { return "5840" + hex.EncodeToString(blocks[i].RebindSig) }
	inOrder := "06a201" + sig(1) + "02" + sig(2)
	h := hex.EncodeToString(data)
	if !strings.HasSuffix(h, inOrder) {
		t.Fatalf("field 6 is not where the test expects it: %s", h)
	}
	for name, field6 := range map[string]string{
		"swapped":  "06a202" + sig(2) + "01" + sig(1),
		"repeated": "06a301" + sig(1) + "02" + sig(2) + "02" + sig(2), // every rebinding block still has its one
	} {
		if _, err := token.Decode(mustHex(t, strings.TrimSuffix(h, inOrder)+field6)); !errors.Is(err, token.ErrMalformed) {
			t.Errorf("%s holder signatures: %v", name, err)
		}
	}
}

func TestDecodeLimits(t *testing.T) {
	blocks := make([]string, token.MaxBlocks+1)
	for i := range blocks {
		blocks[i] = gB1
	}
	blocks[0] = gB0
	h := fmt.Sprintf("a301010298%02x", len(blocks))
	for _, b := range blocks {
		h += bstr(b)
	}
	h += "045820" + gTag
	if _, err := token.Decode(mustHex(t, h)); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("%d blocks: %v", len(blocks), err)
	}
	if _, err := token.Decode(make([]byte, token.MaxTicketBytes+1)); !errors.Is(err, token.ErrMalformed) {
		t.Errorf("oversize: %v", err)
	}
}

func TestParseTextStrict(t *testing.T) {
	tk := chainOf(t, hmacKey(t, "root-h"), []string{"tools=read_file"})
	text := tk.String()
	if !strings.HasPrefix(text, token.Prefix) {
		t.Fatalf("text %q lacks prefix", text)
	}
	body := strings.TrimPrefix(text, token.Prefix)
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	last := body[len(body)-1]
	// Flip a low bit of the last character: the same bytes, other text.
	alt := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", last) ^ 1
	nonCanon := body[:len(body)-1] + string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[alt])
	for name, s := range map[string]string{
		"no prefix":      body,
		"other prefix":   "tkt2_" + body,
		"padding":        text + "==",
		"trailing space": text + " ",
		"newline inside": text[:20] + "\n" + text[20:],
		"CR inside":      text[:20] + "\r" + text[20:],
		"CRLF at end":    text + "\r\n",
		"std alphabet":   token.Prefix + base64.RawStdEncoding.EncodeToString(append(raw, 0xfb, 0xff)),
		"stray bits":     token.Prefix + nonCanon,
		"empty":          "",
		"prefix only":    token.Prefix,
		"too long":       token.Prefix + strings.Repeat("A", token.MaxTextBytes),
	} {
		if name == "stray bits" && len(raw)%3 == 0 {
			continue // no stray bits possible at this length
		}
		if _, err := token.Parse(s); !errors.Is(err, token.ErrMalformed) {
			t.Errorf("%s: got %v, want ErrMalformed", name, err)
		}
	}
}

func mustHex(t *testing.T, h string) []byte {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatalf("bad hex in test: %v", err)
	}
	return b
}
