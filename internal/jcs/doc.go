// Package jcs writes the RFC 8785 JSON Canonicalization Scheme (JCS)
// form of a JSON text, so that two encodings of the same arguments hash
// alike (caveat.ArgsDigest).
//
// Canonical reads strictly and refuses, rather than repairs, what RFC 8785
// §3.1 excludes (its input must be I-JSON, RFC 7493): invalid UTF-8,
// escapes of lone surrogates, duplicate member names (compared after
// unescaping), and numbers that are not finite IEEE 754 doubles. It also
// refuses input over MaxInputBytes, nesting deeper than MaxDepth, a
// number whose canonical form has another decimal value than the number
// as written (beyond a double's range, rounding to zero, losing digits:
// CAVEATS.md, "The args digest"), so that one digest means one set of
// numbers (RFC 8785 would round them), and two member names of one
// object, at any depth, that are equal under Unicode simple case folding
// (FoldName), so that one digest means one call to a server that decodes
// with encoding/json, which reads such names as one member, the last one
// (the canonical form sorts them, so both orders would have one digest).
// The output is RFC 8785 §3.2: no insignificant whitespace, members
// sorted by the UTF-16 code units of their names (§3.2.3), strings
// escaped as §3.2.2.2 says, numbers written as ECMAScript's
// Number.prototype.toString writes them (§3.2.2.3). I-JSON's ban on
// Unicode noncharacters is not enforced: they pass through unchanged, as
// encoding/json keeps them.
//
// No allowed dependency of this module implements JCS, so this one is
// written by hand; its tests hold it to the RFC's examples and its number
// table, to encoding/json, and (when node is installed) to a real
// ECMAScript engine.
package jcs
