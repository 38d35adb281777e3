package mcp

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzReadSSE: any stream is read without a panic, and no event's data
// passes the limit.
func FuzzReadSSE(f *testing.F) {
	f.Add([]byte("id: e1\nretry: 10\ndata: {\"a\":1}\n\n"))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: comment\n\ndata:x"))
	f.Add([]byte("retry: -1\nid: \x00\ndata\n\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		const max = 64
		var ev sseEvents
		readSSE(bytes.NewReader(stream), max, &ev, func(data []byte) bool {
			if len(data) > max {
				t.Fatalf("event of %d bytes past the limit of %d", len(data), max)
			}
			return true
		})
		if ev.retry < 0 || ev.retry > maxResumeWait {
			t.Fatalf("retry %v", ev.retry)
		}
	})
}

// FuzzParseProfile: a profile that parses writes a text that parses back
// to the same profile.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte(Filesystem().String()))
	f.Add([]byte(`{"name":"x","tools":{"t":{"hosts":["/a/b~1c"],"urlLists":["/u"]}}}`))
	f.Add([]byte(`{"name":"x","tools":{"t":{"paths":["/~1x","/~0y"]}}}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		p, err := ParseProfile(text)
		if err != nil {
			return
		}
		back, err := ParseProfile([]byte(p.String()))
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("%s does not read back: %v", p, err)
		}
	})
}
