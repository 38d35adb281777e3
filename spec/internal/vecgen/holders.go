package vecgen

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"time"

	"github.com/tickettool/tickettool/token"
)

// holderSign signs msg with a holder's key as JWS does (FORMAT.md §4.4):
// Ed25519, or ES256 as r ‖ s over SHA-256 of msg, deterministic (RFC 6979)
// so that the vectors regenerate, with a low S unless highS.
func (g *gen) holderSign(name string, msg []byte, highS bool) []byte {
	switch k := g.holders[name].(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(k, msg)
	case *ecdsa.PrivateKey:
		digest := sha256.Sum256(msg)
		der, err := k.Sign(nil, digest[:], crypto.SHA256)
		g.fail(err)
		var rs struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(der, &rs); err != nil {
			g.fail(err)
			return nil
		}
		n := k.Curve.Params().N
		if (rs.S.Cmp(new(big.Int).Rsh(n, 1)) > 0) != highS {
			rs.S.Sub(n, rs.S)
		}
		sig := make([]byte, 64)
		rs.R.FillBytes(sig[:32])
		rs.S.FillBytes(sig[32:])
		return sig
	}
	g.fail(errorf("no holder " + name))
	return nil
}

// claims are a DPoP proof's payload (RFC 9449 §4.2).
type claims struct {
	JTI string `json:"jti"`
	HTM string `json:"htm"`
	HTU string `json:"htu"`
	IAT int64  `json:"iat"`
	ATH string `json:"ath"`
}

// handProof builds holder's DPoP proof for t by hand (RFC 9449 §4.2, RFC
// 7515 compact serialisation), with any htm, htu and iat, so that the
// vectors can hold proofs no careful client makes.
func (g *gen) handProof(holder string, t *token.Ticket, jti, htm, htu string, iat time.Time, highS bool) string {
	if t == nil || g.err != nil {
		return ""
	}
	alg := "EdDSA"
	if _, ok := g.holders[holder].(*ecdsa.PrivateKey); ok {
		alg = "ES256"
	}
	hdr := `{"alg":"` + alg + `","jwk":` + g.file.Holders[holder].PublicJWK + `,"typ":"dpop+jwt"}`
	ath := sha256.Sum256([]byte(t.String()))
	payload, err := json.Marshal(claims{JTI: jti, HTM: htm, HTU: htu, IAT: iat.Unix(), ATH: b64(ath[:])})
	g.fail(err)
	input := b64([]byte(hdr)) + "." + b64(payload)
	return input + "." + b64(g.holderSign(holder, []byte(input), highS))
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
