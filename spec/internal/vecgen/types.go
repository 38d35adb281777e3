// Package vecgen generates spec/vectors/tickets.json: deterministic test
// vectors (fixed keys, fixed randomness) for the ticket format. It is run by
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
	Vectors      []Vector          `json:"vectors"`
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
	Requests     []Request     `json:"requests,omitempty"`
}

// Intermediate values of a valid chain.
type Intermediate struct {
	Blocks     []string `json:"blocks"`                // hex of each block's bytes
	DerivedKey string   `json:"derived_key,omitempty"` // HMAC: K
	Tags       []string `json:"tags,omitempty"`        // HMAC: T_0..T_n
	Seal       string   `json:"seal,omitempty"`        // the seal tag or signature
	Signatures []string `json:"signatures,omitempty"`  // Ed25519: Sig_0..Sig_n
	BlockIDs   []string `json:"block_ids"`             // ID_0..ID_n
}

// Options are the verifier's policy for a vector.
type Options struct {
	SkewSeconds int64    `json:"skew_seconds,omitempty"`
	Revoked     []string `json:"revoked,omitempty"`
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
	// Expect is "allowed" or "refused"; Refusals list every refusal a
	// verifier reports, in order (check, block, caveat kind name or "").
	Expect   string    `json:"expect"`
	Refusals []Refusal `json:"refusals,omitempty"`
}

// DPoP is a holder's proof and what the verifier expects of it.
type DPoP struct {
	Proof  string `json:"proof"`
	Method string `json:"htm"`
	URI    string `json:"htu"`
}

// Refusal is one expected refusal.
type Refusal struct {
	Check string `json:"check"`
	Block int    `json:"block"`
	Kind  string `json:"kind,omitempty"`
}
