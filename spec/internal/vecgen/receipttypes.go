package vecgen

// ReceiptFile is spec/vectors/receipts.json: receipt logs (chain/FORMAT.md)
// built from fixed keys and fixed times, and tampered copies of them, each
// with the first break a verifier must report.
type ReceiptFile struct {
	Description string                `json:"description"`
	Origin      string                `json:"origin"`
	OriginHash  string                `json:"origin_hash"` // hex, FORMAT.md §2
	Keys        map[string]ReceiptKey `json:"keys"`
	Logs        []ReceiptLog          `json:"logs"`
	Cases       []ReceiptCase         `json:"cases"`
}

// ReceiptKey is a receipt key: an Ed25519 seed and public key, or an HMAC
// secret, with its signed-note name and key hash.
type ReceiptKey struct {
	Alg         string `json:"alg"` // "ed25519" or "hmac-sha256"
	Name        string `json:"name"`
	KeyHash     string `json:"key_hash"`               // 8 lowercase hex digits (FORMAT.md §3)
	Seed        string `json:"seed,omitempty"`         // hex, Ed25519 (RFC 8032 §5.1.5)
	Public      string `json:"public,omitempty"`       // hex, Ed25519
	Secret      string `json:"secret,omitempty"`       // hex, HMAC
	VerifierKey string `json:"verifier_key,omitempty"` // Ed25519: the public key's text (FORMAT.md §4)
}

// ReceiptLog is a valid log: every record with its fields and bytes, the
// whole log, what verifying it yields, and its signed checkpoint.
type ReceiptLog struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Key         string          `json:"key"`
	Records     []ReceiptRecord `json:"records"`
	LogHex      string          `json:"log_hex"`
	Summary     ReceiptSummary  `json:"summary"`
	Checkpoint  string          `json:"checkpoint"` // signed note text
}

// ReceiptRecord is one record of a valid log.
type ReceiptRecord struct {
	Offset       int64        `json:"offset"`
	Fields       RecordFields `json:"fields"`
	SigningInput string       `json:"signing_input"` // hex, FORMAT.md §1.1
	Bytes        string       `json:"bytes"`         // hex
	Hash         string       `json:"hash"`          // hex SHA-256 of bytes
}

// RecordFields are a record's fields as FORMAT.md §1 names them; an empty
// optional field is absent.
type RecordFields struct {
	Seq      uint64   `json:"seq"`
	TimeMS   int64    `json:"time_ms"`
	Kind     string   `json:"kind"`             // "intent" .. "replayed"
	Ticket   string   `json:"ticket,omitempty"` // hex
	Family   string   `json:"family,omitempty"` // hex
	Block    int      `json:"block,omitempty"`
	Tool     string   `json:"tool,omitempty"`
	Op       string   `json:"op,omitempty"`
	Subjects []string `json:"subjects,omitempty"`
	Check    string   `json:"check,omitempty"`
	Caveat   string   `json:"caveat,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Note     string   `json:"note,omitempty"`
	Prev     string   `json:"prev"` // hex
	Alg      string   `json:"alg"`  // "ed25519" or "hmac-sha256"
	Sig      string   `json:"sig"`  // hex
	// Approvals is field 17: [key id, DID] pairs.
	Approvals []ApprovalField `json:"approvals,omitempty"`
}

// ApprovalField is one entry of a record's field 17.
type ApprovalField struct {
	KeyID string `json:"key_id"`
	ID    string `json:"id"` // hex: the DID
}

// ReceiptSummary is what verifying a whole log yields.
type ReceiptSummary struct {
	Count      int64  `json:"count"`
	Size       int64  `json:"size"`         // bytes
	Head       string `json:"head"`         // hex
	Root       string `json:"root"`         // hex RFC 6962 Merkle tree hash
	LastTimeMS int64  `json:"last_time_ms"` // time of the last record
}

// ReceiptCase is a log (usually a tampered copy of a valid one) verified
// with one key for the file's origin, optionally against a checkpoint.
type ReceiptCase struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Key         string        `json:"key"`
	LogHex      string        `json:"log_hex"`
	Checkpoint  string        `json:"checkpoint,omitempty"`
	Expect      ReceiptExpect `json:"expect"`
}

// ReceiptExpect is what a verifier must say of a case: the first break
// (record index, byte offset where that record starts, whether it is a
// torn tail), or else the number of records and the head; and, for a case
// with a checkpoint, "ok", "truncated" or "forked". ScanRecords is how many
// records decode (chain.Scan) before the end or the first undecodable item.
type ReceiptExpect struct {
	Break       *ReceiptBreak `json:"break,omitempty"`
	Count       int64         `json:"count,omitempty"`
	Head        string        `json:"head,omitempty"`
	Checkpoint  string        `json:"checkpoint,omitempty"`
	ScanRecords int64         `json:"scan_records"`
}

// ReceiptBreak is where verification must stop.
type ReceiptBreak struct {
	Index  int64 `json:"index"`
	Offset int64 `json:"offset"`
	Torn   bool  `json:"torn"`
}
