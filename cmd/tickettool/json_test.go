package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process with the given standard input.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// decodeOne decodes stdout as exactly one JSON object on one line into a
// map, and requires the listed keys and no others.
func decodeOne(t *testing.T, stdout string, keys ...string) map[string]any {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("want one line of JSON, got %q", stdout)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(keys)
	if !slices.Equal(got, keys) {
		t.Fatalf("fields %v, want %v", got, keys)
	}
	return m
}

var verifyFields = []string{"decision", "refusals", "family_id", "block_ids", "budgets", "hints"}

func TestVerifyJSON(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "root.key")
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", key, "--kid", "root")
	t0 := tt(t, 0, "mint", "--key", key, "tools=read_file", "paths=src/", "calls=5", "total=2.50USD", "until=2030-01-01T00:00:00Z")
	t1 := tt(t, 0, "attenuate", t0, "paths=src/a/", "calls=2")
	now := "2029-01-01T00:00:00Z"
	base := []string{"verify", "--json", "--store", "memory", "--key", key + ".pub", "--now", now}

	// valid: every array present, ids and budgets typed
	code, out, errs := runCLI(t, "", append(base, t1)...)
	m := decodeOne(t, out, verifyFields...)
	if code != exitOK || errs != "" || m["decision"] != "valid" || len(m["refusals"].([]any)) != 0 {
		t.Fatalf("valid: exit %d, %v, stderr %q", code, m, errs)
	}
	ids := m["block_ids"].([]any)
	if len(ids) != 2 || len(ids[1].(string)) != 64 || len(m["family_id"].(string)) != 32 {
		t.Fatalf("ids: %v %v", ids, m["family_id"])
	}
	wantBudgets := []any{
		map[string]any{"block": 0.0, "kind": "calls", "key": ids[0], "limit": 5.0},
		map[string]any{"block": 0.0, "kind": "total", "key": ids[0], "limit": "2.5USD"},
		map[string]any{"block": 1.0, "kind": "calls", "key": ids[1], "limit": 2.0},
	}
	if !reflect.DeepEqual(m["budgets"], wantBudgets) {
		t.Fatalf("budgets %v, want %v", m["budgets"], wantBudgets)
	}

	// refused: the refusals in the JSON, nothing on stderr, exit 1
	code, out, errs = runCLI(t, "", append(base, "--tool", "read_file", "--path", "src/b/x", "--path", "src/a/../../etc", t1)...)
	m = decodeOne(t, out, verifyFields...)
	if code != exitRefused || errs != "" || m["decision"] != "refused" {
		t.Fatalf("refused: exit %d, %v, stderr %q", code, m, errs)
	}
	r := m["refusals"].([]any)
	first := r[0].(map[string]any)
	if len(r) < 2 || !reflect.DeepEqual(first, map[string]any{"check": "caveat", "block": 0.0, "kind": "paths",
		"reason": first["reason"]}) || !strings.Contains(first["reason"].(string), "..") {
		t.Fatalf("refusals %v", r)
	}

	// invalid, with a hint and a refusal of no block: --modes, expiry
	code, out, errs = runCLI(t, "", append(base, "--modes", "hmac", t1)...)
	m = decodeOne(t, out, verifyFields...)
	first = m["refusals"].([]any)[0].(map[string]any)
	if code != exitRefused || errs != "" || m["decision"] != "invalid" || first["check"] != "key" || first["block"] != -1.0 ||
		first["kind"] != "" || len(m["hints"].([]any)) != 1 || len(m["block_ids"].([]any)) != 0 || m["family_id"] != "" {
		t.Fatalf("invalid: exit %d, %v, stderr %q", code, m, errs)
	}
	code, out, _ = runCLI(t, "", "verify", "--json", "--store", "memory", "--key", key+".pub", "--now", "2031-01-01T00:00:00Z", t1)
	m = decodeOne(t, out, verifyFields...)
	if code != exitRefused || m["refusals"].([]any)[0].(map[string]any)["kind"] != "until" {
		t.Fatalf("expired: %v", m)
	}

	// allowed
	code, out, errs = runCLI(t, "", append(base, "--tool", "read_file", "--path", "src/a/x", "--cost", "0.10USD", t1)...)
	if m = decodeOne(t, out, verifyFields...); code != exitOK || errs != "" || m["decision"] != "allowed" {
		t.Fatalf("allowed: exit %d, %v, stderr %q", code, m, errs)
	}

	// undecodable input, usage errors: no JSON, the error on stderr
	for _, args := range [][]string{append(base, "tkt1_!!"), append(base, "--now", "never", t1), {"verify", "--json", t1}} {
		code, out, errs = runCLI(t, "", args...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errs, "tickettool: error: ") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestRefusalOnce: without --json a refusal is on stdout, and stderr has
// hints only (no error line repeating it).
func TestRefusalOnce(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "root.key")
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", key, "--kid", "root")
	tk := tt(t, 0, "mint", "--key", key, "tools=read_file", "until=2030-01-01T00:00:00Z")
	code, out, errs := runCLI(t, "", "verify", "--store", "memory", "--key", key+".pub", "--now", "2031-01-01T00:00:00Z", "--tool", "write_file", tk)
	if code != exitRefused || !strings.HasPrefix(out, "refused\nblock 0 caveat tools: ") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(errs, "\n"), "\n") {
		if !strings.HasPrefix(line, "tickettool: hint: ") {
			t.Fatalf("stderr line %q is not a hint", line)
		}
	}
	if !strings.Contains(errs, "expired") || strings.Contains(errs, "caveat tools") {
		t.Fatalf("stderr %q", errs)
	}
}

