package dpophttp

import (
	"encoding/json"
	"net/http"
	"strings"
)

// MetadataPath is where RFC 9728 §3 puts the protected-resource metadata
// of the public URL: "/.well-known/oauth-protected-resource" followed by
// the public URL's path, if any.
func (m *Middleware) MetadataPath() string {
	return "/.well-known/oauth-protected-resource" + m.public.EscapedPath()
}

// metadata is the RFC 9728 §2 document.
type metadata struct {
	Resource        string   `json:"resource"`
	BearerMethods   []string `json:"bearer_methods_supported"`
	DPoPAlgs        []string `json:"dpop_signing_alg_values_supported"`
	DPoPBoundTokens bool     `json:"dpop_bound_access_tokens_required"`
	ResourceName    string   `json:"resource_name,omitempty"`
}

// MetadataHandler serves the RFC 9728 protected-resource metadata (for
// clients, such as MCP clients, that discover a resource that way): the
// public URL as resource, the header as the only way to send a ticket,
// the DPoP algorithms accepted, and whether tickets must be bound (they
// must unless Options.AllowBearer). Mount it at [Middleware.MetadataPath],
// outside the middleware; set Options.ResourceMetadata to its public URL
// so that every challenge names it. name, when not "", is the
// resource_name.
func (m *Middleware) MetadataHandler(name string) http.Handler {
	doc, _ := json.Marshal(metadata{
		Resource: m.public.String(), BearerMethods: []string{"header"},
		DPoPAlgs: strings.Fields(m.algs), DPoPBoundTokens: !m.opt.AllowBearer, ResourceName: name,
	})
	doc = append(doc, '\n')
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	})
}
