package token_test

import (
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
)

// The approver signs a discharge for the binding the agent's ticket
// computes for its approval caveat (Ticket.Binding); the verifier parses
// it and checks it under the key the approval caveat names.
func ExampleApprove() {
	lead, _ := key.Generate(key.Ed25519, "pricing-lead")
	var binding [32]byte // in practice: ticket.Binding(j), and token.BindingCode(binding) shown to the lead
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	caveats, _ := caveat.ParseAll([]string{"until=10m", "calls=1", "tools=post_summary"}, now)
	d, err := token.Approve(lead, binding, caveats, now)
	if err != nil {
		fmt.Println(err)
		return
	}
	text := d.String() // dis1_…, handed to the agent

	back, err := token.ParseDischarge(text)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.UnverifiedKeyID(), back.UnverifiedBinding() == binding, back.Verify(lead.Verifying()))
	for _, c := range back.UnverifiedCaveats() {
		fmt.Println(c)
	}
	fmt.Println(token.BindingCode(binding))
	// Output:
	// pricing-lead true <nil>
	// tools=post_summary
	// calls=1
	// until=2026-11-30T12:10:00Z
	// AAAAA-AAAAA
}
