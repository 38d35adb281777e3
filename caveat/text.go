package caveat

import (
	"cmp"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/internal/echo"
)

// Parse parses one caveat in its text form KEY=VALUE, as typed on a
// command line. KEY is a kind's String ("tools", "nbf", "aud", ...); an
// unknown key is an error naming it. VALUE is:
//
//   - tools, ops, paths, hosts, aud: entries separated by single commas,
//     no empty entries, no spaces around them (see the New constructors for
//     each kind's entry syntax). Paths get their trailing "/" added and
//     hosts are lowercased; the list is sorted and deduplicated.
//   - calls, depth: a decimal number without sign or leading zeros.
//   - cost, total: an amount as [ParseAmount] reads it, e.g. 0.50USD.
//   - until, nbf: unix seconds (all digits, e.g. 1796008800); or RFC 3339
//     with any offset and without fractional seconds (converted to UTC);
//     or a positive Go duration relative to now (10m, 1h30m), resolved
//     here to an absolute instant: until rounds down to a whole second, nbf
//     rounds up.
//   - intent: a Go-quoted string ("upgrade pricing deps") or, when VALUE
//     does not start with a double quote, the bare text.
//   - holder: the jkt in unpadded base64url (43 characters).
//   - args: the digest in unpadded base64url (43 characters).
//   - approval: KEYID:KEY:NONCE or KEYID:KEY:NONCE:LOCATION, KEY and
//     NONCE the unpadded base64url of the key (43 characters) and nonce
//     (22), LOCATION the rest of the text, ':' included. KEYID may hold
//     ':' too: it ends at the first ":KEY:NONCE" run followed by ':' or
//     the end, which no key id (at most 64 bytes) can hold, so the split
//     is unambiguous.
//     A threshold approval: K of KEYID:KEY KEYID:KEY …:NONCE[:LOCATION],
//     the approvers sorted by key id and separated by single spaces (a
//     key id has none), the last one followed by the nonce and location
//     as above (spec/CAVEATS.md, "A threshold approval's text").
//
// Every error wraps [ErrSyntax].
func Parse(s string, now time.Time) (Caveat, error) {
	key, val, ok := strings.Cut(s, "=")
	if !ok {
		return Caveat{}, syntaxErr(0, "%s is not KEY=VALUE", show(s))
	}
	k, err := ParseKind(key)
	if err != nil {
		return Caveat{}, err
	}
	if val == "" {
		return Caveat{}, syntaxErr(k, "empty value")
	}
	switch k {
	case Tools, Ops, Paths, Hosts, Audience:
		if strings.Count(val, ",") >= maxEntries {
			return Caveat{}, syntaxErr(k, "more than %d entries", maxEntries)
		}
		c, err := newList(k, strings.Split(val, ","))
		if err != nil && echo.LooksLikeKey(val) {
			// A bad entry is shown, and an entry of a key split at its
			// commas may not look like one: show none of the value.
			return Caveat{}, syntaxErr(k, "%s", echo.Hidden)
		}
		return c, err
	case Calls, Depth:
		n, why := parseDecimal(val)
		if why != "" {
			return Caveat{}, syntaxErr(k, "%s: %s", show(val), why)
		}
		return checked(Caveat{Kind: k, N: n})
	case Cost, Total:
		a, why := parseAmount(val)
		if why != "" {
			return Caveat{}, syntaxErr(k, "amount %s: %s", show(val), why)
		}
		return checked(Caveat{Kind: k, Amount: a})
	case Until, NotBefore:
		return parseTime(k, val, now)
	case Intent:
		if val[0] == '"' {
			u, err := strconv.Unquote(val)
			if err != nil {
				return Caveat{}, syntaxErr(k, "a value starting with \" must be one Go-quoted string")
			}
			val = u
		}
		return checked(Caveat{Kind: Intent, Text: val})
	case Approval:
		return parseApproval(val)
	case Args:
		b, err := jktEncoding.DecodeString(val)
		if err != nil || len(b) != argsSize {
			return Caveat{}, syntaxErr(k, "%s is not a SHA-256 digest: want 43 characters of unpadded base64url", show(val))
		}
		return Caveat{Kind: Args, Bytes: b}, nil
	default: // Holder
		return NewHolder(val)
	}
}

