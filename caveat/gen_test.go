package caveat_test

import (
	"crypto/sha256"
	"slices"
	"strings"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"pgregory.net/rapid"
)

// Small alphabets, so that random caveats and random requests meet often.
var (
	servers    = []string{"", "", "ws", "fs"}
	toolNames  = []string{"a", "b", "read_file", "ws"}
	opNames    = []string{"invoke", "delegate", "read", "write"}
	audNames   = []string{"w1", "w2", "w3"}
	segNames   = []string{"a", "b", "ab"}
	labelNames = []string{"a", "b", "x1"}
	currencies = []string{"USD", "EUR"}
	knownKinds = []caveat.Kind{
		caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Calls, caveat.Until,
		caveat.NotBefore, caveat.Audience, caveat.Cost, caveat.Total, caveat.Depth,
		caveat.Intent, caveat.Holder, caveat.Approval, caveat.Args,
	}
	keyIDs    = []string{"k", "root-1", "a:b", "lead:" + strings.Repeat("x", 59)}
	locations = []string{"", "", "https://approve.example/x?a=b:c", "ask the pricing lead", "é:"}
	// digests are the args digests of a few argument texts, so that random
	// args caveats and requests meet.
	digests = [][]byte{argsDigest(`{"a":1}`), argsDigest(`{"b":"x"}`), argsDigest(`[]`)}
	base    = now.Unix()
)

func draw[V any](t *rapid.T, g *rapid.Generator[V]) V { return g.Draw(t, "") }

func pick(t *rapid.T, from []string) string { return draw(t, rapid.SampledFrom(from)) }

func genTool(t *rapid.T) string {
	if s := pick(t, servers); s != "" {
		return s + "/" + pick(t, toolNames)
	}
	return pick(t, toolNames)
}

func genSegs(t *rapid.T, min int) string {
	n := draw(t, rapid.IntRange(min, 3))
	s := make([]string, n)
	for i := range s {
		s[i] = pick(t, segNames)
	}
	return strings.Join(s, "/")
}

func genPrefix(t *rapid.T) string {
	if draw(t, rapid.Bool()) {
		if s := genSegs(t, 0); s != "" {
			return "/" + s + "/"
		}
		return "/"
	}
	return genSegs(t, 1) + "/"
}

func genDomain(t *rapid.T, min int) string {
	n := draw(t, rapid.IntRange(min, 3))
	s := make([]string, n)
	for i := range s {
		s[i] = pick(t, labelNames)
	}
	return strings.Join(s, ".")
}

func genPattern(t *rapid.T) string {
	if draw(t, rapid.Bool()) {
		return "*." + genDomain(t, 2)
	}
	return genDomain(t, 1)
}

func genEntry(t *rapid.T, k caveat.Kind) string {
	switch k {
	case caveat.Tools:
		return genTool(t)
	case caveat.Ops:
		return pick(t, opNames)
	case caveat.Paths:
		return genPrefix(t)
	case caveat.Hosts:
		return genPattern(t)
	}
	return pick(t, audNames)
}

func genTime(t *rapid.T) int64 { return base + draw(t, rapid.Int64Range(-5, 5)) }

func genAmount(t *rapid.T) caveat.Amount {
	return caveat.Amount{Micros: 250000 * draw(t, rapid.Uint64Range(0, 6)), Currency: pick(t, currencies)}
}

// genCaveat returns a random valid caveat of kind k.
func genCaveat(t *rapid.T, k caveat.Kind) caveat.Caveat {
	c := caveat.Caveat{Kind: k}
	var err error
	switch k {
	case caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Audience:
		n := draw(t, rapid.IntRange(1, 4))
		e := make([]string, n)
		for i := range e {
			e[i] = genEntry(t, k)
		}
		c, err = newList(k, e)
	case caveat.Calls:
		c.N = draw(t, rapid.Uint64Range(1, 6))
	case caveat.Depth:
		c.N = draw(t, rapid.Uint64Range(0, 4))
		if draw(t, rapid.IntRange(0, 9)) == 0 {
			c.N = ^uint64(0) - draw(t, rapid.Uint64Range(0, 3))
		}
	case caveat.Until, caveat.NotBefore:
		c.Time = genTime(t)
	case caveat.Cost, caveat.Total:
		c.Amount = genAmount(t)
	case caveat.Intent:
		c.Text = draw(t, rapid.StringOfN(rapid.RuneFrom([]rune(`ab "\é€'`)), 1, 12, -1))
	case caveat.Holder:
		c.Bytes = draw(t, rapid.SliceOfN(rapid.Byte(), 32, 32))
	case caveat.Approval:
		a := genApprover(t)
		c.Approver = &a
	case caveat.Args:
		c.Bytes = genDigest(t)
	}
	if err != nil {
		t.Fatalf("generated an invalid caveat: %v", err)
	}
	return c
}

// genApprover returns a valid approver; its key is a SHA-256 output, so
// never of small order.
func genApprover(t *rapid.T) caveat.Approver {
	a := caveat.Approver{KeyID: pick(t, keyIDs), Location: pick(t, locations)}
	a.Key = sha256.Sum256([]byte{draw(t, rapid.Byte())})
	copy(a.Nonce[:], draw(t, rapid.SliceOfN(rapid.Byte(), 16, 16)))
	return a
}

func genDigest(t *rapid.T) []byte {
	if draw(t, rapid.IntRange(0, 3)) == 0 {
		return draw(t, rapid.SliceOfN(rapid.Byte(), 32, 32))
	}
	return slices.Clone(digests[draw(t, rapid.IntRange(0, len(digests)-1))])
}

