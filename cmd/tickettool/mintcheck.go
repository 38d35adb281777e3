package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/tickettool/tickettool/caveat"
	"github.com/tickettool/tickettool/token"
)

// checkMint refuses block-0 caveats that make a ticket nobody should
// carry by accident: one that never expires (unless noExpiry), one whose
// until is already past at now, and one that constrains nothing a call
// does (unless unrestricted). A mistake here is silent later: the verifier
// allows what the ticket allows.
func checkMint(cs []caveat.Caveat, now time.Time, noExpiry, unrestricted bool) error {
	var until *caveat.Caveat
	restricts := false
	for i, c := range cs {
		switch c.Kind {
		case caveat.Until:
			until = &cs[i]
		case caveat.Tools, caveat.Ops, caveat.Paths, caveat.Hosts, caveat.Audience:
			restricts = true
		}
	}
	switch {
	case until != nil && noExpiry:
		return usageErr("--no-expiry and until= contradict each other: give one")
	case until == nil && !noExpiry:
		return fail(exitUsage, errors.New("the ticket has no until: it would never expire"),
			"add until=DURATION or until=TIME (e.g. until=1h), or --no-expiry for a ticket that never expires")
	case until != nil && now.Unix() >= until.Time:
		exp := time.Unix(until.Time, 0).UTC()
		return fail(exitUsage, fmt.Errorf("until=%s is already past (%s ago)", exp.Format(time.RFC3339), agoText(now.Sub(exp))),
			"give an until in the future, e.g. until=1h (relative to now)")
	case !restricts && !unrestricted:
		return fail(exitUsage, errors.New("the ticket constrains nothing a call does: it names none of tools, ops, paths, hosts, aud"),
			"name what it allows, e.g. tools=read_file paths=src/, or pass --unrestricted for a ticket that allows every call")
	}
	return nil
}

// checkNotExpired refuses to extend a ticket that has already expired at
// now: every block appended to it would be dead on arrival, and a person
// attenuating it most likely holds the wrong ticket.
func checkNotExpired(t *token.Ticket, now time.Time) error {
	scope, err := t.UnverifiedScope()
	if err != nil {
		return nil // Attenuate reports the broken chain
	}
	for _, c := range scope.Effective() {
		if c.Kind == caveat.Until && now.Unix() >= c.Time {
			exp := time.Unix(c.Time, 0).UTC()
			return fail(exitRefused, fmt.Errorf("the ticket expired at %s (%s ago)", exp.Format(time.RFC3339), agoText(now.Sub(exp))),
				"an expired ticket cannot be extended: mint a new one")
		}
	}
	return nil
}

// agoText writes a duration for a person, in its two largest units
// ("3 days 4h", "2h5m", "4m10s", "9s").
func agoText(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= 48*time.Hour:
		days := d / (24 * time.Hour)
		return fmt.Sprintf("%d days %dh", days, (d-days*24*time.Hour)/time.Hour)
	case d >= time.Hour:
		return fmt.Sprintf("%dh%dm", d/time.Hour, (d%time.Hour)/time.Minute)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%ds", d/time.Minute, (d%time.Minute)/time.Second)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}
