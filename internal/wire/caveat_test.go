package wire_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

// TestGoldenValues pins the CBOR value of one caveat of every kind. The
// hex was written by hand from the format: change the code, not the bytes.
func TestGoldenValues(t *testing.T) {
	for _, tc := range []struct{ text, hex string }{
		{"tools=read_file,workspace/write_file", "82" + "69" + hex.EncodeToString([]byte("read_file")) + "74" + hex.EncodeToString([]byte("workspace/write_file"))},
		{"ops=invoke,delegate", "826864656c656761746566696e766f6b65"},
		{"paths=src/discount,/srv/app", "82692f7372762f6170702f6d7372632f646973636f756e742f"},
		{"hosts=api.example.com,*.example.org", "826d2a2e6578616d706c652e6f72676f6170692e6578616d706c652e636f6d"},
		{"calls=5", "05"},
		{"calls=24", "1818"},
		{"until=2026-11-30T03:20:00Z", "1a6b0ceb60"},
		{"nbf=2026-01-01T00:00:00Z", "1a6955b900"},
		{"until=0", "00"},
		{"aud=workspace", "8169776f726b7370616365"},
		{"cost=0.50USD", "821a0007a12063555344"},
		{"total=5EUR", "821a004c4b4063455552"},
		{"depth=0", "00"},
		{"depth=2", "02"},
		{`intent="upgrade pricing deps"`, "74757067726164652070726963696e672064657073"},
		{"holder=" + jkt, "5820000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"},
		{"args=" + jkt, "5820000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"},
		// {1: "k", 2: h'00..1f', 3: h'00..0f'}; with {4: "https://a/"}.
		{"approval=k:" + jkt + ":" + nonce, "a3" + "01616b" + "0258" + "20000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
			"0350" + "000102030405060708090a0b0c0d0e0f"},
		{"approval=k:" + jkt + ":" + nonce + ":https://a/", "a4" + "01616b" + "0258" + "20000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
			"0350" + "000102030405060708090a0b0c0d0e0f" + "046a" + hex.EncodeToString([]byte("https://a/"))},
	} {
		c := mustParse(t, tc.text)
		got, err := wire.EncodeCaveat(c)
		if err != nil {
			t.Errorf("%s: EncodeCaveat: %v", tc.text, err)
			continue
		}
		if hex.EncodeToString(got) != tc.hex {
			t.Errorf("%s: EncodeCaveat = %x, want %s", tc.text, got, tc.hex)
		}
		raw, _ := hex.DecodeString(tc.hex)
		d, err := wire.DecodeCaveat(c.Kind, raw)
		if err != nil || !d.Equal(c) {
			t.Errorf("%s: DecodeCaveat = %+v, %v", tc.text, d, err)
		}
	}
}

