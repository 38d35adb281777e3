package mcp_test

import (
	"fmt"

	"github.com/tickettool/tickettool/mcp"
)

// A profile for a server whose fetch tool takes a URL and whose attach
// tool takes a file and, nested, the host to send it to.
func ExampleParseProfile() {
	p, err := mcp.ParseProfile([]byte(`{
		"name": "issues",
		"tools": {
			"fetch": {"urls": ["/url"], "readOnly": true},
			"attach": {"paths": ["/file"], "hosts": ["/target/host"]}
		}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Tools["fetch"].URLs, p.Tools["attach"].Paths, p.Tools["attach"].Hosts)
	// Output: [url] [file] [/target/host]
}
