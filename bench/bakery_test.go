package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/macaroon-bakery.v2/bakery/checkers"
)

// macaroonBakery is macaroon.v2 as the target names it: "with its bakery
// checkers". The token is macaroonV2's, byte for byte; the caveats are
// checked by a checkers.Checker from gopkg.in/macaroon-bakery.v2: its
// standard time-before checker (reading the time from the context, as a
// server passes its clock) and the three conditions the standard set
// lacks ("tools", "allow", "path-prefix"), registered in a namespace of
// their own with the empty prefix, so that the caveat text is the same.
type macaroonBakery struct{ *macaroonV2 }

func newMacaroonBakery() macaroonBakery { return macaroonBakery{newMacaroonV2()} }

func (macaroonBakery) name() string { return "macaroon.v2-bakery" }

// benchNamespace is the schema URI of the three registered conditions.
const benchNamespace = "tickettool-bench"

type requestKey struct{}

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// newBakeryChecker returns the checker a server would build once.
func newBakeryChecker() *checkers.Checker {
	c := checkers.New(nil)
	c.Namespace().Register(benchNamespace, "")
	in := func(get func(request) string) checkers.Func {
		return func(ctx context.Context, cond, arg string) error {
			r, ok := ctx.Value(requestKey{}).(request)
			if !ok {
				return errors.New("no request in context")
			}
			if v := get(r); !listed(arg, v) {
				return fmt.Errorf("%s: %q not allowed", cond, v)
			}
			return nil
		}
	}
	c.Register("tools", benchNamespace, in(func(r request) string { return r.Tool }))
	c.Register("allow", benchNamespace, in(func(r request) string { return r.Op }))
	c.Register("path-prefix", benchNamespace, func(ctx context.Context, _, arg string) error {
		r, ok := ctx.Value(requestKey{}).(request)
		if !ok {
			return errors.New("no request in context")
		}
		if !strings.HasPrefix(r.Path, arg) {
			return fmt.Errorf("path %q not allowed", r.Path)
		}
		return nil
	})
	return c
}

func (m macaroonBakery) verifier(_ testing.TB, enc []byte, req request) func() error {
	checker := newBakeryChecker()
	ctx := checkers.ContextWithClock(context.Background(), fixedClock(req.Now))
	ctx = context.WithValue(ctx, requestKey{}, req)
	check := func(cav string) error { return checker.CheckFirstPartyCaveat(ctx, cav) }
	return m.decodeAndVerify(enc, check)
}
