package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/tickettool/tickettool/dpop"
)

const proofUsage = `
usage: tickettool proof make  --key HOLDER --htm METHOD --htu URI [--ticket TICKET] [--nonce N] [--iat TIME] [--alg ALG]
       tickettool proof check --htm METHOD --htu URI [--now TIME] [--ticket TEXT] [--jkt JKT] [--nonce N] [--json] PROOF

DPoP proofs (RFC 9449) show that a call comes from the holder a ticket is
bound to. Run 'tickettool proof make -h' or 'tickettool proof check -h'.

Example:
  tickettool proof make --key agent.jwk --htm POST --htu mcp://workspace/read_file --ticket "$TICKET"
`

func runProof(e *env, args []string) error {
	if len(args) == 0 {
		return fail(exitUsage, errors.New("proof needs a subcommand: make or check"), "run 'tickettool proof -h' for usage")
	}
	switch args[0] {
	case "make":
		return runProofMake(e, args[1:])
	case "check":
		return runProofCheck(e, args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, proofUsage[1:])
		return nil
	}
	return fail(exitUsage, fmt.Errorf("unknown proof subcommand %q", args[0]), "use proof make or proof check")
}

const proofMakeUsage = `
usage: tickettool proof make --key HOLDER --htm METHOD --htu URI [--ticket TICKET] [--nonce N] [--iat TIME]
                             [--alg ALG]

Prints a DPoP proof (a dpop+jwt JWS) signed with the private holder JWK in
HOLDER, for a call with method METHOD to URI (query and fragment are left
out of htu). With --ticket (its text, - for standard input, or @PATH) the proof
carries ath, the hash of that text, as a bound ticket requires. --iat
defaults to now; verifiers accept a proof for 5 minutes after its iat.
The jti is random, so every proof is new: a verifier refuses a replay.
An Ed25519 key signs under the alg EdDSA, which every verifier of Ed25519
proofs knows; --alg Ed25519 uses RFC 9864's name instead, for a verifier
that accepts only that.

Example:
  tickettool proof make --key agent.jwk --htm POST \
      --htu mcp://workspace/read_file --ticket "$TICKET"
`

func runProofMake(e *env, args []string) error {
	fs := newFlags(e, "proof make", proofMakeUsage)
	keyPath := fs.String("key", "", "`HOLDER` private JWK file (from 'tickettool holder')")
	htm := fs.String("htm", "", "the call's `METHOD`, e.g. POST")
	htu := fs.String("htu", "", "the call's `URI`, e.g. mcp://workspace/read_file")
	ticket := fs.String("ticket", "", "the `TICKET` the proof goes with (adds ath; - for standard input, @PATH for a file)")
	nonce := fs.String("nonce", "", "the nonce `N` the verifier asked for")
	iatFlag := fs.String("iat", "", "issued-at `TIME` (RFC 3339 or unix seconds; default now)")
	alg := fs.String("alg", "", "the proof's `ALG`: ES256 for a P-256 key; EdDSA (default) or Ed25519 for an Ed25519 key")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("proof make takes no arguments (got %q)", pos[0])
	}
	if *htm == "" || *htu == "" {
		return usageErr("proof make needs --htm METHOD and --htu URI")
	}
	iat := e.now
	if *iatFlag != "" {
		if iat, err = parseTime("--iat", *iatFlag); err != nil {
			return err
		}
	}
	key, err := readHolderKey(*keyPath, "--key")
	if err != nil {
		return err
	}
	opts := dpop.MakeOptions{Nonce: *nonce, IssuedAt: iat, Algorithm: jose.SignatureAlgorithm(*alg)}
	if *ticket != "" {
		text, _, err := e.ticketArg(*ticket)
		if err != nil {
			return err
		}
		opts.AccessToken = text
	}
	p, err := dpop.Make(key, *htm, *htu, opts)
	if err != nil {
		return fail(exitUsage, err)
	}
	fmt.Fprintln(e.stdout, p)
	return nil
}

const proofCheckUsage = `
usage: tickettool proof check --htm METHOD --htu URI [--now TIME] [--ticket TEXT] [--jkt JKT]
                             [--nonce N] [--json] PROOF

Checks a DPoP proof (its text, - for standard input, or @PATH for a file;
whitespace around it is trimmed) as RFC 9449 §4.3 asks: typ, an allowed
asymmetric alg, a public-only JWK, the signature, htm, htu, iat within 5
minutes before now (30 seconds ahead allowed), the nonce when --nonce is
given, ath against TEXT (when --ticket is given; read from - or @PATH, it
is trimmed too) and the key thumbprint when --jkt is given. Prints the proof key's
thumbprint (jkt); a proof that fails a check prints nothing on standard
output, and the check and why on standard error (exit status 1). A single
check cannot detect replay: 'tickettool verify' remembers jtis within a
run, and a server must remember them across runs.

` + jsonRule + `The object's fields: decision ("valid" or "invalid"); jkt, the proof key's
thumbprint; htm, htu and iat (RFC 3339) as the proof states them; jti;
check, the check that failed (size, syntax, typ, alg, jwk, signature,
claims, htm, htu, iat, nonce, ath or jkt), and reason, why; hints, an
array of strings. jkt, htm, htu, iat and jti are "" when invalid; check
and reason are "" when valid.

Example:
  tickettool proof check --htm POST --htu mcp://workspace/read_file \
      --now 2026-06-01T10:00:10Z --ticket "$TICKET" --jkt "$JKT" "$PROOF"
`

