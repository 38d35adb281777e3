package token_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

func ExampleMint() {
	root, _ := key.Generate(key.Ed25519, "root-2026")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	caveats, _ := caveat.ParseAll([]string{
		"tools=read_file,write_file",
		"paths=src/discount/",
		"until=1h", // resolved now: the ticket says 13:00
		"intent=upgrade pricing deps",
	}, now)
	t, _ := token.Mint(root, caveats, nil)
	for _, c := range t.UnverifiedBlocks()[0].Caveats {
		fmt.Println(c)
	}
	// Output:
	// tools=read_file,write_file
	// paths=src/discount/
	// until=2026-11-30T13:00:00Z
	// intent="upgrade pricing deps"
}

func ExampleTicket_Attenuate() {
	root, _ := key.Generate(key.HMACSHA256, "root")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	parent, _ := token.Mint(root, must(caveat.ParseAll([]string{"tools=read_file,write_file", "paths=src/"}, now)), nil)

	// A subagent gets a narrower ticket: by meaning, not bytes.
	child, err := parent.Attenuate(must(caveat.ParseAll([]string{"tools=read_file", "paths=src/discount/"}, now)), nil)
	fmt.Println(child.Len(), err)

	// Widening is refused up front, naming the caveat.
	_, err = child.Attenuate(must(caveat.ParseAll([]string{"paths=src/"}, now)), nil)
	fmt.Println(errors.Is(err, token.ErrWiden))
	fmt.Println(err)
	// Output:
	// 2 <nil>
	// true
	// token: attenuation would widen the ticket: block 2: caveat paths: src/ is not under src/discount/
}

func ExampleTicket_Seal() {
	root, _ := key.Generate(key.Ed25519, "root")
	t, _ := token.Mint(root, nil, nil)
	sealed, _ := t.Seal()
	_, err := sealed.Attenuate(nil, nil)
	fmt.Println(sealed.Sealed(), errors.Is(err, token.ErrSealed))
	_, err = sealed.VerifyChain(root.Verifying())
	fmt.Println(err)
	// Output:
	// true true
	// <nil>
}

func ExampleParse() {
	root, _ := key.Generate(key.HMACSHA256, "root")
	t, _ := token.Mint(root, nil, nil)
	back, err := token.Parse(t.String())
	fmt.Println(err, back.String() == t.String())
	_, err = token.Parse("tkt1_not a ticket")
	fmt.Println(err)
	// Output:
	// <nil> true
	// token: malformed ticket: text has a character outside base64url
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
