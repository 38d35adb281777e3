package guard

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/dpop"
	"github.com/tickettool/tickettool/token"
	"github.com/tickettool/tickettool/verify"
)

// Plan is an admission checked and reduced to what a store compares and
// writes. Store implementations build one with [Prepare], so that every
// store checks input the same way and names counters the same way.
type Plan struct {
	Family token.BlockID
	// Revocable are the ids the admission is refused for if one is revoked
	// in the family: Blocks, then Discharges (the Verdict's Index is the
	// index here).
	Revocable []token.BlockID
	Digest    [32]byte // the admission's content: a retry must match it
	Replay    [32]byte // ReplayDigest of the replay key, when Admission.Replay is set
	Charges   []Charge // one per budget, in order
	// Keep is until when the verdict is kept for retries:
	// RequestRetention after the latest of Now, HoldUntil and the
	// replay entry's Until.
	Keep time.Time
	// Hold reports whether the reservation is held (HoldUntil after Now)
	// rather than captured at once.
	Hold bool
}

// Charge is what one budget asks of its counter: room for Amount more
// under [Limit].
type Charge struct {
	Counter Counter
	Limit   uint64 // calls, or micros of the counter's currency
	Amount  uint64 // 1 for calls, the cost's micros for a total
	// Mismatch is set for a total budget and a call with no cost or a
	// cost in another currency: the budget refuses the call whatever
	// it holds.
	Mismatch bool
}

// Counter names a budget counter: the block that set it, the kind, and
// a total's currency. Counters are shared by every ticket descending from
// that block.
type Counter struct {
	Key      token.BlockID
	Kind     caveat.Kind // caveat.Calls or caveat.Total
	Currency string      // a total's currency; empty for calls
}

// String returns a stable name: "HEX.calls" or "HEX.total.USD".
func (c Counter) String() string {
	s := hex.EncodeToString(c.Key[:]) + "." + c.Kind.String()
	if c.Currency != "" {
		s += "." + c.Currency
	}
	return s
}

// CounterOf returns the counter of budget b.
func CounterOf(b verify.Budget) Counter {
	c := Counter{Key: b.Key, Kind: b.Kind}
	if b.Kind == caveat.Total {
		c.Currency = b.Total.Currency
	}
	return c
}

// Limit returns b's limit: calls, or micros of its currency.
func Limit(b verify.Budget) uint64 {
	if b.Kind == caveat.Total {
		return b.Total.Micros
	}
	return b.Calls
}

// Prepare checks a and returns its plan, or an error matching [ErrInvalid].
func Prepare(a *Admission) (Plan, error) {
	if err := check(a); err != nil {
		return Plan{}, err
	}
	p := Plan{Family: a.Blocks[0], Revocable: a.Blocks, Digest: digest(a), Charges: make([]Charge, len(a.Budgets))}
	if len(a.Discharges) > 0 {
		p.Revocable = append(a.Blocks[:len(a.Blocks):len(a.Blocks)], a.Discharges...)
	}
	for i, b := range a.Budgets {
		c := Charge{Counter: CounterOf(b), Limit: Limit(b), Amount: 1}
		if b.Kind == caveat.Total {
			if a.Cost == nil || a.Cost.Currency != b.Total.Currency {
				c.Mismatch, c.Amount = true, 0
			} else {
				c.Amount = a.Cost.Micros
			}
		}
		p.Charges[i] = c
	}
	last := a.Now
	if a.HoldUntil.After(last) {
		last = a.HoldUntil
		p.Hold = true
	}
	if a.Replay != nil {
		p.Replay = ReplayDigest(a.Replay.Key)
		if a.Replay.Until.After(last) {
			last = a.Replay.Until
		}
	}
	p.Keep = last.Add(RequestRetention)
	return p, nil
}

// Room reports whether a counter holding spent has room for c. Stores use
// it, or its equivalent in their own language, for every budget.
func (c Charge) Room(spent uint64) bool {
	return !c.Mismatch && c.Amount <= c.Limit && spent <= c.Limit-c.Amount
}

// ReplayDigest returns the SHA-256 of a replay key's jti and URI, so that
// stores keep a fixed-size key whatever their length.
func ReplayDigest(k dpop.ReplayKey) [32]byte {
	var buf [512]byte
	b := append(buf[:0], "tickettool/v1 replay key\x00"...)
	b = appendString(b, k.JTI)
	b = appendString(b, k.URI)
	return sha256.Sum256(b)
}

// digest identifies what an admission asks, apart from its times, so that
// a retry of the same call matches and a reused request id does not.
func digest(a *Admission) [32]byte {
	var buf [1024]byte
	b := append(buf[:0], "tickettool/v1 admission\x00"...)
	b = binary.BigEndian.AppendUint64(b, uint64(len(a.Blocks)))
	for _, id := range a.Blocks {
		b = append(b, id[:]...)
	}
	if a.Replay != nil {
		b = binary.BigEndian.AppendUint64(b, 1)
		b = appendString(b, a.Replay.Key.JTI)
		b = appendString(b, a.Replay.Key.URI)
	} else {
		b = binary.BigEndian.AppendUint64(b, 0)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(len(a.Budgets)))
	for _, bu := range a.Budgets {
		b = binary.BigEndian.AppendUint64(b, uint64(bu.Block))
		b = binary.BigEndian.AppendUint64(b, uint64(bu.Kind))
		b = binary.BigEndian.AppendUint64(b, Limit(bu))
		b = appendString(b, CounterOf(bu).Currency)
	}
	if a.Cost != nil {
		b = binary.BigEndian.AppendUint64(b, 1)
		b = binary.BigEndian.AppendUint64(b, a.Cost.Micros)
		b = appendString(b, a.Cost.Currency)
	} else {
		b = binary.BigEndian.AppendUint64(b, 0)
	}
	// Only when present, so that an admission without discharges keeps
	// the digest it had before they existed (a retry across an upgrade
	// still matches). A budget's key is in the digest through them.
	if len(a.Discharges) > 0 {
		b = append(b, "discharges\x00"...)
		b = binary.BigEndian.AppendUint64(b, uint64(len(a.Discharges)))
		for _, id := range a.Discharges {
			b = append(b, id[:]...)
		}
	}
	return sha256.Sum256(b)
}

// appendString appends s with its length in front, so that no two
// sequences of strings encode alike.
func appendString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint64(b, uint64(len(s))), s...)
}