var proofFields = []string{"decision", "jkt", "htm", "htu", "iat", "jti", "check", "reason", "hints"}

func TestProofCheckJSON(t *testing.T) {
	dir := t.TempDir()
	holder := filepath.Join(dir, "agent.jwk")
	tt(t, 0, "holder", "--alg", "eddsa", "--out", holder)
	p := tt(t, 0, "proof", "make", "--key", holder, "--htm", "POST", "--htu", "https://x.example/a", "--iat", "2029-01-01T00:00:00Z")
	check := []string{"proof", "check", "--json", "--htm", "POST", "--htu", "https://x.example/a"}

	code, out, errs := runCLI(t, p, append(check, "--now", "2029-01-01T00:00:10Z", "-")...)
	m := decodeOne(t, out, proofFields...)
	if code != exitOK || errs != "" || m["decision"] != "valid" || m["htm"] != "POST" || m["htu"] != "https://x.example/a" ||
		m["iat"] != "2029-01-01T00:00:00Z" || m["jti"] == "" || len(m["jkt"].(string)) != 43 || m["check"] != "" {
		t.Fatalf("valid: exit %d, %v, stderr %q", code, m, errs)
	}
	code, out, errs = runCLI(t, "", append(check, "--now", "2029-01-01T01:00:00Z", p)...)
	m = decodeOne(t, out, proofFields...)
	if code != exitRefused || errs != "" || m["decision"] != "invalid" || m["check"] != "iat" || m["reason"] == "" ||
		m["jkt"] != "" || len(m["hints"].([]any)) != 1 {
		t.Fatalf("invalid: exit %d, %v, stderr %q", code, m, errs)
	}
	// without --json: nothing on stdout, the check on stderr
	code, out, errs = runCLI(t, "", "proof", "check", "--htm", "POST", "--htu", "https://x.example/a", "--now", "2029-01-01T01:00:00Z", p)
	if code != exitRefused || out != "" || !strings.HasPrefix(errs, "tickettool: error: dpop: iat: ") {
		t.Fatalf("text: exit %d, %q, %q", code, out, errs)
	}
	code, out, errs = runCLI(t, "", "proof", "check", "--json", "--htm", "POST", p)
	if code != exitUsage || out != "" || errs == "" {
		t.Fatalf("usage: exit %d, %q, %q", code, out, errs)
	}
}
