package fuzz

// A tiny hand CBOR writer (RFC 8949) for building envelopes around fuzzed
// bytes and for seeds the packages would never write: non-canonical
// encodings, items over the limits, hand-chained HMAC tickets.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// head returns a CBOR head in shortest form.
func head(major byte, n uint64) []byte { return headW(major, n, 0) }

// headW returns a CBOR head whose argument takes w bytes (1, 2, 4 or 8),
// or the shortest form when w is 0.
func headW(major byte, n uint64, w int) []byte {
	if w == 0 {
		switch {
		case n < 24:
			return []byte{major<<5 | byte(n)}
		case n <= math.MaxUint8:
			w = 1
		case n <= math.MaxUint16:
			w = 2
		case n <= math.MaxUint32:
			w = 4
		default:
			w = 8
		}
	}
	var b [9]byte
	switch w {
	case 1:
		b[0] = major<<5 | 24
		b[1] = byte(n)
	case 2:
		b[0] = major<<5 | 25
		binary.BigEndian.PutUint16(b[1:], uint16(n))
	case 4:
		b[0] = major<<5 | 26
		binary.BigEndian.PutUint32(b[1:], uint32(n))
	case 8:
		b[0] = major<<5 | 27
		binary.BigEndian.PutUint64(b[1:], n)
	default:
		panic("bad width")
	}
	return append([]byte(nil), b[:1+w]...)
}

func cUint(n uint64) []byte  { return head(0, n) }
func cBytes(b []byte) []byte { return append(head(2, uint64(len(b))), b...) }
func cText(s string) []byte  { return append(head(3, uint64(len(s))), s...) }
func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// cArray encodes an array of already encoded items.
func cArray(items ...[]byte) []byte {
	return cat(append([][]byte{head(4, uint64(len(items)))}, items...)...)
}

// cMap encodes a map of already encoded keys and values, k1, v1, k2, v2,
// in the order given (no sorting: the caller decides what is canonical).
func cMap(kv ...[]byte) []byte {
	if len(kv)%2 != 0 {
		panic("odd map")
	}
	return cat(append([][]byte{head(5, uint64(len(kv)/2))}, kv...)...)
}

func cTextList(entries []string) []byte {
	items := make([][]byte, len(entries))
	for i, e := range entries {
		items[i] = cText(e)
	}
	return cArray(items...)
}

// item is a parsed CBOR data item with knobs for writing it back in
// non-canonical forms.
type item struct {
	major byte
	arg   uint64 // integers and simple values
	str   []byte // byte and text strings
	kids  []item // array items; map keys and values interleaved

	width int     // head argument width in bytes; 0 = shortest
	indef bool    // indefinite length (strings: one chunk)
	tag   *uint64 // enclosing tag
	raw   []byte  // emitted verbatim instead, when set
}

// parseItem parses one definite-length item from b (input we wrote
// ourselves; it panics on anything else) and returns it and its length.
func parseItem(b []byte) (item, int) {
	ib := b[0]
	major, ai := ib>>5, ib&0x1f
	var arg uint64
	n := 1
	switch {
	case ai < 24:
		arg = uint64(ai)
	case ai == 24:
		arg, n = uint64(b[1]), 2
	case ai == 25:
		arg, n = uint64(binary.BigEndian.Uint16(b[1:])), 3
	case ai == 26:
		arg, n = uint64(binary.BigEndian.Uint32(b[1:])), 5
	case ai == 27:
		arg, n = binary.BigEndian.Uint64(b[1:]), 9
	default:
		panic("parseItem: unsupported head")
	}
	it := item{major: major, arg: arg}
	switch major {
	case 2, 3:
		it.str = append([]byte(nil), b[n:n+int(arg)]...)
		n += int(arg)
	case 4, 5:
		count := int(arg)
		if major == 5 {
			count *= 2
		}
		for range count {
			k, m := parseItem(b[n:])
			it.kids = append(it.kids, k)
			n += m
		}
	case 6:
		panic("parseItem: tag")
	}
	return it, n
}

func mustParse(b []byte) item {
	it, n := parseItem(b)
	if n != len(b) {
		panic("mustParse: trailing bytes")
	}
	return it
}

