// Package vecgen generates spec/vectors/tickets.json: deterministic test
// vectors (fixed keys, fixed randomness) for the ticket format, and
// spec/vectors/receipts.json for the receipt log (chain/FORMAT.md). It is run by
// `go generate ./spec`; a test checks that regenerating changes no byte.
//
// The generator computes every intermediate value (derived key, tags,
// signatures, block ids) a second time from spec/FORMAT.md with the standard
// library alone, and fails if the token package disagrees.
package vecgen

// File is the whole vectors file.
type File struct {
	Description  string            `json:"description"`
	ErrorClasses map[string]string `json:"error_classes"`
	Keys         map[string]Key    `json:"keys"`
	Holders      map[string]Holder `json:"holders"`
	// Approvers sign discharges (FORMAT.md §4.6); a verifier needs none
	// of them.
	Approvers map[string]Approver `json:"approvers,omitempty"`
	Vectors   []Vector            `json:"vectors"`
	// Args are the cases of the args digest (CAVEATS.md).
	Args []ArgsCase `json:"args,omitempty"`
}

// Approver is an approver's Ed25519 key and the key id it signs under.
type Approver struct {
	KeyID  string `json:"key_id"`
	Seed   string `json:"seed"`   // hex, RFC 8032 §5.1.5
	Public string `json:"public"` // hex
}

// Discharge is one discharge a vector's requests use, with its parts, so
// that a runner can find where it first disagrees.
type Discharge struct {
	Text      string `json:"text"`
	Hex       string `json:"hex"`
	Block     string `json:"block"`     // hex: D
	Signature string `json:"signature"` // hex: Sig_D
	ID        string `json:"id"`        // hex: the DID
}

// Binding is Bind_j of one approval caveat (FORMAT.md §4.6).
type Binding struct {
	Block   int    `json:"block"`
	Prefix  string `json:"prefix"`  // hex: P_j
	Binding string `json:"binding"` // hex: Bind_j
	Code    string `json:"code"`
}

// Approval is one used discharge of an allowed decision (FORMAT.md §7).
type Approval struct {
	Block     int    `json:"block"`
	KeyID     string `json:"key_id"`
	Discharge int    `json:"discharge"` // its index in the request
	ID        string `json:"id"`        // hex: the DID
}

// Key is a root key: an HMAC secret, or an Ed25519 seed and public key.
type Key struct {
	Mode   string `json:"mode"`
	Secret string `json:"secret,omitempty"` // hex, HMAC
	Seed   string `json:"seed,omitempty"`   // hex, Ed25519 (RFC 8032 §5.1.5)
	Public string `json:"public,omitempty"` // hex, Ed25519
}

// Holder is a holder key (EdDSA, so that proofs are deterministic).
type Holder struct {
	PrivateJWK string `json:"private_jwk"`
	PublicJWK  string `json:"public_jwk"`
	JKT        string `json:"jkt"`
}

// Vector is one ticket and what a verifier must say of it.
type Vector struct {
	Name         string        `json:"name"`
	Description  string        `json:"description"`
	Keyring      []string      `json:"keyring"`
	Ticket       string        `json:"ticket,omitempty"` // text form
	TicketHex    string        `json:"ticket_hex"`       // CBOR
	Error        string        `json:"error,omitempty"`  // an error class: decoding must fail so
	Intermediate *Intermediate `json:"intermediate,omitempty"`
	Options      *Options      `json:"options,omitempty"`
	Discharges   []Discharge   `json:"discharges,omitempty"`
	// Sequence: the requests run against one budget store that starts
	// empty, and each allowed one is charged (spec/README.md).
	Sequence bool      `json:"sequence,omitempty"`
	Requests []Request `json:"requests,omitempty"`
}

// Intermediate values of a valid chain.
type Intermediate struct {
	Blocks     []string  `json:"blocks"`                // hex of each block's bytes
	DerivedKey string    `json:"derived_key,omitempty"` // HMAC: K
	Tags       []string  `json:"tags,omitempty"`        // HMAC: T_0..T_n
	Seal       string    `json:"seal,omitempty"`        // the seal tag or signature
	Signatures []string  `json:"signatures,omitempty"`  // Ed25519: Sig_0..Sig_n
	BlockIDs   []string  `json:"block_ids"`             // ID_0..ID_n
	Bindings   []Binding `json:"bindings,omitempty"`    // one per approval caveat, blocks ascending
}

