package dpop

import (
	"errors"

	"github.com/tickettool/tickettool/internal/echo"
)

// Check names one step of proof checking; it is the Check field of
// *[Error].
type Check string

// The checks, in the order in which [Verify] performs them (see the package
// documentation). CheckReplay is reported by [Proof.Remember].
const (
	CheckSize      Check = "size"
	CheckSyntax    Check = "syntax"
	CheckTyp       Check = "typ"
	CheckAlg       Check = "alg"
	CheckJWK       Check = "jwk"
	CheckSignature Check = "signature"
	CheckClaims    Check = "claims"
	CheckHTM       Check = "htm"
	CheckHTU       Check = "htu"
	CheckIAT       Check = "iat"
	CheckNonce     Check = "nonce"
	CheckATH       Check = "ath"
	CheckJKT       Check = "jkt"
	CheckReplay    Check = "replay"
)

var (
	// ErrInvalid matches (errors.Is) every refusal of a proof.
	ErrInvalid = errors.New("dpop: invalid proof")

	// ErrNonce matches (errors.Is) a refusal because the required nonce is
	// missing or wrong; a server answers it with a fresh DPoP-Nonce
	// (RFC 9449 §8).
	ErrNonce = errors.New("dpop: nonce missing or wrong")

	// ErrExpectations is returned (wrapped) by [Verify] when the [Expectations]
	// themselves are unusable; it does not match [ErrInvalid].
	ErrExpectations = errors.New("dpop: invalid expectations")
)

// Error is a refusal of a proof: which check failed, and why.
type Error struct {
	Check  Check
	Reason string
}

func (e *Error) Error() string {
	return "dpop: " + string(e.Check) + ": " + e.Reason
}

// Is reports whether target is [ErrInvalid], or [ErrNonce] for a nonce refusal.
func (e *Error) Is(target error) bool {
	return target == ErrInvalid || (target == ErrNonce && e.Check == CheckNonce)
}

func refuse(c Check, reason string) *Error {
	return &Error{Check: c, Reason: reason}
}

// quote returns s quoted, cut to maxEcho bytes (internal/echo); it is
// only used for short non-secret values such as htm and htu.
func quote(s string) string { return echo.Quote(s, maxEcho) }
