package vecgen

// Times of the kinds vectors, around t12 (2026-11-30T12:00:00Z).
const (
	t115959    = "2026-11-30T11:59:59Z"
	t115959x   = "2026-11-30T11:59:59.999Z"
	t12half    = "2026-11-30T12:00:00.5Z"
	t122959x   = "2026-11-30T12:29:59.999Z"
	maxInstant = "9999-12-31T23:59:59Z"
)

func refCaveat(block int, kind string) Refusal { return ref("caveat", block, kind) }

func refWiden(block int, kind string) Refusal { return ref("attenuation", block, kind) }

// kinds adds, for every caveat kind, a ticket with requests it allows and
// requests it refuses (CAVEATS.md, "Checks"); this one the kinds checked
// against the call's tool, operation, paths and URLs.
func (g *gen) kinds() {
	g.addChain("caveat/tools", "tools: a bare name admits it under any server; a server-qualified one only itself; an invalid or missing tool refuses",
		nil, blocks(list("tools=read_file,workspace/write_file")),
		req().want(),
		req().tool("workspace/read_file").want(),
		req().tool("workspace/write_file").want(),
		req().tool("write_file").want(refCaveat(0, "tools")),
		req().tool("other/write_file").want(refCaveat(0, "tools")),
		req().tool("read file").want(refCaveat(0, "tools")),
		req().tool("a/b/read_file").want(refCaveat(0, "tools")),
		req().tool("").want(refCaveat(0, "tools")))
	g.addChain("caveat/ops", "ops: the request's operation must be listed; an empty one refuses",
		nil, blocks(list("ops=invoke,read")),
		req().want(),
		req().op("read").want(),
		req().op("write").want(refCaveat(0, "ops")),
		req().op("Invoke").want(refCaveat(0, "ops")),
		req().op("").want(refCaveat(0, "ops")))
	g.addChain("caveat/paths", "paths: prefixes admit paths on a segment boundary, relative and absolute apart; paths that are not normal refuse, never cleaned",
		nil, blocks(list("paths=/srv/app/,src/")),
		req().paths("src/a b/c,d.go").want(),
		req().paths("src").want(),
		req().paths("src/").want(),
		req().paths("/srv/app").want(),
		req().paths("/srv/app/x/y", "src/z").want(),
		req().paths("src/z", "/src/z").want(refCaveat(0, "paths")),
		req().paths("srv/app/x").want(refCaveat(0, "paths")),
		req().paths("srcx/y").want(refCaveat(0, "paths")),
		req().paths("SRC/y").want(refCaveat(0, "paths")),
		req().paths("src//y").want(refCaveat(0, "paths")),
		req().paths("src/./y").want(refCaveat(0, "paths")),
		req().paths("./src/y").want(refCaveat(0, "paths")),
		req().paths("src/y/..").want(refCaveat(0, "paths")),
		req().paths(`src\y`).want(refCaveat(0, "paths")),
		req().paths("src/\u00a0y").want(refCaveat(0, "paths")),
		req().paths("").want(refCaveat(0, "paths")),
		req().want(refCaveat(0, "paths")))
	g.addChain("caveat/paths-root", "paths=/ admits every absolute path and no relative one",
		nil, blocks(list("paths=/")),
		req().paths("/").want(),
		req().paths("/etc/passwd").want(),
		req().paths("etc/passwd").want(refCaveat(0, "paths")))
	g.addChain("caveat/hosts", "hosts: wildcards match below the name, never the name; the URL's host is lowercased, loses a trailing dot, userinfo and port; IPv6 matches nothing; "+
		"URLs outside the URI grammar of FORMAT.md §4.5 (an @ in userinfo, a bad percent-encoding in query or fragment, a percent-encoded host) are refused",
		nil, blocks(list("hosts=*.example.org,1.2.3.4,api.example.com")),
		req().urls("https://a.example.org/x").want(),
		req().urls("https://b.a.example.org/").want(),
		req().urls("https://a_b.example.org/").want(),
		req().urls("HTTPS://API.Example.COM:8443/p?q#f").want(),
		req().urls("https://api.example.com./").want(),
		req().urls("https://user@api.example.com/").want(),
		req().urls("https://api.example.com:65535/").want(),
		req().urls("https://api.example.com:65536/").want(refCaveat(0, "hosts")),
		req().urls("https://api.example.com:/").want(),
		req().urls("http://1.2.3.4:8080/").want(),
		req().urls("ftp://a.example.org").want(),
		req().urls("https://example.org/").want(refCaveat(0, "hosts")),
		req().urls("https://a.example.org/", "https://b.example.com/").want(refCaveat(0, "hosts")),
		req().urls("https://api.example.com@evil.example.net/").want(refCaveat(0, "hosts")),
		req().urls("https://[::1]/").want(refCaveat(0, "hosts")),
		req().urls("api.example.com").want(refCaveat(0, "hosts")),
		req().urls("https://a..example.org/").want(refCaveat(0, "hosts")),
		req().urls("https://bücher.example.org/").want(refCaveat(0, "hosts")),
		req().urls("https://u:p%41!@api.example.com/").want(),
		req().urls("https://a@b@api.example.com/").want(refCaveat(0, "hosts")),
		req().urls("https://api.example.com/?%zz").want(refCaveat(0, "hosts")),
		req().urls("https://api.example.com/#%zz").want(refCaveat(0, "hosts")),
		req().urls("https://api.example.com/a b?c d#e f").want(),
		req().urls("https://api%2Eexample.com/").want(refCaveat(0, "hosts")),
		req().urls("https://api.example.com\\.evil.org/").want(refCaveat(0, "hosts")),
		req().want(refCaveat(0, "hosts")))
	g.kindsOfCall()
}