func parseTime(k Kind, val string, now time.Time) (Caveat, error) {
	if allDigits(val) {
		n, why := parseDecimal(val)
		if why != "" || n > uint64(maxTime) {
			return Caveat{}, syntaxErr(k, "unix time %s is out of range or has a leading zero", show(val))
		}
		return Caveat{Kind: k, Time: int64(n)}, nil
	}
	if t, err := time.Parse(time.RFC3339, val); err == nil {
		if strings.IndexByte(val, '.') >= 0 {
			return Caveat{}, syntaxErr(k, "%s has fractional seconds, which are refused", show(val))
		}
		return checked(Caveat{Kind: k, Time: t.Unix()})
	}
	d, err := time.ParseDuration(val)
	if err != nil {
		return Caveat{}, syntaxErr(k, "%s is not unix seconds, RFC 3339 or a Go duration such as 10m", show(val))
	}
	if d <= 0 {
		return Caveat{}, syntaxErr(k, "relative time %s must be positive", show(val))
	}
	if k == Until {
		return NewUntil(now.Add(d))
	}
	return NewNotBefore(now.Add(d))
}

// ParseAll parses each argument with [Parse]. A kind may appear only once
// (the caveats form one block, which holds one caveat per kind). The
// result is in [Kind] order. The first error is returned.
func ParseAll(args []string, now time.Time) ([]Caveat, error) {
	out := make([]Caveat, 0, len(args))
	for _, a := range args {
		c, err := Parse(a, now)
		if err != nil {
			return nil, err
		}
		for _, d := range out {
			if d.Kind == c.Kind {
				return nil, syntaxErr(c.Kind, "given twice; a block holds one caveat per kind")
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Caveat) int {
		return cmp.Compare(a.Kind, b.Kind)
	})
	return out, nil
}

// String returns the canonical text form of c. For every valid caveat of
// a known kind, [Parse](c.String(), anyNow) equals c: lists are joined with
// commas, times are RFC 3339 UTC (until=2026-11-30T03:20:00Z), amounts as
// [Amount.String], intents Go-quoted (strconv.Quote), holders and args
// unpadded base64url, approvals as KEYID:KEY:NONCE[:LOCATION] or, with a
// threshold, K of KEYID:KEY KEYID:KEY …:NONCE[:LOCATION]. A caveat of an unknown kind prints as "kind(42)=" followed by
// the hex of its CBOR value; that is for people only, and Parse refuses
// it.
func (c Caveat) String() string {
	key := c.Kind.String() + "="
	switch c.Kind {
	case Tools, Ops, Paths, Hosts, Audience:
		return key + strings.Join(c.List, ",")
	case Calls, Depth:
		return key + strconv.FormatUint(c.N, 10)
	case Until, NotBefore:
		return key + timeText(c.Time)
	case Cost, Total:
		return key + c.Amount.String()
	case Intent:
		return key + strconv.Quote(c.Text)
	case Holder, Args:
		return key + jktEncoding.EncodeToString(c.Bytes)
	case Approval:
		a := c.Approver
		if a == nil {
			return key
		}
		s := key
		if a.Members != nil {
			s += strconv.Itoa(a.Need) + " of "
			for _, m := range a.Members[:len(a.Members)-1] {
				s += m.KeyID + ":" + jktEncoding.EncodeToString(m.Key[:]) + " "
			}
		}
		last := a.Set()[len(a.Set())-1]
		s += last.KeyID + ":" + jktEncoding.EncodeToString(last.Key[:]) + ":" + jktEncoding.EncodeToString(a.Nonce[:])
		if a.Location != "" {
			s += ":" + a.Location
		}
		return s
	}
	return key + hex.EncodeToString(c.Raw)
}

// timeText renders unix seconds as RFC 3339 UTC.
func timeText(t int64) string {
	return time.Unix(t, 0).UTC().Format(time.RFC3339)
}
