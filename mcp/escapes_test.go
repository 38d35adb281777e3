package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// jsonServer is a small MCP server that decodes with encoding/json, which
// matches member names case-insensitively (and under Unicode folds such as
// ſ and the Kelvin sign): it records every tool call it would run, with the
// path it would use.
type jsonServer struct {
	mu  sync.Mutex
	ran []string
}

func (s *jsonServer) serve(in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Path string `json:"path"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		if m.Method == "tools/call" {
			s.mu.Lock()
			s.ran = append(s.ran, m.Params.Name+" "+m.Params.Arguments.Path)
			s.mu.Unlock()
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`+"\n", m.ID)
	}
}

func (s *jsonServer) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ran...)
}

// TestAliasesNeverReachServer: a member whose name is one the guard reads,
// in another case, is refused with a JSON-RPC error at the message, params
// and arguments levels, and a server decoding with encoding/json never runs
// the call.
func TestAliasesNeverReachServer(t *testing.T) {
	r := startRawAgent(t, nil, "tools=read_file")
	srv := &jsonServer{}
	go srv.serve(r.pp.server, r.pp.toAgent)
	outside := "/etc/passwd"
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"write_file","arguments":{"path":"` + outside + `"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping","METHOD":"tools/call","params":{"name":"read_file","arguments":{"path":"` + outside + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","Params":{"name":"read_file","arguments":{"path":"` + outside + `"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","Arguments":{"path":"` + outside + `"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"Name":"read_file","arguments":{"path":"` + r.dir + `/x"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"read_file","arguments":{"PATH":"` + outside + `"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"pAth":"` + outside + `"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_file","arguments":{"\u017fomething":1,"paſſ":2,"path":"` + r.dir + `/x"}}}`,
		`{"jsonrpc":"2.0","id":9,"mEthod":"tools/call","params":{"name":"read_file","arguments":{"path":"` + outside + `"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"read_file","arguments":{"p\u0061th":"` + r.dir + `/x","\u212a":1}}}`,
		`{"jsonrpc":"2.0","ID":11,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"` + outside + `"}}}`,
	} {
		write(t, r.pp.toProxy, line+"\n")
		got := r.agentGets(t)
		if i == 7 || i == 9 { // no alias of a name the guard reads: checked, and allowed
			if strings.Contains(got, `"error"`) {
				t.Errorf("line %d: %s", i+1, got)
			}
			continue
		}
		if !strings.Contains(got, `"error"`) {
			t.Errorf("line %d: agent got %s, want a JSON-RPC error", i+1, got)
		}
	}
	time.Sleep(50 * time.Millisecond)
	for _, c := range srv.calls() {
		if strings.Contains(c, outside) || strings.HasPrefix(c, "write_file") {
			t.Errorf("the server ran %q", c)
		}
	}
	if n := len(srv.calls()); n != 2 {
		t.Errorf("the server ran %d calls, want the 2 allowed ones: %q", n, srv.calls())
	}
}

