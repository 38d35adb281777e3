package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var receiptFields = []string{"decision", "records", "bytes", "head", "root", "last_time", "problem", "reason",
	"offset", "checkpoint_records", "hints"}

func TestReceiptVerifyJSON(t *testing.T) {
	dir := t.TempDir()
	key, rk, log := filepath.Join(dir, "root.key"), filepath.Join(dir, "r.key"), filepath.Join(dir, "r.log")
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", key, "--kid", "root")
	tt(t, 0, "keygen", "--alg", "ed25519", "--out", rk, "--kid", "receipts")
	tk := tt(t, 0, "mint", "--key", key, "tools=read_file", "until=1h")
	for _, tool := range []string{"read_file", "write_file", "read_file"} {
		runCLI(t, "", "verify", "--store", "memory", "--key", key+".pub", "--receipts", log, "--receipt-key", rk, "--tool", tool, tk)
	}
	cp := filepath.Join(dir, "cp.txt")
	if err := os.WriteFile(cp, []byte(tt(t, 0, "receipt", "checkpoint", "--key", rk, log)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "", "receipt", "verify", "--json", "--key", rk+".pub", "--checkpoint", cp, log)
	m := decodeOne(t, out, receiptFields...)
	fi, _ := os.Stat(log)
	if code != exitOK || errs != "" || m["decision"] != "valid" || m["records"] != 3.0 || m["bytes"] != float64(fi.Size()) ||
		len(m["head"].(string)) != 64 || len(m["root"].(string)) != 64 || m["last_time"] == "" || m["problem"] != "" ||
		m["offset"] != -1.0 || m["checkpoint_records"] != 3.0 {
		t.Fatalf("valid: exit %d, %v, stderr %q", code, m, errs)
	}

	// a flipped byte in the last record: broken at record 2
	data, _ := os.ReadFile(log)
	data[len(data)-5] ^= 1
	os.WriteFile(log, data, 0o600)
	code, out, errs = runCLI(t, "", "receipt", "verify", "--json", "--key", rk+".pub", log)
	m = decodeOne(t, out, receiptFields...)
	if code != exitRefused || errs != "" || m["decision"] != "invalid" || m["problem"] != "broken" || m["records"] != 2.0 ||
		m["offset"].(float64) <= 0 || m["head"] != "" || len(m["hints"].([]any)) == 0 {
		t.Fatalf("broken: exit %d, %v, stderr %q", code, m, errs)
	}
	// cut to its first record: truncated against the checkpoint
	os.WriteFile(log, data[:int(m["offset"].(float64))], 0o600)
	code, out, errs = runCLI(t, "", "receipt", "verify", "--json", "--key", rk+".pub", "--checkpoint", cp, log)
	m = decodeOne(t, out, receiptFields...)
	if code != exitRefused || errs != "" || m["problem"] != "truncated" || m["records"] != 2.0 || m["checkpoint_records"] != 3.0 {
		t.Fatalf("truncated: exit %d, %v, stderr %q", code, m, errs)
	}
	// a log that cannot be read: no JSON
	code, out, errs = runCLI(t, "", "receipt", "verify", "--json", "--key", rk+".pub", filepath.Join(dir, "missing.log"))
	if code != exitUsage || out != "" || !strings.HasPrefix(errs, "tickettool: error: ") {
		t.Fatalf("missing: exit %d, %q, %q", code, out, errs)
	}
}

// TestReceiptVerifyProgress: receipt verify writes progress to a terminal
// only, and erases it: stdout is the same either way.
func TestReceiptVerifyProgress(t *testing.T) {
	dir := t.TempDir()
	key, rk, log := filepath.Join(dir, "root.key"), filepath.Join(dir, "r.key"), filepath.Join(dir, "r.log")
	tt(t, 0, "keygen", "--alg", "hmac", "--out", key, "--kid", "root")
	tt(t, 0, "keygen", "--alg", "hmac", "--out", rk, "--kid", "receipts")
	tk := tt(t, 0, "mint", "--key", key, "tools=read_file", "until=1h")
	for range 5 {
		tt(t, 0, "verify", "--store", "memory", "--key", key, "--receipts", log, "--receipt-key", rk, "--tool", "read_file", tk)
	}
	for _, term := range []bool{false, true} {
		withSeams(t, term, time.Second)
		code, out, errs := runCLI(t, "", "receipt", "verify", "--key", rk, log)
		if code != exitOK || !strings.HasPrefix(out, "ok: 5 records, head ") {
			t.Fatalf("terminal %v: exit %d, %q, %q", term, code, out, errs)
		}
		if !term && errs != "" {
			t.Fatalf("not a terminal: stderr %q", errs)
		}
		if term && (!strings.Contains(errs, "\rreceipt verify: 5 records, 100%, ") || !strings.HasSuffix(errs, "\r")) {
			t.Fatalf("terminal: stderr %q", errs)
		}
	}
}
