package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/key"
)

// dpopJSEnv names client.mjs of panva's dpop, installed by
// testdata/dpopjs/install.sh.
const dpopJSEnv = "TICKETTOOL_DPOP_JS"

// An independent DPoP client, panva's npm dpop (pinned), drives the
// proxy: its key's thumbprint is ours, the proxy accepts its proofs, and
// it learns the proxy's nonce and uses it.
func TestProxyDPoPJS(t *testing.T) {
	js := os.Getenv(dpopJSEnv)
	if js == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(dpopJSEnv + " is not set: CI must run the proxy against an independent DPoP client (bash cmd/tickettool/testdata/dpopjs/install.sh)")
		}
		t.Skip(dpopJSEnv + " is not set (bash cmd/tickettool/testdata/dpopjs/install.sh installs the client)")
	}
	k := newProxyKit(t)
	c, rec := inProcessProxy(t, k, "", func(cfg *proxyConfig) {
		cfg.opts.Routes = append(cfg.opts.Routes, routeOf("POST /v1/notes", "notes.create"))
	})
	cmd := exec.Command("node", js, c.base, c.public, "GET:/v1/a", `POST:/v1/notes:{"summary":"ship it"}`, "DELETE:/v1/a")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("no key from the client: %s", stderr.String())
	}
	var hello struct {
		JWK        json.RawMessage `json:"jwk"`
		Thumbprint string          `json:"thumbprint"`
	}
	if err := json.Unmarshal(lines.Bytes(), &hello); err != nil {
		t.Fatal(err)
	}
	pub, err := key.ParseHolderPublic(hello.JWK)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Thumbprint() != hello.Thumbprint {
		t.Fatalf("thumbprints differ: ours %s, dpop's %s", pub.Thumbprint(), hello.Thumbprint)
	}
	tk := cliOK(t, "mint", "--key", k.rootKey, "until=1h", "tools=GET,notes.create", "paths=/v1/", "holder="+hello.Thumbprint)
	io.WriteString(stdin, tk+"\n")
	type result struct {
		Method, Path, Challenge, Body string
		Status                        int
		SentNonce                     *string `json:"sent_nonce"`
		DPoPNonce                     *string `json:"dpop_nonce"`
	}
	var rs []result
	for lines.Scan() {
		var r result
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("client: %v: %s", err, stderr.String())
	}
	if len(rs) != 4 {
		t.Fatalf("%d results: %+v", len(rs), rs)
	}
	first, retry, post, del := rs[0], rs[1], rs[2], rs[3]
	switch {
	case first.Status != 401 || !strings.Contains(first.Challenge, `error="use_dpop_nonce"`) || first.DPoPNonce == nil || first.SentNonce != nil:
		t.Fatalf("first request: %+v", first)
	case retry.Status != 200 || retry.SentNonce == nil || *retry.SentNonce != *first.DPoPNonce:
		t.Fatalf("retry with the nonce: %+v", retry)
	case post.Status != 200 || post.SentNonce == nil:
		t.Fatalf("POST: %+v", post)
	case del.Status != 403 || !strings.Contains(del.Challenge, `error="insufficient_scope"`):
		t.Fatalf("DELETE: %+v", del)
	}
	if seen := rec.all(); !strings.Contains(seen, `{"summary":"ship it"}`) || strings.Contains(seen, "tkt1_") {
		t.Fatalf("upstream saw:\n%s", seen)
	}
}