// kindsOfCall: the kinds checked against the caller's name, the time and
// the cost, and those that always hold.
func (g *gen) kindsOfCall() {
	g.addChain("caveat/aud", "aud: the verifier's own name must be listed, compared exactly; a verifier that names none refuses",
		nil, blocks(list("aud=workspace,workspace:eu/1")),
		req().aud("workspace").want(),
		req().aud("workspace:eu/1").want(),
		req().aud("Workspace").want(refCaveat(0, "aud")),
		req().aud("other").want(refCaveat(0, "aud")),
		req().want(refCaveat(0, "aud")))
	g.addChain("caveat/until-nbf", "until and nbf compare the request time in whole seconds, rounded down: nbf edge included, until edge excluded",
		nil, blocks(list("nbf=2026-11-30T12:00:00Z", "until=2026-11-30T12:30:00Z")),
		req().want(),
		req().at(t12half).want(),
		req().at(t122959).want(),
		req().at(t122959x).want(),
		req().at(t1230).want(refCaveat(0, "until")),
		req().at(t115959).want(refCaveat(0, "nbf")),
		req().at(t115959x).want(refCaveat(0, "nbf")))
	g.addChain("caveat/cost", "cost: the request states a cost in the same currency, at most the limit",
		nil, blocks(list("cost=0.5USD")),
		req().cost("0.5USD").want(),
		req().cost("0USD").want(),
		req().cost("0.499999USD").want(),
		req().cost("0.500001USD").want(refCaveat(0, "cost")),
		req().cost("0.5EUR").want(refCaveat(0, "cost")),
		req().want(refCaveat(0, "cost")))
	g.addChain("caveat/total-calls", "total and calls hold at decision time (the caller's ledger counts them) and are budgets the decision carries, keyed by their block's id; total still needs a cost in its currency",
		nil, blocks(list("calls=3", "total=5USD"), list("calls=1", "total=2USD")),
		req().cost("1USD").want(),
		req().cost("3USD").want(),
		req().cost("1EUR").want(refCaveat(0, "total"), refCaveat(1, "total")),
		req().want(refCaveat(0, "total"), refCaveat(1, "total")))
	g.addChain("caveat/intent", "intent always holds; it is a fact the decision carries",
		nil, blocks(list(`intent="upgrade pricing deps"`), list("tools=read_file")),
		req().want())
	g.addChain("caveat/depth", "depth=1 in block 0 allows block 1; depth always holds for a request",
		nil, blocks(list("depth=1"), list("tools=read_file")),
		req().want())
}
