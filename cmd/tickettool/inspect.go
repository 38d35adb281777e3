package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
)

const inspectUsage = `
usage: tickettool inspect [--json] TICKET

Shows what TICKET (its text, - for standard input, or @PATH for a file)
says: mode, key id,
family id, every block's caveats, the effective scope after every block,
holder binding and seal state. It reads the ticket without any key, so
NOTHING IS VERIFIED: use 'tickettool verify' before trusting any of it.
It never prints a tag, signature or key.

Example:
  tickettool inspect "$TICKET"
  tickettool inspect --json - < ticket.txt
`

const notVerified = "NOT VERIFIED: read without any key; nothing here is trustworthy until 'tickettool verify' accepts the ticket"

type inspectBlock struct {
	Index     int      `json:"index"`
	Caveats   []string `json:"caveats"`
	Effective []string `json:"effective"`
	RebindBy  string   `json:"rebound_by,omitempty"` // thumbprint of the holder that signed a rebinding
	Problem   string   `json:"problem,omitempty"`    // why a verifier will refuse this block
}

type inspectResult struct {
	Verified bool           `json:"verified"`
	Warning  string         `json:"warning"`
	Mode     string         `json:"mode"`
	KeyID    string         `json:"key_id"`
	FamilyID string         `json:"family_id"`
	Blocks   []inspectBlock `json:"blocks"`
	Sealed   bool           `json:"sealed"`
	Holder   string         `json:"holder,omitempty"` // the jkt the ticket is bound to
}

func runInspect(e *env, args []string) error {
	fs := newFlags(e, "inspect", inspectUsage)
	asJSON := fs.Bool("json", false, "print one JSON object")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	arg, err := oneArg("inspect", pos, "TICKET")
	if err != nil {
		return err
	}
	_, t, err := e.ticketArg(arg)
	if err != nil {
		return err
	}
	res := inspectTicket(t)
	if *asJSON {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return nil
	}
	printInspect(e, res)
	return nil
}

func inspectTicket(t *token.Ticket) inspectResult {
	blocks := t.UnverifiedBlocks()
	res := inspectResult{
		Warning:  notVerified,
		Mode:     t.UnverifiedMode().String(),
		KeyID:    t.UnverifiedKeyID(),
		FamilyID: hex.EncodeToString(blocks[0].TicketID),
		Sealed:   t.Sealed(),
		Blocks:   []inspectBlock{},
	}
	// Replay the blocks as a verifier would (package caveat's Scope), to
	// show the effective constraint after each one.
	var scope caveat.Scope
	for i, b := range blocks {
		ib := inspectBlock{Index: i, Caveats: caveatStrings(b.Caveats)}
		var problems []string
		if i > 0 {
			if err := scope.CanAppend(i); err != nil {
				problems = append(problems, err.Error())
			}
		}
		for _, c := range b.Caveats {
			if err := scope.Add(i, c); err != nil {
				problems = append(problems, err.Error())
			}
		}
		ib.Problem = strings.Join(problems, "; ")
		ib.Effective = caveatStrings(scope.Effective())
		if len(b.RebindJWK) > 0 {
			ib.RebindBy = "(unreadable JWK)"
			if jwk, err := dpop.ParsePublicJWK(b.RebindJWK); err == nil {
				if jkt, err := dpop.Thumbprint(jwk); err == nil {
					ib.RebindBy = jkt
				}
			}
		}
		res.Blocks = append(res.Blocks, ib)
	}
	if h := scope.Holder(); h != nil {
		res.Holder = base64.RawURLEncoding.EncodeToString(h)
	}
	return res
}

func caveatStrings(cs []caveat.Caveat) []string {
	s := make([]string, 0, len(cs))
	for _, c := range cs {
		s = append(s, c.String())
	}
	return s
}

func printInspect(e *env, r inspectResult) {
	w := e.stdout
	fmt.Fprintln(w, notVerified)
	fmt.Fprintf(w, "mode       %s\n", r.Mode)
	fmt.Fprintf(w, "key id     %s\n", r.KeyID)
	fmt.Fprintf(w, "family     %s\n", r.FamilyID)
	fmt.Fprintf(w, "blocks     %d\n", len(r.Blocks))
	if r.Sealed {
		fmt.Fprintln(w, "sealed     yes: nothing can be appended")
	} else {
		fmt.Fprintln(w, "sealed     no: the holder can append narrower blocks")
	}
	if r.Holder != "" {
		fmt.Fprintf(w, "holder     bound to %s: every call needs a DPoP proof by that key\n", r.Holder)
	} else {
		fmt.Fprintln(w, "holder     not bound: whoever holds the text can use it")
	}
	for _, b := range r.Blocks {
		fmt.Fprintf(w, "block %d\n", b.Index)
		if b.RebindBy != "" {
			fmt.Fprintf(w, "  rebound   by holder %s\n", b.RebindBy)
		}
		if len(b.Caveats) == 0 {
			fmt.Fprintln(w, "  caveat    (none)")
		}
		for _, c := range b.Caveats {
			fmt.Fprintf(w, "  caveat    %s\n", c)
		}
		if b.Problem != "" {
			fmt.Fprintf(w, "  PROBLEM   %s (a verifier refuses this block)\n", b.Problem)
		}
		if len(b.Effective) == 0 {
			fmt.Fprintln(w, "  effective (unconstrained)")
		}
		for _, c := range b.Effective {
			fmt.Fprintf(w, "  effective %s\n", c)
		}
	}
}
