package vecgen

import (
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// MalformedTicket is the Expect of an Outcome whose ticket does not decode.
const MalformedTicket = "malformed ticket"

// Outcome decides request r of vector v (whose ticket, keyring and options
// may be anything, valid or not) with the Go verifier and returns what a
// vector would pin, in the vectors' form: Expect ("allowed", "refused",
// "malformed" with Discharge for a discharge that does not decode, or
// MalformedTicket), Refusals, BlockIDs, and on an allowed request Budgets
// and Approvals. Another implementation's answer in the same form can be
// compared byte for byte after a JSON round trip. The error is for a
// vector this package cannot run (an unknown key name, a bad amount).
func (f *File) Outcome(v *Vector, r *Request) (*Request, error) {
	var t *token.Ticket
	var err error
	if v.Ticket != "" {
		t, err = token.Parse(v.Ticket)
	} else {
		data, herr := hex.DecodeString(v.TicketHex)
		if herr != nil {
			return nil, herr
		}
		t, err = token.Decode(data)
	}
	if err != nil {
		if !errors.Is(err, token.ErrMalformed) {
			return nil, err
		}
		return &Request{Expect: MalformedTicket}, nil
	}
	keys, err := f.Keyring(v.Keyring)
	if err != nil {
		return nil, err
	}
	opts, err := v.Options.verifyOptions()
	if err != nil {
		return nil, err
	}
	now, err := time.Parse(time.RFC3339, r.Now)
	if err != nil {
		return nil, err
	}
	req := &caveat.Request{Tool: r.Tool, Op: r.Op, Paths: r.Paths, URLs: r.URLs, Audience: r.Audience}
	if r.Cost != "" {
		a, err := caveat.ParseAmount(r.Cost)
		if err != nil {
			return nil, err
		}
		req.Cost = &a
	}
	if r.DPoP != nil {
		req.Holder = &caveat.HolderProof{Proof: r.DPoP.Proof, Method: r.DPoP.Method, URI: r.DPoP.URI, Nonce: r.DPoP.Nonce}
	}
	if err := requestExtras(req, r); err != nil {
		return nil, err
	}
	d, err := verify.Verify(t, req, keys, now, opts)
	if err != nil {
		var de *verify.DischargeError
		if !errors.Is(err, token.ErrMalformed) || !errors.As(err, &de) {
			return nil, err
		}
		out := &Request{Expect: "malformed"}
		if de.Index >= 0 {
			i := de.Index
			out.Discharge = &i
		}
		return out, nil
	}
	out := &Request{Expect: "refused"}
	if d.Allowed {
		out.Expect = "allowed"
	}
	for _, x := range d.Refusals {
		kind := ""
		if x.Kind != 0 {
			kind = x.Kind.String()
		}
		out.Refusals = append(out.Refusals, Refusal{Check: string(x.Check), Block: x.Block, Kind: kind})
	}
	for _, id := range d.BlockIDs {
		out.BlockIDs = append(out.BlockIDs, id.String())
	}
	if d.Allowed {
		for _, b := range d.Budgets {
			x := Budget{Block: b.Block, Kind: b.Kind.String(), Key: b.Key.String(), Limit: strconv.FormatUint(b.Calls, 10),
				Discharge: dischargeOf(&d, b)}
			if b.Kind == caveat.Total {
				x.Limit, x.Currency = strconv.FormatUint(b.Total.Micros, 10), b.Total.Currency
			}
			out.Budgets = append(out.Budgets, x)
		}
		out.Approvals = decisionApprovals(&d)
	}
	return out, nil
}
