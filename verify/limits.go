package verify

import "github.com/tickettool/tickettool/token"

// The limits of step 6a (spec/FORMAT.md §6).
const (
	// MaxDischarges is how many discharges one request may carry; more is
	// malformed input.
	MaxDischarges = 8
	// MaxDischargeLifetime bounds until − now of a discharge (§7 step 6a,
	// sub-step 4): an approval is short-lived by rule, not by setting.
	MaxDischargeLifetime = token.MaxDischargeLifetime
)
