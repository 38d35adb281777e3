package verify

import (
	"encoding/base64"
	"errors"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// DPoPOptions tune the DPoP check of bound tickets (RFC 9449 §4.3). Zero
// values take package dpop's defaults.
type DPoPOptions struct {
	// Algorithms is the allow-list of the proofs' "alg" values: "ES256"
	// (RFC 7518), "EdDSA" (RFC 8037) and "Ed25519" (RFC 9864 §2.2, the
	// same signatures under the fully-specified name; each its own
	// entry); nil means all three.
	Algorithms []Algorithm
	// MaxAge and FutureSkew are the proof window (dpop.Expectations); at
	// most dpop.MaxAgeLimit and dpop.FutureSkewLimit, beyond which the
	// verifier is misconfigured and refuses every proof.
	MaxAge     time.Duration
	FutureSkew time.Duration
}

// Algorithm is a JWS algorithm name (RFC 7518 §3.1), as a proof's "alg"
// header states it. It is verify's own type, so that the verifier's
// policy names no type of the JOSE library it uses.
type Algorithm string

// checkRebind checks block i of a chain that was bound to prev (a jkt, or
// nil) before it. A block that names a new holder of a bound ticket must
// carry a signature by the current holder's key over the block and the
// chain so far (spec/FORMAT.md §4.4); a thief holding the ticket but not
// the key cannot rebind it.
func (d *Decision) checkRebind(c *token.Verified, i int, prev []byte) bool {
	b := &c.Blocks[i]
	rebinds := false
	for _, cv := range b.Caveats {
		if cv.Kind == caveat.Holder && i > 0 && prev != nil {
			rebinds = true
		}
	}
	switch {
	case !rebinds && b.RebindJWK == nil:
		return true
	case !rebinds:
		d.refuse(CheckAttenuation, i, caveat.Holder, "block carries a holder signature but rebinds no bound ticket")
		return false
	case b.RebindJWK == nil:
		d.refuse(CheckAttenuation, i, caveat.Holder, "rebinding a bound ticket without the current holder's signature")
		return false
	}
	signer, err := key.ParseHolderPublic(b.RebindJWK)
	if err != nil {
		d.refuse(CheckAttenuation, i, caveat.Holder, "rebinding signature: "+err.Error())
		return false
	}
	if !signer.Verify(token.RebindMessage(c.IDs[i-1], b.Bytes()), b.RebindSig) {
		d.refuse(CheckAttenuation, i, caveat.Holder, "rebinding signature: "+errRebindSig.Error())
		return false
	}
	if jkt := signer.Thumbprint(); jkt != jktText(prev) {
		d.refuse(CheckAttenuation, i, caveat.Holder, "rebinding signed by "+jkt+", not by the current holder "+jktText(prev))
		return false
	}
	return true
}

// checkHolder checks the DPoP proof of a bound ticket's last holder.
func (d *Decision) checkHolder(t *token.Ticket, c *token.Verified, holder []byte, req *caveat.Request, now time.Time, o *DPoPOptions) {
	block := 0
	for i := range c.Blocks {
		for _, cv := range c.Blocks[i].Caveats {
			if cv.Kind == caveat.Holder {
				block = i
			}
		}
	}
	h := req.Holder
	if h == nil || h.Proof == "" {
		d.refuse(CheckDPoP, block, caveat.Holder, "the ticket is bound to holder "+jktText(holder)+": a DPoP proof by that key is required")
		return
	}
	p, err := dpop.Verify(h.Proof, dpop.Expectations{
		Method: h.Method, URI: h.URI, Nonce: h.Nonce,
		AccessToken: t.String(), Thumbprint: jktText(holder),
		Algorithms: joseAlgorithms(o.Algorithms), MaxAge: o.MaxAge, FutureSkew: o.FutureSkew,
	}, now)

	if err != nil {
		var de *dpop.Error
		reason := err.Error()
		if errors.As(err, &de) {
			reason = string(de.Check) + ": " + de.Reason
		}
		d.refuse(CheckDPoP, block, caveat.Holder, reason)
		return
	}
	d.Proof = p
}

// errRebindSig is the refusal of a rebinding signature that does not
// verify under the JWK the block carries.
var errRebindSig = errors.New("holder signature does not verify")

func jktText(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// joseAlgorithms converts the allow-list for package dpop; nil stays nil
// (dpop's defaults).
func joseAlgorithms(as []Algorithm) []jose.SignatureAlgorithm {
	if as == nil {
		return nil
	}
	out := make([]jose.SignatureAlgorithm, len(as))
	for i, a := range as {
		out[i] = jose.SignatureAlgorithm(a)
	}
	return out
}
