package dpophttp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strings"
	"time"

	"github.com/tickettool/tickettool/dpop"
)

// NonceHeader is the response header that carries a server nonce (RFC
// 9449 §8.1).
const NonceHeader = "DPoP-Nonce"

// nonceLabel separates the nonce MAC from every other use of the key.
const nonceLabel = "tickettool dpop nonce v1\x00"

// nonces are stateless: a nonce is a window number and a MAC over it and
// the server's public URL, so every server holding the key accepts what
// any of them issued, with no store. A nonce is accepted in the window it
// was issued in and the next one.
type nonces struct {
	key    []byte
	origin string
	window time.Duration
}

func newNonces(key []byte, origin string, window time.Duration) *nonces {
	return &nonces{key: append([]byte(nil), key...), origin: origin, window: window}
}

// index is the window now falls in.
func (n *nonces) index(now time.Time) uint64 {
	return uint64(now.UnixNano() / int64(n.window))
}

// issue returns the nonce of window i.
func (n *nonces) issue(i uint64) string {
	var b [8 + 16]byte
	binary.BigEndian.PutUint64(b[:8], i)
	copy(b[8:], n.mac(i))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (n *nonces) mac(i uint64) []byte {
	h := hmac.New(sha256.New, n.key)
	h.Write([]byte(nonceLabel))
	h.Write([]byte(n.origin))
	h.Write([]byte{0})
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], i)
	h.Write(b[:])
	return h.Sum(nil)[:16]
}

// Current returns the nonce to hand out at now.
func (n *nonces) current(now time.Time) string { return n.issue(n.index(now)) }

// check reports whether s is a nonce of the current window (fresh) or of
// the previous one (valid, but a fresh one is due).
func (n *nonces) check(s string, now time.Time) (valid, fresh bool) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != 24 {
		return false, false
	}
	i, cur := binary.BigEndian.Uint64(b[:8]), n.index(now)
	if i != cur && i+1 != cur {
		return false, false
	}
	if !hmac.Equal(b[8:], n.mac(i)) {
		return false, false
	}
	return true, i == cur
}

// unverifiedNonce returns the nonce claim of a proof whose signature has
// not been checked yet, or "". It only chooses which nonce the verifier
// then demands (dpop.Expectations.Nonce): a proof whose signed claims
// hold another nonce is refused there.
func unverifiedNonce(proof string) string {
	if len(proof) > dpop.MaxProofBytes {
		return ""
	}
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var claims map[string]json.RawMessage
	if json.Unmarshal(payload, &claims) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(claims["nonce"], &s) != nil {
		return ""
	}
	return s
}
