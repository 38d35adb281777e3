package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/mcp"
	"github.com/tickettool/tickettool/token"
)

// fakeServer answers every tools/call it receives with one text block
// "ran TOOL", as an MCP server on stdio would, until its input ends.
func fakeServer(in io.Reader, out io.WriteCloser) {
	defer out.Close()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"ran %s"}]}}`+"\n", m.ID, m.Params.Name)
	}
}

// The guard between an agent and a server, in memory: an allowed call
// reaches the server, a refused one is answered by the guard with a tool
// result naming the block and caveat, and never reaches the server.
func ExampleProxy_Serve() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	root, _ := key.Generate(key.HMACSHA256, "root")
	cs, _ := caveat.ParseAll([]string{"tools=read_text_file", "paths=/srv/project/src/"}, now)
	ticket, _ := token.Mint(root, cs, nil)
	keys, _ := token.NewKeyring(root.Verifying())

	p, err := mcp.New(mcp.Config{Ticket: ticket, Keys: keys, Now: func() time.Time { return now }, Log: io.Discard})
	if err != nil {
		fmt.Println(err)
		return
	}
	agentIn, toGuard := io.Pipe()      // what the agent writes
	fromGuard, agentOut := io.Pipe()   // what the agent reads
	serverIn, toServer := io.Pipe()    // what the server reads
	fromServer, serverOut := io.Pipe() // what the server writes
	go fakeServer(serverIn, serverOut)
	done := make(chan error)
	go func() { done <- p.Serve(context.Background(), agentIn, agentOut, toServer, fromServer) }()

	answers := bufio.NewScanner(fromGuard)
	for i, path := range []string{"/srv/project/src/main.go", "/srv/project/.env"} {
		fmt.Fprintf(toGuard, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":%q}}}`+"\n", i+1, path)
		answers.Scan()
		fmt.Println(answers.Text())
	}
	toGuard.Close() // the agent is done: the server's input ends, then its output
	fmt.Println(<-done)
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ran read_text_file"}]}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"refused by ticket: block 0 caveat paths: /srv/project/.env is not under /srv/project/src/"}],"isError":true}}
	// <nil>
}
