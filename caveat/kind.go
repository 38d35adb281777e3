package caveat

import "strconv"

// Kind identifies a caveat kind. It is the integer key of the caveat in a
// block's caveat map, so these values are part of the ticket format and
// never change.
type Kind uint64

// The known kinds. Their text keys are given by String.
const (
	Tools     Kind = 1  // tools=: the tool a call names is listed
	Ops       Kind = 2  // ops=: the operation is listed; without "delegate" no block may follow
	Paths     Kind = 3  // paths=: every path subject lies under a listed prefix
	Hosts     Kind = 4  // hosts=: every URL subject's host matches a listed pattern
	Calls     Kind = 5  // calls=: invocation budget (counted by the ledger)
	Until     Kind = 6  // until=: expiry instant
	NotBefore Kind = 7  // nbf=: start instant
	Audience  Kind = 8  // aud=: the verifier's own name is listed
	Cost      Kind = 9  // cost=: per-call cost limit
	Total     Kind = 10 // total=: total spend limit (counted by the ledger)
	Depth     Kind = 11 // depth=: at most that many blocks may follow
	Intent    Kind = 12 // intent=: why the ticket exists; block 0 only
	Holder    Kind = 13 // holder=: RFC 7638 thumbprint of the holder's key
	Approval  Kind = 14 // approval=: a discharge signed by the named approver is needed
	Args      Kind = 15 // args=: SHA-256 of the call's arguments in RFC 8785 canonical JSON
)

// numKinds sizes arrays indexed by a known Kind (index 0 unused).
const numKinds = int(Args) + 1

var kindNames = [numKinds]string{
	Tools: "tools", Ops: "ops", Paths: "paths", Hosts: "hosts",
	Calls: "calls", Until: "until", NotBefore: "nbf", Audience: "aud",
	Cost: "cost", Total: "total", Depth: "depth", Intent: "intent",
	Holder: "holder", Approval: "approval", Args: "args",
}

// Known reports whether k is one of the kinds above.
func (k Kind) Known() bool { return k >= Tools && k <= Args }

// String returns the text key of k ("tools", "nbf", "aud", ...), or
// "kind(42)" for a kind that is not known.
func (k Kind) String() string {
	if k.Known() {
		return kindNames[k]
	}
	return "kind(" + strconv.FormatUint(uint64(k), 10) + ")"
}

// ParseKind returns the kind whose text key is s. Keys are exact and
// lowercase; "kind(42)" is refused, since unknown kinds have no text form.
func ParseKind(s string) (Kind, error) {
	for k := Tools; k <= Args; k++ {
		if kindNames[k] == s {
			return k, nil
		}
	}
	return 0, syntaxErr(0, "unknown caveat key %s (want tools, ops, paths, hosts, calls, until, nbf, aud, cost, total, depth, intent, holder, approval or args)", show(s))
}

// isList reports whether caveats of kind k hold a List.
func (k Kind) isList() bool {
	switch k {
	case Tools, Ops, Paths, Hosts, Audience:
		return true
	}
	return false
}
