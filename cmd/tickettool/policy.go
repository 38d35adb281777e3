package main

import (
	"strings"
	"time"

	"github.com/tickettool/tickettool/key"
	"github.com/tickettool/tickettool/verify"
)

// policyUsage documents the policy flags, in the usage of every command
// that takes them (verify, mcp).
const policyUsage = `Policy: the verifier's own, which no ticket can weaken.
  --aud NAME               this verifier's own name, for aud caveats
  --revoked FILE           refuse tickets holding a block id FILE lists
                           (one per line, # comments allowed)
  --require-expiry         refuse tickets without an until caveat
  --max-lifetime DURATION  refuse tickets expiring more than DURATION from now
  --require-holder         refuse tickets not bound to a holder key
  --skew DURATION          tolerate this clock skew for until and nbf
  --modes MODES            accept only these modes: hmac, ed25519 or
                           hmac,ed25519 (the default)
DURATION is Go's: 90s, 30m, 8h.
`

// policy is the value of the policy flags.
type policy struct {
	aud, revoked, modes          string
	requireExpiry, requireHolder bool
	maxLifetime, skew            time.Duration
}

// policyFlags registers the policy flags on fs.
func policyFlags(fs *cmdFlags) *policy {
	p := &policy{}
	fs.StringVar(&p.aud, "aud", "", "this verifier's own `NAME` (for aud caveats)")
	fs.StringVar(&p.revoked, "revoked", "", "`FILE` of revoked block ids")
	fs.BoolVar(&p.requireExpiry, "require-expiry", false, "refuse tickets without an until caveat")
	fs.DurationVar(&p.maxLifetime, "max-lifetime", 0, "refuse tickets expiring more than `DURATION` from now")
	fs.BoolVar(&p.requireHolder, "require-holder", false, "refuse tickets not bound to a holder key")
	fs.DurationVar(&p.skew, "skew", 0, "clock skew `DURATION` tolerated for until and nbf")
	fs.StringVar(&p.modes, "modes", "", "the `MODES` accepted: hmac, ed25519 or hmac,ed25519 (default both)")
	return p
}

// options returns the verify.Options the flags ask for.
func (p *policy) options() (verify.Options, error) {
	o := verify.Options{RequireExpiry: p.requireExpiry, RequireHolder: p.requireHolder, MaxLifetime: p.maxLifetime, Skew: p.skew}
	if p.maxLifetime < 0 || p.skew < 0 {
		return o, usageErr("--max-lifetime and --skew take a duration of zero or more")
	}
	if p.modes != "" {
		for s := range strings.SplitSeq(p.modes, ",") {
			m, err := key.ParseAlg(s)
			if err != nil || m == key.ES256 {
				return o, usageErr("--modes %q: want hmac, ed25519 or hmac,ed25519", p.modes)
			}
			o.Modes = append(o.Modes, m)
		}
	}
	if p.revoked != "" {
		set, err := parseRevoked(p.revoked)
		if err != nil {
			return o, err
		}
		o.Revoked = verify.RevokedSet(set)
	}
	return o, nil
}
