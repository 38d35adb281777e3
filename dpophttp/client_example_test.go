package dpophttp_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/dpophttp"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// A Transport presents a holder-bound ticket: the server here demands a
// nonce, which the Transport learns from the challenge and sends the
// request again with, body and all; and it never sends the ticket to a
// host its hosts caveat leaves out.
func ExampleTransport() {
	holder, _ := key.GenerateHolder(key.Ed25519)
	root, _ := key.Generate(key.Ed25519, "root")
	bind, _ := caveat.NewHolder(holder.Thumbprint())
	cs, _ := caveat.ParseAll([]string{"tools=notes.write", "hosts=127.0.0.1", "until=1h"}, time.Now())
	ticket, _ := token.Mint(root, append(cs, bind), nil)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tk := strings.TrimPrefix(r.Header.Get("Authorization"), "DPoP ")
		_, err := dpop.Verify(r.Header.Get("DPoP"), dpop.Expectations{Method: r.Method, URI: "http://" + r.Host + r.URL.Path,
			Nonce: "n-1", AccessToken: tk, Thumbprint: holder.Thumbprint()}, time.Now())
		if errors.Is(err, dpop.ErrNonce) {
			w.Header().Set("WWW-Authenticate", `DPoP algs="ES256 EdDSA", error="use_dpop_nonce"`)
			w.Header().Set("DPoP-Nonce", "n-1")
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "proof %v, body %s", err == nil, body)
	}))
	defer srv.Close()

	tr, _ := dpophttp.NewTransport(ticket, holder, dpophttp.ClientOptions{})
	client := &http.Client{Transport: tr}
	resp, _ := client.Post(srv.URL+"/notes", "application/json", strings.NewReader(`{"summary":"hi"}`))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(b))

	_, err := client.Get("https://notes.example.org/notes")
	fmt.Println(errors.Is(err, dpophttp.ErrNotForOrigin))
	// Output:
	// 200 proof true, body {"summary":"hi"}
	// true
}
