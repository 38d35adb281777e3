package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/tickettool/tickettool/caveat"
)

// link builds the tree: a block's parent is the one a verified ticket
// names, else the only block of the level before it; block 0s are roots,
// and so is a later block whose parent is not known (NoParent).
func (f *family) link() {
	byLevel := map[int][]*node{}
	for _, n := range f.order {
		byLevel[n.Block] = append(byLevel[n.Block], n)
	}
	for _, n := range f.order {
		if n.parent == nil && n.Block > 0 && len(byLevel[n.Block-1]) == 1 {
			n.parent = byLevel[n.Block-1][0]
		}
		if n.parent == nil {
			n.NoParent = n.Block > 0
			f.Roots = append(f.Roots, n)
		} else {
			n.parent.Children = append(n.parent.Children, n)
		}
	}
	byBlock := func(a, b *node) int {
		return cmp.Or(cmp.Compare(a.Block, b.Block), a.When.Compare(b.When), cmp.Compare(a.ID, b.ID))
	}
	slices.SortStableFunc(f.Roots, byBlock)
	for _, n := range f.order {
		slices.SortStableFunc(n.Children, byBlock)
		n.Effective, n.Holder = effective(n)
	}
	for _, r := range f.Roots {
		r.sum()
		if f.Intent == "" && r.Block == 0 {
			f.Intent = intentOf(r)
		}
	}
	for i := range f.Approvals {
		for _, c := range f.codes {
			if c.keyID == f.Approvals[i].KeyID {
				f.Approvals[i].Code = c.code
			}
		}
	}
}

// effective returns what applies to a ticket ending at n: per caveat kind,
// the last block's caveat (a verified chain only narrows), and every
// budget (each is counted on its own); and the holder caveat in force.
func effective(n *node) ([]string, string) {
	var chain []*node
	for p := n; p != nil; p = p.parent {
		chain = append(chain, p)
	}
	last := map[caveat.Kind]string{}
	var budgets []string
	for i := len(chain) - 1; i >= 0; i-- {
		for j, c := range chain[i].Caveats {
			k := chain[i].kind(j)
			if k == caveat.Calls || k == caveat.Total {
				budgets = append(budgets, c+" (block "+strconv.Itoa(chain[i].Block)+")")
				continue
			}
			last[k] = c
		}
	}
	var out []string
	for k := caveat.Kind(0); k < 64; k++ {
		if c, ok := last[k]; ok {
			out = append(out, c)
		}
	}
	holder := last[caveat.Holder]
	return append(out, budgets...), holder
}

func (n *node) kind(j int) caveat.Kind {
	if j < len(n.kinds) {
		return n.kinds[j]
	}
	return 0
}

// sum returns the calls allowed, captured and released under n and its
// descendants, and sets n's budget bars from them.
func (n *node) sum() (allowed, captured, released int64) {
	allowed, captured, released = n.Allowed, n.captured, n.released
	for _, c := range n.Children {
		a, cp, rl := c.sum()
		allowed, captured, released = allowed+a, captured+cp, released+rl
	}
	reserved := max(0, allowed-captured-released)
	for j, c := range n.Caveats {
		k := n.kind(j)
		if k != caveat.Calls && k != caveat.Total {
			continue
		}
		b := bar{Kind: k.String(), Limit: c, Captured: captured, Released: released, Reserved: reserved}
		if k == caveat.Calls {
			if cv, err := caveat.Parse(c, n.When); err == nil {
				b.LimitN = cv.N
			}
			if b.LimitN > 0 {
				b.CapturedPct = min(100, 100*float64(captured)/float64(b.LimitN))
				b.ReservedPct = min(100-b.CapturedPct, 100*float64(reserved)/float64(b.LimitN))
			}
		}
		for _, u := range n.usage {
			if u.kind == k {
				b.Store = storeText(u)
			}
		}
		n.Budgets = append(n.Budgets, b)
	}
	return allowed, captured, released
}

// storeText is a store's figure for a budget: limit, spent (captured and
// reserved) and remaining.
func storeText(s storeUse) string {
	f := func(v uint64) string {
		if s.u.Kind == caveat.Total {
			return caveat.Amount{Micros: v, Currency: s.u.Currency}.String()
		}
		return strconv.FormatUint(v, 10)
	}
	return "limit " + f(s.u.Limit) + ", spent " + f(s.u.Spent) + " (captured " + f(s.u.Spent-s.held) +
		", reserved " + f(s.held) + "), remaining " + f(s.u.Remaining)
}

// intentOf is the text of n's intent caveat, "" without one.
func intentOf(n *node) string {
	for j, c := range n.Caveats {
		if n.kind(j) == caveat.Intent {
			v := strings.TrimPrefix(c, "intent=")
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return v
		}
	}
	return ""
}