func TestDecodeCaveatRefused(t *testing.T) {
	tstr := func(s string) string { return hex.EncodeToString(append([]byte{0x60 | byte(len(s))}, s...)) }
	for _, tc := range []struct {
		k   caveat.Kind
		hex string
		why string
	}{
		{caveat.Tools, "", "empty"},
		{caveat.Tools, "80", "empty list"},
		{caveat.Tools, "82" + tstr("b") + tstr("a"), "unsorted"},
		{caveat.Tools, "82" + tstr("a") + tstr("a"), "duplicate"},
		{caveat.Tools, "9f" + tstr("a") + "ff", "indefinite length"},
		{caveat.Tools, tstr("a"), "a string, not a list"},
		{caveat.Tools, "8101", "an int in the list"},
		{caveat.Tools, "81" + tstr("a b"), "bad tool syntax"},
		{caveat.Tools, "81" + "7800", "non-shortest length"},
		{caveat.Tools, "81" + tstr("a") + "00", "trailing bytes"},
		{caveat.Tools, "8141" + "61", "byte string entry"},
		{caveat.Ops, "81" + tstr("Invoke"), "uppercase op"},
		{caveat.Paths, "81" + tstr("src"), "missing trailing slash"},
		{caveat.Paths, "81" + tstr("src/../x/"), "dot-dot"},
		{caveat.Paths, "81" + tstr("a,b/"), "comma"},
		{caveat.Hosts, "81" + tstr("API.example.com"), "uppercase host"},
		{caveat.Hosts, "81" + tstr("*.com"), "wildcard too wide"},
		{caveat.Hosts, "81" + tstr("a.com."), "trailing dot"},
		{caveat.Audience, "81" + tstr("a b"), "bad audience"},
		{caveat.Calls, "00", "zero calls"},
		{caveat.Calls, "1805", "non-shortest int"},
		{caveat.Calls, "20", "negative"},
		{caveat.Calls, "f5", "bool"},
		{caveat.Calls, "f97c00", "float"},
		{caveat.Calls, "c105", "tag"},
		{caveat.Depth, "6130", "string"},
		{caveat.Until, "1b0000003afff44180", "past 9999"},
		{caveat.Until, "1bffffffffffffffff", "past int64"},
		{caveat.NotBefore, "20", "negative time"},
		{caveat.Cost, "821a0007a12063757364", "lowercase currency"},
		{caveat.Cost, "821a0007a120625553", "two-letter currency"},
		{caveat.Cost, "811a0007a120", "missing currency"},
		{caveat.Cost, "831a0007a1206355534400", "extra element"},
		{caveat.Cost, "82635553441a0007a120", "swapped"},
		{caveat.Total, "a2000101635553" + "44", "map"},
		{caveat.Intent, "60", "empty intent"},
		{caveat.Intent, "620a61", "control character"},
		{caveat.Intent, "4161", "byte string"},
		{caveat.Intent, "61ff", "invalid UTF-8"},
		{caveat.Holder, "581f" + strings.Repeat("00", 31), "31 bytes"},
		{caveat.Holder, "5821" + strings.Repeat("00", 33), "33 bytes"},
		{caveat.Holder, "7820" + strings.Repeat("61", 32), "text string"},
		{caveat.Holder, "40", "empty"},
		{caveat.Args, "581f" + strings.Repeat("00", 31), "31-byte args"},
		{caveat.Args, "5821" + strings.Repeat("00", 33), "33-byte args"},
		{caveat.Args, "7820" + strings.Repeat("61", 32), "args as text"},
		{caveat.Approval, "a3" + aKeyID + aKey[:20], "truncated approval"},
		{caveat.Approval, "a2" + aKeyID + aKey, "approval without nonce"},
		{caveat.Approval, "a2" + aKey + aNonce, "approval without key id"},
		{caveat.Approval, "a2" + aKeyID + aNonce, "approval without key"},
		{caveat.Approval, "a4" + aKeyID + aKey + aNonce + "0400", "approval with a location that is not text"},
		{caveat.Approval, "a4" + aKeyID + aKey + aNonce + "0460", "approval with an empty location"},
		{caveat.Approval, "a4" + aKeyID + aKey + aNonce + "0501", "approval with key 5"},
		// Same types, another key number: only the key check refuses these.
		{caveat.Approval, "a4" + aKeyID + aKey + aNonce + "056161", "approval with a location at key 5"},
		{caveat.Approval, "a3" + "00616b" + aKey + aNonce, "approval with the key id at key 0"},
		{caveat.Approval, "a3" + aKeyID + "035820" + hex.EncodeToString(seq(1, 32)) + "0250" + hex.EncodeToString(seq(0, 16)), "approval with keys 3 and 2 swapped"},
		{caveat.Approval, "a5" + aKeyID + aKey + aNonce + aLoc + "0501", "approval with an extra key"},
		{caveat.Approval, "a3" + aKey + aKeyID + aNonce, "approval keys out of order"},
		{caveat.Approval, "a3" + aKeyID + aKeyID + aNonce, "approval key repeated"},
		{caveat.Approval, "a3" + aKeyID + "02581f" + strings.Repeat("01", 31) + aNonce, "approval key of 31 bytes"},
		{caveat.Approval, "a3" + aKeyID + "025821" + strings.Repeat("01", 33) + aNonce, "approval key of 33 bytes"},
		{caveat.Approval, "a3" + aKeyID + aKey + "034f" + strings.Repeat("01", 15), "approval nonce of 15 bytes"},
		{caveat.Approval, "a3" + aKeyID + aKey + "0351" + strings.Repeat("01", 17), "approval nonce of 17 bytes"},
		{caveat.Approval, "a3" + "0160" + aKey + aNonce, "approval with an empty key id"},
		{caveat.Approval, "a3" + "01622b61" + aKey + aNonce, "approval key id with '+'"},
		{caveat.Approval, "a3" + "017841" + strings.Repeat("61", 65) + aKey + aNonce, "approval key id of 65 bytes"},
		{caveat.Approval, "a3" + aKeyID + "025820" + strings.Repeat("00", 32) + aNonce, "approval key of small order (0)"},
		{caveat.Approval, "a3" + aKeyID + "025820" + "01" + strings.Repeat("00", 31) + aNonce, "approval key of small order (identity)"},
		{caveat.Approval, "a4" + aKeyID + aKey + aNonce + "0461" + "0a", "approval location with a control character"},
		{caveat.Approval, "a4" + aKeyID + aKey + aNonce + "04790101" + strings.Repeat("61", 257), "approval location of 257 bytes"},
		{caveat.Approval, "83" + aKeyID[:6], "approval as an array"},
		{caveat.Approval, "b80300", "approval map head not in shortest form"},
		{42, "", "unknown kind, empty"},
		{42, "1805", "unknown kind, non-canonical"},
		{42, "0505", "unknown kind, two items"},
	} {
		raw, err := hex.DecodeString(tc.hex)
		if err != nil {
			t.Fatal(tc.why, err)
		}
		c, err := wire.DecodeCaveat(tc.k, raw)
		if err == nil {
			t.Errorf("%v %s (%s): accepted as %+v", tc.k, tc.hex, tc.why, c)
			continue
		}
		wantErr(t, tc.why, err, caveat.ErrSyntax)
	}
}

