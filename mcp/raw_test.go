package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// rawSetup is a proxy between two raw pipe ends: the test plays both the
// agent and the server, and sees every byte.
type rawSetup struct {
	pp       *pipes
	toAgent  chan string // lines the proxy wrote to the agent
	toServer chan string // lines the proxy wrote to the server
	log      *syncBuffer
	dir      string
}

func startRaw(t *testing.T, edit func(*Config), caveats ...string) *rawSetup {
	t.Helper()
	r := startRawAgent(t, edit, caveats...)
	go readLines(r.pp.server, r.toServer)
	return r
}

// startRawAgent is startRaw with the server's side left to the caller.
func startRawAgent(t *testing.T, edit func(*Config), caveats ...string) *rawSetup {
	t.Helper()
	r := &rawSetup{pp: newPipes(), toAgent: make(chan string, 16), toServer: make(chan string, 16), log: &syncBuffer{}, dir: realTempDir(t)}
	sk, keys := rootKey(t)
	cfg := Config{Ticket: mint(t, sk, append([]string{"paths=" + r.dir}, caveats...)...), Keys: keys, Now: fixedNow, Log: r.log}
	if edit != nil {
		edit(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	serveProxy(t, p, r.pp)
	go readLines(r.pp.fromProxy, r.toAgent)
	return r
}

func readLines(rd io.Reader, out chan<- string) {
	br := bufio.NewReaderSize(rd, 1<<20)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			close(out)
			return
		}
		out <- line
	}
}

func write(t *testing.T, w io.Writer, line string) {
	t.Helper()
	if _, err := io.WriteString(w, line); err != nil {
		t.Fatal(err)
	}
}

func (r *rawSetup) agentSays(t *testing.T, line string) {
	t.Helper()
	write(t, r.pp.toProxy, line+"\n")
}
func (r *rawSetup) serverSays(t *testing.T, line string) {
	t.Helper()
	write(t, r.pp.toAgent, line+"\n")
}

func next(t *testing.T, ch <-chan string, who string) string {
	t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			t.Fatalf("%s: stream closed", who)
		}
		return strings.TrimSuffix(l, "\n")
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: nothing arrived", who)
	}
	return ""
}

func (r *rawSetup) agentGets(t *testing.T) string  { t.Helper(); return next(t, r.toAgent, "agent") }
func (r *rawSetup) serverGets(t *testing.T) string { t.Helper(); return next(t, r.toServer, "server") }

// sentinel sends a ping each way and checks it is the next thing to
// arrive, proving nothing else was forwarded before it.
func (r *rawSetup) sentinel(t *testing.T) {
	t.Helper()
	ping := `{"jsonrpc":"2.0","id":"sentinel","method":"ping"}`
	r.agentSays(t, ping)
	if got := r.serverGets(t); got != ping {
		t.Fatalf("server got %s before the sentinel", got)
	}
	r.serverSays(t, ping)
	if got := r.agentGets(t); got != ping {
		t.Fatalf("agent got %s before the sentinel", got)
	}
	// The server answers the agent's ping, so its id is free again.
	pong := `{"jsonrpc":"2.0","id":"sentinel","result":{}}`
	r.serverSays(t, pong)
	if got := r.agentGets(t); got != pong {
		t.Fatalf("agent got %s, want the answer to its ping", got)
	}
}

