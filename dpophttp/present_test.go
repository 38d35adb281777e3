package dpophttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPresent: Present reads what the Handler reads before deciding (the
// ticket, the proof with the public URL and the nonce it must name) and
// refuses what the Handler refuses before deciding, with the same
// challenges; it decides nothing, so a proof it passes is still unused.
func TestPresent(t *testing.T) {
	f := newFixture(t, nil)
	bound := f.mint(true, "tools=POST")

	r := f.request("POST", "/mcp", bound, strings.NewReader("{}"))
	pr, e := f.mw.Present(httptest.NewRecorder(), r)
	switch {
	case e != nil:
		t.Fatalf("refused: %v", e)
	case pr.Ticket.String() != bound || pr.Holder == nil:
		t.Fatalf("presentation: %+v", pr)
	case pr.Holder.Method != "POST" || pr.Holder.URI != public+"/mcp" || pr.Holder.Nonce != f.nonce() ||
		pr.Holder.Proof != r.Header.Get("DPoP"):
		t.Fatalf("holder proof: %+v", pr.Holder)
	}
	// Nothing was decided: the same request passes the Handler once.
	if w := f.do(r); w.Code != http.StatusOK {
		t.Fatalf("the Handler after Present: %d %s", w.Code, w.Body)
	}

	for _, tc := range []struct {
		name   string
		edit   func(*http.Request)
		status int
		code   string
	}{
		{"no ticket", func(r *http.Request) { r.Header.Del("Authorization"); r.Header.Del("DPoP") }, 401, ""},
		{"bound under Bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+bound); r.Header.Del("DPoP") }, 401, CodeInvalidToken},
		{"no proof", func(r *http.Request) { r.Header.Del("DPoP") }, 401, CodeInvalidProof},
		{"stale nonce", func(r *http.Request) {
			r.Header.Set("DPoP", f.proofBy(f.holder, "POST", public+"/mcp", bound, "not-a-nonce"))
		}, 401, CodeUseNonce},
		{"malformed ticket", func(r *http.Request) { r.Header.Set("Authorization", "DPoP x"+bound) }, 401, CodeInvalidToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.request("POST", "/mcp", bound, strings.NewReader("{}"))
			tc.edit(r)
			w := httptest.NewRecorder()
			_, e := f.mw.Present(w, r)
			if e == nil || e.Status != tc.status || e.Code != tc.code {
				t.Fatalf("got %+v, want %d %q", e, tc.status, tc.code)
			}
			f.mw.Refuse(w, r, e)
			if w.Code != tc.status || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "DPoP") {
				t.Fatalf("refusal: %d %v", w.Code, w.Header())
			}
			if tc.code == CodeUseNonce && w.Header().Get(NonceHeader) == "" {
				t.Fatalf("a nonce challenge without a nonce")
			}
		})
	}
}
