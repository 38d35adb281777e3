package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
)

// countFiles counts the entries of dir whose name starts with prefix.
func countFiles(t *testing.T, dir, prefix string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			n++
		}
	}
	return n
}

// TestStaleDischargesHideNone: 600 stale *.dis files sorting before the
// name the guard announced (300 expired, 300 for other arguments, not
// expired) do not hide the fresh discharge the person wrote there: the
// announced name is read first and the call is allowed. Before that, the
// refusal says how many files were skipped and why; expired files are
// removed as they are read, the others are kept.
func TestStaleDischargesHideNone(t *testing.T) {
	s, dir := startApproval(t)
	args := map[string]any{"path": filepath.Join(s.dir, "post.txt"), "content": "Q3 prices up 3%"}
	txt, isErr := s.call(t, "write_file", args)
	i := strings.Index(txt, " --out ")
	if !isErr || i < 0 {
		t.Fatalf("first call: %v %s", isErr, txt)
	}
	outPath := strings.Fields(txt[i+len(" --out "):])[0]
	tk := s.p.state().ticket
	for i := range 300 {
		expired := approve(t, tk, untilC(t, 0))
		other := approve(t, tk, untilC(t, 20*time.Minute), argsC(t, fmt.Sprintf(`{"n":%d}`, i)))
		for name, d := range map[string]string{fmt.Sprintf("0-%03d.dis", i): expired, fmt.Sprintf("1-%03d.dis", i): other} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(d+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	txt, isErr = s.call(t, "write_file", args)
	want := fmt.Sprintf("; discharge files skipped: 256 expired (256 removed), 344 not read (over the limit of %d files per call)", maxDischargeFiles)
	if !isErr || !strings.HasSuffix(txt, want) {
		t.Fatalf("refusal without the skipped files:\n%s\nwant suffix %s", txt, want)
	}
	if n := countFiles(t, dir, "0-"); n != 44 {
		t.Fatalf("%d expired files left, want 44", n)
	}
	b, err := os.ReadFile(strings.TrimSuffix(outPath, DischargeSuffix) + ".json")
	if err != nil {
		t.Fatal(err)
	}
	dis := approve(t, tk, untilC(t, 10*time.Minute), argsC(t, string(b)), mustCalls(t, 1))
	if err := os.WriteFile(outPath, []byte(dis+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if txt, isErr := s.call(t, "write_file", args); isErr {
		t.Fatalf("approved call refused behind stale files: %s", txt)
	}
	if n, m := countFiles(t, dir, "0-"), countFiles(t, dir, "1-"); n != 0 || m != 300 {
		t.Fatalf("%d expired files left (want 0), %d others (want 300)", n, m)
	}
}

// TestPruneExpiredOnly: only a regular *.dis file of the directory all of
// whose discharges have expired is removed; a file also holding a live
// one, a link to an expired file elsewhere (nor its target), a file with
// a malformed line, an empty file (approve --out may be writing it), a
// directory and a file not named *.dis are left, and counted as skipped
// where they gave nothing.
func TestPruneExpiredOnly(t *testing.T) {
	p, tk, dir, lg := approvalProxy(t)
	expired := approve(t, tk, untilC(t, 0))
	live := approve(t, tk, untilC(t, 5*time.Minute))
	outside := filepath.Join(t.TempDir(), "elsewhere.dis")
	files := map[string]string{
		"a.dis": expired + "\n", "b.dis": expired + "\n" + live + "\n", "c.dis": expired + "\nnot a discharge\n",
		"e.dis": "", "x.txt": expired + "\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte(expired+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.dis")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d.dis"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, sk := p.poolDischarges(p.state(), &caveat.Request{Tool: "write_file", Op: "invoke"}, t0)
	if len(got) != 1 || got[0] != live {
		t.Fatalf("picked %q", got)
	}
	if want := (skipCounts{expired: 1, removed: 1, unreadable: 3}); sk != want {
		t.Fatalf("skipped %+v, want %+v", sk, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "a.dis")); err == nil {
		t.Fatal("a.dis, all expired, was kept")
	}
	for _, name := range []string{"b.dis", "c.dis", "e.dis", "x.txt", "link.dis", "d.dis"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s removed: %v", name, err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the link's target removed: %v", err)
	}
	if !strings.Contains(lg.String(), "discharge file a.dis: removed: every discharge in it has expired") {
		t.Errorf("log: %s", lg)
	}
}

// TestDischargeChoiceSkipsMisfits: a discharge that fails one of its own
// caveats for the call (tools, nbf) does not shadow a usable one with an
// earlier until: the guard passes the one that fits.
func TestDischargeChoiceSkipsMisfits(t *testing.T) {
	p, tk, dir, _ := approvalProxy(t)
	tools, err := caveat.NewTools("read_file")
	if err != nil {
		t.Fatal(err)
	}
	nbf, err := caveat.NewNotBefore(t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	usable := approve(t, tk, untilC(t, 5*time.Minute))
	for name, d := range map[string]string{
		"a.dis": approve(t, tk, untilC(t, 20*time.Minute), tools),
		"b.dis": approve(t, tk, untilC(t, 15*time.Minute), nbf),
		"c.dis": usable,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(d+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := pick(p, nil); len(got) != 1 || got[0] != usable {
		t.Fatalf("picked %q, want the usable one", got)
	}
}
