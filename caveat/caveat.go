package caveat

import (
	"bytes"
	"encoding/base64"
	"slices"
	"time"

	"github.com/tickettool/tickettool/internal/uri"
)

// Caveat is one typed caveat. Which field is meaningful depends on [Kind];
// in a valid caveat every other field is zero (nil or empty), so two
// caveats with the same meaning are equal field by field (see Equal).
type Caveat struct {
	Kind   Kind
	List   []string // Tools, Ops, Paths, Hosts, Audience: non-empty, sorted bytewise, unique, canonical entries
	N      uint64   // Calls (>= 1), Depth (any)
	Time   int64    // Until, NotBefore: unix seconds, 0 ..= 9999-12-31T23:59:59Z
	Amount Amount   // Cost, Total
	Text   string   // Intent
	Bytes  []byte   // Holder: the 32-byte RFC 7638 SHA-256 thumbprint (jkt) of the holder key; Args: the 32-byte digest
	Raw    []byte   // unknown kinds only: the exact CBOR bytes of the value

	// Approver is who must approve, for Approval only. A pointer, so that
	// every other caveat stays small: caveats are copied on every verify.
	Approver *Approver
}

var jktEncoding = base64.RawURLEncoding.Strict()

// Equal reports whether c and d are the same caveat, field by field (a nil
// slice equals an empty one).
func (c Caveat) Equal(d Caveat) bool {
	return c.Kind == d.Kind && slices.Equal(c.List, d.List) && c.N == d.N &&
		c.Time == d.Time && c.Amount == d.Amount && c.Text == d.Text &&
		bytes.Equal(c.Bytes, d.Bytes) && bytes.Equal(c.Raw, d.Raw) && sameApprover(c.Approver, d.Approver)
}

// sameApprover reports whether a and b are both nil or name the same
// approver, field by field.
func sameApprover(a, b *Approver) bool {
	return a == b || a != nil && b != nil && a.KeyID == b.KeyID && a.Key == b.Key &&
		a.Nonce == b.Nonce && a.Location == b.Location && a.Need == b.Need && slices.Equal(a.Members, b.Members)
}

// NewTools returns tools=names: each name is "name" or "server/name",
// server and name each 1 to 128 characters of [A-Za-z0-9_.-].
func NewTools(names ...string) (Caveat, error) { return newList(Tools, names) }

// NewOps returns ops=ops: each op is [a-z][a-z0-9_-]{0,63}. Only "delegate"
// means something here (see [Scope.CanAppend]); the others are opaque.
func NewOps(ops ...string) (Caveat, error) { return newList(Ops, ops) }

// NewPaths returns paths=prefixes. A prefix is relative ("src/discount")
// or absolute ("/srv/app"), or exactly "/"; NewPaths appends the trailing
// "/" of the canonical form. Segments are non-empty, not "." or "..", have
// no NUL, backslash, comma or non-printing character, and do not start or
// end with a space.
func NewPaths(prefixes ...string) (Caveat, error) { return newList(Paths, prefixes) }

// NewHosts returns hosts=patterns. A pattern is an ASCII host name
// (NewHosts lowercases it; non-ASCII names must be written as punycode
// "xn--" labels) of labels [a-z0-9-], 1 to 63 bytes, not starting or
// ending with "-", at most 253 bytes in all, no trailing dot; or "*."
// followed by such a name of at least two labels whose last label is not
// all digits (so "*.example.org", never "*", "*.org" or "a.*.org").
func NewHosts(patterns ...string) (Caveat, error) { return newList(Hosts, patterns) }

// NewAudience returns aud=names: each name is 1 to 128 characters of
// [A-Za-z0-9._:/-].
func NewAudience(names ...string) (Caveat, error) { return newList(Audience, names) }

// NewCalls returns calls=n; n must be at least 1.
func NewCalls(n uint64) (Caveat, error) { return checked(Caveat{Kind: Calls, N: n}) }

// NewDepth returns depth=n: at most n blocks may follow the block that
// carries it.
func NewDepth(n uint64) (Caveat, error) { return checked(Caveat{Kind: Depth, N: n}) }

// NewUntil returns until=t, rounded down to a whole second (never later
// than asked). t must lie in 1970-01-01T00:00:00Z ..= 9999-12-31T23:59:59Z.
func NewUntil(t time.Time) (Caveat, error) {
	return checked(Caveat{Kind: Until, Time: t.Unix()})
}

// NewNotBefore returns nbf=t, rounded up to a whole second (never earlier
// than asked), within the same range as [NewUntil].
func NewNotBefore(t time.Time) (Caveat, error) {
	s := t.Unix()
	if t.Nanosecond() != 0 {
		s++
	}
	return checked(Caveat{Kind: NotBefore, Time: s})
}

// NewCost returns cost=a, the limit on the cost of one call.
func NewCost(a Amount) (Caveat, error) { return checked(Caveat{Kind: Cost, Amount: a}) }

// NewTotal returns total=a, the limit on the total spend.
func NewTotal(a Amount) (Caveat, error) { return checked(Caveat{Kind: Total, Amount: a}) }

// NewIntent returns intent=s: non-empty valid UTF-8, at most
// 1024 bytes, every character printable (no control,
// format or line-separator characters; the ASCII space is fine).
func NewIntent(s string) (Caveat, error) { return checked(Caveat{Kind: Intent, Text: s}) }

