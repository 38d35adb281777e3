// Package bench compares tickettool with its peers (gopkg.in/macaroon.v2,
// github.com/superfly/macaroon and github.com/biscuit-auth/biscuit-go/v2) on
// one scenario: a root ticket with one resource caveat, attenuated with an
// expiry, an allowed-operations list and a path prefix, then encoded,
// decoded and verified against one request.
//
// It is a module of its own so that the main module never depends on a
// competitor. Everything lives in the package's tests and benchmarks; see
// README.md for how to run them and what they measured, and cmd/benchtable
// for the program that turns a results file into the README's tables.
package bench