func errorCode(t *testing.T, line string, id string) int {
	t.Helper()
	var m struct {
		ID    json.RawMessage     `json:"id"`
		Error *struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Error == nil {
		t.Fatalf("not an error response: %s", line)
	}
	if string(m.ID) != id {
		t.Fatalf("error for id %s, want %s: %s", m.ID, id, line)
	}
	return m.Error.Code
}

func TestRawUnknownFieldsByteForByte(t *testing.T) {
	r := startRaw(t, nil)
	call := fmt.Sprintf(`{ "jsonrpc" : "2.0", "id":1.0, "method":"tools/call","params":{"name":"read_file","arguments":{"path":"%s/a","x-extra":[1,{"b":null}]},"_meta":{"progressToken":"p\u00e9"},"future":true,"zzz":{"deep":[1e3]}} }`, r.dir)
	for _, line := range []string{
		call,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"x":"<&>"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99,"reason":"bye"}}` + "\r",
		`{"jsonrpc":"2.0","id":"r1","method":"resources/read","params":{"uri":"file:///etc/passwd"}}`,
	} {
		r.agentSays(t, line)
		if got := r.serverGets(t); got != line {
			t.Fatalf("server got\n%s\nwant\n%s", got, line)
		}
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1.0,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"k":"<&>"},"unknown":[true]}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"é":1}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5,"extra":{}}}`,
	} {
		r.serverSays(t, line)
		if got := r.agentGets(t); got != line {
			t.Fatalf("agent got\n%s\nwant\n%s", got, line)
		}
	}
	// The agent's answer to sampling carries no roots: byte for byte too.
	answer := `{"jsonrpc":"2.0","id":4,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","extra":1}}`
	r.agentSays(t, answer)
	if got := r.serverGets(t); got != answer {
		t.Fatalf("server got %s", got)
	}
}

func TestRawRewriteKeepsOtherFields(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file")
	r.agentSays(t, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	r.serverGets(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"read_file","x":1},{"name":"write_file"}],"nextCursor":"c","ttl":5},"extra":"<&>"}`)
	want := `{"extra":"<&>","id":7,"jsonrpc":"2.0","result":{"nextCursor":"c","tools":[{"name":"read_file","x":1}],"ttl":5}}`
	if got := r.agentGets(t); got != want {
		t.Fatalf("agent got\n%s\nwant\n%s", got, want)
	}
}

func TestRawBatchRefused(t *testing.T) {
	r := startRaw(t, nil)
	r.agentSays(t, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/etc/passwd"}}},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	if c := errorCode(t, r.agentGets(t), "1"); c != codeInvalidRequest {
		t.Fatalf("code %d", c)
	}
	errorCode(t, r.agentGets(t), `"b"`)
	r.serverSays(t, `[{"jsonrpc":"2.0","id":9,"method":"roots/list"}]`)
	errorCode(t, r.serverGets(t), "9")
	r.sentinel(t)
	if !strings.Contains(r.log.String(), "refused a batch") {
		t.Fatalf("log: %s", r.log)
	}
}

func TestRawNonJSON(t *testing.T) {
	r := startRaw(t, nil)
	r.agentSays(t, "this is not json")
	r.agentSays(t, `{"jsonrpc":"2.0","id":7,"method":"ping", oops}`)
	if c := errorCode(t, r.agentGets(t), "7"); c != codeParseError {
		t.Fatalf("code %d", c)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`) // an id no one can be answered with
	r.agentSays(t, "")
	r.serverSays(t, "server log line on stdout")
	r.sentinel(t)
	if n := strings.Count(r.log.String(), "dropped a message"); n != 3 {
		t.Fatalf("%d lines dropped in the log:\n%s", n, r.log)
	}
}

func TestRawOversize(t *testing.T) {
	r := startRaw(t, func(c *Config) { c.MaxMessageBytes = 1024 })
	big := strings.Repeat("A", 4096)
	r.agentSays(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/etc/x","content":"`+big+`"}}}`)
	if c := errorCode(t, r.agentGets(t), "3"); c != codeInvalidRequest {
		t.Fatalf("code %d", c)
	}
	r.serverSays(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`+big+`"}}`)
	r.agentSays(t, `{"jsonrpc":"2.0","id":5,"method":"ping"}`+strings.Repeat(" ", 2000)) // complete JSON, too long
	errorCode(t, r.agentGets(t), "5")
	r.sentinel(t)

	// The default limit streams past without being buffered whole.
	r = startRaw(t, nil)
	huge := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"x":"` + strings.Repeat("B", DefaultMaxMessageBytes) + `"}}`
	go io.WriteString(r.pp.toProxy, huge+"\n")
	errorCode(t, r.agentGets(t), "4")
	r.sentinel(t)
}

func TestRawIDCollisionAcrossDirections(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file")
	// Both sides use id 1 for a request at the same time.
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r.serverGets(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`)
	r.agentGets(t)
	r.agentSays(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file://%s/in"},{"uri":"file:///"}]}}`, r.dir))
	if got, want := r.serverGets(t), fmt.Sprintf(`{"id":1,"jsonrpc":"2.0","result":{"roots":[{"uri":"file://%s/in"}]}}`, r.dir); got != want {
		t.Fatalf("server got %s, want %s", got, want)
	}
	r.serverSays(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_file"},{"name":"write_file"}]}}`)
	if got := r.agentGets(t); got != `{"id":1,"jsonrpc":"2.0","result":{"tools":[{"name":"read_file"}]}}` {
		t.Fatalf("agent got %s", got)
	}
	// 2.0 is 2; "3" is not 3.
	r.agentSays(t, `{"jsonrpc":"2.0","id":2.0,"method":"tools/list"}`)
	r.serverGets(t)
	r.serverSays(t, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"write_file"}]}}`)
	if got := r.agentGets(t); got != `{"id":2,"jsonrpc":"2.0","result":{"tools":[]}}` {
		t.Fatalf("agent got %s", got)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":"3","method":"tools/list"}`)
	r.serverGets(t)
	unfiltered := `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"write_file"}]}}`
	r.serverSays(t, unfiltered)
	if got := r.agentGets(t); got != unfiltered {
		t.Fatalf("agent got %s", got)
	}
}

