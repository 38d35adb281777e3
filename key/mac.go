package key

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
)

var (
	innerPad     = [sha256.BlockSize]byte(repeat(0x36))
	innerToOuter = [sha256.BlockSize]byte(repeat(0x36 ^ 0x5c))
)

func repeat(b byte) []byte {
	s := make([]byte, sha256.BlockSize)
	for i := range s {
		s[i] = b
	}
	return s
}

// macSum returns HMAC-SHA256(secret, msg) (RFC 2104) for a secret of at
// most one SHA-256 block. A message of up to maxFastMAC bytes is hashed
// from one stack buffer in two calls of sha256.Sum256, without the
// allocations of crypto/hmac, which stays the reference (mac_test.go) and
// hashes longer messages.
func macSum(secret, msg []byte) [32]byte {
	if len(msg) > maxFastMAC || len(secret) > sha256.BlockSize {
		h := hmac.New(sha256.New, secret)
		h.Write(bytes.Clone(msg)) // a copy, so that msg does not escape to the heap on the fast path

		return [32]byte(h.Sum(nil))
	}
	var buf [sha256.BlockSize + maxFastMAC]byte
	pad := buf[:sha256.BlockSize]
	copy(pad, secret)
	subtle.XORBytes(pad, pad, innerPad[:]) // secret ⊕ ipad
	n := copy(buf[sha256.BlockSize:], msg)
	inner := sha256.Sum256(buf[:sha256.BlockSize+n])
	subtle.XORBytes(pad, pad, innerToOuter[:]) // secret ⊕ opad
	copy(buf[sha256.BlockSize:], inner[:])
	sum := sha256.Sum256(buf[:sha256.BlockSize+len(inner)])
	clear(pad)
	return sum
}