func (it item) enc() []byte {
	if it.raw != nil {
		return it.raw
	}
	var out []byte
	if it.tag != nil {
		out = head(6, *it.tag)
	}
	switch it.major {
	case 0, 1, 7:
		return append(out, headW(it.major, it.arg, it.width)...)
	case 2, 3:
		if it.indef {
			out = append(out, it.major<<5|31)
			out = append(out, headW(it.major, uint64(len(it.str)), it.width)...)
			return append(append(out, it.str...), 0xff)
		}
		return append(append(out, headW(it.major, uint64(len(it.str)), it.width)...), it.str...)
	default: // 4, 5
		count := uint64(len(it.kids))
		if it.major == 5 {
			count /= 2
		}
		if it.indef {
			out = append(out, it.major<<5|31)
		} else {
			out = append(out, headW(it.major, count, it.width)...)
		}
		for _, k := range it.kids {
			out = append(out, k.enc()...)
		}
		if it.indef {
			out = append(out, 0xff)
		}
		return out
	}
}

func (it item) clone() item {
	c := it
	c.str = append([]byte(nil), it.str...)
	c.kids = make([]item, len(it.kids))
	for i, k := range it.kids {
		c.kids[i] = k.clone()
	}
	return c
}

// find returns the first item in depth-first pre-order satisfying ok.
func (it *item) find(ok func(*item) bool) *item {
	if ok(it) {
		return it
	}
	for i := range it.kids {
		if f := it.kids[i].find(ok); f != nil {
			return f
		}
	}
	return nil
}

func wider(it *item) int {
	switch {
	case it.width != 0:
		return it.width * 2
	case it.arg < 24 && (it.major == 0 || it.major == 1):
		return 1
	}
	n := it.arg
	if it.major >= 2 && it.major <= 5 {
		n = uint64(len(it.str))
		if it.major >= 4 {
			n = uint64(len(it.kids))
			if it.major == 5 {
				n /= 2
			}
		}
	}
	switch {
	case n < 24:
		return 1
	case n <= math.MaxUint8:
		return 2
	case n <= math.MaxUint16:
		return 4
	}
	return 8
}

func isInt(it *item) bool  { return it.major == 0 }
func isStr(it *item) bool  { return it.major == 2 || it.major == 3 }
func isText(it *item) bool { return it.major == 3 && len(it.str) > 0 }

func tagp(n uint64) *uint64 { return &n }

// half returns the IEEE 754 half-precision bits of a small integer.
func half(n uint64) (uint16, bool) {
	if n > 2048 {
		return 0, false
	}
	if n == 0 {
		return 0, true
	}
	f := math.Float32bits(float32(n))
	exp := int(f>>23&0xff) - 127 + 15
	return uint16(exp)<<10 | uint16(f>>13&0x3ff), true
}

// variant is a named encoding. must marks an encoding that breaks the
// canonical form itself (RFC 8949 §4.2.1, spec/FORMAT.md §1), which every
// strict decoder refuses whatever it expects; the others break only the
// schema of some items (an unknown field, a wrong type, an empty value).
type variant struct {
	name string
	data []byte
	must bool
}

// prefix returns "noncanon-" for a must-refuse variant, else "malformed-".
func (v variant) prefix() string {
	if v.must {
		return "noncanon-"
	}
	return "malformed-"
}

