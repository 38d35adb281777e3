package caveat_test

import (
	"testing"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/wire"
)

// FuzzParse: Parse never panics, and whatever it accepts prints to a text
// that parses back to the same caveat and prints the same again, and
// encodes to CBOR that decodes back to it.
func FuzzParse(f *testing.F) {
	jkt2 := jkt[:len(jkt)-2] + "AA" // another key
	for _, s := range []string{
		"tools=read_file,workspace/write_file", "ops=invoke,delegate", "paths=src/discount",
		"paths=/", "paths=src/../x", "hosts=API.example.com,*.example.org", "hosts=*.com",
		"aud=workspace", "calls=5", "depth=0", "cost=0.50USD", "total=5USD", "cost=1.USD",
		"until=10m", "until=2026-11-30T03:20:00Z", "until=1796008800", "nbf=1h30m",
		`intent="upgrade pricing deps"`, "intent=bare text", `intent="\u202e"`,
		"holder=" + jkt, "args=" + jkt, "approval=lead:" + jkt + ":" + nonce,
		"approval=a:b:" + jkt + ":" + nonce + ":https://x/y:z", "approval=k:" + jkt + ":" + nonce + ":",
		"kind(42)=01", "=", "",
		"approval=2 of a:" + jkt + " b:" + jkt2 + ":" + nonce, "approval=1 of a:" + jkt + " b:" + jkt2 + ":" + nonce + ":ask one of us",
		"approval=lead:" + jkt + ":" + nonce + ":one of us",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := caveat.Parse(s, now)
		if err != nil {
			return
		}
		text := c.String()
		d, err := caveat.Parse(text, now)
		if err != nil || !d.Equal(c) || d.String() != text {
			t.Fatalf("Parse(%q) = %+v; its text %q reparses as %+v, %v", s, c, text, d, err)
		}
		raw, err := wire.EncodeCaveat(c)
		if err != nil {
			t.Fatalf("EncodeCaveat(%s): %v", text, err)
		}
		if e, err := wire.DecodeCaveat(c.Kind, raw); err != nil || !e.Equal(c) {
			t.Fatalf("DecodeCaveat(%x) = %+v, %v", raw, e, err)
		}
		_ = c.Evaluate(&caveat.Request{Tool: s, Op: s, Paths: []string{s}, URLs: []string{s}, Audience: s, Args: []byte(s)}, now, 0)
	})
}
