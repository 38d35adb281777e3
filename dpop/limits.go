package dpop

import (
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/strictjson"
)

// Limits and defaults. All numeric policy of the package lives here.
const (
	// DefaultMaxAge is how old (now - iat) a proof may be when
	// Expectations.MaxAge is zero.
	DefaultMaxAge = 5 * time.Minute

	// DefaultFutureSkew is how far in the future (iat - now) a proof's iat
	// may lie, to absorb clock skew, when Expectations.FutureSkew is zero.
	DefaultFutureSkew = 30 * time.Second

	// MaxAgeLimit bounds Expectations.MaxAge. RFC 9449 §11.1 expects a
	// short window (seconds or minutes), and a proof is remembered for
	// the largest window any verifier may use (RememberFor): three times
	// the default leaves room for slow clients without making every
	// replay store keep each proof for a day.
	MaxAgeLimit = 15 * time.Minute

	// FutureSkewLimit bounds Expectations.FutureSkew: clocks of hosts
	// kept by NTP differ by far less than a second, and a host whose
	// clock is minutes off needs fixing, not a wider window.
	FutureSkewLimit = 5 * time.Minute

	// RememberFor is how long after its iat a proof is remembered
	// (Proof.RememberUntil): no verifier, whatever its MaxAge, accepts a
	// proof later than iat + MaxAgeLimit, and FutureSkewLimit more covers
	// verifiers sharing one replay store whose clocks differ by up to
	// that much. So verifiers of different windows can share a store: a
	// proof one admitted is refused by every other as replayed.
	RememberFor = MaxAgeLimit + FutureSkewLimit

	// MaxProofBytes is the largest proof [Verify] accepts; longer input is
	// refused before any decoding.
	MaxProofBytes = 8 << 10

	// MaxJTIBytes bounds the length of the jti claim.
	MaxJTIBytes = 256

	// MaxURIBytes bounds the length of a URI accepted by [NormalizeURI].
	MaxURIBytes = 4 << 10

	// maxIssuedAt is the largest iat accepted (9999-12-31T23:59:59Z), which
	// keeps time arithmetic far from overflow.
	maxIssuedAt = 253402300799

	// maxIssuedAtDigits is the number of digits of maxIssuedAt.
	maxIssuedAtDigits = 12

	// maxJSONDepth bounds the nesting of JSON values in the header and the
	// claims (spec/FORMAT.md §4.5): 32 levels of objects and arrays.
	maxJSONDepth = strictjson.MaxDepth

	// maxEcho bounds how much of a caller- or attacker-supplied value
	// (htm, htu) an error message quotes.
	maxEcho = 64

	// jtiRandomBytes is how many random bytes Make draws for a jti.
	jtiRandomBytes = 16

	// DefaultReplayCacheSize is the capacity [NewMemoryReplayCache] uses when
	// given a size <= 0.
	DefaultReplayCacheSize = 1 << 16

	// typDPoP is the only accepted "typ" header value (RFC 9449 §4.2).
	typDPoP = "dpop+jwt"
)

// supportedAlgorithms lists every algorithm this package can check; an
// Expectations.Algorithms entry outside this list is a caller error.
var supportedAlgorithms = [...]jose.SignatureAlgorithm{jose.ES256, jose.EdDSA, Ed25519}

// Algorithms returns the algorithms a proof may use when the caller's
// allow-list is nil: every one this package can check, in the order a
// DPoP challenge's algs parameter lists them (RFC 9449 §7.1).
func Algorithms() []jose.SignatureAlgorithm { return slices.Clone(supportedAlgorithms[:]) }
