package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tickettool/tickettool/caveat"
	guardpkg "github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/store/sqlitestore"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// redisAddrEnv names a real Redis server (HOST:PORT) for the round trip
// in store_redis.txtar; .ci/run starts one.
const redisAddrEnv = "TICKETTOOL_REDIS_ADDR"

// redisCondition is the testscript condition [redis]: a real server is
// given, and under CI one must be.
func redisCondition() (bool, error) {
	if os.Getenv(redisAddrEnv) != "" {
		return true, nil
	}
	if os.Getenv("CI") == "true" {
		return false, errors.New(redisAddrEnv + " is not set: CI must run the Redis round trip against a real server")
	}
	return false, nil
}

// cmdCharge admits one call of a ticket in a store, as a verifier wired
// to the store does: charge STORE KEY FILE [COST]; ! charge expects a
// refusal (revoked, exhausted).
func cmdCharge(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 3 || len(args) > 4 {
		ts.Fatalf("usage: charge STORE KEY FILE [COST]")
	}
	location := args[0]
	if location != "memory" && !strings.Contains(location, "://") {
		location = ts.MkAbs(location)
	}
	ctx := context.Background()
	st, _, err := openStore(ctx, location)
	ts.Check(err)
	defer st.Close()
	vk, err := readKey(ts.MkAbs(args[1]), "--key")
	ts.Check(err)
	keys, err := token.NewKeyring(vk)
	ts.Check(err)
	t, err := token.Parse(strings.TrimSpace(ts.ReadFile(args[2])))
	ts.Check(err)
	now := time.Now()
	d, err := verify.Validate(t, keys, now, nil)
	ts.Check(err)
	if !d.Allowed {
		ts.Fatalf("charge: the ticket does not verify: %v", d.Err())
	}
	a := guardpkg.Admission{Request: guardpkg.NewRequestID(), Blocks: d.BlockIDs, Budgets: d.Budgets, Now: now}
	if len(args) == 4 {
		c, err := caveat.ParseAmount(args[3])
		ts.Check(err)
		a.Cost = &c
	}
	v, err := st.Admit(ctx, a)
	ts.Check(err)
	ts.Logf("charge: %s (index %d)", v.Reason, v.Index)
	if v.Admitted == neg {
		ts.Fatalf("charge: %s, want the opposite", v.Reason)
	}
}

// tt runs tickettool in-process and returns its stdout, failing the test
// on another exit status than want.
func tt(t *testing.T, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, strings.NewReader(""), &out, &errb); code != want {
		t.Fatalf("tickettool %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// TestRevokeRefusesAdmission: after revoke, the store refuses the
// revoked ticket and its descendants, not its parent nor its siblings.
func TestRevokeRefusesAdmission(t *testing.T) {
	dir := t.TempDir()
	key, db := filepath.Join(dir, "root.key"), filepath.Join(dir, "store.db")
	tt(t, 0, "keygen", "--alg", "hmac", "--kid", "root", "--out", key)
	parent := tt(t, 0, "mint", "--key", key, "tools=read_file", "calls=10", "until=2099-01-01T00:00:00Z")
	child := tt(t, 0, "attenuate", parent, "calls=5")
	grandchild := tt(t, 0, "attenuate", child, "calls=2")
	sibling := tt(t, 0, "attenuate", parent, "calls=4")
	out := tt(t, 0, "revoke", "--store", db, "--key", key, child)
	if !strings.HasPrefix(out, "revoked ") || strings.Count(out, "\n") != 0 {
		t.Fatalf("revoke printed %q", out)
	}

	st, err := sqlitestore.Open(context.Background(), db, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vk, err := readKey(key, "--key")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, ticket string
		admitted     bool
	}{
		{"child", child, false}, {"grandchild", grandchild, false},
		{"parent", parent, true}, {"sibling", sibling, true},
	} {
		tk, err := token.Parse(c.ticket)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := tk.VerifyChain(vk)
		if err != nil {
			t.Fatal(err)
		}
		v, err := st.Admit(context.Background(), guardpkg.Admission{Request: guardpkg.NewRequestID(),
			Blocks: ch.IDs, Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if v.Admitted != c.admitted {
			t.Errorf("%s: %s (index %d), want admitted=%v", c.name, v.Reason, v.Index, c.admitted)
		}
		if !c.admitted && (v.Reason != guardpkg.Revoked || v.Index != 1) {
			t.Errorf("%s: %s at block %d, want revoked at block 1", c.name, v.Reason, v.Index)
		}
	}
}

func TestFamilyExpiry(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "root.key")
	tt(t, 0, "keygen", "--alg", "ed25519", "--kid", "root", "--out", key)
	vk, err := readKey(key+".pub", "--key")
	if err != nil {
		t.Fatal(err)
	}
	chainOf := func(text string) token.Verified {
		tk, err := token.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tk.VerifyChain(vk)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	until := time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)
	bounded := tt(t, 0, "mint", "--key", key, "tools=x", "until="+until.Format(time.RFC3339))
	narrower := tt(t, 0, "attenuate", bounded, "until=2030-01-01T00:00:00Z")
	forever := tt(t, 0, "mint", "--key", key, "--no-expiry", "tools=x")
	later := tt(t, 0, "attenuate", forever, "until=2030-01-01T00:00:00Z")
	for _, c := range []struct {
		name, ticket string
		want         time.Time
	}{
		{"block 0 until plus the margin", bounded, until.Add(revokeMargin)},
		{"a later block's until does not count", narrower, until.Add(revokeMargin)},
		{"no until: for ever", forever, time.Time{}},
		{"no until in block 0: for ever", later, time.Time{}},
	} {
		ch := chainOf(c.ticket)
		if got := familyExpiry(&ch); !got.Equal(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNoPanicStore feeds odd arguments to revoke and spent in-process:
// each must end with a status, never a panic.
func TestNoPanicStore(t *testing.T) {
	t.Setenv(envStore, "memory")
	z := strings.Repeat("0", 64)
	for _, args := range [][]string{
		{"revoke"}, {"revoke", ""}, {"revoke", "-"}, {"revoke", "-", "-"}, {"revoke", ":"}, {"revoke", z},
		{"revoke", z + ":"}, {"revoke", ":" + z}, {"revoke", z + ":" + z}, {"revoke", z + ":" + z + ":" + z},
		{"revoke", "tkt1_AAAA"}, {"revoke", "--key", "/nonexistent", "tkt1_oQEB"}, {"revoke", "--store", "", z + ":" + z},
		{"revoke", "--store", "redis://", z + ":" + z}, {"revoke", "--store", "x://", z + ":" + z},
		{"spent"}, {"spent", "-"}, {"spent", "--key", "/nonexistent", "-"}, {"spent", "--json"},
		{"spent", "--key", "/nonexistent", "tkt1_AAAA"}, {"spent", "--store", "\n", "x"},
	} {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader("garbage\n"), &out, &errb)
		if code < 0 || code > 2 {
			t.Errorf("%q: exit %d", args, code)
		}
		if code != 0 && !strings.HasPrefix(errb.String(), "tickettool: error: ") {
			t.Errorf("%q: stderr %q", args, errb.String())
		}
	}
}
