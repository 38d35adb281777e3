package report

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/key"
)

const testOrigin = "tickettool"

var t0 = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

func testKey(t testing.TB) *key.Signing {
	t.Helper()
	k, err := key.NewEd25519("receipts", ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func id(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }

// story returns the records of a small session: an intent, a ticket
// minted and delegated twice, calls allowed, refused, captured and
// released, one approval.
func story() []chain.Record {
	fam, sub, sub2 := id(0xa1), id(0xb2), id(0xc3)
	req := func(n int) string { return fmt.Sprintf("request %032x", n) }
	rs := []chain.Record{
		{Kind: chain.KindIntent, Note: "fix the rounding bug in the discount code"},
		{Kind: chain.KindMinted, TicketID: fam, FamilyID: fam, Note: `tools=read_file,run_tests,write_file paths=src/discount/ intent="fix the rounding bug" calls=50`},
		{Kind: chain.KindDelegated, TicketID: sub, FamilyID: fam, Block: 1, Note: "tools=read_file calls=10 holder=SqehckeB2jadRLjCvG"},
		{Kind: chain.KindDelegated, TicketID: sub2, FamilyID: fam, Block: 2, Note: "tools=read_file paths=src/discount/rules.go calls=4"},
	}
	for i := range 6 {
		rs = append(rs, chain.Record{Kind: chain.KindAllowed, TicketID: sub, FamilyID: fam, Block: 1, Tool: "read_file", Op: "invoke",
			Subjects: []string{fmt.Sprintf("src/discount/f%d.go", i%3)}, Note: req(i)})
		if i%3 != 2 {
			k := chain.KindCaptured
			if i == 4 {
				k = chain.KindReleased
			}
			rs = append(rs, chain.Record{Kind: k, TicketID: sub, FamilyID: fam, Block: 1, Note: req(i)})
		}
	}
	rs = append(rs,
		chain.Record{Kind: chain.KindAllowed, TicketID: sub2, FamilyID: fam, Block: 2, Tool: "read_file", Op: "invoke",
			Subjects: []string{"src/discount/rules.go"}, Note: req(9)},
		chain.Record{Kind: chain.KindRefused, TicketID: sub, FamilyID: fam, Block: 1, Tool: "write_file", Op: "invoke",
			Subjects: []string{"src/discount/rules.go"}, Check: "caveat", Caveat: "tools", Reason: "tool write_file is not in tools=read_file"},
		chain.Record{Kind: chain.KindRefused, TicketID: sub, FamilyID: fam, Block: 0, Tool: "read_file", Op: "invoke",
			Subjects: []string{"src/discount-legacy/rates.go"}, Check: "caveat", Caveat: "paths", Reason: "src/discount-legacy/rates.go is not under src/discount/"},
		chain.Record{Kind: chain.KindRefused, TicketID: sub, FamilyID: fam, Block: 0, Tool: "fetch", Op: "invoke",
			Subjects: []string{"https://pricing.example.com/rates"}, Check: "caveat", Caveat: "hosts", Reason: "pricing.example.com is not in hosts="},
		chain.Record{Kind: chain.KindAllowed, TicketID: fam, FamilyID: fam, Tool: "post_summary", Op: "invoke",
			Subjects: []string{"https://chat.example.com/pricing"}, Note: req(20),
			Approvals: []chain.Approval{{KeyID: "pricing-lead", ID: [32]byte{1, 2, 3}}}},
		chain.Record{Kind: chain.KindCaptured, TicketID: fam, FamilyID: fam, Note: req(20)},
		chain.Record{Kind: chain.KindOther, Note: "session closed"},
	)
	return rs
}

// hostile returns records whose agent-chosen strings try to run a script,
// fetch something, or break the layout.
func hostile() []chain.Record {
	fam := id(0xee)
	long := strings.Repeat("W", chain.MaxNameBytes)
	bad := []string{
		`<script>document.title="pwned"</script>`,
		`<img src="http://127.0.0.1:9/x.png" onerror="document.title='pwned'">`,
		`javascript:document.title='pwned'`,
		`"><svg onload="document.title='pwned'">`,
		"\u202eexe.txt\u2066 bidi \u200f and \x01\x07\x1b[31m control",
		`</td></tr></table><h1 id="injected">injected</h1>`,
		`<style>body{display:none}</style><link rel="stylesheet" href="http://127.0.0.1:9/x.css">`,
		long,
	}
	// A field holds at most chain.MaxNameBytes (a tool, a subject),
	// MaxReasonBytes or MaxNoteBytes: the longest names are those, and
	// 10 KiB of them in one record's subjects.
	name := func(s string) string { return s[:min(len(s), chain.MaxNameBytes)] }
	rs := []chain.Record{{Kind: chain.KindMinted, TicketID: fam, FamilyID: fam, Note: "tools=" + bad[0] + " " + bad[3]}}
	for i, s := range bad {
		rs = append(rs, chain.Record{Kind: chain.KindRefused, TicketID: fam, FamilyID: fam, Tool: name(s), Op: name(s),
			Subjects: []string{s, bad[(i+1)%len(bad)]}, Check: name(s), Caveat: name(s), Reason: name(s), Note: name(s)})
		rs = append(rs, chain.Record{Kind: chain.KindAllowed, TicketID: fam, FamilyID: fam, Tool: name(s), Subjects: []string{s},
			Note: name(s), Approvals: []chain.Approval{{KeyID: "k" + fmt.Sprint(i), ID: [32]byte{byte(i)}}}})
	}
	var tenK []string
	for range 10 {
		tenK = append(tenK, long)
	}
	rs = append(rs, chain.Record{Kind: chain.KindIntent, Note: bad[0] + bad[4] + strings.Repeat("N", chain.MaxNoteBytes-200)},
		chain.Record{Kind: chain.KindRefused, TicketID: fam, FamilyID: fam, Tool: long, Subjects: tenK, Reason: long, Note: strings.Repeat("N", 2000)})
	return rs
}

// writeLog writes rs as a log at dir/name, a second apart from t0.
func writeLog(t testing.TB, sk *key.Signing, dir, name string, rs []chain.Record) string {
	t.Helper()
	p := filepath.Join(dir, name)
	l, err := chain.Open(p, sk, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i, r := range rs {
		if _, err := l.Append(r, t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// render builds the report of the log at p and returns its page.
func render(t testing.TB, p string, o Options) (*Report, string) {
	t.Helper()
	r, err := Build(p, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	return r, b.String()
}

func opts(sk *key.Signing) Options {
	return Options{Key: sk.Verifying(), Origin: testOrigin, Now: t0.Add(time.Hour)}
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
