package vecgen

import (
	"slices"
	"strconv"

	"github.com/fxamacker/cbor/v2"

	"github.com/tickettool/tickettool/internal/wire"
	"github.com/tickettool/tickettool/token"
)

// expectCarried fills in what each request's decision must carry (spec
// FORMAT.md §7, last paragraph), computed from the spec alone: the block
// ids whenever the chain verifies (no key, mode or chain refusal), and on
// allowed requests the budgets of every calls and total caveat.
func (g *gen) expectCarried(v *Vector, t *token.Ticket, key string) error {
	var im *Intermediate
	for i := range v.Requests {
		r := &v.Requests[i]
		if r.Expect == "malformed" || len(r.Refusals) > 0 && slices.Contains([]string{"key", "mode", "chain"}, r.Refusals[0].Check) {
			continue
		}
		if im == nil {
			var err error
			if im, err = intermediate(t.Encode(), g.keys[key]); err != nil {
				return err
			}
		}
		r.BlockIDs = im.BlockIDs
		if r.Expect == "allowed" {
			bs, err := budgets(im)
			if err != nil {
				return err
			}
			r.Budgets = bs
		}
	}
	return nil
}

// budgets lists the calls (kind 5) and total (kind 10) caveats of a valid
// chain, blocks in order and kinds ascending, each keyed by its block's id.
func budgets(im *Intermediate) ([]Budget, error) {
	var out []Budget
	for i, hb := range im.Blocks {
		var wb wire.Block
		if err := cbor.Unmarshal(mustHex(hb), &wb); err != nil {
			return nil, err
		}
		if raw, ok := wb.Caveats[5]; ok {
			var n uint64
			if err := cbor.Unmarshal(raw, &n); err != nil {
				return nil, err
			}
			out = append(out, Budget{Block: i, Kind: "calls", Key: im.BlockIDs[i], Limit: strconv.FormatUint(n, 10)})
		}
		if raw, ok := wb.Caveats[10]; ok {
			var a struct {
				_        struct{} `cbor:",toarray"`
				Micros   uint64
				Currency string
			}
			if err := cbor.Unmarshal(raw, &a); err != nil {
				return nil, err
			}
			out = append(out, Budget{Block: i, Kind: "total", Key: im.BlockIDs[i],
				Limit: strconv.FormatUint(a.Micros, 10), Currency: a.Currency})
		}
	}
	return out, nil
}
