package dpop_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/key"
)

// The Ed25519 example key of RFC 8037 Appendix A.1 (a published test key).
const rfc8037PrivateJWK = `{"kty":"OKP","crv":"Ed25519",
 "d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
 "x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`

func ExampleMake() {
	holder, err := key.ParseHolder([]byte(rfc8037PrivateJWK))
	if err != nil {
		panic(err)
	}
	proof, err := dpop.Make(holder, "POST", "mcp://workspace/read_file", dpop.MakeOptions{
		IssuedAt:    time.Unix(1700000000, 0),
		JTI:         "example-jti",
		AccessToken: "ticket-text",
	})
	if err != nil {
		panic(err)
	}
	parts := strings.Split(proof, ".")
	for _, p := range parts[:2] {
		b, _ := base64.RawURLEncoding.DecodeString(p)
		fmt.Println(string(b))
	}
	// Output:
	// {"alg":"EdDSA","jwk":{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},"typ":"dpop+jwt"}
	// {"jti":"example-jti","htm":"POST","htu":"mcp://workspace/read_file","iat":1700000000,"ath":"CH4M_7V8kXeQkzUo4XXWPu0pSc-Oa266LEwMdgga79k"}
}

func ExampleVerify() {
	holder, _ := key.ParseHolder([]byte(rfc8037PrivateJWK))
	now := time.Unix(1700000000, 0)
	proof, _ := dpop.Make(holder, "POST", "https://server.example.com/token", dpop.MakeOptions{IssuedAt: now})

	exp := dpop.Expectations{
		Method:     "POST",
		URI:        "https://SERVER.example.com:443/token?ignored=1",
		Thumbprint: "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
	}
	p, err := dpop.Verify(proof, exp, now.Add(10*time.Second))
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Method, p.URI, p.Thumbprint)

	// Remember the jti: the same proof is refused the second time.
	cache := dpop.NewMemoryReplayCache(1000)
	fmt.Println(p.Remember(cache, now))
	fmt.Println(p.Remember(cache, now))

	// A refusal names the check that failed.
	exp.Method = "GET"
	_, err = dpop.Verify(proof, exp, now)
	var e *dpop.Error
	fmt.Println(errors.As(err, &e), e.Check, errors.Is(err, dpop.ErrInvalid))
	fmt.Println(err)
	// Output:
	// POST https://server.example.com/token kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k
	// <nil>
	// dpop: replay: jti already used for this htu, or replay cache full
	// true htm true
	// dpop: htm: got "POST", want "GET"
}