// noncanonical returns encodings of the canonical item b that a strict
// decoder must refuse, one per class of RFC 8949 §4.2.1 violation (and a
// few more: unknown fields, empty values, nesting, wrong types). Classes
// that do not apply to b are skipped.
func noncanonical(b []byte) []variant {
	var out []variant
	schema := map[string]bool{"unsorted-list": true, "duplicate-list-entry": true, "negative-for-int": true,
		"bool-for-int": true, "empty-value": true, "unknown-field": true, "text-map-key": true}
	add := func(name string, f func(it *item) bool) {
		it := mustParse(b).clone()
		if f(&it) {
			out = append(out, variant{name, it.enc(), !schema[name]})
		}
	}
	add("nonshortest-int", func(it *item) bool {
		p := it.find(isInt)
		if p == nil {
			return false
		}
		p.width = wider(p)
		return true
	})
	add("nonshortest-len-string", func(it *item) bool {
		p := it.find(isStr)
		if p == nil {
			return false
		}
		p.width = wider(p)
		return true
	})
	add("nonshortest-len-container", func(it *item) bool {
		p := it.find(func(i *item) bool { return i.major == 4 || i.major == 5 })
		if p == nil {
			return false
		}
		p.width = wider(p)
		return true
	})
	add("indefinite-container", func(it *item) bool {
		p := it.find(func(i *item) bool { return i.major == 4 || i.major == 5 })
		if p == nil {
			return false
		}
		p.indef = true
		return true
	})
	add("indefinite-string", func(it *item) bool {
		p := it.find(isStr)
		if p == nil {
			return false
		}
		p.indef = true
		return true
	})
	add("unsorted-map-keys", func(it *item) bool {
		p := it.find(func(i *item) bool { return i.major == 5 && len(i.kids) >= 4 })
		if p == nil {
			return false
		}
		p.kids[0], p.kids[1], p.kids[2], p.kids[3] = p.kids[2], p.kids[3], p.kids[0], p.kids[1]
		return true
	})
	add("duplicate-map-key", func(it *item) bool {
		p := it.find(func(i *item) bool { return i.major == 5 && len(i.kids) >= 2 })
		if p == nil {
			return false
		}
		p.kids = append(p.kids[:2:2], append([]item{p.kids[0].clone(), p.kids[1].clone()}, p.kids[2:]...)...)
		return true
	})
	add("unsorted-list", func(it *item) bool {
		p := it.find(func(i *item) bool { return i.major == 4 && len(i.kids) >= 2 })
		if p == nil {
			return false
		}
		p.kids[0], p.kids[1] = p.kids[1], p.kids[0]
		return true
	})
	add("duplicate-list-entry", func(it *item) bool {
		p := it.find(func(i *item) bool { return i.major == 4 && len(i.kids) >= 1 })
		if p == nil {
			return false
		}
		p.kids = append([]item{p.kids[0].clone()}, p.kids...)
		return true
	})
	add("tag-outer-55799", func(it *item) bool { it.tag = tagp(55799); return true })
	add("tag-inner", func(it *item) bool {
		if p := it.find(func(i *item) bool { return i != it && i.major == 2 }); p != nil {
			p.tag = tagp(24) // embedded CBOR
			return true
		}
		if p := it.find(func(i *item) bool { return i != it && (i.major == 0 || i.major == 3) }); p != nil {
			p.tag = tagp(1)
			return true
		}
		return false
	})
	add("bignum-for-int", func(it *item) bool {
		p := it.find(isInt)
		if p == nil {
			return false
		}
		var be [8]byte
		binary.BigEndian.PutUint64(be[:], p.arg)
		p.raw = append(head(6, 2), cBytes(be[:])...)
		return true
	})
	add("float16-for-int", func(it *item) bool {
		p := it.find(isInt)
		if p == nil {
			return false
		}
		h, ok := half(p.arg)
		if !ok {
			return false
		}
		p.raw = []byte{0xf9, byte(h >> 8), byte(h)}
		return true
	})
	add("float64-for-int", func(it *item) bool {
		p := it.find(isInt)
		if p == nil {
			return false
		}
		p.raw = binary.BigEndian.AppendUint64([]byte{0xfb}, math.Float64bits(float64(p.arg)))
		return true
	})
	add("negative-for-int", func(it *item) bool {
		p := it.find(isInt)
		if p == nil {
			return false
		}
		p.major = 1
		return true
	})
	add("bool-for-int", func(it *item) bool {
		p := it.find(isInt)
		if p == nil {
			return false
		}
		p.raw = []byte{0xf5}
		return true
	})
	for _, sv := range []struct {
		name string
		b    byte
	}{{"null", 0xf6}, {"undefined", 0xf7}, {"simple-0", 0xe0}} {
		add(sv.name+"-value", func(it *item) bool {
			if it.major == 5 && len(it.kids) >= 2 {
				it.kids[len(it.kids)-1] = item{raw: []byte{sv.b}}
				return true
			}
			if it.major == 4 && len(it.kids) >= 1 {
				it.kids[0] = item{raw: []byte{sv.b}}
				return true
			}
			*it = item{raw: []byte{sv.b}}
			return true
		})
	}
	add("empty-value", func(it *item) bool {
		if it.major != 5 || len(it.kids) < 2 {
			return false
		}
		v := &it.kids[len(it.kids)-1]
		switch v.major {
		case 0:
			v.arg = 0
		case 2, 3:
			v.str = nil
		case 4, 5:
			v.kids = nil
		default:
			return false
		}
		return true
	})
	add("invalid-utf8", func(it *item) bool {
		p := it.find(isText)
		if p == nil {
			return false
		}
		p.str[0] = 0xff
		return true
	})
	add("overlong-utf8", func(it *item) bool {
		p := it.find(isText)
		if p == nil {
			return false
		}
		p.str = append([]byte{0xc0, 0xaf}, p.str...) // overlong "/"
		return true
	})
	add("unknown-field", func(it *item) bool {
		if it.major != 5 || len(it.kids) < 2 || it.kids[len(it.kids)-2].major != 0 {
			return false
		}
		k := it.kids[len(it.kids)-2].arg + 1
		it.kids = append(it.kids, item{major: 0, arg: k}, item{major: 0, arg: 0})
		return true
	})
	add("text-map-key", func(it *item) bool {
		if it.major != 5 || len(it.kids) < 2 || it.kids[0].major != 0 {
			return false
		}
		k, v := it.kids[0], it.kids[1]
		it.kids = append(it.kids[2:], item{major: 3, str: []byte(strconv.FormatUint(k.arg, 10))}, v)
		return true
	})
	add("deep-nesting", func(it *item) bool {
		for range 5 {
			*it = item{major: 4, kids: []item{*it}}
		}
		return true
	})
	out = append(out,
		variant{"trailing-zero-byte", append(append([]byte(nil), b...), 0x00), true},
		variant{"trailing-second-item", append(append([]byte(nil), b...), b...), true},
		variant{"truncated", append([]byte(nil), b[:len(b)-1]...), true},
		variant{"empty", []byte{}, true},
	)
	return out
}

