package report

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/chain"
	"github.com/tickettool/tickettool/key"
)

// TestStory: the page of a verified log shows the verdict, the tree with
// each block's own and effective scope, the budgets summed over each
// block's descendants, refusals grouped, approvals and hosts.
func TestStory(t *testing.T) {
	sk := testKey(t)
	p := writeLog(t, sk, t.TempDir(), "r.log", story())
	r, page := render(t, p, opts(sk))
	v := r.Verdict
	if !v.OK || v.Records != int64(len(story())) || v.Problem != "" || v.Break != -1 || !strings.HasPrefix(v.Key, "receipts+") {
		t.Fatalf("verdict %+v", v)
	}
	if len(r.Families) != 1 {
		t.Fatalf("%d families", len(r.Families))
	}
	f := r.Families[0]
	if len(f.Roots) != 1 || f.Roots[0].Block != 0 || len(f.Roots[0].Children) != 1 || len(f.Roots[0].Children[0].Children) != 1 {
		t.Fatalf("tree: %+v", f.Roots)
	}
	b0 := f.Roots[0]
	b1 := b0.Children[0]
	b2 := b1.Children[0]
	if b1.Holder != "holder=SqehckeB2jadRLjCvG" || b2.Holder != b1.Holder || b0.Holder != "" {
		t.Errorf("holders %q %q %q", b0.Holder, b1.Holder, b2.Holder)
	}
	wantEff := []string{"tools=read_file", "paths=src/discount/rules.go", `intent="fix the rounding bug"`, "holder=SqehckeB2jadRLjCvG",
		"calls=50 (block 0)", "calls=10 (block 1)", "calls=4 (block 2)"}
	if strings.Join(b2.Effective, "|") != strings.Join(wantEff, "|") {
		t.Errorf("effective scope of block 2:\n%q\nwant\n%q", b2.Effective, wantEff)
	}
	for _, c := range []struct {
		n                            *node
		limit                        uint64
		captured, released, reserved int64
	}{
		{b0, 50, 4, 1, 3}, {b1, 10, 3, 1, 3}, {b2, 4, 0, 0, 1},
	} {
		if len(c.n.Budgets) != 1 {
			t.Fatalf("block %d: budgets %+v", c.n.Block, c.n.Budgets)
		}
		b := c.n.Budgets[0]
		if b.LimitN != c.limit || b.Captured != c.captured || b.Released != c.released || b.Reserved != c.reserved {
			t.Errorf("block %d budget %+v, want limit %d captured %d released %d reserved %d", c.n.Block, b, c.limit, c.captured, c.released, c.reserved)
		}
	}
	if len(f.Refused) != 3 || f.Counts.Refused != 3 {
		t.Errorf("refusal groups %+v", f.Refused)
	}
	if len(f.Approvals) != 1 || f.Approvals[0].KeyID != "pricing-lead" || f.Approvals[0].Call.Tool != "post_summary" {
		t.Errorf("approvals %+v", f.Approvals)
	}
	if len(f.Hosts) != 2 || f.Tools[0] != (top{"read_file", 8}) {
		t.Errorf("hosts %+v tools %+v", f.Hosts, f.Tools)
	}
	for _, want := range []string{`id="verdict" data-ok="true"`, "<b>Verified</b>", `id="verified-records">` + itoa(v.Records) + "<",
		"What this page does and does not prove", `class="bar"`, `class="tl"`, "pricing-lead"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestBrokenLog: a changed byte in the middle of a log, a torn tail, a
// cut against a checkpoint and a wrong key each show the failure at the
// top; the records before a break are shown and none after it.
func TestBrokenLog(t *testing.T) {
	sk := testKey(t)
	dir := t.TempDir()
	rs := story()
	p := writeLog(t, sk, dir, "r.log", rs)
	data := readFile(t, p)
	offsets := recordOffsets(t, data)
	cp, err := chain.MakeCheckpoint(p, sk, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	const mid = 12 // record 12 is the write_file refusal
	changed := append([]byte(nil), data...)
	changed[offsets[mid]+20] ^= 0x01
	other, err := key.NewHMAC("other", make([]byte, key.HMACBytes))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		data    []byte
		o       func(Options) Options
		problem string
		records int64
		brk     int64
	}{
		{"changed byte", changed, nil, "broken", mid, mid},
		{"torn tail", data[:len(data)-7], nil, "torn", int64(len(rs) - 1), int64(len(rs) - 1)},
		{"cut against checkpoint", data[:offsets[mid]], func(o Options) Options { o.Checkpoint, o.CheckpointName = cp, "cp.txt"; return o },
			"truncated", mid, -1},
		{"wrong key", data, func(o Options) Options { o.Key = other.Verifying(); return o }, "wrong-key", 0, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			lp := dir + "/" + strings.ReplaceAll(c.name, " ", "-") + ".log"
			if err := os.WriteFile(lp, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			o := opts(sk)
			if c.o != nil {
				o = c.o(o)
			}
			r, page := render(t, lp, o)
			v := r.Verdict
			if v.OK || v.Problem != c.problem || v.Records != c.records || v.Break != c.brk {
				t.Fatalf("verdict %+v, want problem %s, %d records, break %d", v, c.problem, c.records, c.brk)
			}
			if r.Counts.Total != c.records {
				t.Errorf("counted %d records, want %d", r.Counts.Total, c.records)
			}
			for _, l := range r.Listed {
				if c.brk >= 0 && int64(l.Seq) >= c.brk {
					t.Errorf("record %d listed at or after the break %d", l.Seq, c.brk)
				}
			}
			for _, want := range []string{`id="verdict" data-ok="false"`, "NOT VERIFIED"} {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if strings.Contains(page, "<b>Verified</b>") {
				t.Error("page says Verified")
			}
			if c.brk >= 0 {
				if !strings.Contains(page, `id="break-row"`) || !strings.Contains(page, "broken at record "+itoa(c.brk)) && !strings.Contains(page, "torn tail at record "+itoa(c.brk)) {
					t.Error("page does not show the break prominently")
				}
				// The write_file refusal (record 12) and everything after it
				// are not on the page when the log breaks at 12.
				if c.brk == mid && (strings.Contains(page, "write_file is not in") || strings.Contains(page, "pricing.example.com") || strings.Contains(page, "session closed")) {
					t.Error("page shows a record after the break")
				}
			}
		})
	}
}

// recordOffsets returns the byte offset of every record of a log.
func recordOffsets(t *testing.T, data []byte) []int64 {
	var offs []int64
	for ent, err := range chain.Scan(strings.NewReader(string(data))) {
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, ent.Offset)
	}
	return offs
}

// TestHostileEscaped: strings an agent chose reach the page escaped: no
// tag, attribute, URL or stylesheet of theirs, no raw control or
// bidirectional-formatting character, nothing longer than MaxShownBytes.
func TestHostileEscaped(t *testing.T) {
	sk := testKey(t)
	p := writeLog(t, sk, t.TempDir(), "h.log", append(story(), hostile()...))
	r, page := render(t, p, opts(sk))
	if !r.Verdict.OK {
		t.Fatal(r.Verdict.Reason)
	}
	for _, bad := range []string{"<script", "<img", "<link", "<h1 id=\"injected\"", "<svg onload", "<style>body{display:none}",
		"\u202e", "\u2066", "\u200f", "\x01", "\x07", "\x1b", strings.Repeat("W", MaxShownBytes+1)} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	for _, want := range []string{`\u202eexe.txt\u2066`, `\u001b[31m`, "&lt;script&gt;", "more bytes)"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Only the page's own elements: one <style>, one <svg> per timeline
	// and per calls budget, no <a>, no <img>, no <script>.
	if n := len(regexp.MustCompile(`<style`).FindAllString(page, -1)); n != 1 {
		t.Errorf("%d style elements", n)
	}
	if regexp.MustCompile(`<(a|img|script|iframe|object|embed|link|form|base)[\s>]`).MatchString(page) {
		t.Error("page holds an element that fetches or navigates")
	}
	// Every '<' of a record's text is escaped, so each '<' left opens one
	// of the page's own tags: none may hold an event handler or a
	// javascript: URL.
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(page, -1) {
		if regexp.MustCompile(`(?i)\son[a-z]+\s*=|javascript:`).MatchString(tag) {
			t.Errorf("page holds the tag %.200s", tag)
		}
	}
}

// TestShow: the rendering of one string, rune by rune.
func TestShow(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain/path.go", "plain/path.go"},
		{"a\\b", `a\\b`},
		{"\x00\t\n", `\u0000\u0009\u000a`},
		{"\u202e\u2066\u2069\u200e\u061c", `\u202e\u2066\u2069\u200e\u061c`},
		{"\xff", `\xff`},
		{"日本 é", "日本 é"},
		{"\U000e0001", `\U000e0001`},
		{strings.Repeat("x", MaxShownBytes+5), strings.Repeat("x", MaxShownBytes) + "… (5 more bytes)"},
	} {
		if got := Show(c.in); got != c.want {
			t.Errorf("Show(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPageSize: a 100,000-record log gives a page under 2 MB: the page
// aggregates, and lists only the last MaxListed records.
func TestPageSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 100,000-record log")
	}
	sk, err := key.NewHMAC("receipts", make([]byte, key.HMACBytes))
	if err != nil {
		t.Fatal(err)
	}
	p := t.TempDir() + "/big.log"
	l, err := chain.Open(p, sk, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	base := append(story(), hostile()...)
	const n = 100000
	for done := 0; done < n; {
		batch := make([]chain.Record, 0, chain.MaxBatch)
		for len(batch) < cap(batch) && done+len(batch) < n {
			batch = append(batch, base[(done+len(batch))%len(base)])
		}
		if _, err := l.AppendBatch(batch, t0.Add(time.Duration(done)*time.Second)); err != nil {
			t.Fatal(err)
		}
		done += len(batch)
	}
	l.Close()
	r, page := render(t, p, Options{Key: sk.Verifying(), Origin: testOrigin})
	if !r.Verdict.OK || r.Verdict.Records != n || len(r.Listed) != MaxListed || r.Unlisted != n-MaxListed {
		t.Fatalf("verdict %+v, %d listed", r.Verdict, len(r.Listed))
	}
	if len(page) >= 2<<20 {
		t.Fatalf("page of a %d-record log is %d bytes, want under 2 MB", n, len(page))
	}
	t.Logf("page of %d records: %d bytes", n, len(page))
}

// TestBounds: past each bound the page counts instead of listing: extra
// families, blocks, refusal groups, approvals and distinct tools.
func TestBounds(t *testing.T) {
	sk := testKey(t)
	var rs []chain.Record
	for i := range MaxFamilies + 6 {
		rs = append(rs, chain.Record{Kind: chain.KindIntent, FamilyID: []byte{byte(i), 1, 2, 3}, Note: "x"})
	}
	fam := []byte{0, 1, 2, 3} // the first family
	for i := range MaxBlocks + 10 {
		rs = append(rs, chain.Record{Kind: chain.KindDelegated, FamilyID: fam, TicketID: []byte{9, byte(i), byte(i >> 8)}, Block: 1, Note: "calls=1"})
	}
	for i := range MaxRefusalGroups + 5 {
		rs = append(rs, chain.Record{Kind: chain.KindRefused, FamilyID: fam, TicketID: fam, Check: "caveat", Caveat: "c" + itoa(int64(i)), Tool: "t" + itoa(int64(i))})
	}
	for i := range MaxListedApprovals + 3 {
		rs = append(rs, chain.Record{Kind: chain.KindAllowed, FamilyID: fam, TicketID: fam, Tool: "a",
			Approvals: []chain.Approval{{KeyID: "k", ID: [32]byte{byte(i)}}}})
	}
	p := writeLog(t, sk, t.TempDir(), "b.log", rs)
	r, _ := render(t, p, opts(sk))
	f := r.Families[0]
	switch {
	case len(r.Families) != MaxFamilies || r.MoreFamilies != 6:
		t.Errorf("%d families, %d records of more", len(r.Families), r.MoreFamilies)
	case len(f.order) != MaxBlocks:
		t.Errorf("%d blocks kept", len(f.order))
	case len(f.Refused) != MaxRefusalGroups || f.RefusedOther != 5:
		t.Errorf("%d refusal groups, %d other refusals", len(f.Refused), f.RefusedOther)
	case len(f.Approvals) != MaxListedApprovals || f.ApprovalsN != MaxListedApprovals+3:
		t.Errorf("%d approvals listed of %d", len(f.Approvals), f.ApprovalsN)
	case len(f.Tools) != TopN:
		t.Errorf("%d tools shown", len(f.Tools))
	}
	tl := tally{}
	for i := range MaxDistinct + 7 {
		tl.add(itoa(int64(i)))
	}
	if len(tl) != MaxDistinct+1 || tl[""] != 7 {
		t.Errorf("tally holds %d values, %d others", len(tl), tl[""])
	}
}
