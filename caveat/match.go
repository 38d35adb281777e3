package caveat

import (
	"bytes"
	"math"
	"time"
)

// Request is one call being authorised: the subjects every caveat is
// checked against.
type Request struct {
	Tool     string   // "read_file" or server-qualified "workspace/read_file"
	Op       string   // e.g. "invoke"; "" when the caller states none
	Paths    []string // path subjects (all must be allowed); empty when the call has none
	URLs     []string // URL subjects (all must be allowed); empty when none
	Cost     *Amount  // the call's cost; nil when the call states none
	Audience string   // the verifier's own name

	// Holder is the proof of possession a bound ticket needs. This package
	// only carries it; package verify checks it.
	Holder *HolderProof

	// Args is the 32-byte digest of the call's arguments ([ArgsDigest]),
	// which args caveats are checked against; nil when the caller has none.
	Args []byte

	// Discharges are the text forms of the discharges presented with the
	// call, which approval caveats need. This package only carries them;
	// package verify decodes and checks them.
	Discharges []string
}

// HolderProof is what a bound ticket's holder presents with a request: a
// DPoP proof (RFC 9449 §4) and the method and URI the verifier expects it
// to be bound to. For a tool call that is not HTTP, the caller states them
// (e.g. "POST" and "mcp://workspace/read_file").
type HolderProof struct {
	Proof  string // the DPoP proof JWS, compact serialisation
	Method string // the expected htm
	URI    string // the expected htu
	Nonce  string // the nonce the verifier demands, or ""
}

var noRequest Request

// Check reports whether c holds for the request r at now (compared in
// whole unix seconds, now.Unix()), allowing skew for until and nbf: nil,
// or an *[Error] wrapping [ErrRefused] whose Reason a person can act on. A nil
// r is an empty request; a negative skew counts as zero, and skew is used
// in whole seconds (rounded down).
//
//   - tools: r.Tool (a valid tool name) is listed; an unqualified entry
//     "read_file" also admits "X/read_file" for every server X, a qualified
//     entry "workspace/read_file" admits only itself.
//   - ops, aud: r.Op, r.Audience is listed.
//   - paths: r.Paths is not empty and every path is normal (see below) and
//     lies under a listed prefix on a segment boundary: "src/discount/"
//     admits "src/discount", "src/discount/" and "src/discount/x", never
//     "src/discount-other". Relative prefixes admit only relative paths,
//     absolute only absolute, "/" every absolute path. A path with ".",
//     "..", an empty segment, NUL, backslash or a non-printing character is
//     refused, never cleaned. Bytes are compared case-sensitively.
//   - hosts: r.URLs is not empty and every URL is absolute with a host
//     (net/url, u.Hostname(): userinfo and port never count), the host is
//     ASCII, matched lowercase and without one trailing dot, and equals an
//     exact pattern or ends in "."+s for a pattern "*.s". IPv6 literals
//     match nothing: no pattern can express one.
//   - until: now < Time + skew. nbf: now + skew >= Time.
//   - cost: r.Cost is stated, in the same currency, and at most the limit.
//   - total: r.Cost is stated and in the same currency; the running total
//     is the ledger's to count, not this function's.
//   - args: r.Args equals the digest.
//   - calls (counted by the ledger), depth (structural, see [Scope]), intent
//     (a record of why), holder (the verifier checks the DPoP proof) and
//     approval (the verifier checks the discharges) always hold here.
//   - an unknown kind never holds: unknown kinds fail closed.
//
// Check assumes c is valid (as every constructor and [Parse] return it, and
// Valid reports). It does not re-validate: a hand-built invalid caveat can be
// refused wrongly but never admits more than its entries say, since every
// match is an exact lookup. Check does not allocate unless it refuses or a
// URL must be parsed.
func (c Caveat) Evaluate(r *Request, now time.Time, skew time.Duration) error {
	if r == nil {
		r = &noRequest
	}
	switch c.Kind {
	case Tools:
		switch {
		case r.Tool == "":
			return refuse(Tools, "request names no tool")
		case !validTool(r.Tool):
			return refuse(Tools, "tool %s is not a valid tool name", show(r.Tool))
		case !toolAdmitted(c.List, r.Tool):
			return refuse(Tools, "tool %s is not in %s", show(r.Tool), listText(Tools, c.List))
		}
	case Ops:
		switch {
		case r.Op == "":
			return refuse(Ops, "request names no op")
		case !contains(c.List, r.Op):
			return refuse(Ops, "op %s is not in %s", show(r.Op), listText(Ops, c.List))
		}
	case Audience:
		switch {
		case r.Audience == "":
			return refuse(Audience, "verifier names no audience")
		case !contains(c.List, r.Audience):
			return refuse(Audience, "audience %s is not in %s", show(r.Audience), listText(Audience, c.List))
		}
	case Paths:
		return checkPaths(c.List, r.Paths)
	case Hosts:
		return checkHosts(c.List, r.URLs)
	case Until:
		if now.Unix() >= addSat(c.Time, skewSeconds(skew)) {
			return refuse(Until, "expired at %s", timeText(c.Time))
		}
	case NotBefore:
		if addSat(now.Unix(), skewSeconds(skew)) < c.Time {
			return refuse(NotBefore, "not valid before %s", timeText(c.Time))
		}
	case Cost, Total:
		switch {
		case r.Cost == nil:
			return refuse(c.Kind, "request states no cost")
		case r.Cost.Currency != c.Amount.Currency:
			return refuse(c.Kind, "cost %s is not in %s", show(r.Cost.String()), c.Amount.Currency)
		case c.Kind == Cost && r.Cost.Micros > c.Amount.Micros:
			return refuse(Cost, "cost %s is above %s", r.Cost, c.Amount)
		}
	case Args:
		switch {
		case r.Args == nil:
			return refuse(Args, "the request carries no arguments digest")
		case !bytes.Equal(r.Args, c.Bytes):
			return refuse(Args, "arguments differ from the approved ones")
		}
	case Calls, Depth, Intent, Holder, Approval:
	default:
		return refuse(c.Kind, "unknown caveat kind %d", uint64(c.Kind))
	}
	return nil
}

func checkPaths(list, paths []string) error {
	if len(paths) == 0 {
		return refuse(Paths, "request has no path")
	}
	for _, p := range paths {
		if why := pathProblem(p); why != "" {
			return refuse(Paths, "path %s %s", show(p), why)
		}
		if !pathAdmitted(list, p) {
			return refuse(Paths, "%s is not under %s", show(p), underText(list))
		}
	}
	return nil
}

func checkHosts(list, urls []string) error {
	if len(urls) == 0 {
		return refuse(Hosts, "request has no url")
	}
	for _, u := range urls {
		h, why := urlHost(u)
		if why != "" {
			return refuse(Hosts, "url %s %s", show(u), why)
		}
		if !hostCovered(list, h) {
			return refuse(Hosts, "host %s is not in %s", show(h), listText(Hosts, list))
		}
	}
	return nil
}

func skewSeconds(skew time.Duration) int64 {
	if skew <= 0 {
		return 0
	}
	return int64(skew / time.Second)
}

// addSat returns a+b for b >= 0, saturating at math.MaxInt64.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
