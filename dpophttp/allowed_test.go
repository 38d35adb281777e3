package dpophttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestAllowedDecisionInContext(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Routes = []Route{{Pattern: "POST /v1/orders/{id}", Tool: "orders.update"}}
	})
	tk := f.mint(true, "tools=orders.update", "paths=/v1/orders/", "calls=5", "intent=update orders")
	var got Decision
	f.inner = func(w http.ResponseWriter, r *http.Request) {
		got, _ = FromContext(r.Context())
		w.WriteHeader(204)
	}
	w := f.do(f.request("POST", "/v1/orders/7", tk, nil))
	if w.Code != 204 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if !got.Allowed || got.Holder != f.holder.Thumbprint() || len(got.BlockIDs) != 1 || len(got.Budgets) != 1 ||
		got.Intent != "update orders" || got.Request.Tool != "orders.update" || got.Request.Op != "post" {
		t.Fatalf("decision %+v", got)
	}
	if _, ok := FromContext(context.Background()); ok {
		t.Fatal("a decision without a request")
	}
	// Without the route, the tool is the method, which the ticket does
	// not name.
	checkRefusal(t, f.do(f.request("GET", "/v1/orders/7", tk, nil)), 403, CodeInsufficientScope, "caveat tools", false)
}

// The route of the http.ServeMux the middleware runs in names the tool.
func TestRequestPattern(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Routes = []Route{{Pattern: "GET /v1/items/{id}", Tool: "items.read"}}
	})
	mux := http.NewServeMux()
	mux.Handle("GET /v1/items/{id}", f.h)
	mux.Handle("GET /v1/other/{id}", f.h)
	tk := f.mint(true, "tools=items.read")
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, f.request("GET", "/v1/items/3", tk, nil))
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, f.request("GET", "/v1/other/3", tk, nil))
	checkRefusal(t, w, 403, CodeInsufficientScope, "caveat tools", false)
}
