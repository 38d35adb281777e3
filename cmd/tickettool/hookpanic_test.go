package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tickettool/tickettool/hook"
)

// A panic while the hook opens its keys, store or receipt log is the
// harness's deny, never Go's crash: a crash exits with status 2, which
// Copilot skips, letting the call run.
func TestHookSetupPanicDenies(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini", "cursor", "copilot"} {
		h, err := hook.ParseHarness(name)
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		answer := func(a hook.Answer) error {
			stdout.Write(a.Stdout)
			stderr.Write(a.Stderr)
			if a.Code == 0 {
				return nil
			}
			return &hookExit{code: a.Code}
		}
		failed := func(err error) error { return answer(hook.Failure(h, err)) }
		err = decideHook(context.Background(), h, []byte(`{}`), answer, failed,
			func(context.Context) (*hook.Config, func(), error) { panic("store driver bug") })
		var exit *hookExit
		code := 0
		if errors.As(err, &exit) {
			code = exit.code
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := hook.Failure(h, errors.New("internal error: store driver bug"))
		if code != want.Code || stdout.String() != string(want.Stdout) || !strings.Contains(stderr.String(), "internal error: store driver bug") {
			t.Errorf("%s: exit %d stdout %q stderr %q; want exit %d stdout %q", name, code, stdout.String(), stderr.String(), want.Code, want.Stdout)
		}
		if name == "copilot" && !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) {
			t.Errorf("copilot: no deny on stdout: %q", stdout.String())
		}
	}
}
