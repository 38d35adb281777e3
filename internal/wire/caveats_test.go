package wire_test

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

// cavMap returns the hex of a caveat map of the given kind → value-hex
// pairs, in the order given.
func cavMap(pairs ...string) string {
	s := fmt.Sprintf("%02x", 0xa0+len(pairs)/2)
	for _, p := range pairs {
		s += p
	}
	return s
}

const (
	vTools = "8169726561645f66696c65"             // ["read_file"]
	vPaths = "81647372632f"                       // ["src/"]
	vUntil = "1a6b0d7350"                         // 2026-11-30T13:00:00Z
	vOps   = "826864656c656761746566696e766f6b65" // ["delegate", "invoke"]
)

func TestDecodeMap(t *testing.T) {
	m := cavMap("01", vTools, "02", vOps, "03", vPaths, "06", vUntil)
	buf, _ := hex.DecodeString("ffff" + m + "ee")
	d := wire.NewCaveatDecoder(buf, nil)
	cavs, next, err := d.DecodeMap(2, len(buf))
	if err != nil || next != len(buf)-1 || len(cavs) != 4 {
		t.Fatalf("DecodeMap = %d caveats, next %d, %v", len(cavs), next, err)
	}
	for i, text := range []string{"tools=read_file", "ops=delegate,invoke", "paths=src/", "until=2026-11-30T13:00:00Z"} {
		if want := mustParse(t, text); !cavs[i].Equal(want) {
			t.Errorf("caveat %d = %v, want %v", i, cavs[i], want)
		}
	}
	// The results own their bytes: changing the buffer changes nothing.
	for i := range buf {
		buf[i] = 'X'
	}
	if cavs[0].List[0] != "read_file" || cavs[2].List[0] != "src/" {
		t.Fatalf("results alias the buffer: %q %q", cavs[0].List, cavs[2].List)
	}
	// Lists share chunks but are capped: appending to one leaves the next.
	_ = append(cavs[0].List, "x")
	if cavs[1].List[0] != "delegate" || cap(cavs[0].List) != 1 || cap(cavs) != 4 {
		t.Fatalf("lists overlap: %q %q", cavs[0].List, cavs[1].List)
	}
}

func TestDecodeMapRoom(t *testing.T) {
	m := cavMap("01", vTools) + cavMap("03", vPaths) + cavMap("01", vTools, "06", vUntil)
	buf, _ := hex.DecodeString(m)
	room := make([]caveat.Caveat, 2)
	for i := range room { // stale caveats in the room change nothing
		room[i] = caveat.Caveat{Kind: caveat.Calls, N: 7, List: []string{"old"}, Text: "old"}
	}
	d := wire.NewCaveatDecoder(buf, room)
	var all [][]caveat.Caveat
	for off := 0; off < len(buf); {
		cavs, next, err := d.DecodeMap(off, len(buf))
		if err != nil {
			t.Fatal(err)
		}
		all, off = append(all, cavs), next
	}
	// The first two maps fit in room; the third (two caveats) does not.
	if &all[0][0] != &room[0] || &all[1][0] != &room[1] || &all[2][0] == &room[0] {
		t.Fatal("room not used first, or reused")
	}
	for i, want := range []string{"tools=read_file", "paths=src/", "tools=read_file", "until=2026-11-30T13:00:00Z"} {
		if got := all[min(i, 2)][max(0, i-2)]; !got.Equal(mustParse(t, want)) {
			t.Errorf("caveat %d = %+v, want %s", i, got, want)
		}
	}
}

