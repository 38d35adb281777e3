package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/escape"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// approvalUsage documents mint's and attenuate's approval flags.
const approvalUsage = `--approval PATH (repeatable) adds an approval caveat: every call then
needs a discharge signed by the approver whose Ed25519 public key file
PATH is (the .pub 'tickettool keygen --alg ed25519' writes), obtained
with 'tickettool approve'. The nonce is drawn at random. A block holds one
approval: the first goes into the block being made, each further one
into one more block appended right after it; a ticket holds at most 4.
--approval-location TEXT (a URL, or a note saying where to ask) applies
to the --approval just before it, and to that one only.
--approvals-needed K makes every --approval given one approval caveat
that needs discharges from K distinct approvers of them (1 <= K <= their
number <= 8; "2 of 3"); a location then applies to all of them, and may
be given once.
`

// approvalSpec is one --approval, with its --approval-location.
type approvalSpec struct {
	path, location string
	located        bool
}

// approvalFlags collects --approval and --approval-location in the order
// given, so that a location applies to the --approval before it.
type approvalFlags struct {
	specs []approvalSpec
	need  int // --approvals-needed; 0 when not given
}

type approvalsNeededFlag struct{ a *approvalFlags }

func (f approvalsNeededFlag) String() string { return "" }
func (f approvalsNeededFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > caveat.MaxApprovers {
		return fmt.Errorf("want a number 1 to %d", caveat.MaxApprovers)
	}
	f.a.need = n
	return nil
}

type approvalPathFlag struct{ a *approvalFlags }

func (f approvalPathFlag) String() string { return "" }
func (f approvalPathFlag) Set(s string) error {
	f.a.specs = append(f.a.specs, approvalSpec{path: s})
	return nil
}

type approvalLocationFlag struct{ a *approvalFlags }

func (f approvalLocationFlag) String() string { return "" }
func (f approvalLocationFlag) Set(s string) error {
	n := len(f.a.specs)
	switch {
	case n == 0:
		return errors.New("it applies to the --approval before it: give --approval PATH first")
	case f.a.specs[n-1].located:
		return errors.New("given twice for one --approval")
	case s == "":
		return errors.New("empty: leave --approval-location out for an approval without one")
	}
	f.a.specs[n-1].location, f.a.specs[n-1].located = s, true
	return nil
}

// addApprovalFlags registers --approval and --approval-location on fs.
func addApprovalFlags(fs *cmdFlags) *approvalFlags {
	a := &approvalFlags{}
	fs.Var(approvalPathFlag{a}, "approval", "add an approval by the approver whose public key file is `PATH` (repeatable)")
	fs.Var(approvalLocationFlag{a}, "approval-location", "where to ask for the preceding --approval: a URL or a note (`TEXT`)")
	fs.Var(approvalsNeededFlag{a}, "approvals-needed", "make the --approval keys one approval needing `K` of them")
	return a
}

// caveats reads each approver's public key and returns the approval
// caveats, each with a fresh random nonce. have is how many approval
// caveats the ticket has already.
func (a *approvalFlags) caveats(have int) ([]caveat.Caveat, error) {
	if a.need > 0 {
		return a.threshold(have)
	}
	if have+len(a.specs) > maxApprovals {
		return nil, fail(exitUsage, fmt.Errorf("a ticket holds at most %d approval caveats (it would have %d)", maxApprovals, have+len(a.specs)),
			"several approvers are a conjunction: ask for fewer, or for one approver who speaks for several people")
	}
	var out []caveat.Caveat
	for _, s := range a.specs {
		id, pub, err := readApproverPub(s.path)
		if err != nil {
			return nil, err
		}
		ap := caveat.Approver{KeyID: id, Key: pub, Location: s.location}
		if _, err := rand.Read(ap.Nonce[:]); err != nil {
			return nil, fmt.Errorf("reading randomness: %w", err)
		}
		c, err := caveat.NewApproval(ap)
		if err != nil {
			return nil, err // caveat.ErrSyntax: exit 2
		}
		out = append(out, c)
	}
	return out, nil
}

// threshold returns the one threshold approval of --approvals-needed.
func (a *approvalFlags) threshold(have int) ([]caveat.Caveat, error) {
	n := len(a.specs)
	switch {
	case n == 0:
		return nil, fail(exitUsage, errors.New("--approvals-needed without --approval"), "name the approvers with --approval PATH, once each")
	case a.need > n:
		return nil, fail(exitUsage, fmt.Errorf("--approvals-needed %d with %d --approval", a.need, n), "K is at most the number of approvers")
	case n > caveat.MaxApprovers:
		return nil, fail(exitUsage, fmt.Errorf("an approval names at most %d approvers (%d given)", caveat.MaxApprovers, n), "")
	case have+1 > maxApprovals:
		return nil, fail(exitUsage, fmt.Errorf("a ticket holds at most %d approval caveats", maxApprovals), "")
	}
	var ms []caveat.Member
	location := ""
	for _, s := range a.specs {
		id, pub, err := readApproverPub(s.path)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m.KeyID == id || m.Key == pub {
				return nil, fail(exitUsage, fmt.Errorf("approver %s given twice (by key id or key)", escape.ASCII(id)), "each approver counts once: give each --approval once")
			}
		}
		ms = append(ms, caveat.Member{KeyID: id, Key: pub})
		if s.located {
			if location != "" {
				return nil, fail(exitUsage, errors.New("--approval-location given twice for one approval"), "with --approvals-needed the approvers share one location")
			}
			location = s.location
		}
	}
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("reading randomness: %w", err)
	}
	c, err := caveat.NewThreshold(a.need, ms, nonce, location)
	if err != nil {
		return nil, err // caveat.ErrSyntax: exit 2
	}
	return []caveat.Caveat{c}, nil
}

