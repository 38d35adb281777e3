package vecgen

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/guard"
	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Keyring builds the verifier's keyring of a vector: HMAC secrets, and
// Ed25519 public keys only.
func (f *File) Keyring(names []string) (*token.Keyring, error) {
	var vks []*key.Verifying
	for _, name := range names {
		k, ok := f.Keys[name]
		if !ok {
			return nil, fmt.Errorf("no key %q", name)
		}
		switch k.Mode {
		case "hmac":
			secret, _ := hex.DecodeString(k.Secret)
			sk, err := key.NewHMAC(name, secret)
			if err != nil {
				return nil, err
			}
			vks = append(vks, sk.Verifying())
		case "ed25519":
			pub, _ := hex.DecodeString(k.Public)
			vk, err := key.NewEd25519Public(name, pub)
			if err != nil {
				return nil, err
			}
			vks = append(vks, vk)
		default:
			return nil, fmt.Errorf("key %q: unknown mode %q", name, k.Mode)
		}
	}
	return token.NewKeyring(vks...)
}

// Run runs one vector against the Go implementation: decoding, the
// intermediate values a verifier exposes, and every request's decision.
func (f *File) Run(v *Vector) error {
	var t *token.Ticket
	var err error
	data, herr := hex.DecodeString(v.TicketHex)
	if v.Ticket != "" {
		t, err = token.Parse(v.Ticket)
		if err == nil && (herr != nil || !bytes.Equal(t.Encode(), data)) {
			return errors.New("text and ticket_hex disagree")
		}
	} else {
		if herr != nil {
			return fmt.Errorf("bad ticket_hex: %v", herr)
		}
		t, err = token.Decode(data)
	}
	switch v.Error {
	case "malformed":
		if !errors.Is(err, token.ErrMalformed) {
			return fmt.Errorf("decoding gave %v, want ErrMalformed", err)
		}
		return nil
	case "":
		if err != nil {
			return fmt.Errorf("decoding: %v", err)
		}
	default:
		return fmt.Errorf("unknown error class %q", v.Error)
	}
	keys, err := f.Keyring(v.Keyring)
	if err != nil {
		return err
	}
	opts, err := v.Options.verifyOptions()
	if err != nil {
		return err
	}
	if im := v.Intermediate; im != nil {
		for i, b := range t.UnverifiedBlocks() {
			if i >= len(im.Blocks) || hex.EncodeToString(b.Bytes()) != im.Blocks[i] {
				return fmt.Errorf("block %d bytes differ from intermediate", i)
			}
		}
	}
	var l *ledger
	if v.Sequence {
		l = &ledger{guard.NewMemoryStore()}
	}
	reason := ""
	if m := normativeReason.FindStringSubmatch(v.Description); m != nil && len(v.Requests) == 1 {
		reason = m[1]
	}
	for i := range v.Requests {
		if err := runRequest(t, keys, opts, &v.Requests[i], v.Intermediate, l, reason); err != nil {
			return fmt.Errorf("request %d: %w", i, err)
		}
	}
	return nil
}

// normativeReason finds, in a vector's description, the reason FORMAT.md
// §7 step 6a fixes byte for byte (a missing approval, a threshold not
// reached): with one request, one of its refusals must say exactly that.
var normativeReason = regexp.MustCompile(`the reason (?:is )?"([^"]+)"`)

