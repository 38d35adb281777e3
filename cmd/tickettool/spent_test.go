package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/store/sqlitestore"
	"github.com/tickettool/tickettool/token"
)

// TestSpentReserved: spent shows what a guard that holds reservations
// (as tickettool mcp does) still holds beside what it captured, in text
// and JSON, and a hold that has ended as captured.
func TestSpentReserved(t *testing.T) {
	d := t.TempDir()
	p := func(name string) string { return filepath.Join(d, name) }
	cli := func(args ...string) string {
		t.Helper()
		var out, errb strings.Builder
		if code := run(args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("tickettool %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	cli("keygen", "--alg", "hmac", "--out", p("root.key"))
	text := strings.TrimSpace(cli("mint", "--key", p("root.key"), "tools=read_file", "calls=10", "cost=1USD", "total=5USD", "until=2030-01-01T00:00:00Z"))
	now := time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC)

	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, p("store.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rk, err := key.ReadVerifyingFile(p("root.key"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := token.NewKeyring(rk)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.Config{Keys: keys, Store: st, Hold: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := token.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var ds []guard.Decision
	for range 3 {
		dec, err := g.Verify(ctx, tk, &caveat.Request{Tool: "read_file", Op: "invoke", Cost: &caveat.Amount{Micros: 1000000, Currency: "USD"}}, now)
		if err != nil || dec.Err() != nil {
			t.Fatalf("verify: %v %v", err, dec.Err())
		}
		ds = append(ds, dec)
	}
	if err := g.Settle(ctx, &ds[0], guard.Capture, now); err != nil {
		t.Fatal(err)
	}
	if err := g.Settle(ctx, &ds[1], guard.Release, now); err != nil {
		t.Fatal(err)
	}
	st.Close()

	at := func(tm time.Time) []string {
		return []string{"--now", tm.Format(time.RFC3339), "--store", p("store.db")}
	}
	out := cli(append(append([]string{"spent", "--key", p("root.key")}, at(now)...), text)...)
	for _, want := range []string{
		"block 0 calls limit 10 spent 2 (captured 1, reserved 1) remaining 8\n",
		"block 0 total limit 5USD spent 2USD (captured 1USD, reserved 1USD) remaining 3USD\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("spent:\n%s\nlacks %q", out, want)
		}
	}
	var js []map[string]any
	if err := json.Unmarshal([]byte(cli(append(append([]string{"spent", "--json", "--key", p("root.key")}, at(now)...), text)...)), &js); err != nil {
		t.Fatal(err)
	}
	if len(js) != 2 || js[0]["captured"] != 1.0 || js[0]["reserved"] != 1.0 || js[1]["captured"] != "1USD" || js[1]["reserved"] != "1USD" {
		t.Errorf("spent --json: %v", js)
	}
	// After the hold the third call counts as captured.
	out = cli(append(append([]string{"spent", "--key", p("root.key")}, at(now.Add(2*time.Minute))...), text)...)
	if !strings.Contains(out, "block 0 calls limit 10 spent 2 (captured 2, reserved 0) remaining 8\n") {
		t.Errorf("spent after the hold:\n%s", out)
	}
}