// readApproverPub reads an approver's public key file: the Ed25519 .pub
// file keygen writes. A secret key file, an HMAC key or a holder JWK is a
// usage error, without quoting any of the file.
func readApproverPub(path string) (string, [32]byte, error) {
	var pub [32]byte
	b, err := readFile(path, "approver public key")
	if err != nil {
		return "", pub, err
	}
	const hint = "--approval takes the approver's public key: the PATH.pub that 'tickettool keygen --alg ed25519 --out PATH' writes beside the secret key"
	switch kind := sniffKey(b); kind {
	case keySecretString:
		if k, err := key.ParseSigning(string(b)); err == nil && k.Alg() == key.HMACSHA256 {
			return "", pub, fail(exitUsage, fmt.Errorf("%s is an HMAC secret: an approver signs with an Ed25519 key", path),
				"the approver makes a key pair with 'tickettool keygen --alg ed25519 --out lead.key'; pass its lead.key.pub")
		}
		return "", pub, fail(exitUsage, fmt.Errorf("%s is a secret key: --approval takes the approver's public key", path), hint)
	case keyPrivateJWK, keyPublicJWK:
		return "", pub, fail(exitUsage, fmt.Errorf("%s is a holder key (a JWK for DPoP binding), not an approver's key", path), hint)
	case keyPublicString:
	default:
		return "", pub, fail(exitUsage, fmt.Errorf("%s is not a public key file", path), hint)
	}
	vk, err := key.ParseVerifying(string(b))
	if err != nil {
		return "", pub, fail(exitUsage, fmt.Errorf("%s: %w", path, err), hint)
	}
	raw, ok := ed25519Public(vk)
	if !ok {
		return "", pub, fail(exitUsage, fmt.Errorf("%s is not an Ed25519 public key", path), hint)
	}
	return vk.ID(), raw, nil
}

// ed25519Public returns the 32 bytes of an Ed25519 verifying key, read
// from its public key string (ID+HASH+base64(0x01 ‖ key)).
func ed25519Public(vk *key.Verifying) ([32]byte, bool) {
	var pub [32]byte
	if vk.Alg() != key.Ed25519 {
		return pub, false
	}
	// A key id has no '+'; the base64 after the hash may.
	parts := strings.SplitN(vk.String(), "+", 3)
	if len(parts) != 3 {
		return pub, false
	}
	raw, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(raw) != 33 || raw[0] != 1 {
		return pub, false
	}
	copy(pub[:], raw[1:])
	return pub, true
}

// countApprovals returns how many approval caveats t carries.
func countApprovals(t *token.Ticket) int {
	n := 0
	for _, b := range t.UnverifiedBlocks() {
		for _, c := range b.Caveats {
			if c.Kind == caveat.Approval {
				n++
			}
		}
	}
	return n
}

// appendApprovals appends one block per approval caveat to t: a block
// holds one caveat of each kind.
func appendApprovals(t *token.Ticket, cs []caveat.Caveat) (*token.Ticket, error) {
	for _, c := range cs {
		nt, err := t.Attenuate([]caveat.Caveat{c}, nil)
		if errors.Is(err, token.ErrWiden) {
			return nil, fail(exitRefused, err,
				"each --approval after the first goes into a block of its own, and this ticket allows no block to be appended: give one --approval, or add delegate to ops")
		}
		if err != nil {
			return nil, attenuateError(t, err)
		}
		t = nt
	}
	return t, nil
}

// shortKey is an approver's key as people compare it: the first 12
// characters of its unpadded base64url, as in the caveat's text.
func shortKey(k [32]byte) string {
	return base64.RawURLEncoding.EncodeToString(k[:])[:12]
}

// approvalWho names an approval for people: key id, short key, location,
// every character of the key id and location outside printable ASCII
// shown as its code (escape.ASCII), so that a look-alike cannot pass for
// the approver or the place it imitates.
func approvalWho(a caveat.Approver) string {
	var who []string
	for _, m := range a.Set() {
		who = append(who, fmt.Sprintf("%s (key %s…)", escape.ASCII(m.KeyID), shortKey(m.Key)))
	}
	s := strings.Join(who, ", ")
	if a.Members != nil {
		s = fmt.Sprintf("%d of %s", a.Need, s)
	}
	if a.Location != "" {
		s += " at " + escape.ASCII(a.Location)
	}
	return s
}

// countKind returns how many of cs are of kind k.
func countKind(cs []caveat.Caveat, k caveat.Kind) int {
	n := 0
	for _, c := range cs {
		if c.Kind == k {
			n++
		}
	}
	return n
}