func runProofCheck(e *env, args []string) error {
	fs := newFlags(e, "proof check", proofCheckUsage)
	htm := fs.String("htm", "", "the `METHOD` the proof must name")
	htu := fs.String("htu", "", "the `URI` the proof must name")
	nowFlag := fs.String("now", "", "check at `TIME` (RFC 3339 or unix seconds) instead of now")
	ticket := fs.String("ticket", "", "the ticket `TEXT` the proof's ath must hash (- for standard input, @PATH for a file)")
	jkt := fs.String("jkt", "", "the thumbprint `JKT` the proof's key must have")
	nonce := fs.String("nonce", "", "the nonce `N` the proof must carry")
	asJSON := fs.Bool("json", false, "print one JSON object (fields above)")
	pos, err := fs.parse(args)
	if err != nil {
		return err
	}
	arg, err := oneArg("proof check", pos, "PROOF")
	if err != nil {
		return err
	}
	if *htm == "" || *htu == "" {
		return usageErr("proof check needs --htm METHOD and --htu URI")
	}
	if arg == "-" && *ticket == "-" {
		return usageErr("only one argument can be read from standard input: the --ticket text or the proof")
	}
	now, err := e.nowFlag(*nowFlag)
	if err != nil {
		return err
	}
	exp := dpop.Expectations{Method: *htm, URI: *htu, Nonce: *nonce, Thumbprint: *jkt}
	if *ticket != "" {
		if exp.AccessToken, err = e.textArg(*ticket, "the ticket"); err != nil {
			return err
		}
	}
	proof, err := e.textArg(arg, "the proof")
	if err != nil {
		return err
	}
	p, err := dpop.Verify(proof, exp, now)
	var de *dpop.Error
	switch {
	case err != nil && errors.As(err, &de) && (de.Check == dpop.CheckSize || de.Check == dpop.CheckSyntax):
		return fail(exitUsage, err, "a DPoP proof is one compact JWS (three base64url parts), as 'tickettool proof make' prints it")
	case err != nil && !errors.As(err, &de):
		return err
	case *asJSON:
		return printProofJSON(e, p, de)
	case err != nil:
		return fail(exitRefused, err, proofHint(de.Check))
	}
	fmt.Fprintln(e.stdout, p.Thumbprint)
	return nil
}

// proofJSON is proof check --json's object.
type proofJSON struct {
	Decision string   `json:"decision"` // valid or invalid
	JKT      string   `json:"jkt"`
	HTM      string   `json:"htm"`
	HTU      string   `json:"htu"`
	IAT      string   `json:"iat"` // RFC 3339
	JTI      string   `json:"jti"`
	Check    string   `json:"check"` // the check that failed
	Reason   string   `json:"reason"`
	Hints    []string `json:"hints"`
}

// printProofJSON prints the outcome of one proof check: p when it
// passed, de when it did not.
func printProofJSON(e *env, p *dpop.Proof, de *dpop.Error) error {
	if de != nil {
		out := proofJSON{Decision: "invalid", Check: string(de.Check), Reason: de.Reason, Hints: []string{}}
		if h := proofHint(de.Check); h != "" {
			out.Hints = append(out.Hints, h)
		}
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
		return decidedErr("invalid")
	}
	return writeJSON(e.stdout, proofJSON{Decision: "valid", JKT: p.Thumbprint, HTM: p.Method, HTU: p.URI,
		IAT: p.IssuedAt.UTC().Format(time.RFC3339), JTI: p.JTI, Hints: []string{}})
}

func proofHint(c dpop.Check) string {
	switch c {
	case dpop.CheckIAT:
		return "a proof is accepted from its iat until 5 minutes later: make a fresh one (or check with --now near its iat)"
	case dpop.CheckNonce:
		return "make a new proof with --nonce set to the nonce the verifier asked for"
	case dpop.CheckATH:
		return "the proof was made for another ticket text: make it with --ticket and the exact ticket presented"
	case dpop.CheckJKT:
		return "the proof was signed by another key than the one the ticket is bound to"
	case dpop.CheckHTM, dpop.CheckHTU:
		return "make the proof for the exact method and URI of this call"
	}
	return ""
}