// The HMAC chain of spec/FORMAT.md §4.1, by hand, so that seeds with
// non-canonical or over-limit blocks still carry a valid tag: the decoder
// alone must refuse them.
func hmacTag(key []byte, label string, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	m.Write(msg)
	return m.Sum(nil)
}

// handHMACTicket encodes a ticket of the given block bytes (block 0 names
// ticketID) with a valid tail or seal under secret.
func handHMACTicket(secret, ticketID []byte, blocks [][]byte, sealed bool) []byte {
	k := hmacTag(secret, "tickettool/v1 hmac key\x00", ticketID)
	for _, b := range blocks {
		k = hmacTag(k, "tickettool/v1 hmac block\x00", b)
	}
	bs := make([][]byte, len(blocks))
	for i, b := range blocks {
		bs[i] = cBytes(b)
	}
	if sealed {
		return cMap(cUint(1), cUint(1), cUint(2), cArray(bs...), cUint(5), cBytes(hmacTag(k, "tickettool/v1 hmac seal\x00", nil)))
	}
	return cMap(cUint(1), cUint(1), cUint(2), cArray(bs...), cUint(4), cBytes(k))
}

// cavPair is one caveat of a hand block: its kind and encoded value.
type cavPair struct {
	kind  uint64
	value []byte
}

// handBlock0 encodes an HMAC block 0 with the caveats in the order given.
func handBlock0(keyID string, ticketID []byte, cs ...cavPair) []byte {
	return cMap(cUint(1), cUint(1), cUint(2), cText(keyID), cUint(3), cBytes(ticketID), cUint(4), cavMap(cs...))
}

func handBlock(cs ...cavPair) []byte { return cMap(cUint(4), cavMap(cs...)) }

func cavMap(cs ...cavPair) []byte {
	var kv [][]byte
	for _, c := range cs {
		kv = append(kv, cUint(c.kind), c.value)
	}
	return cMap(kv...)
}

// handTicketID is the ticket id of hand-built tickets.
var handTicketID = []byte("fuzz-ticket-id16")

// spliceBstr replaces the byte string whose content is old inside enc
// (whose head precedes it) with one holding repl; counts of enclosing
// arrays and maps are unchanged, so the result is well-formed.
func spliceBstr(enc, old, repl []byte) ([]byte, error) {
	h := head(2, uint64(len(old)))
	for i := len(h); i+len(old) <= len(enc); i++ {
		if string(enc[i-len(h):i]) == string(h) && string(enc[i:i+len(old)]) == string(old) {
			return cat(enc[:i-len(h)], cBytes(repl), enc[i+len(old):]), nil
		}
	}
	return nil, fmt.Errorf("byte string not found")
}
