package dpop

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Ed25519 is the fully-specified JWS algorithm of RFC 9864 §2.2: EdDSA
// with the Ed25519 curve, the only curve this package's EdDSA is. It
// deprecates the polymorphic "EdDSA" of RFC 8037, which stays accepted:
// both name the same signatures by the same keys (spec/FORMAT.md §4.5
// step 4). go-jose v4 has no constant for it.
const Ed25519 = jose.SignatureAlgorithm("Ed25519")

// Expectations is what the verifier expects of one proof.
type Expectations struct {
	// Method is the expected htm, e.g. "POST"; compared exactly
	// (case-sensitive, as RFC 9110 methods are). Required.
	Method string
	// URI is the expected htu. Both it and the proof's htu are normalised
	// by NormalizeURI (query and fragment ignored). Non-HTTP URIs such as
	// "mcp://workspace/read_file" work too. Required.
	URI string
	// Nonce, when non-empty, must equal the proof's nonce claim; a proof
	// without one is refused (ErrNonce). When empty, a nonce claim in the
	// proof is accepted and ignored.
	Nonce string
	// AccessToken, when non-empty, requires ath = base64url(SHA-256 of
	// AccessToken exactly as given, without normalisation). When empty, an
	// ath claim in the proof is accepted and not checked.
	AccessToken string
	// Thumbprint, when non-empty, is the RFC 7638 SHA-256 thumbprint
	// (base64url, unpadded) the proof's jwk must have.
	Thumbprint string
	// Algorithms is the allow-list of "alg" values; nil means all three
	// supported ones. Only ES256, EdDSA and Ed25519 are supported (EdDSA
	// and Ed25519 are separate entries: a list of one refuses the other's
	// proofs); listing
	// "none", an HS* algorithm or any other algorithm makes Verify return an
	// error wrapping ErrExpectations. A non-nil empty list is also an error.
	Algorithms []jose.SignatureAlgorithm
	// MaxAge is how old a proof may be; 0 means DefaultMaxAge; at most
	// MaxAgeLimit.
	MaxAge time.Duration
	// FutureSkew is how far iat may lie ahead of now; 0 means
	// DefaultFutureSkew; at most FutureSkewLimit.
	FutureSkew time.Duration
}

// Proof is a checked proof.
type Proof struct {
	JTI        string
	Method     string           // htm
	URI        string           // htu as in the proof
	IssuedAt   time.Time        // iat
	Thumbprint string           // RFC 7638 SHA-256 thumbprint (jkt) of Key
	Key        *jose.JSONWebKey // the proof's public key
	// ReplayKey is the jti scoped to the normalised htu.
	ReplayKey ReplayKey
	// RememberUntil is iat + RememberFor, whatever this verifier's
	// window: the proof could pass the iat check of a verifier with the
	// largest window until iat + MaxAgeLimit, and FutureSkewLimit more
	// covers verifiers sharing one replay store whose clocks differ by up
	// to that much. Remembering it only for this verifier's own window
	// would let another, with a wider window on the same store, accept it
	// again.
	RememberUntil time.Time
}

// settings are validated Expectations.
type settings struct {
	algs           []jose.SignatureAlgorithm
	uri            string
	maxAge, future time.Duration
}

func expectationsError(reason string) error {
	return fmt.Errorf("%w: %s", ErrExpectations, reason)
}

func (exp *Expectations) resolve() (settings, error) {
	s := settings{algs: exp.Algorithms, maxAge: exp.MaxAge, future: exp.FutureSkew}
	if s.algs == nil {
		s.algs = supportedAlgorithms[:]
	}
	if len(s.algs) == 0 {
		return s, expectationsError("empty algorithm allow-list")
	}
	for _, a := range s.algs {
		if neverAllowed(a) {
			return s, expectationsError("algorithm none and hmac algorithms are never allowed")
		}
		if !slices.Contains(supportedAlgorithms[:], a) {
			return s, expectationsError("unsupported algorithm " + quote(string(a)))
		}
	}
	if exp.Method == "" {
		return s, expectationsError("method is empty")
	}
	uri, err := NormalizeURI(exp.URI)
	if err != nil {
		return s, expectationsError("uri: " + err.Error())
	}
	s.uri = uri
	if s.maxAge < 0 || s.maxAge > MaxAgeLimit {
		return s, expectationsError("max age must lie in [0, " + MaxAgeLimit.String() + "]")
	}
	if s.future < 0 || s.future > FutureSkewLimit {
		return s, expectationsError("future skew must lie in [0, " + FutureSkewLimit.String() + "]")
	}
	if s.maxAge == 0 {
		s.maxAge = DefaultMaxAge
	}
	if s.future == 0 {
		s.future = DefaultFutureSkew
	}
	return s, nil
}

// Verify checks one DPoP proof against exp at time now, performing every
// check of RFC 9449 §4.3 in the order given in the package documentation.
// A refused proof yields an *[Error] (errors.Is(err, [ErrInvalid])); unusable
// [Expectations] yield an error wrapping [ErrExpectations]. Verify does not
// record the jti; see [Proof.Remember].
func Verify(proof string, exp Expectations, now time.Time) (*Proof, error) {
	st, err := exp.resolve()
	if err != nil {
		return nil, err
	}
	p, e := check(proof, &exp, &st, now)
	if e != nil {
		return nil, e
	}
	return p, nil
}

func check(proof string, exp *Expectations, st *settings, now time.Time) (*Proof, *Error) {
	k, payload, e := verifyJWS(proof, st)
	if e != nil {
		return nil, e
	}
	c, iat, e := decodeClaims(payload)
	if e != nil {
		return nil, e
	}
	return checkClaims(k, c, iat, exp, st, now)
}