func argsDigest(json string) []byte {
	d, err := caveat.ArgsDigest([]byte(json))
	if err != nil {
		panic(err)
	}
	return d
}

func newList(k caveat.Kind, e []string) (caveat.Caveat, error) {
	switch k {
	case caveat.Tools:
		return caveat.NewTools(e...)
	case caveat.Ops:
		return caveat.NewOps(e...)
	case caveat.Paths:
		return caveat.NewPaths(e...)
	case caveat.Hosts:
		return caveat.NewHosts(e...)
	}
	return caveat.NewAudience(e...)
}

// derive returns a caveat of p's kind built from p's own entries and
// limits, made narrower, equal or (sometimes) wider, so that honest
// attenuations are frequent.
func derive(t *rapid.T, p caveat.Caveat) caveat.Caveat {
	if !p.Kind.Known() || !isList(p.Kind) {
		c := genCaveat(t, p.Kind)
		switch p.Kind {
		case caveat.Calls, caveat.Depth:
			if p.N > 0 && p.N < 10 {
				c.N = p.N - draw(t, rapid.Uint64Range(0, 1))
				if c.N == 0 && p.Kind == caveat.Calls {
					c.N = 1
				}
			}
		case caveat.Cost, caveat.Total:
			c.Amount.Currency = p.Amount.Currency
		}
		return c
	}
	var e []string
	for _, x := range p.List {
		if draw(t, rapid.Bool()) {
			continue
		}
		switch {
		case p.Kind == caveat.Tools && !strings.Contains(x, "/") && draw(t, rapid.Bool()):
			x = "ws/" + x
		case p.Kind == caveat.Paths && draw(t, rapid.Bool()):
			x += pick(t, segNames) + "/"
		case p.Kind == caveat.Hosts && draw(t, rapid.Bool()):
			x = pick(t, []string{"a.", "*."}) + strings.TrimPrefix(x, "*.")
		}
		e = append(e, x)
	}
	if len(e) == 0 || draw(t, rapid.IntRange(0, 4)) == 0 {
		e = append(e, genEntry(t, p.Kind))
	}
	c, err := newList(p.Kind, e)
	if err != nil {
		return genCaveat(t, p.Kind)
	}
	return c
}

func isList(k caveat.Kind) bool {
	return k == caveat.Tools || k == caveat.Ops || k == caveat.Paths || k == caveat.Hosts || k == caveat.Audience
}

// genRequest returns a request whose subjects come from the same small
// alphabets as the caveats, or from hint's entries, plus some malformed
// ones.
func genRequest(t *rapid.T, hint caveat.Caveat) *caveat.Request {
	fromHint := func(k caveat.Kind) (string, bool) {
		if hint.Kind == k && draw(t, rapid.Bool()) {
			return pick(t, hint.List), true
		}
		return "", false
	}
	r := &caveat.Request{}
	if x, ok := fromHint(caveat.Tools); ok {
		r.Tool = x
	} else {
		r.Tool = pick(t, []string{genTool(t), genTool(t), "", "a/b/c"})
	}
	if x, ok := fromHint(caveat.Ops); ok {
		r.Op = x
	} else {
		r.Op = pick(t, append([]string{""}, opNames...))
	}
	if x, ok := fromHint(caveat.Audience); ok {
		r.Audience = x
	} else {
		r.Audience = pick(t, append([]string{""}, audNames...))
	}
	for i := draw(t, rapid.IntRange(0, 2)); i > 0; i-- {
		p := pick(t, []string{"", "/"})
		if x, ok := fromHint(caveat.Paths); ok {
			p = x
		}
		n := draw(t, rapid.IntRange(0, 2))
		for j := 0; j < n; j++ {
			if j > 0 {
				p += "/"
			}
			p += pick(t, []string{"a", "b", "ab", "a", "b", ".", "..", "", "a\\b"})
		}
		switch draw(t, rapid.IntRange(0, 2)) {
		case 0:
			p += "/"
		case 1:
			if len(p) > 1 {
				p = strings.TrimSuffix(p, "/")
			}
		}
		r.Paths = append(r.Paths, p)
	}
	for i := draw(t, rapid.IntRange(0, 2)); i > 0; i-- {
		h := genDomain(t, 1)
		if x, ok := fromHint(caveat.Hosts); ok {
			h = strings.Replace(x, "*", pick(t, labelNames), 1)
		}
		h = pick(t, []string{"", "", "b.", "A."}) + h + pick(t, []string{"", ".", ":8080", "..", "@evil.a"})
		r.URLs = append(r.URLs, pick(t, []string{"https://", "http://u@", "//"})+h+"/p")
	}
	if draw(t, rapid.IntRange(0, 3)) > 0 {
		a := genAmount(t)
		r.Cost = &a
	}
	switch {
	case hint.Kind == caveat.Args && draw(t, rapid.Bool()):
		r.Args = slices.Clone(hint.Bytes)
	case draw(t, rapid.IntRange(0, 3)) > 0:
		r.Args = genDigest(t)
	}
	return r
}

func genNow(t *rapid.T) (time.Time, time.Duration) {
	at := time.Unix(genTime(t), draw(t, rapid.Int64Range(0, 999))*int64(time.Millisecond))
	return at, time.Duration(draw(t, rapid.IntRange(0, 2))) * time.Second
}