// NewHolder returns holder=jkt, where jkt is the RFC 7638 SHA-256
// thumbprint of the holder's public JWK in base64url without padding
// (43 characters, canonical: unused trailing bits zero).
func NewHolder(jkt string) (Caveat, error) {
	b, err := jktEncoding.DecodeString(jkt)
	if err != nil || len(b) != holderSize {
		return Caveat{}, syntaxErr(Holder, "%s is not a SHA-256 thumbprint: want 43 characters of unpadded base64url", show(jkt))
	}
	return Caveat{Kind: Holder, Bytes: b}, nil
}

func checked(c Caveat) (Caveat, error) {
	if err := c.Valid(); err != nil {
		return Caveat{}, err
	}
	return c, nil
}

// Valid returns nil when c is a valid, canonical caveat, as every
// constructor and [Parse] return one, and otherwise an *[Error] wrapping
// [ErrSyntax] that says why. For a kind this package does not know it
// checks only that no field but Raw is set: whether Raw holds one
// canonical CBOR value is for the code that writes it (token refuses a
// ticket whose value does not).
func (c Caveat) Valid() error {
	if why := c.problem(); why != "" {
		return syntaxErr(c.Kind, "%s", why)
	}
	return nil
}

// newList validates, canonicalises, sorts and deduplicates entries into a
// new slice; the caller's slice is not modified.
func newList(k Kind, entries []string) (Caveat, error) {
	if len(entries) == 0 {
		return Caveat{}, syntaxErr(k, "needs at least one entry")
	}
	if len(entries) > maxEntries {
		return Caveat{}, syntaxErr(k, "more than %d entries", maxEntries)
	}
	list := make([]string, len(entries))
	for i, e := range entries {
		if e == "" {
			return Caveat{}, syntaxErr(k, "empty entry")
		}
		c := canonEntry(k, e)
		if why := entryProblem(k, c); why != "" {
			return Caveat{}, syntaxErr(k, "%s %s", show(e), why)
		}
		list[i] = c
	}
	slices.Sort(list)
	return Caveat{Kind: k, List: slices.Clip(slices.Compact(list))}, nil
}

// canonEntry applies the only two rewrites the text form and constructors
// make: a missing trailing "/" of a path prefix, and uppercase ASCII in a
// host pattern (non-ASCII is left alone, to be refused: lowercasing it
// could turn a lookalike such as U+212A KELVIN SIGN into ASCII).
func canonEntry(k Kind, e string) string {
	switch k {
	case Paths:
		if e[len(e)-1] != '/' {
			return e + "/"
		}
	case Hosts:
		return uri.LowerASCII(e)
	}
	return e
}

// The fields a caveat may set; a valid caveat sets no field outside the
// one of its kind.
const (
	fList = 1 << iota
	fN
	fTime
	fAmount
	fText
	fBytes
	fRaw
	fApprover
)

func (c Caveat) fields() int {
	f := 0
	if len(c.List) > 0 {
		f |= fList
	}
	if c.N != 0 {
		f |= fN
	}
	if c.Time != 0 {
		f |= fTime
	}
	if c.Amount != (Amount{}) {
		f |= fAmount
	}
	if c.Text != "" {
		f |= fText
	}
	if len(c.Bytes) > 0 {
		f |= fBytes
	}
	if len(c.Raw) > 0 {
		f |= fRaw
	}
	if c.Approver != nil {
		f |= fApprover
	}
	return f
}

func (k Kind) field() int {
	switch {
	case k.isList():
		return fList
	case k == Calls || k == Depth:
		return fN
	case k == Until || k == NotBefore:
		return fTime
	case k == Cost || k == Total:
		return fAmount
	case k == Intent:
		return fText
	case k == Holder || k == Args:
		return fBytes
	case k == Approval:
		return fApprover
	}
	return fRaw
}

// problem returns why c is not a valid, canonical caveat, or "".
func (c Caveat) problem() string {
	if c.fields()&^c.Kind.field() != 0 {
		return "sets a field its kind does not use"
	}
	switch c.Kind {
	case Tools, Ops, Paths, Hosts, Audience:
		return listProblem(c.Kind, c.List)
	case Calls:
		if c.N == 0 {
			return "must be at least 1"
		}
	case Depth:
	case Until, NotBefore:
		if c.Time < 0 || c.Time > maxTime {
			return "time must lie in 1970-01-01T00:00:00Z ..= 9999-12-31T23:59:59Z"
		}
	case Cost, Total:
		if !validCurrency(c.Amount.Currency) {
			return "currency must be 3 uppercase letters A-Z, e.g. USD"
		}
	case Intent:
		return intentProblem(c.Text)
	case Holder:
		if len(c.Bytes) != holderSize {
			return "must be a 32-byte SHA-256 thumbprint"
		}
	case Approval:
		if c.Approver == nil {
			return "must name an approver"
		}
		return c.Approver.problem()
	case Args:
		if len(c.Bytes) != argsSize {
			return "must be a 32-byte SHA-256 digest"
		}
	}
	return ""
}

func intentProblem(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > maxTextBytes:
		return "is longer than 1024 bytes"
	}
	return printProblem(s)
}
