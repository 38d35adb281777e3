// Package caveat holds the caveat kinds of a capability ticket: their text
// form (KEY=VALUE, as typed on a command line), the check of one caveat
// against one request, and the narrowing relation that attenuation and
// verification use (Scope). Their CBOR value form (spec/FORMAT.md §5) is
// not this package's: the ticket's wire layer (internal/wire, used by
// package token) writes and reads it, and calls Valid.
//
// # Values
//
// A [Caveat] is a value. Every function that returns one (the New
// constructors, [Parse], and the ticket decoder) returns it valid and
// canonical (Valid returns nil): lists
// sorted bytewise and free of duplicates, path prefixes ending in "/", host
// patterns lowercase, and every field that the kind does not use left zero.
// Treat the slices of a Caveat as immutable once it exists: Scope keeps
// them without copying.
//
// The text form of a valid caveat of a known kind round-trips exactly:
//
//	Parse(c.String(), anyNow) == c
//
// and so does its CBOR value, in both directions, byte for byte.
//
// A caveat of a kind this package does not know (for example one written
// by a newer version) decodes into Caveat{[Kind]: k, Raw: raw} so its ticket
// re-encodes identically; it has no text form, String prints it as
// "kind(42)=<hex of the CBOR value>" and Parse refuses that. Check refuses
// it: unknown kinds fail closed.
//
// # Errors
//
// Every error is an *[Error] whose Err is one of three sentinels, so callers
// use errors.Is: ErrSyntax for malformed text or CBOR, [ErrRefused] for a
// request that does not satisfy a caveat, [ErrWiden] for a caveat that is not
// at least as strict as the effective constraint before it. Reasons are
// written for a person; values taken from a request are echoed at most
// 128 bytes long and quoted whenever they contain anything but printable
// ASCII.
//
// # Time
//
// This package never reads the clock: every function that needs "now"
// takes it as an argument.
package caveat