// Options are the verifier's policy for a vector.
type Options struct {
	SkewSeconds int64    `json:"skew_seconds,omitempty"`
	Revoked     []string `json:"revoked,omitempty"`
	// Modes the verifier accepts ("hmac", "ed25519"); absent means both.
	Modes []string `json:"modes,omitempty"`
	// The policy of FORMAT.md §7 step 5; absent means not required / no
	// maximum.
	RequireHolder      bool  `json:"require_holder,omitempty"`
	RequireExpiry      bool  `json:"require_expiry,omitempty"`
	MaxLifetimeSeconds int64 `json:"max_lifetime_seconds,omitempty"`
	// The DPoP settings of FORMAT.md §4.5: the alg allow-list (absent
	// means ES256 and EdDSA) and the window (0 or absent means 300 s back
	// and 30 s ahead).
	DPoPAlgorithms        []string `json:"dpop_algorithms,omitempty"`
	DPoPMaxAgeSeconds     int64    `json:"dpop_max_age_seconds,omitempty"`
	DPoPFutureSkewSeconds int64    `json:"dpop_future_skew_seconds,omitempty"`
}

// Request is one call and the expected decision.
type Request struct {
	Now      string   `json:"now"` // RFC 3339
	Tool     string   `json:"tool,omitempty"`
	Op       string   `json:"op,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	URLs     []string `json:"urls,omitempty"`
	Cost     string   `json:"cost,omitempty"`
	Audience string   `json:"audience,omitempty"`
	DPoP     *DPoP    `json:"dpop,omitempty"`
	// Discharges are the discharges' text forms, in order; Args is the
	// arguments digest in hex (FORMAT.md §4.6, CAVEATS.md).
	Discharges []string `json:"discharges,omitempty"`
	Args       string   `json:"args,omitempty"`
	// Expect is "allowed", "refused" or "malformed" (a discharge does not
	// decode: Discharge is its index; absent for more than 8); Refusals list every refusal a
	// verifier reports, in order (check, block, caveat kind name or "").
	Expect   string    `json:"expect"`
	Refusals []Refusal `json:"refusals,omitempty"`
	// BlockIDs are the ids the decision carries: present exactly when the
	// chain verified (no key, mode or chain refusal). Budgets are what an
	// allowed decision tells the caller to charge, in order; they are
	// absent from refused requests.
	BlockIDs  []string   `json:"block_ids,omitempty"`
	Budgets   []Budget   `json:"budgets,omitempty"`
	Approvals []Approval `json:"approvals,omitempty"`
	Discharge *int       `json:"discharge,omitempty"`
	// Charge is, in a sequence, "ok" or "exhausted" for an allowed
	// request; Exhausted the index in Budgets of the first budget without
	// room.
	Charge    string `json:"charge,omitempty"`
	Exhausted *int   `json:"exhausted,omitempty"`
}

// Budget is one calls or total caveat the caller must charge (FORMAT.md
// §7): the block that set it, its kind, its key (the hex id of that block)
// and its limit: a count for calls, micros for total, in decimal (a JSON
// number cannot hold every uint64), with the currency for total.
type Budget struct {
	Block    int    `json:"block"`
	Kind     string `json:"kind"`
	Key      string `json:"key"`
	Limit    string `json:"limit"`
	Currency string `json:"currency,omitempty"`
	// Discharge is, for a discharge's budget, its index in the request.
	Discharge *int `json:"discharge,omitempty"`
}

// DPoP is a holder's proof and what the verifier expects of it.
type DPoP struct {
	Proof  string `json:"proof"`
	Method string `json:"htm"`
	URI    string `json:"htu"`
	// Nonce is the nonce the verifier demands (FORMAT.md §4.5 step 11);
	// absent means none.
	Nonce string `json:"nonce,omitempty"`
}

// Refusal is one expected refusal.
type Refusal struct {
	Check string `json:"check"`
	Block int    `json:"block"`
	Kind  string `json:"kind,omitempty"`
}
