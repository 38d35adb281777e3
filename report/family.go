package report

import (
	"cmp"
	"encoding/hex"
	"net/url"
	"slices"
	"time"

	"github.com/tickettool/tickettool/chain"
)

// family is what the verified records of one ticket family show.
type family struct {
	ID      string // hex family id (block 0's ticket id)
	Intent  string
	Counts  counts
	Roots   []*node // the delegation tree: block 0 (and blocks whose parent is unknown)
	Refused []*refusalGroup
	// RefusedOther counts refusals past MaxRefusalGroups groups.
	RefusedOther int64
	Approvals    []approval
	ApprovalsN   int64
	Tools        []top
	Paths        []top
	Hosts        []top
	Timeline     chart

	nodes     map[string]*node
	order     []*node
	groups    map[refusalKey]*refusalGroup
	tools     tally
	paths     tally
	hosts     tally
	times     []event
	first     time.Time
	last      time.Time
	synthetic int
	codes     []approvalCode
}

// top is a value and how often it was used.
type top struct {
	Value string
	Count int64
}

// refusalGroup counts the refusals of one block, check and caveat, with
// the first as an example.
type refusalGroup struct {
	Block   int
	Check   string
	Caveat  string
	Count   int64
	Example listing
}

type refusalKey struct {
	block         int
	check, caveat string
}

// approval is one discharge that allowed a call.
type approval struct {
	KeyID string
	DID   string // hex discharge id
	Code  string // the approval's code, when a given ticket names it
	Call  listing
}

type event struct {
	ms   int64
	kind chain.Kind
}

func newFamily(id []byte) *family {
	return &family{ID: hex.EncodeToString(id), nodes: map[string]*node{}, groups: map[refusalKey]*refusalGroup{},
		tools: tally{}, paths: tally{}, hosts: tally{}}
}

func (f *family) add(rec *chain.Record) {
	f.Counts.add(rec.Kind)
	if f.first.IsZero() {
		f.first = rec.Time
	}
	f.last = rec.Time
	tid := hex.EncodeToString(rec.TicketID)
	switch rec.Kind {
	case chain.KindMinted, chain.KindDelegated:
		n := f.node(tid, rec.Block)
		if n != nil && (n.Source == "" || n.fromTicket) {
			n.setCaveats(rec.Note, "receipt #"+itoa(int64(rec.Seq)))
			n.When = rec.Time
		}
	case chain.KindAllowed:
		f.times = append(f.times, event{rec.Time.UnixMilli(), rec.Kind})
		f.use(rec)
		if n := f.node(tid, rec.Block); n != nil {
			n.Allowed++
		}
		f.approvals(rec)
	case chain.KindRefused:
		f.times = append(f.times, event{rec.Time.UnixMilli(), rec.Kind})
		f.use(rec)
		f.refusal(rec)
		if n := f.node(tid, rec.Block); n != nil {
			n.Refused++
		}
	case chain.KindCaptured, chain.KindReleased:
		f.times = append(f.times, event{rec.Time.UnixMilli(), rec.Kind})
		if n := f.node(tid, rec.Block); n != nil {
			if rec.Kind == chain.KindCaptured {
				n.captured++
			} else {
				n.released++
			}
		}
	case chain.KindIntent:
		if f.Intent == "" {
			f.Intent = rec.Note
		}
	}
}

func (f *family) use(rec *chain.Record) {
	if rec.Tool != "" {
		f.tools.add(rec.Tool)
	}
	for _, s := range rec.Subjects {
		if u, err := url.Parse(s); err == nil && u.Host != "" && u.Scheme != "" {
			f.hosts.add(u.Hostname())
		} else {
			f.paths.add(s)
		}
	}
}

func (f *family) refusal(rec *chain.Record) {
	k := refusalKey{rec.Block, rec.Check, rec.Caveat}
	g, ok := f.groups[k]
	if !ok {
		if len(f.groups) >= MaxRefusalGroups {
			f.RefusedOther++
			return
		}
		g = &refusalGroup{Block: rec.Block, Check: rec.Check, Caveat: rec.Caveat, Example: listed(rec)}
		f.groups[k] = g
	}
	g.Count++
}

func (f *family) approvals(rec *chain.Record) {
	for _, a := range rec.Approvals {
		if f.ApprovalsN++; len(f.Approvals) < MaxListedApprovals {
			f.Approvals = append(f.Approvals, approval{KeyID: a.KeyID, DID: hex.EncodeToString(a.ID[:]), Call: listed(rec)})
		}
	}
}

// finish builds the tree, the budgets, the tops and the timeline.
func (f *family) finish() {
	f.link()
	for _, g := range f.groups {
		f.Refused = append(f.Refused, g)
	}
	slices.SortFunc(f.Refused, func(a, b *refusalGroup) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Block, b.Block),
			cmp.Compare(a.Check, b.Check), cmp.Compare(a.Caveat, b.Caveat))
	})
	f.Tools, f.Paths, f.Hosts = f.tools.top(), f.paths.top(), f.hosts.top()
	f.Timeline = timeline(f.times, f.first, f.last)
	f.times = nil
}

// tally counts values, at most MaxDistinct of them; the rest go to "".
type tally map[string]int64

func (t tally) add(v string) {
	if _, ok := t[v]; ok || len(t) < MaxDistinct {
		t[v]++
		return
	}
	t[""]++
}

// top returns the TopN most used values, most used first; values past
// MaxDistinct are one entry with an empty value (shown as others).
func (t tally) top() []top {
	out := make([]top, 0, len(t))
	for v, n := range t {
		out = append(out, top{v, n})
	}
	slices.SortFunc(out, func(a, b top) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value)) })
	return out[:min(len(out), TopN)]
}
