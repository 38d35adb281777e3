package caveat

import (
	"strings"
	"testing"
	"time"
)

// TestParseNeverEchoesKeys passes key files pasted into caveats by mistake
// and checks that no error quotes any 8 bytes of the secret.
func TestParseNeverEchoesKeys(t *testing.T) {
	const d = "aYKjHGCW9eJEXLgK7stZM2VYMV7Rk1f87XwLVYsqb9Q" // a private JWK's d
	const hmacKey = "PRIVATE+KEY+h+6c49df7b+/3RpY2tldHRvb2wvdjEgaG1hYy1zaGEyNTZbsAakb4fDi7nv+yfESTfA8xKHprSql/OVaICvSpwobQ=="
	const edKey = "PRIVATE+KEY+root+56e4782d+AfWHEbbx00iUqV5LPWrLgJ+Bat7R09OQYXgWbtxu0PKN"
	okp := `{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","x":"EeNzKToeL4szY08N4Vl6OKXRRi1cOubcYpJWX5EbeTY","d":"` + d + `"}`
	ec := `{"kty":"EC","crv":"P-256","d":"` + d + `","x":"hC4jIPuqOsqN68MG7iwjlQ_UMpTEpxT3T_hqocEsX9c","y":"qEeXdYiE8pdH299sm2nG-xIx60THiIDGtl6mS1Aj5zA"}`
	secrets := []string{d, hmacKey[len("PRIVATE+KEY+h+6c49df7b+"):], edKey[len("PRIVATE+KEY+root+56e4782d+"):]}
	var inputs []string
	for _, v := range []string{okp, ec, hmacKey, edKey, d[:20] + `"}`, `"d":"` + d} {
		inputs = append(inputs, v)
		for _, k := range []string{"tools", "ops", "paths", "hosts", "aud", "calls", "until", "nbf", "cost", "total", "depth", "holder", "nope"} {
			inputs = append(inputs, k+"="+v)
		}
	}
	for _, in := range inputs {
		_, err := Parse(in, time.Unix(1e9, 0))
		if err == nil {
			continue
		}
		for _, s := range secrets {
			for i := 0; i+8 <= len(s); i++ {
				if strings.Contains(err.Error(), s[i:i+8]) {
					t.Fatalf("Parse(%.20q...) error quotes the secret: %v", in, err)
				}
			}
		}
	}
}
