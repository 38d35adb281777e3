package jcs

// Limits. Every numeric bound of the package lives here.
const (
	// MaxInputBytes bounds the input of Canonical: arguments of one tool
	// call, never a bulk document.
	MaxInputBytes = 1 << 20
	// MaxDepth bounds how deeply values nest: the top-level value is at
	// depth 0, a member's value or an array's element one deeper than
	// the object or array holding it (CAVEATS.md, "The args digest"; the
	// rule of DPoP's JSON, FORMAT.md §4.5 step 2).
	MaxDepth = 32
)

// maxExponentDigits bounds the significant digits of a number's written
// exponent that are read: a longer exponent (beyond 10^18) puts every
// non-zero number outside a double's range.
const maxExponentDigits = 18
