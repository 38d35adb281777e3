package report

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/token"
)

// node is one block of a family's delegation tree: a ticket that block 0
// minted or a later block delegated.
type node struct {
	ID        string   // hex ticket id of the block ("" when not known)
	Block     int      // its index in the chain
	Caveats   []string // the block's own caveats
	Effective []string // what applies to a ticket ending here: per kind, the last block's caveat; every budget
	Holder    string   // the holder caveat in force, "" for a bearer ticket
	Source    string   // where the caveats come from: a receipt, a given ticket, or "" (unknown)
	Verified  bool     // the source verified: a receipt of a verified log, or a ticket under the root key
	When      time.Time
	Children  []*node
	// NoParent is set for a block after 0 whose parent the receipts and
	// tickets do not name.
	NoParent bool
	Allowed  int64 // calls decided under this very ticket
	Refused  int64
	Budgets  []bar

	parent     *node
	fromTicket bool
	kinds      []caveat.Kind // kind of each caveat, where parsed
	captured   int64
	released   int64
	usage      []storeUse
}

// bar is one budget: its limit and what the receipts (and the store) say
// is used.
type bar struct {
	Kind     string // calls or total
	Limit    string // as the caveat states it
	LimitN   uint64 // calls; 0 for total
	Captured int64  // calls captured under the block and its descendants
	Released int64
	Reserved int64  // allowed calls neither captured nor released in the log (a guard that captures at once writes neither)
	Store    string // the store's figure ("" without a store)
	// Percentages of the limit, for drawing (calls only).
	CapturedPct, ReservedPct float64
}

type storeUse struct {
	kind caveat.Kind
	u    guard.Usage
	held uint64
}

// node returns the family's node of ticket id tid at block b, made on
// first sight; nil past MaxBlocks. An empty tid is a ticket the record
// does not name (it stays off the tree).
func (f *family) node(tid string, b int) *node {
	if tid == "" {
		return nil
	}
	if n, ok := f.nodes[tid]; ok {
		return n
	}
	if len(f.order) >= MaxBlocks {
		return nil
	}
	n := &node{ID: tid, Block: b}
	f.nodes[tid] = n
	f.order = append(f.order, n)
	return n
}

// setCaveats sets the node's caveats from text, caveats as a receipt's
// note holds them (each caveat's text form, separated by spaces).
func (n *node) setCaveats(text, source string) {
	n.Caveats, n.kinds = nil, nil
	for _, w := range splitCaveats(text) {
		n.Caveats = append(n.Caveats, w)
		var k caveat.Kind
		if name, _, ok := strings.Cut(w, "="); ok {
			k, _ = caveat.ParseKind(name)
		}
		n.kinds = append(n.kinds, k)
	}
	n.Source, n.Verified, n.fromTicket = source, true, false
}

// splitCaveats splits a note into caveat texts: a word starting KEY= opens
// a caveat, other words belong to the one before (a quoted intent).
func splitCaveats(text string) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		key, _, ok := strings.Cut(w, "=")
		if ok && key != "" && strings.Trim(key, "abcdefghijklmnopqrstuvwxyz") == "" || len(out) == 0 {
			out = append(out, w)
			continue
		}
		out[len(out)-1] += " " + w
	}
	if len(out) == 1 && !strings.Contains(out[0], "=") {
		return nil
	}
	return out
}

// addTicket puts a given ticket's blocks on its family's tree.
func (r *Report) addTicket(i int, t *Ticket) {
	blocks := t.Ticket.UnverifiedBlocks()
	f := r.family(blocks[0].TicketID)
	verified := t.Decision != nil && len(t.Decision.BlockIDs) == len(blocks) && t.Problem == ""
	source := fmt.Sprintf("ticket %d, not verified (no root key given)", i+1)
	if t.Problem != "" {
		source = fmt.Sprintf("ticket %d, does not verify: %s", i+1, t.Problem)
	} else if verified {
		source = fmt.Sprintf("ticket %d, verified under the root key", i+1)
	}
	row := ticketRow{Index: i + 1, Family: short(blocks[0].TicketID), Blocks: len(blocks), Source: source, Verified: verified}
	r.Tickets = append(r.Tickets, row)
	if f == nil {
		return
	}
	if t.Decision != nil && t.Decision.Intent != "" && f.Intent == "" {
		f.Intent = t.Decision.Intent
	}
	var prev *node
	for j, b := range blocks {
		id := ""
		switch {
		case verified:
			id = t.Decision.BlockIDs[j].String()
		case j == len(blocks)-1:
			if last, ok := t.Ticket.UnverifiedLastID(); ok {
				id = hex.EncodeToString(last[:])
			}
		}
		if id == "" {
			f.synthetic++
			id = "?" + strconv.Itoa(f.synthetic)
		}
		n := f.node(id, j)
		if n == nil {
			return
		}
		if n.Source == "" || (n.fromTicket && !n.Verified && verified) {
			n.Caveats, n.kinds = nil, nil
			for _, c := range b.Caveats {
				n.Caveats, n.kinds = append(n.Caveats, c.String()), append(n.kinds, c.Kind)
			}
			n.Source, n.Verified, n.fromTicket = source, verified, true
		}
		if prev != nil && (n.parent == nil || verified) {
			n.parent = prev
		}
		prev = n
	}
	for _, a := range t.Ticket.UnverifiedApprovals() {
		for _, m := range a.Approver.Set() { // each approver of a threshold approval signs under its code
			f.codes = append(f.codes, approvalCode{m.KeyID, token.BindingCode(a.Binding)})
		}
	}
	if verified && len(t.Usage) == len(t.Decision.Budgets) && len(t.Held) == len(t.Usage) {
		for k, bu := range t.Decision.Budgets {
			if bu.Block < len(blocks) {
				n := f.nodes[t.Decision.BlockIDs[bu.Block].String()]
				if n != nil {
					n.usage = append(n.usage, storeUse{bu.Kind, t.Usage[k], min(t.Held[k], t.Usage[k].Spent)})
				}
			}
		}
	}
}

type approvalCode struct{ keyID, code string }

// ticketRow is one ticket given beside the log.
type ticketRow struct {
	Index    int
	Family   string
	Blocks   int
	Source   string
	Verified bool
}