func TestDecodeMapRefused(t *testing.T) {
	// many returns a map of n unknown kinds (100, 101, ...) valued 0.
	many := func(n int) string {
		pairs := []string{}
		for k := 100; k < 100+n; k++ {
			pairs = append(pairs, fmt.Sprintf("18%02x", k), "00")
		}
		return cavMap(pairs...)
	}
	for _, tc := range []struct {
		hex  string
		kind caveat.Kind
		why  string
	}{
		{"80", 0, "not a map"},
		{"", 0, "not a map"},
		{many(17), 0, "more than 16 caveats"},
		{cavMap("00", "00"), 0, "kind 0"},
		{cavMap("03", vPaths, "01", vTools), caveat.Tools, "ascending"},
		{cavMap("01", vTools, "01", vTools), caveat.Tools, "ascending"},
		{cavMap("61"+"61", "00"), 0, "not an unsigned integer"},
		{cavMap("1801", vTools), 0, "shortest form"},
		{cavMap("01", "8169726561645f66696c"), caveat.Tools, "end of input"}, // value runs past the end
		{cavMap("01", "00"), caveat.Tools, "CBOR type"},
		{cavMap("06", "1b0000003afff44180"), caveat.Until, "9999"}, // one second past the last
		{cavMap("1863", "8181a0"), 99, "nesting"},                  // depth 5, counted as inside a block
	} {
		buf, _ := hex.DecodeString(tc.hex)
		d := wire.NewCaveatDecoder(buf, nil)
		_, _, err := d.DecodeMap(0, len(buf))
		ce := wantErr(t, tc.hex, err, caveat.ErrSyntax)
		if ce.Kind != tc.kind || !strings.Contains(ce.Reason, tc.why) {
			t.Errorf("%s: got %v (kind %d), want kind %d and %q", tc.hex, err, ce.Kind, tc.kind, tc.why)
		}
	}
	// At the limits: 16 caveats, and an unknown value nested to depth 4.
	for _, h := range []string{many(16), cavMap("1863", "818100"), "a0"} {
		buf, _ := hex.DecodeString(h)
		d := wire.NewCaveatDecoder(buf, nil)
		if _, next, err := d.DecodeMap(0, len(buf)); err != nil || next != len(buf) {
			t.Errorf("%s: next %d, %v", h, next, err)
		}
	}
	// Bounds outside the buffer are an error, not a panic.
	buf, _ := hex.DecodeString(cavMap("01", vTools))
	d := wire.NewCaveatDecoder(buf, nil)
	for _, b := range [][2]int{{-1, 3}, {2, 1}, {0, len(buf) + 1}} {
		if _, _, err := d.DecodeMap(b[0], b[1]); err == nil {
			t.Errorf("bounds %v accepted", b)
		}
	}
	// end bounds the map even when the buffer goes on.
	if _, _, err := d.DecodeMap(0, len(buf)-1); err == nil {
		t.Error("a map running past end accepted")
	}
}

// TestDecodeSizeLimit: a caveat value, and a caveat map, may be at most
// TicketLimits' MaxItemSize (64 KiB) long: at the limit they decode, one
// byte over they are refused (the ticket around them is bounded anyway;
// DecodeCaveat and DecodeMap bound themselves).
func TestDecodeSizeLimit(t *testing.T) {
	const limit = 64 << 10
	bstr := func(n int) []byte { // a byte string of n bytes, n in 256..65535
		return append([]byte{0x59, byte(n >> 8), byte(n)}, make([]byte, n)...)
	}
	for _, total := range []int{limit, limit + 1} {
		v := bstr(total - 3)
		_, err := wire.DecodeCaveat(99, v)
		if (err == nil) != (total == limit) {
			t.Errorf("DecodeCaveat of %d bytes: %v", total, err)
		}
		m := append([]byte{0xa1, 0x18, 0x63}, bstr(total-6)...)
		d := wire.NewCaveatDecoder(m, nil)
		_, _, err = d.DecodeMap(0, len(m))
		if (err == nil) != (total == limit) {
			t.Errorf("DecodeMap of %d bytes: %v", total, err)
		}
	}
	// A known kind too: 1024 sorted tools of 64 bytes are 67587 bytes.
	list := []byte{0x99, 0x04, 0x00}
	for i := range 1024 {
		list = append(append(list, 0x78, 64), fmt.Sprintf("%04d%s", i, strings.Repeat("a", 60))...)
	}
	if _, err := wire.DecodeCaveat(caveat.Tools, list); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Errorf("DecodeCaveat of a %d-byte tools list: %v", len(list), err)
	}
}

func ExampleCaveatDecoder() {
	// A block's caveat map: tools=read_file, paths=src/.
	buf, _ := hex.DecodeString("a2018169726561645f66696c650381647372632f")
	d := wire.NewCaveatDecoder(buf, nil)
	cavs, next, err := d.DecodeMap(0, len(buf))
	if err != nil {
		panic(err)
	}
	fmt.Println(cavs, next == len(buf))
	// Output: [tools=read_file paths=src/] true
}
