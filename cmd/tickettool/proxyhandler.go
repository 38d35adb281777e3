package main

import (
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"

	"github.com/tickettool/tickettool/dpophttp"
)

// newProxyHandler returns the middleware in front of a reverse proxy to
// the upstream. The ticket, the proof and the discharges are removed
// before forwarding; the upstream credentials, if any, replace them.
func newProxyHandler(cfg *proxyConfig) (http.Handler, error) {
	if u, err := url.Parse(cfg.opts.PublicURL); err == nil && cfg.opts.ResourceMetadata == "" {
		cfg.opts.ResourceMetadata = u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.EscapedPath(), "/")
	}
	mw, err := dpophttp.New(cfg.opts)
	if err != nil {
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(cfg.upstream)
			for _, h := range []string{"Authorization", "DPoP", dpophttp.DischargeHeader, "Forwarded",
				"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				pr.Out.Header.Del(h)
			}
			if cfg.upstreamAuth != "" {
				pr.Out.Header.Set("Authorization", cfg.upstreamAuth)
			}
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// A request the upstream never received did nothing: its
			// budgets are given back. Any other failure may have reached
			// it, and is charged.
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" {
				dpophttp.Release(r.Context())
				err = errUnreachable
			}
			w.Header().Set("Cache-Control", "no-store")
			http.Error(w, "tickettool proxy: "+err.Error(), http.StatusBadGateway)
		},
	}
	mux := http.NewServeMux()
	mux.Handle(mw.MetadataPath(), mw.MetadataHandler(""))
	mux.Handle("/", mw.Handler(rp))
	return mux, nil
}