// checkClaims runs the checks after decoding (steps 8–13) and builds the
// Proof.
func checkClaims(k *publicKey, c *claims, iat int64, exp *Expectations, st *settings, now time.Time) (*Proof, *Error) {
	htu, e := checkRequest(c, exp, st)
	if e != nil {
		return nil, e
	}
	issued := time.Unix(iat, 0).UTC()
	if issued.Before(now.Add(-st.maxAge)) {
		return nil, refuse(CheckIAT, "proof too old")
	}
	if issued.After(now.Add(st.future)) {
		return nil, refuse(CheckIAT, "proof from the future")
	}
	if e := checkBinding(c, exp); e != nil {
		return nil, e
	}
	jkt := k.Thumbprint()
	if exp.Thumbprint != "" && subtle.ConstantTimeCompare([]byte(jkt), []byte(exp.Thumbprint)) != 1 {
		return nil, refuse(CheckJKT, "key thumbprint does not match")
	}
	return &Proof{
		JTI:           c.JTI,
		Method:        c.HTM,
		URI:           c.HTU,
		IssuedAt:      issued,
		Thumbprint:    jkt,
		Key:           k.jose(),
		ReplayKey:     ReplayKey{JTI: c.JTI, URI: htu},
		RememberUntil: issued.Add(RememberFor),
	}, nil
}

// verifyJWS checks the proof's form, header and signature (spec/FORMAT.md
// §4.5 steps 1–6) and returns its key and payload. It is written from the
// spec rather than calling go-jose, whose parse decodes the header twice
// through reflection (about 12% of a check) and refuses more
// than the spec does, and accepts some of what it refuses (TestGoJoseDiffers).
// go-jose stays the reference: FuzzVerifyJWS and TestVerifyJWSProperty hold
// the two to one answer (jws_ref_test.go, jws_fuzz_test.go).
func verifyJWS(proof string, st *settings) (*publicKey, []byte, *Error) {
	if len(proof) > MaxProofBytes {
		return nil, nil, refuse(CheckSize, fmt.Sprintf("longer than %d bytes", MaxProofBytes))
	}
	if e := checkShape(proof); e != nil {
		return nil, nil, e
	}
	dot1 := strings.IndexByte(proof, '.')
	dot2 := dot1 + 1 + strings.IndexByte(proof[dot1+1:], '.')
	var buf [512]byte // a usual header is about 200 bytes
	h, alg, e := checkHeader(proof[:dot1], buf[:], st.algs)
	if e != nil {
		return nil, nil, e
	}
	k, e := parseJWK(h.jwk, alg)
	if e != nil {
		return nil, nil, e
	}
	if !k.verify(proof[:dot2], proof[dot2+1:]) {
		return nil, nil, refuse(CheckSignature, "does not verify with the jwk")
	}
	payload, err := base64.RawURLEncoding.DecodeString(proof[dot1+1 : dot2])
	if err != nil { // not reached: checkShape
		return nil, nil, refuse(CheckSyntax, "malformed jws")
	}
	return k, payload, nil
}

// verify reports whether sig, canonical base64url (checkShape), is k's
// signature of the ASCII text input: 64 bytes, r ‖ s for ES256 (either
// form of s, spec/FORMAT.md §4.5 step 6), R ‖ S for EdDSA and Ed25519
// (§4.2).
func (k *publicKey) verify(input, sig string) bool {
	var raw [ed25519.SignatureSize]byte
	if base64.RawURLEncoding.DecodedLen(len(sig)) != len(raw) {
		return false
	}
	if n, err := base64.RawURLEncoding.Decode(raw[:], []byte(sig)); err != nil || n != len(raw) {
		return false
	}
	if k.Ed != nil {
		return ed25519.Verify(k.Ed, []byte(input), raw[:])
	}
	digest := sha256.Sum256([]byte(input))
	r, s := new(big.Int).SetBytes(raw[:32]), new(big.Int).SetBytes(raw[32:])
	return ecdsa.Verify(k.EC, digest[:], r, s)
}

// checkRequest compares the proof's htm and htu with the expected ones
// (steps 8–9) and returns the normal htu.
func checkRequest(c *claims, exp *Expectations, st *settings) (string, *Error) {
	if c.HTM != exp.Method {
		return "", refuse(CheckHTM, "got "+quote(c.HTM)+", want "+quote(exp.Method))
	}
	// NormalizeURI is idempotent, so an htu already in normal form equal
	// to the expected one needs no second normalisation.
	htu := st.uri
	if c.HTU != st.uri {
		var err error
		if htu, err = NormalizeURI(c.HTU); err != nil {
			return "", refuse(CheckHTU, "not an absolute uri with a host")
		}
	}
	if htu != st.uri {
		return "", refuse(CheckHTU, "got "+quote(htu)+", want "+quote(st.uri))
	}
	return htu, nil
}

// checkBinding checks the nonce and the access token hash (steps 11–12).
func checkBinding(c *claims, exp *Expectations) *Error {
	if exp.Nonce != "" {
		if !c.hasNonce {
			return refuse(CheckNonce, "missing")
		}
		if subtle.ConstantTimeCompare([]byte(c.Nonce), []byte(exp.Nonce)) != 1 {
			return refuse(CheckNonce, "wrong")
		}
	}
	if exp.AccessToken != "" {
		if !c.hasATH {
			return refuse(CheckATH, "missing")
		}
		sum := sha256.Sum256([]byte(exp.AccessToken))
		var want [43]byte // base64url length of a SHA-256 digest
		base64.RawURLEncoding.Encode(want[:], sum[:])
		if subtle.ConstantTimeCompare([]byte(c.ATH), want[:]) != 1 {
			return refuse(CheckATH, "does not match the access token")
		}
	}
	return nil
}
