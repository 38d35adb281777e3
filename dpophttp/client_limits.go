package dpophttp

// Limits of the client side. All numeric policy of the Transport lives
// here.
const (
	// MaxClientOrigins bounds how many origins a Transport remembers a
	// nonce and an algorithm for; past it the state of an arbitrary
	// other origin is forgotten, which costs that origin one more
	// use_dpop_nonce round trip, never a request sent wrongly.
	MaxClientOrigins = 1024

	// MaxNonceBytes bounds a DPoP-Nonce value the Transport keeps and
	// sends back (RFC 9449 §8.1 sets no limit; a proof is at most
	// dpop.MaxProofBytes, and a nonce larger than this one would crowd
	// it).
	MaxNonceBytes = 1024

	// maxDrainBytes bounds how much of a challenged response's body the
	// Transport reads before retrying, so that the connection can be
	// reused; the rest is dropped with the connection.
	maxDrainBytes = 64 << 10

	// maxChallengeBytes bounds the WWW-Authenticate text the Transport
	// parses for a DPoP challenge.
	maxChallengeBytes = 4 << 10
)
