package dpop

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/internal/jwk"
	"github.com/tickettool/tickettool/internal/randsrc"
	"github.com/tickettool/tickettool/internal/strictjson"
	"github.com/tickettool/tickettool/key"
)

// MakeOptions are the optional parts of a proof made by [Make].
type MakeOptions struct {
	// Nonce, when non-empty, is sent as the nonce claim.
	Nonce string
	// AccessToken, when non-empty, adds ath = base64url(SHA-256(AccessToken)).
	AccessToken string
	// IssuedAt is the iat (truncated to whole seconds). Required: Make
	// never reads the clock.
	IssuedAt time.Time
	// JTI is the jti; empty means 16 random bytes from crypto/rand,
	// base64url.
	JTI string
	// Algorithm is the header's "alg": empty means ES256 for a P-256
	// key and EdDSA for an Ed25519 key; [Ed25519] (RFC 9864) is the
	// other name an Ed25519 key may sign under. EdDSA is the default
	// because every DPoP verifier that accepts Ed25519 keys knows it,
	// while verifiers written before RFC 9864 (go-jose v4, auth0's
	// go-jwt-middleware) refuse the alg "Ed25519"; choose Ed25519 for a
	// verifier that lists only it (its DPoP challenge's algs, RFC 9449
	// §7.1).
	Algorithm jose.SignatureAlgorithm
}

// proofClaims is the payload Make signs (RFC 9449 §4.2).
type proofClaims struct {
	JTI   string `json:"jti"`
	HTM   string `json:"htm"`
	HTU   string `json:"htu"`
	IAT   int64  `json:"iat"`
	Nonce string `json:"nonce,omitempty"`
	ATH   string `json:"ath,omitempty"`
}

// Make builds a DPoP proof (RFC 9449 §4.2) for a request with the given
// method and URI, signed by the holder key (ES256 or EdDSA, by the key's
// algorithm, or Ed25519 when opts.Algorithm says so). The header carries typ "dpop+jwt" and the public JWK only.
// htu is uri without its query and fragment; the rest of uri must be
// acceptable to [NormalizeURI] and is kept as given.
func Make(holder *key.Holder, method, uri string, opts MakeOptions) (string, error) {
	signer, err := newHolderSigner(holder, opts.Algorithm)
	if err != nil {
		return "", err
	}
	if method == "" {
		return "", errors.New("dpop: empty method")
	}
	if opts.IssuedAt.IsZero() {
		return "", errors.New("dpop: issued-at time is required")
	}
	iat := opts.IssuedAt.Unix()
	if iat < 0 || iat > maxIssuedAt {
		return "", errors.New("dpop: issued-at out of range")
	}
	htu, _, _ := strings.Cut(uri, "#")
	htu, _, _ = strings.Cut(htu, "?")
	if _, err := NormalizeURI(htu); err != nil {
		return "", err
	}
	jti := opts.JTI
	if jti == "" {
		var b [jtiRandomBytes]byte
		if _, err := io.ReadFull(randsrc.Reader(), b[:]); err != nil {
			return "", errors.New("dpop: reading randomness for jti failed")
		}
		jti = base64.RawURLEncoding.EncodeToString(b[:])
	}
	if len(jti) > MaxJTIBytes {
		return "", errors.New("dpop: jti too long")
	}
	c := proofClaims{JTI: jti, HTM: method, HTU: htu, IAT: iat, Nonce: opts.Nonce}
	if opts.AccessToken != "" {
		sum := sha256.Sum256([]byte(opts.AccessToken))
		c.ATH = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return "", errors.New("dpop: encoding claims failed")
	}
	payload := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))

	opt := (&jose.SignerOptions{EmbedJWK: true}).WithType(typDPoP)
	js, err := jose.NewSigner(jose.SigningKey{Algorithm: signer.alg, Key: signer}, opt)
	if err != nil {
		return "", errors.New("dpop: creating signer failed")
	}
	jws, err := js.Sign(payload)
	if err != nil {
		return "", errors.New("dpop: signing failed")
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		return "", errors.New("dpop: serializing failed")
	}
	if !embedsPublicJWK(out) {
		return "", errors.New("dpop: embedded jwk is not public")
	}
	if len(out) > MaxProofBytes {
		return "", errors.New("dpop: proof too long")
	}
	return out, nil
}

// embedsPublicJWK reports whether the protected header of a compact JWS
// embeds a jwk without private or symmetric members. Make uses it so that
// it never publishes key material, whatever the signer embedded.
func embedsPublicJWK(compact string) bool {
	enc, _, _ := strings.Cut(compact, ".")
	if checkShape(compact) != nil {
		return false
	}
	b, e := decodeHeader(enc, nil)
	if e != nil {
		return false
	}
	var hdrJWK []byte
	strictjson.EachMember(b, func(name, v []byte) bool {
		if string(name) == "jwk" {
			hdrJWK = v
		}
		return true
	})
	public := true
	isObject := strictjson.EachMember(hdrJWK, func(name, _ []byte) bool {
		public = !jwk.Private(name)
		return public
	})
	return isObject && public
}
