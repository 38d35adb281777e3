package key

// Limits. Every numeric bound of the package lives here.
const (
	// MaxIDBytes bounds a key id (spec/FORMAT.md §3: a ticket's key id is
	// 1 to 64 bytes).
	MaxIDBytes = 64

	// HMACBytes is the size of an HMAC secret.
	HMACBytes = 32

	// MaxFileBytes bounds a key file: a key string or a holder JWK.
	MaxFileBytes = 4 << 10

	// maxFastMAC is the longest message MAC hashes from its precomputed
	// midstates (a ticket's first chain key hashes 39 bytes); longer ones,
	// such as checkpoint notes, go through crypto/hmac.
	maxFastMAC = 64

	// maxHolderAttempts bounds the 32-byte candidates drawn for a P-256
	// scalar from a fixed randomness source (each fails with probability
	// about 2^-32).
	maxHolderAttempts = 64
)
