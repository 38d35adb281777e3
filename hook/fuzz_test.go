package hook

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzDecide: whatever the event, every harness's answer is either an
// allow (silence; Cursor's allow form) or that harness's deny with a
// one-line reason, and the hook never panics out of Decide. The seeds are
// the recorded events of every harness.
func FuzzDecide(f *testing.F) {
	for _, h := range Harnesses() {
		a, err := txtar.ParseFile(filepath.Join("testdata", "events", h.String()+".txtar"))
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range a.Files {
			f.Add(uint8(h), strings.ReplaceAll(string(file.Data), "$PROJ", "/work/proj"))
		}
	}
	e := newEnv(f, "tools=builtin/read,builtin/write,fs/read_file", "paths=/work/proj/")
	f.Fuzz(func(t *testing.T, hb uint8, event string) {
		h := Harness(hb%5 + 1)
		cfg := *e.cfg
		cfg.Harness = h
		a := Decide(context.Background(), &cfg, []byte(event))
		allowed := len(a.Stdout) == 0 && a.Code == 0 && len(a.Stderr) == 0
		if h == Cursor && string(a.Stdout) == "{\"permission\":\"allow\"}\n" && a.Code == 0 {
			allowed = true
		}
		if allowed {
			return
		}
		if strings.Count(string(a.Stderr), "\n") != 1 || !strings.HasPrefix(string(a.Stderr), "tickettool: ") {
			t.Fatalf("%v: answer %+v", h, a)
		}
		switch h {
		case Claude:
			if a.Code != 2 || !strings.Contains(string(a.Stdout), `"hookEventName":"PreToolUse","permissionDecision":"deny"`) {
				t.Fatalf("claude deny %+v", a)
			}
		case Codex, Gemini:
			if a.Code != 2 || len(a.Stdout) != 0 {
				t.Fatalf("%v deny %+v", h, a)
			}
		case Cursor:
			if a.Code != 0 || !strings.HasPrefix(string(a.Stdout), `{"agent_message":`) {
				t.Fatalf("cursor deny %+v", a)
			}
		case Copilot:
			if a.Code != 0 || !strings.Contains(string(a.Stdout), `"permissionDecision":"deny"`) {
				t.Fatalf("copilot deny %+v", a)
			}
		}
	})
}
