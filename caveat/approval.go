package caveat

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"

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

	// Members, when not nil, makes this a threshold approval: a call needs
	// discharges from Need distinct members. It holds 2 to [MaxApprovers]
	// approvers sorted by key id (bytewise), no two with one key id or one
	// key; KeyID and Key are then empty. One approver is always written
	// with KeyID and Key (Members nil, Need 0), so that one approval has
	// one encoding (spec/FORMAT.md §4.6).
	Members []Member
	// Need is the threshold k of a threshold approval, 1 to len(Members);
	// 0 when Members is nil.
	Need int
}

// Member is one approver of a threshold approval: a key id under package
// key's rule and an Ed25519 public key, never of small order.
type Member struct {
	KeyID string
	Key   [32]byte
}

// Set returns the approvers a names: Members, or the one approver KeyID
// and Key. The slice is a's own for a threshold approval: do not modify it.
func (a *Approver) Set() []Member {
	if a.Members != nil {
		return a.Members
	}
	return []Member{{KeyID: a.KeyID, Key: a.Key}}
}

// Threshold returns how many distinct approvers of [Approver.Set] must
// approve a call: Need, or 1 for a single approver.
func (a *Approver) Threshold() int {
	if a.Members != nil {
		return a.Need
	}
	return 1
}

// NewThreshold returns an approval that needs discharges from need of
// the members (sorted here, on a copy), under one nonce and location. One
// member gives the single-approver caveat of [NewApproval] (need must
// then be 1).
func NewThreshold(need int, members []Member, nonce [16]byte, location string) (Caveat, error) {
	if len(members) == 1 {
		if need != 1 {
			return Caveat{}, syntaxErr(Approval, "one approver needs a threshold of 1")
		}
		return NewApproval(Approver{KeyID: members[0].KeyID, Key: members[0].Key, Nonce: nonce, Location: location})
	}
	m := slices.Clone(members)
	slices.SortFunc(m, func(x, y Member) int { return strings.Compare(x.KeyID, y.KeyID) })
	return NewApproval(Approver{Members: m, Need: need, Nonce: nonce, Location: location})
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
	if a.Members != nil {
		if why := a.setProblem(); why != "" {
			return why
		}
	} else if a.Need != 0 {
		return "a threshold needs 2 or more approvers"
	} else if why := (Member{a.KeyID, a.Key}).problem(); why != "" {
		return why
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

// setProblem returns why the members and threshold of a threshold
// approval are not valid, or "".
func (a Approver) setProblem() string {
	m := a.Members
	switch {
	case a.KeyID != "" || a.Key != [32]byte{}:
		return "a threshold approval names its approvers in Members only"
	case len(m) < 2 || len(m) > MaxApprovers:
		return fmt.Sprintf("a threshold approval names 2 to %d approvers", MaxApprovers)
	case a.Need < 1 || a.Need > len(m):
		return fmt.Sprintf("the threshold must be 1 to %d, the number of approvers", len(m))
	}
	for i, x := range m {
		if why := x.problem(); why != "" {
			return why
		}
		if i > 0 && m[i-1].KeyID >= x.KeyID {
			return "approvers must be sorted by key id, without duplicates"
		}
		for _, y := range m[:i] {
			if y.Key == x.Key {
				return "two approvers with one key"
			}
		}
	}
	return ""
}

// problem returns why m is not a valid approver, or "".
func (m Member) problem() string {
	if why := keyIDProblem(m.KeyID); why != "" {
		return why
	}
	if smallorder.Is(m.Key[:]) {
		return "the approver key is an Ed25519 point of small order, under which anyone can sign"
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

// parseApproval parses KEYID:KEY:NONCE[:LOCATION] or, with a threshold,
// K of KEYID:KEY KEYID:KEY …:NONCE[:LOCATION] (see [Parse]). Key ids
// have no spaces, so every approver but the last is one space-free
// field ending in ":KEY"; the last is read with the nonce and location
// as a single approver is (a field holding ":KEY:NONCE" is longer than a
// key id, so it is never taken for one approver).
func parseApproval(val string) (Caveat, error) {
	k, rest, ok := strings.Cut(val, " of ")
	if !ok || k == "" || strings.Trim(k, "0123456789") != "" {
		return parseSingle(val) // a single approver's " of " is in its location
	}
	need, err := strconv.Atoi(k)
	if err != nil || need < 1 || need > MaxApprovers || strconv.Itoa(need) != k {
		return Caveat{}, syntaxErr(Approval, "threshold must be a number 1 to %d, as in 2 of A:KEY B:KEY:NONCE", MaxApprovers)
	}
	var members []Member
	for {
		field, after, more := strings.Cut(rest, " ")
		m, ok := memberText(field)
		if !more || !ok {
			break
		}
		members, rest = append(members, m), after
		if len(members) == MaxApprovers {
			break
		}
	}
	last, err := parseSingle(rest)
	if err != nil {
		return Caveat{}, err
	}
	a := last.Approver
	members = append(members, Member{KeyID: a.KeyID, Key: a.Key})
	if len(members) < 2 {
		return Caveat{}, syntaxErr(Approval, "a threshold approval names 2 to %d approvers, separated by spaces", MaxApprovers)
	}
	if !slices.IsSortedFunc(members, func(x, y Member) int { return strings.Compare(x.KeyID, y.KeyID) }) {
		return Caveat{}, syntaxErr(Approval, "approvers must be sorted by key id")
	}
	return NewApproval(Approver{Members: members, Need: need, Nonce: a.Nonce, Location: a.Location})
}

// memberText parses KEYID:KEY, KEY 43 characters of unpadded base64url.
func memberText(s string) (Member, bool) {
	i := len(s) - keyTextLen
	if i < 2 || s[i-1] != ':' || !isB64(s[i:]) || keyIDProblem(s[:i-1]) != "" {
		return Member{}, false
	}
	key, err := jktEncoding.DecodeString(s[i:])
	if err != nil {
		return Member{}, false
	}
	return Member{KeyID: s[:i-1], Key: [32]byte(key)}, true
}

// parseSingle parses KEYID:KEY:NONCE[:LOCATION].
func parseSingle(val string) (Caveat, error) {
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