// Pieces of approval values: key id "k", key bytes 1..32 (not of small
// order), nonce bytes 0..15, location "https://a/".
var (
	aKeyID = "01616b"
	aKey   = "025820" + hex.EncodeToString(seq(1, 32))
	aNonce = "0350" + hex.EncodeToString(seq(0, 16))
	aLoc   = "046a" + hex.EncodeToString([]byte("https://a/"))
)

func seq(from, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(from + i)
	}
	return b
}

func TestUnknownKindRaw(t *testing.T) {
	raw := []byte{0xa2, 0x01, 0x02, 0x03, 0x61, 0x78} // {1: 2, 3: "x"}
	c, err := wire.DecodeCaveat(42, raw)
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != 42 || !bytes.Equal(c.Raw, raw) {
		t.Fatalf("DecodeCaveat(42) = %+v", c)
	}
	raw[1] = 0x00 // the caveat must not alias the input
	if c.Raw[1] != 0x01 {
		t.Fatal("DecodeCaveat kept the caller's slice")
	}
	enc, err := wire.EncodeCaveat(c)
	if err != nil || !bytes.Equal(enc, c.Raw) {
		t.Fatalf("EncodeCaveat = %x, %v", enc, err)
	}
	wantErr(t, "Check unknown kind", c.Evaluate(&caveat.Request{}, now, 0), caveat.ErrRefused)
}

func TestEncodeCaveatRefusesInvalid(t *testing.T) {
	for name, c := range map[string]caveat.Caveat{
		"unsorted":         {Kind: caveat.Tools, List: []string{"b", "a"}},
		"empty list":       {Kind: caveat.Tools},
		"stray field":      {Kind: caveat.Tools, List: []string{"a"}, N: 1},
		"stray raw":        {Kind: caveat.Calls, N: 1, Raw: []byte{1}},
		"path no slash":    {Kind: caveat.Paths, List: []string{"src"}},
		"upper host":       {Kind: caveat.Hosts, List: []string{"A.com"}},
		"calls 0":          {Kind: caveat.Calls},
		"negative time":    {Kind: caveat.Until, Time: -1},
		"bad currency":     {Kind: caveat.Cost, Amount: caveat.Amount{Micros: 1, Currency: "US"}},
		"short holder":     {Kind: caveat.Holder, Bytes: make([]byte, 31)},
		"short args":       {Kind: caveat.Args, Bytes: make([]byte, 31)},
		"approval, zero":   {Kind: caveat.Approval},
		"approval, bytes":  {Kind: caveat.Approval, Bytes: make([]byte, 32), Approver: &caveat.Approver{KeyID: "k", Key: [32]byte{9}}},
		"unknown, no raw":  {Kind: 42},
		"unknown, bad raw": {Kind: 42, Raw: []byte{0x18, 0x01}},
		"kind 0, no raw":   {},
	} {
		_, err := wire.EncodeCaveat(c)
		wantErr(t, name, err, caveat.ErrSyntax)
	}
}

// TestCaveatBoundsAreTheFormats: package caveat bounds lists and text with
// its own constants; they must be this package's MaxListItems and
// MaxStringBytes, or a valid caveat could make a ticket no reader accepts
// (or the reverse).
func TestCaveatBoundsAreTheFormats(t *testing.T) {
	for _, n := range []int{wire.MaxListItems, wire.MaxListItems + 1} {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("t%05d", i)
		}
		c, err := caveat.NewTools(names...)
		if (err == nil) != (n == wire.MaxListItems) {
			t.Fatalf("NewTools with %d entries: %v", n, err)
		}
		if err != nil {
			continue
		}
		raw, err := wire.EncodeCaveat(c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wire.DecodeCaveat(caveat.Tools, raw); err != nil {
			t.Fatalf("a list of %d entries: %v", n, err)
		}
	}
	for _, n := range []int{wire.MaxStringBytes, wire.MaxStringBytes + 1} {
		c, err := caveat.NewIntent(strings.Repeat("x", n))
		if (err == nil) != (n == wire.MaxStringBytes) {
			t.Fatalf("NewIntent of %d bytes: %v", n, err)
		}
		if err != nil {
			continue
		}
		raw, _ := wire.EncodeCaveat(c)
		if _, err := wire.DecodeCaveat(caveat.Intent, raw); err != nil {
			t.Fatalf("an intent of %d bytes: %v", n, err)
		}
	}
}