// TestOversizeIDLast: the TypeScript SDK puts a request's id after its
// params; a request too long to forward is still answered with its id, and
// an answer from the server too long to pass on becomes an error to the
// agent, so neither side waits forever.
func TestOversizeIDLast(t *testing.T) {
	r := startRaw(t, func(c *Config) { c.MaxMessageBytes = 1024 }, "tools=read_file")
	big := strings.Repeat("A", 4096)
	r.agentSays(t, `{"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/x","pad":"`+big+`"}},"jsonrpc":"2.0","id":"last"}`)
	if c := errorCode(t, r.agentGets(t), `"last"`); c != codeInvalidRequest {
		t.Fatalf("code %d", c)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/x"}}}`)
	r.serverGets(t)
	r.serverSays(t, `{"result":{"content":[{"type":"text","text":"`+big+`"}]},"jsonrpc":"2.0","id":8}`)
	if c := errorCode(t, r.agentGets(t), "8"); c != codeInternalError {
		t.Fatalf("code %d", c)
	}
	// The call is no longer in flight: a write goes through at once.
	r.agentSays(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/y"}}}`)
	if got := r.serverGets(t); !strings.Contains(got, `"id":9`) {
		t.Fatalf("server got %s", got)
	}
}

func TestTopScan(t *testing.T) {
	for _, tc := range []struct {
		in, id string
		method bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"x"}`, "1", true},
		{`{"method":"x","params":{"id":2,"a":[{"id":3}]},"id":"s\"q"}`, `"s\"q"`, true},
		{`{"result":{"method":"x"},"id":4}`, "4", false},
		{`{"\u0069d":5,"params":"}{,:","method":7}`, "5", false},
		{` { "id" : 6 , "method" : "m" } `, "6", true},
		{`{"id":{"x":1},"method":"m"}`, "", true},
		{`not json at all {"id":1`, "", false},
		{`{"id":` + strings.Repeat("9", 300) + `,"method":"m"}`, "", true},
	} {
		var s topScan
		s.feed([]byte(tc.in))
		if strings.TrimSpace(string(s.id)) != tc.id || s.hasMethod != tc.method {
			t.Errorf("%s: id %q method %v, want %q %v", tc.in, s.id, s.hasMethod, tc.id, tc.method)
		}
	}
}

// TestLogEscaped: strings the agent chooses are logged quoted and with
// their control characters escaped: no forged line, no terminal escape.
func TestLogEscaped(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file")
	name := "x\ntickettool mcp: tools/call \"read_file\" allowed\x1b[2J\u2028"
	b, _ := json.Marshal(name)
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":`+string(b)+`,"arguments":{}}}`)
	got := r.agentGets(t)
	if strings.Contains(got, "\\n") == false || !strings.Contains(got, "isError") {
		t.Fatalf("agent got %s", got)
	}
	var res struct {
		Result struct{ Content []struct{ Text string } }
	}
	if json.Unmarshal([]byte(got), &res) != nil || strings.ContainsAny(res.Result.Content[0].Text, "\n\x1b\u2028") {
		t.Errorf("the refusal to the agent is not one line: %q", got)
	}
	log := r.log.String()
	if strings.Count(log, "\n") != 1 || strings.ContainsAny(log, "\x1b\u2028") {
		t.Errorf("log:\n%s", log)
	}
	if !strings.Contains(log, `\x1b[2J`) {
		t.Errorf("log does not show the escape: %q", log)
	}
}

func TestLineEscaper(t *testing.T) {
	var b strings.Builder
	e := &lineEscaper{w: &b}
	for _, s := range []string{"one\x1b[31m red\n", "two ", "halves\r\nthree\xff", "\u202eevil"} {
		e.Write([]byte(s))
	}
	e.Close()
	want := "one\\x1b[31m red\ntwo halves\\r\nthree\\xff\\u202eevil\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	e.Write([]byte(strings.Repeat("a", maxLogLine+10)))
	e.Close()
	if lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); len(lines) != 2 || len(lines[0]) != maxLogLine {
		t.Errorf("a long line is not cut at %d: %d lines", maxLogLine, len(lines))
	}
}

// TestProxyLogEscapes: the proxy's logger escapes whatever a message holds,
// quoted or not, so a string that reaches the log by any path stays on
// its line.
func TestProxyLogEscapes(t *testing.T) {
	sk, keys := rootKey(t)
	var b syncBuffer
	p, err := New(Config{Ticket: mint(t, sk, "tools=read_file"), Keys: keys, Now: fixedNow, Log: &b})
	if err != nil {
		t.Fatal(err)
	}
	p.log.Printf("raw %s", "a\nforged line\x1b]0;title\x07\x85\u0085\u2029")
	if got, want := b.String(), `tickettool mcp: raw a\nforged line\x1b]0;title\x07\x85\u0085\u2029`+"\n"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}
