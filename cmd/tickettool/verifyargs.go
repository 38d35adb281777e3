package main

import (
	"errors"

	"github.com/tickettool/tickettool/caveat"
)

// verifyArgs are verify's flags.
type verifyArgs struct {
	keyPath, now, tool, op, cost, proof, htm, htu, receipts, receiptKey, location, args, operation *string
	paths, urls, discharges                                                                        stringList
	ticket                                                                                         string // the TICKET argument, as given
	ids, asJSON                                                                                    *bool
	pol                                                                                            *policy
}

func verifyFlags(fs *cmdFlags) *verifyArgs {
	a := &verifyArgs{}
	a.keyPath = fs.String("key", "", "`PATH` of the root key: HMAC secret or Ed25519 public (or private) key")
	a.now = fs.String("now", "", "check at `TIME` (RFC 3339 or unix seconds) instead of now")
	a.tool = fs.String("tool", "", "the call's tool `NAME` (e.g. read_file or workspace/read_file)")
	a.op = fs.String("op", "", "the call's operation `OP` (default invoke when --tool is given)")
	fs.Var(&a.paths, "path", "a path `P` the call touches (repeatable)")
	fs.Var(&a.urls, "url", "a `URL` the call fetches (repeatable)")
	a.cost = fs.String("cost", "", "the call's cost `AMOUNT`, e.g. 0.25USD")
	a.proof = fs.String("dpop", "", "DPoP `PROOF` by the ticket's holder key (- for standard input, @PATH for a file)")
	a.htm = fs.String("htm", "", "`METHOD` the DPoP proof must name")
	a.htu = fs.String("htu", "", "`URI` the DPoP proof must name")
	fs.Var(&a.discharges, "discharge", "a discharge `D` for an approval caveat (text, - or @PATH; repeatable)")
	a.args = fs.String("args", "", "the call's arguments, `JSON` or @FILE or -: their digest is checked against args caveats")
	a.operation = fs.String("operation", "", "the call's operation `KEY`: a repeat of an allowed call under it gets the first outcome, charging nothing")
	a.receipts = fs.String("receipts", "", "append a receipt of the decision to `LOG`")
	a.receiptKey = fs.String("receipt-key", "", "`PATH` of the key that signs receipts")
	a.ids = fs.Bool("ids", false, "print every block id after the verdict")
	a.asJSON = fs.Bool("json", false, "print one JSON object (fields above)")
	a.pol = policyFlags(fs)
	a.location = storeFlag(fs)
	return a
}

// isRequest reports whether the flags describe a call (else verify only
// checks the ticket).
func (a *verifyArgs) isRequest() bool {
	return *a.tool != "" || *a.op != "" || len(a.paths) > 0 || len(a.urls) > 0 || *a.cost != "" || a.pol.aud != "" || *a.proof != "" ||
		len(a.discharges) > 0 || *a.args != "" || *a.operation != ""
}

// check refuses flags that do not go together; arg is the TICKET argument.
func (a *verifyArgs) check(arg string) error {
	switch {
	case *a.proof != "" && (*a.htm == "" || *a.htu == "") || *a.proof == "" && (*a.htm != "" || *a.htu != ""):
		return usageErr("--dpop, --htm and --htu go together: the proof and the request it was made for")
	case arg == "-" && *a.proof == "-":
		return usageErr("only one argument can be read from standard input: the ticket or the --dpop proof")
	case (*a.receipts == "") != (*a.receiptKey == ""):
		return usageErr("--receipts LOG and --receipt-key PATH go together")
	case *a.receipts != "" && !a.isRequest():
		return fail(exitUsage, errors.New("--receipts records decisions on calls: give the call (--tool, --path, ...)"),
			"without request flags verify only checks the ticket (prints valid) and records nothing")
	}
	return nil
}

// approveCmd is how a hint names the ticket, the tool and the arguments
// in the approve command it suggests.
func (a *verifyArgs) approveCmd() *approveCmd {
	return &approveCmd{ticket: a.ticket, tool: *a.tool, args: *a.args}
}

// request is the call the flags describe.
func (a *verifyArgs) request(e *env) (*caveat.Request, error) {
	req := &caveat.Request{Tool: *a.tool, Op: *a.op, Paths: a.paths, URLs: a.urls, Audience: a.pol.aud}
	if req.Op == "" && req.Tool != "" {
		req.Op = "invoke"
	}
	if *a.cost != "" {
		c, err := caveat.ParseAmount(*a.cost)
		if err != nil {
			return nil, err
		}
		req.Cost = &c
	}
	if *a.proof != "" {
		p, err := e.textArg(*a.proof, "the DPoP proof")
		if err != nil {
			return nil, err
		}
		req.Holder = &caveat.HolderProof{Proof: p, Method: *a.htm, URI: *a.htu}
	}
	if *a.args != "" {
		text, err := e.textArg(*a.args, "the arguments")
		if err != nil {
			return nil, err
		}
		if req.Args, err = caveat.ArgsDigest([]byte(text)); err != nil {
			return nil, fail(exitUsage, err, "--args takes the call's arguments as one JSON value")
		}
	}
	var err error
	if req.Discharges, _, err = e.dischargeArgs(a.discharges); err != nil {
		return nil, err
	}
	return req, nil
}
