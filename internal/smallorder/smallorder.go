// Package smallorder recognises the Ed25519 public keys of small order, under
// which a signature verifies without any private key. Package key refuses
// them as root keys, package token as the next keys of a chain.
package smallorder

import (
	"bytes"
	"encoding/hex"
)

// smallOrderY are the y-coordinates (RFC 8032 §5.1.2 encoding, little
// endian, sign bit clear) of the Ed25519 points of small order, canonical
// or not: 0 and 1, the two of order 8, p-1, p and p+1. With the sign bit
// set or clear they are the 14 encodings of spec/FORMAT.md §4.2. Under such
// a public key a signature verifies without knowing any private key (for
// the identity point, R = 01 00…00 and S = 0 verify every message), so a
// next key or root key of small order would let anyone append to, seal,
// or cut back and seal a ticket.
var smallOrderY = func() [][]byte {
	var ys [][]byte
	for _, h := range []string{
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0100000000000000000000000000000000000000000000000000000000000000",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	} {
		y, err := hex.DecodeString(h)
		if err != nil || len(y) != 32 {
			panic("smallorder: bad table")
		}
		ys = append(ys, y)
	}
	return ys
}()

// Is reports whether pub, a 32-byte Ed25519 public key, encodes a
// point of small order.
func Is(pub []byte) bool {
	if len(pub) != 32 {
		return false
	}
	var y [32]byte
	copy(y[:], pub)
	y[31] &^= 0x80
	for _, s := range smallOrderY {
		if bytes.Equal(y[:], s) {
			return true
		}
	}
	return false
}