func TestRawCancelOfRefusedCall(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file")
	r.agentSays(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"`+r.dir+`/x"}}}`)
	if got := r.agentGets(t); !strings.Contains(got, `"isError":true`) {
		t.Fatalf("agent got %s", got)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5.0}}`)
	other := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"5"}}`
	r.agentSays(t, other) // "5" is another id: forwarded
	if got := r.serverGets(t); got != other {
		t.Fatalf("server got %s", got)
	}
	// The refused id is used again for an allowed call. While the server
	// runs it, its cancellation is kept back (the server would run it to
	// its end without answering, and the gate waits for that answer).
	r.agentSays(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/x"}}}`)
	r.serverGets(t)
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`
	r.agentSays(t, cancel)
	r.sentinel(t)
	answer := `{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`
	r.serverSays(t, answer)
	if got := r.agentGets(t); got != answer {
		t.Fatalf("agent got %s", got)
	}
	// Answered, the id is free: a cancellation of it goes through.
	r.agentSays(t, cancel)
	if got := r.serverGets(t); got != cancel {
		t.Fatalf("server got %s", got)
	}
	r.sentinel(t)
}

func TestRawAmbiguousMessages(t *testing.T) {
	r := startRaw(t, nil, "tools=read_file")
	// A server decoding case-insensitively would see write_file.
	r.agentSays(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","Name":"write_file","arguments":{"path":"`+r.dir+`/x"}}}`)
	if c := errorCode(t, r.agentGets(t), "1"); c != codeInvalidParams {
		t.Fatalf("code %d", c)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":2,"method":"ping","method":"tools/call","params":{"name":"write_file"}}`)
	if c := errorCode(t, r.agentGets(t), "2"); c != codeInvalidRequest {
		t.Fatalf("code %d", c)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+r.dir+`/x","PATH":"/etc/passwd"}}}`)
	errorCode(t, r.agentGets(t), "3")
	// A subject argument of the wrong type is a well-formed call the guard
	// refuses as it stands: a tool result the model can act on.
	r.agentSays(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":["/etc/passwd"]}}}`)
	if got := r.agentGets(t); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "request: ") || !strings.Contains(got, "must be a string") {
		t.Fatalf("agent got %s", got)
	}
	// A call without an id is never forwarded.
	r.agentSays(t, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file"}}`)
	r.agentSays(t, `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"write_file"}}`)
	r.sentinel(t)
}

func TestRawRefusalResult(t *testing.T) {
	r := startRaw(t, nil)
	r.agentSays(t, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/etc/passwd"}}}`)
	want := `{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"refused by ticket: block 0 caveat paths: /etc/passwd is not under ` + r.dir + `/"}],"isError":true}}`
	if got := r.agentGets(t); got != want {
		t.Fatalf("agent got\n%s\nwant\n%s", got, want)
	}
	r.agentSays(t, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/etc/passwd"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	if got := r.agentGets(t); !strings.HasSuffix(got, `"isError":true,"resultType":"complete"}}`) {
		t.Fatalf("agent got %s", got)
	}
}