func runRequest(t *token.Ticket, keys *token.Keyring, opts *verify.Options, r *Request, im *Intermediate, l *ledger, reason string) error {
	now, err := time.Parse(time.RFC3339, r.Now)
	if err != nil {
		return err
	}
	req := &caveat.Request{Tool: r.Tool, Op: r.Op, Paths: r.Paths, URLs: r.URLs, Audience: r.Audience}
	if r.Cost != "" {
		a, err := caveat.ParseAmount(r.Cost)
		if err != nil {
			return err
		}
		req.Cost = &a
	}
	if r.DPoP != nil {
		req.Holder = &caveat.HolderProof{Proof: r.DPoP.Proof, Method: r.DPoP.Method, URI: r.DPoP.URI, Nonce: r.DPoP.Nonce}
	}
	if err := requestExtras(req, r); err != nil {
		return err
	}
	d, err := verify.Verify(t, req, keys, now, opts)
	if err != nil || r.Expect == "malformed" {
		return checkMalformed(err, r)
	}
	if im != nil && d.BlockIDs != nil {
		for i, id := range d.BlockIDs {
			if id.String() != im.BlockIDs[i] {
				return fmt.Errorf("block id %d differs from intermediate", i)
			}
		}
	}
	got := "refused"
	if d.Allowed {
		got = "allowed"
	}
	if got != r.Expect {
		return fmt.Errorf("got %s %v, want %s", got, d.Refusals, r.Expect)
	}
	if len(d.Refusals) != len(r.Refusals) {
		return fmt.Errorf("got refusals %v, want %v", d.Refusals, r.Refusals)
	}
	for i, f := range d.Refusals {
		kind := ""
		if f.Kind != 0 {
			kind = f.Kind.String()
		}
		w := r.Refusals[i]
		if string(f.Check) != w.Check || f.Block != w.Block || kind != w.Kind {
			return fmt.Errorf("refusal %d is %q, want %+v", i, f, w)
		}
	}
	if reason != "" && !slices.ContainsFunc(d.Refusals, func(f verify.Refusal) bool { return f.Reason == reason }) {
		return fmt.Errorf("no refusal says %q: %v", reason, d.Refusals)
	}
	if err := checkCarried(&d, r); err != nil {
		return err
	}
	return l.charge(&d, req, r, now)
}

// checkCarried compares what the decision carries for the caller: the
// block ids (exactly), and the budgets of an allowed decision (exactly).
func checkCarried(d *verify.Decision, r *Request) error {
	ids := make([]string, len(d.BlockIDs))
	for i, id := range d.BlockIDs {
		ids[i] = id.String()
	}
	if !slices.Equal(ids, r.BlockIDs) {
		return fmt.Errorf("block ids %v, want %v", ids, r.BlockIDs)
	}
	if !d.Allowed {
		if len(r.Budgets) > 0 || len(r.Approvals) > 0 {
			return errors.New("a refused request lists budgets or approvals")
		}
		return nil
	}
	budgets := make([]Budget, len(d.Budgets))
	for i, b := range d.Budgets {
		budgets[i] = Budget{Block: b.Block, Kind: b.Kind.String(), Key: b.Key.String(), Limit: strconv.FormatUint(b.Calls, 10),
			Discharge: dischargeOf(d, b)}
		if b.Kind == caveat.Total {
			budgets[i].Limit, budgets[i].Currency = strconv.FormatUint(b.Total.Micros, 10), b.Total.Currency
		}
	}
	if !sameJSON(budgets, nonNil(r.Budgets)) {
		return fmt.Errorf("budgets %+v, want %+v", budgets, r.Budgets)
	}
	if got := decisionApprovals(d); !sameJSON(got, r.Approvals) {
		return fmt.Errorf("approvals %+v, want %+v", got, r.Approvals)
	}
	return nil
}

// verifyOptions turns a vector's options into the Go verifier's; nil
// means the defaults.
func (o *Options) verifyOptions() (*verify.Options, error) {
	opts := &verify.Options{}
	if o == nil {
		return opts, nil
	}
	opts.Skew = time.Duration(o.SkewSeconds) * time.Second
	opts.RequireHolder, opts.RequireExpiry = o.RequireHolder, o.RequireExpiry
	opts.MaxLifetime = time.Duration(o.MaxLifetimeSeconds) * time.Second
	for _, a := range o.DPoPAlgorithms {
		opts.DPoP.Algorithms = append(opts.DPoP.Algorithms, verify.Algorithm(a))
	}
	opts.DPoP.MaxAge = time.Duration(o.DPoPMaxAgeSeconds) * time.Second
	opts.DPoP.FutureSkew = time.Duration(o.DPoPFutureSkewSeconds) * time.Second
	for _, m := range o.Modes {
		switch m {
		case "hmac":
			opts.Modes = append(opts.Modes, key.HMACSHA256)
		case "ed25519":
			opts.Modes = append(opts.Modes, key.Ed25519)
		default:
			return nil, fmt.Errorf("unknown mode %q", m)
		}
	}
	revoked := verify.RevokedSet{}
	for _, s := range o.Revoked {
		id, err := token.ParseBlockID(s)
		if err != nil {
			return nil, err
		}
		revoked[id] = struct{}{}
	}
	opts.Revoked = revoked
	return opts, nil
}

// checkRequests is the generator's check that a vector's expectations are
// what the Go verifier says.
func (g *gen) checkRequests(v *Vector) error {
	if err := g.file.Run(v); err != nil {
		return fmt.Errorf("vecgen: %s: %w", v.Name, err)
	}
	return nil
}
