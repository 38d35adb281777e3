package guard_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// A Guard in front of a tool: every call is checked offline against the
// ticket and admitted in the store in one step, so a calls=2 budget allows
// two calls, however many guards share the store.
func ExampleGuard() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	root, _ := key.Generate(key.Ed25519, "root")
	cs, _ := caveat.ParseAll([]string{"tools=read_file", "paths=src/", "calls=2"}, now)
	ticket, _ := token.Mint(root, cs, nil)
	keys, _ := token.NewKeyring(root.Verifying())

	// One store, two guards (two processes would open the same SQLite file
	// or Redis server instead).
	store := guard.NewMemoryStore()
	a, _ := guard.New(guard.Config{Keys: keys, Store: store, Hold: time.Minute})
	b, _ := guard.New(guard.Config{Keys: keys, Store: store, Hold: time.Minute})

	ctx := context.Background()
	req := &caveat.Request{Tool: "read_file", Op: "invoke", Paths: []string{"src/a.go"}}
	for i, g := range []*guard.Guard{a, b, a} {
		d, err := g.Verify(ctx, ticket, req, now)
		if err != nil { // a store that fails refuses: the call must not run
			fmt.Println(err)
			return
		}
		if !d.Allowed {
			fmt.Printf("call %d refused: %v\n", i+1, d.Refusals[0])
			continue
		}
		fmt.Printf("call %d allowed\n", i+1)
		// The call ran: its charge stands (guard.Release would give it
		// back when the call did not run).
		if err := g.Settle(ctx, &d, guard.Capture, now); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// call 1 allowed
	// call 2 allowed
	// call 3 refused: block 0 caveat calls: budget of 2 calls is spent
}
