package token_test

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/internal/fixedkey"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

func genBlock(t *rapid.T, label string) []caveat.Caveat {
	var cs []caveat.Caveat
	add := func(c caveat.Caveat, err error) {
		if err == nil {
			cs = append(cs, c)
		}
	}
	if rapid.Bool().Draw(t, label+" tools?") {
		add(caveat.NewTools(rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "s/a", "read_file"}), 1, 3).Draw(t, label+" tools")...))
	}
	if rapid.Bool().Draw(t, label+" paths?") {
		add(caveat.NewPaths(rapid.SliceOfN(rapid.SampledFrom([]string{"src/", "src/a/", "/abs/"}), 1, 2).Draw(t, label+" paths")...))
	}
	if rapid.Bool().Draw(t, label+" calls?") {
		add(caveat.NewCalls(rapid.Uint64Range(1, 1<<40).Draw(t, label+" calls")))
	}
	if rapid.Bool().Draw(t, label+" until?") {
		add(caveat.NewUntil(time.Unix(rapid.Int64Range(0, 1<<34).Draw(t, label+" until"), 0)))
	}
	return cs
}

// Property 2: decode(encode(t)) = t, and the decoded ticket re-encodes to
// the same bytes and text.
func TestPropEncodeDecodeRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		mode := rapid.SampledFrom([]key.Alg{key.HMACSHA256, key.Ed25519}).Draw(t, "mode")
		key, _ := fixedkey.Signing(mode, "k", "props")
		tk, err := token.Mint(key, genBlock(t, "b0"), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range rapid.IntRange(0, 3).Draw(t, "blocks") {
			if next, err := tk.Attenuate(genBlock(t, "b"+string(rune('1'+i))), nil); err == nil {
				tk = next
			}
		}
		if rapid.Bool().Draw(t, "seal") {
			tk, _ = tk.Seal()
		}
		data := tk.Encode()
		back, err := token.Decode(data)
		if err != nil {
			t.Fatalf("decode of an encoded ticket: %v", err)
		}
		if !bytes.Equal(back.Encode(), data) || back.String() != tk.String() || back.Sealed() != tk.Sealed() {
			t.Fatal("round trip changed the ticket")
		}
		if !reflect.DeepEqual(scopeOf(t, back), scopeOf(t, tk)) {
			t.Fatal("round trip changed the caveats")
		}
		if _, err := back.VerifyChain(key.Verifying()); err != nil {
			t.Fatalf("round-tripped ticket does not verify: %v", err)
		}
	})
}

func scopeOf(t *rapid.T, tk *token.Ticket) []string {
	var out []string
	for _, b := range tk.UnverifiedBlocks() {
		for _, c := range b.Caveats {
			out = append(out, c.String())
		}
		out = append(out, "|")
	}
	return out
}
