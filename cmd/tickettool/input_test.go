package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputLimit: a ticket read from standard input or a file is bounded
// by maxInputBytes; one byte over is a usage error, not a longer read.
func TestInputLimit(t *testing.T) {
	big := strings.Repeat(" ", maxInputBytes+1)
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"inspect", "-"}, big, "the ticket on standard input is longer than 1048576 bytes"},
		{[]string{"inspect", "@" + path}, "", "is longer than 1048576 bytes"},
		// exactly at the limit: read, trimmed to nothing, then malformed
		{[]string{"inspect", "-"}, big[1:], "malformed"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and %q", tc.args[1][:1], code, stderr.String(), stdout.String(), tc.want)
		}
	}
}
