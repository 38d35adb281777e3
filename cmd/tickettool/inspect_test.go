package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestInspectJSONTypes: every caveat kind has its typed value in inspect
// --json, besides its text.
func TestInspectJSONTypes(t *testing.T) {
	dir := t.TempDir()
	key, holder := filepath.Join(dir, "root.key"), filepath.Join(dir, "agent.jwk")
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", key, "--kid", "root")
	tt(t, 0, "holder", "--alg", "eddsa", "--out", holder)
	tk := tt(t, 0, "mint", "--key", key, "--bind", holder+".pub", "tools=write_file,read_file", "ops=invoke,delegate",
		"paths=src/", "hosts=*.example.org", "calls=5", "until=2030-01-01T00:00:00Z", "nbf=2029-01-01T00:00:00Z",
		"aud=workspace", "cost=0.5USD", "total=5USD", "depth=2", "intent=fix it")
	code, out, errs := runCLI(t, "", "inspect", "--json", "--now", "2029-06-01T00:00:00Z", tk)
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Blocks []struct {
			Caveats   []caveatJSON `json:"caveats"`
			Effective []caveatJSON `json:"effective"`
		} `json:"blocks"`
		Holder     string `json:"holder"`
		ExpiresAt  string `json:"expires_at"`
		Expired    *bool  `json:"expired"`
		Attenuable *bool  `json:"attenuable"`
		Now        string `json:"now"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	jkt := res.Holder
	want := map[string]any{
		"tools": []any{"read_file", "write_file"}, "ops": []any{"delegate", "invoke"}, "paths": []any{"src/"},
		"hosts": []any{"*.example.org"}, "calls": 5.0, "until": "2030-01-01T00:00:00Z", "nbf": "2029-01-01T00:00:00Z",
		"aud": []any{"workspace"}, "cost": "0.5USD", "total": "5USD", "depth": 2.0, "intent": "fix it", "holder": jkt,
	}
	cs := res.Blocks[0].Caveats
	if len(jkt) != 43 || len(cs) != len(want) {
		t.Fatalf("holder %q, %d caveats: %+v", jkt, len(cs), cs)
	}
	for _, c := range cs {
		if !reflect.DeepEqual(c.Value, want[c.Kind]) {
			t.Errorf("%s: value %#v, want %#v", c.Kind, c.Value, want[c.Kind])
		}
		if c.Text == "" || c.Text[:len(c.Kind)+1] != c.Kind+"=" {
			t.Errorf("%s: text %q", c.Kind, c.Text)
		}
	}
	if res.ExpiresAt != "2030-01-01T00:00:00Z" || res.Expired == nil || *res.Expired || res.Attenuable == nil ||
		!*res.Attenuable || res.Now != "2029-06-01T00:00:00Z" || len(res.Blocks[0].Effective) != len(want) {
		t.Fatalf("%+v", res)
	}
}

func TestAgo(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {999 * time.Millisecond, "0s"}, {59 * time.Second, "59s"}, {time.Minute, "1m"},
		{59*time.Minute + 59*time.Second, "59m"}, {time.Hour, "1h"}, {3*time.Hour + 20*time.Minute, "3h20m"},
		{23*time.Hour + 59*time.Minute, "23h59m"}, {24 * time.Hour, "1d"}, {49*time.Hour + 30*time.Minute, "2d1h"},
		{400 * 24 * time.Hour, "400d"},
	} {
		if got := ago(tc.d); got != tc.want {
			t.Errorf("ago(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
