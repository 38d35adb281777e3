package caveat

import (
	"crypto/sha256"

	"github.com/tickettool/tickettool/internal/jcs"
	"github.com/tickettool/tickettool/internal/smallorder"
)

// Approver names who must approve, in an approval caveat: a call needs a
// discharge signed by Key and bound to the ticket (package token makes
// and package verify checks discharges). The key is inline, so checking
// needs no keyring and stays offline.
type Approver struct {
	// KeyID is the approver's key id, under package key's one rule:
	// 1 to 64 bytes of printable ASCII other than space and '+'.
	KeyID string
	// Key is the approver's Ed25519 public key, never one of the 14
	// encodings of a point of small order (under which a signature
	// verifies without any private key).
	Key [32]byte
	// Nonce is random (the caller draws it: this package has no
	// randomness), so that two approvals by one approver in one ticket,
	// or in two tickets with equal blocks, are distinct.
	Nonce [16]byte
	// Location is optional: a URL or a note for people saying where to
	// ask for the approval; 0 to 256 bytes, printable (as an intent).
	Location string
}

// NewApproval returns approval=a: a call needs a discharge signed by a.Key
// (see [Approver] for the rules of each field).
func NewApproval(a Approver) (Caveat, error) {
	return checked(Caveat{Kind: Approval, Approver: &a})
}

// NewArgs returns args=digest: the call's arguments must have this
// SHA-256 digest of their RFC 8785 canonical form (see [ArgsDigest]). The
// digest is copied.
func NewArgs(digest []byte) (Caveat, error) {
	if len(digest) != argsSize {
		return Caveat{}, syntaxErr(Args, "must be a 32-byte SHA-256 digest")
	}
	return Caveat{Kind: Args, Bytes: append([]byte(nil), digest...)}, nil
}

// ArgsDigest returns the SHA-256 of the RFC 8785 (JCS) canonical form of
// the JSON text json: the value of an args caveat, and of
// [Request].Args. It refuses (an *[Error] wrapping [ErrSyntax]) what JCS
// cannot canonicalise: invalid JSON or UTF-8, escaped lone surrogates,
// two member names of one object equal under case folding (duplicates
// included, at any depth), numbers that are not finite IEEE 754 doubles
// or would change their value, nesting deeper than 32, input over 1 MiB
// (spec/CAVEATS.md, "The args digest").
func ArgsDigest(json []byte) ([]byte, error) {
	c, err := jcs.Canonical(json)
	if err != nil {
		return nil, syntaxErr(Args, "arguments: %v", err)
	}
	d := sha256.Sum256(c)
	return d[:], nil
}

// problem returns why a is not a valid approver, or "".
func (a Approver) problem() string {
	if why := keyIDProblem(a.KeyID); why != "" {
		return why
	}
	if smallorder.Is(a.Key[:]) {
		return "the approver key is an Ed25519 point of small order, under which anyone can sign"
	}
	if len(a.Location) > maxLocation {
		return "location is longer than 256 bytes"
	}
	if a.Location != "" {
		if why := printProblem(a.Location); why != "" {
			return "location " + why
		}
	}
	return ""
}

// keyIDProblem states package key's key-id rule (key.checkID), which this
// package does not import: 1 to 64 bytes, each 0x21..0x7E but '+'. A test in
// package key holds the two to the same answers.
func keyIDProblem(id string) string {
	if id == "" || len(id) > maxKeyID {
		return "key id must be 1 to 64 bytes"
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' || c == '+' {
			return "key id must be printable ASCII without spaces or '+'"
		}
	}
	return ""
}

// Lengths of the unpadded base64url text of an approver's key and nonce.
const (
	keyTextLen   = 43
	nonceTextLen = 22
)

// parseApproval parses KEYID:KEY:NONCE[:LOCATION] (see [Parse]).
func parseApproval(val string) (Caveat, error) {
	for i := 2; i+keyTextLen+1+nonceTextLen <= len(val); i++ {
		j := i + keyTextLen // the ':' between KEY and NONCE
		end := j + 1 + nonceTextLen
		if val[i-1] != ':' || val[j] != ':' || (end < len(val) && val[end] != ':') ||
			!isB64(val[i:j]) || !isB64(val[j+1:end]) {
			continue
		}
		var a Approver
		a.KeyID = val[:i-1]
		key, err1 := jktEncoding.DecodeString(val[i:j])
		nonce, err2 := jktEncoding.DecodeString(val[j+1 : end])
		if err1 != nil || err2 != nil {
			return Caveat{}, syntaxErr(Approval, "key or nonce is not canonical unpadded base64url")
		}
		copy(a.Key[:], key)
		copy(a.Nonce[:], nonce)
		if end < len(val) {
			if a.Location = val[end+1:]; a.Location == "" {
				return Caveat{}, syntaxErr(Approval, "empty location after ':'")
			}
		}
		return NewApproval(a)
	}
	return Caveat{}, syntaxErr(Approval, "want KEYID:KEY:NONCE[:LOCATION], KEY 43 and NONCE 22 characters of unpadded base64url")
}

// isB64 reports whether s is made of the unpadded base64url alphabet.
func isB64(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
