package secrettest

import (
	"fmt"
	"strings"
)

// Verbs are the fmt verbs (with flags) a key is printed with in Check.
var Verbs = []string{
	"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "% x", "%#x", "%d", "%o",
	"%10v", "%-12s", "%.4s", "%T", "%p",
}

type inner[T any] struct {
	k *T
	v T
	a any
}

// Outer holds a key every way a program might: by pointer and by value,
// in exported and unexported fields, in an interface, nested, and in
// slices, maps and arrays.
type Outer[T any] struct {
	K  *T
	V  T
	A  any
	k  *T
	v  T
	a  any
	In inner[T]
	in inner[T]
	S  []*T
	SV []T
	M  map[string]*T
	MV map[string]T
	R  [1]T
}

// holders returns the ways p's key is handed to fmt in Check.
func holders[T any](p *T) []any {
	in := inner[T]{k: p, v: *p, a: *p}
	o := Outer[T]{
		K: p, V: *p, A: *p, k: p, v: *p, a: *p, In: in, in: in,
		S: []*T{p}, SV: []T{*p}, M: map[string]*T{"k": p}, MV: map[string]T{"k": *p}, R: [1]T{*p},
	}
	return []any{p, *p, o, &o, []*T{p}, []T{*p}, map[string]T{"k": *p}, [1]T{*p},
		struct{ x any }{p}, struct{ x any }{*p}, struct{ x T }{*p}}
}

// Check prints the key *p with every verb in Verbs, as the operand and
// nested in every holder above, and with Sprint, Sprintln and Errorf; it
// returns a description of the first output that shows any Window bytes
// of secret (see Forms), or "" when none does.
func Check[T any](p *T, secret []byte) string {
	for i, h := range holders(p) {
		outs := []string{fmt.Sprint(h), fmt.Sprintln(h), fmt.Errorf("wrapped: %v", h).Error()}
		for _, verb := range Verbs {
			outs = append(outs, fmt.Sprintf(verb, h))
		}
		for j, out := range outs {
			if f := Find(out, secret); f != "" {
				what := "Sprint/Sprintln/Errorf"
				if j >= 3 {
					what = Verbs[j-3]
				}
				return fmt.Sprintf("holder %d (%T), %s shows %q of the secret: %s", i, h, what, f, strings.TrimSpace(out))
			}
		}
	}
	return ""
}

// CheckRedacted prints the key *p, as a pointer and as a value, with every
// verb in Verbs but %T and %p, and returns a description of the first
// output that is not exactly want (the key's redacted form), or "". It
// holds a type to a Format method that covers every verb.
func CheckRedacted[T any](p *T, want string) string {
	for _, h := range []any{p, *p} {
		for _, verb := range Verbs {
			if verb == "%T" || verb == "%p" {
				continue
			}
			if out := fmt.Sprintf(verb, h); out != want {
				return fmt.Sprintf("%s of %T prints %q, want %q", verb, h, out, want)
			}
		}
	}
	return ""
}
