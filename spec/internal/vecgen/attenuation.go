package vecgen

// attenuation adds tickets with a block that does not narrow (FORMAT.md §7
// step 3; CAVEATS.md, "Narrowing"), one per rule, with the refusal each
// names, and honest narrowings next to them.
func (g *gen) attenuation() {
	one := func(name, desc string, refs []Refusal, bs ...[]string) {
		g.addChain("attenuation/"+name, desc, nil, bs, req().want(refs...))
	}
	ok := func(name, desc string, r Request, bs ...[]string) {
		g.addChain("attenuation/"+name, desc, nil, bs, r.want())
	}
	widen := func(block int, kind string) []Refusal { return []Refusal{refWiden(block, kind)} }
	one("ops-without-delegate", "block 0's ops lack delegate: block 1 is refused, naming ops",
		widen(1, "ops"), list("ops=invoke"), list("tools=read_file"))
	one("ops-delegate-dropped", "block 1 narrows ops to invoke (honest), so block 2 may not follow",
		widen(2, "ops"), list("ops=delegate,invoke"), list("ops=invoke"), list())
	one("ops-delegate-kept", "ops narrowed with delegate kept: blocks may follow",
		nil, list("ops=delegate,invoke"), list("ops=delegate,invoke"), list("tools=read_file"))
	one("ops-widened", "block 1 adds an op its block 0 did not list",
		widen(1, "ops"), list("ops=delegate,invoke"), list("ops=delegate,read"))
	one("ops-and-depth", "ops=invoke and depth=0 in block 0 both forbid block 1: the refusal names ops, checked first",
		widen(1, "ops"), list("ops=invoke", "depth=0"), list())
	one("depth-0", "depth=0: no block may follow block 0",
		widen(1, "depth"), list("depth=0"), list())
	one("depth-past-limit", "depth=1 in block 0: block 2 lies past the limit, naming depth",
		widen(2, "depth"), list("depth=1"), list(), list())
	one("depth-moved-later", "depth=2 in block 0, then depth=2 in block 1 (limit 3 > 2): the later depth widens",
		widen(1, "depth"), list("depth=2"), list("depth=2"))
	one("depth-narrowed", "depth=2 in block 0, then depth=1 in block 1 (limit 2): allowed",
		nil, list("depth=2"), list("depth=1"), list())
	one("depth-saturates", "depth=2^64-1 in blocks 0 and 1: 1 + (2^64-1) saturates at 2^64-1, not more than the limit",
		nil, list("depth=18446744073709551615"), list("depth=18446744073709551615"))
	one("intent-in-block-1", "an intent may only be stated in block 0",
		widen(1, "intent"), list("tools=read_file"), list(`intent="upgrade pricing deps"`))
	one("intent-twice", "block 0's intent restated in block 1 is still refused",
		widen(1, "intent"), list(`intent="x"`), list(`intent="x"`))
	ok("tools-qualified", "tools=read_file then tools=workspace/read_file narrows",
		req().tool("workspace/read_file"), list("tools=read_file"), list("tools=workspace/read_file"))
	one("tools-unqualified", "tools=workspace/read_file then tools=read_file widens",
		widen(1, "tools"), list("tools=workspace/read_file"), list("tools=read_file"))
	ok("hosts-wildcard-under", "*.example.org then *.a.example.org and a.example.org narrow",
		req().urls("https://a.example.org/", "https://b.a.example.org/"), list("hosts=*.example.org"), list("hosts=*.a.example.org,a.example.org"))
	one("hosts-apex", "*.example.org then example.org widens: a wildcard never matches its own name",
		widen(1, "hosts"), list("hosts=*.example.org"), list("hosts=example.org"))
	one("paths-sibling", "src/discount/ then src/discount-other/ widens",
		widen(1, "paths"), list("paths=src/discount/"), list("paths=src/discount-other/"))
	one("aud-widened", "aud=a then aud=a,b widens",
		widen(1, "aud"), list("aud=a"), list("aud=a,b"))
	one("calls-widened", "calls=3 then calls=4 widens",
		widen(1, "calls"), list("calls=3"), list("calls=4"))
	one("cost-currency", "cost=1USD then cost=1EUR: a change of currency widens",
		widen(1, "cost"), list("cost=1USD"), list("cost=1EUR"))
	one("total-widened", "total=5USD then total=6USD widens",
		widen(1, "total"), list("total=5USD"), list("total=6USD"))
	one("until-later", "until moved later widens",
		widen(1, "until"), list("until=2026-11-30T13:00:00Z"), list("until=2026-11-30T13:00:01Z"))
	one("nbf-earlier", "nbf moved earlier widens",
		widen(1, "nbf"), list("nbf=2026-11-30T11:00:00Z"), list("nbf=2026-11-30T10:59:59Z"))
	one("first-failure-only", "block 1 widens ops and tools: one refusal, the lowest kind; block 2 is not looked at",
		widen(1, "tools"), list("tools=read_file", "ops=delegate,invoke"), list("tools=read_file,x", "ops=delegate,invoke,x"), list("tools=x"))
}
