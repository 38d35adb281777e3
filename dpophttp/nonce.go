package dpophttp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/internal/strictjson"
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
	last   atomic.Pointer[issued] // the latest window's nonce, computed once
}

// issued is the nonce of window i.
type issued struct {
	i     uint64
	nonce string
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

// current returns the nonce to hand out at now.
func (n *nonces) current(now time.Time) string { return n.of(n.index(now)) }

// of returns the nonce of window i, from the cache when it is the latest
// window's.
func (n *nonces) of(i uint64) string {
	if l := n.last.Load(); l != nil && l.i == i {
		return l.nonce
	}
	s := n.issue(i)
	if l := n.last.Load(); l == nil || l.i < i {
		n.last.Store(&issued{i: i, nonce: s})
	}
	return s
}

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
	if subtle.ConstantTimeCompare([]byte(s), []byte(n.of(i))) != 1 {
		return false, false
	}
	return true, i == cur
}

// unverifiedNonce returns the nonce claim of a proof whose signature has
// not been checked yet, or "". It only chooses which nonce the verifier
// then demands (dpop.Expectations.Nonce): a proof whose signed claims
// hold another nonce is refused there. The claims are read by the strict
// scanner package dpop reads them with.
func unverifiedNonce(proof string) string {
	if len(proof) > dpop.MaxProofBytes {
		return ""
	}
	_, rest, ok := strings.Cut(proof, ".")
	payload, _, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || !strictjson.Object(b) {
		return ""
	}
	var nonce string
	strictjson.EachMember(b, func(name, value []byte) bool {
		if string(name) != "nonce" {
			return true
		}
		if s, ok := strictjson.StringValue(value); ok {
			nonce = string(s)
		}
		return false
	})
	return nonce
}
