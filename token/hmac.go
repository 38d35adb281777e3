package token

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
	"sync"
)

// Domain labels. Every tag and signature covers one of these (which carry
// the format version) before the bytes it protects; see spec/FORMAT.md §4.
const (
	labelHMACKey    = "tickettool/v1 hmac key\x00"
	labelHMACBlock  = "tickettool/v1 hmac block\x00"
	labelHMACSeal   = "tickettool/v1 hmac seal\x00"
	labelEdBlock    = "tickettool/v1 ed25519 block\x00"
	labelEdSeal     = "tickettool/v1 ed25519 seal\x00"
	labelBlockID    = "tickettool/v1 block id\x00"
	labelBind       = "tickettool/v1 approval\x00"  // a ticket's binding for an approval
	labelDischarge  = "tickettool/v1 discharge\x00" // an approver's discharge signature
	tagBytes        = sha256.Size
	shaBlockSize    = sha256.BlockSize
	hmacInnerPadXor = 0x36
	hmacOuterPadXor = 0x5c
)

// mac computes HMAC-SHA256 (RFC 2104) with keys of at most one SHA-256
// block. Every key in an HMAC chain differs (each tag keys the next), so
// crypto/hmac would need a new state per block; mac instead hashes the
// padded key and a short message from one buffer in a single call, and
// falls back to two reusable hash states for long messages. crypto/hmac
// stays the reference: tests and a fuzz target check that both agree.
type mac struct {
	inner hash.Hash // long messages only
	buf   [macBufBytes]byte
	sum   [tagBytes]byte
	out   [tagBytes]byte
}

// macBufBytes holds one padded key and a message of typical block size,
// so that most tags are two calls of sha256.Sum256.
const macBufBytes = shaBlockSize + 448

var (
	innerPad     = bytes.Repeat([]byte{hmacInnerPadXor}, shaBlockSize)
	innerToOuter = bytes.Repeat([]byte{hmacInnerPadXor ^ hmacOuterPadXor}, shaBlockSize)
)

var macPool = sync.Pool{New: func() any {
	return &mac{inner: sha256.New()}
}}

func getMAC() *mac { return macPool.Get().(*mac) }
func putMAC(m *mac) {
	clear(m.buf[:])
	m.sum, m.out = [tagBytes]byte{}, [tagBytes]byte{}
	m.inner.Reset()
	macPool.Put(m)
}

// Labels as byte slices, so that writing them allocates nothing.
var (
	bLabelHMACBlock = []byte(labelHMACBlock)
	bLabelHMACSeal  = []byte(labelHMACSeal)
)

// tag returns HMAC-SHA256(key, label ‖ a ‖ b). key must be at most 64 bytes.
func (m *mac) tag(key []byte, label []byte, a, b []byte) [tagBytes]byte {
	if len(key) > shaBlockSize {
		panic("token: internal error: hmac key longer than one block")
	}
	pad := m.buf[:shaBlockSize]
	clear(pad[len(key):])
	copy(pad, key)
	subtle.XORBytes(pad, pad, innerPad) // key ⊕ ipad
	if n := shaBlockSize + len(label) + len(a) + len(b); n <= len(m.buf) {
		msg := append(append(append(m.buf[shaBlockSize:shaBlockSize], label...), a...), b...)
		m.sum = sha256.Sum256(m.buf[:shaBlockSize+len(msg)])
	} else {
		m.inner.Reset()
		m.inner.Write(pad)
		m.inner.Write(label)
		m.inner.Write(a)
		m.inner.Write(b)
		m.inner.Sum(m.sum[:0])
	}
	subtle.XORBytes(pad, pad, innerToOuter) // key ⊕ opad
	copy(m.buf[shaBlockSize:], m.sum[:])
	m.out = sha256.Sum256(m.buf[:shaBlockSize+tagBytes])
	return m.out
}

// hmacAppend returns the tag of block b appended after tag prev.
func hmacAppend(prev []byte, b []byte) [tagBytes]byte {
	m := getMAC()
	defer putMAC(m)
	return m.tag(prev, bLabelHMACBlock, b, nil)
}

// hmacSeal returns the seal tag over the last tag.
func hmacSeal(last []byte) [tagBytes]byte {
	m := getMAC()
	defer putMAC(m)
	return m.tag(last, bLabelHMACSeal, nil, nil)
}

// equalTag compares tags in constant time.
func equalTag(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }

// BlockID identifies one block of one chain: the SHA-256 of a domain label
// and the block's tag or signature. It is public (it reveals nothing of the
// tag), stable, and what a verifier is handed to revoke a block and every
// ticket descending from it. It also keys budgets shared by a family.
type BlockID [32]byte

func blockID(proof []byte) BlockID {
	var buf [len(labelBlockID) + 64]byte
	n := copy(buf[:], labelBlockID)
	n += copy(buf[n:], proof)
	return BlockID(sha256.Sum256(buf[:n]))
}

// String returns the id as 64 lowercase hex digits.
func (id BlockID) String() string { return hex.EncodeToString(id[:]) }

// ParseBlockID parses the form String returns (lowercase hex only, so one
// id has one text).
func ParseBlockID(s string) (BlockID, error) {
	var id BlockID
	if len(s) != 2*len(id) || strings.ToLower(s) != s {
		return id, fmt.Errorf("token: block id must be 64 lowercase hex digits")
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("token: block id must be 64 lowercase hex digits")
	}
	return id, nil
}
