package bench

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// minimalHMACVerify is the floor of an HMAC-mode verify of the scenario's
// ticket: base64url, then just enough CBOR to find the blocks, the ticket
// id and the tail (heads read without any check of canonical form, types
// or limits), then the chain of spec/FORMAT.md §4.1 (K, T_0 … T_n: one
// HMAC-SHA256 per block and one for the key) and a constant-time compare.
// It decodes no caveat, checks nothing else and computes no block id: it
// is what no HMAC verifier of this format can avoid, not a verifier (it
// trusts its input to be well formed, and panics otherwise).
func minimalHMACVerify(text string, root []byte) error {
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(text, token.Prefix))
	if err != nil {
		return err
	}
	var blocks [8][]byte
	var tail []byte
	nb := 0
	pairs, off := minHead(data, 0)
	for ; pairs > 0; pairs-- {
		var key, n uint64
		key, off = minHead(data, off)
		switch key {
		case 2: // blocks: an array of byte strings
			n, off = minHead(data, off)
			for ; n > 0; n-- {
				var l uint64
				l, off = minHead(data, off)
				blocks[nb], nb, off = data[off:off+int(l)], nb+1, off+int(l)
			}
		case 4: // tail: a byte string
			n, off = minHead(data, off)
			tail, off = data[off:off+int(n)], off+int(n)
		default: // the version: an unsigned integer
			_, off = minHead(data, off)
		}
	}
	// Block 0's field 3 is the ticket id; fields 1 and 2 (an integer and
	// a text string) come before it.
	var id []byte
	b0 := blocks[0]
	pairs, off = minHead(b0, 0)
	for ; pairs > 0 && id == nil; pairs-- {
		var key, v uint64
		key, off = minHead(b0, off)
		major := b0[off] >> 5
		v, off = minHead(b0, off)
		if key == 3 {
			id = b0[off : off+int(v)]
		}
		if major == 2 || major == 3 {
			off += int(v)
		}
	}
	var m minimalMAC
	k := m.tag(root, "tickettool/v1 hmac key\x00", id)
	for _, b := range blocks[:nb] {
		k = m.tag(k[:], "tickettool/v1 hmac block\x00", b)
	}
	if subtle.ConstantTimeCompare(k[:], tail) != 1 {
		return errors.New("minimal floor: tag does not verify")
	}
	return nil
}

// minHead returns the argument of the CBOR head at off and the offset past
// it.
func minHead(b []byte, off int) (arg uint64, next int) {
	ai := b[off] & 0x1f
	if ai < 24 {
		return uint64(ai), off + 1
	}
	n := 1 << (ai - 24)
	for _, c := range b[off+1 : off+1+n] {
		arg = arg<<8 | uint64(c)
	}
	return arg, off + 1 + n
}

// minimalMAC is HMAC-SHA256 (RFC 2104) for keys of at most 64 bytes and
// short messages, as two sha256.Sum256 calls over one buffer: the cheapest
// way the standard library offers when every key differs.
type minimalMAC struct{ buf [64 + 448]byte }

func (m *minimalMAC) tag(key []byte, label string, msg []byte) [32]byte {
	pad := m.buf[:64]
	clear(pad)
	copy(pad, key)
	for i := range pad {
		pad[i] ^= 0x36
	}
	n := 64 + copy(m.buf[64:], label)
	n += copy(m.buf[n:], msg)
	inner := sha256.Sum256(m.buf[:n])
	for i := range pad {
		pad[i] ^= 0x36 ^ 0x5c
	}
	copy(m.buf[64:], inner[:])
	return sha256.Sum256(m.buf[:64+32])
}

// TestMinimalFloorVerifies: the floor does the chain's work for real: it
// accepts the scenario's ticket and refuses it once one byte of a block,
// or the root secret, changes.
func TestMinimalFloorVerifies(t *testing.T) {
	tt := newTickettool(t, key.HMACSHA256, false)
	text := string(must(tt.mint())(t))
	root := fixedBytes(key.HMACBytes, 1)
	if err := minimalHMACVerify(text, root); err != nil {
		t.Fatalf("scenario ticket: %v", err)
	}
	tk := must(token.Parse(text))(t)
	bs := tk.UnverifiedBlocks()
	data := tk.Encode()
	last := bs[len(bs)-1].Bytes()
	i := strings.Index(string(data), string(last)) + len(last) - 1
	data[i] ^= 1 // the last byte of the last block: a path's "/"
	if err := minimalHMACVerify(token.Prefix+base64.RawURLEncoding.EncodeToString(data), root); err == nil {
		t.Error("a changed block verified")
	}
	if err := minimalHMACVerify(text, fixedBytes(key.HMACBytes, 9)); err == nil {
		t.Error("another root secret verified")
	}
}
