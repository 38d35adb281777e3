package verify_test

import (
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

func ExampleVerify() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	root, _ := key.Generate(key.Ed25519, "root")
	cs, _ := caveat.ParseAll([]string{"tools=read_file", "paths=src/discount/", "until=10m"}, now)
	ticket, _ := token.Mint(root, cs, nil)

	// The verifier holds only the public key.
	keys, _ := token.NewKeyring(root.Verifying())

	ok, _ := verify.Verify(ticket, &caveat.Request{Tool: "read_file", Paths: []string{"src/discount/rules.go"}}, keys, now, nil)
	fmt.Println(ok.Allowed)

	no, _ := verify.Verify(ticket, &caveat.Request{Tool: "read_file", Paths: []string{"src/discount-other/x.go"}}, keys, now, nil)
	fmt.Println(no.Allowed)
	for _, r := range no.Refusals {
		fmt.Println(r)
	}

	late, _ := verify.Verify(ticket, &caveat.Request{Tool: "read_file", Paths: []string{"src/discount/rules.go"}}, keys, now.Add(10*time.Minute), nil)
	fmt.Println(late.Err())
	// Output:
	// true
	// false
	// block 0 caveat paths: src/discount-other/x.go is not under src/discount/
	// verify: refused: block 0 caveat until: expired at 2026-11-30T12:10:00Z
}

// Validate answers "is this ticket sound and current?" without a call: the
// key, the chain, narrowing, revocation, the verifier's policy and the
// time caveats.
func ExampleValidate() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	root, _ := key.Generate(key.HMACSHA256, "root")
	cs, _ := caveat.ParseAll([]string{"tools=read_file", "until=1h"}, now)
	ticket, _ := token.Mint(root, cs, nil)
	keys, _ := token.NewKeyring(root.Verifying())

	d, _ := verify.Validate(ticket, keys, now, nil)
	fmt.Println(d.Allowed, len(d.BlockIDs))

	// The verifier's own policy: no ticket may live longer than 30 minutes.
	d, _ = verify.Validate(ticket, keys, now, &verify.Options{MaxLifetime: 30 * time.Minute})
	fmt.Println(d.Allowed, d.Refusals[0])

	d, _ = verify.Validate(ticket, keys, now.Add(2*time.Hour), nil)
	fmt.Println(d.Err())
	// Output:
	// true 1
	// false policy: maximum lifetime: expiry 2026-11-30T13:00:00Z is more than 30m0s ahead
	// verify: refused: block 0 caveat until: expired at 2026-11-30T13:00:00Z
}
