package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder remembers what the fake server was asked.
type recorder struct {
	mu    sync.Mutex
	calls []string   // "tool arg..." per call the server received
	roots [][]string // the root URIs of every roots answer it saw
}

func (r *recorder) call(tool string, args ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, strings.Join(append([]string{tool}, args...), " "))
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func (r *recorder) rootsSeen() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.roots)
}

type pathIn struct {
	Path string `json:"path"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// newFakeFS returns an SDK server with tools named like the reference
// filesystem server's, working on real files, plus test tools: fetch (a
// url argument), list_roots (asks the client for its roots) and ask (an
// elicitation).
func newFakeFS(rec *recorder) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "fakefs", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "read_file"}, func(_ context.Context, _ *sdk.CallToolRequest, in pathIn) (*sdk.CallToolResult, any, error) {
		rec.call("read_file", in.Path)
		b, err := os.ReadFile(in.Path)
		return text(string(b)), nil, err
	})
	sdk.AddTool(s, &sdk.Tool{Name: "write_file"}, func(_ context.Context, _ *sdk.CallToolRequest, in struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}) (*sdk.CallToolResult, any, error) {
		rec.call("write_file", in.Path)
		return text("ok"), nil, os.WriteFile(in.Path, []byte(in.Content), 0o600)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "read_multiple_files"}, func(_ context.Context, _ *sdk.CallToolRequest, in struct {
		Paths []string `json:"paths"`
	}) (*sdk.CallToolResult, any, error) {
		rec.call("read_multiple_files", in.Paths...)
		return text("ok"), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "move_file"}, func(_ context.Context, _ *sdk.CallToolRequest, in struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
	}) (*sdk.CallToolResult, any, error) {
		rec.call("move_file", in.Source, in.Destination)
		return text("ok"), nil, os.Rename(in.Source, in.Destination)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "list_allowed_directories"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		rec.call("list_allowed_directories")
		return text("[]"), nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fetch"}, func(_ context.Context, _ *sdk.CallToolRequest, in struct {
		URL string `json:"url"`
	}) (*sdk.CallToolResult, any, error) {
		rec.call("fetch", in.URL)
		return text("fetched"), nil, nil
	})
	object := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&sdk.Tool{Name: "list_roots", InputSchema: object}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		rec.call("list_roots")
		//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
		var roots []*sdk.Root
		//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
		if r, ok := req.Params.InputResponses["roots"].(*sdk.ListRootsResult); ok {
			roots = r.Roots // the retry of a multi round-trip call
		} else {
			//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil { // 2026-07-28: ask in the result instead
				//lint:ignore SA1019 roots are deprecated (SEP-2577) yet still sent, and the guard must filter them
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"roots": &sdk.ListRootsParams{}}}, nil
			}
			roots = res.Roots
		}
		var uris []string
		for _, r := range roots {
			uris = append(uris, r.URI)
		}
		rec.mu.Lock()
		rec.roots = append(rec.roots, uris)
		rec.mu.Unlock()
		return text(strings.Join(uris, "\n")), nil
	})
	s.AddTool(&sdk.Tool{Name: "ask", InputSchema: object}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		rec.call("ask")
		params := &sdk.ElicitParams{Message: "Proceed? (with \"quotes\" & <html>)", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}},
		}}
		var res *sdk.ElicitResult
		if r, ok := req.Params.InputResponses["ask"].(*sdk.ElicitResult); ok {
			res = r
		} else {
			var err error
			if res, err = req.Session.Elicit(ctx, params); err != nil {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"ask": params}}, nil
			}
		}
		return text("action=" + res.Action), nil
	})
	return s
}

// realTempDir is t.TempDir with its symbolic links resolved, so that
// prefixes compare with resolved paths on systems whose temp dir is a link.
func realTempDir(t interface {
	TempDir() string
	Fatal(...any)
}) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var errNotText = errors.New("result is not one text block")

// resultText returns the text of a one-text-block result.
func resultText(r *sdk.CallToolResult) (string, error) {
	if len(r.Content) != 1 {
		return "", errNotText
	}
	tc, ok := r.Content[0].(*sdk.TextContent)
	if !ok {
		return "", errNotText
	}
	return tc.Text, nil
}
