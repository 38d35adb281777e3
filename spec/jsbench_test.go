package spec_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// TestJSVerifierSpeed measures the JavaScript verifier (a node process
// running js/) against verify.VerifyText on the four-block HMAC scenario
// (a root ticket with tools, attenuated by until, ops and paths), as
// interleaved pairs: a batch in Go, then the same number in node (timed
// inside node, so the pipe is not counted), several times; it reports
// the median ratio and its range. It runs only with
// TICKETTOOL_JSBENCH=1 (a shared machine's timings are noise in a test
// suite).
func TestJSVerifierSpeed(t *testing.T) {
	if os.Getenv("TICKETTOOL_JSBENCH") != "1" {
		t.Skip("set TICKETTOOL_JSBENCH=1 to measure")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	secret := bytes.Repeat([]byte{7}, 32)
	sk, err := key.NewHMAC("root", secret)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := token.NewKeyring(sk.Verifying())
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cs := func(s string) []caveat.Caveat {
		c, err := caveat.ParseAll([]string{s}, now)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tk, err := token.Mint(sk, cs("tools=read_file,write_file"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"until=2026-11-30T13:00:00Z", "ops=delegate,invoke", "paths=src/discount/"} {
		if tk, err = tk.Attenuate(cs(c), nil); err != nil {
			t.Fatal(err)
		}
	}
	text := tk.String()
	req := &caveat.Request{Tool: "read_file", Op: "invoke", Paths: []string{"src/discount/rules.go"}}

	server, _ := filepath.Abs("../js/harness/benchserver.js")
	cmd := exec.Command(node, server)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	in := bufio.NewReader(stdout)
	jsBatch := func(n int) time.Duration {
		line, _ := json.Marshal(map[string]any{"text": text, "secret": hex.EncodeToString(secret), "n": n})
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
		out, err := in.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ NS int64 }
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("node: %s", out)
		}
		return time.Duration(r.NS)
	}
	var d verify.Decision
	goBatch := func(n int) time.Duration {
		start := time.Now()
		for range n {
			if err := verify.VerifyText(&d, text, req, keys, now, nil); err != nil || !d.Allowed {
				t.Fatal(err, d.Refusals)
			}
		}
		return time.Since(start)
	}
	const batch, pairs = 1000, 31
	jsBatch(batch) // warm up both
	goBatch(batch)
	var ratios []float64
	var goPer, jsPer []time.Duration
	for range pairs {
		g := goBatch(batch)
		j := jsBatch(batch)
		ratios = append(ratios, float64(j)/float64(g))
		goPer, jsPer = append(goPer, g/batch), append(jsPer, j/batch)
	}
	slices.Sort(ratios)
	slices.Sort(goPer)
	slices.Sort(jsPer)
	t.Logf("node/Go VerifyText, four-block HMAC ticket, %d pairs of %d: median %.2fx (range %.2f-%.2f); per verify median Go %v, node %v",
		pairs, batch, ratios[pairs/2], ratios[0], ratios[pairs-1], goPer[pairs/2], jsPer[pairs/2])
}
