package key

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding"
	"hash"
	"sync"
)

// hmacPads hold an HMAC-SHA256 secret's two SHA-256 midstates (RFC 2104):
// the states after hashing secret ⊕ ipad and secret ⊕ opad, computed once
// per key, so that a MAC of a short message costs two SHA-256 blocks, not
// four. They are as secret as the secret (they live in material).
type hmacPads struct {
	inner, outer []byte // encoding.BinaryMarshaler states of crypto/sha256
	states       sync.Pool
}

// macState is a reusable SHA-256 state and its buffers. The message is
// copied into buf, so that a caller's slice never escapes to the heap
// through the hash.Hash interface.
type macState struct {
	h        hash.Hash
	buf      [maxFastMAC]byte
	sum, out [sha256.Size]byte
}

func newPads(secret []byte) *hmacPads {
	p := &hmacPads{}
	var pad [sha256.BlockSize]byte
	h := sha256.New()
	for _, c := range []struct {
		x   byte
		dst *[]byte
	}{{0x36, &p.inner}, {0x5c, &p.outer}} {
		copy(pad[:], secret)
		for i := range pad {
			pad[i] ^= c.x
		}
		h.Reset()
		h.Write(pad[:])
		*c.dst, _ = h.(encoding.BinaryMarshaler).MarshalBinary()
		clear(pad[:])
	}
	h.Reset()
	return p
}

// sum returns HMAC-SHA256(secret, msg) for the secret of p. A message of up
// to maxFastMAC bytes resumes the precomputed midstates in a pooled state,
// without allocating; crypto/hmac, which stays the reference
// (TestMACIsHMAC), hashes longer ones.
func (p *hmacPads) sum(secret, msg []byte) [32]byte {
	if len(msg) > maxFastMAC {
		h := hmac.New(sha256.New, secret)
		h.Write(bytes.Clone(msg)) // a copy, so that msg does not escape to the heap on the fast path
		return [32]byte(h.Sum(nil))
	}
	s, _ := p.states.Get().(*macState)
	if s == nil {
		s = &macState{h: sha256.New()}
	}
	u := s.h.(encoding.BinaryUnmarshaler)
	u.UnmarshalBinary(p.inner) // a state this package marshaled: it cannot fail
	n := copy(s.buf[:], msg)
	s.h.Write(s.buf[:n])
	s.h.Sum(s.sum[:0])
	u.UnmarshalBinary(p.outer)
	s.h.Write(s.sum[:])
	s.h.Sum(s.out[:0])
	out := s.out
	clear(s.buf[:n])
	s.sum, s.out = [sha256.Size]byte{}, [sha256.Size]byte{}
	s.h.Reset() // no state derived from the secret stays in the pool
	p.states.Put(s)
	return out
}
