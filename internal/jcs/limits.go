package jcs

// Limits. Every numeric bound of the package lives here.
const (
	// MaxInputBytes bounds the input of Canonical: arguments of one tool
	// call, never a bulk document.
	MaxInputBytes = 1 << 20
	// MaxDepth bounds how deeply arrays and objects nest (the top-level
	// value, if an array or object, is at depth 1).
	MaxDepth = 32
)
