package dpophttp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// A service accepts tickets bound to a holder key: the middleware checks
// the ticket, the DPoP proof and its nonce, reserves the budgets, and
// hands the decision to the handler.
func Example() {
	root, _ := key.Generate(key.Ed25519, "root")
	keys, _ := token.NewKeyring(root.Verifying())
	mw, err := dpophttp.New(dpophttp.Options{
		Keys:      keys,
		PublicURL: "https://api.example.com",
		Routes:    []dpophttp.Route{{Pattern: "POST /v1/notes", Tool: "notes.create"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", mw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, _ := dpophttp.FromContext(r.Context())
		fmt.Fprintf(w, "created by %s", d.Request.Tool)
	})))
	mux.Handle(mw.MetadataPath(), mw.MetadataHandler("notes"))

	// The agent's side: a holder key and a ticket bound to it.
	holder, _ := key.GenerateHolder(key.ES256)
	cs, _ := caveat.ParseAll([]string{"tools=notes.create", "paths=/v1/", "calls=10", "until=1h",
		"holder=" + holder.Thumbprint()}, time.Now())
	ticket, _ := token.Mint(root, cs, nil)

	send := func(nonce string) *http.Response {
		r := httptest.NewRequest("POST", "/v1/notes", nil)
		proof, _ := dpop.Make(holder, "POST", "https://api.example.com/v1/notes",
			dpop.MakeOptions{AccessToken: ticket.String(), Nonce: nonce, IssuedAt: time.Now()})
		r.Header.Set("Authorization", "DPoP "+ticket.String())
		r.Header.Set("DPoP", proof)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		return w.Result()
	}
	res := send("") // the first request learns the server's nonce
	fmt.Println(res.StatusCode, res.Header.Get("WWW-Authenticate"))
	res = send(res.Header.Get(dpophttp.NonceHeader))
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, string(body))
	// Output:
	// 401 DPoP algs="ES256 EdDSA Ed25519", error="use_dpop_nonce", error_description="the DPoP proof must carry the nonce in the DPoP-Nonce header"
	// 200 created by notes.create
}
